//! The HTTP layer's own Prometheus metrics and the middleware that records them.
//!
//! - `drover_rpc_requests_total{route,method,status}`: every response, including 413s and 429s;
//! - `drover_rpc_request_duration_seconds{route}`: time to the response head;
//! - `drover_rpc_rate_limited_total{limiter}`: refusals by the global limiter (a full window:
//!   `global`; a client at its share: `global_share`), the faucet, state-sync and public
//!   storage-relay (`ras`) limiters and the cap on `/submit_wait` waits;
//! - `drover_rpc_submit_waits_in_flight`: `/submit_wait` requests waiting now (set when scraped).
//!
//! Every label takes its value from a fixed set, never from client text, so a client cannot make
//! the series grow without bound: `route` is the matched route template (`/account/{address}`),
//! never the raw URI, and requests no route matches share [`UNMATCHED_ROUTE`]; `method` is one of
//! the standard methods of [`METHOD_LABELS`], any other (HTTP allows extension methods of any
//! name) is [`OTHER_METHOD`]; `status` is a three-digit status code. `/metrics` serves the
//! node's text followed by this registry.

use crate::rate_limit::window::Limiter;
use axum::{
    extract::{MatchedPath, Request, State},
    http::Method,
    middleware::Next,
    response::Response,
};
use prometheus_client::{
    encoding::{EncodeLabelSet, text::encode_registry},
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, exponential_buckets},
    },
    registry::Registry,
};
use std::{sync::Arc, time::Instant};

/// Route label of requests that matched no route.
pub(crate) const UNMATCHED_ROUTE: &str = "unmatched";

/// Methods labelled by name: the standard ones (RFC 9110 and PATCH).
pub(crate) const METHOD_LABELS: [&str; 9] =
    ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"];
/// Method label of every other method.
pub(crate) const OTHER_METHOD: &str = "other";

/// The label of `method`: its name when it is a standard method, else [`OTHER_METHOD`].
pub(crate) fn method_label(method: &Method) -> &'static str {
    METHOD_LABELS.into_iter().find(|known| *known == method.as_str()).unwrap_or(OTHER_METHOD)
}

/// Upper bound of the first duration bucket, in seconds, and the number of buckets (doubling:
/// 0.5 ms to about 16 s).
const DURATION_BUCKET_START_SECS: f64 = 0.000_5;
const DURATION_BUCKET_COUNT: u16 = 16;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: &'static str,
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
    Histogram::new(exponential_buckets(DURATION_BUCKET_START_SECS, 2.0, DURATION_BUCKET_COUNT))
}

/// The registry and its metric families.
#[derive(Debug)]
pub struct RpcMetrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Family<RouteLabels, Histogram, fn() -> Histogram>,
    rate_limited: Family<LimiterLabels, Counter>,
    submit_waits: Gauge,
}

impl Default for RpcMetrics {
    fn default() -> Self {
        let requests = Family::<RequestLabels, Counter>::default();
        let durations = Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            duration_histogram as fn() -> Histogram,
        );
        let rate_limited = Family::<LimiterLabels, Counter>::default();
        let mut registry = Registry::default();
        registry.register("drover_rpc_requests", "HTTP requests answered", requests.clone());
        registry.register(
            "drover_rpc_request_duration_seconds",
            "Time from request to response head, in seconds",
            durations.clone(),
        );
        registry.register("drover_rpc_rate_limited", "Requests refused by a rate limiter", rate_limited.clone());
        let submit_waits = Gauge::default();
        registry.register(
            "drover_rpc_submit_waits_in_flight",
            "/submit_wait requests waiting for receipts",
            submit_waits.clone(),
        );
        Self { registry, requests, durations, rate_limited, submit_waits }
    }
}

impl RpcMetrics {
    /// Counts one answer. `route` must be a route template or [`UNMATCHED_ROUTE`] (see the
    /// module docs); the method is reduced to its label here.
    pub fn observe(&self, route: &str, method: &Method, status: u16, elapsed_secs: f64) {
        self.requests
            .get_or_create(&RequestLabels { route: route.to_owned(), method: method_label(method), status })
            .inc();
        self.durations.get_or_create(&RouteLabels { route: route.to_owned() }).observe(elapsed_secs);
    }

    pub fn rate_limited(&self, limiter: Limiter) {
        self.rate_limited.get_or_create(&LimiterLabels { limiter: limiter.label() }).inc();
    }

    pub fn set_submit_waits_in_flight(&self, waits: usize) {
        self.submit_waits.set(i64::try_from(waits).unwrap_or(i64::MAX));
    }

    /// Appends the registry in Prometheus text form (no OpenMetrics `# EOF`: the exposition
    /// continues after the node's own metrics).
    pub fn encode_into(&self, out: &mut String) -> std::fmt::Result {
        encode_registry(out, &self.registry)
    }
}

/// Middleware recording every response; layered outside the router, the rate limit and the
/// body limits so their refusals count too. The route template comes with the answer
/// (`route_guard` in the crate root); an answer without one matched no route.
pub(crate) async fn track(State(metrics): State<Arc<RpcMetrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let response = next.run(request).await;
    let route = response.extensions().get::<MatchedPath>().map_or(UNMATCHED_ROUTE, MatchedPath::as_str);
    metrics.observe(route, &method, response.status().as_u16(), started.elapsed().as_secs_f64());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_labelled_families() {
        let metrics = RpcMetrics::default();
        metrics.observe("/account/{address}", &Method::GET, 200, 0.001);
        metrics.observe("/account/{address}", &Method::GET, 200, 0.002);
        metrics.rate_limited(Limiter::Faucet);
        let mut text = String::new();
        metrics.encode_into(&mut text).unwrap();
        assert!(
            text.contains(r#"drover_rpc_requests_total{route="/account/{address}",method="GET",status="200"} 2"#),
            "{text}"
        );
        assert!(text.contains(r#"drover_rpc_request_duration_seconds_count{route="/account/{address}"} 2"#), "{text}");
        assert!(text.contains(r#"drover_rpc_rate_limited_total{limiter="faucet"} 1"#), "{text}");
        assert!(!text.contains("# EOF"));
    }

    #[test]
    fn only_standard_methods_are_labelled_by_name() {
        for known in METHOD_LABELS {
            let method = Method::from_bytes(known.as_bytes()).unwrap();
            assert_eq!(method_label(&method), known);
        }
        for odd in ["FOO", "get", "BREW", "X-ANYTHING-AT-ALL"] {
            let method = Method::from_bytes(odd.as_bytes()).unwrap();
            assert_eq!(method_label(&method), OTHER_METHOD, "{odd}");
        }
    }
}
