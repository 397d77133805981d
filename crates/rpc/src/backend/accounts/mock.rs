//! The accounts' mock: dev keys 0, 1 and 2 hold 1,000 DRV at nonce 0; a next nonce is the
//! account's nonce (the mock keeps no pending nonces).

use super::AccountBackend;
use crate::mock::{MockBackend, key};
use drover_types::{Address, api::AccountInfo, error::ApiError};
use std::collections::HashMap;

pub(crate) struct AccountsMock {
    pub accounts: HashMap<Address, AccountInfo>,
}

impl Default for AccountsMock {
    fn default() -> Self {
        let accounts = (0..3)
            .map(|index| {
                let address = key(index).address();
                (address, AccountInfo { address, nonce: 0, balance: 1_000_000_000_000 })
            })
            .collect();
        Self { accounts }
    }
}

impl AccountBackend for MockBackend {
    async fn account(&self, address: Address) -> Result<Option<AccountInfo>, ApiError> {
        Ok(self.read(|data: &AccountsMock| data.accounts.get(&address).cloned()))
    }

    async fn next_nonce(&self, address: Address) -> Result<u64, ApiError> {
        Ok(self.read(|data: &AccountsMock| data.accounts.get(&address).map_or(0, |account| account.nonce)))
    }
}
