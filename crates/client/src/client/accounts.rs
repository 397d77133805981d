//! Accounts: the client's methods for the routes of `drover-rpc`'s `routes::accounts`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode,
    api::{AccountInfo, paths, paths::fill},
};

impl Client {
    /// `GET /account/{address}`; `None` for an address that holds no state.
    pub async fn account(&self, address: &Address) -> Result<Option<AccountInfo>, ClientError> {
        self.get_optional(&fill(paths::ACCOUNT, &[address]), ErrorCode::AccountNotFound).await
    }
}
