//! Blocks: `GET /block/{selector}` and `GET /height`.

use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// `GET /block/{selector}`: a finalized block header with its transaction hashes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlockInfo {
    pub height: u64,
    /// Block digest (what consensus finalizes).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub parent_hash: H256,
    /// Unix seconds.
    pub timestamp: u64,
    pub timestamp_ms: u64,
    /// Account that received this block's tips.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub proposer: Address,
    /// Consensus view in which the block was proposed.
    pub view: u64,
    /// Canonical QMDB root after executing the block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub transactions_root: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub receipts_root: H256,
    /// State-sync target: ops root, sync boundary (range start) and op count.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub ops_root: H256,
    pub sync_range_start: u64,
    pub op_count: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub transactions: Vec<H256>,
    pub cycles_used: u64,
    pub cells_used: u64,
    /// Basefees in force for this block (decimal strings).
    pub basefee_cycle: String,
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
