//! Accounts: `GET /account/{address}`.

use crate::Address;
use serde::{Deserialize, Serialize};

/// `GET /account/{address}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountInfo {
    /// The account's address (`0x` hex).
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"))]
    pub address: Address,
    /// Number of transactions the account has sent: the nonce its next transaction must carry.
    pub nonce: u64,
    /// Base units (1 DRV = 10^9).
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub balance: u128,
}
