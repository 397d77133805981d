//! Every limit the HTTP layer enforces, as a named constant with its unit.
//!
//! Values come from the spec's Limits table and DESIGN.md ("Submissions"); sizes are binary
//! (1 MB = 1,048,576 bytes, 512 KB = 524,288 bytes). Nothing here is weakened for tests: tests
//! that need a small limit construct their configuration explicitly.

pub use drover_types::submission::{MAX_SUBMISSION_BYTES, MAX_TRANSACTIONS_PER_SUBMISSION};

/// Largest request body of any route, in bytes (1 MB). Larger bodies get 413 with code 6000.
pub const MAX_REQUEST_BYTES: usize = 1_048_576;

/// Bounds and default of `timeout_ms` of `POST /submit_wait`, in milliseconds.
pub const WAIT_TIMEOUT_MS_MIN: u64 = 100;
pub const WAIT_TIMEOUT_MS_MAX: u64 = 10_000;
pub const WAIT_TIMEOUT_MS_DEFAULT: u64 = 5_000;

/// Page size of list endpoints when `limit` is absent, in items.
pub const PAGE_LIMIT_DEFAULT: u64 = 50;
/// Largest page size; a larger `limit` is capped to it, in items.
pub const PAGE_LIMIT_MAX: u64 = 1_000;

/// Pending transactions at which the node reports itself (and its mempool) degraded.
pub const MEMPOOL_DEGRADED_THRESHOLD_TXS: usize = 30_000;

/// Requests accepted from all clients together in any window of
/// [`GLOBAL_RATE_LIMIT_WINDOW_MS`], unless `RPC_GLOBAL_RATE_LIMIT_PER_SEC` says otherwise.
pub const GLOBAL_RATE_LIMIT_PER_SEC_DEFAULT: u32 = 100;
/// Window of the global rate limit, in milliseconds.
pub const GLOBAL_RATE_LIMIT_WINDOW_MS: u64 = 1_000;

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

/// Most operations one `GET /state/operations` returns; a larger `max` is refused (400).
/// At the default 5 requests per second this bounds a client to 250,000 operations per second.
pub const STATE_OPERATIONS_MAX: u64 = 50_000;

/// Most proof requests one `POST /proof/multi` may carry; a longer list is refused (400).
pub const MULTI_PROOF_REQUESTS_MAX: usize = 32;

/// Longest actor storage key a proof may be asked for, in bytes (the VM's bound: no longer key
/// can exist, and it keeps state keys within what the state database decodes).
pub const STORAGE_KEY_BYTES_MAX: usize = 256;

/// Most cycles a `POST /actor/read` may run (also its default budget): a block's cycle target.
/// A read holds the state's read lock while it runs (at ~250 million cycles per second, about
/// 40 ms at this cap), which delays the next block's commit by as much, so the cap stays small.
pub const READ_MAX_CYCLES: u64 = 10_000_000;
/// Most cells a `POST /actor/read` may meter (also its default budget).
pub const READ_MAX_CELLS: u64 = 1_000_000;

/// Smallest `Retry-After` sent with a 429, in seconds (the header has whole-second resolution,
/// and 0 would invite an immediate retry that is bound to fail).
pub const RETRY_AFTER_SECS_MIN: u64 = 1;
