//! The HTTP layer's own Prometheus metrics and the middleware that records them.
//!
//! - `drover_rpc_requests_total{route,method,status}`: every response, including 413s and 429s;
//! - `drover_rpc_request_duration_seconds{route}`: time to the response head;
//! - `drover_rpc_rate_limited_total{limiter}`: refusals by the global and faucet limiters.
//!
//! `route` is the matched route template (`/account/{address}`), never the raw URI, so label
//! cardinality is bounded by the route table; requests no route matches share `unmatched`.
//! `/metrics` serves the node's text followed by this registry.

use crate::rate_limit::Limiter;
use axum::{
    extract::{MatchedPath, Request, State},
    middleware::Next,
    response::Response,
};
use prometheus_client::{
    encoding::{EncodeLabelSet, text::encode_registry},
    metrics::{
        counter::Counter,
        family::Family,
        histogram::{Histogram, exponential_buckets},
    },
    registry::Registry,
};
use std::{sync::Arc, time::Instant};

/// Route label of requests that matched no route.
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// Upper bound of the first duration bucket, in seconds, and the number of buckets (doubling:
/// 0.5 ms to about 16 s).
const DURATION_BUCKET_START_SECS: f64 = 0.000_5;
const DURATION_BUCKET_COUNT: u16 = 16;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimiterLabels {
    limiter: &'static str,
}

fn duration_histogram() -> Histogram {
    Histogram::new(exponential_buckets(
        DURATION_BUCKET_START_SECS,
        2.0,
        DURATION_BUCKET_COUNT,
    ))
}

/// The registry and its metric families.
#[derive(Debug)]
pub struct RpcMetrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Family<RouteLabels, Histogram, fn() -> Histogram>,
    rate_limited: Family<LimiterLabels, Counter>,
}

impl Default for RpcMetrics {
    fn default() -> Self {
        let requests = Family::<RequestLabels, Counter>::default();
        let durations = Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            duration_histogram as fn() -> Histogram,
        );
        let rate_limited = Family::<LimiterLabels, Counter>::default();
        let mut registry = Registry::default();
        registry.register(
            "drover_rpc_requests",
            "HTTP requests answered",
            requests.clone(),
        );
        registry.register(
            "drover_rpc_request_duration_seconds",
            "Time from request to response head, in seconds",
            durations.clone(),
        );
        registry.register(
            "drover_rpc_rate_limited",
            "Requests refused by a rate limiter",
            rate_limited.clone(),
        );
        Self {
            registry,
            requests,
            durations,
            rate_limited,
        }
    }
}

impl RpcMetrics {
    pub fn observe(&self, route: &str, method: &str, status: u16, elapsed_secs: f64) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_owned(),
                method: method.to_owned(),
                status,
            })
            .inc();
        self.durations
            .get_or_create(&RouteLabels {
                route: route.to_owned(),
            })
            .observe(elapsed_secs);
    }

    pub fn rate_limited(&self, limiter: Limiter) {
        self.rate_limited
            .get_or_create(&LimiterLabels {
                limiter: limiter.label(),
            })
            .inc();
    }

    /// Appends the registry in Prometheus text form (no OpenMetrics `# EOF`: the exposition
    /// continues after the node's own metrics).
    pub fn encode_into(&self, out: &mut String) -> std::fmt::Result {
        encode_registry(out, &self.registry)
    }
}

/// Middleware recording every response; layered outside the rate limit and body limits so
/// their refusals count too.
pub async fn track(
    State(metrics): State<Arc<RpcMetrics>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let route = request.extensions().get::<MatchedPath>().map_or_else(
        || UNMATCHED_ROUTE.to_owned(),
        |path| path.as_str().to_owned(),
    );
    let method = request.method().as_str().to_owned();
    let response = next.run(request).await;
    metrics.observe(
        &route,
        &method,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_labelled_families() {
        let metrics = RpcMetrics::default();
        metrics.observe("/account/{address}", "GET", 200, 0.001);
        metrics.observe("/account/{address}", "GET", 200, 0.002);
        metrics.rate_limited(Limiter::Faucet);
        let mut text = String::new();
        metrics.encode_into(&mut text).unwrap();
        assert!(text.contains(
            r#"drover_rpc_requests_total{route="/account/{address}",method="GET",status="200"} 2"#
        ), "{text}");
        assert!(
            text.contains(
                r#"drover_rpc_request_duration_seconds_count{route="/account/{address}"} 2"#
            ),
            "{text}"
        );
        assert!(
            text.contains(r#"drover_rpc_rate_limited_total{limiter="faucet"} 1"#),
            "{text}"
        );
        assert!(!text.contains("# EOF"));
    }
}
