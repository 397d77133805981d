//! The [`Vm`]: compiling (through the cache) and running one handler.
//!
//! One invocation = one fresh wasmi store and instance (actors keep no memory between calls;
//! their state is in storage), fuel set to the cycles budget minus the fixed invocation price, a
//! cells meter, and the exported handler called with no arguments. The outcome reports exactly
//! the cycles and cells metered, which depend only on the code, the input and what the host
//! returns: that is the determinism the fee market and consensus rely on.
//!
//! The VM is reentrant: `invoke` takes `&self`, and a nested call made through [`Host::call`]
//! gets its own store on the same engine while the caller's store waits in its host function.
//!
//! A module runs on the engine it was compiled for. wasmi never frees what an engine compiled
//! (its function arena only grows), so after [`ENGINE_RECYCLE_CODE_BYTES`] of code or
//! [`ENGINE_RECYCLE_FUNCTIONS`] functions new modules go to a fresh engine; an old engine is freed with the last module compiled on it, once the
//! cache has evicted it. All engines share one configuration, so which one runs a module
//! changes nothing it meters.

use crate::{
    cache::{CompiledModule, ModuleCache},
    error::{Abort, HostError, VmError},
    host::Host,
    invocation::{Invocation, Outcome, Status},
    limits::*,
    runtime::{self, Ctx},
    validate::{CodeInfo, validate},
};
use drover_types::{H256, exec_error::ExecCode, keccak256};
use parking_lot::Mutex;
use std::sync::Arc;
use wasmi::{Engine, Store, TrapCode};

/// Wasm bytes compiled on one engine before the next module gets a fresh one: bounds what a
/// stream of distinct modules (deploys, recompiles after eviction) can pin in memory.
pub(crate) const ENGINE_RECYCLE_CODE_BYTES: usize = 16 * 1024 * 1024;
/// Functions compiled on one engine before the next module gets a fresh one. The byte bound
/// alone is not enough: a function takes as little as four bytes of code but a slot of about
/// 56 bytes in the engine's arena, which grows by doubling (so a 2^19-slot arena asks for 29 MB
/// at once); this keeps an arena at 2^17 slots (7 MB) at most.
pub(crate) const ENGINE_RECYCLE_FUNCTIONS: usize = 65_536;

/// The actor engine: the wasmi engine new modules are compiled for and the compiled-module
/// cache. Share it (`Arc<Vm>`); all methods take `&self`.
pub struct Vm {
    engine: Mutex<CurrentEngine>,
    cache: Mutex<ModuleCache>,
    recycle: Compiled,
}

/// What an engine has compiled (or may compile before it is replaced).
#[derive(Clone, Copy, Default)]
struct Compiled {
    code_bytes: usize,
    functions: usize,
}

/// The engine new modules are compiled for, and what it has compiled.
struct CurrentEngine {
    engine: Engine,
    compiled: Compiled,
}

impl Default for Vm {
    fn default() -> Self {
        Vm::new()
    }
}

impl std::fmt::Debug for Vm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vm").field("cached_modules", &self.cached_modules()).finish()
    }
}

impl Vm {
    /// A VM whose cache keeps up to
    /// [`DEFAULT_MODULE_CACHE_ENTRIES`](crate::limits::DEFAULT_MODULE_CACHE_ENTRIES) compiled
    /// modules.
    pub fn new() -> Self {
        Vm::with_cache_capacity(DEFAULT_MODULE_CACHE_ENTRIES)
    }

    /// A VM whose cache keeps at most `entries` compiled modules.
    pub fn with_cache_capacity(entries: usize) -> Self {
        Vm::with_limits(
            entries,
            Compiled { code_bytes: ENGINE_RECYCLE_CODE_BYTES, functions: ENGINE_RECYCLE_FUNCTIONS },
        )
    }

    fn with_limits(entries: usize, recycle: Compiled) -> Self {
        Vm {
            engine: Mutex::new(CurrentEngine { engine: runtime::engine(), compiled: Compiled::default() }),
            cache: Mutex::new(ModuleCache::new(entries)),
            recycle,
        }
    }

    /// The engine to compile a module for: the current one, or a fresh one once the current
    /// one has compiled its share.
    fn engine_for(&self, info: &CodeInfo) -> Engine {
        let mut current = self.engine.lock();
        let compiled = current.compiled;
        let used = compiled.code_bytes > 0 || compiled.functions > 0;
        let full = compiled.code_bytes.saturating_add(info.code_bytes) > self.recycle.code_bytes
            || compiled.functions.saturating_add(info.functions) > self.recycle.functions;
        if used && full {
            current.engine = runtime::engine();
            current.compiled = Compiled::default();
        }
        current.compiled.code_bytes = current.compiled.code_bytes.saturating_add(info.code_bytes);
        current.compiled.functions = current.compiled.functions.saturating_add(info.functions);
        current.engine.clone()
    }

    /// Number of modules in the cache.
    pub fn cached_modules(&self) -> usize {
        self.cache.lock().len()
    }

    /// Validates and compiles `code` (or returns the cached module with its hash).
    pub fn compile(&self, code: &[u8]) -> Result<Arc<CompiledModule>, VmError> {
        let hash = keccak256(code);
        if let Some(module) = self.cache.lock().get(&hash) {
            return Ok(module);
        }
        self.compile_uncached(code)
    }

    /// The module with hash `code_hash`, from the cache or else compiled from `fetch()` (which
    /// must return code with that hash, as stored at deploy).
    pub fn load(
        &self,
        code_hash: &H256,
        fetch: impl FnOnce() -> Result<Vec<u8>, HostError>,
    ) -> Result<Arc<CompiledModule>, VmError> {
        if let Some(module) = self.cache.lock().get(code_hash) {
            return Ok(module);
        }
        let code = fetch().map_err(VmError::CodeUnavailable)?;
        let actual = keccak256(&code);
        if actual != *code_hash {
            return Err(VmError::CodeHashMismatch { expected: *code_hash, actual });
        }
        self.compile_uncached(&code)
    }

    fn compile_uncached(&self, code: &[u8]) -> Result<Arc<CompiledModule>, VmError> {
        // The lock is not held while compiling: two threads compiling the same code at once
        // both succeed and one copy wins the cache, which is harmless.
        let info = validate(code)?;
        let engine = self.engine_for(&info);
        let module = wasmi::Module::new(&engine, code).map_err(|e| VmError::Compile(e.to_string()))?;
        let module = Arc::new(CompiledModule { info, module });
        self.cache.lock().insert(Arc::clone(&module));
        Ok(module)
    }

    /// Runs `invocation.handler` of `module`. Never fails: whatever goes wrong is a
    /// [`Status::Trap`] with its E-code, with the cycles and cells metered until then.
    pub fn invoke(&self, module: &CompiledModule, invocation: &Invocation<'_>, host: &mut dyn Host) -> Outcome {
        let limit = invocation.cycles_limit;
        let entry = module.info.invoke_cycles().saturating_add(invocation.load_cycles);
        if limit < entry {
            return Outcome::trap(
                ExecCode::OutOfCycles,
                format!("invoking this actor costs {entry} cycles, the budget is {limit}"),
                limit,
            );
        }
        let refused = if invocation.payload.len() > MAX_PAYLOAD_BYTES {
            Some((
                ExecCode::PayloadTooLarge,
                format!("payload of {} bytes, above the limit of {MAX_PAYLOAD_BYTES}", invocation.payload.len()),
            ))
        } else if invocation.context.depth > MAX_CALL_DEPTH {
            Some((ExecCode::CallDepth, format!("call depth {} exceeds {MAX_CALL_DEPTH}", invocation.context.depth)))
        } else if !module.has_handler(invocation.handler) {
            Some((ExecCode::HandlerNotFound, format!("the actor exports no handler {:?}", invocation.handler)))
        } else {
            None
        };
        if let Some((code, message)) = refused {
            return Outcome::trap(code, message, entry);
        }
        self.run(module, invocation, entry, host)
    }

    /// Runs the handler with `entry` cycles already charged (`entry ≤ inv.cycles_limit`).
    fn run(&self, module: &CompiledModule, inv: &Invocation<'_>, entry: u64, host: &mut dyn Host) -> Outcome {
        let limit = inv.cycles_limit;
        // The module's own engine: it may be an older one than new modules get.
        let engine = module.module.engine();
        let mut store = Store::new(engine, Ctx::new(host, inv));
        store.limiter(runtime::limiter);
        let ran = store
            .set_fuel(limit - entry)
            .and_then(|()| runtime::linker(engine))
            .and_then(|linker| linker.instantiate_and_start(&mut store, &module.module))
            .and_then(|instance| {
                store.data_mut().memory = instance.get_memory(&store, crate::abi::MEMORY_EXPORT);
                instance.get_typed_func::<(), ()>(&store, inv.handler)?.call(&mut store, ())
            });
        let fuel_left = store.get_fuel().unwrap_or(0);
        let ctx = store.into_data();
        let cells_used = ctx.cells.used();
        let status = match ran {
            Ok(()) => Status::Success,
            Err(e) => match abort_of(e) {
                Abort::Revert(reason) => Status::Revert { reason },
                Abort::Fail(e) => Status::Trap(e),
            },
        };
        let cycles_used = match &status {
            Status::Trap(e) if e.code == ExecCode::OutOfCycles => limit,
            _ => limit - fuel_left.min(limit),
        };
        let result = match status {
            Status::Success => ctx.result,
            _ => Vec::new(),
        };
        Outcome { status, result, cycles_used, cells_used }
    }
}

/// Classifies whatever stopped an execution.
fn abort_of(e: wasmi::Error) -> Abort {
    if let Some(abort) = e.downcast_ref::<Abort>() {
        return abort.clone();
    }
    match e.as_trap_code() {
        Some(TrapCode::OutOfFuel) => Abort::fail(ExecCode::OutOfCycles, "ran out of cycles"),
        Some(TrapCode::StackOverflow) => Abort::fail(
            ExecCode::StackOverflow,
            format!(
                "wasm stack exhausted (limits: {MAX_WASM_RECURSION_DEPTH} frames, \
                 {MAX_VALUE_STACK_BYTES} bytes)"
            ),
        ),
        Some(TrapCode::GrowthOperationLimited) => Abort::fail(
            ExecCode::MemoryLimit,
            format!(
                "memory or table grown past its limit ({MAX_MEMORY_PAGES} pages, \
                 {MAX_TABLE_ELEMENTS} elements)"
            ),
        ),
        Some(code) => Abort::fail(ExecCode::WasmTrap, code.trap_message()),
        None => Abort::fail(ExecCode::Internal, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Entitlements, MockHost};
    use drover_types::Address;

    /// A module whose handler `run` does nothing, made distinct by `tag` and `pad` bytes of a
    /// custom section (written out in binary so that these tests need no `wat`).
    fn module(tag: u8, pad: usize) -> Vec<u8> {
        let mut code = b"\0asm\x01\0\0\0".to_vec();
        code.extend_from_slice(&[1, 4, 1, 0x60, 0, 0]); // type 0: () -> ()
        code.extend_from_slice(&[3, 2, 1, 0]); // function 0 of type 0
        code.extend_from_slice(&[7, 7, 1, 3, b'r', b'u', b'n', 0, 0]); // export "run"
        code.extend_from_slice(&[10, 4, 1, 2, 0, 0x0b]); // an empty body
        let mut size = 5 + pad;
        code.push(0); // custom section "pad"
        loop {
            let byte = (size & 0x7f) as u8;
            size >>= 7;
            if size == 0 {
                code.push(byte);
                break;
            }
            code.push(byte | 0x80);
        }
        code.extend_from_slice(&[3, b'p', b'a', b'd', tag]);
        code.resize(code.len() + pad, 0);
        code
    }

    #[test]
    fn modules_move_to_a_fresh_engine_and_run_on_their_own() {
        let limits = Compiled { code_bytes: 1_000, functions: 3 };
        let vm = Arc::new(Vm::with_limits(8, limits));
        let first = vm.compile(&module(1, 10)).unwrap();
        let second = vm.compile(&module(2, 10)).unwrap();
        assert!(Engine::same(first.module.engine(), second.module.engine()));
        // Past the byte bound: a fresh engine, while the cached modules keep their own.
        let third = vm.compile(&module(3, 1_000)).unwrap();
        assert!(!Engine::same(first.module.engine(), third.module.engine()));
        let fourth = vm.compile(&module(4, 10)).unwrap();
        assert!(!Engine::same(third.module.engine(), fourth.module.engine()));
        // Past the function bound (one function each): the fourth engine takes three modules.
        let fifth = vm.compile(&module(5, 10)).unwrap();
        let sixth = vm.compile(&module(6, 10)).unwrap();
        let seventh = vm.compile(&module(7, 10)).unwrap();
        assert!(Engine::same(fourth.module.engine(), sixth.module.engine()));
        assert!(Engine::same(fifth.module.engine(), sixth.module.engine()));
        assert!(!Engine::same(sixth.module.engine(), seventh.module.engine()));

        let mut host = MockHost::new(Arc::clone(&vm));
        for tag in [1, 3, 4] {
            let pad = if tag == 3 { 1_000 } else { 10 };
            host.deploy(Address([tag; 20]), &module(tag, pad), Entitlements::NONE).unwrap();
            let outcome = host.call_actor(Address([tag; 20]), "run", b"");
            assert_eq!(outcome.status, Status::Success, "module {tag}");
        }
        // The cache answered the deploys: nothing was compiled twice.
        assert_eq!(vm.cached_modules(), 7);
    }
}
