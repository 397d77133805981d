//! Deterministic simulation of four validators: the real engine (`engine::start`: marshal,
//! glue's stateful QMDB, threshold Simplex, gossip) on Commonware's deterministic runtime and
//! simulated network, always with latency, jitter and message loss. Each test injects one
//! [`Fault`] after the same start (transfers and a ledger workload admitted): none beyond the
//! lossy network, a validator crashed and restarted, a partition healed, hostile transactions
//! (fresh-key scans at the block's cycle limit), or runners registering and jobs submitted to
//! them (every validator must assign the same runners). Every run checks that no two
//! validators finalized different blocks at any height, that progress resumes after the fault,
//! and that all state roots agree; each seed runs twice and must reproduce the same execution
//! exactly (the runtime's auditor digest). Byzantine validators are `byzantine.rs`'s.

mod common;

use common::{
    Network, Slot, VALIDATORS, actor_tx, connect, disconnect, example_deploy, finalized, height, index_dir, launch,
    lossy_link, mesh, network, runtime_config, system_tx, transfer, wait_all,
};
use commonware_cryptography::sha256;
use commonware_runtime::{Clock as _, Runner as _, deterministic};
use drover_node::intake;
use drover_state::keys;
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, SecretKey, Transaction,
    chain_params::ChainParams,
    governance::{GOVERNANCE_ADDRESS, GovernanceCall},
    job::{JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, Verification, VerificationMode, job_id},
    payload::Message,
    runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall},
};
use parking_lot::Mutex;
use std::{collections::BTreeMap, path::PathBuf, sync::Arc, time::Duration};

/// Mints of the ledger workload: each to its own holder, an `audit` after each.
const LEDGER_MINTS: u64 = 8;
/// Cycles limit of the workloads' deploys and ledger calls.
const WORKLOAD_CYCLES_LIMIT: u64 = 2_000_000;

/// The ledger workload from dev key 1: deploy the example ledger, then mint and `audit` in
/// turns. `audit` iterates the balances in block execution, so validators answer next-key
/// queries from not-yet-finalized parents while proposing and verifying; any disagreement
/// would split the state roots.
fn ledger_workload() -> (Address, Vec<Transaction>) {
    let deploy = example_deploy("ledger", &["storage.kv"]);
    let key = SecretKey::dev(1);
    let ledger = deploy.actor_address(&key.address());
    let tx =
        |nonce: u64, to: Option<Address>, payload: Vec<u8>| actor_tx(&key, nonce, to, payload, WORKLOAD_CYCLES_LIMIT);
    let mut txs = vec![tx(0, None, deploy.encode())];
    for i in 0..LEDGER_MINTS {
        let mint = [&[i as u8 + 1; 20][..], &(i + 1).to_le_bytes()].concat();
        txs.push(tx(1 + 2 * i, Some(ledger), Message { handler: "mint".into(), payload: mint }.encode()));
        txs.push(tx(2 + 2 * i, Some(ledger), Message { handler: "audit".into(), payload: Vec::new() }.encode()));
    }
    (ledger, txs)
}

/// Fresh-key scans of the hostile workload, each reading this many keys nobody wrote: about
/// the most a transaction can read under the block's cycle limit.
const HOSTILE_SCAN_KEYS: u32 = 9_000;
const HOSTILE_SCANS: u32 = 3;
/// Cycles limit of a scan of [`HOSTILE_SCAN_KEYS`] keys (2,004 cycles a read, and the call).
const HOSTILE_SCAN_CYCLES_LIMIT: u64 = 19_000_000;

/// The hostile workload from dev key 2: deploy the fresh-key reader, then scans at the block's
/// cycle limit, each over keys nobody wrote, so every read is a database lookup.
fn hostile_workload() -> (SecretKey, Vec<Transaction>) {
    let deploy = example_deploy("fresh_reader", &["storage.kv"]);
    let key = SecretKey::dev(2);
    let reader = deploy.actor_address(&key.address());
    let mut txs = vec![actor_tx(&key, 0, None, deploy.encode(), WORKLOAD_CYCLES_LIMIT)];
    for scan in 0..HOSTILE_SCANS {
        let payload = [HOSTILE_SCAN_KEYS.to_le_bytes(), (scan * HOSTILE_SCAN_KEYS).to_le_bytes()].concat();
        let message = Message { handler: "scan".into(), payload }.encode();
        txs.push(actor_tx(&key, u64::from(scan) + 1, Some(reader), message, HOSTILE_SCAN_CYCLES_LIMIT));
    }
    (key, txs)
}

/// Runners of the jobs workload: dev keys 3 to 6, registered with stakes of 1 to 4 DRV.
const JOB_RUNNERS: u32 = 4;
/// Jobs of the jobs workload, each asking for two runners.
const JOBS: u64 = 6;

/// The jobs workload: runners register (stake-weighted 1:2:3:4), and dev key 7 submits jobs
/// for two runners each. Assignment is seeded by the parent block's digest, so any validator
/// that drew differently would split the state roots; the run also compares the records.
fn jobs_workload() -> Vec<Transaction> {
    let mut txs = Vec::new();
    for i in 0..JOB_RUNNERS {
        let register = RegistryCall::Register {
            rate_card: RateCard { price_per_job: 10 },
            capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 16 },
        };
        let stake = MIN_RUNNER_STAKE * u128::from(i + 1);
        let key = SecretKey::dev(3 + i);
        txs.push(system_tx(&key, 0, RUNNER_REGISTRY_ADDRESS, register.message().encode(), register.max_cost(), stake));
    }
    let submitter = SecretKey::dev(7);
    for n in 0..JOBS {
        let spec = JobSpec {
            job_type: "echo".into(),
            input: n.to_le_bytes().to_vec(),
            runners: 2,
            verification: Verification { mode: VerificationMode::Majority, threshold: 2 },
            max_price: 10,
            timeout_blocks: 1_000,
            callback: None,
        };
        let call = JobCall::Submit(spec);
        txs.push(system_tx(&submitter, n, JOB_DISPATCHER_ADDRESS, call.message().encode(), call.max_cost(), 20));
    }
    txs
}

/// The cycle target the governance workload votes in.
const GOVERNED_TARGET_CYCLES: u128 = 12_000_000;

/// The governance workload from dev key 8: lock weight, propose a higher cycle target, vote.
fn governance_workload() -> Vec<Transaction> {
    let key = SecretKey::dev(8);
    let lock = GovernanceCall::Lock;
    let propose = GovernanceCall::Propose {
        changes: vec![("target_cycles".into(), GOVERNED_TARGET_CYCLES)],
        description: "a higher cycle target".into(),
    };
    let vote = GovernanceCall::Vote { proposal: 0, support: true };
    let deposit = ChainParams::default().proposal_deposit;
    vec![
        system_tx(&key, 0, GOVERNANCE_ADDRESS, lock.message().encode(), lock.max_cost(), 1_000 * MIN_RUNNER_STAKE),
        system_tx(&key, 1, GOVERNANCE_ADDRESS, propose.message().encode(), propose.max_cost(), deposit),
        system_tx(&key, 2, GOVERNANCE_ADDRESS, vote.message().encode(), vote.max_cost(), 0),
    ]
}

/// The one fault a run injects once the network is up and the workloads are admitted.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// None beyond the network's latency, jitter and loss.
    Loss,
    /// Validator 3 crashes; the other three keep finalizing; it restarts and catches up.
    Crash,
    /// {0, 1} and {2, 3} are cut apart (no quorum on either side), then healed.
    Partition,
    /// Fresh-key scans at the block's cycle limit are sent through validator 0.
    Hostile,
    /// Runners register and jobs are submitted through validator 0.
    Jobs,
    /// A governance proposal raises the cycle target: every validator applies it at the same
    /// height.
    Governance,
}

/// One run with `fault`, checking safety and progress; returns the auditor digest and the
/// common finalized history.
fn run(
    network: &Network,
    seed: u64,
    index_dirs: &[PathBuf],
    fault: Fault,
) -> (String, BTreeMap<u64, (sha256::Digest, sha256::Digest)>) {
    let config = runtime_config(network, seed);
    let index_dirs = index_dirs.to_vec();
    deterministic::Runner::new(config).start(|context| async move {
        let keys = network.keys();
        let oracle = mesh(&context, &keys, lossy_link()).await;
        let config_for = |i: usize, run: usize| network.config(i, &index_dirs[i], run);
        let slots: Vec<Slot> = (0..VALIDATORS).map(|_| Arc::new(Mutex::new(None))).collect();
        let mut handles = Vec::new();
        for (i, slot) in slots.iter().enumerate() {
            let genesis = network.genesis.clone();
            handles.push(launch(&context, &oracle, config_for(i, 0), genesis, i as u32, slot.clone(), None).await);
        }
        let all: Vec<_> = slots.iter().collect();
        wait_all(&context, &all, 5).await;

        // Transactions through validator 0 (gossiped to the others).
        let running = slots[0].lock().clone().unwrap();
        let verdicts = intake::admit(
            &running.chain,
            &running.databases,
            (0..20).map(|n| transfer(0, n).verify().unwrap()).collect(),
        )
        .await;
        assert!(verdicts.iter().all(Result::is_ok), "{verdicts:?}");
        let (ledger, ledger_txs) = ledger_workload();
        let verdicts = intake::admit(
            &running.chain,
            &running.databases,
            ledger_txs.into_iter().map(|tx| tx.verify().unwrap()).collect(),
        )
        .await;
        assert!(verdicts.iter().all(Result::is_ok), "{verdicts:?}");

        let hostile = match fault {
            Fault::Loss => {
                let tip = height(&slots[0]);
                wait_all(&context, &all, tip + 30).await;
                None
            }
            Fault::Crash => {
                // Crash validator 3: the other three (a quorum) keep finalizing.
                handles[3].abort();
                *slots[3].lock() = None;
                let at_crash = height(&slots[0]);
                wait_all(&context, &all[..3], at_crash + 20).await;

                // Restart it: it recovers its state and catches up.
                let genesis = network.genesis.clone();
                handles[3] = launch(&context, &oracle, config_for(3, 1), genesis, 3, slots[3].clone(), None).await;
                let tip = height(&slots[0]);
                wait_all(&context, &all, tip + 5).await;
                None
            }
            Fault::Partition => {
                // Partition {0, 1} from {2, 3}: neither side has a quorum, nothing is finalized.
                for a in &keys[..2] {
                    for b in &keys[2..] {
                        disconnect(&oracle, a, b).await;
                    }
                }
                context.sleep(Duration::from_secs(1)).await;
                let stalled: Vec<_> = slots.iter().map(height).collect();
                context.sleep(Duration::from_secs(10)).await;
                // A validator may still learn of a block finalized before the cut (from its side of the
                // partition), but no height beyond the highest one finalized then can gain a quorum.
                let after: Vec<_> = slots.iter().map(height).collect();
                let highest = |heights: &[u64]| heights.iter().copied().max().unwrap_or(0);
                assert_eq!(highest(&after), highest(&stalled), "finalized without a quorum: {stalled:?} → {after:?}");

                // Heal: progress resumes.
                for a in &keys[..2] {
                    for b in &keys[2..] {
                        connect(&oracle, a, b, lossy_link()).await;
                    }
                }
                let top = stalled.iter().copied().max().unwrap_or(0);
                wait_all(&context, &all, top + 10).await;
                None
            }
            Fault::Hostile => {
                let (attacker, txs) = hostile_workload();
                let sent = txs.len() as u64;
                let verdicts = intake::admit(
                    &running.chain,
                    &running.databases,
                    txs.into_iter().map(|tx| tx.verify().unwrap()).collect(),
                )
                .await;
                assert!(verdicts.iter().all(Result::is_ok), "{verdicts:?}");
                let tip = height(&slots[0]);
                wait_all(&context, &all, tip + 30).await;
                Some((attacker, sent))
            }
            Fault::Governance => {
                let admit = |txs: Vec<Transaction>| {
                    let running = running.clone();
                    async move {
                        let verdicts = intake::admit(
                            &running.chain,
                            &running.databases,
                            txs.into_iter().map(|tx| tx.verify().unwrap()).collect(),
                        )
                        .await;
                        assert!(verdicts.iter().all(Result::is_ok), "{verdicts:?}");
                    }
                };
                admit(governance_workload()).await;
                let tip = height(&slots[0]);
                wait_all(&context, &all, tip + 10).await;
                let key = drover_state::governance::state_key(&drover_state::governance::proposal_key(0));
                let bytes = running.databases.read().await.get(&key).await.unwrap().expect("the proposal");
                let proposal = drover_state::governance::ProposalRecord::decode(&bytes).unwrap();
                wait_all(&context, &all, proposal.executable_height).await;
                let execute = GovernanceCall::Execute { proposal: 0 };
                admit(vec![system_tx(
                    &SecretKey::dev(9),
                    0,
                    GOVERNANCE_ADDRESS,
                    execute.message().encode(),
                    execute.max_cost(),
                    0,
                )])
                .await;
                let tip = height(&slots[0]);
                wait_all(&context, &all, tip + 10).await;
                None
            }
            Fault::Jobs => {
                let verdicts = intake::admit(
                    &running.chain,
                    &running.databases,
                    jobs_workload().into_iter().map(|tx| tx.verify().unwrap()).collect(),
                )
                .await;
                assert!(verdicts.iter().all(Result::is_ok), "{verdicts:?}");
                let tip = height(&slots[0]);
                wait_all(&context, &all, tip + 30).await;
                None
            }
        };
        // Progress after the fault, and a history long enough to compare.
        let tip = slots.iter().map(height).max().unwrap_or(0);
        wait_all(&context, &all, tip.max(25) + 10).await;

        let jobs_seen = Mutex::new(BTreeMap::new());
        let executed_at: Mutex<Option<u64>> = Mutex::new(None);
        // Safety: the same block (and state root) at every height on every validator.
        let common = slots.iter().map(height).min().unwrap();
        let first = slots[0].lock().clone().unwrap();
        let reference = finalized(&first, common).await;
        for slot in &slots[1..] {
            let running = slot.lock().clone().unwrap();
            assert_eq!(finalized(&running, common).await, reference);
        }
        // The transfers were executed everywhere.
        for slot in &slots {
            let running = slot.lock().clone().unwrap();
            let account = intake::read_account(&running.chain, &running.databases, &Address([0x55; 20])).await;
            assert_eq!(account.unwrap().unwrap().balance, 20 * 1_000);
            // The last audit summed every mint.
            let supply = running.databases.read().await.get(&keys::storage_key(&ledger, b"supply")).await.unwrap();
            let minted: u64 = (1..=LEDGER_MINTS).sum();
            assert_eq!(supply, Some(minted.to_le_bytes().to_vec()));
            // Every job was assigned two runners, the same on every validator (the records are
            // compared; the state roots above cover the rest).
            if matches!(fault, Fault::Jobs) {
                let submitter = SecretKey::dev(7).address();
                let db = running.databases.read().await;
                for n in 0..JOBS {
                    let key = drover_state::job::state_key(&drover_state::job::job_key(&job_id(&submitter, n)));
                    let record =
                        drover_state::job::JobRecord::decode(&db.get(&key).await.unwrap().expect("a job")).unwrap();
                    assert_eq!(record.assigned.len(), 2, "job {n}: {record:?}");
                    jobs_seen.lock().entry(n).or_insert_with(|| record.assigned.clone());
                    assert_eq!(jobs_seen.lock()[&n], record.assigned, "job {n} assigned differently");
                }
            }
            // The proposal was executed at the same height everywhere, and its value is in force.
            if matches!(fault, Fault::Governance) {
                let db = running.databases.read().await;
                let key = drover_state::governance::state_key(&drover_state::governance::proposal_key(0));
                let proposal =
                    drover_state::governance::ProposalRecord::decode(&db.get(&key).await.unwrap().unwrap()).unwrap();
                let closed = proposal.closed_height.expect("executed");
                assert_eq!(*executed_at.lock().get_or_insert(closed), closed, "executed at different heights");
                let params = drover_state::governance::decode_params(
                    &db.get(&drover_state::governance::params_state_key()).await.unwrap().unwrap(),
                )
                .unwrap();
                assert_eq!(u128::from(params.target_cycles), GOVERNED_TARGET_CYCLES);
            }
            // Every hostile transaction was included (its nonce used) while the chain went on.
            if let Some((attacker, sent)) = &hostile {
                let account = intake::read_account(&running.chain, &running.databases, &attacker.address()).await;
                assert_eq!(account.unwrap().unwrap().nonce, *sent);
            }
        }
        (context.auditor().state(), reference)
    })
}

/// Runs `fault` twice for each seed: both runs must finalize the same history through the same
/// execution.
fn check(fault: Fault) {
    let network = network();
    for seed in [1, 2] {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                let dirs: Vec<_> = (0..VALIDATORS).map(|_| index_dir()).collect();
                let paths: Vec<_> = dirs.iter().map(|d| d.path().to_path_buf()).collect();
                run(&network, seed, &paths, fault)
            })
            .collect();
        let [(first_audit, first_history), (second_audit, second_history)] = &runs[..] else { unreachable!() };
        assert_eq!(first_history, second_history, "{fault:?}, seed {seed}: runs diverged");
        assert_eq!(first_audit, second_audit, "{fault:?}, seed {seed}: not deterministic");
        assert!(first_history.len() > 30, "{fault:?}, seed {seed}: too little progress");
    }
}

#[test]
fn four_validators_finalize_through_latency_jitter_and_loss() {
    check(Fault::Loss);
}

#[test]
fn a_crashed_validator_restarts_and_catches_up_while_the_others_finalize() {
    check(Fault::Crash);
}

#[test]
fn a_partition_without_quorum_finalizes_nothing_and_healing_resumes_finality() {
    check(Fault::Partition);
}

#[test]
fn fresh_key_scans_at_the_block_limit_do_not_stall_four_validators() {
    check(Fault::Hostile);
}

#[test]
fn four_validators_assign_the_same_runners_to_every_job() {
    check(Fault::Jobs);
}

#[test]
fn four_validators_apply_a_governance_change_at_the_same_height() {
    check(Fault::Governance);
}
