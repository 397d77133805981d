//! History: the client's methods for the routes of `drover-rpc`'s `routes::history`, `events`
//! and `stream`: account history, the block list, event queries and push streams.
//!
//! A stream ([`Client::stream_blocks`], [`Client::stream_transaction`],
//! [`Client::stream_events`]) is a [`Subscription`]: server-sent events read as they come, each
//! decoded into a [`StreamMessage`], with the id of the last one kept so that a closed stream
//! can be opened again from there ([`Subscription::last_event_id`]). A stream has no overall
//! timeout (the node sends a comment line at least every 15 s; [`STREAM_IDLE_SECS_MAX`] of
//! silence ends it), and one message is read up to [`RESPONSE_BYTES_MAX`].

use super::{Client, RESPONSE_BYTES_MAX, excerpt};
use crate::error::ClientError;
use drover_types::{
    Address, H256,
    api::{
        BlockPage, BlockSummary, DroppedInfo, EventPage, HistoryPage, IndexedEvent, IndexedRange, ReceiptInfo,
        StreamClosed, paths, paths::fill,
    },
};
use std::time::Duration;

/// Longest silence a stream tolerates before it counts the connection as lost, in seconds
/// (the node sends a comment line every 15 s of silence).
pub const STREAM_IDLE_SECS_MAX: u64 = 60;
/// Time allowed to connect for a stream, in seconds.
const STREAM_CONNECT_SECS: u64 = 10;

/// What an event query selects (empty lists select any).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Emitted by one of these (at most 16).
    pub emitters: Vec<Address>,
    /// With one of these topics (at most 4).
    pub topics: Vec<String>,
    /// First height (default: see `GET /events`).
    pub from_height: Option<u64>,
    /// Last height (default: the tip); ignored by streams.
    pub to_height: Option<u64>,
}

impl EventFilter {
    /// The filter's query parameters, percent-encoded.
    fn query(&self) -> form_urlencoded::Serializer<'static, String> {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for emitter in &self.emitters {
            query.append_pair("emitter", &emitter.to_hex());
        }
        for topic in &self.topics {
            query.append_pair("topic", topic);
        }
        if let Some(height) = self.from_height {
            query.append_pair("from_height", &height.to_string());
        }
        query
    }
}

/// One message of a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamMessage {
    /// A finalized block (`/stream/blocks`).
    Block(BlockSummary),
    /// The transaction's receipt (`/stream/tx/{hash}`).
    Receipt(ReceiptInfo),
    /// The mempool dropped the transaction (`/stream/tx/{hash}`).
    Dropped(DroppedInfo),
    /// An event the filter selects (`/stream/events`).
    Event(IndexedEvent),
    /// The node closed the stream: why, and the last id it sent.
    Closed(StreamClosed),
}

/// An open stream; see the module documentation.
pub struct Subscription {
    url: String,
    response: reqwest::Response,
    buffer: Vec<u8>,
    last_event_id: Option<String>,
}

/// One server-sent event as received.
struct Frame {
    event: String,
    id: Option<String>,
    data: String,
}

/// The event in `block` (the lines of one message, without the blank line that ends it); `None`
/// for a comment or an empty message.
fn parse_frame(block: &str) -> Option<Frame> {
    let mut frame = Frame { event: "message".to_owned(), id: None, data: String::new() };
    let mut has_data = false;
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => frame.event = value.to_owned(),
            "id" => frame.id = Some(value.to_owned()),
            "data" => {
                if has_data {
                    frame.data.push('\n');
                }
                frame.data.push_str(value);
                has_data = true;
            }
            _ => {}
        }
    }
    has_data.then_some(frame)
}

impl Subscription {
    /// The id of the last message received: pass it to open the stream again from there.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The next message; `None` when the node ended the stream (after a `closed` message, or
    /// after a transaction stream's one message).
    pub async fn next(&mut self) -> Result<Option<StreamMessage>, ClientError> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&block).replace('\r', "");
                if let Some(frame) = parse_frame(&text) {
                    if let Some(id) = &frame.id {
                        self.last_event_id = Some(id.clone());
                    }
                    return self.decode(frame).map(Some);
                }
                continue;
            }
            if self.buffer.len() > RESPONSE_BYTES_MAX {
                return Err(ClientError::BodyTooLarge {
                    url: self.url.clone(),
                    status: 200,
                    limit_bytes: RESPONSE_BYTES_MAX,
                });
            }
            let chunk = tokio::time::timeout(Duration::from_secs(STREAM_IDLE_SECS_MAX), self.response.chunk()).await;
            let chunk = chunk.map_err(|_| ClientError::UnexpectedResponse {
                url: self.url.clone(),
                status: 200,
                reason: format!("the stream was silent for {STREAM_IDLE_SECS_MAX} s"),
            })?;
            match chunk.map_err(|source| ClientError::Transport { url: self.url.clone(), source })? {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => return Ok(None),
            }
        }
    }

    fn decode(&self, frame: Frame) -> Result<StreamMessage, ClientError> {
        let bad = |reason: String| ClientError::UnexpectedResponse { url: self.url.clone(), status: 200, reason };
        let data = frame.data.as_bytes();
        let parsed = match frame.event.as_str() {
            "block" => serde_json::from_slice(data).map(StreamMessage::Block),
            "receipt" => serde_json::from_slice(data).map(StreamMessage::Receipt),
            "dropped" => serde_json::from_slice(data).map(StreamMessage::Dropped),
            "event" => serde_json::from_slice(data).map(StreamMessage::Event),
            "closed" => serde_json::from_slice(data).map(StreamMessage::Closed),
            other => return Err(bad(format!("unknown stream message {other:?}"))),
        };
        parsed.map_err(|e| bad(format!("a {} message that does not decode ({e}): {}", frame.event, excerpt(data))))
    }
}

impl Client {
    /// `GET /indexed`: the heights the node holds history, blocks and events for.
    pub async fn indexed_range(&self) -> Result<IndexedRange, ClientError> {
        self.get(paths::INDEXED).await
    }

    /// `GET /account/{address}/history`: one page of the account's transactions, sent and
    /// received, newest first, older than `cursor`.
    pub async fn history(
        &self,
        account: &Address,
        cursor: Option<&str>,
        limit: u64,
    ) -> Result<HistoryPage, ClientError> {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.append_pair("limit", &limit.to_string());
        if let Some(cursor) = cursor {
            query.append_pair("cursor", cursor);
        }
        self.get(&format!("{}?{}", fill(paths::ACCOUNT_HISTORY, &[account]), query.finish())).await
    }

    /// `GET /blocks`: one page of finalized blocks, newest first, below the height `cursor`.
    pub async fn blocks(&self, cursor: Option<&str>, limit: u64) -> Result<BlockPage, ClientError> {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.append_pair("limit", &limit.to_string());
        if let Some(cursor) = cursor {
            query.append_pair("cursor", cursor);
        }
        self.get(&format!("{}?{}", paths::BLOCKS, query.finish())).await
    }

    /// `GET /events`: one page of the events `filter` selects, in chain order, after `cursor`.
    pub async fn events(
        &self,
        filter: &EventFilter,
        cursor: Option<&str>,
        limit: u64,
    ) -> Result<EventPage, ClientError> {
        let mut query = filter.query();
        if let Some(height) = filter.to_height {
            query.append_pair("to_height", &height.to_string());
        }
        if let Some(cursor) = cursor {
            query.append_pair("cursor", cursor);
        }
        query.append_pair("limit", &limit.to_string());
        self.get(&format!("{}?{}", paths::EVENTS, query.finish())).await
    }

    /// Opens a stream at `path`, going on after `last_event_id` when given.
    async fn stream(&self, path: &str, last_event_id: Option<&str>) -> Result<Subscription, ClientError> {
        let url = self.url(path);
        let transport = |source| ClientError::Transport { url: url.clone(), source };
        // No overall timeout: a stream lasts; silence is bounded by `Subscription::next`.
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(STREAM_CONNECT_SECS))
            .user_agent(concat!("drover-client/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(transport)?;
        let mut request = http.get(&url).header(reqwest::header::ACCEPT, "text/event-stream");
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.map_err(transport)?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let retry_after = response.headers().get(reqwest::header::RETRY_AFTER).and_then(super::retry_after_seconds);
            let body = response.bytes().await.map_err(transport)?;
            return Err(ClientError::from_error_response(&url, status, retry_after, &body));
        }
        Ok(Subscription { url, response, buffer: Vec::new(), last_event_id: last_event_id.map(str::to_owned) })
    }

    /// `GET /stream/blocks`: finalized blocks as they finalize, from `from_height` (default: the
    /// next block) or after `last_event_id` (a height).
    pub async fn stream_blocks(
        &self,
        from_height: Option<u64>,
        last_event_id: Option<&str>,
    ) -> Result<Subscription, ClientError> {
        let path = match from_height {
            Some(height) => format!("{}?from_height={height}", paths::STREAM_BLOCKS),
            None => paths::STREAM_BLOCKS.to_owned(),
        };
        self.stream(&path, last_event_id).await
    }

    /// `GET /stream/tx/{hash}`: one message when the transaction is finalized or dropped.
    pub async fn stream_transaction(&self, hash: &H256) -> Result<Subscription, ClientError> {
        self.stream(&fill(paths::STREAM_TRANSACTION, &[hash]), None).await
    }

    /// `GET /stream/events`: the events `filter` selects as blocks finalize (its `to_height` is
    /// not used), from its `from_height` (default: the next block) or after `last_event_id` (an
    /// event's cursor).
    pub async fn stream_events(
        &self,
        filter: &EventFilter,
        last_event_id: Option<&str>,
    ) -> Result<Subscription, ClientError> {
        self.stream(&format!("{}?{}", paths::STREAM_EVENTS, filter.query().finish()), last_event_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_as_the_event_stream_format_says() {
        let frame = parse_frame("id: 7\nevent: block\ndata: {\"a\":1}\n").unwrap();
        assert_eq!((frame.id.as_deref(), frame.event.as_str(), frame.data.as_str()), (Some("7"), "block", "{\"a\":1}"));
        // Several data lines are one value; no space after the colon is fine.
        let frame = parse_frame("data:a\ndata: b\n").unwrap();
        assert_eq!((frame.event.as_str(), frame.data.as_str()), ("message", "a\nb"));
        assert!(parse_frame(": keep-alive\n").is_none());
        assert!(parse_frame("event: block\n").is_none());
    }
}
