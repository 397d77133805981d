//! Counter, written `no_std`: `increment` adds one to the count in storage and answers it,
//! `get` answers it (u64 little-endian). Manifest: `storage.kv`.
#![no_std]
extern crate alloc;

use drover_actor_sdk::{HandlerResult, handlers, storage};

// A no_std actor brings its own allocator (natively, the tests use std's).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

handlers! {
    fn increment(_input: &[u8]) -> HandlerResult {
        let next = storage::get_u64(b"count") + 1;
        storage::set_u64(b"count", next);
        Ok(next.to_le_bytes().to_vec())
    }

    fn get(_input: &[u8]) -> HandlerResult {
        Ok(storage::get_u64(b"count").to_le_bytes().to_vec())
    }
}

#[test]
fn counts() {
    drover_actor_sdk::mock::reset();
    assert_eq!(drover_actor_sdk::mock::run(increment, b""), Ok(1u64.to_le_bytes().to_vec()));
    assert_eq!(drover_actor_sdk::mock::run(get, b""), Ok(1u64.to_le_bytes().to_vec()));
}
