//! Offset pagination of list endpoints: `?offset=` (default 0) and `?limit=` (default
//! [`PAGE_LIMIT_DEFAULT`], capped at [`PAGE_LIMIT_MAX`]).
//!
//! A value that is not a non-negative decimal integer is refused with 400 code 1001 rather than
//! silently replaced by the default, so a client's typo never looks like an empty page. A limit
//! above the maximum is capped, not refused, and the envelope echoes the capped value.

use crate::{
    error::HttpError,
    extract::ApiQuery,
    limits::{PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX},
};
use axum::{extract::FromRequestParts, http::request::Parts};
use drover_types::{ErrorCode, api::Paginated};
use serde::Deserialize;

/// A validated page request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// Items to skip from the start of the list.
    pub offset: u64,
    /// Items per page, at most `PAGE_LIMIT_MAX`.
    pub limit: u64,
}

impl Default for Page {
    fn default() -> Self {
        Self { offset: 0, limit: PAGE_LIMIT_DEFAULT }
    }
}

impl Page {
    /// Parses the raw query values.
    pub fn parse(offset: Option<&str>, limit: Option<&str>) -> Result<Self, HttpError> {
        let offset = offset.map(|text| parse_count("offset", text)).transpose()?.unwrap_or(0);
        let limit = limit
            .map(|text| parse_count("limit", text))
            .transpose()?
            .map_or(PAGE_LIMIT_DEFAULT, |limit| limit.min(PAGE_LIMIT_MAX));
        Ok(Self { offset, limit })
    }

    /// Wraps one page of items (already cut by `offset`/`limit`) in the list envelope.
    pub fn envelope<T>(self, items: Vec<T>, total_count: u64) -> Paginated<T> {
        Paginated { items, total_count, offset: self.offset, limit: self.limit }
    }
}

fn parse_count(name: &str, text: &str) -> Result<u64, HttpError> {
    // `u64::from_str` accepts a leading `+`; a count is digits only.
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(HttpError::new(
            ErrorCode::BadRequest,
            format!("query parameter `{name}` must be a non-negative integer, got {text:?}"),
        ));
    }
    text.parse()
        .map_err(|_| HttpError::new(ErrorCode::BadRequest, format!("query parameter `{name}` is too large: {text:?}")))
}

#[derive(Deserialize)]
struct RawPage {
    offset: Option<String>,
    limit: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for Page {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let ApiQuery(raw) = ApiQuery::<RawPage>::from_request_parts(parts, state).await?;
        Page::parse(raw.offset.as_deref(), raw.limit.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parse(offset: Option<&str>, limit: Option<&str>) -> Result<(u64, u64), ErrorCode> {
        Page::parse(offset, limit).map(|p| (p.offset, p.limit)).map_err(|e| e.code())
    }

    #[test]
    fn defaults_and_cap() {
        assert_eq!(parse(None, None), Ok((0, 50)));
        assert_eq!(parse(Some("7"), Some("20")), Ok((7, 20)));
        assert_eq!(parse(None, Some("1000")), Ok((0, 1000)));
        assert_eq!(parse(None, Some("1001")), Ok((0, 1000)));
        assert_eq!(parse(None, Some("18446744073709551615")), Ok((0, 1000)));
        assert_eq!(parse(Some("0"), Some("0")), Ok((0, 0)));
    }

    #[test]
    fn non_numeric_values_are_1001() {
        for bad in ["", "abc", "-1", "+1", "1.0", " 1", "1e3", "18446744073709551616"] {
            assert_eq!(parse(Some(bad), None), Err(ErrorCode::BadRequest), "offset {bad:?}");
            assert_eq!(parse(None, Some(bad)), Err(ErrorCode::BadRequest), "limit {bad:?}");
        }
    }

    async fn extract(query: &str) -> Result<Page, ErrorCode> {
        let (mut parts, ()) = Request::builder().uri(format!("/tokens{query}")).body(()).unwrap().into_parts();
        Page::from_request_parts(&mut parts, &()).await.map_err(|e| e.code())
    }

    #[tokio::test]
    async fn extractor_reads_the_query_string() {
        assert_eq!(extract("").await, Ok(Page::default()));
        assert_eq!(extract("?offset=10&limit=5000&other=x").await, Ok(Page { offset: 10, limit: 1000 }));
        assert_eq!(extract("?limit=ten").await, Err(ErrorCode::BadRequest));
        assert_eq!(extract("?limit=1&limit=2").await, Err(ErrorCode::BadRequest));
    }

    #[test]
    fn envelope_echoes_the_page() {
        let page = Page { offset: 2, limit: 3 };
        let body = serde_json::to_value(page.envelope(vec!["a"], 9)).unwrap();
        assert_eq!(body, serde_json::json!({"items": ["a"], "total_count": 9, "offset": 2, "limit": 3}));
    }
}
