//! The chain's state machine, driven by `commonware_glue::stateful`.
//!
//! `Stateful` forks a speculative QMDB batch from the parent's state for every block it builds
//! or verifies, and applies the finalized one. This module fills in what a block means:
//!
//! * **propose**: wait for the pacing deadline, pick transactions from the mempool (skipping
//!   those already in not-yet-finalized ancestors), leave out the ones the block validator
//!   refuses (the same function a verifier applies), execute the rest, and commit the header to
//!   the resulting roots. Cancellation-safe: nothing is removed from the mempool but
//!   transactions found permanently invalid.
//! * **process**: refuse a peer's block that breaks the validity rule before running any of its
//!   transactions (`drover_execution`'s block validator: every transaction valid against the
//!   state left by the ones before it, their limits within what the deferred work left), then
//!   re-execute it and accept it only if every header commitment matches: transactions root,
//!   receipts root, meters, basefees and state root.
//!   Glue itself checks the state-sync target. A candidate (not yet certified) block must also
//!   be stamped after its parent and at most [`MAX_FUTURE_DRIFT_MS`] ahead of the local clock,
//!   which is waited out; a block stamped further ahead is refused, never waited for.
//! * **capture**: write the block's indexes (durably) *before* its state is applied, so the
//!   indexes are never behind the state after a crash; rewriting is idempotent. The write runs
//!   on the blocking pool and is awaited: it blocks its thread (see `crate::indexes`). They include
//!   the header, the receipts tree's leaves and the finalization certificate consensus reported
//!   (`crate::certificates`), so the API reads blocks and proves receipts without marshal.
//! * **finalized**: publish the new tip (height watch, basefees, liveness), prune the mempool, and
//!   log each timer the block dropped because its owner could not pay.
//!
//! Execution runs in a task of its own on the blocking pool (it computes for up to a block's
//! worth of cycles), over the parent state read on demand ([`ParentState::read`]): one lookup
//! per distinct key the block reads. Results are cached by block digest between execution and
//! finalization; a restart re-executes replayed blocks through `process`, which repopulates the
//! cache.
//!
//! Block 1 also applies the genesis allocations and fee parameters: the genesis block is never
//! executed.

use crate::{
    block::{Block, BlockContext},
    chain::{ChainShared, ExecutedBlock},
    databases::{Databases, Layer, ParentState},
};
use commonware_consensus::marshal::ancestry::Ancestry;
use commonware_cryptography::Digestible;
use commonware_glue::stateful::{
    Application, Finality, Input, Proposed,
    db::{DatabaseSet, Merkleized as _},
};
use commonware_runtime::{Clock, Metrics, Spawner};
use commonware_utils::non_empty_range;
use drover_execution::{BlockEnv, BlockError, BlockOutcome, Selection, SystemRun, SystemRunKind, Vm};
use drover_types::{Address, H256, Transaction, VerifiedTransaction, exec_error::ExecCode};
use futures::StreamExt as _;
use rayon::prelude::*;
use std::{
    sync::Arc,
    time::{Duration, UNIX_EPOCH},
};
use tracing::{debug, info, warn};

pub use drover_block::Scheme;

type Unmerkleized<E> = <Databases<E> as DatabaseSet<E>>::Unmerkleized;
type Merkleized<E> = <Databases<E> as DatabaseSet<E>>::Merkleized;

pub use drover_types::params::MAX_TRANSACTIONS_PER_BLOCK;
/// How far ahead of the local clock a candidate block's timestamp may be: the clock skew between
/// validators that a verifier tolerates by waiting for its clock to reach the timestamp. A block
/// stamped further ahead is invalid and never waited for, so no proposer can hold verifiers
/// longer than this (see `clock_check`).
pub const MAX_FUTURE_DRIFT_MS: u64 = 500;
/// Most a block's timestamp may run ahead of its parent's. A permanent rule (unlike the clock
/// check, it holds when a block is replayed later) that bounds how fast chain time advances;
/// after downtime the proposer catches up to the present by at most this much per block.
pub const MAX_TIMESTAMP_GAP_MS: u64 = 60_000;

/// Whether `timestamp_ms` may follow a parent at `parent_height` stamped `parent_ms`: strictly
/// later, and at most [`MAX_TIMESTAMP_GAP_MS`] later — except after genesis, whose timestamp is
/// written when the network is defined, possibly long before it starts. (How far ahead of the
/// present a timestamp may be is [`clock_check`]'s rule, which the genesis child obeys too.)
fn timestamp_follows(parent_height: u64, parent_ms: u64, timestamp_ms: u64) -> bool {
    timestamp_ms > parent_ms && (parent_height == 0 || timestamp_ms - parent_ms <= MAX_TIMESTAMP_GAP_MS)
}

/// What a verifier whose clock reads `now_ms` does with a candidate block stamped
/// `timestamp_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClockCheck {
    /// The timestamp is not ahead of the clock.
    Now,
    /// The timestamp is ahead by this many milliseconds, at most [`MAX_FUTURE_DRIFT_MS`]: skew
    /// between clocks, waited out.
    Wait(u64),
    /// Further ahead than [`MAX_FUTURE_DRIFT_MS`]: the block is invalid.
    TooFarAhead,
}

fn clock_check(timestamp_ms: u64, now_ms: u64) -> ClockCheck {
    match timestamp_ms.checked_sub(now_ms) {
        None | Some(0) => ClockCheck::Now,
        Some(ahead) if ahead <= MAX_FUTURE_DRIFT_MS => ClockCheck::Wait(ahead),
        Some(_) => ClockCheck::TooFarAhead,
    }
}

/// The timestamp a proposer gives a child of a block at `parent_height` stamped `parent_ms`, at
/// local time `now_ms`: always accepted by [`timestamp_follows`], and by [`clock_check`] at the
/// proposer's own clock once that clock is past the parent (the proposer waits out its block
/// interval after the parent first).
fn proposal_timestamp(parent_height: u64, parent_ms: u64, now_ms: u64) -> u64 {
    let latest = if parent_height == 0 { u64::MAX } else { parent_ms.saturating_add(MAX_TIMESTAMP_GAP_MS) };
    now_ms.clamp(parent_ms.saturating_add(1), latest)
}

/// Rewrites the blocks a validator proposes: the seam through which the deterministic
/// simulation makes one validator byzantine (a proposer that breaks a validity rule, lies in
/// its header, ...), so that every rule is tested against proposers that break it. An honest
/// validator has none.
pub trait ProposalRewrite: Send + Sync + 'static {
    /// The block to propose instead of `honest` (what this validator built over the same
    /// parent), or `None` to propose `honest`.
    fn rewrite(&self, honest: &Block) -> Option<Block>;
}

/// The application `Stateful` drives: proposes, verifies and finalizes blocks (see the module
/// documentation).
#[derive(Clone)]
pub struct App {
    genesis: Arc<Block>,
    chain: Arc<ChainShared>,
    /// The actor engine: one per node, so that compiled actor code is cached across blocks.
    vm: Arc<Vm>,
    rewrite: Option<Arc<dyn ProposalRewrite>>,
}

impl App {
    /// The application for the chain whose genesis block is `genesis`, sharing `chain` with the
    /// API; `rewrite` makes it a byzantine proposer (tests only).
    pub fn new(genesis: Block, chain: Arc<ChainShared>, rewrite: Option<Arc<dyn ProposalRewrite>>) -> Self {
        Self { genesis: Arc::new(genesis), chain, vm: Arc::new(Vm::new()), rewrite }
    }

    /// The writes laid over the parent state of the block at `height`: the genesis state for
    /// block 1, nothing later.
    fn layer(&self, height: u64) -> Layer {
        if height == 1 { self.chain.genesis.state.iter().cloned().collect() } else { Layer::new() }
    }

    /// Runs a block over `txs` on `parent` in a task on the blocking pool: the proposer's
    /// [`build_block`](drover_execution::build_block) when `build`, else
    /// [`execute_block`](drover_execution::execute_block) (whose selection is empty).
    async fn run<E>(
        &self,
        context: &E,
        parent: ParentState<E>,
        env: BlockEnv,
        txs: Arc<Vec<VerifiedTransaction>>,
        build: bool,
    ) -> Option<(Selection, BlockOutcome)>
    where
        E: Spawner + Clock + Metrics + commonware_storage::Context,
    {
        let (vm, fees, layer) = (Arc::clone(&self.vm), self.chain.genesis.fees, self.layer(env.height));
        let chain = Arc::clone(&self.chain);
        let task = context.child("execute").shared(true).spawn(move |_| async move {
            let started = std::time::Instant::now();
            let prefetch = drover_execution::prefetch_keys(&env, &txs);
            parent
                .read(&layer, &prefetch, |reader| {
                    let result = if build {
                        drover_execution::build_block(&vm, &env, &fees, reader, &txs)
                    } else {
                        drover_execution::execute_block(&vm, &env, &fees, reader, &txs)
                            .map(|outcome| (Selection::default(), outcome))
                    };
                    chain.metrics.observe_execution(started.elapsed().as_secs_f64(), reader.lookups());
                    result
                })
                .await
        });
        match task.await {
            Ok(Ok(Ok(done))) => Some(done),
            Ok(Ok(Err(BlockError::Corrupt(e)))) => panic!("state database holds a corrupt record: {e}"),
            Ok(Ok(Err(BlockError::Invalid(invalid)))) => {
                warn!(height = env.height, %invalid, "refusing an invalid block");
                None
            }
            Ok(Ok(Err(BlockError::Unavailable(fault)))) => {
                warn!(height = env.height, %fault, "block execution could not read its state");
                None
            }
            Ok(Err(e)) => {
                warn!(height = env.height, ?e, "block execution could not read its state");
                None
            }
            Err(e) => {
                warn!(height = env.height, ?e, "block execution task failed");
                None
            }
        }
    }

    /// Writes a block's outcome (over block 1's genesis layer) into its batch and merkleizes it.
    async fn seal<E>(
        &self,
        batches: Unmerkleized<E>,
        height: u64,
        txs: Vec<VerifiedTransaction>,
        mut outcome: BlockOutcome,
    ) -> Option<(Merkleized<E>, ExecutedBlock)>
    where
        E: Spawner + Clock + Metrics + commonware_storage::Context,
    {
        let mut writes = self.layer(height);
        // Block 1 creates the genesis accounts: readers of accounts learn of them with it.
        let genesis_accounts = writes.iter().filter_map(|(key, value)| {
            let account = value.as_deref().map(drover_state::Account::decode).transpose().ok()?;
            Some((drover_state::keys::account_address(key)?, account))
        });
        let mut accounts: std::collections::BTreeMap<_, _> = genesis_accounts.collect();
        accounts.extend(std::mem::take(&mut outcome.accounts));
        outcome.accounts = accounts.into_iter().collect();
        writes.extend(std::mem::take(&mut outcome.writes));
        let mut batches = batches;
        for (k, v) in writes {
            batches = batches.write(k, v);
        }
        let merkleized = match batches.merkleize().await {
            Ok(m) => m,
            Err(e) => {
                warn!(?e, "merkleize failed");
                return None;
            }
        };
        Some((merkleized, ExecutedBlock::new(height, txs, outcome)))
    }

    fn now_ms<E: Clock>(context: &E) -> u64 {
        context.current().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }
}

/// The first header commitment that re-execution does not reproduce, if any. (The state-sync
/// target is checked by glue itself.)
fn header_mismatch(
    block: &Block,
    executed: &ExecutedBlock,
    state_root: &commonware_cryptography::sha256::Digest,
) -> Result<(), &'static str> {
    let checks = [
        ("transactions_root", executed.transactions_root == block.transactions_root),
        ("receipts_root", executed.receipts_root == block.receipts_root),
        ("cycles_used", executed.cycles_used == block.cycles_used),
        ("cells_used", executed.cells_used == block.cells_used),
        ("basefee_cycle", executed.basefees.cycle == block.basefee_cycle),
        ("basefee_cell", executed.basefees.cell == block.basefee_cell),
        ("state_root", *state_root == block.state_root),
    ];
    match checks.iter().find(|(_, ok)| !ok) {
        Some((field, _)) => Err(field),
        None => Ok(()),
    }
}

/// Recovers the senders of a block's transactions, reusing those the mempool already knows.
fn recover_transactions(chain: &ChainShared, encoded: &[Vec<u8>]) -> Option<Vec<VerifiedTransaction>> {
    encoded
        .par_iter()
        .map(|bytes| {
            let hash = drover_types::keccak256(bytes);
            if let Some(known) = chain.mempool.get(&hash) {
                return Some(known);
            }
            let tx = Transaction::decode(bytes).ok()?;
            tx.verify().ok()
        })
        .collect()
}

impl<E> Application<E> for App
where
    E: Spawner + Clock + Metrics + commonware_storage::Context,
{
    type SigningScheme = Scheme;
    type Context = BlockContext;
    type Block = Block;
    type Databases = Databases<E>;
    type Captured = ();
    type Provider = ();
    type Input = ();

    fn sync_targets(block: &Block) -> <Self::Databases as DatabaseSet<E>>::SyncTargets {
        commonware_storage::qmdb::sync::Target::new(block.ops_root, block.range.clone())
    }

    async fn genesis(&mut self) -> Block {
        self.genesis.as_ref().clone()
    }

    async fn propose(
        &mut self,
        (context, consensus): (E, BlockContext),
        ancestry: impl Ancestry<Block>,
        batches: Unmerkleized<E>,
        _input: Input<(), ()>,
    ) -> Option<Proposed<Self, E>> {
        let mut ancestry = Box::pin(ancestry);
        let parent = ancestry.next().await?;
        let parent_block = parent.inner();
        let height = parent_block.height.get() + 1;

        // Pace blocks: at most one per interval, at least one per interval when idle.
        let deadline = parent_block.timestamp_ms.saturating_add(self.chain.block_interval_ms);
        let now = Self::now_ms(&context);
        if now < deadline {
            context.sleep(Duration::from_millis(deadline - now)).await;
        }
        let timestamp_ms =
            proposal_timestamp(parent_block.height.get(), parent_block.timestamp_ms, Self::now_ms(&context));

        let env = BlockEnv {
            chain_id: self.chain.genesis.chain_id(),
            height,
            timestamp_ms,
            proposer: self.chain.tips_account,
            parent: H256(parent.digest().0),
        };
        let next_nonces = self.chain.pending_nonces(parent.digest());
        let basefees = self.chain.basefees_after(parent.digest());
        let candidates = self.chain.mempool.select(
            drover_mempool::SelectLimits {
                max_count: MAX_TRANSACTIONS_PER_BLOCK,
                max_cycles: self.chain.fees_after(parent.digest()).block_limit_cycles(),
                max_cells: self.chain.fees_after(parent.digest()).block_limit_cells(),
                max_bytes: drover_block::block::MAX_BLOCK_BYTES,
            },
            basefees,
            &next_nonces,
        );
        let candidates = Arc::new(candidates);
        let (selection, outcome) = self.run(&context, batches.parent(), env, Arc::clone(&candidates), true).await?;
        for (index, rejection) in selection.dropped {
            // Transient refusals (a full block, a nonce gap, a basefee spike) may pass later.
            if !rejection.reason.is_permanent() {
                continue;
            }
            if let Some(tx) = candidates.get(index) {
                debug!(hash = %tx.hash, %rejection, "dropping invalid transaction from the mempool");
                self.chain.mempool.remove(&tx.hash, drover_mempool::DropReason::Invalid(rejection.to_string()));
            }
        }
        let txs: Vec<VerifiedTransaction> =
            selection.included.into_iter().filter_map(|i| candidates.get(i).cloned()).collect();
        let (merkleized, executed) = self.seal::<E>(batches, height, txs, outcome).await?;
        let bounds = merkleized.bounds();
        let block = Block {
            context: consensus,
            parent: parent.digest(),
            height: parent_block.height.next(),
            timestamp_ms,
            proposer: self.chain.tips_account,
            transactions: executed.transactions.iter().map(|t| t.encoded.clone()).collect(),
            transactions_root: executed.transactions_root,
            receipts_root: executed.receipts_root,
            cycles_used: executed.cycles_used,
            cells_used: executed.cells_used,
            basefee_cycle: executed.basefees.cycle,
            basefee_cell: executed.basefees.cell,
            state_root: merkleized.root(),
            ops_root: merkleized.ops_root(),
            range: non_empty_range!(merkleized.sync_boundary(), bounds.tip.size),
        };
        let block = match self.rewrite.as_ref().and_then(|rewrite| rewrite.rewrite(&block)) {
            Some(rewritten) => rewritten,
            None => block,
        };
        self.chain.remember(block.digest(), parent.digest(), executed);
        Some(Proposed { block, merkleized })
    }

    async fn process(
        &mut self,
        (context, _consensus): (E, BlockContext),
        ancestry: impl Ancestry<Block>,
        batches: Unmerkleized<E>,
        finality: Finality,
    ) -> Option<Merkleized<E>> {
        let mut ancestry = Box::pin(ancestry);
        let digested = ancestry.next().await?;
        let block = digested.inner().clone();
        let parent = ancestry.next().await?;
        let parent_block = parent.inner();

        if finality == Finality::Candidate {
            if !timestamp_follows(parent_block.height.get(), parent_block.timestamp_ms, block.timestamp_ms)
                || block.transactions.len() > MAX_TRANSACTIONS_PER_BLOCK
            {
                return None;
            }
            // A timestamp a little ahead of our clock is skew between validators: wait for it.
            // One further ahead is refused, never waited for: a proposer could otherwise hold
            // every verifier until a time of its choosing.
            let now = Self::now_ms(&context);
            match clock_check(block.timestamp_ms, now) {
                ClockCheck::Now => {}
                ClockCheck::Wait(ahead_ms) => context.sleep(Duration::from_millis(ahead_ms)).await,
                ClockCheck::TooFarAhead => {
                    warn!(
                        height = block.height.get(),
                        timestamp_ms = block.timestamp_ms,
                        now_ms = now,
                        "refusing a block stamped more than {MAX_FUTURE_DRIFT_MS} ms ahead of the local clock"
                    );
                    return None;
                }
            }
            let fees = self.chain.fees_after(block.parent);
            if drover_execution::validate_block_limits(&fees, block.cycles_used, block.cells_used).is_err() {
                return None;
            }
        }
        let txs = recover_transactions(&self.chain, &block.transactions)?;
        let height = block.height.get();
        let env = BlockEnv {
            chain_id: self.chain.genesis.chain_id(),
            height,
            timestamp_ms: block.timestamp_ms,
            proposer: block.proposer,
            parent: H256(block.parent.0),
        };
        let txs = Arc::new(txs);
        let (_, outcome) = self.run(&context, batches.parent(), env, Arc::clone(&txs), false).await?;
        let txs = Arc::try_unwrap(txs).unwrap_or_else(|shared| shared.as_ref().clone());
        let (merkleized, executed) = self.seal::<E>(batches, height, txs, outcome).await?;
        if let Err(field) = header_mismatch(&block, &executed, &merkleized.root()) {
            warn!(height, ?finality, field, "block re-execution disagrees with its header");
            return None;
        }
        self.chain.remember(digested.digest(), parent.digest(), executed);
        Some(merkleized)
    }

    async fn capture(
        &mut self,
        (context, _consensus): (E, BlockContext),
        block: &Block,
        _batches: &Merkleized<E>,
        _readers: <Self::Databases as DatabaseSet<E>>::Readers,
    ) {
        let digest = block.digest();
        let executed = self.chain.executed(&digest).expect("a finalized block is executed before it is applied");
        let started = std::time::Instant::now();
        self.chain.accounts.record_block(&executed.accounts);
        let finalization = self.chain.certificates.take(&digest);
        let header = crate::indexes::BlockHeader {
            hash: crate::block::to_h256(&digest),
            parent: crate::block::to_h256(&block.parent),
            proposer: block.proposer,
            view: block.context.round.view().get(),
            state_root: crate::block::to_h256(&block.state_root),
            cycles_used: block.cycles_used,
            cells_used: block.cells_used,
            basefee_cycle: block.basefee_cycle,
            basefee_cell: block.basefee_cell,
        };
        let (height, timestamp_ms, header_bytes) = (block.height.get(), block.timestamp_ms, block.header_bytes());
        let chain = Arc::clone(&self.chain);
        // The write blocks its thread: it ends in an fsync, and the store holds its writer (and
        // its readers) while a background flush or compaction syncs its files. Awaited here, so
        // the indexes are still durable before the state is applied.
        on_blocking_pool(&context, "record_indexes", move || {
            chain.indexes.record(crate::indexes::BlockEntries {
                height,
                timestamp_ms,
                transactions: &executed.transactions,
                receipts: &executed.receipts,
                credits: &executed.credits,
                system_runs: &executed.system_runs,
                header,
                header_bytes: &header_bytes,
                receipt_leaves: &executed.receipt_leaves,
                finalization: finalization.as_deref(),
            })
        })
        .await
        .expect("index store failed: cannot record a finalized block");
        self.chain.metrics.observe_capture(started.elapsed().as_secs_f64());
    }

    async fn finalized(
        &mut self,
        (context, _consensus): (E, BlockContext),
        block: &Block,
        _captured: (),
        _readers: <Self::Databases as DatabaseSet<E>>::Readers,
    ) {
        // The block's accounts are in the database now: the view may evict them.
        self.chain.accounts.block_applied();
        let now = Self::now_ms(&context);
        // Logged here, once the block is final, so a proposal that never makes it says nothing.
        if let Some(executed) = self.chain.executed(&block.digest()) {
            for (id, owner, reason) in dropped_timers(&executed.system_runs) {
                info!(height = block.height.get(), timer_id = id, %owner, %reason, "timer dropped: its owner cannot pay");
            }
        }
        self.chain.finalize(block, now);
    }
}

/// Runs `work`, a call that blocks its thread, on the runtime's blocking pool and waits for it.
/// The node has as many async workers as cores, shared by consensus and every route: a worker
/// blocked in a call waits with everything queued on it.
///
/// When the node is stopping, the task may never run (its context is already aborted): then
/// this never returns either, so whatever was to follow `work` (applying a block's state after
/// its indexes) does not happen without it; a restart replays the block.
pub(crate) async fn on_blocking_pool<E: Spawner, T: Send + 'static>(
    context: &E,
    label: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    match context.child(label).shared(true).spawn(move |_| async move { work() }).await {
        Ok(done) => done,
        Err(commonware_runtime::Error::Closed | commonware_runtime::Error::Aborted) => futures::future::pending().await,
        Err(e) => panic!("a blocking task did not run to its end: {e}"),
    }
}

/// The timers of `runs` dropped because their owner could not hold the maximum fee (E1503):
/// id, owner and the reason execution gave.
fn dropped_timers(runs: &[SystemRun]) -> impl Iterator<Item = (u64, Address, &str)> {
    runs.iter().filter_map(|run| match (run.kind, &run.error) {
        (SystemRunKind::Timer { id }, Some(error)) if error.code == ExecCode::TimerUnpaid => {
            Some((id, run.actor, error.message.as_str()))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_cryptography::{Hasher as _, Sha256, Signer as _, sha256};
    use commonware_storage::mmr::Location;
    use drover_state::Basefees;
    use drover_types::SecretKey;

    fn executed() -> ExecutedBlock {
        let key = SecretKey::dev(0);
        let tx = Transaction {
            chain_id: 100,
            nonce: 0,
            to: Some(drover_types::Address([1; 20])),
            value: 1,
            cycles_limit: 21_000,
            cells_limit: 0,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 1,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        }
        .sign(&key)
        .verify()
        .unwrap();
        let fees = Basefees { cycle: 1, cell: 1 };
        let outcome = drover_execution::BlockOutcome {
            writes: Vec::new(),
            accounts: Vec::new(),
            receipts: Vec::new(),
            credits: Vec::new(),
            system_runs: Vec::new(),
            cycles_used: 21_000,
            cells_used: 0,
            burned: 0,
            basefees: fees,
            next_basefees: fees,
            params: Default::default(),
            next_params: Default::default(),
        };
        ExecutedBlock::new(1, vec![tx], outcome)
    }

    fn block_for(executed: &ExecutedBlock, state_root: sha256::Digest) -> Block {
        let mut block = Block::genesis(
            commonware_cryptography::ed25519::PrivateKey::from_seed(0).public_key(),
            sha256::Digest::from([0; 32]),
            0,
            sha256::Digest::from([0; 32]),
            commonware_utils::non_empty_range!(Location::new(0), Location::new(1)),
        );
        block.transactions_root = executed.transactions_root;
        block.receipts_root = executed.receipts_root;
        block.cycles_used = executed.cycles_used;
        block.cells_used = executed.cells_used;
        block.basefee_cycle = executed.basefees.cycle;
        block.basefee_cell = executed.basefees.cell;
        block.state_root = state_root;
        block
    }

    /// A blocking call handed to [`on_blocking_pool`] leaves the async worker free: on a runtime
    /// of one worker, the call waits for a task on that worker, which still runs. (Made on the
    /// worker itself, as the index write of `capture` was, the call would wait out its timeout.)
    #[test]
    fn a_blocking_call_on_the_blocking_pool_leaves_the_only_worker_free() {
        use commonware_runtime::{Runner as _, Supervisor as _, tokio};
        let config = tokio::Config::new().with_worker_threads(1);
        tokio::Runner::new(config).start(|context| async move {
            // On the worker, as `capture` runs (the runner's own future runs beside the workers).
            let on_worker = context.child("capture").spawn(|context| async move {
                let (sent, received) = std::sync::mpsc::channel();
                let sender = context.child("sender").spawn(move |_| async move { sent.send(()).is_ok() });
                let answered = on_blocking_pool(&context, "waiting", move || {
                    received.recv_timeout(Duration::from_secs(10)).is_ok()
                })
                .await;
                (answered, sender.await.expect("the sender ran"))
            });
            let (answered, sent) = on_worker.await.expect("the task ran");
            assert!(answered && sent, "the task on the only worker ran while the call waited");
        });
    }

    /// A call made from a context torn down (the node stopping) never runs: the caller waits for
    /// good rather than panic, so what was to follow the call does not happen without it.
    #[test]
    fn a_blocking_call_from_a_torn_down_context_pends() {
        use commonware_runtime::{Clock as _, Runner as _, Supervisor as _, tokio};
        tokio::Runner::new(tokio::Config::new().with_worker_threads(1)).start(|context| async move {
            let (sent, received) = futures::channel::oneshot::channel();
            let parent = context.child("capture").spawn(move |context| async move {
                let _ = sent.send(context);
                futures::future::pending::<()>().await
            });
            let torn_down = received.await.expect("the task hands its context out");
            parent.abort();
            let _ = parent.await;
            let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let running = std::sync::Arc::clone(&ran);
            let call =
                on_blocking_pool(&torn_down, "write", move || running.store(true, std::sync::atomic::Ordering::SeqCst));
            futures::pin_mut!(call);
            let waited = context.sleep(Duration::from_millis(200));
            futures::pin_mut!(waited);
            let finished = matches!(futures::future::select(call, waited).await, futures::future::Either::Left(_));
            assert!(!finished && !ran.load(std::sync::atomic::Ordering::SeqCst), "the call neither returns nor runs");
        });
    }

    #[test]
    fn only_timers_their_owner_could_not_pay_count_as_dropped() {
        let owner = Address([7; 20]);
        let run = |kind, code: Option<ExecCode>| SystemRun {
            kind,
            actor: owner,
            handler: "ring".into(),
            status: drover_types::TxStatus::Failed,
            cycles_used: 0,
            cells_used: 0,
            fee: drover_types::FeeBreakdown::default(),
            events: Vec::new(),
            revert_reason: None,
            error: code.map(|code| drover_types::ExecError::new(code, "owner holds 0")),
        };
        let runs = [
            run(SystemRunKind::Timer { id: 1 }, None),
            run(SystemRunKind::Timer { id: 2 }, Some(ExecCode::TimerUnpaid)),
            run(SystemRunKind::Timer { id: 3 }, Some(ExecCode::WasmTrap)),
            run(SystemRunKind::Delivery { seq: 4, from: owner }, Some(ExecCode::TimerUnpaid)),
        ];
        let dropped: Vec<_> = dropped_timers(&runs).collect();
        assert_eq!(dropped, vec![(2, owner, "owner holds 0")]);
    }

    #[test]
    fn timestamps_follow_their_parent_within_the_gap() {
        assert!(timestamp_follows(5, 1_000, 1_001));
        assert!(timestamp_follows(5, 1_000, 1_000 + MAX_TIMESTAMP_GAP_MS));
        assert!(!timestamp_follows(5, 1_000, 1_000));
        assert!(!timestamp_follows(5, 1_000, 999));
        assert!(!timestamp_follows(5, 1_000, 1_001 + MAX_TIMESTAMP_GAP_MS));
        assert!(!timestamp_follows(5, 1_000, u64::MAX));
        // Genesis may be far in the past; its child still has to come after it.
        assert!(timestamp_follows(0, 1_000, 1_000_000_000));
        assert!(!timestamp_follows(0, 1_000, 1_000));
        // The proposer's choice always passes, whatever its clock says.
        for parent_height in [0, 5] {
            for now in [0, 1_000, 1_050, 30_000, 10_000_000, u64::MAX] {
                let ts = proposal_timestamp(parent_height, 1_000, now);
                assert!(timestamp_follows(parent_height, 1_000, ts), "now {now} gave {ts}");
            }
        }
        assert_eq!(proposal_timestamp(5, 1_000, 1_050), 1_050);
        assert_eq!(proposal_timestamp(5, 1_000, 10_000_000), 1_000 + MAX_TIMESTAMP_GAP_MS);
        assert_eq!(proposal_timestamp(0, 1_000, 10_000_000), 10_000_000);
    }

    #[test]
    fn a_timestamp_ahead_of_the_clock_is_waited_for_only_within_the_drift() {
        let now = 1_700_000_000_000;
        assert_eq!(clock_check(now - 5_000, now), ClockCheck::Now);
        assert_eq!(clock_check(now, now), ClockCheck::Now);
        assert_eq!(clock_check(now + 1, now), ClockCheck::Wait(1));
        assert_eq!(clock_check(now + MAX_FUTURE_DRIFT_MS, now), ClockCheck::Wait(MAX_FUTURE_DRIFT_MS));
        // Further ahead is refused outright, however far: nothing makes a verifier wait longer
        // than the drift.
        for ahead in [MAX_FUTURE_DRIFT_MS + 1, MAX_TIMESTAMP_GAP_MS, 365 * 86_400_000, u64::MAX - now] {
            assert_eq!(clock_check(now + ahead, now), ClockCheck::TooFarAhead, "{ahead} ms ahead");
        }
        assert_eq!(clock_check(u64::MAX, 0), ClockCheck::TooFarAhead);

        // The child of genesis is exempt from the gap to its parent, not from the clock: a
        // genesis written a year ago still starts the network, a far-future child does not.
        let genesis_ms = now - 365 * 86_400_000;
        assert!(timestamp_follows(0, genesis_ms, now));
        assert_eq!(clock_check(now, now), ClockCheck::Now);
        let far = now + 30 * 86_400_000;
        assert!(timestamp_follows(0, genesis_ms, far));
        assert_eq!(clock_check(far, now), ClockCheck::TooFarAhead);

        // What a proposer stamps passes at its own clock once it has waited past the parent,
        // as it does (its block interval), and within the drift even before that.
        for parent_height in [0, 5] {
            for (parent_ms, proposer_now) in [
                (genesis_ms, now),
                (now - 100, now),
                (now - 1, now),
                (now - MAX_TIMESTAMP_GAP_MS - 1, now),
                (now - 10 * MAX_TIMESTAMP_GAP_MS, now),
                (now, now),
                (now + MAX_FUTURE_DRIFT_MS - 1, now),
            ] {
                let ts = proposal_timestamp(parent_height, parent_ms, proposer_now);
                assert!(timestamp_follows(parent_height, parent_ms, ts), "{parent_ms} {proposer_now}");
                assert_ne!(clock_check(ts, proposer_now), ClockCheck::TooFarAhead, "{parent_ms} {ts}");
                if proposer_now > parent_ms {
                    assert_eq!(clock_check(ts, proposer_now), ClockCheck::Now, "{parent_ms} {ts}");
                }
            }
        }
    }

    #[test]
    fn a_block_is_accepted_only_if_every_commitment_is_reproduced() {
        let executed = executed();
        let root = Sha256::hash(&[b"state"]);
        let block = block_for(&executed, root);
        assert_eq!(header_mismatch(&block, &executed, &root), Ok(()));

        let other = Sha256::hash(&[b"other"]);
        type Tamper = fn(&mut Block, sha256::Digest);
        let tamper: [(&str, Tamper); 7] = [
            ("transactions_root", |b, d| b.transactions_root = d),
            ("receipts_root", |b, d| b.receipts_root = d),
            ("cycles_used", |b, _| b.cycles_used += 1),
            ("cells_used", |b, _| b.cells_used += 1),
            ("basefee_cycle", |b, _| b.basefee_cycle += 1),
            ("basefee_cell", |b, _| b.basefee_cell += 1),
            ("state_root", |b, d| b.state_root = d),
        ];
        for (field, change) in tamper {
            let mut bad = block.clone();
            change(&mut bad, other);
            assert_eq!(header_mismatch(&bad, &executed, &root), Err(field));
        }
    }
}
