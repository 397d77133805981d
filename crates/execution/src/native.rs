//! What every native system actor shares: the host it works on ([`NativeHost`]) and how a call
//! to one runs ([`run`]).
//!
//! A native system actor (tokens at `0x00…0c`, the runner registry at `0x00…01`) is reached
//! through the host's `call` like a wasm actor (`crate::system` routes it), and [`run`] gives it
//! the same contract: the call is decoded (an unknown handler is E1205, arguments that do not
//! decode E1202), its fixed cost is charged against the limits left (E1005/E1006, using what
//! was left), a writing handler refuses a read-only call (E1206), value is moved from the
//! caller to the system actor's account only for handlers that take it (E1202 otherwise), and
//! anything that fails rolls back every effect, value and events included.

use drover_state::{RecordError, keys::storage_key};
use drover_types::{Address, Event, ExecError, exec_error::ExecCode};
use drover_vm::{CallRequest, HostError, Outcome, Status};

/// What a native system actor needs from the block's host: its state, its events, value
/// moves, and rollback. The actor host implements it; a state read the host cannot answer, or a
/// corrupt record, is remembered there and fails the call with E1900.
pub(crate) trait NativeHost {
    /// A rollback point of state and events.
    type Saved: Copy;

    /// The record under the state key `key`, decoded.
    fn read_record<T>(
        &mut self,
        key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, RecordError>,
    ) -> Result<Option<T>, HostError>;

    /// Writes (or, with `None`, deletes) the state key `key`.
    fn write_record(&mut self, key: Vec<u8>, value: Option<Vec<u8>>);

    /// The record under `actor`'s storage entry `user_key`, decoded.
    fn read_storage<T>(
        &mut self,
        actor: &Address,
        user_key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, RecordError>,
    ) -> Result<Option<T>, HostError> {
        self.read_record(&storage_key(actor, user_key), decode)
    }

    /// Writes (or, with `None`, deletes) `actor`'s storage entry `user_key`.
    fn write_storage(&mut self, actor: &Address, user_key: &[u8], value: Option<Vec<u8>>) {
        self.write_record(storage_key(actor, user_key), value);
    }

    /// Adds an event to the current work's events.
    fn emit_event(&mut self, event: Event);

    /// Moves `amount` between two accounts (E1212 when `from` cannot cover it).
    fn move_value(&mut self, from: &Address, to: &Address, amount: u128) -> Result<(), HostError>;

    /// A rollback point.
    fn save(&self) -> Self::Saved;

    /// Undoes everything since `saved`, events included.
    fn restore(&mut self, saved: Self::Saved);
}

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
pub(crate) fn run<H: NativeHost, C: NativeCall>(
    host: &mut H,
    actor: Address,
    request: &CallRequest,
    decode: impl FnOnce(&str, &[u8]) -> Result<C, Undecodable>,
    apply: impl FnOnce(&mut H, C) -> Result<Vec<u8>, HostError>,
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

fn charged<H: NativeHost, C: NativeCall>(
    host: &mut H,
    actor: Address,
    request: &CallRequest,
    used: &mut (u64, u64),
    decode: impl FnOnce(&str, &[u8]) -> Result<C, Undecodable>,
    apply: impl FnOnce(&mut H, C) -> Result<Vec<u8>, HostError>,
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
