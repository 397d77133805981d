//! `POST /faucet` (development networks): `{"address": "0x…"}` → the drip is sent.
//!
//! Checks in order: faucet disabled → 404 code 8000 (the route behaves as absent, before the
//! body is even looked at); chain id other than 1 or 100 → 403 code 8001; a body that is not the
//! expected JSON → 1001, an invalid address → 3001; then the node-wide faucet rate limit (429
//! code 1004 with `Retry-After`), so malformed requests do not use up the quota; then the
//! funding transaction.

use crate::{
    backend::Backend,
    error::HttpError,
    extract::{RawBody, json_body, parse_address},
    openapi::errors,
    rate_limit,
    state::AppState,
};
use axum::{Json, extract::State};
use drover_types::{
    ErrorCode,
    api::{FaucetResponse, paths},
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Chain ids the faucet serves (spec: 1 and 100).
pub const FAUCET_CHAIN_IDS: [u64; 2] = [1, 100];

/// The request, with the address kept as text so a bad one gets 3001 rather than 1001.
#[derive(Deserialize)]
struct FaucetBody {
    address: String,
}

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("faucet", "Development-network faucet")).routes(routes!(faucet))
}

/// `POST /faucet`: sends the drip to an address (8000 when the faucet is disabled, 8001 on a chain
/// other than 1 or 100, 1004 past the rate limit).
#[utoipa::path(
    post,
    path = paths::FAUCET,
    tag = "faucet",
    summary = "Request funds (development networks only)",
    description = "Sends the node's drip amount to `address`. Node-wide limit: 5 requests per \
        minute by default.",
    request_body(content = drover_types::api::FaucetRequest, content_type = "application/json"),
    responses((status = 200, description = "Funding transaction sent.", body = FaucetResponse)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::FaucetDisabled, ErrorCode::FaucetForbidden])))),
)]
pub async fn faucet<B: Backend>(
    State(state): State<AppState<B>>,
    RawBody(body): RawBody,
) -> Result<Json<FaucetResponse>, HttpError> {
    let settings = state
        .backend
        .faucet()
        .ok_or_else(|| HttpError::new(ErrorCode::FaucetDisabled, "the faucet is not enabled on this node"))?;
    let chain_id = state.backend.chain_info().chain_id;
    if !FAUCET_CHAIN_IDS.contains(&chain_id) {
        return Err(HttpError::new(
            ErrorCode::FaucetForbidden,
            format!("the faucet serves only chain ids 1 and 100; this chain's id is {chain_id}"),
        ));
    }
    let request: FaucetBody = json_body(&body)?;
    let address = parse_address(&request.address)?;
    rate_limit::check_faucet(&state)?;
    let tx_hash = state.backend.fund(address).await?;
    Ok(Json(FaucetResponse { tx_hash, address, amount: settings.drip_amount }))
}

#[cfg(test)]
mod tests {
    use crate::{
        backend::{FaucetSettings, chain::mock::ChainMock, faucet::mock::FaucetMock},
        mock::*,
    };
    use axum::http::{StatusCode, header};
    use drover_types::{ErrorCode, keccak256};

    fn request(address: &str) -> String {
        serde_json::json!({ "address": address }).to_string()
    }

    #[tokio::test]
    async fn funds_an_address() {
        let app = app(&MockBackend::default());
        let address = key(9).address();
        let answer = post(&app, "/faucet", "application/json", request(&address.to_hex())).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        assert_eq!(
            answer.json(),
            serde_json::json!({
                "tx_hash": keccak256(&address.0).to_hex(),
                "address": address.to_hex(),
                "amount": 10_000_000_000u64,
            })
        );
    }

    #[tokio::test]
    async fn disabled_faucet_is_8000_whatever_the_body() {
        let app = app(&MockBackend::with(|data: &mut FaucetMock| data.faucet = None));
        post(&app, "/faucet", "application/json", request(&key(9).address().to_hex()))
            .await
            .assert_error(404, ErrorCode::FaucetDisabled);
        post(&app, "/faucet", "application/json", "{").await.assert_error(404, ErrorCode::FaucetDisabled);
    }

    #[tokio::test]
    async fn other_chains_are_403_8001() {
        for chain_id in [1, 100] {
            let app = app(&MockBackend::with(|data: &mut ChainMock| data.chain_id = chain_id));
            let answer = post(&app, "/faucet", "application/json", request(&key(9).address().to_hex())).await;
            assert_eq!(answer.status, StatusCode::OK, "chain {chain_id}");
        }
        for chain_id in [0, 2, 99, 101] {
            let app = app(&MockBackend::with(|data: &mut ChainMock| data.chain_id = chain_id));
            post(&app, "/faucet", "application/json", request(&key(9).address().to_hex()))
                .await
                .assert_error(403, ErrorCode::FaucetForbidden);
        }
    }

    #[tokio::test]
    async fn bad_requests() {
        let app = app(&MockBackend::default());
        for bad in ["", "{", "[]", r#"{"address": 5}"#, r#"{"addr": "0x00"}"#] {
            post(&app, "/faucet", "application/json", bad).await.assert_error(400, ErrorCode::BadRequest);
        }
        post(&app, "/faucet", "application/json", request("0x1234")).await.assert_error(400, ErrorCode::InvalidAddress);
        let huge = vec![b' '; crate::limits::MAX_REQUEST_BYTES + 1];
        post(&app, "/faucet", "application/json", huge).await.assert_error(413, ErrorCode::PayloadTooLarge);
    }

    #[tokio::test]
    async fn node_wide_limit_per_minute_with_retry_after() {
        let mock = MockBackend::with(|data: &mut FaucetMock| {
            data.faucet = Some(FaucetSettings { drip_amount: 1, requests_per_minute: 2 })
        });
        let app = app(&mock);
        // Refused requests do not use up the quota.
        post(&app, "/faucet", "application/json", request("0x1234")).await.assert_error(400, ErrorCode::InvalidAddress);
        for index in 0..2 {
            let answer = post(&app, "/faucet", "application/json", request(&key(index).address().to_hex())).await;
            assert_eq!(answer.status, StatusCode::OK);
        }
        let answer = post(&app, "/faucet", "application/json", request(&key(5).address().to_hex())).await;
        answer.assert_error(429, ErrorCode::RateLimited);
        let retry_after: u64 = answer.header(header::RETRY_AFTER).unwrap().parse().unwrap();
        assert!((59..=60).contains(&retry_after), "{retry_after}");
        let metrics = get(&app, "/metrics").await.text();
        assert!(metrics.contains(r#"drover_rpc_rate_limited_total{limiter="faucet"} 1"#), "{metrics}");
        assert!(
            metrics.contains(r#"drover_rpc_requests_total{route="/faucet",method="POST",status="429"} 1"#),
            "{metrics}"
        );
    }

    #[tokio::test]
    async fn default_quota_is_five_per_minute() {
        let mock = MockBackend::with(|data: &mut FaucetMock| {
            data.faucet = Some(FaucetSettings {
                drip_amount: 1,
                requests_per_minute: crate::limits::FAUCET_REQUESTS_PER_MINUTE_DEFAULT,
            })
        });
        let app = app(&mock);
        let address = key(9).address().to_hex();
        for _ in 0..5 {
            assert_eq!(post(&app, "/faucet", "application/json", request(&address)).await.status, StatusCode::OK);
        }
        post(&app, "/faucet", "application/json", request(&address)).await.assert_error(429, ErrorCode::RateLimited);
    }
}
