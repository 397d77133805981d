//! Account state (`routes::accounts`, and the nonces the signed flows build on).

use drover_types::{Address, api::AccountInfo, error::ApiError};
use std::future::Future;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait AccountBackend: Send + Sync {
    /// Account state at the latest finalized block (`None`: the address holds no state).
    fn account(&self, address: Address) -> impl Future<Output = Result<Option<AccountInfo>, ApiError>> + Send;

    /// The nonce `address`'s next transaction takes: its finalized nonce, past its pending
    /// transactions in the mempool.
    fn next_nonce(&self, address: Address) -> impl Future<Output = Result<u64, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
