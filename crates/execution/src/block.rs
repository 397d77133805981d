//! Executing a block and choosing a block's transactions.
//!
//! A block runs in three phases on one journaled overlay: the deferred work (due timers, mailbox
//! deliveries, the jobs' due entries; bounded per block, see [`actors`](crate::actors)), then
//! the block's validity ([`BlockValidator`], the one transaction rule applied to every
//! transaction before any runs: a block that breaks it is refused without executing a
//! transaction), then the transactions in block order. Each transaction runs inside a
//! checkpoint: an actor failure rolls back its effects but keeps its nonce and fee. The
//! proposer's [`build_block`] applies the same validator to each candidate and leaves out the
//! ones it refuses, so it builds only blocks [`execute_block`] accepts.
//!
//! # Reads
//!
//! Execution is a pure function of the parent state, but which keys it reads is only known
//! while running (storage keys, callees, code, mailbox and timer records). It reads them on
//! demand through a [`StateRead`], once per key per block (the overlay keeps what it read), so a
//! block costs one lookup per distinct key its work asked for, and each such read was paid for
//! by that work. [`prefetch_keys`] names the keys that can be predicted, so that the node can
//! read them together before execution starts. A read the state cannot answer ends the block
//! without an outcome ([`BlockError`]), as does a corrupt record.

use crate::{
    BlockEnv, FeeParams, Meter, StateRead, Writes,
    actors::{
        call, deploy,
        host::{self, ActorHost},
        mailbox, settled, timers,
        trace::Tracer,
        upgrade,
    },
    basefee::next_basefees,
    block_validity::BlockValidator,
    charge::{self, Failure},
    credits::Credit,
    deferred::{Deferred, SystemRun},
    overlay::{Overlay, ReadError, ReadFault, StateError},
    transfer::{commit, prepare},
};
use drover_state::{
    Basefees,
    governance::{decode_params, params_state_key},
    keys::{account_key, actor_key, basefees_key, mail_queue_key, timer_cursor_key, timer_slot_key},
};
use drover_types::{
    Address, Event, ExecError, FeeBreakdown, Receipt, TxStatus, VerifiedTransaction,
    chain_params::ChainParams,
    payload::{ACTOR_UPGRADES_ADDRESS, actor_address},
    validity::{self, ActorWork, BlockLimits, ChainContext, Intrinsic, Rejection},
};
use drover_vm::Vm;
use std::collections::BTreeSet;

/// Everything a block's execution produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockOutcome {
    /// Final value of every key the block changed (`None` deletes), sorted by key, each key once.
    /// Includes the basefees for the next block.
    pub writes: Writes,
    /// The accounts among [`BlockOutcome::writes`], by address (`None`: deleted), in address
    /// order: what readers of accounts need without decoding keys.
    pub accounts: Vec<(Address, Option<drover_state::Account>)>,
    /// One receipt per transaction, in block order.
    pub receipts: Vec<Receipt>,
    /// Per receipt, the value its transaction moved to accounts, in order (none unless it
    /// succeeded): no header commits to them, the node indexes them (`crate::credits`).
    pub credits: Vec<Vec<Credit>>,
    /// Timer fires and mailbox deliveries, in execution order (before the transactions).
    pub system_runs: Vec<SystemRun>,
    /// Cycles used by the block: its deferred work and its transactions.
    pub cycles_used: u64,
    /// Cells used by the block, likewise.
    pub cells_used: u64,
    /// Sum of the fees burned by the block (transactions and deferred work).
    pub burned: u128,
    /// Basefees in force for this block (what its header reports).
    pub basefees: Basefees,
    /// Basefees in force for the next block (stored by `writes`).
    pub next_basefees: Basefees,
    /// Chain parameters in force for this block (read from state at its start).
    pub params: ChainParams,
    /// Chain parameters in force for the next block: this block's, or what a governance
    /// `execute` in it wrote.
    pub next_params: ChainParams,
}

/// What the proposer's filter kept and dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Indices into the candidates, in the order given: the block's transactions.
    pub included: Vec<usize>,
    /// Candidates left out, in the order given, with why.
    pub dropped: Vec<(usize, Rejection)>,
}

/// Why a block produced no outcome. Every honest node meets the same: it refuses an invalid
/// block, stops on corruption and abstains when a read failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    /// The block breaks a validity rule (never a block [`build_block`] made).
    #[error(transparent)]
    Invalid(#[from] BlockInvalid),
    /// The state could not be read.
    #[error(transparent)]
    Unavailable(#[from] ReadFault),
    /// A corrupt record: fatal for the node.
    #[error(transparent)]
    Corrupt(#[from] StateError),
}

/// The validity rule a block breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockInvalid {
    /// The transaction at `position` breaks the transaction rule against the state left by the
    /// ones before it, or does not fit what the block has left.
    #[error("transaction {position} is invalid: {rejection}")]
    Transaction {
        /// Its position in the block.
        position: usize,
        /// Which rule it breaks, and how.
        rejection: Rejection,
    },
    /// Executing it would pass a block limit.
    #[error(transparent)]
    Meter(BlockLimitError),
}

impl From<ReadError> for BlockError {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::Fault(fault) => BlockError::Unavailable(fault),
            ReadError::Corrupt(error) => BlockError::Corrupt(error),
        }
    }
}

/// A block uses more of a meter than its limit allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("block uses {used} {meter}, above the limit of {limit}")]
pub struct BlockLimitError {
    /// Which meter is over.
    pub meter: Meter,
    /// What the block uses of it.
    pub used: u64,
    /// The block limit of that meter.
    pub limit: u64,
}

/// The keys a block over these transactions predictably reads, sorted and without duplicates:
/// the basefees; the accounts of the proposer, every sender and every recipient; the actor
/// record of each call's destination, each deploy's new address and each upgrade's actor; the
/// records a call of a native system actor names (`system_actors::prefetch_keys`); the timer cursor,
/// this height's timer count and the mail queue. Execution reads the rest when
/// it needs them (storage, code on a cache miss, callees, mailbox and timer records).
pub fn prefetch_keys(env: &BlockEnv, txs: &[VerifiedTransaction]) -> Vec<Vec<u8>> {
    let mut addresses = BTreeSet::from([env.proposer]);
    let mut actors = BTreeSet::new();
    let mut extra = Vec::new();
    for tx in txs {
        addresses.insert(tx.sender);
        addresses.extend(tx.tx.to);
        // The payload as the validity rule decodes it: a transaction it refuses makes the block
        // invalid before anything runs, so it names no more keys.
        match validity::check_payload(&tx.tx) {
            Ok(Some(ActorWork::Deploy(deploy))) => {
                actors.insert(actor_address(&tx.sender, &deploy.salt, &deploy.code));
            }
            Ok(Some(ActorWork::Upgrade(request))) => {
                actors.extend([ACTOR_UPGRADES_ADDRESS, request.actor]);
            }
            Ok(Some(ActorWork::Call(to, _))) => {
                actors.insert(to);
            }
            Ok(Some(ActorWork::SystemCall(_, call))) => {
                extra.extend(crate::system_actors::prefetch_keys(&tx.sender, call))
            }
            Ok(None) | Err(_) => {}
        }
    }
    let mut keys: Vec<Vec<u8>> =
        [basefees_key(), params_state_key(), timer_cursor_key(), timer_slot_key(env.height), mail_queue_key()]
            .into_iter()
            .chain(addresses.iter().map(account_key))
            .chain(actors.iter().map(actor_key))
            .chain(extra)
            .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// The chain parameters in force: the stored record, or the genesis's before the genesis writes
/// exist.
pub(crate) fn params_in_force<S: StateRead>(
    params: &FeeParams,
    overlay: &mut Overlay<'_, S>,
) -> Result<ChainParams, BlockError> {
    let stored = overlay.record(&params_state_key(), decode_params)?;
    Ok(stored.unwrap_or_else(|| params.genesis_chain_params()))
}

/// Basefees in force for the block: the stored record, or the initial ones before the genesis
/// writes exist.
pub(crate) fn basefees_in_force<S: StateRead>(
    params: &FeeParams,
    overlay: &mut Overlay<'_, S>,
) -> Result<Basefees, BlockError> {
    let stored = overlay.record(&basefees_key(), |bytes| Ok(Basefees::decode(bytes)?))?;
    Ok(stored.unwrap_or(Basefees { cycle: params.initial_basefee_cycle, cell: params.initial_basefee_cell }))
}

/// What one included transaction reports in its receipt.
pub(crate) struct TxResult {
    pub(crate) status: TxStatus,
    pub(crate) cycles_used: u64,
    pub(crate) cells_used: u64,
    pub(crate) fee: FeeBreakdown,
    pub(crate) events: Vec<Event>,
    pub(crate) credits: Vec<Credit>,
    pub(crate) revert_reason: Option<String>,
    pub(crate) error: Option<ExecError>,
}

/// Runs one transaction, admitted by the block's validator with `intrinsic` and the actor work the
/// rule decoded from its payload (`None`: a transfer), on the overlay. On `Err` the caller rolls
/// the overlay back to before it.
pub(crate) fn run_tx<S: StateRead>(
    vm: &Vm,
    env: &BlockEnv,
    chain: (&ChainContext, &ChainParams),
    overlay: &mut Overlay<'_, S>,
    tx: &VerifiedTransaction,
    admitted: (Intrinsic, Option<ActorWork>),
) -> Result<TxResult, Failure> {
    run_tx_traced(vm, env, chain, overlay, tx, admitted, None).map(|(result, _)| result)
}

/// [`run_tx`] with `tracer` watching the handlers it runs (a plain transfer runs none), given
/// back with the result. The tracer only watches: the result is the untraced one.
pub(crate) fn run_tx_traced<S: StateRead>(
    vm: &Vm,
    env: &BlockEnv,
    (chain, chain_params): (&ChainContext, &ChainParams),
    overlay: &mut Overlay<'_, S>,
    tx: &VerifiedTransaction,
    (intrinsic, work): (Intrinsic, Option<ActorWork>),
    tracer: Option<Tracer>,
) -> Result<(TxResult, Option<Tracer>), Failure> {
    let basefees = &chain.basefees;
    // The validator admitted the transaction against a floor of this balance; checking the
    // sender again costs nothing and keeps a charge that could not be paid out of any block.
    let sender = overlay.account(tx.sender)?;
    validity::check_sender(&tx.tx, sender.nonce, sender.balance)?;
    let Some(work) = work else {
        let prepared = prepare(overlay, basefees, env.proposer, tx, intrinsic)?;
        let executed = commit(overlay, prepared);
        let result = TxResult {
            status: TxStatus::Success,
            cycles_used: executed.cycles_used,
            cells_used: executed.cells_used,
            fee: executed.fee,
            events: executed.events,
            credits: tx.tx.to.and_then(|to| Credit::native(tx.sender, to, tx.tx.value)).into_iter().collect(),
            revert_reason: None,
            error: None,
        };
        return Ok((result, tracer));
    };
    // From here the transaction is included: its nonce is used whatever the actor does (a call
    // to an address without an actor fails with E1211 and pays its intrinsic cost).
    overlay.set(tx.sender, drover_state::Account { nonce: sender.nonce.saturating_add(1), ..sender });
    let mut host = ActorHost::new(overlay, vm, *basefees, *env, *chain_params);
    host.tx_hash = Some(tx.hash);
    host.tracer = tracer;
    let work = match work {
        ActorWork::Deploy(d) => deploy::run(&mut host, env, tx, d, intrinsic),
        ActorWork::Upgrade(request) => upgrade::run(&mut host, env, tx, request),
        ActorWork::Call(to, message) => call::run(&mut host, env, tx, (to, message, None), intrinsic),
        ActorWork::SystemCall(message, decoded) => {
            call::run(&mut host, env, tx, (decoded.address(), message, Some(decoded)), intrinsic)
        }
    };
    let events = std::mem::take(&mut host.events);
    let credits = std::mem::take(&mut host.credits);
    let tracer = host.tracer.take();
    if let Some(error) = host.fatal.take() {
        return Err(Failure::Halt(error));
    }
    let cycles_used = intrinsic.cycles.saturating_add(work.cycles_used);
    let cells_used = intrinsic.cells.saturating_add(work.cells_used);
    let fee = charge::pay(overlay, &tx.tx, tx.sender, (basefees, env.proposer), (cycles_used, cells_used))?;
    let result = TxResult {
        events: if work.status == TxStatus::Success { events } else { Vec::new() },
        credits: if work.status == TxStatus::Success { credits } else { Vec::new() },
        status: work.status,
        cycles_used,
        cells_used,
        fee,
        revert_reason: work.revert_reason,
        error: work.error,
    };
    Ok((result, tracer))
}

/// Runs the deferred work: due timers, mailbox deliveries, then the jobs' deadlines and
/// assignment retries (`crate::deferred`).
fn deferred_phase<S: StateRead>(
    vm: &Vm,
    env: &BlockEnv,
    (params, chain_params): (&FeeParams, &ChainParams),
    basefees: Basefees,
    overlay: &mut Overlay<'_, S>,
) -> Result<Deferred, ReadError> {
    let mut deferred = Deferred::new(params);
    let mut host = ActorHost::new(overlay, vm, basefees, *env, *chain_params);
    timers::fire_due(&mut host, env, &mut deferred)?;
    mailbox::deliver(&mut host, env, &mut deferred)?;
    let jobs = crate::jobs::deferred::run(&mut host, &mut deferred);
    settled(&mut host)?;
    // The jobs' events are not kept: their effects are in the job records.
    host.events.clear();
    jobs.map_err(|e| ReadError::Corrupt(host::corrupt(Vec::new(), e.to_string())))?;
    overlay.settle();
    Ok(deferred)
}

/// Whether the transactions are the block's own (a verifier's: the block is invalid unless all
/// pass) or candidates a proposer chooses from (those refused are left out).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Execute,
    Build,
}

/// The validity of a whole block's transactions, decided before the first one runs.
fn admit_all(
    validator: &mut BlockValidator,
    txs: &[VerifiedTransaction],
) -> Result<Vec<(Intrinsic, Option<ActorWork>)>, BlockInvalid> {
    txs.iter()
        .enumerate()
        .map(|(position, tx)| {
            validator.admit(tx).map_err(|rejection| BlockInvalid::Transaction { position, rejection })
        })
        .collect()
}

/// Runs a block over `txs` in `mode`; the selection is empty in [`Mode::Execute`].
fn run_block<S: StateRead>(
    vm: &Vm,
    env: &BlockEnv,
    params: &FeeParams,
    state: &S,
    txs: &[VerifiedTransaction],
    mode: Mode,
) -> Result<(Selection, BlockOutcome), BlockError> {
    let mut overlay = Overlay::new(state);
    let basefees = basefees_in_force(params, &mut overlay)?;
    let chain_params = params_in_force(params, &mut overlay)?;
    // The targets and floors in force: the governed ones.
    let params = &params.governed(&chain_params);
    let deferred = deferred_phase(vm, env, (params, &chain_params), basefees, &mut overlay)?;
    let limits = BlockLimits { cycles: params.block_limit_cycles(), cells: params.block_limit_cells() };
    let chain = ChainContext { chain_id: env.chain_id, basefees, limits };
    let mut validator = BlockValidator::new(chain, (deferred.cycles_used, deferred.cells_used), &mut overlay, txs)?;
    // A verifier decides the whole block's validity before the first transaction runs.
    // (A builder admits each candidate just before it runs.)
    let mut admitted = match mode {
        Mode::Execute => admit_all(&mut validator, txs)?,
        Mode::Build => Vec::new(),
    }
    .into_iter();
    let mut selection = Selection::default();
    let mut receipts = Vec::with_capacity(txs.len());
    let mut credits = Vec::with_capacity(txs.len());
    let (mut cycles_used, mut cells_used, mut burned) = (deferred.cycles_used, deferred.cells_used, deferred.burned);
    for (position, tx) in txs.iter().enumerate() {
        let checked = match admitted.next() {
            Some(checked) => checked,
            None => match validator.admit(tx) {
                Ok(checked) => checked,
                Err(rejection) => {
                    selection.dropped.push((position, rejection));
                    continue;
                }
            },
        };
        let checkpoint = overlay.checkpoint();
        let result = match run_tx(vm, env, (&chain, &chain_params), &mut overlay, tx, checked) {
            Ok(result) => result,
            Err(Failure::Halt(error)) => return Err(error.into()),
            // Unreachable for an admitted transaction; a verifier refuses the block rather than
            // give a receipt that charges nothing.
            Err(Failure::Rejected(rejection)) => {
                overlay.rollback(checkpoint);
                match mode {
                    Mode::Execute => return Err(BlockInvalid::Transaction { position, rejection }.into()),
                    Mode::Build => {
                        selection.dropped.push((position, rejection));
                        continue;
                    }
                }
            }
        };
        overlay.settle();
        if mode == Mode::Build {
            selection.included.push(position);
        }
        cycles_used = cycles_used.saturating_add(result.cycles_used);
        cells_used = cells_used.saturating_add(result.cells_used);
        burned = burned.saturating_add(result.fee.burned);
        // Unreachable while every transaction keeps within its limit and the limits fit the
        // block: the meters stop a block the moment it passes what it may use.
        validate_block_limits(params, cycles_used, cells_used).map_err(BlockInvalid::Meter)?;
        credits.push(result.credits);
        receipts.push(Receipt {
            tx_hash: tx.hash,
            block_height: env.height,
            // A block cannot come near 2^32 transactions: its size is bounded far below.
            index: u32::try_from(receipts.len()).unwrap_or(u32::MAX),
            from: tx.sender,
            to: tx.tx.to,
            status: result.status,
            cycles_used: result.cycles_used,
            cells_used: result.cells_used,
            fee: result.fee,
            events: result.events,
            revert_reason: result.revert_reason,
            error: result.error,
        });
    }
    let next_params = overlay.record(&params_state_key(), decode_params)?.unwrap_or(chain_params);
    // A floor this block raised holds from the next block, like every other change.
    let next = next_basefees(params, basefees, cycles_used, cells_used);
    let next_basefees = Basefees {
        cycle: next.cycle.max(next_params.min_basefee_cycle),
        cell: next.cell.max(next_params.min_basefee_cell),
    };
    overlay.put(basefees_key(), Some(next_basefees.encode()));
    let (writes, accounts) = overlay.into_changes();
    let outcome = BlockOutcome {
        writes,
        accounts,
        receipts,
        credits,
        system_runs: deferred.runs,
        cycles_used,
        cells_used,
        burned,
        basefees,
        next_basefees,
        params: chain_params,
        next_params,
    };
    Ok((selection, outcome))
}

/// Executes a block on `state` (the parent block's post-state, with the genesis writes applied
/// before block 1): deferred work, then `txs` in order.
///
/// Refuses the block ([`BlockError::Invalid`]) before any transaction runs when one breaks the
/// validity rule against the state left by the ones before it, or their limits do not fit what
/// the deferred work left of the block limits. A transaction whose actor reverts or traps is
/// rolled back and pays. Fails with [`BlockError::Unavailable`] or [`BlockError::Corrupt`] when
/// the state cannot be read or holds a corrupt record.
pub fn execute_block(
    vm: &Vm,
    env: &BlockEnv,
    params: &FeeParams,
    state: &impl StateRead,
    txs: &[VerifiedTransaction],
) -> Result<BlockOutcome, BlockError> {
    run_block(vm, env, params, state, txs, Mode::Execute).map(|(_, outcome)| outcome)
}

/// The proposer's block: runs the block's deferred work, then walks `candidates` in order,
/// keeping each one the block validator admits after the ones kept before it (the validity
/// rule, and limits that fit what the block has left) and dropping the others with the reason.
/// A transaction whose actor reverts or traps is kept: it pays. Returns the selection and the
/// outcome of the block made of the kept transactions — exactly what [`execute_block`] gives
/// over them (dropped candidates leave no trace) — in one pass.
///
/// Fails like [`execute_block`].
pub fn build_block(
    vm: &Vm,
    env: &BlockEnv,
    params: &FeeParams,
    state: &impl StateRead,
    candidates: &[VerifiedTransaction],
) -> Result<(Selection, BlockOutcome), BlockError> {
    run_block(vm, env, params, state, candidates, Mode::Build)
}

/// The one block-level rule: a block may use at most twice the target of each meter.
pub fn validate_block_limits(params: &FeeParams, cycles_used: u64, cells_used: u64) -> Result<(), BlockLimitError> {
    for (meter, used, limit) in [
        (Meter::Cycles, cycles_used, params.block_limit_cycles()),
        (Meter::Cells, cells_used, params.block_limit_cells()),
    ] {
        if used > limit {
            return Err(BlockLimitError { meter, used, limit });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        genesis_writes,
        testing::{
            State, account, address, apply, balance, env, genesis, total_supply, transfer, transfer_tx, verified, vm,
        },
        transfer_event_data,
    };
    use drover_state::Account;
    use drover_types::params::TRANSFER_CYCLES;
    use drover_types::validity::RejectReason;
    use drover_types::{Event, SecretKey, Transaction, exec_error::ExecCode};

    const RICH: u128 = 1_000_000_000_000;
    /// Fee of one transfer at the genesis basefees (1 per cycle): 21,000 burned, 21,000 tipped.
    const FEE: FeeBreakdown = FeeBreakdown { burned: 21_000, tip: 21_000 };

    fn params() -> FeeParams {
        FeeParams::default()
    }

    fn run(state: &State, proposer: Address, txs: &[VerifiedTransaction]) -> BlockOutcome {
        execute_block(vm(), &env(proposer), &params(), state, txs).expect("state is not corrupt")
    }

    fn corrupt_key(error: BlockError) -> Vec<u8> {
        match error {
            BlockError::Corrupt(error) => error.key,
            other => panic!("expected a corrupt record, got {other:?}"),
        }
    }

    fn codes(outcome: &BlockOutcome) -> Vec<Option<ExecCode>> {
        outcome.receipts.iter().map(|receipt| receipt.error.as_ref().map(|error| error.code)).collect()
    }

    #[test]
    fn a_transfer_moves_value_burns_the_basefee_and_tips_the_proposer() {
        let (alice, bob, proposer) = (address(1), address(2), address(9));
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, proposer, &[transfer(alice, 0, bob, 500)]);

        let receipt = &outcome.receipts[0];
        assert_eq!(receipt.status, TxStatus::Success);
        assert_eq!((receipt.cycles_used, receipt.cells_used), (TRANSFER_CYCLES, 0));
        assert_eq!(receipt.fee, FEE);
        assert_eq!((receipt.block_height, receipt.index), (7, 0));
        assert_eq!((receipt.from, receipt.to), (alice, Some(bob)));
        assert_eq!(receipt.error, None);
        assert_eq!(
            receipt.events,
            [Event { address: bob, topic: "transfer".into(), data: transfer_event_data(&alice, &bob, 500) }]
        );
        assert_eq!((outcome.cycles_used, outcome.cells_used, outcome.burned), (TRANSFER_CYCLES, 0, 21_000));

        apply(&mut state, outcome.writes);
        assert_eq!(account(&state, alice), Some(Account { nonce: 1, balance: RICH - 500 - 42_000 }));
        assert_eq!(account(&state, bob), Some(Account { nonce: 0, balance: 500 }));
        assert_eq!(account(&state, proposer), Some(Account { nonce: 0, balance: 21_000 }));
        assert_eq!(total_supply(&state), RICH - 21_000);
    }

    #[test]
    fn supply_falls_by_exactly_the_burn_across_many_transfers() {
        let accounts: Vec<Address> = (1..=50).map(address).collect();
        let allocations: Vec<(Address, u128)> =
            accounts.iter().enumerate().map(|(i, a)| (*a, RICH + i as u128 * 7_919)).collect();
        let mut state = genesis(&allocations);
        let before = total_supply(&state);
        let mut nonces = [0u64; 50];
        let txs: Vec<VerifiedTransaction> = (0..600usize)
            .map(|i| {
                let (from, to) = ((i * 7) % 50, (i * 13 + 5) % 50);
                let tx = transfer(accounts[from], nonces[from], accounts[to], (i as u128 * 104_729) % 1_000_000);
                nonces[from] += 1;
                tx
            })
            .collect();
        let outcome = run(&state, address(200), &txs);
        assert!(outcome.receipts.iter().all(|receipt| receipt.status == TxStatus::Success));
        let burned: u128 = outcome.receipts.iter().map(|receipt| receipt.fee.burned).sum();
        assert_eq!(burned, outcome.burned);
        assert_eq!(outcome.cycles_used, 600 * TRANSFER_CYCLES);

        // Deterministic: the same inputs give the same outcome.
        assert_eq!(run(&state, address(200), &txs), outcome);
        // Writes are sorted by key, each key once.
        assert!(outcome.writes.windows(2).all(|pair| pair[0].0 < pair[1].0));

        apply(&mut state, outcome.writes);
        assert_eq!(before, total_supply(&state) + burned);
        for (i, address) in accounts.iter().enumerate() {
            assert_eq!(account(&state, *address).map(|a| a.nonce), Some(nonces[i]));
        }
    }

    #[test]
    fn nonces_sequence_within_a_block_and_a_block_breaking_the_sequence_is_invalid() {
        let (alice, bob) = (address(1), address(2));
        let mut state = genesis(&[(alice, RICH)]);
        let invalid = |state: &State, txs: &[VerifiedTransaction]| match execute_block(
            vm(),
            &env(address(9)),
            &params(),
            state,
            txs,
        ) {
            Err(BlockError::Invalid(BlockInvalid::Transaction { position, rejection })) => (position, rejection.reason),
            other => panic!("expected an invalid block, got {other:?}"),
        };
        let [t0, t1, t2, t3] = [0, 1, 2, 3].map(|nonce| transfer(alice, nonce, bob, 1));
        // A nonce used just before, a gap, and nonces out of order.
        assert_eq!(invalid(&state, &[t0.clone(), t1.clone(), t1.clone()]), (2, RejectReason::NonceTooLow));
        assert_eq!(invalid(&state, &[t0.clone(), t1.clone(), t3.clone()]), (2, RejectReason::NonceTooHigh));
        assert_eq!(invalid(&state, &[t1.clone(), t0.clone()]), (0, RejectReason::NonceTooHigh));
        // The proposer keeps the sequence and leaves out the rest.
        let candidates = [t0.clone(), t1.clone(), t1.clone(), t3.clone(), t2.clone()];
        let (selection, built) = build_block(vm(), &env(address(9)), &params(), &state, &candidates).unwrap();
        assert_eq!(selection.included, [0, 1, 4]);
        assert_eq!(built, run(&state, address(9), &[t0, t1, t2]));
        apply(&mut state, built.writes);
        assert_eq!(account(&state, alice).map(|a| a.nonce), Some(3));
        // A finalized transaction can never be included again: its nonce is used.
        assert_eq!(invalid(&state, &[transfer(alice, 0, bob, 1)]), (0, RejectReason::NonceTooLow));
    }

    #[test]
    fn a_block_holding_an_invalid_transaction_is_refused_before_any_transaction_runs() {
        let (alice, bob, proposer) = (address(1), address(2), address(9));
        let state = genesis(&[(alice, 1_000_000)]);
        let invalid_txs = [
            (verified(alice, Transaction { chain_id: 1, ..transfer_tx(1, bob, 1) }), RejectReason::WrongChainId),
            (transfer(alice, 5, bob, 1), RejectReason::NonceTooHigh),
            (
                verified(alice, Transaction { max_fee_per_cycle: 0, tip_per_cycle: 0, ..transfer_tx(1, bob, 1) }),
                RejectReason::BasefeeTooLow,
            ),
            (transfer(alice, 1, bob, 1_000_001), RejectReason::InsufficientBalanceForValue),
            // The first transfer's maximum cost (210,001) is reserved: 789,999 are left.
            (transfer(alice, 1, bob, 789_999 - 210_000 + 1), RejectReason::InsufficientBalanceForFees),
            (verified(alice, Transaction { cycles_limit: 1, ..transfer_tx(1, bob, 1) }), RejectReason::IntrinsicCycles),
            (
                verified(alice, Transaction { cycles_limit: 10u64.pow(12), ..transfer_tx(1, bob, 1) }),
                RejectReason::AboveBlockLimit(Meter::Cycles),
            ),
            (
                verified(alice, Transaction { to: None, cells_limit: 1_000, ..transfer_tx(1, bob, 1) }),
                RejectReason::InvalidPayload,
            ),
            (
                verified(
                    alice,
                    Transaction {
                        payload: b"hi".to_vec(),
                        cycles_limit: 22_000,
                        cells_limit: 2,
                        ..transfer_tx(1, bob, 1)
                    },
                ),
                RejectReason::InvalidPayload,
            ),
            (transfer(alice, 1, Address::system(0x0c), 1), RejectReason::InvalidPayload),
            (transfer(bob, 0, alice, 0), RejectReason::InsufficientBalanceForFees),
        ];
        for (tx, reason) in invalid_txs {
            // Behind a valid transfer, so that refusing the block must not run the one before.
            let reader = crate::testing::Recording::new(&state);
            let verdict = execute_block(vm(), &env(proposer), &params(), &reader, &[transfer(alice, 0, bob, 1), tx]);
            match verdict {
                Err(BlockError::Invalid(BlockInvalid::Transaction { position: 1, rejection })) => {
                    assert_eq!(rejection.reason, reason);
                }
                other => panic!("{reason:?}: expected an invalid block, got {other:?}"),
            }
            // Nothing ran: the recipient's and the proposer's accounts were never read.
            assert!(!reader.read(&account_key(&proposer)), "{reason:?}");
        }
    }

    #[test]
    fn funds_received_in_a_block_are_spent_from_the_next_one() {
        let (alice, bob, carol) = (address(1), address(2), address(3));
        let mut state = genesis(&[(alice, RICH)]);
        let candidates = [transfer(alice, 0, bob, 1_000_000), transfer(bob, 0, carol, 1)];
        // Only a sender's own transactions take from its balance within a block, so validity
        // counts what it held when the block began.
        let (selection, built) = build_block(vm(), &env(address(9)), &params(), &state, &candidates).unwrap();
        assert_eq!(selection.included, [0]);
        assert_eq!(selection.dropped[0].1.reason, RejectReason::InsufficientBalanceForValue);
        assert!(!selection.dropped[0].1.reason.is_permanent());
        assert!(matches!(
            execute_block(vm(), &env(address(9)), &params(), &state, &candidates),
            Err(BlockError::Invalid(_))
        ));
        apply(&mut state, built.writes);
        assert_eq!(codes(&run(&state, address(9), &candidates[1..])), [None]);
    }

    #[test]
    fn the_outcome_lists_exactly_the_accounts_among_its_writes() {
        let (alice, bob, carol) = (address(1), address(2), address(3));
        let state = genesis(&[(alice, RICH), (carol, 21_000 * 10)]);
        // Carol spends everything but her nonce keeps her account; Bob is created.
        let txs = [transfer(alice, 0, bob, 5), transfer(carol, 0, alice, 21_000 * 10 - 21_000 * 10)];
        let outcome = run(&state, address(9), &txs);
        let from_writes: Vec<(Address, Option<Account>)> = outcome
            .writes
            .iter()
            .filter_map(|(key, value)| {
                let address = drover_state::keys::account_address(key)?;
                Some((address, value.as_deref().map(|v| Account::decode(v).unwrap())))
            })
            .collect();
        let mut listed = outcome.accounts.clone();
        listed.sort_by_key(|(address, _)| drover_state::keys::account_key(address));
        assert_eq!(listed, from_writes);
        assert!(listed.iter().any(|(a, account)| *a == bob && account.is_some_and(|acc| acc.balance == 5)));
    }

    #[test]
    fn the_proposer_can_send_and_earn_in_the_same_transaction() {
        let (alice, bob) = (address(1), address(2));
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, alice, &[transfer(alice, 0, bob, 10)]);
        apply(&mut state, outcome.writes);
        // Alice pays value + burn + tip and receives the tip back.
        assert_eq!(account(&state, alice), Some(Account { nonce: 1, balance: RICH - 10 - 21_000 }));
        assert_eq!(balance(&state, bob), 10);
        assert_eq!(total_supply(&state), RICH - 21_000);
    }

    #[test]
    fn a_transfer_to_self_costs_only_the_fee() {
        let alice = address(1);
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, address(9), &[transfer(alice, 0, alice, RICH / 2)]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        assert_eq!(outcome.receipts[0].events.len(), 1);
        apply(&mut state, outcome.writes);
        assert_eq!(account(&state, alice), Some(Account { nonce: 1, balance: RICH - 42_000 }));
        // Sender, recipient and proposer all the same account.
        let outcome = run(&state, alice, &[transfer(alice, 1, alice, 5)]);
        apply(&mut state, outcome.writes);
        assert_eq!(account(&state, alice), Some(Account { nonce: 2, balance: RICH - 42_000 - 21_000 }));
    }

    #[test]
    fn a_zero_value_transfer_creates_no_account() {
        let (alice, fresh) = (address(1), address(2));
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, alice, &[transfer(alice, 0, fresh, 0)]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        apply(&mut state, outcome.writes);
        assert_eq!(account(&state, fresh), None);
    }

    #[test]
    fn overflow_attempts_are_invalid_not_wrapped() {
        let (alice, whale, proposer) = (address(1), address(2), address(9));
        // A state no genesis could produce (supply above u128::MAX), to reach the credit check.
        let mut state = genesis(&[(alice, RICH)]);
        apply(&mut state, vec![(account_key(&whale), Some(Account { nonce: 0, balance: u128::MAX }.encode()))]);
        let txs = [
            transfer(alice, 0, whale, 1),
            transfer(alice, 0, address(3), u128::MAX),
            verified(
                alice,
                Transaction { max_fee_per_cycle: u128::MAX, tip_per_cycle: u128::MAX, ..transfer_tx(0, whale, 0) },
            ),
            verified(
                alice,
                Transaction { cycles_limit: u64::MAX, max_fee_per_cycle: u128::MAX, ..transfer_tx(0, whale, 0) },
            ),
            verified(
                whale,
                Transaction { max_fee_per_cycle: u128::MAX, tip_per_cycle: u128::MAX, ..transfer_tx(0, alice, 0) },
            ),
        ];
        for (tx, reason) in txs.iter().zip([
            RejectReason::CostOverflow,
            RejectReason::CostOverflow,
            RejectReason::CostOverflow,
            RejectReason::CostOverflow,
            RejectReason::CostOverflow,
        ]) {
            let block = std::slice::from_ref(tx);
            let (selection, built) = build_block(vm(), &env(proposer), &params(), &state, block).unwrap();
            assert_eq!(selection.dropped.iter().map(|(_, r)| r.reason).collect::<Vec<_>>(), [reason], "{tx:?}");
            assert!(built.receipts.is_empty());
            assert!(matches!(
                execute_block(vm(), &env(proposer), &params(), &state, block),
                Err(BlockError::Invalid(_))
            ));
        }
    }

    #[test]
    fn basefees_come_from_state_and_the_next_ones_are_written() {
        let alice = address(1);
        let mut state = genesis(&[(alice, RICH)]);
        apply(&mut state, vec![(basefees_key(), Some(Basefees { cycle: 800, cell: 80 }.encode()))]);
        let tx = verified(
            alice,
            Transaction { max_fee_per_cycle: 1_000, max_fee_per_cell: 100, ..transfer_tx(0, address(2), 1) },
        );
        let outcome = run(&state, address(9), &[tx]);
        assert_eq!(outcome.basefees, Basefees { cycle: 800, cell: 80 });
        assert_eq!(outcome.receipts[0].fee, FeeBreakdown { burned: 21_000 * 800, tip: 21_000 });
        // 21,000 cycles is far below target: down by almost an eighth; no cells used: down by 1/8.
        assert_eq!(outcome.next_basefees, Basefees { cycle: 800 - 99, cell: 70 });
        assert_eq!(outcome.writes[0], (basefees_key(), Some(outcome.next_basefees.encode())));
        apply(&mut state, outcome.writes);
        // The next block prices with the written basefees.
        let outcome = run(&state, address(9), &[]);
        assert_eq!(outcome.basefees, Basefees { cycle: 701, cell: 70 });
    }

    #[test]
    fn absent_basefees_mean_the_initial_ones() {
        let params = FeeParams { initial_basefee_cycle: 50, initial_basefee_cell: 5, ..FeeParams::default() };
        let outcome = execute_block(vm(), &env(address(9)), &params, &State::new(), &[]).unwrap();
        assert_eq!(outcome.basefees, Basefees { cycle: 50, cell: 5 });
        // An eighth of 5 rounds to 0; an empty block still takes 1 off.
        assert_eq!(outcome.next_basefees, Basefees { cycle: 44, cell: 4 });
        assert_eq!(outcome.writes, [(basefees_key(), Some(Basefees { cycle: 44, cell: 4 }.encode()))]);
    }

    #[test]
    fn a_full_block_raises_the_cycle_basefee() {
        let senders: Vec<Address> = (1..=200).map(address).collect();
        let allocations: Vec<_> = senders.iter().map(|s| (*s, RICH)).collect();
        let mut state = genesis(&allocations);
        apply(&mut state, vec![(basefees_key(), Some(Basefees { cycle: 8, cell: 8 }.encode()))]);
        // 952 transfers: 19,992,000 cycles, just under the 20,000,000 limit.
        let txs: Vec<_> = (0..952u64)
            .map(|i| {
                let sender = senders[(i % 200) as usize];
                verified(sender, Transaction { max_fee_per_cell: 8, ..transfer_tx(i / 200, address(250), 1) })
            })
            .collect();
        let outcome = run(&state, address(9), &txs);
        assert!(outcome.receipts.iter().all(|receipt| receipt.status == TxStatus::Success));
        assert_eq!(validate_block_limits(&params(), outcome.cycles_used, outcome.cells_used), Ok(()));
        // (19,992,000 − 10,000,000) / 80,000,000 of 8 is 0.999: rounds down to 0, then at least +1.
        assert_eq!(outcome.next_basefees, Basefees { cycle: 9, cell: 7 });
    }

    #[test]
    fn block_limits_are_twice_the_target() {
        let params = params();
        assert_eq!(validate_block_limits(&params, 20_000_000, 1_000_000), Ok(()));
        assert_eq!(
            validate_block_limits(&params, 20_000_001, 0),
            Err(BlockLimitError { meter: Meter::Cycles, used: 20_000_001, limit: 20_000_000 })
        );
        assert_eq!(
            validate_block_limits(&params, 0, 1_000_001),
            Err(BlockLimitError { meter: Meter::Cells, used: 1_000_001, limit: 1_000_000 })
        );
        assert_eq!(
            validate_block_limits(&params, u64::MAX, 0).unwrap_err().to_string(),
            format!("block uses {} cycles, above the limit of 20000000", u64::MAX)
        );
    }

    #[test]
    fn build_block_drops_exactly_the_invalid_ones_and_its_block_fully_succeeds() {
        let (alice, bob, carol, proposer) = (address(1), address(2), address(3), address(9));
        let state = genesis(&[(alice, RICH), (bob, 1_000_000)]);
        let candidates = [
            transfer(alice, 1, carol, 1),                                             // 0: nonce gap
            transfer(alice, 0, carol, 1),                                             // 1: ok
            transfer(alice, 1, carol, 1),                                             // 2: ok now
            verified(alice, Transaction { chain_id: 1, ..transfer_tx(2, carol, 1) }), // 3: wrong chain
            transfer(bob, 0, carol, 300_000),                                         // 4: ok
            transfer(bob, 1, carol, 500_000),                                         // 5: bob is short now
            transfer(carol, 0, bob, 10),                                              // 6: carol held nothing
            transfer(alice, 2, carol, 1),                                             // 7: ok
            transfer(alice, 2, carol, 1),                                             // 8: nonce reused
        ];
        let (selection, built) = build_block(vm(), &env(proposer), &params(), &state, &candidates).unwrap();
        assert_eq!(selection.included, [1, 2, 4, 7]);
        let dropped: Vec<(usize, RejectReason)> =
            selection.dropped.iter().map(|(index, rejection)| (*index, rejection.reason)).collect();
        assert_eq!(
            dropped,
            [
                (0, RejectReason::NonceTooHigh),
                (3, RejectReason::WrongChainId),
                // 1,000,000 less the first transfer's value and maximum fees, 510,000.
                (5, RejectReason::InsufficientBalanceForValue),
                (6, RejectReason::InsufficientBalanceForValue),
                (8, RejectReason::NonceTooLow),
            ]
        );
        let block: Vec<_> = selection.included.iter().map(|&i| candidates[i].clone()).collect();
        let outcome = run(&state, proposer, &block);
        assert!(outcome.receipts.iter().all(|receipt| receipt.status == TxStatus::Success));
        // Building is executing the kept transactions, in one pass.
        assert_eq!(built, outcome);
    }

    #[test]
    fn build_block_stops_at_the_block_limit_and_executing_past_it_is_invalid() {
        let senders: Vec<Address> = (1..=100).map(address).collect();
        let state = genesis(&senders.iter().map(|s| (*s, RICH)).collect::<Vec<_>>());
        let candidates: Vec<_> =
            (0..960u64).map(|i| transfer(senders[(i % 100) as usize], i / 100, address(250), 1)).collect();
        let (selection, built) = build_block(vm(), &env(address(9)), &params(), &state, &candidates).unwrap();
        assert_eq!(selection.included, (0..952).collect::<Vec<_>>());
        assert_eq!(built, run(&state, address(9), &candidates[..952]));
        assert_eq!(selection.dropped.len(), 8);
        let (index, rejection) = &selection.dropped[0];
        assert_eq!((*index, rejection.reason), (952, RejectReason::BlockFull(Meter::Cycles)));
        assert!(!rejection.reason.is_permanent());
        // The same candidates as a block are refused before they run: their limits do not fit.
        match execute_block(vm(), &env(address(9)), &params(), &state, &candidates) {
            Err(BlockError::Invalid(BlockInvalid::Transaction { position: 952, rejection })) => {
                assert_eq!(rejection.reason, RejectReason::BlockFull(Meter::Cycles));
            }
            other => panic!("expected an invalid block, got {other:?}"),
        }
    }

    #[test]
    fn prefetched_keys_are_all_execution_reads() {
        let (alice, bob, carol, proposer) = (address(1), address(2), address(3), address(9));
        let full = genesis(&[(alice, RICH), (bob, RICH), (address(100), 5)]);
        let txs = [transfer(alice, 0, bob, 1), transfer(bob, 0, carol, 1), transfer(alice, 1, carol, 1)];
        let keys = prefetch_keys(&env(proposer), &txs);
        let mut expected = vec![
            basefees_key(),
            params_state_key(),
            account_key(&alice),
            account_key(&bob),
            account_key(&carol),
            account_key(&proposer),
            mail_queue_key(),
            timer_cursor_key(),
            timer_slot_key(7),
        ];
        expected.sort();
        assert_eq!(keys, expected);
        // A snapshot of exactly those keys executes the same as the whole state.
        let snapshot: State =
            keys.iter().filter_map(|key| full.get(key).map(|value| (key.clone(), value.clone()))).collect();
        assert_eq!(run(&snapshot, proposer, &txs), run(&full, proposer, &txs));
    }

    #[test]
    fn corrupt_records_abort_the_block() {
        let alice = address(1);
        let mut state = genesis(&[(alice, RICH)]);
        state.insert(account_key(&alice), vec![0x82, 0x00]);
        let error =
            execute_block(vm(), &env(address(9)), &params(), &state, &[transfer(alice, 0, address(2), 1)]).unwrap_err();
        assert_eq!(corrupt_key(error), account_key(&alice));
        let error =
            build_block(vm(), &env(address(9)), &params(), &state, &[transfer(alice, 0, address(2), 1)]).unwrap_err();
        assert_eq!(corrupt_key(error), account_key(&alice));

        let mut state = genesis(&[(alice, RICH)]);
        state.insert(basefees_key(), vec![0xff]);
        let error = execute_block(vm(), &env(address(9)), &params(), &state, &[]).unwrap_err();
        assert_eq!(corrupt_key(error), basefees_key());
    }

    #[test]
    fn signed_transactions_execute_from_their_recovered_sender() {
        let key = SecretKey::dev(0);
        let sender = key.address();
        let mut state = State::new();
        apply(&mut state, genesis_writes(&[(sender, RICH)], &params(), &params().genesis_chain_params()).unwrap());
        let tx = transfer_tx(0, address(2), 77).sign(&key).verify().unwrap();
        let hash = tx.hash;
        let outcome = run(&state, address(9), &[tx]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        assert_eq!(outcome.receipts[0].tx_hash, hash);
        apply(&mut state, outcome.writes);
        assert_eq!(balance(&state, address(2)), 77);
        assert_eq!(account(&state, sender).map(|a| a.nonce), Some(1));
    }
}
