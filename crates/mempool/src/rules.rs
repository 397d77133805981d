//! The pool's admission policy, checked in this order on a transaction that already passed the
//! validity rule's parts that need no sender state (`drover_types::validity`: form, limits,
//! basefees; the node's intake applies them).
//!
//! | policy | refusal |
//! | --- | --- |
//! | same hash already pending | [`AlreadyKnown`](PoolRefusalKind::AlreadyKnown) |
//! | nonce below the sender's next nonce | [`NonceUsed`](PoolRefusalKind::NonceUsed) |
//! | nonce more than `max_nonce_gap` past the sender's next contiguous nonce | [`NonceGap`](PoolRefusalKind::NonceGap) |
//! | balance below this transaction's maximum cost plus the sender's other pending ones' | [`Reserved`](PoolRefusalKind::Reserved) |
//! | same sender and nonce pending, and the tips do not rise (one strictly, neither down) | [`ReplacementUnderpriced`](PoolRefusalKind::ReplacementUnderpriced) |
//! | sender at `max_per_sender` | [`SenderFull`](PoolRefusalKind::SenderFull) |
//! | pool at `max_transactions` with nothing cheaper to evict | [`PoolFull`](PoolRefusalKind::PoolFull) |
//! | the pool's indexes disagree (an internal fault; never expected) | [`Inconsistent`](PoolRefusalKind::Inconsistent) |
//!
//! The sender's *next nonce* is the larger of the nonce the caller read from finalized state and
//! the one the pool last heard of; its *next contiguous nonce* continues through the sender's
//! pending run from there. A caller's finalized nonce newer than the pool's first prunes the
//! sender's pending transactions below it (they can never execute). The nonce and balance
//! policies are the validity rule's sender part applied to the sender's state after its pending
//! transactions: the pool may queue nonces ahead of the next one, and reserves what each
//! pending transaction may cost.
//!
//! When the pool is full, a new transaction may take the room of the transaction with the lowest
//! tips among the other senders' highest-nonce transactions, if it pays strictly more (cycle tip
//! first, then cell tip); taking only queue tails never opens a nonce gap.

use crate::{account::Pending, dropped::DropReason, fees::Priority, pool::Pool};
use drover_types::{
    H256, Transaction, VerifiedTransaction,
    admission::{PoolRefusal, PoolRefusalKind},
};
use std::time::Instant;

/// The sender's account in the latest finalized state, as the caller read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderState {
    /// The sender's next nonce; the pool refuses lower ones (2003).
    pub nonce: u64,
    /// The sender's balance in base units: the maximum costs of its pending transactions must fit.
    pub balance: u128,
}

/// How a transaction entered the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admitted {
    /// It took a new (sender, nonce) slot.
    New,
    /// It replaced the pending transaction `replaced` of the same sender and nonce.
    Replaced {
        /// Hash of the transaction it replaced, now dropped.
        replaced: H256,
    },
}

/// What admission needs to know about a pending transaction the new one would replace.
struct Existing {
    cost: u128,
    tip_per_cycle: u128,
    tip_per_cell: u128,
}

impl Pool {
    /// Checks `tx` against every policy and queues it.
    pub(crate) fn admit(
        &mut self,
        tx: VerifiedTransaction,
        state: SenderState,
        now: Instant,
    ) -> Result<Admitted, PoolRefusal> {
        if self.by_hash.contains_key(&tx.hash) {
            return Err(PoolRefusal::new(
                PoolRefusalKind::AlreadyKnown,
                format!("transaction {} is already pending", tx.hash),
            ));
        }
        let sender = tx.sender;
        let nonce = tx.tx.nonce;
        for pending in self.advance(&sender, state.nonce) {
            self.record_drop(&pending, DropReason::NonceUsed);
        }

        let account = self.accounts.get(&sender);
        let next_nonce = account.map_or(state.nonce, |account| account.next_nonce.max(state.nonce));
        let contiguous_end = account.map_or(next_nonce, |account| account.contiguous_end(next_nonce));
        let queued = account.map_or(0, |account| account.txs.len());
        let reserved = account.map_or(0, |account| account.reserved);
        let existing = account.and_then(|account| account.txs.get(&nonce)).map(|old| Existing {
            cost: old.cost,
            tip_per_cycle: old.tx.tx.tip_per_cycle,
            tip_per_cell: old.tx.tx.tip_per_cell,
        });

        check_nonce(nonce, next_nonce, contiguous_end, self.config.max_nonce_gap)?;
        // The validity rule refused a maximum cost that overflows.
        let cost = tx.tx.max_cost().unwrap_or(u128::MAX);
        let others = reserved.saturating_sub(existing.as_ref().map_or(0, |old| old.cost));
        check_balance(state.balance, cost, others)?;
        match &existing {
            Some(old) => check_replacement(&tx.tx, old)?,
            None => {
                if queued >= self.config.max_per_sender {
                    return Err(PoolRefusal::new(
                        PoolRefusalKind::SenderFull,
                        format!(
                            "the sender already has {queued} pending transactions, the most the \
                             mempool holds per sender"
                        ),
                    ));
                }
                self.make_room(&tx)?;
            }
        }

        let hash = tx.hash;
        match self.insert(Pending { tx, cost, admitted_at: now }, next_nonce) {
            Some(old) => {
                self.record_drop(&old, DropReason::Replaced { by: hash });
                Ok(Admitted::Replaced { replaced: old.tx.hash })
            }
            None => Ok(Admitted::New),
        }
    }

    /// Frees one slot for `tx` when the pool is full, by evicting a cheaper queue tail of
    /// another sender.
    fn make_room(&mut self, tx: &VerifiedTransaction) -> Result<(), PoolRefusal> {
        let pending = self.len();
        if pending < self.config.max_transactions {
            return Ok(());
        }
        let incoming = Priority::nominal(&tx.tx, tx.hash).tips();
        let victim = self
            .tails
            .iter()
            .find(|(_, sender)| **sender != tx.sender)
            .filter(|(key, _)| key.tips() < incoming)
            .map(|(_, sender)| *sender);
        let Some(victim) = victim else {
            return Err(PoolRefusal::new(
                PoolRefusalKind::PoolFull,
                format!(
                    "the mempool is full ({pending} pending transactions) and no other sender's \
                     transaction pays lower tips than this one"
                ),
            ));
        };
        let nonce =
            self.accounts.get(&victim).and_then(|account| account.txs.last_key_value()).map(|(nonce, _)| *nonce);
        let Some(evicted) = nonce.and_then(|nonce| self.take(&victim, nonce)) else {
            return Err(PoolRefusal::new(
                PoolRefusalKind::Inconsistent,
                "the mempool's eviction index names a transaction it does not hold; retry the \
                 submission",
            ));
        };
        self.record_drop(&evicted, DropReason::Evicted { by: tx.hash });
        Ok(())
    }
}

/// The nonce policies.
fn check_nonce(nonce: u64, next_nonce: u64, contiguous_end: u64, max_gap: u64) -> Result<(), PoolRefusal> {
    if nonce < next_nonce {
        return Err(PoolRefusal::new(
            PoolRefusalKind::NonceUsed,
            format!("nonce {nonce} is below the sender's next nonce {next_nonce}"),
        ));
    }
    let highest = contiguous_end.saturating_add(max_gap);
    if nonce > highest {
        return Err(PoolRefusal::new(
            PoolRefusalKind::NonceGap,
            format!(
                "nonce {nonce} is too far ahead: the sender's next nonce counting pending \
                 transactions is {contiguous_end} and the mempool accepts nonces up to {highest}"
            ),
        ));
    }
    Ok(())
}

/// The balance policy: `others` is what the sender's other pending transactions reserve.
fn check_balance(balance: u128, cost: u128, others: u128) -> Result<(), PoolRefusal> {
    if others.checked_add(cost).is_some_and(|needed| needed <= balance) {
        return Ok(());
    }
    Err(PoolRefusal::new(
        PoolRefusalKind::Reserved,
        format!(
            "balance {balance} cannot cover the value plus maximum fees of this transaction \
             ({cost}) and of the sender's other pending transactions ({others})"
        ),
    ))
}

/// The replacement policy.
fn check_replacement(tx: &Transaction, old: &Existing) -> Result<(), PoolRefusal> {
    let no_lower = tx.tip_per_cycle >= old.tip_per_cycle && tx.tip_per_cell >= old.tip_per_cell;
    let one_higher = tx.tip_per_cycle > old.tip_per_cycle || tx.tip_per_cell > old.tip_per_cell;
    if no_lower && one_higher {
        return Ok(());
    }
    Err(PoolRefusal::new(
        PoolRefusalKind::ReplacementUnderpriced,
        format!(
            "a pending transaction with nonce {} tips {} per cycle and {} per cell; a replacement \
             must raise at least one tip and lower neither (offered {} and {})",
            tx.nonce, old.tip_per_cycle, old.tip_per_cell, tx.tip_per_cycle, tx.tip_per_cell
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        config::Config,
        testing::{address, rich, seal, transaction, verified},
    };

    fn pool() -> Pool {
        Pool::new(Config::default())
    }

    fn admit(pool: &mut Pool, tx: VerifiedTransaction) -> Result<Admitted, PoolRefusal> {
        let result = pool.admit(tx, rich(), Instant::now());
        pool.check_invariants().unwrap();
        result
    }

    fn kind(result: Result<Admitted, PoolRefusal>) -> PoolRefusalKind {
        result.unwrap_err().kind
    }

    #[test]
    fn admits_new_transactions_in_any_nonce_order() {
        let mut pool = pool();
        assert_eq!(admit(&mut pool, verified(1, 1, 1, 0)), Ok(Admitted::New));
        assert_eq!(admit(&mut pool, verified(1, 0, 1, 0)), Ok(Admitted::New));
        assert_eq!(admit(&mut pool, verified(2, 0, 1, 0)), Ok(Admitted::New));
        assert_eq!((pool.len(), pool.sender_count()), (3, 2));
    }

    #[test]
    fn same_hash_is_already_known() {
        let mut pool = pool();
        admit(&mut pool, verified(1, 0, 1, 0)).unwrap();
        let err = admit(&mut pool, verified(1, 0, 1, 0)).unwrap_err();
        assert_eq!(err.kind, PoolRefusalKind::AlreadyKnown);
        assert!(err.message.contains(&verified(1, 0, 1, 0).hash.to_string()));
    }

    #[test]
    fn nonce_below_next_nonce_is_too_low() {
        let mut pool = pool();
        let state = SenderState { nonce: 5, ..rich() };
        let err = pool.admit(verified(1, 3, 1, 0), state, Instant::now()).unwrap_err();
        assert_eq!(err.kind, PoolRefusalKind::NonceUsed);
        assert_eq!(err.message, "nonce 3 is below the sender's next nonce 5");
        pool.admit(verified(1, 5, 1, 0), state, Instant::now()).unwrap();
        pool.admit(verified(1, 6, 1, 0), state, Instant::now()).unwrap();
        // A stale read of the account does not lower the nonce the pool already knows.
        pool.finalized(&[(address(1), 6)], &[]);
        let stale = SenderState { nonce: 5, ..rich() };
        let err = pool.admit(verified(1, 5, 2, 0), stale, Instant::now());
        assert_eq!(kind(err), PoolRefusalKind::NonceUsed);
    }

    #[test]
    fn nonce_gap_counts_from_the_contiguous_pending_run() {
        let mut pool = Pool::new(Config { max_nonce_gap: 2, ..Config::default() });
        admit(&mut pool, verified(1, 2, 1, 0)).unwrap();
        let err = admit(&mut pool, verified(1, 3, 1, 0)).unwrap_err();
        assert_eq!(err.kind, PoolRefusalKind::NonceGap);
        assert!(err.message.contains("nonce 3"), "{}", err.message);
        admit(&mut pool, verified(1, 0, 1, 0)).unwrap();
        admit(&mut pool, verified(1, 1, 1, 0)).unwrap();
        // 0, 1, 2 pending: the next contiguous nonce is 3, so up to 5 is accepted.
        admit(&mut pool, verified(1, 5, 1, 0)).unwrap();
        assert_eq!(kind(admit(&mut pool, verified(1, 6, 1, 0))), PoolRefusalKind::NonceGap);
        assert_eq!(kind(admit(&mut pool, verified(1, u64::MAX, 1, 0))), PoolRefusalKind::NonceGap);
    }

    #[test]
    fn zero_gap_admits_only_the_next_contiguous_nonce() {
        let mut pool = Pool::new(Config { max_nonce_gap: 0, ..Config::default() });
        assert_eq!(kind(admit(&mut pool, verified(1, 1, 1, 0))), PoolRefusalKind::NonceGap);
        admit(&mut pool, verified(1, 0, 1, 0)).unwrap();
        admit(&mut pool, verified(1, 1, 1, 0)).unwrap();
    }

    #[test]
    fn balance_must_cover_every_pending_transaction_of_the_sender() {
        let mut pool = pool();
        // Each built transfer costs 21,000 × 100 = 2,100,000 at most.
        let state = SenderState { nonce: 0, balance: 4_200_000 };
        let now = Instant::now();
        pool.admit(verified(1, 0, 1, 0), state, now).unwrap();
        pool.admit(verified(1, 1, 1, 0), state, now).unwrap();
        let err = pool.admit(verified(1, 2, 1, 0), state, now).unwrap_err();
        assert_eq!(err.kind, PoolRefusalKind::Reserved);
        assert!(err.message.contains("(2100000)") && err.message.contains("(4200000)"), "{}", err.message);
        // A replacement does not count the transaction it replaces.
        assert_eq!(
            pool.admit(verified(1, 1, 2, 0), state, now),
            Ok(Admitted::Replaced { replaced: verified(1, 1, 1, 0).hash })
        );
        let mut valuable = transaction(1, 3, 0);
        valuable.value = 1;
        let err = pool.admit(seal(address(1), valuable), state, now).unwrap_err();
        assert_eq!(err.kind, PoolRefusalKind::Reserved);
        pool.check_invariants().unwrap();
    }

    #[test]
    fn replacement_must_raise_a_tip_and_lower_none() {
        let mut pool = pool();
        admit(&mut pool, verified(1, 0, 5, 5)).unwrap();
        for (cycle, cell) in [(5, 4), (4, 6), (6, 4), (4, 4)] {
            let err = admit(&mut pool, verified(1, 0, cycle, cell)).unwrap_err();
            assert_eq!(err.kind, PoolRefusalKind::ReplacementUnderpriced, "{cycle} {cell}");
        }
        // Same tips, different transaction (another value): not a raise.
        let mut same = transaction(0, 5, 5);
        same.value = 1;
        assert_eq!(kind(admit(&mut pool, seal(address(1), same))), PoolRefusalKind::ReplacementUnderpriced);

        let first = verified(1, 0, 5, 5).hash;
        let raised = verified(1, 0, 5, 6);
        assert_eq!(admit(&mut pool, raised.clone()), Ok(Admitted::Replaced { replaced: first }));
        assert_eq!(pool.dropped_reason(&first), Some(DropReason::Replaced { by: raised.hash }));
        assert_eq!(admit(&mut pool, verified(1, 0, 6, 6)), Ok(Admitted::Replaced { replaced: raised.hash }));
        assert_eq!((pool.len(), pool.sender_count()), (1, 1));
    }

    #[test]
    fn per_sender_limit_is_busy_but_replacements_pass() {
        let mut pool = Pool::new(Config { max_per_sender: 2, ..Config::default() });
        admit(&mut pool, verified(1, 0, 1, 0)).unwrap();
        admit(&mut pool, verified(1, 1, 1, 0)).unwrap();
        let err = admit(&mut pool, verified(1, 2, 1, 0)).unwrap_err();
        assert_eq!(err.kind, PoolRefusalKind::SenderFull);
        admit(&mut pool, verified(1, 1, 2, 0)).unwrap();
        admit(&mut pool, verified(2, 0, 1, 0)).unwrap();
    }

    #[test]
    fn full_pool_evicts_the_cheapest_tail_of_another_sender() {
        let mut pool = Pool::new(Config { max_transactions: 3, ..Config::default() });
        admit(&mut pool, verified(1, 0, 9, 0)).unwrap();
        admit(&mut pool, verified(1, 1, 2, 0)).unwrap();
        admit(&mut pool, verified(2, 0, 5, 0)).unwrap();

        // Not strictly more than the cheapest tail (sender 1, nonce 1, tip 2).
        let err = admit(&mut pool, verified(3, 0, 2, 0)).unwrap_err();
        assert_eq!(err.kind, PoolRefusalKind::PoolFull);
        assert!(err.message.contains("full (3 pending"), "{}", err.message);

        let incoming = verified(3, 0, 3, 0);
        assert_eq!(admit(&mut pool, incoming.clone()), Ok(Admitted::New));
        let evicted = verified(1, 1, 2, 0).hash;
        assert_eq!(pool.dropped_reason(&evicted), Some(DropReason::Evicted { by: incoming.hash }));
        assert_eq!((pool.len(), pool.sender_count()), (3, 3));

        // Tails are now sender 3 (3), sender 2 (5), sender 1 (9): sender 3 cannot evict itself,
        // so its next transaction must beat sender 2's tail.
        assert_eq!(kind(admit(&mut pool, verified(3, 1, 5, 0))), PoolRefusalKind::PoolFull);
        admit(&mut pool, verified(3, 1, 5, 1)).unwrap();
        assert!(pool.get(&verified(2, 0, 5, 0).hash).is_none());
        assert_eq!((pool.len(), pool.sender_count()), (3, 2));

        // A replacement needs no room.
        admit(&mut pool, verified(3, 1, 6, 1)).unwrap();
        assert_eq!(pool.len(), 3);
    }

    #[test]
    fn empty_pool_with_no_capacity_is_busy() {
        let mut pool = Pool::new(Config { max_transactions: 0, ..Config::default() });
        assert_eq!(kind(admit(&mut pool, verified(1, 0, 1, 0))), PoolRefusalKind::PoolFull);
    }

    #[test]
    fn newer_finalized_nonce_prunes_the_senders_old_transactions() {
        let mut pool = pool();
        admit(&mut pool, verified(1, 0, 1, 0)).unwrap();
        admit(&mut pool, verified(1, 1, 1, 0)).unwrap();
        let state = SenderState { nonce: 1, ..rich() };
        pool.admit(verified(1, 2, 1, 0), state, Instant::now()).unwrap();
        pool.check_invariants().unwrap();
        assert_eq!(pool.len(), 2);
        assert_eq!(pool.dropped_reason(&verified(1, 0, 1, 0).hash), Some(DropReason::NonceUsed));
    }

    #[test]
    fn policies_apply_in_the_documented_order() {
        let mut pool = pool();
        // Too low and also unaffordable: the nonce policy comes first.
        let state = SenderState { nonce: 5, balance: 0 };
        let err = pool.admit(verified(1, 0, 1, 0), state, Instant::now());
        assert_eq!(kind(err), PoolRefusalKind::NonceUsed);
        let err = pool.admit(verified(1, 5, 1, 0), state, Instant::now());
        assert_eq!(kind(err), PoolRefusalKind::Reserved);
        pool.check_invariants().unwrap();
        assert_eq!(pool.len(), 0);
    }
}
