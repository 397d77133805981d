//! The storage manager: the native system actor at [`STORAGE_MANAGER_ADDRESS`], which keeps
//! the volumes, their deposits and rent, and the revoked session keys.
//!
//! # Rules
//!
//! - `create {name, relay, public, max_size_bytes}`: a valid name, a cap of at most
//!   `MAX_VOLUME_SIZE_BYTES` and a value of at least the `volume_creation_fee` chain parameter
//!   (E1955), no volume of that name for the sender (E1958), a relay that is registered,
//!   healthy, takes writes and has free capacity (E1954). The fee is burned; the rest of the
//!   value is the deposit. The rent price is the relay's at this height and stays the volume's.
//! - `resize {volume, max_size_bytes}`: the owner only (E1956) sets the cap (E1955 past the
//!   largest) of a volume not purged or dropped (E1957). The billed bytes become the committed
//!   size within the new cap: at once when fewer, from the next rent window when more.
//! - `deposit {volume}`: a non-zero value (E1955) for a volume not purged (E1957; E1956 when
//!   unknown), from anyone.
//! - `delete` / `undelete {volume}`: the owner only (E1956); delete a volume that is active or in
//!   grace, undelete one deleted by its owner and still in its grace (E1957).
//! - `commit {volume, root, size_bytes}`: the volume's relay only (E1956), a volume not purged
//!   or dropped (E1957), within the relay's capacity (E1954). Rent is settled at the old billed
//!   bytes first; then the billed bytes become `min(size_bytes, max_size_bytes)`, a growth from
//!   the next rent window.
//! - `drop {volume}`: the volume's relay only (E1956), a volume not purged or dropped (E1957).
//!   Rent is settled and stops; the volume is deleted at this height (unless its owner deleted
//!   it earlier) and cannot be undeleted, so it is purged `volume_grace_blocks` later and then
//!   reaped. This is how a relay frees itself of volumes nobody pays for (nothing committed, a
//!   free relay) before it deregisters.
//! - `reap {volume}`: anyone, once the volume is purged (E1957): the record goes, the relay's
//!   counts drop, the deposit left goes back to the owner.
//! - `revoke {session_key}`: the sender's delegation tokens for that session key are refused by
//!   the node and relays from this block on.
//!
//! Every call on a volume first settles its rent to the block's height (capped at its purge
//! height): whole paid blocks move from the deposit to the relay's account. What a relay can be
//! paid is therefore bounded by what the owner agreed to: at most `max_size_bytes` billed, and a
//! growth only from the window after the owner could see it on chain.
//!
//! A volume is in its owner's listing (`drover_state::storage::volumes_listing`) from `create` to
//! `reap`, each paying for its change, so `/ras/volumes` pages by point lookups.

use super::{emit, overflow, read, refuse, relay_record, save_relay};
use crate::listing;
use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::storage::{
    RelayRecord, VolumeRecord, VolumeTotals, encode_revocation, owned_volume_key, relay_key, relay_state_key,
    revocation_key, totals_key, volume_key, volume_state_key, volumes_listing,
};
use drover_types::{
    Address, H256,
    exec_error::ExecCode,
    storage::{Rent, STORAGE_MANAGER_ADDRESS, StorageCall, VolumeStatus, check_max_size, check_volume_name, volume_id},
};
use drover_vm::{CallContext, HostError};

/// Topic of the event a creation emits: `[owner, volume, relay, deposit, max_size_bytes]`.
pub const EVENT_CREATED: &str = "storage.volume_created";
/// Topic of the event a resize emits: `[volume, max_size_bytes]`.
pub const EVENT_RESIZED: &str = "storage.volume_resized";
/// Topic of the event a relay's drop emits: `[volume, purge_height]`.
pub const EVENT_DROPPED: &str = "storage.volume_dropped";
/// Topic of the event a deposit emits: `[volume, from, amount]`.
pub const EVENT_DEPOSITED: &str = "storage.deposited";
/// Topic of the event a deletion emits: `[volume, purge_height]`.
pub const EVENT_DELETED: &str = "storage.volume_deleted";
/// Topic of the event an undeletion emits: `[volume]`.
pub const EVENT_UNDELETED: &str = "storage.volume_undeleted";
/// Topic of the event a commit emits: `[volume, root, size_bytes]`.
pub const EVENT_COMMITTED: &str = "storage.committed";
/// Topic of the event a reap emits: `[volume, refunded]`.
pub const EVENT_REAPED: &str = "storage.volume_reaped";
/// Topic of the event a rent settlement emits: `[volume, relay, amount]`.
pub const EVENT_RENT_PAID: &str = "storage.rent_paid";
/// Topic of the event a revocation emits: `[wallet, session_key]`.
pub const EVENT_REVOKED: &str = "storage.session_revoked";

impl SystemActor for StorageCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        let volume = match self {
            StorageCall::Create { name, relay, .. } => {
                return vec![
                    volume_state_key(&volume_key(&volume_id(sender, name))),
                    volume_state_key(&totals_key()),
                    relay_state_key(&relay_key(relay)),
                ];
            }
            StorageCall::Revoke { .. } => return Vec::new(),
            other => other.volume(),
        };
        volume.map(|id| vec![volume_state_key(&volume_key(&id)), volume_state_key(&totals_key())]).unwrap_or_default()
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        _meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        let mut manager = Manager { host, sender: context.caller, height: context.block_height };
        manager.apply(self, context.value).map(|()| Vec::new())
    }
}

/// One call's view of the storage manager, as `sender`.
struct Manager<'x, H> {
    host: &'x mut H,
    sender: Address,
    height: u64,
}

/// A volume being worked on, with its relay's record and the totals, written back together.
struct Open {
    id: H256,
    record: VolumeRecord,
    relay: RelayRecord,
    totals: VolumeTotals,
}

impl<H: NativeHost> Manager<'_, H> {
    fn apply(&mut self, call: StorageCall, value: u128) -> Result<(), HostError> {
        let sender = self.sender;
        match call {
            StorageCall::Create { name, relay, public, max_size_bytes } => {
                return self.create(name, relay, public, max_size_bytes, value);
            }
            StorageCall::Revoke { session_key } => {
                self.host.write_storage(
                    &STORAGE_MANAGER_ADDRESS,
                    &revocation_key(&sender, &session_key),
                    Some(encode_revocation(self.height)),
                );
                emit(self.host, STORAGE_MANAGER_ADDRESS, super::volumes::EVENT_REVOKED, |w| {
                    w.array(2).bytes(&sender.0).bytes(&session_key);
                });
                return Ok(());
            }
            _ => {}
        }
        let id = call.volume().ok_or_else(|| HostError::internal("a volume call without a volume"))?;
        let mut open = self.open(id)?;
        let status = self.status(&open.record);
        let state_error =
            |what: &str| refuse(ExecCode::VolumeState, format!("volume {id} is {}: {what}", status.as_str()));
        let not_owner = || refuse(ExecCode::UnknownVolume, format!("{sender} owns no volume {id}"));
        let not_relay = || refuse(ExecCode::UnknownVolume, format!("{sender} is not the relay of volume {id}"));
        let dropped = || refuse(ExecCode::VolumeState, format!("volume {id} was dropped by its relay"));
        match call {
            StorageCall::Resize { max_size_bytes, .. } => {
                if open.record.owner != sender {
                    return Err(not_owner());
                }
                check_max_size(max_size_bytes).map_err(|reason| refuse(ExecCode::VolumeRules, reason))?;
                if status == VolumeStatus::Purged {
                    return Err(state_error("a purged volume is not resized"));
                }
                if open.record.dropped {
                    return Err(dropped());
                }
                self.settle(&mut open)?;
                open.record.max_size_bytes = max_size_bytes;
                self.rebill(&mut open.record);
                emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_RESIZED, |w| {
                    w.array(2).bytes(&id.0).uint(max_size_bytes);
                });
            }
            StorageCall::Drop { .. } => {
                if open.record.relay != sender {
                    return Err(not_relay());
                }
                if status == VolumeStatus::Purged {
                    return Err(state_error("reap it instead"));
                }
                if open.record.dropped {
                    return Err(dropped());
                }
                self.settle(&mut open)?;
                open.record.dropped = true;
                open.record.rent.size_bytes = 0;
                open.record.rent.growth = None;
                // An owner's earlier deletion keeps its (earlier) purge.
                open.record.rent.deleted_height.get_or_insert(self.height);
                let purge = open.record.rent.purge_height(self.host.params().volume_grace_blocks).unwrap_or(u64::MAX);
                emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_DROPPED, |w| {
                    w.array(2).bytes(&id.0).uint(purge);
                });
            }
            StorageCall::Deposit { .. } => {
                if value == 0 {
                    return Err(refuse(ExecCode::VolumeRules, "a deposit carries a non-zero value"));
                }
                if status == VolumeStatus::Purged {
                    return Err(state_error("reap it instead"));
                }
                self.settle(&mut open)?;
                open.record.rent.deposit =
                    open.record.rent.deposit.checked_add(value).ok_or_else(|| overflow("deposit"))?;
                open.totals.deposits = open.totals.deposits.checked_add(value).ok_or_else(|| overflow("deposits"))?;
                // Arrears are paid from the new deposit at once.
                self.settle(&mut open)?;
                emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_DEPOSITED, |w| {
                    w.array(3).bytes(&id.0).bytes(&sender.0).u128(value);
                });
            }
            StorageCall::Delete { .. } => {
                if open.record.owner != sender {
                    return Err(not_owner());
                }
                if !matches!(status, VolumeStatus::Active | VolumeStatus::Grace) {
                    return Err(state_error("only an active volume or one in grace is deleted"));
                }
                self.settle(&mut open)?;
                open.record.rent.deleted_height = Some(self.height);
                let purge = open.record.rent.purge_height(self.host.params().volume_grace_blocks).unwrap_or(u64::MAX);
                emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_DELETED, |w| {
                    w.array(2).bytes(&id.0).uint(purge);
                });
            }
            StorageCall::Undelete { .. } => {
                if open.record.owner != sender {
                    return Err(not_owner());
                }
                if status != VolumeStatus::Deleted {
                    return Err(state_error("only a deleted volume within its grace is undeleted"));
                }
                if open.record.dropped {
                    return Err(dropped());
                }
                self.settle(&mut open)?;
                open.record.rent.deleted_height = None;
                emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_UNDELETED, |w| {
                    w.array(1).bytes(&id.0);
                });
            }
            StorageCall::Commit { root, size_bytes, .. } => {
                if open.record.relay != sender {
                    return Err(not_relay());
                }
                if status == VolumeStatus::Purged {
                    return Err(state_error("a purged volume takes no commits"));
                }
                if open.record.dropped {
                    return Err(dropped());
                }
                let used = open.relay.used_bytes.saturating_sub(open.record.size_bytes).saturating_add(size_bytes);
                if size_bytes > open.record.size_bytes && used > open.relay.settings.capacity_bytes {
                    return Err(refuse(
                        ExecCode::RelayUnavailable,
                        format!("{size_bytes} bytes would put the relay past its capacity"),
                    ));
                }
                self.settle(&mut open)?;
                open.relay.used_bytes = used;
                open.totals.bytes = open.totals.bytes.saturating_sub(open.record.size_bytes).saturating_add(size_bytes);
                open.record.size_bytes = size_bytes;
                self.rebill(&mut open.record);
                open.record.root = root;
                open.record.committed_height = self.height;
                emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_COMMITTED, |w| {
                    w.array(3).bytes(&id.0).bytes(&root.0).uint(size_bytes);
                });
            }
            StorageCall::Reap { .. } => {
                if status != VolumeStatus::Purged {
                    return Err(state_error("only a purged volume is reaped"));
                }
                self.settle(&mut open)?;
                let refund = open.record.rent.deposit;
                let owner = open.record.owner;
                self.host.move_value(&STORAGE_MANAGER_ADDRESS, &owner, refund)?;
                open.totals.deposits = open.totals.deposits.saturating_sub(refund);
                open.totals.volumes = open.totals.volumes.saturating_sub(1);
                open.totals.bytes = open.totals.bytes.saturating_sub(open.record.size_bytes);
                open.relay.volumes = open.relay.volumes.saturating_sub(1);
                open.relay.used_bytes = open.relay.used_bytes.saturating_sub(open.record.size_bytes);
                self.host.write_storage(&STORAGE_MANAGER_ADDRESS, &volume_key(&id), None);
                self.host.write_storage(&STORAGE_MANAGER_ADDRESS, &owned_volume_key(&id, &owner), None);
                listing::remove(self.host, &volumes_listing(&owner), &id.0)?;
                self.save_totals(&open.totals);
                save_relay(self.host, &open.record.relay, &open.relay);
                emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_REAPED, |w| {
                    w.array(2).bytes(&id.0).u128(refund);
                });
                return Ok(());
            }
            StorageCall::Create { .. } | StorageCall::Revoke { .. } => {}
        }
        self.close(open);
        Ok(())
    }

    fn create(
        &mut self,
        name: String,
        relay: Address,
        public: bool,
        max_size_bytes: u64,
        value: u128,
    ) -> Result<(), HostError> {
        let sender = self.sender;
        check_volume_name(&name).map_err(|reason| refuse(ExecCode::VolumeRules, reason))?;
        check_max_size(max_size_bytes).map_err(|reason| refuse(ExecCode::VolumeRules, reason))?;
        let params = self.host.params();
        let fee = params.volume_creation_fee;
        let deposit = value.checked_sub(fee).ok_or_else(|| {
            refuse(ExecCode::VolumeRules, format!("creating a volume costs {fee} base units; {value} sent"))
        })?;
        let id = volume_id(&sender, &name);
        if read(self.host, &STORAGE_MANAGER_ADDRESS, &volume_key(&id), VolumeRecord::decode)?.is_some() {
            return Err(refuse(ExecCode::VolumeExists, format!("{sender} already has a volume {name:?} ({id})")));
        }
        let unavailable = |why: &str| refuse(ExecCode::RelayUnavailable, format!("relay {relay} {why}"));
        let mut relay_record = relay_record(self.host, &relay)?
            .filter(|r| !r.deregistered)
            .ok_or_else(|| unavailable("is not registered"))?;
        if !relay_record.healthy(self.height, params.heartbeat_gap_blocks) {
            return Err(unavailable("is unhealthy (no recent heartbeat)"));
        }
        if !relay_record.settings.write {
            return Err(unavailable("does not take writes"));
        }
        if relay_record.used_bytes >= relay_record.settings.capacity_bytes {
            return Err(unavailable("is full"));
        }
        self.host.burn(&STORAGE_MANAGER_ADDRESS, fee)?;
        let record = VolumeRecord {
            owner: sender,
            name,
            relay,
            public,
            created_height: self.height,
            root: H256::ZERO,
            committed_height: 0,
            size_bytes: 0,
            max_size_bytes,
            rent: Rent {
                size_bytes: 0,
                price_per_byte_block: relay_record.settings.price_per_byte_block,
                deposit,
                settled_height: self.height,
                deleted_height: None,
                growth: None,
            },
            rent_paid: 0,
            dropped: false,
        };
        relay_record.volumes += 1;
        let mut totals = self.totals()?;
        totals.volumes += 1;
        totals.deposits = totals.deposits.checked_add(deposit).ok_or_else(|| overflow("deposits"))?;
        totals.fees_burned = totals.fees_burned.checked_add(fee).ok_or_else(|| overflow("fees burned"))?;
        self.host.write_storage(&STORAGE_MANAGER_ADDRESS, &owned_volume_key(&id, &sender), Some(vec![0xf6]));
        listing::add(self.host, &volumes_listing(&sender), &id.0)?;
        self.close(Open { id, record, relay: relay_record, totals });
        emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_CREATED, |w| {
            w.array(5).bytes(&sender.0).bytes(&id.0).bytes(&relay.0).u128(deposit).uint(max_size_bytes);
        });
        Ok(())
    }

    /// The volume `id` with its relay and the totals (E1956 when unknown).
    fn open(&mut self, id: H256) -> Result<Open, HostError> {
        let record = read(self.host, &STORAGE_MANAGER_ADDRESS, &volume_key(&id), VolumeRecord::decode)?
            .ok_or_else(|| refuse(ExecCode::UnknownVolume, format!("no volume {id}")))?;
        // A relay cannot deregister while a volume names it, so its record is there.
        let relay = relay_record(self.host, &record.relay)?
            .ok_or_else(|| HostError::internal(format!("volume {id} names a relay without a record")))?;
        let totals = self.totals()?;
        Ok(Open { id, record, relay, totals })
    }

    fn close(&mut self, open: Open) {
        self.host.write_storage(&STORAGE_MANAGER_ADDRESS, &volume_key(&open.id), Some(open.record.encode()));
        self.save_totals(&open.totals);
        save_relay(self.host, &open.record.relay, &open.relay);
    }

    /// Bills `record` on its committed size within its owner's cap, from this block (fewer
    /// bytes) or the next rent window (more); after settling.
    fn rebill(&self, record: &mut VolumeRecord) {
        record.rent.bill(record.size_bytes.min(record.max_size_bytes), self.height);
    }

    fn status(&self, record: &VolumeRecord) -> VolumeStatus {
        record.rent.status_at(self.height, self.host.params().volume_grace_blocks)
    }

    /// Pays the rent due before this block (never past the purge of a deleted volume) from the
    /// deposit to the relay.
    fn settle(&mut self, open: &mut Open) -> Result<(), HostError> {
        let paid = open.record.rent.settle_before(self.height, self.host.params().volume_grace_blocks);
        if paid == 0 {
            return Ok(());
        }
        let relay = open.record.relay;
        self.host.move_value(&STORAGE_MANAGER_ADDRESS, &relay, paid)?;
        open.record.rent_paid = open.record.rent_paid.checked_add(paid).ok_or_else(|| overflow("rent paid"))?;
        open.relay.earned = open.relay.earned.checked_add(paid).ok_or_else(|| overflow("relay earnings"))?;
        open.totals.deposits = open.totals.deposits.saturating_sub(paid);
        open.totals.rent_paid = open.totals.rent_paid.checked_add(paid).ok_or_else(|| overflow("rent paid"))?;
        let id = open.id;
        emit(self.host, STORAGE_MANAGER_ADDRESS, EVENT_RENT_PAID, |w| {
            w.array(3).bytes(&id.0).bytes(&relay.0).u128(paid);
        });
        Ok(())
    }

    fn totals(&mut self) -> Result<VolumeTotals, HostError> {
        Ok(read(self.host, &STORAGE_MANAGER_ADDRESS, &totals_key(), VolumeTotals::decode)?.unwrap_or_default())
    }

    fn save_totals(&mut self, totals: &VolumeTotals) {
        self.host.write_storage(&STORAGE_MANAGER_ADDRESS, &totals_key(), Some(totals.encode()));
    }
}
