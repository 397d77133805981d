//! JSON records of the HTTP API, shared by the server (`drover-rpc`) and the SDK
//! (`drover-client`) so both sides agree on every field name.
//!
//! Conventions (`docs/protocol.md`): addresses, hashes and keys are `0x` hex; arbitrary bytes are
//! base64; native amounts are JSON integers; basefees and u128 token amounts are decimal strings.
//! Records (transaction, receipt, block, ...) always carry every field, `null` when it does not
//! apply; per-item results of `/submit` and `/submit_wait` leave out the fields that do not apply
//! to their status. Deserializing is as strict as the server: bytes must be standard padded
//! base64, addresses and hashes exact-length hex. With the `openapi` feature every record also
//! derives `utoipa::ToSchema`.

use crate::{Address, Event, ExecError, H256, Receipt, Signature, TxStatus, VerifiedTransaction, error::ApiError};
use serde::{Deserialize, Serialize};

/// `GET /account/{address}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"))]
    pub address: Address,
    pub nonce: u64,
    /// Base units (1 DRV = 10^9).
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub balance: u128,
}

/// An actor's entitlements manifest (`GET /actor/{address}/manifest`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ManifestInfo {
    /// Entitlement ids the actor's host calls are gated by (`storage.kv`, `econ.transfer`, ...).
    pub entitlements: Vec<String>,
}

/// `GET /actor/{address}`: an actor's summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActorInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// keccak256 of the actor's WebAssembly code.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub code_hash: H256,
    /// The deployer: the only address that may upgrade the actor.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub owner: Address,
    /// Base units held by the actor's account.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub balance: u128,
    /// The actor account's nonce.
    pub nonce: u64,
    /// Messages waiting in its mailbox, and their handler and payload bytes.
    pub mailbox_count: u64,
    pub mailbox_bytes: u64,
    /// Height of the block that deployed it.
    pub created_height: u64,
    /// Upgrades so far.
    pub upgrades: u32,
    pub manifest: ManifestInfo,
}

/// `GET /actor/{address}/code`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActorCodeInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub code_hash: H256,
    /// Size of the code in bytes.
    pub size: u64,
    /// The WebAssembly module (base64).
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub code: Vec<u8>,
}

/// One entry of an actor's storage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StorageEntryInfo {
    /// The actor's own key (hex).
    #[serde(with = "hex_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub key: Vec<u8>,
    /// The value (base64).
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub value: Vec<u8>,
}

/// One page of a cursor-paged actor list (storage, mailbox, logs, runs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CursorPage<T> {
    pub items: Vec<T>,
    /// Pass as `cursor` for the next page; `null` on the last page. Opaque to clients.
    pub next_cursor: Option<String>,
    /// The page size used (the request's `limit`, capped).
    pub limit: u64,
}

/// `GET /actors/{address}/storage`: a page of entries in storage order (see `docs/actors.md`).
pub type StoragePage = CursorPage<StorageEntryInfo>;

/// `GET /actors/{address}/storage/count`: how many storage entries an actor holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StorageCount {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Entries in the latest finalized state.
    pub count: u64,
}

/// A message waiting in an actor's mailbox.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MailboxMessageInfo {
    /// Position in the global delivery queue (FIFO order).
    pub seq: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    pub handler: String,
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub payload: Vec<u8>,
    /// Value escrowed for the recipient, in base units.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub value: u128,
    /// Cycles budget of the delivery, bought by the sender.
    pub cycles_limit: u64,
}

/// `GET /actors/{address}/mailbox`: a page of pending messages in delivery order.
pub type MailboxPage = CursorPage<MailboxMessageInfo>;

/// `GET /actor/{address}/timers`: a page of an actor's pending timers, in firing order.
pub type TimerPage = Paginated<TimerInfo>;

/// A pending one-shot timer (`GET /actor/{address}/timers`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TimerInfo {
    /// The id `timer_cancel` takes.
    pub id: u64,
    /// Height at whose start it fires.
    pub height: u64,
    pub handler: String,
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub payload: Vec<u8>,
    pub cycles_limit: u64,
}

/// What emitted an event of an actor's log: a transaction, or the work a block does before its
/// transactions (a timer fire, a mailbox delivery).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LogOrigin {
    /// A transaction of the block (`tx_hash`, `tx_index`).
    Transaction,
    /// A timer that fired at the start of the block (`timer_id`).
    Timer,
    /// A mailbox message delivered at the start of the block (`message_seq`, `from`).
    Delivery,
}

/// One event in an actor's log. Within a block, the events of timer fires and deliveries come
/// first, as they ran before the transactions. Fields of the other origins are `null`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LogInfo {
    pub topic: String,
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub data: Vec<u8>,
    pub block_height: u64,
    pub origin: LogOrigin,
    /// The emitting transaction (`transaction` only).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub tx_hash: Option<H256>,
    /// Position of the transaction in its block (`transaction` only).
    pub tx_index: Option<u32>,
    /// The timer that fired (`timer` only); its id as `/actor/{address}/timers` listed it.
    pub timer_id: Option<u64>,
    /// Position of the delivered message in the global queue (`delivery` only).
    pub message_seq: Option<u64>,
    /// Sender of the delivered message (`delivery` only).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub from: Option<Address>,
    /// Position of the event among those of its transaction or run.
    pub event_index: u32,
}

/// `GET /actor/{address}/logs`: a page of the actor's events in chain order.
pub type LogPage = CursorPage<LogInfo>;

/// Which work a system run was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// A timer of the actor fired (`timer_id`), paid by the actor.
    Timer,
    /// A message was delivered to the actor (`message_seq`, `from`), paid by its sender.
    Delivery,
}

/// A handler of an actor that a block ran before its transactions, outside any transaction: a
/// timer fire or a mailbox delivery. A timer whose owner could not pay its maximum fee is listed
/// too: `failed` with E1503, nothing used. Fields of the other kind are `null`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SystemRunInfo {
    pub block_height: u64,
    pub kind: RunKind,
    /// The timer that fired (`timer` only).
    pub timer_id: Option<u64>,
    /// Position of the delivered message in the global queue (`delivery` only).
    pub message_seq: Option<u64>,
    /// Sender of the delivered message (`delivery` only).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub from: Option<Address>,
    pub handler: String,
    pub status: ReceiptStatus,
    pub cycles_used: u64,
    pub cells_used: u64,
    /// Total fee paid (`fee_burned + fee_tip`), base units. Deferred work is burned in full.
    pub fee: u128,
    pub fee_burned: u128,
    pub fee_tip: u128,
    pub revert_reason: Option<String>,
    pub error: Option<ExecErrorInfo>,
    /// Events the run emitted; they are in the emitters' logs with this run as their origin.
    pub event_count: u32,
}

/// `GET /actor/{address}/runs`: a page of the actor's system runs in chain order.
pub type SystemRunPage = CursorPage<SystemRunInfo>;

/// `GET /actor/{address}/upgrade-history`: a page of an actor's upgrades, oldest first.
pub type UpgradePage = Paginated<UpgradeInfo>;

/// One upgrade of an actor (`GET /actor/{address}/upgrade-history`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UpgradeInfo {
    pub height: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub old_code_hash: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub new_code_hash: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
}

/// `POST /actor/read`: run a handler read-only against the latest finalized state. Exactly one
/// of `payload` (base64), `payload_text` (UTF-8, may be empty) and `payload_json` (passed to the
/// handler as compact JSON with sorted object keys) must be given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ActorReadRequest {
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^(0[xX])?[0-9a-fA-F]{40}$"))]
    pub actor: Address,
    pub handler: String,
    #[serde(default, with = "opt_base64_bytes", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Byte))]
    pub payload: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_text: Option<String>,
    /// Any JSON value (`null` counts as absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Value>))]
    pub payload_json: Option<serde_json::Value>,
    /// Cycles budget, 1 to the node's cap (the default).
    #[serde(default, with = "opt_integral_u64", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10_000_000))]
    pub max_cycles: Option<u64>,
    /// Cells budget, 1 to the node's cap (the default).
    #[serde(default, with = "opt_integral_u64", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1_000_000))]
    pub max_cells: Option<u64>,
    /// What the handler sees as its caller and origin (default: the zero address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = "^(0[xX])?[0-9a-fA-F]{40}$"))]
    pub from: Option<Address>,
}

/// `POST /actor/read` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActorReadResponse {
    /// `success`, `reverted` (the handler called revert) or `failed` (it trapped).
    pub status: ReceiptStatus,
    /// What the handler returned (base64; empty unless it succeeded).
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub result: Vec<u8>,
    pub cycles_used: u64,
    pub cells_used: u64,
    /// The finalized block whose post-state the handler read.
    pub block_height: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    pub revert_reason: Option<String>,
    pub error: Option<ExecErrorInfo>,
}

/// `GET /chain-info`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChainInfo {
    pub chain_id: u64,
    pub network: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub genesis_hash: H256,
    pub version: String,
}

/// `GET /block/{selector}`: a finalized block header with its transaction hashes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlockInfo {
    pub height: u64,
    /// Block digest (what consensus finalizes).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub parent_hash: H256,
    /// Unix seconds.
    pub timestamp: u64,
    pub timestamp_ms: u64,
    /// Account that received this block's tips.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub proposer: Address,
    /// Consensus view in which the block was proposed.
    pub view: u64,
    /// Canonical QMDB root after executing the block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub transactions_root: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub receipts_root: H256,
    /// State-sync target: ops root, sync boundary (range start) and op count.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub ops_root: H256,
    pub sync_range_start: u64,
    pub op_count: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub transactions: Vec<H256>,
    pub cycles_used: u64,
    pub cells_used: u64,
    /// Basefees in force for this block (decimal strings).
    pub basefee_cycle: String,
    pub basefee_cell: String,
    /// Hex of the encoded finalization certificate, where known.
    pub finalization: Option<String>,
}

/// `GET /state/snapshot`: the state-sync checkpoint a peer can fast-sync to. It is the sync
/// target committed by the latest finalized block: replaying operations
/// `range_start..op_count` and checking them against `ops_root` rebuilds the state whose
/// canonical root is `canonical_root`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StateSnapshot {
    /// Height of the finalized block that commits to this checkpoint.
    pub height: u64,
    /// Hash of that block (its finalization certificate is on `GET /block/{hash}`).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub block_hash: H256,
    /// First operation a syncing client must fetch (the sync boundary).
    pub range_start: u64,
    /// Number of operations in the log at this checkpoint (the `size` to request).
    pub op_count: u64,
    /// Root of the operations' Merkle mountain range at `op_count`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub ops_root: H256,
    /// Canonical state root at `height` (the block's `state_root`).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub canonical_root: H256,
}

/// Body of every error response: `{"code": <int>, "error": "<snake_case_name>", "message": "<text>"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// Numeric API error code (1000–9000).
    #[cfg_attr(feature = "openapi", schema(example = 3001))]
    pub code: u16,
    /// Snake-case name of the code.
    #[cfg_attr(feature = "openapi", schema(example = "invalid_address"))]
    pub error: String,
    pub message: String,
}

impl From<&ApiError> for ErrorBody {
    fn from(err: &ApiError) -> Self {
        Self { code: err.code.code(), error: err.code.name().to_owned(), message: err.message.clone() }
    }
}

/// `GET /height`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HeightInfo {
    /// Latest finalized height (0 before the first block).
    pub height: u64,
}

/// `GET /basefee`: basefees of the next block and suggested fee settings, as decimal strings
/// (base units per cycle / per cell). A suggested max fee is twice the basefee plus the suggested
/// tip, so a transaction stays admissible through several blocks of rising basefee.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BasefeeInfo {
    #[cfg_attr(feature = "openapi", schema(example = "7"))]
    pub basefee_cycle: String,
    #[cfg_attr(feature = "openapi", schema(example = "7"))]
    pub basefee_cell: String,
    pub suggested_tip_per_cycle: String,
    pub suggested_tip_per_cell: String,
    pub suggested_max_fee_per_cycle: String,
    pub suggested_max_fee_per_cell: String,
}

/// Status of the node or of one of its components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    Ok,
    Degraded,
}

/// `GET /health`: liveness only; the node reads no state to answer it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Liveness {
    pub status: HealthStatus,
}

/// Per-component status in the detailed health record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ComponentsHealth {
    pub storage: HealthStatus,
    /// `degraded` at 30,000 pending transactions or more.
    pub mempool: HealthStatus,
    pub rpc: HealthStatus,
}

/// `GET /health/detailed` (alias `/health/ready`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthDetailed {
    /// `degraded` when any component is.
    pub status: HealthStatus,
    pub version: String,
    pub uptime_seconds: u64,
    /// Latest finalized height.
    pub block_height: u64,
    /// Unix seconds of the latest finalized block (0 before the first).
    pub last_block_timestamp: u64,
    pub mempool_transaction_count: u64,
    pub mempool_account_count: u64,
    pub components: ComponentsHealth,
    /// Always `true`: judge sync from `block_height` against a peer and the age of
    /// `last_block_timestamp`.
    pub synced: bool,
}

/// `POST /faucet` request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FaucetRequest {
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^(0[xX])?[0-9a-fA-F]{40}$", example = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"))]
    pub address: Address,
}

/// `POST /faucet` response.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FaucetResponse {
    /// Hash of the funding transaction.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Base units sent.
    pub amount: u128,
}

/// Admission outcome of one submitted transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SubmitStatus {
    Accepted,
    Rejected,
}

/// One entry of `results` of `POST /submit`, in submission order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitResult {
    /// Transaction hash; keccak256 of the element's raw bytes when it did not decode.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    pub status: SubmitStatus,
    /// API error code, when rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// Snake-case name of the code, when rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl SubmitResult {
    pub fn accepted(hash: H256) -> Self {
        Self { hash, status: SubmitStatus::Accepted, code: None, error: None, message: None }
    }

    pub fn rejected(hash: H256, err: &ApiError) -> Self {
        Self {
            hash,
            status: SubmitStatus::Rejected,
            code: Some(err.code.code()),
            error: Some(err.code.name().to_owned()),
            message: Some(err.message.clone()),
        }
    }
}

/// `POST /submit` response. When no transaction was accepted, the first refusal's
/// `code`/`error`/`message` are repeated at the top level and the HTTP status is its status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitResponse {
    pub results: Vec<SubmitResult>,
    pub accepted: u64,
    pub rejected: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Outcome of one transaction of `POST /submit_wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum WaitStatus {
    /// Included and executed.
    Success,
    /// Included; execution reverted.
    Reverted,
    /// Included; a pre-check failed at execution time.
    Failed,
    /// Admitted, but no receipt before the timeout.
    Pending,
    /// Refused at admission.
    Rejected,
}

/// The `error` field of a `/submit_wait` result: the API error name for a transaction refused at
/// admission, or the execution error (E-code) of an included one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum WaitError {
    Admission(String),
    Execution(ExecErrorInfo),
}

/// One entry of `results` of `POST /submit_wait`, in submission order. Fields that do not apply
/// to the status are left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitWaitResult {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    pub status: WaitStatus,
    /// API error code, when rejected at admission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WaitError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_height: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells_used: Option<u64>,
    /// Total fee paid, in base units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee: Option<u128>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revert_reason: Option<String>,
}

impl SubmitWaitResult {
    /// A transaction refused at admission.
    pub fn rejected(hash: H256, err: &ApiError) -> Self {
        Self {
            status: WaitStatus::Rejected,
            code: Some(err.code.code()),
            error: Some(WaitError::Admission(err.code.name().to_owned())),
            message: Some(err.message.clone()),
            ..Self::pending(hash)
        }
    }

    /// An admitted transaction without a receipt yet.
    pub fn pending(hash: H256) -> Self {
        Self {
            hash,
            status: WaitStatus::Pending,
            code: None,
            error: None,
            message: None,
            block_height: None,
            cycles_used: None,
            cells_used: None,
            fee: None,
            revert_reason: None,
        }
    }

    /// An included transaction, from its receipt.
    pub fn executed(receipt: &Receipt) -> Self {
        Self {
            hash: receipt.tx_hash,
            status: match receipt.status {
                TxStatus::Success => WaitStatus::Success,
                TxStatus::Reverted => WaitStatus::Reverted,
                TxStatus::Failed => WaitStatus::Failed,
            },
            code: None,
            error: receipt.error.as_ref().map(|err| WaitError::Execution(ExecErrorInfo::from(err))),
            message: None,
            block_height: Some(receipt.block_height),
            cycles_used: Some(receipt.cycles_used),
            cells_used: Some(receipt.cells_used),
            fee: Some(receipt.fee.total()),
            revert_reason: receipt.revert_reason.clone(),
        }
    }
}

/// `POST /submit_wait` response; top-level error fields as in [`SubmitResponse`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitWaitResponse {
    pub results: Vec<SubmitWaitResult>,
    pub accepted: u64,
    pub rejected: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Envelope of offset-paginated lists (`?offset=&limit=`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Paginated<T> {
    pub items: Vec<T>,
    /// Number of items in the whole list.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// Whether a transaction record comes from the mempool or from a finalized block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TransactionState {
    Pending,
    Included,
}

/// A transaction signature in JSON: parity and `0x` hex of the 32-byte `r` and `s`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignatureInfo {
    pub y_parity: u8,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub r: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub s: H256,
}

impl From<&Signature> for SignatureInfo {
    fn from(sig: &Signature) -> Self {
        Self { y_parity: sig.y_parity, r: H256(sig.r), s: H256(sig.s) }
    }
}

/// `GET /transaction/{hash}` and `GET /mempool/transaction/{hash}`: the transaction-array fields
/// by name, plus the hash, the recovered sender and, once included, where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransactionInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// Sender recovered from the signature.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    pub chain_id: u64,
    pub nonce: u64,
    /// `null` for a deploy.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    /// Base units.
    pub value: u128,
    pub cycles_limit: u64,
    pub cells_limit: u64,
    pub max_fee_per_cycle: u128,
    pub max_fee_per_cell: u128,
    pub tip_per_cycle: u128,
    pub tip_per_cell: u128,
    /// Standard padded base64.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub payload: Vec<u8>,
    pub signature: SignatureInfo,
    pub status: TransactionState,
    /// Height of the including block; `null` while pending.
    pub block_height: Option<u64>,
    /// Position in the including block; `null` while pending.
    pub index: Option<u32>,
}

impl TransactionInfo {
    /// A transaction still in the mempool.
    pub fn pending(tx: &VerifiedTransaction) -> Self {
        Self::new(tx, TransactionState::Pending, None, None)
    }

    /// A transaction included at `index` of the block at `block_height`.
    pub fn included(tx: &VerifiedTransaction, block_height: u64, index: u32) -> Self {
        Self::new(tx, TransactionState::Included, Some(block_height), Some(index))
    }

    fn new(
        verified: &VerifiedTransaction,
        status: TransactionState,
        block_height: Option<u64>,
        index: Option<u32>,
    ) -> Self {
        let tx = &verified.tx;
        // A verified transaction always carries its signature; the default only keeps this
        // conversion total.
        let signature = tx.signature.as_ref().map(SignatureInfo::from).unwrap_or(SignatureInfo {
            y_parity: 0,
            r: H256::ZERO,
            s: H256::ZERO,
        });
        Self {
            hash: verified.hash,
            from: verified.sender,
            chain_id: tx.chain_id,
            nonce: tx.nonce,
            to: tx.to,
            value: tx.value,
            cycles_limit: tx.cycles_limit,
            cells_limit: tx.cells_limit,
            max_fee_per_cycle: tx.max_fee_per_cycle,
            max_fee_per_cell: tx.max_fee_per_cell,
            tip_per_cycle: tx.tip_per_cycle,
            tip_per_cell: tx.tip_per_cell,
            payload: tx.payload.clone(),
            signature,
            status,
            block_height,
            index,
        }
    }
}

/// An event in a receipt: emitter, topic and base64 data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    pub topic: String,
    /// Standard padded base64.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub data: Vec<u8>,
}

impl From<&Event> for EventInfo {
    fn from(event: &Event) -> Self {
        Self { address: event.address, topic: event.topic.clone(), data: event.data.clone() }
    }
}

/// An execution error (E-code) of a failed or reverted transaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExecErrorInfo {
    #[cfg_attr(feature = "openapi", schema(example = "E1005"))]
    pub code: String,
    #[cfg_attr(feature = "openapi", schema(example = "precheck"))]
    pub category: String,
    pub message: String,
    /// Advice for the sender.
    pub fix: String,
}

impl From<&ExecError> for ExecErrorInfo {
    fn from(err: &ExecError) -> Self {
        Self {
            code: err.code.as_str().to_owned(),
            category: err.code.category().to_owned(),
            message: err.message.clone(),
            fix: err.code.fix().to_owned(),
        }
    }
}

/// Outcome of an included transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReceiptStatus {
    Success,
    Reverted,
    Failed,
}

impl From<TxStatus> for ReceiptStatus {
    fn from(status: TxStatus) -> Self {
        match status {
            TxStatus::Success => ReceiptStatus::Success,
            TxStatus::Reverted => ReceiptStatus::Reverted,
            TxStatus::Failed => ReceiptStatus::Failed,
        }
    }
}

/// `GET /transaction/{hash}/receipt`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReceiptInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    pub block_height: u64,
    pub index: u32,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    pub status: ReceiptStatus,
    pub cycles_used: u64,
    pub cells_used: u64,
    /// Total fee paid (`fee_burned + fee_tip`), base units.
    pub fee: u128,
    /// Basefee part, burned.
    pub fee_burned: u128,
    /// Tip part, paid to the proposer.
    pub fee_tip: u128,
    pub events: Vec<EventInfo>,
    pub revert_reason: Option<String>,
    pub error: Option<ExecErrorInfo>,
}

impl From<&Receipt> for ReceiptInfo {
    fn from(r: &Receipt) -> Self {
        Self {
            tx_hash: r.tx_hash,
            block_height: r.block_height,
            index: r.index,
            from: r.from,
            to: r.to,
            status: r.status.into(),
            cycles_used: r.cycles_used,
            cells_used: r.cells_used,
            fee: r.fee.total(),
            fee_burned: r.fee.burned,
            fee_tip: r.fee.tip,
            events: r.events.iter().map(EventInfo::from).collect(),
            revert_reason: r.revert_reason.clone(),
            error: r.error.as_ref().map(ExecErrorInfo::from),
        }
    }
}

/// Which state record a state proof is about. Each kind is a family of the state key schema:
/// `account` → `0x01 ‖ address`, `actor` → `0x02 ‖ address`, `storage` → `0x03 ‖ address ‖ key`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StateProofKind {
    Account,
    Actor,
    Storage,
}

/// `GET /proof/account|actor|storage/...` and `GET /state/{actor}/{key_hex}`: a state record (or
/// its absence) with everything needed to check it against the network's group key alone.
/// Format and verification steps: `docs/proofs.md`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StateProofInfo {
    pub kind: StateProofKind,
    /// The account or actor the record belongs to.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// The actor's own storage key (`storage` only; `0x` hex).
    #[serde(default, with = "opt_hex_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub storage_key: Option<Vec<u8>>,
    /// The state key proven (`0x` hex): family prefix, address, then the storage key.
    #[serde(with = "hex_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub key: Vec<u8>,
    /// The record's bytes (base64), `null` when the key holds none: `proof` then proves absence.
    #[serde(default, with = "opt_base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Byte))]
    pub value: Option<Vec<u8>>,
    /// Encoded QMDB proof (base64): a key-value proof when `value` is set, else an exclusion proof.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub proof: Vec<u8>,
    /// Height of the block whose post-state is proven.
    pub height: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub block_hash: H256,
    /// The block's `state_root`, which `proof` verifies against.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    /// The encoded block header (base64): every field but the transactions; its SHA-256 is
    /// `block_hash`.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub header: Vec<u8>,
    /// Hex of the block's encoded finalization certificate (as in `/block/{selector}`).
    pub finalization: String,
}

/// What an inclusion proof proves: a transaction in a block's `transactions_root`, or its receipt
/// in the `receipts_root`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum InclusionProofKind {
    Tx,
    Receipt,
}

/// `GET /proof/tx/{tx_hash}` and `GET /proof/receipt/{tx_hash}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct InclusionProofInfo {
    pub kind: InclusionProofKind,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    /// Height of the including block.
    pub height: u64,
    /// Position of the transaction in the block (the leaf index).
    pub index: u32,
    /// Canonical CBOR of the transaction (`tx`) or of the receipt (`receipt`), base64.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub encoded: Vec<u8>,
    /// Encoded binary Merkle proof (base64) of the leaf at `index`.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub proof: Vec<u8>,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub block_hash: H256,
    /// The block's `transactions_root` or `receipts_root`, which `proof` verifies against.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub root: H256,
    /// The encoded block header (base64): every field but the transactions; its SHA-256 is
    /// `block_hash`.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub header: Vec<u8>,
    /// Hex of the block's encoded finalization certificate.
    pub finalization: String,
}

/// Any proof the node serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum ProofInfo {
    State(StateProofInfo),
    Inclusion(InclusionProofInfo),
}

/// One request of a `POST /proof/multi` body. `kind` is `account`, `actor`, `storage`, `tx` or
/// `receipt`; `address` goes with the first three, `key` (hex) with `storage`, `tx_hash` with the
/// last two. Fields are checked per item, so one bad item does not refuse the batch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProofRequest {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_hash: Option<String>,
}

/// One answer of `POST /proof/multi`: the proof, or the error that item alone met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum MultiProofItem {
    Proof(ProofInfo),
    Error(ErrorBody),
}

/// `POST /proof/multi`: one item per request, in request order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MultiProofResponse {
    pub results: Vec<MultiProofItem>,
}

/// Serde of byte strings as `0x` hex (input: prefix optional, any case).
mod hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{}", hex::encode(bytes)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        crate::hexfmt::decode(&text).map_err(serde::de::Error::custom)
    }
}

/// [`hex_bytes`] for an optional field (`null` when absent).
mod opt_hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(bytes) => super::hex_bytes::serialize(bytes, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let text = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.map(|text| crate::hexfmt::decode(&text).map_err(serde::de::Error::custom)).transpose()
    }
}

/// [`base64_bytes`] for an optional field (`null` when absent).
mod opt_base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD as BASE64;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(bytes) => s.serialize_str(&BASE64.encode(bytes)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let text = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.map(|text| BASE64.decode(text.as_bytes()).map_err(serde::de::Error::custom)).transpose()
    }
}

/// An optional `u64` that may also be written as a JSON number with a zero fraction (`55.0`):
/// JSON Schema's `integer`, which the document promises, includes those, and clients that compute
/// budgets in floating point (JavaScript, Python) send them. Fractions, negatives and values above
/// `u64::MAX` are refused.
mod opt_integral_u64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => s.serialize_u64(*value),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let Some(number) = Option::<serde_json::Number>::deserialize(d)? else {
            return Ok(None);
        };
        if let Some(value) = number.as_u64() {
            return Ok(Some(value));
        }
        // 2^64 as f64 is exact; every float below it with no fraction is a u64.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        match number.as_f64() {
            Some(value) if value.fract() == 0.0 && (0.0..LIMIT).contains(&value) => Ok(Some(value as u64)),
            _ => Err(serde::de::Error::custom(format!("expected a non-negative integer below 2^64, got {number}"))),
        }
    }
}

/// Serde of byte strings as standard padded base64 text.
mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD as BASE64;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&BASE64.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        BASE64.decode(text.as_bytes()).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorCode, FeeBreakdown, Transaction, exec_error::ExecCode};
    use serde_json::json;

    fn hash(byte: u8) -> H256 {
        H256([byte; 32])
    }

    fn verified() -> VerifiedTransaction {
        VerifiedTransaction {
            tx: Transaction {
                chain_id: 100,
                nonce: 3,
                to: None,
                value: u128::from(u64::MAX) + 1,
                cycles_limit: 21_000,
                cells_limit: 5,
                max_fee_per_cycle: 10,
                max_fee_per_cell: 2,
                tip_per_cycle: 1,
                tip_per_cell: 0,
                payload: vec![0xfb, 0xff, 0x01],
                signature: Some(Signature { y_parity: 1, r: [0xaa; 32], s: [0x0b; 32] }),
            },
            hash: hash(1),
            sender: Address([0x22; 20]),
            encoded: Vec::new(),
        }
    }

    fn receipt() -> Receipt {
        Receipt {
            tx_hash: hash(1),
            block_height: 9,
            index: 4,
            from: Address([0x22; 20]),
            to: Some(Address([0x33; 20])),
            status: TxStatus::Reverted,
            cycles_used: 500,
            cells_used: 6,
            fee: FeeBreakdown { burned: 70, tip: 5 },
            events: vec![Event { address: Address([0x33; 20]), topic: "t".into(), data: vec![1, 2] }],
            revert_reason: Some("no".into()),
            error: Some(ExecError::new(ExecCode::OutOfCycles, "ran out")),
        }
    }

    #[test]
    fn error_body_from_api_error() {
        let body = ErrorBody::from(&ApiError::new(ErrorCode::InvalidAddress, "bad"));
        assert_eq!(
            serde_json::to_value(body).unwrap(),
            json!({"code": 3001, "error": "invalid_address", "message": "bad"})
        );
    }

    #[test]
    fn submit_results_leave_out_what_does_not_apply() {
        let accepted = SubmitResult::accepted(hash(2));
        assert_eq!(serde_json::to_value(&accepted).unwrap(), json!({"hash": hash(2).to_hex(), "status": "accepted"}));
        let err = ApiError::new(ErrorCode::WrongChainId, "chain 7");
        let rejected = SubmitResult::rejected(hash(3), &err);
        let value = serde_json::to_value(&rejected).unwrap();
        assert_eq!(
            value,
            json!({"hash": hash(3).to_hex(), "status": "rejected", "code": 2002, "error": "wrong_chain_id", "message": "chain 7"})
        );
        assert_eq!(serde_json::from_value::<SubmitResult>(value).unwrap(), rejected);
    }

    #[test]
    fn wait_results_by_status() {
        let pending = SubmitWaitResult::pending(hash(4));
        assert_eq!(serde_json::to_value(&pending).unwrap(), json!({"hash": hash(4).to_hex(), "status": "pending"}));

        let rejected = SubmitWaitResult::rejected(hash(5), &ApiError::new(ErrorCode::NonceTooLow, "used"));
        let value = serde_json::to_value(&rejected).unwrap();
        assert_eq!(
            value,
            json!({"hash": hash(5).to_hex(), "status": "rejected", "code": 2003, "error": "nonce_too_low", "message": "used"})
        );
        assert_eq!(serde_json::from_value::<SubmitWaitResult>(value).unwrap(), rejected);

        let executed = SubmitWaitResult::executed(&receipt());
        let value = serde_json::to_value(&executed).unwrap();
        assert_eq!(
            value,
            json!({
                "hash": hash(1).to_hex(),
                "status": "reverted",
                "error": {"code": "E1005", "category": "precheck", "message": "ran out", "fix": ExecCode::OutOfCycles.fix()},
                "block_height": 9,
                "cycles_used": 500,
                "cells_used": 6,
                "fee": 75,
                "revert_reason": "no",
            })
        );
        assert_eq!(serde_json::from_value::<SubmitWaitResult>(value).unwrap(), executed);
    }

    #[test]
    fn transaction_record() {
        let info = TransactionInfo::included(&verified(), 7, 2);
        let text = serde_json::to_string(&info).unwrap();
        // u128 amounts stay JSON integers, even above 2^64 - 1.
        assert!(text.contains(r#""value":18446744073709551616"#), "{text}");
        let value: serde_json::Value = serde_json::from_str(&text.replace("18446744073709551616", "0")).unwrap();
        assert_eq!(value["payload"], "+/8B");
        assert_eq!(value["to"], serde_json::Value::Null);
        assert_eq!(value["from"], Address([0x22; 20]).to_hex());
        assert_eq!(value["status"], "included");
        assert_eq!((value["block_height"].as_u64(), value["index"].as_u64()), (Some(7), Some(2)));
        assert_eq!(value["signature"], json!({"y_parity": 1, "r": hash(0xaa).to_hex(), "s": hash(0x0b).to_hex()}));
        assert_eq!(serde_json::from_str::<TransactionInfo>(&text).unwrap(), info);

        let mut small = verified();
        small.tx.value = 1;
        let pending = serde_json::to_value(TransactionInfo::pending(&small)).unwrap();
        assert_eq!(pending["status"], "pending");
        assert!(pending["block_height"].is_null() && pending["index"].is_null());
    }

    #[test]
    fn receipt_record() {
        let info = ReceiptInfo::from(&receipt());
        let value = serde_json::to_value(&info).unwrap();
        assert_eq!(value["status"], "reverted");
        assert_eq!(
            (value["fee"].as_u64(), value["fee_burned"].as_u64(), value["fee_tip"].as_u64()),
            (Some(75), Some(70), Some(5))
        );
        assert_eq!(value["events"], json!([{"address": Address([0x33; 20]).to_hex(), "topic": "t", "data": "AQI="}]));
        assert_eq!(value["error"]["code"], "E1005");
        assert_eq!(serde_json::from_value::<ReceiptInfo>(value).unwrap(), info);
    }

    /// JSON Schema's `integer` includes `55.0`; read budgets take it (generated traffic sent it
    /// and was refused). Budgets still serialize as integers.
    #[test]
    fn read_budgets_take_integral_numbers_only() {
        let read = |budget: serde_json::Value| {
            serde_json::from_value::<ActorReadRequest>(json!({
                "actor": Address([1; 20]).to_hex(), "handler": "get", "max_cycles": budget, "max_cells": null,
            }))
            .map(|request| (request.max_cycles, request.max_cells))
            .map_err(|e| e.to_string())
        };
        assert_eq!(read(json!(55)), Ok((Some(55), None)));
        assert_eq!(read(json!(55.0)), Ok((Some(55), None)));
        assert_eq!(read(json!(1e3)), Ok((Some(1000), None)));
        assert_eq!(read(json!(u64::MAX)), Ok((Some(u64::MAX), None)));
        assert_eq!(read(json!(null)), Ok((None, None)));
        for bad in [json!(55.5), json!(-1), json!(-1.0), json!(1.8446744073709552e19), json!("5"), json!(true)] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        let request = ActorReadRequest {
            actor: Address([1; 20]),
            handler: "get".into(),
            payload: None,
            payload_text: Some(String::new()),
            payload_json: None,
            max_cycles: Some(7),
            max_cells: None,
            from: None,
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(value["max_cycles"], json!(7));
        assert!(value.get("max_cells").is_none());
        assert_eq!(serde_json::from_value::<ActorReadRequest>(value).unwrap(), request);
    }

    #[test]
    fn base64_fields_refuse_other_alphabets() {
        let mut value = serde_json::to_value(ReceiptInfo::from(&receipt())).unwrap();
        value["events"][0]["data"] = json!("AQI");
        assert!(serde_json::from_value::<ReceiptInfo>(value).is_err());
    }
}
