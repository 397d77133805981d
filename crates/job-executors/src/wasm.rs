//! The `wasm` job type: deterministic off-chain compute in a sandboxed WebAssembly module.
//!
//! A job brings its own module, its input and the fuel it may burn (the input format is in the
//! crate documentation). The module runs on wasmi with no imports at all, so the only thing it
//! can see is the input the runner writes into its memory, and the only thing it can do is
//! compute the output it points at. Every honest runner therefore computes the same bytes, or
//! fails with the same [`ExecutorError::Deterministic`] text:
//!
//! - Fuel: wasmi's fuel metering, with the job's own `fuel` (at most the runner's
//!   `wasm_max_fuel`) as the budget for everything the module runs — its start function, `alloc`
//!   and `run` together. Compilation is eager, so no fuel depends on which functions happened to
//!   be translated first. Fuel costs are wasmi's own schedule, which is why the workspace pins
//!   wasmi to one exact version: two runners on different wasmi versions could disagree on
//!   whether a job near its budget runs out of fuel.
//! - No floats: the engine refuses float types and instructions, so NaN bit patterns (which the
//!   WebAssembly spec leaves non-deterministic) cannot reach the output. SIMD, whose relaxed forms
//!   are non-deterministic by design, is not compiled into this build of wasmi (a test checks a
//!   SIMD module is refused, in case a feature of another crate ever turns it on).
//! - Fixed limits: memory ([`WASM_MAX_MEMORY_BYTES`]), table elements
//!   ([`WASM_MAX_TABLE_ELEMENTS`]), module size ([`WASM_MAX_MODULE_BYTES`]), call depth
//!   ([`WASM_MAX_RECURSION_DEPTH`]) and value stack ([`WASM_MAX_VALUE_STACK_BYTES`]) are
//!   constants, not runner settings, so a job that hits one hits it on every runner. A memory
//!   or table grown past these limits traps rather than seeing `memory.grow` return -1, so that
//!   it ends with a clear error instead of whatever its allocator does next (past its own
//!   declared maximum, `memory.grow` returns -1 as the spec says). One non-determinism remains, allowed by the WebAssembly spec and
//!   unlikely under these limits: if the runner's own allocator fails while a memory grows,
//!   `memory.grow` returns -1 (and an initial memory the host cannot allocate is a transient
//!   failure).
//! - Stable failure text: traps are named by this module, not by wasmi's messages, and a module
//!   wasmi will not compile is reported without the parser's own words.
//!
//! Each job gets a fresh wasmi engine: an engine keeps the compiled code of every module it ever
//! compiled, so one long-lived engine would grow with every job a runner takes. The job runs on
//! tokio's blocking pool because a module may compute for as long as its fuel lasts.

use crate::{ExecutorError, Secrets, quoted};
use drover_types::args::{Args, ArgsBuilder, ArgsError};
use wasmi::errors::{ErrorKind, InstantiationError, MemoryError, TableError};
use wasmi::{CompilationMode, Config, Engine, Error, Linker, Module, Store, StoreLimits, StoreLimitsBuilder, TrapCode};

/// Largest module a job may bring, in bytes. It bounds compilation, which fuel does not meter.
/// A job from the chain is already smaller (its whole input is at most
/// `drover_types::job::MAX_JOB_INPUT_BYTES`); this holds whoever hands the executor its input.
pub const WASM_MAX_MODULE_BYTES: usize = 256 * 1024;
/// Largest linear memory a module may have or grow to, in bytes (256 pages of 64 KiB).
pub const WASM_MAX_MEMORY_BYTES: usize = 16 * 1024 * 1024;
/// Most elements a table may have or grow to.
pub const WASM_MAX_TABLE_ELEMENTS: usize = 4096;
/// Deepest chain of wasm calls.
pub const WASM_MAX_RECURSION_DEPTH: usize = 1024;
/// Largest value stack of an execution, in bytes.
pub const WASM_MAX_VALUE_STACK_BYTES: usize = 1024 * 1024;

/// The keys of a `wasm` job's input map.
const INPUT_KEYS: &[&str] = &["fuel", "input", "module"];
/// The exports of the job ABI.
const MEMORY_EXPORT: &str = "memory";
const ALLOC_EXPORT: &str = "alloc";
const RUN_EXPORT: &str = "run";

/// The executor of `wasm` jobs.
#[derive(Debug)]
pub(crate) struct WasmExecutor {
    config: Config,
    max_fuel: u64,
    max_output_bytes: usize,
}

/// A decoded job, owned so that it can move to the blocking pool.
struct Job {
    module: Vec<u8>,
    input: Vec<u8>,
    fuel: u64,
}

impl WasmExecutor {
    /// An executor that grants jobs at most `max_fuel` and returns at most `max_output_bytes`.
    pub(crate) fn new(max_fuel: u64, max_output_bytes: usize) -> Self {
        WasmExecutor { config: engine_config(), max_fuel, max_output_bytes }
    }

    /// Runs one job whose input is the canonical CBOR map `{"fuel", "input", "module"}`; with
    /// `secrets` (not empty), the module's input is the canonical map `{"input": the job's
    /// input, "secrets": {name: value}}` instead (see the crate documentation).
    pub(crate) async fn run(&self, job_input: &[u8], secrets: &Secrets) -> Result<Vec<u8>, ExecutorError> {
        let mut job = self.decode(job_input)?;
        if !secrets.is_empty() {
            let opened = secrets.iter().fold(ArgsBuilder::new(), |map, (name, value)| map.bytes(name, value));
            job.input = ArgsBuilder::new().bytes("input", &job.input).map("secrets", opened).encode();
        }
        let config = self.config.clone();
        let max_output_bytes = self.max_output_bytes;
        tokio::task::spawn_blocking(move || execute(&config, &job, max_output_bytes))
            .await
            // A panic or a runtime shutting down is this runner's trouble, not the job's.
            .map_err(|_| ExecutorError::Transient("the wasm job's task did not complete".into()))?
    }

    fn decode(&self, job_input: &[u8]) -> Result<Job, ExecutorError> {
        let args = Args::decode(job_input).map_err(bad_input)?;
        args.only(INPUT_KEYS).map_err(bad_input)?;
        let module = args.bytes("module").map_err(bad_input)?;
        let input = args.bytes("input").map_err(bad_input)?;
        let fuel = args.uint("fuel").map_err(bad_input)?;
        if fuel > self.max_fuel {
            return Err(deterministic(format!("fuel {fuel} above this runner's maximum of {}", self.max_fuel)));
        }
        if module.len() > WASM_MAX_MODULE_BYTES {
            return Err(deterministic(format!(
                "module of {} bytes, above the limit of {WASM_MAX_MODULE_BYTES}",
                module.len()
            )));
        }
        Ok(Job { module: module.to_vec(), input: input.to_vec(), fuel })
    }
}

/// The engine configuration every job's module is compiled and run with.
fn engine_config() -> Config {
    let mut config = Config::default();
    config
        .consume_fuel(true)
        .compilation_mode(CompilationMode::Eager)
        .floats(false)
        .wasm_multi_memory(false)
        .wasm_memory64(false)
        .wasm_custom_page_sizes(false)
        .wasm_wide_arithmetic(false)
        .ignore_custom_sections(true)
        .set_max_recursion_depth(WASM_MAX_RECURSION_DEPTH)
        .set_max_stack_height(WASM_MAX_VALUE_STACK_BYTES);
    config
}

fn store_limits() -> StoreLimits {
    StoreLimitsBuilder::new()
        .memory_size(WASM_MAX_MEMORY_BYTES)
        .table_elements(WASM_MAX_TABLE_ELEMENTS)
        .instances(1)
        .memories(1)
        .trap_on_grow_failure(true)
        .build()
}

/// Compiles, instantiates and runs `job` (on the blocking pool).
fn execute(config: &Config, job: &Job, max_output_bytes: usize) -> Result<Vec<u8>, ExecutorError> {
    let engine = Engine::new(config);
    let module = Module::new(&engine, &job.module).map_err(|_| {
        deterministic("invalid wasm module: not valid WebAssembly, or it uses floats or another disabled feature")
    })?;
    let imports = module.imports().len();
    if imports > 0 {
        return Err(deterministic(format!("the module has imports ({imports}); a wasm job may import nothing")));
    }
    let mut store = Store::new(&engine, store_limits());
    store.limiter(|limits| limits);
    // Fails only when the engine does not meter fuel, which `engine_config` rules out.
    store.set_fuel(job.fuel).map_err(|_| ExecutorError::Transient("fuel metering is off".into()))?;
    let instance = Linker::<StoreLimits>::new(&engine)
        .instantiate_and_start(&mut store, &module)
        .map_err(|e| stopped(&e, "instantiation"))?;
    let memory = instance
        .get_memory(&store, MEMORY_EXPORT)
        .ok_or_else(|| deterministic(format!("the module exports no memory named {MEMORY_EXPORT:?}")))?;
    let alloc = instance
        .get_typed_func::<i32, i32>(&store, ALLOC_EXPORT)
        .map_err(|_| deterministic(format!("the module exports no function {ALLOC_EXPORT}(i32) -> i32")))?;
    let run = instance
        .get_typed_func::<(i32, i32), i64>(&store, RUN_EXPORT)
        .map_err(|_| deterministic(format!("the module exports no function {RUN_EXPORT}(i32, i32) -> i64")))?;

    let input_len = i32::try_from(job.input.len())
        .map_err(|_| deterministic(format!("input of {} bytes does not fit an i32 length", job.input.len())))?;
    let input_ptr = alloc.call(&mut store, input_len).map_err(|e| stopped(&e, ALLOC_EXPORT))?;
    // Offsets are the module's own unsigned 32-bit addresses.
    let input_offset = input_ptr as u32;
    memory.write(&mut store, input_offset as usize, &job.input).map_err(|_| {
        deterministic(format!(
            "alloc returned offset {input_offset}, where {} bytes do not fit in memory",
            job.input.len()
        ))
    })?;
    let ret = run.call(&mut store, (input_ptr, input_len)).map_err(|e| stopped(&e, RUN_EXPORT))?;

    let ret = ret as u64;
    let output_offset = (ret >> 32) as u32;
    let output_len = (ret & 0xffff_ffff) as u32 as usize;
    if output_len > max_output_bytes {
        return Err(ExecutorError::output_too_large(output_len, max_output_bytes));
    }
    let mut output = vec![0; output_len];
    memory.read(&store, output_offset as usize, &mut output).map_err(|_| {
        deterministic(format!("run returned offset {output_offset} and length {output_len}, outside memory"))
    })?;
    Ok(output)
}

/// Why an execution (`instantiation`, which runs the start function, `alloc` or `run`, named by
/// `during`) stopped.
fn stopped(e: &Error, during: &str) -> ExecutorError {
    let limit_reached = || {
        deterministic(format!(
            "memory or a table grown past its limit ({WASM_MAX_MEMORY_BYTES} bytes of memory, \
             {WASM_MAX_TABLE_ELEMENTS} table elements)"
        ))
    };
    // A memory or table whose initial size is already too large fails at instantiation with
    // the limiter's refusal rather than a trap. The host running out of memory is this runner's
    // trouble: another runner may well have the memory.
    match e.kind() {
        ErrorKind::Memory(MemoryError::OutOfSystemMemory)
        | ErrorKind::Table(TableError::OutOfSystemMemory)
        | ErrorKind::Instantiation(InstantiationError::FailedToInstantiateMemory(MemoryError::OutOfSystemMemory))
        | ErrorKind::Instantiation(InstantiationError::FailedToInstantiateTable(TableError::OutOfSystemMemory)) => {
            return ExecutorError::Transient("this runner is out of memory".into());
        }
        ErrorKind::Memory(MemoryError::ResourceLimiterDeniedAllocation)
        | ErrorKind::Table(TableError::ResourceLimiterDeniedAllocation)
        | ErrorKind::Instantiation(
            InstantiationError::FailedToInstantiateMemory(MemoryError::ResourceLimiterDeniedAllocation)
            | InstantiationError::FailedToInstantiateTable(TableError::ResourceLimiterDeniedAllocation),
        ) => return limit_reached(),
        _ => {}
    }
    let Some(code) = e.as_trap_code() else {
        // Without imports nothing but a trap or a limit can stop a module; should wasmi report
        // something else, it still depends only on the module, and its text is kept out.
        return deterministic(format!("{during} failed"));
    };
    let trap = match code {
        TrapCode::OutOfFuel => return deterministic("out of fuel"),
        TrapCode::GrowthOperationLimited => return limit_reached(),
        TrapCode::StackOverflow => {
            return deterministic(format!(
                "stack exhausted (limits: {WASM_MAX_RECURSION_DEPTH} frames, \
                 {WASM_MAX_VALUE_STACK_BYTES} bytes of value stack)"
            ));
        }
        TrapCode::UnreachableCodeReached => "unreachable executed",
        TrapCode::MemoryOutOfBounds => "out of bounds memory access",
        TrapCode::TableOutOfBounds => "out of bounds table access",
        TrapCode::IndirectCallToNull => "indirect call to a null table element",
        TrapCode::IntegerDivisionByZero => "integer division by zero",
        TrapCode::IntegerOverflow => "integer overflow",
        TrapCode::BadConversionToInteger => "invalid conversion to integer",
        TrapCode::BadSignature => "indirect call type mismatch",
    };
    deterministic(format!("{during} trapped: {trap}"))
}

/// A job input that is not the map this executor takes.
fn bad_input(e: ArgsError) -> ExecutorError {
    deterministic(match e {
        // The CBOR decoder's own words name library internals; the shape is what matters.
        ArgsError::Encoding(_) => "input is not a canonical CBOR map with text keys".to_owned(),
        ArgsError::Unknown { key, .. } => {
            format!("input has an unknown key {}; a wasm job takes {}", quoted(&key), INPUT_KEYS.join(", "))
        }
        e @ (ArgsError::Missing(_) | ArgsError::Invalid { .. }) => format!("input: {e}"),
    })
}

fn deterministic(text: impl Into<String>) -> ExecutorError {
    ExecutorError::Deterministic(text.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX_FUEL: u64 = 10_000_000;
    const MAX_OUTPUT_BYTES: usize = 1024;

    /// A module whose `run` returns its input reversed, in a fresh buffer after it.
    const REVERSE: &str = r#"
        (module
          (memory (export "memory") 1)
          (global $next (mut i32) (i32.const 1024))
          (func $alloc (export "alloc") (param $len i32) (result i32)
            (local $p i32)
            (local.set $p (global.get $next))
            (global.set $next (i32.add (global.get $next) (local.get $len)))
            (local.get $p))
          (func (export "run") (param $ptr i32) (param $len i32) (result i64)
            (local $out i32) (local $i i32)
            (local.set $out (call $alloc (local.get $len)))
            (block $done
              (loop $next
                (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
                (i32.store8
                  (i32.add (local.get $out) (local.get $i))
                  (i32.load8_u
                    (i32.add (local.get $ptr)
                      (i32.sub (i32.sub (local.get $len) (local.get $i)) (i32.const 1)))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $next)))
            (i64.or
              (i64.shl (i64.extend_i32_u (local.get $out)) (i64.const 32))
              (i64.extend_i32_u (local.get $len)))))
    "#;

    /// A module with the job ABI whose `run` body is `body` (locals `$ptr`, `$len`).
    fn with_run(body: &str) -> Vec<u8> {
        wat(&format!(
            r#"(module
                 (memory (export "memory") 1)
                 (func (export "alloc") (param i32) (result i32) (i32.const 1024))
                 (func (export "run") (param $ptr i32) (param $len i32) (result i64) {body}))"#
        ))
    }

    fn wat(text: &str) -> Vec<u8> {
        wat::parse_str(text).expect("test module parses")
    }

    fn job(module: &[u8], input: &[u8], fuel: u64) -> Vec<u8> {
        ArgsBuilder::new().bytes("module", module).bytes("input", input).uint("fuel", fuel).encode()
    }

    async fn run(job_input: &[u8]) -> Result<Vec<u8>, ExecutorError> {
        WasmExecutor::new(MAX_FUEL, MAX_OUTPUT_BYTES).run(job_input, &Secrets::new()).await
    }

    fn failure(text: &str) -> Result<Vec<u8>, ExecutorError> {
        Err(ExecutorError::Deterministic(text.into()))
    }

    #[tokio::test]
    async fn runs_a_module_on_its_input() {
        let module = wat(REVERSE);
        assert_eq!(run(&job(&module, b"drover", 100_000)).await.unwrap(), b"revord");
        assert_eq!(run(&job(&module, b"", 100_000)).await.unwrap(), b"");
    }

    #[tokio::test]
    async fn two_runs_give_identical_bytes() {
        let module = wat(REVERSE);
        let input: Vec<u8> = (0..=255).collect();
        let first = run(&job(&module, &input, 100_000)).await.unwrap();
        assert_eq!(first, run(&job(&module, &input, 100_000)).await.unwrap());
        // Failures too: the posted bytes are the same on every run.
        let spin = with_run("(loop $l (br $l)) (i64.const 0)");
        let a = run(&job(&spin, b"", 5_000)).await.unwrap_err().result_bytes().unwrap();
        let b = run(&job(&spin, b"", 5_000)).await.unwrap_err().result_bytes().unwrap();
        assert_eq!(a, b);
    }

    #[tokio::test]
    async fn runs_out_of_fuel() {
        let spin = with_run("(loop $l (br $l)) (i64.const 0)");
        assert_eq!(run(&job(&spin, b"x", 50_000)).await, failure("out of fuel"));
        // The budget covers `alloc` too: none at all stops before `run`.
        assert_eq!(run(&job(&wat(REVERSE), b"x", 0)).await, failure("out of fuel"));
    }

    #[tokio::test]
    async fn refuses_fuel_above_the_runner_maximum() {
        assert_eq!(
            run(&job(&wat(REVERSE), b"x", MAX_FUEL + 1)).await,
            failure("fuel 10000001 above this runner's maximum of 10000000")
        );
    }

    #[tokio::test]
    async fn reports_traps_in_its_own_words() {
        let div = with_run("(i64.extend_i32_u (i32.div_u (i32.const 1) (i32.const 0)))");
        assert_eq!(run(&job(&div, b"", 1_000)).await, failure("run trapped: integer division by zero"));
        let unreachable = with_run("unreachable");
        assert_eq!(run(&job(&unreachable, b"", 1_000)).await, failure("run trapped: unreachable executed"));
        let start = wat(r#"(module (memory (export "memory") 1) (func $s unreachable) (start $s)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.const 0)))"#);
        assert_eq!(run(&job(&start, b"", 1_000)).await, failure("instantiation trapped: unreachable executed"));
        let recurse = wat(r#"(module (memory (export "memory") 1)
                 (func $f (call $f))
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (call $f) (i64.const 0)))"#);
        assert_eq!(
            run(&job(&recurse, b"", MAX_FUEL)).await,
            failure("stack exhausted (limits: 1024 frames, 1048576 bytes of value stack)")
        );
    }

    #[tokio::test]
    async fn refuses_a_module_with_an_import() {
        let module = wat(r#"(module (import "env" "clock" (func))
                 (memory (export "memory") 1)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.const 0)))"#);
        assert_eq!(
            run(&job(&module, b"", 1_000)).await,
            failure("the module has imports (1); a wasm job may import nothing")
        );
    }

    #[tokio::test]
    async fn checks_the_output_against_memory_and_the_limit() {
        // Offset 65535, 2 bytes: one byte past the single page.
        let past_end = with_run("(i64.const 0x0000_ffff_0000_0002)");
        assert_eq!(
            run(&job(&past_end, b"", 1_000)).await,
            failure("run returned offset 65535 and length 2, outside memory")
        );
        let high = with_run("(i64.const -1)");
        assert_eq!(run(&job(&high, b"", 1_000)).await, failure("output of 4294967295 bytes, above the limit of 1024"));
        let large = with_run("(i64.const 1025)");
        assert_eq!(run(&job(&large, b"", 1_000)).await, failure("output of 1025 bytes, above the limit of 1024"));
        let whole = with_run("(i64.const 1024)");
        assert_eq!(run(&job(&whole, b"", 1_000)).await.unwrap(), vec![0; 1024]);
    }

    #[tokio::test]
    async fn checks_the_input_buffer_alloc_returns() {
        let module = wat(r#"(module (memory (export "memory") 1)
                 (func (export "alloc") (param i32) (result i32) (i32.const -1))
                 (func (export "run") (param i32 i32) (result i64) (i64.const 0)))"#);
        assert_eq!(
            run(&job(&module, b"ab", 1_000)).await,
            failure("alloc returned offset 4294967295, where 2 bytes do not fit in memory")
        );
    }

    #[tokio::test]
    async fn refuses_malformed_job_inputs() {
        let module = wat(REVERSE);
        let not_cbor = failure("input is not a canonical CBOR map with text keys");
        assert_eq!(run(b"\xff\x00garbage").await, not_cbor);
        assert_eq!(run(&[]).await, not_cbor);
        // A map, but not canonical: keys out of order.
        assert_eq!(run(&[0xa2, 0x61, b'b', 0x01, 0x61, b'a', 0x02]).await, not_cbor);
        let missing = ArgsBuilder::new().bytes("module", &module).uint("fuel", 1).encode();
        assert_eq!(run(&missing).await, failure("input: argument \"input\" is missing"));
        let wrong = ArgsBuilder::new().bytes("module", &module).bytes("input", b"").text("fuel", "lots").encode();
        assert_eq!(run(&wrong).await, failure("input: argument \"fuel\" must be an unsigned integer below 2^64"));
        let extra = ArgsBuilder::new()
            .bytes("module", &module)
            .bytes("input", b"")
            .uint("fuel", 1)
            .text("entry", "main")
            .encode();
        assert_eq!(
            run(&extra).await,
            failure("input has an unknown key \"entry\"; a wasm job takes fuel, input, module")
        );
    }

    #[tokio::test]
    async fn refuses_invalid_modules_floats_and_simd() {
        let invalid =
            failure("invalid wasm module: not valid WebAssembly, or it uses floats or another disabled feature");
        assert_eq!(run(&job(b"\0asm\x01\0\0\0garbage", b"", 1_000)).await, invalid);
        let floats = with_run("(i64.reinterpret_f64 (f64.add (f64.const 1) (f64.const 2)))");
        assert_eq!(run(&job(&floats, b"", 1_000)).await, invalid);
        let simd = with_run("(i64x2.extract_lane 0 (v128.const i64x2 1 2))");
        assert_eq!(run(&job(&simd, b"", 1_000)).await, invalid);
        let too_large = vec![0; WASM_MAX_MODULE_BYTES + 1];
        assert_eq!(
            run(&job(&too_large, b"", 1_000)).await,
            failure("module of 262145 bytes, above the limit of 262144")
        );
    }

    #[tokio::test]
    async fn refuses_missing_exports() {
        let no_run = wat(r#"(module (memory (export "memory") 1)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0)))"#);
        assert_eq!(
            run(&job(&no_run, b"", 1_000)).await,
            failure("the module exports no function run(i32, i32) -> i64")
        );
        let bad_alloc = wat(r#"(module (memory (export "memory") 1)
                 (func (export "alloc") (param i64) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.const 0)))"#);
        assert_eq!(
            run(&job(&bad_alloc, b"", 1_000)).await,
            failure("the module exports no function alloc(i32) -> i32")
        );
        let no_memory = wat(r#"(module (memory 1)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.const 0)))"#);
        assert_eq!(run(&job(&no_memory, b"", 1_000)).await, failure("the module exports no memory named \"memory\""));
    }

    #[tokio::test]
    async fn bounds_memory() {
        let limit = failure("memory or a table grown past its limit (16777216 bytes of memory, 4096 table elements)");
        let initial = wat(r#"(module (memory (export "memory") 257)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.const 0)))"#);
        assert_eq!(run(&job(&initial, b"", 1_000)).await, limit);
        let grow = with_run("(drop (memory.grow (i32.const 256))) (i64.const 0)");
        assert_eq!(run(&job(&grow, b"", 1_000)).await, limit);
        let declared = wat(r#"(module (memory (export "memory") 1 2)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64)
                   (i64.extend_i32_s (memory.grow (i32.const 2)))))"#);
        // Past its own declared maximum, a memory does not grow and `memory.grow` answers -1, as
        // the WebAssembly spec says: the length -1 makes as a result is far over the limit.
        assert_eq!(
            run(&job(&declared, b"", 1_000)).await,
            failure("output of 4294967295 bytes, above the limit of 1024")
        );
        let table = wat(r#"(module (memory (export "memory") 1) (table 4097 funcref)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.const 0)))"#);
        assert_eq!(run(&job(&table, b"", 1_000)).await, limit);
        // Up to the limit is fine.
        let to_limit =
            with_run("(if (i32.eq (memory.grow (i32.const 255)) (i32.const -1)) (then unreachable)) (i64.const 0)");
        assert_eq!(run(&job(&to_limit, b"", MAX_FUEL)).await.unwrap(), b"");
    }
}
