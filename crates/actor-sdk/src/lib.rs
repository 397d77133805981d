//! Write Drover actors in Rust.
//!
//! An actor is a WebAssembly module whose exported `() -> ()` functions are its handlers. This
//! crate gives safe wrappers over the host ABI of module `drover` (see `docs/actors.md`) and
//! [`handlers!`], which exports functions of type `fn(&[u8]) -> HandlerResult` as handlers:
//! the input is the message payload, `Ok(bytes)` becomes the result, `Err(Revert)` reverts.
//!
//! `#![no_std]` with `alloc`: it builds for `wasm32-unknown-unknown` (an actor supplies a
//! global allocator, or uses std) and natively, where [`mock`] replaces the host so that
//! handlers can be unit-tested with `cargo test`. The wrappers never hand the host a pointer
//! to a buffer shorter than the length they pass with it; that is the safety argument for every
//! `unsafe` block below.

#![no_std]

extern crate alloc;

pub mod args;
#[cfg(not(target_arch = "wasm32"))]
pub mod mock;
pub mod sys;
pub mod tokens;

use alloc::{string::String, vec, vec::Vec};

/// A 20-byte account or actor address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Address(pub [u8; 20]);

/// Why a handler refuses: the reason bytes end up in the receipt's `revert_reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revert(pub Vec<u8>);

impl From<&str> for Revert {
    fn from(reason: &str) -> Self {
        Revert(reason.as_bytes().to_vec())
    }
}

impl From<String> for Revert {
    fn from(reason: String) -> Self {
        Revert(reason.into_bytes())
    }
}

/// What a handler returns.
pub type HandlerResult = Result<Vec<u8>, Revert>;

/// Exports each function as a handler of the same name.
///
/// ```ignore
/// drover_actor_sdk::handlers! {
///     fn get(_input: &[u8]) -> HandlerResult {
///         Ok(storage::get(b"count").unwrap_or_default())
///     }
/// }
/// ```
///
/// Each function takes the input bytes and returns a [`HandlerResult`] (written as the caller
/// names it in scope). On wasm32 each becomes `#[no_mangle] extern "C" fn name()`; natively it
/// is an ordinary `fn name()` (no symbol clash with the platform's libraries, and a revert may
/// unwind through it) for `mock::run`.
#[macro_export]
macro_rules! handlers {
    ($($(#[$meta:meta])* fn $name:ident($input:ident : &[u8]) -> $result:ty $body:block)*) => {
        $(
            $(#[$meta])*
            #[cfg(target_arch = "wasm32")]
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() {
                fn handler($input: &[u8]) -> $result $body
                $crate::dispatch(handler)
            }

            $(#[$meta])*
            #[cfg(not(target_arch = "wasm32"))]
            // Natively, handlers are called by the actor crate's own tests, often from a module
            // where `pub` reaches no further.
            #[allow(unreachable_pub)]
            pub fn $name() {
                fn handler($input: &[u8]) -> $result $body
                $crate::dispatch(handler)
            }
        )*
    };
}

/// Runs one handler body: reads the input, sets the result or reverts.
pub fn dispatch(handler: fn(&[u8]) -> HandlerResult) {
    match handler(&input()) {
        Ok(result) => set_result(&result),
        Err(Revert(reason)) => revert(&reason),
    }
}

fn len32(bytes: &[u8]) -> u32 {
    // Anything longer than 4 GiB cannot exist in a wasm32 memory; natively, clamp and let the
    // host refuse the truncated length rather than wrap.
    u32::try_from(bytes.len()).unwrap_or(u32::MAX)
}

/// The message payload.
pub fn input() -> Vec<u8> {
    let len = unsafe { sys::input_len() } as usize;
    let mut buf = vec![0; len];
    unsafe { sys::input_read(buf.as_mut_ptr()) };
    buf
}

/// Sets the handler's result (at most 64 KiB; more traps with E1207).
pub fn set_result(result: &[u8]) {
    unsafe { sys::set_result(result.as_ptr(), len32(result)) }
}

/// Stops the handler; the host discards everything it did.
pub fn revert(reason: &[u8]) -> ! {
    unsafe { sys::revert(reason.as_ptr(), len32(reason)) }
}

fn read_address(read: impl FnOnce(*mut u8)) -> Address {
    let mut a = [0; 20];
    read(a.as_mut_ptr());
    Address(a)
}

/// Who sent this message (an account, or the calling actor).
pub fn caller() -> Address {
    read_address(|dst| unsafe { sys::caller(dst) })
}

/// This actor's address.
pub fn self_address() -> Address {
    read_address(|dst| unsafe { sys::self_address(dst) })
}

/// The transaction's sender.
pub fn origin() -> Address {
    read_address(|dst| unsafe { sys::origin(dst) })
}

/// Height of the block being executed.
pub fn block_height() -> u64 {
    unsafe { sys::block_height() }
}

/// Timestamp of the block being executed, Unix milliseconds.
pub fn timestamp_ms() -> u64 {
    unsafe { sys::block_timestamp_ms() }
}

/// Value received with this message, in base units.
pub fn value_received() -> u128 {
    let mut v = [0; 16];
    unsafe { sys::value_received(v.as_mut_ptr()) };
    u128::from_le_bytes(v)
}

/// Cycles left in this execution's budget.
pub fn cycles_left() -> u64 {
    unsafe { sys::cycles_left() }
}

/// The actor's key-value storage (entitlement `storage.kv`).
pub mod storage {
    use super::*;

    /// Values up to this size are read in one host call; larger ones take two.
    const FIRST_READ_BYTES: usize = 256;

    /// The value under `key`, `None` when absent.
    pub fn get(key: &[u8]) -> Option<Vec<u8>> {
        let mut buf = vec![0; FIRST_READ_BYTES];
        let len = unsafe { sys::storage_get(key.as_ptr(), len32(key), buf.as_mut_ptr(), len32(&buf)) };
        let len = usize::try_from(len).ok()?;
        if len > buf.len() {
            buf.resize(len, 0);
            unsafe { sys::storage_get(key.as_ptr(), len32(key), buf.as_mut_ptr(), len32(&buf)) };
        }
        buf.truncate(len);
        Some(buf)
    }

    /// Writes `value` under `key` (charged one cell per key and value byte).
    pub fn set(key: &[u8], value: &[u8]) {
        unsafe { sys::storage_set(key.as_ptr(), len32(key), value.as_ptr(), len32(value)) }
    }

    /// Whether the key was present.
    pub fn remove(key: &[u8]) -> bool {
        unsafe { sys::storage_remove(key.as_ptr(), len32(key)) == 1 }
    }

    /// A `u64` stored little-endian (0 when absent or malformed).
    pub fn get_u64(key: &[u8]) -> u64 {
        get(key).and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok()).map_or(0, u64::from_le_bytes)
    }

    /// Stores `value` little-endian under `key` (what [`get_u64`] reads).
    pub fn set_u64(key: &[u8], value: u64) {
        set(key, &value.to_le_bytes())
    }

    /// Entries whose key starts with `prefix`, one host call per entry, in the chain's storage
    /// order: fixed, but not the keys' byte order (a hash of the actor and key). A prefix only
    /// filters: the walk reads, and pays for, every entry before a match. (The native mock
    /// walks in byte order: do not depend on the order.)
    pub fn iter(prefix: &[u8]) -> Iter {
        Iter { prefix: prefix.to_vec(), cursor: Vec::new(), done: false }
    }

    /// A cursor over a key prefix (the cursor is the last key returned).
    pub struct Iter {
        prefix: Vec<u8>,
        cursor: Vec<u8>,
        done: bool,
    }

    impl Iterator for Iter {
        type Item = (Vec<u8>, Vec<u8>);

        fn next(&mut self) -> Option<Self::Item> {
            if self.done {
                return None;
            }
            let mut key = vec![0; FIRST_READ_BYTES];
            let mut value = vec![0; FIRST_READ_BYTES];
            let mut found = self.step(&mut key, &mut value);
            if found.is_some_and(|(k, v)| k > key.len() || v > value.len()) {
                // Too big for the first buffers: ask again with the exact sizes.
                let (k, v) = found.unwrap_or_default();
                key.resize(k, 0);
                value.resize(v, 0);
                found = self.step(&mut key, &mut value);
            }
            let Some((k, v)) = found else {
                self.done = true;
                return None;
            };
            key.truncate(k);
            value.truncate(v);
            self.cursor = key.clone();
            Some((key, value))
        }
    }

    impl Iter {
        fn step(&self, key: &mut [u8], value: &mut [u8]) -> Option<(usize, usize)> {
            let packed = unsafe {
                sys::storage_next(
                    self.prefix.as_ptr(),
                    len32(&self.prefix),
                    self.cursor.as_ptr(),
                    len32(&self.cursor),
                    key.as_mut_ptr(),
                    len32(key),
                    value.as_mut_ptr(),
                    len32(value),
                )
            };
            (packed >= 0).then_some(((packed >> 32) as usize, (packed & 0xffff_ffff) as usize))
        }
    }
}

/// Appends an event to this actor's log (entitlement `events.emit`).
pub fn emit(topic: &[u8], data: &[u8]) {
    unsafe { sys::emit(topic.as_ptr(), len32(topic), data.as_ptr(), len32(data)) }
}

/// Balance of any address, in base units.
pub fn balance_of(address: &Address) -> u128 {
    let mut b = [0; 16];
    unsafe { sys::balance_of(address.0.as_ptr(), b.as_mut_ptr()) };
    u128::from_le_bytes(b)
}

/// Moves value from this actor (entitlement `econ.transfer`; traps with E1212 if short).
pub fn transfer(to: &Address, amount: u128) {
    let amount = amount.to_le_bytes();
    unsafe { sys::transfer(to.0.as_ptr(), amount.as_ptr()) }
}

/// Queues a message for `to`'s mailbox, delivered in a later block with `cycles` of budget
/// (entitlement `mailbox.send`, plus `econ.transfer` when `value` is not 0).
pub fn send(to: &Address, handler: &str, payload: &[u8], value: u128, cycles: u64) {
    let value = value.to_le_bytes();
    unsafe {
        sys::send(
            to.0.as_ptr(),
            handler.as_ptr(),
            len32(handler.as_bytes()),
            payload.as_ptr(),
            len32(payload),
            value.as_ptr(),
            cycles,
        )
    }
}

/// How a synchronous call ended; each carries the callee's return data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallResult {
    /// The callee's result.
    Success(Vec<u8>),
    /// The callee's revert reason (its effects were discarded).
    Reverted(Vec<u8>),
    /// `"E1xxx: message"` (its effects were discarded).
    Failed(Vec<u8>),
}

impl CallResult {
    /// The callee's result, or its revert reason or failure as this handler's [`Revert`]: a
    /// handler that cannot go on without the call writes `call(..).into_result()?`.
    pub fn into_result(self) -> Result<Vec<u8>, Revert> {
        match self {
            CallResult::Success(data) => Ok(data),
            CallResult::Reverted(data) | CallResult::Failed(data) => Err(Revert(data)),
        }
    }
}

/// Calls `handler` of `to` in this transaction (entitlement `actor.call`, plus `econ.transfer`
/// when `value` is not 0). `cycles` = 0 attaches every cycle left.
pub fn call(to: &Address, handler: &str, payload: &[u8], value: u128, cycles: u64) -> CallResult {
    let value = value.to_le_bytes();
    let status = unsafe {
        sys::call(
            to.0.as_ptr(),
            handler.as_ptr(),
            len32(handler.as_bytes()),
            payload.as_ptr(),
            len32(payload),
            value.as_ptr(),
            cycles,
        )
    };
    let data = return_data();
    match status {
        0 => CallResult::Success(data),
        1 => CallResult::Reverted(data),
        _ => CallResult::Failed(data),
    }
}

/// The job dispatcher's address (`0x00…02`): it calls back a submitting actor's handler with
/// `{job_id, result, status}` when a job it named a callback for ends.
pub const JOB_DISPATCHER: Address = system_address(0x02);

/// A native system actor's address: 19 zero bytes and its number.
pub(crate) const fn system_address(n: u8) -> Address {
    let mut a = [0; 20];
    a[19] = n;
    Address(a)
}

/// Submits a job to the runners (entitlement `job.submit`): `args` is the dispatcher's `submit`
/// argument map (docs/runners.md; build it with [`args::Args`]), `escrow` pays the runners and the callback, `cycles` = 0
/// attaches every cycle left. On success the result holds the 32-byte job id.
pub fn job_submit(args: &[u8], escrow: u128, cycles: u64) -> CallResult {
    let escrow = escrow.to_le_bytes();
    let status = unsafe { sys::job_submit(args.as_ptr(), len32(args), escrow.as_ptr(), cycles) };
    let data = return_data();
    match status {
        0 => CallResult::Success(data),
        1 => CallResult::Reverted(data),
        _ => CallResult::Failed(data),
    }
}

/// The return data of the last call.
pub fn return_data() -> Vec<u8> {
    let len = unsafe { sys::return_data_len() } as usize;
    let mut buf = vec![0; len];
    unsafe { sys::return_data_read(buf.as_mut_ptr()) };
    buf
}

/// One-shot timers (entitlement `timer.schedule`); this actor pays for each fire.
pub mod timer {
    use super::*;

    /// Runs `handler` with `payload` at `height` (above the current one); returns the timer id.
    pub fn schedule(height: u64, handler: &str, payload: &[u8], cycles: u64) -> u64 {
        unsafe {
            sys::timer_schedule(
                height,
                handler.as_ptr(),
                len32(handler.as_bytes()),
                payload.as_ptr(),
                len32(payload),
                cycles,
            )
        }
    }

    /// Whether a pending timer of this actor was cancelled.
    pub fn cancel(id: u64) -> bool {
        unsafe { sys::timer_cancel(id) == 1 }
    }
}

/// Traps on panic, for `no_std` actors (feature `panic-handler`).
#[cfg(all(target_arch = "wasm32", feature = "panic-handler"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

#[cfg(test)]
mod tests;
