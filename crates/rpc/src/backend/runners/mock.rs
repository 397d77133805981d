//! The runners' mock: runners in listing order (the deregistered left out of the active list)
//! and delegations.

use super::*;
use crate::mock::{MockBackend, key};
use drover_types::api::DelegationInfo;
use drover_types::api::{CapabilitiesInfo, RateCardInfo};
use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct RunnersMock {
    /// Runners, listed in this order.
    pub runners: Vec<RunnerInfo>,
    /// Delegations by delegator.
    pub delegations: HashMap<Address, Vec<DelegationInfo>>,
}

impl RunnerBackend for MockBackend {
    async fn active_runners(&self, page: Page) -> Result<RunnerList, ApiError> {
        let part = self.part::<RunnersMock>();
        let data = part.lock();
        let registered: Vec<_> = data.runners.iter().filter(|r| r.health != "deregistered").cloned().collect();
        let total_count = registered.len() as u64;
        let runners = registered.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(RunnerList { runners, total_count, offset: page.offset, limit: page.limit })
    }

    async fn runner(&self, address: Address) -> Result<Option<RunnerInfo>, ApiError> {
        Ok(self.part::<RunnersMock>().lock().runners.iter().find(|r| r.address == address).cloned())
    }

    async fn delegations(&self, address: Address, page: Page) -> Result<DelegationList, ApiError> {
        let all = self.part::<RunnersMock>().lock().delegations.get(&address).cloned().unwrap_or_default();
        let total_count = all.len() as u64;
        let delegations = all.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(DelegationList { address, delegations, total_count, offset: page.offset, limit: page.limit })
    }
}

/// A runner at `address` in `health`.
pub(crate) fn runner_info(address: Address, health: &str) -> RunnerInfo {
    RunnerInfo {
        address,
        stake: 1_000_000_000,
        delegated_stake: u128::MAX,
        rate_card: RateCardInfo { price_per_job: 5 },
        capabilities: CapabilitiesInfo { job_types: vec!["echo".into()], max_concurrent_jobs: 2 },
        health: health.into(),
        registered_height: 1,
        last_heartbeat_height: 2,
        reputation: 80,
        active_jobs: 0,
        unbonding: Vec::new(),
    }
}

/// A mock where `key(0)`'s address is a registered, healthy runner.
pub(crate) fn with_registered_runner() -> MockBackend {
    MockBackend::with(|data: &mut RunnersMock| data.runners = vec![runner_info(key(0).address(), "healthy")])
}
