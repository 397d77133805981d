//! Execution time of full blocks: `cargo bench -p drover-execution`.
//!
//! Blocks of plain transfers and of token transfers from 1,000 senders to fresh recipients,
//! executed over an in-memory state (no database: this is the executor's own cost per
//! transaction, the part a transaction's cycles price besides admission and commit). The ratio
//! of the two is what the tokens' per-operation cycles are set against (`docs/tokens.md`).
//!
//! Figures go to `docs/performance.md`; nothing here asserts a time.

use drover_execution::{BlockEnv, FeeParams, Vm, execute_block, genesis_writes};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, H256, Transaction, VerifiedTransaction, keccak256,
    params::{TRANSFER_CYCLES, system_call_limits},
    token::{NewToken, TOKENS_ADDRESS, TokenCall, token_id},
};
use std::{collections::BTreeMap, time::Instant};

const SENDERS: u8 = 200;
const PER_SENDER: u64 = 5;
const RUNS: u32 = 20;

type State = BTreeMap<Vec<u8>, Vec<u8>>;

fn sender(n: u8) -> Address {
    Address([n; 20])
}

fn fresh(n: u64) -> Address {
    let mut bytes = [0xbe; 20];
    bytes[12..].copy_from_slice(&n.to_be_bytes());
    Address(bytes)
}

fn tx(from: Address, nonce: u64, to: Address, payload: Vec<u8>, cycles: u64, cells: u64) -> VerifiedTransaction {
    let tx = Transaction {
        chain_id: 1,
        nonce,
        to: Some(to),
        value: if payload.is_empty() { 1 } else { 0 },
        cycles_limit: cycles,
        cells_limit: cells,
        max_fee_per_cycle: 10,
        max_fee_per_cell: 10,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload,
        signature: None,
    };
    let hash = keccak256(&[&from.0[..], &nonce.to_be_bytes()].concat());
    VerifiedTransaction { tx, hash, sender: from, encoded: Vec::new() }
}

fn token_tx(from: Address, nonce: u64, call: &TokenCall) -> VerifiedTransaction {
    let payload = call.message().encode();
    let (cycles, cells) = system_call_limits(payload.len(), call.cost());
    tx(from, nonce, TOKENS_ADDRESS, payload, cycles, cells)
}

fn apply(state: &mut State, writes: drover_execution::Writes) {
    for (key, value) in writes {
        match value {
            Some(value) => state.insert(key, value),
            None => state.remove(&key),
        };
    }
}

/// Microseconds per transaction of the best of [`RUNS`] executions of `txs` on `state`.
fn time(vm: &Vm, env: &BlockEnv, state: &State, txs: &[VerifiedTransaction]) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        let start = Instant::now();
        let outcome = execute_block(vm, env, &FeeParams::default(), state, txs).expect("complete state");
        best = best.min(start.elapsed().as_secs_f64());
        assert!(outcome.receipts.iter().all(|r| r.error.is_none()), "{:?}", outcome.receipts[0].error);
    }
    best * 1e6 / txs.len() as f64
}

fn main() {
    let vm = Vm::new();
    let env = BlockEnv { chain_id: 1, height: 2, timestamp_ms: 0, proposer: Address([0x99; 20]), parent: H256::ZERO };
    let balances: Vec<_> = (1..=SENDERS).map(|n| (sender(n), 1u128 << 100)).collect();
    let mut state = State::new();
    apply(
        &mut state,
        genesis_writes(&balances, &FeeParams::default(), &FeeParams::default().genesis_chain_params())
            .expect("genesis"),
    );

    // One token, given to every sender.
    let creator = sender(1);
    let new = NewToken {
        name: "Bench".into(),
        symbol: "BENCH".into(),
        decimals: 0,
        initial_supply: 1 << 100,
        max_supply: None,
        mintable: false,
    };
    let token = token_id(&creator, "BENCH");
    let mut setup = vec![token_tx(creator, 0, &TokenCall::Create(new))];
    setup.extend(
        (2..=SENDERS)
            .zip(1..)
            .map(|(n, nonce)| token_tx(creator, nonce, &TokenCall::Transfer { token, to: sender(n), amount: 1 << 40 })),
    );
    let outcome = execute_block(&vm, &env, &FeeParams::default(), &state, &setup).expect("setup");
    apply(&mut state, outcome.writes);
    let first_nonce = |n: u8| if n == 1 { u64::from(SENDERS) } else { 0 };

    let mut plain = Vec::new();
    let mut tokens = Vec::new();
    for round in 0..PER_SENDER {
        for n in 1..=SENDERS {
            let nonce = first_nonce(n) + round;
            let index = round * u64::from(SENDERS) + u64::from(n);
            plain.push(tx(sender(n), nonce, fresh(index), Vec::new(), TRANSFER_CYCLES, 0));
            tokens.push(token_tx(sender(n), nonce, &TokenCall::Transfer { token, to: fresh(index), amount: 1 }));
        }
    }
    let plain_us = time(&vm, &env, &state, &plain);
    let token_us = time(&vm, &env, &state, &tokens);
    println!("block of {} transfers to fresh recipients, best of {RUNS}:", plain.len());
    println!("  plain transfers: {plain_us:>6.2} µs each ({} cycles)", plain[0].tx.cycles_limit);
    println!("  token transfers: {token_us:>6.2} µs each ({} cycles)", tokens[0].tx.cycles_limit);
    println!("  ratio (time):    {:>6.2}", token_us / plain_us);
    println!("  ratio (cycles):  {:>6.2}", tokens[0].tx.cycles_limit as f64 / plain[0].tx.cycles_limit as f64);
}
