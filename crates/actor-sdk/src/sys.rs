//! The raw host ABI (module `drover`), exactly as `docs/actors.md` documents it.
//!
//! On wasm32 these are imports. Natively they are the in-memory mock of [`crate::mock`], with
//! the very same signatures, so the safe wrappers run the same pointer-and-length code in unit
//! tests as in an actor. Pointers are `usize` so that they are `i32` on wasm32; the host reads
//! through them, which is why every function is `unsafe`: callers pass valid buffers.

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "drover")]
unsafe extern "C" {
    pub fn input_len() -> u32;
    pub fn input_read(dst: *mut u8);
    pub fn set_result(ptr: *const u8, len: u32);
    pub fn revert(ptr: *const u8, len: u32) -> !;

    pub fn caller(dst: *mut u8);
    pub fn self_address(dst: *mut u8);
    pub fn origin(dst: *mut u8);
    pub fn block_height() -> u64;
    pub fn block_timestamp_ms() -> u64;
    pub fn value_received(dst: *mut u8);
    pub fn cycles_left() -> u64;

    pub fn storage_get(key: *const u8, key_len: u32, dst: *mut u8, cap: u32) -> i32;
    pub fn storage_set(key: *const u8, key_len: u32, val: *const u8, val_len: u32);
    pub fn storage_remove(key: *const u8, key_len: u32) -> i32;
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

    pub fn emit(topic: *const u8, topic_len: u32, data: *const u8, data_len: u32);

    pub fn balance_of(address: *const u8, dst: *mut u8);
    pub fn transfer(to: *const u8, amount: *const u8);

    pub fn send(
        to: *const u8,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        value: *const u8,
        cycles: u64,
    );
    pub fn call(
        to: *const u8,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        value: *const u8,
        cycles: u64,
    ) -> i32;
    pub fn return_data_len() -> u32;
    pub fn return_data_read(dst: *mut u8);

    pub fn timer_schedule(
        height: u64,
        handler: *const u8,
        handler_len: u32,
        payload: *const u8,
        payload_len: u32,
        cycles: u64,
    ) -> u64;
    pub fn timer_cancel(id: u64) -> i32;
}

#[cfg(not(target_arch = "wasm32"))]
pub use crate::mock::sys::*;
