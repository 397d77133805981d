//! Submission and transaction lookups (`routes::transactions`).

use drover_types::{H256, Receipt, VerifiedTransaction, admission::AdmissionError, error::ApiError};
use std::future::Future;

/// An included transaction with where it was included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncludedTransaction {
    /// The transaction, with its hash and sender.
    pub tx: VerifiedTransaction,
    /// Height of the including block.
    pub block_height: u64,
    /// Position of the transaction in its block.
    pub index: u32,
}

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait TransactionBackend: Send + Sync {
    /// Admits verified transactions into the mempool, one result per transaction in order.
    fn submit(&self, txs: Vec<VerifiedTransaction>) -> impl Future<Output = Vec<Result<(), AdmissionError>>> + Send;

    /// A transaction included in a finalized block.
    fn transaction(&self, hash: H256) -> impl Future<Output = Result<Option<IncludedTransaction>, ApiError>> + Send;

    /// The receipt of a transaction included in a finalized block.
    fn receipt(&self, hash: H256) -> impl Future<Output = Result<Option<Receipt>, ApiError>> + Send;

    /// A transaction still pending in the mempool.
    fn pending_transaction(&self, hash: H256) -> Option<VerifiedTransaction>;

    /// Why a recently dropped transaction left the mempool without being included, if known.
    fn dropped_reason(&self, hash: H256) -> Option<String>;
}

#[cfg(test)]
pub(crate) mod mock;
