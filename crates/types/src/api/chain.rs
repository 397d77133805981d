//! The chain: `GET /chain-info` and `GET /basefee`.

use crate::H256;
use serde::{Deserialize, Serialize};

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

/// `GET /basefee`: basefees of the next block and suggested fee settings, as decimal strings
/// (base units per cycle / per cell). A suggested max fee is twice the basefee plus the suggested
/// tip, so a transaction stays admissible through several blocks of rising basefee.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BasefeeInfo {
    #[cfg_attr(feature = "openapi", schema(example = "7"))]
    pub basefee_cycle: String,
    #[cfg_attr(feature = "openapi", schema(example = "7"))]
    pub basefee_cell: String,
    pub suggested_tip_per_cycle: String,
    pub suggested_tip_per_cell: String,
    pub suggested_max_fee_per_cycle: String,
    pub suggested_max_fee_per_cell: String,
}
