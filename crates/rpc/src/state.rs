//! Shared state of the router: the backend, the metrics registry, the rate limiters, the slots
//! of `/submit_wait` waits and the start instant (for `uptime_seconds`). Cheap to clone: one
//! `Arc` around all of it. axum clones a route's state several times per request (the route's
//! service, then the `State` extractor) and drops each clone again, so one reference count to
//! move, not one per field, is what keeps that off a small request's cost.

use crate::{
    RpcConfig,
    backend::Backend,
    limits::{
        FAUCET_RATE_LIMIT_WINDOW_MS, FAUCET_REQUESTS_PER_MINUTE_DEFAULT, GLOBAL_RATE_CLIENT_SHARE_PERCENT,
        GLOBAL_RATE_LIMIT_WINDOW_MS, STATE_SYNC_RATE_LIMIT_WINDOW_MS, STORAGE_PUBLIC_RATE_LIMIT_WINDOW_MS,
    },
    metrics::RpcMetrics,
    rate_limit::window::{PerClient, SharedWindow, SlidingWindow},
};
use std::{ops::Deref, sync::Arc, time::Duration, time::Instant};
use tokio::sync::Semaphore;

/// What the layers around every request share with the routes: built once when the server
/// starts (before the node's state is ready), so the start-up routes and the full API count
/// into the same metrics and the same global limit.
#[derive(Clone)]
pub struct Http {
    /// Request counters and durations by route, shared by the start-up routes and the full API.
    pub metrics: Arc<RpcMetrics>,
    /// The node-wide request limit (`RPC_GLOBAL_RATE_LIMIT_PER_SEC`), with each client's share
    /// of it, shared likewise.
    pub global_limiter: Arc<SharedWindow>,
    /// How long a request may take to be answered.
    pub request_timeout: Duration,
}

impl Http {
    /// The shared layers for `config`: fresh metrics, the global limiter and the request timeout.
    pub fn new(config: &RpcConfig) -> Self {
        Self {
            metrics: Arc::new(RpcMetrics::default()),
            global_limiter: Arc::new(SharedWindow::new(
                config.global_rate_limit_per_sec,
                Duration::from_millis(GLOBAL_RATE_LIMIT_WINDOW_MS),
                GLOBAL_RATE_CLIENT_SHARE_PERCENT,
            )),
            request_timeout: Duration::from_millis(config.request_timeout_ms),
        }
    }
}

/// The router's state: [`AppStateInner`] behind one `Arc` (see the module docs).
pub struct AppState<B>(Arc<AppStateInner<B>>);

impl<B> Clone for AppState<B> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<B> Deref for AppState<B> {
    type Target = AppStateInner<B>;

    fn deref(&self) -> &AppStateInner<B> {
        &self.0
    }
}

/// What the routes share (through [`AppState`]).
pub struct AppStateInner<B> {
    pub backend: B,
    pub metrics: Arc<RpcMetrics>,
    pub faucet_limiter: Arc<SlidingWindow>,
    pub state_sync_limiter: Arc<PerClient>,
    /// The public storage-relay reads, per client IP.
    pub storage_limiter: Arc<PerClient>,
    /// One permit per `/submit_wait` wait allowed in flight.
    pub submit_waits: Arc<Semaphore>,
    pub submit_waits_max: usize,
    pub started_at: Instant,
    /// Nonces of storage-relay requests accepted within the replay window.
    pub storage_nonces: Arc<drover_types::storage::auth::NonceCache>,
    /// The push streams open and the messages they share.
    pub streams: Arc<crate::streams::Streams>,
}

impl<B: Backend> AppState<B> {
    pub fn new(backend: B, config: &RpcConfig, http: &Http) -> Self {
        let faucet_per_minute =
            backend.faucet().map_or(FAUCET_REQUESTS_PER_MINUTE_DEFAULT, |settings| settings.requests_per_minute);
        Self(Arc::new(AppStateInner {
            backend,
            metrics: http.metrics.clone(),
            faucet_limiter: Arc::new(SlidingWindow::new(
                faucet_per_minute,
                Duration::from_millis(FAUCET_RATE_LIMIT_WINDOW_MS),
            )),
            state_sync_limiter: Arc::new(PerClient::new(
                config.state_sync_rate_per_sec,
                Duration::from_millis(STATE_SYNC_RATE_LIMIT_WINDOW_MS),
            )),
            storage_limiter: Arc::new(PerClient::new(
                config.storage_public_rate_per_sec,
                Duration::from_millis(STORAGE_PUBLIC_RATE_LIMIT_WINDOW_MS),
            )),
            submit_waits: Arc::new(Semaphore::new(config.submit_waits_in_flight_max)),
            submit_waits_max: config.submit_waits_in_flight_max,
            started_at: Instant::now(),
            storage_nonces: Arc::default(),
            streams: Arc::new(crate::streams::Streams::new(config)),
        }))
    }

    /// `/submit_wait` requests waiting now.
    pub fn submit_waits_in_flight(&self) -> usize {
        self.submit_waits_max.saturating_sub(self.submit_waits.available_permits())
    }
}
