//! Serving the API over TCP, with the limits that keep clients from holding the node's sockets.
//!
//! axum's own `serve` has neither a header-read timeout nor a connection cap, so connections are
//! driven here by hyper's HTTP/1 server (the protocol axum serves):
//!
//! - at most [`HTTP_CONNECTIONS_MAX`] connections are open at once. One more is answered 429
//!   (code 1004, `Retry-After`, `Connection: close`) and closed; the refusals themselves are
//!   bounded in number and time (a refusal reads at most one request head for
//!   [`REFUSAL_LINGER_MS`]), and beyond that bound a connection is closed unanswered;
//! - a client (a peer IP, an IPv6 peer's /56: [`ClientId`]) holding its share of the cap ([`HTTP_CONNECTIONS_CLIENT_SHARE_PERCENT`]
//!   of it) gets another connection only while more than a share of the cap is free, else it is
//!   refused the same way: one client cannot take every connection from the others;
//! - a request head must arrive within [`HEADER_READ_TIMEOUT_MS`] of the connection's start (its
//!   first bytes, or the stream placement wait after it opened) or of its previous answer. hyper then gives the connection up; a client that had begun a head
//!   is answered 408 (code 1003) before the close, while a connection that merely stayed idle is
//!   closed without an answer, as idle keep-alive connections are;
//! - writing an answer may wait at most [`RESPONSE_WRITE_TIMEOUT_MS`] for the client to read.
//!
//! [`serve_streams_apart`] runs a connection whose first request opens a push stream on a
//! runtime of its own. Every block's message goes to every block stream at once: a thousand
//! writes, each a task woken together. On the runtime that answers requests, a request arriving
//! then queues behind all of them (a worker runs its queue in order), and every answer of the
//! node waits for the fan-out; on a runtime of their own, the OS scheduler shares the cores
//! between the two, and a request is answered while the streams are written. The first bytes
//! of a connection say where it goes (peeked, not read, so hyper reads them as usual). A
//! connection placed with the streams is not kept alive past its first answer: a client reusing
//! it for requests (after a `/stream/tx/{hash}` ends, say) would have them queue behind every
//! block's fan-out again.
//!
//! The request timeout and the cap on `/submit_wait` waits are layers of the router
//! ([`crate::router`]). Every refusal carries the JSON error body ([`crate::error`]). Requests
//! carry the peer address as `ConnectInfo<SocketAddr>` for the per-IP limits. On shutdown the
//! listener closes, idle connections close, and requests in flight are answered first.

use crate::{
    client::ClientId,
    error::connection_refusal,
    limits::{
        HEADER_READ_TIMEOUT_MS, HTTP_CONNECTIONS_CLIENT_SHARE_PERCENT, HTTP_CONNECTIONS_MAX, REFUSAL_LINGER_MS,
        RESPONSE_WRITE_TIMEOUT_MS, RETRY_AFTER_SECS_MIN, STREAM_PLACEMENT_WAIT_MS,
    },
};
use axum::{
    body::Body,
    extract::{ConnectInfo, Request},
    http::StatusCode,
    response::Response,
};
use drover_types::{ErrorCode, api::paths::STREAMS_PREFIX, error::ApiError};
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::{
    collections::HashMap,
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
    task::{Context, Poll},
    time::Duration,
};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf},
    net::{TcpListener, TcpStream},
    runtime::Handle,
    sync::{OwnedSemaphorePermit, Semaphore, watch},
    time::{Sleep, timeout},
};
use tower::{Service, ServiceExt as _};
use tracing::{debug, error};

/// Wait after an accept error that is not about one connection (most likely the process is out
/// of file descriptors), so the loop does not spin while connections close.
const ACCEPT_RETRY_MS: u64 = 1_000;
/// Most bytes a refusal reads (a request head, or what follows an answer) before it closes.
const REFUSAL_READ_BYTES_MAX: usize = 16 * 1024;

/// The connection limits of [`serve_with`]; [`Default`] gives the constants of
/// [`crate::limits`] (tests construct smaller ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// Connections open at once.
    pub connections_max: usize,
    /// One client's share of `connections_max`, in percent (rounded up, at least one).
    pub connections_client_share_percent: usize,
    /// Time allowed for a request head, in milliseconds.
    pub header_read_timeout_ms: u64,
    /// Time an answer's write may wait for the client to read, in milliseconds.
    pub response_write_timeout_ms: u64,
    /// Time a new connection's first bytes are awaited to place it, in milliseconds.
    pub stream_placement_wait_ms: u64,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            connections_max: HTTP_CONNECTIONS_MAX,
            connections_client_share_percent: HTTP_CONNECTIONS_CLIENT_SHARE_PERCENT,
            header_read_timeout_ms: HEADER_READ_TIMEOUT_MS,
            response_write_timeout_ms: RESPONSE_WRITE_TIMEOUT_MS,
            stream_placement_wait_ms: STREAM_PLACEMENT_WAIT_MS,
        }
    }
}

/// What the server answers requests with: an [`axum::Router`], or a [`Switch`](crate::starting::Switch)
/// between two. Cloned once per request, so it must be cheap to clone.
pub trait Api:
    Service<Request, Response = Response, Error = Infallible, Future: Send + 'static> + Clone + Send + Sync + 'static
{
}
impl<S> Api for S where
    S: Service<Request, Response = Response, Error = Infallible, Future: Send + 'static>
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// Serves `api` on `listener` with the default [`ServerLimits`] until `shutdown` completes,
/// then finishes the requests in flight.
pub async fn serve(
    listener: TcpListener,
    api: impl Api,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    serve_with(listener, api, shutdown, ServerLimits::default()).await
}

/// [`serve`], with the connections that open a push stream run on `streams` (see the module
/// doc). The caller keeps `streams` running as long as the server.
pub async fn serve_streams_apart(
    listener: TcpListener,
    api: impl Api,
    shutdown: impl Future<Output = ()> + Send + 'static,
    streams: Handle,
) -> io::Result<()> {
    serve_placed(listener, api, shutdown, ServerLimits::default(), Some(streams)).await
}

/// [`serve`] with explicit limits.
pub async fn serve_with(
    listener: TcpListener,
    api: impl Api,
    shutdown: impl Future<Output = ()> + Send + 'static,
    limits: ServerLimits,
) -> io::Result<()> {
    serve_placed(listener, api, shutdown, limits, None).await
}

/// [`serve_with`], with the stream connections on `streams` when there is one.
async fn serve_placed(
    listener: TcpListener,
    api: impl Api,
    shutdown: impl Future<Output = ()> + Send + 'static,
    limits: ServerLimits,
    streams: Option<Handle>,
) -> io::Result<()> {
    let connections = Arc::new(Semaphore::new(limits.connections_max));
    let share = limits.connections_max.saturating_mul(limits.connections_client_share_percent).div_ceil(100).max(1);
    let clients = ClientConnections::default();
    // Refusals are cheap but not free (a task and a socket each): bounded like connections.
    let refusals = Arc::new(Semaphore::new(limits.connections_max));
    let (closing, closing_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            // The client went away before it was accepted: nothing to serve.
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                error!(error = %e, "accepting an HTTP connection failed; retrying");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(ACCEPT_RETRY_MS)) => continue,
                    () = &mut shutdown => break,
                }
            }
        };
        // Answers are small and latency matters more than packet count: never let Nagle's
        // algorithm hold an answer back for the client's delayed ACK. (Failing leaves the
        // default, which is only slower.)
        let _ = stream.set_nodelay(true);
        let client = ClientId::of(peer.ip());
        let held = clients.held(client);
        let within_share = held < share || connections.available_permits() > share;
        let permit = if within_share { connections.clone().try_acquire_owned().ok() } else { None };
        if let Some(permit) = permit {
            let slot = clients.open(client);
            let (api, closing) = (api.clone(), closing_rx.clone());
            let serve =
                move |stream, keep_alive| connection(stream, peer, api, limits, keep_alive, closing, (permit, slot));
            tokio::spawn(placed(stream, peer, streams.clone(), limits.stream_placement_wait_ms, serve));
        } else if let Ok(permit) = refusals.clone().try_acquire_owned() {
            let why = if within_share {
                debug!(%peer, "HTTP connections at their cap: answering 429");
                format!("the node serves at most {} HTTP connections at once; retry later", limits.connections_max)
            } else {
                debug!(%peer, held, "HTTP client at its share of the connections: answering 429");
                format!(
                    "this client holds {held} of the node's {} HTTP connections; the last {share} are kept for \
                     other clients: reuse or close one",
                    limits.connections_max
                )
            };
            tokio::spawn(refuse(stream, why, permit));
        } else {
            debug!(%peer, "HTTP connection closed unanswered: connections and refusals at their caps");
        }
    }
    drop(listener);
    let _ = closing.send(true);
    // Every connection holds a permit until it ends: holding them all means all have ended.
    let all = u32::try_from(limits.connections_max).unwrap_or(u32::MAX);
    let _ = connections.acquire_many(all).await;
    Ok(())
}

/// Errors of `accept` that concern only the connection being accepted.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    )
}

/// Open connections per client ([`ClientId`]; clients holding none are not kept, so the map
/// holds at most as many clients as there are open connections).
#[derive(Clone, Default)]
struct ClientConnections(Arc<Mutex<HashMap<ClientId, usize>>>);

impl ClientConnections {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ClientId, usize>> {
        // Every update is one map operation: a panic cannot leave it half done.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The connections `client` holds open.
    fn held(&self, client: ClientId) -> usize {
        self.lock().get(&client).copied().unwrap_or(0)
    }

    /// Counts a connection of `client` until the returned slot is dropped.
    fn open(&self, client: ClientId) -> ClientSlot {
        *self.lock().entry(client).or_default() += 1;
        ClientSlot { clients: self.clone(), client }
    }
}

/// One open connection of a client, counted in [`ClientConnections`] until dropped.
struct ClientSlot {
    clients: ClientConnections,
    client: ClientId,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut clients = self.clients.lock();
        if let Some(held) = clients.get_mut(&self.client) {
            *held -= 1;
            if *held == 0 {
                clients.remove(&self.client);
            }
        }
    }
}

/// Runs `serve` on `stream`: on the `streams` runtime, not kept alive, when the connection's
/// first request opens a stream (within `wait_ms`), else here.
async fn placed<F: Future<Output = ()> + Send + 'static>(
    stream: TcpStream,
    peer: SocketAddr,
    streams: Option<Handle>,
    wait_ms: u64,
    serve: impl FnOnce(TcpStream, bool) -> F + Send + 'static,
) {
    let streams = match streams {
        Some(streams) if opens_a_stream(&stream, wait_ms).await => streams,
        _ => return serve(stream, true).await,
    };
    // A socket belongs to the reactor of the runtime it was registered with: it leaves this one
    // before it joins the other.
    match stream.into_std() {
        Ok(stream) => {
            streams.spawn(async move {
                match TcpStream::from_std(stream) {
                    Ok(stream) => serve(stream, false).await,
                    Err(e) => debug!(%peer, error = %e, "a stream's connection could not join the streams' runtime"),
                }
            });
        }
        Err(e) => debug!(%peer, error = %e, "a stream's connection could not leave the requests' runtime"),
    }
}

/// Whether the first bytes `stream` received within `wait_ms` begin a request that opens a
/// stream. Peeked: they stay for hyper to read.
async fn opens_a_stream(stream: &TcpStream, wait_ms: u64) -> bool {
    const GET_STREAM: usize = "GET ".len() + STREAMS_PREFIX.len();
    let mut first = [0u8; GET_STREAM];
    let peeked = timeout(Duration::from_millis(wait_ms), stream.peek(&mut first)).await;
    // A request line cut before the prefix (it never is in practice) is served as any other.
    matches!(peeked, Ok(Ok(GET_STREAM))) && first[..4] == *b"GET " && first[4..] == *STREAMS_PREFIX.as_bytes()
}

/// Serves one connection until it ends (after its first answer unless `keep_alive`), holding its
/// slot of the cap and of its client's share (`_slots`) meanwhile.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    api: impl Api,
    limits: ServerLimits,
    keep_alive: bool,
    mut closing: watch::Receiver<bool>,
    _slots: (OwnedSemaphorePermit, ClientSlot),
) {
    let io = Watched::new(stream, Duration::from_millis(limits.response_write_timeout_ms));
    // One copy of the API per connection, not per request (cloning a layered service is a good
    // part of what a small request costs): HTTP/1 answers one request at a time, so the lock is
    // never contended.
    let api = Arc::new(tokio::sync::Mutex::new(api));
    let service = service_fn(move |request: hyper::Request<Incoming>| {
        let mut request = request.map(Body::new);
        request.extensions_mut().insert(ConnectInfo(peer));
        let api = Arc::clone(&api);
        async move {
            let answer = {
                let mut api = api.lock().await;
                api.ready().await?.call(request)
            };
            answer.await
        }
    });
    let ended = {
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(Duration::from_millis(limits.header_read_timeout_ms))
            .keep_alive(keep_alive);
        let conn = builder.serve_connection(TokioIo::new(io.clone()), service);
        let mut conn = std::pin::pin!(conn);
        // Also over when the sender is gone (the server's task ended): close gracefully then too.
        let closed = async {
            let _ = closing.wait_for(|closing| *closing).await;
        };
        tokio::select! {
            ended = conn.as_mut() => ended,
            () = closed => {
                conn.as_mut().graceful_shutdown();
                conn.await
            }
        }
    };
    match ended {
        Ok(()) => {}
        Err(e) if e.is_timeout() && io.unanswered_input() => {
            debug!(%peer, "request head not received in time: answering 408");
            let error = ApiError::new(
                ErrorCode::Timeout,
                format!(
                    "the request head did not arrive within {} ms; the connection is closed",
                    limits.header_read_timeout_ms
                ),
            );
            answer_and_close(io, &connection_refusal(StatusCode::REQUEST_TIMEOUT, &error, None)).await;
        }
        Err(e) => debug!(%peer, error = %e, "HTTP connection ended"),
    }
}

/// Answers a connection beyond the cap or its client's share with 429 (saying `why`) and closes
/// it, all within a few [`REFUSAL_LINGER_MS`].
async fn refuse(mut stream: TcpStream, why: String, _permit: OwnedSemaphorePermit) {
    // Read the request head first: an HTTP client may treat an answer that comes before its
    // request as a broken connection.
    let _ = timeout(Duration::from_millis(REFUSAL_LINGER_MS), read_head(&mut stream)).await;
    let error = ApiError::new(ErrorCode::RateLimited, why);
    answer_and_close(stream, &connection_refusal(StatusCode::TOO_MANY_REQUESTS, &error, Some(RETRY_AFTER_SECS_MIN)))
        .await;
}

/// Reads until the end of a request head, [`REFUSAL_READ_BYTES_MAX`] bytes or the end of input.
async fn read_head(stream: &mut TcpStream) {
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    while head.len() < REFUSAL_READ_BYTES_MAX {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
        if head.windows(4).any(|window| window == b"\r\n\r\n") {
            return;
        }
    }
}

/// Writes `answer`, ends the write side and reads what the client still sends for
/// [`REFUSAL_LINGER_MS`] before closing: closing a socket with unread input resets it, which can
/// destroy the answer before the client reads it.
async fn answer_and_close<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, answer: &[u8]) {
    let linger = Duration::from_millis(REFUSAL_LINGER_MS);
    if !matches!(timeout(linger, stream.write_all(answer)).await, Ok(Ok(()))) {
        return;
    }
    let _ = timeout(linger, stream.shutdown()).await;
    let _ = timeout(linger, async {
        let mut chunk = [0u8; 1024];
        let mut read = 0;
        while read < REFUSAL_READ_BYTES_MAX {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => read += n,
            }
        }
    })
    .await;
}

/// A connection's stream as hyper drives it, shared so that the server can still answer on it
/// after hyper gave up on a request head. It notes whether input arrived since the last answer
/// (a request begun and not answered) and fails a write that waits longer than its write
/// timeout for the client to read.
struct Watched<S>(Arc<Mutex<WatchedState<S>>>);

struct WatchedState<S> {
    stream: S,
    /// Bytes were read since the last bytes were written.
    unanswered_input: bool,
    write_timeout: Duration,
    /// Armed while a write waits for the client to read; cleared by any progress.
    write_deadline: Option<Pin<Box<Sleep>>>,
}

impl<S> Clone for Watched<S> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Watched<S> {
    fn new(stream: S, write_timeout: Duration) -> Self {
        Self(Arc::new(Mutex::new(WatchedState {
            stream,
            unanswered_input: false,
            write_timeout,
            write_deadline: None,
        })))
    }

    /// The state; a panic while it was held cannot have left it inconsistent (each poll updates
    /// it after the stream call returns), so a poisoned lock is used as is.
    fn state(&self) -> std::sync::MutexGuard<'_, WatchedState<S>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn unanswered_input(&self) -> bool {
        self.state().unanswered_input
    }
}

impl<S: AsyncWrite + Unpin> WatchedState<S> {
    /// After a write that made no progress: pending until the write timeout, then an error.
    fn stalled(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let limit = self.write_timeout;
        let deadline = self.write_deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing of the answer for {} ms", limit.as_millis()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn wrote(&mut self, written: Poll<io::Result<usize>>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        match written {
            Poll::Ready(result) => {
                self.write_deadline = None;
                if matches!(result, Ok(n) if n > 0) {
                    self.unanswered_input = false;
                }
                Poll::Ready(result)
            }
            Poll::Pending => self.stalled(cx),
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Watched<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let mut state = self.state();
        let before = buf.filled().len();
        let read = Pin::new(&mut state.stream).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            state.unanswered_input = true;
        }
        read
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let mut state = self.state();
        let written = Pin::new(&mut state.stream).poll_write(cx, data);
        state.wrote(written, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut state = self.state();
        let written = Pin::new(&mut state.stream).poll_write_vectored(cx, bufs);
        state.wrote(written, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.state().stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.state().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.state().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::MockBackend;

    /// Failure guard of every wait below: far above any limit these tests set.
    const GUARD: Duration = Duration::from_secs(30);

    /// A server with `limits` over the mock node on a loopback port; it stops when the returned
    /// sender is dropped.
    async fn server(limits: ServerLimits) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
        server_over(MockBackend::default(), limits).await
    }

    /// [`server`] over `backend`.
    async fn server_over(backend: MockBackend, limits: ServerLimits) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let config = crate::RpcConfig::default();
        let http = crate::Http::new(&config);
        let api = crate::layered(crate::router(backend, config, &http), &http);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let shutdown = async move {
            let _ = stopped.await;
        };
        tokio::spawn(serve_with(listener, api, shutdown, limits));
        (address, stop)
    }

    /// Everything the server sends until it closes the connection.
    async fn until_closed(stream: &mut TcpStream) -> String {
        let mut answer = Vec::new();
        timeout(GUARD, stream.read_to_end(&mut answer))
            .await
            .expect("the server closes the connection")
            .expect("the connection ends cleanly");
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// The JSON body of a whole answer.
    fn body(answer: &str) -> serde_json::Value {
        let (_, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no head end: {answer}"));
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"))
    }

    /// Sends a GET on a connection kept alive and reads its answer (by its content-length).
    async fn get_on(stream: &mut TcpStream, path: &str) -> String {
        ask_on(stream, format!("GET {path} HTTP/1.1\r\nhost: node\r\n\r\n").into_bytes()).await
    }

    /// Sends a JSON POST on a connection kept alive and reads its answer.
    async fn post_on(stream: &mut TcpStream, path: &str, body: &[u8]) -> String {
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: node\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        ask_on(stream, [head.as_bytes(), body].concat()).await
    }

    /// A connection to `server` from the loopback address `local` (any of 127.0.0.0/8).
    async fn connect_from(local: [u8; 4], server: SocketAddr) -> TcpStream {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::from((local, 0))).unwrap();
        socket.connect(server).await.unwrap()
    }

    /// Sends `request` on a connection kept alive and reads its answer (by its content-length).
    async fn ask_on(stream: &mut TcpStream, request: Vec<u8>) -> String {
        stream.write_all(&request).await.unwrap();
        let mut answer = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(end) = answer.windows(4).position(|window| window == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .and_then(|value| value.trim().parse().ok())
                    .unwrap_or(0);
                if answer.len() >= end + 4 + length {
                    return String::from_utf8_lossy(&answer).into_owned();
                }
            }
            let read = timeout(GUARD, stream.read(&mut chunk)).await.expect("an answer").unwrap();
            assert!(read > 0, "closed before the answer: {}", String::from_utf8_lossy(&answer));
            answer.extend_from_slice(&chunk[..read]);
        }
    }

    /// A connection whose first request opens a stream runs on the streams' runtime and closes
    /// after its answer; any other connection, and one that sent nothing within the placement
    /// wait, runs where it was accepted and is kept alive.
    #[tokio::test]
    async fn a_connection_that_opens_a_stream_runs_on_the_streams_runtime() {
        const STREAMS_THREAD: &str = "streams-of-the-test";
        let streams = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name(STREAMS_THREAD)
            .enable_all()
            .build()
            .unwrap();
        let thread = || async { std::thread::current().name().unwrap_or_default().to_owned() };
        let api = axum::Router::new()
            .route(&format!("{STREAMS_PREFIX}where"), axum::routing::get(thread))
            .route("/where", axum::routing::get(thread));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let limits = ServerLimits { stream_placement_wait_ms: 20, ..ServerLimits::default() };
        tokio::spawn(serve_placed(listener, api, shutdown, limits, Some(streams.handle().clone())));
        let served_on = |answer: String| answer.rsplit("\r\n\r\n").next().unwrap_or_default().to_owned();

        let mut stream = TcpStream::connect(address).await.unwrap();
        assert_eq!(served_on(get_on(&mut stream, "/stream/where").await), STREAMS_THREAD);
        let mut rest = Vec::new();
        let closed = timeout(GUARD, stream.read_to_end(&mut rest)).await.expect("the connection closes");
        assert!(closed.is_ok() && rest.is_empty(), "{closed:?} {rest:?}");
        let mut other = TcpStream::connect(address).await.unwrap();
        assert_ne!(served_on(get_on(&mut other, "/where").await), STREAMS_THREAD);
        assert_ne!(served_on(get_on(&mut other, "/where").await), STREAMS_THREAD, "kept alive");
        let mut late = TcpStream::connect(address).await.unwrap();
        // Far beyond the wait: the server has looked and given up by then, however busy.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_ne!(served_on(get_on(&mut late, "/stream/where").await), STREAMS_THREAD);

        drop(stop);
        streams.shutdown_background();
    }

    #[tokio::test]
    async fn a_head_that_does_not_arrive_in_time_is_answered_408_and_cut_off() {
        let limits = ServerLimits { header_read_timeout_ms: 200, ..ServerLimits::default() };
        let (address, _stop) = server(limits).await;

        // Begun, never finished.
        let mut slow = TcpStream::connect(address).await.unwrap();
        slow.write_all(b"GET /height HTTP/1.1\r\nhost: node\r\nx-slow: ").await.unwrap();
        let answer = until_closed(&mut slow).await;
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
        assert!(answer.contains("connection: close\r\n"), "{answer}");
        let body = body(&answer);
        assert_eq!((body["code"].as_u64(), body["error"].as_str()), (Some(1003), Some("timeout")), "{body}");

        // Never begun: closed without an answer, as is a kept-alive connection left idle.
        let mut idle = TcpStream::connect(address).await.unwrap();
        assert_eq!(until_closed(&mut idle).await, "");
        let mut kept = TcpStream::connect(address).await.unwrap();
        let answer = get_on(&mut kept, "/health").await;
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
        assert_eq!(until_closed(&mut kept).await, "");
    }

    #[tokio::test]
    async fn connections_beyond_the_cap_are_answered_429_until_one_closes() {
        // One client: with a share of the whole cap, the share does not apply.
        let limits =
            ServerLimits { connections_max: 2, connections_client_share_percent: 100, ..ServerLimits::default() };
        let (address, _stop) = server(limits).await;
        // Two connections that have been answered hold the two slots.
        let mut held = Vec::new();
        for _ in 0..2 {
            let mut stream = TcpStream::connect(address).await.unwrap();
            let answer = get_on(&mut stream, "/health").await;
            assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
            held.push(stream);
        }
        let close = b"GET /health HTTP/1.1\r\nhost: node\r\nconnection: close\r\n\r\n";
        let mut extra = TcpStream::connect(address).await.unwrap();
        extra.write_all(close).await.unwrap();
        let answer = until_closed(&mut extra).await;
        assert!(answer.starts_with("HTTP/1.1 429 "), "{answer}");
        assert!(answer.contains("retry-after: 1\r\n") && answer.contains("connection: close\r\n"), "{answer}");
        let body = body(&answer);
        assert_eq!((body["code"].as_u64(), body["error"].as_str()), (Some(1004), Some("rate_limited")), "{body}");

        // The held connections are still served.
        assert!(get_on(&mut held[0], "/height").await.starts_with("HTTP/1.1 200 "));
        // Closing one frees its slot once the server has seen the close, which it does on its
        // own time: ask until then (bounded by a count).
        drop(held.pop());
        for attempt in 0.. {
            let mut stream = TcpStream::connect(address).await.unwrap();
            stream.write_all(close).await.unwrap();
            let answer = until_closed(&mut stream).await;
            if answer.starts_with("HTTP/1.1 200 ") {
                break;
            }
            assert!(answer.starts_with("HTTP/1.1 429 "), "{answer}");
            assert!(attempt < 1_000, "the closed connection's slot was never freed");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The status code of a whole answer.
    fn status(answer: &str) -> u16 {
        answer.get(9..12).and_then(|code| code.parse().ok()).unwrap_or_else(|| panic!("no status: {answer}"))
    }

    #[tokio::test]
    async fn a_client_at_its_share_of_the_connections_is_refused_and_the_others_are_not() {
        // 10 connections, a share of 2: one client alone gets 8, the last 2 stay for others.
        let limits =
            ServerLimits { connections_max: 10, connections_client_share_percent: 20, ..ServerLimits::default() };
        let (address, _stop) = server(limits).await;
        let mut held = Vec::new();
        for _ in 0..8 {
            let mut stream = connect_from([127, 0, 0, 1], address).await;
            assert_eq!(status(&get_on(&mut stream, "/health").await), 200);
            held.push(stream);
        }
        let mut ninth = connect_from([127, 0, 0, 1], address).await;
        ninth.write_all(b"GET /health HTTP/1.1\r\nhost: node\r\n\r\n").await.unwrap();
        let answer = until_closed(&mut ninth).await;
        assert_eq!(status(&answer), 429, "{answer}");
        assert!(body(&answer)["message"].as_str().unwrap().contains("kept for other clients"), "{answer}");
        // Another client gets the last two, and the first one's connections are still served.
        for _ in 0..2 {
            let mut stream = connect_from([127, 0, 0, 2], address).await;
            assert_eq!(status(&get_on(&mut stream, "/health").await), 200);
            held.push(stream);
        }
        assert_eq!(status(&get_on(&mut held[0], "/height").await), 200);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flooding_client_meets_429s_while_another_client_and_a_runner_are_served() {
        use base64::Engine as _;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        // The default limits: 100 requests per second for all clients, a share of 10.
        let (address, _stop) =
            server_over(crate::backend::runners::mock::with_registered_runner(), ServerLimits::default()).await;
        let flooding = Arc::new(AtomicBool::new(true));
        let (served, refused) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let started = std::time::Instant::now();
        let mut flooders = Vec::new();
        for _ in 0..4 {
            let (flooding, served, refused) = (flooding.clone(), served.clone(), refused.clone());
            flooders.push(tokio::spawn(async move {
                let mut stream = connect_from([127, 0, 0, 1], address).await;
                while flooding.load(Ordering::Relaxed) {
                    match status(&get_on(&mut stream, "/height").await) {
                        200 => served.fetch_add(1, Ordering::Relaxed),
                        429 => refused.fetch_add(1, Ordering::Relaxed),
                        other => panic!("the flooder got {other}"),
                    };
                }
            }));
        }
        // Let the flood fill the window first.
        tokio::time::sleep(Duration::from_millis(500)).await;

        // Another client asking 5 times a second is served every time.
        let mut other = connect_from([127, 0, 0, 2], address).await;
        for _ in 0..15 {
            let answer = get_on(&mut other, "/height").await;
            assert_eq!(status(&answer), 200, "{answer}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        // A runner's signed heartbeat goes through too.
        let runner = crate::mock::key(0);
        let mut runner_stream = connect_from([127, 0, 0, 3], address).await;
        let path = format!("/runner/{}/heartbeat", runner.address().to_hex());
        let answer = get_on(&mut runner_stream, &format!("{path}_payload")).await;
        assert_eq!(status(&answer), 200, "{answer}");
        let unsigned = base64::engine::general_purpose::STANDARD
            .decode(body(&answer)["unsigned_transaction_base64"].as_str().unwrap())
            .unwrap();
        let tx = drover_types::Transaction::decode(&unsigned).unwrap();
        let signature = tx.sign(&runner).signature.unwrap().to_rsv();
        let request = serde_json::json!({
            "unsigned_transaction_base64": base64::engine::general_purpose::STANDARD.encode(&unsigned),
            "signature": format!("0x{}", hex::encode(signature)),
        });
        let answer = post_on(&mut runner_stream, &path, &serde_json::to_vec(&request).unwrap()).await;
        assert_eq!(status(&answer), 200, "{answer}");

        flooding.store(false, Ordering::Relaxed);
        for flooder in flooders {
            flooder.await.unwrap();
        }
        // The flooder was served at most 90 in any second, and refused the rest.
        let seconds = started.elapsed().as_secs() + 1;
        let (served, refused) = (served.load(Ordering::Relaxed), refused.load(Ordering::Relaxed));
        assert!(refused > 0, "the flooder was never refused ({served} served)");
        assert!(served > 0 && served <= 90 * seconds, "{served} served to the flooder in {seconds} s");
    }

    #[tokio::test]
    async fn an_answer_the_client_does_not_read_fails_after_the_write_timeout() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut watched = Watched::new(ours, Duration::from_millis(50));
        // Input since the last answer is what makes a timed-out head worth a 408.
        theirs.write_all(b"GET /").await.unwrap();
        let mut head = [0u8; 5];
        watched.read_exact(&mut head).await.unwrap();
        assert!(watched.unanswered_input());
        watched.write_all(b"HTTP/1.1 200 OK\r\n").await.unwrap();
        assert!(!watched.unanswered_input());
        // The peer reads nothing: the pipe fills and the write gives up.
        let error =
            timeout(GUARD, watched.write_all(&[0u8; 1024])).await.expect("the write gives up by itself").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }
}
