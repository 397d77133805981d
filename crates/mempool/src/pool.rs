//! The pool's state and the only paths that change it.
//!
//! State: per-sender [`Account`] queues (`BTreeMap<nonce, Pending>`), and four indexes over them:
//! - `by_hash`: hash → (sender, nonce) of every pending transaction;
//! - `ready`: nominal [`Priority`] → [`Head`], one entry per sender whose queue holds its
//!   `next_nonce` (the executable heads selection starts from);
//! - `tails`: nominal priority → sender of every sender's highest-nonce transaction (eviction
//!   candidates that leave no nonce gap);
//! - `by_age`: (admission instant, hash) of every pending transaction, oldest first.
//!
//! Invariants: `by_hash` and `by_age` hold exactly the queued transactions (so the pending count
//! is `by_hash.len()` and never drifts), `ready` and `tails` hold exactly the accounts' current
//! keys, and no account is empty. Every mutation goes through [`Pool::insert`], [`Pool::take`]
//! or [`Pool::advance`], which remove the account's index entries before touching its queue and
//! put them back after, so each path keeps every index exact. `check_invariants` (tests only)
//! verifies all of this from scratch.

use crate::{
    account::{Account, Head, Pending},
    config::Config,
    dropped::{DROPPED_HISTORY_LEN, DropReason, DroppedLog},
    fees::Priority,
};
use drover_types::{Address, H256, VerifiedTransaction};
use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    time::Instant,
};

/// The pool proper; [`Mempool`](crate::Mempool) wraps it in a lock.
#[derive(Debug)]
pub(crate) struct Pool {
    pub(crate) config: Config,
    pub(crate) accounts: HashMap<Address, Account>,
    pub(crate) by_hash: HashMap<H256, (Address, u64)>,
    pub(crate) ready: BTreeMap<Priority, Head>,
    pub(crate) tails: BTreeMap<Priority, Address>,
    by_age: BTreeSet<(Instant, H256)>,
    dropped: DroppedLog,
}

impl Pool {
    pub(crate) fn new(config: Config) -> Self {
        Self {
            config,
            accounts: HashMap::new(),
            by_hash: HashMap::new(),
            ready: BTreeMap::new(),
            tails: BTreeMap::new(),
            by_age: BTreeSet::new(),
            dropped: DroppedLog::new(DROPPED_HISTORY_LEN),
        }
    }

    /// Removes `sender`'s entries from `ready` and `tails` (before its queue changes).
    fn unindex(&mut self, sender: &Address) {
        if let Some(account) = self.accounts.get(sender) {
            if let Some((key, _)) = account.ready_entry(*sender) {
                self.ready.remove(&key);
            }
            if let Some(key) = account.tail_key() {
                self.tails.remove(&key);
            }
        }
    }

    /// Puts `sender`'s entries back (after its queue changed), or forgets an emptied account.
    fn reindex(&mut self, sender: &Address) {
        let Some(account) = self.accounts.get(sender) else {
            return;
        };
        if account.txs.is_empty() {
            self.accounts.remove(sender);
            return;
        }
        if let Some((key, head)) = account.ready_entry(*sender) {
            self.ready.insert(key, head);
        }
        if let Some(key) = account.tail_key() {
            self.tails.insert(key, *sender);
        }
    }

    /// Queues `pending`, creating its sender's account at `next_nonce` if needed, and returns
    /// the transaction it replaces (same sender and nonce), if any.
    pub(crate) fn insert(&mut self, pending: Pending, next_nonce: u64) -> Option<Pending> {
        let sender = pending.tx.sender;
        let nonce = pending.nonce();
        self.unindex(&sender);
        let account = self.accounts.entry(sender).or_insert_with(|| Account::new(next_nonce));
        account.reserved = account.reserved.saturating_add(pending.cost);
        self.by_hash.insert(pending.tx.hash, (sender, nonce));
        self.by_age.insert((pending.admitted_at, pending.tx.hash));
        let replaced = account.txs.insert(nonce, pending);
        if let Some(old) = &replaced {
            account.reserved = account.reserved.saturating_sub(old.cost);
            self.by_hash.remove(&old.tx.hash);
            self.by_age.remove(&(old.admitted_at, old.tx.hash));
        }
        self.reindex(&sender);
        replaced
    }

    /// Removes the transaction of `sender` at `nonce`.
    pub(crate) fn take(&mut self, sender: &Address, nonce: u64) -> Option<Pending> {
        if !self.accounts.get(sender).is_some_and(|account| account.txs.contains_key(&nonce)) {
            return None;
        }
        self.unindex(sender);
        let taken = self.accounts.get_mut(sender).and_then(|account| {
            let pending = account.txs.remove(&nonce)?;
            account.reserved = account.reserved.saturating_sub(pending.cost);
            Some(pending)
        });
        if let Some(pending) = &taken {
            self.by_hash.remove(&pending.tx.hash);
            self.by_age.remove(&(pending.admitted_at, pending.tx.hash));
        }
        self.reindex(sender);
        taken
    }

    /// Removes the transaction with `hash`.
    pub(crate) fn take_by_hash(&mut self, hash: &H256) -> Option<Pending> {
        let (sender, nonce) = *self.by_hash.get(hash)?;
        self.take(&sender, nonce)
    }

    /// Moves `sender`'s finalized next nonce up to `next_nonce` and removes (returns) its
    /// transactions below it. A lower `next_nonce` than the known one changes nothing.
    pub(crate) fn advance(&mut self, sender: &Address, next_nonce: u64) -> Vec<Pending> {
        if self.accounts.get(sender).is_none_or(|account| account.next_nonce >= next_nonce) {
            return Vec::new();
        }
        self.unindex(sender);
        let mut pruned = Vec::new();
        if let Some(account) = self.accounts.get_mut(sender) {
            account.next_nonce = next_nonce;
            let kept = account.txs.split_off(&next_nonce);
            for (_, pending) in std::mem::replace(&mut account.txs, kept) {
                account.reserved = account.reserved.saturating_sub(pending.cost);
                pruned.push(pending);
            }
        }
        for pending in &pruned {
            self.by_hash.remove(&pending.tx.hash);
            self.by_age.remove(&(pending.admitted_at, pending.tx.hash));
        }
        self.reindex(sender);
        pruned
    }

    /// Remembers why `pending` left the pool.
    pub(crate) fn record_drop(&mut self, pending: &Pending, reason: DropReason) {
        tracing::debug!(
            hash = %pending.tx.hash,
            sender = %pending.tx.sender,
            nonce = pending.nonce(),
            reason = %reason,
            "dropped pending transaction"
        );
        self.dropped.record(pending.tx.hash, reason);
    }

    /// Applies a finalized block: removes its transactions, then every transaction of its
    /// senders below their new next nonce. Returns how many transactions left the pool.
    pub(crate) fn finalized(&mut self, next_nonces: &[(Address, u64)], included: &[H256]) -> usize {
        let mut removed = 0;
        for hash in included {
            if self.take_by_hash(hash).is_some() {
                removed += 1;
            }
        }
        for (sender, next_nonce) in next_nonces {
            for pending in self.advance(sender, *next_nonce) {
                self.record_drop(&pending, DropReason::NonceUsed);
                removed += 1;
            }
        }
        removed
    }

    /// Drops the transaction with `hash` for `reason`; false when it is not pending.
    pub(crate) fn remove(&mut self, hash: &H256, reason: DropReason) -> bool {
        match self.take_by_hash(hash) {
            Some(pending) => {
                self.record_drop(&pending, reason);
                true
            }
            None => false,
        }
    }

    /// Drops every transaction admitted at least `ttl` before `now`; returns how many.
    pub(crate) fn evict_stale(&mut self, now: Instant) -> usize {
        let mut evicted = 0;
        while let Some(&(admitted_at, hash)) = self.by_age.first() {
            let stale = now.checked_duration_since(admitted_at).is_some_and(|age| age >= self.config.ttl);
            if !stale {
                break;
            }
            match self.take_by_hash(&hash) {
                Some(pending) => {
                    self.record_drop(&pending, DropReason::Expired);
                    evicted += 1;
                }
                // Unreachable while the indexes agree; removing the entry keeps the loop finite
                // even if they did not.
                None => {
                    self.by_age.remove(&(admitted_at, hash));
                }
            }
        }
        evicted
    }

    /// Sets the per-transaction limits and drops the pending transactions above them (a scan of
    /// the pool, only when a limit is lowered, which takes a vote).
    pub(crate) fn set_tx_limits(&mut self, max_tx_cycles: u64, max_tx_cells: u64) {
        let lowered = max_tx_cycles < self.config.max_tx_cycles || max_tx_cells < self.config.max_tx_cells;
        self.config.max_tx_cycles = max_tx_cycles;
        self.config.max_tx_cells = max_tx_cells;
        if !lowered {
            return;
        }
        let above: Vec<H256> = self
            .accounts
            .values()
            .flat_map(|account| account.txs.values())
            .filter(|pending| pending.tx.tx.cycles_limit > max_tx_cycles || pending.tx.tx.cells_limit > max_tx_cells)
            .map(|pending| pending.tx.hash)
            .collect();
        let reason =
            format!("its limits exceed the block limits now in force ({max_tx_cycles} cycles, {max_tx_cells} cells)");
        for hash in above {
            self.remove(&hash, DropReason::Invalid(reason.clone()));
        }
    }

    pub(crate) fn get(&self, hash: &H256) -> Option<&VerifiedTransaction> {
        let (sender, nonce) = self.by_hash.get(hash)?;
        self.accounts.get(sender)?.txs.get(nonce).map(|pending| &pending.tx)
    }

    /// `sender`'s pending transactions that `keep` accepts, in nonce order.
    pub(crate) fn pending_from(
        &self,
        sender: &Address,
        keep: impl Fn(&VerifiedTransaction) -> bool,
    ) -> Vec<VerifiedTransaction> {
        self.accounts.get(sender).map_or_else(Vec::new, |account| {
            account.txs.values().map(|pending| &pending.tx).filter(|tx| keep(tx)).cloned().collect()
        })
    }

    /// The nonce `sender`'s next transaction should carry: past its contiguous pending run,
    /// starting from the larger of `finalized_nonce` and the nonce the pool knows.
    pub(crate) fn next_nonce(&self, sender: &Address, finalized_nonce: u64) -> u64 {
        match self.accounts.get(sender) {
            Some(account) => account.contiguous_end(account.next_nonce.max(finalized_nonce)),
            None => finalized_nonce,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.by_hash.len()
    }

    pub(crate) fn sender_count(&self) -> usize {
        self.accounts.len()
    }

    pub(crate) fn dropped_reason(&self, hash: &H256) -> Option<DropReason> {
        if self.by_hash.contains_key(hash) {
            return None;
        }
        self.dropped.get(hash).cloned()
    }

    /// Recomputes every index from the queues and compares (tests only).
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        let mut by_hash = HashMap::new();
        let mut by_age = BTreeSet::new();
        let mut ready = BTreeMap::new();
        let mut tails = BTreeMap::new();
        for (sender, account) in &self.accounts {
            if account.txs.is_empty() {
                return Err(format!("account {sender} is empty"));
            }
            let mut reserved = 0u128;
            for (&nonce, pending) in &account.txs {
                if pending.nonce() != nonce || pending.tx.sender != *sender {
                    return Err(format!("{} queued under the wrong key", pending.tx.hash));
                }
                if nonce < account.next_nonce {
                    return Err(format!("{} is below its sender's next nonce", pending.tx.hash));
                }
                reserved += pending.cost;
                by_hash.insert(pending.tx.hash, (*sender, nonce));
                by_age.insert((pending.admitted_at, pending.tx.hash));
            }
            if reserved != account.reserved {
                return Err(format!("account {sender} reserves {} instead of {reserved}", account.reserved));
            }
            if let Some((key, head)) = account.ready_entry(*sender) {
                ready.insert(key, head);
            }
            if let Some(key) = account.tail_key() {
                tails.insert(key, *sender);
            }
        }
        if by_hash != self.by_hash {
            return Err("hash index differs from the queues".into());
        }
        if by_age != self.by_age {
            return Err("age index differs from the queues".into());
        }
        if ready != self.ready {
            return Err("ready index differs from the queues".into());
        }
        if tails != self.tails {
            return Err("tail index differs from the queues".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{address, verified};
    use std::time::Duration;

    fn pending(sender: u32, nonce: u64, tip: u128, admitted_at: Instant) -> Pending {
        Pending { tx: verified(sender, nonce, tip, 0), cost: 10, admitted_at }
    }

    fn pool() -> Pool {
        Pool::new(Config::default())
    }

    #[test]
    fn insert_take_and_replace_keep_indexes_exact() {
        let now = Instant::now();
        let mut pool = pool();
        assert!(pool.insert(pending(1, 0, 5, now), 0).is_none());
        assert!(pool.insert(pending(1, 1, 5, now), 0).is_none());
        assert!(pool.insert(pending(2, 3, 5, now), 0).is_none());
        pool.check_invariants().unwrap();
        assert_eq!((pool.len(), pool.sender_count(), pool.ready.len(), pool.tails.len()), (3, 2, 1, 2));

        let old = pool.insert(pending(1, 1, 6, now), 0).unwrap();
        assert_eq!(old.tx.tx.tip_per_cycle, 5);
        assert!(!pool.by_hash.contains_key(&old.tx.hash));
        pool.check_invariants().unwrap();
        assert_eq!(pool.len(), 3);

        assert!(pool.take(&address(1), 0).is_some());
        assert!(pool.take(&address(1), 0).is_none());
        assert!(pool.take(&address(9), 0).is_none());
        pool.check_invariants().unwrap();
        // Sender 1 now starts at nonce 1 while its finalized next nonce is still 0: not ready.
        assert!(pool.ready.is_empty());

        let tail = pool.get(&verified(2, 3, 5, 0).hash).unwrap().hash;
        assert!(pool.take_by_hash(&tail).is_some());
        pool.check_invariants().unwrap();
        assert_eq!((pool.len(), pool.sender_count()), (1, 1));
    }

    #[test]
    fn advance_prunes_below_and_forgets_emptied_accounts() {
        let now = Instant::now();
        let mut pool = pool();
        for nonce in 0..4 {
            pool.insert(pending(1, nonce, 1, now), 0);
        }
        assert!(pool.advance(&address(1), 0).is_empty());
        assert!(pool.advance(&address(7), 10).is_empty());
        let pruned = pool.advance(&address(1), 2);
        assert_eq!(pruned.iter().map(Pending::nonce).collect::<Vec<_>>(), [0, 1]);
        pool.check_invariants().unwrap();
        assert_eq!(pool.ready.len(), 1);
        assert_eq!(pool.accounts[&address(1)].reserved, 20);

        assert_eq!(pool.advance(&address(1), u64::MAX).len(), 2);
        pool.check_invariants().unwrap();
        assert_eq!((pool.len(), pool.sender_count(), pool.ready.len(), pool.tails.len()), (0, 0, 0, 0));
    }

    #[test]
    fn next_nonce_counts_the_contiguous_pending_run() {
        let now = Instant::now();
        let mut pool = pool();
        assert_eq!(pool.next_nonce(&address(1), 4), 4);
        for nonce in [0, 1, 2, 4] {
            pool.insert(pending(1, nonce, 1, now), 0);
        }
        assert_eq!(pool.next_nonce(&address(1), 0), 3);
        // A newer finalized nonce than the pool has heard of counts from there.
        assert_eq!(pool.next_nonce(&address(1), 2), 3);
        assert_eq!(pool.next_nonce(&address(1), 4), 5);
        assert_eq!(pool.next_nonce(&address(1), 9), 9);
    }

    #[test]
    fn lowered_limits_drop_the_pending_transactions_above_them() {
        let now = Instant::now();
        let mut pool = pool();
        let mut big = pending(1, 0, 1, now);
        big.tx = crate::testing::seal(
            big.tx.sender,
            drover_types::Transaction { cycles_limit: 15_000_000, ..big.tx.tx.clone() },
        );
        let big_hash = big.tx.hash;
        let mut wide = pending(3, 0, 1, now);
        wide.tx = crate::testing::seal(
            wide.tx.sender,
            drover_types::Transaction { cells_limit: 900_000, ..wide.tx.tx.clone() },
        );
        let wide_hash = wide.tx.hash;
        pool.insert(big, 0);
        pool.insert(wide, 0);
        pool.insert(pending(2, 0, 1, now), 0);
        pool.set_tx_limits(40_000_000, 2_000_000);
        assert_eq!(pool.len(), 3, "raised: nothing dropped");
        pool.set_tx_limits(10_000_000, 2_000_000);
        assert_eq!(pool.len(), 2, "cycles lowered");
        assert!(matches!(pool.dropped_reason(&big_hash), Some(DropReason::Invalid(_))));
        pool.set_tx_limits(10_000_000, 500_000);
        assert_eq!(pool.len(), 1, "cells lowered");
        assert!(matches!(pool.dropped_reason(&wide_hash), Some(DropReason::Invalid(_))));
        pool.check_invariants().unwrap();
    }

    #[test]
    fn evict_stale_drops_exactly_the_old_ones() {
        let start = Instant::now();
        let mut pool = pool();
        let ttl = pool.config.ttl;
        pool.insert(pending(1, 0, 1, start), 0);
        pool.insert(pending(1, 1, 1, start + Duration::from_secs(1)), 0);
        pool.insert(pending(2, 0, 1, start + ttl), 0);
        assert_eq!(pool.evict_stale(start), 0);
        // An instant before every admission is no reason to evict anything.
        assert_eq!(pool.evict_stale(start - Duration::from_secs(1)), 0);
        assert_eq!(pool.evict_stale(start + ttl), 1);
        pool.check_invariants().unwrap();
        assert_eq!(pool.evict_stale(start + ttl + Duration::from_secs(1)), 1);
        assert_eq!(pool.dropped_reason(&verified(1, 1, 1, 0).hash), Some(DropReason::Expired));
        assert_eq!((pool.len(), pool.sender_count()), (1, 1));
        pool.check_invariants().unwrap();
    }

    #[test]
    fn remove_records_the_reason_and_ignores_unknown_hashes() {
        let now = Instant::now();
        let mut pool = pool();
        let tx = pending(1, 0, 1, now);
        let hash = tx.tx.hash;
        pool.insert(tx, 0);
        assert_eq!(pool.dropped_reason(&hash), None);
        assert!(pool.remove(&hash, DropReason::Invalid("E1004".into())));
        assert!(!pool.remove(&hash, DropReason::Expired));
        assert_eq!(pool.dropped_reason(&hash), Some(DropReason::Invalid("E1004".into())));
        assert_eq!((pool.len(), pool.sender_count()), (0, 0));
        pool.check_invariants().unwrap();
    }

    #[test]
    fn finalized_removes_included_silently_and_superseded_with_a_reason() {
        let now = Instant::now();
        let mut pool = pool();
        for nonce in 0..3 {
            pool.insert(pending(1, nonce, 1, now), 0);
        }
        pool.insert(pending(2, 0, 1, now), 0);
        let included = verified(1, 0, 1, 0).hash;
        let superseded = verified(1, 1, 1, 0).hash;
        let removed = pool.finalized(&[(address(1), 2), (address(2), 0), (address(3), 5)], &[included]);
        assert_eq!(removed, 2);
        assert_eq!(pool.dropped_reason(&included), None);
        assert_eq!(pool.dropped_reason(&superseded), Some(DropReason::NonceUsed));
        assert_eq!((pool.len(), pool.sender_count()), (2, 2));
        pool.check_invariants().unwrap();
    }
}
