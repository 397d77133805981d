//! The relay registry: the native system actor at [`RELAY_REGISTRY_ADDRESS`].
//!
//! # Rules
//!
//! - `register`: a stake (the value) of at least the `min_relay_stake` chain parameter and
//!   settings within the rules (E1951); not already registered (E1952). A relay that
//!   deregistered may register again; its unbonding keeps unbonding. Registration counts as a
//!   heartbeat and takes the next listing slot.
//! - `update`: a registered relay (E1952) replaces its settings (E1951 when they break the
//!   rules); a value adds to its stake. Lowering the capacity below what it holds only stops new
//!   volumes and growth.
//! - `heartbeat`: a registered relay; healthy while its last heartbeat is at most
//!   `heartbeat_gap_blocks` old.
//! - `deregister`: a registered relay that no volume names any more (E1953) moves its stake to
//!   unbonding, withdrawable `unbonding_blocks` later, and gives up its slot (the last relay moves
//!   into it). A relay is never held here by volumes it cannot be rid of: it may `drop` any of
//!   its volumes at the storage manager, which are then purged within `volume_grace_blocks` and
//!   reaped by anyone.
//! - `withdraw`: pays the matured unbondings (E1953 when none has matured).
//!
//! Listings: a registered relay is in the public listing while its settings say `public` and in
//! the writing listing while they say `write` (`drover_state::storage::public_relays_listing`,
//! `writing_relays_listing`), kept by `register`, `update` and `deregister`, which pay for the
//! changes, so `/ras/relays/public` and `/ras/write-relayers` page by point lookups.

use super::{emit, overflow, read, refuse, relay_record, save_relay};
use crate::listing;
use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::{
    decode_address, decode_count, encode_address, encode_count,
    runner::Unbonding,
    storage::{
        RelayRecord, RelayTotals, public_relays_listing, relay_count_key, relay_key, relay_slot_key, relay_state_key,
        totals_key, writing_relays_listing,
    },
};
use drover_types::{
    Address,
    exec_error::ExecCode,
    runner::MAX_PENDING_UNBONDINGS,
    storage::{RELAY_REGISTRY_ADDRESS, RelayCall, RelaySettings},
};
use drover_vm::{CallContext, HostError};

/// Topic of the event a registration emits: `[relay, stake]`.
pub const EVENT_REGISTERED: &str = "relay.registered";
/// Topic of the event an update emits: `[relay, stake]`.
pub const EVENT_UPDATED: &str = "relay.updated";
/// Topic of the event a deregistration emits: `[relay, stake unbonding]`.
pub const EVENT_DEREGISTERED: &str = "relay.deregistered";
/// Topic of the event a withdrawal emits: `[relay, amount]`.
pub const EVENT_WITHDRAWN: &str = "relay.withdrawn";

impl SystemActor for RelayCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        let mut keys = vec![relay_key(sender)];
        if matches!(self, RelayCall::Register(_) | RelayCall::Update(_) | RelayCall::Deregister) {
            keys.extend([relay_count_key(), totals_key()]);
        }
        keys.iter().map(|key| relay_state_key(key)).collect()
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        _meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        apply(host, context.caller, context.block_height, self, context.value).map(|()| Vec::new())
    }
}

fn registered<H: NativeHost>(host: &mut H, relay: &Address) -> Result<RelayRecord, HostError> {
    relay_record(host, relay)?
        .filter(|record| !record.deregistered)
        .ok_or_else(|| refuse(ExecCode::RelayRegistration, format!("{relay} is not a registered relay")))
}

fn totals<H: NativeHost>(host: &mut H) -> Result<RelayTotals, HostError> {
    Ok(read(host, &RELAY_REGISTRY_ADDRESS, &totals_key(), RelayTotals::decode)?.unwrap_or_default())
}

fn save_totals<H: NativeHost>(host: &mut H, totals: &RelayTotals) {
    host.write_storage(&RELAY_REGISTRY_ADDRESS, &totals_key(), Some(totals.encode()));
}

fn apply<H: NativeHost>(
    host: &mut H,
    sender: Address,
    height: u64,
    call: RelayCall,
    value: u128,
) -> Result<(), HostError> {
    let settings_error = |reason: String| refuse(ExecCode::RelaySettings, reason);
    match call {
        RelayCall::Register(settings) => {
            let floor = host.params().min_relay_stake;
            if value < floor {
                return Err(settings_error(format!("a relay stakes at least {floor} base units; {value} sent")));
            }
            settings.check().map_err(settings_error)?;
            let previous = relay_record(host, &sender)?;
            if previous.as_ref().is_some_and(|r| !r.deregistered) {
                return Err(refuse(ExecCode::RelayRegistration, format!("{sender} is already a registered relay")));
            }
            let (unbonding, earned) = previous.map_or((Vec::new(), 0), |old| (old.unbonding, old.earned));
            let slot = read(host, &RELAY_REGISTRY_ADDRESS, &relay_count_key(), decode_count)?.unwrap_or(0);
            host.write_storage(&RELAY_REGISTRY_ADDRESS, &relay_slot_key(slot), Some(encode_address(&sender)));
            host.write_storage(&RELAY_REGISTRY_ADDRESS, &relay_count_key(), Some(encode_count(slot.saturating_add(1))));
            let mut totals = totals(host)?;
            totals.relays += 1;
            totals.capacity_bytes = totals.capacity_bytes.saturating_add(settings.capacity_bytes);
            totals.stake = totals.stake.checked_add(value).ok_or_else(|| overflow("relay stake"))?;
            save_totals(host, &totals);
            list(host, &sender, None, Some(&settings))?;
            let record = RelayRecord {
                stake: value,
                settings,
                registered_height: height,
                last_heartbeat_height: height,
                deregistered: false,
                unbonding,
                slot: Some(slot),
                volumes: 0,
                used_bytes: 0,
                earned,
            };
            save_relay(host, &sender, &record);
            emit(host, RELAY_REGISTRY_ADDRESS, EVENT_REGISTERED, |w| {
                w.array(2).bytes(&sender.0).u128(value);
            });
        }
        RelayCall::Update(settings) => {
            let mut record = registered(host, &sender)?;
            settings.check().map_err(settings_error)?;
            let mut totals = totals(host)?;
            totals.capacity_bytes = totals
                .capacity_bytes
                .saturating_sub(record.settings.capacity_bytes)
                .saturating_add(settings.capacity_bytes);
            totals.stake = totals.stake.checked_add(value).ok_or_else(|| overflow("relay stake"))?;
            save_totals(host, &totals);
            list(host, &sender, Some(&record.settings), Some(&settings))?;
            record.settings = settings;
            record.stake = record.stake.checked_add(value).ok_or_else(|| overflow("relay stake"))?;
            save_relay(host, &sender, &record);
            emit(host, RELAY_REGISTRY_ADDRESS, EVENT_UPDATED, |w| {
                w.array(2).bytes(&sender.0).u128(record.stake);
            });
        }
        RelayCall::Heartbeat => {
            let mut record = registered(host, &sender)?;
            record.last_heartbeat_height = height;
            save_relay(host, &sender, &record);
        }
        RelayCall::Deregister => {
            let mut record = registered(host, &sender)?;
            if record.volumes > 0 {
                return Err(refuse(
                    ExecCode::RelayBusy,
                    format!(
                        "{} volumes still name {sender}; drop them (or let their owners delete them) and reap them \
                         once purged",
                        record.volumes
                    ),
                ));
            }
            if record.unbonding.len() >= MAX_PENDING_UNBONDINGS {
                return Err(refuse(ExecCode::RelayBusy, "withdraw the matured unbondings first"));
            }
            let stake = std::mem::take(&mut record.stake);
            let release_height = height.saturating_add(host.params().unbonding_blocks);
            record.unbonding.push(Unbonding { amount: stake, release_height });
            record.deregistered = true;
            leave_slot(host, record.slot.take())?;
            list(host, &sender, Some(&record.settings), None)?;
            let mut totals = totals(host)?;
            totals.relays = totals.relays.saturating_sub(1);
            totals.capacity_bytes = totals.capacity_bytes.saturating_sub(record.settings.capacity_bytes);
            totals.stake = totals.stake.saturating_sub(stake);
            save_totals(host, &totals);
            save_relay(host, &sender, &record);
            emit(host, RELAY_REGISTRY_ADDRESS, EVENT_DEREGISTERED, |w| {
                w.array(2).bytes(&sender.0).u128(stake);
            });
        }
        RelayCall::Withdraw => {
            let mut record = relay_record(host, &sender)?
                .ok_or_else(|| refuse(ExecCode::RelayRegistration, format!("{sender} never registered as a relay")))?;
            let (matured, kept): (Vec<Unbonding>, Vec<Unbonding>) =
                record.unbonding.iter().copied().partition(|entry| entry.release_height <= height);
            let total = matured
                .iter()
                .try_fold(0u128, |sum, entry| sum.checked_add(entry.amount))
                .ok_or_else(|| overflow("unbonded stake"))?;
            if total == 0 {
                return Err(refuse(ExecCode::RelayBusy, "nothing has finished unbonding"));
            }
            record.unbonding = kept;
            save_relay(host, &sender, &record);
            host.move_value(&RELAY_REGISTRY_ADDRESS, &sender, total)?;
            emit(host, RELAY_REGISTRY_ADDRESS, EVENT_WITHDRAWN, |w| {
                w.array(2).bytes(&sender.0).u128(total);
            });
        }
    }
    Ok(())
}

/// Moves `relay` in or out of the public and writing listings as its settings go from `old` to
/// `new` (`None`: not registered).
fn list<H: NativeHost>(
    host: &mut H,
    relay: &Address,
    old: Option<&RelaySettings>,
    new: Option<&RelaySettings>,
) -> Result<(), HostError> {
    let flags = |settings: Option<&RelaySettings>| settings.map_or((false, false), |s| (s.public, s.write));
    let ((was_public, was_writing), (public, writing)) = (flags(old), flags(new));
    if was_public != public {
        listing::set(host, &public_relays_listing(), &relay.0, public)?;
    }
    if was_writing != writing {
        listing::set(host, &writing_relays_listing(), &relay.0, writing)?;
    }
    Ok(())
}

/// Gives up a deregistered relay's slot: the last registered relay moves into it.
fn leave_slot<H: NativeHost>(host: &mut H, slot: Option<u64>) -> Result<(), HostError> {
    let corrupt = |what: &str| HostError::internal(format!("relay registry: {what}"));
    let slot = slot.ok_or_else(|| corrupt("a registered relay without a slot"))?;
    let count = read(host, &RELAY_REGISTRY_ADDRESS, &relay_count_key(), decode_count)?.unwrap_or(0);
    let last = count.checked_sub(1).filter(|last| slot <= *last).ok_or_else(|| corrupt("a slot past the count"))?;
    if slot != last {
        let moved = read(host, &RELAY_REGISTRY_ADDRESS, &relay_slot_key(last), decode_address)?
            .ok_or_else(|| corrupt("an empty slot"))?;
        let mut record = relay_record(host, &moved)?.ok_or_else(|| corrupt("a listed relay without a record"))?;
        record.slot = Some(slot);
        save_relay(host, &moved, &record);
        host.write_storage(&RELAY_REGISTRY_ADDRESS, &relay_slot_key(slot), Some(encode_address(&moved)));
    }
    host.write_storage(&RELAY_REGISTRY_ADDRESS, &relay_slot_key(last), None);
    host.write_storage(&RELAY_REGISTRY_ADDRESS, &relay_count_key(), (last > 0).then(|| encode_count(last)));
    Ok(())
}
