//! Runners and delegations (`routes::runners`).

use crate::pagination::Page;
use drover_types::{
    Address,
    api::{DelegationList, RunnerInfo, RunnerList},
    error::ApiError,
};
use std::future::Future;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait RunnerBackend: Send + Sync {
    /// Registered runners in the registry's slot order, each with its health, one page
    /// (`GET /runners/active`).
    fn active_runners(&self, page: Page) -> impl Future<Output = Result<RunnerList, ApiError>> + Send;

    /// A runner's record; `None` when the address never registered.
    fn runner(&self, address: Address) -> impl Future<Output = Result<Option<RunnerInfo>, ApiError>> + Send;

    /// `address`'s delegations (active or unbonding), one page.
    fn delegations(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<DelegationList, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
