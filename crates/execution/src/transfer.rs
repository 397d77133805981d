//! One transaction's state transition: pricing, and the staged balance changes of a transfer.
//!
//! Whether a transaction is valid is decided before it runs, by the one validity rule
//! (`drover_types::validity`, applied to the block by [`BlockValidator`](crate::block_validity)).
//! A transfer is then [prepared](prepare) against the block's overlay without changing it: the
//! fee is priced and the new values of the (at most three) accounts it touches — sender,
//! recipient, proposer, which may coincide — are computed with checked arithmetic. Only a fully
//! prepared transfer is [committed](commit), so a failure at any step leaves the state exactly
//! as it was.

use crate::{
    StateRead,
    overlay::{Overlay, ReadError, StateError},
};
use drover_state::{Account, Basefees};
use drover_types::{
    Address, Event, FeeBreakdown, Transaction, VerifiedTransaction,
    cbor::Writer,
    validity::{Intrinsic, RejectReason, Rejection},
};

/// Topic of the event a transfer emits.
pub const TRANSFER_EVENT_TOPIC: &str = "transfer";

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

/// Canonical CBOR `[from bytes(20), to bytes(20), value]`: the data of a transfer event.
pub fn transfer_event_data(from: &Address, to: &Address, value: u128) -> Vec<u8> {
    // Array head, two 20-byte strings with their heads, a u128 of at most 18 bytes.
    let mut writer = Writer::with_capacity(1 + 2 * 21 + 18);
    writer.array(3).bytes(&from.0).bytes(&to.0).u128(value);
    writer.into_inner()
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

/// What a successful transaction reports in its receipt.
pub(crate) struct Executed {
    pub(crate) cycles_used: u64,
    pub(crate) cells_used: u64,
    pub(crate) fee: FeeBreakdown,
    pub(crate) events: Vec<Event>,
}

/// A transaction ready to commit: the accounts' new values and what to report.
pub(crate) struct Prepared {
    accounts: Staged,
    pub(crate) executed: Executed,
}

/// New values of the distinct accounts a transaction touches (at most three, so a linear scan
/// beats any map).
struct Staged(Vec<(Address, Account)>);

impl Staged {
    fn entry<S: StateRead>(
        &mut self,
        overlay: &mut Overlay<'_, S>,
        address: Address,
    ) -> Result<&mut Account, ReadError> {
        let position = match self.0.iter().position(|(staged, _)| *staged == address) {
            Some(position) => position,
            None => {
                self.0.push((address, overlay.account(address)?));
                self.0.len() - 1
            }
        };
        // `position` indexes an element that exists: found above or just pushed.
        Ok(&mut self.0[position].1)
    }
}

/// Impossible while the supply fits in `u128`, which genesis guarantees; refused like an
/// overflowing cost rather than wrapped.
fn credit_overflow(address: &Address) -> Rejection {
    Rejection::new(RejectReason::CostOverflow, format!("crediting {address} would overflow its balance"))
}

/// Prepares the transfer `tx`, which passed the validity rule with `intrinsic`, on top of the
/// overlay without changing it.
pub(crate) fn prepare<S: StateRead>(
    overlay: &mut Overlay<'_, S>,
    basefees: &Basefees,
    proposer: Address,
    tx: &VerifiedTransaction,
    intrinsic: Intrinsic,
) -> Result<Prepared, Failure> {
    let sender = tx.sender;
    let Some(recipient) = tx.tx.to else {
        return Err(Rejection::new(RejectReason::InvalidPayload, "a deploy is not a transfer").into());
    };
    let fee = price(&tx.tx, basefees, intrinsic.cycles, intrinsic.cells)
        .ok_or_else(|| Rejection::new(RejectReason::CostOverflow, "the fee overflows u128"))?;
    let debit = fee
        .total()
        .checked_add(tx.tx.value)
        .ok_or_else(|| Rejection::new(RejectReason::CostOverflow, "value plus fee overflows u128"))?;

    let mut staged = Staged(Vec::with_capacity(3));
    let from = staged.entry(overlay, sender)?;
    from.balance = from.balance.checked_sub(debit).ok_or_else(|| {
        Rejection::new(RejectReason::InsufficientBalanceForFees, format!("balance cannot cover the charge {debit}"))
    })?;
    from.nonce = from
        .nonce
        .checked_add(1)
        .ok_or_else(|| Rejection::new(RejectReason::NonceExhausted, "the sender's nonce is exhausted"))?;
    let to = staged.entry(overlay, recipient)?;
    to.balance = to.balance.checked_add(tx.tx.value).ok_or_else(|| credit_overflow(&recipient))?;
    let tipped = staged.entry(overlay, proposer)?;
    tipped.balance = tipped.balance.checked_add(fee.tip).ok_or_else(|| credit_overflow(&proposer))?;

    Ok(Prepared {
        accounts: staged,
        executed: Executed {
            cycles_used: intrinsic.cycles,
            cells_used: intrinsic.cells,
            fee,
            events: vec![Event {
                address: recipient,
                topic: TRANSFER_EVENT_TOPIC.to_owned(),
                data: transfer_event_data(&sender, &recipient, tx.tx.value),
            }],
        },
    })
}

/// Applies a prepared transaction to the overlay; returns what its receipt reports.
pub(crate) fn commit<S: StateRead>(overlay: &mut Overlay<'_, S>, prepared: Prepared) -> Executed {
    for (address, account) in prepared.accounts.0 {
        overlay.set(address, account);
    }
    prepared.executed
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

    #[test]
    fn transfer_event_data_is_canonical_cbor() {
        let data = transfer_event_data(&Address([1; 20]), &Address([2; 20]), 1_000);
        let mut expected = vec![0x83, 0x54];
        expected.extend([1; 20]);
        expected.push(0x54);
        expected.extend([2; 20]);
        expected.extend([0x19, 0x03, 0xe8]);
        assert_eq!(data, expected);
        assert_eq!(
            drover_types::cbor::check_canonical(&transfer_event_data(&Address::ZERO, &Address::ZERO, u128::MAX)),
            Ok(())
        );
    }
}
