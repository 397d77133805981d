//! The governance mock: the default parameters at the chain's height, and proposals a test sets.

use super::*;
use crate::backend::ChainBackend;
use crate::mock::MockBackend;
use drover_types::api::ParamInfo;

#[derive(Default)]
pub(crate) struct GovernanceMock {
    /// Proposals in id order, with their votes.
    pub proposals: Vec<ProposalDetail>,
}

impl GovernanceBackend for MockBackend {
    async fn governance_params(&self) -> Result<GovernanceParams, ApiError> {
        let live = drover_types::governance::ChainParams::default();
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
