//! Push streams as server-sent events, one stream per subscription: `GET /stream/blocks`
//! (finalized blocks: header, transaction hashes, meters), `GET /stream/tx/{hash}` (one message
//! when the transaction is finalized or the mempool drops it) and `GET /stream/events` (the
//! events a filter of `GET /events` selects, as blocks finalize).
//!
//! **Resumable.** Every message of the block and event streams carries an `id` (a height, an
//! event's cursor); a client that reconnects with `Last-Event-ID` gets what followed it (or
//! `from_height` says where to start; by default a stream starts with the next block). A stream
//! reads the node's indexes from its own cursor, so it catches up on any past blocks the node
//! holds, then follows the tip.
//!
//! **Bounded.** At most [`RpcConfig::stream_subscribers_max`] streams in all and
//! [`RpcConfig::stream_subscribers_per_client`] per client IP (one more is 429, code 1004).
//! Each stream holds at most [`STREAM_BUFFER_MESSAGES`] messages and [`STREAM_BUFFER_BYTES`]
//! bytes (or one message, however large) beyond what its connection is writing: while it
//! catches up it waits for room (its client sets the pace), and once caught up, a new block
//! whose messages do not fit closes it with a `closed` message naming the last id sent (a slow
//! consumer resumes from there). A client that stops reading altogether is cut by the
//! connection's write timeout. So the node holds at most a buffer per stream, whatever its
//! clients do. A stream's reads stop the moment its client leaves, not at its next message
//! (a filter that matches nothing sends none), and it keeps its place in the caps until its
//! reads have stopped and its buffer is gone. Delivery holds no lock the block commit needs: it
//! waits on the finalized-height watch and reads the indexes, and the message of a block near the tip (the same for every
//! block stream) is encoded once and shared.
//!
//! Messages are `event: <kind>`, `id: <id>` (block and event streams), `data: <JSON>`: `block`
//! ([`BlockSummary`] with its transaction hashes), `receipt` ([`ReceiptInfo`]) or `dropped`
//! ([`DroppedInfo`]), `event` ([`IndexedEvent`]), and `closed` ([`StreamClosed`]). A comment
//! line is sent every [`STREAM_KEEPALIVE_SECS`] of silence.
//!
//! [`RpcConfig::stream_subscribers_max`]: crate::RpcConfig::stream_subscribers_max
//! [`RpcConfig::stream_subscribers_per_client`]: crate::RpcConfig::stream_subscribers_per_client

use crate::{
    backend::{
        Backend,
        history::{EVENT_CURSOR_BYTES, EventQuery},
    },
    client::ClientId,
    error::HttpError,
    extract::HashParam,
    limits::{
        EVENTS_RANGE_BLOCKS_MAX, STREAM_BUFFER_BYTES, STREAM_BUFFER_MESSAGES, STREAM_CATCH_UP_PAGE,
        STREAM_CATCH_UP_PAUSE_MS, STREAM_CATCH_UP_SCAN_ENTRIES, STREAM_KEEPALIVE_SECS,
    },
    openapi::errors,
    routes::{
        events::{EVENT_QUERY_ERRORS, EventFilter, parse_event_cursor},
        history::{below_indexed, not_indexed},
    },
    state::AppState,
    streams::{Streams, Subscription, frame},
};
use axum::{
    body::Body,
    extract::{RawQuery, State},
    http::{HeaderMap, HeaderValue, header},
    response::Response,
};
use bytes::Bytes;
use drover_types::{
    ErrorCode, H256,
    api::{BlockSummary, DroppedInfo, IndexedEvent, ReceiptInfo, StreamClosed, paths},
    error::ApiError,
};
use std::{sync::Arc, time::Duration};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag(
        "streams",
        "Push streams (server-sent events): blocks, a transaction's outcome, events",
    ))
    .routes(routes!(blocks))
    .routes(routes!(transaction))
    .routes(routes!(events))
}

/// The `closed` message: why, and the last id sent.
fn closed(reason: impl Into<String>, last_event_id: Option<String>) -> Bytes {
    frame("closed", None, &StreamClosed { reason: reason.into(), last_event_id })
}

/// Ends a stream on a read that failed: an internal error is logged, and the client told only
/// to resume.
fn failed(error: impl Into<ApiError>, last_event_id: Option<String>) -> Stop {
    let error = error.into();
    let reason = if error.code == ErrorCode::Internal {
        tracing::warn!(%error, "a stream could not read the indexes");
        "the node could not read its indexes; reconnect with Last-Event-ID to resume".to_owned()
    } else {
        error.message
    };
    Stop::Close(closed(reason, last_event_id))
}

/// A message in a stream's buffer, holding its share of the buffer's bytes until it is sent.
type Queued = (Bytes, OwnedSemaphorePermit);

/// Where a stream delivers: the buffer (messages, and bytes as permits), whether the stream is
/// caught up, and the last id sent.
struct Outlet {
    messages: mpsc::Sender<Queued>,
    bytes: Arc<Semaphore>,
    last: oneshot::Sender<Bytes>,
    live: bool,
    last_id: Option<String>,
}

/// The permits a message of `len` bytes takes from a stream's byte budget: its length, or the
/// whole budget for a message larger than it (one message always fits).
fn permits(len: usize) -> u32 {
    u32::try_from(len.clamp(1, STREAM_BUFFER_BYTES)).unwrap_or(u32::MAX)
}

/// Why a stream's producer stopped.
enum Stop {
    /// The client went away: nothing more to say.
    Gone,
    /// The node ends the stream with this `closed` message.
    Close(Bytes),
}

impl Outlet {
    /// Queues one message with id `id`: waiting for room while catching up, at once when live
    /// (a full buffer then closes the stream: a slow consumer).
    async fn send(&mut self, message: Bytes, id: Option<String>) -> Result<(), Stop> {
        let wanted = permits(message.len());
        if self.live {
            let slow = || {
                Stop::Close(closed(
                    format!(
                        "slow consumer: {STREAM_BUFFER_MESSAGES} messages or {STREAM_BUFFER_BYTES} bytes were waiting \
                         for the client when a new block came; reconnect with Last-Event-ID to resume"
                    ),
                    self.last_id.clone(),
                ))
            };
            let Ok(permit) = Arc::clone(&self.bytes).try_acquire_many_owned(wanted) else { return Err(slow()) };
            match self.messages.try_send((message, permit)) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(_)) => return Err(slow()),
                Err(mpsc::error::TrySendError::Closed(_)) => return Err(Stop::Gone),
            }
        } else {
            let permit = tokio::select! {
                permit = Arc::clone(&self.bytes).acquire_many_owned(wanted) => permit.map_err(|_| Stop::Gone)?,
                () = self.messages.closed() => return Err(Stop::Gone),
            };
            if self.messages.send((message, permit)).await.is_err() {
                return Err(Stop::Gone);
            }
        }
        if id.is_some() {
            self.last_id = id;
        }
        Ok(())
    }

    /// Waits for the next finalized block, or the client leaving.
    async fn next_block(&mut self, heights: &mut tokio::sync::watch::Receiver<u64>) -> Result<(), Stop> {
        self.live = true;
        tokio::select! {
            changed = heights.changed() => changed.map_err(|_| Stop::Close(closed("the node is shutting down", self.last_id.clone()))),
            () = self.messages.closed() => Err(Stop::Gone),
        }
    }

    fn finish(self, stop: Stop) {
        if let Stop::Close(message) = stop {
            // The receiver is gone when the client is: nothing to tell then.
            let _ = self.last.send(message);
        }
    }
}

/// The response of a stream fed by `produce`, which runs in a task of its own until it stops
/// or the client leaves, whichever comes first: a producer walking the indexes for a filter
/// that matches nothing sends nothing, so it would only see the client gone at its next send,
/// reading page after page for no one meanwhile. The stream keeps its place in the caps
/// (`subscription`) until both the task and the body have ended.
fn stream<F, Fut>(subscription: Subscription, produce: F) -> Response
where
    F: FnOnce(Outlet) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (messages, received) = mpsc::channel::<Queued>(STREAM_BUFFER_MESSAGES);
    let (last, last_received) = oneshot::channel();
    let bytes = Arc::new(Semaphore::new(STREAM_BUFFER_BYTES));
    let client = messages.clone();
    let producer = produce(Outlet { messages, bytes, last, live: false, last_id: None });
    // Held by the producer and by the body alike: the place is given back once both are done
    // (the body may still be sending its buffer to a slow client after the producer stopped).
    let subscription = Arc::new(subscription);
    let producing = Arc::clone(&subscription);
    tokio::spawn(async move {
        let _subscription = producing;
        tokio::select! {
            () = producer => {}
            () = client.closed() => {}
        }
    });
    let keepalive = Duration::from_secs(STREAM_KEEPALIVE_SECS);
    // One timer for the stream's life, moved on only when it fires early (a message was sent
    // meanwhile): a timer armed and dropped for every message costs a timer-wheel insertion and
    // removal per stream for every block.
    let silence = Box::pin(tokio::time::sleep(keepalive));
    let state = (received, Some(last_received), subscription, silence, tokio::time::Instant::now());
    let body = futures::stream::unfold(
        state,
        move |(mut received, last, subscription, mut silence, mut sent)| async move {
            loop {
                tokio::select! {
                    biased;
                    message = received.recv() => match message {
                        // The message leaves the buffer: its bytes are the connection's now.
                        Some((message, _permit)) => {
                            sent = tokio::time::Instant::now();
                            return Some((Ok::<_, std::convert::Infallible>(message), (received, last, subscription, silence, sent)));
                        }
                        // The producer is done: its `closed` message, if any, is the last.
                        None => {
                            return match last?.await {
                                Ok(message) => Some((Ok(message), (received, None, subscription, silence, sent))),
                                Err(_) => None,
                            };
                        }
                    },
                    () = &mut silence => {
                        let now = tokio::time::Instant::now();
                        if now < sent + keepalive {
                            silence.as_mut().reset(sent + keepalive);
                            continue;
                        }
                        silence.as_mut().reset(now + keepalive);
                        sent = now;
                        return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), (received, last, subscription, silence, sent)));
                    }
                }
            }
        },
    );
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies that buffer answers would hold the messages back.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The `Last-Event-ID` header, if present (1001 when it is not text).
fn last_event_id(headers: &HeaderMap) -> Result<Option<String>, HttpError> {
    headers
        .get("last-event-id")
        .map(|value| {
            value
                .to_str()
                .map(|text| text.trim().to_owned())
                .map_err(|_| HttpError::new(ErrorCode::BadRequest, "Last-Event-ID is not text"))
        })
        .transpose()
}

/// A `from_height` query value.
fn from_height(pairs: &[(String, String)]) -> Result<Option<u64>, HttpError> {
    let mut found = None;
    for (_, value) in pairs.iter().filter(|(name, _)| name == "from_height") {
        if found.is_some() {
            return Err(HttpError::new(ErrorCode::BadRequest, "query parameter `from_height` is given twice"));
        }
        let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
        found = Some(digits.then(|| value.parse().ok()).flatten().ok_or_else(|| {
            HttpError::new(ErrorCode::BadRequest, format!("from_height must be a height, got {value:?}"))
        })?);
    }
    Ok(found)
}

/// `GET /stream/blocks`: every finalized block, as it finalizes.
#[utoipa::path(
    get,
    path = paths::STREAM_BLOCKS,
    tag = "streams",
    summary = "Finalized blocks as they finalize (server-sent events)",
    description = "One `block` message per finalized block (header fields, counts, meters and transaction hashes), its `id` the height. Starts with the next block, at `from_height`, or after the height in `Last-Event-ID` (what a reconnecting client sends). A caught-up stream whose client lets 1,024 messages or 1 MiB wait is closed with a `closed` message naming the last id sent. At most `RPC_STREAM_SUBSCRIBERS_MAX` streams in all and `RPC_STREAM_SUBSCRIBERS_PER_CLIENT` per client IP (429 beyond).",
    params(
        ("from_height" = Option<u64>, Query, description = "First height to send (default: the next block)."),
        ("Last-Event-ID" = Option<String>, Header, description = "The last height received: the stream goes on after it."),
    ),
    responses((status = 200, description = "A `text/event-stream` of `block` messages (and `closed` when the node ends it).", body = BlockSummary, content_type = "text/event-stream")),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotIndexed])))),
)]
pub async fn blocks<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, HttpError> {
    let pairs: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    if let Some((name, _)) = pairs.iter().find(|(name, _)| name != "from_height") {
        return Err(HttpError::new(ErrorCode::BadRequest, format!("unknown query parameter `{name}`")));
    }
    let range = state.backend.indexed_range().await?;
    let first = match (last_event_id(&headers)?, from_height(&pairs)?) {
        (Some(id), _) => {
            let height: u64 = id
                .parse()
                .map_err(|_| HttpError::new(ErrorCode::BadRequest, "Last-Event-ID of a block stream is a height"))?;
            height.saturating_add(1)
        }
        (None, Some(height)) => height,
        (None, None) => range.last_height.saturating_add(1),
    };
    if below_indexed(first, &range) && first <= range.last_height {
        return Err(not_indexed(first, range.first_height));
    }
    let subscription = state.streams.subscribe(client)?;
    let (backend, streams) = (state.backend.clone(), Arc::clone(&state.streams));
    Ok(stream(subscription, move |mut outlet| async move {
        let stop = follow_blocks(&backend, &streams, &mut outlet, first.max(1)).await;
        outlet.finish(stop);
    }))
}

async fn follow_blocks<B: Backend>(backend: &B, streams: &Streams, outlet: &mut Outlet, mut next: u64) -> Stop {
    let mut heights = backend.finalized_heights();
    loop {
        let tip = *heights.borrow_and_update();
        while next <= tip {
            let frame = match streams.block_frame(backend, next, tip).await {
                Ok(Some(frame)) => frame,
                Ok(None) => return Stop::Close(closed(format!("block {next} is not indexed"), outlet.last_id.clone())),
                Err(e) => return failed(e, outlet.last_id.clone()),
            };
            if let Err(stop) = outlet.send(frame, Some(next.to_string())).await {
                return stop;
            }
            next += 1;
        }
        if let Err(stop) = outlet.next_block(&mut heights).await {
            return stop;
        }
    }
}

/// `GET /stream/tx/{hash}`: one message when the transaction is finalized or dropped.
#[utoipa::path(
    get,
    path = paths::STREAM_TRANSACTION,
    tag = "streams",
    summary = "A transaction's outcome, once (server-sent events)",
    description = "One `receipt` message (the receipt) when the transaction is finalized — at once if it already is — or one `dropped` message (the reason) when the mempool drops it; then the stream ends. Checked at every finalized block.",
    params(("hash" = String, Path, description = "Transaction hash (32 bytes of hex).")),
    responses((status = 200, description = "A `text/event-stream` of one `receipt` or `dropped` message.", body = ReceiptInfo, content_type = "text/event-stream")),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn transaction<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
    HashParam(hash): HashParam,
) -> Result<Response, HttpError> {
    let subscription = state.streams.subscribe(client)?;
    let backend = state.backend.clone();
    Ok(stream(subscription, move |mut outlet| async move {
        let stop = follow_transaction(&backend, &mut outlet, hash).await;
        outlet.finish(stop);
    }))
}

async fn follow_transaction<B: Backend>(backend: &B, outlet: &mut Outlet, hash: H256) -> Stop {
    let mut heights = backend.finalized_heights();
    loop {
        heights.borrow_and_update();
        let message = match backend.receipt(hash).await {
            Ok(Some(receipt)) => Some(frame("receipt", None, &ReceiptInfo::from(&receipt))),
            Ok(None) => {
                backend.dropped_reason(hash).map(|reason| frame("dropped", None, &DroppedInfo { hash, reason }))
            }
            Err(e) => return failed(e, None),
        };
        if let Some(message) = message {
            // Its one message sent, the stream ends.
            return outlet.send(message, None).await.err().unwrap_or(Stop::Gone);
        }
        if let Err(stop) = outlet.next_block(&mut heights).await {
            return stop;
        }
    }
}

/// `GET /stream/events`: the events a filter selects, as blocks finalize.
#[utoipa::path(
    get,
    path = paths::STREAM_EVENTS,
    tag = "streams",
    summary = "Events matching a filter, as blocks finalize (server-sent events)",
    description = "One `event` message per event the filter selects (`emitter` and `topic` as in `GET /events`), its `id` the event's cursor. Starts with the next block, at `from_height`, or after the event in `Last-Event-ID`, at most 10,000 blocks below the tip (older events: `GET /events`); catches up a page at a time, paced. Bounded like the block stream.",
    params(
        ("emitter" = Option<Vec<String>>, Query, description = "An emitter address; repeat for up to 16, any matching."),
        ("topic" = Option<Vec<String>>, Query, description = "A topic; repeat for up to 4, any matching."),
        ("from_height" = Option<u64>, Query, description = "First height to send events of (default: the next block)."),
        ("Last-Event-ID" = Option<String>, Header, description = "The last event's cursor received: the stream goes on after it."),
    ),
    responses((status = 200, description = "A `text/event-stream` of `event` messages (and `closed` when the node ends it).", body = IndexedEvent, content_type = "text/event-stream")),
    extensions(("x-errors" = json!(errors(EVENT_QUERY_ERRORS)))),
)]
pub async fn events<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, HttpError> {
    let (filter, _) = EventFilter::parse(query.as_deref(), &[])?;
    if filter.to_height.is_some() || filter.cursor.is_some() || filter.limit.is_some() {
        return Err(HttpError::new(
            ErrorCode::BadRequest,
            "a stream takes emitter, topic and from_height (it resumes with Last-Event-ID)",
        ));
    }
    let range = state.backend.indexed_range().await?;
    let after = last_event_id(&headers)?.map(|id| parse_event_cursor(&id)).transpose()?;
    let first = match (after, filter.from_height) {
        (Some(after), _) => u64::from_be_bytes(after[..8].try_into().unwrap_or_default()),
        (None, Some(height)) => height,
        (None, None) => range.last_height.saturating_add(1),
    };
    if below_indexed(first, &range) && first <= range.last_height {
        return Err(not_indexed(first, range.first_height));
    }
    // A stream catches up over at most one query's range; older events are paged by GET /events.
    let oldest = range.last_height.saturating_sub(EVENTS_RANGE_BLOCKS_MAX - 1);
    if first < oldest {
        return Err(HttpError::new(
            ErrorCode::BadRequest,
            format!(
                "an event stream starts at most {EVENTS_RANGE_BLOCKS_MAX} blocks below the tip (height {oldest}); read \
                 older events with GET /events"
            ),
        ));
    }
    let subscription = state.streams.subscribe(client)?;
    let backend = state.backend.clone();
    Ok(stream(subscription, move |mut outlet| async move {
        let stop = follow_events(&backend, &mut outlet, filter, first, after).await;
        outlet.finish(stop);
    }))
}

async fn follow_events<B: Backend>(
    backend: &B,
    outlet: &mut Outlet,
    filter: EventFilter,
    mut from: u64,
    mut after: Option<[u8; EVENT_CURSOR_BYTES]>,
) -> Stop {
    let mut heights = backend.finalized_heights();
    loop {
        let tip = *heights.borrow_and_update();
        // Windows of at most the query's range, each read a page at a time, paced.
        let mut paced = false;
        while from <= tip {
            if std::mem::replace(&mut paced, true) {
                tokio::time::sleep(Duration::from_millis(STREAM_CATCH_UP_PAUSE_MS)).await;
            }
            let to = tip.min(from.saturating_add(EVENTS_RANGE_BLOCKS_MAX - 1));
            let query = EventQuery {
                emitters: filter.emitters.clone(),
                topics: filter.topics.clone(),
                from_height: from,
                to_height: to,
                after,
                limit: STREAM_CATCH_UP_PAGE,
                scan_max: STREAM_CATCH_UP_SCAN_ENTRIES,
            };
            let page = match backend.events(query).await {
                Ok(page) => page,
                Err(e) => return failed(e, outlet.last_id.clone()),
            };
            for event in page.items {
                let message = frame("event", Some(&event.cursor), &event);
                if let Err(stop) = outlet.send(message, Some(event.cursor)).await {
                    return stop;
                }
            }
            match page.next_cursor.as_deref().map(parse_event_cursor) {
                Some(Ok(next)) => after = Some(next),
                Some(Err(e)) => return failed(e, outlet.last_id.clone()),
                None => from = to.saturating_add(1),
            }
        }
        if let Err(stop) = outlet.next_block(&mut heights).await {
            return stop;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RpcConfig;
    use crate::backend::{
        chain::mock::ChainMock,
        history::mock::{HistoryMock, indexed_event as event},
        transactions::mock::{TransactionsMock, include},
    };
    use crate::mock::*;
    use axum::{
        body::Body,
        http::{Request, StatusCode},
    };
    use futures::StreamExt as _;
    use tower::ServiceExt as _;

    /// An open stream's body, read a message at a time.
    struct Reader {
        body: axum::body::BodyDataStream,
        buffer: String,
    }

    impl Reader {
        /// The next message's `(event, id, data)`, skipping comments; `None` at the end.
        async fn next(&mut self) -> Option<(String, Option<String>, serde_json::Value)> {
            loop {
                if let Some(end) = self.buffer.find("\n\n") {
                    let block: String = self.buffer.drain(..end + 2).collect();
                    let field = |name: &str| {
                        block.lines().find_map(|line| line.strip_prefix(name).map(|v| v.trim_start().to_owned()))
                    };
                    let Some(data) = field("data:") else { continue };
                    let event = field("event:").expect("every message names its kind");
                    return Some((event, field("id:"), serde_json::from_str(&data).expect("JSON data")));
                }
                let chunk = tokio::time::timeout(Duration::from_secs(5), self.body.next())
                    .await
                    .expect("a message within 5 s")?
                    .expect("the body reads");
                self.buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
            }
        }
    }

    async fn open(app: &axum::Router, uri: &str, last_event_id: Option<&str>) -> Result<Reader, (StatusCode, Vec<u8>)> {
        let mut request = Request::get(uri);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = app.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        if response.status() != StatusCode::OK {
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec();
            return Err((status, body));
        }
        assert_eq!(response.headers()[header::CONTENT_TYPE], "text/event-stream");
        Ok(Reader { body: response.into_body().into_data_stream(), buffer: String::new() })
    }

    /// A chain of blocks 1..=`tip` whose watch says so.
    fn chain(tip: u64) -> MockBackend {
        let mock = MockBackend::with(|data: &mut HistoryMock| data.first_height = 1);
        mock.edit(|chain: &mut ChainMock| chain.blocks.extend((1..tip).map(block)));
        include(&mock, &[]);
        mock
    }

    #[tokio::test]
    async fn a_block_stream_catches_up_follows_the_tip_and_resumes_after_its_last_id() {
        let mock = chain(3);
        let app = app(&mock);
        let mut stream = open(&app, "/stream/blocks?from_height=1", None).await.unwrap();
        for height in 1..=3u64 {
            let (event, id, data) = stream.next().await.unwrap();
            assert_eq!((event.as_str(), id), ("block", Some(height.to_string())));
            assert_eq!(data["height"], height);
            assert!(data["transactions"].is_array(), "a streamed block carries its hashes");
        }
        include(&mock, &[]);
        assert_eq!(stream.next().await.unwrap().1.as_deref(), Some("4"));

        // A client that lost its connection after block 2 resumes with block 3.
        let mut resumed = open(&app, "/stream/blocks", Some("2")).await.unwrap();
        let ids: Vec<_> = [resumed.next().await.unwrap().1, resumed.next().await.unwrap().1].into();
        assert_eq!(ids, [Some("3".to_owned()), Some("4".to_owned())]);
        // By default a stream starts with the next block.
        let mut fresh = open(&app, "/stream/blocks", None).await.unwrap();
        include(&mock, &[]);
        assert_eq!(fresh.next().await.unwrap().1.as_deref(), Some("5"));
    }

    #[tokio::test]
    async fn a_slow_consumer_is_closed_with_its_last_id_and_resumes_from_it() {
        let mock = chain(1);
        let app = app(&mock);
        let mut stream = open(&app, "/stream/blocks", None).await.unwrap();
        // The client reads nothing while more blocks finalize than its buffer holds.
        for _ in 0..STREAM_BUFFER_MESSAGES + 10 {
            include(&mock, &[]);
            tokio::task::yield_now().await;
        }
        let mut last = None;
        let closed = loop {
            let (event, id, data) = stream.next().await.expect("the stream ends with a `closed` message");
            if event == "closed" {
                break data;
            }
            last = id;
        };
        assert!(closed["reason"].as_str().unwrap().contains("slow consumer"), "{closed}");
        assert_eq!(closed["last_event_id"].as_str(), last.as_deref());
        assert!(stream.next().await.is_none(), "nothing follows `closed`");
        let last: u64 = last.unwrap().parse().unwrap();
        assert!(last < STREAM_BUFFER_MESSAGES as u64 + 10);
        let mut resumed = open(&app, "/stream/blocks", Some(&last.to_string())).await.unwrap();
        assert_eq!(resumed.next().await.unwrap().1, Some((last + 1).to_string()));
    }

    #[tokio::test]
    async fn a_stream_holds_at_most_its_byte_budget() {
        // Twenty blocks of 2,000 transactions each, about 140 KB a message, not yet announced.
        let mock = MockBackend::with(|data: &mut HistoryMock| data.first_height = 1);
        mock.edit(|chain: &mut ChainMock| {
            chain.blocks.extend((1..=20).map(|height| {
                let mut block = block(height);
                block.transactions = vec![H256([height as u8; 32]); 2_000];
                block
            }));
        });
        let app = app(&mock);
        let mut stream = open(&app, "/stream/blocks?from_height=1", None).await.unwrap();
        // Caught up on nothing (the watch says 0), the stream is live when they all finalize.
        tokio::time::sleep(Duration::from_millis(50)).await;
        include(&mock, &[]);
        let mut received = 0;
        let closed = loop {
            let (event, _, data) = stream.next().await.expect("a `closed` message");
            if event == "closed" {
                break data;
            }
            received += 1;
        };
        assert!(closed["reason"].as_str().unwrap().contains("slow consumer"), "{closed}");
        let frame_bytes = 2_000 * 67;
        assert!(received * frame_bytes <= STREAM_BUFFER_BYTES + frame_bytes, "{received} messages held");
        assert!(received >= 2, "{received}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_stream_gets_a_comment_after_each_keepalive_period_of_silence() {
        let mock = chain(1);
        let response = app(&mock).oneshot(Request::get("/stream/blocks").body(Body::empty()).unwrap()).await.unwrap();
        let mut body = response.into_body().into_data_stream();
        let started = tokio::time::Instant::now();
        let mut next = async || {
            let chunk = body.next().await.unwrap().unwrap();
            (String::from_utf8(chunk.to_vec()).unwrap(), started.elapsed().as_secs())
        };
        tokio::time::sleep(Duration::from_secs(10)).await;
        include(&mock, &[]);
        let (block, at) = next().await;
        assert!(block.starts_with("id: 2\n"), "{block}");
        assert_eq!(at, 10);
        // The silence is counted from the block, not from the stream's start.
        let keepalive = STREAM_KEEPALIVE_SECS;
        assert_eq!(next().await, (": keep-alive\n\n".to_owned(), 10 + keepalive));
        assert_eq!(next().await, (": keep-alive\n\n".to_owned(), 10 + 2 * keepalive));
    }

    #[tokio::test]
    async fn streams_are_capped_in_all_and_per_client() {
        let mock = chain(1);
        let config = RpcConfig { stream_subscribers_per_client: 2, ..RpcConfig::default() };
        let app = api(mock.clone(), config);
        let first = open(&app, "/stream/blocks", None).await.unwrap();
        let _second = open(&app, &format!("/stream/tx/{}", H256::ZERO), None).await.unwrap();
        let (status, body) = open(&app, "/stream/blocks", None).await.err().expect("a third stream is refused");
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{}", String::from_utf8_lossy(&body));
        // Closing one gives its place back.
        drop(first);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(open(&app, "/stream/blocks", None).await.is_ok());
        let app = api(mock, RpcConfig { stream_subscribers_max: 1, ..RpcConfig::default() });
        let _only = open(&app, "/stream/blocks", None).await.unwrap();
        assert_eq!(open(&app, "/stream/blocks", None).await.err().unwrap().0, StatusCode::TOO_MANY_REQUESTS);
    }

    #[tokio::test]
    async fn a_transaction_stream_sends_its_outcome_once() {
        let mock = chain(1);
        let app = app(&mock);
        let tx = verified(0, 0);
        mock.edit(|data: &mut TransactionsMock| {
            data.pending.insert(tx.hash, tx.clone());
        });
        let mut pending = open(&app, &format!("/stream/tx/{}", tx.hash), None).await.unwrap();
        include(&mock, &[tx.hash]);
        let (event, _, receipt) = pending.next().await.unwrap();
        assert_eq!((event.as_str(), receipt["status"].as_str()), ("receipt", Some("success")));
        assert!(pending.next().await.is_none());
        // Already finalized: at once.
        let mut done = open(&app, &format!("/stream/tx/{}", tx.hash), None).await.unwrap();
        assert_eq!(done.next().await.unwrap().0, "receipt");
        let dropped = H256([7; 32]);
        mock.edit(|data: &mut TransactionsMock| {
            data.dropped.insert(dropped, "replaced".into());
        });
        let mut gone = open(&app, &format!("/stream/tx/{dropped}"), None).await.unwrap();
        let (event, _, data) = gone.next().await.unwrap();
        assert_eq!((event.as_str(), data["reason"].as_str()), ("dropped", Some("replaced")));
    }

    #[tokio::test]
    async fn an_event_stream_follows_its_filter_and_resumes_after_an_event() {
        let mock = chain(4);
        let (a, b) = (drover_types::Address([0xa; 20]), drover_types::Address([0xb; 20]));
        mock.edit(|data: &mut HistoryMock| {
            data.events = vec![event(a, "x", 2, 0), event(b, "x", 2, 1), event(a, "y", 3, 0), event(a, "x", 4, 0)]
        });
        let app = app(&mock);
        let mut stream = open(&app, &format!("/stream/events?emitter={a}&topic=x&from_height=1"), None).await.unwrap();
        let (_, first, _) = stream.next().await.unwrap();
        let (_, second, data) = stream.next().await.unwrap();
        assert_eq!(data["block_height"], 4);
        let mut resumed = open(&app, &format!("/stream/events?emitter={a}&topic=x"), first.as_deref()).await.unwrap();
        assert_eq!(resumed.next().await.unwrap().1, second);
        // A new block's events arrive as it finalizes.
        mock.edit(|data: &mut HistoryMock| data.events.push(event(a, "x", 5, 0)));
        include(&mock, &[]);
        assert_eq!(stream.next().await.unwrap().2["block_height"], 5);
        for refused in ["limit=5", "to_height=3", "cursor=00", "emitter=0x1"] {
            assert!(open(&app, &format!("/stream/events?{refused}"), None).await.is_err(), "{refused}");
        }
        assert!(open(&app, "/stream/events", Some("zz")).await.is_err());
    }

    /// A client that leaves while its event stream walks past events its filter does not take
    /// (so nothing is sent that would notice) stops the walk and frees its place at once.
    #[tokio::test(start_paused = true)]
    async fn an_event_stream_whose_client_left_stops_reading() {
        let mock = chain(3);
        let emitter = drover_types::Address([0xa; 20]);
        let pages = 20;
        let unwanted: Vec<IndexedEvent> = (0..pages * STREAM_CATCH_UP_SCAN_ENTRIES as u32)
            .map(|index| event(emitter, "unwanted", 2, index))
            .collect();
        mock.edit(|data: &mut HistoryMock| data.events = unwanted);
        let config = RpcConfig { stream_subscribers_per_client: 1, ..RpcConfig::default() };
        let app = crate::mock::api(mock.clone(), config);
        let queries = || mock.read(|data: &HistoryMock| data.queries.len());
        let stream =
            open(&app, &format!("/stream/events?emitter={emitter}&topic=wanted&from_height=1"), None).await.unwrap();
        tokio::time::sleep(Duration::from_millis(3 * STREAM_CATCH_UP_PAUSE_MS)).await;
        let walked = queries();
        assert!(walked > 1 && walked < pages as usize, "the walk is under way: {walked} pages");
        drop(stream);
        tokio::time::sleep(Duration::from_millis(u64::from(pages) * STREAM_CATCH_UP_PAUSE_MS)).await;
        assert!(queries() <= walked + 1, "{} pages read after the client left at {walked}", queries());
        // Its place is free: the client's only stream may open again.
        assert!(open(&app, "/stream/blocks", None).await.is_ok());
    }

    #[tokio::test]
    async fn an_event_stream_catches_up_over_one_query_range_at_most() {
        let tip = EVENTS_RANGE_BLOCKS_MAX + 5;
        let app = app(&chain(tip));
        let oldest = tip - (EVENTS_RANGE_BLOCKS_MAX - 1);
        let (status, body) =
            open(&app, &format!("/stream/events?from_height={}", oldest - 1), None).await.err().unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST, "{}", String::from_utf8_lossy(&body));
        assert!(String::from_utf8_lossy(&body).contains("GET /events"));
        // The same through Last-Event-ID: a cursor of an event at height 1.
        let mut cursor = [0u8; EVENT_CURSOR_BYTES];
        cursor[..8].copy_from_slice(&1u64.to_be_bytes());
        assert_eq!(
            open(&app, "/stream/events", Some(&hex::encode(cursor))).await.err().unwrap().0,
            StatusCode::BAD_REQUEST
        );
        assert!(open(&app, &format!("/stream/events?from_height={oldest}"), None).await.is_ok());
    }

    #[tokio::test]
    async fn a_start_below_the_first_indexed_height_is_4002() {
        let mock = chain(9);
        mock.edit(|data: &mut HistoryMock| data.first_height = 5);
        let app = app(&mock);
        let (status, body) = open(&app, "/stream/blocks?from_height=2", None).await.err().unwrap();
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(String::from_utf8_lossy(&body).contains("not_indexed"));
        assert!(open(&app, "/stream/blocks", Some("3")).await.is_err());
        assert!(open(&app, "/stream/blocks?from_height=5", None).await.is_ok());
        assert!(open(&app, "/stream/blocks?from_height=x", None).await.is_err());
        assert!(open(&app, "/stream/blocks?height=5", None).await.is_err());
    }
}
