//! [`HistoryBackend`] over the node's indexes: account history, the block list and event queries
//! (`crate::indexes`), each read a page at a time and never past the published tip.
//!
//! The indexes of a block are written before its state is applied, so after a crash they may
//! hold a block or two the node does not report yet ([`crate::chain::ChainShared::start_at`]);
//! lists start below the tip so that they never show a block `/block/{selector}` would deny.

use super::handle::NodeHandle;
use crate::index_reads::read_indexes;
use crate::indexes::{
    BlockRecord, EventEntry, EventFilter, HISTORY_POSITION_LEN, HistoryEntry, IndexError, Indexes, LOG_POSITION_LEN,
    Roles,
};
use drover_rpc::backend::history::{EVENT_CURSOR_BYTES, EventQuery, HISTORY_CURSOR_BYTES, HistoryBackend};
use drover_rpc::limits::PAGE_READ_BYTES_MAX;
use drover_types::{
    Address,
    api::{
        BlockPage, BlockSummary, Direction, EventPage, HistoryEntryInfo, HistoryPage, IndexedEvent, IndexedRange,
        ReceivedBy, TokenAmount,
    },
    error::ApiError,
};

const _: () = assert!(HISTORY_POSITION_LEN == HISTORY_CURSOR_BYTES);
const _: () = assert!(LOG_POSITION_LEN == EVENT_CURSOR_BYTES);
const _: () = assert!(drover_vm::limits::MAX_EVENT_TOPIC_BYTES == drover_rpc::limits::EVENTS_TOPIC_BYTES_MAX);

/// A page size as the indexes take it (the routes cap it at 1,000).
fn page_size(limit: u64) -> usize {
    usize::try_from(limit).unwrap_or(usize::MAX)
}

/// The API record of an account's history entry.
fn history_info(entry: HistoryEntry) -> HistoryEntryInfo {
    let roles = entry.roles;
    let received = [
        (Roles::TRANSFER, ReceivedBy::Transfer),
        (Roles::ACTOR_TRANSFER, ReceivedBy::ActorTransfer),
        (Roles::TOKEN_TRANSFER, ReceivedBy::TokenTransfer),
    ]
    .into_iter()
    .filter_map(|(role, by)| roles.has(role).then_some(by))
    .collect();
    HistoryEntryInfo {
        tx_hash: entry.hash,
        block_height: entry.height,
        index: entry.index,
        direction: if roles.has(Roles::SENT) { Direction::Sent } else { Direction::Received },
        status: entry.status.into(),
        from: entry.from,
        to: entry.to,
        value: entry.value,
        fee: entry.fee,
        destination: roles.has(Roles::DESTINATION),
        received,
        value_received: entry.native_received,
        tokens_received: entry
            .tokens_received
            .into_iter()
            .map(|(token, amount)| TokenAmount { token, amount })
            .collect(),
    }
}

/// The API record of a block record.
pub(super) fn block_summary(record: BlockRecord, with_transactions: bool) -> BlockSummary {
    BlockSummary {
        height: record.height,
        hash: record.hash,
        parent_hash: record.parent,
        timestamp_ms: record.timestamp_ms,
        proposer: record.proposer,
        view: record.view,
        state_root: record.state_root,
        transaction_count: record.transaction_count,
        system_run_count: record.system_run_count,
        event_count: record.event_count,
        cycles_used: record.cycles_used,
        cells_used: record.cells_used,
        basefee_cycle: record.basefee_cycle.to_string(),
        basefee_cell: record.basefee_cell.to_string(),
        transactions: with_transactions.then_some(record.transactions),
    }
}

/// The API record of an event a query found.
fn indexed_event(entry: EventEntry) -> IndexedEvent {
    let cursor = hex::encode(entry.log.position);
    let log = super::records::log_info(entry.log);
    IndexedEvent {
        address: entry.address,
        topic: log.topic,
        data: log.data,
        block_height: log.block_height,
        origin: log.origin,
        tx_hash: log.tx_hash,
        tx_index: log.tx_index,
        timer_id: log.timer_id,
        message_seq: log.message_seq,
        from: log.from,
        event_index: log.event_index,
        cursor,
    }
}

impl NodeHandle {
    /// Runs `read` of the indexes on a blocking thread (see [`read_indexes`]).
    pub(super) async fn read_indexes<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Indexes) -> Result<T, IndexError> + Send + 'static,
    ) -> Result<T, ApiError> {
        read_indexes(&self.0.chain, read).await
    }
}

impl HistoryBackend for NodeHandle {
    async fn indexed_range(&self) -> Result<IndexedRange, ApiError> {
        let first_height = self.read_indexes(Indexes::history_from).await?;
        Ok(IndexedRange { first_height, last_height: self.0.chain.tip().height })
    }

    async fn history(
        &self,
        account: Address,
        before: Option<[u8; HISTORY_CURSOR_BYTES]>,
        limit: u64,
    ) -> Result<HistoryPage, ApiError> {
        // Nothing above the tip: start below the position of the next block's first entry.
        let mut above_tip = [0; HISTORY_CURSOR_BYTES];
        above_tip[..8].copy_from_slice(&self.0.chain.tip().height.saturating_add(1).to_be_bytes());
        let before = before.map_or(above_tip, |before| before.min(above_tip));
        let ((entries, more), first_indexed_height) = self
            .read_indexes(move |indexes| {
                Ok((indexes.history(&account, Some(before), page_size(limit))?, indexes.history_from()?))
            })
            .await?;
        let next_cursor = more.then(|| entries.last().map(|e| hex::encode(e.position))).flatten();
        Ok(HistoryPage {
            items: entries.into_iter().map(history_info).collect(),
            next_cursor,
            limit,
            first_indexed_height,
        })
    }

    async fn blocks(&self, before: Option<u64>, limit: u64) -> Result<BlockPage, ApiError> {
        let above_tip = self.0.chain.tip().height.saturating_add(1);
        let before = before.map_or(above_tip, |before| before.min(above_tip));
        let ((records, more), first_indexed_height) = self
            .read_indexes(move |indexes| {
                Ok((indexes.blocks(Some(before), page_size(limit), PAGE_READ_BYTES_MAX)?, indexes.history_from()?))
            })
            .await?;
        let next_cursor = more.then(|| records.last().map(|b| b.height.to_string())).flatten();
        Ok(BlockPage {
            items: records.into_iter().map(|record| block_summary(record, false)).collect(),
            next_cursor,
            limit,
            first_indexed_height,
        })
    }

    async fn block_summary(&self, height: u64) -> Result<Option<BlockSummary>, ApiError> {
        if height > self.0.chain.tip().height {
            return Ok(None);
        }
        Ok(self.read_indexes(move |indexes| indexes.block(height)).await?.map(|record| block_summary(record, true)))
    }

    async fn events(&self, query: EventQuery) -> Result<EventPage, ApiError> {
        let filter = EventFilter {
            emitters: query.emitters,
            topics: query.topics,
            from_height: query.from_height,
            to_height: query.to_height.min(self.0.chain.tip().height),
        };
        let (after, limit, scan_max) = (query.after, page_size(query.limit), page_size(query.scan_max));
        let (page, first_indexed_height) = self
            .read_indexes(move |indexes| {
                Ok((indexes.events(&filter, after, limit, scan_max)?, indexes.history_from()?))
            })
            .await?;
        Ok(EventPage {
            items: page.entries.into_iter().map(indexed_event).collect(),
            next_cursor: page.next.map(hex::encode),
            limit: query.limit,
            from_height: query.from_height,
            to_height: query.to_height,
            first_indexed_height,
        })
    }
}
