//! JSON records of the HTTP API, shared by the server (`drover-rpc`) and the SDK
//! (`drover-client`) so both sides agree on every field name.
//!
//! Conventions (DESIGN.md, JSON): addresses, hashes and keys are `0x` hex; arbitrary bytes are
//! base64; native amounts are JSON integers; basefees and u128 token amounts are decimal strings.
//! With the `openapi` feature every record also derives `utoipa::ToSchema`.

use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// `GET /account/{address}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"))]
    pub address: Address,
    pub nonce: u64,
    /// Base units (1 DRV = 10^9).
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub balance: u128,
}

/// `GET /chain-info`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChainInfo {
    pub chain_id: u64,
    pub network: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub genesis_hash: H256,
    pub version: String,
}

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
