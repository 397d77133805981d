//! Runner reads for the API: records of the runner registry's storage in the latest applied
//! state, decoded into the `drover_types::api` runner records.
//!
//! `/runners/active` is a page of the registered runners' slots (`"i" ‖ slot`, dense: a runner
//! leaves them when it deregisters), each with its health at the tip: the count and two lookups
//! per runner of the page, however many are registered. Health follows from the height (a
//! heartbeat that ages past the gap), which no record changes, so the list is not filtered by
//! it: each runner carries its `health`. An account's delegations are its listing
//! (`drover_state::runner::delegations_listing`): the count and, per delegation of the page, its
//! slot, the delegation and the runner's record (for its claimable rewards), whatever the
//! account delegates. All reads of one request happen under one read lock.

use super::{
    handle::NodeHandle,
    pages::{listed, listed_address, read_record},
};
use crate::databases::OrderedRead;
use crate::error::NodeError;
use drover_rpc::backend::RunnerBackend;
use drover_rpc::pagination::Page;
use drover_state::{
    decode_address, decode_count,
    runner::{
        Delegation, RunnerRecord, Unbonding, delegation_key, delegations_listing, runner_count_key, runner_key,
        runner_slot_key, state_key,
    },
};
use drover_types::{
    Address,
    api::{CapabilitiesInfo, DelegationInfo, DelegationList, RateCardInfo, RunnerInfo, RunnerList, UnbondingInfo},
    error::ApiError,
    runner::Health,
};

fn unbondings(entries: Vec<Unbonding>) -> Vec<UnbondingInfo> {
    entries.into_iter().map(|u| UnbondingInfo { amount: u.amount, release_height: u.release_height }).collect()
}

/// The API record of `record` at chain height `height`, under a heartbeat gap of `gap_blocks`.
fn info(address: Address, record: RunnerRecord, (height, gap_blocks): (u64, u64)) -> RunnerInfo {
    let health = Health::at(height, record.last_heartbeat_height, record.paused, record.deregistered, gap_blocks);
    RunnerInfo {
        address,
        stake: record.stake,
        delegated_stake: record.delegated_stake,
        rate_card: RateCardInfo { price_per_job: record.price_per_job },
        capabilities: CapabilitiesInfo { job_types: record.job_types, max_concurrent_jobs: record.max_concurrent_jobs },
        health: health.as_str().to_owned(),
        registered_height: record.registered_height,
        last_heartbeat_height: record.last_heartbeat_height,
        reputation: record.reputation,
        active_jobs: record.active_jobs,
        unbonding: unbondings(record.unbonding),
    }
}

impl RunnerBackend for NodeHandle {
    async fn active_runners(&self, page: Page) -> Result<RunnerList, ApiError> {
        let tip = self.0.chain.tip();
        let db = self.0.databases.read().await;
        registered_runners(&*db, (tip.height, tip.next_params.heartbeat_gap_blocks), page).await
    }

    async fn runner(&self, address: Address) -> Result<Option<RunnerInfo>, ApiError> {
        let tip = self.0.chain.tip();
        let height = (tip.height, tip.next_params.heartbeat_gap_blocks);
        let [record] = self.read_keys([state_key(&runner_key(&address))]).await?;
        let record = record.map(|b| RunnerRecord::decode(&b)).transpose().map_err(NodeError::from)?;
        Ok(record.map(|record| info(address, record, height)))
    }

    async fn delegations(&self, address: Address, page: Page) -> Result<DelegationList, ApiError> {
        let db = self.0.databases.read().await;
        delegations(&*db, address, page).await
    }
}

/// A page of the registered runners in slot order, each with its health at `height`.
async fn registered_runners(db: &impl OrderedRead, height: (u64, u64), page: Page) -> Result<RunnerList, ApiError> {
    let total_count = read_record(db, &state_key(&runner_count_key()), decode_count).await?.unwrap_or(0);
    let end = total_count.min(page.offset.saturating_add(page.limit));
    let mut runners = Vec::new();
    for slot in page.offset.min(end)..end {
        let address = read_record(db, &state_key(&runner_slot_key(slot)), decode_address)
            .await?
            .ok_or_else(|| NodeError::missing("runner registry: an empty slot below the count"))?;
        let record = read_record(db, &state_key(&runner_key(&address)), RunnerRecord::decode)
            .await?
            .ok_or_else(|| NodeError::missing("runner registry: a listed runner without a record"))?;
        runners.push(info(address, record, height));
    }
    Ok(RunnerList { runners, total_count, offset: page.offset, limit: page.limit })
}

/// A page of `address`'s delegations, in its listing's order.
async fn delegations(db: &impl OrderedRead, address: Address, page: Page) -> Result<DelegationList, ApiError> {
    let (items, total_count) = listed(db, &delegations_listing(&address), &page).await?;
    let mut delegations = Vec::with_capacity(items.len());
    for item in items {
        let runner = listed_address(&item)?;
        let delegation = read_record(db, &state_key(&delegation_key(&runner, &address)), Delegation::decode)
            .await?
            .ok_or_else(|| NodeError::missing("runner registry: a listed delegation without its record"))?;
        let record = read_record(db, &state_key(&runner_key(&runner)), RunnerRecord::decode)
            .await?
            .ok_or_else(|| NodeError::missing("runner registry: a delegation to a runner without a record"))?;
        delegations.push(DelegationInfo {
            runner,
            amount: delegation.amount,
            since_height: delegation.since_height,
            rewards: drover_execution::runners::rewards::claimable(&delegation, &record),
            pending: unbondings(delegation.pending),
        });
    }
    Ok(DelegationList { address, delegations, total_count, offset: page.offset, limit: page.limit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::pages::tests::{Counted, LARGE, bounded_at_every_offset};
    use drover_state::{encode_address, encode_count, listing::Listing};

    fn address(i: u64) -> Address {
        let mut bytes = [0x60; 20];
        bytes[12..].copy_from_slice(&i.to_be_bytes());
        Address(bytes)
    }

    fn runner_record(last_heartbeat_height: u64) -> RunnerRecord {
        RunnerRecord {
            stake: 1,
            delegated_stake: 1,
            price_per_job: 1,
            job_types: vec!["echo".into()],
            max_concurrent_jobs: 1,
            paused: false,
            deregistered: false,
            registered_height: 1,
            last_heartbeat_height,
            reputation: 80,
            active_jobs: 0,
            unbonding: Vec::new(),
            slot: None,
            type_slots: vec![None],
            reward_per_share: 0,
            delegator_rewards: 0,
        }
    }

    #[test]
    fn a_page_of_runners_reads_the_page_whatever_the_registry_holds() {
        let mut db = Counted::default();
        for i in 0..LARGE {
            db.apply([
                (state_key(&runner_slot_key(i)), Some(encode_address(&address(i)))),
                // Every other runner has not sent a heartbeat for long: listed, as unhealthy.
                (state_key(&runner_key(&address(i))), Some(runner_record(if i % 2 == 0 { 100 } else { 1 }).encode())),
            ]);
        }
        db.apply([(state_key(&runner_count_key()), Some(encode_count(LARGE)))]);
        bounded_at_every_offset(&db, 2, 1, |page| {
            let db = &db;
            async move {
                let answer = registered_runners(db, (100, 50), page).await.unwrap();
                assert_eq!(answer.total_count, LARGE);
                if let [first, second, ..] = &answer.runners[..] {
                    assert_eq!(first.address, address(page.offset));
                    let healths = [first.health.as_str(), second.health.as_str()];
                    assert!(healths.contains(&"healthy") && healths.contains(&"unhealthy"), "{healths:?}");
                }
                answer.runners.len()
            }
        });
    }

    #[test]
    fn a_page_of_delegations_reads_the_page_whatever_the_account_delegates() {
        let delegator = Address([0xd0; 20]);
        let listing: Listing = delegations_listing(&delegator);
        let mut db = Counted::default();
        db.list(
            &listing,
            LARGE,
            |i| address(i).0.to_vec(),
            |i| {
                let delegation = Delegation { amount: 7, since_height: 3, ..Delegation::default() };
                vec![
                    (state_key(&delegation_key(&address(i), &delegator)), delegation.encode()),
                    (state_key(&runner_key(&address(i))), runner_record(1).encode()),
                ]
            },
        );
        bounded_at_every_offset(&db, 3, 1, |page| {
            let db = &db;
            async move {
                let answer = delegations(db, delegator, page).await.unwrap();
                assert_eq!(answer.total_count, LARGE);
                if let Some(first) = answer.delegations.first() {
                    assert_eq!((first.runner, first.amount), (address(page.offset), 7));
                }
                answer.delegations.len()
            }
        });
    }
}
