//! The history family's mock: pages cut from the lists of [`HistoryMock`], blocks made from the
//! chain's mock blocks (`ChainMock`), the tip being the chain mock's.

use super::{EVENT_CURSOR_BYTES, EventQuery, HISTORY_CURSOR_BYTES, HistoryBackend};
use crate::{backend::chain::mock::ChainMock, mock::MockBackend};
use drover_types::{
    Address,
    api::{BlockInfo, BlockPage, BlockSummary, EventPage, HistoryEntryInfo, HistoryPage, IndexedEvent, IndexedRange},
    error::ApiError,
};
use std::collections::HashMap;

/// An event of a transaction at `height`, `index`-th of the block's events, with the cursor
/// the index gives it.
pub(crate) fn indexed_event(address: Address, topic: &str, height: u64, index: u32) -> IndexedEvent {
    let mut cursor = [0u8; EVENT_CURSOR_BYTES];
    cursor[..8].copy_from_slice(&height.to_be_bytes());
    cursor[8] = 1;
    cursor[13..].copy_from_slice(&index.to_be_bytes());
    IndexedEvent {
        address,
        topic: topic.into(),
        data: vec![1],
        block_height: height,
        origin: drover_types::api::LogOrigin::Transaction,
        tx_hash: Some(drover_types::H256([7; 32])),
        tx_index: Some(0),
        timer_id: None,
        message_seq: None,
        from: None,
        event_index: index,
        cursor: hex::encode(cursor),
    }
}

/// What the mock's indexes hold.
#[derive(Default)]
pub(crate) struct HistoryMock {
    /// The first indexed height.
    pub first_height: u64,
    /// Each account's history, newest first.
    pub history: HashMap<Address, Vec<HistoryEntryInfo>>,
    /// Events in chain order; each one's `cursor` is its position.
    pub events: Vec<IndexedEvent>,
    /// Every query handed to `events`, in order.
    pub queries: Vec<EventQuery>,
}

fn position(entry: &HistoryEntryInfo) -> [u8; HISTORY_CURSOR_BYTES] {
    let mut position = [0; HISTORY_CURSOR_BYTES];
    position[..8].copy_from_slice(&entry.block_height.to_be_bytes());
    position[8..].copy_from_slice(&entry.index.to_be_bytes());
    position
}

fn event_position(event: &IndexedEvent) -> [u8; EVENT_CURSOR_BYTES] {
    drover_types::hexfmt::decode(&event.cursor)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .expect("a mock event's cursor is 17 bytes of hex")
}

/// What the block list shows of a mock block.
pub(crate) fn summary(block: &BlockInfo, with_transactions: bool) -> BlockSummary {
    BlockSummary {
        height: block.height,
        hash: block.hash,
        parent_hash: block.parent_hash,
        timestamp_ms: block.timestamp_ms,
        proposer: block.proposer,
        view: block.view,
        state_root: block.state_root,
        transaction_count: block.transactions.len() as u32,
        system_run_count: 0,
        event_count: 0,
        cycles_used: block.cycles_used,
        cells_used: block.cells_used,
        basefee_cycle: block.basefee_cycle.clone(),
        basefee_cell: block.basefee_cell.clone(),
        transactions: with_transactions.then(|| block.transactions.clone()),
    }
}

impl HistoryBackend for MockBackend {
    async fn indexed_range(&self) -> Result<IndexedRange, ApiError> {
        let first_height = self.read(|data: &HistoryMock| data.first_height);
        Ok(IndexedRange { first_height, last_height: self.read(ChainMock::height) })
    }

    async fn history(
        &self,
        account: Address,
        before: Option<[u8; HISTORY_CURSOR_BYTES]>,
        limit: u64,
    ) -> Result<HistoryPage, ApiError> {
        self.read(|data: &HistoryMock| {
            let entries = data.history.get(&account).map(Vec::as_slice).unwrap_or_default();
            let older: Vec<_> = entries.iter().filter(|e| before.is_none_or(|before| position(e) < before)).collect();
            let items: Vec<_> = older.iter().take(limit as usize).map(|e| (*e).clone()).collect();
            let next_cursor =
                (older.len() > items.len()).then(|| items.last().map(|e| hex::encode(position(e)))).flatten();
            Ok(HistoryPage { items, next_cursor, limit, first_indexed_height: data.first_height })
        })
    }

    async fn blocks(&self, before: Option<u64>, limit: u64) -> Result<BlockPage, ApiError> {
        let first = self.read(|data: &HistoryMock| data.first_height);
        self.read(|chain: &ChainMock| {
            let older: Vec<_> = chain
                .blocks
                .iter()
                .rev()
                .filter(|b| b.height >= first.max(1) && before.is_none_or(|h| b.height < h))
                .collect();
            let items: Vec<_> = older.iter().take(limit as usize).map(|b| summary(b, false)).collect();
            let next_cursor = (older.len() > items.len()).then(|| items.last().map(|b| b.height.to_string())).flatten();
            Ok(BlockPage { items, next_cursor, limit, first_indexed_height: first })
        })
    }

    async fn block_summary(&self, height: u64) -> Result<Option<BlockSummary>, ApiError> {
        Ok(self.read(|chain: &ChainMock| {
            chain.blocks.iter().find(|b| b.height == height && height > 0).map(|b| summary(b, true))
        }))
    }

    async fn events(&self, query: EventQuery) -> Result<EventPage, ApiError> {
        let part = self.part::<HistoryMock>();
        let mut data = part.lock();
        data.queries.push(query.clone());
        // As the index does: the range's entries in order, at most `scan_max` of them examined,
        // and a cursor after the last one examined when the range goes on.
        let range = data
            .events
            .iter()
            .filter(|e| (query.from_height..=query.to_height).contains(&e.block_height))
            .filter(|e| query.after.is_none_or(|after| event_position(e) > after));
        let (mut items, mut last_examined, mut more) = (Vec::new(), None, false);
        for (examined, event) in range.enumerate() {
            if items.len() as u64 == query.limit || examined as u64 == query.scan_max {
                more = true;
                break;
            }
            last_examined = Some(event.cursor.clone());
            let emitted = query.emitters.is_empty() || query.emitters.contains(&event.address);
            if emitted && (query.topics.is_empty() || query.topics.contains(&event.topic)) {
                items.push(event.clone());
            }
        }
        let next_cursor = last_examined.filter(|_| more);
        Ok(EventPage {
            items,
            next_cursor,
            limit: query.limit,
            from_height: query.from_height,
            to_height: query.to_height,
            first_indexed_height: data.first_height,
        })
    }
}
