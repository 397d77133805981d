//! Actors: summaries, code, manifests, storage, mailbox, timers, logs, system runs, upgrade
//! history and read-only calls (`/actor/...`, `/actors/...`).

use super::encoding::{base64_bytes, hex_bytes, opt_base64_bytes, opt_integral_u64};
use super::pages::{CursorPage, Paginated};
use super::transactions::{ExecErrorInfo, ReceiptStatus};
use crate::payload::Manifest;
use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// `GET /actor/{address}`: an actor's summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActorInfo {
    /// The actor's address (`0x` hex).
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
    /// Messages waiting in its mailbox.
    pub mailbox_count: u64,
    /// Handler and payload bytes of those messages, counted against the mailbox capacity (1 MiB).
    pub mailbox_bytes: u64,
    /// Height of the block that deployed it.
    pub created_height: u64,
    /// Upgrades so far.
    pub upgrades: u32,
    /// The entitlements the actor's code may use (also `GET /actor/{address}/manifest`).
    pub manifest: Manifest,
}

/// `GET /actor/{address}/code`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActorCodeInfo {
    /// The actor's address (`0x` hex).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// keccak256 of `code`.
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

/// `GET /actors/{address}/storage`: a page of entries in storage order (see `docs/actors.md`).
pub type StoragePage = CursorPage<StorageEntryInfo>;

/// `GET /actors/{address}/storage/count`: how many storage entries an actor holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StorageCount {
    /// The actor's address (`0x` hex).
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
    /// The actor or account that sent the message.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    /// Name of the recipient's handler the delivery runs.
    pub handler: String,
    /// Input bytes passed to the handler (base64).
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
    /// Name of the actor's handler the timer runs.
    pub handler: String,
    /// Input bytes passed to the handler (base64).
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub payload: Vec<u8>,
    /// Cycles budget of the handler's run, paid by the actor when the timer fires.
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
    /// Topic the actor emitted the event under (at most 64 bytes).
    pub topic: String,
    /// Event data (base64, at most 16 KiB).
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub data: Vec<u8>,
    /// Height of the block that emitted the event.
    pub block_height: u64,
    /// What emitted the event; decides which of the fields below are set.
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
    /// Height of the block that ran the handler.
    pub block_height: u64,
    /// Whether a timer fire or a mailbox delivery; decides which of the fields below are set.
    pub kind: RunKind,
    /// The timer that fired (`timer` only).
    pub timer_id: Option<u64>,
    /// Position of the delivered message in the global queue (`delivery` only).
    pub message_seq: Option<u64>,
    /// Sender of the delivered message (`delivery` only).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub from: Option<Address>,
    /// Name of the handler that ran.
    pub handler: String,
    /// `success`, `reverted` (the handler called revert) or `failed` (an E-code in `error`).
    pub status: ReceiptStatus,
    /// Cycles the run used.
    pub cycles_used: u64,
    /// Cells (bytes written to state) the run used.
    pub cells_used: u64,
    /// Total fee paid (`fee_burned + fee_tip`), base units. Deferred work is burned in full.
    pub fee: u128,
    /// Part of `fee` burned (basefee × usage), base units.
    pub fee_burned: u128,
    /// Part of `fee` paid to the block's proposer as tip, base units.
    pub fee_tip: u128,
    /// Reason the handler gave when it reverted (`reverted` only).
    pub revert_reason: Option<String>,
    /// The execution error (`failed` and `reverted` only), as in receipts.
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
    /// Height of the block that carried the upgrade.
    pub height: u64,
    /// keccak256 of the code the upgrade replaced.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub old_code_hash: H256,
    /// keccak256 of the code the upgrade installed.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub new_code_hash: H256,
    /// Hash of the upgrade transaction.
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
    /// The actor to run (20 bytes of hex, `0x` optional).
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^(0[xX])?[0-9a-fA-F]{40}$"))]
    pub actor: Address,
    /// Name of the exported handler to run.
    pub handler: String,
    /// Input bytes for the handler (base64, standard alphabet, padded).
    #[serde(default, with = "opt_base64_bytes", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Byte))]
    pub payload: Option<Vec<u8>>,
    /// Input for the handler as UTF-8 text (may be empty).
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
    /// Answer the execution's trace too: each handler entered, what it spent, the keys it read,
    /// its nested calls and where it stopped (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<bool>,
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
    /// Cycles the handler used.
    pub cycles_used: u64,
    /// Cells metered against `max_cells` (a read writes nothing; a write is metered before it is
    /// refused).
    pub cells_used: u64,
    /// The finalized block whose post-state the handler read.
    pub block_height: u64,
    /// The block's `state_root` (`0x` hex): the post-state the handler read.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    /// Reason the handler gave when it reverted (`reverted` only).
    pub revert_reason: Option<String>,
    /// The execution error when the read did not succeed, as in receipts (E1206 for a write).
    pub error: Option<ExecErrorInfo>,
    /// The execution's trace, when the request asked for it (`null` otherwise).
    #[serde(default)]
    pub trace: Option<super::ExecutionTrace>,
}
