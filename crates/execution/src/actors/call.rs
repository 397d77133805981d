//! A transaction calling an actor: `to` holds an actor and the payload is a Message.
//!
//! The call is one top-level [`Host::call`](drover_vm::Host::call): the value moves from the
//! sender to the actor, the handler runs with the transaction's limits minus its intrinsic
//! cost, and everything (value included) is rolled back unless it succeeds. The fee is charged
//! by the block executor afterwards, outside the rolled-back part.

use super::{Work, host::ActorHost};
use crate::{BlockEnv, Intrinsic, StateRead};
use drover_types::{Address, VerifiedTransaction, payload::Message, system_actors::AnySystemCall};
use drover_vm::{CallContext, CallRequest};

/// Runs `message` of `tx` on the actor at `to`; `decoded` is the call the validity rule decoded
/// it as when `to` is a native system actor, which then runs it without decoding it again.
pub(crate) fn run<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    tx: &VerifiedTransaction,
    (to, message, decoded): (Address, Message, Option<AnySystemCall>),
    intrinsic: Intrinsic,
) -> Work {
    let request = CallRequest {
        context: CallContext {
            self_address: to,
            caller: tx.sender,
            origin: tx.sender,
            block_height: env.height,
            timestamp_ms: env.timestamp_ms,
            value: tx.tx.value,
            depth: 0,
        },
        handler: message.handler,
        payload: message.payload,
        // The validity rule made sure the limits cover the intrinsic cost.
        cycles_limit: tx.tx.cycles_limit.saturating_sub(intrinsic.cycles),
        cells_limit: tx.tx.cells_limit.saturating_sub(intrinsic.cells),
        read_only: false,
    };
    let outcome = match decoded {
        Some(call) => host.run_system(request, call),
        None => host.run(request),
    };
    Work::from_outcome(&outcome)
}
