//! Simulating one transaction: what it would do as the next block's transaction, over a state,
//! with nothing kept.
//!
//! The transaction meets the block's rule exactly as an included one would: the validity rule
//! against the state and the block limits in force (a refusal is the [`Rejection`] the proposer
//! would drop it with), then the same [`run_tx`] a block runs, so its status, meters, fee and
//! events are those of a block holding it alone after the given state. The next block's deferred
//! work (timers, deliveries) is not run first: it is not the transaction's, and whatever it
//! changes is as unknown to a sender as the transactions ordered before its own.
//!
//! Bounded like a block's transaction: its own limits, which the rule keeps within the block's.
//! [`simulate_transaction_traced`] adds the trace of the handlers it runs (`actors::trace`): the
//! same run, watched.

use crate::{
    BlockEnv, FeeParams, StateRead,
    actors::trace::Tracer,
    block::{basefees_in_force, params_in_force, run_tx_traced},
    block_validity::BlockValidator,
    charge::Failure,
    overlay::{Overlay, ReadError, ReadFault, StateError},
};
use drover_state::Basefees;
use drover_types::{
    Event, ExecError, FeeBreakdown, TxStatus, VerifiedTransaction,
    api::ExecutionTrace,
    validity::{BlockLimits, ChainContext, Rejection},
};
use drover_vm::Vm;

/// What a simulated transaction did (its receipt's fields), and the chain values it ran under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Simulation {
    /// `Success`, `Reverted` or `Failed`.
    pub status: TxStatus,
    /// Cycles used, the intrinsic cost included.
    pub cycles_used: u64,
    /// Cells used, likewise.
    pub cells_used: u64,
    /// What it pays.
    pub fee: FeeBreakdown,
    /// Events of a success.
    pub events: Vec<Event>,
    /// Reason the actor gave when it reverted.
    pub revert_reason: Option<String>,
    /// The E-code of a run that did not succeed.
    pub error: Option<ExecError>,
    /// The basefees it was priced at.
    pub basefees: Basefees,
    /// The block limits in force.
    pub limits: BlockLimits,
}

/// Why a simulation produced no outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimulationError {
    /// The validity rule refuses the transaction: no block would include it.
    #[error(transparent)]
    Refused(Rejection),
    /// The state could not be read.
    #[error(transparent)]
    Unavailable(ReadFault),
    /// A corrupt record.
    #[error(transparent)]
    Corrupt(StateError),
}

impl From<ReadError> for SimulationError {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::Fault(fault) => SimulationError::Unavailable(fault),
            ReadError::Corrupt(error) => SimulationError::Corrupt(error),
        }
    }
}

/// Runs `tx` as the only transaction of the block `env` over `state` (see the module
/// documentation); `params` are the genesis fee parameters, governed by the chain parameters the
/// state holds.
pub fn simulate_transaction<S: StateRead>(
    vm: &Vm,
    env: &BlockEnv,
    params: &FeeParams,
    state: &S,
    tx: &VerifiedTransaction,
) -> Result<Simulation, SimulationError> {
    simulate(vm, env, params, state, tx, None).map(|(simulation, _)| simulation)
}

/// [`simulate_transaction`], with the trace of the handlers the transaction runs: each handler
/// entered with its meters, the keys it read and wrote, its events, transfers and nested calls,
/// and where it stopped (empty for a plain transfer, which runs none).
pub fn simulate_transaction_traced<S: StateRead>(
    vm: &Vm,
    env: &BlockEnv,
    params: &FeeParams,
    state: &S,
    tx: &VerifiedTransaction,
) -> Result<(Simulation, ExecutionTrace), SimulationError> {
    let (simulation, tracer) = simulate(vm, env, params, state, tx, Some(Tracer::default()))?;
    Ok((simulation, tracer.map(Tracer::finish).unwrap_or_default()))
}

fn simulate<S: StateRead>(
    vm: &Vm,
    env: &BlockEnv,
    params: &FeeParams,
    state: &S,
    tx: &VerifiedTransaction,
    tracer: Option<Tracer>,
) -> Result<(Simulation, Option<Tracer>), SimulationError> {
    let mut overlay = Overlay::new(state);
    let read = |error: crate::BlockError| match error {
        crate::BlockError::Unavailable(fault) => SimulationError::Unavailable(fault),
        crate::BlockError::Corrupt(error) => SimulationError::Corrupt(error),
        // Reading the fee records refuses no block.
        crate::BlockError::Invalid(invalid) => {
            SimulationError::Unavailable(ReadFault(format!("unexpected refusal reading the fee records: {invalid}")))
        }
    };
    let basefees = basefees_in_force(params, &mut overlay).map_err(read)?;
    let chain_params = params_in_force(params, &mut overlay).map_err(read)?;
    let params = params.governed(&chain_params);
    let limits = BlockLimits { cycles: params.block_limit_cycles(), cells: params.block_limit_cells() };
    let chain = ChainContext { chain_id: env.chain_id, basefees, limits };
    let mut validator = BlockValidator::new(chain, (0, 0), &mut overlay, std::slice::from_ref(tx))?;
    let intrinsic = validator.admit(tx).map_err(SimulationError::Refused)?;
    match run_tx_traced(vm, env, (&chain, &chain_params), &mut overlay, tx, intrinsic, tracer) {
        Ok((result, tracer)) => {
            let simulation = Simulation {
                status: result.status,
                cycles_used: result.cycles_used,
                cells_used: result.cells_used,
                fee: result.fee,
                events: result.events,
                revert_reason: result.revert_reason,
                error: result.error,
                basefees,
                limits,
            };
            Ok((simulation, tracer))
        }
        Err(Failure::Rejected(rejection)) => Err(SimulationError::Refused(rejection)),
        Err(Failure::Halt(error)) => Err(error.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RejectReason;
    use crate::testing::{Chain, RICH, example};
    use drover_types::{Address, params::TRANSFER_CYCLES};

    const ALICE: Address = Address([0xa1; 20]);
    const BOB: Address = Address([0xb0; 20]);

    fn simulate(chain: &Chain, tx: &VerifiedTransaction) -> Result<Simulation, SimulationError> {
        simulate_transaction(crate::testing::vm(), &chain.env(), &FeeParams::default(), &chain.state, tx)
    }

    #[test]
    fn a_simulation_gives_the_receipt_the_block_gives_and_keeps_nothing() {
        let mut chain = Chain::new(&[(ALICE, RICH)]);
        let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
        let transfer = chain.tx(ALICE, Some(BOB), Vec::new(), 500);
        let simulated = simulate(&chain, &transfer).expect("a valid transfer");
        assert_eq!((simulated.status, simulated.cycles_used), (TxStatus::Success, TRANSFER_CYCLES));
        let call = chain.call_tx(ALICE, counter, "increment", &[], 0);
        // Simulated after the transfer the block will run first: state as the block leaves it.
        chain.block(std::slice::from_ref(&transfer));
        let before = chain.state.clone();
        let simulated = simulate(&chain, &call).expect("a valid call");
        assert_eq!(chain.state, before, "nothing is kept");
        let receipt = chain.block(std::slice::from_ref(&call)).receipts.remove(0);
        let result = simulated;
        assert_eq!(
            (result.status, result.cycles_used, result.cells_used, result.fee, result.events),
            (receipt.status, receipt.cycles_used, receipt.cells_used, receipt.fee, receipt.events)
        );
        assert!(receipt.cells_used > 0);
    }

    #[test]
    fn a_traced_simulation_is_the_same_run_watched() {
        let mut chain = Chain::new(&[(ALICE, RICH)]);
        let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
        let call = chain.call_tx(ALICE, counter, "increment", &[], 0);
        let (traced, trace) =
            simulate_transaction_traced(crate::testing::vm(), &chain.env(), &FeeParams::default(), &chain.state, &call)
                .expect("a valid call");
        assert_eq!(traced, simulate(&chain, &call).expect("a valid call"), "the trace changes nothing");
        let root = trace.call.expect("the handler ran");
        assert_eq!((root.actor, root.handler.as_str(), root.status), (counter, "increment", traced.status.into()));
        assert!(root.steps.iter().any(|step| matches!(step, drover_types::api::TraceStep::StorageSet { .. })));
        // A transfer runs no handler: its trace is empty.
        let mut chain = Chain::new(&[(ALICE, RICH)]);
        let transfer = chain.tx(ALICE, Some(BOB), Vec::new(), 1);
        let (_, trace) = simulate_transaction_traced(
            crate::testing::vm(),
            &chain.env(),
            &FeeParams::default(),
            &chain.state,
            &transfer,
        )
        .expect("a valid transfer");
        assert_eq!(trace, ExecutionTrace::default());
    }

    #[test]
    fn what_the_rule_refuses_is_refused_and_a_revert_is_reported() {
        let mut chain = Chain::new(&[(ALICE, RICH)]);
        let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
        let reverting = chain.call_tx(ALICE, counter, "bump_and_revert", &[], 0);
        let simulated = simulate(&chain, &reverting).expect("valid");
        assert_eq!(simulated.status, TxStatus::Reverted);
        assert!(simulated.events.is_empty() && simulated.fee.total() > 0);
        // Too little for its limits: the rule refuses it, as a proposer would.
        let poor = Address([0x0d; 20]);
        let broke = chain.tx(poor, Some(BOB), Vec::new(), 0);
        match simulate(&chain, &broke) {
            Err(SimulationError::Refused(rejection)) => {
                assert_eq!(rejection.reason, RejectReason::InsufficientBalanceForFees)
            }
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("a sender without funds is refused"),
        }
    }
}
