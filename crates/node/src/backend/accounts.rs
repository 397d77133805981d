//! Account reads for the API: the finalized account, and the next nonce past the sender's pending
//! transactions.

use super::NodeHandle;
use drover_rpc::backend::AccountBackend;
use drover_types::{Address, api::AccountInfo, error::ApiError};

impl AccountBackend for NodeHandle {
    async fn account(&self, address: Address) -> Result<Option<AccountInfo>, ApiError> {
        Ok(self.read_account(&address).await?.map(|a| AccountInfo { address, nonce: a.nonce, balance: a.balance }))
    }

    async fn next_nonce(&self, address: Address) -> Result<u64, ApiError> {
        let finalized = self.read_account(&address).await?.map_or(0, |account| account.nonce);
        Ok(self.0.chain.mempool.next_nonce(&address, finalized))
    }
}
