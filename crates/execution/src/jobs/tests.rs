//! Dispatcher rules end to end through `execute_block` (each block also read through a reader
//! that checks every key is read once): assignment, each verification mode, payments and
//! refunds to the base unit, deadlines, retries, cancel, callbacks and the refusals.

use crate::testing::{Chain, RICH, balance};
use drover_state::{
    job::{JobRecord, ResultRecord, job_key, result_key, state_key as job_state_key},
    runner::{
        Delegation, IndexKey, IndexNode, RunnerRecord, delegation_key, index_node_key, price_count_key, runner_key,
        state_key,
    },
};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, H256, Receipt, TxStatus,
    exec_error::ExecCode,
    job::{Callback, JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, JobStatus, Verification, VerificationMode, job_id},
    runner::{
        Capabilities, HEARTBEAT_GAP_BLOCKS, INITIAL_REPUTATION, MIN_RUNNER_STAKE, REPUTATION_GAIN,
        REPUTATION_LOSS_SILENT, REPUTATION_LOSS_WRONG, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall,
    },
};

const SUBMITTER: Address = Address([0x5a; 20]);
const DELEGATOR: Address = Address([0xd0; 20]);
const PRICE: u128 = 1_000;
const RUNNERS: [Address; 3] = [Address([0x21; 20]), Address([0x22; 20]), Address([0x23; 20])];

fn chain() -> Chain {
    let mut accounts: Vec<(Address, u128)> = RUNNERS.iter().map(|r| (*r, RICH)).collect();
    accounts.extend([(SUBMITTER, RICH), (DELEGATOR, RICH)]);
    Chain::new(&accounts)
}

fn send(chain: &mut Chain, sender: Address, to: Address, payload: Vec<u8>, value: u128) -> Receipt {
    let tx = chain.tx(sender, Some(to), payload, value);
    chain.block(&[tx]).receipts.remove(0)
}

fn ok(receipt: Receipt) -> Receipt {
    assert_eq!(receipt.status, TxStatus::Success, "{:?}", receipt.error);
    receipt
}

fn refused(receipt: Receipt, code: ExecCode) {
    assert_eq!(receipt.error.as_ref().map(|e| e.code), Some(code), "{:?}", receipt.error);
}

fn register(chain: &mut Chain, runner: Address, stake: u128, job_types: &[&str]) {
    let call = RegistryCall::Register {
        rate_card: RateCard { price_per_job: PRICE },
        capabilities: Capabilities {
            job_types: job_types.iter().map(|t| t.to_string()).collect(),
            max_concurrent_jobs: 1_024,
        },
    };
    ok(send(chain, runner, RUNNER_REGISTRY_ADDRESS, call.message().encode(), stake));
}

fn spec(runners: u64, mode: VerificationMode, threshold: u64) -> JobSpec {
    JobSpec {
        job_type: "echo".into(),
        input: b"hello".to_vec(),
        runners,
        verification: Verification { mode, threshold },
        max_price: PRICE,
        timeout_blocks: 20,
        callback: None,
    }
}

fn escrow(spec: &JobSpec) -> u128 {
    spec.runner_escrow().unwrap() + 123
}

/// Submits `spec` from `SUBMITTER` with `escrow(spec)`; answers the job id.
fn submit(chain: &mut Chain, spec: &JobSpec) -> H256 {
    let id = job_id(&SUBMITTER, submissions(chain));
    let payload = JobCall::Submit(spec.clone()).message().encode();
    let receipt = ok(send(chain, SUBMITTER, JOB_DISPATCHER_ADDRESS, payload, escrow(spec)));
    assert!(receipt.events.iter().any(|e| e.topic == drover_types::job::EVENT_SUBMITTED));
    id
}

fn submissions(chain: &Chain) -> u64 {
    let key = job_state_key(&drover_state::job::submissions_key(&SUBMITTER));
    chain.state.get(&key).map_or(0, |b| drover_state::decode_count(b).unwrap())
}

fn job(chain: &Chain, job: &H256) -> Option<JobRecord> {
    chain.state.get(&job_state_key(&job_key(job))).map(|b| JobRecord::decode(b).unwrap())
}

fn runner(chain: &Chain, address: &Address) -> RunnerRecord {
    RunnerRecord::decode(&chain.state[&state_key(&runner_key(address))]).unwrap()
}

fn answer(chain: &mut Chain, runner: Address, job: H256, result: &[u8]) -> Receipt {
    let call = JobCall::SubmitResult { job, result: result.to_vec() };
    send(chain, runner, JOB_DISPATCHER_ADDRESS, call.message().encode(), 0)
}

fn three_runners() -> Chain {
    let mut chain = chain();
    for r in RUNNERS {
        register(&mut chain, r, MIN_RUNNER_STAKE, &["echo"]);
    }
    chain
}

#[test]
fn majority_pays_the_honest_runners_and_refunds_the_rest_to_the_base_unit() {
    let mut chain = three_runners();
    let spec = spec(3, VerificationMode::Majority, 2);
    let id = submit(&mut chain, &spec);
    let record = job(&chain, &id).unwrap();
    assert_eq!(record.status, JobStatus::Assigned);
    assert_eq!(record.assigned.len(), 3);
    assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), escrow(&spec));
    let order: Vec<Address> = record.assigned.iter().map(|a| a.runner).collect();
    let before: Vec<u128> = order.iter().map(|r| balance(&chain.state, *r)).collect();
    let submitter_before = balance(&chain.state, SUBMITTER);

    // The faulty runner answers first, then the two honest ones.
    let faulty = ok(answer(&mut chain, order[2], id, b"wrong"));
    let fee_faulty = faulty.fee.total();
    ok(answer(&mut chain, order[0], id, b"hello"));
    assert_eq!(job(&chain, &id).unwrap().status, JobStatus::Assigned, "one of two is not a majority");
    let deciding = ok(answer(&mut chain, order[1], id, b"hello"));
    assert!(deciding.events.iter().any(|e| e.topic == drover_types::job::EVENT_ENDED));

    let record = job(&chain, &id).unwrap();
    assert_eq!(record.status, JobStatus::Completed);
    assert_eq!(record.verdict.unwrap().consensus_count, 2);
    assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), 0, "the escrow is spent to the base unit");
    assert_eq!(balance(&chain.state, SUBMITTER), submitter_before + escrow(&spec) - 2 * PRICE);
    assert_eq!(balance(&chain.state, order[2]), before[2] - fee_faulty, "the faulty runner is not paid");
    for (i, r) in order.iter().enumerate() {
        let rec = runner(&chain, r);
        assert_eq!(rec.active_jobs, 0);
        let expected =
            if i == 2 { INITIAL_REPUTATION - REPUTATION_LOSS_WRONG } else { INITIAL_REPUTATION + REPUTATION_GAIN };
        assert_eq!(rec.reputation, expected);
    }
    // Results are stored with their transaction.
    let first = ResultRecord::decode(&chain.state[&job_state_key(&result_key(&id, 0))]).unwrap();
    assert_eq!((first.runner, first.result.as_slice()), (order[2], &b"wrong"[..]));
    assert!(first.tx_hash.is_some());
    // The job is over: no more results.
    refused(answer(&mut chain, order[2], id, b"again"), ExecCode::JobNotOpen);
}

#[test]
fn none_takes_the_first_result_and_unanimous_fails_at_the_first_difference() {
    let mut chain = three_runners();
    let id = submit(&mut chain, &spec(2, VerificationMode::None, 1));
    let first = job(&chain, &id).unwrap().assigned[0].runner;
    ok(answer(&mut chain, first, id, b"x"));
    let record = job(&chain, &id).unwrap();
    assert_eq!(record.status, JobStatus::Completed);
    let late = record.assigned[1].runner;
    assert_eq!(runner(&chain, &late).reputation, INITIAL_REPUTATION, "beaten to it, not blamed");

    let spec = spec(3, VerificationMode::Unanimous, 3);
    let id = submit(&mut chain, &spec);
    let order: Vec<Address> = job(&chain, &id).unwrap().assigned.iter().map(|a| a.runner).collect();
    let submitter = balance(&chain.state, SUBMITTER);
    ok(answer(&mut chain, order[0], id, b"a"));
    ok(answer(&mut chain, order[1], id, b"b"));
    let record = job(&chain, &id).unwrap();
    assert_eq!(record.status, JobStatus::Failed);
    assert_eq!(balance(&chain.state, SUBMITTER), submitter + escrow(&spec), "nobody is paid without a verdict");
    assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), 0);
}

#[test]
fn unanimous_pays_every_runner_when_all_agree() {
    let mut chain = three_runners();
    let spec = spec(3, VerificationMode::Unanimous, 3);
    let id = submit(&mut chain, &spec);
    let order: Vec<Address> = job(&chain, &id).unwrap().assigned.iter().map(|a| a.runner).collect();
    let submitter = balance(&chain.state, SUBMITTER);
    let mut fees = Vec::new();
    for (i, r) in order.iter().enumerate() {
        let before = balance(&chain.state, *r);
        let receipt = ok(answer(&mut chain, *r, id, b"same"));
        let status = job(&chain, &id).unwrap().status;
        assert_eq!(status, if i < 2 { JobStatus::Assigned } else { JobStatus::Completed }, "all three are needed");
        fees.push((before, receipt.fee.total()));
    }
    let record = job(&chain, &id).unwrap();
    assert_eq!(record.verdict.unwrap().consensus_count, 3);
    for (r, (before, fee)) in order.iter().zip(fees) {
        assert_eq!(balance(&chain.state, *r), before - fee + PRICE, "each runner is paid its price");
        assert_eq!(runner(&chain, r).reputation, INITIAL_REPUTATION + REPUTATION_GAIN);
    }
    assert_eq!(balance(&chain.state, SUBMITTER), submitter + escrow(&spec) - 3 * PRICE);
    assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), 0);
}

#[test]
fn deadlines_past_the_per_block_bound_carry_to_the_next_block() {
    use super::deferred::MAX_DUE_ENTRIES_PER_BLOCK;
    let mut chain = three_runners();
    // 160 jobs submitted over four blocks, all due at the same height.
    let jobs = 160;
    let due = chain.height + 4 + 10;
    let mut ids = Vec::new();
    for _ in 0..4 {
        let spec = JobSpec { timeout_blocks: due - chain.height, ..spec(1, VerificationMode::None, 1) };
        let call = JobCall::Submit(spec.clone());
        let first = submissions(&chain);
        let txs: Vec<_> = (0..jobs / 4)
            .map(|_| chain.system_tx(SUBMITTER, JOB_DISPATCHER_ADDRESS, call.message(), call.max_cost(), escrow(&spec)))
            .collect();
        let outcome = chain.block(&txs);
        assert!(outcome.receipts.iter().all(|r| r.status == TxStatus::Success));
        ids.extend((first..first + jobs / 4).map(|n| job_id(&SUBMITTER, n)));
    }
    let failed = |chain: &Chain| ids.iter().filter(|id| job(chain, id).unwrap().status == JobStatus::Failed).count();
    advance_to(&mut chain, due);
    assert_eq!(failed(&chain), 0);
    chain.block(&[]);
    let first = failed(&chain);
    assert!(first > 0 && first <= MAX_DUE_ENTRIES_PER_BLOCK, "one block settles at most the bound: {first}");
    chain.block(&[]);
    assert_eq!(failed(&chain), jobs as usize, "the rest, in order, in the next block");
    assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), 0, "every escrow refunded");
}

fn advance_to(chain: &mut Chain, height: u64) {
    while chain.height < height {
        chain.block(&[]);
    }
}

#[test]
fn a_job_without_a_verdict_fails_at_its_deadline_and_is_refunded() {
    let mut chain = three_runners();
    let spec = JobSpec { timeout_blocks: 3, ..spec(3, VerificationMode::Majority, 2) };
    let id = submit(&mut chain, &spec);
    let record = job(&chain, &id).unwrap();
    let submitter = balance(&chain.state, SUBMITTER);
    ok(answer(&mut chain, record.assigned[0].runner, id, b"x"));
    chain.block(&[]);
    assert_eq!(job(&chain, &id).unwrap().status, JobStatus::Assigned);
    chain.block(&[]);
    let record = job(&chain, &id).unwrap();
    assert_eq!(record.status, JobStatus::Failed);
    assert_eq!(record.finished_height, Some(record.deadline_height));
    assert_eq!(balance(&chain.state, SUBMITTER), submitter + escrow(&spec));
    assert_eq!(runner(&chain, &record.assigned[0].runner).reputation, INITIAL_REPUTATION, "it answered");
    for a in &record.assigned[1..] {
        let rec = runner(&chain, &a.runner);
        assert_eq!((rec.reputation, rec.active_jobs), (INITIAL_REPUTATION - REPUTATION_LOSS_SILENT, 0));
    }
}

#[test]
fn a_pending_job_is_retried_until_runners_appear() {
    let mut chain = chain();
    let id = submit(&mut chain, &spec(1, VerificationMode::None, 1));
    assert_eq!(job(&chain, &id).unwrap().status, JobStatus::Pending, "nobody offers echo yet");
    register(&mut chain, RUNNERS[0], MIN_RUNNER_STAKE, &["echo"]);
    // Retries come 1, 2, 4, ... blocks after the submission.
    for _ in 0..4 {
        chain.block(&[]);
    }
    let record = job(&chain, &id).unwrap();
    assert_eq!(record.status, JobStatus::Assigned);
    assert_eq!(record.assigned[0].runner, RUNNERS[0]);
}

/// A chain where `n` runners offer `echo`, each asking more than [`spec`]'s jobs pay (so every
/// draw of an assignment attempt sets one aside and none is kept).
fn dear_runners(n: u8) -> Chain {
    let runners: Vec<Address> = (0..n).map(|i| Address([0x40 + i; 20])).collect();
    let mut accounts: Vec<(Address, u128)> = runners.iter().map(|r| (*r, RICH)).collect();
    accounts.push((SUBMITTER, RICH));
    let mut chain = Chain::new(&accounts);
    for r in runners {
        let call = RegistryCall::Register {
            rate_card: RateCard { price_per_job: PRICE + 1 },
            capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 1_024 },
        };
        ok(send(&mut chain, r, RUNNER_REGISTRY_ADDRESS, call.message().encode(), MIN_RUNNER_STAKE));
    }
    chain
}

#[test]
fn a_retry_that_exhausts_its_meter_is_undone_but_burns_what_it_used() {
    // Sixteen runners wanted among twelve that all ask too much: an attempt sets all twelve
    // aside and back, 24 index walks of 1,024 cells, past a retry's 16,384.
    let mut chain = dear_runners(12);
    let spec = spec(16, VerificationMode::None, 1);
    let id = submit(&mut chain, &spec);
    assert_eq!(job(&chain, &id).unwrap().status, JobStatus::Pending, "the submit's own attempt found nobody");
    let before = balance(&chain.state, SUBMITTER);
    let retry = chain.block(&[]);
    assert!(retry.cycles_used > 0 && retry.cells_used > 0, "the retry used the block's deferred budget");
    let paid = before - balance(&chain.state, SUBMITTER);
    assert!(paid > 0, "the failed retry burns what it used");
    assert_eq!(retry.burned, paid, "and nothing else was burned");
    assert_eq!(job(&chain, &id).unwrap().status, JobStatus::Pending, "its work is undone");
}

#[test]
fn a_retry_needs_a_submitter_who_holds_its_whole_meter() {
    use drover_types::{
        job::{RETRY_READ_CYCLES, attempt_cycles},
        params::SYSTEM_RUN_CELLS_LIMIT,
    };
    // What the first retry burns when the submitter holds `held` (at the floor basefees, 1).
    let retry_with = |held: u128| {
        // Nobody offers echo: a retry finds nobody and schedules the next.
        let mut chain = chain();
        submit(&mut chain, &spec(1, VerificationMode::None, 1));
        let mut account = crate::testing::account(&chain.state, SUBMITTER).unwrap();
        account.balance = held;
        chain.state.insert(drover_state::keys::account_key(&SUBMITTER), account.encode());
        let retry = chain.block(&[]);
        assert_eq!(balance(&chain.state, SUBMITTER), held - retry.burned);
        retry.burned
    };
    let meter = u128::from(RETRY_READ_CYCLES + attempt_cycles(1) + SYSTEM_RUN_CELLS_LIMIT);
    assert_eq!(retry_with(meter - 1), 0, "a submitter short of the meter's price is not retried");
    assert!(retry_with(meter) > 0, "one who holds it is, and pays what the retry used");
}

#[test]
fn cancel_pays_who_answered_and_refunds_the_rest() {
    let mut chain = three_runners();
    let spec = spec(2, VerificationMode::Unanimous, 2);
    let id = submit(&mut chain, &spec);
    let record = job(&chain, &id).unwrap();
    ok(answer(&mut chain, record.assigned[0].runner, id, b"x"));
    let cancel = JobCall::Cancel { job: id }.message().encode();
    refused(send(&mut chain, RUNNERS[0], JOB_DISPATCHER_ADDRESS, cancel.clone(), 0), ExecCode::NotSubmitter);
    let submitter = balance(&chain.state, SUBMITTER);
    let receipt = ok(send(&mut chain, SUBMITTER, JOB_DISPATCHER_ADDRESS, cancel.clone(), 0));
    assert_eq!(job(&chain, &id).unwrap().status, JobStatus::Cancelled);
    assert_eq!(balance(&chain.state, SUBMITTER), submitter + escrow(&spec) - PRICE - receipt.fee.total());
    assert_eq!(runner(&chain, &record.assigned[1].runner).reputation, INITIAL_REPUTATION, "no blame for a cancel");
    refused(send(&mut chain, SUBMITTER, JOB_DISPATCHER_ADDRESS, cancel, 0), ExecCode::JobNotOpen);
}

#[test]
fn refusals() {
    let mut chain = three_runners();
    let good = spec(2, VerificationMode::Majority, 2);
    let submit_with = |chain: &mut Chain, spec: &JobSpec, value: u128| {
        send(chain, SUBMITTER, JOB_DISPATCHER_ADDRESS, JobCall::Submit(spec.clone()).message().encode(), value)
    };
    refused(submit_with(&mut chain, &good, 2 * PRICE - 1), ExecCode::JobEscrow);
    refused(submit_with(&mut chain, &spec(2, VerificationMode::Majority, 1), 2 * PRICE), ExecCode::JobSpec);
    let callback = JobSpec { callback: Some(Callback { handler: "on_job".into(), cycles: 1_000 }), ..good.clone() };
    refused(submit_with(&mut chain, &callback, 10 * PRICE), ExecCode::CallbackNeedsActor);
    assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), 0, "refusals keep no escrow");

    refused(answer(&mut chain, RUNNERS[0], H256([9; 32]), b"x"), ExecCode::UnknownJob);
    let id = submit(&mut chain, &good);
    let record = job(&chain, &id).unwrap();
    let outsider = RUNNERS.iter().find(|r| !record.assigned.iter().any(|a| a.runner == **r)).unwrap();
    refused(answer(&mut chain, *outsider, id, b"x"), ExecCode::NotAssigned);
    ok(answer(&mut chain, record.assigned[0].runner, id, b"x"));
    refused(answer(&mut chain, record.assigned[0].runner, id, b"x"), ExecCode::ResultSubmitted);
    // A runner with a job in progress cannot deregister.
    let deregister = RegistryCall::Deregister.message().encode();
    refused(send(&mut chain, record.assigned[1].runner, RUNNER_REGISTRY_ADDRESS, deregister, 0), ExecCode::RunnerBusy);
}

#[test]
fn selection_follows_stake_and_skips_unhealthy_runners() {
    let mut chain = chain();
    register(&mut chain, RUNNERS[0], MIN_RUNNER_STAKE, &["echo"]);
    register(&mut chain, RUNNERS[1], 3 * MIN_RUNNER_STAKE, &["echo"]);
    let mut counts = [0u32; 2];
    // 200 jobs in 20 blocks, well within the heartbeat gap.
    for _ in 0..20 {
        let first = submissions(&chain);
        // Unanswered jobs whose deadlines would pass within the test cost reputation.
        let one = JobSpec { timeout_blocks: 200, ..spec(1, VerificationMode::None, 1) };
        let payload = JobCall::Submit(one.clone()).message().encode();
        let txs: Vec<_> =
            (0..10).map(|_| chain.tx(SUBMITTER, Some(JOB_DISPATCHER_ADDRESS), payload.clone(), escrow(&one))).collect();
        for receipt in chain.block(&txs).receipts {
            ok(receipt);
        }
        for seq in first..first + 10 {
            let chosen = job(&chain, &job_id(&SUBMITTER, seq)).unwrap().assigned[0].runner;
            counts[usize::from(chosen == RUNNERS[1])] += 1;
        }
    }
    // Expected 50 / 150; the draws are deterministic, so this is a fixed outcome, not a flake.
    assert!((30..=70).contains(&counts[0]), "{counts:?}");
    assert_eq!(tree_total(&chain, "echo"), 4 * MIN_RUNNER_STAKE);

    // Past the heartbeat gap, runner 1 is unhealthy: the next draw that meets it prunes it,
    // and jobs go to runner 0 only (it keeps beating).
    for _ in 0..HEARTBEAT_GAP_BLOCKS / 10 + 1 {
        for _ in 0..10 {
            chain.block(&[]);
        }
        ok(send(&mut chain, RUNNERS[0], RUNNER_REGISTRY_ADDRESS, RegistryCall::Heartbeat.message().encode(), 0));
    }
    for _ in 0..5 {
        let id = submit(&mut chain, &spec(1, VerificationMode::None, 1));
        assert_eq!(job(&chain, &id).unwrap().assigned[0].runner, RUNNERS[0]);
    }
    assert_eq!(tree_total(&chain, "echo"), MIN_RUNNER_STAKE, "the unhealthy runner left the index");
    // Its heartbeat puts it back.
    ok(send(&mut chain, RUNNERS[1], RUNNER_REGISTRY_ADDRESS, RegistryCall::Heartbeat.message().encode(), 0));
    assert_eq!(tree_total(&chain, "echo"), 4 * MIN_RUNNER_STAKE);
}

/// Registers `runner` for echo at `price` with `max_concurrent_jobs`.
fn register_priced(chain: &mut Chain, runner: Address, stake: u128, price: u128, max_concurrent_jobs: u64) {
    let call = RegistryCall::Register {
        rate_card: RateCard { price_per_job: price },
        capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs },
    };
    ok(send(chain, runner, RUNNER_REGISTRY_ADDRESS, call.message().encode(), stake));
}

/// `count` funded runner addresses, distinct from the other test accounts.
fn many_runners(count: u8) -> Vec<Address> {
    (0..count).map(|i| Address([0x70, i, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x70])).collect()
}

#[test]
fn a_job_is_drawn_among_the_runners_it_can_afford() {
    // Twelve runners asking ten times the job's price hold 99.8% of the stake; one cheap runner
    // holds the rest. Drawn by stake first and filtered after, the job would spend its draws on
    // the expensive ones and stay pending; drawn among those it can afford, it is assigned at
    // once, in every block.
    let expensive = many_runners(12);
    let mut accounts: Vec<(Address, u128)> = expensive.iter().map(|r| (*r, RICH)).collect();
    accounts.extend([(RUNNERS[0], RICH), (SUBMITTER, RICH)]);
    let mut chain = Chain::new(&accounts);
    for address in &expensive {
        register_priced(&mut chain, *address, 50 * MIN_RUNNER_STAKE, 10 * PRICE, 1_024);
    }
    register_priced(&mut chain, RUNNERS[0], MIN_RUNNER_STAKE, PRICE, 1_024);
    assert_eq!(tree_total(&chain, "echo"), 601 * MIN_RUNNER_STAKE);
    for _ in 0..10 {
        let id = submit(&mut chain, &spec(1, VerificationMode::None, 1));
        let record = job(&chain, &id).unwrap();
        assert_eq!(record.status, JobStatus::Assigned);
        assert_eq!(record.assigned[0].runner, RUNNERS[0]);
    }
    // A job that can afford them draws among all of them, by stake.
    let rich = JobSpec { max_price: 10 * PRICE, ..spec(3, VerificationMode::Majority, 2) };
    let id = submit(&mut chain, &rich);
    let record = job(&chain, &id).unwrap();
    assert_eq!(record.assigned.len(), 3);
    assert!(record.assigned.iter().any(|a| expensive.contains(&a.runner)), "{:?}", record.assigned);
    // Nobody asks less than 1: a job offering less is not assigned, whatever the stake.
    let id = submit(&mut chain, &JobSpec { max_price: PRICE - 1, ..spec(1, VerificationMode::None, 1) });
    assert_eq!(job(&chain, &id).unwrap().status, JobStatus::Pending);
}

#[test]
fn busy_runners_leave_the_draws_until_their_next_heartbeat() {
    // Six runners that take one job at a time hold most of the stake; one that takes many holds
    // the rest. Once the six are busy, draws that meet them take them out of the index, and the
    // jobs that follow are assigned at once to the runner that has room.
    let busy = many_runners(6);
    let mut accounts: Vec<(Address, u128)> = busy.iter().map(|r| (*r, RICH)).collect();
    accounts.extend([(RUNNERS[0], RICH), (SUBMITTER, RICH)]);
    let mut chain = Chain::new(&accounts);
    for address in &busy {
        register_priced(&mut chain, *address, 10 * MIN_RUNNER_STAKE, PRICE, 1);
    }
    register_priced(&mut chain, RUNNERS[0], MIN_RUNNER_STAKE, PRICE, 1_024);
    let one = JobSpec { timeout_blocks: 1_000, ..spec(1, VerificationMode::None, 1) };
    let payload = JobCall::Submit(one.clone()).message().encode();
    for _ in 0..3 {
        let txs: Vec<_> =
            (0..10).map(|_| chain.tx(SUBMITTER, Some(JOB_DISPATCHER_ADDRESS), payload.clone(), escrow(&one))).collect();
        for receipt in chain.block(&txs).receipts {
            ok(receipt);
        }
    }
    for address in &busy {
        let record = runner(&chain, address);
        assert_eq!((record.active_jobs, record.type_slots), (1, vec![None]), "{address}");
    }
    assert_eq!(tree_total(&chain, "echo"), MIN_RUNNER_STAKE, "only the runner with room is drawn");
    for _ in 0..5 {
        let id = submit(&mut chain, &one);
        assert_eq!(job(&chain, &id).unwrap().assigned[0].runner, RUNNERS[0]);
    }
    // Its job answered, a busy runner has room again; its heartbeat puts it back.
    let first = busy[0];
    let its_job = (0..submissions(&chain))
        .map(|n| job_id(&SUBMITTER, n))
        .find(|id| job(&chain, id).unwrap().assigned.first().is_some_and(|a| a.runner == first))
        .unwrap();
    ok(answer(&mut chain, first, its_job, b"x"));
    ok(send(&mut chain, first, RUNNER_REGISTRY_ADDRESS, RegistryCall::Heartbeat.message().encode(), 0));
    assert_eq!(tree_total(&chain, "echo"), 11 * MIN_RUNNER_STAKE);
}

#[test]
fn a_price_change_moves_a_runner_in_its_indexes() {
    let mut chain = three_runners();
    let reprice = RegistryCall::Update {
        rate_card: Some(RateCard { price_per_job: 2 * PRICE }),
        capabilities: None,
        paused: None,
    };
    ok(send(&mut chain, RUNNERS[1], RUNNER_REGISTRY_ADDRESS, reprice.message().encode(), 0));
    assert_eq!(tree_total(&chain, "echo"), 3 * MIN_RUNNER_STAKE, "moved, not lost");
    for _ in 0..10 {
        let id = submit(&mut chain, &spec(2, VerificationMode::None, 1));
        assert!(job(&chain, &id).unwrap().assigned.iter().all(|a| a.runner != RUNNERS[1]), "it asks too much now");
    }
    let rich = JobSpec { max_price: 2 * PRICE, ..spec(3, VerificationMode::Majority, 2) };
    let id = submit(&mut chain, &rich);
    let record = job(&chain, &id).unwrap();
    assert!(record.assigned.iter().any(|a| a.runner == RUNNERS[1] && a.price == 2 * PRICE));
}

/// Total weight of `job_type`'s index (its trie's root).
fn tree_total(chain: &Chain, job_type: &str) -> u128 {
    chain
        .state
        .get(&state_key(&index_node_key(job_type, 0, &IndexKey([0; 18]))))
        .map_or(0, |b| IndexNode::decode(b).unwrap().children.iter().map(|(_, weight)| weight).sum())
}

#[test]
fn the_index_follows_stake_delegation_pause_and_deregistration() {
    let mut chain = chain();
    for r in RUNNERS {
        register(&mut chain, r, MIN_RUNNER_STAKE, &["echo", "wasm"]);
    }
    assert_eq!(tree_total(&chain, "wasm"), 3 * MIN_RUNNER_STAKE);
    let delegate = RegistryCall::Delegate { runner: RUNNERS[1] }.message().encode();
    ok(send(&mut chain, DELEGATOR, RUNNER_REGISTRY_ADDRESS, delegate, 5));
    assert_eq!(tree_total(&chain, "echo"), 3 * MIN_RUNNER_STAKE + 5);
    let pause = RegistryCall::Update { rate_card: None, capabilities: None, paused: Some(true) };
    ok(send(&mut chain, RUNNERS[0], RUNNER_REGISTRY_ADDRESS, pause.message().encode(), 0));
    assert_eq!(tree_total(&chain, "echo"), 2 * MIN_RUNNER_STAKE + 5);
    ok(send(&mut chain, RUNNERS[1], RUNNER_REGISTRY_ADDRESS, RegistryCall::Deregister.message().encode(), 0));
    assert_eq!(tree_total(&chain, "wasm"), MIN_RUNNER_STAKE);
    let count =
        |chain: &Chain| drover_state::decode_count(&chain.state[&state_key(&price_count_key("echo", PRICE))]).unwrap();
    assert_eq!(count(&chain), 1);
    // The one left moved to slot 0 and its record says so.
    assert_eq!(runner(&chain, &RUNNERS[2]).type_slots, vec![Some(0), Some(0)]);
}

#[test]
fn delegators_share_payments_pro_rata() {
    let mut chain = chain();
    register(&mut chain, RUNNERS[0], MIN_RUNNER_STAKE, &["echo"]);
    let delegate = RegistryCall::Delegate { runner: RUNNERS[0] }.message().encode();
    // Delegated three times the runner's own stake: delegators get three quarters.
    ok(send(&mut chain, DELEGATOR, RUNNER_REGISTRY_ADDRESS, delegate, 3 * MIN_RUNNER_STAKE));
    let runner_before = balance(&chain.state, RUNNERS[0]);
    let id = submit(&mut chain, &spec(1, VerificationMode::None, 1));
    let receipt = ok(answer(&mut chain, RUNNERS[0], id, b"x"));
    assert_eq!(balance(&chain.state, RUNNERS[0]), runner_before + PRICE / 4 - receipt.fee.total());
    assert_eq!(runner(&chain, &RUNNERS[0]).delegator_rewards, 3 * PRICE / 4);
    let delegator_before = balance(&chain.state, DELEGATOR);
    let withdraw = RegistryCall::Withdraw { runner: RUNNERS[0] }.message().encode();
    let receipt = ok(send(&mut chain, DELEGATOR, RUNNER_REGISTRY_ADDRESS, withdraw, 0));
    assert_eq!(balance(&chain.state, DELEGATOR), delegator_before + 3 * PRICE / 4 - receipt.fee.total());
    let delegation = Delegation::decode(&chain.state[&state_key(&delegation_key(&RUNNERS[0], &DELEGATOR))]).unwrap();
    assert_eq!((delegation.amount, delegation.rewards), (3 * MIN_RUNNER_STAKE, 0));
    assert_eq!(runner(&chain, &RUNNERS[0]).delegator_rewards, 0);
    // The registry holds exactly the stake and the delegation.
    assert_eq!(balance(&chain.state, RUNNER_REGISTRY_ADDRESS), 4 * MIN_RUNNER_STAKE);
}

#[test]
fn an_actor_submits_with_job_submit_and_gets_the_verdict_in_its_mailbox() {
    let mut chain = three_runners();
    let code = crate::testing::example("job_client");
    let actor = chain.deploy(SUBMITTER, code.clone(), &["storage.kv", "job.submit"], 0);
    let (tx, client) = chain.deploy_tx(SUBMITTER, code, &["storage.kv"], b"unentitled", 0);
    ok(chain.block(&[tx]).receipts.remove(0));
    let spec = JobSpec {
        callback: Some(Callback { handler: "on_job".into(), cycles: 200_000 }),
        ..spec(3, VerificationMode::Majority, 2)
    };
    let escrow = 3 * PRICE + 10_000_000;
    ok(send(&mut chain, SUBMITTER, actor, Vec::new(), escrow));
    let mut input = escrow.to_le_bytes().to_vec();
    input.extend(JobCall::Submit(spec.clone()).encode_args());
    let outcome = chain.call(SUBMITTER, actor, "submit", &input);
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0]);
    let id = job_id(&actor, 0);
    let stored = chain.state[&drover_state::keys::storage_key(&actor, b"job")].clone();
    assert_eq!(stored, id.0.to_vec(), "the actor kept the id job_submit returned");
    let record = job(&chain, &id).unwrap();
    assert!(record.callback_reserve > 0);

    // Without job.submit the same call is refused.
    let refused_outcome = chain.call(SUBMITTER, client, "submit", &input);
    assert_eq!(refused_outcome.receipts[0].error.as_ref().map(|e| e.code), Some(ExecCode::NotEntitled));

    let order: Vec<Address> = record.assigned.iter().map(|a| a.runner).collect();
    let actor_before = balance(&chain.state, actor);
    ok(answer(&mut chain, order[0], id, b"42"));
    ok(answer(&mut chain, order[1], id, b"42"));
    // The callback is delivered at the start of the next block.
    let next = chain.block(&[]);
    let delivery = next.system_runs.iter().find(|run| run.actor == actor).expect("a delivery");
    assert_eq!(delivery.status, TxStatus::Success, "{delivery:?}");
    let answer_bytes = chain.state[&drover_state::keys::storage_key(&actor, b"answer")].clone();
    assert_eq!(answer_bytes, drover_types::job::callback_payload(&id, JobStatus::Completed, b"42"));
    let from = chain.state[&drover_state::keys::storage_key(&actor, b"from")].clone();
    assert_eq!(from, JOB_DISPATCHER_ADDRESS.0.to_vec());
    // Escrow in = two payments + the callback's fee + refunds, to the base unit.
    assert_eq!(
        balance(&chain.state, actor),
        actor_before + escrow - 2 * PRICE - delivery.fee.burned,
        "the actor got back everything but the two payments and the delivery's fee"
    );
    assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Whatever happens to jobs (submits of every mode, right and wrong answers, cancels,
    /// deadlines, delegations), the dispatcher holds exactly the escrows of the open jobs, the
    /// registry exactly what it owes, and each job type's weight tree the weights of the
    /// runners in it.
    #[test]
    fn escrow_and_stake_are_conserved(ops in proptest::collection::vec((0..6u8, 0..3usize, 0..3u8), 1..24)) {
        let mut chain = three_runners();
        let mut jobs: Vec<H256> = Vec::new();
        for (op, who, pick) in ops {
            match op {
                0 | 1 => {
                    let mode = [VerificationMode::None, VerificationMode::Majority, VerificationMode::Unanimous][pick as usize];
                    let runners = 1 + who as u64;
                    let threshold = match mode {
                        VerificationMode::None => 1,
                        VerificationMode::Majority => runners / 2 + 1,
                        VerificationMode::Unanimous => runners,
                    };
                    let spec = JobSpec { timeout_blocks: 4, ..spec(runners, mode, threshold) };
                    jobs.push(submit(&mut chain, &spec));
                }
                2 if !jobs.is_empty() => {
                    let id = jobs[pick as usize % jobs.len()];
                    let record = job(&chain, &id).unwrap();
                    if let Some(a) = record.assigned.get(who) {
                        let result: &[u8] = if pick == 0 { b"b" } else { b"a" };
                        answer(&mut chain, a.runner, id, result);
                    }
                }
                3 if !jobs.is_empty() => {
                    let id = jobs[pick as usize % jobs.len()];
                    send(&mut chain, SUBMITTER, JOB_DISPATCHER_ADDRESS, JobCall::Cancel { job: id }.message().encode(), 0);
                }
                4 => {
                    let delegate = RegistryCall::Delegate { runner: RUNNERS[who] }.message().encode();
                    send(&mut chain, DELEGATOR, RUNNER_REGISTRY_ADDRESS, delegate, 1 + u128::from(pick));
                }
                _ => {
                    chain.block(&[]);
                }
            }
            let held: u128 = jobs.iter().map(|id| job(&chain, id).unwrap()).filter(|j| !j.status.is_final()).map(|j| j.escrow).sum();
            proptest::prop_assert_eq!(balance(&chain.state, JOB_DISPATCHER_ADDRESS), held);
            let mut owed = 0;
            let mut indexed = 0;
            for r in RUNNERS {
                let record = runner(&chain, &r);
                owed += record.stake + record.delegated_stake + record.delegator_rewards;
                owed += record.unbonding.iter().map(|u| u.amount).sum::<u128>();
                if record.type_slots.first().copied().flatten().is_some() {
                    indexed += record.stake + record.delegated_stake;
                }
            }
            proptest::prop_assert_eq!(balance(&chain.state, RUNNER_REGISTRY_ADDRESS), owed);
            proptest::prop_assert_eq!(tree_total(&chain, "echo"), indexed);
        }
    }
}
