//! The host functions themselves, the per-invocation store data they work on, and the engine
//! configuration.
//!
//! Every host function follows the same order, so that a failing call has a well-defined cost:
//! charge its cycles (fixed price + bytes it will copy in), check the entitlement, check the
//! read-only flag if it writes, read and bound its arguments, charge cells for what it will
//! write, then ask the [`Host`]. Anything that fails stops the actor with an [`Abort`]; nothing
//! the actor passes (pointers, lengths, budgets) can panic the node: every memory access is
//! bounds-checked through `get`, every size is compared with its limit before allocation.

use crate::{
    abi::{CALL_FAILED, CALL_REVERTED, CALL_SUCCESS, HOST_FUNCTIONS, HOST_MODULE},
    entitlements::Entitlement,
    error::Abort,
    host::{CallRequest, Host, LibraryRequest, OutgoingMessage, TimerRequest},
    invocation::{CallContext, Invocation, Outcome, Status},
    limits::*,
    meter::*,
};
use drover_types::{Address, exec_error::ExecCode, job::JOB_DISPATCHER_ADDRESS, token::TOKENS_ADDRESS};
use wasmi::{
    Caller, CompilationMode, Config, Engine, Linker, Memory, ResourceLimiter, StoreLimits, StoreLimitsBuilder,
};

/// What one invocation's store holds besides wasm state.
pub(crate) struct Ctx<'a> {
    pub(crate) host: &'a mut dyn Host,
    pub(crate) inv: &'a Invocation<'a>,
    pub(crate) memory: Option<Memory>,
    pub(crate) cells: Cells,
    pub(crate) result: Vec<u8>,
    pub(crate) return_data: Vec<u8>,
    pub(crate) limits: StoreLimits,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(host: &'a mut dyn Host, inv: &'a Invocation<'a>) -> Self {
        Ctx {
            host,
            inv,
            memory: None,
            cells: Cells::new(inv.cells_limit),
            result: Vec::new(),
            return_data: Vec::new(),
            limits: StoreLimitsBuilder::new()
                .memory_size(MAX_MEMORY_PAGES as usize * WASM_PAGE_BYTES)
                .table_elements(MAX_TABLE_ELEMENTS as usize)
                .instances(1)
                .memories(1)
                .tables(MAX_TABLES as usize)
                // A failed grow traps (E1204) instead of returning -1, so that a memory bomb
                // ends at once with a clear code.
                .trap_on_grow_failure(true)
                .build(),
        }
    }

    fn context(&self) -> &CallContext {
        &self.inv.context
    }

    fn actor(&self) -> Address {
        self.inv.context.self_address
    }
}

/// The store's resource limiter (a fn item, so that it is `'static` for any `Ctx<'a>`).
pub(crate) fn limiter<'b>(ctx: &'b mut Ctx<'_>) -> &'b mut dyn ResourceLimiter {
    &mut ctx.limits
}

/// The engine every module is compiled for and every store runs on.
pub(crate) fn engine() -> Engine {
    let mut config = Config::default();
    config
        .consume_fuel(true)
        // Lazy translation would charge a function's translation to whichever call first runs
        // it, so a cold and a cached module would meter different cycles.
        .compilation_mode(CompilationMode::Eager)
        .floats(false)
        .wasm_multi_memory(false)
        .wasm_memory64(false)
        .wasm_custom_page_sizes(false)
        .wasm_wide_arithmetic(false)
        .ignore_custom_sections(true)
        .set_max_recursion_depth(MAX_WASM_RECURSION_DEPTH)
        .set_max_stack_height(MAX_VALUE_STACK_BYTES);
    Engine::new(&config)
}

type C<'c, 'a> = Caller<'c, Ctx<'a>>;
type HostResult<T> = Result<T, wasmi::Error>;

fn internal(e: impl std::fmt::Display) -> Abort {
    Abort::fail(ExecCode::Internal, e.to_string())
}

/// Takes `cycles` from the remaining fuel, or empties it and fails with E1005.
fn charge(c: &mut C<'_, '_>, cycles: u64) -> Result<(), Abort> {
    let fuel = c.get_fuel().map_err(internal)?;
    match fuel.checked_sub(cycles) {
        Some(left) => c.set_fuel(left).map_err(internal),
        None => {
            c.set_fuel(0).map_err(internal)?;
            Err(Abort::out_of_cycles(cycles, fuel))
        }
    }
}

fn entitled(c: &C<'_, '_>, e: Entitlement, call: &str) -> Result<(), Abort> {
    if c.data().inv.entitlements.contains(e) {
        Ok(())
    } else {
        Err(Abort::fail(ExecCode::NotEntitled, format!("{call} needs entitlement {:?}", e.id())))
    }
}

fn writable(c: &C<'_, '_>, call: &str) -> Result<(), Abort> {
    if c.data().inv.read_only {
        Err(Abort::fail(ExecCode::ReadOnlyViolation, format!("{call} writes state in a read-only execution")))
    } else {
        Ok(())
    }
}

/// A length argument as an unsigned count, refused above `max` before anything is allocated.
fn length(len: i32, max: usize, what: &str) -> Result<usize, Abort> {
    let len = len as u32 as usize;
    if len > max {
        return Err(Abort::argument(format!("{what} of {len} bytes, above the limit of {max}")));
    }
    Ok(len)
}

fn memory(c: &C<'_, '_>) -> Result<Memory, Abort> {
    c.data().memory.ok_or_else(|| Abort::argument("the module exports no memory"))
}

fn read(c: &C<'_, '_>, ptr: i32, len: usize, what: &str) -> Result<Vec<u8>, Abort> {
    let start = ptr as u32 as usize;
    let end = start.saturating_add(len);
    memory(c)?
        .data(c)
        .get(start..end)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| Abort::argument(format!("{what} at {start}+{len} is outside memory")))
}

fn write(c: &mut C<'_, '_>, ptr: i32, bytes: &[u8], what: &str) -> Result<(), Abort> {
    let start = ptr as u32 as usize;
    let end = start.saturating_add(bytes.len());
    let mem = memory(c)?;
    mem.data_mut(c)
        .get_mut(start..end)
        .ok_or_else(|| Abort::argument(format!("{what} at {start}+{} is outside memory", bytes.len())))?
        .copy_from_slice(bytes);
    Ok(())
}

fn read_address(c: &C<'_, '_>, ptr: i32) -> Result<Address, Abort> {
    let bytes = read(c, ptr, 20, "address")?;
    let mut address = [0; 20];
    address.copy_from_slice(&bytes);
    Ok(Address(address))
}

fn read_amount(c: &C<'_, '_>, ptr: i32) -> Result<u128, Abort> {
    let bytes = read(c, ptr, 16, "amount")?;
    let mut amount = [0; 16];
    amount.copy_from_slice(&bytes);
    Ok(u128::from_le_bytes(amount))
}

fn read_handler(c: &C<'_, '_>, ptr: i32, len: usize) -> Result<String, Abort> {
    if len == 0 {
        return Err(Abort::argument("empty handler name"));
    }
    String::from_utf8(read(c, ptr, len, "handler name")?).map_err(|_| Abort::argument("handler name is not UTF-8"))
}

fn read_key(c: &C<'_, '_>, ptr: i32, len: usize) -> Result<Vec<u8>, Abort> {
    if len == 0 {
        return Err(Abort::argument("empty storage key"));
    }
    read(c, ptr, len, "storage key")
}

/// The cycles attached to a message or a timer, within the cap no vote can pass (the host
/// checks the live `max_attached_cycles`, which is at most this).
fn budget(cycles: i64) -> Result<u64, Abort> {
    let cycles = cycles as u64;
    if cycles > MAX_ATTACHED_CYCLES {
        return Err(Abort::fail(
            ExecCode::AttachedCycles,
            format!("attached budget of {cycles} cycles, above the cap of {MAX_ATTACHED_CYCLES}"),
        ));
    }
    Ok(cycles)
}

// ---- input, result, revert -------------------------------------------------------------------

fn input_len(mut c: C<'_, '_>) -> HostResult<i32> {
    charge(&mut c, CYCLES_CONTEXT_READ)?;
    Ok(c.data().inv.payload.len() as i32)
}

fn input_read(mut c: C<'_, '_>, dst: i32) -> HostResult<()> {
    let payload = c.data().inv.payload;
    charge(&mut c, CYCLES_BUFFER_OP + copy_cycles(payload.len()))?;
    write(&mut c, dst, payload, "input")?;
    Ok(())
}

fn set_result(mut c: C<'_, '_>, ptr: i32, len: i32) -> HostResult<()> {
    let len = len as u32 as usize;
    if len > MAX_RESULT_BYTES {
        return Err(Abort::fail(
            ExecCode::ResultTooLarge,
            format!("result of {len} bytes, above the limit of {MAX_RESULT_BYTES}"),
        )
        .into());
    }
    charge(&mut c, CYCLES_BUFFER_OP + copy_cycles(len))?;
    let result = read(&c, ptr, len, "result")?;
    c.data_mut().result = result;
    Ok(())
}

fn revert(mut c: C<'_, '_>, ptr: i32, len: i32) -> HostResult<()> {
    // A long reason is cut rather than refused: the actor is stopping anyway.
    let len = (len as u32 as usize).min(MAX_REVERT_REASON_BYTES);
    charge(&mut c, CYCLES_BUFFER_OP + copy_cycles(len))?;
    let reason = read(&c, ptr, len, "revert reason")?;
    Err(Abort::Revert(reason).into())
}

// ---- context ---------------------------------------------------------------------------------

fn write_context(mut c: C<'_, '_>, dst: i32, pick: fn(&CallContext) -> Vec<u8>) -> HostResult<()> {
    let bytes = pick(c.data().context());
    charge(&mut c, CYCLES_CONTEXT_READ + copy_cycles(bytes.len()))?;
    write(&mut c, dst, &bytes, "context")?;
    Ok(())
}

fn caller(c: C<'_, '_>, dst: i32) -> HostResult<()> {
    write_context(c, dst, |x| x.caller.0.to_vec())
}

fn self_address(c: C<'_, '_>, dst: i32) -> HostResult<()> {
    write_context(c, dst, |x| x.self_address.0.to_vec())
}

fn origin(c: C<'_, '_>, dst: i32) -> HostResult<()> {
    write_context(c, dst, |x| x.origin.0.to_vec())
}

fn value_received(c: C<'_, '_>, dst: i32) -> HostResult<()> {
    write_context(c, dst, |x| x.value.to_le_bytes().to_vec())
}

fn block_height(mut c: C<'_, '_>) -> HostResult<i64> {
    charge(&mut c, CYCLES_CONTEXT_READ)?;
    Ok(c.data().context().block_height as i64)
}

fn block_timestamp_ms(mut c: C<'_, '_>) -> HostResult<i64> {
    charge(&mut c, CYCLES_CONTEXT_READ)?;
    Ok(c.data().context().timestamp_ms as i64)
}

fn cycles_left(mut c: C<'_, '_>) -> HostResult<i64> {
    charge(&mut c, CYCLES_CONTEXT_READ)?;
    Ok(c.get_fuel()? as i64)
}

// ---- storage ---------------------------------------------------------------------------------

fn storage_get(mut c: C<'_, '_>, key: i32, key_len: i32, dst: i32, cap: i32) -> HostResult<i32> {
    let key_len = length(key_len, MAX_STORAGE_KEY_BYTES, "storage key")?;
    charge(&mut c, CYCLES_STORAGE_READ + copy_cycles(key_len))?;
    entitled(&c, Entitlement::StorageKv, "storage_get")?;
    let key = read_key(&c, key, key_len)?;
    let actor = c.data().actor();
    let Some(value) = c.data_mut().host.storage_get(&actor, &key).map_err(Abort::from)? else {
        return Ok(-1);
    };
    charge(&mut c, copy_cycles(value.len()))?;
    let n = value.len().min(cap as u32 as usize);
    write(&mut c, dst, &value[..n], "storage value buffer")?;
    Ok(value.len() as i32)
}

fn storage_set(mut c: C<'_, '_>, key: i32, key_len: i32, val: i32, val_len: i32) -> HostResult<()> {
    let key_len = length(key_len, MAX_STORAGE_KEY_BYTES, "storage key")?;
    let val_len = length(val_len, MAX_STORAGE_VALUE_BYTES, "storage value")?;
    charge(&mut c, CYCLES_STORAGE_WRITE + copy_cycles(key_len + val_len))?;
    entitled(&c, Entitlement::StorageKv, "storage_set")?;
    writable(&c, "storage_set")?;
    let key = read_key(&c, key, key_len)?;
    let value = read(&c, val, val_len, "storage value")?;
    c.data_mut().cells.charge((key_len + val_len) as u64)?;
    let actor = c.data().actor();
    c.data_mut().host.storage_set(&actor, &key, &value).map_err(Abort::from)?;
    Ok(())
}

fn storage_remove(mut c: C<'_, '_>, key: i32, key_len: i32) -> HostResult<i32> {
    let key_len = length(key_len, MAX_STORAGE_KEY_BYTES, "storage key")?;
    charge(&mut c, CYCLES_STORAGE_REMOVE + copy_cycles(key_len))?;
    entitled(&c, Entitlement::StorageKv, "storage_remove")?;
    writable(&c, "storage_remove")?;
    let key = read_key(&c, key, key_len)?;
    let actor = c.data().actor();
    let removed = c.data_mut().host.storage_remove(&actor, &key).map_err(Abort::from)?;
    Ok(i32::from(removed))
}

#[allow(clippy::too_many_arguments)]
fn storage_next(
    mut c: C<'_, '_>,
    prefix: i32,
    prefix_len: i32,
    cursor: i32,
    cursor_len: i32,
    key_dst: i32,
    key_cap: i32,
    val_dst: i32,
    val_cap: i32,
) -> HostResult<i64> {
    let prefix_len = length(prefix_len, MAX_STORAGE_KEY_BYTES, "prefix")?;
    let cursor_len = length(cursor_len, MAX_STORAGE_KEY_BYTES, "cursor")?;
    charge(&mut c, CYCLES_STORAGE_NEXT + copy_cycles(prefix_len + cursor_len))?;
    entitled(&c, Entitlement::StorageKv, "storage_next")?;
    let prefix = read(&c, prefix, prefix_len, "prefix")?;
    let cursor = read(&c, cursor, cursor_len, "cursor")?;
    let mut after = (!cursor.is_empty()).then_some(cursor);
    let actor = c.data().actor();
    // The host walks the actor's storage in its own order; entries outside the prefix are read
    // and skipped here, each charged like a step of its own.
    let (key, value) = loop {
        let Some((key, value)) = c.data_mut().host.storage_next(&actor, after.as_deref()).map_err(Abort::from)? else {
            return Ok(-1);
        };
        charge(&mut c, copy_cycles(key.len() + value.len()))?;
        if key.starts_with(&prefix) {
            break (key, value);
        }
        charge(&mut c, CYCLES_STORAGE_NEXT)?;
        after = Some(key);
    };
    let k = key.len().min(key_cap as u32 as usize);
    let v = value.len().min(val_cap as u32 as usize);
    write(&mut c, key_dst, &key[..k], "key buffer")?;
    write(&mut c, val_dst, &value[..v], "value buffer")?;
    Ok(((key.len() as i64) << 32) | value.len() as i64)
}

// ---- events ----------------------------------------------------------------------------------

fn emit(mut c: C<'_, '_>, topic: i32, topic_len: i32, data: i32, data_len: i32) -> HostResult<()> {
    let topic_len = length(topic_len, MAX_EVENT_TOPIC_BYTES, "event topic")?;
    let data_len = length(data_len, MAX_EVENT_DATA_BYTES, "event data")?;
    charge(&mut c, CYCLES_EMIT + copy_cycles(topic_len + data_len))?;
    entitled(&c, Entitlement::EventsEmit, "emit")?;
    writable(&c, "emit")?;
    let topic = read(&c, topic, topic_len, "event topic")?;
    let data = read(&c, data, data_len, "event data")?;
    c.data_mut().cells.charge((topic_len + data_len) as u64)?;
    let actor = c.data().actor();
    c.data_mut().host.emit(&actor, &topic, &data).map_err(Abort::from)?;
    Ok(())
}

// ---- value -----------------------------------------------------------------------------------

fn balance_of(mut c: C<'_, '_>, address: i32, dst: i32) -> HostResult<()> {
    charge(&mut c, CYCLES_BALANCE + copy_cycles(20 + 16))?;
    let address = read_address(&c, address)?;
    let balance = c.data_mut().host.balance(&address).map_err(Abort::from)?;
    write(&mut c, dst, &balance.to_le_bytes(), "balance buffer")?;
    Ok(())
}

fn transfer(mut c: C<'_, '_>, to: i32, amount: i32) -> HostResult<()> {
    charge(&mut c, CYCLES_TRANSFER + copy_cycles(20 + 16))?;
    entitled(&c, Entitlement::EconTransfer, "transfer")?;
    writable(&c, "transfer")?;
    let to = read_address(&c, to)?;
    let amount = read_amount(&c, amount)?;
    // A new account is a record the state keeps for good: the call pays for it like a write.
    if amount > 0 && !c.data_mut().host.account_exists(&to).map_err(Abort::from)? {
        charge(&mut c, CYCLES_NEW_ACCOUNT)?;
        c.data_mut().cells.charge(CELLS_NEW_ACCOUNT)?;
    }
    let actor = c.data().actor();
    c.data_mut().host.transfer(&actor, &to, amount).map_err(Abort::from)?;
    Ok(())
}

// ---- other actors ----------------------------------------------------------------------------

/// The arguments `send` and `call` share.
struct Outgoing {
    to: Address,
    handler: String,
    payload: Vec<u8>,
    value: u128,
}

#[allow(clippy::too_many_arguments)]
fn outgoing(
    c: &mut C<'_, '_>,
    price: u64,
    call: &str,
    needs: fn(&Address) -> Entitlement,
    to: i32,
    handler: i32,
    handler_len: i32,
    payload: i32,
    payload_len: i32,
    value: i32,
) -> Result<Outgoing, Abort> {
    let handler_len = length(handler_len, MAX_HANDLER_NAME_BYTES, "handler name")?;
    let payload_len = length(payload_len, MAX_PAYLOAD_BYTES, "payload")?;
    charge(c, price + copy_cycles(20 + handler_len + payload_len + 16))?;
    let to = read_address(c, to)?;
    entitled(c, needs(&to), call)?;
    let value = read_amount(c, value)?;
    if value > 0 {
        entitled(c, Entitlement::EconTransfer, call)?;
    }
    Ok(Outgoing {
        to,
        handler: read_handler(c, handler, handler_len)?,
        payload: read(c, payload, payload_len, "payload")?,
        value,
    })
}

#[allow(clippy::too_many_arguments)]
fn send(
    mut c: C<'_, '_>,
    to: i32,
    handler: i32,
    handler_len: i32,
    payload: i32,
    payload_len: i32,
    value: i32,
    cycles: i64,
) -> HostResult<()> {
    let m = outgoing(
        &mut c,
        CYCLES_SEND,
        "send",
        |_| Entitlement::MailboxSend,
        to,
        handler,
        handler_len,
        payload,
        payload_len,
        value,
    )?;
    writable(&c, "send")?;
    let cycles_limit = budget(cycles)?;
    c.data_mut().cells.charge(CELLS_MESSAGE_OVERHEAD + (m.handler.len() + m.payload.len()) as u64)?;
    let message = OutgoingMessage {
        from: c.data().actor(),
        to: m.to,
        handler: m.handler,
        payload: m.payload,
        value: m.value,
        cycles_limit,
    };
    c.data_mut().host.send(message).map_err(Abort::from)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn call(
    mut c: C<'_, '_>,
    to: i32,
    handler: i32,
    handler_len: i32,
    payload: i32,
    payload_len: i32,
    value: i32,
    cycles: i64,
) -> HostResult<i32> {
    let m = outgoing(
        &mut c,
        CYCLES_CALL,
        "call",
        // The native tokens actor and the job dispatcher have their own entitlements: an actor
        // may hold tokens or buy jobs without being able to call arbitrary code.
        |to| match *to {
            TOKENS_ADDRESS => Entitlement::TokenUse,
            JOB_DISPATCHER_ADDRESS => Entitlement::JobSubmit,
            _ => Entitlement::ActorCall,
        },
        to,
        handler,
        handler_len,
        payload,
        payload_len,
        value,
    )?;
    call_outgoing(c, m, cycles)
}

/// Submits a job: a `call` of the dispatcher's `submit` with the job's argument map and its
/// escrow, needing only `job.submit`. Return data holds the job id on success.
fn job_submit(mut c: C<'_, '_>, args: i32, args_len: i32, escrow: i32, cycles: i64) -> HostResult<i32> {
    let args_len = length(args_len, MAX_PAYLOAD_BYTES, "job arguments")?;
    charge(&mut c, CYCLES_CALL + copy_cycles(args_len + 16))?;
    entitled(&c, Entitlement::JobSubmit, "job_submit")?;
    let m = Outgoing {
        to: JOB_DISPATCHER_ADDRESS,
        handler: "submit".to_owned(),
        payload: read(&c, args, args_len, "job arguments")?,
        value: read_amount(&c, escrow)?,
    };
    call_outgoing(c, m, cycles)
}

/// Runs handler `handler` of `publisher`'s library `name` (at `version`, 0: the latest) in this
/// actor's own context: its storage, balance and caller, with what both manifests grant.
/// Needs no entitlement (the library can only do what this actor may). Returns like `call`.
#[allow(clippy::too_many_arguments)]
fn library_call(
    mut c: C<'_, '_>,
    publisher: i32,
    name: i32,
    name_len: i32,
    version: i32,
    handler: i32,
    handler_len: i32,
    payload: i32,
    payload_len: i32,
    cycles: i64,
) -> HostResult<i32> {
    let name_len = length(name_len, MAX_HANDLER_NAME_BYTES, "library name")?;
    let handler_len = length(handler_len, MAX_HANDLER_NAME_BYTES, "handler name")?;
    let payload_len = length(payload_len, MAX_PAYLOAD_BYTES, "payload")?;
    charge(&mut c, CYCLES_CALL + copy_cycles(20 + name_len + handler_len + payload_len))?;
    let publisher = read_address(&c, publisher)?;
    let name = String::from_utf8(read(&c, name, name_len, "library name")?)
        .map_err(|_| Abort::argument("the library name is not UTF-8"))?;
    let handler = read_handler(&c, handler, handler_len)?;
    let payload = read(&c, payload, payload_len, "payload")?;
    let (here, cycles_limit) = callee_budget(&mut c, cycles)?;
    let request = LibraryRequest {
        publisher,
        name,
        version: version as u32,
        call: CallRequest {
            context: CallContext { value: 0, depth: here.depth + 1, ..here },
            handler,
            payload,
            cycles_limit,
            cells_limit: c.data().cells.remaining(),
            read_only: c.data().inv.read_only,
        },
        entitlements: c.data().inv.entitlements,
    };
    let outcome = c.data_mut().host.library_call(request).map_err(Abort::from)?;
    finish_call(c, outcome)
}

/// The calling context and the cycles a nested call gets: `cycles`, capped at what is left (0
/// attaches everything left; a larger request is capped, never refused); E1210 past the call
/// depth.
fn callee_budget(c: &mut C<'_, '_>, cycles: i64) -> HostResult<(CallContext, u64)> {
    let here = *c.data().context();
    if here.depth >= MAX_CALL_DEPTH {
        return Err(Abort::fail(ExecCode::CallDepth, format!("call depth would exceed {MAX_CALL_DEPTH}")).into());
    }
    let left = c.get_fuel()?;
    let cycles_limit = match cycles as u64 {
        0 => left,
        asked => asked.min(left),
    };
    Ok((here, cycles_limit))
}

/// Runs an outgoing call `m` with `cycles` attached (0: everything left), synchronously.
fn call_outgoing(mut c: C<'_, '_>, m: Outgoing, cycles: i64) -> HostResult<i32> {
    if m.value > 0 {
        writable(&c, "call with value")?;
    }
    let (here, cycles_limit) = callee_budget(&mut c, cycles)?;
    let request = CallRequest {
        context: CallContext {
            self_address: m.to,
            caller: here.self_address,
            origin: here.origin,
            block_height: here.block_height,
            timestamp_ms: here.timestamp_ms,
            value: m.value,
            depth: here.depth + 1,
        },
        handler: m.handler,
        payload: m.payload,
        cycles_limit,
        cells_limit: c.data().cells.remaining(),
        read_only: c.data().inv.read_only,
    };
    let outcome = c.data_mut().host.call(request).map_err(Abort::from)?;
    finish_call(c, outcome)
}

/// Charges a finished call's use to the caller and answers its status, its answer as return
/// data.
fn finish_call(mut c: C<'_, '_>, outcome: Outcome) -> HostResult<i32> {
    charge(&mut c, outcome.cycles_used)?;
    c.data_mut().cells.charge(outcome.cells_used)?;
    let (status, data) = match outcome.status {
        Status::Success => (CALL_SUCCESS, outcome.result),
        Status::Revert { reason } => (CALL_REVERTED, reason),
        // A write under a read, or a node fault, ends the whole execution, not just the callee.
        Status::Trap(e) if matches!(e.code, ExecCode::ReadOnlyViolation | ExecCode::Internal) => {
            return Err(Abort::Fail(e).into());
        }
        Status::Trap(e) => (CALL_FAILED, e.to_string().into_bytes()),
    };
    c.data_mut().return_data = data;
    Ok(status)
}

fn return_data_len(mut c: C<'_, '_>) -> HostResult<i32> {
    charge(&mut c, CYCLES_CONTEXT_READ)?;
    Ok(c.data().return_data.len() as i32)
}

fn return_data_read(mut c: C<'_, '_>, dst: i32) -> HostResult<()> {
    let data = std::mem::take(&mut c.data_mut().return_data);
    let charged = charge(&mut c, CYCLES_BUFFER_OP + copy_cycles(data.len()));
    let written = charged.and_then(|()| write(&mut c, dst, &data, "return data"));
    c.data_mut().return_data = data;
    written?;
    Ok(())
}

// ---- timers ----------------------------------------------------------------------------------

fn timer_schedule(
    mut c: C<'_, '_>,
    height: i64,
    handler: i32,
    handler_len: i32,
    payload: i32,
    payload_len: i32,
    cycles: i64,
) -> HostResult<i64> {
    let handler_len = length(handler_len, MAX_HANDLER_NAME_BYTES, "handler name")?;
    let payload_len = length(payload_len, MAX_PAYLOAD_BYTES, "payload")?;
    charge(&mut c, CYCLES_TIMER_SCHEDULE + copy_cycles(handler_len + payload_len))?;
    entitled(&c, Entitlement::TimerSchedule, "timer_schedule")?;
    writable(&c, "timer_schedule")?;
    let height = height as u64;
    let now = c.data().context().block_height;
    if height <= now {
        return Err(Abort::fail(
            ExecCode::TimerHeight,
            format!("timer at height {height}, not above the current height {now}"),
        )
        .into());
    }
    let handler = read_handler(&c, handler, handler_len)?;
    let payload = read(&c, payload, payload_len, "payload")?;
    let cycles_limit = budget(cycles)?;
    c.data_mut().cells.charge(CELLS_TIMER_OVERHEAD + (handler_len + payload_len) as u64)?;
    let timer = TimerRequest { owner: c.data().actor(), height, handler, payload, cycles_limit };
    let id = c.data_mut().host.timer_schedule(timer).map_err(Abort::from)?;
    Ok(id as i64)
}

fn timer_cancel(mut c: C<'_, '_>, id: i64) -> HostResult<i32> {
    charge(&mut c, CYCLES_TIMER_CANCEL)?;
    entitled(&c, Entitlement::TimerSchedule, "timer_cancel")?;
    writable(&c, "timer_cancel")?;
    let actor = c.data().actor();
    let cancelled = c.data_mut().host.timer_cancel(&actor, id as u64).map_err(Abort::from)?;
    Ok(i32::from(cancelled))
}

// ---- linking ---------------------------------------------------------------------------------

/// A linker defining every function of [`HOST_FUNCTIONS`] (and nothing else).
pub(crate) fn linker<'a>(engine: &Engine) -> Result<Linker<Ctx<'a>>, wasmi::Error> {
    let mut l = Linker::<Ctx<'a>>::new(engine);
    for f in HOST_FUNCTIONS {
        let m = HOST_MODULE;
        match f.name {
            "input_len" => l.func_wrap(m, f.name, input_len)?,
            "input_read" => l.func_wrap(m, f.name, input_read)?,
            "set_result" => l.func_wrap(m, f.name, set_result)?,
            "revert" => l.func_wrap(m, f.name, revert)?,
            "caller" => l.func_wrap(m, f.name, caller)?,
            "self_address" => l.func_wrap(m, f.name, self_address)?,
            "origin" => l.func_wrap(m, f.name, origin)?,
            "block_height" => l.func_wrap(m, f.name, block_height)?,
            "block_timestamp_ms" => l.func_wrap(m, f.name, block_timestamp_ms)?,
            "value_received" => l.func_wrap(m, f.name, value_received)?,
            "cycles_left" => l.func_wrap(m, f.name, cycles_left)?,
            "storage_get" => l.func_wrap(m, f.name, storage_get)?,
            "storage_set" => l.func_wrap(m, f.name, storage_set)?,
            "storage_remove" => l.func_wrap(m, f.name, storage_remove)?,
            "storage_next" => l.func_wrap(m, f.name, storage_next)?,
            "emit" => l.func_wrap(m, f.name, emit)?,
            "balance_of" => l.func_wrap(m, f.name, balance_of)?,
            "transfer" => l.func_wrap(m, f.name, transfer)?,
            "send" => l.func_wrap(m, f.name, send)?,
            "call" => l.func_wrap(m, f.name, call)?,
            "job_submit" => l.func_wrap(m, f.name, job_submit)?,
            "library_call" => l.func_wrap(m, f.name, library_call)?,
            "return_data_len" => l.func_wrap(m, f.name, return_data_len)?,
            "return_data_read" => l.func_wrap(m, f.name, return_data_read)?,
            "timer_schedule" => l.func_wrap(m, f.name, timer_schedule)?,
            "timer_cancel" => l.func_wrap(m, f.name, timer_cancel)?,
            other => {
                return Err(wasmi::Error::new(format!("ABI entry {other} has no host function")));
            }
        };
    }
    Ok(l)
}
