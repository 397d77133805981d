//! State sync: `GET /state/snapshot` (`/state/operations` answers CBOR).

use crate::H256;
use serde::{Deserialize, Serialize};

/// `GET /state/snapshot`: the state-sync checkpoint a peer can fast-sync to. It is the sync
/// target committed by the latest finalized block: replaying operations
/// `range_start..op_count` and checking them against `ops_root` rebuilds the state whose
/// canonical root is `canonical_root`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StateSnapshot {
    /// Height of the finalized block that commits to this checkpoint.
    pub height: u64,
    /// Hash of that block (its finalization certificate is on `GET /block/{hash}`).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub block_hash: H256,
    /// First operation a syncing client must fetch (the sync boundary).
    pub range_start: u64,
    /// Number of operations in the log at this checkpoint (the `size` to request).
    pub op_count: u64,
    /// Root of the operations' Merkle mountain range at `op_count`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub ops_root: H256,
    /// Canonical state root at `height` (the block's `state_root`).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub canonical_root: H256,
}
