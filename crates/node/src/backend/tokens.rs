//! Token reads for the API: records of the tokens system actor's storage in the latest applied
//! state, decoded into the `drover_types::api` token records.
//!
//! `/tokens` is point lookups (creation order is kept as numbered slots): a page costs
//! `2 × limit` lookups whatever the number of tokens. A holder's tokens are one key range (see
//! `drover_state::keys::token_holding_key`), read whole to count them and cut the page: a
//! request costs what that holder holds, whatever the number of holders. All reads of one
//! request happen under one read lock and see one state.

use super::{
    handle::NodeHandle,
    pages::{read_storage, scan},
};
use crate::error::NodeError;
use drover_rpc::pagination::Page;
use drover_state::{
    RecordError, decode_address, decode_count,
    token::{
        Holding, TokenRecord, allowance_key, decode_amount, holding_entry, holding_key, holdings_range, record_key,
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

impl NodeHandle {
    pub(super) async fn read_tokens(&self, page: Page) -> Result<TokenList, ApiError> {
        let db = self.0.databases.read().await;
        let total_count = read_storage(&db, &TOKENS_ADDRESS, &token_count_key(), decode_count).await?.unwrap_or(0);
        let end = total_count.min(page.offset.saturating_add(page.limit));
        let mut tokens = Vec::new();
        for seq in page.offset..end {
            let id = read_storage(&db, &TOKENS_ADDRESS, &token_by_seq_key(seq), decode_address)
                .await?
                .ok_or_else(|| missing("a gap in creation order"))?;
            let record = read_storage(&db, &TOKENS_ADDRESS, &record_key(&id), TokenRecord::decode)
                .await?
                .ok_or_else(|| missing("a listed token without a record"))?;
            tokens.push(info(id, record));
        }
        Ok(TokenList { tokens, total_count, offset: page.offset, limit: page.limit })
    }

    pub(super) async fn read_token(&self, id: Address) -> Result<Option<TokenInfo>, ApiError> {
        let db = self.0.databases.read().await;
        Ok(read_storage(&db, &TOKENS_ADDRESS, &record_key(&id), TokenRecord::decode)
            .await?
            .map(|record| info(id, record)))
    }

    /// `user_key`'s amount under token `id`; `None` when the token does not exist.
    pub(super) async fn read_token_amount(
        &self,
        id: Address,
        user_key: Vec<u8>,
        amount: impl FnOnce(&[u8]) -> Result<u128, RecordError>,
    ) -> Result<Option<u128>, ApiError> {
        let db = self.0.databases.read().await;
        if read_storage(&db, &TOKENS_ADDRESS, &record_key(&id), |_| Ok(())).await?.is_none() {
            return Ok(None);
        }
        Ok(Some(read_storage(&db, &TOKENS_ADDRESS, &user_key, amount).await?.unwrap_or(0)))
    }

    pub(super) async fn read_token_balance(&self, id: Address, holder: Address) -> Result<Option<u128>, ApiError> {
        self.read_token_amount(id, holding_key(&id, &holder), |bytes| Holding::decode(bytes).map(|h| h.balance)).await
    }

    pub(super) async fn read_token_allowance(
        &self,
        id: Address,
        owner: Address,
        spender: Address,
    ) -> Result<Option<u128>, ApiError> {
        self.read_token_amount(id, allowance_key(&id, &owner, &spender), decode_amount).await
    }

    pub(super) async fn read_account_tokens(&self, address: Address, page: Page) -> Result<AccountTokens, ApiError> {
        let db = self.0.databases.read().await;
        // A holder's holdings are one key range, in token order: the page is cut from one read
        // of the range, which also counts them.
        let own = |key: &[u8], value: Vec<u8>| {
            let (holder, token) = holding_entry(key)?;
            (holder == address).then_some((token, value))
        };
        let (entries, _) = scan(&db, &holdings_range(&address), None, u64::MAX, own).await.map_err(NodeError::from)?;
        let mut tokens = Vec::new();
        let mut total_count = 0u64;
        for (token_id, value) in entries {
            let holding = Holding::decode(&value).map_err(NodeError::from)?;
            if holding.balance == 0 {
                // A frozen holder without a balance: not a token it holds.
                continue;
            }
            total_count += 1;
            if total_count <= page.offset || tokens.len() as u64 >= page.limit {
                continue;
            }
            let record = read_storage(&db, &TOKENS_ADDRESS, &record_key(&token_id), TokenRecord::decode)
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
}
