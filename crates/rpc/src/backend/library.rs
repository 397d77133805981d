//! Published libraries (`routes::library`).

use crate::pagination::Page;
use drover_types::{Address, error::ApiError};
use std::future::Future;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait LibraryBackend: Send + Sync {
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
}

#[cfg(test)]
pub(crate) mod mock;
