//! The API while the node is starting: opening its state database, or fast-syncing it from a
//! peer, which can take minutes.
//!
//! Until the state is ready there is nothing true to say about accounts, blocks or the mempool,
//! so only `GET /health` (liveness), `GET /health/detailed` (and `/health/ready`: `degraded`, with
//! storage `degraded`, height 0, an empty mempool and `synced: true` as the spec defines it) and
//! `GET /metrics` (the runtime's registry, which carries the state-sync engine's progress)
//! answer; every other route answers 503 with code 1000 and a message saying why. [`Switch`] serves this router until [`Switch::ready`] hands it the full
//! API, on the same listener, so clients never see the port closed.

use crate::{error::HttpError, routes::health::health, routes::metrics::METRICS_CONTENT_TYPE};
use axum::{
    Json, Router,
    extract::Request,
    http::{StatusCode, header},
    response::Response,
    routing::get,
};
use drover_types::{
    ErrorCode,
    api::{ComponentsHealth, HealthDetailed, HealthStatus, paths},
};
use std::{
    convert::Infallible,
    sync::{Arc, OnceLock},
    time::Instant,
};

/// Prometheus text of the node while it starts.
pub type MetricsSource = Arc<dyn Fn() -> String + Send + Sync>;

/// The routes that answer while the state is not ready.
pub fn starting_router(metrics: MetricsSource) -> Router {
    let started_at = Instant::now();
    let detailed = move || async move {
        Json(HealthDetailed {
            status: HealthStatus::Degraded,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            uptime_seconds: started_at.elapsed().as_secs(),
            block_height: 0,
            last_block_timestamp: 0,
            mempool_transaction_count: 0,
            mempool_account_count: 0,
            components: ComponentsHealth {
                storage: HealthStatus::Degraded,
                mempool: HealthStatus::Ok,
                rpc: HealthStatus::Ok,
            },
            synced: true,
        })
    };
    Router::new()
        .route(paths::HEALTH, get(health))
        .route(paths::HEALTH_DETAILED, get(detailed))
        .route(paths::HEALTH_READY, get(detailed))
        .route(
            paths::METRICS,
            get(move || {
                let text = metrics();
                async move { ([(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)], text) }
            }),
        )
        .fallback(|| async {
            HttpError::new(
                ErrorCode::Internal,
                "the node is starting: its state is being opened or fast-synced; only /health, \
                 /health/detailed and /metrics answer until it is ready",
            )
            .with_status(StatusCode::SERVICE_UNAVAILABLE)
        })
}

/// Serves the starting router, then the full API once it is ready.
#[derive(Clone)]
pub struct Switch {
    starting: Router,
    ready: Arc<OnceLock<Router>>,
}

impl Switch {
    /// A switch serving the start-up routes (health, and `/metrics` from `metrics`) until
    /// [`Switch::ready`].
    pub fn new(metrics: MetricsSource) -> Self {
        Self { starting: starting_router(metrics), ready: Arc::new(OnceLock::new()) }
    }

    /// Serves `api` from now on (only the first call has an effect).
    pub fn ready(&self, api: Router) {
        let _ = self.ready.set(api);
    }

    /// The router answering now.
    fn current(&self) -> &Router {
        self.ready.get().unwrap_or(&self.starting)
    }

    /// The switch as a router (tests drive routers; the server drives the switch itself).
    #[cfg(test)]
    pub fn router(&self) -> Router {
        Router::new().fallback_service(self.clone())
    }
}

/// Every request goes to whichever router is current, with no routing of its own.
impl tower::Service<Request> for Switch {
    type Response = Response;
    type Error = Infallible;
    type Future = <Router as tower::Service<Request>>::Future;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        self.current().clone().call(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::{MockBackend, get};

    #[tokio::test]
    async fn only_health_and_metrics_answer_until_ready() {
        let switch = Switch::new(Arc::new(|| "sync_engine_synced 42\n".to_owned()));
        let app = switch.router();
        assert_eq!(get(&app, "/health").await.status, StatusCode::OK);
        let metrics = get(&app, "/metrics").await;
        assert_eq!(metrics.status, StatusCode::OK);
        assert!(metrics.text().contains("sync_engine_synced 42"));
        for path in ["/health/detailed", "/health/ready"] {
            let health = get(&app, path).await.json();
            assert_eq!(health["status"], "degraded");
            assert_eq!(health["components"]["storage"], "degraded");
            assert_eq!(health["block_height"], 0);
            assert_eq!(health["synced"], true);
        }
        for path in ["/height", "/account/0x1111111111111111111111111111111111111111", "/nope"] {
            let answer = get(&app, path).await;
            answer.assert_error(503, ErrorCode::Internal);
            assert!(answer.json()["message"].as_str().unwrap().contains("starting"));
        }

        let http = crate::Http::new(&crate::RpcConfig::default());
        switch.ready(crate::router(MockBackend::default(), crate::RpcConfig::default(), &http));
        assert_eq!(get(&app, "/height").await.json()["height"], 0);
        // The full API's own refusals come through unchanged.
        get(&app, "/nope").await.assert_error(404, ErrorCode::NotFound);
    }
}
