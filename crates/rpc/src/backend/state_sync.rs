//! State-sync checkpoints and operation batches (`routes::state_sync`).

use drover_types::{api::StateSnapshot, error::ApiError};
use std::future::Future;

/// One request for state-sync operations (`GET /state/operations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperationsRequest {
    /// Operations `start .. start + max`, proven against the ops root at `size` operations.
    Operations {
        /// Operation count whose ops root the proof is against (a snapshot's `op_count`).
        size: u64,
        /// First operation of the batch; below `size`.
        start: u64,
        /// Most operations in the batch (the backend may serve fewer, at least one).
        max: u64,
    },
    /// The single operation at `start` with the pinned Merkle nodes a client needs to rebuild the
    /// pruned prefix below it, proven against the ops root at `size`.
    Boundary {
        /// Operation count whose ops root the proof is against.
        size: u64,
        /// The operation to serve; the pinned nodes stand for the operations below it.
        start: u64,
    },
}

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait StateSyncBackend: Send + Sync {
    /// The latest state-sync checkpoint (`None` before the first finalized block).
    fn state_snapshot(&self) -> Option<StateSnapshot>;

    /// The binary batch answering `request` (format: `docs/state-sync.md`). Bounds on `max`
    /// are checked by the route; the backend refuses sizes and ranges it does not hold, and
    /// keeps the batch within [`crate::limits::MAX_OPERATIONS_RESPONSE_BYTES`] by serving fewer
    /// operations than `max` when they are large (always at least one).
    fn state_operations(&self, request: OperationsRequest) -> impl Future<Output = Result<Vec<u8>, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
