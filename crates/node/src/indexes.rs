//! Indexes of finalized data: transaction by hash (where it was included), receipts, and the
//! events of successful transactions by emitting address (the actor log).
//!
//! Indexes are derived data written once per finalized block, in one durable redb write
//! transaction keyed by transaction hash, so rewriting a block (as happens when a block is
//! replayed after a crash) is idempotent. They are written before the block's state is applied
//! (see `application::capture`), so after any crash the indexes are never behind the state.

use drover_types::{Address, Event, H256, Receipt, Transaction, VerifiedTransaction};
use redb::{Database, ReadableDatabase, ReadableTable as _, TableDefinition};
use std::{path::Path, sync::Arc};

/// tx hash → `height (8, BE) ‖ index (4, BE) ‖ sender (20) ‖ transaction CBOR`.
const TRANSACTIONS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("transactions");
/// tx hash → receipt CBOR.
const RECEIPTS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("receipts");
/// `address (20) ‖ height (8, BE) ‖ tx index (4, BE) ‖ event index (4, BE)` → `tx hash (32) ‖
/// event CBOR`: an address's events in chain order.
const LOGS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("logs");
/// Length of a log's position after the address: height, transaction index, event index.
pub const LOG_POSITION_LEN: usize = 16;
/// Fixed keys → u64.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const META_HEIGHT: &str = "height";
const META_TIMESTAMP_MS: &str = "timestamp_ms";

/// File name of the index database inside the node's `directory`.
pub const INDEX_FILE: &str = "indexes.redb";

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
}

/// One event in an address's log.
pub struct LogEntry {
    /// Height, transaction index and event index, big-endian: the cursor of a log page.
    pub position: [u8; LOG_POSITION_LEN],
    pub height: u64,
    pub tx_index: u32,
    pub event_index: u32,
    pub tx_hash: H256,
    pub event: Event,
}

/// A transaction found by hash.
pub struct IndexedTransaction {
    pub tx: VerifiedTransaction,
    pub height: u64,
    pub index: u32,
}

#[derive(Clone)]
pub struct Indexes {
    db: Arc<Database>,
}

impl Indexes {
    pub fn open(directory: &Path) -> Result<Self, IndexError> {
        std::fs::create_dir_all(directory).map_err(err)?;
        let db = Database::create(directory.join(INDEX_FILE)).map_err(err)?;
        let txn = db.begin_write().map_err(err)?;
        txn.open_table(TRANSACTIONS).map_err(err)?;
        txn.open_table(RECEIPTS).map_err(err)?;
        txn.open_table(LOGS).map_err(err)?;
        txn.open_table(META).map_err(err)?;
        txn.commit().map_err(err)?;
        Ok(Self { db: Arc::new(db) })
    }

    /// Records a finalized block (durably, idempotently).
    pub fn record(&self, entries: BlockEntries<'_>) -> Result<(), IndexError> {
        let txn = self.db.begin_write().map_err(err)?;
        {
            let mut txs = txn.open_table(TRANSACTIONS).map_err(err)?;
            let mut receipts = txn.open_table(RECEIPTS).map_err(err)?;
            let mut logs = txn.open_table(LOGS).map_err(err)?;
            for (index, (tx, receipt)) in entries.transactions.iter().zip(entries.receipts).enumerate() {
                for (position, event) in receipt.events.iter().enumerate() {
                    let mut key = Vec::with_capacity(Address::LEN + LOG_POSITION_LEN);
                    key.extend_from_slice(&event.address.0);
                    key.extend_from_slice(&entries.height.to_be_bytes());
                    key.extend_from_slice(&(index as u32).to_be_bytes());
                    key.extend_from_slice(&(position as u32).to_be_bytes());
                    let mut value = tx.hash.0.to_vec();
                    value.extend_from_slice(&event.encode());
                    logs.insert(key.as_slice(), value.as_slice()).map_err(err)?;
                }
                let mut value = Vec::with_capacity(32 + tx.encoded.len());
                value.extend_from_slice(&entries.height.to_be_bytes());
                value.extend_from_slice(&(index as u32).to_be_bytes());
                value.extend_from_slice(&tx.sender.0);
                value.extend_from_slice(&tx.encoded);
                txs.insert(tx.hash.0.as_slice(), value.as_slice()).map_err(err)?;
                receipts.insert(tx.hash.0.as_slice(), receipt.encode().as_slice()).map_err(err)?;
            }
            let mut meta = txn.open_table(META).map_err(err)?;
            let current = meta.get(META_HEIGHT).map_err(err)?.map(|v| v.value()).unwrap_or(0);
            if entries.height >= current {
                meta.insert(META_HEIGHT, entries.height).map_err(err)?;
                meta.insert(META_TIMESTAMP_MS, entries.timestamp_ms).map_err(err)?;
            }
        }
        txn.commit().map_err(err)
    }

    /// Height and timestamp of the latest recorded block (0, 0 before any).
    pub fn tip(&self) -> Result<(u64, u64), IndexError> {
        let txn = self.db.begin_read().map_err(err)?;
        let meta = txn.open_table(META).map_err(err)?;
        let height = meta.get(META_HEIGHT).map_err(err)?.map(|v| v.value()).unwrap_or(0);
        let ts = meta.get(META_TIMESTAMP_MS).map_err(err)?.map(|v| v.value()).unwrap_or(0);
        Ok((height, ts))
    }

    pub fn transaction(&self, hash: &H256) -> Result<Option<IndexedTransaction>, IndexError> {
        let txn = self.db.begin_read().map_err(err)?;
        let table = txn.open_table(TRANSACTIONS).map_err(err)?;
        let Some(value) = table.get(hash.0.as_slice()).map_err(err)? else {
            return Ok(None);
        };
        let bytes = value.value();
        if bytes.len() < 32 {
            return Err(IndexError("corrupt transaction entry".into()));
        }
        let height = u64::from_be_bytes(bytes[0..8].try_into().map_err(err)?);
        let index = u32::from_be_bytes(bytes[8..12].try_into().map_err(err)?);
        let sender = Address::from_slice(&bytes[12..32]).ok_or_else(|| IndexError("corrupt sender".into()))?;
        let encoded = bytes[32..].to_vec();
        let tx = Transaction::decode(&encoded).map_err(err)?;
        Ok(Some(IndexedTransaction {
            tx: VerifiedTransaction { tx, hash: *hash, sender, encoded },
            height,
            index,
        }))
    }

    /// Up to `limit` events emitted by `address` after `after` (a [`LogEntry::position`]), in
    /// chain order; also says whether more follow.
    pub fn logs(
        &self,
        address: &Address,
        after: Option<[u8; LOG_POSITION_LEN]>,
        limit: usize,
    ) -> Result<(Vec<LogEntry>, bool), IndexError> {
        use std::ops::Bound;
        let txn = self.db.begin_read().map_err(err)?;
        let table = txn.open_table(LOGS).map_err(err)?;
        let start = match after {
            Some(position) => Bound::Excluded([address.0.as_slice(), &position].concat()),
            None => Bound::Included(address.0.to_vec()),
        };
        let end = Bound::Included([address.0.as_slice(), &[0xff; LOG_POSITION_LEN]].concat());
        let range = table
            .range::<&[u8]>((start.as_ref().map(Vec::as_slice), end.as_ref().map(Vec::as_slice)))
            .map_err(err)?;
        let mut entries = Vec::new();
        for item in range {
            if entries.len() == limit {
                return Ok((entries, true));
            }
            let (key, value) = item.map_err(err)?;
            let (key, value) = (key.value(), value.value());
            let corrupt = || IndexError("corrupt log entry".into());
            let position: [u8; LOG_POSITION_LEN] =
                key.get(Address::LEN..).and_then(|p| p.try_into().ok()).ok_or_else(corrupt)?;
            let tx_hash = H256(value.get(..32).and_then(|h| h.try_into().ok()).ok_or_else(corrupt)?);
            let event = Event::decode(&value[32..]).map_err(err)?;
            entries.push(LogEntry {
                position,
                height: u64::from_be_bytes(position[0..8].try_into().map_err(err)?),
                tx_index: u32::from_be_bytes(position[8..12].try_into().map_err(err)?),
                event_index: u32::from_be_bytes(position[12..16].try_into().map_err(err)?),
                tx_hash,
                event,
            });
        }
        Ok((entries, false))
    }

    pub fn receipt(&self, hash: &H256) -> Result<Option<Receipt>, IndexError> {
        let txn = self.db.begin_read().map_err(err)?;
        let table = txn.open_table(RECEIPTS).map_err(err)?;
        match table.get(hash.0.as_slice()).map_err(err)? {
            Some(v) => Receipt::decode(v.value()).map(Some).map_err(err),
            None => Ok(None),
        }
    }
}
