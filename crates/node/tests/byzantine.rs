//! One byzantine validator of four, in the deterministic simulation (`common`): the real engine
//! on Commonware's deterministic runtime and simulated network, with latency and jitter but no
//! loss (a lost vote adds the network's own timeouts to whatever the attacker costs; the lossy
//! network has its own tests in `simulation.rs`).
//!
//! Validator 3 is the adversary. For every attack but equivocation it runs the real engine with
//! a [`ProposalRewrite`] that, whenever it leads, proposes a block breaking a validity rule: a
//! call of a looping actor with a `cycles_limit` of 10^12, 4,096 such calls each at the block
//! limit, a transaction finalized earlier, a sender's nonces out of order, a header that
//! under-reports its meters, a transaction signed for another chain. For equivocation it runs
//! Commonware's `Equivocator` (`simplex::mocks`) in place of consensus: two proposals for one
//! view, each to a part of the network.
//!
//! Meanwhile validator 0 takes an honest transfer every 130 ms (simulated). Each run checks that
//! the honest three:
//! - finalized the same blocks and state roots, none holding an attacker's transaction;
//! - kept finalizing: the longest gap between finalized blocks, and the honest transfers'
//!   finality (submission to finalization), stay under one leader timeout plus one
//!   certification timeout (3 s of simulated time);
//! - kept every earlier receipt: each transfer finalized once, successfully, at the same height
//!   on every honest validator, whatever the attacker re-included;
//! - kept every honest pending transaction: one waiting for an earlier nonce that the attacker
//!   included out of order is still pending, never dropped.
//!
//! A verifier that executed a block before refusing it would spend minutes of real time on the
//! looping calls; the validity rule refuses them before any transaction runs. Each attack runs
//! over [`SEEDS`] seeds. The figures (simulated time) are printed per attack:
//! `cargo test -p drover-node --test byzantine -- --nocapture`.

mod common;

use common::{
    Network, Runtime, Slot, VALIDATORS, actor_tx, channels, example_deploy, finalized, finalized_block, height,
    index_dir, launch, mesh, network, runtime_config, steady_link, transfer, wait_all,
};
use commonware_consensus::{
    simplex::{
        elector::RoundRobin,
        mocks::{equivocator, relay::Relay},
    },
    types::Epoch,
};
use commonware_cryptography::Sha256;
use commonware_runtime::{Clock as _, Runner as _, Spawner as _, Supervisor as _, deterministic};
use drover_node::{application::ProposalRewrite, block::Block, engine, intake};
use drover_types::{Address, H256, SecretKey, Transaction, TxStatus, VerifiedTransaction, keccak256, payload::Message};
use parking_lot::Mutex;
use std::{
    collections::BTreeMap,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, SystemTime},
};

/// Seeds each attack runs over.
const SEEDS: u64 = 20;
/// Heights the honest validators finalize while the attacker is armed.
const ATTACK_HEIGHTS: u64 = 10;
/// Honest transfers validator 0 takes, one every [`LOAD_INTERVAL`].
const LOAD_TRANSFERS: u64 = 20;
const LOAD_INTERVAL: Duration = Duration::from_millis(130);
/// Dev key of the honest load.
const LOAD_KEY: u32 = 0;
/// Dev key that deploys the looping actor.
const DEPLOYER_KEY: u32 = 1;
/// Dev key that signs the attacker's transactions (its nonce stays 0: none is ever included).
const ATTACKER_KEY: u32 = 5;
/// Dev key whose nonces the attacker reverses.
const VICTIM_KEY: u32 = 6;
/// One leader timeout plus one certification timeout: the most a view the attacker leads may
/// hold the chain up.
const GAP_BOUND: Duration = Duration::from_secs(3);
/// Block limit of cycles at genesis.
const BLOCK_LIMIT_CYCLES: u64 = 20_000_000;

/// What validator 3 does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attack {
    /// (a) A call of a looping actor with a `cycles_limit` of 10^12.
    EndlessCall,
    /// (b) 4,096 calls of the looping actor, each at the block limit.
    FullBlocks,
    /// (c) A transaction finalized earlier, again.
    Replay,
    /// (d) A sender's next two nonces, the later one first.
    NoncesReversed,
    /// (e) Its own block, with a header that under-reports the cycles it used.
    UnderReported,
    /// (f) A transaction signed for another chain.
    OtherChain,
    /// (g) Two proposals for one view.
    Equivocation,
}

/// A proposer that breaks `attack`'s rule every time it leads, once armed.
struct Byzantine {
    attack: Attack,
    /// The encoded transactions it adds to (or, for [`Attack::FullBlocks`], puts in place of)
    /// its honest block.
    armed: Mutex<Option<Arc<Vec<Vec<u8>>>>>,
    /// Blocks it rewrote.
    rewritten: AtomicUsize,
}

impl ProposalRewrite for Byzantine {
    fn rewrite(&self, honest: &Block) -> Option<Block> {
        let extra = self.armed.lock().clone()?;
        let mut block = honest.clone();
        match self.attack {
            Attack::UnderReported => block.cycles_used = block.cycles_used.checked_sub(1)?,
            Attack::FullBlocks => block.transactions = extra.as_ref().clone(),
            _ => block.transactions.extend(extra.iter().cloned()),
        }
        let hashes: Vec<_> = block.transactions.iter().map(|tx| keccak256(tx)).collect();
        block.transactions_root = drover_node::block::transactions_root(&hashes);
        self.rewritten.fetch_add(1, Ordering::Relaxed);
        Some(block)
    }
}

/// A call of `actor`'s `spin` (a loop that never ends) from the attacker's key, whose balance
/// covers even a limit of 10^12 cycles at 10 base units each.
fn spin(actor: Address, nonce: u64, cycles_limit: u64) -> Transaction {
    let message = Message { handler: "spin".into(), payload: Vec::new() };
    let key = SecretKey::dev(ATTACKER_KEY);
    let call = actor_tx(&key, nonce, Some(actor), message.encode(), cycles_limit);
    Transaction { max_fee_per_cycle: 10, signature: None, ..call }.sign(&key)
}

/// The looping actor and its deploy, from the deployer's key.
fn looping_actor() -> (Address, Transaction) {
    let deploy = example_deploy("infinite_loop", &[]);
    let key = SecretKey::dev(DEPLOYER_KEY);
    (deploy.actor_address(&key.address()), actor_tx(&key, 0, None, deploy.encode(), 2_000_000))
}

/// The transactions `attack` adds to its blocks, when they do not depend on the run.
fn attack_transactions(attack: Attack) -> Vec<Transaction> {
    let (looping, _) = looping_actor();
    match attack {
        Attack::EndlessCall => vec![spin(looping, 0, 10u64.pow(12))],
        Attack::FullBlocks => (0..4_096).map(|nonce| spin(looping, nonce, BLOCK_LIMIT_CYCLES)).collect(),
        // The later nonce first; it also waits in every honest pool for the earlier one.
        Attack::NoncesReversed => vec![transfer(VICTIM_KEY, 1), transfer(VICTIM_KEY, 0)],
        Attack::OtherChain => {
            let key = SecretKey::dev(ATTACKER_KEY);
            let tx = transfer(ATTACKER_KEY, 0);
            vec![Transaction { chain_id: drover_node::devnet::DEV_CHAIN_ID + 1, signature: None, ..tx }.sign(&key)]
        }
        // The first honest transfer, once finalized.
        Attack::Replay => vec![transfer(LOAD_KEY, 0)],
        Attack::UnderReported | Attack::Equivocation => Vec::new(),
    }
}

/// What one run measured, in simulated time.
struct Figures {
    /// Longest time between two consecutive finalized blocks on validator 0 while armed.
    longest_gap: Duration,
    /// Each honest transfer's time from submission to finalization on validator 0.
    finality: Vec<Duration>,
    /// Blocks the attacker rewrote.
    rewritten: usize,
}

fn admit(running: &common::Running, txs: Vec<Transaction>) -> impl Future<Output = ()> {
    let running = running.clone();
    async move {
        let verified: Vec<VerifiedTransaction> = txs.into_iter().map(|tx| tx.verify().unwrap()).collect();
        let verdicts = intake::admit(&running.chain, &running.databases, verified).await;
        assert!(verdicts.iter().all(Result::is_ok), "{verdicts:?}");
    }
}

/// Waits until validator 0 finalized the transaction `hash`.
async fn wait_included(context: &Runtime, slot: &Slot, hash: H256) {
    loop {
        let running = slot.lock().clone().unwrap();
        if running.chain.indexes.transaction(&hash).unwrap().is_some() {
            return;
        }
        context.sleep(Duration::from_millis(100)).await;
    }
}

/// One run of `attack` with `seed`, its attacker adding `attacker_txs`.
fn run(network: &Network, seed: u64, attack: Attack, attacker_txs: &[Transaction]) -> Figures {
    let index_dirs: Vec<_> = (0..VALIDATORS).map(|_| index_dir()).collect();
    deterministic::Runner::new(runtime_config(network, seed)).start(|context| async move {
        let keys = network.keys();
        let oracle = mesh(&context, &keys, steady_link()).await;
        let slots: Vec<Slot> = (0..VALIDATORS).map(|_| Arc::new(Mutex::new(None))).collect();
        let byzantine = Arc::new(Byzantine { attack, armed: Mutex::new(None), rewritten: AtomicUsize::new(0) });
        for (i, slot) in slots.iter().enumerate() {
            let config = network.config(i, index_dirs[i].path(), 0);
            let genesis = network.genesis.clone();
            if i == 3 && attack == Attack::Equivocation {
                let (scheme, _) = engine::signer(&config, &genesis).unwrap();
                let (channels, _control) = channels(&oracle, &keys[i]).await;
                let equivocator = equivocator::Equivocator::<_, _, RoundRobin<Sha256>, Sha256>::new(
                    context.child("equivocator"),
                    equivocator::Config {
                        scheme,
                        elector: RoundRobin::<Sha256>::default(),
                        epoch: Epoch::zero(),
                        relay: Arc::new(Relay::new()),
                    },
                );
                equivocator.start(channels.votes, channels.certificates);
                continue;
            }
            let rewrite = (i == 3).then(|| byzantine.clone() as Arc<dyn ProposalRewrite>);
            launch(&context, &oracle, config, genesis, i as u32, slot.clone(), rewrite).await;
        }
        let honest: Vec<&Slot> = slots[..3].iter().collect();
        wait_all(&context, &honest, 3).await;
        let entry = slots[0].lock().clone().unwrap();

        // The looping actor the attacker calls.
        let (_, deploy_tx) = looping_actor();
        admit(&entry, vec![deploy_tx.clone()]).await;
        wait_included(&context, &slots[0], deploy_tx.hash()).await;

        // Finalization times on validator 0, and the honest load through it.
        let finalized_at: Arc<Mutex<BTreeMap<u64, SystemTime>>> = Arc::default();
        context.child("watch").spawn({
            let (slot, finalized_at) = (slots[0].clone(), finalized_at.clone());
            move |context| async move {
                loop {
                    let tip = height(&slot);
                    finalized_at.lock().entry(tip).or_insert_with(|| context.current());
                    context.sleep(Duration::from_millis(20)).await;
                }
            }
        });
        let submitted: Arc<Mutex<Vec<(H256, SystemTime)>>> = Arc::default();
        // The attacker hears of each transfer first hand too, so its own blocks carry some.
        let attacker = slots[3].lock().clone();
        context.child("load").spawn({
            let (entry, submitted) = (entry.clone(), submitted.clone());
            move |context| async move {
                for nonce in 0..LOAD_TRANSFERS {
                    let tx = transfer(LOAD_KEY, nonce);
                    submitted.lock().push((tx.hash(), context.current()));
                    admit(&entry, vec![tx.clone()]).await;
                    if let Some(attacker) = &attacker {
                        let verified = tx.verify().unwrap();
                        intake::admit(&attacker.chain, &attacker.databases, vec![verified]).await;
                    }
                    context.sleep(LOAD_INTERVAL).await;
                }
            }
        });

        // Arm the attacker.
        match attack {
            Attack::Replay => wait_included(&context, &slots[0], attacker_txs[0].hash()).await,
            Attack::NoncesReversed => {
                for slot in &honest {
                    let running = slot.lock().clone().unwrap();
                    admit(&running, vec![attacker_txs[0].clone()]).await;
                }
            }
            _ => {}
        }
        let attack_hashes: Vec<H256> = attacker_txs.iter().map(Transaction::hash).collect();
        *byzantine.armed.lock() = Some(Arc::new(attacker_txs.iter().map(Transaction::encode).collect()));
        let armed_at = height(&slots[0]);
        wait_all(&context, &honest, armed_at + ATTACK_HEIGHTS).await;
        for nonce in [0, LOAD_TRANSFERS - 1] {
            wait_included(&context, &slots[0], transfer(LOAD_KEY, nonce).hash()).await;
        }

        // Safety: the same blocks and state roots on the honest three, none holding an
        // attacker's transaction.
        let common = honest.iter().map(|slot| height(slot)).min().unwrap();
        let reference = finalized(&entry, common).await;
        for slot in &honest[1..] {
            let running = slot.lock().clone().unwrap();
            assert_eq!(finalized(&running, common).await, reference, "{attack:?} seed {seed}");
        }
        // (The replayed transfer, once, where it was first finalized.)
        let first_finalized = match attack {
            Attack::Replay => entry.chain.indexes.transaction(&attack_hashes[0]).unwrap().map(|tx| tx.height),
            _ => None,
        };
        for h in 1..=common {
            let block = finalized_block(&entry, h).await.unwrap();
            for tx in &block.transactions {
                let hash = keccak256(tx);
                let legitimate = first_finalized == Some(h) && hash == attack_hashes[0];
                assert!(legitimate || !attack_hashes.contains(&hash), "{attack:?} seed {seed}: height {h}");
            }
        }
        // Every earlier receipt stands: each transfer finalized once, successfully, at the same
        // height everywhere.
        let submitted = submitted.lock().clone();
        for (hash, _) in &submitted {
            let mut heights = Vec::new();
            for slot in &honest {
                let running = slot.lock().clone().unwrap();
                let included = running.chain.indexes.transaction(hash).unwrap().expect("finalized");
                let receipt = running.chain.indexes.receipt(hash).unwrap().expect("a receipt");
                assert_eq!((receipt.status, receipt.block_height), (TxStatus::Success, included.height));
                heights.push(included.height);
            }
            assert!(heights.windows(2).all(|pair| pair[0] == pair[1]), "{attack:?} seed {seed}: {heights:?}");
        }
        // No honest pending transaction was dropped by the attacker's blocks.
        if attack == Attack::NoncesReversed {
            for slot in &honest {
                let running = slot.lock().clone().unwrap();
                assert!(running.chain.mempool.contains(&attack_hashes[0]), "{attack:?} seed {seed}: censored");
                assert_eq!(running.chain.mempool.dropped_reason(&attack_hashes[0]), None);
            }
        }

        // Figures, in simulated time.
        finalized_at.lock().entry(height(&slots[0])).or_insert_with(|| context.current());
        let finalized_at = finalized_at.lock().clone();
        let times: Vec<SystemTime> = finalized_at.range(armed_at..).map(|(_, at)| *at).collect();
        let longest_gap =
            times.windows(2).map(|pair| pair[1].duration_since(pair[0]).unwrap_or_default()).max().unwrap_or_default();
        let finality = submitted
            .iter()
            .map(|(hash, at)| {
                let included = entry.chain.indexes.transaction(hash).unwrap().unwrap();
                let (_, seen) = finalized_at.range(included.height..).next().expect("seen finalized");
                seen.duration_since(*at).unwrap_or_default()
            })
            .collect();
        Figures { longest_gap, finality, rewritten: byzantine.rewritten.load(Ordering::Relaxed) }
    })
}

/// The `p`-th percentile of `values` (sorted in place).
fn percentile(values: &mut [Duration], p: usize) -> Duration {
    values.sort();
    values[(values.len() * p / 100).min(values.len() - 1)]
}

/// Runs `attack` over every seed and checks its bounds.
fn check(attack: Attack) {
    let network = network();
    let attacker_txs = attack_transactions(attack);
    let (mut gaps, mut finality, mut rewritten) = (Vec::new(), Vec::new(), 0);
    for seed in 0..SEEDS {
        let figures = run(&network, seed, attack, &attacker_txs);
        assert!(figures.longest_gap <= GAP_BOUND, "{attack:?} seed {seed}: a gap of {:?}", figures.longest_gap);
        gaps.push(figures.longest_gap);
        finality.extend(figures.finality);
        rewritten += figures.rewritten;
    }
    if attack != Attack::Equivocation {
        assert!(rewritten > 0, "{attack:?}: the attacker never led");
    }
    let (p50, p99) = (percentile(&mut finality, 50), percentile(&mut finality, 99));
    let longest = gaps.iter().max().copied().unwrap_or_default();
    println!(
        "{attack:?}: {SEEDS} seeds, {rewritten} byzantine blocks; honest finality p50 {p50:?} p99 {p99:?}; \
         longest gap between finalized blocks {longest:?} (simulated time)"
    );
    assert!(p99 <= GAP_BOUND, "{attack:?}: p99 finality {p99:?}");
}

#[test]
fn a_call_with_a_cycles_limit_of_ten_to_the_twelve_is_refused_before_it_runs() {
    check(Attack::EndlessCall);
}

#[test]
fn a_block_of_4096_calls_each_at_the_block_limit_is_refused_before_it_runs() {
    check(Attack::FullBlocks);
}

#[test]
fn a_finalized_transaction_included_again_is_refused_and_its_receipt_stands() {
    check(Attack::Replay);
}

#[test]
fn nonces_out_of_order_are_refused_and_the_later_one_stays_pending() {
    check(Attack::NoncesReversed);
}

#[test]
fn a_header_that_under_reports_its_meters_is_refused() {
    check(Attack::UnderReported);
}

#[test]
fn a_transaction_signed_for_another_chain_is_refused() {
    check(Attack::OtherChain);
}

#[test]
fn an_equivocating_leader_only_times_out_its_own_views() {
    check(Attack::Equivocation);
}
