//! What the HTTP layer needs from a running node.
//!
//! The router is generic over [`Backend`] so the HTTP layer depends only on `drover-types`;
//! `drover-node` implements it over the real chain (mempool, QMDB, indexes, marshal). Reads see
//! the latest finalized state. Every method is cheap to call concurrently.

use crate::pagination::Page;
use drover_types::{
    Address, Basefees, BlockSelector, H256, Receipt, VerifiedTransaction,
    admission::AdmissionError,
    api::{
        AccountInfo, AccountTokens, ActorCodeInfo, ActorInfo, ActorReadResponse, BlockInfo, ChainInfo, DelegationList,
        EntitlementInfo, GovernanceParams, InclusionProofInfo, InclusionProofKind, JobInfo, JobResultList, LogPage,
        MailboxPage, ProposalDetail, ProposalList, RasAccountBalance, RasStats, RelayInfo, RelayList, RunnerInfo,
        RunnerJobList, RunnerList, SecretEnvelope, SecretList, StateProofInfo, StateSnapshot, StoragePage,
        SystemRunPage, TimerPage, TokenInfo, TokenList, UpgradePage, VerifiedResultInfo, VolumeInfo, VolumeList,
    },
    error::ApiError,
};
use std::future::Future;
use tokio::sync::watch;

/// An included transaction with where it was included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncludedTransaction {
    /// The transaction, with its hash and sender.
    pub tx: VerifiedTransaction,
    /// Height of the including block.
    pub block_height: u64,
    /// Position of the transaction in its block.
    pub index: u32,
}

/// Liveness figures for `/health/detailed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainHealth {
    /// Latest finalized height (0 before the first block).
    pub block_height: u64,
    /// Unix seconds of the latest finalized block (0 before the first).
    pub last_block_timestamp: u64,
    /// Transactions pending in the mempool.
    pub mempool_transaction_count: usize,
    /// Distinct senders with transactions pending in the mempool.
    pub mempool_account_count: usize,
    /// Whether the state database is open and answering.
    pub storage_ok: bool,
}

/// Faucet settings of this node, when the faucet is enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaucetSettings {
    /// Base units sent per request.
    pub drip_amount: u128,
    /// Requests allowed per minute (node-wide).
    pub requests_per_minute: u32,
}

/// One request for state-sync operations (`GET /state/operations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperationsRequest {
    /// Operations `start .. start + max`, proven against the ops root at `size` operations.
    Operations {
        /// Operation count whose ops root the proof is against (a snapshot's `op_count`).
        size: u64,
        /// First operation of the batch; below `size`.
        start: u64,
        /// Most operations in the batch (the backend may serve fewer, at least one).
        max: u64,
    },
    /// The single operation at `start` with the pinned Merkle nodes a client needs to rebuild the
    /// pruned prefix below it, proven against the ops root at `size`.
    Boundary {
        /// Operation count whose ops root the proof is against.
        size: u64,
        /// The operation to serve; the pinned nodes stand for the operations below it.
        start: u64,
    },
}

/// One state record a proof is asked for, named by the key schema's families (the node maps it
/// to the state key, so the HTTP layer stays free of the schema).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateQuery {
    /// An account record.
    Account(Address),
    /// An actor record.
    Actor(Address),
    /// An actor's storage slot: the actor and its own key.
    Storage(Address, Vec<u8>),
}

/// A read-only handler call, checked by the route (`POST /actor/read`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActorCall {
    /// The actor to run.
    pub actor: Address,
    /// Name of the exported handler to run.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// What the handler sees as its caller and origin (the request's `from`, or the zero address).
    pub caller: Address,
    /// Cycles budget, within the node's cap.
    pub max_cycles: u64,
    /// Cells budget, within the node's cap.
    pub max_cells: u64,
}

/// Which registered relays a relay list holds (`/ras/relays/public`, `/ras/write-relayers`):
/// those whose settings say so, a list the chain keeps as the settings change. Health and free
/// capacity change without a transaction (a heartbeat ages, a volume grows), so no list is cut
/// by them: each relay shows its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayFilter {
    /// Those listed publicly (`public`).
    Public,
    /// Those taking writes (`write`); a new volume needs one that is also healthy and not full.
    Writable,
}

impl RelayFilter {
    /// Whether `relay` is on this list (every relay given is registered).
    pub fn keeps(self, relay: &RelayInfo) -> bool {
        match self {
            RelayFilter::Public => relay.public,
            RelayFilter::Writable => relay.write,
        }
    }
}

/// Everything the HTTP API reads from or hands to the node; see the module documentation.
pub trait Backend: crate::explorer::Explorer + crate::simulator::Simulator + Clone + Send + Sync + 'static {
    /// Chain id, network name, genesis hash and node version.
    fn chain_info(&self) -> ChainInfo;

    /// Admits verified transactions into the mempool, one result per transaction in order.
    fn submit(&self, txs: Vec<VerifiedTransaction>) -> impl Future<Output = Vec<Result<(), AdmissionError>>> + Send;

    /// A transaction included in a finalized block.
    fn transaction(&self, hash: H256) -> impl Future<Output = Result<Option<IncludedTransaction>, ApiError>> + Send;

    /// The receipt of a transaction included in a finalized block.
    fn receipt(&self, hash: H256) -> impl Future<Output = Result<Option<Receipt>, ApiError>> + Send;

    /// A transaction still pending in the mempool.
    fn pending_transaction(&self, hash: H256) -> Option<VerifiedTransaction>;

    /// Why a recently dropped transaction left the mempool without being included, if known.
    fn dropped_reason(&self, hash: H256) -> Option<String>;

    /// Account state at the latest finalized block (`None`: the address holds no state).
    fn account(&self, address: Address) -> impl Future<Output = Result<Option<AccountInfo>, ApiError>> + Send;

    /// The actor at `address` in the latest finalized state (`None`: no actor there).
    fn actor(&self, address: Address) -> impl Future<Output = Result<Option<ActorInfo>, ApiError>> + Send;

    /// The code of the actor at `address` (`None`: no actor there).
    fn actor_code(&self, address: Address) -> impl Future<Output = Result<Option<ActorCodeInfo>, ApiError>> + Send;

    /// Up to `limit` storage entries of the actor at `address` with keys after `after` (from the
    /// first when `None`), in storage order (`None`: no actor there).
    fn actor_storage(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<StoragePage>, ApiError>> + Send;

    /// How many storage entries the actor at `address` holds (`None`: no actor there).
    fn actor_storage_count(&self, address: Address) -> impl Future<Output = Result<Option<u64>, ApiError>> + Send;

    /// Up to `limit` messages waiting for the actor at `address` after queue position `after`, in
    /// delivery order (`None`: no actor there).
    fn actor_mailbox(
        &self,
        address: Address,
        after: Option<u64>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<MailboxPage>, ApiError>> + Send;

    /// Up to `limit` events the actor at `address` emitted in successful transactions, timer
    /// fires and deliveries, in chain order, after the position `after` names (a page's
    /// `next_cursor`; `None`: no actor there).
    fn actor_logs(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<LogPage>, ApiError>> + Send;

    /// Up to `limit` system runs (timer fires, deliveries, timers dropped unpaid) of the actor at
    /// `address`, in chain order, after the position `after` names (a page's `next_cursor`;
    /// `None`: no actor there).
    fn actor_runs(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<SystemRunPage>, ApiError>> + Send;

    /// A page of the pending timers of the actor at `address`, in firing order (`None`: no
    /// actor there).
    fn actor_timers(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<Option<TimerPage>, ApiError>> + Send;

    /// A page of the upgrades of the actor at `address`, oldest first (`None`: no actor there).
    fn actor_upgrades(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<Option<UpgradePage>, ApiError>> + Send;

    /// Runs `call` read-only on the latest finalized state. A missing actor is 5000, a missing
    /// handler 5002, a write attempt 5003, a budget exceeded 5004; a handler that reverts or
    /// traps otherwise is an answer with that status.
    fn actor_read(&self, call: ActorCall) -> impl Future<Output = Result<ActorReadResponse, ApiError>> + Send;

    /// Tokens in creation order, one page (`GET /tokens`).
    fn tokens(&self, page: Page) -> impl Future<Output = Result<TokenList, ApiError>> + Send;

    /// A token's record; `None` when no token has this id.
    fn token(&self, id: Address) -> impl Future<Output = Result<Option<TokenInfo>, ApiError>> + Send;

    /// `holder`'s balance of a token (0 when it never held any); `None` when the token is unknown.
    fn token_balance(
        &self,
        id: Address,
        holder: Address,
    ) -> impl Future<Output = Result<Option<u128>, ApiError>> + Send;

    /// What `spender` may still move of `owner`'s tokens (0 when nothing was approved); `None`
    /// when the token is unknown.
    fn token_allowance(
        &self,
        id: Address,
        owner: Address,
        spender: Address,
    ) -> impl Future<Output = Result<Option<u128>, ApiError>> + Send;

    /// The nonce `address`'s next transaction takes: its finalized nonce, past its pending
    /// transactions in the mempool.
    fn next_nonce(&self, address: Address) -> impl Future<Output = Result<u64, ApiError>> + Send;

    /// The entitlement registry, in registry order.
    fn entitlements(&self) -> Vec<EntitlementInfo>;

    /// Every problem of a manifest's entitlement ids: `(position, reason)` for each unknown or
    /// repeated id, as a deploy would refuse them.
    fn manifest_problems(&self, ids: &[String]) -> Vec<(usize, String)>;

    /// Registered runners in the registry's slot order, each with its health, one page
    /// (`GET /runners/active`).
    fn active_runners(&self, page: Page) -> impl Future<Output = Result<RunnerList, ApiError>> + Send;

    /// A runner's record; `None` when the address never registered.
    fn runner(&self, address: Address) -> impl Future<Output = Result<Option<RunnerInfo>, ApiError>> + Send;

    /// `address`'s delegations (active or unbonding), one page.
    fn delegations(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<DelegationList, ApiError>> + Send;

    /// A job's record; `None` when no job has this id.
    fn job(&self, id: H256) -> impl Future<Output = Result<Option<JobInfo>, ApiError>> + Send;

    /// A job's results in submission order, one page; `None` when no job has this id.
    fn job_results(&self, id: H256, page: Page)
    -> impl Future<Output = Result<Option<JobResultList>, ApiError>> + Send;

    /// A job's verdict: `None` when no job has this id, `Some(None)` while it has none.
    fn job_verified(
        &self,
        id: H256,
    ) -> impl Future<Output = Result<Option<Option<VerifiedResultInfo>>, ApiError>> + Send;

    /// The jobs `runner` is assigned to and has not answered, in job id order, one page.
    fn runner_jobs(&self, runner: Address, page: Page) -> impl Future<Output = Result<RunnerJobList, ApiError>> + Send;

    /// `publisher`'s library `name` at `version` (the latest when `None`); `None` when unknown.
    fn library(
        &self,
        publisher: Address,
        name: String,
        version: Option<u32>,
    ) -> impl Future<Output = Result<Option<drover_types::api::LibraryInfo>, ApiError>> + Send;

    /// `publisher`'s libraries (latest versions), one page.
    fn libraries(
        &self,
        publisher: Address,
        page: Page,
    ) -> impl Future<Output = Result<drover_types::api::LibraryList, ApiError>> + Send;

    /// `owner`'s secrets (names, readers, versions), one page.
    fn secrets(&self, owner: Address, page: Page) -> impl Future<Output = Result<SecretList, ApiError>> + Send;

    /// `reader`'s envelope of `owner`'s secret `name`; `None` when there is none.
    fn secret_envelope(
        &self,
        owner: Address,
        name: String,
        reader: Address,
    ) -> impl Future<Output = Result<Option<SecretEnvelope>, ApiError>> + Send;

    /// The chain parameters in force for the next block, with their bounds.
    fn governance_params(&self) -> impl Future<Output = Result<GovernanceParams, ApiError>> + Send;

    /// Proposals in id order, one page; only those with `status` when given.
    fn proposals(
        &self,
        status: Option<drover_types::governance::ProposalStatus>,
        page: Page,
    ) -> impl Future<Output = Result<ProposalList, ApiError>> + Send;

    /// A proposal with one page of its votes; `None` when no proposal has this id.
    fn proposal(&self, id: u64, page: Page) -> impl Future<Output = Result<Option<ProposalDetail>, ApiError>> + Send;

    /// The tokens `address` has a non-zero balance of, one page.
    fn account_tokens(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<AccountTokens, ApiError>> + Send;

    /// Storage-relay totals: the relay registry's and the storage manager's (zeros when absent).
    fn ras_stats(&self) -> impl Future<Output = Result<RasStats, ApiError>> + Send;

    /// Registered relays that `filter` keeps, in listing-slot order, one page.
    fn ras_relays(&self, filter: RelayFilter, page: Page) -> impl Future<Output = Result<RelayList, ApiError>> + Send;

    /// A volume's record, rent settled virtually to the latest height; `None` when no volume
    /// has this id (never reaped). Who may see it is the route's to decide.
    fn ras_volume(&self, id: H256) -> impl Future<Output = Result<Option<VolumeInfo>, ApiError>> + Send;

    /// `owner`'s volumes in volume-id order, one page.
    fn ras_volumes(&self, owner: Address, page: Page) -> impl Future<Output = Result<VolumeList, ApiError>> + Send;

    /// `wallet`'s balance and what its volumes hold and cost (a bounded number of them).
    fn ras_account(&self, wallet: Address) -> impl Future<Output = Result<RasAccountBalance, ApiError>> + Send;

    /// The height at which `wallet` revoked `session_key`; `None` when it did not.
    fn ras_revocation(
        &self,
        wallet: Address,
        session_key: [u8; 33],
    ) -> impl Future<Output = Result<Option<u64>, ApiError>> + Send;

    /// Latest finalized height (0 before the first block).
    fn height(&self) -> u64;

    /// Changes whenever a block is finalized and its receipts are readable; holds its height.
    fn finalized_heights(&self) -> watch::Receiver<u64>;

    /// A finalized block by hash, height or `latest` (`None`: no such block).
    fn block(&self, selector: BlockSelector) -> impl Future<Output = Result<Option<BlockInfo>, ApiError>> + Send;

    /// Basefees that apply to the next block.
    fn basefees(&self) -> Basefees;

    /// Heights, timestamps and mempool figures for the health routes.
    fn health(&self) -> ChainHealth;

    /// `None` when the faucet is disabled.
    fn faucet(&self) -> Option<FaucetSettings>;

    /// Sends the drip to `address` from the faucet account; returns the funding transaction hash.
    fn fund(&self, address: Address) -> impl Future<Output = Result<H256, ApiError>> + Send;

    /// The latest state-sync checkpoint (`None` before the first finalized block).
    fn state_snapshot(&self) -> Option<StateSnapshot>;

    /// The binary batch answering `request` (format: `docs/state-sync.md`). Bounds on `max`
    /// are checked by the route; the backend refuses sizes and ranges it does not hold, and
    /// keeps the batch within [`crate::limits::MAX_OPERATIONS_RESPONSE_BYTES`] by serving fewer
    /// operations than `max` when they are large (always at least one).
    fn state_operations(&self, request: OperationsRequest) -> impl Future<Output = Result<Vec<u8>, ApiError>> + Send;

    /// Proofs of `queries`, in order, all against the post-state of one finalized block: the
    /// latest, or `height` when given (a height whose state the node cannot prove is refused).
    fn state_proofs(
        &self,
        queries: Vec<StateQuery>,
        height: Option<u64>,
    ) -> impl Future<Output = Result<Vec<StateProofInfo>, ApiError>> + Send;

    /// Proof that the transaction `hash` (or its receipt) is in its finalized block; `None` when
    /// no finalized block includes it.
    fn inclusion_proof(
        &self,
        kind: InclusionProofKind,
        hash: H256,
    ) -> impl Future<Output = Result<Option<InclusionProofInfo>, ApiError>> + Send;

    /// Prometheus text of the node's own metrics (consensus, storage, mempool, chain).
    fn metrics(&self) -> String;
}
