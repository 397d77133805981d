//! The chain: `GET /chain-info` and `GET /basefee`.

use crate::H256;
use serde::{Deserialize, Serialize};

/// `GET /chain-info`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChainInfo {
    /// Chain id that transactions for this network must be signed with.
    pub chain_id: u64,
    /// Network name from the genesis file.
    pub network: String,
    /// Digest of the genesis block, which commits to the genesis document.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub genesis_hash: H256,
    /// The network's group public key (hex of its codec encoding, as the genesis file's
    /// `identity`): what finalization certificates verify against. A light client should pin
    /// it from the genesis file; taking it from a node trusts that node on first use.
    pub identity: String,
    /// Version of the node software.
    pub version: String,
}

/// `GET /basefee`: basefees of the next block and suggested fee settings, as decimal strings
/// (base units per cycle / per cell). A suggested max fee is twice the basefee plus the suggested
/// tip, so a transaction stays admissible through several blocks of rising basefee.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BasefeeInfo {
    /// Basefee per cycle of the next block, base units.
    #[cfg_attr(feature = "openapi", schema(example = "7"))]
    pub basefee_cycle: String,
    /// Basefee per cell of the next block, base units.
    #[cfg_attr(feature = "openapi", schema(example = "7"))]
    pub basefee_cell: String,
    /// Suggested tip per cycle, base units: the smallest tip that orders a transaction ahead of
    /// untipped ones.
    pub suggested_tip_per_cycle: String,
    /// Suggested tip per cell, base units.
    pub suggested_tip_per_cell: String,
    /// Suggested `max_fee_per_cycle`: twice `basefee_cycle` plus `suggested_tip_per_cycle`.
    pub suggested_max_fee_per_cycle: String,
    /// Suggested `max_fee_per_cell`: twice `basefee_cell` plus `suggested_tip_per_cell`.
    pub suggested_max_fee_per_cell: String,
}
