//! Deploy-time wasm validation on raw bytes (seeded with the example actors): `validate` must
//! never panic, and a module it accepts must compile on the VM's engine (`Vm::compile`, the
//! deploy path), as `validate.rs` promises.
#![no_main]

use drover_vm::{Vm, VmError};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

/// One engine for the whole run; its module cache is bounded by entry count.
static VM: LazyLock<Vm> = LazyLock::new(|| Vm::with_cache_capacity(1));

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    let validated = drover_vm::validate(data);
    let compiled = VM.compile(data);
    match (validated, compiled) {
        (Ok(info), Ok(module)) => assert_eq!(module.info, info),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (Ok(_), Err(VmError::Compile(e))) => panic!("validated module does not compile: {e}"),
        (validated, compiled) => panic!("{validated:?} vs {compiled:?}"),
    }
});
