//! A plain transfer (or value deposit): the staged balance changes of a transaction without actor
//! work.
//!
//! Whether a transaction is valid is decided before it runs, by the one validity rule
//! (`drover_types::validity`, applied to the block by [`BlockValidator`](crate::block_validity)).
//! A transfer is then [prepared](prepare) against the block's overlay without changing it: the
//! fee is priced (`crate::charge`) and the new values of the (at most three) accounts it
//! touches — sender, recipient, proposer, which may coincide — are computed with checked
//! arithmetic. Only a fully prepared transfer is [committed](commit), so a failure at any step
//! leaves the state exactly as it was.

use crate::{
    StateRead,
    charge::{Failure, price},
    overlay::{Overlay, ReadError},
};
use drover_state::{Account, Basefees};
use drover_types::{
    Address, Event, FeeBreakdown, VerifiedTransaction,
    cbor::Writer,
    validity::{Intrinsic, RejectReason, Rejection},
};

/// Topic of the event a transfer emits.
pub const TRANSFER_EVENT_TOPIC: &str = "transfer";

/// Canonical CBOR `[from bytes(20), to bytes(20), value]`: the data of a transfer event.
pub fn transfer_event_data(from: &Address, to: &Address, value: u128) -> Vec<u8> {
    // Array head, two 20-byte strings with their heads, a u128 of at most 18 bytes.
    let mut writer = Writer::with_capacity(1 + 2 * 21 + 18);
    writer.array(3).bytes(&from.0).bytes(&to.0).u128(value);
    writer.into_inner()
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
