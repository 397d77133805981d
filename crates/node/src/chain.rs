//! State shared by the application, the HTTP backend and the engine: the finalized tip, the
//! execution records of blocks between execution and finalization, the mempool and indexes.
//!
//! Invariant: an execution record is kept from the moment a block is executed (proposed or
//! verified) until a block at or above its height is finalized; `pending_nonces` walks these
//! records from a parent down to the finalized tip so a proposal never repeats a transaction
//! of a not-yet-finalized ancestor.

use crate::{block, genesis::Genesis, height_file, indexes::Indexes, metrics::ChainMetrics};
use commonware_cryptography::sha256;
use drover_execution::{BlockOutcome, SystemRun};
use drover_mempool::Mempool;
use drover_state::Basefees;
use drover_types::{Address, Receipt, VerifiedTransaction, api::StateSnapshot};
use parking_lot::Mutex;
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};
use tokio::sync::watch;
use tracing::warn;

/// What executing one block produced.
pub struct ExecutedBlock {
    /// Height of the block.
    pub height: u64,
    /// The block's transactions, in execution order.
    pub transactions: Vec<VerifiedTransaction>,
    /// One receipt per transaction, in block order.
    pub receipts: Vec<Receipt>,
    /// Per receipt, the value its transaction moved to accounts (for the account history).
    pub credits: Vec<Vec<drover_execution::Credit>>,
    /// Timer fires and mailbox deliveries, in the order they ran (before the transactions). No
    /// header commits to them: they follow from the parent state, which the state root covers.
    pub system_runs: Vec<SystemRun>,
    /// Cycles used by the block (system runs and transactions).
    pub cycles_used: u64,
    /// Cells used by the block (system runs and transactions).
    pub cells_used: u64,
    /// Basefees in force for the block.
    pub basefees: Basefees,
    /// Basefees for its child.
    pub next_basefees: Basefees,
    /// Chain parameters for its child.
    pub next_params: drover_types::chain_params::ChainParams,
    /// Merkle root of the transaction hashes, as the header must carry it.
    pub transactions_root: sha256::Digest,
    /// Merkle root of the receipts, as the header must carry it.
    pub receipts_root: sha256::Digest,
    /// The leaves that root is built from, one per receipt: kept in the indexes so that a
    /// receipt's proof reads them and that receipt, not every receipt of its block.
    pub receipt_leaves: Vec<[u8; 32]>,
    /// Each sender's next nonce after the block.
    pub next_nonces: Vec<(Address, u64)>,
    /// The accounts the block wrote (`None`: deleted), block 1's genesis allocations included.
    pub accounts: Vec<(Address, Option<drover_state::Account>)>,
}

impl ExecutedBlock {
    /// The record of `transactions` executed at `height` with `outcome`, whose writes the
    /// caller has already taken (they go to the state batch, not the record).
    pub fn new(height: u64, transactions: Vec<VerifiedTransaction>, outcome: BlockOutcome) -> Self {
        let BlockOutcome {
            receipts,
            credits,
            system_runs,
            cycles_used,
            cells_used,
            basefees,
            next_basefees,
            next_params,
            accounts,
            ..
        } = outcome;
        let hashes: Vec<_> = transactions.iter().map(|t| t.hash).collect();
        // Every transaction of a valid block uses its nonce, whatever its receipt says.
        let mut nonces: HashMap<Address, u64> = HashMap::new();
        for tx in &transactions {
            nonces.insert(tx.sender, tx.tx.nonce.saturating_add(1));
        }
        let mut next_nonces: Vec<_> = nonces.into_iter().collect();
        next_nonces.sort();
        let receipt_leaves = block::receipt_leaves(&receipts);
        Self {
            height,
            transactions_root: block::transactions_root(&hashes),
            receipts_root: block::merkle_root(receipt_leaves.iter().copied()),
            receipt_leaves,
            transactions,
            receipts,
            credits,
            system_runs,
            cycles_used,
            cells_used,
            basefees,
            next_basefees,
            next_params,
            next_nonces,
            accounts,
        }
    }
}

/// The latest finalized block, as the API reports it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tip {
    /// Latest finalized height (0 before the first block).
    pub height: u64,
    /// Its timestamp, Unix milliseconds.
    pub timestamp_ms: u64,
    /// Its digest; `None` until this process has finalized a block (the tip starts from the
    /// indexes, and [`ChainShared::start_at`] may move it back).
    pub digest: Option<sha256::Digest>,
    /// Basefees that apply to the next block.
    pub next_basefees: Basefees,
    /// Chain parameters that apply to the next block.
    pub next_params: drover_types::chain_params::ChainParams,
}

pub use crate::accounts::ACCOUNT_CACHE_ENTRIES_DEFAULT;

/// How this node runs the chain: its genesis, block interval, tips account, height file and
/// account cache (not the governed chain parameters: `drover_types::chain_params::ChainParams`).
pub struct ChainConfig {
    /// The validated genesis.
    pub genesis: Genesis,
    /// Target interval between blocks, in milliseconds.
    pub block_interval_ms: u64,
    /// Account credited with the tips of blocks this validator proposes.
    pub tips_account: Address,
    /// Where to persist the last finalized height, if anywhere.
    pub height_file: Option<PathBuf>,
    /// Accounts the account view caches.
    pub account_cache_entries: usize,
}

/// Chain state shared by the application, the HTTP backend and the engine; see the module
/// documentation.
pub struct ChainShared {
    /// The validated genesis.
    pub genesis: Genesis,
    /// Target interval between blocks, in milliseconds.
    pub block_interval_ms: u64,
    /// Account credited with the tips of blocks this validator proposes.
    pub tips_account: Address,
    /// The transaction pool.
    pub mempool: Mempool,
    /// Finalized transactions, receipts, logs and system runs.
    pub indexes: Indexes,
    /// Chain metrics for `/metrics`.
    pub metrics: ChainMetrics,
    /// The accounts of the finalized state read most, for reads that must not wait for a commit.
    pub accounts: crate::accounts::AccountView,
    /// Finalization certificates consensus reported, until their block's indexes take them.
    pub(crate) certificates: Arc<crate::certificates::Certificates>,
    height_file: Option<PathBuf>,
    executed: Mutex<HashMap<sha256::Digest, (sha256::Digest, Arc<ExecutedBlock>)>>,
    tip: Mutex<Tip>,
    /// The state-sync checkpoint of the latest finalized block (served at `/state/snapshot`).
    snapshot: Mutex<Option<StateSnapshot>>,
    /// Whether the last read of the state database succeeded (reported by `/health/detailed`).
    storage_ok: AtomicBool,
    heights: watch::Sender<u64>,
}

impl ChainShared {
    /// Shared state starting at `tip`, with no execution record.
    fn new(config: ChainConfig, mempool: Mempool, indexes: Indexes, metrics: ChainMetrics, tip: Tip) -> Self {
        let ChainConfig { genesis, block_interval_ms, tips_account, height_file, account_cache_entries } = config;
        let (heights, _) = watch::channel(tip.height);
        let shared = Self {
            genesis,
            block_interval_ms,
            tips_account,
            mempool,
            indexes,
            metrics,
            accounts: crate::accounts::AccountView::new(account_cache_entries),
            certificates: Arc::default(),
            height_file,
            executed: Mutex::new(HashMap::new()),
            storage_ok: AtomicBool::new(true),
            tip: Mutex::new(tip),
            snapshot: Mutex::new(None),
            heights,
        };
        shared.follow_limits(&tip.next_params);
        shared
    }

    /// The chain state of a validator whose indexes live in `directory`: the tip starts where
    /// the indexes end, with the genesis basefees and parameters in force until
    /// [`ChainShared::refresh_basefees`] reads the stored ones; the pool starts empty, with
    /// `mempool`'s limits; metrics register under `metrics`.
    pub fn open(
        config: ChainConfig,
        mempool: drover_mempool::Config,
        directory: &Path,
        metrics: &impl commonware_runtime::Metrics,
    ) -> anyhow::Result<Self> {
        use anyhow::Context as _;
        let indexes = Indexes::open(directory).context("cannot open the index store")?;
        let (height, timestamp_ms) = indexes.tip().context("cannot read the index store")?;
        let fees = &config.genesis.fees;
        let tip = Tip {
            height,
            timestamp_ms,
            digest: None,
            next_basefees: Basefees { cycle: fees.initial_basefee_cycle, cell: fees.initial_basefee_cell },
            next_params: config.genesis.params,
        };
        Ok(Self::new(config, Mempool::new(mempool), indexes, ChainMetrics::new(metrics), tip))
    }

    /// Keeps the execution record of a block until it is finalized.
    pub fn remember(&self, digest: sha256::Digest, parent: sha256::Digest, executed: ExecutedBlock) {
        self.executed.lock().insert(digest, (parent, Arc::new(executed)));
    }

    /// The execution record of the block with this digest, if it was executed and not yet pruned.
    pub fn executed(&self, digest: &sha256::Digest) -> Option<Arc<ExecutedBlock>> {
        self.executed.lock().get(digest).map(|(_, e)| e.clone())
    }

    /// Next nonces of senders with transactions in executed, not-yet-finalized ancestors of a
    /// proposal built on `parent` (the newest ancestor wins).
    pub fn pending_nonces(&self, parent: sha256::Digest) -> HashMap<Address, u64> {
        let finalized = self.tip.lock().height;
        let executed = self.executed.lock();
        let mut nonces = HashMap::new();
        let mut cursor = parent;
        while let Some((grandparent, record)) = executed.get(&cursor) {
            if record.height <= finalized {
                break;
            }
            for (sender, nonce) in &record.next_nonces {
                nonces.entry(*sender).or_insert(*nonce);
            }
            cursor = *grandparent;
        }
        nonces
    }

    /// Basefees a child of `parent` will pay (used to pick transactions that can pay them).
    pub fn basefees_after(&self, parent: sha256::Digest) -> Basefees {
        match self.executed.lock().get(&parent) {
            Some((_, record)) => record.next_basefees,
            None => self.tip.lock().next_basefees,
        }
    }

    /// The fee parameters in force for a child of `parent` (governed by the chain parameters
    /// its state holds): what block building and the block limits follow.
    pub fn fees_after(&self, parent: sha256::Digest) -> drover_execution::FeeParams {
        let params = match self.executed.lock().get(&parent) {
            Some((_, record)) => record.next_params,
            None => self.tip.lock().next_params,
        };
        self.genesis.fees.governed(&params)
    }

    /// Admits transactions up to the block limits `params` set (governance may move them).
    fn follow_limits(&self, params: &drover_types::chain_params::ChainParams) {
        let fees = self.genesis.fees.governed(params);
        self.mempool.set_tx_limits(fees.block_limit_cycles(), fees.block_limit_cells());
    }

    /// Records the outcome of a state database read.
    pub fn record_storage(&self, ok: bool) {
        self.storage_ok.store(ok, Ordering::Relaxed);
    }

    /// Whether the last state database read succeeded.
    pub fn storage_ok(&self) -> bool {
        self.storage_ok.load(Ordering::Relaxed)
    }

    /// The latest finalized block.
    pub fn tip(&self) -> Tip {
        *self.tip.lock()
    }

    /// Starts the published tip at the block whose state the database holds, when the indexes
    /// (written before a block's state is applied) are ahead of it after a crash: the API must
    /// not report a height whose state it cannot serve yet. Replayed blocks move it on.
    pub fn start_at(&self, height: u64, timestamp_ms: u64) {
        let mut tip = self.tip.lock();
        if height < tip.height {
            tip.height = height;
            tip.timestamp_ms = timestamp_ms;
            tip.digest = None;
            self.heights.send_replace(height);
        }
    }

    /// Loads the basefees and chain parameters in force from the state database (after a
    /// restart).
    pub async fn refresh_basefees<E>(&self, databases: &crate::databases::Databases<E>)
    where
        E: commonware_runtime::Spawner + commonware_storage::Context,
    {
        let db = databases.read().await;
        match db.get(&drover_state::keys::basefees_key()).await {
            Ok(Some(bytes)) => match Basefees::decode(&bytes) {
                Ok(fees) => self.tip.lock().next_basefees = fees,
                Err(e) => warn!(?e, "stored basefees do not decode"),
            },
            Ok(None) => {}
            Err(e) => warn!(?e, "cannot read basefees"),
        }
        match db.get(&drover_state::governance::params_state_key()).await {
            Ok(Some(bytes)) => match drover_state::governance::decode_params(&bytes) {
                Ok(params) => {
                    self.tip.lock().next_params = params;
                    self.follow_limits(&params);
                }
                Err(e) => warn!(?e, "stored chain parameters do not decode"),
            },
            Ok(None) => {}
            Err(e) => warn!(?e, "cannot read chain parameters"),
        }
    }

    /// The latest state-sync checkpoint (`None` until a block is finalized after start).
    pub fn snapshot(&self) -> Option<StateSnapshot> {
        *self.snapshot.lock()
    }

    /// A receiver of the latest finalized height, updated once the block's receipts are readable.
    pub fn subscribe_heights(&self) -> watch::Receiver<u64> {
        self.heights.subscribe()
    }

    /// Publishes a finalized (and applied) block.
    pub fn finalize(&self, block: &crate::block::Block, now_ms: u64) {
        use commonware_cryptography::Digestible as _;
        let height = block.height.get();
        let digest = block.digest();
        let record = self.executed(&digest);
        if let Some(record) = &record {
            let included: Vec<_> = record.transactions.iter().map(|t| t.hash).collect();
            self.mempool.finalized(&record.next_nonces, &included);
        }
        let next_basefees = record.as_ref().map(|r| r.next_basefees).unwrap_or_else(|| self.tip().next_basefees);
        let next_params = record.as_ref().map(|r| r.next_params).unwrap_or_else(|| self.tip().next_params);
        let changed_params = {
            let mut tip = self.tip.lock();
            let newer = height >= tip.height;
            let changed = newer && tip.next_params != next_params;
            if newer {
                *tip =
                    Tip { height, timestamp_ms: block.timestamp_ms, digest: Some(digest), next_basefees, next_params };
                *self.snapshot.lock() = Some(StateSnapshot {
                    height,
                    block_hash: block::to_h256(&digest),
                    range_start: block.range.start().as_u64(),
                    op_count: block.range.end().as_u64(),
                    ops_root: block::to_h256(&block.ops_root),
                    canonical_root: block::to_h256(&block.state_root),
                });
            }
            changed
        };
        // Only a newer block moves the admission limits, and only when its parameters changed.
        if changed_params {
            self.follow_limits(&next_params);
        }
        self.executed.lock().retain(|_, (_, r)| r.height > height);
        self.metrics.observe_finalized(
            height,
            now_ms.saturating_sub(block.timestamp_ms),
            record.as_ref().map_or(0, |r| r.transactions.len()),
            self.mempool.len(),
            next_basefees,
        );
        if let Some(path) = &self.height_file
            && let Err(e) = height_file::write(path, height)
        {
            warn!(?e, "cannot write height file");
        }
        self.heights.send_replace(height);
    }
}
