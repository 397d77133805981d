//! Governance: the client's methods for the routes of `drover-rpc`'s `routes::governance`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    ErrorCode,
    api::{GovernanceParams, ProposalDetail, ProposalList, paths, paths::fill},
};

impl Client {
    /// `GET /governance/params`: the chain parameters in force and their bounds.
    pub async fn governance_params(&self) -> Result<GovernanceParams, ClientError> {
        self.get(paths::GOVERNANCE_PARAMS).await
    }

    /// `GET /governance/proposals?status=&offset=&limit=`: one page of proposals.
    pub async fn proposals(&self, status: Option<&str>, offset: u64, limit: u64) -> Result<ProposalList, ClientError> {
        let status = status.map(|s| format!("&status={s}")).unwrap_or_default();
        self.get(&format!("{}?offset={offset}&limit={limit}{status}", paths::GOVERNANCE_PROPOSALS)).await
    }

    /// `GET /governance/proposal/{id}`; `None` for an id no proposal has.
    pub async fn proposal(&self, id: u64) -> Result<Option<ProposalDetail>, ClientError> {
        self.get_optional(&fill(paths::GOVERNANCE_PROPOSAL, &[&id]), ErrorCode::NotFound).await
    }
}
