//! Every limit the HTTP layer enforces, as a named constant with its unit.
//!
//! Values are the API's limits (`docs/errors.md`, "Server limits"); sizes are binary
//! (1 MB = 1,048,576 bytes, 512 KB = 524,288 bytes). Nothing here is weakened for tests: tests
//! that need a small limit construct their configuration explicitly.

// Longest actor storage key a proof, a read or a storage cursor may name: the VM's bound, so no
// longer key can exist, and it keeps state keys within what the state database decodes.
pub use drover_types::params::MAX_STORAGE_KEY_BYTES;
pub use drover_types::submission::{MAX_SUBMISSION_BYTES, MAX_TRANSACTIONS_PER_SUBMISSION};

/// Largest request body of any route, in bytes (1 MB). Larger bodies get 413 with code 6000.
pub const MAX_REQUEST_BYTES: usize = 1_048_576;

/// Least `timeout_ms` of `POST /submit_wait`, in milliseconds; a lower one is refused (2015).
pub const WAIT_TIMEOUT_MS_MIN: u64 = 100;
/// Greatest `timeout_ms` of `POST /submit_wait`, in milliseconds; a higher one is refused (2015).
pub const WAIT_TIMEOUT_MS_MAX: u64 = 10_000;
/// `timeout_ms` of `POST /submit_wait` when the query leaves it out, in milliseconds.
pub const WAIT_TIMEOUT_MS_DEFAULT: u64 = 5_000;

/// Most `/submit_wait` requests waiting for receipts at once; one more is refused before
/// admission with 429, code 1004 and `Retry-After`. Each waiter re-reads its receipts after
/// every block, so the bound also bounds that work (at most 50 reads per waiter and block).
pub const SUBMIT_WAITS_IN_FLIGHT_MAX: usize = 256;

/// Longest time a request may take from its head to its answer (reading the body included), in
/// milliseconds; past it the answer is 503 with code 1003 and `Retry-After`. Above the longest
/// `/submit_wait` wait, so a wait always answers on its own.
pub const REQUEST_TIMEOUT_MS: u64 = 30_000;
const _: () = assert!(REQUEST_TIMEOUT_MS > WAIT_TIMEOUT_MS_MAX + 5_000);

/// Longest time a client may take to send a request head, in milliseconds, counted from the
/// connection's start (its first bytes, or [`STREAM_PLACEMENT_WAIT_MS`] after it opened) or its
/// previous answer. A client that began a head and did not finish it
/// gets 408 with code 1003 and the connection is closed; a connection that stays idle that long
/// is closed without an answer (it asked nothing), which bounds idle keep-alive connections too.
pub const HEADER_READ_TIMEOUT_MS: u64 = 10_000;

/// Longest time the server waits for a new connection's first bytes to see whether it opens a
/// push stream, in milliseconds (`crate::serve_streams_apart`); a connection that sent nothing
/// by then is served as any other, its head timer starting then. Clients send their request as
/// soon as they connect, so this is only ever reached by one that is idle anyway.
pub const STREAM_PLACEMENT_WAIT_MS: u64 = 100;

/// Longest time writing an answer may wait for the client to read, in milliseconds; then the
/// connection is closed (a client that stops reading cannot hold a connection).
pub const RESPONSE_WRITE_TIMEOUT_MS: u64 = 30_000;

/// Most HTTP connections open at once. A connection beyond it is answered 429 with code 1004,
/// `Retry-After` and `Connection: close`, and closed. The node's open-file limit must leave room
/// for it (and for storage and p2p).
pub const HTTP_CONNECTIONS_MAX: usize = 1_024;
/// One client's share of [`HTTP_CONNECTIONS_MAX`], in percent of it (rounded up, at least one
/// connection): a client (a peer IP) holding this many open connections gets another only while
/// more than this many are free, else it is refused like a connection beyond the cap (429, code
/// 1004). One client alone can so open all but the last share (921 of 1,024 connections, the
/// share being 103), which stays for the clients under their share.
pub const HTTP_CONNECTIONS_CLIENT_SHARE_PERCENT: usize = 10;

/// How long a refused connection is kept open after its answer to read what the client still
/// sends, in milliseconds: closing a socket with unread input resets it, which can destroy the
/// answer before the client reads it.
pub const REFUSAL_LINGER_MS: u64 = 1_000;

/// Page size of list endpoints when `limit` is absent, in items.
pub const PAGE_LIMIT_DEFAULT: u64 = 50;
/// Largest page size; a larger `limit` is capped to it, in items.
pub const PAGE_LIMIT_MAX: u64 = 1_000;
/// Bytes of records one page of an actor's storage, mailbox, timers or logs, of `/events` (the
/// events it answers and those it passes over), or of `/blocks` (whose records hold their
/// blocks' transaction hashes) reads at most: once
/// the items it has read reach them, the page ends (always after its first item) and says where
/// to go on, its cursor or `offset` plus the items it holds. Items are up to 128 KiB (a message's
/// or a timer's payload), so [`PAGE_LIMIT_MAX`] of them alone would be a page of 128 MiB; this
/// keeps a page near 4 MiB (about 5.5 MB of JSON), as `/events` pages are.
pub const PAGE_READ_BYTES_MAX: usize = 4 * 1024 * 1024;

/// Pending transactions at which the node reports itself (and its mempool) degraded.
pub const MEMPOOL_DEGRADED_THRESHOLD_TXS: usize = 30_000;

/// Requests accepted from all clients together in any window of
/// [`GLOBAL_RATE_LIMIT_WINDOW_MS`], unless `RPC_GLOBAL_RATE_LIMIT_PER_SEC` says otherwise.
pub const GLOBAL_RATE_LIMIT_PER_SEC_DEFAULT: u32 = 100;
/// Window of the global rate limit, in milliseconds.
pub const GLOBAL_RATE_LIMIT_WINDOW_MS: u64 = 1_000;
/// One client's share of the global rate limit, in percent of it (rounded up, at least one
/// request): a client (a peer IP) that holds this many of the window's acceptances is served
/// only while more than this many slots of the window are free. One client alone can therefore
/// use the limit but its last share (90 of 100 requests per second at the default), and
/// whatever it does, that last share stays for the clients under their share (runners' heartbeats
/// and results, relays, wallets): it answers 429 with code 1004 too, counted under
/// `limiter="global_share"`.
pub const GLOBAL_RATE_CLIENT_SHARE_PERCENT: u32 = 10;

/// Faucet requests accepted node-wide in any window of [`FAUCET_RATE_LIMIT_WINDOW_MS`] when the
/// node's faucet settings do not say otherwise.
pub const FAUCET_REQUESTS_PER_MINUTE_DEFAULT: u32 = 5;
/// Window of the faucet rate limit, in milliseconds.
pub const FAUCET_RATE_LIMIT_WINDOW_MS: u64 = 60_000;

/// Requests one client IP may make to `/state/snapshot` and `/state/operations` together in any
/// window of [`STATE_SYNC_RATE_LIMIT_WINDOW_MS`], unless `STATE_SYNC_RATE_PER_SEC` says otherwise.
pub const STATE_SYNC_RATE_PER_SEC_DEFAULT: u32 = 5;
/// Window of the state-sync rate limit, in milliseconds.
pub const STATE_SYNC_RATE_LIMIT_WINDOW_MS: u64 = 1_000;

/// Requests one client IP may make to the public storage-relay reads (`/ras/stats`,
/// `/ras/relays/public`, `/ras/write-relayers`, `/ras/billing/summary`,
/// `/ras/revocations/{wallet}/{session_key}`) together in any window of
/// [`STORAGE_PUBLIC_RATE_LIMIT_WINDOW_MS`] (the default of `RpcConfig::storage_public_rate_per_sec`,
/// which tests lower). A relay checking revocations should cache the answers
/// for a few seconds rather than ask once per request it serves.
pub const STORAGE_PUBLIC_RATE_PER_SEC: u32 = 20;
/// Window of the public storage-relay rate limit, in milliseconds.
pub const STORAGE_PUBLIC_RATE_LIMIT_WINDOW_MS: u64 = 1_000;

/// Most volumes `GET /ras/accounts/balance` reads for one wallet; a wallet with more gets the
/// sums over its first ones (in volume-id order) and `truncated: true`.
pub const STORAGE_ACCOUNT_VOLUMES_MAX: u64 = 1_000;

/// Most operations one `GET /state/operations` returns; a larger `max` is refused (400).
/// At the default 5 requests per second this bounds a client to 250,000 operations per second.
pub const STATE_OPERATIONS_MAX: u64 = 50_000;

/// Largest encoded answer of `GET /state/operations`, in bytes (8 MiB). Operations have no fixed
/// size (a value may be 64 KB, actor code 256 KB, any state value up to 4 MiB), so `max`
/// operations alone do not bound the answer: when they would encode larger, the node serves the
/// longest prefix that fits, and always at least one operation, which with its proof always
/// fits. A client asks for the rest from where the answer ends.
pub const MAX_OPERATIONS_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// Most proof requests one `POST /proof/multi` may carry; a longer list is refused (400).
pub const MULTI_PROOF_REQUESTS_MAX: usize = 32;

/// Most cycles a `POST /actor/read` may run (also its default budget): a block's cycle target.
/// A read holds the state's read lock while it runs (at ~250 million cycles per second, about
/// 40 ms at this cap), which delays the next block's commit by as much, so the cap stays small.
pub const READ_MAX_CYCLES: u64 = 10_000_000;
/// Most cells a `POST /actor/read` may meter (also its default budget).
pub const READ_MAX_CELLS: u64 = 1_000_000;

/// Smallest `Retry-After` sent with a 429, in seconds (the header has whole-second resolution,
/// and 0 would invite an immediate retry that is bound to fail).
pub const RETRY_AFTER_SECS_MIN: u64 = 1;

/// Most emitter addresses one `GET /events` may name; more are refused (400).
pub const EVENTS_EMITTERS_MAX: usize = 16;
/// Most topics one `GET /events` may name; more are refused (400).
pub const EVENTS_TOPICS_MAX: usize = 4;
/// Longest topic a query may name, in bytes: the VM's bound on an event's topic, so a longer one
/// matches nothing and is refused (400).
pub const EVENTS_TOPIC_BYTES_MAX: usize = 64;
/// Most blocks one `GET /events` (or an event stream's catch-up query) may span, `from_height`
/// to `to_height` inclusive; a wider range is refused (400). Left open, the range ends at the
/// tip and starts this many blocks before it (or at the first indexed height).
pub const EVENTS_RANGE_BLOCKS_MAX: u64 = 10_000;
/// Most index entries one event query examines, the events it answers included: past it, the
/// query answers what it found with a cursor to go on from (a page may then hold fewer events
/// than its limit). Bounds the work of a filter that matches little in a busy range.
pub const EVENTS_SCAN_ENTRIES_MAX: u64 = 10_000;

/// Most push streams (`/stream/...`) open at once, unless `RPC_STREAM_SUBSCRIBERS_MAX` says
/// otherwise; one more is refused with 429 (1004). Each is a connection, so the connection cap
/// ([`HTTP_CONNECTIONS_MAX`]) bounds it too; this leaves room for requests.
pub const STREAM_SUBSCRIBERS_MAX_DEFAULT: usize = 768;
/// Most push streams one client IP may hold open at once, unless
/// `RPC_STREAM_SUBSCRIBERS_PER_CLIENT` says otherwise; one more is refused with 429 (1004).
pub const STREAM_SUBSCRIBERS_PER_CLIENT_DEFAULT: usize = 64;
/// Messages a stream holds for its client beyond what the connection is sending. A stream that
/// is caught up and finds its buffer full when a new block's messages arrive is closed with a
/// `closed` message saying so (a slow consumer); its client resumes with `Last-Event-ID`. While
/// it catches up on past blocks, the stream waits for room instead.
pub const STREAM_BUFFER_MESSAGES: usize = 1_024;
/// Bytes of messages a stream holds for its client beyond what the connection is sending (or
/// one message, however large: a block of 16,384 transactions encodes to about 1.1 MB), under
/// the same rule: what the node holds for its streams is at most this per stream.
pub const STREAM_BUFFER_BYTES: usize = 1024 * 1024;
/// Interval of the comment line a stream sends when it has nothing to say, in seconds: proxies
/// keep the connection, and a client that stopped reading is found by the write timeout.
pub const STREAM_KEEPALIVE_SECS: u64 = 15;
/// Items one catch-up read of a stream takes from the indexes at once.
pub const STREAM_CATCH_UP_PAGE: u64 = 256;
/// Index entries one catch-up page of an event stream examines at most: a filter that matches
/// little reads the index in steps this size, not [`EVENTS_SCAN_ENTRIES_MAX`] at a time.
pub const STREAM_CATCH_UP_SCAN_ENTRIES: u64 = 4 * STREAM_CATCH_UP_PAGE;
/// Pause between two catch-up pages of one event stream: a page whose events the client takes at
/// once costs no wait, so without it one request would walk the index as fast as the node reads.
pub const STREAM_CATCH_UP_PAUSE_MS: u64 = 20;

/// Margin `POST /simulate` adds to what a transaction used beyond its intrinsic cost when it
/// suggests its limits, in percent: the state may change between the simulation and the block
/// that includes it (a storage slot filled, a longer list to walk), but the intrinsic cost is
/// the transaction's own (so a plain transfer, which is nothing else, gets none).
pub const SIMULATION_MARGIN_PERCENT: u64 = 20;
