//! Merkle proofs of state and of inclusion (`routes::proofs`).

use drover_types::{
    Address, H256,
    api::{InclusionProofInfo, InclusionProofKind, StateProofInfo},
    error::ApiError,
};
use std::future::Future;

/// One state record a proof is asked for, named by the key schema's families (the node maps it
/// to the state key, so the HTTP layer stays free of the schema).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateQuery {
    /// An account record.
    Account(Address),
    /// An actor record.
    Actor(Address),
    /// An actor's storage slot: the actor and its own key.
    Storage(Address, Vec<u8>),
}

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait ProofBackend: Send + Sync {
    /// Proofs of `queries`, in order, all against the post-state of one finalized block: the
    /// latest, or `height` when given (a height whose state the node cannot prove is refused).
    fn state_proofs(
        &self,
        queries: Vec<StateQuery>,
        height: Option<u64>,
    ) -> impl Future<Output = Result<Vec<StateProofInfo>, ApiError>> + Send;

    /// Proof that the transaction `hash` (or its receipt) is in its finalized block; `None` when
    /// no finalized block includes it.
    fn inclusion_proof(
        &self,
        kind: InclusionProofKind,
        hash: H256,
    ) -> impl Future<Output = Result<Option<InclusionProofInfo>, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
