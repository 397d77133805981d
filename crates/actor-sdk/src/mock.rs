//! A native stand-in for the host, for unit tests of actors and of this SDK (not on wasm32).
//!
//! State is thread-local (each test thread has its own world): set it up with [`with`], run a
//! handler with [`run`], inspect it with [`with`] again. [`MockEnv::on_call`] answers
//! synchronous calls. A revert unwinds (the real host traps), and [`run`] catches it. The mock
//! meters nothing and checks no entitlement: those are the VM's (`drover-vm`'s tests).

extern crate std;

use crate::Address;
use alloc::{boxed::Box, collections::BTreeMap, string::String, vec::Vec};
use core::cell::RefCell;
use std::thread_local;

/// A message recorded by the mock (what the actor sent to another actor's mailbox).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The recipient.
    pub to: Address,
    /// Name of the recipient's handler.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// Value sent with the message, in base units.
    pub value: u128,
    /// Cycles budget of the delivery.
    pub cycles: u64,
}

/// A scheduled timer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timer {
    /// Height the timer fires at.
    pub height: u64,
    /// Name of the actor's handler to run.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// Cycles budget of the run.
    pub cycles: u64,
}

/// Answers `call`: `(to, handler, payload, value) -> (status, return data)`.
pub type CallResponder = Box<dyn FnMut(Address, &str, &[u8], u128) -> (i32, Vec<u8>)>;

/// The mock world one thread sees.
#[derive(Default)]
pub struct MockEnv {
    /// Input of the handler [`run`] runs (it sets this).
    pub input: Vec<u8>,
    /// Result of the last handler, as `set_result` left it.
    pub result: Vec<u8>,
    /// What `caller()` answers.
    pub caller: Address,
    /// What `self_address()` answers; transfers move value out of it.
    pub self_address: Address,
    /// What `origin()` answers.
    pub origin: Address,
    /// What `block_height()` answers.
    pub block_height: u64,
    /// What `timestamp_ms()` answers, Unix milliseconds.
    pub timestamp_ms: u64,
    /// What `value_received()` answers, in base units.
    pub value: u128,
    /// What `cycles_left()` answers (the mock meters nothing).
    pub cycles_left: u64,
    /// The actor's storage, in key order.
    pub storage: BTreeMap<Vec<u8>, Vec<u8>>,
    /// Emitted events as `(topic, data)`, in order.
    pub events: Vec<(Vec<u8>, Vec<u8>)>,
    /// Balances by address, in base units.
    pub balances: BTreeMap<Address, u128>,
    /// Messages sent, in order.
    pub sent: Vec<Sent>,
    /// Pending timers by id.
    pub timers: BTreeMap<u64, Timer>,
    /// The last timer id handed out (ids start at 1).
    pub next_timer: u64,
    /// Return data of the last `call`.
    pub return_data: Vec<u8>,
    /// Answers `call`; without one, calls fail with E1211.
    pub on_call: Option<CallResponder>,
}

thread_local! {
    static ENV: RefCell<MockEnv> = RefCell::new(MockEnv::default());
}

/// Reads or changes this thread's mock world.
pub fn with<R>(f: impl FnOnce(&mut MockEnv) -> R) -> R {
    ENV.with(|env| f(&mut env.borrow_mut()))
}

/// Starts over with an empty world.
pub fn reset() {
    with(|env| *env = MockEnv::default());
}

/// The payload of a revert while it unwinds.
struct Reverted(Vec<u8>);

/// Runs `handler` with `input`: `Ok(result)` or `Err(revert reason)`. Storage and the rest of
/// the world are kept either way (the mock has no rollback; the real host has).
pub fn run(handler: fn(), input: &[u8]) -> Result<Vec<u8>, Vec<u8>> {
    with(|env| {
        env.input = input.to_vec();
        env.result.clear();
    });
    match std::panic::catch_unwind(handler) {
        Ok(()) => Ok(with(|env| core::mem::take(&mut env.result))),
        Err(payload) => match payload.downcast::<Reverted>() {
            Ok(reverted) => Err(reverted.0),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// The raw ABI, natively. Same names and signatures as the wasm imports.
#[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
pub mod sys {
    use super::*;
    use core::slice;

    unsafe fn bytes<'a>(ptr: *const u8, len: u32) -> &'a [u8] {
        if len == 0 {
            return &[];
        }
        unsafe { slice::from_raw_parts(ptr, len as usize) }
    }

    unsafe fn put(dst: *mut u8, data: &[u8]) {
        if !data.is_empty() {
            unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) }
        }
    }

    unsafe fn address(ptr: *const u8) -> Address {
        let mut a = [0; 20];
        a.copy_from_slice(unsafe { bytes(ptr, 20) });
        Address(a)
    }

    unsafe fn amount(ptr: *const u8) -> u128 {
        let mut a = [0; 16];
        a.copy_from_slice(unsafe { bytes(ptr, 16) });
        u128::from_le_bytes(a)
    }

    fn text(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    /// Length of the handler's input (the message payload).
    pub unsafe fn input_len() -> u32 {
        with(|e| e.input.len() as u32)
    }
    /// Copies the whole input to `dst`.
    pub unsafe fn input_read(dst: *mut u8) {
        let input = with(|e| e.input.clone());
        unsafe { put(dst, &input) }
    }
    /// Sets the handler's result to the `len` bytes at `ptr`.
    pub unsafe fn set_result(ptr: *const u8, len: u32) {
        let result = unsafe { bytes(ptr, len) }.to_vec();
        with(|e| e.result = result);
    }
    /// Stops the handler as reverted, with the `len` bytes at `ptr` as the reason. The mock unwinds
    /// with the reason; [`run`] catches it.
    pub unsafe fn revert(ptr: *const u8, len: u32) -> ! {
        let reason = unsafe { bytes(ptr, len) }.to_vec();
        std::panic::panic_any(Reverted(reason))
    }

    /// Writes the 20-byte address of this message's sender (account or calling actor) to `dst`.
    pub unsafe fn caller(dst: *mut u8) {
        let a = with(|e| e.caller);
        unsafe { put(dst, &a.0) }
    }
    /// Writes this actor's 20-byte address to `dst`.
    pub unsafe fn self_address(dst: *mut u8) {
        let a = with(|e| e.self_address);
        unsafe { put(dst, &a.0) }
    }
    /// Writes the 20-byte address of the transaction's sender to `dst`.
    pub unsafe fn origin(dst: *mut u8) {
        let a = with(|e| e.origin);
        unsafe { put(dst, &a.0) }
    }
    /// Height of the block being executed.
    pub unsafe fn block_height() -> u64 {
        with(|e| e.block_height)
    }
    /// Timestamp of the block being executed, Unix milliseconds.
    pub unsafe fn block_timestamp_ms() -> u64 {
        with(|e| e.timestamp_ms)
    }
    /// Writes the value received with this message (16 bytes, little-endian base units) to `dst`.
    pub unsafe fn value_received(dst: *mut u8) {
        let v = with(|e| e.value);
        unsafe { put(dst, &v.to_le_bytes()) }
    }
    /// Cycles left in this execution's budget.
    pub unsafe fn cycles_left() -> u64 {
        with(|e| e.cycles_left)
    }

    /// Copies up to `cap` bytes of the value under the key to `dst`; returns the value's length, or
    /// -1 when absent.
    pub unsafe fn storage_get(key: *const u8, key_len: u32, dst: *mut u8, cap: u32) -> i32 {
        let key = unsafe { bytes(key, key_len) };
        match with(|e| e.storage.get(key).cloned()) {
            None => -1,
            Some(v) => {
                unsafe { put(dst, &v[..v.len().min(cap as usize)]) };
                v.len() as i32
            }
        }
    }
    /// Writes the value under the key.
    pub unsafe fn storage_set(key: *const u8, key_len: u32, val: *const u8, val_len: u32) {
        let (key, val) = unsafe { (bytes(key, key_len).to_vec(), bytes(val, val_len).to_vec()) };
        with(|e| e.storage.insert(key, val));
    }
    /// Removes the key; returns 1 if it was present, else 0.
    pub unsafe fn storage_remove(key: *const u8, key_len: u32) -> i32 {
        let key = unsafe { bytes(key, key_len) };
        i32::from(with(|e| e.storage.remove(key).is_some()))
    }
    /// Copies the first entry after `cursor` (from the start when `cursor_len` is 0) whose key
    /// starts with `prefix`; returns `key_len << 32 | value_len`, or -1 when there is none. The
    /// mock walks keys in byte order.
    pub unsafe fn storage_next(
        prefix: *const u8,
        prefix_len: u32,
        cursor: *const u8,
        cursor_len: u32,
        key_dst: *mut u8,
        key_cap: u32,
        val_dst: *mut u8,
        val_cap: u32,
    ) -> i64 {
        use core::ops::Bound;
        let prefix = unsafe { bytes(prefix, prefix_len) }.to_vec();
        let cursor = unsafe { bytes(cursor, cursor_len) }.to_vec();
        let start = if cursor.is_empty() { Bound::Included(prefix.clone()) } else { Bound::Excluded(cursor) };
        let next = with(|e| {
            e.storage
                .range((start, Bound::Unbounded))
                .next()
                .filter(|(k, _)| k.starts_with(&prefix))
                .map(|(k, v)| (k.clone(), v.clone()))
        });
        match next {
            None => -1,
            Some((k, v)) => {
                unsafe {
                    put(key_dst, &k[..k.len().min(key_cap as usize)]);
                    put(val_dst, &v[..v.len().min(val_cap as usize)]);
                }
                ((k.len() as i64) << 32) | v.len() as i64
            }
        }
    }

    /// Appends an event with this topic and data to the actor's log. The mock records it in
    /// [`MockEnv::events`].
    pub unsafe fn emit(topic: *const u8, topic_len: u32, data: *const u8, data_len: u32) {
        let event = unsafe { (bytes(topic, topic_len).to_vec(), bytes(data, data_len).to_vec()) };
        with(|e| e.events.push(event));
    }

    /// Writes the balance of the 20-byte address at `address` (16 bytes, little-endian) to `dst`.
    pub unsafe fn balance_of(address_ptr: *const u8, dst: *mut u8) {
        let a = unsafe { address(address_ptr) };
        let b = with(|e| e.balances.get(&a).copied().unwrap_or(0));
        unsafe { put(dst, &b.to_le_bytes()) }
    }
    /// Moves the 16-byte little-endian `amount` from this actor to the 20-byte address `to`. The
    /// mock unwinds like a revert when the balance is short (the host traps with E1212).
    pub unsafe fn transfer(to: *const u8, amount_ptr: *const u8) {
        let (to, amount) = unsafe { (address(to), amount(amount_ptr)) };
        let reverted = with(|e| {
            let from = e.self_address;
            let balance = e.balances.get(&from).copied().unwrap_or(0);
            if balance < amount {
                return true;
            }
            e.balances.insert(from, balance - amount);
            *e.balances.entry(to).or_default() += amount;
            false
        });
        if reverted {
            // The real host traps with E1212; unwinding like a revert is the closest native model.
            std::panic::panic_any(Reverted(b"E1212: insufficient balance".to_vec()));
        }
    }

    /// Queues a message to `to`'s mailbox with `value` and a delivery budget of `cycles`, paid by
    /// this actor. The mock records it in [`MockEnv::sent`].
    pub unsafe fn send(
        to: *const u8,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        value: *const u8,
        cycles: u64,
    ) {
        let sent = unsafe {
            Sent {
                to: address(to),
                handler: text(bytes(handler, handler_len)),
                payload: bytes(payload, payload_len).to_vec(),
                value: amount(value),
                cycles,
            }
        };
        with(|e| e.sent.push(sent));
    }
    /// Runs `handler` of `to` now with `value` and up to `cycles` (0: all left); returns 0 success,
    /// 1 reverted, 2 failed, with the callee's answer as return data. The mock asks
    /// [`MockEnv::on_call`], and fails with E1211 without one.
    pub unsafe fn call(
        to: *const u8,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        value: *const u8,
        _cycles: u64,
    ) -> i32 {
        let (to, handler, payload, value) = unsafe {
            (address(to), text(bytes(handler, handler_len)), bytes(payload, payload_len).to_vec(), amount(value))
        };
        let responder = with(|e| e.on_call.take());
        let Some(mut responder) = responder else {
            with(|e| e.return_data = b"E1211: no responder".to_vec());
            return 2;
        };
        // The responder runs outside the borrow, so it may use the mock itself.
        let (status, data) = responder(to, &handler, &payload, value);
        with(|e| {
            e.on_call = Some(responder);
            e.return_data = data;
        });
        status
    }
    /// Submits a job: the mock hands it to [`MockEnv::on_call`] as a call of the dispatcher's
    /// `submit` (address `0x00…02`).
    pub unsafe fn job_submit(args: *const u8, args_len: u32, escrow: *const u8, cycles: u64) -> i32 {
        let mut dispatcher = [0u8; 20];
        dispatcher[19] = 0x02;
        let handler = b"submit";
        unsafe { call(dispatcher.as_ptr(), handler.as_ptr(), handler.len() as u32, args, args_len, escrow, cycles) }
    }
    /// Length of the last call's return data.
    pub unsafe fn return_data_len() -> u32 {
        with(|e| e.return_data.len() as u32)
    }
    /// Copies the last call's return data to `dst`.
    pub unsafe fn return_data_read(dst: *mut u8) {
        let data = with(|e| e.return_data.clone());
        unsafe { put(dst, &data) }
    }

    /// Schedules `handler` of this actor to run at `height` with a budget of `cycles`; returns the
    /// timer id. The mock records it in [`MockEnv::timers`].
    pub unsafe fn timer_schedule(
        height: u64,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        cycles: u64,
    ) -> u64 {
        let timer = unsafe {
            Timer {
                height,
                handler: text(bytes(handler, handler_len)),
                payload: bytes(payload, payload_len).to_vec(),
                cycles,
            }
        };
        with(|e| {
            e.next_timer += 1;
            e.timers.insert(e.next_timer, timer);
            e.next_timer
        })
    }
    /// Cancels this actor's pending timer `id`; returns 1 if there was one, else 0.
    pub unsafe fn timer_cancel(id: u64) -> i32 {
        i32::from(with(|e| e.timers.remove(&id).is_some()))
    }
}
