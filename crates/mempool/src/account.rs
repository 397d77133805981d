//! One sender's pending transactions: a queue ordered by nonce.
//!
//! Invariants (kept by [`Pool`](crate::pool::Pool), checked by its tests):
//! - the queue is never empty (an account with nothing pending is forgotten);
//! - every key is the nonce of its transaction and is at least `next_nonce`;
//! - `reserved` is exactly the sum of the queued transactions' `cost`.

use crate::fees::Priority;
use drover_types::{Address, VerifiedTransaction};
use std::{collections::BTreeMap, time::Instant};

/// A pending transaction with what admission computed about it.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub(crate) tx: VerifiedTransaction,
    /// Its maximum cost (value plus maximum fees), reserved against the sender's balance.
    pub(crate) cost: u128,
    pub(crate) admitted_at: Instant,
}

impl Pending {
    pub(crate) fn nonce(&self) -> u64 {
        self.tx.tx.nonce
    }

    pub(crate) fn priority(&self) -> Priority {
        Priority::nominal(&self.tx.tx, self.tx.hash)
    }
}

/// A sender's executable head as the pool's ready index holds it: enough to rank it under any
/// basefees without visiting the account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) sender: Address,
    pub(crate) nonce: u64,
    pub(crate) max_fee_per_cycle: u128,
    pub(crate) max_fee_per_cell: u128,
}

/// A sender's queue and the finalized nonce it starts from.
#[derive(Debug)]
pub(crate) struct Account {
    /// The sender's next nonce in the latest finalized state the pool has heard of.
    pub(crate) next_nonce: u64,
    pub(crate) txs: BTreeMap<u64, Pending>,
    /// Sum of `cost` over `txs`. Admission keeps it at most the sender's balance, so it never
    /// overflows.
    pub(crate) reserved: u128,
}

impl Account {
    pub(crate) fn new(next_nonce: u64) -> Self {
        Self { next_nonce, txs: BTreeMap::new(), reserved: 0 }
    }

    /// The transaction at `next_nonce`, if queued: `sender`'s entry in the pool's index of
    /// executable heads.
    pub(crate) fn ready_entry(&self, sender: Address) -> Option<(Priority, Head)> {
        let pending = self.txs.get(&self.next_nonce)?;
        let head = Head {
            sender,
            nonce: pending.nonce(),
            max_fee_per_cycle: pending.tx.tx.max_fee_per_cycle,
            max_fee_per_cell: pending.tx.tx.max_fee_per_cell,
        };
        Some((pending.priority(), head))
    }

    /// The priority of the highest-nonce transaction: the one eviction may take without
    /// opening a nonce gap.
    pub(crate) fn tail_key(&self) -> Option<Priority> {
        self.txs.last_key_value().map(|(_, pending)| pending.priority())
    }

    /// The nonce after the contiguous run of queued nonces starting at `from` (with `from` the
    /// sender's next nonce: the nonce its next transaction should carry).
    pub(crate) fn contiguous_end(&self, from: u64) -> u64 {
        // Most often the whole queue is one run from `from`, which its ends and length show at
        // once; the walk below costs every admission a step per queued nonce (a sender sending
        // a burst queues hundreds).
        if let (Some((&first, _)), Some((&last, _))) = (self.txs.first_key_value(), self.txs.last_key_value())
            && first == from
            && last - first == self.txs.len() as u64 - 1
        {
            return last.saturating_add(1);
        }
        let mut end = from;
        for &nonce in self.txs.range(from..).map(|(nonce, _)| nonce) {
            if nonce != end {
                break;
            }
            match end.checked_add(1) {
                Some(next) => end = next,
                None => break,
            }
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{address, verified};

    fn account(next_nonce: u64, nonces: &[u64]) -> Account {
        let mut account = Account::new(next_nonce);
        for &nonce in nonces {
            let tx = verified(1, nonce, nonce.into(), 0);
            account.txs.insert(nonce, Pending { tx, cost: 1, admitted_at: Instant::now() });
            account.reserved += 1;
        }
        account
    }

    #[test]
    fn contiguous_end_stops_at_the_first_gap() {
        assert_eq!(account(3, &[]).contiguous_end(3), 3);
        assert_eq!(account(3, &[3, 4, 5]).contiguous_end(3), 6);
        assert_eq!(account(0, &[0, u64::MAX]).contiguous_end(0), 1);
        assert_eq!(account(3, &[3, 4, 5, 7]).contiguous_end(3), 6);
        assert_eq!(account(3, &[3, 4, 5, 7]).contiguous_end(5), 6);
        assert_eq!(account(3, &[4, 5]).contiguous_end(3), 3);
        assert_eq!(account(u64::MAX - 1, &[u64::MAX - 1, u64::MAX]).contiguous_end(u64::MAX - 1), u64::MAX);
    }

    #[test]
    fn ready_entry_only_when_the_next_nonce_is_queued() {
        assert!(account(3, &[4, 5]).ready_entry(address(1)).is_none());
        let ready = account(3, &[3, 5]);
        let (key, head) = ready.ready_entry(address(1)).unwrap();
        assert_eq!((key.tips(), head.sender, head.nonce), ((3, 0), address(1), 3));
        assert_eq!(ready.tail_key().map(|p| p.tips()), Some((5, 0)));
    }
}
