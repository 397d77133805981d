//! What can go wrong talking to a node.
//!
//! A node answers every refusal with the JSON body `{"code", "error", "message"}` and the HTTP
//! status of its code; [`ClientError::Api`] carries all four, plus the `Retry-After` seconds of
//! a 429. A failure to reach the node, or an answer that is not what the API defines, is kept
//! apart so callers can tell "the node said no" from "no usable answer".

use drover_types::{ErrorCode, api::ErrorBody};

/// Most characters of an unexpected body quoted in an error message.
const BODY_EXCERPT_CHARS_MAX: usize = 200;

/// Why a request to the node gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The node URL the client was built with cannot be used.
    #[error("invalid RPC URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },

    /// The node refused the request with a well-formed error body.
    #[error("{}", api_display(*status, *code, error, message, *retry_after))]
    Api {
        /// HTTP status.
        status: u16,
        /// Numeric API error code (1000–9000).
        code: u16,
        /// Snake-case name of the code.
        error: String,
        /// The node's explanation of this refusal.
        message: String,
        /// Seconds from the `Retry-After` header (429 responses).
        retry_after: Option<u64>,
    },

    /// The request did not complete: connection refused, timeout, broken stream.
    #[error("request to {url} failed")]
    Transport {
        /// The URL requested.
        url: String,
        /// The HTTP client's error.
        #[source]
        source: reqwest::Error,
    },

    /// The response body is larger than the client reads ([`crate::client::RESPONSE_BYTES_MAX`]).
    #[error("response from {url} (HTTP {status}) exceeds {limit_bytes} bytes")]
    BodyTooLarge {
        /// The URL requested.
        url: String,
        /// HTTP status of the answer.
        status: u16,
        /// The most the client reads, in bytes.
        limit_bytes: usize,
    },

    /// The node answered, but not with what the API defines for this request.
    #[error("unexpected response from {url} (HTTP {status}): {reason}")]
    UnexpectedResponse {
        /// The URL requested.
        url: String,
        /// HTTP status of the answer.
        status: u16,
        /// What is wrong with the answer, quoting the start of the body where useful.
        reason: String,
    },
}

fn api_display(status: u16, code: u16, error: &str, message: &str, retry_after: Option<u64>) -> String {
    let retry = retry_after.map(|seconds| format!(" (retry after {seconds} s)")).unwrap_or_default();
    format!("node refused the request: {error} (code {code}, HTTP {status}): {message}{retry}")
}

impl ClientError {
    /// Builds the error for a non-success answer: the API error if the body is one, else an
    /// [`ClientError::UnexpectedResponse`] quoting the start of the body.
    pub(crate) fn from_error_response(url: &str, status: u16, retry_after: Option<u64>, body: &[u8]) -> Self {
        match serde_json::from_slice::<ErrorBody>(body) {
            Ok(ErrorBody { code, error, message }) => ClientError::Api { status, code, error, message, retry_after },
            Err(_) => ClientError::UnexpectedResponse {
                url: url.to_owned(),
                status,
                reason: format!("not an API error body: {}", excerpt(body)),
            },
        }
    }

    /// HTTP status of the answer, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Api { status, .. }
            | ClientError::UnexpectedResponse { status, .. }
            | ClientError::BodyTooLarge { status, .. } => Some(*status),
            ClientError::InvalidUrl { .. } | ClientError::Transport { .. } => None,
        }
    }

    /// The numeric API error code, for [`ClientError::Api`].
    pub fn code(&self) -> Option<u16> {
        match self {
            ClientError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The registered [`ErrorCode`], when the code is one this SDK knows.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.code().and_then(ErrorCode::from_code)
    }

    /// Seconds to wait before retrying, from a 429's `Retry-After`.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            ClientError::Api { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Whether this is a 404 refusal with one of `codes`.
    pub(crate) fn is_not_found_with(&self, codes: &[ErrorCode]) -> bool {
        matches!(self, ClientError::Api { status: 404, .. })
            && self.error_code().is_some_and(|code| codes.contains(&code))
    }
}

/// The start of a body as text, for error messages.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return "(empty body)".to_owned();
    }
    let mut shown: String = trimmed.chars().take(BODY_EXCERPT_CHARS_MAX).collect();
    if trimmed.chars().nth(BODY_EXCERPT_CHARS_MAX).is_some() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "http://127.0.0.1:4000/account/0x00";

    #[test]
    fn decodes_error_bodies() {
        let body = br#"{"code":3001,"error":"invalid_address","message":"bad hex"}"#;
        let err = ClientError::from_error_response(URL, 400, None, body);
        assert!(matches!(
            &err,
            ClientError::Api { status: 400, code: 3001, error, message, retry_after: None }
                if error == "invalid_address" && message == "bad hex"
        ));
        assert_eq!(err.status(), Some(400));
        assert_eq!(err.code(), Some(3001));
        assert_eq!(err.error_code(), Some(ErrorCode::InvalidAddress));
        assert_eq!(err.retry_after(), None);
        assert_eq!(err.to_string(), "node refused the request: invalid_address (code 3001, HTTP 400): bad hex");
    }

    #[test]
    fn keeps_extra_fields_and_unknown_codes() {
        let body = br#"{"code":2999,"error":"future_code","message":"m","results":[]}"#;
        let err = ClientError::from_error_response(URL, 418, None, body);
        assert_eq!(err.code(), Some(2999));
        assert_eq!(err.error_code(), None);
        assert_eq!(err.status(), Some(418));
    }

    #[test]
    fn exposes_retry_after() {
        let body = br#"{"code":1004,"error":"rate_limited","message":"slow down"}"#;
        let err = ClientError::from_error_response(URL, 429, Some(3), body);
        assert_eq!(err.retry_after(), Some(3));
        assert_eq!(err.error_code(), Some(ErrorCode::RateLimited));
        assert!(err.to_string().ends_with("slow down (retry after 3 s)"));
    }

    #[test]
    fn bodies_that_are_not_error_records_are_unexpected() {
        for body in [
            &b""[..],
            b"Payload Too Large",
            b"{}",
            br#"{"code":"3001","error":"x","message":"y"}"#,
            br#"{"code":70000,"error":"x","message":"y"}"#,
            br#"{"code":3001,"message":"y"}"#,
            b"\xff\xfe",
        ] {
            let err = ClientError::from_error_response(URL, 413, None, body);
            assert!(matches!(err, ClientError::UnexpectedResponse { status: 413, .. }), "{body:?}");
            assert_eq!(err.code(), None);
            assert_eq!(err.status(), Some(413));
        }
    }

    #[test]
    fn not_found_matching_is_by_status_and_code() {
        let not_found = |status, code| ClientError::Api {
            status,
            code,
            error: String::new(),
            message: String::new(),
            retry_after: None,
        };
        assert!(not_found(404, 3000).is_not_found_with(&[ErrorCode::AccountNotFound]));
        assert!(!not_found(404, 8000).is_not_found_with(&[ErrorCode::AccountNotFound]));
        assert!(!not_found(400, 3000).is_not_found_with(&[ErrorCode::AccountNotFound]));
    }

    #[test]
    fn excerpts_are_bounded() {
        assert_eq!(excerpt(b"  \n"), "(empty body)");
        assert_eq!(excerpt(b" short "), "short");
        let long = "x".repeat(BODY_EXCERPT_CHARS_MAX + 50);
        let shown = excerpt(long.as_bytes());
        assert_eq!(shown.chars().count(), BODY_EXCERPT_CHARS_MAX + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(excerpt("é".repeat(BODY_EXCERPT_CHARS_MAX).as_bytes()).chars().count(), BODY_EXCERPT_CHARS_MAX);
    }
}
