//! The typed HTTP client.
//!
//! One method per endpoint, each returning the JSON record the node serves (the record types of
//! `drover_types::api`, shared with the server), in one module per endpoint family named as the
//! server's `routes/` modules are. Each method fills its route's path template from
//! [`drover_types::api::paths`], the templates the server declares its routes with, so the two
//! sides cannot disagree on a path; `drover-rpc`'s client contract test runs every method
//! against the real router. Lookups of things that may not exist return
//! `Ok(None)` on the 404 whose code means "no such thing" (3000 for accounts, 4000 for blocks,
//! 1002 otherwise); any other 404, such as a disabled faucet's 8000, stays an error.
//!
//! Bodies are read up to [`RESPONSE_BYTES_MAX`] so a misbehaving server cannot exhaust memory.
//! `/submit_wait` gets a per-request timeout long enough to cover the wait it asks for.

mod accounts;
mod actors;
mod blocks;
mod chain;
mod entitlements;
mod faucet;
mod governance;
mod health;
pub(crate) mod history;
mod jobs;
mod library;
mod proofs;
mod runners;
mod secrets;
mod simulate;
mod state_sync;
mod storage;
mod tokens;
mod transactions;

use crate::error::{ClientError, excerpt};
use drover_types::ErrorCode;
use reqwest::header::{HeaderValue, RETRY_AFTER};
use serde::de::DeserializeOwned;
use std::time::Duration;

/// Default time allowed for one request, connection included, in seconds.
pub const REQUEST_TIMEOUT_SECS_DEFAULT: u64 = 30;
/// Largest response body read, in bytes.
pub const RESPONSE_BYTES_MAX: usize = 16 * 1024 * 1024;
/// Longest a pooled connection is kept idle, in seconds: below the node's idle limit (its
/// header-read timeout, 10 s), so the client never reuses a connection the node is closing.
pub(crate) const POOL_IDLE_TIMEOUT_SECS: u64 = 5;

/// A client of one node's HTTP API. Cheap to clone (clones share one connection pool).
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    /// Base URL without a trailing slash; paths are appended to it.
    base: String,
    timeout: Duration,
}

impl Client {
    /// A client of the node at `base_url` (e.g. `http://127.0.0.1:4000`) with the default
    /// timeout.
    pub fn new(base_url: &str) -> Result<Self, ClientError> {
        Self::with_timeout(base_url, Duration::from_secs(REQUEST_TIMEOUT_SECS_DEFAULT))
    }

    /// A client whose requests each get at most `timeout` (`/submit_wait` gets more if its
    /// wait needs it).
    pub fn with_timeout(base_url: &str, timeout: Duration) -> Result<Self, ClientError> {
        let invalid = |reason: &str| ClientError::InvalidUrl { url: base_url.to_owned(), reason: reason.to_owned() };
        let url = reqwest::Url::parse(base_url.trim()).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("the scheme must be http or https"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(invalid("no host"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(invalid("a base URL takes no query or fragment"));
        }
        let base = url.as_str().trim_end_matches('/').to_owned();
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .pool_idle_timeout(Duration::from_secs(POOL_IDLE_TIMEOUT_SECS))
            .user_agent(concat!("drover-client/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|source| ClientError::Transport { url: base.clone(), source })?;
        Ok(Self { http, base, timeout })
    }

    /// The base URL requests go to, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request; answers the status and body of a 2xx response, or the error the
    /// response carries.
    async fn send(&self, url: &str, request: reqwest::RequestBuilder) -> Result<(u16, Vec<u8>), ClientError> {
        let transport = |source| ClientError::Transport { url: url.to_owned(), source };
        let mut response = request.send().await.map_err(transport)?;
        let status = response.status().as_u16();
        let retry_after = response.headers().get(RETRY_AFTER).and_then(retry_after_seconds);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(transport)? {
            if body.len().saturating_add(chunk.len()) > RESPONSE_BYTES_MAX {
                return Err(ClientError::BodyTooLarge { url: url.to_owned(), status, limit_bytes: RESPONSE_BYTES_MAX });
            }
            body.extend_from_slice(&chunk);
        }
        if (200..300).contains(&status) {
            Ok((status, body))
        } else {
            Err(ClientError::from_error_response(url, status, retry_after, &body))
        }
    }

    async fn send_json<T: DeserializeOwned>(
        &self,
        url: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ClientError> {
        let (status, body) = self.send(url, request).await?;
        serde_json::from_slice(&body).map_err(|e| ClientError::UnexpectedResponse {
            url: url.to_owned(),
            status,
            reason: format!("not the expected record ({e}): {}", excerpt(&body)),
        })
    }

    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        let url = self.url(path);
        self.send_json(&url, self.http.get(&url)).await
    }

    /// A GET whose 404 with code `absent` (or the generic 1002) means "no such thing".
    async fn get_optional<T: DeserializeOwned>(&self, path: &str, absent: ErrorCode) -> Result<Option<T>, ClientError> {
        match self.get(path).await {
            Ok(record) => Ok(Some(record)),
            Err(err) if err.is_not_found_with(&[absent, ErrorCode::NotFound]) => Ok(None),
            Err(err) => Err(err),
        }
    }
}

/// Delay-seconds form of `Retry-After` (the HTTP-date form is not used by the node).
fn retry_after_seconds(value: &HeaderValue) -> Option<u64> {
    value.to_str().ok()?.trim().parse().ok()
}

/// What does not need a node that follows the API: base URLs, headers, transport failures and
/// a misbehaving server. Every method against the real router is `drover-rpc`'s client
/// contract test.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TxBuilder, TxContext};
    use axum::{Router, body::Bytes, http::StatusCode, routing::get};
    use drover_types::{Address, H256, api::paths};

    #[test]
    fn validates_base_urls() {
        for good in ["http://127.0.0.1:4000", "http://127.0.0.1:4000/", "https://localhost/api/", " http://[::1]:4000 "]
        {
            assert!(Client::new(good).is_ok(), "{good}");
        }
        assert_eq!(Client::new("http://127.0.0.1:4000/").unwrap().base_url(), "http://127.0.0.1:4000");
        assert_eq!(Client::new("https://localhost/api/").unwrap().base_url(), "https://localhost/api");
        for bad in ["", "127.0.0.1:4000", "ftp://127.0.0.1", "http://", "http://h/?q=1", "http://h/#f", "not a url"] {
            assert!(matches!(Client::new(bad), Err(ClientError::InvalidUrl { .. })), "{bad}");
        }
    }

    #[test]
    fn retry_after_takes_delay_seconds_only() {
        assert_eq!(retry_after_seconds(&HeaderValue::from_static("12")), Some(12));
        assert_eq!(retry_after_seconds(&HeaderValue::from_static(" 3 ")), Some(3));
        assert_eq!(retry_after_seconds(&HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(retry_after_seconds(&HeaderValue::from_static("-1")), None);
    }

    /// The client's futures can be spawned on a multi-threaded runtime: the values a path is
    /// filled with live across the request's `.await`, so they must be shareable.
    #[test]
    fn requests_are_send() {
        fn send<T: Send>(_: T) {}
        let client = Client::new("http://127.0.0.1:4000").unwrap();
        let (address, hash) = (Address([1; 20]), H256([2; 32]));
        send(client.token_allowance(&address, &address, &address));
        send(client.secret_envelope(&address, "key", &address));
        send(client.proof_storage(&address, b"k", Some(3)));
        send(client.job_results(&hash, 0, 1));
        send(client.proposal(7));
    }

    /// A node that answers nonsense, each route in its own way.
    async fn serve_broken() -> String {
        let router = Router::new()
            .route(paths::HEIGHT, get(|| async { r#"{"height":"tall"}"# }))
            .route(paths::CHAIN_INFO, get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "oops") }))
            .route(paths::METRICS, get(|| async { Bytes::from_static(b"\xff\xfe") }))
            .route(paths::HEALTH, get(|| async { Bytes::from(vec![b' '; RESPONSE_BYTES_MAX + 1]) }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await });
        format!("http://{address}")
    }

    #[tokio::test]
    async fn refuses_malformed_answers() {
        let client = Client::new(&serve_broken().await).unwrap();
        let unexpected = |err: ClientError| match err {
            ClientError::UnexpectedResponse { status, reason, .. } => (status, reason),
            other => panic!("expected an unexpected response, got {other}"),
        };
        let (status, reason) = unexpected(client.height().await.unwrap_err());
        assert_eq!(status, 200);
        assert!(reason.contains("tall"), "{reason}");
        let (status, reason) = unexpected(client.chain_info().await.unwrap_err());
        assert_eq!(status, 500);
        assert!(reason.contains("oops"), "{reason}");
        assert_eq!(unexpected(client.metrics().await.unwrap_err()).0, 200);
        assert!(matches!(
            client.health().await.unwrap_err(),
            ClientError::BodyTooLarge { limit_bytes: RESPONSE_BYTES_MAX, .. }
        ));
        // A 404 that is not the node's JSON error (here axum's bare one) is not an absence.
        let (status, _) = unexpected(client.account(&Address([1; 20])).await.unwrap_err());
        assert_eq!(status, 404);
    }

    /// A loopback URL where nothing listens.
    async fn closed_port_url() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        format!("http://{address}")
    }

    #[tokio::test]
    async fn reports_transport_failures() {
        let client = Client::with_timeout(&closed_port_url().await, Duration::from_secs(2)).unwrap();
        let err = client.height().await.unwrap_err();
        assert!(matches!(err, ClientError::Transport { .. }), "{err}");
        assert_eq!((err.status(), err.code()), (None, None));
    }

    /// A builder with everything fixed asks nothing, so even an unreachable node does.
    #[tokio::test]
    async fn a_fixed_builder_needs_no_node() {
        let offline = Client::new(&closed_port_url().await).unwrap();
        let fixed = TxBuilder::transfer(Address([0xaa; 20]), 1)
            .chain_id(1)
            .nonce(3)
            .max_fee_per_cycle(1)
            .max_fee_per_cell(1)
            .tip_per_cycle(0)
            .tip_per_cell(0);
        assert_eq!(fixed.fetch_context(&offline, Address([0xaa; 20])).await.unwrap(), TxContext::default());
    }
}
