//! Storage relays, volumes and session revocations (`routes::storage`).

use crate::pagination::Page;
use drover_types::{
    Address, H256,
    api::{RasAccountBalance, RasStats, RelayInfo, RelayList, VolumeInfo, VolumeList},
    error::ApiError,
};
use std::future::Future;

/// Which registered relays a relay list holds (`/ras/relays/public`, `/ras/write-relayers`):
/// those whose settings say so, a list the chain keeps as the settings change. Health and free
/// capacity change without a transaction (a heartbeat ages, a volume grows), so no list is cut
/// by them: each relay shows its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayFilter {
    /// Those listed publicly (`public`).
    Public,
    /// Those taking writes (`write`); a new volume needs one that is also healthy and not full.
    Writable,
}

impl RelayFilter {
    /// Whether `relay` is on this list (every relay given is registered).
    pub fn keeps(self, relay: &RelayInfo) -> bool {
        match self {
            RelayFilter::Public => relay.public,
            RelayFilter::Writable => relay.write,
        }
    }
}

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait StorageBackend: Send + Sync {
    /// Storage-relay totals: the relay registry's and the storage manager's (zeros when absent).
    fn storage_stats(&self) -> impl Future<Output = Result<RasStats, ApiError>> + Send;

    /// Registered relays that `filter` keeps, in listing-slot order, one page.
    fn storage_relays(
        &self,
        filter: RelayFilter,
        page: Page,
    ) -> impl Future<Output = Result<RelayList, ApiError>> + Send;

    /// A volume's record, rent settled virtually to the latest height; `None` when no volume
    /// has this id (never reaped). Who may see it is the route's to decide.
    fn storage_volume(&self, id: H256) -> impl Future<Output = Result<Option<VolumeInfo>, ApiError>> + Send;

    /// `owner`'s volumes in volume-id order, one page.
    fn storage_volumes(&self, owner: Address, page: Page) -> impl Future<Output = Result<VolumeList, ApiError>> + Send;

    /// `wallet`'s balance and what its volumes hold and cost (a bounded number of them).
    fn storage_account(&self, wallet: Address) -> impl Future<Output = Result<RasAccountBalance, ApiError>> + Send;

    /// The height at which `wallet` revoked `session_key`; `None` when it did not.
    fn storage_revocation(
        &self,
        wallet: Address,
        session_key: [u8; 33],
    ) -> impl Future<Output = Result<Option<u64>, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
