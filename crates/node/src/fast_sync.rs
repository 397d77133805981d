//! Fast-sync over HTTP: choosing a finalized block to sync to and fetching its state from peers'
//! `/state/operations`.
//!
//! Nothing a peer sends is trusted. The sync target comes from the finalization certificate of a
//! peer's latest block, checked against the network's group key from the local genesis and
//! config before it is persisted as glue's state-sync floor; from then on glue drives
//! `qmdb::sync`, which checks every batch's range proof against the ops root committed by a
//! finalized block (and the final state against its canonical root). This module only moves
//! bytes: [`HttpPeers::fetch`] decodes a batch and hands it over, and a batch that fails
//! verification is fetched again from the next peer. When no peer has a batch that verifies,
//! sync stops with an error naming the peers; the local database only ever holds verified
//! operations, and a restart resumes from the persisted floor.
//!
//! Transient failures (connection errors, 5xx, 429 with `Retry-After`, a peer that does not hold
//! the requested size yet) are retried with backoff, at most [`FETCH_ATTEMPTS_MAX`] times per
//! request and peer. A peer's `Retry-After` is its word: it is honoured up to
//! [`FETCH_RETRY_AFTER_MAX_SECS`], and a peer that asks for longer is given up for the request
//! when another peer is left to ask (the last peer is waited for that long at most), so no peer
//! can hold a request beyond `FETCH_ATTEMPTS_MAX` x that bound.
//!
//! A node that already has state (a restored backup) fast-syncs too when it is far behind:
//! [`catch_up`] compares its tip with the peer's certified target and chooses fast-sync from
//! [`FAST_SYNC_MIN_GAP_BLOCKS`] blocks behind, replay below (`crate::resync` starts the sync).
//! The peer's height is its word, but the certified view bounds it: heights rise by one per
//! block and views by at least one, so a block `n` heights above ours is at least `n` views
//! above, and a peer cannot claim a larger gap than the certificate's view allows.

use crate::{application::Scheme, databases::StateDb};
use commonware_codec::{Decode as _, Read};
use commonware_consensus::simplex::types::Finalization;
use commonware_cryptography::{certificate::Verifier as _, sha256};
use commonware_parallel::Sequential;
use commonware_storage::{
    mmr,
    qmdb::sync::{self, Request, Response},
};
use drover_client::{BlockSelector, Client, ClientError};
use drover_types::ErrorCode;
use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};
use tracing::{info, warn};

/// Operations one `/state/operations` request asks for (the server's maximum). With the server's
/// default limit of 5 requests per second per client this allows 250,000 operations per second.
/// A peer serves fewer when they would encode larger than `MAX_OPERATIONS_RESPONSE_BYTES`
/// (8 MiB, half of what the client reads: large values such as actor code), and the sync engine
/// accepts a shorter batch and requests the rest. A body that still exceeds what the client
/// reads (from a peer that does not bound its answers) is asked for again in halves.
pub const FETCH_BATCH_OPS: u64 = 50_000;
/// Requests in flight at once.
pub const FETCH_CONCURRENCY: usize = 4;
/// Tries per request and peer before that peer is given up for the request.
pub const FETCH_ATTEMPTS_MAX: u32 = 10;
/// First wait after a transient failure; doubled each time up to [`FETCH_BACKOFF_MAX_MS`].
pub const FETCH_BACKOFF_MIN_MS: u64 = 200;
/// Longest wait between two tries of a request, in milliseconds.
pub const FETCH_BACKOFF_MAX_MS: u64 = 5_000;
/// Longest wait a peer's `Retry-After` earns, in seconds. Honest rate limits answer about one
/// second (per-second windows); a peer asking for longer is given up for the request when
/// another peer is left.
pub const FETCH_RETRY_AFTER_MAX_SECS: u64 = 10;
/// Time allowed for one HTTP request, in seconds (a full batch is a few megabytes).
pub const FETCH_TIMEOUT_SECS: u64 = 60;
/// Blocks a node with state must be behind its `--sync-from` peer's finalized tip to fast-sync
/// instead of replaying the missing blocks (`--fast-sync-min-gap` overrides it). Replay keeps
/// every index (history, receipts, events) and costs time per block; fast-sync costs time per
/// state operation, whatever the gap, and the node's indexes restart after the sync height. On
/// two cores replaying this many empty blocks takes about 30 s, a fast-sync a few seconds
/// (`docs/performance.md`, "Catching up"): below, keeping the history is worth the wait.
pub const FAST_SYNC_MIN_GAP_BLOCKS: u64 = 10_000;

/// One state operation, as the state database logs it.
pub type StateOp<E> = <StateDb<E> as sync::Database>::Op;
/// A decoded `/state/operations` batch.
pub type StateResponse<E> = Response<mmr::Family, StateOp<E>, sha256::Digest>;

/// Where fast-sync stands: operations received so far out of those the target needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncProgress {
    /// Operations received so far.
    pub fetched_ops: u64,
    /// Operations the sync target needs.
    pub target_ops: u64,
}

/// Called after every received batch (the CLI draws a progress bar with it).
pub type ProgressHook = Arc<dyn Fn(SyncProgress) + Send + Sync>;

/// Why fast-sync could not get what it needed from its peers.
#[derive(Debug, thiserror::Error)]
pub enum FastSyncError {
    /// A `--sync-from` URL is not usable.
    #[error("invalid --sync-from URL: {0}")]
    Url(#[source] ClientError),
    /// A peer, or every peer, could not answer a request.
    #[error("peer {url}: {reason}")]
    Peer {
        /// The peer's base URL, or `every --sync-from peer`.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// Every peer failed to serve one batch.
    #[error("no peer could serve operations {start}.. at size {size}; tried: {tried}")]
    Exhausted {
        /// Operation count whose ops root the batch is proven against.
        size: u64,
        /// First operation of the batch.
        start: u64,
        /// Each peer tried, with its last error.
        tried: String,
    },
}

/// The peers given with `--sync-from`, tried in order.
#[derive(Clone)]
pub struct HttpPeers {
    clients: Arc<Vec<Client>>,
    fetched_ops: Arc<AtomicU64>,
    progress: Option<ProgressHook>,
}

impl HttpPeers {
    /// The peers at `urls`, tried in order; `progress` hears of every batch received.
    pub fn new(urls: &[String], progress: Option<ProgressHook>) -> Result<Self, FastSyncError> {
        let clients = urls
            .iter()
            .map(|url| Client::with_timeout(url, Duration::from_secs(FETCH_TIMEOUT_SECS)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(FastSyncError::Url)?;
        Ok(Self { clients: Arc::new(clients), fetched_ops: Arc::default(), progress })
    }

    /// Number of peers.
    pub fn len(&self) -> usize {
        self.clients.len()
    }

    /// Whether no peer was given.
    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// The base URL of the `peer`-th `--sync-from` peer.
    pub fn url(&self, peer: usize) -> &str {
        self.clients.get(peer).map_or("?", Client::base_url)
    }

    /// The first peer's latest finalized block, with its finalization certificate checked
    /// against `verifier` (the network's group key). Peers are tried in order.
    pub async fn select_target(&self, verifier: &Scheme) -> Result<SyncTarget, FastSyncError> {
        let mut errors = Vec::new();
        for client in self.clients.iter() {
            match latest_finalization(client, verifier).await {
                Ok((height, finalization)) => {
                    info!(peer = client.base_url(), height, "state-sync target selected");
                    return Ok(SyncTarget { height, finalization });
                }
                Err(e) => {
                    warn!(peer = client.base_url(), error = %e, "peer gave no usable sync target");
                    errors.push(e.to_string());
                }
            }
        }
        Err(FastSyncError::Peer { url: "every --sync-from peer".to_owned(), reason: errors.join("; ") })
    }

    /// Fetches and decodes `request` from the peers in order, starting at `first`; answers the
    /// batch and which peer sent it.
    pub async fn fetch<E>(
        &self,
        request: Request<mmr::Family>,
        first: usize,
        op_cfg: &<StateOp<E> as Read>::Cfg,
    ) -> Result<(StateResponse<E>, usize), FastSyncError>
    where
        E: commonware_storage::Context + commonware_runtime::Spawner,
    {
        let (size, start) = (request.size().as_u64(), request.start().as_u64());
        let max = match request {
            Request::Operations { max_ops, .. } => Some(max_ops.get()),
            Request::Boundary { .. } => None,
        };
        let mut tried = Vec::new();
        for peer in first..self.clients.len() {
            let others_left = peer + 1 < self.clients.len();
            match self.fetch_from::<E>(peer, size, start, max, op_cfg, others_left).await {
                Ok(response) => {
                    self.record::<E>(&response, size, start);
                    return Ok((response, peer));
                }
                Err(reason) => {
                    warn!(peer = self.url(peer), size, start, %reason, "state-sync fetch failed");
                    tried.push(format!("{} ({reason})", self.url(peer)));
                }
            }
        }
        Err(FastSyncError::Exhausted { size, start, tried: tried.join(", ") })
    }

    /// Fetches one batch from `peer`, retrying transient failures; `others_left` says whether
    /// another peer can be asked when this one asks to wait longer than the bound.
    async fn fetch_from<E>(
        &self,
        peer: usize,
        size: u64,
        start: u64,
        max: Option<u64>,
        op_cfg: &<StateOp<E> as Read>::Cfg,
        others_left: bool,
    ) -> Result<StateResponse<E>, String>
    where
        E: commonware_storage::Context + commonware_runtime::Spawner,
    {
        let client = &self.clients[peer];
        let mut backoff = Duration::from_millis(FETCH_BACKOFF_MIN_MS);
        let mut last = String::new();
        let mut max = max;
        let mut attempts = 0;
        while attempts < FETCH_ATTEMPTS_MAX {
            let error = match client.state_operations(size, start, max).await {
                Ok(bytes) => {
                    let max_ops = usize::try_from(max.unwrap_or(1)).unwrap_or(usize::MAX);
                    return StateResponse::<E>::decode_cfg(bytes::Bytes::from(bytes), &(max_ops, *op_cfg))
                        .map_err(|e| format!("batch does not decode: {e}"));
                }
                Err(ClientError::BodyTooLarge { .. }) if max.is_some_and(|m| m > 1) => {
                    max = max.map(|m| m / 2);
                    continue;
                }
                Err(error) => error,
            };
            attempts += 1;
            let wait = match error.error_code() {
                Some(ErrorCode::RateLimited) => {
                    let asked_secs = error.retry_after().unwrap_or(1);
                    if asked_secs > FETCH_RETRY_AFTER_MAX_SECS && others_left {
                        return Err(format!(
                            "asks to wait {asked_secs} s, more than the {FETCH_RETRY_AFTER_MAX_SECS} s allowed: {error}"
                        ));
                    }
                    Duration::from_secs(asked_secs.min(FETCH_RETRY_AFTER_MAX_SECS))
                }
                // A peer behind the target does not hold `size` operations yet; one that pruned
                // them never will, which the attempts bound covers.
                Some(ErrorCode::NotFound) => backoff,
                _ if error.status().is_some_and(|status| status < 500) => return Err(error.to_string()),
                _ => backoff,
            };
            last = error.to_string();
            ::tokio::time::sleep(wait).await;
            backoff = (backoff * 2).min(Duration::from_millis(FETCH_BACKOFF_MAX_MS));
        }
        Err(format!("gave up after {FETCH_ATTEMPTS_MAX} attempts: {last}"))
    }

    fn record<E>(&self, response: &StateResponse<E>, size: u64, start: u64)
    where
        E: commonware_storage::Context + commonware_runtime::Spawner,
    {
        let count = match response {
            Response::Operations { operations, .. } => operations.len() as u64,
            Response::Boundary { .. } => 1,
        };
        let fetched = self.fetched_ops.fetch_add(count, Ordering::Relaxed) + count;
        if let Some(progress) = &self.progress {
            progress(SyncProgress {
                fetched_ops: fetched,
                target_ops: size.saturating_sub(start.min(size)).max(fetched),
            });
        }
    }
}

/// A peer's latest finalized block: its finalization certificate, verified against the group
/// key, and its height as the peer reports it (the certificate does not carry heights).
#[derive(Clone, Debug)]
pub struct SyncTarget {
    /// Height the peer reports for the block.
    pub height: u64,
    /// The block's finalization certificate, verified.
    pub finalization: Finalization<Scheme, sha256::Digest>,
}

impl SyncTarget {
    /// The view the certificate finalizes the block in.
    pub fn view(&self) -> u64 {
        self.finalization.proposal.round.view().get()
    }
}

/// Where a node with state stands: its latest finalized block, by height and view (0 and 0 when
/// it holds none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalTip {
    /// Height of the latest block the node finalized.
    pub height: u64,
    /// The view that block was proposed in.
    pub view: u64,
}

/// How a node with state reaches its peer's tip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchUp {
    /// The target is not above the node: nothing to catch up.
    Ahead,
    /// Replay this many missing blocks.
    Replay {
        /// Blocks behind the target.
        behind: u64,
    },
    /// Fast-sync the state to the target, this many blocks ahead.
    FastSync {
        /// Blocks behind the target.
        behind: u64,
    },
}

/// Chooses how a node at `local` reaches `target` (height and certified view): fast-sync when
/// at least `min_gap_blocks` behind, replay below. The gap is the peer's height minus ours,
/// bounded by the certified view gap (see the module docs), so a peer that overstates its
/// height cannot push a node that is close into fast-sync.
pub fn catch_up(local: LocalTip, target_height: u64, target_view: u64, min_gap_blocks: u64) -> CatchUp {
    if target_view <= local.view || target_height <= local.height {
        return CatchUp::Ahead;
    }
    // Blocks without a view of their own (an index record older than the views), or no indexed
    // block at all on a node that holds state (its indexes lost, or emptied by a fast-sync whose
    // first block is not captured yet): nothing bounds the peer's claimed height, and a
    // fast-sync would drop what the node has only to fetch it again on every start. Replay,
    // which is right at any gap.
    if local.view == 0 {
        return CatchUp::Replay { behind: target_height - local.height };
    }
    let behind = (target_height - local.height).min(target_view - local.view);
    if behind >= min_gap_blocks { CatchUp::FastSync { behind } } else { CatchUp::Replay { behind } }
}

/// A peer's latest block and its verified finalization certificate.
async fn latest_finalization(
    client: &Client,
    verifier: &Scheme,
) -> Result<(u64, Finalization<Scheme, sha256::Digest>), String> {
    let block =
        client.block(BlockSelector::Latest).await.map_err(|e| e.to_string())?.ok_or("no finalized block yet")?;
    let hex = block.finalization.ok_or("its latest block carries no finalization certificate")?;
    let bytes = drover_types::hexfmt::decode(&hex).map_err(|e| format!("finalization is not hex: {e}"))?;
    let finalization = Finalization::<Scheme, sha256::Digest>::decode_cfg(
        bytes::Bytes::from(bytes),
        &verifier.certificate_codec_config(),
    )
    .map_err(|e| format!("finalization does not decode: {e}"))?;
    if finalization.proposal.payload.as_ref() != block.hash.0.as_slice() {
        return Err("the finalization certifies another block".to_owned());
    }
    if !finalization.verify(&mut commonware_utils::sys_rng(), verifier, &Sequential) {
        return Err("the finalization certificate does not verify against this network's group key".to_owned());
    }
    Ok((block.height, finalization))
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;
    use std::num::NonZeroU64;

    /// A peer whose batches are too large for the client until `max` is at most `fits`; then it
    /// answers bytes that are no batch at all. Records every `max` asked for.
    async fn peer(fits: u64, asked: Arc<Mutex<Vec<u64>>>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = axum::Router::new().route(
            "/state/operations",
            axum::routing::get(move |query: axum::extract::Query<std::collections::HashMap<String, String>>| {
                let asked = asked.clone();
                async move {
                    let max: u64 = query.get("max").and_then(|m| m.parse().ok()).unwrap_or(0);
                    asked.lock().push(max);
                    if max > fits { vec![0u8; drover_client::RESPONSE_BYTES_MAX + 1] } else { b"not a batch".to_vec() }
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        url
    }

    /// A peer that answers every request 429 asking to wait `retry_after_secs`.
    async fn rate_limiting_peer(retry_after_secs: u64) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = axum::Router::new().route(
            "/state/operations",
            axum::routing::get(move || async move {
                let body = format!(
                    r#"{{"code":{},"error":"rate_limited","message":"slow down"}}"#,
                    ErrorCode::RateLimited.code()
                );
                (
                    axum::http::StatusCode::TOO_MANY_REQUESTS,
                    [(axum::http::header::RETRY_AFTER, retry_after_secs.to_string())],
                    body,
                )
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        url
    }

    fn full_batch_request() -> Request<mmr::Family> {
        Request::Operations {
            size: mmr::Location::new(100_000),
            start: mmr::Location::new(0),
            max_ops: NonZeroU64::new(FETCH_BATCH_OPS).unwrap(),
        }
    }

    #[tokio::test]
    async fn a_peer_asking_to_wait_forever_is_passed_over_for_the_next() {
        let stalling = rate_limiting_peer(u64::MAX).await;
        let asked = Arc::new(Mutex::new(Vec::new()));
        let next = peer(u64::MAX, asked.clone()).await;
        let peers = HttpPeers::new(&[stalling, next], None).unwrap();
        let cfg = (((0..=16).into(), ()), ((0..=16).into(), ()));
        let outcome = tokio::time::timeout(
            Duration::from_secs(FETCH_RETRY_AFTER_MAX_SECS),
            peers.fetch::<commonware_runtime::tokio::Context>(full_batch_request(), 0, &cfg),
        )
        .await
        .expect("a peer's Retry-After held the request");
        // The second peer was asked at once (its bytes are no batch, so nothing is left).
        assert_eq!(*asked.lock(), vec![FETCH_BATCH_OPS]);
        let Err(FastSyncError::Exhausted { tried, .. }) = outcome else { panic!("{:?}", outcome.err()) };
        assert!(tried.contains("asks to wait 18446744073709551615 s"), "{tried}");
    }

    #[test]
    fn catch_up_fast_syncs_from_the_gap_on_and_bounds_the_claimed_height_by_the_views() {
        let local = LocalTip { height: 100, view: 120 };
        // Not above the node, by height or by certified view: nothing to do.
        assert_eq!(catch_up(local, 100, 130, 10), CatchUp::Ahead);
        assert_eq!(catch_up(local, 5_000, 120, 10), CatchUp::Ahead);
        // Below the gap, replay; from it on, fast-sync.
        assert_eq!(catch_up(local, 109, 200, 10), CatchUp::Replay { behind: 9 });
        assert_eq!(catch_up(local, 110, 200, 10), CatchUp::FastSync { behind: 10 });
        // A peer claiming a far height with a certificate a few views ahead gets the view gap.
        assert_eq!(catch_up(local, 1_000_000, 125, 10), CatchUp::Replay { behind: 5 });
        // A node with state but no indexed block (indexes lost, or emptied by a fast-sync that
        // has not captured a block yet) replays: it does not fast-sync again at every start.
        assert_eq!(catch_up(LocalTip::default(), 50_000, 60_000, 50), CatchUp::Replay { behind: 50_000 });
        // Blocks whose view is unknown leave the claimed height unbounded: replay.
        let unviewed = LocalTip { height: 100, view: 0 };
        assert_eq!(catch_up(unviewed, u64::MAX, 1_000_000, 10), CatchUp::Replay { behind: u64::MAX - 100 });
    }

    #[tokio::test]
    async fn an_oversized_batch_is_asked_for_again_in_halves_and_bad_bytes_are_refused() {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let url = peer(10_000, asked.clone()).await;
        let peers = HttpPeers::new(&[url], None).unwrap();
        let cfg = (((0..=16).into(), ()), ((0..=16).into(), ()));
        let outcome = peers.fetch::<commonware_runtime::tokio::Context>(full_batch_request(), 0, &cfg).await;
        // Halved until the body fits, then the bytes fail to decode: no peer left.
        assert_eq!(*asked.lock(), vec![50_000, 25_000, 12_500, 6_250]);
        assert!(matches!(outcome, Err(FastSyncError::Exhausted { .. })), "{:?}", outcome.err());
    }
}
