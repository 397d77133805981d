//! Worst-case time of every host function and system-actor call, against its price:
//! `cargo bench -p drover-execution --bench costs`.
//!
//! The cases are the cost audit's (`src/audit/cases.rs`, included here): each host function at
//! its most expensive through the audit actor, each system-actor call on the state that makes it
//! worst. Each measured block is executed over an in-memory state on a VM that has compiled
//! nothing (so code loads are timed as a cache miss), best of [`RUNS`], less the time of an
//! empty block at the same height, divided by the operations it holds. Its price is the cycles
//! they used; the table sets the time against the time the VM takes to run as many cycles of
//! plain wasm (measured first, on the same machine). The state lookups a node's database adds
//! (1–5 µs each on a warm cache, `docs/performance.md`) are counted and listed, not timed.
//!
//! Figures go to `docs/actors.md` ("Metering"); nothing here asserts a time.

#[path = "../src/audit/cases.rs"]
#[macro_use]
#[allow(dead_code, reason = "what a case must at least do is the audit's to check")]
mod cases;

use cases::{ALICE, BOB, Driver, Least};
use drover_execution::{
    BlockEnv, BlockOutcome, Entry, FeeParams, NextKeyQuery, ReadFault, StateRead, Vm, execute_block, genesis_writes,
};
use drover_types::{Address, Transaction, TxStatus, VerifiedTransaction, chain_params::ChainParams, keccak256};
use std::{cell::Cell, collections::BTreeMap, sync::OnceLock, time::Instant};

/// Executions of each measured block; the best counts.
const RUNS: usize = 5;
/// What the two accounts hold at genesis.
const RICH: u128 = 1_000_000_000_000_000;

type State = BTreeMap<Vec<u8>, Vec<u8>>;

/// Cycles of plain wasm the VM runs per second on this machine.
static CYCLES_PER_SECOND: OnceLock<f64> = OnceLock::new();

/// The in-memory state, counting lookups.
struct Counting<'a>(&'a State, Cell<u64>);

impl StateRead for Counting<'_> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
        self.1.set(self.1.get() + 1);
        StateRead::get(self.0, key)
    }

    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, ReadFault> {
        self.1.set(self.1.get() + 1);
        StateRead::next_entry(self.0, query)
    }
}

/// The benchmark's driver: setup blocks applied, measured blocks timed, then applied.
struct Timer {
    vm: Vm,
    state: State,
    height: u64,
    nonces: BTreeMap<Address, u64>,
}

impl Timer {
    fn env(&self) -> BlockEnv {
        BlockEnv {
            chain_id: 1,
            height: self.height,
            timestamp_ms: self.height * 1_000,
            proposer: Address([0x99; 20]),
            parent: keccak256(&self.height.to_be_bytes()),
        }
    }

    fn apply(&mut self, outcome: BlockOutcome) {
        for (key, value) in outcome.writes {
            match value {
                Some(value) => self.state.insert(key, value),
                None => self.state.remove(&key),
            };
        }
        self.height += 1;
    }

    /// The best time of [`RUNS`] executions of `txs`, each on a VM that has compiled nothing,
    /// with the outcome and the lookups made.
    fn time(&self, txs: &[VerifiedTransaction]) -> (f64, BlockOutcome, u64) {
        let env = self.env();
        let mut best = (f64::MAX, None, 0);
        for _ in 0..RUNS {
            let vm = Vm::new();
            let reader = Counting(&self.state, Cell::new(0));
            let start = Instant::now();
            let outcome = execute_block(&vm, &env, &FeeParams::default(), &reader, txs).expect("complete state");
            let elapsed = start.elapsed().as_secs_f64();
            if elapsed < best.0 {
                best = (elapsed, Some(outcome), reader.1.get());
            }
        }
        (best.0, best.1.expect("a run"), best.2)
    }
}

impl Driver for Timer {
    fn start(params: ChainParams) -> Self {
        let mut timer = Timer { vm: Vm::new(), state: State::new(), height: 1, nonces: BTreeMap::new() };
        let params = cases::roomy(params);
        let fees = FeeParams {
            target_cycles: params.target_cycles,
            target_cells: params.target_cells,
            ..FeeParams::default()
        };
        let writes = genesis_writes(&[(ALICE, RICH), (BOB, RICH)], &fees, &params).expect("genesis");
        for (key, value) in writes {
            if let Some(value) = value {
                timer.state.insert(key, value);
            }
        }
        timer
    }

    fn height(&self) -> u64 {
        self.height
    }

    fn tx(&mut self, sender: Address, to: Option<Address>, payload: Vec<u8>, value: u128) -> VerifiedTransaction {
        let nonce = self.nonces.entry(sender).or_default();
        let tx = Transaction {
            chain_id: 1,
            nonce: *nonce,
            to,
            value,
            cycles_limit: 15_000_000,
            cells_limit: 400_000,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 10,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload,
            signature: None,
        };
        *nonce += 1;
        let hash = keccak256(&[&sender.0[..], &tx.nonce.to_be_bytes()].concat());
        VerifiedTransaction { tx, hash, sender, encoded: Vec::new() }
    }

    fn setup(&mut self, txs: &[VerifiedTransaction]) {
        let outcome =
            execute_block(&self.vm, &self.env(), &FeeParams::default(), &self.state, txs).expect("complete state");
        for receipt in &outcome.receipts {
            assert_eq!(receipt.status, TxStatus::Success, "setup: {:?}", receipt.error);
        }
        self.apply(outcome);
    }

    fn measure(&mut self, what: &str, txs: &[VerifiedTransaction], ops: u64, status: TxStatus, _: Least) {
        let (empty, _, empty_lookups) = self.time(&[]);
        let (full, outcome, lookups) = self.time(txs);
        for receipt in &outcome.receipts {
            assert_eq!(receipt.status, status, "{what}: {:?}", receipt.error);
        }
        let ops = ops as f64;
        let cycles: u64 = outcome.receipts.iter().map(|receipt| receipt.cycles_used).sum();
        let cycles_per_op = cycles as f64 / ops;
        let micros = (full - empty).max(0.0) * 1e6 / ops;
        let priced = cycles_per_op / CYCLES_PER_SECOND.get().expect("measured first") * 1e6;
        let lookups = lookups.saturating_sub(empty_lookups) as f64 / ops;
        println!("| {what} | {cycles_per_op:.0} | {micros:.2} | {priced:.2} | {:.2} | {lookups:.1} |", micros / priced);
        self.apply(outcome);
    }
}

/// Cycles per second of a bare wasm loop (`actors/infinite_loop.wat`) run to its budget.
fn compute_rate() -> f64 {
    let mut timer = Timer::start(ChainParams::default());
    let code = wat::parse_file(concat!(env!("CARGO_MANIFEST_DIR"), "/../../actors/infinite_loop.wat")).expect("wat");
    let spinner = timer.deploy(code, &[], 0);
    let message = drover_types::payload::Message { handler: "spin".into(), payload: Vec::new() };
    let tx = timer.message(ALICE, spinner, message, 0);
    let (seconds, outcome, _) = timer.time(&[tx]);
    outcome.receipts[0].cycles_used as f64 / seconds
}

fn main() {
    let rate = *CYCLES_PER_SECOND.get_or_init(compute_rate);
    println!("plain wasm: {:.0} million cycles/s; each row the best of {RUNS} runs on a cold VM\n", rate / 1e6);
    let all = cases::all::<Timer>();
    for (family, mut names) in cases::required() {
        names.sort_unstable();
        assert_eq!(cases::covered(&all, family), names, "the cases cover every {family} call");
        println!("\n{family}\n");
        println!("| case | cycles per op | µs per op | µs its cycles buy | time / price | lookups per op |");
        println!("| --- | ---: | ---: | ---: | ---: | ---: |");
        for (_, _, run) in all.iter().filter(|case| case.0 == family) {
            run();
        }
    }
}
