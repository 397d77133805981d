//! The two page envelopes: by cursor ([`CursorPage`]) and by offset ([`Paginated`]).

use serde::{Deserialize, Serialize};

/// One page of a cursor-paged actor list (storage, mailbox, logs, runs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CursorPage<T> {
    /// The items of this page, in list order.
    pub items: Vec<T>,
    /// Pass as `cursor` for the next page; `null` on the last page. Opaque to clients.
    pub next_cursor: Option<String>,
    /// The page size used (the request's `limit`, capped).
    pub limit: u64,
}

/// Envelope of offset-paginated lists (`?offset=&limit=`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Paginated<T> {
    /// The items of this page, in list order.
    pub items: Vec<T>,
    /// Number of items in the whole list.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}
