//! Storage-relay reads for the API: the relay registry's (`0x…0b`) and the storage manager's
//! (`0x…0a`) records in the latest applied state, decoded into the `drover_types::api` storage
//! records (layout: `drover_state::storage`).
//!
//! Everything is as of the latest finalized height `tip` under the chain parameters in force
//! (the governance record, else the tip's): a volume's status is [`Rent::status_at`] the tip,
//! its deposit what is left once the rent of every block up to the tip is paid, settled
//! virtually on a copy of its record exactly as the next call on it would settle
//! (`drover_execution::storage`: never past a deleted volume's purge height).
//!
//! Costs: the totals are two lookups; a relay list is a page of its listing (the public relays,
//! the relays taking writes: `drover_state::storage::public_relays_listing`,
//! `writing_relays_listing`), the count and two lookups per relay of the page; a volume is two
//! lookups (its record and its relay's, for the endpoint); a wallet's volume list is a page of
//! its listing (`volumes_listing`), the count and, per volume of the page, its slot, its record
//! and its relay's (once per relay); the account summary reads at most
//! [`STORAGE_ACCOUNT_VOLUMES_MAX`] volumes. A page costs the same whatever the number of relays or
//! of the wallet's volumes. All reads of one request happen under one read lock and see one
//! state.

use super::{
    handle::NodeHandle,
    pages::{listed, listed_address, listed_hash, read_record, scan},
};
use crate::databases::{OrderedRead, StateDb};
use crate::error::NodeError;
use commonware_runtime::tokio;
use drover_rpc::backend::StorageBackend;
use drover_rpc::{backend::RelayFilter, limits::STORAGE_ACCOUNT_VOLUMES_MAX, pagination::Page};
use drover_state::{
    Account,
    governance::{decode_params, params_state_key},
    keys::account_key,
    storage::{
        RelayRecord, RelayTotals, VolumeRecord, VolumeTotals, decode_revocation, public_relays_listing, relay_key,
        relay_state_key, revocation_key, totals_key, volume_entry, volume_key, volume_state_key, volumes_listing,
        volumes_range, writing_relays_listing,
    },
};
use drover_types::{
    Address, H256,
    api::{RasAccountBalance, RasStats, RelayHealth, RelayInfo, RelayList, VolumeInfo, VolumeList},
    error::ApiError,
    storage::{Rent, VolumeStatus},
};
use std::collections::HashMap;

/// What a read is computed at: the tip's height and the parameters that decide health and
/// status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct At {
    /// The latest finalized height.
    pub height: u64,
    /// `volume_grace_blocks` in force.
    pub grace_blocks: u64,
    /// `heartbeat_gap_blocks` in force.
    pub gap_blocks: u64,
}

/// The rent account as the next call on the volume would find it after settling, and what
/// that settlement pays: every block up to `at.height` (inclusive), never past a deleted
/// volume's purge height.
pub(super) fn settled(rent: &Rent, at: At) -> (Rent, u128) {
    let mut rent = *rent;
    let paid = rent.settle_before(at.height.saturating_add(1), at.grace_blocks);
    (rent, paid)
}

/// The API record of volume `id` at `at`; `relay_endpoint` is its relay's, if it has a record.
pub(super) fn volume_info(id: H256, record: VolumeRecord, relay_endpoint: Option<String>, at: At) -> VolumeInfo {
    let (now, paid) = settled(&record.rent, at);
    VolumeInfo {
        volume_id: id,
        owner: record.owner,
        name: record.name,
        relay: record.relay,
        relay_endpoint,
        public: record.public,
        status: record.rent.status_at(at.height, at.grace_blocks),
        created_height: record.created_height,
        root: record.root,
        committed_height: record.committed_height,
        size_bytes: record.size_bytes,
        max_size_bytes: record.max_size_bytes,
        billed_bytes: now.size_bytes,
        next_billed_bytes: now.growth.map(|growth| growth.size_bytes),
        billed_bytes_from_height: now.growth.map(|growth| growth.from_height),
        dropped: record.dropped,
        price_per_byte_block: record.rent.price_per_byte_block,
        deposit: now.deposit,
        rent_per_block: now.per_block(),
        paid_until_height: record.rent.paid_until(),
        rent_paid: record.rent_paid.saturating_add(paid),
        deleted_height: record.rent.deleted_height,
        purge_height: record.rent.purge_height(at.grace_blocks),
    }
}

/// The API record of relay `address` at `at`.
pub(super) fn relay_info(address: Address, record: RelayRecord, at: At) -> RelayInfo {
    let health = if record.deregistered {
        RelayHealth::Deregistered
    } else if record.healthy(at.height, at.gap_blocks) {
        RelayHealth::Healthy
    } else {
        RelayHealth::Unhealthy
    };
    let settings = record.settings;
    RelayInfo {
        address,
        endpoint: settings.endpoint,
        capacity_bytes: settings.capacity_bytes,
        used_bytes: record.used_bytes,
        free_bytes: settings.capacity_bytes.saturating_sub(record.used_bytes),
        price_per_byte_block: settings.price_per_byte_block,
        write: settings.write,
        read: settings.read,
        public: settings.public,
        health,
        stake: record.stake,
        volumes: record.volumes,
        earned: record.earned,
        registered_height: record.registered_height,
        last_heartbeat_height: record.last_heartbeat_height,
    }
}

/// The totals record of `/ras/stats` (absent records count as zeros).
pub(super) fn stats(height: u64, relays: RelayTotals, volumes: VolumeTotals) -> RasStats {
    RasStats {
        height,
        relays: relays.relays,
        capacity_bytes: relays.capacity_bytes,
        relay_stake: relays.stake,
        volumes: volumes.volumes,
        bytes: volumes.bytes,
        deposits: volumes.deposits,
        rent_paid: volumes.rent_paid,
        fees_burned: volumes.fees_burned,
    }
}

/// Sums of a wallet's volumes for `/ras/accounts/balance`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct VolumeSums {
    /// Volumes counted.
    pub volumes: u64,
    /// Their deposits, settled to the tip.
    pub deposits: u128,
    /// The rent per block of those active at the tip.
    pub rent_per_block: u128,
}

impl VolumeSums {
    /// Counts one volume at `at`.
    pub(super) fn add(&mut self, rent: &Rent, at: At) {
        let now = settled(rent, at).0;
        self.volumes += 1;
        self.deposits = self.deposits.saturating_add(now.deposit);
        if rent.status_at(at.height, at.grace_blocks) == VolumeStatus::Active {
            // At the billed bytes in force at the tip (a growth due by then included).
            self.rent_per_block = self.rent_per_block.saturating_add(now.per_block());
        }
    }
}

type Db = StateDb<tokio::Context>;

async fn relay_record(db: &impl OrderedRead, relay: &Address) -> Result<Option<RelayRecord>, ApiError> {
    read_record(db, &relay_state_key(&relay_key(relay)), RelayRecord::decode).await
}

async fn volume_record(db: &impl OrderedRead, id: &H256) -> Result<Option<VolumeRecord>, ApiError> {
    read_record(db, &volume_state_key(&volume_key(id)), VolumeRecord::decode).await
}

/// The volume `id` (known to exist: listed) with its relay's endpoint, looked up once per relay
/// in `endpoints`.
async fn listed_volume(
    db: &impl OrderedRead,
    id: H256,
    at: At,
    endpoints: &mut HashMap<Address, Option<String>>,
) -> Result<VolumeInfo, ApiError> {
    let record = volume_record(db, &id)
        .await?
        .ok_or_else(|| NodeError::missing(format!("storage manager: volume {id} listed without a record")))?;
    let endpoint = match endpoints.get(&record.relay) {
        Some(endpoint) => endpoint.clone(),
        None => {
            let endpoint = relay_record(db, &record.relay).await?.map(|relay| relay.settings.endpoint);
            endpoints.insert(record.relay, endpoint.clone());
            endpoint
        }
    };
    Ok(volume_info(id, record, endpoint, at))
}

/// The ids of `owner`'s volumes in id order, at most `limit`, and whether more follow.
async fn owned_volumes(db: &Db, owner: Address, limit: u64) -> Result<(Vec<H256>, bool), ApiError> {
    let own = |key: &[u8], _| volume_entry(key).filter(|(o, _)| *o == owner).map(|(_, id)| id);
    Ok(scan(db, &volumes_range(&owner), None, limit, usize::MAX, own).await.map_err(NodeError::from)?)
}

impl StorageBackend for NodeHandle {
    async fn storage_stats(&self) -> Result<RasStats, ApiError> {
        let height = self.0.chain.tip().height;
        let db = self.0.databases.read().await;
        let relays = read_record(&*db, &relay_state_key(&totals_key()), RelayTotals::decode).await?;
        let volumes = read_record(&*db, &volume_state_key(&totals_key()), VolumeTotals::decode).await?;
        Ok(stats(height, relays.unwrap_or_default(), volumes.unwrap_or_default()))
    }

    async fn storage_relays(&self, filter: RelayFilter, page: Page) -> Result<RelayList, ApiError> {
        let db = self.0.databases.read().await;
        let at = self.storage_at(&*db).await?;
        relays(&*db, filter, at, page).await
    }

    async fn storage_volume(&self, id: H256) -> Result<Option<VolumeInfo>, ApiError> {
        let db = self.0.databases.read().await;
        let at = self.storage_at(&*db).await?;
        let Some(record) = volume_record(&*db, &id).await? else {
            return Ok(None);
        };
        let endpoint = relay_record(&*db, &record.relay).await?.map(|relay| relay.settings.endpoint);
        Ok(Some(volume_info(id, record, endpoint, at)))
    }

    async fn storage_volumes(&self, owner: Address, page: Page) -> Result<VolumeList, ApiError> {
        let db = self.0.databases.read().await;
        let at = self.storage_at(&*db).await?;
        volumes(&*db, owner, at, page).await
    }

    async fn storage_account(&self, wallet: Address) -> Result<RasAccountBalance, ApiError> {
        let db = self.0.databases.read().await;
        let at = self.storage_at(&*db).await?;
        let account = read_record(&*db, &account_key(&wallet), Account::decode).await?.unwrap_or_default();
        let (ids, truncated) = owned_volumes(&db, wallet, STORAGE_ACCOUNT_VOLUMES_MAX).await?;
        let mut sums = VolumeSums::default();
        for id in ids {
            let record = volume_record(&*db, &id)
                .await?
                .ok_or_else(|| NodeError::missing(format!("storage manager: volume {id} listed without a record")))?;
            sums.add(&record.rent, at);
        }
        Ok(RasAccountBalance {
            wallet,
            balance: account.balance,
            volumes: sums.volumes,
            deposits: sums.deposits,
            rent_per_block: sums.rent_per_block,
            truncated,
        })
    }

    async fn storage_revocation(&self, wallet: Address, session_key: [u8; 33]) -> Result<Option<u64>, ApiError> {
        let db = self.0.databases.read().await;
        read_record(&*db, &volume_state_key(&revocation_key(&wallet, &session_key)), decode_revocation).await
    }
}

impl NodeHandle {
    /// The tip and the parameters in force, read under `db`'s lock.
    async fn storage_at(&self, db: &impl OrderedRead) -> Result<At, ApiError> {
        let tip = self.0.chain.tip();
        let params = read_record(db, &params_state_key(), decode_params).await?.unwrap_or(tip.next_params);
        Ok(At { height: tip.height, grace_blocks: params.volume_grace_blocks, gap_blocks: params.heartbeat_gap_blocks })
    }
}

/// A page of the relays on `filter`'s listing, in its order, at `at`.
async fn relays(db: &impl OrderedRead, filter: RelayFilter, at: At, page: Page) -> Result<RelayList, ApiError> {
    let listing = match filter {
        RelayFilter::Public => public_relays_listing(),
        RelayFilter::Writable => writing_relays_listing(),
    };
    let (items, total_count) = listed(db, &listing, &page).await?;
    let mut relays = Vec::with_capacity(items.len());
    for item in items {
        let address = listed_address(&item)?;
        let record = relay_record(db, &address)
            .await?
            .ok_or_else(|| NodeError::missing("relay registry: a listed relay without a record"))?;
        relays.push(relay_info(address, record, at));
    }
    Ok(RelayList { relays, total_count, offset: page.offset, limit: page.limit })
}

/// A page of `owner`'s volumes, in its listing's order, at `at`.
async fn volumes(db: &impl OrderedRead, owner: Address, at: At, page: Page) -> Result<VolumeList, ApiError> {
    let (items, total_count) = listed(db, &volumes_listing(&owner), &page).await?;
    let mut endpoints = HashMap::new();
    let mut volumes = Vec::with_capacity(items.len());
    for item in items {
        volumes.push(listed_volume(db, listed_hash(&item)?, at, &mut endpoints).await?);
    }
    Ok(VolumeList { volumes, total_count, offset: page.offset, limit: page.limit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::storage::RelaySettings;

    const AT: At = At { height: 20, grace_blocks: 10, gap_blocks: 5 };

    fn rent(size_bytes: u64, deposit: u128, settled_height: u64) -> Rent {
        Rent { size_bytes, price_per_byte_block: 3, deposit, settled_height, deleted_height: None, growth: None }
    }

    fn record(rent: Rent) -> VolumeRecord {
        VolumeRecord {
            owner: Address([1; 20]),
            name: "photos".into(),
            relay: Address([2; 20]),
            public: false,
            created_height: 4,
            root: H256([5; 32]),
            committed_height: 6,
            size_bytes: rent.size_bytes,
            max_size_bytes: 1_000,
            rent,
            rent_paid: 100,
            dropped: false,
        }
    }

    #[test]
    fn a_volume_is_settled_virtually_to_the_tip() {
        // 10 bytes at 3: 30 per block; settled to 15 with 600 left: paid until 35.
        let info = volume_info(H256([9; 32]), record(rent(10, 600, 15)), Some("http://r".into()), AT);
        // Blocks 15..=20 are due at the tip: 6 blocks, 180.
        assert_eq!((info.deposit, info.rent_paid, info.rent_per_block), (420, 280, 30));
        assert_eq!((info.paid_until_height, info.purge_height), (Some(35), Some(45)));
        assert_eq!((info.status, info.deleted_height), (VolumeStatus::Active, None));
        assert_eq!(info.relay_endpoint.as_deref(), Some("http://r"));
        assert_eq!((info.size_bytes, info.price_per_byte_block, info.root), (10, 3, H256([5; 32])));
        // What is left plus what was paid is what the record holds plus what it had paid.
        assert_eq!(info.deposit + info.rent_paid, 600 + 100);
        assert_eq!((info.max_size_bytes, info.billed_bytes, info.next_billed_bytes), (1_000, 10, None));
        // A growth due after the tip is shown pending, and the rent stays at the old size.
        let growing = Rent {
            growth: Some(drover_types::storage::Growth { size_bytes: 20, from_height: 25 }),
            ..rent(10, 600, 15)
        };
        let info = volume_info(H256::ZERO, record(growing), None, AT);
        assert_eq!(
            (info.billed_bytes, info.next_billed_bytes, info.billed_bytes_from_height),
            (10, Some(20), Some(25))
        );
        // 10 blocks (15..25) at 30, then 300 left at 60: paid until 30.
        assert_eq!((info.rent_per_block, info.paid_until_height), (30, Some(30)));
    }

    #[test]
    fn arrears_stop_at_the_deposit_and_deleted_volumes_at_their_purge() {
        // Ran out at 17: grace at the tip, only 2 blocks paid.
        let info = volume_info(H256::ZERO, record(rent(10, 60, 15)), None, AT);
        assert_eq!(
            (info.status, info.deposit, info.rent_paid, info.paid_until_height),
            (VolumeStatus::Grace, 0, 160, Some(17))
        );
        assert_eq!(info.purge_height, Some(27));
        // Ran out long ago: purged.
        let info = volume_info(H256::ZERO, record(rent(10, 0, 5)), None, AT);
        assert_eq!((info.status, info.purge_height), (VolumeStatus::Purged, Some(15)));
        // Deleted at 8 with deposit for ever: rent stops at the purge (18), not at the tip.
        let deleted = Rent { deleted_height: Some(8), ..rent(10, 1_000_000, 5) };
        let (now, paid) = settled(&deleted, AT);
        assert_eq!((now.settled_height, paid), (18, 13 * 30));
        let info = volume_info(H256::ZERO, record(deleted), None, AT);
        assert_eq!((info.status, info.deleted_height, info.purge_height), (VolumeStatus::Purged, Some(8), Some(18)));
        let info = volume_info(H256::ZERO, record(deleted), None, At { height: 12, ..AT });
        assert_eq!((info.status, info.deposit), (VolumeStatus::Deleted, 1_000_000 - 8 * 30));
        // Free (no bytes yet): active for ever, nothing to purge.
        let info = volume_info(H256::ZERO, record(rent(0, 50, 4)), None, AT);
        assert_eq!(
            (info.status, info.deposit, info.paid_until_height, info.purge_height),
            (VolumeStatus::Active, 50, None, None)
        );
    }

    #[test]
    fn relays_health_and_free_bytes() {
        let relay = |last_heartbeat_height, deregistered, used_bytes| RelayRecord {
            stake: 7,
            settings: RelaySettings {
                endpoint: "http://127.0.0.1:7000".into(),
                capacity_bytes: 100,
                price_per_byte_block: 2,
                write: true,
                read: false,
                public: true,
            },
            registered_height: 1,
            last_heartbeat_height,
            deregistered,
            unbonding: Vec::new(),
            slot: Some(0),
            volumes: 3,
            used_bytes,
            earned: 9,
        };
        let info = relay_info(Address([4; 20]), relay(15, false, 40), AT);
        assert_eq!((info.health, info.free_bytes, info.used_bytes, info.stake), (RelayHealth::Healthy, 60, 40, 7));
        assert!(RelayFilter::Writable.keeps(&info) && RelayFilter::Public.keeps(&info));
        let late = relay_info(Address([4; 20]), relay(14, false, 40), AT);
        assert_eq!(late.health, RelayHealth::Unhealthy);
        let full = relay_info(Address([4; 20]), relay(20, false, 120), AT);
        assert_eq!(full.free_bytes, 0);
        assert_eq!(relay_info(Address([4; 20]), relay(20, true, 0), AT).health, RelayHealth::Deregistered);
    }

    fn numbered(i: u64) -> Address {
        let mut bytes = [0x3e; 20];
        bytes[12..].copy_from_slice(&i.to_be_bytes());
        Address(bytes)
    }

    fn relay_record(public: bool) -> RelayRecord {
        RelayRecord {
            stake: 7,
            settings: RelaySettings {
                endpoint: "http://127.0.0.1:7000".into(),
                capacity_bytes: 100,
                price_per_byte_block: 2,
                write: true,
                read: true,
                public,
            },
            registered_height: 1,
            last_heartbeat_height: 18,
            deregistered: false,
            unbonding: Vec::new(),
            slot: None,
            volumes: 0,
            used_bytes: 0,
            earned: 0,
        }
    }

    #[test]
    fn a_page_of_relays_reads_the_page_whatever_the_registry_holds() {
        use crate::backend::pages::tests::{Counted, LARGE, bounded_at_every_offset};
        let mut db = Counted::default();
        // Every relay takes writes; the even ones are also listed publicly.
        db.list(
            &writing_relays_listing(),
            LARGE,
            |i| numbered(i).0.to_vec(),
            |i| vec![(relay_state_key(&relay_key(&numbered(i))), relay_record(i % 2 == 0).encode())],
        );
        db.list(&public_relays_listing(), LARGE / 2, |i| numbered(2 * i).0.to_vec(), |_| Vec::new());
        bounded_at_every_offset(&db, 2, 1, |page| {
            let db = &db;
            async move {
                let answer = relays(db, RelayFilter::Writable, AT, page).await.unwrap();
                assert_eq!(answer.total_count, LARGE);
                if let Some(first) = answer.relays.first() {
                    assert_eq!((first.address, first.health), (numbered(page.offset), RelayHealth::Healthy));
                }
                answer.relays.len()
            }
        });
        db.take_reads();
        let page = Page { offset: LARGE / 2 - 3, limit: 1_000 };
        let public = futures::executor::block_on(relays(&db, RelayFilter::Public, AT, page)).unwrap();
        assert_eq!((public.total_count, public.relays.len()), (LARGE / 2, 3));
        assert!(public.relays.iter().all(|relay| relay.public));
        assert_eq!(db.take_reads(), 1 + 2 * 3);
    }

    #[test]
    fn a_page_of_volumes_reads_the_page_whatever_the_wallet_owns() {
        use crate::backend::pages::tests::{Counted, LARGE, bounded_at_every_offset};
        let owner = Address([0x0e; 20]);
        let relay = Address([2; 20]);
        let id = |i: u64| H256(drover_state::keys::spread::<32>(&[&i.to_be_bytes()]));
        let mut db = Counted::default();
        db.apply([(relay_state_key(&relay_key(&relay)), Some(relay_record(true).encode()))]);
        db.list(
            &volumes_listing(&owner),
            LARGE,
            |i| id(i).0.to_vec(),
            |i| {
                let volume = VolumeRecord { owner, ..record(rent(10, 600, 15)) };
                vec![
                    (volume_state_key(&volume_key(&id(i))), volume.encode()),
                    (volume_state_key(&drover_state::storage::owned_volume_key(&id(i), &owner)), vec![0xf6]),
                ]
            },
        );
        // One relay for every volume: its record is read once per page.
        bounded_at_every_offset(&db, 2, 2, |page| {
            let db = &db;
            async move {
                let answer = volumes(db, owner, AT, page).await.unwrap();
                assert_eq!(answer.total_count, LARGE);
                if let Some(first) = answer.volumes.first() {
                    assert_eq!(
                        (first.volume_id, first.relay_endpoint.as_deref()),
                        (id(page.offset), Some("http://127.0.0.1:7000"))
                    );
                }
                answer.volumes.len()
            }
        });
    }

    #[test]
    fn account_sums_and_totals() {
        let mut sums = VolumeSums::default();
        sums.add(&rent(10, 600, 15), AT);
        sums.add(&rent(10, 60, 15), AT);
        sums.add(&Rent { deleted_height: Some(19), ..rent(1, 90, 15) }, AT);
        // 420 + 0 + (90 - 6 × 3); only the first is active.
        assert_eq!(sums, VolumeSums { volumes: 3, deposits: 420 + 72, rent_per_block: 30 });
        let stats = stats(
            7,
            RelayTotals { relays: 1, capacity_bytes: 2, stake: 3 },
            VolumeTotals { volumes: 4, bytes: 5, deposits: 6, rent_paid: 7, fees_burned: 8 },
        );
        assert_eq!(
            (stats.height, stats.relays, stats.capacity_bytes, stats.relay_stake, stats.volumes, stats.bytes),
            (7, 1, 2, 3, 4, 5)
        );
        assert_eq!((stats.deposits, stats.rent_paid, stats.fees_burned), (6, 7, 8));
    }
}
