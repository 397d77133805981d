//! The two passes over the list of system actors (`drover_types::system_actors`) that the block
//! needs: dispatching a call to the actor it is addressed to ([`call`]) and naming what a
//! transaction to one reads ([`prefetch_keys`]).
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
    payload::Message,
    system_actors::{self, SystemActorVisitor, Visit},
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

/// Runs `request` if its callee is a native system actor; `None` otherwise (a wasm actor).
pub(crate) fn call<H: NativeHost>(host: &mut H, request: &CallRequest) -> Option<Outcome> {
    system_actors::visit(&request.context.self_address, &mut Dispatch { host, request })
}

/// The pass that names what one call reads.
struct Prefetch<'m> {
    sender: Address,
    message: &'m Message,
}

impl SystemActorVisitor for Prefetch<'_> {
    type Output = Vec<Vec<u8>>;
}

impl<C: SystemActor> Visit<C> for Prefetch<'_> {
    fn visit(&mut self) -> Vec<Vec<u8>> {
        // A call that does not decode fails before it reads anything.
        C::decode(&self.message.handler, &self.message.payload)
            .map(|call| call.prefetch_keys(&self.sender))
            .unwrap_or_default()
    }
}

/// The state keys a transaction from `sender` to the native system actor `to` with `message`
/// reads, for the block's prefetch (none when `to` holds no system actor or the call does not
/// decode: it fails anyway).
pub(crate) fn prefetch_keys(sender: &Address, to: &Address, message: &Message) -> Vec<Vec<u8>> {
    system_actors::visit(to, &mut Prefetch { sender: *sender, message }).unwrap_or_default()
}
