//! The push streams open now (`/stream/...`, served by `crate::routes::stream`): their counts
//! against the node's caps, in all and per client, and the newest blocks' messages, encoded once
//! for every stream that follows the tip.
//!
//! Its own module, under the application state that holds it, so the state does not reach into
//! a route family.

use crate::{RpcConfig, backend::history::HistoryBackend, client::ClientId, error::HttpError};
use bytes::Bytes;
use parking_lot::Mutex;
use serde::Serialize;
use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Block messages kept encoded for the streams that have yet to send them, the newest blocks
/// only: a block near the tip is encoded once for every stream that follows it, and a stream
/// catching up on old blocks does not push the tip's out.
const BLOCK_FRAMES_KEPT: u64 = 16;

/// The streams open now, and the block messages they share.
pub struct Streams {
    total: Arc<Semaphore>,
    per_client: Mutex<HashMap<ClientId, usize>>,
    per_client_max: usize,
    /// The newest blocks' messages, each encoded by the first stream that needs it while the
    /// others wait for it (many streams wake at once for every block).
    frames: Mutex<VecDeque<(u64, Frame)>>,
}

/// A block's message, once encoded.
type Frame = Arc<tokio::sync::OnceCell<Bytes>>;

/// One open stream's place in the counts; given back when the stream ends.
pub(crate) struct Subscription {
    _permit: OwnedSemaphorePermit,
    client: ClientId,
    streams: Arc<Streams>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut per_client = self.streams.per_client.lock();
        if let Some(held) = per_client.get_mut(&self.client) {
            *held -= 1;
            if *held == 0 {
                per_client.remove(&self.client);
            }
        }
    }
}

impl Streams {
    /// No stream open, within `config`'s caps.
    pub fn new(config: &RpcConfig) -> Self {
        Self {
            total: Arc::new(Semaphore::new(config.stream_subscribers_max)),
            per_client: Mutex::new(HashMap::new()),
            per_client_max: config.stream_subscribers_per_client,
            frames: Mutex::new(VecDeque::new()),
        }
    }

    /// A place for one more stream of `client` (429, code 1004, when there is none).
    pub(crate) fn subscribe(self: &Arc<Self>, client: ClientId) -> Result<Subscription, HttpError> {
        let mut per_client = self.per_client.lock();
        let held = per_client.get(&client).copied().unwrap_or(0);
        if held >= self.per_client_max {
            return Err(HttpError::rate_limited(
                1,
                format!("this client holds {held} streams, the most one client may; close one first"),
            ));
        }
        let permit = Arc::clone(&self.total)
            .try_acquire_owned()
            .map_err(|_| HttpError::rate_limited(1, "the node serves as many streams as it may; retry later"))?;
        // Counted only once admitted: a refused client leaves no entry behind (the map holds the
        // clients with a stream open, whoever else asks).
        *per_client.entry(client).or_default() += 1;
        Ok(Subscription { _permit: permit, client, streams: Arc::clone(self) })
    }

    /// The message of the block at `height`, the tip being `tip`: a block near the tip is read
    /// and encoded once, by the first stream that asks, for every stream (`None`: the node holds
    /// no such block).
    pub(crate) async fn block_frame<B: HistoryBackend>(
        &self,
        backend: &B,
        height: u64,
        tip: u64,
    ) -> Result<Option<Bytes>, HttpError> {
        // `Err(None)`: no such block (not kept: it may be indexed in a moment).
        let encode = async || -> Result<Bytes, Option<HttpError>> {
            match backend.block_summary(height).await {
                Ok(Some(summary)) => Ok(frame("block", Some(&height.to_string()), &summary)),
                Ok(None) => Err(None),
                Err(error) => Err(Some(error.into())),
            }
        };
        let found = |encoded: Result<Bytes, Option<HttpError>>| match encoded {
            Ok(frame) => Ok(Some(frame)),
            Err(None) => Ok(None),
            Err(Some(error)) => Err(error),
        };
        if height.saturating_add(BLOCK_FRAMES_KEPT) <= tip {
            return found(encode().await);
        }
        let cell = {
            let mut frames = self.frames.lock();
            frames.retain(|(h, _)| h.saturating_add(BLOCK_FRAMES_KEPT) > tip);
            match frames.iter().find(|(h, _)| *h == height) {
                Some((_, cell)) => Arc::clone(cell),
                None => {
                    let cell = Frame::default();
                    frames.push_back((height, Arc::clone(&cell)));
                    cell
                }
            }
        };
        found(cell.get_or_try_init(encode).await.cloned())
    }
}

/// One server-sent event: `event`, `id` when given, and the JSON of `data` on one line (JSON
/// text escapes every line break, so the message cannot be split or forged by its content).
pub(crate) fn frame(event: &str, id: Option<&str>, data: &impl Serialize) -> Bytes {
    let json = serde_json::to_string(data).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    let id = id.map(|id| format!("id: {id}\n")).unwrap_or_default();
    Bytes::from(format!("{id}event: {event}\ndata: {json}\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(n: u8) -> ClientId {
        ClientId::of(std::net::IpAddr::from([10, 0, 0, n]))
    }

    #[test]
    fn a_client_refused_for_the_total_cap_leaves_no_count_behind() {
        let streams = Arc::new(Streams::new(&RpcConfig { stream_subscribers_max: 1, ..RpcConfig::default() }));
        let held = streams.subscribe(client(1)).expect("room for one");
        for n in 2..=200 {
            assert!(streams.subscribe(client(n)).is_err(), "the node is at its cap");
        }
        assert_eq!(streams.per_client.lock().len(), 1, "only the client with a stream open is counted");
        drop(held);
        assert!(streams.per_client.lock().is_empty());
    }
}
