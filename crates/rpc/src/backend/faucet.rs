//! The development faucet (`routes::faucet`).

use drover_types::{Address, H256, error::ApiError};
use std::future::Future;

/// Faucet settings of this node, when the faucet is enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaucetSettings {
    /// Base units sent per request.
    pub drip_amount: u128,
    /// Requests allowed per minute (node-wide).
    pub requests_per_minute: u32,
}

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait FaucetBackend: Send + Sync {
    /// `None` when the faucet is disabled.
    fn faucet(&self) -> Option<FaucetSettings>;

    /// Sends the drip to `address` from the faucet account; returns the funding transaction hash.
    fn fund(&self, address: Address) -> impl Future<Output = Result<H256, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
