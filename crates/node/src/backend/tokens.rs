//! Token reads for the API: records of the tokens system actor's storage in the latest applied
//! state, decoded into the `drover_types::api` token records.
//!
//! `/tokens` is point lookups (creation order is kept as numbered slots): a page costs
//! `2 × limit` lookups whatever the number of tokens. A holder's tokens are its listing
//! (`drover_state::token::holdings_listing`): a page is the listing's count and, per token in
//! it, its slot, its holding and its record (`3 × limit + 1` lookups), whatever the holder
//! holds. All reads of one request happen under one read lock and see one state.

use super::{
    handle::NodeHandle,
    pages::{listed, listed_address, read_storage},
};
use crate::databases::OrderedRead;
use crate::error::NodeError;
use drover_rpc::backend::TokenBackend;
use drover_rpc::pagination::Page;
use drover_state::{
    RecordError, decode_address, decode_count,
    token::{
        Holding, TokenRecord, allowance_key, decode_amount, holding_key, holdings_listing, record_key,
        token_by_seq_key, token_count_key,
    },
};
use drover_types::{
    Address,
    api::{AccountTokens, TokenHolding, TokenInfo, TokenList},
    error::ApiError,
    token::TOKENS_ADDRESS,
};

fn info(token_id: Address, record: TokenRecord) -> TokenInfo {
    TokenInfo {
        token_id,
        name: record.name,
        symbol: record.symbol,
        decimals: record.decimals,
        supply: record.supply,
        max_supply: record.max_supply,
        owner: record.owner,
        mintable: record.mintable,
        created_height: record.created_height,
        creator: record.creator,
    }
}

/// A record the state's own counts or lists promise but that is not there.
fn missing(what: &str) -> ApiError {
    NodeError::missing(format!("token state: {what}")).into()
}

impl TokenBackend for NodeHandle {
    async fn tokens(&self, page: Page) -> Result<TokenList, ApiError> {
        let db = self.0.databases.read().await;
        let total_count = read_storage(&*db, &TOKENS_ADDRESS, &token_count_key(), decode_count).await?.unwrap_or(0);
        let end = total_count.min(page.offset.saturating_add(page.limit));
        let mut tokens = Vec::new();
        for seq in page.offset..end {
            let id = read_storage(&*db, &TOKENS_ADDRESS, &token_by_seq_key(seq), decode_address)
                .await?
                .ok_or_else(|| missing("a gap in creation order"))?;
            let record = read_storage(&*db, &TOKENS_ADDRESS, &record_key(&id), TokenRecord::decode)
                .await?
                .ok_or_else(|| missing("a listed token without a record"))?;
            tokens.push(info(id, record));
        }
        Ok(TokenList { tokens, total_count, offset: page.offset, limit: page.limit })
    }

    async fn token(&self, id: Address) -> Result<Option<TokenInfo>, ApiError> {
        let db = self.0.databases.read().await;
        Ok(read_storage(&*db, &TOKENS_ADDRESS, &record_key(&id), TokenRecord::decode)
            .await?
            .map(|record| info(id, record)))
    }

    async fn token_balance(&self, id: Address, holder: Address) -> Result<Option<u128>, ApiError> {
        self.read_token_amount(id, holding_key(&id, &holder), |bytes| Holding::decode(bytes).map(|h| h.balance)).await
    }

    async fn token_allowance(&self, id: Address, owner: Address, spender: Address) -> Result<Option<u128>, ApiError> {
        self.read_token_amount(id, allowance_key(&id, &owner, &spender), decode_amount).await
    }

    async fn account_tokens(&self, address: Address, page: Page) -> Result<AccountTokens, ApiError> {
        let db = self.0.databases.read().await;
        account_tokens(&*db, address, page).await
    }
}

impl NodeHandle {
    /// `user_key`'s amount under token `id`; `None` when the token does not exist.
    pub(super) async fn read_token_amount(
        &self,
        id: Address,
        user_key: Vec<u8>,
        amount: impl FnOnce(&[u8]) -> Result<u128, RecordError>,
    ) -> Result<Option<u128>, ApiError> {
        let db = self.0.databases.read().await;
        if read_storage(&*db, &TOKENS_ADDRESS, &record_key(&id), |_| Ok(())).await?.is_none() {
            return Ok(None);
        }
        Ok(Some(read_storage(&*db, &TOKENS_ADDRESS, &user_key, amount).await?.unwrap_or(0)))
    }
}

/// A page of the tokens `address` has a non-zero balance of, in its listing's order.
async fn account_tokens(db: &impl OrderedRead, address: Address, page: Page) -> Result<AccountTokens, ApiError> {
    let (items, total_count) = listed(db, &holdings_listing(&address), &page).await?;
    let mut tokens = Vec::with_capacity(items.len());
    for item in items {
        let token_id = listed_address(&item)?;
        let holding = read_storage(db, &TOKENS_ADDRESS, &holding_key(&token_id, &address), Holding::decode)
            .await?
            .ok_or_else(|| missing("a listed token without a holding"))?;
        let record = read_storage(db, &TOKENS_ADDRESS, &record_key(&token_id), TokenRecord::decode)
            .await?
            .ok_or_else(|| missing("a held token without a record"))?;
        tokens.push(TokenHolding {
            token_id,
            symbol: record.symbol,
            decimals: record.decimals,
            balance: holding.balance,
            frozen: holding.frozen,
        });
    }
    Ok(AccountTokens { address, tokens, total_count, offset: page.offset, limit: page.limit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::pages::tests::{Counted, LARGE, bounded_at_every_offset};
    use drover_state::token::state_key;

    #[test]
    fn a_page_of_a_holders_tokens_reads_the_page_whatever_it_holds() {
        let holder = Address([0xb0; 20]);
        let token = |i: u64| {
            let mut id = [0x70; 20];
            id[12..].copy_from_slice(&i.to_be_bytes());
            Address(id)
        };
        let mut db = Counted::default();
        db.list(
            &holdings_listing(&holder),
            LARGE,
            |i| token(i).0.to_vec(),
            |i| {
                let record = TokenRecord {
                    name: "Dust".into(),
                    symbol: format!("D{i}"),
                    decimals: 0,
                    supply: 1,
                    max_supply: None,
                    owner: holder,
                    mintable: false,
                    created_height: 1,
                    creator: holder,
                };
                vec![
                    (state_key(&holding_key(&token(i), &holder)), Holding { balance: 1, frozen: false }.encode()),
                    (state_key(&record_key(&token(i))), record.encode()),
                ]
            },
        );
        bounded_at_every_offset(&db, 3, 1, |page| {
            let db = &db;
            async move {
                let answer = account_tokens(db, holder, page).await.unwrap();
                assert_eq!(answer.total_count, LARGE);
                if let Some(first) = answer.tokens.first() {
                    assert_eq!((first.token_id, first.balance), (token(page.offset), 1));
                }
                answer.tokens.len()
            }
        });
    }
}
