//! The relay's HTTP API: objects of the volumes it serves, read and written by wallets that
//! authenticate like on the node's `/ras/...` owner routes.
//!
//! | route | does |
//! | --- | --- |
//! | `PUT /v1/volumes/{volume}/objects/{*key}` | stores the body (at most [`MAX_OBJECT_BYTES`]) |
//! | `GET /v1/volumes/{volume}/objects/{*key}` | the object's bytes (`ETag` = its content hash) |
//! | `DELETE /v1/volumes/{volume}/objects/{*key}` | deletes it |
//! | `GET /v1/volumes/{volume}/objects?prefix=&after=&limit=` | a page of the listing |
//! | `GET /v1/volumes/{volume}` | `{volume_id, root, size_bytes, objects}` |
//! | `GET /v1/health` | `{relay, volumes, bytes}` |
//!
//! # Who may do what
//!
//! The chain decides, through a [`Directory`] (answers cached for [`DIRECTORY_CACHE_TTL`], so a
//! burst of requests does not hammer the node). A volume exists for this relay only if the
//! directory knows it **and** it names this relay. Then:
//!
//! - writes (PUT, DELETE) need the owner's authenticated request and an `Active` volume;
//! - reads (GET, LIST, info) of a public volume need nothing;
//! - reads of a private volume need the owner's authenticated request.
//!
//! A private volume never reveals that it exists: unless the request carries a valid delegation
//! token **of its owner** (not revoked), the answer is the very 404 an unknown volume gets. Once
//! the owner's token is established, the rest of the authentication answers with its own 401
//! (9101 for a request signature, timestamp or nonce, 9102 for a replay), so an owner with a bad
//! clock learns why. On a public volume, a write without a valid token is 401 9100 and a write by
//! another wallet 403.
//!
//! A request is signed for this relay's audience (`relay_audience` of its on-chain address,
//! `drover_types::storage::auth`): one signed for the nodes or for another relay fails its signature
//! (401, 9101), so no other verifier's traffic can be replayed here.
//!
//! The cheap checks come first, before the body is read or a nonce recorded: the volume id and
//! key, the declared length, the token (before the directory lookup whatever the volume, so a
//! stranger cannot time an unknown volume apart from a private one), the directory and the
//! owner. The body is only read for a
//! request that will need it (it is signed), and a nonce is only recorded for a request that is
//! otherwise accepted, so refused requests cannot fill the replay cache. Nothing is written
//! before the request signature and the nonce have been accepted.

use crate::api::{DeleteResponse, HealthResponse, ListResponse, PutResponse, RelayErrorCode, VolumeResponse};
use crate::limits::{CHUNK_BYTES, MAX_KEY_BYTES, MAX_LIST_LIMIT, MAX_OBJECT_BYTES, validate_key};
use crate::store::{ObjectReader, Store, StoreError};
use axum::body::Body;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, Method, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use bytes::Bytes;
use drover_types::api::ErrorBody;
use drover_types::storage::auth::{
    DELEGATION_HEADER, DelegationToken, NONCE_HEADER, NonceCache, SIGNATURE_HEADER, TIMESTAMP_HEADER, relay_audience,
    verify_request,
};
use drover_types::{Address, H256, storage::VolumeStatus};
use futures::StreamExt;
use parking_lot::Mutex;
use serde::Deserialize;
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a directory answer (a volume, a revocation) is reused.
pub const DIRECTORY_CACHE_TTL: Duration = Duration::from_secs(2);
/// Most directory answers cached at once (a memory guard against requests for many ids).
pub const MAX_CACHED_ANSWERS: usize = 65_536;
/// Largest body of a request that is not a PUT (reads and deletes carry none; it is signed all
/// the same, so it is read).
pub const MAX_SMALL_BODY_BYTES: usize = 4_096;
/// Listing page size when the request names none.
pub const DEFAULT_LIST_LIMIT: usize = 100;
/// Seconds a client is told to wait when the chain cannot be reached.
pub const RETRY_AFTER_SECS: u64 = 1;
/// Default of [`RelayConfig::upload_memory_bytes`]: the most memory upload bodies hold at once
/// (eight objects of [`MAX_OBJECT_BYTES`]).
pub const UPLOAD_MEMORY_BYTES: usize = 8 * MAX_OBJECT_BYTES;
/// Uploads one wallet may have in flight at once; one more is answered 503 at once, so a
/// wallet trickling bodies cannot take the whole upload memory from the others.
pub const UPLOADS_PER_WALLET: usize = 2;
/// Default of [`RelayConfig::upload_slot_wait`]: how long an upload waits for its memory
/// before it is answered 503.
pub const UPLOAD_SLOT_WAIT: Duration = Duration::from_secs(5);
/// Default of [`RelayConfig::upload_body_timeout`]: a request's body must arrive within this
/// (64 MiB at about 0.5 MiB/s), so a trickled body cannot hold memory or a task for long.
pub const UPLOAD_BODY_TIMEOUT: Duration = Duration::from_secs(120);

/// The message of every 404 about a volume: a private volume answers it byte for byte.
const UNKNOWN_VOLUME: &str = "no such volume on this relay";

/// What the chain says about a volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeInfo {
    /// The wallet that owns it.
    pub owner: Address,
    /// Whether anyone may read it.
    pub public: bool,
    /// The relay that holds it.
    pub relay: Address,
    /// Its status on chain: written only while `Active`, read while `Grace` or `Deleted`
    /// (a `Purged` volume is answered as unknown).
    pub status: VolumeStatus,
    /// Most bytes its owner pays for (`max_size_bytes` on chain): a write past it is refused.
    pub max_size_bytes: u64,
}

/// The chain could not be asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the chain could not be asked: {0}")]
pub struct DirectoryError(pub String);

/// How the relay learns about volumes from the chain (the node side implements it).
pub trait Directory: Send + Sync + 'static {
    /// The volume `id`, or `None` if the chain has none (never created, or purged).
    fn volume(&self, id: H256) -> impl Future<Output = Result<Option<VolumeInfo>, DirectoryError>> + Send;

    /// Whether `wallet` revoked the session key `session_key` on chain (its tokens are refused).
    /// Without an implementation, no session is revoked.
    fn session_revoked(
        &self,
        wallet: Address,
        session_key: [u8; 33],
    ) -> impl Future<Output = Result<bool, DirectoryError>> + Send {
        let _ = (wallet, session_key);
        async { Ok(false) }
    }
}

/// A relay's configuration.
#[derive(Clone, Debug)]
pub struct RelayConfig {
    /// Where the store lives ([`crate::store`]).
    pub dir: PathBuf,
    /// The chain tokens must name.
    pub chain_id: u64,
    /// This relay's address: a volume is served only if it names it.
    pub relay_address: Address,
    /// Bytes the relay holds at most over all volumes; a write beyond is refused with 507.
    pub capacity_bytes: u64,
    /// How long directory answers are reused.
    pub directory_cache_ttl: Duration,
    /// Bytes upload bodies may hold at once, reserved by each upload's declared length in
    /// whole chunks; the others wait `upload_slot_wait`, then 503.
    pub upload_memory_bytes: usize,
    /// How long an upload waits for its memory.
    pub upload_slot_wait: Duration,
    /// How long a request's body may take to arrive (an upload's, once it holds its memory).
    pub upload_body_timeout: Duration,
}

impl RelayConfig {
    /// A configuration with the default cache lifetime.
    pub fn new(dir: impl Into<PathBuf>, chain_id: u64, relay_address: Address, capacity_bytes: u64) -> Self {
        RelayConfig {
            dir: dir.into(),
            chain_id,
            relay_address,
            capacity_bytes,
            directory_cache_ttl: DIRECTORY_CACHE_TTL,
            upload_memory_bytes: UPLOAD_MEMORY_BYTES,
            upload_slot_wait: UPLOAD_SLOT_WAIT,
            upload_body_timeout: UPLOAD_BODY_TIMEOUT,
        }
    }
}

/// Why a relay does not start or stops.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// The store did not open.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The listener failed.
    #[error("serving failed: {0}")]
    Io(#[from] std::io::Error),
}

/// A relay: its store and its HTTP API.
pub struct Relay<D> {
    shared: Arc<Shared<D>>,
}

struct Shared<D> {
    config: RelayConfig,
    store: Arc<Store>,
    directory: D,
    volumes: TtlCache<H256, Option<VolumeInfo>>,
    revocations: TtlCache<(Address, [u8; 33]), bool>,
    nonces: NonceCache,
    /// One permit per chunk of upload memory ([`RelayConfig::upload_memory_bytes`]).
    uploads: Arc<tokio::sync::Semaphore>,
    /// Uploads in flight per wallet (at most [`UPLOADS_PER_WALLET`] each).
    wallet_uploads: Arc<Mutex<HashMap<Address, usize>>>,
}

impl<D: Directory> Relay<D> {
    /// Opens the store of `config` (blocking: it reads every manifest) and prepares the API.
    pub fn open(config: RelayConfig, directory: D) -> Result<Self, RelayError> {
        let store = Arc::new(Store::open(&config.dir, config.capacity_bytes)?);
        let ttl = config.directory_cache_ttl;
        let uploads = Arc::new(tokio::sync::Semaphore::new((config.upload_memory_bytes / CHUNK_BYTES).max(1)));
        Ok(Relay {
            shared: Arc::new(Shared {
                config,
                store,
                directory,
                volumes: TtlCache::new(ttl),
                revocations: TtlCache::new(ttl),
                nonces: NonceCache::default(),
                uploads,
                wallet_uploads: Arc::default(),
            }),
        })
    }

    /// The store, to share with the [`crate::commit::CommitLoop`].
    pub fn store(&self) -> Arc<Store> {
        self.shared.store.clone()
    }

    /// The configuration.
    pub fn config(&self) -> &RelayConfig {
        &self.shared.config
    }

    /// The API as an axum router (to serve or to embed).
    pub fn router(&self) -> Router {
        Router::new()
            .route("/v1/health", get(health::<D>))
            .route("/v1/volumes/{volume}", get(volume_info::<D>))
            .route("/v1/volumes/{volume}/objects", get(list_objects::<D>))
            .route(
                "/v1/volumes/{volume}/objects/{*key}",
                get(get_object::<D>).put(put_object::<D>).delete(delete_object::<D>),
            )
            .fallback(|| async { Failure::new(RelayErrorCode::NotFound, "no such route") })
            .with_state(self.shared.clone())
    }

    /// Serves the API on `listener` until `shutdown` completes, then lets requests in flight
    /// finish. Connections are driven by the node's HTTP server ([`drover_rpc::serve`]), with its
    /// limits: a cap on open connections, a deadline for each request head, and one for each
    /// answer's write, so a reader that stops reading cannot hold a streamed object (and its
    /// chunks) for longer.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), RelayError> {
        tracing::info!(
            address = %listener.local_addr()?,
            relay = %self.shared.config.relay_address,
            dir = %self.shared.config.dir.display(),
            "relay serving"
        );
        drover_rpc::serve(listener, self.router(), shutdown).await?;
        Ok(())
    }
}

/// Opens a relay with `config` and `directory` and serves it on `listener` until `shutdown`.
pub async fn serve<D: Directory>(
    listener: tokio::net::TcpListener,
    config: RelayConfig,
    directory: D,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), RelayError> {
    Relay::open(config, directory)?.serve(listener, shutdown).await
}

/// A refusal, served as the node's error body.
#[derive(Debug)]
struct Failure {
    code: RelayErrorCode,
    message: String,
}

impl Failure {
    fn new(code: RelayErrorCode, message: impl Into<String>) -> Self {
        Failure { code, message: message.into() }
    }

    fn unknown_volume() -> Self {
        Failure::new(RelayErrorCode::NotFound, UNKNOWN_VOLUME)
    }

    fn internal(detail: impl std::fmt::Display) -> Self {
        // The detail names paths and states; the client only learns that it happened.
        tracing::error!(%detail, "internal error");
        Failure::new(RelayErrorCode::Internal, "internal error; the relay's log has the detail")
    }

    fn from_store(error: StoreError) -> Self {
        match error {
            StoreError::Key(e) => Failure::new(RelayErrorCode::BadRequest, e.to_string()),
            e @ StoreError::TooLarge { .. } => Failure::new(RelayErrorCode::ObjectTooLarge, e.to_string()),
            e @ (StoreError::Capacity { .. } | StoreError::TooManyObjects | StoreError::VolumeFull { .. }) => {
                Failure::new(RelayErrorCode::CapacityExceeded, e.to_string())
            }
            e => Failure::internal(e),
        }
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let body = ErrorBody { code: self.code.code(), error: self.code.name().to_owned(), message: self.message };
        let status = axum::http::StatusCode::from_u16(self.code.http_status())
            .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(body)).into_response();
        if self.code == RelayErrorCode::Unavailable {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        }
        response
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
}

/// A request allowed through, with its body (empty for an unauthenticated read).
struct Authorized {
    volume: H256,
    info: VolumeInfo,
    body: Bytes,
    /// An upload's memory and its place among its wallet's uploads, held until its write is
    /// done.
    _upload: Option<UploadSlot>,
}

/// What one upload holds while its body is read and stored: its memory, and one of its
/// wallet's places.
struct UploadSlot {
    _memory: tokio::sync::OwnedSemaphorePermit,
    _place: WalletPlace,
}

/// One of a wallet's [`UPLOADS_PER_WALLET`] places, given back when dropped.
struct WalletPlace {
    wallet: Address,
    in_flight: Arc<Mutex<HashMap<Address, usize>>>,
}

impl Drop for WalletPlace {
    fn drop(&mut self) {
        let mut in_flight = self.in_flight.lock();
        if let Some(count) = in_flight.get_mut(&self.wallet) {
            *count -= 1;
            if *count == 0 {
                in_flight.remove(&self.wallet);
            }
        }
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> &'h str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

impl<D: Directory> Shared<D> {
    async fn volume_info(&self, volume: H256) -> Result<Option<VolumeInfo>, Failure> {
        let info = match self.volumes.get(&volume) {
            Some(info) => info,
            None => {
                let info = self.directory.volume(volume).await.map_err(|e| {
                    tracing::warn!(%volume, error = %e, "directory lookup failed");
                    Failure::new(RelayErrorCode::Unavailable, "the relay cannot reach the chain; retry shortly")
                })?;
                self.volumes.insert(volume, info);
                info
            }
        };
        Ok(info.filter(|info| info.relay == self.config.relay_address && info.status != VolumeStatus::Purged))
    }

    async fn revoked(&self, token: &DelegationToken) -> Result<bool, Failure> {
        let key = (token.wallet, token.session_key);
        if let Some(revoked) = self.revocations.get(&key) {
            return Ok(revoked);
        }
        let revoked = self.directory.session_revoked(token.wallet, token.session_key).await.map_err(|e| {
            tracing::warn!(wallet = %token.wallet, error = %e, "revocation lookup failed");
            Failure::new(RelayErrorCode::Unavailable, "the relay cannot reach the chain; retry shortly")
        })?;
        self.revocations.insert(key, revoked);
        Ok(revoked)
    }

    /// Reserves an upload's memory (its declared length in whole chunks, the largest object's
    /// when undeclared; waiting up to `upload_slot_wait`) and one of its wallet's places.
    async fn upload_slot(&self, wallet: Address, declared: Option<u64>) -> Result<UploadSlot, Failure> {
        let busy = |why: &str| Failure::new(RelayErrorCode::Unavailable, format!("{why}; retry shortly"));
        {
            let mut in_flight = self.wallet_uploads.lock();
            let count = in_flight.entry(wallet).or_default();
            if *count >= UPLOADS_PER_WALLET {
                return Err(busy(&format!("this wallet already has {UPLOADS_PER_WALLET} uploads in flight")));
            }
            *count += 1;
        }
        // From here the place is given back whatever happens.
        let place = WalletPlace { wallet, in_flight: self.wallet_uploads.clone() };
        // Never more than the whole budget, or a large upload on a small relay could never go.
        let budget = (self.config.upload_memory_bytes / CHUNK_BYTES).max(1) as u64;
        // A body of undeclared length (chunked) may be as large as an object can be.
        let length = declared.unwrap_or(MAX_OBJECT_BYTES as u64);
        let chunks = length.div_ceil(CHUNK_BYTES as u64).clamp(1, budget);
        let chunks = u32::try_from(chunks).unwrap_or(u32::MAX);
        let memory =
            tokio::time::timeout(self.config.upload_slot_wait, self.uploads.clone().acquire_many_owned(chunks))
                .await
                .ok()
                .and_then(Result::ok)
                .ok_or_else(|| busy("the relay is busy with other uploads"))?;
        Ok(UploadSlot { _memory: memory, _place: place })
    }

    /// Applies the rules of the module documentation to a request for `volume`.
    async fn authorize(
        &self,
        access: Access,
        volume: &str,
        (method, uri, headers): (&Method, &Uri, &HeaderMap),
        body: Body,
    ) -> Result<Authorized, Failure> {
        let id: H256 = volume.parse().map_err(|_| {
            Failure::new(RelayErrorCode::BadRequest, "a volume id is 32 bytes of hex (64 digits, optional 0x)")
        })?;
        let is_upload = access == Access::Write && method == Method::PUT;
        let limit = if is_upload { MAX_OBJECT_BYTES } else { MAX_SMALL_BODY_BYTES };
        let declared = header(headers, header::CONTENT_LENGTH.as_str()).parse::<u64>().ok();
        if declared.is_some_and(|length| length > limit as u64) {
            return Err(too_large(limit));
        }
        // The token is checked before the lookup, whatever the volume: an unknown volume and a
        // private one must not differ in the work a stranger's request costs either.
        let now = now_ms();
        let token_error = |message: String| Failure::new(RelayErrorCode::RasTokenInvalid, message);
        let mut token = DelegationToken::decode(header(headers, DELEGATION_HEADER))
            .and_then(|token| token.verify(self.config.chain_id, now).map(|()| token))
            .map_err(|e| token_error(e.to_string()));
        let info = self.volume_info(id).await?.ok_or_else(Failure::unknown_volume)?;
        if access == Access::Read && info.public {
            return Ok(Authorized { volume: id, info, body: Bytes::new(), _upload: None });
        }
        if let Ok(owner_token) = &token
            && owner_token.wallet == info.owner
            && self.revoked(owner_token).await?
        {
            token = Err(token_error("the delegation token's session key was revoked on chain".into()));
        }
        let by_owner = token.as_ref().is_ok_and(|token| token.wallet == info.owner);
        if !info.public && !by_owner {
            return Err(Failure::unknown_volume());
        }
        let token = token?;
        if !by_owner {
            return Err(Failure::new(RelayErrorCode::Forbidden, "only the volume's owner may write to it"));
        }
        if access == Access::Write && info.status != VolumeStatus::Active {
            let why = match info.status {
                VolumeStatus::Grace => "its deposit ran out (grace period): top it up to write again",
                _ => "it was deleted",
            };
            return Err(Failure::new(RelayErrorCode::Forbidden, format!("the volume takes no writes: {why}")));
        }

        // Bodies are held whole in memory until stored: only so much at once, and only so many
        // uploads per wallet.
        let upload = if is_upload { Some(self.upload_slot(token.wallet, declared).await?) } else { None };
        let body = tokio::time::timeout(self.config.upload_body_timeout, read_body(body, limit, declared))
            .await
            .map_err(|_| {
                Failure::new(
                    RelayErrorCode::BadRequest,
                    format!("the body did not arrive within {} s", self.config.upload_body_timeout.as_secs()),
                )
            })??;
        let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
        let nonce = verify_request(
            &token,
            (method.as_str(), path, &body),
            &relay_audience(&self.config.relay_address),
            (header(headers, TIMESTAMP_HEADER), header(headers, NONCE_HEADER), header(headers, SIGNATURE_HEADER)),
            now,
        )
        .map_err(|e| Failure::new(RelayErrorCode::RasRequestInvalid, e.to_string()))?;
        self.nonces
            .accept(token.wallet, nonce, now)
            .map_err(|e| Failure::new(RelayErrorCode::RasReplayed, e.to_string()))?;
        Ok(Authorized { volume: id, info, body, _upload: upload })
    }
}

fn too_large(limit: usize) -> Failure {
    Failure::new(RelayErrorCode::ObjectTooLarge, format!("the request body exceeds {limit} bytes"))
}

async fn read_body(body: Body, limit: usize, declared: Option<u64>) -> Result<Bytes, Failure> {
    let mut stream = body.into_data_stream();
    let mut out = Vec::with_capacity(declared.map_or(0, |length| length.min(limit as u64) as usize));
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            Failure::new(RelayErrorCode::BadRequest, format!("the request body could not be read: {e}"))
        })?;
        if out.len() + chunk.len() > limit {
            return Err(too_large(limit));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(out))
}

/// Runs a store operation on a blocking thread (the store fsyncs under its locks).
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, StoreError> + Send + 'static) -> Result<T, Failure> {
    tokio::task::spawn_blocking(f).await.map_err(Failure::internal)?.map_err(Failure::from_store)
}

/// Reads the next chunk of `reader` on a blocking thread; hands the reader back with it.
async fn blocking_chunk(mut reader: ObjectReader) -> Result<(ObjectReader, Option<Vec<u8>>), Failure> {
    tokio::task::spawn_blocking(move || {
        let chunk = reader.next_chunk();
        chunk.map(|chunk| (reader, chunk))
    })
    .await
    .map_err(Failure::internal)?
    .map_err(Failure::from_store)
}

/// An object's bytes as a body stream: `first`, then the rest of `reader` one chunk at a time,
/// so a response holds one chunk in memory whatever the object's size.
fn object_stream(
    first: Option<Vec<u8>>,
    reader: ObjectReader,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    futures::stream::unfold((first, Some(reader)), |(pending, reader)| async move {
        if let Some(bytes) = pending {
            return Some((Ok(Bytes::from(bytes)), (None, reader)));
        }
        match blocking_chunk(reader?).await {
            Ok((reader, Some(bytes))) => Some((Ok(Bytes::from(bytes)), (None, Some(reader)))),
            Ok((_, None)) => None,
            Err(failure) => {
                tracing::error!(message = %failure.message, "an object's chunk could not be read; the response is cut short");
                Some((Err(std::io::Error::other(failure.message)), (None, None)))
            }
        }
    })
}

fn bad_path(rejection: PathRejection) -> Failure {
    Failure::new(RelayErrorCode::BadRequest, format!("bad path: {rejection}"))
}

fn checked_key(key: String) -> Result<String, Failure> {
    validate_key(&key).map_err(|e| Failure::new(RelayErrorCode::BadRequest, e.to_string()))?;
    Ok(key)
}

type AppState<D> = State<Arc<Shared<D>>>;

async fn health<D: Directory>(State(shared): AppState<D>) -> Result<Json<HealthResponse>, Failure> {
    let store = shared.store.clone();
    let usage = blocking(move || Ok(store.usage())).await?;
    Ok(Json(HealthResponse { relay: shared.config.relay_address, volumes: usage.volumes, bytes: usage.bytes }))
}

async fn volume_info<D: Directory>(
    State(shared): AppState<D>,
    path: Result<Path<String>, PathRejection>,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<VolumeResponse>, Failure> {
    let Path(volume) = path.map_err(bad_path)?;
    let access = shared.authorize(Access::Read, &volume, (&method, &uri, &headers), body).await?;
    let (store, id) = (shared.store.clone(), access.volume);
    let summary = blocking(move || Ok(store.summary(id))).await?;
    Ok(Json(VolumeResponse {
        volume_id: id,
        root: summary.root,
        size_bytes: summary.size_bytes,
        objects: summary.objects,
    }))
}

/// The listing's query string.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    #[serde(default)]
    prefix: String,
    after: Option<String>,
    limit: Option<usize>,
}

async fn list_objects<D: Directory>(
    State(shared): AppState<D>,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<ListQuery>, QueryRejection>,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<ListResponse>, Failure> {
    let Path(volume) = path.map_err(bad_path)?;
    let Query(query) =
        query.map_err(|e| Failure::new(RelayErrorCode::BadRequest, format!("bad query: {}", e.body_text())))?;
    let limit = query.limit.unwrap_or(DEFAULT_LIST_LIMIT);
    if !(1..=MAX_LIST_LIMIT).contains(&limit) {
        return Err(Failure::new(RelayErrorCode::BadRequest, format!("limit is 1 to {MAX_LIST_LIMIT}")));
    }
    if query.prefix.len() > MAX_KEY_BYTES || query.after.as_ref().is_some_and(|after| after.len() > MAX_KEY_BYTES) {
        return Err(Failure::new(
            RelayErrorCode::BadRequest,
            format!("prefix and after are at most {MAX_KEY_BYTES} bytes"),
        ));
    }
    let access = shared.authorize(Access::Read, &volume, (&method, &uri, &headers), body).await?;
    let (store, id) = (shared.store.clone(), access.volume);
    let page = blocking(move || Ok(store.list(id, &query.prefix, query.after.as_deref(), limit))).await?;
    Ok(Json(ListResponse { entries: page.entries, next_after: page.next_after }))
}

async fn get_object<D: Directory>(
    State(shared): AppState<D>,
    path: Result<Path<(String, String)>, PathRejection>,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, Failure> {
    let Path((volume, key)) = path.map_err(bad_path)?;
    let key = checked_key(key)?;
    let access = shared.authorize(Access::Read, &volume, (&method, &uri, &headers), body).await?;
    let (store, id) = (shared.store.clone(), access.volume);
    let reader = blocking(move || store.open_object(id, &key))
        .await?
        .ok_or_else(|| Failure::new(RelayErrorCode::NotFound, "no such object"))?;
    let (size, content_hash) = (reader.size, reader.content_hash);
    // The first chunk is read before answering, so a damaged object is a 500; a later damaged
    // chunk ends the stream early (the client's content-hash check catches it).
    let (reader, first) = blocking_chunk(reader).await?;
    let mut response = Response::new(Body::from_stream(object_stream(first, reader)));
    let response_headers = response.headers_mut();
    response_headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"));
    response_headers.insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    // Clients refuse an object without its hash, so it is never left out.
    let etag = HeaderValue::from_str(&format!("\"{content_hash}\"")).map_err(Failure::internal)?;
    response_headers.insert(header::ETAG, etag);
    if !access.info.public {
        response_headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    }
    Ok(response)
}

async fn put_object<D: Directory>(
    State(shared): AppState<D>,
    path: Result<Path<(String, String)>, PathRejection>,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<PutResponse>, Failure> {
    let Path((volume, key)) = path.map_err(bad_path)?;
    let key = checked_key(key)?;
    let access = shared.authorize(Access::Write, &volume, (&method, &uri, &headers), body).await?;
    let (store, id, stored_key) = (shared.store.clone(), access.volume, key.clone());
    let (bytes, max_size_bytes) = (access.body, access.info.max_size_bytes);
    let outcome = blocking(move || store.put(id, &stored_key, &bytes, max_size_bytes)).await?;
    tracing::debug!(volume = %id, %key, size = outcome.size, "object stored");
    Ok(Json(PutResponse { key, size: outcome.size, content_hash: outcome.content_hash, root: outcome.volume.root }))
}

async fn delete_object<D: Directory>(
    State(shared): AppState<D>,
    path: Result<Path<(String, String)>, PathRejection>,
    method: Method,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<DeleteResponse>, Failure> {
    let Path((volume, key)) = path.map_err(bad_path)?;
    let key = checked_key(key)?;
    let access = shared.authorize(Access::Write, &volume, (&method, &uri, &headers), body).await?;
    let (store, id, deleted_key) = (shared.store.clone(), access.volume, key.clone());
    let summary = blocking(move || store.delete(id, &deleted_key))
        .await?
        .ok_or_else(|| Failure::new(RelayErrorCode::NotFound, "no such object"))?;
    tracing::debug!(volume = %id, %key, "object deleted");
    Ok(Json(DeleteResponse { key, root: summary.root }))
}

/// Answers reused for a while; bounded by [`MAX_CACHED_ANSWERS`] (expired ones are dropped when
/// it fills, and everything if that is not enough).
struct TtlCache<K, V> {
    ttl: Duration,
    entries: Mutex<HashMap<K, (Instant, V)>>,
}

impl<K: Hash + Eq, V: Clone> TtlCache<K, V> {
    fn new(ttl: Duration) -> Self {
        TtlCache { ttl, entries: Mutex::new(HashMap::new()) }
    }

    fn get(&self, key: &K) -> Option<V> {
        let entries = self.entries.lock();
        entries.get(key).filter(|(at, _)| at.elapsed() < self.ttl).map(|(_, value)| value.clone())
    }

    fn insert(&self, key: K, value: V) {
        let mut entries = self.entries.lock();
        if entries.len() >= MAX_CACHED_ANSWERS {
            entries.retain(|_, (at, _)| at.elapsed() < self.ttl);
            if entries.len() >= MAX_CACHED_ANSWERS {
                entries.clear();
            }
        }
        entries.insert(key, (Instant::now(), value));
    }
}
