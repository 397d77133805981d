//! Account history and the block list: `GET /account/{address}/history` (an account's
//! transactions, sent and received, newest first), `GET /blocks` (finalized blocks, newest
//! first) and `GET /indexed` (the heights the node holds them for).
//!
//! Both lists are cursor-paged backwards from the newest entry: a page reads its entries and no
//! more, whatever the account's or the chain's length (the node walks one index range in
//! reverse from the cursor). A cursor below the first indexed height (a node that fast-synced
//! holds nothing below its sync height) is refused with 4002 rather than answered with an
//! empty page.

use crate::{
    backend::{Backend, history::HISTORY_CURSOR_BYTES},
    error::HttpError,
    extract::{AddressParam, ApiQuery},
    limits::{PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX},
    openapi::errors,
    state::AppState,
};
use axum::{Json, extract::State};
use drover_types::{
    ErrorCode,
    api::{BlockPage, HistoryPage, IndexedRange, paths},
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::new().routes(routes!(history)).routes(routes!(blocks)).routes(routes!(indexed))
}

/// Query of the backward lists: `cursor` is the previous page's `next_cursor` (absent for the
/// newest page), `limit` the page size (default 50, capped at 1,000; 0 counts as 1).
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    /// The previous page's `next_cursor`.
    cursor: Option<String>,
    /// Items per page.
    limit: Option<u64>,
}

impl ListQuery {
    fn limit(&self) -> u64 {
        self.limit.unwrap_or(PAGE_LIMIT_DEFAULT).clamp(1, PAGE_LIMIT_MAX)
    }
}

fn bad_cursor(what: &str) -> HttpError {
    HttpError::new(ErrorCode::BadRequest, format!("cursor must be {what} (a page's next_cursor)"))
}

/// The 4002 of a query that reaches below `first`, the first indexed height.
pub(crate) fn not_indexed(height: u64, first: u64) -> HttpError {
    HttpError::new(
        ErrorCode::NotIndexed,
        format!("height {height} is below {first}, the first height this node holds history, blocks and events for"),
    )
}

/// Whether `height` is below what the node indexes, given its first indexed height. Genesis
/// (height 0) holds no transactions or events, so it is never below a node that synced from it.
pub(crate) fn below_indexed(height: u64, range: &IndexedRange) -> bool {
    height.max(1) < range.first_height
}

/// `GET /account/{address}/history`: a page of the account's transactions, newest first.
#[utoipa::path(
    get,
    path = paths::ACCOUNT_HISTORY,
    tag = "accounts",
    summary = "An account's transactions, sent and received, newest first",
    description = "Every finalized transaction the account sent, is the destination of (its `to`, or the actor its deploy created), or received value in: native value from the sender (`transfer`), from an actor's `transfer` host call, a nested call's value or a system actor's payout (`actor_transfer`), or native tokens (`token_transfer`). One entry per transaction, with its height, index, hash, direction, status, and what the account received. Transactions below `first_indexed_height` are not held by this node.",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("cursor" = Option<String>, Query, pattern = "^(0[xX])?[0-9a-fA-F]{24}$", description = "The previous page's `next_cursor` (12 bytes of hex); absent for the newest page."),
        ("limit" = Option<u64>, Query, description = "Items per page: default 50, capped at 1,000."),
    ),
    responses((status = 200, description = "Transactions older than the cursor and the next cursor.", body = HistoryPage)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::NotIndexed])))),
)]
pub async fn history<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Json<HistoryPage>, HttpError> {
    let before = query
        .cursor
        .as_deref()
        .map(|text| {
            drover_types::hexfmt::decode(text)
                .ok()
                .and_then(|bytes| <[u8; HISTORY_CURSOR_BYTES]>::try_from(bytes).ok())
                .ok_or_else(|| bad_cursor(&format!("{HISTORY_CURSOR_BYTES} bytes of hex")))
        })
        .transpose()?;
    if let Some(before) = before {
        let height = u64::from_be_bytes(before[..8].try_into().unwrap_or_default());
        let range = state.backend.indexed_range().await?;
        if below_indexed(height, &range) {
            return Err(not_indexed(height, range.first_height));
        }
    }
    Ok(Json(state.backend.history(address, before, query.limit()).await?))
}

/// `GET /blocks`: a page of finalized blocks, newest first.
#[utoipa::path(
    get,
    path = paths::BLOCKS,
    tag = "blocks",
    summary = "Finalized blocks, newest first",
    description = "Header fields, counts (transactions, system runs, events) and meters of each block, without its transaction hashes (`/block/{selector}` has them). Blocks below `first_indexed_height` are not held by this node.",
    params(
        ("cursor" = Option<String>, Query, pattern = "^[0-9]{1,20}$", description = "The previous page's `next_cursor` (a height: blocks below it); absent for the newest page."),
        ("limit" = Option<u64>, Query, description = "Items per page: default 50, capped at 1,000."),
    ),
    responses((status = 200, description = "Blocks below the cursor and the next cursor.", body = BlockPage)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotIndexed])))),
)]
pub async fn blocks<B: Backend>(
    State(state): State<AppState<B>>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Json<BlockPage>, HttpError> {
    let before = query
        .cursor
        .as_deref()
        .map(|text| {
            let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
            digits.then(|| text.parse::<u64>().ok()).flatten().ok_or_else(|| bad_cursor("a decimal height"))
        })
        .transpose()?;
    if let Some(before) = before {
        let range = state.backend.indexed_range().await?;
        // Blocks below `before` are asked for: the first of them is `before - 1`.
        let below = before.saturating_sub(1);
        if before > 1 && below_indexed(below, &range) {
            return Err(not_indexed(below, range.first_height));
        }
    }
    Ok(Json(state.backend.blocks(before, query.limit()).await?))
}

/// `GET /indexed`: the heights the node holds history, blocks and events for.
#[utoipa::path(
    get,
    path = paths::INDEXED,
    tag = "blocks",
    summary = "The heights history, block lists and event queries cover",
    description = "`first_height` is where this node's indexes start: 1 for a node that synced from genesis, the first block after its sync height for one that fast-synced. Queries below it answer 4002.",
    responses((status = 200, description = "The first indexed height and the tip.", body = IndexedRange)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn indexed<B: Backend>(State(state): State<AppState<B>>) -> Result<Json<IndexedRange>, HttpError> {
    Ok(Json(state.backend.indexed_range().await?))
}

#[cfg(test)]
mod tests {
    use crate::backend::{chain::mock::ChainMock, history::mock::HistoryMock};
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::{
        Address, ErrorCode, H256,
        api::{Direction, HistoryEntryInfo, ReceiptStatus, ReceivedBy},
    };

    fn entry(height: u64, index: u32) -> HistoryEntryInfo {
        HistoryEntryInfo {
            tx_hash: H256([height as u8; 32]),
            block_height: height,
            index,
            direction: Direction::Received,
            status: ReceiptStatus::Success,
            from: Address([1; 20]),
            to: Some(Address([2; 20])),
            value: 5,
            fee: 7,
            destination: true,
            received: vec![ReceivedBy::Transfer],
            value_received: 5,
            tokens_received: Vec::new(),
        }
    }

    fn mock(first_height: u64) -> MockBackend {
        let mock = MockBackend::with(|data: &mut HistoryMock| {
            data.first_height = first_height;
            data.history.insert(Address([2; 20]), vec![entry(9, 1), entry(9, 0), entry(4, 2)]);
        });
        mock.edit(|chain: &mut ChainMock| chain.blocks.extend((1..=9).map(block)));
        mock
    }

    #[tokio::test]
    async fn history_pages_newest_first_and_refuses_bad_cursors() {
        let app = app(&mock(1));
        let path = format!("/account/{}/history", Address([2; 20]));
        let first = get(&app, &format!("{path}?limit=2")).await;
        assert_eq!(first.status, StatusCode::OK);
        let first = first.json();
        assert_eq!(first["items"].as_array().unwrap().len(), 2);
        assert_eq!(first["items"][0]["direction"], "received");
        assert_eq!(first["items"][0]["received"], serde_json::json!(["transfer"]));
        assert_eq!(first["first_indexed_height"], 1);
        let cursor = first["next_cursor"].as_str().unwrap().to_owned();
        let rest = get(&app, &format!("{path}?cursor={cursor}")).await.json();
        assert_eq!(rest["items"][0]["block_height"], 4);
        assert!(rest["next_cursor"].is_null());
        for bad in ["zz", "00", &"0".repeat(26)] {
            get(&app, &format!("{path}?cursor={bad}")).await.assert_error(400, ErrorCode::BadRequest);
        }
        get(&app, "/account/0x12/history").await.assert_error(400, ErrorCode::InvalidAddress);
        get(&app, &format!("{path}?limit=ten")).await.assert_error(400, ErrorCode::BadRequest);
    }

    #[tokio::test]
    async fn below_the_first_indexed_height_is_4002_not_an_empty_page() {
        let app = app(&mock(5));
        let path = format!("/account/{}/history", Address([2; 20]));
        let below = format!("{:016x}{:08x}", 4u64, 0u32);
        get(&app, &format!("{path}?cursor={below}")).await.assert_error(404, ErrorCode::NotIndexed);
        let at = format!("{:016x}{:08x}", 5u64, 0u32);
        assert_eq!(get(&app, &format!("{path}?cursor={at}")).await.status, StatusCode::OK);
        get(&app, "/blocks?cursor=5").await.assert_error(404, ErrorCode::NotIndexed);
        let blocks = get(&app, "/blocks?cursor=7").await.json();
        assert_eq!(
            blocks["items"].as_array().unwrap().iter().map(|b| b["height"].as_u64().unwrap()).collect::<Vec<_>>(),
            [6, 5]
        );
        assert!(blocks["next_cursor"].is_null());
        assert_eq!(get(&app, "/indexed").await.json(), serde_json::json!({"first_height": 5, "last_height": 9}));
    }

    #[tokio::test]
    async fn blocks_page_newest_first_without_hashes() {
        let app = app(&mock(1));
        let page = get(&app, "/blocks?limit=3").await.json();
        let heights: Vec<_> = page["items"].as_array().unwrap().iter().map(|b| b["height"].as_u64().unwrap()).collect();
        assert_eq!(heights, [9, 8, 7]);
        assert!(page["items"][0]["transactions"].is_null());
        assert_eq!(page["next_cursor"], "7");
        for bad in ["x", "-1", "+3", "", "99999999999999999999999"] {
            get(&app, &format!("/blocks?cursor={bad}")).await.assert_error(400, ErrorCode::BadRequest);
        }
    }
}
