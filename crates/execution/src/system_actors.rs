//! The two passes over the list of system actors (`drover_types::system_actors`) that the block
//! needs: dispatching a call to the actor it is addressed to ([`call`], or [`call_decoded`] for
//! a transaction's call the validity rule already decoded) and naming what a transaction to one
//! reads ([`prefetch_keys`]).
//!
//! Which addresses hold a system actor, and the form of a call to each, is
//! `drover_types::system_actors`' to say: its list is the only one. A call type on that list
//! without a [`SystemActor`] implementation (`crate::native`, beside each actor's handlers) does
//! not build, since both passes must visit every call type. Every other reserved address
//! `0x00…01`–`0x00…0f` holds no actor: a transaction to one is invalid, a `call` finds no actor
//! (E1211).

use crate::native::{self, NativeHost, SystemActor};
use drover_types::{
    Address,
    system_actors::{self, AnySystemCall, SystemActorVisitor, Visit, VisitCall},
};
use drover_vm::{CallRequest, Outcome};

/// The pass that runs one call on the system actor it is addressed to.
struct Dispatch<'h, 'r, H> {
    host: &'h mut H,
    request: &'r CallRequest,
}

impl<H> SystemActorVisitor for Dispatch<'_, '_, H> {
    type Output = Outcome;
}

impl<C: SystemActor, H: NativeHost> Visit<C> for Dispatch<'_, '_, H> {
    fn visit(&mut self) -> Outcome {
        native::run::<H, C>(self.host, self.request)
    }
}

impl<C: SystemActor, H: NativeHost> VisitCall<C> for Dispatch<'_, '_, H> {
    fn visit_call(&mut self, call: C) -> Outcome {
        native::run_decoded::<H, C>(self.host, self.request, call)
    }
}

/// Runs `request` if its callee is a native system actor; `None` otherwise (a wasm actor).
pub(crate) fn call<H: NativeHost>(host: &mut H, request: &CallRequest) -> Option<Outcome> {
    system_actors::visit(&request.context.self_address, &mut Dispatch { host, request })
}

/// Runs `request` to a native system actor as `call`, what the validity rule decoded its
/// handler and arguments as (a transaction sent straight to the actor: not decoded again).
pub(crate) fn call_decoded<H: NativeHost>(host: &mut H, request: &CallRequest, call: AnySystemCall) -> Outcome {
    call.visit(&mut Dispatch { host, request })
}

/// The pass that names what one call reads.
struct Prefetch {
    sender: Address,
}

impl SystemActorVisitor for Prefetch {
    type Output = Vec<Vec<u8>>;
}

impl<C: SystemActor> VisitCall<C> for Prefetch {
    fn visit_call(&mut self, call: C) -> Vec<Vec<u8>> {
        call.prefetch_keys(&self.sender)
    }
}

/// The state keys a transaction from `sender` sending `call` (as the validity rule decoded it)
/// to a native system actor reads, for the block's prefetch.
pub(crate) fn prefetch_keys(sender: &Address, call: AnySystemCall) -> Vec<Vec<u8>> {
    call.visit(&mut Prefetch { sender: *sender })
}
