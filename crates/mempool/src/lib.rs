//! The transaction pool of a Drover validator.
//!
//! Transactions arrive verified (chain id and signature checked, sender recovered) from the HTTP
//! handlers, wait here, are chosen by the block proposer and leave when a block including them
//! (or using their nonce) is finalized, when they expire, or when something better takes their
//! place. The pool is a synchronous data structure: [`Mempool`] is a cheap [`Clone`] handle over
//! one `parking_lot` mutex, shared by admission (many HTTP handlers), selection (the proposer)
//! and removal (the finalizer). One lock suffices because every operation is logarithmic in the
//! pool's size except selection, which visits about as many senders as it chooses; the
//! expensive part of admission (signature recovery) happens before, outside the lock. A single
//! lock also gives selection a consistent view across senders.
//!
//! Structure and invariants (the private `pool` module documents the indexes):
//! - each sender's pending transactions form a queue `BTreeMap<nonce, tx>` whose nonces are all
//!   at or above the sender's finalized next nonce; senders with nothing pending are forgotten;
//! - a hash index maps every pending hash to its (sender, nonce), so [`Mempool::len`] is exact
//!   under every path (admit, replace, evict, finalize, remove, expire);
//! - what a sender's queue reserves (value plus maximum fees) never exceeds the balance it had
//!   when its latest transaction was admitted;
//! - no input panics: refusals are typed [`PoolRefusal`]s, listed in [`rules`].
//!
//! Lifecycle calls, in the node's order:
//! - [`Mempool::admit`] for each submitted transaction, with the sender's finalized account and
//!   the basefees in force;
//! - [`Mempool::select`] when proposing; it removes nothing;
//! - [`Mempool::remove`] when the proposer finds a chosen transaction cannot execute;
//! - [`Mempool::finalized`] once per finalized block, after the block's transactions are
//!   indexed;
//! - [`Mempool::evict_stale`] periodically.
//!
//! A transaction that leaves without being included is remembered with its [`DropReason`]
//! (the last [`DROPPED_HISTORY_LEN`] of them) for [`Mempool::dropped_reason`].
//!
//! Known limit: if the finalizer prunes a sender to nothing while an admission holds an older
//! read of that sender's account, a transaction with an already-used nonce can be admitted. It
//! never executes: the proposer's [`Mempool::remove`] or the time to live removes it.

mod account;
pub mod config;
pub mod dropped;
pub mod fees;
mod pool;
pub mod rules;
pub mod select;
#[cfg(test)]
mod testing;

pub use config::Config;
pub use dropped::{DROPPED_HISTORY_LEN, DropReason};
pub use rules::{Admitted, SenderState};
pub use select::SelectLimits;

use drover_types::{Address, Basefees, H256, VerifiedTransaction, admission::PoolRefusal};
use parking_lot::Mutex;
use pool::Pool;
use std::{collections::HashMap, sync::Arc, time::Instant};

/// A shared handle on the pool; clones share the same pool.
#[derive(Clone, Debug)]
pub struct Mempool {
    pool: Arc<Mutex<Pool>>,
}

impl Mempool {
    /// An empty pool with `config`'s limits.
    pub fn new(config: Config) -> Self {
        Self { pool: Arc::new(Mutex::new(Pool::new(config))) }
    }

    /// Sets the largest `cycles_limit` and `cells_limit` admitted: the chain's block limits, which
    /// governance may change (the node sets them from every finalized block's parameters).
    /// Pending transactions above lowered limits are dropped: no block could hold them any more.
    pub fn set_tx_limits(&self, max_tx_cycles: u64, max_tx_cells: u64) {
        self.pool.lock().set_tx_limits(max_tx_cycles, max_tx_cells);
    }

    /// Admits a verified transaction (policies in [`rules`]). The caller has applied the
    /// validity rule's parts that need no sender state and read `sender`'s account in the
    /// latest finalized state; `now` is the admission time the time to live counts from.
    pub fn admit(&self, tx: VerifiedTransaction, sender: SenderState, now: Instant) -> Result<Admitted, PoolRefusal> {
        self.pool.lock().admit(tx, sender, now)
    }

    /// Chooses transactions for a proposal under `limits` and `basefees` (order in [`select`]).
    /// `next_nonces` gives, for senders with transactions in not-yet-finalized ancestor blocks,
    /// the nonce to start from. Removes nothing.
    pub fn select(
        &self,
        limits: SelectLimits,
        basefees: Basefees,
        next_nonces: &HashMap<Address, u64>,
    ) -> Vec<VerifiedTransaction> {
        self.pool.lock().select(limits, basefees, next_nonces)
    }

    /// Applies a finalized block: removes the `included` transactions, then every pending
    /// transaction of the senders in `next_nonces` below their new next nonce (recorded as
    /// [`DropReason::NonceUsed`]), and forgets senders left with nothing. Senders absent from
    /// the pool are ignored. Returns how many transactions left the pool.
    pub fn finalized(&self, next_nonces: &[(Address, u64)], included: &[H256]) -> usize {
        self.pool.lock().finalized(next_nonces, included)
    }

    /// Drops a pending transaction for `reason` (for example, the proposer found it cannot
    /// execute). The sender's later nonces stay: the sender may fill the gap. Returns whether
    /// it was pending.
    pub fn remove(&self, hash: &H256, reason: DropReason) -> bool {
        self.pool.lock().remove(hash, reason)
    }

    /// Drops every transaction pending for the configured time to live or longer at `now`;
    /// returns how many.
    pub fn evict_stale(&self, now: Instant) -> usize {
        self.pool.lock().evict_stale(now)
    }

    /// A pending transaction.
    pub fn get(&self, hash: &H256) -> Option<VerifiedTransaction> {
        self.pool.lock().get(hash).cloned()
    }

    /// Whether the transaction with this hash is pending.
    pub fn contains(&self, hash: &H256) -> bool {
        self.pool.lock().by_hash.contains_key(hash)
    }

    /// `sender`'s pending transactions that `keep` accepts, in nonce order (`keep` runs under
    /// the pool's lock: keep it cheap).
    pub fn pending_from(
        &self,
        sender: &Address,
        keep: impl Fn(&VerifiedTransaction) -> bool,
    ) -> Vec<VerifiedTransaction> {
        self.pool.lock().pending_from(sender, keep)
    }

    /// The nonce `sender`'s next transaction should carry, counting its contiguous pending
    /// transactions from `finalized_nonce` (its nonce in the latest finalized state) or the
    /// pool's own newer knowledge of it.
    pub fn next_nonce(&self, sender: &Address, finalized_nonce: u64) -> u64 {
        self.pool.lock().next_nonce(sender, finalized_nonce)
    }

    /// Pending transactions.
    pub fn len(&self) -> usize {
        self.pool.lock().len()
    }

    /// Whether no transaction is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Accounts with pending transactions.
    pub fn sender_count(&self) -> usize {
        self.pool.lock().sender_count()
    }

    /// Why a recently dropped transaction left the pool (`None` while it is pending, if it was
    /// included, or if it was dropped too long ago).
    pub fn dropped_reason(&self, hash: &H256) -> Option<DropReason> {
        self.pool.lock().dropped_reason(hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{address, low_basefees, verified};
    use drover_types::admission::PoolRefusalKind;
    use std::{
        sync::atomic::{AtomicBool, AtomicUsize, Ordering},
        thread,
        time::Duration,
    };

    #[test]
    fn handle_round_trip() {
        let mempool = Mempool::new(Config::default());
        let clone = mempool.clone();
        let tx = verified(1, 0, 1, 0);
        let state = SenderState { nonce: 0, balance: u128::MAX };
        assert_eq!(mempool.admit(tx.clone(), state, Instant::now()), Ok(Admitted::New));
        assert!(clone.contains(&tx.hash));
        assert_eq!(clone.get(&tx.hash), Some(tx.clone()));
        assert_eq!((clone.len(), clone.sender_count(), clone.is_empty()), (1, 1, false));
        assert_eq!(clone.next_nonce(&address(1), 0), 1);
        let limits = SelectLimits { max_count: 10, max_cycles: 1_000_000, max_cells: 0, max_bytes: usize::MAX };
        assert_eq!(clone.select(limits, low_basefees(), &HashMap::new()), vec![tx.clone()]);
        assert_eq!(clone.finalized(&[(address(1), 1)], &[tx.hash]), 1);
        assert!(mempool.is_empty());
        assert_eq!(mempool.sender_count(), 0);
        assert_eq!(mempool.dropped_reason(&tx.hash), None);
    }

    #[test]
    fn pending_from_lists_a_senders_transactions_that_pass_the_filter() {
        let mempool = Mempool::new(Config::default());
        let state = SenderState { nonce: 0, balance: u128::MAX };
        let txs = [verified(1, 1, 1, 0), verified(1, 0, 1, 0), verified(1, 2, 5, 0), verified(2, 0, 1, 0)];
        for tx in &txs {
            mempool.admit(tx.clone(), state, Instant::now()).unwrap();
        }
        assert_eq!(mempool.pending_from(&address(1), |_| true), vec![txs[1].clone(), txs[0].clone(), txs[2].clone()]);
        assert_eq!(mempool.pending_from(&address(1), |tx| tx.tx.tip_per_cycle == 5), vec![txs[2].clone()]);
        assert_eq!(mempool.pending_from(&address(3), |_| true), Vec::new());
    }

    #[test]
    fn remove_and_expire_through_the_handle() {
        let mempool = Mempool::new(Config { ttl: Duration::from_secs(5), ..Config::default() });
        let start = Instant::now();
        let state = SenderState { nonce: 0, balance: u128::MAX };
        let (a, b) = (verified(1, 0, 1, 0), verified(2, 0, 1, 0));
        mempool.admit(a.clone(), state, start).unwrap();
        mempool.admit(b.clone(), state, start + Duration::from_secs(1)).unwrap();
        assert!(mempool.remove(&a.hash, DropReason::Invalid("E1004".into())));
        assert_eq!(mempool.evict_stale(start + Duration::from_secs(5)), 0);
        assert_eq!(mempool.evict_stale(start + Duration::from_secs(6)), 1);
        assert_eq!(mempool.dropped_reason(&a.hash), Some(DropReason::Invalid("E1004".into())));
        assert_eq!(mempool.dropped_reason(&b.hash), Some(DropReason::Expired));
        assert!(mempool.is_empty());
    }

    /// Admitting threads, a proposing-and-finalizing thread and an expiring thread race on a
    /// pool with `max_transactions`; returns the pool, how many transactions were admitted new
    /// and how many finalization and expiry removed.
    fn race(max_transactions: usize) -> (Mempool, usize, usize) {
        const ADMITTERS: u32 = 4;
        const SENDERS_PER_ADMITTER: u32 = 25;
        const ROUNDS: u64 = 12;

        let mempool = Mempool::new(Config {
            max_transactions,
            max_per_sender: 8,
            max_nonce_gap: 4,
            ttl: Duration::from_millis(50),
            ..Config::default()
        });
        // The finalized state the node would read: each sender's next nonce.
        let chain: Arc<Mutex<HashMap<Address, u64>>> = Arc::default();
        let admitted = Arc::new(AtomicUsize::new(0));
        let removed = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(AtomicBool::new(false));

        let admitters: Vec<_> = (0..ADMITTERS)
            .map(|worker| {
                let (mempool, chain, admitted) = (mempool.clone(), chain.clone(), admitted.clone());
                thread::spawn(move || {
                    for round in 0..ROUNDS {
                        for offset in 0..SENDERS_PER_ADMITTER {
                            let sender = worker * SENDERS_PER_ADMITTER + offset;
                            // Read the finalized state and admit under one lock, as a node
                            // admits against the state it just read: a stale read would let
                            // admission itself prune (as `NonceUsed`) what this count misses.
                            let chain = chain.lock();
                            let finalized = chain.get(&address(sender)).copied().unwrap_or(0);
                            let state = SenderState { nonce: finalized, balance: u128::MAX };
                            let nonce = mempool.next_nonce(&address(sender), finalized);
                            let tip = u128::from(round % 7 + u64::from(sender % 5));
                            let tx = verified(sender, nonce, tip, 0);
                            let outcome = mempool.admit(tx, state, Instant::now());
                            drop(chain);
                            match outcome {
                                Ok(Admitted::New) => {
                                    admitted.fetch_add(1, Ordering::SeqCst);
                                }
                                Ok(Admitted::Replaced { .. }) => {}
                                Err(err) => assert!(
                                    matches!(
                                        err.kind,
                                        PoolRefusalKind::SenderFull
                                            | PoolRefusalKind::PoolFull
                                            | PoolRefusalKind::NonceUsed
                                            | PoolRefusalKind::NonceGap
                                            | PoolRefusalKind::AlreadyKnown
                                            | PoolRefusalKind::ReplacementUnderpriced
                                    ),
                                    "{err:?}"
                                ),
                            }
                        }
                    }
                })
            })
            .collect();

        let proposer = {
            let (mempool, chain, removed, done) = (mempool.clone(), chain.clone(), removed.clone(), done.clone());
            thread::spawn(move || {
                let limits =
                    SelectLimits { max_count: 40, max_cycles: u64::MAX, max_cells: u64::MAX, max_bytes: usize::MAX };
                while !done.load(Ordering::SeqCst) {
                    let block = mempool.select(limits, low_basefees(), &HashMap::new());
                    let mut next_nonces: HashMap<Address, u64> = HashMap::new();
                    for tx in &block {
                        let next = next_nonces.entry(tx.sender).or_default();
                        *next = (*next).max(tx.tx.nonce + 1);
                    }
                    let next_nonces: Vec<_> = next_nonces.into_iter().collect();
                    let included: Vec<_> = block.iter().map(|tx| tx.hash).collect();
                    // State first, then the pool, under one lock so that no admitter reads the
                    // new nonces against the old pool.
                    let mut chain = chain.lock();
                    chain.extend(next_nonces.iter().copied());
                    removed.fetch_add(mempool.finalized(&next_nonces, &included), Ordering::SeqCst);
                    drop(chain);
                    thread::yield_now();
                }
            })
        };
        let expirer = {
            let (mempool, removed, done) = (mempool.clone(), removed.clone(), done.clone());
            thread::spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    removed.fetch_add(mempool.evict_stale(Instant::now()), Ordering::SeqCst);
                    thread::sleep(Duration::from_millis(1));
                }
            })
        };

        for admitter in admitters {
            admitter.join().unwrap();
        }
        done.store(true, Ordering::SeqCst);
        proposer.join().unwrap();
        expirer.join().unwrap();
        let (admitted, removed) = (admitted.load(Ordering::SeqCst), removed.load(Ordering::SeqCst));
        (mempool, admitted, removed)
    }

    #[test]
    fn counts_stay_exact_under_concurrency() {
        // 100 senders × 8 per sender never fill 1,000 slots, so nothing is evicted for room
        // and the count is exactly admissions minus removals.
        let (mempool, admitted, removed) = race(1_000);
        let pool = mempool.pool.lock();
        pool.check_invariants().unwrap();
        assert!(admitted > 0);
        assert_eq!(pool.len(), admitted - removed);
        assert!(pool.sender_count() <= pool.len());
    }

    #[test]
    fn indexes_stay_exact_under_concurrency_with_a_full_pool() {
        let (mempool, admitted, removed) = race(60);
        let pool = mempool.pool.lock();
        pool.check_invariants().unwrap();
        assert!(pool.len() <= 60);
        // Evictions for room remove without being counted as removals.
        assert!(pool.len() <= admitted - removed);
    }
}
