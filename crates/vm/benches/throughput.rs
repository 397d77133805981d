//! Raw VM throughput: `cargo bench -p drover-vm --features testing`.
//!
//! - **compute**: the `spin` handler of `actors/infinite_loop.wat` (a bare loop, no host calls)
//!   run until a large cycles budget is exhausted: cycles metered per second of wall time, the
//!   ceiling of compute-bound actor work;
//! - **counter**: `increment` of `actors/counter.wat` through the in-memory `MockHost`
//!   (instantiation, a storage read and write, the result; journaling included): calls per second
//!   and cycles per second.
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
}
