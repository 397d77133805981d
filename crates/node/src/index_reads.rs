//! Reads of the indexes for the API (the HTTP backend and the prover), off the async workers.
//!
//! Its own module so that every reader imports it downwards: the backend holds the prover, so
//! the prover cannot reach it through the backend.

use crate::{
    chain::ChainShared,
    error::NodeError,
    indexes::{IndexError, Indexes},
};
use drover_types::error::ApiError;
use std::sync::Arc;

/// Runs `read` of the indexes on a blocking thread: a page reads up to thousands of entries,
/// each of which may come from disk, and even a point read waits while the store syncs a flush
/// or compaction (see `crate::indexes`); neither may hold one of the few async workers every
/// route and the consensus glue share. Every index read of the API goes through here.
pub(crate) async fn read_indexes<T: Send + 'static>(
    chain: &Arc<ChainShared>,
    read: impl FnOnce(&Indexes) -> Result<T, IndexError> + Send + 'static,
) -> Result<T, ApiError> {
    let chain = Arc::clone(chain);
    let answer = ::tokio::task::spawn_blocking(move || read(&chain.indexes))
        .await
        .map_err(|e| NodeError::unfinished(format!("an index read did not finish: {e}")))?;
    Ok(answer?)
}
