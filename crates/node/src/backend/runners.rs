//! Runner reads for the API: records of the runner registry's storage in the latest applied
//! state, decoded into the `drover_types::api` runner records.
//!
//! `/runners/active` walks the registered runners' slots (point lookups) and keeps the healthy
//! ones, so a request costs two lookups per runner that has stake bonded now: deregistered
//! runners leave the list, and the stake floor bounds how many can be on it. An account's delegations are one key range (laid out by delegator),
//! plus one runner record per delegation in the page (for its claimable rewards).

use super::{handle::NodeHandle, pages::scan};
use crate::error::NodeError;
use drover_rpc::pagination::Page;
use drover_state::{
    decode_address, decode_count,
    runner::{
        Delegation, RunnerRecord, Unbonding, delegation_entry, delegations_range, runner_count_key, runner_key,
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

impl NodeHandle {
    pub(super) async fn read_active_runners(&self, page: Page) -> Result<RunnerList, ApiError> {
        let tip = self.0.chain.tip();
        let height = (tip.height, tip.next_params.heartbeat_gap_blocks);
        let db = self.0.databases.read().await;
        let get = |user_key: Vec<u8>| {
            let db = &db;
            async move { db.get(&state_key(&user_key)).await.map_err(NodeError::from) }
        };
        let count = get(runner_count_key()).await?.map(|b| decode_count(&b)).transpose().map_err(NodeError::from)?;
        let mut runners = Vec::new();
        let mut total_count = 0u64;
        for slot in 0..count.unwrap_or(0) {
            let address = get(runner_slot_key(slot))
                .await?
                .map(|b| decode_address(&b))
                .transpose()
                .map_err(NodeError::from)?
                .ok_or_else(|| NodeError::missing("runner registry: an empty slot below the count"))?;
            let record = get(runner_key(&address))
                .await?
                .map(|b| RunnerRecord::decode(&b))
                .transpose()
                .map_err(NodeError::from)?
                .ok_or_else(|| NodeError::missing("runner registry: a listed runner without a record"))?;
            let runner = info(address, record, height);
            if runner.health != Health::Healthy.as_str() {
                continue;
            }
            total_count += 1;
            if total_count > page.offset && (runners.len() as u64) < page.limit {
                runners.push(runner);
            }
        }
        Ok(RunnerList { runners, total_count, offset: page.offset, limit: page.limit })
    }

    pub(super) async fn read_runner(&self, address: Address) -> Result<Option<RunnerInfo>, ApiError> {
        let tip = self.0.chain.tip();
        let height = (tip.height, tip.next_params.heartbeat_gap_blocks);
        let [record] = self.read_keys([state_key(&runner_key(&address))]).await?;
        let record = record.map(|b| RunnerRecord::decode(&b)).transpose().map_err(NodeError::from)?;
        Ok(record.map(|record| info(address, record, height)))
    }

    pub(super) async fn read_delegations(&self, address: Address, page: Page) -> Result<DelegationList, ApiError> {
        let db = self.0.databases.read().await;
        let own = |key: &[u8], value: Vec<u8>| {
            let (delegator, runner) = delegation_entry(key)?;
            (delegator == address).then_some((runner, value))
        };
        let (entries, _) =
            scan(&db, &delegations_range(&address), None, u64::MAX, own).await.map_err(NodeError::from)?;
        let total_count = entries.len() as u64;
        let mut delegations = Vec::new();
        for (runner, value) in entries.into_iter().skip(usize::try_from(page.offset).unwrap_or(usize::MAX)) {
            if delegations.len() as u64 >= page.limit {
                break;
            }
            let delegation = Delegation::decode(&value).map_err(NodeError::from)?;
            let record = db
                .get(&state_key(&runner_key(&runner)))
                .await
                .map_err(NodeError::from)?
                .map(|b| RunnerRecord::decode(&b))
                .transpose()
                .map_err(NodeError::from)?
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
}
