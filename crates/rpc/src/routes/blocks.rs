//! Blocks: `GET /height` and `GET /block/{selector}` (a block hash, a decimal height or
//! `latest`).

use crate::{backend::Backend, error::HttpError, extract::BlockSelectorParam, openapi::errors, state::AppState};
use axum::{Json, extract::State};
use drover_types::{
    BlockSelector, ErrorCode,
    api::{BlockInfo, HeightInfo, paths},
};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("blocks", "Finalized blocks"))
        .routes(routes!(height))
        .routes(routes!(block))
}

/// `GET /height`: the latest finalized height.
#[utoipa::path(
    get,
    path = paths::HEIGHT,
    tag = "blocks",
    summary = "Latest finalized height",
    responses((status = 200, description = "The height (0 before the first block).", body = HeightInfo)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn height<B: Backend>(State(state): State<AppState<B>>) -> Json<HeightInfo> {
    Json(HeightInfo { height: state.backend.height() })
}

/// `GET /block/{selector}`: a finalized block by hash, height or `latest` (4001 for a bad selector,
/// 4000 when there is no such block).
#[utoipa::path(
    get,
    path = paths::BLOCK,
    tag = "blocks",
    summary = "A finalized block by hash, height or `latest`",
    params(("selector" = String, Path, description = "Block hash (32 bytes of hex), decimal height, or `latest`.")),
    responses((status = 200, description = "The block header with its transaction hashes.", body = BlockInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BlockNotFound, ErrorCode::InvalidBlockSelector])))),
)]
pub async fn block<B: Backend>(
    State(state): State<AppState<B>>,
    BlockSelectorParam(selector): BlockSelectorParam,
) -> Result<Json<BlockInfo>, HttpError> {
    state.backend.block(selector).await?.map(Json).ok_or_else(|| {
        let which = match selector {
            BlockSelector::Latest => "no block finalized yet".to_owned(),
            BlockSelector::Height(height) => format!("no finalized block at height {height}"),
            BlockSelector::Hash(hash) => format!("no finalized block with hash {hash}"),
        };
        HttpError::new(ErrorCode::BlockNotFound, which)
    })
}

#[cfg(test)]
mod tests {
    use crate::backend::chain::mock::ChainMock;
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::ErrorCode;

    #[tokio::test]
    async fn height_and_block_selectors() {
        let mock = MockBackend::with(|data: &mut ChainMock| data.blocks.extend([block(1), block(2)]));
        let app = app(&mock);
        assert_eq!(get(&app, "/height").await.json(), serde_json::json!({"height": 2}));

        let latest = get(&app, "/block/latest").await;
        assert_eq!(latest.status, StatusCode::OK);
        let body = latest.json();
        assert_eq!(body["height"], 2);
        assert_eq!(body["hash"], block(2).hash.to_hex());
        assert_eq!(body["parent_hash"], block(1).hash.to_hex());
        assert_eq!(body["basefee_cycle"], "7");
        assert!(body["transactions"].is_array());
        assert_eq!(get(&app, "/block/1").await.json()["height"], 1);
        assert_eq!(get(&app, &format!("/block/{}", block(0).hash)).await.json()["height"], 0);

        get(&app, "/block/9").await.assert_error(404, ErrorCode::BlockNotFound);
        get(&app, &format!("/block/{}", block(9).hash)).await.assert_error(404, ErrorCode::BlockNotFound);
        for bad in ["earliest", "-1", "0x12", "1.5"] {
            get(&app, &format!("/block/{bad}")).await.assert_error(400, ErrorCode::InvalidBlockSelector);
        }
    }
}
