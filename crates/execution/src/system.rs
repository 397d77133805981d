//! What every native system actor shares: how a call to one runs.
//!
//! A native system actor (tokens at `0x00…0c`, the runner registry at `0x00…01`) is reached
//! through [`ActorHost::call`](drover_vm::Host::call) like a wasm actor, and [`run`] gives it
//! the same contract: the call is decoded (an unknown handler is E1205, arguments that do not
//! decode E1202), its fixed cost is charged against the limits left (E1005/E1006, using what
//! was left), a writing handler refuses a read-only call (E1206), value is moved from the
//! caller to the system actor's account only for handlers that take it (E1202 otherwise), and
//! anything that fails rolls back every effect, value and events included.

use crate::StateRead;
use crate::actors::host::ActorHost;
use drover_types::{Address, ExecError, exec_error::ExecCode};
use drover_vm::{CallRequest, HostError, Outcome, Status};

/// A decoded call of a native system actor.
pub(crate) trait NativeCall {
    /// The handler name.
    fn handler(&self) -> &'static str;
    /// What it costs before it runs: `(cycles, cells)`.
    fn cost(&self) -> (u64, u64);
    /// Whether it changes state (refused under a read-only call).
    fn writes(&self) -> bool;
    /// Whether it may carry value.
    fn takes_value(&self) -> bool;
}

/// Why a call did not decode: its handler is unknown, or its arguments are not the handler's.
pub(crate) enum Undecodable {
    Handler(String),
    Args(String),
}

/// Runs `request`, addressed to the system actor `actor`: decodes it with `decode`, then, once
/// charged and checked, `apply`s it. A failure anywhere restores the state to before the call.
pub(crate) fn run<S: StateRead, C: NativeCall>(
    host: &mut ActorHost<'_, '_, S>,
    actor: Address,
    request: &CallRequest,
    decode: impl FnOnce(&str, &[u8]) -> Result<C, Undecodable>,
    apply: impl FnOnce(&mut ActorHost<'_, '_, S>, C) -> Result<Vec<u8>, HostError>,
) -> Outcome {
    let saved = host.save();
    let mut used = (0, 0);
    let status = match charged(host, actor, request, &mut used, decode, apply) {
        Ok(result) => return Outcome { status: Status::Success, result, cycles_used: used.0, cells_used: used.1 },
        Err(error) => Status::Trap(ExecError::from(error)),
    };
    host.restore(saved);
    Outcome { status, result: Vec::new(), cycles_used: used.0, cells_used: used.1 }
}

fn charged<S: StateRead, C: NativeCall>(
    host: &mut ActorHost<'_, '_, S>,
    actor: Address,
    request: &CallRequest,
    used: &mut (u64, u64),
    decode: impl FnOnce(&str, &[u8]) -> Result<C, Undecodable>,
    apply: impl FnOnce(&mut ActorHost<'_, '_, S>, C) -> Result<Vec<u8>, HostError>,
) -> Result<Vec<u8>, HostError> {
    let call = decode(&request.handler, &request.payload).map_err(|error| match error {
        Undecodable::Handler(message) => HostError::new(ExecCode::HandlerNotFound, message),
        Undecodable::Args(message) => {
            HostError::new(ExecCode::WasmTrap, format!("bad arguments to {actor}: {message}"))
        }
    })?;
    let value = request.context.value;
    if value > 0 && !call.takes_value() {
        return Err(HostError::new(ExecCode::WasmTrap, format!("{} of {actor} takes no value", call.handler())));
    }
    let (cycles, cells) = call.cost();
    *used = (cycles.min(request.cycles_limit), cells.min(request.cells_limit));
    if cycles > request.cycles_limit {
        return Err(HostError::new(
            ExecCode::OutOfCycles,
            format!("{} costs {cycles} cycles; {} were left", call.handler(), request.cycles_limit),
        ));
    }
    if cells > request.cells_limit {
        return Err(HostError::new(
            ExecCode::OutOfCells,
            format!("{} costs {cells} cells; {} were left", call.handler(), request.cells_limit),
        ));
    }
    if request.read_only && call.writes() {
        return Err(HostError::new(ExecCode::ReadOnlyViolation, format!("{} of {actor} writes state", call.handler())));
    }
    host.move_value(&request.context.caller, &actor, value)?;
    apply(host, call)
}
