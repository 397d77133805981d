//! The native system actors, by address: which calls the executor serves itself instead of
//! handing them to the VM.
//!
//! The runner registry (`0x00…01`, [`crate::runners`]) and the tokens (`0x00…0c`,
//! [`crate::tokens`]). Every other reserved address `0x00…01`–`0x00…0f` holds no actor unless a
//! family lands there: a transaction to one is refused by the payload check, a `call` finds no
//! actor (E1211).

use crate::native::NativeHost;
use crate::{runners, tokens};
use drover_types::{Address, runner::RUNNER_REGISTRY_ADDRESS, token::TOKENS_ADDRESS};
use drover_vm::{CallRequest, Outcome};

/// Whether `address` is a native system actor.
pub(crate) fn is_native(address: &Address) -> bool {
    *address == TOKENS_ADDRESS || *address == RUNNER_REGISTRY_ADDRESS
}

/// Runs `request` if its callee is a native system actor; `None` otherwise (a wasm actor).
pub(crate) fn call<H: NativeHost>(host: &mut H, request: &CallRequest) -> Option<Outcome> {
    match request.context.self_address {
        TOKENS_ADDRESS => Some(tokens::call(host, request)),
        RUNNER_REGISTRY_ADDRESS => Some(runners::call(host, request)),
        _ => None,
    }
}
