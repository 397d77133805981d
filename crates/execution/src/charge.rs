//! What a transaction and the block's deferred work pay for their work, and how a transaction
//! pays it: the steps every transaction shares, whatever it does.
//!
//! A transaction is [priced](price) at the block's basefees for the cycles and cells it used: the
//! basefee is burned and the tip, capped at `max fee − basefee`, goes to the proposer. A plain
//! transfer stages that charge with its value (`crate::transfer`); a transaction with actor work
//! [pays](pay) it once the work is done. Deferred work (timers, deliveries, job callbacks) holds
//! a budget priced by [`cost`]. A transaction that cannot be charged fails one of two ways
//! ([`Failure`]): it broke a rule, or the state could not be read.

use crate::{
    StateRead,
    overlay::{Overlay, ReadError, StateError},
};
use drover_state::Basefees;
use drover_types::{
    Address, FeeBreakdown, Transaction,
    validity::{RejectReason, Rejection},
};

/// What a transaction pays for `cycles` and `cells` at the block's basefees, given that it passed
/// the validity rule's basefee and tip checks: per unit, the basefee (burned) plus the tip capped at
/// `max_fee − basefee` (to the proposer).
pub fn price(tx: &Transaction, basefees: &Basefees, cycles: u64, cells: u64) -> Option<FeeBreakdown> {
    let cycle_tip = tx.tip_per_cycle.min(tx.max_fee_per_cycle.checked_sub(basefees.cycle)?);
    let cell_tip = tx.tip_per_cell.min(tx.max_fee_per_cell.checked_sub(basefees.cell)?);
    let (cycles, cells) = (u128::from(cycles), u128::from(cells));
    let burned = cycles.checked_mul(basefees.cycle)?.checked_add(cells.checked_mul(basefees.cell)?)?;
    let tip = cycles.checked_mul(cycle_tip)?.checked_add(cells.checked_mul(cell_tip)?)?;
    // The total is what the sender is debited, so it must fit as well.
    burned.checked_add(tip)?;
    Some(FeeBreakdown { burned, tip })
}

/// `cycles × cycle price + cells × cell price`, or `None` on overflow.
pub(crate) fn cost(cycles: u64, cells: u64, cycle_price: u128, cell_price: u128) -> Option<u128> {
    u128::from(cycles).checked_mul(cycle_price)?.checked_add(u128::from(cells).checked_mul(cell_price)?)
}

/// Why a transaction could not be prepared.
pub(crate) enum Failure {
    /// It broke a rule: it gets a `Failed` receipt (or is dropped by the proposer's filter).
    Rejected(Rejection),
    /// The state could not be read, or is corrupt: the whole block has no outcome.
    Halt(ReadError),
}

impl From<ReadError> for Failure {
    fn from(error: ReadError) -> Self {
        Failure::Halt(error)
    }
}

impl From<Rejection> for Failure {
    fn from(rejection: Rejection) -> Self {
        Failure::Rejected(rejection)
    }
}

impl From<StateError> for Failure {
    fn from(error: StateError) -> Self {
        Failure::Halt(ReadError::Corrupt(error))
    }
}

/// Charges `tx`'s sender the price of `cycles` and `cells` and tips `proposer`, once its actor
/// work is done. The sender covered value and maximum fees (the validity rule) and no actor can
/// take from its balance, so the charge is covered; it is checked all the same.
pub(crate) fn pay<S: StateRead>(
    overlay: &mut Overlay<'_, S>,
    tx: &Transaction,
    sender: Address,
    (basefees, proposer): (&Basefees, Address),
    (cycles, cells): (u64, u64),
) -> Result<FeeBreakdown, Failure> {
    let fee = price(tx, basefees, cycles, cells)
        .ok_or_else(|| Rejection::new(RejectReason::CostOverflow, "the fee overflows u128"))?;
    let mut payer = overlay.account(sender)?;
    payer.balance = payer
        .balance
        .checked_sub(fee.total())
        .ok_or_else(|| Rejection::new(RejectReason::InsufficientBalanceForFees, "balance cannot cover the fee"))?;
    overlay.set(sender, payer);
    let mut tipped = overlay.account(proposer)?;
    tipped.balance = tipped.balance.checked_add(fee.tip).ok_or_else(|| {
        Rejection::new(RejectReason::CostOverflow, format!("crediting {proposer} would overflow its balance"))
    })?;
    overlay.set(proposer, tipped);
    Ok(fee)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{address, transfer_tx};

    const BASEFEES: Basefees = Basefees { cycle: 8, cell: 1 };

    fn valid() -> Transaction {
        transfer_tx(3, address(2), 1_000)
    }

    #[test]
    fn tip_is_capped_by_max_fee_minus_basefee() {
        // Room of 2 above the basefee: a tip of 5 pays 2.
        let tx = Transaction { max_fee_per_cycle: 10, tip_per_cycle: 5, ..valid() };
        assert_eq!(price(&tx, &BASEFEES, 21_000, 0), Some(FeeBreakdown { burned: 168_000, tip: 42_000 }));
        // A tip within the room is paid in full.
        let tx = Transaction { max_fee_per_cycle: 10, tip_per_cycle: 1, ..valid() };
        assert_eq!(price(&tx, &BASEFEES, 21_000, 0), Some(FeeBreakdown { burned: 168_000, tip: 21_000 }));
        // Cells are priced on their own market.
        let tx = Transaction { max_fee_per_cell: 4, tip_per_cell: 4, ..valid() };
        assert_eq!(price(&tx, &BASEFEES, 0, 100), Some(FeeBreakdown { burned: 100, tip: 300 }));
        // Only what is used is charged.
        assert_eq!(price(&valid(), &BASEFEES, 0, 0), Some(FeeBreakdown::default()));
    }

    #[test]
    fn price_refuses_overflow_and_fees_below_basefee() {
        let tx = Transaction { max_fee_per_cycle: u128::MAX, tip_per_cycle: u128::MAX, ..valid() };
        assert_eq!(price(&tx, &BASEFEES, 2, 0), None);
        let below = Transaction { max_fee_per_cycle: 7, ..valid() };
        assert_eq!(price(&below, &BASEFEES, 1, 0), None);
    }
}
