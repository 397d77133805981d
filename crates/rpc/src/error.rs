//! The one place where an API error becomes an HTTP response.
//!
//! Every error the HTTP layer serves, whether it comes from a handler, an extractor, a rate
//! limiter, a body limit or the fallback, is an [`HttpError`]: an [`ApiError`] (registered code
//! and message) plus the HTTP status, which is the code's own [`ErrorCode::http_status`] unless
//! a route documents another one (415 for an unsupported content type, 405 for a wrong method).
//! The body is always `{"code": <int>, "error": "<snake_case_name>", "message": "<text>"}`, and a
//! 429 always carries `Retry-After`.
//!
//! Responses built here carry their [`ErrorCode`] as a response extension, which is how
//! [`json_payload_too_large`] tells our 413s from the plain-text one `tower-http`'s body limit
//! produces and replaces the latter.

use crate::limits::RETRY_AFTER_SECS_MIN;
use axum::{
    Json,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use drover_types::{ErrorCode, api::ErrorBody, error::ApiError};
use serde::Serialize;

/// An error response.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {error}")]
pub struct HttpError {
    error: ApiError,
    status: StatusCode,
    retry_after_secs: u64,
}

impl HttpError {
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

    pub fn code(&self) -> ErrorCode {
        self.error.code
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        Self {
            status: status_of(error.code),
            error,
            retry_after_secs: RETRY_AFTER_SECS_MIN,
        }
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
        let mut response = (self.status, Json(ErrorBody::from(&self.error))).into_response();
        finish(&mut response, self.error.code, self.retry_after_secs);
        response
    }
}

/// The HTTP status a code is served with.
pub fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A JSON body served with the status of `refusal`, or 200 without one: the shape of batch
/// results whose HTTP status is that of their first refusal.
pub fn outcome_response<T: Serialize>(refusal: Option<ErrorCode>, body: T) -> Response {
    match refusal {
        None => Json(body).into_response(),
        Some(code) => {
            let mut response = (status_of(code), Json(body)).into_response();
            finish(&mut response, code, RETRY_AFTER_SECS_MIN);
            response
        }
    }
}

/// Tags an error response with its code and, for a 429, its `Retry-After`.
fn finish(response: &mut Response, code: ErrorCode, retry_after_secs: u64) {
    if response.status() == StatusCode::TOO_MANY_REQUESTS {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
    }
    response.extensions_mut().insert(code);
}

/// Replaces a 413 that was not built here (the early refusal of `tower-http`'s body limit, on
/// `Content-Length`) with our JSON body for code 6000.
pub async fn json_payload_too_large(response: Response) -> Response {
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE
        && response.extensions().get::<ErrorCode>().is_none()
    {
        return payload_too_large().into_response();
    }
    response
}

/// 413 with code 6000.
pub fn payload_too_large() -> HttpError {
    HttpError::new(
        ErrorCode::PayloadTooLarge,
        format!(
            "request body exceeds {} bytes",
            crate::limits::MAX_REQUEST_BYTES
        ),
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
        let retry_after = response
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, retry_after, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn body_has_code_name_and_message_with_the_codes_status() {
        let (status, retry_after, body) =
            parts(HttpError::new(ErrorCode::InvalidAddress, "bad").into_response()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(retry_after, None);
        assert_eq!(
            body,
            serde_json::json!({"code": 3001, "error": "invalid_address", "message": "bad"})
        );
    }

    #[tokio::test]
    async fn every_429_carries_retry_after() {
        let (status, retry_after, body) =
            parts(HttpError::rate_limited(0, "slow down").into_response()).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(retry_after.as_deref(), Some("1"));
        assert_eq!(body["code"], 1004);
        let (status, retry_after, _) =
            parts(HttpError::new(ErrorCode::AdmissionBusy, "full").into_response()).await;
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

    #[test]
    fn every_registered_status_is_a_valid_http_status() {
        for code in ErrorCode::ALL {
            assert_eq!(status_of(*code).as_u16(), code.http_status(), "{code:?}");
        }
    }
}
