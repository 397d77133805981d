//! The raw host ABI (module `drover`), exactly as `docs/actors.md` documents it.
//!
//! On wasm32 these are imports. Natively they are the in-memory mock of [`crate::mock`], with
//! the very same signatures, so the safe wrappers run the same pointer-and-length code in unit
//! tests as in an actor. Pointers are `usize` so that they are `i32` on wasm32; the host reads
//! through them, which is why every function is `unsafe`: callers pass valid buffers.

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "drover")]
unsafe extern "C" {
    /// Length of the handler's input (the message payload).
    pub fn input_len() -> u32;
    /// Copies the whole input to `dst`.
    pub fn input_read(dst: *mut u8);
    /// Sets the handler's result to the `len` bytes at `ptr`.
    pub fn set_result(ptr: *const u8, len: u32);
    /// Stops the handler as reverted, with the `len` bytes at `ptr` as the reason.
    pub fn revert(ptr: *const u8, len: u32) -> !;

    /// Writes the 20-byte address of this message's sender (account or calling actor) to `dst`.
    pub fn caller(dst: *mut u8);
    /// Writes this actor's 20-byte address to `dst`.
    pub fn self_address(dst: *mut u8);
    /// Writes the 20-byte address of the transaction's sender to `dst`.
    pub fn origin(dst: *mut u8);
    /// Height of the block being executed.
    pub fn block_height() -> u64;
    /// Timestamp of the block being executed, Unix milliseconds.
    pub fn block_timestamp_ms() -> u64;
    /// Writes the value received with this message (16 bytes, little-endian base units) to `dst`.
    pub fn value_received(dst: *mut u8);
    /// Cycles left in this execution's budget.
    pub fn cycles_left() -> u64;

    /// Copies up to `cap` bytes of the value under the key to `dst`; returns the value's length, or
    /// -1 when absent.
    pub fn storage_get(key: *const u8, key_len: u32, dst: *mut u8, cap: u32) -> i32;
    /// Writes the value under the key.
    pub fn storage_set(key: *const u8, key_len: u32, val: *const u8, val_len: u32);
    /// Removes the key; returns 1 if it was present, else 0.
    pub fn storage_remove(key: *const u8, key_len: u32) -> i32;
    /// Copies the first entry after `cursor` (from the start when `cursor_len` is 0) whose key
    /// starts with `prefix`; returns `key_len << 32 | value_len`, or -1 when there is none.
    pub fn storage_next(
        prefix: *const u8,
        prefix_len: u32,
        cursor: *const u8,
        cursor_len: u32,
        key_dst: *mut u8,
        key_cap: u32,
        val_dst: *mut u8,
        val_cap: u32,
    ) -> i64;

    /// Appends an event with this topic and data to the actor's log.
    pub fn emit(topic: *const u8, topic_len: u32, data: *const u8, data_len: u32);

    /// Writes the balance of the 20-byte address at `address` (16 bytes, little-endian) to `dst`.
    pub fn balance_of(address: *const u8, dst: *mut u8);
    /// Moves the 16-byte little-endian `amount` from this actor to the 20-byte address `to`.
    pub fn transfer(to: *const u8, amount: *const u8);

    /// Queues a message to `to`'s mailbox with `value` and a delivery budget of `cycles`, paid by
    /// this actor.
    pub fn send(
        to: *const u8,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        value: *const u8,
        cycles: u64,
    );
    /// Runs `handler` of `to` now with `value` and up to `cycles` (0: all left); returns 0 success,
    /// 1 reverted, 2 failed, with the callee's answer as return data.
    pub fn call(
        to: *const u8,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        value: *const u8,
        cycles: u64,
    ) -> i32;
    /// Submits a job to the dispatcher (`args`: its canonical CBOR argument map) with `escrow`
    /// (16 bytes, little-endian) and up to `cycles`; returns like `call`, the job id as return
    /// data on success.
    pub fn job_submit(args: *const u8, args_len: u32, escrow: *const u8, cycles: u64) -> i32;
    /// Length of the last call's return data.
    pub fn return_data_len() -> u32;
    /// Copies the last call's return data to `dst`.
    pub fn return_data_read(dst: *mut u8);

    /// Schedules `handler` of this actor to run at `height` with a budget of `cycles`; returns the
    /// timer id.
    pub fn timer_schedule(
        height: u64,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        cycles: u64,
    ) -> u64;
    /// Cancels this actor's pending timer `id`; returns 1 if there was one, else 0.
    pub fn timer_cancel(id: u64) -> i32;
}

#[cfg(not(target_arch = "wasm32"))]
pub use crate::mock::sys::*;
