//! Upgrades through the actor-upgrades system actor at `0x00…0e`.
//!
//! The transaction is a Message to [`ACTOR_UPGRADES_ADDRESS`] with handler
//! [`UPGRADE_HANDLER`] and an [`Upgrade`] as payload (both in `drover_types::payload`). Rules, in order: the actor exists
//! (E1211), the sender is its owner (E1303), the new manifest is valid (E1302) and a subset of
//! the current one (E1304: an upgrade may only narrow), the new code validates (E11xx). Then the
//! code and the record are replaced, and history entry number `upgrades` records the height,
//! the old and new code hashes and the transaction hash. The actor's storage, balance, mailbox
//! and timers stay. A refused upgrade pays its intrinsic cost.

use super::{
    UPGRADE_EVENT_TOPIC, Work,
    host::{ActorHost, actor_record},
};
use crate::{BlockEnv, StateRead};
use drover_state::{ActorRecord, UpgradeRecord, keys};
#[cfg(doc)]
use drover_types::payload::{ACTOR_UPGRADES_ADDRESS, UPGRADE_HANDLER};
use drover_types::{Event, ExecError, VerifiedTransaction, exec_error::ExecCode, payload::Upgrade};
use drover_vm::validate_manifest;

/// Applies `request` for `tx`.
pub(crate) fn run<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    tx: &VerifiedTransaction,
    request: Upgrade,
) -> Work {
    let record = actor_record(host.overlay, &request.actor);
    let record = match host.absorb(record) {
        Ok(Some(record)) => record,
        Ok(None) => {
            return Work::failed(ExecError::new(ExecCode::NoActor, format!("{} holds no actor", request.actor)));
        }
        Err(e) => return Work::failed(e.into()),
    };
    if record.owner != tx.sender {
        return Work::failed(ExecError::new(
            ExecCode::NotOwner,
            format!("{} is owned by {}", request.actor, record.owner),
        ));
    }
    let new = match validate_manifest(request.manifest.entitlements()) {
        Ok(set) => set,
        Err(e) => return Work::failed(e.to_exec_error()),
    };
    // The stored manifest was validated when written.
    let current = validate_manifest(&record.entitlements).unwrap_or_default();
    if !new.is_subset_of(current) {
        return Work::failed(ExecError::new(
            ExecCode::ManifestWidened,
            format!("the actor has {:?}; the upgrade asks for {:?}", current.ids(), new.ids()),
        ));
    }
    let module = match host.compile_code(&request.code) {
        Ok(module) => module,
        Err(e) => return Work::failed(e.to_exec_error()),
    };
    let history = UpgradeRecord {
        height: env.height,
        old_code_hash: record.code_hash,
        new_code_hash: module.code_hash(),
        tx_hash: tx.hash,
    };
    let Some(upgrades) = record.upgrades.checked_add(1) else {
        return Work::failed(ExecError::new(ExecCode::Internal, "the actor's upgrade history is full"));
    };
    host.overlay.put(keys::upgrade_key(&request.actor, record.upgrades), Some(history.encode()));
    let updated = ActorRecord {
        code_hash: history.new_code_hash,
        entitlements: request.manifest.into_entitlements(),
        upgrades,
        ..record
    };
    host.overlay.put(keys::actor_key(&request.actor), Some(updated.encode()));
    host.overlay.put(keys::actor_code_key(&request.actor), Some(request.code));
    host.events.push(Event {
        address: request.actor,
        topic: UPGRADE_EVENT_TOPIC.to_owned(),
        data: history.new_code_hash.0.to_vec(),
    });
    Work::success()
}
