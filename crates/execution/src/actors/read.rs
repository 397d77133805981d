//! Read-only execution (`POST /actor/read`): a handler run against a state snapshot with
//! `read_only = true`, bounded cycles and cells, and no writes ever leaving it.
//!
//! The run gets its own overlay, dropped at the end: even a buggy host path could not leak a
//! write. Any state-writing host call fails with E1206 (the API answers 5003), also in nested
//! calls, which fail the whole read; running out of `max_cycles` / `max_cells` is E1005 / E1006
//! (the API answers 5004); a missing handler is E1205 (5002). State is read on demand through
//! the caller's [`StateRead`], which may give up (a [`ReadFault`]): the read then has no outcome.
//! [`read_actor_traced`] runs the same read and also answers its trace (see `super::trace`),
//! which observes the run without changing it.

use super::host::{ActorHost, actor_record};
use super::trace::Tracer;
use crate::{
    BlockEnv, ReadFault, StateError, StateRead,
    overlay::{Overlay, ReadError},
};
use drover_state::Basefees;
use drover_types::{Address, api::ExecutionTrace};
use drover_vm::{CallContext, CallRequest, Outcome, Vm};

/// A read-only call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadRequest {
    /// The actor to run.
    pub actor: Address,
    /// Name of the exported handler to run.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// What the handler sees as `caller` and `origin` (the API's optional `from`).
    pub caller: Address,
    /// Cycles budget (the API bounds it by the node's cap).
    pub max_cycles: u64,
    /// Cells budget: a read writes nothing, but the VM meters what a write would cost before
    /// refusing it.
    pub max_cells: u64,
}

/// Why a read produced no outcome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadFailure {
    /// The address holds no actor (the API's "actor not found").
    #[error("{0} holds no actor")]
    NoActor(Address),
    /// The state could not be read (the reader says why).
    #[error(transparent)]
    Unavailable(#[from] ReadFault),
    /// A stored record is corrupt: fatal for the node.
    #[error(transparent)]
    Corrupt(#[from] StateError),
}

impl From<ReadError> for ReadFailure {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::Fault(fault) => ReadFailure::Unavailable(fault),
            ReadError::Corrupt(error) => ReadFailure::Corrupt(error),
        }
    }
}

/// Runs `request` read-only on `state` as of the block `env` describes (height and timestamp
/// are what the handler sees). Returns the handler's outcome; never produces writes.
pub fn read_actor(
    vm: &Vm,
    env: &BlockEnv,
    basefees: Basefees,
    state: &impl StateRead,
    request: &ReadRequest,
) -> Result<Outcome, ReadFailure> {
    run_read(vm, env, basefees, state, request, None).map(|(outcome, _)| outcome)
}

/// [`read_actor`], with the trace of the run.
pub fn read_actor_traced(
    vm: &Vm,
    env: &BlockEnv,
    basefees: Basefees,
    state: &impl StateRead,
    request: &ReadRequest,
) -> Result<(Outcome, ExecutionTrace), ReadFailure> {
    let (outcome, tracer) = run_read(vm, env, basefees, state, request, Some(Tracer::default()))?;
    Ok((outcome, tracer.map(Tracer::finish).unwrap_or_default()))
}

fn run_read(
    vm: &Vm,
    env: &BlockEnv,
    basefees: Basefees,
    state: &impl StateRead,
    request: &ReadRequest,
    tracer: Option<Tracer>,
) -> Result<(Outcome, Option<Tracer>), ReadFailure> {
    let mut overlay = Overlay::new(state);
    if actor_record(&mut overlay, &request.actor)?.is_none() {
        return Err(ReadFailure::NoActor(request.actor));
    }
    let params =
        overlay.record(&drover_state::governance::params_state_key(), drover_state::governance::decode_params)?;
    let mut host = ActorHost::new(&mut overlay, vm, basefees, *env, params.unwrap_or_default());
    host.tracer = tracer;
    let outcome = host.run(CallRequest {
        context: CallContext {
            self_address: request.actor,
            caller: request.caller,
            origin: request.caller,
            block_height: env.height,
            timestamp_ms: env.timestamp_ms,
            value: 0,
            depth: 0,
        },
        handler: request.handler.clone(),
        payload: request.payload.clone(),
        cycles_limit: request.max_cycles,
        cells_limit: request.max_cells,
        read_only: true,
    });
    match host.fatal.take() {
        Some(error) => Err(error.into()),
        None => Ok((outcome, host.tracer.take())),
    }
}
