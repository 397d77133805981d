//! Blocks: `GET /block/{selector}` and `GET /height`.

use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// `GET /block/{selector}`: a finalized block header with its transaction hashes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlockInfo {
    /// Height of the block (genesis is 0).
    pub height: u64,
    /// Block digest (what consensus finalizes).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// Hash of the parent block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub parent_hash: H256,
    /// Unix seconds.
    pub timestamp: u64,
    /// Unix milliseconds, as stamped by the proposer (`timestamp` is this divided by 1000).
    pub timestamp_ms: u64,
    /// Account that received this block's tips.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub proposer: Address,
    /// Consensus view in which the block was proposed.
    pub view: u64,
    /// Canonical QMDB root after executing the block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    /// Binary Merkle root (SHA-256) over the hashes of the block's transactions, in block order.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub transactions_root: H256,
    /// Binary Merkle root (SHA-256) over SHA-256 of each receipt's canonical CBOR, in block order.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub receipts_root: H256,
    /// State-sync target: root of the operations' Merkle mountain range after this block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub ops_root: H256,
    /// State-sync target: the sync boundary, the first operation a syncing client must fetch.
    pub sync_range_start: u64,
    /// State-sync target: number of operations in the state log after this block.
    pub op_count: u64,
    /// Hashes of the block's transactions, in execution order.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub transactions: Vec<H256>,
    /// Cycles used by the block's transactions and system runs.
    pub cycles_used: u64,
    /// Cells (bytes written) used by the block's transactions and system runs.
    pub cells_used: u64,
    /// Basefee per cycle in force for this block, base units (decimal string).
    pub basefee_cycle: String,
    /// Basefee per cell in force for this block, base units (decimal string).
    pub basefee_cell: String,
    /// Hex of the encoded finalization certificate, where known.
    pub finalization: Option<String>,
}

/// `GET /height`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HeightInfo {
    /// Latest finalized height (0 before the first block).
    pub height: u64,
}
