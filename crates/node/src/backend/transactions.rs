//! Submission and transaction lookups for the API: admission through the node's intake (then
//! gossip), included transactions and receipts from the indexes, pending ones from the mempool.

use super::NodeHandle;
use crate::intake;
use drover_rpc::backend::{IncludedTransaction, TransactionBackend};
use drover_types::{H256, Receipt, VerifiedTransaction, admission::AdmissionError, error::ApiError};

impl TransactionBackend for NodeHandle {
    async fn submit(&self, txs: Vec<VerifiedTransaction>) -> Vec<Result<(), AdmissionError>> {
        let results = intake::admit(&self.0.chain, &self.0.databases, txs.clone()).await;
        if let Some(gossip) = &self.0.gossip {
            let admitted: Vec<_> = txs.into_iter().zip(&results).filter(|(_, r)| r.is_ok()).map(|(tx, _)| tx).collect();
            gossip.publish(&admitted);
        }
        results
    }

    async fn transaction(&self, hash: H256) -> Result<Option<IncludedTransaction>, ApiError> {
        let found = self.read_indexes(move |indexes| indexes.transaction(&hash)).await?;
        Ok(found.map(|t| IncludedTransaction { tx: t.tx, block_height: t.height, index: t.index }))
    }

    async fn receipt(&self, hash: H256) -> Result<Option<Receipt>, ApiError> {
        self.read_indexes(move |indexes| indexes.receipt(&hash)).await
    }

    fn pending_transaction(&self, hash: H256) -> Option<VerifiedTransaction> {
        self.0.chain.mempool.get(&hash)
    }

    fn dropped_reason(&self, hash: H256) -> Option<String> {
        self.0.chain.mempool.dropped_reason(&hash).map(|reason| reason.to_string())
    }
}
