//! Proofs for the API, built by the node's `Prover`.

use super::NodeHandle;
use drover_rpc::backend::{ProofBackend, StateQuery};
use drover_types::{
    H256,
    api::{InclusionProofInfo, InclusionProofKind, StateProofInfo},
    error::ApiError,
};

impl ProofBackend for NodeHandle {
    async fn state_proofs(
        &self,
        queries: Vec<StateQuery>,
        height: Option<u64>,
    ) -> Result<Vec<StateProofInfo>, ApiError> {
        self.0.prover.state_proofs(queries, height).await
    }

    async fn inclusion_proof(
        &self,
        kind: InclusionProofKind,
        hash: H256,
    ) -> Result<Option<InclusionProofInfo>, ApiError> {
        self.0.prover.inclusion_proof(kind, hash).await
    }
}
