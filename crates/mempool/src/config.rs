//! Pool limits.
//!
//! Every bound the pool enforces is here, so that memory use is bounded by configuration and
//! never by what clients send: the global count caps memory, the per-sender count and nonce gap
//! stop one account from filling the pool with transactions that cannot execute soon, the
//! per-transaction limits refuse transactions no block could ever hold, and the time to live
//! removes what no proposer wanted.

use std::time::Duration;

/// Default most pending transactions in the pool.
pub const DEFAULT_MAX_TRANSACTIONS: usize = 100_000;
/// Default most pending transactions of one sender.
pub const DEFAULT_MAX_PER_SENDER: usize = 1_024;
/// Default most nonces a transaction may skip past the sender's next contiguous nonce.
pub const DEFAULT_MAX_NONCE_GAP: u64 = 1_024;
/// Default time a transaction may stay pending, in seconds.
pub const DEFAULT_TTL_SECS: u64 = 600;
/// Largest `cycles_limit` of one transaction until the node sets the chain's block limit
/// ([`Mempool::set_tx_limits`](crate::Mempool::set_tx_limits)): the default genesis's (2 × 10,000,000).
pub const DEFAULT_MAX_TX_CYCLES: u64 = 20_000_000;
/// Largest `cells_limit` of one transaction until the node sets the chain's block limit: the
/// default genesis's (2 × 500,000).
pub const DEFAULT_MAX_TX_CELLS: u64 = 1_000_000;

/// Limits of a [`Mempool`](crate::Mempool).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Most pending transactions, all senders together.
    pub max_transactions: usize,
    /// Most pending transactions of one sender.
    pub max_per_sender: usize,
    /// Most nonces a transaction may skip past the sender's next contiguous nonce.
    pub max_nonce_gap: u64,
    /// How long a transaction may stay pending before [`Mempool::evict_stale`] drops it.
    ///
    /// [`Mempool::evict_stale`]: crate::Mempool::evict_stale
    pub ttl: Duration,
    /// Largest `cycles_limit` admitted: a transaction above the block limit could never be
    /// proposed. It follows the chain's limit ([`Mempool::set_tx_limits`](crate::Mempool::set_tx_limits)).
    pub max_tx_cycles: u64,
    /// Largest `cells_limit` admitted, for the same reason.
    pub max_tx_cells: u64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_transactions: DEFAULT_MAX_TRANSACTIONS,
            max_per_sender: DEFAULT_MAX_PER_SENDER,
            max_nonce_gap: DEFAULT_MAX_NONCE_GAP,
            ttl: Duration::from_secs(DEFAULT_TTL_SECS),
            max_tx_cycles: DEFAULT_MAX_TX_CYCLES,
            max_tx_cells: DEFAULT_MAX_TX_CELLS,
        }
    }
}
