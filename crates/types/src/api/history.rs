//! What apps and wallets read beyond the state: an account's history, the list of recent blocks,
//! event queries across emitters, the push streams, and transaction simulation
//! (`/account/{address}/history`, `/blocks`, `/events`, `/indexed`, `/stream/...`, `/simulate`).
//!
//! Pages carry `first_indexed_height`: the first height the node holds these indexes for. A
//! node that fast-synced holds nothing below its sync height and refuses a query below it
//! (code 4002) rather than answer an empty page.

use super::actors::LogOrigin;
use super::encoding::{base64_bytes, decimal_u128, opt_base64_bytes, opt_integral_u64};
use super::transactions::{EventInfo, ExecErrorInfo, ReceiptStatus};
use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// Whether the account sent the transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The account signed it (it may also have received something back: see `received`).
    Sent,
    /// Someone else signed it; the account is its destination or received value in it.
    Received,
}

/// How value arrived at an account in a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReceivedBy {
    /// Native value from the sender: a transfer's, or the value of a call or a deploy.
    Transfer,
    /// Native value from an actor: its `transfer` host call, the value of a call it made, or a
    /// system actor paying out (a refund, a reward, a withdrawal).
    ActorTransfer,
    /// Native tokens: a transfer, a `transfer_from` or a mint.
    TokenTransfer,
}

/// An amount of one native token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenAmount {
    /// The token's id.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub token: Address,
    /// In the token's smallest units (decimal string).
    #[serde(with = "decimal_u128")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub amount: u128,
}

/// One transaction in an account's history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HistoryEntryInfo {
    /// The transaction (`/transaction/{hash}`, `/proof/receipt/{hash}`).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    /// Height of the including block.
    pub block_height: u64,
    /// Position of the transaction in its block (its receipt's index).
    pub index: u32,
    /// `sent` when the account signed it, else `received`.
    pub direction: Direction,
    /// `success`, `reverted` or `failed`.
    pub status: ReceiptStatus,
    /// The sender.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    /// The transaction's destination; `null` for a deploy.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    /// The transaction's own value, base units.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub value: u128,
    /// What the sender paid, base units.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub fee: u128,
    /// Whether the account is the transaction's destination (its `to`, or the actor its deploy
    /// created).
    pub destination: bool,
    /// How value arrived at the account in this transaction (empty: none did).
    pub received: Vec<ReceivedBy>,
    /// Native value the account received in it, from anyone, base units.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub value_received: u128,
    /// Tokens the account received in it, by token id.
    pub tokens_received: Vec<TokenAmount>,
}

/// `GET /account/{address}/history`: a page of the account's transactions, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HistoryPage {
    /// Newest first.
    pub items: Vec<HistoryEntryInfo>,
    /// Pass as `cursor` for older entries; `null` on the last page. Opaque to clients.
    pub next_cursor: Option<String>,
    /// The page size used.
    pub limit: u64,
    /// The first height this node holds history for: older transactions are not listed.
    pub first_indexed_height: u64,
}

/// A finalized block as lists and streams show it: header fields, counts and meters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlockSummary {
    /// Height of the block.
    pub height: u64,
    /// Block digest.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// Hash of the parent block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub parent_hash: H256,
    /// Unix milliseconds, as stamped by the proposer.
    pub timestamp_ms: u64,
    /// Account that received the block's tips.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub proposer: Address,
    /// Consensus view in which the block was proposed.
    pub view: u64,
    /// State root after the block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    /// Transactions in the block.
    pub transaction_count: u32,
    /// Timer fires and mailbox deliveries the block ran before its transactions.
    pub system_run_count: u32,
    /// Events the block's transactions and system runs emitted.
    pub event_count: u32,
    /// Cycles used by the block.
    pub cycles_used: u64,
    /// Cells used by the block.
    pub cells_used: u64,
    /// Basefee per cycle in force for the block (decimal string).
    pub basefee_cycle: String,
    /// Basefee per cell in force for the block (decimal string).
    pub basefee_cell: String,
    /// The transactions' hashes in block order: in the block stream; `null` in lists.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<String>>))]
    pub transactions: Option<Vec<H256>>,
}

/// `GET /blocks`: a page of finalized blocks, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlockPage {
    /// Newest first.
    pub items: Vec<BlockSummary>,
    /// Pass as `cursor` for older blocks (a height); `null` on the last page.
    pub next_cursor: Option<String>,
    /// The page size used.
    pub limit: u64,
    /// The first height this node lists blocks from.
    pub first_indexed_height: u64,
}

/// One event an event query found, with where it is: the receipt of `tx_hash` holds it at
/// `events[event_index]` (`/proof/receipt/{tx_hash}` proves it), or the system run it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IndexedEvent {
    /// The emitter.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Topic.
    pub topic: String,
    /// Event data (base64).
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub data: Vec<u8>,
    /// Height of the block that emitted it.
    pub block_height: u64,
    /// A transaction, a timer fire or a mailbox delivery; decides which fields below are set.
    pub origin: LogOrigin,
    /// The emitting transaction (`transaction` only).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub tx_hash: Option<H256>,
    /// The receipt's index: the transaction's position in its block (`transaction` only).
    pub tx_index: Option<u32>,
    /// The timer that fired (`timer` only).
    pub timer_id: Option<u64>,
    /// The delivered message's position in the global queue (`delivery` only).
    pub message_seq: Option<u64>,
    /// Sender of the delivered message (`delivery` only).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub from: Option<Address>,
    /// Position of the event among those of its receipt or run.
    pub event_index: u32,
    /// The event's position (17 bytes of hex): a query's `cursor` after it, the id of its
    /// stream message.
    pub cursor: String,
}

/// `GET /events`: a page of the events a filter selects, in chain order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventPage {
    /// In chain order.
    pub items: Vec<IndexedEvent>,
    /// Pass as `cursor` (with the same filter) for the rest; `null` once the range is done. A page
    /// may hold fewer than `limit` items and still have a cursor: the query examined as many
    /// entries as one query may and stopped there.
    pub next_cursor: Option<String>,
    /// The page size used.
    pub limit: u64,
    /// First height of the range queried.
    pub from_height: u64,
    /// Last height of the range queried.
    pub to_height: u64,
    /// The first height this node holds events for.
    pub first_indexed_height: u64,
}

/// `GET /indexed`: the heights this node holds history, blocks and events for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IndexedRange {
    /// The first height (0 before any block): a node that fast-synced holds nothing below its
    /// sync height.
    pub first_height: u64,
    /// The latest finalized height.
    pub last_height: u64,
}

/// The last message of a stream the node closed: why, and where to resume.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StreamClosed {
    /// Why the node closed the stream.
    pub reason: String,
    /// The id of the last message sent: reconnect with it as `Last-Event-ID` to go on.
    pub last_event_id: Option<String>,
}

/// A transaction the mempool dropped without including it (`/stream/tx/{hash}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DroppedInfo {
    /// The transaction.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// Why it left the mempool.
    pub reason: String,
}

/// `POST /simulate`: a transaction to run at the tip without committing anything: either
/// `transaction` (a signed transaction's canonical CBOR, base64), or the fields of an unsigned
/// one with its sender in `from`. Fields left out of an unsigned transaction are filled in: the
/// sender's next nonce, the basefees as max fees with no tip, and as limits the block's limits
/// capped by what the sender's balance can pay.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SimulateRequest {
    /// A signed transaction (canonical CBOR, base64); excludes every other field.
    #[serde(default, with = "opt_base64_bytes", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Byte))]
    pub transaction: Option<Vec<u8>>,
    /// Sender of an unsigned transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub from: Option<Address>,
    /// Destination; absent for a deploy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    /// Base units (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<u64>))]
    pub value: Option<u128>,
    /// The payload (base64): a Message, a Deploy, or empty for a transfer.
    #[serde(default, with = "opt_base64_bytes", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Byte))]
    pub payload: Option<Vec<u8>>,
    /// Nonce (default: the sender's next, past its pending transactions).
    #[serde(default, with = "opt_integral_u64", skip_serializing_if = "Option::is_none")]
    pub nonce: Option<u64>,
    /// Cycles limit (default: see above).
    #[serde(default, with = "opt_integral_u64", skip_serializing_if = "Option::is_none")]
    pub cycles_limit: Option<u64>,
    /// Cells limit (default: see above).
    #[serde(default, with = "opt_integral_u64", skip_serializing_if = "Option::is_none")]
    pub cells_limit: Option<u64>,
    /// Max fee per cycle, base units (default: the basefee).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<u64>))]
    pub max_fee_per_cycle: Option<u128>,
    /// Max fee per cell, base units (default: the basefee).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<u64>))]
    pub max_fee_per_cell: Option<u128>,
    /// Tip per cycle, base units (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<u64>))]
    pub tip_per_cycle: Option<u128>,
    /// Tip per cell, base units (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<u64>))]
    pub tip_per_cell: Option<u128>,
    /// Answer the trace of the handlers it runs too: each handler entered, what it spent, the
    /// keys it read and wrote, its nested calls and where it stopped (default `false`; allowed
    /// with `transaction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<bool>,
}

/// What a simulated transaction would do at the tip: its receipt's fields, the limits it ran
/// with, and limits to send it with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SimulationInfo {
    /// `success`, `reverted` or `failed`.
    pub status: ReceiptStatus,
    /// The E-code of a `failed` or `reverted` run.
    pub error: Option<ExecErrorInfo>,
    /// Reason the actor gave when it reverted.
    pub revert_reason: Option<String>,
    /// Cycles it used (intrinsic cost included).
    pub cycles_used: u64,
    /// Cells it used.
    pub cells_used: u64,
    /// What it would pay at the current basefees, base units.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub fee: u128,
    /// Basefee part, burned.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub fee_burned: u128,
    /// Tip part.
    #[cfg_attr(feature = "openapi", schema(value_type = u64))]
    pub fee_tip: u128,
    /// Events it would emit (none unless it succeeds).
    pub events: Vec<EventInfo>,
    /// The cycles limit it ran with.
    pub cycles_limit: u64,
    /// The cells limit it ran with.
    pub cells_limit: u64,
    /// Cycles limit to send it with: what it used, plus `margin_percent` of what it used beyond
    /// its intrinsic cost (which the transaction alone fixes), within the block limit (exactly
    /// what it used for a plain transfer, which is nothing else).
    pub suggested_cycles_limit: u64,
    /// Cells limit to send it with, likewise.
    pub suggested_cells_limit: u64,
    /// The margin the suggested limits add to what was used beyond the intrinsic cost, in
    /// percent: state may change between the simulation and the block that includes the
    /// transaction.
    pub margin_percent: u64,
    /// The nonce it ran with.
    pub nonce: u64,
    /// Height of the finalized block whose state it ran on (it ran as the next block's).
    pub block_height: u64,
    /// State root it ran on.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    /// The trace of the handlers it ran, when the request asked for it (`null` otherwise; a
    /// plain transfer runs none, so its trace has no `call`).
    #[serde(default)]
    pub trace: Option<super::ExecutionTrace>,
}
