//! Health: `GET /health` (liveness, reads no state) and `GET /health/detailed` (alias
//! `/health/ready`).
//!
//! The mempool component is degraded at [`MEMPOOL_DEGRADED_THRESHOLD_TXS`] pending
//! transactions or more, storage when the backend says its database is not answering; the node
//! is degraded when any component is. `synced` is always `true` (spec): sync is judged from
//! `block_height` and the age of `last_block_timestamp`.

use crate::{backend::Backend, limits::MEMPOOL_DEGRADED_THRESHOLD_TXS, openapi::errors, state::AppState};
use axum::{Json, extract::State};
use drover_types::api::{ComponentsHealth, HealthDetailed, HealthStatus, Liveness, paths};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("health", "Operator surfaces: health and metrics"))
        .routes(routes!(health))
        .routes(routes!(detailed))
        .routes(routes!(ready))
}

/// `GET /health`: always `ok`; reads no state.
#[utoipa::path(
    get,
    path = paths::HEALTH,
    tag = "health",
    summary = "Liveness",
    responses((status = 200, description = "`{\"status\": \"ok\"}` whenever the HTTP server answers.", body = Liveness)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn health() -> Json<Liveness> {
    Json(Liveness { status: HealthStatus::Ok })
}

fn status(ok: bool) -> HealthStatus {
    if ok { HealthStatus::Ok } else { HealthStatus::Degraded }
}

/// `GET /health/detailed`: the node's and each component's status, height and mempool figures.
#[utoipa::path(
    get,
    path = paths::HEALTH_DETAILED,
    tag = "health",
    summary = "Component-level health",
    responses((status = 200, description = "Health record; `degraded` at 30,000 pending transactions or more.", body = HealthDetailed)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn detailed<B: Backend>(State(state): State<AppState<B>>) -> Json<HealthDetailed> {
    let chain = state.backend.health();
    let components = ComponentsHealth {
        storage: status(chain.storage_ok),
        mempool: status(chain.mempool_transaction_count < MEMPOOL_DEGRADED_THRESHOLD_TXS),
        rpc: HealthStatus::Ok,
    };
    let all_ok = [components.storage, components.mempool, components.rpc].iter().all(|s| *s == HealthStatus::Ok);
    Json(HealthDetailed {
        status: status(all_ok),
        version: state.backend.chain_info().version,
        uptime_seconds: state.started_at.elapsed().as_secs(),
        block_height: chain.block_height,
        last_block_timestamp: chain.last_block_timestamp,
        mempool_transaction_count: chain.mempool_transaction_count as u64,
        mempool_account_count: chain.mempool_account_count as u64,
        components,
        synced: true,
    })
}

/// `GET /health/ready`: the same record as `/health/detailed`.
#[utoipa::path(
    get,
    path = paths::HEALTH_READY,
    tag = "health",
    summary = "Alias of /health/detailed",
    responses((status = 200, description = "Same record as /health/detailed.", body = HealthDetailed)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn ready<B: Backend>(state: State<AppState<B>>) -> Json<HealthDetailed> {
    detailed(state).await
}

#[cfg(test)]
mod tests {
    use crate::backend::chain::mock::ChainMock;
    use crate::mock::*;
    use axum::http::StatusCode;

    #[tokio::test]
    async fn liveness() {
        let answer = get(&app(&MockBackend::default()), "/health").await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json(), serde_json::json!({"status": "ok"}));
    }

    #[tokio::test]
    async fn detailed_record() {
        let mock = MockBackend::with(|data: &mut ChainMock| {
            data.health.block_height = 12;
            data.health.mempool_transaction_count = 29_999;
            data.health.mempool_account_count = 17;
        });
        let app = app(&mock);
        let body = get(&app, "/health/detailed").await.json();
        assert!(body["uptime_seconds"].is_u64());
        let mut expected = serde_json::json!({
            "status": "ok",
            "version": "0.1.0-test",
            "uptime_seconds": body["uptime_seconds"],
            "block_height": 12,
            "last_block_timestamp": 1_700_000_000u64,
            "mempool_transaction_count": 29_999,
            "mempool_account_count": 17,
            "components": {"storage": "ok", "mempool": "ok", "rpc": "ok"},
            "synced": true,
        });
        assert_eq!(body, expected);
        let alias = get(&app, "/health/ready").await.json();
        expected["uptime_seconds"] = alias["uptime_seconds"].clone();
        assert_eq!(alias, expected);
    }

    #[tokio::test]
    async fn degraded_from_exactly_30_000_pending() {
        let mock = MockBackend::with(|data: &mut ChainMock| data.health.mempool_transaction_count = 30_000);
        let body = get(&app(&mock), "/health/detailed").await.json();
        assert_eq!(body["status"], "degraded");
        assert_eq!(body["components"], serde_json::json!({"storage": "ok", "mempool": "degraded", "rpc": "ok"}));
        assert_eq!(body["synced"], true);
    }

    #[tokio::test]
    async fn degraded_when_storage_is_not_answering() {
        let mock = MockBackend::with(|data: &mut ChainMock| data.health.storage_ok = false);
        let body = get(&app(&mock), "/health/ready").await.json();
        assert_eq!(body["status"], "degraded");
        assert_eq!(body["components"]["storage"], "degraded");
        assert_eq!(body["components"]["mempool"], "ok");
    }
}
