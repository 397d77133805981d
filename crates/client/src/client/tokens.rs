//! Tokens: the client's methods for the routes of `drover-rpc`'s `routes::tokens`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode,
    api::{AccountTokens, TokenAllowance, TokenBalance, TokenInfo, TokenList, paths, paths::fill},
};

impl Client {
    /// `GET /tokens?offset=&limit=`: one page of tokens in creation order.
    pub async fn tokens(&self, offset: u64, limit: u64) -> Result<TokenList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", paths::TOKENS)).await
    }

    /// `GET /token/{token_id}`; `None` for an id no token has.
    pub async fn token(&self, token: &Address) -> Result<Option<TokenInfo>, ClientError> {
        self.get_optional(&fill(paths::TOKEN, &[token]), ErrorCode::NotFound).await
    }

    /// `GET /token/{token_id}/balance/{address}`; `None` for an id no token has.
    pub async fn token_balance(&self, token: &Address, holder: &Address) -> Result<Option<TokenBalance>, ClientError> {
        self.get_optional(&fill(paths::TOKEN_BALANCE, &[token, holder]), ErrorCode::NotFound).await
    }

    /// `GET /token/{token_id}/allowance/{owner}/{spender}`; `None` for an id no token has.
    pub async fn token_allowance(
        &self,
        token: &Address,
        owner: &Address,
        spender: &Address,
    ) -> Result<Option<TokenAllowance>, ClientError> {
        self.get_optional(&fill(paths::TOKEN_ALLOWANCE, &[token, owner, spender]), ErrorCode::NotFound).await
    }

    /// `GET /account/{address}/tokens?offset=&limit=`: one page of the tokens `address` holds.
    pub async fn account_tokens(
        &self,
        address: &Address,
        offset: u64,
        limit: u64,
    ) -> Result<AccountTokens, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", fill(paths::ACCOUNT_TOKENS, &[address]))).await
    }
}
