//! Account libraries: the native system actor at [`LIBRARY_ADDRESS`] (publish, remove) and how
//! an actor runs a library handler in its own context (`library_call`, see
//! `actors::host::ActorHost`).
//!
//! # Rules
//!
//! - `publish {name, code, manifest}`: a name of 1–64 characters `a–z 0–9 . _ -` (E1851), code
//!   and manifest validated exactly like a deploy's (E11xx, E1302). The first publish is
//!   version 1; each later one the next version, every earlier version kept. Publishing after a
//!   `remove` brings the library back from the new version on: versions published before the
//!   removal stay removed, so an actor pinned to one is not revived into running it.
//! - `remove {name}`: the publisher's library is no longer run, in any version (E1852 unknown).
//!
//! A library joins its publisher's listing (`drover_state::library::libraries_listing`, which
//! is also the publisher's count) at its first publish and never leaves it, so
//! `/library/{publisher}` pages by point lookups in publication order.
//!
//! Running (`library_call(publisher, name, version, handler, payload, cycles)`, version 0 = the
//! latest): the handler runs with the calling actor as `self` — its storage, its balance, its
//! events — the caller's `caller`, `origin` and value context, and the entitlements both the
//! caller's and the library's manifests grant. It is metered like a call (the caller's cycles
//! and cells), counts one level of call depth (so at most 16 nested calls and libraries), and
//! is rolled back unless it succeeds. An unknown or removed library, or a version that does
//! not exist, fails the call (E1852).

#[cfg(test)]
mod tests;

use crate::listing;
use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::library::{
    LibraryRecord, LibraryVersion, code_key, count_key, libraries_listing, library_key, name_hash, version_key,
};
use drover_types::{
    Address, Event,
    cbor::Writer,
    exec_error::ExecCode,
    library::{LIBRARY_ADDRESS, LibraryCall, check_library_name},
};
use drover_vm::{CallContext, HostError};

/// Topic of the event a publish emits: `[publisher, name, version, code_hash]`.
pub const EVENT_PUBLISHED: &str = "library.published";
/// Topic of the event a removal emits: `[publisher, name]`.
pub const EVENT_REMOVED: &str = "library.removed";

impl SystemActor for LibraryCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        let listing = libraries_listing(sender);
        [library_key(sender, self.name()), count_key(sender)]
            .iter()
            .map(|key| drover_state::library::state_key(key))
            .chain([listing.place_key(&name_hash(self.name()).0)])
            .collect()
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        _meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        apply(host, context.caller, context.block_height, self).map(|()| Vec::new())
    }
}

fn apply<H: NativeHost>(host: &mut H, publisher: Address, height: u64, call: LibraryCall) -> Result<(), HostError> {
    let name = call.name().to_owned();
    check_library_name(&name).map_err(|reason| HostError::new(ExecCode::LibraryName, reason))?;
    let key = library_key(&publisher, &name);
    let existing = host.read_storage(&LIBRARY_ADDRESS, &key, LibraryRecord::decode)?;
    match call {
        LibraryCall::Publish { code, manifest, .. } => {
            drover_vm::validate_manifest(manifest.entitlements()).map_err(|e| {
                let e = e.to_exec_error();
                HostError::new(e.code, e.message)
            })?;
            let code_hash = host.compile(&code)?;
            let (version, live_from) = match &existing {
                None => {
                    // A new library joins its publisher's listing (which counts it) for good.
                    listing::add(host, &libraries_listing(&publisher), &name_hash(&name).0)?;
                    (1, 1)
                }
                Some(r) => {
                    let version = r.version.saturating_add(1);
                    (version, if r.removed { version } else { r.live_from })
                }
            };
            let latest = LibraryVersion {
                code_hash,
                code_size: code.len() as u64,
                manifest: manifest.into_entitlements(),
                published_height: height,
            };
            host.write_storage(&LIBRARY_ADDRESS, &code_key(&code_hash), Some(code));
            host.write_storage(&LIBRARY_ADDRESS, &version_key(&publisher, &name, version), Some(latest.encode()));
            let record = LibraryRecord { name: name.clone(), version, removed: false, latest, live_from };
            host.write_storage(&LIBRARY_ADDRESS, &key, Some(record.encode()));
            emit(host, EVENT_PUBLISHED, |w| {
                w.array(4).bytes(&publisher.0).text(&name).uint(u64::from(version)).bytes(&code_hash.0);
            });
        }
        LibraryCall::Remove { .. } => {
            let mut record = existing.filter(|r| !r.removed).ok_or_else(|| {
                HostError::new(ExecCode::UnknownLibrary, format!("{publisher} has no library {name:?}"))
            })?;
            record.removed = true;
            host.write_storage(&LIBRARY_ADDRESS, &key, Some(record.encode()));
            emit(host, EVENT_REMOVED, |w| {
                w.array(2).bytes(&publisher.0).text(&name);
            });
        }
    }
    Ok(())
}

fn emit<H: NativeHost>(host: &mut H, topic: &str, data: impl FnOnce(&mut Writer<Vec<u8>>)) {
    let mut w = Writer::with_capacity(96);
    data(&mut w);
    host.emit_event(Event { address: LIBRARY_ADDRESS, topic: topic.to_owned(), data: w.into_inner() });
}
