//! Upgrades through the actor-upgrades system actor at `0x00…0e`.
//!
//! The transaction is a Message to [`ACTOR_UPGRADES_ADDRESS`] with handler
//! [`UPGRADE_HANDLER`] and an [`UpgradeRequest`] as payload. Rules, in order: the actor exists
//! (E1211), the sender is its owner (E1303), the new manifest is valid (E1302) and a subset of
//! the current one (E1304: an upgrade may only narrow), the new code validates (E11xx). Then the
//! code and the record are replaced, and history entry number `upgrades` records the height,
//! the old and new code hashes and the transaction hash. The actor's storage, balance, mailbox
//! and timers stay. A refused upgrade pays its intrinsic cost.

use super::{UPGRADE_EVENT_TOPIC, Work, host::{ActorHost, actor_record}};
use crate::{BlockEnv, StateRead};
use drover_state::{ActorRecord, UpgradeRecord, keys};
use drover_types::{
    Address, Event, ExecError, VerifiedTransaction,
    cbor::{self, CborError, Writer, decode_fixed, expect_array},
    exec_error::ExecCode,
};
use drover_vm::validate_manifest;

/// The actor-upgrades system actor.
pub const ACTOR_UPGRADES_ADDRESS: Address = Address::system(0x0e);
/// The handler of the actor-upgrades system actor.
pub const UPGRADE_HANDLER: &str = "upgrade";

/// Payload of an upgrade message: canonical CBOR `[actor: bytes(20), code: bytes,
/// entitlements: [text, ...]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpgradeRequest {
    pub actor: Address,
    pub code: Vec<u8>,
    pub entitlements: Vec<String>,
}

impl UpgradeRequest {
    pub fn encode(&self) -> Vec<u8> {
        let ids: usize = self.entitlements.iter().map(|id| id.len() + 9).sum();
        let mut w = Writer::with_capacity(self.code.len() + ids + 40);
        w.array(3)
            .bytes(&self.actor.0)
            .bytes(&self.code)
            .array(self.entitlements.len() as u64);
        for id in &self.entitlements {
            w.text(id);
        }
        w.into_inner()
    }

    /// Strict decode (canonical bytes only).
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, |d| {
            expect_array(d, 3)?;
            let actor = Address(decode_fixed(d)?);
            let code = d.bytes()?.to_vec();
            let at = d.position();
            let len = d.array()?.ok_or_else(|| {
                CborError::NonCanonical(format!("indefinite-length array at byte {at}"))
            })?;
            // Each id takes at least one byte: a length above the input size is a lie.
            let capacity = usize::try_from(len).unwrap_or(usize::MAX).min(d.input().len());
            let mut entitlements = Vec::with_capacity(capacity);
            for _ in 0..len {
                entitlements.push(d.str()?.to_owned());
            }
            Ok(UpgradeRequest {
                actor,
                code,
                entitlements,
            })
        })
    }
}

/// Applies `request` for `tx`.
pub(crate) fn run<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    tx: &VerifiedTransaction,
    request: UpgradeRequest,
) -> Work {
    let record = actor_record(host.overlay, &request.actor);
    let record = match host.absorb(record) {
        Ok(Some(record)) => record,
        Ok(None) => {
            return Work::failed(ExecError::new(
                ExecCode::NoActor,
                format!("{} holds no actor", request.actor),
            ));
        }
        Err(e) => return Work::failed(e.into()),
    };
    if record.owner != tx.sender {
        return Work::failed(ExecError::new(
            ExecCode::NotOwner,
            format!("{} is owned by {}", request.actor, record.owner),
        ));
    }
    let new = match validate_manifest(&request.entitlements) {
        Ok(set) => set,
        Err(e) => return Work::failed(e.to_exec_error()),
    };
    // The stored manifest was validated when written.
    let current = validate_manifest(&record.entitlements).unwrap_or_default();
    if !new.is_subset_of(current) {
        return Work::failed(ExecError::new(
            ExecCode::ManifestWidened,
            format!(
                "the actor has {:?}; the upgrade asks for {:?}",
                current.ids(),
                new.ids()
            ),
        ));
    }
    let module = match host.vm.compile(&request.code) {
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
        return Work::failed(ExecError::new(
            ExecCode::Internal,
            "the actor's upgrade history is full",
        ));
    };
    host.overlay.put(
        keys::upgrade_key(&request.actor, record.upgrades),
        Some(history.encode()),
    );
    let updated = ActorRecord {
        code_hash: history.new_code_hash,
        entitlements: request.entitlements,
        upgrades,
        ..record
    };
    host.overlay
        .put(keys::actor_key(&request.actor), Some(updated.encode()));
    host.overlay
        .put(keys::actor_code_key(&request.actor), Some(request.code));
    host.events.push(Event {
        address: request.actor,
        topic: UPGRADE_EVENT_TOPIC.to_owned(),
        data: history.new_code_hash.0.to_vec(),
    });
    Work::success()
}
