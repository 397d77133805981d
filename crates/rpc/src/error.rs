//! The one place where an API error becomes an HTTP response.
//!
//! Every error the HTTP layer serves, whether it comes from a handler, an extractor, a rate
//! limiter, a body limit or the fallback, is an [`HttpError`]: an [`ApiError`] (registered code
//! and message) plus the HTTP status, which is the code's own [`ErrorCode::http_status`] unless
//! a route documents another one (415 for an unsupported content type, 405 for a wrong method).
//! The body is always `{"code": <int>, "error": "<snake_case_name>", "message": "<text>"}`, and a
//! 429 or 503 always carries `Retry-After`. Refusals made on a connection, before any routing
//! (the `server` module), are written whole by [`connection_refusal`] with the same body.
//!
//! Domain refusals become API codes here too, and nowhere else: [`admission_error`] maps why a
//! transaction was not admitted (the validity rule's [`RejectReason`], the pool's
//! [`PoolRefusalKind`]) to the spec's transaction codes.
//!
//! Responses built here carry their [`ErrorCode`] as a response extension, which is how
//! [`json_payload_too_large`] tells our 413s from the plain-text one `tower-http`'s body limit
//! produces and replaces the latter.
//!
//! An internal error (HTTP 500) never shows its detail to the client: the detail may name files,
//! database states or peers. Its message becomes `internal error (request id <id>)`, the
//! response carries the same id in `X-Request-Id`, and the detail is logged at `error` with that
//! id, so an operator can find it from what the client reports. [`Concealer`] does this, here for
//! error responses and for the errors that batch answers carry inside their bodies (`/submit`
//! results, `/proof/multi` items).

use crate::limits::RETRY_AFTER_SECS_MIN;
use axum::{
    Json,
    http::{HeaderName, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use drover_types::{
    ErrorCode,
    admission::{AdmissionError, PoolRefusalKind},
    api::ErrorBody,
    error::ApiError,
    validity::RejectReason,
};
use serde::Serialize;
use std::{
    sync::{
        OnceLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{SystemTime, UNIX_EPOCH},
};

/// The API code of a refusal by the validity rule.
fn rejection_code(reason: RejectReason) -> ErrorCode {
    match reason {
        RejectReason::WrongChainId => ErrorCode::WrongChainId,
        RejectReason::NonceTooLow | RejectReason::NonceExhausted => ErrorCode::NonceTooLow,
        RejectReason::NonceTooHigh => ErrorCode::NonceTooHigh,
        RejectReason::BasefeeTooLow => ErrorCode::BasefeeTooLow,
        RejectReason::TipAboveMaxFee | RejectReason::CostOverflow | RejectReason::AboveBlockLimit(_) => {
            ErrorCode::InvalidFees
        }
        RejectReason::InsufficientBalanceForValue | RejectReason::InsufficientBalanceForFees => {
            ErrorCode::InsufficientBalance
        }
        RejectReason::IntrinsicCycles | RejectReason::IntrinsicCells => ErrorCode::OutOfGas,
        RejectReason::InvalidPayload => ErrorCode::InvalidPayload,
        RejectReason::BlockFull(_) => ErrorCode::AdmissionBusy,
    }
}

/// The API code of a refusal by the pool's policy.
fn pool_code(kind: PoolRefusalKind) -> ErrorCode {
    match kind {
        PoolRefusalKind::AlreadyKnown => ErrorCode::AlreadyKnown,
        PoolRefusalKind::NonceUsed => ErrorCode::NonceTooLow,
        PoolRefusalKind::NonceGap => ErrorCode::NonceTooHigh,
        PoolRefusalKind::Reserved => ErrorCode::InsufficientBalance,
        PoolRefusalKind::ReplacementUnderpriced => ErrorCode::ReplacementUnderpriced,
        PoolRefusalKind::SenderFull | PoolRefusalKind::PoolFull => ErrorCode::AdmissionBusy,
        PoolRefusalKind::Inconsistent => ErrorCode::AdmissionRetry,
    }
}

/// The API error a refused admission is answered with.
pub fn admission_error(error: AdmissionError) -> ApiError {
    match error {
        AdmissionError::Invalid(rejection) => ApiError::new(rejection_code(rejection.reason), rejection.message),
        AdmissionError::Pool(refusal) => ApiError::new(pool_code(refusal.kind), refusal.message),
        AdmissionError::Unavailable(message) => ApiError::new(ErrorCode::AdmissionRetry, message),
    }
}

/// Header naming the request id of an internal error.
pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// Identifies one request's internal errors in the log: 16 hex digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    /// A fresh id. Ids count up from the clock at the first one, so they are unique within a
    /// run and do not repeat the previous runs' ids in the same log.
    fn next() -> Self {
        static NEXT: OnceLock<AtomicU64> = OnceLock::new();
        let next = NEXT.get_or_init(|| {
            let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64);
            AtomicU64::new(nanos)
        });
        Self(format!("{:016x}", next.fetch_add(1, Ordering::Relaxed)))
    }

    /// The 16 hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The message an internal error is served with.
pub fn internal_message(id: &RequestId) -> String {
    format!("internal error (request id {id})")
}

/// Conceals the internal errors of one request (see the module docs): every one gets the same
/// request id, created at the first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Concealer {
    id: Option<RequestId>,
}

impl Concealer {
    /// `error` as the client may see it: unchanged unless its code is served with 500, in which
    /// case its detail is logged and replaced by the request id.
    pub fn conceal(&mut self, error: ApiError) -> ApiError {
        if status_of(error.code) == StatusCode::INTERNAL_SERVER_ERROR { self.conceal_internal(error) } else { error }
    }

    fn conceal_internal(&mut self, error: ApiError) -> ApiError {
        let id = self.id.get_or_insert_with(RequestId::next);
        tracing::error!(
            request_id = %id,
            code = error.code.code(),
            detail = %error.message,
            "internal error"
        );
        ApiError::new(error.code, internal_message(id))
    }

    /// The request id, if an error was concealed.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// Adds `X-Request-Id` to `response` if an error was concealed.
    pub fn tag(&self, response: &mut Response) {
        if let Some(value) = self.id.as_ref().and_then(|id| HeaderValue::from_str(id.as_str()).ok()) {
            response.headers_mut().insert(REQUEST_ID_HEADER, value);
        }
    }
}

/// An error response.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {error}")]
pub struct HttpError {
    error: ApiError,
    status: StatusCode,
    retry_after_secs: u64,
}

impl HttpError {
    /// An error with `code` (served with its registered HTTP status) and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError::new(code, message).into()
    }

    /// 429 with code 1004, retry allowed after `retry_after_secs` (at least one second).
    pub fn rate_limited(retry_after_secs: u64, message: impl Into<String>) -> Self {
        Self {
            retry_after_secs: retry_after_secs.max(RETRY_AFTER_SECS_MIN),
            ..Self::new(ErrorCode::RateLimited, message)
        }
    }

    /// Serves the error with `status` instead of its code's own.
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// The API error code.
    pub fn code(&self) -> ErrorCode {
        self.error.code
    }

    /// The HTTP status the error is served with.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        Self { status: status_of(error.code), error, retry_after_secs: RETRY_AFTER_SECS_MIN }
    }
}

/// The code and message, for answers that carry errors inside a 200 body (`/proof/multi`).
impl From<HttpError> for ApiError {
    fn from(error: HttpError) -> Self {
        error.error
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let mut concealer = Concealer::default();
        // The status decides, not the code: a 503 with code 1000 (the node is starting) says
        // only what the client may know.
        let error = if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            concealer.conceal_internal(self.error)
        } else {
            self.error
        };
        let mut response = (self.status, Json(ErrorBody::from(&error))).into_response();
        finish(&mut response, error.code, self.retry_after_secs);
        concealer.tag(&mut response);
        response
    }
}

/// The HTTP status a code is served with.
pub fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A JSON body served with the status of `refusal`, or 200 without one: the shape of batch
/// results whose HTTP status is that of their first refusal. `concealer` is the one the body's
/// errors went through (it adds `X-Request-Id` if it concealed any).
pub fn outcome_response<T: Serialize>(refusal: Option<ErrorCode>, body: T, concealer: &Concealer) -> Response {
    let mut response = match refusal {
        None => Json(body).into_response(),
        Some(code) => {
            let mut response = (status_of(code), Json(body)).into_response();
            finish(&mut response, code, RETRY_AFTER_SECS_MIN);
            response
        }
    };
    concealer.tag(&mut response);
    response
}

/// The whole HTTP/1.1 answer of a refusal made on a connection rather than by the router (too
/// many connections, a request head that did not arrive in time): `status`, the JSON body of
/// `error`, `Connection: close`, and `Retry-After` when given.
pub fn connection_refusal(status: StatusCode, error: &ApiError, retry_after_secs: Option<u64>) -> Vec<u8> {
    // Serializing a struct of a number and two strings cannot fail; an empty body would still
    // be a well-formed answer.
    let body = serde_json::to_vec(&ErrorBody::from(error)).unwrap_or_default();
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    );
    if let Some(secs) = retry_after_secs {
        head.push_str(&format!("retry-after: {}\r\n", secs.max(RETRY_AFTER_SECS_MIN)));
    }
    head.push_str("\r\n");
    let mut answer = head.into_bytes();
    answer.extend_from_slice(&body);
    answer
}

/// Tags an error response with its code and, for a 429 or a 503, its `Retry-After`.
fn finish(response: &mut Response, code: ErrorCode, retry_after_secs: u64) {
    if matches!(response.status(), StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE) {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
    }
    response.extensions_mut().insert(code);
}

/// Replaces a 413 that was not built here (the early refusal of `tower-http`'s body limit, on
/// `Content-Length`) with our JSON body for code 6000.
pub async fn json_payload_too_large(response: Response) -> Response {
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && response.extensions().get::<ErrorCode>().is_none() {
        return payload_too_large().into_response();
    }
    response
}

/// 413 with code 6000.
pub fn payload_too_large() -> HttpError {
    HttpError::new(
        ErrorCode::PayloadTooLarge,
        format!("request body exceeds {} bytes", crate::limits::MAX_REQUEST_BYTES),
    )
}

/// Message of the 404 served for paths no route serves.
pub const UNKNOWN_ROUTE_MESSAGE: &str = "no such route";

/// 404 with code 1002 for paths no route serves.
pub async fn unknown_route() -> HttpError {
    HttpError::new(ErrorCode::NotFound, UNKNOWN_ROUTE_MESSAGE)
}

/// 405 with code 1001 for a known path asked with a method it does not serve.
pub async fn method_not_allowed() -> HttpError {
    HttpError::new(ErrorCode::BadRequest, "method not allowed on this route")
        .with_status(StatusCode::METHOD_NOT_ALLOWED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::to_bytes;

    async fn parts(response: Response) -> (StatusCode, Option<String>, serde_json::Value) {
        let status = response.status();
        let retry_after = response.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, retry_after, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn body_has_code_name_and_message_with_the_codes_status() {
        let (status, retry_after, body) = parts(HttpError::new(ErrorCode::InvalidAddress, "bad").into_response()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(retry_after, None);
        assert_eq!(body, serde_json::json!({"code": 3001, "error": "invalid_address", "message": "bad"}));
    }

    #[tokio::test]
    async fn every_429_carries_retry_after() {
        let (status, retry_after, body) = parts(HttpError::rate_limited(0, "slow down").into_response()).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(retry_after.as_deref(), Some("1"));
        assert_eq!(body["code"], 1004);
        let (status, retry_after, _) = parts(HttpError::new(ErrorCode::AdmissionBusy, "full").into_response()).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(retry_after.as_deref(), Some("1"));
        let (_, retry_after, _) = parts(HttpError::rate_limited(42, "later").into_response()).await;
        assert_eq!(retry_after.as_deref(), Some("42"));
    }

    #[tokio::test]
    async fn status_override_keeps_the_code() {
        let (status, _, body) = parts(
            HttpError::new(ErrorCode::BadRequest, "cbor only")
                .with_status(StatusCode::UNSUPPORTED_MEDIA_TYPE)
                .into_response(),
        )
        .await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(body["code"], 1001);
    }

    #[tokio::test]
    async fn foreign_413_becomes_json_and_ours_is_left_alone() {
        let foreign = (StatusCode::PAYLOAD_TOO_LARGE, "length limit exceeded").into_response();
        let (status, _, body) = parts(json_payload_too_large(foreign).await).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(body["code"], 6000);
        let ours = HttpError::new(ErrorCode::SubmissionTooLarge, "big").into_response();
        let (_, _, body) = parts(json_payload_too_large(ours).await).await;
        assert_eq!(body["code"], 2013);
    }

    /// Runs `f` and answers what it returned and what it logged.
    fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
        #[derive(Clone, Default)]
        struct Buffer(std::sync::Arc<parking_lot::Mutex<Vec<u8>>>);
        impl std::io::Write for Buffer {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
        let out = tracing::subscriber::with_default(subscriber, f);
        let log = String::from_utf8_lossy(&buffer.0.lock()).into_owned();
        (out, log)
    }

    #[tokio::test]
    async fn internal_errors_show_a_request_id_and_log_the_detail_under_it() {
        let detail = "page 7 of /var/lib/drover/state is torn";
        let (response, log) = logged(|| HttpError::new(ErrorCode::Internal, detail).into_response());
        let id = response.headers()[REQUEST_ID_HEADER].to_str().unwrap().to_owned();
        assert_eq!(id.len(), 16, "{id}");
        let (status, _, body) = parts(response).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            body,
            serde_json::json!({
                "code": 1000,
                "error": "internal",
                "message": format!("internal error (request id {id})"),
            })
        );
        let line = log.lines().find(|line| line.contains(&id)).unwrap_or_else(|| panic!("{log}"));
        assert!(line.contains("ERROR") && line.contains(detail), "{line}");

        // Every code served with 500 is concealed, each response under an id of its own.
        let (response, log) =
            logged(|| HttpError::new(ErrorCode::AdmissionRetry, "redb: lock poisoned").into_response());
        let other = response.headers()[REQUEST_ID_HEADER].to_str().unwrap().to_owned();
        assert_ne!(other, id);
        let (_, _, body) = parts(response).await;
        assert_eq!(body["code"], 2017);
        assert_eq!(body["message"], format!("internal error (request id {other})"));
        assert!(log.contains(&other) && log.contains("redb: lock poisoned"), "{log}");
    }

    #[tokio::test]
    async fn other_errors_keep_their_message_and_get_no_request_id() {
        for error in [
            HttpError::new(ErrorCode::NotFound, "no such block"),
            // The starting node's 503 says why on purpose.
            HttpError::new(ErrorCode::Internal, "the node is starting").with_status(StatusCode::SERVICE_UNAVAILABLE),
        ] {
            let response = error.into_response();
            assert!(response.headers().get(REQUEST_ID_HEADER).is_none());
            let (_, _, body) = parts(response).await;
            assert!(!body["message"].as_str().unwrap().contains("request id"), "{body}");
        }
    }

    #[test]
    fn a_concealer_gives_every_internal_error_of_a_request_one_id() {
        let mut concealer = Concealer::default();
        let refusal = ApiError::new(ErrorCode::NonceTooLow, "nonce 3 is below 5");
        assert_eq!(concealer.conceal(refusal.clone()), refusal);
        assert_eq!(concealer.request_id(), None);
        let (first, log) = logged(|| concealer.conceal(ApiError::new(ErrorCode::Internal, "disk full")));
        let id = concealer.request_id().cloned().unwrap();
        assert_eq!(first, ApiError::new(ErrorCode::Internal, internal_message(&id)));
        assert!(log.contains(id.as_str()) && log.contains("disk full"), "{log}");
        let second = concealer.conceal(ApiError::new(ErrorCode::AdmissionRetry, "state read failed"));
        assert_eq!(second.message, internal_message(&id));
        let mut response = ().into_response();
        concealer.tag(&mut response);
        assert_eq!(response.headers()[REQUEST_ID_HEADER], id.as_str());
    }

    #[test]
    fn every_registered_status_is_a_valid_http_status() {
        for code in ErrorCode::ALL {
            assert_eq!(status_of(*code).as_u16(), code.http_status(), "{code:?}");
        }
    }
}
