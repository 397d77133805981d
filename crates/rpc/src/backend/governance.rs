//! Chain parameters and proposals (`routes::governance`).

use crate::pagination::Page;
use drover_types::{
    api::{GovernanceParams, ProposalDetail, ProposalList},
    error::ApiError,
};
use std::future::Future;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait GovernanceBackend: Send + Sync {
    /// The chain parameters in force for the next block, with their bounds.
    fn governance_params(&self) -> impl Future<Output = Result<GovernanceParams, ApiError>> + Send;

    /// Proposals in id order, one page; only those with `status` when given.
    fn proposals(
        &self,
        status: Option<drover_types::governance::ProposalStatus>,
        page: Page,
    ) -> impl Future<Output = Result<ProposalList, ApiError>> + Send;

    /// A proposal with one page of its votes; `None` when no proposal has this id.
    fn proposal(&self, id: u64, page: Page) -> impl Future<Output = Result<Option<ProposalDetail>, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
