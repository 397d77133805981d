//! The storage relays' mock: relays, volumes (as the node serves them at the tip) and
//! revocations a test sets; the totals are sums over them.

use super::*;
use crate::backend::{ChainBackend, accounts::mock::AccountsMock};
use crate::mock::MockBackend;
use drover_types::{api::RelayHealth, storage::VolumeStatus};
use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct StorageMock {
    /// Registered storage relays, in listing-slot order.
    pub relays: Vec<RelayInfo>,
    /// Volumes (as the node would serve them at the tip).
    pub volumes: Vec<VolumeInfo>,
    /// Revoked session keys by (wallet, key), with the height.
    pub revocations: HashMap<(Address, [u8; 33]), u64>,
    /// Creation fees burned, for `/ras/stats` (the other totals are sums over the lists).
    pub volume_fees_burned: u128,
}

impl StorageBackend for MockBackend {
    async fn storage_stats(&self) -> Result<RasStats, ApiError> {
        let height = self.height();
        let part = self.part::<StorageMock>();
        let data = part.lock();
        Ok(RasStats {
            height,
            relays: data.relays.len() as u64,
            capacity_bytes: data.relays.iter().map(|r| r.capacity_bytes).sum(),
            relay_stake: data.relays.iter().map(|r| r.stake).sum(),
            volumes: data.volumes.len() as u64,
            bytes: data.volumes.iter().map(|v| v.size_bytes).sum(),
            deposits: data.volumes.iter().map(|v| v.deposit).sum(),
            rent_paid: data.volumes.iter().map(|v| v.rent_paid).sum(),
            fees_burned: data.volume_fees_burned,
        })
    }

    async fn storage_relays(&self, filter: RelayFilter, page: Page) -> Result<RelayList, ApiError> {
        let part = self.part::<StorageMock>();
        let data = part.lock();
        let kept: Vec<_> = data.relays.iter().filter(|r| filter.keeps(r)).cloned().collect();
        let total_count = kept.len() as u64;
        let relays = kept.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(RelayList { relays, total_count, offset: page.offset, limit: page.limit })
    }

    async fn storage_volume(&self, id: H256) -> Result<Option<VolumeInfo>, ApiError> {
        Ok(self.part::<StorageMock>().lock().volumes.iter().find(|v| v.volume_id == id).cloned())
    }

    async fn storage_volumes(&self, owner: Address, page: Page) -> Result<VolumeList, ApiError> {
        let part = self.part::<StorageMock>();
        let data = part.lock();
        let mut owned: Vec<_> = data.volumes.iter().filter(|v| v.owner == owner).cloned().collect();
        owned.sort_by_key(|v| v.volume_id);
        let total_count = owned.len() as u64;
        let volumes = owned.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(VolumeList { volumes, total_count, offset: page.offset, limit: page.limit })
    }

    async fn storage_account(&self, wallet: Address) -> Result<RasAccountBalance, ApiError> {
        let balance = self.read(|accounts: &AccountsMock| accounts.accounts.get(&wallet).map_or(0, |a| a.balance));
        let part = self.part::<StorageMock>();
        let data = part.lock();
        let owned: Vec<_> = data.volumes.iter().filter(|v| v.owner == wallet).collect();
        Ok(RasAccountBalance {
            wallet,
            balance,
            volumes: owned.len() as u64,
            deposits: owned.iter().map(|v| v.deposit).sum(),
            rent_per_block: owned
                .iter()
                .filter(|v| v.status == drover_types::storage::VolumeStatus::Active)
                .map(|v| v.rent_per_block)
                .sum(),
            truncated: false,
        })
    }

    async fn storage_revocation(&self, wallet: Address, session_key: [u8; 33]) -> Result<Option<u64>, ApiError> {
        Ok(self.part::<StorageMock>().lock().revocations.get(&(wallet, session_key)).copied())
    }
}

/// Relay `n`.
pub(crate) fn relay(n: u8, health: RelayHealth, (write, public): (bool, bool), free_bytes: u64) -> RelayInfo {
    RelayInfo {
        address: Address([n; 20]),
        endpoint: format!("http://127.0.0.1:{}", 7000 + u16::from(n)),
        capacity_bytes: 100,
        used_bytes: 100 - free_bytes,
        free_bytes,
        price_per_byte_block: 2,
        write,
        read: true,
        public,
        health,
        stake: u128::from(u64::MAX) + 1,
        volumes: 1,
        earned: 3,
        registered_height: 1,
        last_heartbeat_height: 2,
    }
}

/// `owner`'s volume `name` on `relay`.
pub(crate) fn volume(owner: Address, name: &str, relay: Address, public: bool) -> VolumeInfo {
    VolumeInfo {
        volume_id: drover_types::storage::volume_id(&owner, name),
        owner,
        name: name.into(),
        relay,
        relay_endpoint: Some("http://127.0.0.1:7001".into()),
        public,
        status: VolumeStatus::Active,
        created_height: 1,
        root: H256::ZERO,
        committed_height: 0,
        size_bytes: 10,
        max_size_bytes: 100,
        billed_bytes: 10,
        next_billed_bytes: None,
        billed_bytes_from_height: None,
        dropped: false,
        price_per_byte_block: 2,
        deposit: 1_000,
        rent_per_block: 20,
        paid_until_height: Some(51),
        rent_paid: 0,
        deleted_height: None,
        purge_height: Some(151),
    }
}
