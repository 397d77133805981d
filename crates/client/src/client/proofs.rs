//! Proofs: the client's methods for the routes of `drover-rpc`'s `routes::proofs`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode, H256,
    api::{InclusionProofInfo, MultiProofResponse, ProofRequest, StateProofInfo, paths, paths::fill},
};

impl Client {
    /// `GET /proof/account/{address}`: the account or its absence, with its proof against the
    /// post-state of the latest finalized block (`height`: refused unless it is that block's).
    /// Untrusted until checked with [`crate::verify::verify_account`].
    pub async fn proof_account(&self, address: &Address, height: Option<u64>) -> Result<StateProofInfo, ClientError> {
        self.get(&with_height(fill(paths::PROOF_ACCOUNT, &[address]), height)).await
    }

    /// `GET /proof/actor/{address}` (check with [`crate::verify::verify_actor`]).
    pub async fn proof_actor(&self, address: &Address, height: Option<u64>) -> Result<StateProofInfo, ClientError> {
        self.get(&with_height(fill(paths::PROOF_ACTOR, &[address]), height)).await
    }

    /// `GET /proof/storage/{address}/{key}` (check with [`crate::verify::verify_storage`]).
    pub async fn proof_storage(
        &self,
        address: &Address,
        key: &[u8],
        height: Option<u64>,
    ) -> Result<StateProofInfo, ClientError> {
        self.get(&with_height(fill(paths::PROOF_STORAGE, &[address, &format!("0x{}", hex::encode(key))]), height)).await
    }

    /// `GET /state/{actor}/{key_hex}`: the storage value with its proof (the same record as
    /// [`Self::proof_storage`]).
    pub async fn state_value(&self, actor: &Address, key: &[u8]) -> Result<StateProofInfo, ClientError> {
        self.get(&fill(paths::STATE_VALUE, &[actor, &format!("0x{}", hex::encode(key))])).await
    }

    /// `GET /proof/tx/{tx_hash}`; `None` when no finalized block includes it (check with
    /// [`crate::verify::verify_tx`]).
    pub async fn proof_tx(&self, hash: &H256) -> Result<Option<InclusionProofInfo>, ClientError> {
        self.get_optional(&fill(paths::PROOF_TX, &[hash]), ErrorCode::NotFound).await
    }

    /// `GET /proof/receipt/{tx_hash}`; `None` when no finalized block includes it (check with
    /// [`crate::verify::verify_receipt`]).
    pub async fn proof_receipt(&self, hash: &H256) -> Result<Option<InclusionProofInfo>, ClientError> {
        self.get_optional(&fill(paths::PROOF_RECEIPT, &[hash]), ErrorCode::NotFound).await
    }

    /// `POST /proof/multi`: one result per request, in order (check with
    /// [`crate::verify::verify_multi`]).
    pub async fn proof_multi(
        &self,
        requests: &[ProofRequest],
        height: Option<u64>,
    ) -> Result<MultiProofResponse, ClientError> {
        let url = self.url(&with_height(paths::PROOF_MULTI.to_owned(), height));
        self.send_json(&url, self.http.post(&url).json(requests)).await
    }
}

/// `path` with the optional `height` query parameter of the state-proof routes.
fn with_height(path: String, height: Option<u64>) -> String {
    match height {
        Some(height) => format!("{path}?height={height}"),
        None => path,
    }
}
