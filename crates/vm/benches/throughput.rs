//! Raw VM throughput: `cargo bench -p drover-vm --features testing`.
//!
//! - **compute**: the `spin` handler of `actors/infinite_loop.wat` (a bare loop, no host calls)
//!   run until a large cycles budget is exhausted: cycles metered per second of wall time, the
//!   ceiling of compute-bound actor work;
//! - **counter**: `increment` of `actors/counter.wat` through the in-memory `MockHost`
//!   (instantiation, a storage read and write, the result; journaling included): calls per second
//!   and cycles per second;
//! - **compile**: validating and compiling (eagerly, as deploys and cache misses do) modules of
//!   dense straight-line code near the code size limits, uncached: microseconds per module and
//!   nanoseconds per code byte, what a call that misses the module cache costs the node.
//!
//! Figures go to `docs/performance.md`; nothing here asserts a time.

use drover_types::Address;
use drover_vm::{Entitlement, Entitlements, MockHost, Vm};
use std::{sync::Arc, time::Instant};

/// Cycles the compute run burns per repetition.
const SPIN_CYCLES: u64 = 2_000_000_000;
const SPIN_RUNS: u32 = 5;
const COUNTER_CALLS: u32 = 100_000;

fn actor(name: &str) -> Vec<u8> {
    wat::parse_file(format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"))).expect("example actor compiles")
}

fn main() {
    let vm = Arc::new(Vm::new());
    let mut host = MockHost::new(vm);

    let spinner = Address([1; 20]);
    host.deploy(spinner, &actor("infinite_loop"), Entitlements::NONE).expect("deploys");
    let mut best = 0f64;
    for _ in 0..SPIN_RUNS {
        let mut request = host.request(spinner, "spin", &[]);
        request.cycles_limit = SPIN_CYCLES;
        let start = Instant::now();
        let outcome = host.run(request);
        let rate = outcome.cycles_used as f64 / start.elapsed().as_secs_f64();
        assert_eq!(outcome.cycles_used, SPIN_CYCLES, "the loop uses its whole budget");
        best = best.max(rate);
    }
    println!(
        "compute (bare loop): {:.0} million cycles/s (best of {SPIN_RUNS} runs of {SPIN_CYCLES} cycles)",
        best / 1e6
    );

    let counter = Address([2; 20]);
    host.deploy(counter, &actor("counter"), Entitlements::NONE.with(Entitlement::StorageKv)).expect("deploys");
    let start = Instant::now();
    let mut cycles = 0u64;
    for _ in 0..COUNTER_CALLS {
        let outcome = host.call_actor(counter, "increment", &[]);
        assert!(outcome.is_success(), "{outcome:?}");
        cycles += outcome.cycles_used;
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "counter increment (MockHost): {:.0} calls/s, {:.1} µs per call, {:.0} million cycles/s, {} cycles per call",
        f64::from(COUNTER_CALLS) / elapsed,
        elapsed * 1e6 / f64::from(COUNTER_CALLS),
        cycles as f64 / elapsed / 1e6,
        cycles / u64::from(COUNTER_CALLS)
    );

    for target_bytes in [64 * 1024, 256 * 1024, 1024 * 1024] {
        let mut best = f64::MAX;
        let mut size = 0;
        for run in 0..COMPILE_RUNS {
            // A distinct constant per run: a distinct hash, so the cache never answers.
            let code = dense_module(target_bytes, run);
            size = code.len();
            let vm = Vm::new();
            let start = Instant::now();
            vm.compile(&code).expect("the dense module compiles");
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "compile ({} KiB module): {:.0} µs, {:.0} ns per code byte (best of {COMPILE_RUNS})",
            size / 1024,
            best * 1e6,
            best * 1e9 / size as f64
        );
    }
}

const COMPILE_RUNS: u64 = 5;

/// A module of about `target_bytes` of straight-line code in 100-byte-ish functions bodies.
fn dense_module(target_bytes: usize, salt: u64) -> Vec<u8> {
    // Each step `local.get 0 i64.const 7 i64.add local.set 0` encodes to 7 bytes.
    let steps_per_function = 2_000;
    let functions = (target_bytes / (7 * steps_per_function)).max(1);
    let body = "(local.set 0 (i64.add (local.get 0) (i64.const 7)))".repeat(steps_per_function);
    let mut text = String::from("(module (memory (export \"memory\") 1)");
    for f in 0..functions {
        text.push_str(&format!("(func (export \"f{f}\") (local i64) (local.set 0 (i64.const {salt})) {body})"));
    }
    text.push(')');
    wat::parse_str(&text).expect("the dense module assembles")
}
