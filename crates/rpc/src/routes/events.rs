//! Event queries across emitters: `GET /events`, filtered by emitter address(es), topic(s) and a
//! height range, in chain order, cursor-paged.
//!
//! Every query is bounded before the node reads anything: at most [`EVENTS_EMITTERS_MAX`]
//! emitters and [`EVENTS_TOPICS_MAX`] topics (`emitter` and `topic` repeat, any of them
//! matching), a range of at most [`EVENTS_RANGE_BLOCKS_MAX`] blocks within what the node
//! indexes (below its first indexed height: 4002), a page of at most 1,000 events, and a scan
//! of at most [`EVENTS_SCAN_ENTRIES_MAX`] index entries (them included) and 4 MiB of records,
//! past which the page comes back short with a cursor to go on from (as `eth_getLogs`
//! providers bound a range and a result count). Each event names the receipt that holds it (`tx_hash`, `tx_index`,
//! `event_index`), so a client can check it against `/proof/receipt/{tx_hash}`.

use crate::{
    backend::{
        Backend,
        history::{EVENT_CURSOR_BYTES, EventQuery},
    },
    error::HttpError,
    extract::parse_address,
    limits::{
        EVENTS_EMITTERS_MAX, EVENTS_RANGE_BLOCKS_MAX, EVENTS_SCAN_ENTRIES_MAX, EVENTS_TOPIC_BYTES_MAX,
        EVENTS_TOPICS_MAX, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX,
    },
    openapi::errors,
    routes::history::{below_indexed, not_indexed},
    state::AppState,
};
use axum::{
    Json,
    extract::{RawQuery, State},
};
use drover_types::{
    Address, ErrorCode,
    api::{EventPage, IndexedRange, paths},
};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag(
        "events",
        "Events across emitters, by emitter, topic and height range",
    ))
    .routes(routes!(events))
}

/// Refusals of an event filter: bad parameters and bounds (1001), an emitter that is not an
/// address (3001), a range below the first indexed height (4002).
pub(crate) const EVENT_QUERY_ERRORS: &[ErrorCode] =
    &[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::NotIndexed];

/// What a filter of `GET /events` (or of an event stream) names, parsed and bounded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventFilter {
    pub(crate) emitters: Vec<Address>,
    pub(crate) topics: Vec<String>,
    pub(crate) from_height: Option<u64>,
    pub(crate) to_height: Option<u64>,
    pub(crate) cursor: Option<[u8; EVENT_CURSOR_BYTES]>,
    pub(crate) limit: Option<u64>,
}

fn bad(message: String) -> HttpError {
    HttpError::new(ErrorCode::BadRequest, message)
}

fn count(name: &str, text: &str) -> Result<u64, HttpError> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits
        .then(|| text.parse().ok())
        .flatten()
        .ok_or_else(|| bad(format!("query parameter `{name}` must be a non-negative integer, got {text:?}")))
}

/// An event cursor: 17 bytes of hex (`0x` optional).
pub(crate) fn parse_event_cursor(text: &str) -> Result<[u8; EVENT_CURSOR_BYTES], HttpError> {
    drover_types::hexfmt::decode(text)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| bad(format!("cursor must be {EVENT_CURSOR_BYTES} bytes of hex (an event's cursor)")))
}

impl EventFilter {
    /// Parses a query string: `emitter` and `topic` (each repeatable), `from_height`,
    /// `to_height`, `cursor`, `limit`; the names in `extra` are left to the caller. Anything else,
    /// a repeated single parameter or a list over its bound is refused (1001).
    pub(crate) fn parse(query: Option<&str>, extra: &[&str]) -> Result<(Self, Vec<(String, String)>), HttpError> {
        let mut filter = EventFilter::default();
        let mut rest = Vec::new();
        for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            let once = |slot: bool| {
                if slot { Err(bad(format!("query parameter `{name}` is given twice"))) } else { Ok(()) }
            };
            match name.as_ref() {
                "emitter" => {
                    if filter.emitters.len() == EVENTS_EMITTERS_MAX {
                        return Err(bad(format!("at most {EVENTS_EMITTERS_MAX} emitters per query")));
                    }
                    filter.emitters.push(parse_address(&value)?);
                }
                "topic" => {
                    if filter.topics.len() == EVENTS_TOPICS_MAX {
                        return Err(bad(format!("at most {EVENTS_TOPICS_MAX} topics per query")));
                    }
                    if value.len() > EVENTS_TOPIC_BYTES_MAX {
                        return Err(bad(format!("a topic is at most {EVENTS_TOPIC_BYTES_MAX} bytes")));
                    }
                    filter.topics.push(value.into_owned());
                }
                "from_height" => {
                    once(filter.from_height.is_some())?;
                    filter.from_height = Some(count(&name, &value)?);
                }
                "to_height" => {
                    once(filter.to_height.is_some())?;
                    filter.to_height = Some(count(&name, &value)?);
                }
                "cursor" => {
                    once(filter.cursor.is_some())?;
                    filter.cursor = Some(parse_event_cursor(&value)?);
                }
                "limit" => {
                    once(filter.limit.is_some())?;
                    filter.limit = Some(count(&name, &value)?);
                }
                other if extra.contains(&other) => rest.push((name.into_owned(), value.into_owned())),
                other => return Err(bad(format!("unknown query parameter `{other}`"))),
            }
        }
        Ok((filter, rest))
    }

    /// The query for the indexes within `range` (what the node holds): the range left open ends
    /// at the tip and spans [`EVENTS_RANGE_BLOCKS_MAX`] blocks; one reaching below the first
    /// indexed height is 4002, one wider than the bound or upside down is 1001.
    pub(crate) fn query(&self, range: &IndexedRange, limit: u64) -> Result<EventQuery, HttpError> {
        let to_height = self.to_height.unwrap_or(range.last_height).min(range.last_height);
        let from_height = self
            .from_height
            .unwrap_or_else(|| to_height.saturating_sub(EVENTS_RANGE_BLOCKS_MAX - 1).max(range.first_height));
        if below_indexed(from_height, range) {
            return Err(not_indexed(from_height, range.first_height));
        }
        if let Some(to) = self.to_height
            && from_height > to
        {
            return Err(bad(format!("from_height {from_height} is above to_height {to}")));
        }
        if to_height.saturating_sub(from_height) >= EVENTS_RANGE_BLOCKS_MAX {
            return Err(bad(format!(
                "heights {from_height}..={to_height} span more than {EVENTS_RANGE_BLOCKS_MAX} blocks: narrow the range"
            )));
        }
        Ok(EventQuery {
            emitters: self.emitters.clone(),
            topics: self.topics.clone(),
            from_height,
            to_height,
            after: self.cursor,
            limit,
            scan_max: EVENTS_SCAN_ENTRIES_MAX,
        })
    }
}

/// `GET /events`: a page of the events a filter selects, in chain order.
#[utoipa::path(
    get,
    path = paths::EVENTS,
    tag = "events",
    summary = "Events across emitters, by emitter, topic and height range, in chain order",
    description = "Events of successful transactions, timer fires and deliveries, filtered by emitters (any of them) and topics (any of them) within a height range. Left open, the range ends at the tip and spans 10,000 blocks (or starts at the first indexed height); an explicit one may span at most 10,000 blocks. A query examines at most 10,000 index entries (the events it answers included) and 4 MiB of event records: when either runs out first, the page comes back short with `next_cursor` to go on from. Each event names its receipt (`tx_hash`, `tx_index`) and its place in it (`event_index`), which `/proof/receipt/{tx_hash}` proves.",
    params(
        ("emitter" = Option<Vec<String>>, Query, description = "An emitter address (20 bytes of hex); repeat for up to 16, any matching."),
        ("topic" = Option<Vec<String>>, Query, description = "A topic (at most 64 bytes); repeat for up to 4, any matching."),
        ("from_height" = Option<u64>, Query, description = "First height, inclusive (default: see above)."),
        ("to_height" = Option<u64>, Query, description = "Last height, inclusive (default: the tip)."),
        ("cursor" = Option<String>, Query, pattern = "^(0[xX])?[0-9a-fA-F]{34}$", description = "The previous page's `next_cursor` (17 bytes of hex), with the same filter."),
        ("limit" = Option<u64>, Query, description = "Events per page: default 50, capped at 1,000."),
    ),
    responses((status = 200, description = "The events found and where to go on.", body = EventPage)),
    extensions(("x-errors" = json!(errors(EVENT_QUERY_ERRORS)))),
)]
pub async fn events<B: Backend>(
    State(state): State<AppState<B>>,
    RawQuery(query): RawQuery,
) -> Result<Json<EventPage>, HttpError> {
    let (filter, _) = EventFilter::parse(query.as_deref(), &[])?;
    let range = state.backend.indexed_range().await?;
    let limit = filter.limit.unwrap_or(PAGE_LIMIT_DEFAULT).clamp(1, PAGE_LIMIT_MAX);
    let query = filter.query(&range, limit)?;
    Ok(Json(state.backend.events(query).await?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{
        chain::mock::ChainMock,
        history::mock::{HistoryMock, indexed_event as event},
    };
    use crate::mock::*;
    use axum::http::StatusCode;

    fn mock(first_height: u64, tip: u64) -> MockBackend {
        let mock = MockBackend::with(|data: &mut HistoryMock| {
            data.first_height = first_height;
            let (a, b) = (Address([0xa; 20]), Address([0xb; 20]));
            data.events = vec![event(a, "x", 3, 0), event(b, "y", 3, 1), event(a, "y", 4, 0), event(b, "x", 6, 0)];
        });
        mock.edit(|chain: &mut ChainMock| chain.blocks.extend((1..=tip).map(block)));
        mock
    }

    fn topics(page: &serde_json::Value) -> Vec<String> {
        page["items"].as_array().unwrap().iter().map(|e| e["topic"].as_str().unwrap().to_owned()).collect()
    }

    #[tokio::test]
    async fn filters_by_emitters_topics_and_range_and_pages_by_cursor() {
        let mock = mock(1, 8);
        let app = app(&mock);
        let (a, b) = (Address([0xa; 20]), Address([0xb; 20]));
        let all = get(&app, "/events").await;
        assert_eq!(all.status, StatusCode::OK);
        let all = all.json();
        assert_eq!(topics(&all), ["x", "y", "y", "x"]);
        assert_eq!((all["from_height"].as_u64(), all["to_height"].as_u64()), (Some(1), Some(8)));
        assert_eq!(topics(&get(&app, &format!("/events?emitter={a}")).await.json()), ["x", "y"]);
        assert_eq!(topics(&get(&app, &format!("/events?emitter={a}&emitter={b}&topic=x")).await.json()), ["x", "x"]);
        assert_eq!(topics(&get(&app, "/events?from_height=4&to_height=5").await.json()), ["y"]);
        let first = get(&app, "/events?topic=y&limit=1").await.json();
        assert_eq!(topics(&first), ["y"]);
        let cursor = first["next_cursor"].as_str().unwrap();
        let rest = get(&app, &format!("/events?topic=y&cursor={cursor}")).await.json();
        assert_eq!((topics(&rest), rest["next_cursor"].is_null()), (vec!["y".to_owned()], true));
        // The node is asked with the scan budget and the range resolved.
        let asked = mock.read(|data: &HistoryMock| data.queries.last().cloned().unwrap());
        assert_eq!((asked.scan_max, asked.from_height, asked.to_height), (EVENTS_SCAN_ENTRIES_MAX, 1, 8));
    }

    #[tokio::test]
    async fn unbounded_or_malformed_queries_are_refused_before_any_read() {
        let mock = mock(3, 20_000);
        let app = app(&mock);
        let emitters: String =
            (0..=EVENTS_EMITTERS_MAX).map(|i| format!("emitter={}&", Address([i as u8; 20]))).collect();
        let long_topic = "t".repeat(EVENTS_TOPIC_BYTES_MAX + 1);
        for (query, code) in [
            (emitters.as_str(), ErrorCode::BadRequest),
            ("topic=a&topic=b&topic=c&topic=d&topic=e", ErrorCode::BadRequest),
            (&format!("topic={long_topic}"), ErrorCode::BadRequest),
            ("from_height=5000&to_height=15000", ErrorCode::BadRequest),
            ("from_height=9&to_height=8", ErrorCode::BadRequest),
            ("from_height=1&to_height=100", ErrorCode::NotIndexed),
            ("emitter=0x12", ErrorCode::InvalidAddress),
            ("cursor=00", ErrorCode::BadRequest),
            ("limit=1&limit=2", ErrorCode::BadRequest),
            ("from_height=-1", ErrorCode::BadRequest),
            ("sort=desc", ErrorCode::BadRequest),
        ] {
            let status = if code == ErrorCode::NotIndexed { 404 } else { code.http_status() };
            get(&app, &format!("/events?{query}")).await.assert_error(status, code);
        }
        assert!(mock.read(|data: &HistoryMock| data.queries.is_empty()), "nothing refused reached the node");
        // Left open, the range is the last 10,000 blocks.
        let page = get(&app, "/events").await.json();
        assert_eq!((page["from_height"].as_u64(), page["to_height"].as_u64()), (Some(10_001), Some(20_000)));
        // Genesis holds no events: height 0 is never below what a node indexes from block 1.
        let mock = self::mock(1, 5);
        assert_eq!(get(&crate::mock::app(&mock), "/events?from_height=0").await.status, StatusCode::OK);
    }
}
