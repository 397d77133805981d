//! The one rule that decides whether a signed transaction is valid, and its typed refusal.
//!
//! Every origin of a transaction calls this module and nothing else decides validity: HTTP
//! `/submit` and `/submit_wait`, the signed runner and relay flows, the faucet and gossip (through
//! the node's intake), the proposer's selection and a verifier's check of a proposed block
//! (through `drover_execution::BlockValidator`, which applies it to each transaction against
//! the state left by the ones before it). The rule has four parts, checked in this order:
//!
//! 1. [`check_form`]: what the transaction alone and the chain id decide — the chain id, each
//!    tip at most its max fee, `value + cycles_limit × max_fee_per_cycle + cells_limit ×
//!    max_fee_per_cell` within `u128`, a payload well formed for its destination
//!    ([`check_payload`]) and limits covering the [intrinsic cost](intrinsic_cost).
//! 2. [`check_limits`]: each limit at most the block's limit of its meter (a transaction no
//!    block can hold is never valid).
//! 3. [`check_basefees`]: each max fee at least the basefee of its meter.
//! 4. [`check_sender`]: the nonce equal to the sender's next nonce and a balance covering the
//!    value plus the maximum fees.
//!
//! A refusal is a [`Rejection`]: a [`RejectReason`] (which rule) and a message (this instance).
//! The HTTP edge maps reasons to the API's codes in one place (`drover_rpc::error`); nothing
//! below it picks an API code.
//!
//! Admission applies parts 1–3 as they are and part 4 to the sender's state after its pending
//! transactions (the pool keeps nonces ahead of the next one queued and reserves what they may
//! cost: pool policy, not validity).

use crate::{
    Address, Basefees, Transaction,
    params::{ACTOR_RECORD_CELLS, DEPLOY_CYCLES_PER_PAYLOAD_BYTE, TRANSFER_CYCLES},
    payload::{ACTOR_UPGRADES_ADDRESS, Deploy, Message, UPGRADE_HANDLER, Upgrade},
    system_actors::{self, AnySystemCall, SystemActorVisitor, Visit},
    system_call::SystemCall,
};

/// One of the two resources a transaction is charged for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Meter {
    /// Compute (WebAssembly fuel and host calls).
    Cycles,
    /// Bytes written to state.
    Cells,
}

impl std::fmt::Display for Meter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Meter::Cycles => "cycles",
            Meter::Cells => "cells",
        })
    }
}

/// What a transaction costs before it does anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Intrinsic {
    /// Cycles charged before execution.
    pub cycles: u64,
    /// Cells charged before execution.
    pub cells: u64,
}

/// The intrinsic cost of `tx`, charged whatever it does:
/// - a transfer (empty payload): [`TRANSFER_CYCLES`] and no cells;
/// - an actor call: [`TRANSFER_CYCLES`] plus one cycle per payload byte (copied into the VM),
///   and one cell per payload byte: the payload is written to the chain's history with its
///   block, so block space is bought on the cells market like state (the VM then meters what
///   the handler writes);
/// - a deploy or an upgrade: [`TRANSFER_CYCLES`] plus [`DEPLOY_CYCLES_PER_PAYLOAD_BYTE`] per
///   payload byte (validating and compiling the code), and one cell per payload byte plus
///   [`ACTOR_RECORD_CELLS`] (the code, manifest and records written).
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
        Intrinsic { cycles: TRANSFER_CYCLES.saturating_add(bytes), cells: bytes }
    }
}

/// The rule a transaction broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectReason {
    /// The transaction is signed for another chain.
    WrongChainId,
    /// The nonce was already used.
    NonceTooLow,
    /// The nonce is ahead of the sender's next nonce (an earlier one is missing).
    NonceTooHigh,
    /// The sender's nonce reached `u64::MAX`: it can send nothing more.
    NonceExhausted,
    /// A max fee is below the block's basefee.
    BasefeeTooLow,
    /// A tip is above its max fee.
    TipAboveMaxFee,
    /// The balance does not cover the value.
    InsufficientBalanceForValue,
    /// The balance covers the value but not the value plus the maximum fees.
    InsufficientBalanceForFees,
    /// value + cycles_limit × max_fee_per_cycle + cells_limit × max_fee_per_cell exceeds u128.
    CostOverflow,
    /// The cycles limit is below the transaction's intrinsic cycles.
    IntrinsicCycles,
    /// The cells limit is below the transaction's intrinsic cells.
    IntrinsicCells,
    /// A limit is above the block's limit of its meter: no block can hold the transaction.
    AboveBlockLimit(Meter),
    /// The payload does not have the form its destination calls for.
    InvalidPayload,
    /// The block has no room left on this meter, or for one more transaction (only from the
    /// block validator: a later block may hold it).
    BlockFull(Meter),
}

impl RejectReason {
    /// Whether the transaction can never become valid, whatever happens to the state (so a
    /// mempool may evict it). The others may pass later: a missing earlier nonce arrives, the
    /// basefee falls, the sender is funded, a later block has room, a vote raises a limit.
    pub fn is_permanent(self) -> bool {
        !matches!(
            self,
            RejectReason::NonceTooHigh
                | RejectReason::BasefeeTooLow
                | RejectReason::InsufficientBalanceForValue
                | RejectReason::InsufficientBalanceForFees
                | RejectReason::AboveBlockLimit(_)
                | RejectReason::BlockFull(_)
        )
    }
}

/// A transaction refused by the validity rule, with what happened in this instance.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    /// Which rule failed; decides the API code at the HTTP edge.
    pub reason: RejectReason,
    /// What happened in this instance.
    pub message: String,
}

impl Rejection {
    /// A rejection for `reason` with this instance's `message`.
    pub fn new(reason: RejectReason, message: impl Into<String>) -> Self {
        Self { reason, message: message.into() }
    }
}

/// The block limits of each meter: the most a block may use, and so the most one transaction
/// may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLimits {
    /// Cycles a block may use.
    pub cycles: u64,
    /// Cells a block may use.
    pub cells: u64,
}

/// Part 1 of the rule: what `tx` and the chain id decide. Returns the intrinsic cost.
pub fn check_form(tx: &Transaction, chain_id: u64) -> Result<Intrinsic, Rejection> {
    form(tx, chain_id).map(|(intrinsic, _)| intrinsic)
}

/// [`check_form`], answering the actor work it decoded as well.
fn form(tx: &Transaction, chain_id: u64) -> Result<(Intrinsic, Option<ActorWork>), Rejection> {
    if tx.chain_id != chain_id {
        return Err(Rejection::new(
            RejectReason::WrongChainId,
            format!("transaction is for chain id {}, this chain is {chain_id}", tx.chain_id),
        ));
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
    if tx.max_cost().is_none() {
        return Err(Rejection::new(
            RejectReason::CostOverflow,
            "value + cycles_limit × max_fee_per_cycle + cells_limit × max_fee_per_cell overflows u128",
        ));
    }
    let work = check_payload(tx)?;
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
    Ok((intrinsic, work))
}

/// Part 2 of the rule: each limit at most the block limit of its meter.
pub fn check_limits(tx: &Transaction, limits: BlockLimits) -> Result<(), Rejection> {
    for (meter, asked, limit) in
        [(Meter::Cycles, tx.cycles_limit, limits.cycles), (Meter::Cells, tx.cells_limit, limits.cells)]
    {
        if asked > limit {
            return Err(Rejection::new(
                RejectReason::AboveBlockLimit(meter),
                format!("a limit of {asked} {meter} is above the block limit of {limit}"),
            ));
        }
    }
    Ok(())
}

/// Part 3 of the rule: each max fee at least the basefee of its meter.
pub fn check_basefees(tx: &Transaction, basefees: &Basefees) -> Result<(), Rejection> {
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
    Ok(())
}

/// Part 4 of the rule: the sender's next nonce is `nonce` and it holds `balance`.
pub fn check_sender(tx: &Transaction, nonce: u64, balance: u128) -> Result<(), Rejection> {
    if tx.nonce < nonce {
        return Err(Rejection::new(
            RejectReason::NonceTooLow,
            format!("nonce {} was already used; the sender's next nonce is {nonce}", tx.nonce),
        ));
    }
    if tx.nonce > nonce {
        return Err(Rejection::new(
            RejectReason::NonceTooHigh,
            format!("nonce {} is ahead of the sender's next nonce {nonce}", tx.nonce),
        ));
    }
    if nonce == u64::MAX {
        return Err(Rejection::new(RejectReason::NonceExhausted, "the sender's nonce is exhausted"));
    }
    if tx.value > balance {
        return Err(Rejection::new(
            RejectReason::InsufficientBalanceForValue,
            format!("balance {balance} cannot cover the value {}", tx.value),
        ));
    }
    // Part 1 refused an overflowing cost.
    let max_cost = tx.max_cost().unwrap_or(u128::MAX);
    if max_cost > balance {
        return Err(Rejection::new(
            RejectReason::InsufficientBalanceForFees,
            format!("balance {balance} cannot cover the value plus maximum fees {max_cost}"),
        ));
    }
    Ok(())
}

/// What the whole rule needs to know of the chain at the point a transaction would execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainContext {
    /// This network's chain id.
    pub chain_id: u64,
    /// The basefees in force.
    pub basefees: Basefees,
    /// The block limits in force.
    pub limits: BlockLimits,
}

/// Parts 1 to 3 of the rule, in order: everything but the sender's state (what admission
/// checks before the pool applies the sender part to the sender's pending run). Returns the
/// intrinsic cost.
pub fn check_stateless(tx: &Transaction, chain: &ChainContext) -> Result<Intrinsic, Rejection> {
    stateless(tx, chain).map(|(intrinsic, _)| intrinsic)
}

/// [`check_stateless`], answering the decoded actor work as well.
fn stateless(tx: &Transaction, chain: &ChainContext) -> Result<(Intrinsic, Option<ActorWork>), Rejection> {
    let checked = form(tx, chain.chain_id)?;
    check_limits(tx, chain.limits)?;
    check_basefees(tx, &chain.basefees)?;
    Ok(checked)
}

/// The whole rule, parts 1 to 4 in order, for a sender whose next nonce is `nonce` and whose
/// balance is `balance`. Returns the intrinsic cost and the actor work (`None`: a transfer),
/// decoded once here so that whoever runs the transaction does not decode its payload again.
pub fn check(
    tx: &Transaction,
    chain: &ChainContext,
    nonce: u64,
    balance: u128,
) -> Result<(Intrinsic, Option<ActorWork>), Rejection> {
    let checked = stateless(tx, chain)?;
    check_sender(tx, nonce, balance)?;
    Ok(checked)
}

/// Whether `address` is one of the reserved system addresses `0x00…01`–`0x00…0f`.
pub fn is_system_address(address: &Address) -> bool {
    address.0[..19].iter().all(|b| *b == 0) && (1..=0x0f).contains(&address.0[19])
}

/// Whether `address` is a native system actor, served by the executor itself.
pub fn is_native(address: &Address) -> bool {
    system_actors::is_system_actor(address)
}

/// The form check of a call of a native system actor: its handler and arguments decode as one
/// of the actor's calls, and it carries no value where the actor refuses value outright.
struct CallForm<'a> {
    handler: &'a str,
    arguments: &'a [u8],
    value: u128,
}

impl SystemActorVisitor for CallForm<'_> {
    type Output = Result<AnySystemCall, String>;
}

impl<C: SystemCall> Visit<C> for CallForm<'_>
where
    AnySystemCall: From<C>,
{
    fn visit(&mut self) -> Result<AnySystemCall, String> {
        let call = C::decode(self.handler, self.arguments)
            .map_err(|why| format!("not a call of the system actor {}: {why}", C::ADDRESS))?;
        if C::VALUE_REFUSED_AT_ADMISSION && self.value > 0 {
            return Err(format!("a call of {} carries no value", C::NAME));
        }
        Ok(AnySystemCall::from(call))
    }
}

/// What a valid transaction asks of an actor, as the rule decoded its payload
/// ([`check_payload`]; `None` there for a transfer or a value deposit): handed to whoever runs
/// the transaction, which so decodes the payload once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActorWork {
    /// A deploy (`to` = null).
    Deploy(Deploy),
    /// An upgrade, sent to the actor-upgrades address.
    Upgrade(Upgrade),
    /// A Message to the address of an actor (not a native system actor): its handler.
    Call(Address, Message),
    /// A Message to a native system actor, with the call its handler and arguments decode as.
    SystemCall(Message, AnySystemCall),
}

/// Whether the payload has the form its destination calls for (`docs/protocol.md`,
/// "Payloads"), answering the actor work it asks for, decoded (`None`: a transfer):
/// - `to` = null: a Deploy;
/// - a reserved system address: a Message, never an empty payload (value sent there without a
///   call would sit at an address no record tracks);
/// - the actor-upgrades address: an [`Upgrade`] under handler [`UPGRADE_HANDLER`], without value;
/// - a native system actor ([`system_actors`]): a Message whose handler and arguments decode as
///   one of its calls (what the arguments mean is checked when it runs: E1202), and no value
///   where the actor refuses it ([`SystemCall::VALUE_REFUSED_AT_ADMISSION`]: the tokens);
/// - any other reserved address: refused (no actor is enabled there);
/// - any other address: an empty payload (a transfer) or a Message (a call; whether an actor
///   lives there is the state's to say when it runs).
pub fn check_payload(tx: &Transaction) -> Result<Option<ActorWork>, Rejection> {
    let invalid = |message: String| Rejection::new(RejectReason::InvalidPayload, message);
    let Some(to) = tx.to else {
        return Deploy::decode(&tx.payload)
            .map(|deploy| Some(ActorWork::Deploy(deploy)))
            .map_err(|e| invalid(format!("a deploy's payload must be a Deploy: {e}")));
    };
    let system = is_system_address(&to);
    if tx.payload.is_empty() {
        if system {
            return Err(invalid(format!("{to} is a system address: it takes calls (a Message), not plain transfers")));
        }
        return Ok(None);
    }
    let message =
        Message::decode(&tx.payload).map_err(|e| invalid(format!("a payload to an address must be a Message: {e}")))?;
    if !system {
        return Ok(Some(ActorWork::Call(to, message)));
    }
    if to == ACTOR_UPGRADES_ADDRESS {
        if message.handler != UPGRADE_HANDLER {
            return Err(invalid(format!("the actor-upgrades actor has only the handler {UPGRADE_HANDLER:?}")));
        }
        if tx.value > 0 {
            return Err(invalid("an upgrade carries no value".to_owned()));
        }
        return Upgrade::decode(&message.payload)
            .map(|upgrade| Some(ActorWork::Upgrade(upgrade)))
            .map_err(|e| invalid(format!("an upgrade's payload must be an Upgrade: {e}")));
    }
    let mut form = CallForm { handler: &message.handler, arguments: &message.payload, value: tx.value };
    match system_actors::visit(&to, &mut form) {
        None => Err(invalid(format!("the system actor {to} is not enabled"))),
        Some(form) => form.map(|call| Some(ActorWork::SystemCall(message, call))).map_err(invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        governance::GOVERNANCE_ADDRESS,
        job::JOB_DISPATCHER_ADDRESS,
        library::LIBRARY_ADDRESS,
        runner::{RUNNER_REGISTRY_ADDRESS, RegistryCall},
        secrets::SECRETS_ADDRESS,
        storage::{RELAY_REGISTRY_ADDRESS, STORAGE_MANAGER_ADDRESS},
        token::{TOKENS_ADDRESS, TokenCall},
    };

    const CHAIN_ID: u64 = 100;
    const BASEFEES: Basefees = Basefees { cycle: 8, cell: 1 };
    const LIMITS: BlockLimits = BlockLimits { cycles: 20_000_000, cells: 1_000_000 };
    const CHAIN: ChainContext = ChainContext { chain_id: CHAIN_ID, basefees: BASEFEES, limits: LIMITS };
    const NONCE: u64 = 3;
    const BALANCE: u128 = 1_000_000;

    fn valid() -> Transaction {
        Transaction {
            chain_id: CHAIN_ID,
            nonce: NONCE,
            to: Some(Address([2; 20])),
            value: 1_000,
            cycles_limit: TRANSFER_CYCLES,
            cells_limit: 0,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 1,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        }
    }

    fn reason(tx: &Transaction) -> Option<RejectReason> {
        check(tx, &CHAIN, NONCE, BALANCE).err().map(|rejection| rejection.reason)
    }

    fn call(to: Address, handler: &str, payload: Vec<u8>) -> Transaction {
        let payload = Message { handler: handler.into(), payload }.encode();
        Transaction { to: Some(to), value: 0, cycles_limit: 50_000, cells_limit: 1_000, payload, ..valid() }
    }

    #[test]
    fn a_plain_transfer_passes_with_its_intrinsic_cost() {
        assert_eq!(check(&valid(), &CHAIN, NONCE, BALANCE), Ok((Intrinsic { cycles: 21_000, cells: 0 }, None)));
    }

    #[test]
    fn each_rule_has_its_reason() {
        let cases: Vec<(Transaction, RejectReason)> = vec![
            (Transaction { chain_id: 1, ..valid() }, RejectReason::WrongChainId),
            (Transaction { nonce: 2, ..valid() }, RejectReason::NonceTooLow),
            (Transaction { nonce: 4, ..valid() }, RejectReason::NonceTooHigh),
            (Transaction { max_fee_per_cycle: 7, ..valid() }, RejectReason::BasefeeTooLow),
            (Transaction { max_fee_per_cell: 0, ..valid() }, RejectReason::BasefeeTooLow),
            (Transaction { tip_per_cycle: 11, ..valid() }, RejectReason::TipAboveMaxFee),
            (Transaction { tip_per_cell: 3, ..valid() }, RejectReason::TipAboveMaxFee),
            (Transaction { value: 1_000_001, ..valid() }, RejectReason::InsufficientBalanceForValue),
            (Transaction { value: 1_000_000, ..valid() }, RejectReason::InsufficientBalanceForFees),
            (Transaction { cycles_limit: 20_999, ..valid() }, RejectReason::IntrinsicCycles),
            (Transaction { cycles_limit: 20_000_001, ..valid() }, RejectReason::AboveBlockLimit(Meter::Cycles)),
            (Transaction { cells_limit: 1_000_001, ..valid() }, RejectReason::AboveBlockLimit(Meter::Cells)),
            (Transaction { to: None, cells_limit: 1_000, ..valid() }, RejectReason::InvalidPayload),
            (
                Transaction { payload: vec![0], cycles_limit: 22_000, cells_limit: 1, ..valid() },
                RejectReason::InvalidPayload,
            ),
            // A reserved address no system actor serves.
            (call(Address::system(0x0f), "register", Vec::new()), RejectReason::InvalidPayload),
        ];
        for (tx, expected) in cases {
            let rejection = check(&tx, &CHAIN, NONCE, BALANCE).unwrap_err();
            assert_eq!(rejection.reason, expected, "{tx:?}");
            assert!(!rejection.message.is_empty());
        }
    }

    #[test]
    fn checks_run_in_their_fixed_order() {
        let all_wrong = Transaction {
            chain_id: 1,
            nonce: 9,
            max_fee_per_cycle: 0,
            tip_per_cycle: 100,
            value: u128::MAX / 2,
            cycles_limit: 0,
            payload: vec![1],
            ..valid()
        };
        let order = [
            RejectReason::WrongChainId,
            RejectReason::TipAboveMaxFee,
            RejectReason::InvalidPayload,
            RejectReason::IntrinsicCycles,
            RejectReason::IntrinsicCells,
            RejectReason::AboveBlockLimit(Meter::Cycles),
            RejectReason::BasefeeTooLow,
            RejectReason::NonceTooHigh,
            RejectReason::InsufficientBalanceForValue,
        ];
        // Fix one rule at a time: the next rule in the order is the one reported.
        let fixes: [fn(&mut Transaction); 9] = [
            |tx| tx.chain_id = CHAIN_ID,
            |tx| tx.tip_per_cycle = 0,
            |tx| tx.payload = Message { handler: "h".into(), payload: Vec::new() }.encode(),
            |tx| tx.cycles_limit = 30_000_000,
            |tx| tx.cells_limit = 1_000,
            |tx| tx.cycles_limit = 100_000,
            |tx| tx.max_fee_per_cycle = 8,
            |tx| tx.nonce = NONCE,
            |tx| tx.value = 5,
        ];
        let mut tx = all_wrong;
        for (expected, fix) in order.into_iter().zip(fixes) {
            assert_eq!(reason(&tx), Some(expected));
            fix(&mut tx);
        }
        assert_eq!(reason(&tx), None);
    }

    #[test]
    fn boundaries_are_inclusive() {
        // Max fee equal to the basefee, tip equal to the max fee.
        let at_basefee = Transaction { max_fee_per_cycle: 8, tip_per_cycle: 8, max_fee_per_cell: 1, ..valid() };
        assert_eq!(reason(&at_basefee), None);
        // Balance exactly value + limits × max fees.
        let exact = 1_000 + 21_000 * 10;
        assert_eq!(check_sender(&valid(), NONCE, exact), Ok(()));
        assert_eq!(
            check_sender(&valid(), NONCE, exact - 1).unwrap_err().reason,
            RejectReason::InsufficientBalanceForFees
        );
        // Limits exactly the block's.
        let at_limit = Transaction { cycles_limit: LIMITS.cycles, cells_limit: LIMITS.cells, ..valid() };
        assert_eq!(check_limits(&at_limit, LIMITS), Ok(()));
    }

    #[test]
    fn overflowing_costs_are_refused_not_wrapped() {
        let huge_fee = Transaction { max_fee_per_cycle: u128::MAX, ..valid() };
        assert_eq!(reason(&huge_fee), Some(RejectReason::CostOverflow));
        let huge_value = Transaction { value: u128::MAX, ..valid() };
        assert_eq!(reason(&huge_value), Some(RejectReason::CostOverflow));
        let exhausted = check_sender(&Transaction { nonce: u64::MAX, ..valid() }, u64::MAX, 1 << 100);
        assert_eq!(exhausted.unwrap_err().reason, RejectReason::NonceExhausted);
    }

    #[test]
    fn system_addresses_take_well_formed_calls_only() {
        // Value to a system address without a call is refused (it would be stranded there).
        for byte in 1..=0x0f {
            let tx = Transaction { to: Some(Address::system(byte)), ..valid() };
            assert_eq!(reason(&tx), Some(RejectReason::InvalidPayload), "0x{byte:02x}");
            let tx = Transaction { to: Some(Address::system(byte)), value: 0, ..valid() };
            assert_eq!(reason(&tx), Some(RejectReason::InvalidPayload), "0x{byte:02x} without value");
        }
        // A native actor's call must decode as one of its calls.
        assert_eq!(reason(&call(TOKENS_ADDRESS, "no_such_handler", Vec::new())), Some(RejectReason::InvalidPayload));
        assert_eq!(reason(&call(GOVERNANCE_ADDRESS, "vote", vec![0xff])), Some(RejectReason::InvalidPayload));
        let heartbeat = call(RUNNER_REGISTRY_ADDRESS, "heartbeat", vec![0xa0]);
        assert_eq!(reason(&heartbeat), None);
        // The tokens actor takes no value.
        let burn = TokenCall::Burn { token: Address([9; 20]), amount: 1 };
        let (handler, arguments) = (burn.handler(), burn.encode_args());
        assert_eq!(reason(&call(TOKENS_ADDRESS, handler, arguments.clone())), None);
        let with_value = Transaction { value: 1, ..call(TOKENS_ADDRESS, handler, arguments) };
        assert_eq!(reason(&with_value), Some(RejectReason::InvalidPayload));
        // Every native actor is recognised, and nothing else.
        for native in [
            TOKENS_ADDRESS,
            RUNNER_REGISTRY_ADDRESS,
            JOB_DISPATCHER_ADDRESS,
            GOVERNANCE_ADDRESS,
            SECRETS_ADDRESS,
            LIBRARY_ADDRESS,
            STORAGE_MANAGER_ADDRESS,
            RELAY_REGISTRY_ADDRESS,
        ] {
            assert!(is_native(&native) && is_system_address(&native), "{native}");
        }
        assert!(!is_native(&ACTOR_UPGRADES_ADDRESS) && !is_native(&Address([2; 20])));
    }

    #[test]
    fn the_rule_answers_the_actor_work_it_decoded() {
        // A transfer asks no actor work; a call, a deploy and an upgrade come back decoded.
        assert_eq!(check_payload(&valid()), Ok(None));
        let to = Address([7; 20]);
        assert_eq!(
            check_payload(&call(to, "ping", vec![1, 2])),
            Ok(Some(ActorWork::Call(to, Message { handler: "ping".into(), payload: vec![1, 2] })))
        );
        let heartbeat = call(RUNNER_REGISTRY_ADDRESS, "heartbeat", vec![0xa0]);
        let message = Message { handler: "heartbeat".into(), payload: vec![0xa0] };
        assert_eq!(
            check(&heartbeat, &CHAIN, NONCE, BALANCE).map(|(_, work)| work),
            Ok(Some(ActorWork::SystemCall(message, AnySystemCall::RegistryCall(RegistryCall::Heartbeat))))
        );
        let deploy =
            Deploy { code: vec![0, 0x61, 0x73, 0x6d], manifest: Default::default(), salt: vec![1], init: None };
        let tx = Transaction { to: None, payload: deploy.encode(), ..valid() };
        assert_eq!(check_payload(&tx), Ok(Some(ActorWork::Deploy(deploy))));
        let upgrade =
            Upgrade { code: vec![0, 0x61, 0x73, 0x6d], actor: Address([8; 20]), manifest: Default::default() };
        let tx = call(ACTOR_UPGRADES_ADDRESS, UPGRADE_HANDLER, upgrade.encode());
        assert_eq!(check_payload(&tx), Ok(Some(ActorWork::Upgrade(upgrade))));
    }

    #[test]
    fn a_deploy_or_upgrade_granting_nothing_takes_either_manifest_form() {
        use crate::payload::Manifest;
        // DESIGN's `{"entitlements": []}` (which `/entitlements/validate-manifest` calls valid)
        // and the vectors' `{}` are both admitted.
        for manifest in [Manifest::new(Vec::new()), Manifest::default()] {
            let deploy =
                Deploy { code: vec![0, 0x61, 0x73, 0x6d], manifest: manifest.clone(), salt: vec![], init: None };
            let tx = Transaction { to: None, payload: deploy.encode(), ..valid() };
            assert_eq!(check_payload(&tx), Ok(Some(ActorWork::Deploy(deploy))));
            let upgrade = Upgrade { code: vec![0, 0x61, 0x73, 0x6d], actor: Address([8; 20]), manifest };
            let tx = call(ACTOR_UPGRADES_ADDRESS, UPGRADE_HANDLER, upgrade.encode());
            assert_eq!(check_payload(&tx), Ok(Some(ActorWork::Upgrade(upgrade))));
        }
    }

    #[test]
    fn only_state_dependent_reasons_are_transient() {
        for transient in [
            RejectReason::NonceTooHigh,
            RejectReason::BasefeeTooLow,
            RejectReason::InsufficientBalanceForValue,
            RejectReason::InsufficientBalanceForFees,
            RejectReason::AboveBlockLimit(Meter::Cells),
            RejectReason::BlockFull(Meter::Cycles),
        ] {
            assert!(!transient.is_permanent(), "{transient:?}");
        }
        for permanent in [
            RejectReason::WrongChainId,
            RejectReason::NonceTooLow,
            RejectReason::NonceExhausted,
            RejectReason::TipAboveMaxFee,
            RejectReason::CostOverflow,
            RejectReason::IntrinsicCycles,
            RejectReason::IntrinsicCells,
            RejectReason::InvalidPayload,
        ] {
            assert!(permanent.is_permanent(), "{permanent:?}");
        }
    }
}
