//! Fee arithmetic of the two markets (cycles and cells) as the pool sees it.
//!
//! A transaction pays, per meter, `used × (basefee + min(tip, max_fee − basefee))`: its
//! *effective tip* on a meter is `min(tip, max_fee − basefee)`, and it cannot be included at all
//! while `max_fee < basefee`. The pool orders transactions by *priority*: the cycle tip, then
//! the cell tip, then the hash (lower hash first), so every order is total and deterministic.
//!
//! The *nominal* priority uses the declared tips and never changes; the *effective* priority
//! depends on the basefees of the block being built. Since an effective tip never exceeds the
//! declared one, `effective ≤ nominal` for every transaction; selection relies on this bound to
//! visit senders in nominal order and still emit them in effective order.

use drover_types::{Basefees, H256, Transaction};
use std::cmp::Reverse;

/// Ordering key of a pending transaction: greater is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Priority {
    cycle: u128,
    cell: u128,
    /// Reversed so that, between equal tips, the lower hash ranks first.
    hash: Reverse<H256>,
}

impl Priority {
    /// The key from the declared tips.
    pub(crate) fn nominal(tx: &Transaction, hash: H256) -> Self {
        Self { cycle: tx.tip_per_cycle, cell: tx.tip_per_cell, hash: Reverse(hash) }
    }

    /// The key from the tips actually paid under `basefees`, or `None` while the transaction
    /// cannot pay them.
    pub(crate) fn effective(tx: &Transaction, hash: H256, basefees: Basefees) -> Option<Self> {
        Self::nominal(tx, hash).capped(tx.max_fee_per_cycle, tx.max_fee_per_cell, basefees)
    }

    /// This key with each tip capped at its meter's `max_fee − basefee`, or `None` when a max
    /// fee is below its basefee.
    pub(crate) fn capped(self, max_fee_per_cycle: u128, max_fee_per_cell: u128, basefees: Basefees) -> Option<Self> {
        let cycle_room = max_fee_per_cycle.checked_sub(basefees.cycle)?;
        let cell_room = max_fee_per_cell.checked_sub(basefees.cell)?;
        Some(Self { cycle: self.cycle.min(cycle_room), cell: self.cell.min(cell_room), hash: self.hash })
    }

    /// The tips alone, ordered cycle tip first (what eviction compares).
    pub(crate) fn tips(&self) -> (u128, u128) {
        (self.cycle, self.cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{hash_of, transaction};

    #[test]
    fn effective_tip_is_capped_by_max_fee_minus_basefee() {
        let mut tx = transaction(0, 5, 2);
        tx.max_fee_per_cycle = 10;
        tx.max_fee_per_cell = 10;
        let basefees = Basefees { cycle: 7, cell: 9 };
        let p = Priority::effective(&tx, hash_of(1), basefees).unwrap();
        assert_eq!(p.tips(), (3, 1));
        assert!(p <= Priority::nominal(&tx, hash_of(1)));
    }

    #[test]
    fn effective_tip_is_none_below_basefee_on_either_meter() {
        let mut tx = transaction(0, 1, 1);
        tx.max_fee_per_cycle = 10;
        tx.max_fee_per_cell = 10;
        assert!(Priority::effective(&tx, hash_of(1), Basefees { cycle: 11, cell: 0 }).is_none());
        assert!(Priority::effective(&tx, hash_of(1), Basefees { cycle: 0, cell: 11 }).is_none());
        assert!(Priority::effective(&tx, hash_of(1), Basefees { cycle: 10, cell: 10 }).is_some());
    }

    #[test]
    fn ties_go_to_the_lower_hash() {
        let tx = transaction(0, 1, 1);
        assert!(Priority::nominal(&tx, hash_of(1)) > Priority::nominal(&tx, hash_of(2)));
        let richer = transaction(0, 2, 0);
        assert!(Priority::nominal(&richer, hash_of(9)) > Priority::nominal(&tx, hash_of(1)));
    }
}
