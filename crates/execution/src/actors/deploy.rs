//! A deploy transaction (`to` = null, payload = Deploy).
//!
//! The actor's address is `last20(keccak256(sender ‖ salt ‖ keccak256(code)))`. The manifest is
//! checked ([`validate_manifest`], E1302), the code validated and compiled ([`Vm::compile`],
//! E11xx), the address must be free (E1110); then the actor record and the code are written,
//! the value moves to the new actor, a `deploy` event is emitted, and the optional `init`
//! message runs with the rest of the transaction's budgets. If `init` does not succeed, the
//! whole deploy is rolled back. A refused deploy still pays its intrinsic cost: validating the
//! code was work.
//!
//! [`Vm::compile`]: drover_vm::Vm::compile

use super::{
    DEPLOY_EVENT_TOPIC, Work,
    host::{ActorHost, actor_record},
};
use crate::{BlockEnv, Intrinsic, StateRead};
use drover_state::{ActorRecord, keys};
use drover_types::{Event, ExecError, VerifiedTransaction, exec_error::ExecCode, payload::Deploy};
use drover_vm::{CallContext, CallRequest, validate_manifest};

/// Deploys `deploy` for `tx`.
pub(crate) fn run<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    tx: &VerifiedTransaction,
    deploy: Deploy,
    intrinsic: Intrinsic,
) -> Work {
    let address = deploy.actor_address(&tx.sender);
    if let Err(e) = validate_manifest(deploy.manifest.entitlements()) {
        return Work::failed(e.to_exec_error());
    }
    let module = match host.compile_code(&deploy.code) {
        Ok(module) => module,
        Err(e) => return Work::failed(e.to_exec_error()),
    };
    let existing = actor_record(host.overlay, &address);
    match host.absorb(existing) {
        Ok(None) => {}
        Ok(Some(_)) => {
            return Work::failed(ExecError::new(
                ExecCode::ActorExists,
                format!("an actor already exists at {address}"),
            ));
        }
        Err(e) => return Work::failed(e.into()),
    }
    let saved = host.save();
    let record = ActorRecord {
        code_hash: module.code_hash(),
        owner: tx.sender,
        entitlements: deploy.manifest.into_entitlements(),
        created_height: env.height,
        upgrades: 0,
    };
    host.overlay.put(keys::actor_key(&address), Some(record.encode()));
    host.overlay.put(keys::actor_code_key(&address), Some(deploy.code));
    // The validity rule made sure the sender covers the value.
    if let Err(e) = host.move_value(&tx.sender, &address, tx.tx.value) {
        host.restore(saved);
        return Work::failed(e.into());
    }
    host.events.push(Event { address, topic: DEPLOY_EVENT_TOPIC.to_owned(), data: record.code_hash.0.to_vec() });
    let Some(init) = deploy.init else {
        return Work::success();
    };
    let outcome = host.run(CallRequest {
        context: CallContext {
            self_address: address,
            caller: tx.sender,
            origin: tx.sender,
            block_height: env.height,
            timestamp_ms: env.timestamp_ms,
            // Already moved above, so that `init` sees it in its balance.
            value: 0,
            depth: 0,
        },
        handler: init.handler,
        payload: init.payload,
        cycles_limit: tx.tx.cycles_limit.saturating_sub(intrinsic.cycles),
        cells_limit: tx.tx.cells_limit.saturating_sub(intrinsic.cells),
        read_only: false,
    });
    if !outcome.is_success() {
        host.restore(saved);
    }
    Work::from_outcome(&outcome)
}
