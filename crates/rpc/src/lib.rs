//! Drover's HTTP API: an axum router generic over the node ([`Backend`]).
//!
//! One module per endpoint family under [`routes`]; the rules they share live beside them:
//! [`error`] is the only place an error becomes a response, `extract` the only way a path,
//! query or body is read, [`limits`] holds every limit with its unit, `submission` turns a
//! submission into per-transaction verdicts, `rate_limit`, `metrics` and `openapi` are
//! the cross-cutting layers. [`starting`] is what answers while the node's state is not ready,
//! and `server` serves a router over TCP with the connection limits (connection cap and each
//! client's share of it, header-read and write timeouts).
//!
//! Layers, outermost first: tracing, CORS (any origin; GET/POST/OPTIONS; `Content-Type` and the
//! `/ras` request headers `X-DRFS-*`; `Retry-After` and `X-Request-Id` readable by scripts), gzip
//! and metrics, put around the API
//! (the start-up [`starting::Switch`] or the [`router`]) by [`layered`]; then, inside the
//! router, the matched route's template handed back with the answer (for the metrics), the
//! request timeout ([`limits::REQUEST_TIMEOUT_MS`]: 503, code 1003), the global rate limit (with
//! each client's share of it), the JSON rewrite of `tower-http`'s 413, and the 1 MB request body
//! limit. The metrics layer sits
//! outside the limits so that their 429s, 413s and 503s are counted under their route. The
//! layers that need no route sit outside the router because axum clones a route's whole service
//! for every request: built once around it, they are cloned once per connection (`server`),
//! which saves a good part of what a small request costs. Every answer that is not a success
//! is our JSON error body, including unknown routes (404, 1002) and wrong methods (405, 1001).

pub mod backend;
pub mod client;
pub mod error;
pub(crate) mod explorer;
pub(crate) mod extract;
pub mod limits;
pub(crate) mod metrics;
pub(crate) mod openapi;
pub mod pagination;
pub(crate) mod rate_limit;
pub mod routes;
pub(crate) mod server;
pub mod starting;
pub(crate) mod state;
pub(crate) mod streams;
pub(crate) mod submission;

#[cfg(test)]
mod client_contract;
#[cfg(test)]
mod mock;

pub use backend::Backend;

pub use server::{Api, ServerLimits, serve, serve_streams_apart, serve_with};
pub use state::Http;

use axum::{
    Router,
    body::Body,
    extract::{DefaultBodyLimit, Request, State},
    http::{Method, header},
    middleware::{Next, from_fn_with_state, map_response},
    response::{IntoResponse, Response},
};
use drover_types::ErrorCode;
use error::HttpError;
use limits::{
    GLOBAL_RATE_LIMIT_PER_SEC_DEFAULT, MAX_REQUEST_BYTES, REQUEST_TIMEOUT_MS, STATE_SYNC_RATE_PER_SEC_DEFAULT,
    STORAGE_PUBLIC_RATE_PER_SEC, STREAM_SUBSCRIBERS_MAX_DEFAULT, STREAM_SUBSCRIBERS_PER_CLIENT_DEFAULT,
    SUBMIT_WAITS_IN_FLIGHT_MAX,
};
use state::AppState;
use std::time::Duration;
use tower::ServiceBuilder;
use tower_http::{
    compression::CompressionLayer,
    cors::{Any, CorsLayer},
    limit::RequestBodyLimitLayer,
    trace::TraceLayer,
};

/// Environment variable of the global rate limit (requests per second, all clients together).
pub const GLOBAL_RATE_LIMIT_ENV: &str = "RPC_GLOBAL_RATE_LIMIT_PER_SEC";
/// Environment variable of the state-sync rate limit (requests per second per client IP).
pub const STATE_SYNC_RATE_ENV: &str = "STATE_SYNC_RATE_PER_SEC";
/// Environment variable that turns development mode on (OpenAPI document and Swagger UI).
pub const DEV_MODE_ENV: &str = "DROVER_DEV_MODE";
/// Environment variable of the cap on push streams open at once.
pub const STREAM_SUBSCRIBERS_MAX_ENV: &str = "RPC_STREAM_SUBSCRIBERS_MAX";
/// Environment variable of the cap on push streams one client IP may hold.
pub const STREAM_SUBSCRIBERS_PER_CLIENT_ENV: &str = "RPC_STREAM_SUBSCRIBERS_PER_CLIENT";

/// Settings of the HTTP layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcConfig {
    /// Requests per second accepted from all clients together (sliding window).
    pub global_rate_limit_per_sec: u32,
    /// Requests per second accepted from one client IP on the state-sync routes.
    pub state_sync_rate_per_sec: u32,
    /// Requests per second accepted from one client IP on the public storage-relay reads
    /// ([`limits::STORAGE_PUBLIC_RATE_PER_SEC`]; not read from the environment).
    pub storage_public_rate_per_sec: u32,
    /// Serve `/api-docs/openapi.json`, `/swagger-ui` and the block explorer (`/explorer`).
    pub dev_mode: bool,
    /// Serve the block explorer (`/explorer`) outside development mode too (the validator
    /// config's `explorer`; not read from the environment).
    pub explorer: bool,
    /// Longest time from a request to its answer, in milliseconds
    /// ([`limits::REQUEST_TIMEOUT_MS`]; not read from the environment).
    pub request_timeout_ms: u64,
    /// Most `/submit_wait` waits in flight ([`limits::SUBMIT_WAITS_IN_FLIGHT_MAX`]; not read
    /// from the environment).
    pub submit_waits_in_flight_max: usize,
    /// Most push streams open at once (`RPC_STREAM_SUBSCRIBERS_MAX`).
    pub stream_subscribers_max: usize,
    /// Most push streams one client IP may hold open (`RPC_STREAM_SUBSCRIBERS_PER_CLIENT`).
    pub stream_subscribers_per_client: usize,
}

impl Default for RpcConfig {
    fn default() -> Self {
        Self {
            global_rate_limit_per_sec: GLOBAL_RATE_LIMIT_PER_SEC_DEFAULT,
            state_sync_rate_per_sec: STATE_SYNC_RATE_PER_SEC_DEFAULT,
            storage_public_rate_per_sec: STORAGE_PUBLIC_RATE_PER_SEC,
            dev_mode: false,
            explorer: false,
            request_timeout_ms: REQUEST_TIMEOUT_MS,
            submit_waits_in_flight_max: SUBMIT_WAITS_IN_FLIGHT_MAX,
            stream_subscribers_max: STREAM_SUBSCRIBERS_MAX_DEFAULT,
            stream_subscribers_per_client: STREAM_SUBSCRIBERS_PER_CLIENT_DEFAULT,
        }
    }
}

/// Why the environment does not give a configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `RPC_GLOBAL_RATE_LIMIT_PER_SEC` is set but not a positive integer; the value found.
    #[error("{GLOBAL_RATE_LIMIT_ENV} must be a positive integer (requests per second), got {0:?}")]
    GlobalRateLimit(String),
    /// `STATE_SYNC_RATE_PER_SEC` is set but not a positive integer; the value found.
    #[error("{STATE_SYNC_RATE_ENV} must be a positive integer (requests per second), got {0:?}")]
    StateSyncRate(String),
    /// `RPC_STREAM_SUBSCRIBERS_MAX` or `RPC_STREAM_SUBSCRIBERS_PER_CLIENT` is set but not a
    /// positive integer; the variable and the value found.
    #[error("{0} must be a positive integer (streams), got {1:?}")]
    StreamSubscribers(&'static str, String),
}

impl RpcConfig {
    /// Reads `RPC_GLOBAL_RATE_LIMIT_PER_SEC` (unset or empty: 100), `STATE_SYNC_RATE_PER_SEC`
    /// (unset or empty: 5), `RPC_STREAM_SUBSCRIBERS_MAX` (768), `RPC_STREAM_SUBSCRIBERS_PER_CLIENT`
    /// (64) and `DROVER_DEV_MODE` (on for any non-empty value but `0` and `false`). An invalid
    /// rate limit or cap is logged and replaced by its default;
    /// [`RpcConfig::try_from_env`] refuses it instead.
    pub fn from_env() -> Self {
        let rate = |name: &str, default: u32, invalid: fn(String) -> ConfigError| {
            rate_from(env_var(name), default, invalid).unwrap_or_else(|err| {
                tracing::warn!(error = %err, "using the default rate limit");
                default
            })
        };
        let streams = |name: &'static str, default: usize| {
            streams_from(name, env_var(name), default).unwrap_or_else(|err| {
                tracing::warn!(error = %err, "using the default stream cap");
                default
            })
        };
        Self {
            global_rate_limit_per_sec: rate(
                GLOBAL_RATE_LIMIT_ENV,
                GLOBAL_RATE_LIMIT_PER_SEC_DEFAULT,
                ConfigError::GlobalRateLimit,
            ),
            state_sync_rate_per_sec: rate(
                STATE_SYNC_RATE_ENV,
                STATE_SYNC_RATE_PER_SEC_DEFAULT,
                ConfigError::StateSyncRate,
            ),
            dev_mode: dev_mode_from(env_var(DEV_MODE_ENV)),
            stream_subscribers_max: streams(STREAM_SUBSCRIBERS_MAX_ENV, STREAM_SUBSCRIBERS_MAX_DEFAULT),
            stream_subscribers_per_client: streams(
                STREAM_SUBSCRIBERS_PER_CLIENT_ENV,
                STREAM_SUBSCRIBERS_PER_CLIENT_DEFAULT,
            ),
            ..Self::default()
        }
    }

    /// Like [`RpcConfig::from_env`], but an invalid rate limit is an error.
    pub fn try_from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(env_var)
    }

    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        Ok(Self {
            global_rate_limit_per_sec: rate_from(
                lookup(GLOBAL_RATE_LIMIT_ENV),
                GLOBAL_RATE_LIMIT_PER_SEC_DEFAULT,
                ConfigError::GlobalRateLimit,
            )?,
            state_sync_rate_per_sec: rate_from(
                lookup(STATE_SYNC_RATE_ENV),
                STATE_SYNC_RATE_PER_SEC_DEFAULT,
                ConfigError::StateSyncRate,
            )?,
            dev_mode: dev_mode_from(lookup(DEV_MODE_ENV)),
            stream_subscribers_max: streams_from(
                STREAM_SUBSCRIBERS_MAX_ENV,
                lookup(STREAM_SUBSCRIBERS_MAX_ENV),
                STREAM_SUBSCRIBERS_MAX_DEFAULT,
            )?,
            stream_subscribers_per_client: streams_from(
                STREAM_SUBSCRIBERS_PER_CLIENT_ENV,
                lookup(STREAM_SUBSCRIBERS_PER_CLIENT_ENV),
                STREAM_SUBSCRIBERS_PER_CLIENT_DEFAULT,
            )?,
            ..Self::default()
        })
    }
}

/// A positive stream cap; unset or blank gives `default`.
fn streams_from(name: &'static str, value: Option<String>, default: usize) -> Result<usize, ConfigError> {
    match value {
        None => Ok(default),
        Some(text) if text.trim().is_empty() => Ok(default),
        Some(text) => {
            text.trim().parse::<usize>().ok().filter(|cap| *cap > 0).ok_or(ConfigError::StreamSubscribers(name, text))
        }
    }
}

/// A positive requests-per-second setting; unset or blank gives `default`.
fn rate_from(value: Option<String>, default: u32, invalid: fn(String) -> ConfigError) -> Result<u32, ConfigError> {
    match value {
        None => Ok(default),
        Some(text) if text.trim().is_empty() => Ok(default),
        Some(text) => text.trim().parse::<u32>().ok().filter(|limit| *limit > 0).ok_or_else(|| invalid(text)),
    }
}

fn env_var(name: &str) -> Option<String> {
    std::env::var_os(name).map(|value| value.to_string_lossy().into_owned())
}

fn dev_mode_from(value: Option<String>) -> bool {
    value.is_some_and(|value| {
        let value = value.trim();
        !value.is_empty() && value != "0" && !value.eq_ignore_ascii_case("false")
    })
}

/// The complete HTTP API over `backend`, without the layers that need no route (see
/// [`layered`]): `http` holds what it shares with them.
pub fn router<B: Backend>(backend: B, config: RpcConfig, http: &Http) -> Router {
    let state = AppState::new(backend, &config, http);
    let (routes, document) = routes::routes::<B>();
    let mut api = routes.fallback(error::unknown_route).method_not_allowed_fallback(error::method_not_allowed);
    if config.dev_mode {
        api = api.merge(openapi::swagger_ui(document));
    }
    if config.dev_mode || config.explorer {
        api = api.merge(explorer::routes());
    }
    api.layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .layer(RequestBodyLimitLayer::new(MAX_REQUEST_BYTES))
        .layer(map_response(error::json_payload_too_large))
        .layer(from_fn_with_state(http.clone(), route_guard))
        .with_state(state)
}

/// The router's layer around each route, outermost first: the matched route template handed
/// back with the answer (for [`metrics::track`]), the request timeout, the global rate limit.
///
/// One middleware rather than three: axum clones a route's whole layered service for every
/// request and each `from_fn` layer boxes a future of its own, so three nested layers cost three
/// clones, three boxes and three `Next` hops per request for what is one decision and one
/// timer. The order is the one three layers would give (a refusal of the rate limit is inside
/// the timeout and carries its route).
async fn route_guard(
    State(http): State<Http>,
    route: Option<axum::extract::MatchedPath>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = tokio::time::timeout(http.request_timeout, rate_limit::global(&http, request, next))
        .await
        .unwrap_or_else(|_| timed_out(http.request_timeout));
    if let Some(route) = route {
        response.extensions_mut().insert(route);
    }
    response
}

/// `api` behind the layers every request passes through that need no route (see the module
/// docs).
pub fn layered(api: impl Api, http: &Http) -> impl Api {
    ServiceBuilder::new()
        .map_response(|response: axum::http::Response<_>| response.map(Body::new))
        .layer(TraceLayer::new_for_http())
        .layer(cors())
        .layer(CompressionLayer::new())
        .layer(from_fn_with_state(http.metrics.clone(), metrics::track))
        .service(api)
}

/// Request headers a page may send: `Content-Type` (JSON and CBOR bodies) and the four headers
/// that authenticate a `/ras` owner request (delegation token, timestamp, nonce, signature).
const CORS_ALLOWED_HEADERS: [&str; 5] = [
    "content-type",
    drover_types::storage::auth::DELEGATION_HEADER,
    drover_types::storage::auth::TIMESTAMP_HEADER,
    drover_types::storage::auth::NONCE_HEADER,
    drover_types::storage::auth::SIGNATURE_HEADER,
];

/// Browser wallets and dashboards call the API from any origin, every route included (the `/ras`
/// owner routes are authenticated by their signed headers, not by cookies, so any origin may send
/// them). Every CORS header is the same whatever the request's origin and preflight headers, so
/// responses carry no `Vary` (which would also cost three header values on every response).
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers(CORS_ALLOWED_HEADERS.map(|name| {
            axum::http::HeaderName::from_bytes(name.as_bytes())
                .unwrap_or_else(|_| unreachable!("{name} is a header name"))
        }))
        .expose_headers([header::RETRY_AFTER, error::REQUEST_ID_HEADER])
        .vary([])
}

/// The 503 (code 1003, with `Retry-After`) of a request not answered within `limit`: a slow body
/// upload or a stuck backend read cannot hold a connection and its task forever.
fn timed_out(limit: Duration) -> Response {
    HttpError::new(
        ErrorCode::Timeout,
        format!("the request was not answered within {} ms; retry later", limit.as_millis()),
    )
    .into_response()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::mock::*;
    use axum::{
        body::Body,
        http::{Request, StatusCode},
    };
    use drover_types::ErrorCode;
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    /// The routes and methods the router serves, walked from the router itself: axum keeps them
    /// private, so they are read from its `Debug` form (axum is pinned, and a form this cannot
    /// read fails the walk rather than passing it).
    fn served(router: &Router<crate::state::AppState<MockBackend>>) -> BTreeMap<String, BTreeSet<String>> {
        let text = format!("{router:?}");
        let paths = &text[..text.find("fallback_router:").expect("a router's Debug form names its fallback router")];
        let ids = regex::Regex::new(r#"RouteId\((\d+)\): "([^"]*)""#).unwrap();
        let endpoints =
            regex::Regex::new(r"RouteId\((\d+)\): MethodRouter\(MethodRouter \{ ((?:\w+: \w+, )+)").unwrap();
        let path_of: BTreeMap<&str, &str> =
            ids.captures_iter(paths).map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str())).collect();
        let mut served = BTreeMap::new();
        for endpoint in endpoints.captures_iter(paths) {
            let path = path_of[endpoint.get(1).unwrap().as_str()];
            let methods = endpoint[2]
                .split(", ")
                .filter_map(|field| field.split_once(": "))
                .filter(|(method, handler)| *handler != "None" && *method != "fallback" && *method != "allow_header")
                .map(|(method, _)| method.to_owned())
                .collect();
            served.insert(path.to_owned(), methods);
        }
        assert_eq!(served.len(), path_of.len(), "every route's methods are read: {text}");
        served
    }

    /// The operations of `document`, as path and lowercase methods.
    pub(crate) fn documented(document: &utoipa::openapi::OpenApi) -> BTreeMap<String, BTreeSet<String>> {
        let json = serde_json::to_value(document).unwrap();
        json["paths"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(path, item)| (path.clone(), item.as_object().unwrap().keys().cloned().collect()))
            .collect()
    }

    /// The router and the OpenAPI document come from the same declarations: walking the
    /// router's routes gives exactly the document's paths and methods.
    #[test]
    fn the_router_serves_exactly_the_documented_operations() {
        let (router, document) = routes::routes::<MockBackend>();
        let served = served(&router);
        assert!(served.len() > 60, "{served:?}");
        assert_eq!(served, documented(&document));
    }

    fn dev_app(dev_mode: bool) -> Router {
        api(MockBackend::default(), RpcConfig { dev_mode, ..RpcConfig::default() })
    }

    #[tokio::test]
    async fn unknown_routes_and_methods_answer_json() {
        let app = app(&MockBackend::default());
        for unknown in ["/nope", "/account", "/account/", "/transaction/0x00/receipt/more"] {
            let answer = get(&app, unknown).await;
            answer.assert_error(404, ErrorCode::NotFound);
            assert_eq!(answer.json()["message"], error::UNKNOWN_ROUTE_MESSAGE);
        }
        post(&app, "/height", "application/json", "{}").await.assert_error(405, ErrorCode::BadRequest);
        get(&app, "/submit").await.assert_error(405, ErrorCode::BadRequest);
    }

    /// Every documented operation reaches its handler through the layers.
    #[tokio::test]
    async fn every_route_is_served() {
        let app = app(&MockBackend::default());
        let operations = documented(&routes::routes::<MockBackend>().1);
        for (method, path) in operations.iter().flat_map(|(path, methods)| methods.iter().map(move |m| (m, path))) {
            let uri = path
                .replace("{hash}", &"0".repeat(64))
                .replace("{address}", &key(0).address().to_hex())
                .replace("{selector}", "latest")
                .replace("{volume_id}", &"0".repeat(64))
                .replace("{wallet}", &key(0).address().to_hex())
                .replace("{session_key}", &"02".repeat(33));
            let request =
                Request::builder().method(method.to_uppercase().as_str()).uri(&uri).body(Body::empty()).unwrap();
            if path.starts_with(drover_types::api::paths::STREAMS_PREFIX) {
                // A stream's body does not end: its answer's head is enough (every stream route
                // is under the prefix: `openapi::tests::every_tag_has_one_description_and_an_operation`).
                use tower::ServiceExt as _;
                let answer = app.clone().oneshot(request).await.unwrap();
                assert_eq!(answer.status(), StatusCode::OK, "{method} {uri}");
                continue;
            }
            let answer = send(&app, request).await;
            assert_ne!(answer.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}");
            if answer.status == StatusCode::NOT_FOUND {
                assert_ne!(answer.json()["message"], error::UNKNOWN_ROUTE_MESSAGE, "{method} {uri} is not routed");
            }
        }
    }

    #[tokio::test]
    async fn global_rate_limit_answers_429_with_retry_after_and_counts_it() {
        let app = api(MockBackend::default(), RpcConfig { global_rate_limit_per_sec: 2, ..RpcConfig::default() });
        assert_eq!(get(&app, "/height").await.status, StatusCode::OK);
        assert_eq!(get(&app, "/health").await.status, StatusCode::OK);
        let refused = get(&app, "/height").await;
        refused.assert_error(429, ErrorCode::RateLimited);
        assert_eq!(refused.header(axum::http::header::RETRY_AFTER), Some("1"));
        // Unknown routes are limited too.
        get(&app, "/nope").await.assert_error(429, ErrorCode::RateLimited);
        tokio::time::sleep(std::time::Duration::from_millis(limits::GLOBAL_RATE_LIMIT_WINDOW_MS + 50)).await;
        let metrics = get(&app, "/metrics").await;
        assert_eq!(metrics.status, StatusCode::OK);
        let text = metrics.text();
        assert!(text.contains(r#"drover_rpc_rate_limited_total{limiter="global"} 2"#), "{text}");
        assert!(text.contains(r#"drover_rpc_requests_total{route="/height",method="GET",status="429"} 1"#), "{text}");
        assert!(text.contains(r#"drover_rpc_requests_total{route="/height",method="GET",status="200"} 1"#), "{text}");
    }

    #[tokio::test]
    async fn a_request_not_answered_in_time_is_503_with_retry_after() {
        let app = api(MockBackend::default(), RpcConfig { request_timeout_ms: 50, ..RpcConfig::default() });
        // A wait of 10 s on a chain that finalizes nothing outlasts the 50 ms allowed.
        let body = drover_types::submission::encode_submission(&[signed(0, 0)]);
        let answer = post_cbor(&app, "/submit_wait?timeout_ms=10000", body).await;
        answer.assert_error(503, ErrorCode::Timeout);
        assert_eq!(answer.header(header::RETRY_AFTER), Some("1"));
        let text = get(&app, "/metrics").await.text();
        assert!(
            text.contains(r#"drover_rpc_requests_total{route="/submit_wait",method="POST",status="503"} 1"#),
            "{text}"
        );
    }

    #[tokio::test]
    async fn body_limit_refusals_are_counted() {
        let app = app(&MockBackend::default());
        let huge = vec![0; MAX_REQUEST_BYTES + 1];
        let request =
            Request::post("/submit").header(header::CONTENT_LENGTH, huge.len()).body(Body::from(huge)).unwrap();
        send(&app, request).await.assert_error(413, ErrorCode::PayloadTooLarge);
        let text = get(&app, "/metrics").await.text();
        assert!(text.contains(r#"drover_rpc_requests_total{route="/submit",method="POST",status="413"} 1"#), "{text}");
    }

    #[tokio::test]
    async fn openapi_and_swagger_only_in_dev_mode() {
        let app = dev_app(false);
        get(&app, openapi::OPENAPI_JSON_PATH).await.assert_error(404, ErrorCode::NotFound);
        get(&app, "/swagger-ui/").await.assert_error(404, ErrorCode::NotFound);
        get(&app, openapi::SWAGGER_UI_PATH).await.assert_error(404, ErrorCode::NotFound);

        let app = dev_app(true);
        let doc = get(&app, openapi::OPENAPI_JSON_PATH).await;
        assert_eq!(doc.status, StatusCode::OK);
        assert_eq!(doc.json(), serde_json::to_value(routes::routes::<MockBackend>().1).unwrap());
        let ui = get(&app, "/swagger-ui/").await;
        assert_eq!(ui.status, StatusCode::OK);
        assert!(ui.text().contains("swagger"), "{}", ui.text());
        assert!(get(&app, "/swagger-ui/swagger-ui.css").await.status.is_success());
        assert!(get(&app, openapi::SWAGGER_UI_PATH).await.status.is_redirection());
    }

    #[tokio::test]
    async fn cors_allows_any_origin() {
        let app = app(&MockBackend::default());
        let preflight = Request::builder()
            .method("OPTIONS")
            .uri("/submit")
            .header(header::ORIGIN, "https://wallet.example")
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
            .body(Body::empty())
            .unwrap();
        let answer = send(&app, preflight).await;
        assert!(answer.status.is_success());
        assert_eq!(answer.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), Some("*"));
        let methods = answer.header(header::ACCESS_CONTROL_ALLOW_METHODS).unwrap_or_default().to_owned();
        assert!(methods.contains("POST") && methods.contains("GET"), "{methods}");
        let request =
            Request::get("/height").header(header::ORIGIN, "https://dash.example").body(Body::empty()).unwrap();
        let answer = send(&app, request).await;
        assert_eq!(answer.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), Some("*"));
        // The same answer for every origin: caches need not keep one per origin.
        assert!(!answer.header(header::VARY).unwrap_or_default().contains("origin"));
        // Scripts may read when to retry and the id of an internal error.
        let exposed = answer.header(header::ACCESS_CONTROL_EXPOSE_HEADERS).unwrap_or_default().to_ascii_lowercase();
        assert!(exposed.contains("retry-after") && exposed.contains("x-request-id"), "{exposed}");
    }

    #[tokio::test]
    async fn cors_lets_a_page_send_the_storage_auth_headers() {
        let app = app(&MockBackend::default());
        // What a browser asks before a signed `POST /ras/volumes` with a JSON body.
        let asked = "content-type,x-drfs-delegation,x-drfs-nonce,x-drfs-signature,x-drfs-timestamp";
        let preflight = Request::builder()
            .method("OPTIONS")
            .uri("/ras/volumes")
            .header(header::ORIGIN, "https://wallet.example")
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(header::ACCESS_CONTROL_REQUEST_HEADERS, asked)
            .body(Body::empty())
            .unwrap();
        let answer = send(&app, preflight).await;
        assert!(answer.status.is_success());
        assert_eq!(answer.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), Some("*"));
        let allowed = answer.header(header::ACCESS_CONTROL_ALLOW_HEADERS).unwrap_or_default().to_ascii_lowercase();
        for name in asked.split(',') {
            assert!(allowed.split(',').any(|a| a.trim() == name), "{name} not allowed: {allowed}");
        }
        // Only those: a header the API does not read is not allowed.
        assert!(!allowed.contains("authorization"), "{allowed}");
    }

    #[tokio::test]
    async fn responses_are_gzipped_on_request() {
        let app = app(&MockBackend::default());
        let request = Request::get("/metrics").header(header::ACCEPT_ENCODING, "gzip").body(Body::empty()).unwrap();
        let answer = send(&app, request).await;
        assert_eq!(answer.header(header::CONTENT_ENCODING), Some("gzip"));
    }

    fn config(vars: &[(&str, &str)]) -> Result<RpcConfig, ConfigError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        RpcConfig::from_lookup(|name| vars.get(name).cloned())
    }

    #[test]
    fn defaults() {
        assert_eq!(
            config(&[]),
            Ok(RpcConfig {
                global_rate_limit_per_sec: 100,
                state_sync_rate_per_sec: 5,
                storage_public_rate_per_sec: 20,
                dev_mode: false,
                explorer: false,
                request_timeout_ms: 30_000,
                submit_waits_in_flight_max: 256,
                stream_subscribers_max: 768,
                stream_subscribers_per_client: 64,
            })
        );
        assert_eq!(config(&[(GLOBAL_RATE_LIMIT_ENV, "")]).map(|c| c.global_rate_limit_per_sec), Ok(100));
    }

    #[test]
    fn global_rate_limit_must_be_positive() {
        assert_eq!(config(&[(GLOBAL_RATE_LIMIT_ENV, "250")]).map(|c| c.global_rate_limit_per_sec), Ok(250));
        for bad in ["0", "-1", "ten", "1.5", "4294967296"] {
            assert_eq!(
                config(&[(GLOBAL_RATE_LIMIT_ENV, bad)]),
                Err(ConfigError::GlobalRateLimit(bad.to_owned())),
                "{bad}"
            );
        }
    }

    #[test]
    fn state_sync_rate_must_be_positive() {
        assert_eq!(config(&[(STATE_SYNC_RATE_ENV, "20")]).map(|c| c.state_sync_rate_per_sec), Ok(20));
        assert_eq!(config(&[(STATE_SYNC_RATE_ENV, "0")]), Err(ConfigError::StateSyncRate("0".to_owned())));
    }

    #[test]
    fn stream_caps_must_be_positive() {
        let caps = config(&[(STREAM_SUBSCRIBERS_MAX_ENV, "2000"), (STREAM_SUBSCRIBERS_PER_CLIENT_ENV, "200")]).unwrap();
        assert_eq!((caps.stream_subscribers_max, caps.stream_subscribers_per_client), (2_000, 200));
        for bad in ["0", "-1", "many"] {
            assert_eq!(
                config(&[(STREAM_SUBSCRIBERS_PER_CLIENT_ENV, bad)]),
                Err(ConfigError::StreamSubscribers(STREAM_SUBSCRIBERS_PER_CLIENT_ENV, bad.to_owned()))
            );
        }
    }

    #[test]
    fn dev_mode_is_any_non_empty_value_but_0_or_false() {
        for on in ["1", "true", "yes", "on"] {
            assert!(config(&[(DEV_MODE_ENV, on)]).unwrap().dev_mode, "{on}");
        }
        for off in ["", "0", "false", "FALSE"] {
            assert!(!config(&[(DEV_MODE_ENV, off)]).unwrap().dev_mode, "{off:?}");
        }
    }
}
