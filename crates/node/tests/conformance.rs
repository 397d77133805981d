//! Consensus conformance: a fixed workload from genesis that touches every family of the
//! protocol, whose consensus output is pinned in `tests/conformance.toml`, as Commonware pins the
//! roots of its storage (`commonware-storage`: `qmdb/conformance.rs` and `conformance.toml`).
//! For every block the file holds what all validators must agree on: the block digest, the
//! state root, the receipts and transactions roots, the state-sync target (ops root and
//! operation range), the meters, the basefees and the timestamp. Any change to consensus output
//! (execution, fees, the state layout, QMDB, the block encoding, the proposer's or the
//! verifier's rules) fails `the_workload_reproduces_the_pinned_consensus_output` with the first
//! height that differs and the fields that differ there.
//!
//! # Regenerating the file
//!
//! Only on purpose, for a change meant to alter consensus output:
//!
//! ```text
//! DROVER_CONFORMANCE_REGENERATE=1 cargo test -p drover-node --test conformance
//! ```
//!
//! rewrites `tests/conformance.toml` from the workload (after the same checks that every step
//! succeeded); commit it with the change and say in the commit message why the output changed.
//! Without the variable the test only compares.
//!
//! # What runs, and why not the whole engine
//!
//! Two instances of the node's application (`App`: `propose`, `process`, `capture`,
//! `finalized`), each over its own state database (QMDB with the engine's configuration) and
//! its own indexes, on Commonware's deterministic runtime, from a genesis written here (fixed
//! validator key, group key, timestamp, allocations and parameters). For each step the
//! proposer admits the step's transactions through the node's intake and proposes a block; the
//! verifier processes that block as a peer does (the validity rule before execution, then
//! re-execution and the check of every header commitment) and must reach the same state; both
//! then finalize it as glue does (capture, apply, finalized).
//!
//! Simplex, marshal and p2p do not run. What they contribute to a block is its consensus
//! context (view, leader, parent view) and, through when the leader proposes, its timestamp:
//! in a live network both follow timing (leader timeouts, message delays, the order in which a
//! runtime polls tasks), which says nothing about whether validators agree. So each block gets
//! the context a lone validator that never times out gives it (view = height, its parent one
//! view earlier), and block `h` the timestamp genesis + `h` block intervals: the proposer waits
//! out its interval after the parent on the runtime's clock, which advances a millisecond per
//! scheduling round and jumps to the next timer when every task waits, and a block's work here
//! takes far fewer rounds than an interval (each block checks its timestamp). The pinned values
//! then change exactly when the output for the same blocks does; consensus itself is the
//! simulations' subject (`simulation.rs`, `byzantine.rs`).
//!
//! # The workload
//!
//! One block per step, every transaction of a step included in its block, every receipt and
//! every system run (timer fire, mailbox delivery, job callback) a success, and each family's
//! effect checked in the state at the end: a file pinning failed transactions would pin
//! nothing.
//!
//! | step | what |
//! | --- | --- |
//! | genesis | an empty block 1, which applies the genesis allocations |
//! | transfers | to new accounts (the runners, the relay, a fresh address) and to existing ones |
//! | deploys | the counter, alarm, two pingers, the job client and the library user; the library `fixed` published |
//! | registrations | three runners, a storage relay, a governance lock, a token, a secret |
//! | calls | counter `increment`, alarm `arm` (timer), pinger `start` (mailbox), `library_call`, a job with a callback, token transfer and approve, a volume, a proposal, a secret grant |
//! | answers | the assigned runners' results, token `transfer_from` and `mint`, the relay's commit, the vote, the counter's upgrade |
//! | upgraded | the upgraded counter called; the timer fires, the job's callback is delivered |
//! | idle | empty blocks while the pingers finish and the proposal's vote and timelock run out |
//! | execute | the proposal executed: a higher cycle target from the next block on |
//! | closing | a transfer under the new parameters |

use commonware_consensus::{
    marshal::ancestry,
    types::{Epoch, Round, View},
};
use commonware_cryptography::{
    Digested, Digestible as _, Signer as _, bls12381::primitives::group::Scalar, ed25519, sha256,
};
use commonware_glue::stateful::{Application as _, Finality, Input, db::DatabaseSet as _};
use commonware_math::algebra::CryptoGroup as _;
use commonware_runtime::{Runner as _, Supervisor as _, buffer::paged::CacheRef, deterministic};
use commonware_utils::{NZU16, NZUsize};
use drover_execution::SystemRunKind;
use drover_node::{
    application::App,
    block::{Block, BlockContext},
    chain::{ChainConfig, ChainShared, ExecutedBlock},
    databases::{Databases, SealedBatch},
    engine,
    genesis::{AllocationFile, Genesis, GenesisFile},
    intake, keys,
};
use drover_state::keys::storage_key;
use drover_types::{
    Address, H256, SecretKey, Transaction, TxStatus,
    chain_params::ChainParams as GovernedParams,
    governance::{GOVERNANCE_ADDRESS, GovernanceCall},
    job::{Callback, JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, JobStatus, Verification, VerificationMode, job_id},
    library::{LIBRARY_ADDRESS, LibraryCall},
    params::{BASE_UNITS_PER_DRV, system_call_limits},
    payload::{ACTOR_UPGRADES_ADDRESS, Deploy, Manifest, Message, Upgrade},
    runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall},
    secrets::{SECRETS_ADDRESS, SecretCall},
    storage::{
        MIN_RELAY_STAKE, RELAY_REGISTRY_ADDRESS, RelayCall, RelaySettings, STORAGE_MANAGER_ADDRESS, StorageCall,
    },
    system_call::SystemCall,
    token::{self, NewToken, TOKENS_ADDRESS, TokenCall},
    validity::intrinsic_cost,
};
use serde::{Deserialize, Serialize};
use std::{
    collections::BTreeMap,
    fmt,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, UNIX_EPOCH},
};

/// Set to `1` to rewrite the pinned file instead of comparing with it (see the module docs).
const REGENERATE_VAR: &str = "DROVER_CONFORMANCE_REGENERATE";

/// The pinned file, relative to this crate.
const PINNED_FILE: &str = "tests/conformance.toml";
/// How to regenerate it, for the failure message.
const REGENERATE_COMMAND: &str = "DROVER_CONFORMANCE_REGENERATE=1 cargo test -p drover-node --test conformance";

/// What the pinned file starts with (then the command that writes it): it is written by the
/// test, never by hand.
const PINNED_HEADER: &str = "\
# Consensus output of the conformance workload (crates/node/tests/conformance.rs), block by
# block. Written by the test; never edit it by hand. Regenerate only for a change meant to alter
# consensus output, and say why in the commit message:
";

const CHAIN_ID: u64 = 100;
/// The secret of the genesis group key (nothing in the workload signs with it).
const GROUP_SECRET: u64 = 7;
/// The genesis timestamp (2026-01-01T00:00:00Z).
const GENESIS_TIMESTAMP_MS: u64 = 1_767_225_600_000;
/// The proposer's block interval: block `h` is stamped genesis + `h` intervals.
const BLOCK_INTERVAL_MS: u64 = 1_000;
/// Balance of each funded development key.
const DEV_BALANCE: u128 = 1_000_000 * BASE_UNITS_PER_DRV;
/// Development keys funded at genesis: `SecretKey::dev(0..FUNDED_KEYS)`.
const FUNDED_KEYS: u32 = 10;
/// What the first step sends each key that starts without an account.
const NEW_ACCOUNT_FUNDING: u128 = 100 * BASE_UNITS_PER_DRV;
/// Limits of a call of an example actor.
const ACTOR_CALL_LIMITS: (u64, u64) = (2_000_000, 100_000);
/// Limits of a deploy or an upgrade beyond its intrinsic cost.
const CODE_LIMITS_MARGIN: (u64, u64) = (100_000, 1_000);
/// Most base units per cycle and per cell any transaction pays: far above any basefee of the run.
const MAX_FEE: u128 = 1_000;
/// Blocks a proposal is open for votes, and its timelock, in the workload's genesis: short, so
/// that the workload executes it a few blocks later.
const VOTING_PERIOD_BLOCKS: u128 = 5;
const TIMELOCK_BLOCKS: u128 = 2;
/// The cycle target the workload's proposal votes in.
const GOVERNED_TARGET_CYCLES: u128 = 12_000_000;
/// The library user's `compute` operands: `A × B / C`.
const MUL_DIV: (u64, u64, u64) = (1_000, 3, 7);
/// The result every runner of the job answers.
const JOB_RESULT: &[u8] = b"42";
/// Price of a job's runner (and most a job pays one).
const JOB_PRICE: u128 = 10;
/// Cycles the job's callback may use.
const CALLBACK_CYCLES: u64 = 200_000;
/// Bytes the relay commits to the volume.
const COMMITTED_BYTES: u64 = 4_096;
/// The escrow of the job: its runners' pay and its callback's budget.
const JOB_ESCROW: u128 = 2 * JOB_PRICE + 10_000_000;

/// The second version of the counter: `increment` adds ten. Same manifest, same storage.
const COUNTER_V2: &str = r#"(module
  (import "drover" "storage_get" (func $storage_get (param i32 i32 i32 i32) (result i32)))
  (import "drover" "storage_set" (func $storage_set (param i32 i32 i32 i32)))
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "count")
  (func (export "increment")
    (i64.store (i32.const 32) (i64.const 0))
    (drop (call $storage_get (i32.const 0) (i32.const 5) (i32.const 32) (i32.const 8)))
    (i64.store (i32.const 32) (i64.add (i64.load (i32.const 32)) (i64.const 10)))
    (call $storage_set (i32.const 0) (i32.const 5) (i32.const 32) (i32.const 8))
    (call $set_result (i32.const 32) (i32.const 8))))"#;

type Runtime = deterministic::Context;

/// One block's consensus output, as the pinned file holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct PinnedBlock {
    height: u64,
    /// The workload step the block belongs to.
    step: String,
    transactions: u64,
    timestamp_ms: u64,
    transactions_root: String,
    receipts_root: String,
    cycles_used: u64,
    cells_used: u64,
    basefee_cycle: u64,
    basefee_cell: u64,
    state_root: String,
    ops_root: String,
    /// The state-sync operation range: sync boundary, operation count.
    op_range: [u64; 2],
    digest: String,
}

/// A field of [`PinnedBlock`], compared in this order: the first difference a reader should
/// look at comes first (the digest last, since it differs whenever anything else does).
type Field = (&'static str, fn(&PinnedBlock) -> String);

const FIELDS: [Field; 13] = [
    ("step", |b| b.step.clone()),
    ("transactions", |b| b.transactions.to_string()),
    ("timestamp_ms", |b| b.timestamp_ms.to_string()),
    ("transactions_root", |b| b.transactions_root.clone()),
    ("receipts_root", |b| b.receipts_root.clone()),
    ("cycles_used", |b| b.cycles_used.to_string()),
    ("cells_used", |b| b.cells_used.to_string()),
    ("basefee_cycle", |b| b.basefee_cycle.to_string()),
    ("basefee_cell", |b| b.basefee_cell.to_string()),
    ("state_root", |b| b.state_root.clone()),
    ("ops_root", |b| b.ops_root.clone()),
    ("op_range", |b| format!("{:?}", b.op_range)),
    ("digest", |b| b.digest.clone()),
];

impl PinnedBlock {
    fn of(step: &str, block: &Block) -> Self {
        let narrow = |basefee: u128| u64::try_from(basefee).expect("a basefee of the workload fits in u64");
        PinnedBlock {
            height: block.height.get(),
            step: step.to_owned(),
            transactions: block.transactions.len() as u64,
            timestamp_ms: block.timestamp_ms,
            transactions_root: block.transactions_root.to_string(),
            receipts_root: block.receipts_root.to_string(),
            cycles_used: block.cycles_used,
            cells_used: block.cells_used,
            basefee_cycle: narrow(block.basefee_cycle),
            basefee_cell: narrow(block.basefee_cell),
            state_root: block.state_root.to_string(),
            ops_root: block.ops_root.to_string(),
            op_range: [block.range.start().as_u64(), block.range.end().as_u64()],
            digest: block.digest().to_string(),
        }
    }
}

/// The pinned file's contents.
#[derive(Debug, Serialize, Deserialize)]
struct PinnedFile {
    block: Vec<PinnedBlock>,
}

fn pinned_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(PINNED_FILE)
}

fn read_pinned() -> Vec<PinnedBlock> {
    let path = pinned_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("cannot read {}: {e}; write it with {REGENERATE_VAR}=1 (see the module docs)", path.display())
    });
    let file: PinnedFile =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not a pinned file: {e}", path.display()));
    file.block
}

fn write_pinned(blocks: &[PinnedBlock]) {
    let body = toml::to_string(&PinnedFile { block: blocks.to_vec() }).expect("the pinned blocks serialize");
    let text = format!("{PINNED_HEADER}#   {REGENERATE_COMMAND}\n\n{body}");
    std::fs::write(pinned_path(), text).expect("the pinned file is writable");
}

/// Where the produced blocks first depart from the pinned ones.
#[derive(Debug, PartialEq, Eq)]
enum Divergence {
    /// At `height`, these fields differ: (field, pinned, produced), in [`FIELDS`] order.
    Block { height: u64, fields: Vec<(&'static str, String, String)> },
    /// Every common height agrees, but the workload produced another number of blocks.
    Length { pinned: usize, produced: usize },
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Divergence::Block { height, fields } => {
                let names: Vec<_> = fields.iter().map(|(name, _, _)| *name).collect();
                writeln!(f, "consensus output changed at height {height}, in: {}", names.join(", "))?;
                for (name, pinned, produced) in fields {
                    writeln!(f, "  {name}: pinned {pinned}, now {produced}")?;
                }
                Ok(())
            }
            Divergence::Length { pinned, produced } => {
                writeln!(
                    f,
                    "the workload produced {produced} blocks; the file pins {pinned} (every common height agrees)"
                )
            }
        }
    }
}

/// The first divergence of `produced` from `pinned`, if any.
fn compare(pinned: &[PinnedBlock], produced: &[PinnedBlock]) -> Result<(), Divergence> {
    for (want, got) in pinned.iter().zip(produced) {
        let fields: Vec<_> = FIELDS
            .iter()
            .map(|(name, value)| (*name, value(want), value(got)))
            .filter(|(_, pinned, produced)| pinned != produced)
            .collect();
        if want.height != got.height || !fields.is_empty() {
            return Err(Divergence::Block { height: want.height, fields });
        }
    }
    match pinned.len() == produced.len() {
        true => Ok(()),
        false => Err(Divergence::Length { pinned: pinned.len(), produced: produced.len() }),
    }
}

/// The workload's genesis: one validator with a fixed key, the first ten development keys
/// funded, governance quick enough to run within the workload.
fn genesis() -> Genesis {
    let validator = ed25519::PrivateKey::from_seed(0).public_key();
    // Nothing of the workload is signed with the group key: any fixed one does.
    let group_key = keys::Identity::generator() * &Scalar::from_u64(GROUP_SECRET);
    let params = BTreeMap::from([
        ("voting_period_blocks".to_owned(), VOTING_PERIOD_BLOCKS),
        ("timelock_blocks".to_owned(), TIMELOCK_BLOCKS),
    ]);
    let file = GenesisFile {
        chain_id: CHAIN_ID,
        network: "drover-conformance".into(),
        timestamp_ms: GENESIS_TIMESTAMP_MS,
        validators: vec![keys::encode_hex(&validator)],
        identity: keys::encode_hex(&group_key),
        fees: drover_execution::FeeParams::default(),
        params,
        allocations: (0..FUNDED_KEYS)
            .map(|i| AllocationFile { address: SecretKey::dev(i).address().to_string(), balance: DEV_BALANCE })
            .collect(),
    };
    Genesis::from_file(file).expect("a valid genesis")
}

/// One validator's application, state database and chain state.
struct Node {
    app: App,
    chain: Arc<ChainShared>,
    databases: Databases<Runtime>,
    _indexes: tempfile::TempDir,
}

impl Node {
    async fn start(context: &Runtime, name: &'static str, genesis: &Genesis, genesis_block: &Block) -> Self {
        let indexes = tempfile::tempdir().expect("a temporary directory");
        let params = ChainConfig {
            genesis: genesis.clone(),
            block_interval_ms: BLOCK_INTERVAL_MS,
            tips_account: Address([0x7e; 20]),
            height_file: None,
            account_cache_entries: drover_node::chain::ACCOUNT_CACHE_ENTRIES_DEFAULT,
        };
        let scope = context.child(name);
        let chain = Arc::new(
            ChainShared::open(params, drover_mempool::Config::default(), indexes.path(), &scope.child("chain"))
                .expect("the chain state opens"),
        );
        let config = engine::qmdb_config::<Runtime>(name, CacheRef::new(NZU16!(4096), NZUsize!(64)));
        let databases = Databases::init(scope.child("state"), config, None).await;
        let app = App::new(genesis_block.clone(), Arc::clone(&chain), None);
        Node { app, chain, databases, _indexes: indexes }
    }

    /// Finalizes `block`, whose state is `merkleized`, as glue does.
    async fn finalize(&mut self, context: &Runtime, block: &Block, merkleized: SealedBatch<Runtime>) {
        let at = || (context.child("finalize"), block.context.clone());
        self.app.capture(at(), block, &merkleized, self.databases.readers()).await;
        self.databases.apply(merkleized).await;
        self.app.finalized(at(), block, (), self.databases.readers()).await;
    }

    async fn read(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.databases.read().await.get(&key.to_vec()).await.expect("the state database answers")
    }
}

/// The chain the workload builds: a proposer and a verifier, the last finalized block, the
/// senders' next nonces and the pinned output so far.
struct Chain {
    context: Runtime,
    leader: ed25519::PublicKey,
    proposer: Node,
    verifier: Node,
    tip: Block,
    nonces: BTreeMap<Address, u64>,
    produced: Vec<PinnedBlock>,
    /// Every system run of the chain, with the height it ran at.
    system_runs: Vec<(u64, drover_execution::SystemRun)>,
}

impl Chain {
    async fn start(context: Runtime) -> Self {
        let genesis = genesis();
        let genesis_block = engine::genesis_block::<Runtime>(&genesis).expect("a genesis block");
        let proposer = Node::start(&context, "proposer", &genesis, &genesis_block).await;
        let verifier = Node::start(&context, "verifier", &genesis, &genesis_block).await;
        Chain {
            context,
            leader: genesis.validators[0].clone(),
            proposer,
            verifier,
            tip: genesis_block,
            nonces: BTreeMap::new(),
            produced: Vec::new(),
            system_runs: Vec::new(),
        }
    }

    fn height(&self) -> u64 {
        self.tip.height.get()
    }

    /// A transaction from `key` with its next nonce, signed.
    fn tx(
        &mut self,
        key: &SecretKey,
        to: Option<Address>,
        payload: Vec<u8>,
        value: u128,
        limits: (u64, u64),
    ) -> Transaction {
        let nonce = self.nonces.entry(key.address()).or_default();
        let tx = Transaction {
            chain_id: CHAIN_ID,
            nonce: *nonce,
            to,
            value,
            cycles_limit: limits.0,
            cells_limit: limits.1,
            max_fee_per_cycle: MAX_FEE,
            max_fee_per_cell: MAX_FEE,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload,
            signature: None,
        };
        *nonce += 1;
        tx.sign(key)
    }

    fn transfer(&mut self, key: &SecretKey, to: Address, value: u128) -> Transaction {
        self.tx(key, Some(to), Vec::new(), value, (drover_types::params::TRANSFER_CYCLES, 0))
    }

    /// A deploy or an upgrade (`payload` to `to`) with limits covering its intrinsic cost.
    fn code_tx(&mut self, key: &SecretKey, to: Option<Address>, payload: Vec<u8>, value: u128) -> Transaction {
        let probe = Transaction {
            chain_id: CHAIN_ID,
            nonce: 0,
            to,
            value,
            cycles_limit: 0,
            cells_limit: 0,
            max_fee_per_cycle: 0,
            max_fee_per_cell: 0,
            tip_per_cycle: 0,
            tip_per_cell: 0,
            payload: payload.clone(),
            signature: None,
        };
        let intrinsic = intrinsic_cost(&probe);
        let limits = (intrinsic.cycles + CODE_LIMITS_MARGIN.0, intrinsic.cells + CODE_LIMITS_MARGIN.1);
        self.tx(key, to, payload, value, limits)
    }

    /// A deploy of `code` from `key`; answers it and the actor's address.
    fn deploy(
        &mut self,
        key: &SecretKey,
        code: Vec<u8>,
        manifest: &[&str],
        salt: &[u8],
        value: u128,
    ) -> (Transaction, Address) {
        let deploy = Deploy {
            code,
            manifest: Manifest::new(manifest.iter().map(|e| e.to_string()).collect()),
            salt: salt.to_vec(),
            init: None,
        };
        let actor = deploy.actor_address(&key.address());
        (self.code_tx(key, None, deploy.encode(), value), actor)
    }

    fn call(&mut self, key: &SecretKey, actor: Address, handler: &str, payload: Vec<u8>) -> Transaction {
        let message = Message { handler: handler.into(), payload }.encode();
        self.tx(key, Some(actor), message, 0, ACTOR_CALL_LIMITS)
    }

    /// A call of the system actor `to`, with limits that cover `cost`.
    fn system(&mut self, key: &SecretKey, to: Address, message: Message, cost: (u64, u64), value: u128) -> Transaction {
        let payload = message.encode();
        let limits = system_call_limits(payload.len(), cost);
        self.tx(key, Some(to), payload, value, limits)
    }

    /// Runs `txs` as the next block, labelled `step`: admitted through the node's intake,
    /// proposed, verified by the other node, finalized on both. Panics unless every
    /// transaction is included and succeeds and every system run of the block succeeds.
    async fn block(&mut self, step: &str, txs: Vec<Transaction>) -> Arc<ExecutedBlock> {
        let height = self.height() + 1;
        let verified: Vec<_> = txs.into_iter().map(|tx| tx.verify().expect("a signed transaction")).collect();
        let count = verified.len();
        let verdicts = intake::admit(&self.proposer.chain, &self.proposer.databases, verified).await;
        for (index, verdict) in verdicts.iter().enumerate() {
            assert!(verdict.is_ok(), "{step} (height {height}): transaction {index} not admitted: {verdict:?}");
        }

        let parent = Digested::precomputed(self.tip.clone(), self.tip.digest());
        let context = BlockContext {
            round: Round::new(Epoch::zero(), View::new(height)),
            leader: self.leader.clone(),
            parent: (View::new(height - 1), self.tip.digest()),
        };
        let batches = self.proposer.databases.new_batches().await;
        let proposed = self
            .proposer
            .app
            .propose(
                (self.context.child("propose"), context.clone()),
                ancestry::from_iter([parent.clone()]),
                batches,
                Input { upstream: (), provider: () },
            )
            .await
            .unwrap_or_else(|| panic!("{step}: no block proposed at height {height}"));
        let block = proposed.block;
        let digest = block.digest();
        assert_eq!(block.height.get(), height);
        assert_eq!(
            block.timestamp_ms,
            GENESIS_TIMESTAMP_MS + height * BLOCK_INTERVAL_MS,
            "{step}: the proposer stamped block {height} off its interval (the runtime's clock moved while it worked)"
        );
        assert!(Databases::matches_sync_targets(
            &proposed.merkleized,
            &<App as commonware_glue::stateful::Application<Runtime>>::sync_targets(&block)
        ));
        let executed = self.proposer.chain.executed(&digest).expect("the proposer keeps its block's record");
        assert_eq!(executed.transactions.len(), count, "{step} (height {height}): not every transaction was included");
        for (index, receipt) in executed.receipts.iter().enumerate() {
            assert_eq!(
                receipt.status,
                TxStatus::Success,
                "{step} (height {height}): transaction {index} to {:?}: {:?} {:?}",
                receipt.to,
                receipt.error,
                receipt.revert_reason
            );
        }
        for run in &executed.system_runs {
            assert_eq!(run.status, TxStatus::Success, "{step} (height {height}): system run {run:?}");
            self.system_runs.push((height, run.clone()));
        }

        // A peer verifies the block from its bytes, as a candidate.
        let received = Digested::precomputed(block.clone(), digest);
        let batches = self.verifier.databases.new_batches().await;
        let verified = self
            .verifier
            .app
            .process(
                (self.context.child("process"), block.context.clone()),
                ancestry::from_iter([received, parent]),
                batches,
                Finality::Candidate,
            )
            .await
            .unwrap_or_else(|| panic!("{step}: the verifier refused block {height}"));
        assert_eq!(verified.root(), block.state_root, "{step}: the verifier reached another state at {height}");

        self.proposer.finalize(&self.context, &block, proposed.merkleized).await;
        self.verifier.finalize(&self.context, &block, verified).await;
        assert_eq!(self.proposer.chain.mempool.len(), 0, "{step}: transactions left in the pool after {height}");
        self.produced.push(PinnedBlock::of(step, &block));
        self.tip = block;
        executed
    }

    async fn storage(&self, actor: &Address, key: &[u8]) -> Option<Vec<u8>> {
        self.proposer.read(&storage_key(actor, key)).await
    }
}

/// The code of the example actor `actors/{name}.wat`.
fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    wat::parse_file(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn u64_le(bytes: Option<Vec<u8>>) -> u64 {
    let bytes: [u8; 8] = bytes.expect("a stored value").try_into().expect("8 bytes");
    u64::from_le_bytes(bytes)
}

/// Runs the workload (see the module docs) and answers its consensus output.
fn run_workload() -> Vec<PinnedBlock> {
    let start = UNIX_EPOCH + Duration::from_millis(GENESIS_TIMESTAMP_MS);
    let config = deterministic::Config::default().with_seed(0).with_start_time(start);
    deterministic::Runner::new(config).start(|context| async move {
        let mut chain = Chain::start(context).await;
        let dev = SecretKey::dev;
        let runners = [dev(10), dev(11), dev(12)];
        let relay = dev(13);
        let fresh = Address([0x5a; 20]);

        // Block 1 applies the genesis allocations: nobody has an account before it.
        chain.block("genesis", Vec::new()).await;

        // Transfers: to new accounts, then to existing ones.
        let mut txs = Vec::new();
        for key in runners.iter().chain([&relay]) {
            txs.push(chain.transfer(&dev(0), key.address(), NEW_ACCOUNT_FUNDING));
        }
        txs.push(chain.transfer(&dev(0), dev(1).address(), BASE_UNITS_PER_DRV));
        txs.push(chain.transfer(&dev(9), fresh, 1_000));
        txs.push(chain.transfer(&dev(9), fresh, 2_000));
        chain.block("transfers", txs).await;

        // Deploys, and the library published.
        let (deploy_counter, counter) = chain.deploy(&dev(1), example("counter"), &["storage.kv"], b"", 0);
        let (deploy_alarm, alarm) =
            chain.deploy(&dev(2), example("alarm"), &["storage.kv", "timer.schedule"], b"", BASE_UNITS_PER_DRV);
        let pinger_manifest = ["storage.kv", "mailbox.send"];
        let (deploy_ping, pinger_a) =
            chain.deploy(&dev(3), example("pinger"), &pinger_manifest, b"a", BASE_UNITS_PER_DRV);
        let (deploy_pong, pinger_b) =
            chain.deploy(&dev(3), example("pinger"), &pinger_manifest, b"b", BASE_UNITS_PER_DRV);
        let (deploy_client, client) =
            chain.deploy(&dev(4), example("job_client"), &["storage.kv", "job.submit"], b"", BASE_UNITS_PER_DRV);
        let publish = LibraryCall::Publish {
            name: "fixed".into(),
            code: example("lib_fixed"),
            manifest: Manifest::new(vec!["storage.kv".into()]),
        };
        let publish = chain.system(&dev(5), LIBRARY_ADDRESS, publish.message(), publish.cost(), 0);
        let (deploy_user, lib_user) = chain.deploy(&dev(5), example("lib_user"), &["storage.kv"], b"", 0);
        let txs = vec![deploy_counter, deploy_alarm, deploy_ping, deploy_pong, deploy_client, publish, deploy_user];
        chain.block("deploys", txs).await;

        // Registrations: runners, a relay, a governance lock, a token, a secret.
        let mut txs = Vec::new();
        for (i, key) in runners.iter().enumerate() {
            let register = RegistryCall::Register {
                rate_card: RateCard { price_per_job: JOB_PRICE },
                capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 4 },
            };
            let stake = MIN_RUNNER_STAKE * (i as u128 + 1);
            txs.push(chain.system(key, RUNNER_REGISTRY_ADDRESS, register.message(), register.max_cost(), stake));
        }
        let settings = RelaySettings {
            endpoint: "http://127.0.0.1:7700".into(),
            capacity_bytes: 1 << 30,
            price_per_byte_block: 1,
            write: true,
            read: true,
            public: true,
        };
        let register = RelayCall::Register(settings);
        txs.push(chain.system(&relay, RELAY_REGISTRY_ADDRESS, register.message(), register.cost(), MIN_RELAY_STAKE));
        let lock = GovernanceCall::Lock;
        let weight = 2 * GovernedParams::default().min_quorum_weight;
        txs.push(chain.system(&dev(8), GOVERNANCE_ADDRESS, lock.message(), lock.max_cost(), weight));
        let create = TokenCall::Create(NewToken {
            name: "Conformance".into(),
            symbol: "CONF".into(),
            decimals: 6,
            initial_supply: 1_000_000,
            max_supply: Some(10_000_000),
            mintable: true,
        });
        txs.push(chain.system(&dev(0), TOKENS_ADDRESS, create.message(), create.cost(), 0));
        let set = SecretCall::Set { name: "api-key".into(), envelopes: vec![(dev(7).address(), vec![0xe1; 48])] };
        txs.push(chain.system(&dev(6), SECRETS_ADDRESS, set.message(), set.cost(), 0));
        chain.block("registrations", txs).await;

        // Calls: an actor, a timer, the mailbox, a library, a job with a callback, tokens, a
        // volume, a proposal, a grant.
        let calls_height = chain.height() + 1;
        let ring_at = calls_height + 2;
        let token = token::token_id(&dev(0).address(), "CONF");
        let volume = drover_types::storage::volume_id(&dev(7).address(), "photos");
        let mut txs = vec![
            chain.call(&dev(1), counter, "increment", Vec::new()),
            chain.call(&dev(2), alarm, "arm", ring_at.to_le_bytes().to_vec()),
            chain.call(&dev(3), pinger_a, "start", pinger_b.0.to_vec()),
        ];
        let (a, b, c) = MUL_DIV;
        let compute =
            [&dev(5).address().0[..], &0u32.to_le_bytes(), &a.to_le_bytes(), &b.to_le_bytes(), &c.to_le_bytes()]
                .concat();
        txs.push(chain.call(&dev(5), lib_user, "compute", compute));
        let spec = JobSpec {
            job_type: "echo".into(),
            input: b"conformance".to_vec(),
            runners: 2,
            verification: Verification { mode: VerificationMode::Majority, threshold: 2 },
            max_price: JOB_PRICE,
            timeout_blocks: 100,
            callback: Some(Callback { handler: "on_job".into(), cycles: CALLBACK_CYCLES }),
        };
        let submit = [JOB_ESCROW.to_le_bytes().to_vec(), JobCall::Submit(spec).encode_args()].concat();
        txs.push(chain.call(&dev(4), client, "submit", submit));
        for call in [
            TokenCall::Transfer { token, to: fresh, amount: 1_000 },
            TokenCall::Approve { token, spender: dev(9).address(), amount: 5_000 },
        ] {
            txs.push(chain.system(&dev(0), TOKENS_ADDRESS, call.message(), call.cost(), 0));
        }
        let create = StorageCall::Create {
            name: "photos".into(),
            relay: relay.address(),
            public: false,
            max_size_bytes: 1 << 20,
        };
        let deposit = GovernedParams::default().volume_creation_fee + BASE_UNITS_PER_DRV;
        txs.push(chain.system(&dev(7), STORAGE_MANAGER_ADDRESS, create.message(), create.cost(), deposit));
        let propose = GovernanceCall::Propose {
            changes: vec![("target_cycles".into(), GOVERNED_TARGET_CYCLES)],
            description: "a higher cycle target".into(),
        };
        let proposal_deposit = GovernedParams::default().proposal_deposit;
        txs.push(chain.system(&dev(8), GOVERNANCE_ADDRESS, propose.message(), propose.max_cost(), proposal_deposit));
        let grant = SecretCall::Grant { name: "api-key".into(), reader: dev(9).address(), envelope: vec![0xe2; 48] };
        txs.push(chain.system(&dev(6), SECRETS_ADDRESS, grant.message(), grant.cost(), 0));
        chain.block("calls", txs).await;

        // Answers: the assigned runners, tokens moved by a spender and minted, the relay's
        // commit, the vote, the counter's upgrade.
        let job = job_id(&client, 0);
        let record = chain.proposer.read(&drover_state::job::state_key(&drover_state::job::job_key(&job))).await;
        let record = drover_state::job::JobRecord::decode(&record.expect("the job")).expect("a job record");
        assert_eq!(record.assigned.len(), 2, "{record:?}");
        let mut txs = Vec::new();
        for assignment in &record.assigned {
            let key = runners.iter().find(|key| key.address() == assignment.runner).expect("one of the runners");
            let answer = JobCall::SubmitResult { job, result: JOB_RESULT.to_vec() };
            txs.push(chain.system(key, JOB_DISPATCHER_ADDRESS, answer.message(), answer.max_cost(), 0));
        }
        let spend = TokenCall::TransferFrom { token, from: dev(0).address(), to: dev(9).address(), amount: 2_000 };
        txs.push(chain.system(&dev(9), TOKENS_ADDRESS, spend.message(), spend.cost(), 0));
        let mint = TokenCall::Mint { token, to: fresh, amount: 500 };
        txs.push(chain.system(&dev(0), TOKENS_ADDRESS, mint.message(), mint.cost(), 0));
        let commit_root = H256([0xc0; 32]);
        let commit = StorageCall::Commit { volume, root: commit_root, size_bytes: COMMITTED_BYTES };
        txs.push(chain.system(&relay, STORAGE_MANAGER_ADDRESS, commit.message(), commit.cost(), 0));
        let vote = GovernanceCall::Vote { proposal: 0, support: true };
        txs.push(chain.system(&dev(8), GOVERNANCE_ADDRESS, vote.message(), vote.max_cost(), 0));
        let upgrade = Upgrade {
            actor: counter,
            code: wat::parse_str(COUNTER_V2).expect("valid wat"),
            manifest: Manifest::new(vec!["storage.kv".into()]),
        };
        txs.push(chain.code_tx(&dev(1), Some(ACTOR_UPGRADES_ADDRESS), upgrade.message(), 0));
        chain.block("answers", txs).await;

        // The upgraded counter; the timer fires and the job's callback arrives in this block.
        let tx = chain.call(&dev(1), counter, "increment", Vec::new());
        chain.block("upgraded", vec![tx]).await;

        // Idle until the proposal may be executed, then execute it.
        let proposal =
            chain.proposer.read(&drover_state::governance::state_key(&drover_state::governance::proposal_key(0))).await;
        let proposal = drover_state::governance::ProposalRecord::decode(&proposal.expect("the proposal"))
            .expect("a proposal record");
        while chain.height() + 1 < proposal.executable_height {
            chain.block("idle", Vec::new()).await;
        }
        let execute = GovernanceCall::Execute { proposal: 0 };
        let tx = chain.system(&dev(9), GOVERNANCE_ADDRESS, execute.message(), execute.max_cost(), 0);
        chain.block("execute", vec![tx]).await;
        let tx = chain.transfer(&dev(0), fresh, 3_000);
        chain.block("closing", vec![tx]).await;

        // Every family left its mark.
        assert_eq!(
            u64_le(chain.storage(&counter, b"count").await),
            11,
            "one increment, then one by ten after the upgrade"
        );
        assert_eq!(u64_le(chain.storage(&alarm, b"rang_at").await), ring_at, "the timer rang when it was due");
        let counts = chain.storage(&pinger_a, b"pongs").await;
        assert_eq!(u64_le(counts), 3, "the pingers played three rounds");
        assert_eq!(u64_le(chain.storage(&lib_user, b"out").await), a * b / c, "the library computed");
        let expected = drover_types::job::callback_payload(&job, JobStatus::Completed, JOB_RESULT);
        assert_eq!(chain.storage(&client, b"answer").await, Some(expected), "the job's callback was delivered");
        let params = chain.proposer.read(&drover_state::governance::params_state_key()).await;
        let params = drover_state::governance::decode_params(&params.expect("the parameters")).expect("parameters");
        assert_eq!(u128::from(params.target_cycles), GOVERNED_TARGET_CYCLES, "the proposal was executed");
        let holding = |holder: Address| {
            let key = drover_state::token::state_key(&drover_state::token::holding_key(&token, &holder));
            let chain = &chain;
            async move {
                let bytes = chain.proposer.read(&key).await.expect("a holding");
                drover_state::token::Holding::decode(&bytes).expect("a holding record").balance
            }
        };
        assert_eq!(holding(fresh).await, 1_000 + 500, "transferred, then minted");
        assert_eq!(holding(dev(9).address()).await, 2_000, "spent by the approved spender");
        let secret = drover_state::secrets::state_key(&drover_state::secrets::secret_key(&dev(6).address(), "api-key"));
        let secret = chain.proposer.read(&secret).await.expect("the secret");
        let secret = drover_state::secrets::SecretRecord::decode(&secret).expect("a secret record");
        let mut readers = vec![dev(7).address(), dev(9).address()];
        readers.sort();
        assert_eq!((secret.version, secret.readers), (2, readers), "set, then granted");
        let record = chain
            .proposer
            .read(&drover_state::storage::volume_state_key(&drover_state::storage::volume_key(&volume)))
            .await;
        let record =
            drover_state::storage::VolumeRecord::decode(&record.expect("the volume")).expect("a volume record");
        assert_eq!(
            (record.relay, record.root, record.size_bytes),
            (relay.address(), commit_root, COMMITTED_BYTES),
            "committed"
        );
        let fresh_account = intake::read_account(&chain.proposer.chain, &chain.proposer.databases, &fresh).await;
        assert_eq!(fresh_account.expect("readable").expect("an account").balance, 6_000);
        let timers = chain.system_runs.iter().filter(|(_, run)| matches!(run.kind, SystemRunKind::Timer { .. }));
        assert_eq!(timers.map(|(height, run)| (*height, run.actor)).collect::<Vec<_>>(), vec![(ring_at, alarm)]);
        let deliveries = |from: Address| {
            chain
                .system_runs
                .iter()
                .filter(
                    move |(_, run)| matches!(run.kind, SystemRunKind::Delivery { from: sender, .. } if sender == from),
                )
                .count()
        };
        assert_eq!(deliveries(JOB_DISPATCHER_ADDRESS), 1, "one callback");
        assert_eq!(deliveries(pinger_a) + deliveries(pinger_b), 6, "three pings and three pongs");
        chain.produced
    })
}

#[test]
fn the_workload_reproduces_the_pinned_consensus_output() {
    let produced = run_workload();
    if std::env::var(REGENERATE_VAR).is_ok_and(|value| value == "1") {
        write_pinned(&produced);
        eprintln!("{REGENERATE_VAR}=1: wrote {} blocks to {}", produced.len(), pinned_path().display());
        return;
    }
    if let Err(divergence) = compare(&read_pinned(), &produced) {
        panic!(
            "{divergence}\nEvery validator must agree on these values: this is a consensus change. If it is meant, \
             regenerate crates/node/{PINNED_FILE} with `{REGENERATE_COMMAND}` and say why in the commit message; \
             if not, the change broke consensus."
        );
    }
}

#[test]
fn a_changed_root_is_reported_at_its_height_and_field() {
    let pinned = read_pinned();
    assert!(pinned.len() > 5, "the pinned file holds the workload");
    assert_eq!(compare(&pinned, &pinned), Ok(()));

    let mut changed = pinned.clone();
    changed[2].state_root = sha256::Digest::from([0xab; 32]).to_string();
    changed[4].receipts_root = sha256::Digest::from([0xcd; 32]).to_string();
    let Err(divergence) = compare(&pinned, &changed) else { panic!("a changed root went unnoticed") };
    let height = pinned[2].height;
    assert_eq!(
        divergence,
        Divergence::Block {
            height,
            fields: vec![("state_root", pinned[2].state_root.clone(), changed[2].state_root.clone())]
        }
    );
    let message = divergence.to_string();
    assert!(message.contains(&format!("height {height}")) && message.contains("state_root"), "{message}");

    let shorter = &pinned[..pinned.len() - 1];
    assert_eq!(compare(&pinned, shorter), Err(Divergence::Length { pinned: pinned.len(), produced: shorter.len() }));
}
