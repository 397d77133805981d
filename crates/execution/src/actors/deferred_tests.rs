//! The block's deferred work as a whole: no queue is wedged by its head or by another queue,
//! an entry bought under larger limits still runs, and no vote can switch the work off.

use crate::deferred::SystemRunKind;
use crate::testing::{Chain, RICH, inline};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, H256, TxStatus,
    chain_params::ChainParams,
    exec_error::ExecCode,
    job::{Callback, JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, JobStatus, Verification, VerificationMode, job_id},
    runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall},
};

const ALICE: Address = Address([0xa1; 20]);
const RUNNER: Address = Address([0x21; 20]);

/// `start` and `tick` schedule `tick` at the next height (100,000 cycles); `send(to ‖ cycles
/// u64 LE ‖ handler: 4 bytes)` sends `handler` to `to` with that budget; `schedule(height u64
/// LE ‖ cycles u64 LE ‖ handler: 4 bytes)` schedules `handler`; `noop` does nothing and `spin`
/// loops until its budget runs out.
const DEFERRED: &str = r#"(module
  (import "drover" "input_read" (func $input_read (param i32)))
  (import "drover" "block_height" (func $height (result i64)))
  (import "drover" "send" (func $send (param i32 i32 i32 i32 i32 i32 i64)))
  (import "drover" "timer_schedule" (func $schedule (param i64 i32 i32 i32 i32 i64) (result i64)))
  (memory (export "memory") 1)
  (data (i32.const 0) "tick")
  (func $again
    (drop (call $schedule (i64.add (call $height) (i64.const 1)) (i32.const 0) (i32.const 4)
      (i32.const 0) (i32.const 0) (i64.const 100000))))
  (func (export "start") (call $again))
  (func (export "tick") (call $again))
  (func (export "send")
    (call $input_read (i32.const 96))
    (call $send (i32.const 96) (i32.const 124) (i32.const 4) (i32.const 0) (i32.const 0)
      (i32.const 64) (i64.load (i32.const 116))))
  (func (export "schedule")
    (call $input_read (i32.const 96))
    (drop (call $schedule (i64.load (i32.const 96)) (i32.const 112) (i32.const 4) (i32.const 0) (i32.const 0)
      (i64.load (i32.const 104)))))
  (func (export "noop"))
  (func (export "spin") (loop $again (br $again))))"#;

fn send_input(to: Address, cycles: u64, handler: &str) -> Vec<u8> {
    [&to.0[..], &cycles.to_le_bytes(), handler.as_bytes()].concat()
}

fn schedule_input(height: u64, cycles: u64, handler: &str) -> Vec<u8> {
    [&height.to_le_bytes()[..], &cycles.to_le_bytes(), handler.as_bytes()].concat()
}

/// A chain with the [`DEFERRED`] actor deployed (well funded) and its `tick` timer armed.
fn ticking() -> (Chain, Address) {
    let mut chain = Chain::new(&[(ALICE, RICH), (RUNNER, RICH)]);
    let actor = chain.deploy(ALICE, inline(DEFERRED), &["mailbox.send", "timer.schedule"], RICH / 10);
    let start = chain.call(ALICE, actor, "start", &[]);
    assert_eq!(start.receipts[0].status, TxStatus::Success, "{:?}", start.receipts[0].error);
    (chain, actor)
}

fn ticked(outcome: &crate::BlockOutcome) -> bool {
    outcome.system_runs.iter().any(|run| matches!(run.kind, SystemRunKind::Timer { .. }))
}

#[test]
fn a_self_rescheduling_timer_cannot_wedge_the_mailbox() {
    let (mut chain, actor) = ticking();
    let mut accepted = 0;
    // The cap no vote passes, then the largest budget the live parameters accept.
    let live = ChainParams::default().max_attached_cycles;
    for cycles in [drover_vm::limits::MAX_ATTACHED_CYCLES, live + 1, live] {
        let sent = chain.call(ALICE, actor, "send", &send_input(actor, cycles, "noop"));
        assert!(ticked(&sent), "the timer fires every block");
        let receipt = &sent.receipts[0];
        if receipt.status != TxStatus::Success {
            assert_eq!(receipt.error.as_ref().map(|e| e.code), Some(ExecCode::AttachedCycles), "{receipt:?}");
            continue;
        }
        accepted += 1;
        let delivered = (0..3).any(|_| {
            let outcome = chain.block(&[]);
            assert!(ticked(&outcome), "the timer fires every block");
            outcome.system_runs.iter().any(|run| matches!(run.kind, SystemRunKind::Delivery { .. }))
        });
        assert!(delivered, "a message of {cycles} cycles was accepted and waits behind the timer");
    }
    assert_eq!(accepted, 1, "only the budget within max_attached_cycles is accepted");
}

#[test]
fn a_callback_at_max_callback_cycles_is_delivered_on_a_busy_chain() {
    let (mut chain, ticker) = ticking();
    let register = RegistryCall::Register {
        rate_card: RateCard { price_per_job: 1 },
        capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 16 },
    };
    let tx = chain.tx(RUNNER, Some(RUNNER_REGISTRY_ADDRESS), register.message().encode(), MIN_RUNNER_STAKE);
    assert_eq!(chain.block(&[tx]).receipts[0].status, TxStatus::Success);
    let client = chain.deploy(ALICE, crate::testing::example("job_client"), &["storage.kv", "job.submit"], RICH / 10);
    let cycles = ChainParams::default().max_callback_cycles;
    let spec = JobSpec {
        job_type: "echo".into(),
        input: b"hello".to_vec(),
        runners: 1,
        verification: Verification { mode: VerificationMode::None, threshold: 1 },
        max_price: 1,
        timeout_blocks: 50,
        callback: Some(Callback { handler: "on_job".into(), cycles }),
    };
    let mut input = (RICH / 100).to_le_bytes().to_vec();
    input.extend(JobCall::Submit(spec).encode_args());
    let submitted = chain.call(ALICE, client, "submit", &input);
    assert_eq!(submitted.receipts[0].status, TxStatus::Success, "{:?}", submitted.receipts[0]);
    let job: H256 = job_id(&client, 0);
    // Busy: besides the timer, messages queued ahead of the callback in the same block.
    let busy: Vec<_> =
        (0..4).map(|_| chain.call_tx(ALICE, ticker, "send", &send_input(ticker, 1_000_000, "noop"), 0)).collect();
    let answer = JobCall::SubmitResult { job, result: b"42".to_vec() }.message().encode();
    let mut txs = busy;
    txs.push(chain.tx(RUNNER, Some(JOB_DISPATCHER_ADDRESS), answer, 0));
    let answered = chain.block(&txs);
    assert!(answered.receipts.iter().all(|r| r.status == TxStatus::Success), "{:?}", answered.receipts);
    let ended = drover_state::job::JobRecord::decode(
        &chain.state[&drover_state::job::state_key(&drover_state::job::job_key(&job))],
    )
    .unwrap();
    assert_eq!(ended.status, JobStatus::Completed);
    let delivered = (0..4).any(|_| {
        let outcome = chain.block(&[]);
        assert!(ticked(&outcome), "the timer fires every block");
        outcome.system_runs.iter().any(|run| run.actor == client && run.status == TxStatus::Success)
    });
    assert!(delivered, "the callback of {cycles} cycles waits behind the timer");
}

fn runs(outcome: &crate::BlockOutcome) -> (Vec<&crate::deferred::SystemRun>, Vec<&crate::deferred::SystemRun>) {
    outcome.system_runs.iter().partition(|run| matches!(run.kind, SystemRunKind::Timer { .. }))
}

#[test]
fn timers_that_fill_their_share_leave_deliveries_theirs() {
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let actor = chain.deploy(ALICE, inline(DEFERRED), &["mailbox.send", "timer.schedule"], RICH / 10);
    let params = ChainParams::default();
    let cap = params.max_attached_cycles;
    // Three timers that each use the timers' whole share, then a message due with them.
    let at = chain.height + 2;
    let schedule: Vec<_> =
        (0..3).map(|_| chain.call_tx(ALICE, actor, "schedule", &schedule_input(at, cap, "spin"), 0)).collect();
    assert!(chain.block(&schedule).receipts.iter().all(|r| r.status == TxStatus::Success));
    let sent = chain.call(ALICE, actor, "send", &send_input(actor, cap, "spin"));
    assert_eq!(sent.receipts[0].status, TxStatus::Success);
    for fired in 0..3 {
        let outcome = chain.block(&[]);
        let (timers, deliveries) = runs(&outcome);
        assert_eq!(timers.len(), 1, "one timer fills the timers' share");
        assert_eq!(timers[0].cycles_used, cap);
        assert_eq!(deliveries.len(), usize::from(fired == 0), "the message does not wait behind the timers");
        assert!(outcome.cycles_used <= params.target_cycles, "the deferred work stays within the target");
    }
    assert!(chain.block(&[]).system_runs.is_empty());
}

#[test]
fn an_entry_bought_under_larger_limits_runs_cut_to_what_its_queue_has() {
    use drover_state::governance::params_state_key;
    let mut chain = Chain::new(&[(ALICE, RICH)]);
    let actor = chain.deploy(ALICE, inline(DEFERRED), &["mailbox.send", "timer.schedule"], RICH / 10);
    let params = ChainParams::default();
    // As if a vote had raised the target and the cap, and a later one lowered them again.
    let wide = ChainParams { target_cycles: 40_000_000, max_attached_cycles: 10_000_000, ..params };
    chain.state.insert(params_state_key(), wide.encode());
    let at = chain.height + 2;
    let bought = [
        chain.call_tx(ALICE, actor, "schedule", &schedule_input(at, 10_000_000, "spin"), 0),
        chain.call_tx(ALICE, actor, "send", &send_input(actor, 10_000_000, "spin"), 0),
    ];
    assert!(chain.block(&bought).receipts.iter().all(|r| r.status == TxStatus::Success));
    chain.state.insert(params_state_key(), params.encode());
    let balance = crate::testing::balance(&chain.state, actor);
    // The message runs first in its queue, with what the deliveries and the idle timers have.
    let outcome = chain.block(&[]);
    let (_, deliveries) = runs(&outcome);
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0].error.as_ref().map(|e| e.code), Some(ExecCode::OutOfCycles));
    assert_eq!(deliveries[0].cycles_used, params.target_cycles * 3 / 4);
    let refunded = crate::testing::balance(&chain.state, actor) - balance;
    assert_eq!(
        refunded,
        u128::from(10_000_000 - params.target_cycles * 3 / 4) + 16_384 - u128::from(deliveries[0].cells_used)
    );
    // The timer, first in its queue, with the timers' share.
    let outcome = chain.block(&[]);
    let (timers, _) = runs(&outcome);
    assert_eq!(timers.len(), 1);
    assert_eq!(timers[0].cycles_used, params.target_cycles / 4);
    assert!(outcome.cycles_used <= params.target_cycles);
}

const SUBMITTER: Address = Address([0x5a; 20]);

/// `tx` with limits and fees that any parameters a vote can set admit: four fit the least
/// block, and the fees cover the highest basefee floors.
fn modest(mut tx: drover_types::VerifiedTransaction) -> drover_types::VerifiedTransaction {
    tx.tx.cycles_limit = 2_000_000;
    tx.tx.cells_limit = 20_000;
    (tx.tx.max_fee_per_cycle, tx.tx.max_fee_per_cell) = (1_000_000, 1_000_000);
    tx
}

/// A value of `spec`: one of its bounds, its default, or one in between.
fn pick(spec: &drover_types::chain_params::ParamSpec, how: u8, seed: u64) -> u128 {
    match how {
        0 => spec.min,
        1 => spec.max,
        2 => spec.default,
        _ => spec.min + u128::from(seed) % (spec.max - spec.min + 1),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Whatever proposals pass (`with_changes` checks each, as `propose` and `execute` do),
    /// timers, deliveries and job deadlines keep running: before each vote the largest timer
    /// and messages the live parameters allow (handlers that use all of their budget) and a job
    /// are queued behind a self-rescheduling timer, and each runs within a few blocks of the
    /// vote, under the new parameters.
    #[test]
    fn deferred_work_goes_on_under_every_parameter_votes_can_set(
        proposals in proptest::collection::vec(
            proptest::collection::vec((0..drover_types::chain_params::PARAMS.len(), 0..4u8, proptest::prelude::any::<u64>()), 1..4),
            1..5,
        )
    ) {
        use drover_state::{governance::params_state_key, job::{JobRecord, job_key, state_key}};
        use drover_types::chain_params::PARAMS;
        let (mut chain, _ticker) = ticking();
        chain.state.insert(
            drover_state::keys::account_key(&SUBMITTER),
            drover_state::Account { nonce: 0, balance: RICH }.encode(),
        );
        let (tx, worker) = chain.deploy_tx(ALICE, inline(DEFERRED), &["mailbox.send", "timer.schedule"], b"worker", RICH / 10);
        proptest::prop_assert_eq!(chain.block(&[tx]).receipts[0].status, TxStatus::Success);
        let mut params = ChainParams::default();
        for changes in proposals {
            let cap = params.max_attached_cycles;
            let at = chain.height + 2;
            // The submitter sends nothing but submissions: its nonce counts them.
            let job = job_id(&SUBMITTER, chain.nonces.get(&SUBMITTER).copied().unwrap_or(0));
            let spec = JobSpec {
                job_type: "echo".into(),
                input: b"hello".to_vec(),
                runners: 1,
                verification: Verification { mode: VerificationMode::None, threshold: 1 },
                max_price: 1,
                timeout_blocks: 2,
                callback: None,
            };
            let queued = [
                chain.call_tx(ALICE, worker, "schedule", &schedule_input(at, cap, "spin"), 0),
                chain.call_tx(ALICE, worker, "send", &send_input(worker, cap, "spin"), 0),
                chain.call_tx(ALICE, worker, "send", &send_input(worker, cap, "spin"), 0),
                chain.tx(SUBMITTER, Some(JOB_DISPATCHER_ADDRESS), JobCall::Submit(spec).message().encode(), 1),
            ]
            .map(modest);
            let outcome = chain.block(&queued);
            for receipt in &outcome.receipts {
                proptest::prop_assert_eq!(receipt.status, TxStatus::Success, "{:?}", receipt.error);
            }
            // The vote, in force from the next block.
            let changes: Vec<(String, u128)> =
                changes.iter().map(|&(i, how, seed)| (PARAMS[i].name.to_owned(), pick(&PARAMS[i], how, seed))).collect();
            if let Ok(next) = params.with_changes(&changes) {
                params = next;
                chain.state.insert(params_state_key(), params.encode());
            }
            let (mut fired, mut delivered) = (0, 0);
            let mut ended = false;
            for _ in 0..8 {
                let outcome = chain.block(&[]);
                proptest::prop_assert!(outcome.cycles_used <= params.target_cycles && outcome.cells_used <= params.target_cells);
                for run in outcome.system_runs.iter().filter(|run| run.actor == worker) {
                    match run.kind {
                        SystemRunKind::Timer { .. } => fired += 1,
                        SystemRunKind::Delivery { .. } => delivered += 1,
                    }
                }
                let record = JobRecord::decode(&chain.state[&state_key(&job_key(&job))]).unwrap();
                ended = record.status == JobStatus::Failed;
                if (fired, delivered, ended) == (1, 2, true) {
                    break;
                }
            }
            proptest::prop_assert_eq!((fired, delivered, ended), (1, 2, true), "under {:?}", params);
        }
    }
}
