//! Indexes of finalized data: transaction by hash (where it was included), receipts, the events
//! of successful executions by emitting address (the actor log), and each actor's system runs
//! (the timer fires and mailbox deliveries a block runs before its transactions).
//!
//! Indexes are derived data written once per finalized block, in one atomic, durable write batch
//! of an LSM store (fjall). Most keys are hashes or addresses, so they land all over the key
//! space: in a B-tree each insert copied a page of its own, and at a million transactions a
//! block wrote megabytes of pages and an fsync that grew with the index. An LSM tree writes a
//! batch as one sequential journal append and sorts it into tables in the background, so a
//! block costs what its entries weigh, at any index size.
//!
//! **Never on an async worker.** The store blocks its caller beyond the I/O it asks for: a
//! batch ends in an fsync, and each tree's version lock, which every read and write takes, is
//! held while a background flush or compaction syncs the tree's new version to disk (lsm-tree's
//! `persist_version`: two fsyncs and an atomic rename), tens to hundreds of milliseconds on a
//! busy disk. So the block's write (`application::capture`) and every read of the API
//! (`crate::index_reads::read_indexes`) run on the runtime's blocking pool; a read made on one
//! of the node's few async workers stalled consensus and every route with it.
//!
//! Every key is a function of the block's content (a transaction hash, or a height and a
//! position in the block), so rewriting a block (as happens when a block is replayed after a
//! crash) writes the same entries again: it is idempotent. They are written before the block's
//! state is applied (see `application::capture`), so after any crash the indexes are never
//! behind the state.
//!
//! Log and run keys sort in chain order. Within a block, system runs execute before the
//! transactions, so a log position carries a phase byte between the height and the index:
//! [`PHASE_SYSTEM_RUN`] sorts before [`PHASE_TRANSACTION`].
//!
//! Account history and the block list (`history`), and event queries across emitters
//! (`events`), are written in the same batch. They start at the first block a node records with
//! them ([`Indexes::history_from`]): a node that fast-synced holds nothing below its sync height.
//!
//! So are each block's header bytes, its digest's height, the leaves of its receipts tree and,
//! when consensus reported it, its finalization certificate ([`StoredBlock`]): the API reads
//! finalized blocks and proves receipts from them without marshal (`crate::certificates`).
//! Being in the block's batch, they are there exactly when the block's other entries are. A
//! block recorded before they were kept has none (nor does any block below a fast-sync's
//! height): readers then fall back to marshal. What they add to a block's batch: about 330
//! bytes of header, 40 of digest, the certificate and 32 bytes per transaction.

mod events;
mod history;

pub(crate) use events::{EventEntry, EventFilter};
pub(crate) use history::HISTORY_POSITION_LEN;
pub(crate) use history::{BlockRecord, HistoryEntry, Roles};

use drover_execution::{Credit, SystemRun, SystemRunKind};
use drover_types::{
    Address, Event, ExecError, FeeBreakdown, H256, Receipt, Transaction, TxStatus, VerifiedTransaction,
    cbor::{self, CborError, Writer},
};
use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};
use minicbor::decode::Decoder;
use std::path::Path;

/// tx hash → `height (8, BE) ‖ index (4, BE) ‖ sender (20) ‖ transaction CBOR`.
const TRANSACTIONS: &str = "transactions";
/// tx hash → receipt CBOR.
const RECEIPTS: &str = "receipts";
/// `address (20) ‖ position` → `origin ‖ event CBOR`: an address's events in chain order. The
/// position is `height (8, BE) ‖ phase (1) ‖ index (4, BE) ‖ event index (4, BE)`, the index
/// being the transaction's in its block or the run's among the block's system runs. The origin
/// is `0x00 ‖ tx hash (32)`, `0x01 ‖ timer id (8, BE)` or `0x02 ‖ message seq (8, BE) ‖ sender
/// (20)`.
const LOGS: &str = "logs";
/// Length of a log's position after the address: height, phase, index, event index.
pub(crate) const LOG_POSITION_LEN: usize = 17;
/// Phase of the events of a block's system runs: they ran first.
pub(crate) const PHASE_SYSTEM_RUN: u8 = 0;
/// Phase of the events of a block's transactions.
pub(crate) const PHASE_TRANSACTION: u8 = 1;
const ORIGIN_TRANSACTION: u8 = 0;
const ORIGIN_TIMER: u8 = 1;
const ORIGIN_DELIVERY: u8 = 2;
/// `actor (20) ‖ height (8, BE) ‖ run index (4, BE)` → run CBOR (see [`encode_run`]): an actor's
/// system runs in chain order, the index being the run's among the block's system runs.
const RUNS: &str = "system_runs";
/// Length of a run's position after the actor: height, run index.
pub(crate) const RUN_POSITION_LEN: usize = 12;
/// `account (20) ‖ height (8, BE) ‖ index (4, BE)` → history record (see `history`).
const HISTORY: &str = "history";
/// `height (8, BE)` → block record (see `history`).
const BLOCKS: &str = "blocks";
/// `height (8, BE)` → the block's header bytes (what its digest is taken over and proofs carry).
const HEADERS: &str = "headers";
/// Block digest (32) → height (8, BE): `/block/{hash}` without marshal.
const BLOCK_HEIGHTS: &str = "block_heights";
/// `height (8, BE)` → the block's encoded finalization certificate, when consensus reported it
/// (see `certificates`; a block whose certificate came from a peer's backfill has none here).
const FINALIZATIONS: &str = "finalizations";
/// `height (8, BE)` → the leaves of the block's receipts tree, 32 bytes each in block order (see
/// `drover_block::receipt_leaves`): a receipt's proof reads them and the one receipt.
const RECEIPT_LEAVES: &str = "receipt_leaves";
/// Length of a receipts-tree leaf.
const LEAF_LEN: usize = 32;
/// Log position → emitter (20): every event in chain order (see `events`).
const EVENTS: &str = "events";
/// `topic key (8) ‖ log position` → emitter (20): events by topic (see `events`).
const TOPICS: &str = "topics";
/// Fixed keys → u64 (BE).
const META: &str = "meta";
const META_HEIGHT: &str = "height";
const META_TIMESTAMP_MS: &str = "timestamp_ms";
/// The first height recorded with history, blocks and event queries.
const META_HISTORY_FROM: &str = "history_from";
/// Length of a transaction hash.
const HASH_LEN: usize = 32;

/// Directory of the index store inside the node's `directory`.
pub(crate) const INDEX_DIR: &str = "indexes";
/// Where [`Indexes::discard`] moves the store before deleting it.
const DISCARDED_INDEX_DIR: &str = "indexes.discarded";

#[derive(Debug, thiserror::Error)]
#[error("index store: {0}")]
pub struct IndexError(String);

fn err(e: impl std::fmt::Display) -> IndexError {
    IndexError(e.to_string())
}

/// What one finalized block adds to the indexes.
pub struct BlockEntries<'a> {
    pub height: u64,
    pub timestamp_ms: u64,
    pub transactions: &'a [VerifiedTransaction],
    pub receipts: &'a [Receipt],
    /// Per receipt, the value its transaction moved to accounts.
    pub credits: &'a [Vec<Credit>],
    /// In the order they ran.
    pub system_runs: &'a [SystemRun],
    /// The header fields the block list shows.
    pub header: BlockHeader,
    /// The header's bytes (`drover_block::Block::header_bytes`).
    pub header_bytes: &'a [u8],
    /// The leaves of the receipts tree, one per receipt.
    pub receipt_leaves: &'a [[u8; 32]],
    /// The encoded finalization certificate, if consensus reported it: `None` keeps whatever an
    /// earlier write of the same block stored.
    pub finalization: Option<&'a [u8]>,
}

/// What the indexes keep of a finalized block for `/block/{selector}` and the proofs, so that
/// neither reads marshal's archive (see `certificates`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredBlock {
    pub height: u64,
    /// The header bytes the block's digest is taken over.
    pub header: Vec<u8>,
    /// The block's transaction hashes, in block order.
    pub transactions: Vec<H256>,
    /// The encoded finalization certificate, if this node stored one.
    pub finalization: Option<Vec<u8>>,
}

/// What the block list keeps of a block's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    pub hash: H256,
    pub parent: H256,
    pub proposer: Address,
    pub view: u64,
    pub state_root: H256,
    pub cycles_used: u64,
    pub cells_used: u64,
    pub basefee_cycle: u128,
    pub basefee_cell: u128,
}

/// What emitted a logged event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogOrigin {
    Transaction { hash: H256 },
    Timer { id: u64 },
    Delivery { seq: u64, from: Address },
}

impl LogOrigin {
    fn of(kind: SystemRunKind) -> Self {
        match kind {
            SystemRunKind::Timer { id } => LogOrigin::Timer { id },
            SystemRunKind::Delivery { seq, from } => LogOrigin::Delivery { seq, from },
        }
    }

    fn phase(&self) -> u8 {
        match self {
            LogOrigin::Transaction { .. } => PHASE_TRANSACTION,
            LogOrigin::Timer { .. } | LogOrigin::Delivery { .. } => PHASE_SYSTEM_RUN,
        }
    }

    fn encode(&self, event: &Event) -> Vec<u8> {
        let mut value = Vec::with_capacity(1 + HASH_LEN + event.topic.len() + event.data.len() + 40);
        match self {
            LogOrigin::Transaction { hash } => {
                value.push(ORIGIN_TRANSACTION);
                value.extend_from_slice(&hash.0);
            }
            LogOrigin::Timer { id } => {
                value.push(ORIGIN_TIMER);
                value.extend_from_slice(&id.to_be_bytes());
            }
            LogOrigin::Delivery { seq, from } => {
                value.push(ORIGIN_DELIVERY);
                value.extend_from_slice(&seq.to_be_bytes());
                value.extend_from_slice(&from.0);
            }
        }
        value.extend_from_slice(&event.encode());
        value
    }

    /// The origin and the event CBOR after it.
    fn decode(value: &[u8]) -> Option<(Self, &[u8])> {
        let (tag, rest) = value.split_first()?;
        match *tag {
            ORIGIN_TRANSACTION => {
                let (hash, rest) = rest.split_first_chunk::<{ HASH_LEN }>()?;
                Some((LogOrigin::Transaction { hash: H256(*hash) }, rest))
            }
            ORIGIN_TIMER => {
                let (id, rest) = rest.split_first_chunk::<8>()?;
                Some((LogOrigin::Timer { id: u64::from_be_bytes(*id) }, rest))
            }
            ORIGIN_DELIVERY => {
                let (seq, rest) = rest.split_first_chunk::<8>()?;
                let (from, rest) = rest.split_first_chunk::<{ Address::LEN }>()?;
                Some((LogOrigin::Delivery { seq: u64::from_be_bytes(*seq), from: Address(*from) }, rest))
            }
            _ => None,
        }
    }
}

/// One event in an address's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// Height, phase, index and event index, big-endian: the cursor of a log page.
    pub position: [u8; LOG_POSITION_LEN],
    pub height: u64,
    /// The transaction's position in its block, or the run's among the block's system runs.
    pub index: u32,
    pub event_index: u32,
    pub origin: LogOrigin,
    pub event: Event,
}

/// One system run of an actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunEntry {
    /// Height and run index, big-endian: the cursor of a run page.
    pub position: [u8; RUN_POSITION_LEN],
    pub height: u64,
    /// Position among the block's system runs.
    pub index: u32,
    pub kind: SystemRunKind,
    pub handler: String,
    pub status: TxStatus,
    pub cycles_used: u64,
    pub cells_used: u64,
    pub fee: FeeBreakdown,
    /// Its events are in the emitters' logs, not here.
    pub event_count: u32,
    pub revert_reason: Option<String>,
    pub error: Option<ExecError>,
}

/// A transaction found by hash.
pub struct IndexedTransaction {
    pub tx: VerifiedTransaction,
    pub height: u64,
    pub index: u32,
}

/// A system run's index record: `[kind, handler, status, cycles_used, cells_used, [burned, tip],
/// event_count, revert_reason | null, [code, message] | null]`, the kind being `[0, timer id]`
/// or `[1, message seq, sender]` and the status its text (`success`, `reverted`, `failed`).
fn encode_run(run: &SystemRun) -> Vec<u8> {
    let mut w = Writer::with_capacity(run.handler.len() + 128);
    w.array(RUN_FIELDS);
    match run.kind {
        SystemRunKind::Timer { id } => w.array(2).uint(RUN_KIND_TIMER).uint(id),
        SystemRunKind::Delivery { seq, from } => w.array(3).uint(RUN_KIND_DELIVERY).uint(seq).bytes(&from.0),
    };
    w.text(&run.handler)
        .text(run.status.as_str())
        .uint(run.cycles_used)
        .uint(run.cells_used)
        .array(2)
        .u128(run.fee.burned)
        .u128(run.fee.tip)
        .uint(run.events.len() as u64);
    match &run.revert_reason {
        Some(reason) => w.text(reason),
        None => w.null(),
    };
    match &run.error {
        Some(error) => w.array(2).text(error.code.as_str()).text(&error.message),
        None => w.null(),
    };
    w.into_inner()
}

/// Elements of a run record.
const RUN_FIELDS: u64 = 9;
const RUN_KIND_TIMER: u64 = 0;
const RUN_KIND_DELIVERY: u64 = 1;

/// Reads a run record written by [`encode_run`] (the height and index come from its key).
fn decode_run(bytes: &[u8], height: u64, index: u32, position: [u8; RUN_POSITION_LEN]) -> Result<RunEntry, CborError> {
    cbor::decode_strict(bytes, |d: &mut Decoder<'_>| {
        cbor::expect_array(d, RUN_FIELDS)?;
        let kind = match (d.array()?, d.u64()?) {
            (Some(2), RUN_KIND_TIMER) => SystemRunKind::Timer { id: d.u64()? },
            (Some(3), RUN_KIND_DELIVERY) => {
                SystemRunKind::Delivery { seq: d.u64()?, from: Address(cbor::decode_fixed(d)?) }
            }
            _ => return Err(CborError::malformed("run kind is neither [0, id] nor [1, seq, from]")),
        };
        let handler = d.str()?.to_owned();
        let status = d.str()?.parse::<TxStatus>().map_err(|e| CborError::malformed(e.to_string()))?;
        let cycles_used = d.u64()?;
        let cells_used = d.u64()?;
        cbor::expect_array(d, 2)?;
        let fee = FeeBreakdown { burned: cbor::decode_u128(d)?, tip: cbor::decode_u128(d)? };
        let event_count = d.u32()?;
        let revert_reason = if cbor::take_null(d)? { None } else { Some(d.str()?.to_owned()) };
        let error = if cbor::take_null(d)? {
            None
        } else {
            cbor::expect_array(d, 2)?;
            let code = d
                .str()?
                .parse()
                .map_err(|e: drover_types::exec_error::UnknownExecCode| CborError::malformed(e.to_string()))?;
            Some(ExecError::new(code, d.str()?))
        };
        Ok(RunEntry {
            position,
            height,
            index,
            kind,
            handler,
            status,
            cycles_used,
            cells_used,
            fee,
            event_count,
            revert_reason,
            error,
        })
    })
}

/// A log entry from its position and its value (origin and event).
fn decode_log(position: [u8; LOG_POSITION_LEN], value: &[u8]) -> Result<LogEntry, IndexError> {
    let corrupt = || IndexError("corrupt log entry".into());
    let (height, rest) = position.split_first_chunk::<8>().ok_or_else(corrupt)?;
    let (phase, rest) = rest.split_first().ok_or_else(corrupt)?;
    let (index, rest) = rest.split_first_chunk::<4>().ok_or_else(corrupt)?;
    let event_index: [u8; 4] = rest.try_into().map_err(|_| corrupt())?;
    let (origin, event) = LogOrigin::decode(value).ok_or_else(corrupt)?;
    if origin.phase() != *phase {
        return Err(corrupt());
    }
    Ok(LogEntry {
        position,
        height: u64::from_be_bytes(*height),
        index: u32::from_be_bytes(*index),
        event_index: u32::from_be_bytes(event_index),
        origin,
        event: Event::decode(event).map_err(err)?,
    })
}

/// `address ‖ height ‖ phase ‖ index ‖ event index`: where an event sits in its emitter's log.
fn log_key(address: &Address, height: u64, phase: u8, index: u32, event_index: u32) -> Vec<u8> {
    let mut key = Vec::with_capacity(Address::LEN + LOG_POSITION_LEN);
    key.extend_from_slice(&address.0);
    key.extend_from_slice(&height.to_be_bytes());
    key.push(phase);
    key.extend_from_slice(&index.to_be_bytes());
    key.extend_from_slice(&event_index.to_be_bytes());
    key
}

/// A position within a block: a count bounded by the block's limits, far below `u32::MAX`.
fn position_index(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// Which way a page of an index runs from its cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// Chain order: from the first entry, or after the cursor.
    Oldest,
    /// Newest first: from the last entry, or before the cursor.
    Newest,
}

/// Entries of `keyspace` under `prefix`, in `order`, past `prefix ‖ cursor` (from the first or
/// last when `None`), at most `limit`, each read by `read` from its position (the key after the
/// prefix) and value; also says whether more follow. Once the values read reach `bytes_max`
/// bytes the page ends there, after one entry at least, so a page of large entries stays a
/// page of bounded size (`usize::MAX` for an index whose entries are small and bounded anyway).
fn page<T, const N: usize>(
    keyspace: &Keyspace,
    prefix: &[u8],
    (order, cursor): (Order, Option<[u8; N]>),
    (limit, bytes_max): (usize, usize),
    read: impl FnMut([u8; N], &[u8]) -> Result<T, IndexError>,
) -> Result<(Vec<T>, bool), IndexError> {
    use std::ops::Bound;
    let first = Bound::Included(prefix.to_vec());
    let last = Bound::Included([prefix, &[0xff; N]].concat());
    let past = cursor.map(|position| Bound::Excluded([prefix, &position].concat()));
    let bounds = (limit, bytes_max);
    match order {
        Order::Oldest => collect_page(keyspace.range((past.unwrap_or(first), last)), prefix.len(), bounds, read),
        Order::Newest => collect_page(keyspace.range((first, past.unwrap_or(last))).rev(), prefix.len(), bounds, read),
    }
}

/// The first entries of `items` within `limit` entries and `bytes_max` bytes of values, and
/// whether more follow (see [`page`]).
fn collect_page<T, const N: usize>(
    items: impl Iterator<Item = fjall::Guard>,
    prefix_len: usize,
    (limit, bytes_max): (usize, usize),
    mut read: impl FnMut([u8; N], &[u8]) -> Result<T, IndexError>,
) -> Result<(Vec<T>, bool), IndexError> {
    let mut entries = Vec::new();
    let mut bytes = 0usize;
    for item in items {
        if entries.len() == limit || bytes >= bytes_max {
            return Ok((entries, true));
        }
        let (key, value) = item.into_inner().map_err(err)?;
        let position: [u8; N] = key
            .get(prefix_len..)
            .and_then(|p| p.try_into().ok())
            .ok_or_else(|| IndexError("corrupt index key".into()))?;
        bytes = bytes.saturating_add(value.len());
        entries.push(read(position, &value)?);
    }
    Ok((entries, false))
}

/// Block cache of the index store. Past it, reads come from the operating system's file cache.
pub(crate) const INDEX_CACHE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Clone)]
pub struct Indexes {
    db: Database,
    transactions: Keyspace,
    receipts: Keyspace,
    logs: Keyspace,
    runs: Keyspace,
    history: Keyspace,
    blocks: Keyspace,
    headers: Keyspace,
    block_heights: Keyspace,
    finalizations: Keyspace,
    receipt_leaves: Keyspace,
    events: Keyspace,
    topics: Keyspace,
    meta: Keyspace,
}

impl Indexes {
    pub fn open(directory: &Path) -> Result<Self, IndexError> {
        std::fs::create_dir_all(directory).map_err(err)?;
        let db = Database::builder(directory.join(INDEX_DIR)).cache_size(INDEX_CACHE_BYTES).open().map_err(err)?;
        let keyspace = |name: &str| db.keyspace(name, KeyspaceCreateOptions::default).map_err(err);
        Ok(Self {
            transactions: keyspace(TRANSACTIONS)?,
            receipts: keyspace(RECEIPTS)?,
            logs: keyspace(LOGS)?,
            runs: keyspace(RUNS)?,
            history: keyspace(HISTORY)?,
            blocks: keyspace(BLOCKS)?,
            headers: keyspace(HEADERS)?,
            block_heights: keyspace(BLOCK_HEIGHTS)?,
            finalizations: keyspace(FINALIZATIONS)?,
            receipt_leaves: keyspace(RECEIPT_LEAVES)?,
            events: keyspace(EVENTS)?,
            topics: keyspace(TOPICS)?,
            meta: keyspace(META)?,
            db,
        })
    }

    /// Deletes the index store of `directory`, which must not be open. The store is first
    /// renamed aside, one atomic step, so a crash leaves either all of it in place or none; the
    /// next call deletes what an interrupted one left aside.
    pub(crate) fn discard(directory: &Path) -> std::io::Result<()> {
        let (live, discarded) = (directory.join(INDEX_DIR), directory.join(DISCARDED_INDEX_DIR));
        if live.exists() {
            if discarded.exists() {
                std::fs::remove_dir_all(&discarded)?;
            }
            std::fs::rename(&live, &discarded)?;
            std::fs::File::open(directory)?.sync_all()?;
        }
        if discarded.exists() {
            std::fs::remove_dir_all(&discarded)?;
        }
        Ok(())
    }

    /// The latest recorded block, by height and view (0 and 0 before any; view 0 too if its
    /// record predates the block list).
    pub(crate) fn tip_view(&self) -> Result<(u64, u64), IndexError> {
        let (height, _) = self.tip()?;
        Ok((height, self.block(height)?.map_or(0, |block| block.view)))
    }

    fn meta(&self, key: &str) -> Result<u64, IndexError> {
        match self.meta.get(key).map_err(err)? {
            Some(value) => {
                let bytes: [u8; 8] = value.as_ref().try_into().map_err(|_| IndexError("corrupt meta entry".into()))?;
                Ok(u64::from_be_bytes(bytes))
            }
            None => Ok(0),
        }
    }

    /// Records a finalized block (durably, atomically, idempotently).
    pub fn record(&self, entries: BlockEntries<'_>) -> Result<(), IndexError> {
        let mut batch = self.db.batch().durability(Some(PersistMode::SyncData));
        let height = entries.height;
        let mut event_count = 0u32;
        for (index, run) in entries.system_runs.iter().enumerate() {
            let index = position_index(index);
            let origin = LogOrigin::of(run.kind);
            for (position, event) in run.events.iter().enumerate() {
                self.write_event(&mut batch, &origin, event, (height, PHASE_SYSTEM_RUN), index, position);
                event_count = event_count.saturating_add(1);
            }
            let key = [run.actor.0.as_slice(), &height.to_be_bytes(), &index.to_be_bytes()].concat();
            batch.insert(&self.runs, key, encode_run(run));
        }
        let no_credits = Vec::new();
        for (index, (tx, receipt)) in entries.transactions.iter().zip(entries.receipts).enumerate() {
            // A transaction is finalized once: a later block can never hold it again (its nonce is
            // used), and if one ever did, what clients were told stays (rewriting the same block
            // after a crash writes the same entry again).
            if self.included_height(&tx.hash)?.is_some_and(|included| included != height) {
                continue;
            }
            let index = position_index(index);
            let origin = LogOrigin::Transaction { hash: tx.hash };
            for (position, event) in receipt.events.iter().enumerate() {
                self.write_event(&mut batch, &origin, event, (height, PHASE_TRANSACTION), index, position);
                event_count = event_count.saturating_add(1);
            }
            let mut value = Vec::with_capacity(32 + tx.encoded.len());
            value.extend_from_slice(&height.to_be_bytes());
            value.extend_from_slice(&index.to_be_bytes());
            value.extend_from_slice(&tx.sender.0);
            value.extend_from_slice(&tx.encoded);
            batch.insert(&self.transactions, tx.hash.0, value);
            batch.insert(&self.receipts, tx.hash.0, receipt.encode());
            let credits = entries.credits.get(index as usize).unwrap_or(&no_credits);
            history::write_history(&mut batch, &self.history, (height, index), tx, receipt, credits);
        }
        let header = entries.header;
        let block = BlockRecord {
            height,
            hash: header.hash,
            parent: header.parent,
            timestamp_ms: entries.timestamp_ms,
            proposer: header.proposer,
            view: header.view,
            state_root: header.state_root,
            cycles_used: header.cycles_used,
            cells_used: header.cells_used,
            basefee_cycle: header.basefee_cycle,
            basefee_cell: header.basefee_cell,
            transaction_count: position_index(entries.transactions.len()),
            system_run_count: position_index(entries.system_runs.len()),
            event_count,
            transactions: entries.transactions.iter().map(|tx| tx.hash).collect(),
        };
        batch.insert(&self.blocks, height.to_be_bytes(), history::encode_block(&block));
        batch.insert(&self.headers, height.to_be_bytes(), entries.header_bytes);
        batch.insert(&self.block_heights, header.hash.0, height.to_be_bytes());
        batch.insert(&self.receipt_leaves, height.to_be_bytes(), entries.receipt_leaves.concat());
        if let Some(finalization) = entries.finalization {
            batch.insert(&self.finalizations, height.to_be_bytes(), finalization);
        }
        if self.meta(META_HISTORY_FROM)? == 0 {
            batch.insert(&self.meta, META_HISTORY_FROM, height.to_be_bytes());
        }
        if height >= self.meta(META_HEIGHT)? {
            batch.insert(&self.meta, META_HEIGHT, height.to_be_bytes());
            batch.insert(&self.meta, META_TIMESTAMP_MS, entries.timestamp_ms.to_be_bytes());
        }
        batch.commit().map_err(err)
    }

    /// Adds an event to its emitter's log, the chain-order list and its topic's list.
    fn write_event(
        &self,
        batch: &mut fjall::OwnedWriteBatch,
        origin: &LogOrigin,
        event: &Event,
        (height, phase): (u64, u8),
        index: u32,
        position: usize,
    ) {
        let key = log_key(&event.address, height, phase, index, position_index(position));
        let location = &key[Address::LEN..];
        batch.insert(&self.events, location, event.address.0);
        batch.insert(&self.topics, [&events::topic_key(&event.topic)[..], location].concat(), event.address.0);
        batch.insert(&self.logs, key, origin.encode(event));
    }

    /// Height and timestamp of the latest recorded block (0, 0 before any).
    pub fn tip(&self) -> Result<(u64, u64), IndexError> {
        Ok((self.meta(META_HEIGHT)?, self.meta(META_TIMESTAMP_MS)?))
    }

    /// The height of the block that included the transaction `hash`, if one did.
    fn included_height(&self, hash: &H256) -> Result<Option<u64>, IndexError> {
        let Some(value) = self.transactions.get(hash.0).map_err(err)? else {
            return Ok(None);
        };
        let height = value.get(..8).ok_or_else(|| IndexError("corrupt transaction entry".into()))?;
        Ok(Some(u64::from_be_bytes(height.try_into().map_err(err)?)))
    }

    pub fn transaction(&self, hash: &H256) -> Result<Option<IndexedTransaction>, IndexError> {
        let Some(value) = self.transactions.get(hash.0).map_err(err)? else {
            return Ok(None);
        };
        let bytes: &[u8] = &value;

        if bytes.len() < 32 {
            return Err(IndexError("corrupt transaction entry".into()));
        }
        let height = u64::from_be_bytes(bytes[0..8].try_into().map_err(err)?);
        let index = u32::from_be_bytes(bytes[8..12].try_into().map_err(err)?);
        let sender = Address::from_slice(&bytes[12..32]).ok_or_else(|| IndexError("corrupt sender".into()))?;
        let encoded = bytes[32..].to_vec();
        let tx = Transaction::decode(&encoded).map_err(err)?;
        Ok(Some(IndexedTransaction { tx: VerifiedTransaction { tx, hash: *hash, sender, encoded }, height, index }))
    }

    /// Up to `limit` events emitted by `address` after `after` (a [`LogEntry::position`]), in
    /// chain order, ending early once their records reach `bytes_max` bytes (after one event at
    /// least: an event carries up to 16 KiB); also says whether more follow.
    pub fn logs(
        &self,
        address: &Address,
        after: Option<[u8; LOG_POSITION_LEN]>,
        limit: usize,
        bytes_max: usize,
    ) -> Result<(Vec<LogEntry>, bool), IndexError> {
        page(&self.logs, &address.0, (Order::Oldest, after), (limit, bytes_max), decode_log)
    }

    /// Up to `limit` system runs of `actor` after `after` (a [`RunEntry::position`]), in chain
    /// order; also says whether more follow.
    pub fn runs(
        &self,
        actor: &Address,
        after: Option<[u8; RUN_POSITION_LEN]>,
        limit: usize,
    ) -> Result<(Vec<RunEntry>, bool), IndexError> {
        // A run record is a few hundred bytes at most (a handler name, a revert reason of at most 1 KiB).
        page(&self.runs, &actor.0, (Order::Oldest, after), (limit, usize::MAX), |position, value| {
            let corrupt = || IndexError("corrupt run entry".into());
            let (height, index) = position.split_first_chunk::<8>().ok_or_else(corrupt)?;
            let index: [u8; 4] = index.try_into().map_err(|_| corrupt())?;
            decode_run(value, u64::from_be_bytes(*height), u32::from_be_bytes(index), position).map_err(err)
        })
    }

    pub fn receipt(&self, hash: &H256) -> Result<Option<Receipt>, IndexError> {
        match self.receipt_bytes(hash)? {
            Some(v) => Receipt::decode(&v).map(Some).map_err(err),
            None => Ok(None),
        }
    }

    /// The canonical encoding of the receipt of `hash`, as stored (and as its leaf hashes it).
    pub fn receipt_bytes(&self, hash: &H256) -> Result<Option<Vec<u8>>, IndexError> {
        Ok(self.receipts.get(hash.0).map_err(err)?.map(|v| v.to_vec()))
    }

    /// The leaves of the receipts tree of the block at `height`; `None` for a block recorded
    /// before the indexes kept them.
    pub fn receipt_leaves(&self, height: u64) -> Result<Option<Vec<[u8; 32]>>, IndexError> {
        let Some(value) = self.receipt_leaves.get(height.to_be_bytes()).map_err(err)? else {
            return Ok(None);
        };
        let (leaves, rest) = value.as_chunks::<LEAF_LEN>();
        if !rest.is_empty() {
            return Err(IndexError("corrupt receipt leaves".into()));
        }
        Ok(Some(leaves.to_vec()))
    }

    /// The height of the recorded block whose digest is `hash`.
    pub fn block_height(&self, hash: &H256) -> Result<Option<u64>, IndexError> {
        let Some(value) = self.block_heights.get(hash.0).map_err(err)? else {
            return Ok(None);
        };
        let bytes: [u8; 8] = value.as_ref().try_into().map_err(|_| IndexError("corrupt block height".into()))?;
        Ok(Some(u64::from_be_bytes(bytes)))
    }

    /// The first height recorded with its header (`None` before any): every block from it up
    /// to the tip is, so marshal can hold only the blocks below it (the genesis block, blocks
    /// recorded before headers were kept, blocks below a fast-sync's height).
    pub fn first_header_height(&self) -> Result<Option<u64>, IndexError> {
        match self.headers.first_key_value() {
            None => Ok(None),
            Some(guard) => {
                let key = guard.key().map_err(err)?;
                let height: [u8; 8] = key.as_ref().try_into().map_err(|_| err("a header key is not a height"))?;
                Ok(Some(u64::from_be_bytes(height)))
            }
        }
    }

    /// The header bytes of the block at `height`, if it was recorded with them.
    pub fn header(&self, height: u64) -> Result<Option<Vec<u8>>, IndexError> {
        Ok(self.headers.get(height.to_be_bytes()).map_err(err)?.map(|v| v.to_vec()))
    }

    /// The block at `height` as `/block/{selector}` and the proofs need it; `None` if it is not
    /// recorded, or was recorded before the indexes kept headers (a reader asks marshal then).
    pub fn stored_block(&self, height: u64) -> Result<Option<StoredBlock>, IndexError> {
        let key = height.to_be_bytes();
        let Some(header) = self.header(height)? else {
            return Ok(None);
        };
        // Written in the same batch as the header.
        let record =
            self.block(height)?.ok_or_else(|| IndexError(format!("block {height} has a header, no record")))?;
        let finalization = self.finalizations.get(key).map_err(err)?.map(|v| v.to_vec());
        Ok(Some(StoredBlock { height, header, transactions: record.transactions, finalization }))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use drover_types::{SecretKey, exec_error::ExecCode};

    pub(super) const ACTOR: Address = Address([0xac; 20]);
    pub(super) const OTHER: Address = Address([0x0b; 20]);
    const SENDER: Address = Address([0x5e; 20]);

    pub(super) fn event(address: Address, topic: &str) -> Event {
        Event { address, topic: topic.into(), data: topic.as_bytes().to_vec() }
    }

    /// A signed call of [`ACTOR`] from the dev key, with nonce `nonce`.
    pub(crate) fn transaction(nonce: u64) -> VerifiedTransaction {
        Transaction {
            chain_id: 100,
            nonce,
            to: Some(ACTOR),
            value: 0,
            cycles_limit: 100_000,
            cells_limit: 0,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 1,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        }
        .sign(&SecretKey::dev(0))
        .verify()
        .expect("a signed transaction verifies")
    }

    pub(super) fn receipt(tx: &VerifiedTransaction, height: u64, index: u32, events: Vec<Event>) -> Receipt {
        Receipt {
            tx_hash: tx.hash,
            block_height: height,
            index,
            from: tx.sender,
            to: tx.tx.to,
            status: TxStatus::Success,
            cycles_used: 30_000,
            cells_used: 0,
            fee: FeeBreakdown { burned: 300_000, tip: 30_000 },
            events,
            revert_reason: None,
            error: None,
        }
    }

    fn run(kind: SystemRunKind, events: Vec<Event>) -> SystemRun {
        SystemRun {
            kind,
            actor: ACTOR,
            handler: "ring".into(),
            status: TxStatus::Success,
            cycles_used: 1_234,
            cells_used: 8,
            // Above u64::MAX: the record keeps a u128 whole.
            fee: FeeBreakdown { burned: u128::from(u64::MAX) + 7, tip: 0 },
            events,
            revert_reason: None,
            error: None,
        }
    }

    /// A timer whose owner could not pay: nothing ran.
    fn dropped(id: u64) -> SystemRun {
        SystemRun {
            status: TxStatus::Failed,
            cycles_used: 0,
            cells_used: 0,
            fee: FeeBreakdown::default(),
            error: Some(ExecError::new(ExecCode::TimerUnpaid, format!("timer {id} dropped: its owner holds 0"))),
            ..run(SystemRunKind::Timer { id }, Vec::new())
        }
    }

    #[derive(Default)]
    pub(super) struct Block {
        pub(super) height: u64,
        pub(super) transactions: Vec<VerifiedTransaction>,
        pub(super) receipts: Vec<Receipt>,
        pub(super) credits: Vec<Vec<Credit>>,
        pub(super) system_runs: Vec<SystemRun>,
        pub(super) finalization: Option<Vec<u8>>,
    }

    /// Stand-in header bytes of the block at `height` (the indexes keep them as given).
    pub(super) fn header_bytes(height: u64) -> Vec<u8> {
        [b"header of ".as_slice(), &height.to_be_bytes()].concat()
    }

    /// The header the tests record for the block at `height`.
    pub(super) fn header(height: u64) -> BlockHeader {
        BlockHeader {
            hash: H256([height as u8; 32]),
            parent: H256([height.wrapping_sub(1) as u8; 32]),
            proposer: SENDER,
            view: height + 3,
            state_root: H256([0x5a; 32]),
            cycles_used: 21_000 * height,
            cells_used: height,
            basefee_cycle: 7,
            basefee_cell: u128::from(u64::MAX) + 1,
        }
    }

    impl Block {
        pub(super) fn record(&self, indexes: &Indexes) {
            indexes
                .record(BlockEntries {
                    height: self.height,
                    timestamp_ms: self.height * 1_000,
                    transactions: &self.transactions,
                    receipts: &self.receipts,
                    credits: &self.credits,
                    system_runs: &self.system_runs,
                    header: header(self.height),
                    header_bytes: &header_bytes(self.height),
                    receipt_leaves: &drover_block::receipt_leaves(&self.receipts),
                    finalization: self.finalization.as_deref(),
                })
                .expect("the block is recorded");
        }
    }

    /// Height 4: one transaction. Height 5: a timer fire (whose handler also made `OTHER` emit),
    /// a delivery and a dropped timer, then a transaction.
    pub(super) fn blocks() -> [Block; 2] {
        let (first, second) = (transaction(0), transaction(1));
        [
            Block {
                height: 4,
                receipts: vec![receipt(&first, 4, 0, vec![event(ACTOR, "tx4")])],
                transactions: vec![first],
                ..Block::default()
            },
            Block {
                height: 5,
                receipts: vec![receipt(&second, 5, 0, vec![event(ACTOR, "tx5")])],
                transactions: vec![second],
                credits: Vec::new(),
                finalization: None,
                system_runs: vec![
                    run(SystemRunKind::Timer { id: 5 << 32 }, vec![event(ACTOR, "timer"), event(OTHER, "nested")]),
                    SystemRun {
                        handler: "pong".into(),
                        status: TxStatus::Reverted,
                        revert_reason: Some("not now".into()),
                        error: Some(ExecError::new(ExecCode::Reverted, "reverted")),
                        ..run(SystemRunKind::Delivery { seq: 11, from: SENDER }, Vec::new())
                    },
                    run(SystemRunKind::Delivery { seq: 12, from: SENDER }, vec![event(ACTOR, "delivery")]),
                    dropped((5 << 32) | 1),
                ],
            },
        ]
    }

    pub(super) fn open() -> (tempfile::TempDir, Indexes) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let indexes = Indexes::open(dir.path()).expect("the store opens");
        (dir, indexes)
    }

    /// Records, at height 4, one transaction whose receipt holds `count` events of `ACTOR` with
    /// the most data an event may carry (16 KiB each).
    pub(super) fn record_large_events(indexes: &Indexes, count: u32) {
        let tx = transaction(0);
        let large = |i: u32| Event { address: ACTOR, topic: format!("e{i}"), data: vec![7; 16 * 1024] };
        let events: Vec<Event> = (0..count).map(large).collect();
        Block { height: 4, receipts: vec![receipt(&tx, 4, 0, events)], transactions: vec![tx], ..Block::default() }
            .record(indexes);
    }

    pub(super) fn topics(entries: &[LogEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.event.topic.as_str()).collect()
    }

    #[test]
    fn the_tip_has_its_view_and_a_discarded_store_is_gone_even_after_an_interrupted_discard() {
        let dir = tempfile::tempdir().unwrap();
        let indexes = Indexes::open(dir.path()).unwrap();
        assert_eq!(indexes.tip_view().unwrap(), (0, 0));
        for block in blocks() {
            block.record(&indexes);
        }
        assert_eq!(indexes.tip_view().unwrap(), (5, header(5).view));
        drop(indexes);

        // A deletion interrupted after the rename left the store aside: the next discard
        // deletes it, and a store opened since starts empty.
        std::fs::rename(dir.path().join(INDEX_DIR), dir.path().join(DISCARDED_INDEX_DIR)).unwrap();
        drop(Indexes::open(dir.path()).unwrap());
        Indexes::discard(dir.path()).unwrap();
        assert!(!dir.path().join(INDEX_DIR).exists() && !dir.path().join(DISCARDED_INDEX_DIR).exists());
        let indexes = Indexes::open(dir.path()).unwrap();
        assert_eq!((indexes.tip_view().unwrap(), indexes.history_from().unwrap()), ((0, 0), 0));
        drop(indexes);
        Indexes::discard(dir.path()).unwrap();
        Indexes::discard(dir.path()).unwrap();
        assert!(!dir.path().join(INDEX_DIR).exists());
    }

    #[test]
    fn system_run_events_come_before_the_transactions_of_their_block() {
        let (_dir, indexes) = open();
        for block in blocks() {
            block.record(&indexes);
        }
        let (entries, more) = indexes.logs(&ACTOR, None, 10, usize::MAX).unwrap();
        assert!(!more);
        assert_eq!(topics(&entries), ["tx4", "timer", "delivery", "tx5"]);
        let origins: Vec<_> = entries.iter().map(|e| (e.height, e.index, e.origin)).collect();
        let [first, second] = blocks().map(|b| b.transactions[0].hash);
        assert_eq!(
            origins,
            [
                (4, 0, LogOrigin::Transaction { hash: first }),
                (5, 0, LogOrigin::Timer { id: 5 << 32 }),
                (5, 2, LogOrigin::Delivery { seq: 12, from: SENDER }),
                (5, 0, LogOrigin::Transaction { hash: second }),
            ]
        );
        // A run's events go to whoever emitted them.
        let (nested, _) = indexes.logs(&OTHER, None, 10, usize::MAX).unwrap();
        assert_eq!(topics(&nested), ["nested"]);
        assert_eq!((nested[0].origin, nested[0].event_index), (LogOrigin::Timer { id: 5 << 32 }, 1));

        // One at a time, each page's last position as the cursor, gives the same order.
        let mut paged = Vec::new();
        let mut after = None;
        loop {
            let (page, more) = indexes.logs(&ACTOR, after, 1, usize::MAX).unwrap();
            after = page.last().map(|e| e.position);
            paged.extend(page);
            if !more {
                break;
            }
        }
        assert_eq!(paged, entries);
    }

    #[test]
    fn a_page_of_logs_ends_once_it_has_read_its_bytes() {
        use drover_rpc::limits::{PAGE_LIMIT_MAX, PAGE_READ_BYTES_MAX};
        let (_dir, indexes) = open();
        // 6.4 MiB of events, more than a page reads.
        record_large_events(&indexes, 400);
        let limit = usize::try_from(PAGE_LIMIT_MAX).unwrap();
        let (first, more) = indexes.logs(&ACTOR, None, limit, PAGE_READ_BYTES_MAX).unwrap();
        assert!(more && !first.is_empty() && first.len() < 400, "{} events", first.len());
        let bytes: usize = first.iter().map(|e| e.event.data.len()).sum();
        assert!(bytes <= PAGE_READ_BYTES_MAX + 16 * 1024, "{bytes} bytes: one event past the budget at most");
        // Page after page, every event comes once, in order.
        let mut topics = Vec::new();
        let mut after = None;
        loop {
            let (page, more) = indexes.logs(&ACTOR, after, limit, PAGE_READ_BYTES_MAX).unwrap();
            after = page.last().map(|e| e.position);
            topics.extend(page.into_iter().map(|e| e.event.topic));
            if !more {
                break;
            }
        }
        assert_eq!(topics, (0..400).map(|i| format!("e{i}")).collect::<Vec<_>>());
    }

    #[test]
    fn a_finalized_transaction_keeps_its_record_and_receipt() {
        let (_dir, indexes) = open();
        let [first, _] = blocks();
        first.record(&indexes);
        // Recording the same block again (a replay after a crash) changes nothing.
        first.record(&indexes);
        let tx = &first.transactions[0];
        let included = indexes.transaction(&tx.hash).unwrap().unwrap();
        assert_eq!((included.height, included.index), (4, 0));
        // A later block holding it again (no valid block can) cannot make it failed.
        let failed = Receipt { status: TxStatus::Failed, ..receipt(tx, 9, 3, vec![event(ACTOR, "again")]) };
        Block { height: 9, transactions: vec![tx.clone()], receipts: vec![failed], ..Block::default() }
            .record(&indexes);
        let included = indexes.transaction(&tx.hash).unwrap().unwrap();
        assert_eq!((included.height, included.index), (4, 0));
        assert_eq!(indexes.receipt(&tx.hash).unwrap(), Some(first.receipts[0].clone()));
        let (entries, _) = indexes.logs(&ACTOR, None, 10, usize::MAX).unwrap();
        assert_eq!(topics(&entries), ["tx4"]);
    }

    #[test]
    fn runs_round_trip_in_chain_order() {
        let (_dir, indexes) = open();
        let [_, block] = blocks();
        block.record(&indexes);
        let (entries, more) = indexes.runs(&ACTOR, None, 10).unwrap();
        assert!(!more);
        assert_eq!(entries.len(), block.system_runs.len());
        for (index, (entry, run)) in entries.iter().zip(&block.system_runs).enumerate() {
            let mut position = [0; RUN_POSITION_LEN];
            position[..8].copy_from_slice(&5u64.to_be_bytes());
            position[8..].copy_from_slice(&(index as u32).to_be_bytes());
            let expected = RunEntry {
                position,
                height: 5,
                index: index as u32,
                kind: run.kind,
                handler: run.handler.clone(),
                status: run.status,
                cycles_used: run.cycles_used,
                cells_used: run.cells_used,
                fee: run.fee,
                event_count: run.events.len() as u32,
                revert_reason: run.revert_reason.clone(),
                error: run.error.clone(),
            };
            assert_eq!(entry, &expected);
        }
        // The dropped timer keeps its reason.
        let last = entries.last().unwrap();
        assert_eq!(last.error.as_ref().map(|e| e.code), Some(ExecCode::TimerUnpaid));
        assert_eq!(last.status, TxStatus::Failed);

        let (first, more) = indexes.runs(&ACTOR, None, 1).unwrap();
        assert!(more);
        let (rest, more) = indexes.runs(&ACTOR, Some(first[0].position), 10).unwrap();
        assert!(!more);
        assert_eq!([first, rest].concat(), entries);
        assert_eq!(indexes.runs(&OTHER, None, 10).unwrap(), (Vec::new(), false));
    }

    #[test]
    fn a_block_keeps_its_header_receipt_leaves_and_certificate() {
        let (_dir, indexes) = open();
        let [first, second] = blocks();
        assert_eq!(indexes.stored_block(4).unwrap(), None);
        let certified = Block { finalization: Some(b"certificate of 4".to_vec()), ..first };
        certified.record(&indexes);
        second.record(&indexes);

        let stored = indexes.stored_block(4).unwrap().unwrap();
        assert_eq!(
            stored,
            StoredBlock {
                height: 4,
                header: header_bytes(4),
                transactions: vec![certified.transactions[0].hash],
                finalization: Some(b"certificate of 4".to_vec()),
            }
        );
        assert_eq!(indexes.block_height(&header(5).hash).unwrap(), Some(5));
        assert_eq!(indexes.block_height(&H256([0xee; 32])).unwrap(), None);
        // Consensus did not report block 5's certificate here (a peer's backfill brought it).
        assert_eq!(indexes.stored_block(5).unwrap().unwrap().finalization, None);

        // The stored leaves are the ones the old proof path hashes from every stored receipt,
        // so a receipt's proof is the same bytes either way.
        for block in [&certified, &second] {
            let from_receipts: Vec<[u8; 32]> = block
                .transactions
                .iter()
                .map(|tx| drover_block::proof::receipt_leaf(&indexes.receipt_bytes(&tx.hash).unwrap().unwrap()))
                .collect();
            assert_eq!(indexes.receipt_leaves(block.height).unwrap(), Some(from_receipts));
        }

        // Replayed after a crash, without the certificate this time: the stored one stays.
        Block { finalization: None, ..certified }.record(&indexes);
        assert_eq!(indexes.stored_block(4).unwrap(), Some(stored));
    }

    #[test]
    fn rewriting_a_block_changes_nothing() {
        let (_dir, indexes) = open();
        let blocks = blocks();
        for block in &blocks {
            block.record(&indexes);
        }
        let logs = indexes.logs(&ACTOR, None, 100, usize::MAX).unwrap();
        let runs = indexes.runs(&ACTOR, None, 100).unwrap();
        // Replayed after a crash: the same block written again, even after a later one.
        blocks[0].record(&indexes);
        blocks[1].record(&indexes);
        assert_eq!(indexes.logs(&ACTOR, None, 100, usize::MAX).unwrap(), logs);
        assert_eq!(indexes.runs(&ACTOR, None, 100).unwrap(), runs);
        assert_eq!(indexes.tip().unwrap(), (5, 5_000));
        let hash = blocks[1].transactions[0].hash;
        assert_eq!(indexes.receipt(&hash).unwrap(), Some(blocks[1].receipts[0].clone()));
    }
}
