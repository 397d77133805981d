//! One transaction's state transition: pre-checks, pricing, and the staged balance changes.
//!
//! A transaction is first [prepared](prepare) against the block's overlay without changing it:
//! pre-checks run in their fixed order, the fee is priced, and the new values of the (at most
//! three) accounts it touches — sender, recipient, proposer, which may coincide — are computed
//! with checked arithmetic. Only a fully prepared transaction is [committed](commit), so a failure
//! at any step leaves the state exactly as it was. The executor and the proposer's filter share
//! this path, which is what makes a filtered block execute with every transaction successful.

use crate::{
    Rejection, StateRead,
    actors::{ACTOR_RECORD_CELLS, DEPLOY_CYCLES_PER_PAYLOAD_BYTE},
    overlay::{Overlay, ReadError, StateError},
    rejection::RejectReason,
};
use drover_state::{Account, Basefees};
use drover_types::{
    Address, Event, FeeBreakdown, Transaction, VerifiedTransaction,
    cbor::Writer,
    params::TRANSFER_CYCLES,
    payload::{ACTOR_UPGRADES_ADDRESS, Deploy, Message, UPGRADE_HANDLER, Upgrade},
};

/// Cells charged for a plain value transfer (account records are not charged).
pub const TRANSFER_CELLS: u64 = 0;
/// Topic of the event a transfer emits.
pub const TRANSFER_EVENT_TOPIC: &str = "transfer";

/// What a transaction costs before it does anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Intrinsic {
    /// Cycles charged before execution.
    pub cycles: u64,
    /// Cells charged before execution.
    pub cells: u64,
}

/// Whether `address` is one of the reserved system actors `0x00…01`–`0x00…0f`.
pub fn is_system_address(address: &Address) -> bool {
    address.0[..19].iter().all(|b| *b == 0) && (1..=0x0f).contains(&address.0[19])
}

/// The intrinsic cost of `tx`, charged whatever it does:
/// - a transfer or a value deposit (empty payload): [`TRANSFER_CYCLES`], [`TRANSFER_CELLS`];
/// - an actor call: [`TRANSFER_CYCLES`] plus one cycle per payload byte (copied into the VM),
///   and one cell per payload byte: the payload is written to the chain's history with its
///   block, so block space is bought on the cells market like state (the VM then meters what
///   the handler writes);
/// - a deploy or an upgrade: [`TRANSFER_CYCLES`] plus `DEPLOY_CYCLES_PER_PAYLOAD_BYTE` (16) per
///   payload byte (validating and compiling the code), and one cell per payload byte plus
///   `ACTOR_RECORD_CELLS` (256: the code, manifest and records written).
pub fn intrinsic_cost(tx: &Transaction) -> Intrinsic {
    let bytes = tx.payload.len() as u64;
    let installs = match tx.to {
        None => true,
        Some(to) => to == ACTOR_UPGRADES_ADDRESS && bytes > 0,
    };
    if installs {
        Intrinsic {
            cycles: TRANSFER_CYCLES.saturating_add(bytes.saturating_mul(DEPLOY_CYCLES_PER_PAYLOAD_BYTE)),
            cells: bytes.saturating_add(ACTOR_RECORD_CELLS),
        }
    } else {
        Intrinsic { cycles: TRANSFER_CYCLES.saturating_add(bytes), cells: TRANSFER_CELLS.saturating_add(bytes) }
    }
}

/// Runs every pre-check of `tx` against its sender's current account, in the order the executor
/// applies them: chain id, nonce, basefee, tip, balance, intrinsic cost, payload. Returns the
/// intrinsic cost on success.
///
/// `sender` is the sender's account as the block has left it so far (empty if absent). Mempool
/// admission can call this with the latest state to get the same verdict and the API code.
pub fn precheck(
    chain_id: u64,
    basefees: &Basefees,
    sender: &Account,
    tx: &Transaction,
) -> Result<Intrinsic, Rejection> {
    if tx.chain_id != chain_id {
        return Err(Rejection::new(
            RejectReason::WrongChainId,
            format!("transaction is for chain id {}, this chain is {chain_id}", tx.chain_id),
        ));
    }
    if tx.nonce < sender.nonce {
        return Err(Rejection::new(
            RejectReason::NonceTooLow,
            format!("nonce {} was already used; the sender's next nonce is {}", tx.nonce, sender.nonce),
        ));
    }
    if tx.nonce > sender.nonce {
        return Err(Rejection::new(
            RejectReason::NonceTooHigh,
            format!("nonce {} is ahead of the sender's next nonce {}", tx.nonce, sender.nonce),
        ));
    }
    if sender.nonce == u64::MAX {
        return Err(Rejection::new(RejectReason::NonceExhausted, "the sender's nonce is exhausted"));
    }
    for (meter, max_fee, basefee) in
        [("cycle", tx.max_fee_per_cycle, basefees.cycle), ("cell", tx.max_fee_per_cell, basefees.cell)]
    {
        if max_fee < basefee {
            return Err(Rejection::new(
                RejectReason::BasefeeTooLow,
                format!("max_fee_per_{meter} {max_fee} is below the {meter} basefee {basefee}"),
            ));
        }
    }
    for (meter, tip, max_fee) in
        [("cycle", tx.tip_per_cycle, tx.max_fee_per_cycle), ("cell", tx.tip_per_cell, tx.max_fee_per_cell)]
    {
        if tip > max_fee {
            return Err(Rejection::new(
                RejectReason::TipAboveMaxFee,
                format!("tip_per_{meter} {tip} is above max_fee_per_{meter} {max_fee}"),
            ));
        }
    }
    if tx.value > sender.balance {
        return Err(Rejection::new(
            RejectReason::InsufficientBalanceForValue,
            format!("balance {} cannot cover the value {}", sender.balance, tx.value),
        ));
    }
    let Some(max_cost) = tx.max_cost() else {
        return Err(Rejection::new(
            RejectReason::CostOverflow,
            "value + cycles_limit × max_fee_per_cycle + cells_limit × max_fee_per_cell overflows u128",
        ));
    };
    if max_cost > sender.balance {
        return Err(Rejection::new(
            RejectReason::InsufficientBalanceForFees,
            format!("balance {} cannot cover the value plus maximum fees {max_cost}", sender.balance),
        ));
    }
    let intrinsic = intrinsic_cost(tx);
    if tx.cycles_limit < intrinsic.cycles {
        return Err(Rejection::new(
            RejectReason::IntrinsicCycles,
            format!("cycles_limit {} is below the intrinsic cost of {} cycles", tx.cycles_limit, intrinsic.cycles),
        ));
    }
    if tx.cells_limit < intrinsic.cells {
        return Err(Rejection::new(
            RejectReason::IntrinsicCells,
            format!("cells_limit {} is below the intrinsic cost of {} cells", tx.cells_limit, intrinsic.cells),
        ));
    }
    check_payload(tx)?;
    Ok(intrinsic)
}

/// Whether the payload has the form its destination calls for (`docs/protocol.md`,
/// "Payloads"): a Deploy for `to` = null, a Message for a non-empty payload, an [`Upgrade`]
/// under handler [`UPGRADE_HANDLER`] and no value for the actor-upgrades address, a Message
/// without value for the tokens actor and a Message for the runner registry (their arguments
/// are checked when they run: E1202); other system actors are not enabled. Stateless, so admission uses it too (2012); whether `to` holds an
/// actor is checked at execution.
pub fn check_payload(tx: &Transaction) -> Result<(), Rejection> {
    let invalid = |message: String| Rejection::new(RejectReason::InvalidPayload, message);
    let Some(to) = tx.to else {
        return Deploy::decode(&tx.payload)
            .map(drop)
            .map_err(|e| invalid(format!("a deploy's payload must be a Deploy: {e}")));
    };
    if tx.payload.is_empty() {
        return Ok(());
    }
    let message =
        Message::decode(&tx.payload).map_err(|e| invalid(format!("a payload to an address must be a Message: {e}")))?;
    if to == ACTOR_UPGRADES_ADDRESS {
        if message.handler != UPGRADE_HANDLER {
            return Err(invalid(format!("the actor-upgrades actor has only the handler {UPGRADE_HANDLER:?}")));
        }
        if tx.value > 0 {
            return Err(invalid("an upgrade carries no value".to_owned()));
        }
        return Upgrade::decode(&message.payload)
            .map(drop)
            .map_err(|e| invalid(format!("an upgrade's payload must be an Upgrade: {e}")));
    }
    if crate::system::is_native(&to) {
        return match crate::system::value_refusal(&to, tx.value) {
            Some(why) => Err(invalid(why.to_owned())),
            None => Ok(()),
        };
    }
    if is_system_address(&to) {
        return Err(invalid(format!("the system actor {to} is not enabled")));
    }
    Ok(())
}

/// What a transaction pays for `cycles` and `cells` at the block's basefees, given that it passed
/// the basefee and tip pre-checks: per unit, the basefee (burned) plus the tip capped at
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

fn credit_overflow(address: &Address) -> Rejection {
    Rejection::new(RejectReason::CreditOverflow, format!("crediting {address} would overflow its balance"))
}

/// Prepares `tx` on top of the overlay without changing it.
pub(crate) fn prepare<S: StateRead>(
    overlay: &mut Overlay<'_, S>,
    chain_id: u64,
    basefees: &Basefees,
    proposer: Address,
    tx: &VerifiedTransaction,
) -> Result<Prepared, Failure> {
    let sender = tx.sender;
    let account = overlay.account(sender)?;
    let intrinsic = precheck(chain_id, basefees, &account, &tx.tx)?;
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
    use crate::testing::{CHAIN_ID, address, transfer_tx};
    use drover_types::exec_error::ExecCode;

    const BASEFEES: Basefees = Basefees { cycle: 8, cell: 1 };
    const FUNDED: Account = Account { nonce: 3, balance: 1_000_000 };

    fn reason(tx: &Transaction, sender: &Account) -> Option<RejectReason> {
        precheck(CHAIN_ID, &BASEFEES, sender, tx).err().map(|rejection| rejection.reason)
    }

    fn valid() -> Transaction {
        transfer_tx(3, address(2), 1_000)
    }

    #[test]
    fn a_plain_transfer_passes_with_its_intrinsic_cost() {
        assert_eq!(precheck(CHAIN_ID, &BASEFEES, &FUNDED, &valid()), Ok(Intrinsic { cycles: 21_000, cells: 0 }));
    }

    #[test]
    fn each_rule_has_its_reason_and_code() {
        let cases: Vec<(Transaction, RejectReason, ExecCode)> = vec![
            (Transaction { chain_id: 1, ..valid() }, RejectReason::WrongChainId, ExecCode::ChainId),
            (Transaction { nonce: 2, ..valid() }, RejectReason::NonceTooLow, ExecCode::Nonce),
            (Transaction { nonce: 4, ..valid() }, RejectReason::NonceTooHigh, ExecCode::Nonce),
            (Transaction { max_fee_per_cycle: 7, ..valid() }, RejectReason::BasefeeTooLow, ExecCode::BasefeeTooLow),
            (Transaction { max_fee_per_cell: 0, ..valid() }, RejectReason::BasefeeTooLow, ExecCode::BasefeeTooLow),
            (Transaction { tip_per_cycle: 11, ..valid() }, RejectReason::TipAboveMaxFee, ExecCode::Fees),
            (Transaction { tip_per_cell: 3, ..valid() }, RejectReason::TipAboveMaxFee, ExecCode::Fees),
            (
                Transaction { value: 1_000_001, ..valid() },
                RejectReason::InsufficientBalanceForValue,
                ExecCode::BalanceForValue,
            ),
            (
                Transaction { value: 1_000_000, ..valid() },
                RejectReason::InsufficientBalanceForFees,
                ExecCode::BalanceForFees,
            ),
            (Transaction { cycles_limit: 20_999, ..valid() }, RejectReason::IntrinsicCycles, ExecCode::OutOfCycles),
            (Transaction { to: None, cells_limit: 1_000, ..valid() }, RejectReason::InvalidPayload, ExecCode::Payload),
            (
                Transaction { payload: vec![0], cycles_limit: 22_000, cells_limit: 1, ..valid() },
                RejectReason::InvalidPayload,
                ExecCode::Payload,
            ),
            (
                Transaction {
                    // A reserved address no system actor serves.
                    to: Some(Address::system(0x0f)),
                    payload: Message { handler: "register".into(), payload: Vec::new() }.encode(),
                    cycles_limit: 22_000,
                    cells_limit: 100,
                    ..valid()
                },
                RejectReason::InvalidPayload,
                ExecCode::Payload,
            ),
        ];
        for (tx, expected, code) in cases {
            let rejection = precheck(CHAIN_ID, &BASEFEES, &FUNDED, &tx).unwrap_err();
            assert_eq!(rejection.reason, expected, "{tx:?}");
            assert_eq!(rejection.exec_code(), code, "{tx:?}");
            assert!(!rejection.message.is_empty());
        }
        let deploy = precheck(CHAIN_ID, &BASEFEES, &FUNDED, &Transaction { to: None, cells_limit: 1_000, ..valid() })
            .unwrap_err();
        assert!(deploy.message.starts_with("a deploy's payload must be a Deploy"), "{}", deploy.message);
    }

    #[test]
    fn checks_run_in_their_fixed_order() {
        let all_wrong = Transaction {
            chain_id: 1,
            nonce: 9,
            max_fee_per_cycle: 0,
            tip_per_cycle: 100,
            value: u128::MAX,
            cycles_limit: 0,
            payload: vec![1],
            ..valid()
        };
        let order = [
            RejectReason::WrongChainId,
            RejectReason::NonceTooHigh,
            RejectReason::BasefeeTooLow,
            RejectReason::TipAboveMaxFee,
            RejectReason::InsufficientBalanceForValue,
            RejectReason::IntrinsicCycles,
            RejectReason::IntrinsicCells,
            RejectReason::InvalidPayload,
        ];
        // Fix one rule at a time: the next rule in the order is the one reported.
        let fixes: [fn(&mut Transaction); 8] = [
            |tx| tx.chain_id = CHAIN_ID,
            |tx| tx.nonce = 3,
            |tx| tx.max_fee_per_cycle = 8,
            |tx| tx.tip_per_cycle = 0,
            |tx| tx.value = 5,
            |tx| tx.cycles_limit = 21_001,
            |tx| tx.cells_limit = 1,
            |tx| tx.payload.clear(),
        ];
        let mut tx = all_wrong;
        for (expected, fix) in order.into_iter().zip(fixes) {
            assert_eq!(reason(&tx, &FUNDED), Some(expected));
            fix(&mut tx);
        }
        assert_eq!(reason(&tx, &FUNDED), None);
    }

    #[test]
    fn boundaries_are_inclusive() {
        // Max fee equal to the basefee, tip equal to the max fee.
        let at_basefee = Transaction { max_fee_per_cycle: 8, tip_per_cycle: 8, max_fee_per_cell: 1, ..valid() };
        assert_eq!(reason(&at_basefee, &FUNDED), None);
        // Balance exactly value + limits × max fees.
        let exact = Account { nonce: 3, balance: 1_000 + 21_000 * 10 };
        assert_eq!(reason(&valid(), &exact), None);
        let short = Account { balance: exact.balance - 1, ..exact };
        assert_eq!(reason(&valid(), &short), Some(RejectReason::InsufficientBalanceForFees));
    }

    #[test]
    fn an_absent_sender_fails_on_balance() {
        let tx = transfer_tx(0, address(2), 0);
        assert_eq!(reason(&tx, &Account::default()), Some(RejectReason::InsufficientBalanceForFees));
    }

    #[test]
    fn overflowing_costs_are_refused_not_wrapped() {
        let rich = Account { nonce: 3, balance: u128::MAX };
        let huge_fee = Transaction { max_fee_per_cycle: u128::MAX, ..valid() };
        assert_eq!(reason(&huge_fee, &rich), Some(RejectReason::CostOverflow));
        let huge_value = Transaction { value: u128::MAX, ..valid() };
        assert_eq!(reason(&huge_value, &rich), Some(RejectReason::CostOverflow));
        let huge_limit = Transaction { cycles_limit: u64::MAX, max_fee_per_cycle: u128::MAX / 2, ..valid() };
        assert_eq!(reason(&huge_limit, &rich), Some(RejectReason::CostOverflow));
        let exhausted = Account { nonce: u64::MAX, balance: 1 << 100 };
        assert_eq!(reason(&Transaction { nonce: u64::MAX, ..valid() }, &exhausted), Some(RejectReason::NonceExhausted));
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
