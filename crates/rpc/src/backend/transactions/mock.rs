//! The mempool's and the transaction index's mock. The mempool admits a transaction when its
//! sender has an account (else 2006) and its nonce is not below the account's (else 2003).
//! With `include_on_submit`, admitted transactions are included shortly after in a new block
//! with a success receipt, and the finalized height advances, which is what `/submit_wait`
//! waits for.

use super::{IncludedTransaction, TransactionBackend};
use crate::{
    backend::{accounts::mock::AccountsMock, chain::mock::ChainMock},
    mock::{MockBackend, success_receipt},
};
use drover_types::{
    H256, Receipt, VerifiedTransaction,
    admission::{AdmissionError, PoolRefusal, PoolRefusalKind},
    error::ApiError,
};
use std::{collections::HashMap, time::Duration};

/// Delay between admission and inclusion with `include_on_submit`.
const INCLUSION_DELAY: Duration = Duration::from_millis(20);

#[derive(Default)]
pub(crate) struct TransactionsMock {
    pub included: HashMap<H256, IncludedTransaction>,
    pub receipts: HashMap<H256, Receipt>,
    pub pending: HashMap<H256, VerifiedTransaction>,
    /// Hashes the mempool dropped, with why.
    pub dropped: HashMap<H256, String>,
    /// Every transaction handed to `submit`, in order.
    pub submitted: Vec<VerifiedTransaction>,
    /// When set, `submit` refuses every transaction with this error.
    pub submit_refusal: Option<AdmissionError>,
    pub include_on_submit: bool,
}

/// Includes `hashes` (pending) in a new block with success receipts, and publishes its height.
pub(crate) fn include(mock: &MockBackend, hashes: &[H256]) {
    let height = mock.read(|chain: &ChainMock| chain.blocks.len() as u64);
    mock.edit(|data: &mut TransactionsMock| {
        for (index, hash) in hashes.iter().enumerate() {
            let Some(tx) = data.pending.remove(hash) else {
                continue;
            };
            let index = index as u32;
            data.receipts.insert(*hash, success_receipt(&tx, height, index));
            data.included.insert(*hash, IncludedTransaction { tx, block_height: height, index });
        }
    });
    mock.edit(|chain: &mut ChainMock| {
        chain.push();
    });
}

impl TransactionBackend for MockBackend {
    async fn submit(&self, txs: Vec<VerifiedTransaction>) -> Vec<Result<(), AdmissionError>> {
        let accounts = self.read(|data: &AccountsMock| data.accounts.clone());
        let mut admitted = Vec::new();
        let part = self.part::<TransactionsMock>();
        let (verdicts, include_on_submit) = {
            let mut data = part.lock();
            let verdicts = txs
                .into_iter()
                .map(|tx| {
                    data.submitted.push(tx.clone());
                    if let Some(refusal) = &data.submit_refusal {
                        return Err(refusal.clone());
                    }
                    let Some(account) = accounts.get(&tx.sender) else {
                        return Err(PoolRefusal::new(PoolRefusalKind::Reserved, "sender holds no funds").into());
                    };
                    if tx.tx.nonce < account.nonce {
                        return Err(PoolRefusal::new(PoolRefusalKind::NonceUsed, "nonce already used").into());
                    }
                    admitted.push(tx.hash);
                    data.pending.insert(tx.hash, tx);
                    Ok(())
                })
                .collect();
            (verdicts, data.include_on_submit)
        };
        if include_on_submit && !admitted.is_empty() {
            let mock = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(INCLUSION_DELAY).await;
                include(&mock, &admitted);
            });
        }
        verdicts
    }

    async fn transaction(&self, hash: H256) -> Result<Option<IncludedTransaction>, ApiError> {
        Ok(self.read(|data: &TransactionsMock| data.included.get(&hash).cloned()))
    }

    async fn receipt(&self, hash: H256) -> Result<Option<Receipt>, ApiError> {
        Ok(self.read(|data: &TransactionsMock| data.receipts.get(&hash).cloned()))
    }

    fn pending_transaction(&self, hash: H256) -> Option<VerifiedTransaction> {
        self.read(|data: &TransactionsMock| data.pending.get(&hash).cloned())
    }

    fn dropped_reason(&self, hash: H256) -> Option<String> {
        self.read(|data: &TransactionsMock| data.dropped.get(&hash).cloned())
    }
}
