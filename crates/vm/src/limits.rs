//! Every bound the VM enforces, as a named constant with its unit in the name.
//!
//! These numbers are consensus rules: two validators with different limits disagree on which
//! modules deploy and where an execution traps. Changing one is a protocol upgrade. The table in
//! `docs/actors.md` lists them; keep the two in step.

/// Largest WebAssembly module the VM validates, in bytes. The live limit of deploys, upgrades and
/// library publishes is the chain parameter `max_code_bytes`, at most this.
pub const MAX_CODE_BYTES: usize = drover_types::params::MAX_CODE_BYTES_CAP as usize;

/// Size of one WebAssembly page, in bytes (fixed by the WebAssembly spec).
pub const WASM_PAGE_BYTES: usize = 64 * 1024;

/// Largest linear memory an actor may declare or grow to, in 64 KiB pages (16 MiB).
pub const MAX_MEMORY_PAGES: u64 = 256;

/// Most tables a module may define (one, for `call_indirect`).
pub const MAX_TABLES: u32 = 1;

/// Largest table a module may declare or grow to, in elements.
pub const MAX_TABLE_ELEMENTS: u64 = 4096;

/// Most functions a module may define (imports included).
pub const MAX_FUNCTIONS: u32 = 10_000;

/// Most locals one function may declare (parameters excluded): each call reserves them on the
/// value stack, so a few bytes of code could otherwise reserve megabytes per frame.
pub const MAX_LOCALS_PER_FUNCTION: u32 = 4096;

/// Most globals a module may define.
pub const MAX_GLOBALS: u32 = 256;

/// Most exports a module may declare.
pub const MAX_EXPORTS: u32 = 256;

/// Longest handler (export) name, in bytes.
pub const MAX_HANDLER_NAME_BYTES: usize = 64;

/// Deepest wasm call stack inside one actor execution, in frames; beyond it the actor traps
/// with E1203.
pub const MAX_WASM_RECURSION_DEPTH: usize = 1024;

/// Largest value stack of one actor execution, in bytes; beyond it the actor traps with E1203.
pub const MAX_VALUE_STACK_BYTES: usize = 1024 * 1024;

/// Deepest chain of synchronous actor-to-actor calls, counting the outermost handler as depth 0.
pub const MAX_CALL_DEPTH: u32 = 16;

/// Largest handler input (message payload), in bytes.
pub const MAX_PAYLOAD_BYTES: usize = 128 * 1024;

/// Largest handler result, in bytes.
pub const MAX_RESULT_BYTES: usize = 64 * 1024;

/// Longest revert reason kept, in bytes; a longer reason is truncated to this length.
pub const MAX_REVERT_REASON_BYTES: usize = 1024;

// Longest storage key, in bytes (a key is at least one byte). Defined with the protocol numbers:
// the API bounds the keys it reads, proves and pages through by it.
pub use drover_types::params::MAX_STORAGE_KEY_BYTES;

/// Largest storage value, in bytes. The live limit is the chain parameter
/// `max_storage_value_bytes`, at most this (the host checks it).
pub const MAX_STORAGE_VALUE_BYTES: usize = drover_types::params::MAX_STORAGE_VALUE_BYTES_CAP as usize;

/// Longest event topic, in bytes.
pub const MAX_EVENT_TOPIC_BYTES: usize = 64;

/// Largest event data, in bytes.
pub const MAX_EVENT_DATA_BYTES: usize = 16 * 1024;

/// Largest cycles budget an actor may ever attach to a mailbox message or a timer, per delivery
/// (E1504 above it). The live limit is the chain parameter `max_attached_cycles`, at most this
/// (the host checks it).
pub const MAX_ATTACHED_CYCLES: u64 = drover_types::params::MAX_ATTACHED_CYCLES_CAP;

/// Compiled modules kept in the VM's cache, by count.
pub const DEFAULT_MODULE_CACHE_ENTRIES: usize = 256;
