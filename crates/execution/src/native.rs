//! What every native system actor shares: the host it works on ([`NativeHost`]), what the
//! executor does with its calls ([`SystemActor`], implemented beside each actor's handlers) and
//! how a call to one runs ([`run`]).
//!
//! A native system actor (the list is `drover_types::system_actors`) is reached through the
//! host's `call` like a wasm actor (`crate::system_actors` routes it), and [`run`] gives it
//! the same contract: the call is decoded (an unknown handler is E1205, arguments that do not
//! decode E1202), its fixed cost is charged against the limits left (E1005/E1006, using what
//! was left), a writing handler refuses a read-only call (E1206), value is moved from the
//! caller to the system actor's account only for handlers that take it (E1202 otherwise), and
//! anything that fails rolls back every effect, value and events included.

use crate::BlockEnv;
use drover_state::{Basefees, RecordError, keys::storage_key};
use drover_types::{
    Address, Event, ExecError, H256,
    exec_error::ExecCode,
    system_call::{SystemCall, SystemCallError},
};
use drover_vm::{CallContext, CallRequest, HostError, Outcome, OutgoingMessage, Status};

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

    /// Notes that `to` received `amount` of `token` from `from` (`None`: minted), for the
    /// account history (`crate::credits`); rolled back like an event.
    fn token_credited(&mut self, token: &Address, from: Option<&Address>, to: &Address, amount: u128);

    /// The balance of `address`.
    fn balance_of(&mut self, address: &Address) -> Result<u128, HostError>;

    /// Takes `amount` from `address` and destroys it (a fee of work done outside a
    /// transaction; E1212 when `address` cannot cover it).
    fn burn(&mut self, address: &Address, amount: u128) -> Result<(), HostError>;

    /// Moves `amount` between two accounts (E1212 when `from` cannot cover it).
    fn move_value(&mut self, from: &Address, to: &Address, amount: u128) -> Result<(), HostError>;

    /// The block being executed.
    fn env(&self) -> &BlockEnv;

    /// Basefees in force for the block.
    fn basefees(&self) -> Basefees;

    /// The chain parameters in force for the block.
    fn params(&self) -> drover_types::chain_params::ChainParams;

    /// Hash of the transaction being executed (`None` in the block's deferred work).
    fn tx_hash(&self) -> Option<H256>;

    /// Validates and compiles `code` like a deploy (E11xx); answers its hash.
    fn compile(&mut self, code: &[u8]) -> Result<H256, HostError>;

    /// Whether an actor is deployed at `address`.
    fn is_actor(&mut self, address: &Address) -> Result<bool, HostError>;

    /// Queues a mailbox message whose delivery budget is bought at `basefees` from `message.from`
    /// (E1213 when the recipient's mailbox is full, E1211 when it holds no actor).
    fn enqueue(&mut self, message: OutgoingMessage, basefees: Basefees) -> Result<(), HostError>;

    /// A rollback point.
    fn save(&self) -> Self::Saved;

    /// Undoes everything since `saved`, events included.
    fn restore(&mut self, saved: Self::Saved);
}

/// What a call may still use and has used, for work whose cost is only known while it runs
/// (a registry index walk, the draws of an assignment): each piece is charged before it is done.
pub(crate) struct Meter {
    cycles_limit: u64,
    cells_limit: u64,
    cycles_used: u64,
    cells_used: u64,
}

impl Meter {
    /// A meter with these limits and nothing used.
    pub(crate) fn new(cycles_limit: u64, cells_limit: u64) -> Self {
        Meter { cycles_limit, cells_limit, cycles_used: 0, cells_used: 0 }
    }

    /// Charges `cycles` and `cells` for `what`; past a limit, uses all of it and fails (E1005,
    /// E1006).
    pub(crate) fn charge(&mut self, cycles: u64, cells: u64, what: &str) -> Result<(), HostError> {
        let cycles_used = self.cycles_used.saturating_add(cycles);
        let cells_used = self.cells_used.saturating_add(cells);
        if cycles_used > self.cycles_limit {
            self.cycles_used = self.cycles_limit;
            self.cells_used = cells_used.min(self.cells_limit);
            return Err(HostError::new(
                ExecCode::OutOfCycles,
                format!("{what} costs {cycles} cycles; {} were left", self.cycles_limit - (cycles_used - cycles)),
            ));
        }
        if cells_used > self.cells_limit {
            self.cycles_used = cycles_used;
            self.cells_used = self.cells_limit;
            return Err(HostError::new(
                ExecCode::OutOfCells,
                format!("{what} costs {cells} cells; {} were left", self.cells_limit - (cells_used - cells)),
            ));
        }
        self.cycles_used = cycles_used;
        self.cells_used = cells_used;
        Ok(())
    }

    /// `(cycles, cells)` used.
    pub(crate) fn used(&self) -> (u64, u64) {
        (self.cycles_used, self.cells_used)
    }

    /// `(cycles, cells)` it allows: the most it can use.
    pub(crate) fn limits(&self) -> (u64, u64) {
        (self.cycles_limit, self.cells_limit)
    }
}

/// What the executor does with a system actor's calls: implemented by each call type beside its
/// handlers (`crate::tokens`, `crate::runners`, ...).
pub(crate) trait SystemActor: SystemCall {
    /// The state keys a transaction sending this call from `sender` reads, for the block's
    /// prefetch.
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>>;

    /// Runs the call for `context` on `host`: it is decoded, charged its fixed cost, allowed to
    /// write and its value already moved to the actor (`native::run`), so this applies the rules
    /// and charges on `meter` the work it finds it must do. Answers the result bytes; a failure
    /// is rolled back by the caller.
    fn apply<H: NativeHost>(self, host: &mut H, context: &CallContext, meter: &mut Meter)
    -> Result<Vec<u8>, HostError>;
}

/// Runs `request`, addressed to the system actor whose calls are `C`: decodes it (an unknown
/// handler is E1205, arguments that do not decode E1202, before anything is charged), then
/// [`run_decoded`].
pub(crate) fn run<H: NativeHost, C: SystemActor>(host: &mut H, request: &CallRequest) -> Outcome {
    let actor = C::ADDRESS;
    match C::decode(&request.handler, &request.payload) {
        Ok(call) => run_decoded(host, request, call),
        Err(error) => {
            let error = match error {
                SystemCallError::Handler { .. } => HostError::new(ExecCode::HandlerNotFound, error.to_string()),
                SystemCallError::Args(error) => {
                    HostError::new(ExecCode::WasmTrap, format!("bad arguments to {actor}: {error}"))
                }
            };
            Outcome { status: Status::Trap(ExecError::from(error)), result: Vec::new(), cycles_used: 0, cells_used: 0 }
        }
    }
}

/// Runs `call`, what `request` decodes as (by [`run`], or by the validity rule for a
/// transaction sent to the system actor): once charged and checked, it is
/// [applied](SystemActor::apply) (charging what it finds it must do on the meter). A failure
/// anywhere restores the state to before the call.
pub(crate) fn run_decoded<H: NativeHost, C: SystemActor>(host: &mut H, request: &CallRequest, call: C) -> Outcome {
    let saved = host.save();
    let mut meter = Meter::new(request.cycles_limit, request.cells_limit);
    let result = charged::<H, C>(host, request, call, &mut meter);
    let (cycles_used, cells_used) = meter.used();
    let status = match result {
        Ok(result) => return Outcome { status: Status::Success, result, cycles_used, cells_used },
        Err(error) => Status::Trap(ExecError::from(error)),
    };
    host.restore(saved);
    Outcome { status, result: Vec::new(), cycles_used, cells_used }
}

fn charged<H: NativeHost, C: SystemActor>(
    host: &mut H,
    request: &CallRequest,
    call: C,
    meter: &mut Meter,
) -> Result<Vec<u8>, HostError> {
    let actor = C::ADDRESS;
    let value = request.context.value;
    if value > 0 && !call.takes_value() {
        return Err(HostError::new(ExecCode::WasmTrap, format!("{} of {actor} takes no value", call.handler())));
    }
    let (cycles, cells) = call.cost();
    meter.charge(cycles, cells, call.handler())?;
    if request.read_only && call.writes() {
        return Err(HostError::new(ExecCode::ReadOnlyViolation, format!("{} of {actor} writes state", call.handler())));
    }
    host.move_value(&request.context.caller, &actor, value)?;
    call.apply(host, &request.context, meter)
}
