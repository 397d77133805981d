//! The chain as a whole: identity, finalized blocks and heights, basefees, health figures and
//! the node's metrics (`routes::blocks`, `chain`, `health`, `metrics`).

use drover_types::{
    Basefees, BlockSelector,
    api::{BlockInfo, ChainInfo},
    error::ApiError,
};
use std::future::Future;
use tokio::sync::watch;

/// Liveness figures for `/health/detailed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainHealth {
    /// Latest finalized height (0 before the first block).
    pub block_height: u64,
    /// Unix seconds of the latest finalized block (0 before the first).
    pub last_block_timestamp: u64,
    /// Transactions pending in the mempool.
    pub mempool_transaction_count: usize,
    /// Distinct senders with transactions pending in the mempool.
    pub mempool_account_count: usize,
    /// Whether the state database is open and answering.
    pub storage_ok: bool,
}

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait ChainBackend: Send + Sync {
    /// Chain id, network name, genesis hash and node version.
    fn chain_info(&self) -> ChainInfo;

    /// Latest finalized height (0 before the first block).
    fn height(&self) -> u64;

    /// Changes whenever a block is finalized and its receipts are readable; holds its height.
    fn finalized_heights(&self) -> watch::Receiver<u64>;

    /// A finalized block by hash, height or `latest` (`None`: no such block).
    fn block(&self, selector: BlockSelector) -> impl Future<Output = Result<Option<BlockInfo>, ApiError>> + Send;

    /// Basefees that apply to the next block.
    fn basefees(&self) -> Basefees;

    /// Heights, timestamps and mempool figures for the health routes.
    fn health(&self) -> ChainHealth;

    /// Prometheus text of the node's own metrics (consensus, storage, mempool, chain).
    fn metrics(&self) -> String;
}

#[cfg(test)]
pub(crate) mod mock;
