//! Account history, the block list, event queries and push streams: what their routes
//! (`routes::history`, `events`, `stream`) read from the node's indexes of finalized blocks
//! (`node/src/indexes.rs`), never the state.
//!
//! Bounds are the routes' to check ([`crate::limits`]): a query reaches the backend with a page
//! size, a height range within the first indexed height and the tip, and a scan budget, so
//! what the backend reads is the page plus that budget. The streams also read the finalized
//! heights ([`super::ChainBackend`]) and receipts ([`super::TransactionBackend`]).

use drover_types::{
    Address,
    api::{BlockPage, BlockSummary, EventPage, HistoryPage, IndexedRange},
    error::ApiError,
};
use std::future::Future;

/// Length of a history cursor: the height and index of the last entry of the previous page.
pub const HISTORY_CURSOR_BYTES: usize = 12;
/// Length of an event cursor: an event's position (height, phase, index, event index).
pub const EVENT_CURSOR_BYTES: usize = 17;

/// One event query, its bounds checked by the route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventQuery {
    /// Emitted by one of these (any when empty); at most [`crate::limits::EVENTS_EMITTERS_MAX`].
    pub emitters: Vec<Address>,
    /// With one of these topics (any when empty); at most [`crate::limits::EVENTS_TOPICS_MAX`].
    pub topics: Vec<String>,
    /// First height, at least the first indexed one.
    pub from_height: u64,
    /// Last height, at most the tip and within [`crate::limits::EVENTS_RANGE_BLOCKS_MAX`] of
    /// `from_height`.
    pub to_height: u64,
    /// Events after this position only (a page's `next_cursor`).
    pub after: Option<[u8; EVENT_CURSOR_BYTES]>,
    /// Page size.
    pub limit: u64,
    /// Most index entries the query may examine besides the page's events.
    pub scan_max: u64,
}

/// What the HTTP API reads from the node for this family (see [`super`]): its indexes of
/// finalized blocks. Every method reads at most its page (plus the event query's scan budget).
pub trait HistoryBackend: Send + Sync {
    /// The first height the indexes hold history, blocks and events for, and the tip.
    fn indexed_range(&self) -> impl Future<Output = Result<IndexedRange, ApiError>> + Send;

    /// Up to `limit` of `account`'s transactions before the position `before` (a page's
    /// `next_cursor`; from the newest when `None`), newest first.
    fn history(
        &self,
        account: Address,
        before: Option<[u8; HISTORY_CURSOR_BYTES]>,
        limit: u64,
    ) -> impl Future<Output = Result<HistoryPage, ApiError>> + Send;

    /// Up to `limit` finalized blocks below the height `before` (from the tip when `None`),
    /// newest first, without their transaction hashes.
    fn blocks(&self, before: Option<u64>, limit: u64) -> impl Future<Output = Result<BlockPage, ApiError>> + Send;

    /// The finalized block at `height` with its transaction hashes (`None`: not indexed).
    fn block_summary(&self, height: u64) -> impl Future<Output = Result<Option<BlockSummary>, ApiError>> + Send;

    /// The events `query` selects, in chain order.
    fn events(&self, query: EventQuery) -> impl Future<Output = Result<EventPage, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
