//! Tokens: `GET /tokens`, `/token/{token_id}`, `/token/{token_id}/balance/{address}`,
//! `/token/{token_id}/allowance/{owner}/{spender}` and `/account/{address}/tokens`.
//!
//! Amounts are decimal strings of base units (a token's `decimals` say where the point goes).

use super::encoding::{decimal_u128, opt_decimal_u128};
use crate::Address;
use serde::{Deserialize, Serialize};

/// `GET /token/{token_id}`: a token's metadata and supply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenInfo {
    /// `last20(keccak256(0x0c ‖ creator ‖ symbol))`.
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0x5fbdb2315678afecb367f032d93f642f64180aa3"))]
    pub token_id: Address,
    /// Display name (1–64 bytes).
    pub name: String,
    /// Ticker (1–16 of `A`–`Z`, `0`–`9`), unique per creator.
    #[cfg_attr(feature = "openapi", schema(example = "GLD"))]
    pub symbol: String,
    /// Decimal places of one whole token in base units (0–36).
    pub decimals: u8,
    /// Base units in existence: the sum of all balances.
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "1000000000000000000000"))]
    pub supply: u128,
    /// Most base units that may ever exist; `null` when uncapped.
    #[serde(with = "opt_decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "21000000000000000000000000"))]
    pub max_supply: Option<u128>,
    /// Who may mint (if mintable), freeze, unfreeze and hand over ownership.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub owner: Address,
    /// Whether the owner may mint after creation.
    pub mintable: bool,
    /// Height of the block that created the token.
    pub created_height: u64,
    /// The address that created the token (part of its id).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub creator: Address,
}

/// `GET /tokens`: tokens in creation order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenList {
    /// The page's tokens.
    pub tokens: Vec<TokenInfo>,
    /// Number of tokens ever created.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// `GET /token/{token_id}/balance/{address}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenBalance {
    /// The token.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub token_id: Address,
    /// The holder.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Base units held; `"0"` for an address that never held the token.
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "2500"))]
    pub balance: u128,
}

/// `GET /token/{token_id}/allowance/{owner}/{spender}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenAllowance {
    /// The token.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub token_id: Address,
    /// The holder who approved.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub owner: Address,
    /// Who may move the owner's tokens with `transfer_from`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub spender: Address,
    /// Base units the spender may still move; `"0"` when none.
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "100"))]
    pub allowance: u128,
}

/// One token an address holds, in `GET /account/{address}/tokens`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenHolding {
    /// The token.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub token_id: Address,
    /// The token's ticker.
    pub symbol: String,
    /// The token's decimal places.
    pub decimals: u8,
    /// Base units held (never zero: an emptied holding leaves the list).
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "2500"))]
    pub balance: u128,
    /// Whether the token's owner froze this holder.
    pub frozen: bool,
}

/// `GET /account/{address}/tokens`: the tokens an address has a non-zero balance of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountTokens {
    /// The holder.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// The page's holdings. Their order is the holder's list: a holding that empties gives its
    /// place to the last one.
    pub tokens: Vec<TokenHolding>,
    /// Number of tokens the address holds.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}
