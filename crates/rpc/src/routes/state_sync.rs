//! State sync for peers that fast-sync: `GET /state/snapshot` (the checkpoint to sync to) and
//! `GET /state/operations` (a batch of state operations with a range proof).
//!
//! Both routes are limited per client IP (`STATE_SYNC_RATE_PER_SEC`, default 5 per second) on top
//! of the global limit, since a syncing peer is expected to pull as fast as it is allowed. The
//! client IP is the TCP peer address; behind a proxy every client shares the proxy's window.
//!
//! The batch is the binary codec of the state database's sync response (format in
//! `docs/state-sync.md`), served as `application/octet-stream`. The route checks only the shape
//! of the request (`start < size`, `1 ≤ max ≤ STATE_OPERATIONS_MAX`); the backend refuses a size
//! beyond the log it holds or a range it has pruned, and bounds the answer's size
//! (`MAX_OPERATIONS_RESPONSE_BYTES`, 8 MiB) by serving fewer than `max` operations, at least one.

use crate::{
    backend::{Backend, OperationsRequest},
    client::ClientId,
    error::HttpError,
    extract::ApiQuery,
    limits::STATE_OPERATIONS_MAX,
    openapi::errors,
    rate_limit,
    state::AppState,
};
use axum::{Json, extract::State, http::header, response::IntoResponse};
use drover_types::{
    ErrorCode,
    api::{StateSnapshot, paths},
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("state-sync", "State snapshots for peers that fast-sync"))
        .routes(routes!(snapshot))
        .routes(routes!(operations))
}

/// `GET /state/snapshot`: the latest state-sync checkpoint (404 before there is one); rate-limited
/// per client IP.
#[utoipa::path(
    get,
    path = paths::STATE_SNAPSHOT,
    tag = "state-sync",
    summary = "The latest state-sync checkpoint",
    description = "Recorded automatically for every finalized block. Rate-limited per client IP.",
    responses(
        (status = 200, description = "The checkpoint: replay `range_start..op_count` against `ops_root`.", body = StateSnapshot),
    ),
    extensions(("x-errors" = json!(errors(&[ErrorCode::NotFound])))),
)]
pub async fn snapshot<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
) -> Result<Json<StateSnapshot>, HttpError> {
    rate_limit::check_client(&state, client)?;
    state
        .backend
        .state_snapshot()
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::NotFound, "no snapshot recorded yet: no block has been finalized"))
}

/// Query of `GET /state/operations`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OperationsQuery {
    /// Operation count whose ops root the proof is against (a snapshot's `op_count`).
    size: u64,
    /// First operation to return; below `size`.
    start: u64,
    /// Most operations to return (1 to 50,000); required unless `boundary` is set.
    #[param(minimum = 1, maximum = 50_000)]
    max: Option<u64>,
    /// Return the single operation at `start` with the pinned Merkle nodes below it instead (then
    /// without `max`).
    #[serde(default)]
    boundary: bool,
}

impl OperationsQuery {
    fn request(&self) -> Result<OperationsRequest, HttpError> {
        let bad = |message: String| HttpError::new(ErrorCode::BadRequest, message);
        if self.start >= self.size {
            return Err(bad(format!("start ({}) must be below size ({})", self.start, self.size)));
        }
        if self.boundary {
            if self.max.is_some() {
                return Err(bad("max does not apply to a boundary request".to_owned()));
            }
            return Ok(OperationsRequest::Boundary { size: self.size, start: self.start });
        }
        match self.max {
            None => Err(bad("max is required".to_owned())),
            Some(max) if max == 0 || max > STATE_OPERATIONS_MAX => {
                Err(bad(format!("max must be 1 to {STATE_OPERATIONS_MAX}, got {max}")))
            }
            Some(max) => Ok(OperationsRequest::Operations { size: self.size, start: self.start, max }),
        }
    }
}

/// `GET /state/operations`: a binary batch of state operations with its range proof; rate-limited
/// per client IP.
#[utoipa::path(
    get,
    path = paths::STATE_OPERATIONS,
    tag = "state-sync",
    summary = "A batch of state operations with a range proof",
    description = "Binary codec batch (docs/state-sync.md) proven against the ops root at `size`: \
        operations `start ..` up to `max` of them, fewer (at least one) when they would encode \
        larger than 8 MiB (`MAX_OPERATIONS_RESPONSE_BYTES`); ask again from where the batch ends. \
        Rate-limited per client IP.",
    params(OperationsQuery),
    responses(
        (status = 200, description = "The encoded batch, at most 8 MiB.", content_type = "application/octet-stream", body = Vec<u8>),
    ),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotFound])))),
)]
pub async fn operations<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
    ApiQuery(query): ApiQuery<OperationsQuery>,
) -> Result<impl IntoResponse, HttpError> {
    rate_limit::check_client(&state, client)?;
    let request = query.request()?;
    let bytes = state.backend.state_operations(request).await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes))
}

#[cfg(test)]
mod tests {
    use crate::{
        backend::{
            OperationsRequest,
            state_sync::mock::{StateSyncMock, snapshot},
        },
        mock::*,
    };
    use axum::{
        body::Body,
        extract::ConnectInfo,
        http::{Request, StatusCode, header},
    };
    use drover_types::{ErrorCode, H256};
    use std::net::{IpAddr, Ipv6Addr, SocketAddr};

    fn from(uri: &str, ip: impl Into<IpAddr>) -> Request<Body> {
        let mut request = Request::get(uri).body(Body::empty()).unwrap();
        request.extensions_mut().insert(ConnectInfo(SocketAddr::new(ip.into(), 5000)));
        request
    }

    #[tokio::test]
    async fn snapshot_is_404_until_recorded_then_served() {
        let mock = MockBackend::default();
        let app = app(&mock);
        get(&app, "/state/snapshot").await.assert_error(404, ErrorCode::NotFound);

        mock.part::<StateSyncMock>().lock().snapshot = Some(snapshot());
        let body = get(&app, "/state/snapshot").await.json();
        assert_eq!(body["height"], 9);
        assert_eq!(body["range_start"], 4);
        assert_eq!(body["op_count"], 100);
        assert_eq!(body["ops_root"], H256([1; 32]).to_hex());
        assert_eq!(body["canonical_root"], H256([2; 32]).to_hex());
    }

    #[tokio::test]
    async fn operations_requests_are_checked_then_served_as_bytes() {
        let mock = MockBackend::with(|data: &mut StateSyncMock| data.snapshot = Some(snapshot()));
        let app = app(&mock);
        let answer = send(&app, from("/state/operations?size=100&start=4&max=10", [127, 0, 0, 1])).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/octet-stream"));
        let answer = send(&app, from("/state/operations?size=100&start=4&boundary=true", [127, 0, 0, 2])).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(
            mock.part::<StateSyncMock>().lock().operations_requests,
            vec![
                OperationsRequest::Operations { size: 100, start: 4, max: 10 },
                OperationsRequest::Boundary { size: 100, start: 4 },
            ]
        );

        for (i, uri) in [
            "/state/operations",
            "/state/operations?size=100&start=4",
            "/state/operations?size=100&start=100&max=1",
            "/state/operations?size=100&start=4&max=0",
            "/state/operations?size=100&start=4&max=50001",
            "/state/operations?size=100&start=4&max=1&boundary=true",
            "/state/operations?size=-1&start=0&max=1",
            "/state/operations?size=ten&start=0&max=1",
        ]
        .into_iter()
        .enumerate()
        {
            // A fresh client each time so the per-IP limit does not interfere.
            send(&app, from(uri, [10, 0, 0, i as u8])).await.assert_error(400, ErrorCode::BadRequest);
        }

        // A size beyond what the node holds is the backend's refusal.
        send(&app, from("/state/operations?size=101&start=4&max=1", [10, 1, 0, 0]))
            .await
            .assert_error(404, ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn limited_per_client_ip_with_retry_after() {
        let mock = MockBackend::with(|data: &mut StateSyncMock| data.snapshot = Some(snapshot()));
        let app = app(&mock);
        for _ in 0..5 {
            assert_eq!(send(&app, from("/state/snapshot", [127, 0, 0, 1])).await.status, StatusCode::OK);
        }
        let refused = send(&app, from("/state/operations?size=100&start=4&max=1", [127, 0, 0, 1])).await;
        refused.assert_error(429, ErrorCode::RateLimited);
        assert_eq!(refused.header(header::RETRY_AFTER), Some("1"));
        // Another client still gets through.
        assert_eq!(send(&app, from("/state/snapshot", [127, 0, 0, 2])).await.status, StatusCode::OK);
        // Other routes are not limited by the state-sync window.
        let other = send(&app, from("/height", [127, 0, 0, 1])).await;
        assert_eq!(other.status, StatusCode::OK);
        let metrics = get(&app, "/metrics").await;
        assert!(metrics.text().contains("limiter=\"state_sync\""));
    }

    #[tokio::test]
    async fn an_ipv6_client_is_limited_as_its_56_bit_network() {
        let mock = MockBackend::with(|data: &mut StateSyncMock| data.snapshot = Some(snapshot()));
        let app = app(&mock);
        let network = 0x2001_0db8_0000_0100_u128 << 64;
        // Every request from another /64 of the same /56: one client, one window.
        for subnet in 1..=5_u128 {
            let ip = Ipv6Addr::from(network | (subnet << 64) | 0x9e37_79b9);
            assert_eq!(send(&app, from("/state/snapshot", ip)).await.status, StatusCode::OK);
        }
        send(&app, from("/state/snapshot", Ipv6Addr::from(network | 0xffff)))
            .await
            .assert_error(429, ErrorCode::RateLimited);
        // The next /56 is another client.
        let next = Ipv6Addr::from(network + (1 << 72) + 1);
        assert_eq!(send(&app, from("/state/snapshot", next)).await.status, StatusCode::OK);
    }
}
