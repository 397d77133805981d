//! The governance mock: the default parameters at the chain's height, and proposals a test sets.

use super::*;
use crate::backend::ChainBackend;
use crate::mock::MockBackend;
use drover_types::{
    Address,
    api::{ParamInfo, ProposalInfo},
};

#[derive(Default)]
pub(crate) struct GovernanceMock {
    /// Proposals in id order, with their votes.
    pub proposals: Vec<ProposalDetail>,
}

impl GovernanceBackend for MockBackend {
    async fn governance_params(&self) -> Result<GovernanceParams, ApiError> {
        let live = drover_types::chain_params::ChainParams::default();
        Ok(GovernanceParams { height: self.height(), params: ParamInfo::all(&live), total_locked: 0 })
    }

    async fn proposals(
        &self,
        status: Option<drover_types::governance::ProposalStatus>,
        page: Page,
    ) -> Result<ProposalList, ApiError> {
        let part = self.part::<GovernanceMock>();
        let data = part.lock();
        let matching: Vec<_> = data
            .proposals
            .iter()
            .filter(|p| status.is_none_or(|s| p.proposal.status == s.as_str()))
            .map(|p| p.proposal.clone())
            .collect();
        let total_count = matching.len() as u64;
        let proposals = matching.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(ProposalList { proposals, total_count, offset: page.offset, limit: page.limit })
    }

    async fn proposal(&self, id: u64, _page: Page) -> Result<Option<ProposalDetail>, ApiError> {
        Ok(self.part::<GovernanceMock>().lock().proposals.iter().find(|p| p.proposal.id == id).cloned())
    }
}

/// Proposal `id` in `status`: one change of `target_cycles`, no votes.
pub(crate) fn proposal(id: u64, status: &str) -> ProposalDetail {
    ProposalDetail {
        proposal: ProposalInfo {
            id,
            proposer: Address([1; 20]),
            changes: [("target_cycles".to_owned(), "20000000".to_owned())].into(),
            description: "fuller blocks".into(),
            status: status.into(),
            votes_for: 5,
            votes_against: 1,
            votes_count: 2,
            quorum_weight: 1,
            approval_percent: 51,
            deposit: 10,
            created_height: 1,
            voting_ends_height: 101,
            executable_height: 121,
            expires_height: 1_121,
            closed_height: None,
        },
        votes: Vec::new(),
        timeline: Vec::new(),
    }
}
