//! Transactions: the client's methods for the routes of `drover-rpc`'s `routes::transactions`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    ErrorCode, H256, Transaction,
    api::{ReceiptInfo, SubmitResponse, SubmitWaitResponse, TransactionInfo, paths, paths::fill},
    submission::encode_submission,
};
use reqwest::header::CONTENT_TYPE;
use std::time::Duration;

/// Time allowed on top of a `/submit_wait` wait for the request and the answer, in ms.
const WAIT_MARGIN_MS: u64 = 5_000;
/// Media type of a submission body.
const CBOR_MEDIA_TYPE: &str = "application/cbor";

impl Client {
    /// `POST /submit`: hands signed transactions (1 to 50) to the node's mempool. The answer
    /// lists each transaction as accepted or rejected; when none was accepted the node answers
    /// with the first refusal's status, and this returns that refusal as [`ClientError::Api`].
    pub async fn submit(&self, txs: &[Transaction]) -> Result<SubmitResponse, ClientError> {
        let url = self.url(paths::SUBMIT);
        self.send_json(&url, self.cbor_post(&url, txs)).await
    }

    /// `POST /submit_wait?timeout_ms=…`: like [`Client::submit`], then waits up to
    /// `timeout_ms` (the node accepts 100 to 10,000) for the transactions' receipts.
    pub async fn submit_wait(&self, txs: &[Transaction], timeout_ms: u64) -> Result<SubmitWaitResponse, ClientError> {
        let url = self.url(&format!("{}?timeout_ms={timeout_ms}", paths::SUBMIT_WAIT));
        let wait = Duration::from_millis(timeout_ms.saturating_add(WAIT_MARGIN_MS));
        self.send_json(&url, self.cbor_post(&url, txs).timeout(self.timeout.max(wait))).await
    }

    fn cbor_post(&self, url: &str, txs: &[Transaction]) -> reqwest::RequestBuilder {
        self.http.post(url).header(CONTENT_TYPE, CBOR_MEDIA_TYPE).body(encode_submission(txs))
    }

    /// `GET /transaction/{hash}`: a transaction included in a finalized block; `None` if the
    /// node knows no included transaction with this hash.
    pub async fn transaction(&self, hash: &H256) -> Result<Option<TransactionInfo>, ClientError> {
        self.get_optional(&fill(paths::TRANSACTION, &[hash]), ErrorCode::NotFound).await
    }

    /// `GET /transaction/{hash}/receipt`; `None` while the transaction is not included.
    pub async fn receipt(&self, hash: &H256) -> Result<Option<ReceiptInfo>, ClientError> {
        self.get_optional(&fill(paths::TRANSACTION_RECEIPT, &[hash]), ErrorCode::NotFound).await
    }

    /// `GET /mempool/transaction/{hash}`: a transaction still pending; `None` if the mempool
    /// does not hold it.
    pub async fn pending_transaction(&self, hash: &H256) -> Result<Option<TransactionInfo>, ClientError> {
        self.get_optional(&fill(paths::MEMPOOL_TRANSACTION, &[hash]), ErrorCode::NotFound).await
    }
}
