//! Cost audit of the deferred entries: for each kind (timer fire, cancelled timer slot, mailbox
//! delivery, job deadline, job retry, due entry of a job that moved on, and the walk over
//! heights without work), a state built to make it as expensive as it can be, one block's
//! deferred work run over it through a [`Counting`] reader, and the work it did — state lookups
//! and bytes read — checked against what the entries paid: at least the cost audit's
//! [`AUDIT_CYCLES_PER_LOOKUP`] cycles per lookup and one cycle per byte read. The module cache starts empty (a fresh
//! [`Vm`]), so every module is read and compiled as on a validator that never ran it.

use super::TIMER_SLOTS_EXAMINED_PER_FIRE;
use crate::deferred::{SystemRun, SystemRunKind};
use crate::testing::{AUDIT_CYCLES_PER_LOOKUP, Chain, Counting, RICH, inline};
use crate::{BlockOutcome, FeeParams, execute_block};
use drover_state::{encode_count, job::DueEntry, keys};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, TxStatus,
    chain_params::ChainParams,
    job::{Callback, JobCall, JobSpec, MAX_RUNNERS_PER_JOB, SUBMIT_CYCLES, Verification, VerificationMode},
    runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall},
};
use drover_vm::{
    Vm,
    meter::{CYCLES_SEND, CYCLES_TIMER_CANCEL, CYCLES_TIMER_SCHEDULE},
};

/// Runs the chain's next block without transactions through a [`Counting`] reader and a VM
/// with an empty cache; answers the outcome, the lookups and the bytes read.
fn audited_block(chain: &Chain) -> (BlockOutcome, u64, u64) {
    let reader = Counting::new(&chain.state);
    let outcome = execute_block(&Vm::new(), &chain.env(), &FeeParams::default(), &reader, &[]).expect("complete state");
    let reads = reader.reads();
    (outcome, reads.lookups(), reads.bytes)
}

/// Checks that `lookups` and `bytes` were paid by `paid` cycles.
fn assert_paid(what: &str, (lookups, bytes): (u64, u64), paid: u64) {
    assert!(
        lookups * AUDIT_CYCLES_PER_LOOKUP <= paid && bytes <= paid,
        "{what}: {lookups} lookups and {bytes} bytes read for {paid} cycles paid"
    );
}

const ALICE: Address = Address([0xa1; 20]);

/// An actor whose code carries `padding` bytes of `fill` (distinct fills make distinct
/// modules): `noop` does nothing; `send(to ‖ payload)` sends `noop` to `to` with the payload
/// and 1,000,000 cycles; `schedule(height u64 LE)` schedules `noop` with 1,000,000 cycles.
fn padded(padding: usize, fill: u8) -> Vec<u8> {
    inline(&format!(
        r#"(module
  (import "drover" "input_len" (func $input_len (result i32)))
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "send" (func $send (param i32 i32 i32 i32 i32 i32 i64)))
  (import "drover" "timer_schedule" (func $schedule (param i64 i32 i32 i32 i32 i64) (result i64)))
  (memory (export "memory") 3)
  (data (i32.const 0) "noop")
  (data (i32.const 131072) "{}")
  (func (export "noop"))
  (func (export "send")
    (call $input_read (i32.const 4096))
    (call $send (i32.const 4096) (i32.const 0) (i32.const 4) (i32.const 4116)
      (i32.sub (call $input_len) (i32.const 20)) (i32.const 64) (i64.const 1000000)))
  (func (export "schedule")
    (call $input_read (i32.const 4096))
    (drop (call $schedule (i64.load (i32.const 4096)) (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 0)
      (i64.const 1000000)))))"#,
        format!("\\{fill:02x}").repeat(padding)
    ))
}

/// Deploys `count` [`padded`] actors with distinct 32 KiB codes, each funded.
fn distinct_actors(chain: &mut Chain, count: u8) -> Vec<Address> {
    let manifest = ["mailbox.send", "timer.schedule"];
    let mut actors = Vec::new();
    for batch in (0..count).collect::<Vec<_>>().chunks(4) {
        let txs: Vec<_> = batch
            .iter()
            .map(|&i| {
                let (tx, actor) = chain.deploy_tx(ALICE, padded(32 * 1024, i), &manifest, &[i], RICH / 1_000);
                actors.push(actor);
                tx
            })
            .collect();
        assert!(chain.block(&txs).receipts.iter().all(|r| r.status == TxStatus::Success));
    }
    actors
}

fn runs_of(outcome: &BlockOutcome, timers: bool) -> Vec<&SystemRun> {
    outcome.system_runs.iter().filter(|run| matches!(run.kind, SystemRunKind::Timer { .. }) == timers).collect()
}

#[test]
fn a_timer_fire_pays_for_what_it_reads() {
    // Sixteen owners, each with its own large module, fire at one height.
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let owners = distinct_actors(&mut chain, 16);
    let at = chain.height + 2;
    let txs: Vec<_> = owners.iter().map(|o| chain.call_tx(ALICE, *o, "schedule", &at.to_le_bytes(), 0)).collect();
    assert!(chain.block(&txs).receipts.iter().all(|r| r.status == TxStatus::Success));
    chain.block(&[]);
    let (outcome, lookups, bytes) = audited_block(&chain);
    let fired = runs_of(&outcome, true);
    assert!(fired.len() >= 4, "the timers' share holds several: {}", fired.len());
    let paid = fired.iter().map(|run| run.cycles_used + CYCLES_TIMER_SCHEDULE + 4).sum();
    assert_paid("timer fires", (lookups, bytes), paid);
}

#[test]
fn walking_cancelled_timers_pays_for_what_it_reads() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    // 3,000 timers scheduled at this height and cancelled: the records are gone, the count stays.
    chain.state.insert(keys::timer_slot_key(chain.height), encode_count(3_000));
    let (_, lookups, bytes) = audited_block(&chain);
    let examined = TIMER_SLOTS_EXAMINED_PER_FIRE * ChainParams::default().max_timer_fires_per_block;
    assert_paid("cancelled timers", (lookups, bytes), examined * (CYCLES_TIMER_SCHEDULE + CYCLES_TIMER_CANCEL));
}

#[test]
fn a_walk_over_heights_without_work_is_bounded_per_block() {
    // The cursors stopped 100,000 blocks ago (a backlog at one height that took that long), and
    // no height since holds a timer or a due entry: the walk resumes a bounded number of
    // heights per block, as for cancelled slots.
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    chain.height = 100_001;
    let behind = drover_state::TimerCursor { height: 1, seq: 0 };
    chain.state.insert(keys::timer_cursor_key(), behind.encode());
    let due = drover_state::job::DueCursor { height: 1, seq: 0 };
    chain.state.insert(drover_state::job::state_key(&drover_state::job::due_cursor_key()), due.encode());
    let (_, lookups, _) = audited_block(&chain);
    let examined = TIMER_SLOTS_EXAMINED_PER_FIRE * ChainParams::default().max_timer_fires_per_block
        + crate::jobs::deferred::MAX_DUE_ENTRIES_PER_BLOCK as u64;
    assert!(lookups <= examined + 16, "{lookups} lookups");
}

#[test]
fn a_delivery_pays_for_what_it_reads() {
    // Sixteen messages of 16 KiB, each from and to an actor of its own with its own module.
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let actors = distinct_actors(&mut chain, 32);
    let payload = vec![7u8; 16 * 1024];
    let txs: Vec<_> = actors
        .chunks(2)
        .map(|pair| chain.call_tx(ALICE, pair[0], "send", &[&pair[1].0[..], &payload].concat(), 0))
        .collect();
    assert!(chain.block(&txs).receipts.iter().all(|r| r.status == TxStatus::Success));
    let (outcome, lookups, bytes) = audited_block(&chain);
    let delivered = runs_of(&outcome, false);
    assert_eq!(delivered.len(), txs.len());
    let sent = CYCLES_SEND + 36 + 4 + payload.len() as u64;
    let paid = delivered.iter().map(|run| run.cycles_used + sent).sum();
    assert_paid("deliveries", (lookups, bytes), paid);
}

/// A chain with `runners` runners of `echo` asking `price`, and a job client actor.
fn runners_and_client(runners: u8, price: u128) -> (Chain, Address) {
    let addresses: Vec<Address> = (0..runners).map(|i| Address([0x40 + i; 20])).collect();
    let mut accounts: Vec<(Address, u128)> = addresses.iter().map(|r| (*r, RICH)).collect();
    accounts.push((ALICE, RICH));
    let mut chain = Chain::new(&accounts);
    chain.limits = crate::testing::LARGE_LIMITS;
    let register = RegistryCall::Register {
        rate_card: RateCard { price_per_job: price },
        capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 1_024 },
    };
    let txs: Vec<_> = addresses
        .iter()
        .map(|r| {
            chain.system_tx(*r, RUNNER_REGISTRY_ADDRESS, register.message(), register.max_cost(), MIN_RUNNER_STAKE)
        })
        .collect();
    assert!(chain.block(&txs).receipts.iter().all(|r| r.status == TxStatus::Success));
    let client = chain.deploy(ALICE, crate::testing::example("job_client"), &["storage.kv", "job.submit"], RICH / 10);
    (chain, client)
}

/// Submits from `client` a job for every runner there can be, due in `timeout_blocks`, with a
/// callback.
fn submit_largest(chain: &mut Chain, client: Address, timeout_blocks: u64) {
    let spec = JobSpec {
        job_type: "echo".into(),
        input: vec![1; 1_024],
        runners: MAX_RUNNERS_PER_JOB,
        verification: Verification { mode: VerificationMode::Unanimous, threshold: MAX_RUNNERS_PER_JOB },
        max_price: 1,
        timeout_blocks,
        callback: Some(Callback { handler: "on_job".into(), cycles: 100_000 }),
    };
    let mut input = (RICH / 100).to_le_bytes().to_vec();
    input.extend(JobCall::Submit(spec).encode_args());
    let submitted = chain.call(ALICE, client, "submit", &input);
    assert_eq!(submitted.receipts[0].status, TxStatus::Success, "{:?}", submitted.receipts[0].error);
}

#[test]
fn a_job_deadline_pays_for_what_it_reads() {
    // Sixteen runners assigned, none answers: the deadline settles them all and queues the
    // callback. The submit paid for it (SUBMIT_CYCLES covers settling at the deadline).
    let (mut chain, client) = runners_and_client(MAX_RUNNERS_PER_JOB as u8, 1);
    submit_largest(&mut chain, client, 2);
    chain.block(&[]);
    let (outcome, lookups, bytes) = audited_block(&chain);
    assert!(outcome.cycles_used >= SUBMIT_CYCLES, "the deadline ran");
    assert_paid("a job deadline", (lookups, bytes), SUBMIT_CYCLES);
}

#[test]
fn a_job_retry_pays_for_what_it_reads() {
    // Sixteen runners wanted among thirty-two that all ask too much: the retry draws until its
    // meter runs out, and its submitter pays what it used.
    let (mut chain, client) = runners_and_client(32, 2);
    submit_largest(&mut chain, client, 100);
    let (outcome, lookups, bytes) = audited_block(&chain);
    assert!(outcome.burned > 0, "the retry ran and was paid for");
    assert_paid("a job retry", (lookups, bytes), outcome.cycles_used);
}

#[test]
fn due_entries_of_jobs_that_moved_on_pay_for_what_they_read() {
    // A block's worth of due entries whose jobs are gone: one lookup each for the entry and the
    // job. Each was scheduled by a submit, which paid for its deadline.
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let per_block = crate::jobs::deferred::MAX_DUE_ENTRIES_PER_BLOCK as u32;
    let at = chain.height;
    let state_key = drover_state::job::state_key;
    chain.state.insert(state_key(&drover_state::job::due_count_key(at)), encode_count(u64::from(per_block) * 2));
    for seq in 0..per_block * 2 {
        let entry = DueEntry { job: drover_types::keccak256(&seq.to_be_bytes()), retry: 0 };
        chain.state.insert(state_key(&drover_state::job::due_key(at, seq)), entry.encode());
    }
    let (_, lookups, bytes) = audited_block(&chain);
    assert_paid("due entries", (lookups, bytes), u64::from(per_block) * SUBMIT_CYCLES);
}
