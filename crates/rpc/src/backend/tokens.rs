//! Native tokens: records, balances, allowances and holdings (`routes::tokens`).

use crate::pagination::Page;
use drover_types::{
    Address,
    api::{AccountTokens, TokenInfo, TokenList},
    error::ApiError,
};
use std::future::Future;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait TokenBackend: Send + Sync {
    /// Tokens in creation order, one page (`GET /tokens`).
    fn tokens(&self, page: Page) -> impl Future<Output = Result<TokenList, ApiError>> + Send;

    /// A token's record; `None` when no token has this id.
    fn token(&self, id: Address) -> impl Future<Output = Result<Option<TokenInfo>, ApiError>> + Send;

    /// `holder`'s balance of a token (0 when it never held any); `None` when the token is unknown.
    fn token_balance(
        &self,
        id: Address,
        holder: Address,
    ) -> impl Future<Output = Result<Option<u128>, ApiError>> + Send;

    /// What `spender` may still move of `owner`'s tokens (0 when nothing was approved); `None`
    /// when the token is unknown.
    fn token_allowance(
        &self,
        id: Address,
        owner: Address,
        spender: Address,
    ) -> impl Future<Output = Result<Option<u128>, ApiError>> + Send;

    /// The tokens `address` has a non-zero balance of, one page.
    fn account_tokens(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<AccountTokens, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
