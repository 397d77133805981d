//! The devnet faucet: `POST /faucet`.

use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// `POST /faucet` request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FaucetRequest {
    /// The account to fund (20 bytes of hex, `0x` optional, any case).
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^(0[xX])?[0-9a-fA-F]{40}$", example = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"))]
    pub address: Address,
}

/// `POST /faucet` response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FaucetResponse {
    /// Hash of the funding transaction.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    /// The funded account.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Base units sent.
    pub amount: u128,
}
