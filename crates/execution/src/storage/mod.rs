//! Storage relays on chain: the relay registry at [`RELAY_REGISTRY_ADDRESS`] ([`relays`]) and
//! the storage manager at [`STORAGE_MANAGER_ADDRESS`] ([`volumes`]).
//!
//! Both are reached like the other native system actors (a transaction's Message or an actor's
//! `call`). Every call does a fixed amount of work — one or two records, the totals, at most one
//! relay record — so its fixed price bounds it; rent is settled lazily on the volume a call
//! touches, never by walking volumes per block (`drover_types::storage` has the arithmetic).
//!
//! Conservation: the registry's account holds exactly the relays' stakes and unbondings; the
//! manager's account holds exactly the volumes' deposits ([`VolumeTotals::deposits`]). Rent
//! moves from the manager's account to the relay's, creation fees are burned, and the rest of a
//! deposit returns to the owner when the volume is reaped. The tests sum them after sequences.
//!
//! [`VolumeTotals::deposits`]: drover_state::storage::VolumeTotals
//! [`STORAGE_MANAGER_ADDRESS`]: drover_types::storage::STORAGE_MANAGER_ADDRESS

pub mod relays;
#[cfg(test)]
mod tests;
pub mod volumes;

use crate::native::NativeHost;
use drover_state::storage::RelayRecord;
use drover_state::{RecordError, storage::relay_key};
use drover_types::{Address, Event, cbor::Writer, exec_error::ExecCode, storage::RELAY_REGISTRY_ADDRESS};
use drover_vm::HostError;

fn refuse(code: ExecCode, message: impl Into<String>) -> HostError {
    HostError::new(code, message)
}

fn read<H: NativeHost, T>(
    host: &mut H,
    actor: &Address,
    user_key: &[u8],
    decode: impl FnOnce(&[u8]) -> Result<T, RecordError>,
) -> Result<Option<T>, HostError> {
    host.read_storage(actor, user_key, decode)
}

/// The record of `relay`, if it ever registered.
fn relay_record<H: NativeHost>(host: &mut H, relay: &Address) -> Result<Option<RelayRecord>, HostError> {
    read(host, &RELAY_REGISTRY_ADDRESS, &relay_key(relay), RelayRecord::decode)
}

fn save_relay<H: NativeHost>(host: &mut H, relay: &Address, record: &RelayRecord) {
    host.write_storage(&RELAY_REGISTRY_ADDRESS, &relay_key(relay), Some(record.encode()));
}

fn emit<H: NativeHost>(host: &mut H, actor: Address, topic: &str, data: impl FnOnce(&mut Writer<Vec<u8>>)) {
    let mut w = Writer::with_capacity(96);
    data(&mut w);
    host.emit_event(Event { address: actor, topic: topic.to_owned(), data: w.into_inner() });
}

fn overflow(what: &str) -> HostError {
    HostError::internal(format!("{what} overflows"))
}
