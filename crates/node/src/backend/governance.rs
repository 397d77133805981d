//! Governance reads for the API: the governance actor's records in the latest applied state,
//! decoded into the `drover_types::api` governance records.
//!
//! Parameters are one record. Proposals are numbered slots: a page without a status filter
//! costs one lookup per proposal in it; with a filter (a status follows from the height, so no
//! index can hold it), one per proposal among the latest [`STATUS_FILTER_WINDOW`], whatever the
//! number ever made. A proposal's votes are numbered too: one lookup per vote in the page.
//! All reads of one request happen under one read lock and see one state.

use super::{handle::NodeHandle, pages::read_storage};
use crate::error::NodeError;
use drover_rpc::backend::GovernanceBackend;
use drover_rpc::pagination::Page;
use drover_state::{
    decode_count,
    governance::{
        Closed, ProposalRecord, VoteRecord, decode_amount, decode_params, params_key, proposal_count_key, proposal_key,
        total_locked_key, vote_key,
    },
};
use drover_types::{
    api::{GovernanceParams, ParamInfo, ProposalDetail, ProposalInfo, ProposalList, TimelineEntry, VoteInfo},
    error::ApiError,
    governance::{GOVERNANCE_ADDRESS, ProposalStatus},
};

/// Most recent proposals a status filter looks through: a filtered page costs at most this many
/// lookups however many proposals the chain holds.
pub(super) const STATUS_FILTER_WINDOW: u64 = 1_024;

/// The proposal ids a listing reads: only the page's without a filter (the status is known
/// once read, so a filter reads the latest [`STATUS_FILTER_WINDOW`]).
fn examined(count: u64, filtered: bool, page: &Page) -> std::ops::Range<u64> {
    if filtered {
        count.saturating_sub(STATUS_FILTER_WINDOW)..count
    } else {
        page.offset.min(count)..page.offset.saturating_add(page.limit).min(count)
    }
}

/// The height whose status the API shows when `tip` is finalized: the next block's, where a
/// transaction sent now lands (at the tip `voting_ends_height - 1`, a vote is already refused).
fn status_height(tip: u64) -> u64 {
    tip.saturating_add(1)
}

/// The proposal as the API shows it, with its `status`.
fn info(id: u64, record: ProposalRecord, status: ProposalStatus) -> ProposalInfo {
    ProposalInfo {
        id,
        proposer: record.proposer,
        status: status.as_str().to_owned(),
        changes: record.changes.iter().map(|(name, value)| (name.clone(), value.to_string())).collect(),
        description: record.description,
        votes_for: record.votes_for,
        votes_against: record.votes_against,
        votes_count: record.votes,
        quorum_weight: record.quorum_weight,
        approval_percent: record.approval_percent,
        deposit: record.deposit,
        created_height: record.created_height,
        voting_ends_height: record.voting_ends_height,
        executable_height: record.executable_height,
        expires_height: record.expires_height,
        closed_height: record.closed_height,
    }
}

fn timeline(record: &ProposalRecord) -> Vec<TimelineEntry> {
    let mut entries = vec![
        ("created", record.created_height),
        ("voting_ends", record.voting_ends_height),
        ("executable", record.executable_height),
        ("expires", record.expires_height),
    ];
    if let (Some(closed), Some(height)) = (record.closed, record.closed_height) {
        let word = match closed {
            Closed::Executed => "executed",
            Closed::Rejected => "rejected",
            Closed::Expired => "expired",
        };
        entries.push((word, height));
    }
    entries.sort_by_key(|(_, height)| *height);
    entries.into_iter().map(|(event, height)| TimelineEntry { event: event.to_owned(), height }).collect()
}

impl GovernanceBackend for NodeHandle {
    async fn governance_params(&self) -> Result<GovernanceParams, ApiError> {
        let tip = self.0.chain.tip();
        let db = self.0.databases.read().await;
        let live =
            read_storage(&*db, &GOVERNANCE_ADDRESS, &params_key(), decode_params).await?.unwrap_or(tip.next_params);
        let total_locked =
            read_storage(&*db, &GOVERNANCE_ADDRESS, &total_locked_key(), decode_amount).await?.unwrap_or(0);
        Ok(GovernanceParams { height: tip.height, params: ParamInfo::all(&live), total_locked })
    }

    async fn proposals(&self, status: Option<ProposalStatus>, page: Page) -> Result<ProposalList, ApiError> {
        let at = status_height(self.0.chain.tip().height);
        let db = self.0.databases.read().await;
        let count = read_storage(&*db, &GOVERNANCE_ADDRESS, &proposal_count_key(), decode_count).await?.unwrap_or(0);
        let offset = usize::try_from(page.offset).unwrap_or(usize::MAX);
        let limit = usize::try_from(page.limit).unwrap_or(usize::MAX);
        let mut proposals = Vec::new();
        let mut total_count = 0u64;
        for id in examined(count, status.is_some(), &page) {
            let record = read_storage(&*db, &GOVERNANCE_ADDRESS, &proposal_key(id), ProposalRecord::decode)
                .await?
                .ok_or_else(|| NodeError::missing("governance: a proposal below the count"))?;
            let now = record.status(at);
            if status.is_some_and(|s| now != s) {
                continue;
            }
            total_count += 1;
            if status.is_none() || (total_count as usize > offset && proposals.len() < limit) {
                proposals.push(info(id, record, now));
            }
        }
        let total_count = if status.is_none() { count } else { total_count };
        Ok(ProposalList { proposals, total_count, offset: page.offset, limit: page.limit })
    }

    async fn proposal(&self, id: u64, page: Page) -> Result<Option<ProposalDetail>, ApiError> {
        let at = status_height(self.0.chain.tip().height);
        let db = self.0.databases.read().await;
        let Some(record) = read_storage(&*db, &GOVERNANCE_ADDRESS, &proposal_key(id), ProposalRecord::decode).await?
        else {
            return Ok(None);
        };
        let mut votes = Vec::new();
        for seq in (page.offset..record.votes).take(usize::try_from(page.limit).unwrap_or(usize::MAX)) {
            let vote = read_storage(&*db, &GOVERNANCE_ADDRESS, &vote_key(id, seq), VoteRecord::decode)
                .await?
                .ok_or_else(|| NodeError::missing("governance: a vote below the count"))?;
            votes.push(VoteInfo { voter: vote.voter, support: vote.support, weight: vote.weight, height: vote.height });
        }
        let timeline = timeline(&record);
        let status = record.status(at);
        Ok(Some(ProposalDetail { proposal: info(id, record, status), votes, timeline }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposal_shows_the_status_the_next_block_meets() {
        let record = ProposalRecord {
            proposer: drover_types::Address([1; 20]),
            changes: vec![("timelock_blocks".into(), 5)],
            description: String::new(),
            deposit: 1,
            created_height: 1,
            voting_ends_height: 10,
            executable_height: 12,
            expires_height: 20,
            quorum_weight: 1,
            approval_percent: 51,
            votes_for: 1,
            votes_against: 0,
            votes: 1,
            closed: None,
            closed_height: None,
        };
        assert_eq!(record.status(status_height(8)), ProposalStatus::Voting, "a vote in block 9 still counts");
        assert_eq!(record.status(status_height(9)), ProposalStatus::Passed, "a vote in block 10 is refused");
        assert_eq!(record.status(status_height(19)), ProposalStatus::Expired);
    }

    #[test]
    fn a_listing_reads_the_page_or_at_most_the_filter_window() {
        let page = |offset, limit| Page { offset, limit };
        assert_eq!(examined(10, false, &page(2, 3)), 2..5);
        assert_eq!(examined(10, false, &page(8, 50)), 8..10);
        assert_eq!(examined(10, false, &page(20, 5)), 10..10);
        assert_eq!(examined(10, true, &page(0, 1)), 0..10);
        let many = 1_000_000;
        let window = examined(many, true, &page(0, 50));
        assert_eq!((window.start, window.end - window.start), (many - STATUS_FILTER_WINDOW, STATUS_FILTER_WINDOW));
    }
}
