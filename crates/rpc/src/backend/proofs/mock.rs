//! The proofs' mock: stand-in proofs ([`MOCK_PROOF`]) of the latest block's state (accounts
//! from the accounts' mock, storage slots a test sets) and of included transactions; each batch
//! asked for is recorded.

use super::*;
use crate::backend::{accounts::mock::AccountsMock, chain::mock::ChainMock, transactions::mock::TransactionsMock};
use crate::mock::{MOCK_PROOF, MockBackend, block};
use drover_types::ErrorCode;
use drover_types::api::{AccountInfo, BlockInfo, StateProofKind};
use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct ProofsMock {
    /// Actor storage slots, by actor and key.
    pub storage: HashMap<(Address, Vec<u8>), Vec<u8>>,
    /// Every batch handed to `state_proofs`, with its height.
    pub proof_batches: Vec<(Vec<StateQuery>, Option<u64>)>,
}

impl ProofBackend for MockBackend {
    async fn state_proofs(
        &self,
        queries: Vec<StateQuery>,
        height: Option<u64>,
    ) -> Result<Vec<StateProofInfo>, ApiError> {
        self.edit(|data: &mut ProofsMock| data.proof_batches.push((queries.clone(), height)));
        let latest = self.read(|chain: &ChainMock| chain.blocks.last().cloned().unwrap_or_else(|| block(0)));
        if latest.height == 0 {
            return Err(ApiError::new(ErrorCode::NotFound, "no block finalized yet"));
        }
        if height.is_some_and(|h| h != latest.height) {
            return Err(ApiError::new(ErrorCode::NotFound, "only the latest state is provable"));
        }
        let accounts = self.read(|data: &AccountsMock| data.accounts.clone());
        let part = self.part::<ProofsMock>();
        let data = part.lock();
        Ok(queries.iter().map(|q| data.state_proof(q, &accounts, &latest)).collect())
    }

    async fn inclusion_proof(
        &self,
        kind: InclusionProofKind,
        hash: H256,
    ) -> Result<Option<InclusionProofInfo>, ApiError> {
        let part = self.part::<TransactionsMock>();
        let data = part.lock();
        let Some(included) = data.included.get(&hash) else {
            return Ok(None);
        };
        let encoded = match kind {
            InclusionProofKind::Tx => included.tx.encoded.clone(),
            InclusionProofKind::Receipt => match data.receipts.get(&hash) {
                Some(receipt) => receipt.encode(),
                None => return Ok(None),
            },
        };
        let block = block(included.block_height);
        Ok(Some(InclusionProofInfo {
            kind,
            tx_hash: hash,
            height: included.block_height,
            index: included.index,
            encoded,
            proof: MOCK_PROOF.to_vec(),
            block_hash: block.hash,
            root: block.transactions_root,
            header: block.hash.0.to_vec(),
            finalization: "00".to_owned(),
        }))
    }
}

impl ProofsMock {
    /// A stand-in proof of `query` against the latest block (the schema's prefixes as key).
    fn state_proof(
        &self,
        query: &StateQuery,
        accounts: &HashMap<Address, AccountInfo>,
        latest: &BlockInfo,
    ) -> StateProofInfo {
        let (kind, address, storage_key, value) = match query {
            StateQuery::Account(address) => (
                StateProofKind::Account,
                *address,
                None,
                accounts.get(address).map(|a| format!("{}/{}", a.nonce, a.balance).into_bytes()),
            ),
            StateQuery::Actor(address) => (StateProofKind::Actor, *address, None, None),
            StateQuery::Storage(address, key) => (
                StateProofKind::Storage,
                *address,
                Some(key.clone()),
                self.storage.get(&(*address, key.clone())).cloned(),
            ),
        };
        let prefix = match kind {
            StateProofKind::Account => 1,
            StateProofKind::Actor => 2,
            StateProofKind::Storage => 3,
        };
        let mut key = vec![prefix];
        key.extend_from_slice(&address.0);
        key.extend_from_slice(storage_key.as_deref().unwrap_or_default());
        StateProofInfo {
            kind,
            address,
            storage_key,
            key,
            value,
            proof: MOCK_PROOF.to_vec(),
            height: latest.height,
            block_hash: latest.hash,
            state_root: latest.state_root,
            header: latest.hash.0.to_vec(),
            finalization: "00".to_owned(),
        }
    }
}
