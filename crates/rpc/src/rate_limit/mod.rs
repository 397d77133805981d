//! Exact sliding-window rate limits: at most N requests in any window W.
//!
//! A [`SlidingWindow`] keeps the instants of the requests it accepted within the last window
//! (at most N of them), so a burst can never exceed N in any interval of length W, which a
//! fixed-window counter cannot promise at window edges. When full, the wait until the oldest
//! accepted request leaves the window is exactly when the next slot frees; it is reported in
//! whole seconds (rounded up, at least one) as `Retry-After`.
//!
//! Four limiters exist: the global one in front of every route (`RPC_GLOBAL_RATE_LIMIT_PER_SEC`
//! per second, all clients together), which is a [`SharedWindow`](window::SharedWindow): a client
//! holding its share of it
//! ([`GLOBAL_RATE_CLIENT_SHARE_PERCENT`](crate::limits::GLOBAL_RATE_CLIENT_SHARE_PERCENT) of the limit) is served only
//! while more than a share is free, so one client cannot take the whole window from the others
//! (its refusals count under `limiter="global_share"`); the faucet's (node-wide, per minute), the state-sync one, which is a
//! [`PerClient`] set of windows keyed by client ([`ClientId`]: an IP, or an IPv6 /56) (`STATE_SYNC_RATE_PER_SEC` per second, on
//! `/state/snapshot` and `/state/operations`), and the public storage-relay reads' one, per client
//! ([`ClientId`]) too (`STORAGE_PUBLIC_RATE_PER_SEC`, label `ras`). Refusals are 429 with code 1004 and are counted in
//! `drover_rpc_rate_limited_total{limiter}`, as are the refusals of the cap on `/submit_wait`
//! waits in flight (`limiter="submit_waits"`; a cap, not a rate, enforced by that route).

pub(crate) mod window;

use crate::{backend::Backend, client::ClientId, error::HttpError, metrics::RpcMetrics, state::AppState};
use axum::{
    extract::Request,
    middleware::Next,
    response::{IntoResponse, Response},
};
use std::time::Duration;
use window::{Limiter, Refused, retry_after_secs};

/// Takes a slot of the faucet's limiter, or builds its 429 (and counts it).
pub(crate) fn check_faucet<B: Backend>(state: &AppState<B>) -> Result<(), HttpError> {
    state.faucet_limiter.try_acquire().map_err(|wait| refused(&state.metrics, Limiter::Faucet, wait))
}

/// Takes a slot of `client`'s state-sync window or builds its 429 (and counts it).
pub(crate) fn check_client<B: Backend>(state: &AppState<B>, client: ClientId) -> Result<(), HttpError> {
    state.state_sync_limiter.try_acquire(client).map_err(|wait| refused(&state.metrics, Limiter::StateSync, wait))
}

/// Takes a slot of `client`'s window of the public storage-relay reads or builds its 429 (and
/// counts it).
pub(crate) fn check_storage<B: Backend>(state: &AppState<B>, client: ClientId) -> Result<(), HttpError> {
    state.storage_limiter.try_acquire(client).map_err(|wait| refused(&state.metrics, Limiter::Storage, wait))
}

/// Counts a refusal of `limiter` and builds its 429.
fn refused(metrics: &RpcMetrics, limiter: Limiter, wait: Duration) -> HttpError {
    metrics.rate_limited(limiter);
    HttpError::rate_limited(retry_after_secs(wait), format!("{} rate limit exceeded", limiter.label()))
}

/// The global limit on every request: runs `next` within it and within the client's share of
/// it, or answers its 429 (part of the router's per-route layer, `route_guard` in the crate
/// root). The client is the connection's peer ([`ClientId`]); a request without one (a router
/// driven in-process) holds no share.
pub(crate) async fn global(http: &crate::Http, request: Request, next: Next) -> Response {
    let client = ClientId::of_request(request.extensions());
    match http.global_limiter.try_acquire(client) {
        Ok(()) => next.run(request).await,
        Err(Refused::Full(wait)) => refused(&http.metrics, Limiter::Global, wait).into_response(),
        Err(Refused::Share(wait)) => {
            http.metrics.rate_limited(Limiter::GlobalShare);
            HttpError::rate_limited(
                retry_after_secs(wait),
                format!(
                    "global rate limit: this client holds its share ({} requests per window) while the rest is kept for others",
                    http.global_limiter.share()
                ),
            )
            .into_response()
        }
    }
}
