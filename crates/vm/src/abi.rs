//! The host ABI's shape: every function an actor may import from module `drover`, with its
//! exact wasm signature. Deploy-time validation checks imports against this table and the
//! linker in `runtime` defines exactly these functions, so the two cannot drift (a test checks
//! that each entry here is defined there).
//!
//! Conventions (details in `docs/actors.md`): pointers and lengths are `i32` offsets and byte
//! counts into the exported `memory`; addresses are 20 bytes, amounts 16 bytes little-endian
//! (`u128`); heights, timestamps, cycle budgets and timer ids are `i64` (read as `u64`).

/// The module name every import must use.
pub const HOST_MODULE: &str = "drover";

/// The export name of the actor's linear memory.
pub const MEMORY_EXPORT: &str = "memory";

/// A wasm value type of the ABI (no floats, by construction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// A 32-bit integer: pointers, lengths, flags and statuses.
    I32,
    /// A 64-bit integer: heights, timestamps, cycle budgets, timer ids.
    I64,
}

/// One host function's name and signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostFunction {
    /// The import name.
    pub name: &'static str,
    /// Parameter types, in order.
    pub params: &'static [Ty],
    /// Result types (none or one).
    pub results: &'static [Ty],
}

use Ty::{I32, I64};

const fn f(name: &'static str, params: &'static [Ty], results: &'static [Ty]) -> HostFunction {
    HostFunction { name, params, results }
}

/// The whole ABI, in documentation order.
pub const HOST_FUNCTIONS: &[HostFunction] = &[
    // input, result, revert
    f("input_len", &[], &[I32]),
    f("input_read", &[I32], &[]),
    f("set_result", &[I32, I32], &[]),
    f("revert", &[I32, I32], &[]),
    // context
    f("caller", &[I32], &[]),
    f("self_address", &[I32], &[]),
    f("origin", &[I32], &[]),
    f("block_height", &[], &[I64]),
    f("block_timestamp_ms", &[], &[I64]),
    f("value_received", &[I32], &[]),
    f("cycles_left", &[], &[I64]),
    // storage
    f("storage_get", &[I32, I32, I32, I32], &[I32]),
    f("storage_set", &[I32, I32, I32, I32], &[]),
    f("storage_remove", &[I32, I32], &[I32]),
    f("storage_next", &[I32, I32, I32, I32, I32, I32, I32, I32], &[I64]),
    // events
    f("emit", &[I32, I32, I32, I32], &[]),
    // value
    f("balance_of", &[I32, I32], &[]),
    f("transfer", &[I32, I32], &[]),
    // other actors
    f("send", &[I32, I32, I32, I32, I32, I32, I64], &[]),
    f("call", &[I32, I32, I32, I32, I32, I32, I64], &[I32]),
    f("job_submit", &[I32, I32, I32, I64], &[I32]),
    f("library_call", &[I32, I32, I32, I32, I32, I32, I32, I32, I64], &[I32]),
    f("return_data_len", &[], &[I32]),
    f("return_data_read", &[I32], &[]),
    // timers
    f("timer_schedule", &[I64, I32, I32, I32, I32, I64], &[I64]),
    f("timer_cancel", &[I64], &[I32]),
];

/// The ABI entry named `name`.
pub fn host_function(name: &str) -> Option<&'static HostFunction> {
    HOST_FUNCTIONS.iter().find(|h| h.name == name)
}

/// `call`'s status: the callee succeeded.
pub const CALL_SUCCESS: i32 = 0;
/// `call`'s status: the callee reverted; return data holds its reason.
pub const CALL_REVERTED: i32 = 1;
/// `call`'s status: the callee failed (trap, out of cycles...); return data holds `"E1xxx: message"`.
pub const CALL_FAILED: i32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in HOST_FUNCTIONS.iter().enumerate() {
            assert!(HOST_FUNCTIONS[i + 1..].iter().all(|b| b.name != a.name), "{} twice", a.name);
            assert_eq!(host_function(a.name), Some(a));
        }
        assert_eq!(host_function("nope"), None);
    }
}
