//! Deploy-time wasm validation on generated modules: `wasm-smith` writes valid modules with
//! the proposals Drover's engine has (and, sometimes, floats, which deploy refuses), so the
//! run reaches deep into validation and compilation. `validate` must never panic, and a module
//! it accepts must compile on the VM's engine (`Vm::compile`).
#![no_main]

use arbitrary::Unstructured;
use drover_vm::{Vm, VmError, limits::{MAX_MEMORY_PAGES, MAX_TABLE_ELEMENTS, WASM_PAGE_BYTES}};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use wasm_smith::{Config, Module};

static VM: LazyLock<Vm> = LazyLock::new(|| Vm::with_cache_capacity(1));

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    let mut u = Unstructured::new(data);
    let Ok(mut config) = u.arbitrary::<Config>() else { return };
    // The feature set of `drover_vm::validate::wasm_features`; proposals it lacks would only
    // be refused up front.
    config.simd_enabled = false;
    config.relaxed_simd_enabled = false;
    config.threads_enabled = false;
    config.shared_everything_threads_enabled = false;
    config.exceptions_enabled = false;
    config.gc_enabled = false;
    config.memory64_enabled = false;
    config.custom_page_sizes_enabled = false;
    config.wide_arithmetic_enabled = false;
    config.max_memories = config.max_memories.min(1);
    config.max_tables = config.max_tables.min(1);
    config.max_memory32_bytes = config.max_memory32_bytes.min(MAX_MEMORY_PAGES * WASM_PAGE_BYTES as u64);
    config.max_table_elements = config.max_table_elements.min(MAX_TABLE_ELEMENTS);
    let Ok(module) = Module::new(config, &mut u) else { return };
    let code = module.to_bytes();
    let validated = drover_vm::validate(&code);
    let compiled = VM.compile(&code);
    match (validated, compiled) {
        (Ok(info), Ok(module)) => assert_eq!(module.info, info),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (Ok(_), Err(VmError::Compile(e))) => panic!("validated module does not compile: {e}"),
        (validated, compiled) => panic!("{validated:?} vs {compiled:?}"),
    }
});
