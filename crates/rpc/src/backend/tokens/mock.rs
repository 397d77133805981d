//! The tokens' mock: tokens in creation order, balances and allowances a test sets.

use super::*;
use crate::mock::MockBackend;
use drover_types::api::TokenHolding;
use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct TokensMock {
    /// Tokens in creation order.
    pub tokens: Vec<TokenInfo>,
    /// Balances by (token, holder).
    pub token_balances: HashMap<(Address, Address), u128>,
    /// Allowances by (token, owner, spender).
    pub token_allowances: HashMap<(Address, Address, Address), u128>,
}

impl TokenBackend for MockBackend {
    async fn tokens(&self, page: Page) -> Result<TokenList, ApiError> {
        let part = self.part::<TokensMock>();
        let data = part.lock();
        let tokens = data.tokens.iter().skip(page.offset as usize).take(page.limit as usize).cloned().collect();
        Ok(TokenList { tokens, total_count: data.tokens.len() as u64, offset: page.offset, limit: page.limit })
    }

    async fn token(&self, id: Address) -> Result<Option<TokenInfo>, ApiError> {
        Ok(self.part::<TokensMock>().lock().tokens.iter().find(|t| t.token_id == id).cloned())
    }

    async fn token_balance(&self, id: Address, holder: Address) -> Result<Option<u128>, ApiError> {
        let part = self.part::<TokensMock>();
        let data = part.lock();
        let known = data.tokens.iter().any(|t| t.token_id == id);
        Ok(known.then(|| data.token_balances.get(&(id, holder)).copied().unwrap_or(0)))
    }

    async fn token_allowance(&self, id: Address, owner: Address, spender: Address) -> Result<Option<u128>, ApiError> {
        let part = self.part::<TokensMock>();
        let data = part.lock();
        let known = data.tokens.iter().any(|t| t.token_id == id);
        Ok(known.then(|| data.token_allowances.get(&(id, owner, spender)).copied().unwrap_or(0)))
    }

    async fn account_tokens(&self, address: Address, page: Page) -> Result<AccountTokens, ApiError> {
        let part = self.part::<TokensMock>();
        let data = part.lock();
        let held: Vec<_> = data
            .tokens
            .iter()
            .filter_map(|t| {
                let balance = data.token_balances.get(&(t.token_id, address)).copied().filter(|b| *b > 0)?;
                Some(TokenHolding {
                    token_id: t.token_id,
                    symbol: t.symbol.clone(),
                    decimals: t.decimals,
                    balance,
                    frozen: false,
                })
            })
            .collect();
        let total_count = held.len() as u64;
        let tokens = held.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(AccountTokens { address, tokens, total_count, offset: page.offset, limit: page.limit })
    }
}

/// Token `n`: `GLD{n}`, 18 decimals, the largest supply, owned by `0xaa…aa`.
pub(crate) fn gold(n: u8) -> TokenInfo {
    TokenInfo {
        token_id: Address([n; 20]),
        name: "Gold".into(),
        symbol: format!("GLD{n}"),
        decimals: 18,
        supply: u128::MAX,
        max_supply: None,
        owner: Address([0xaa; 20]),
        mintable: true,
        created_height: 3,
        creator: Address([0xaa; 20]),
    }
}
