//! What a system actor's call type says about itself ([`SystemCall`]), and why a handler name
//! and an argument map are not one of its calls ([`SystemCallError`]).
//!
//! Each system actor's calls are one enum of this crate (tokens' `TokenCall`, the runner
//! registry's `RegistryCall`, ...), shared by clients, which build them, and the executor, which
//! decodes and runs them; each implements [`SystemCall`]. The list of the system actors is
//! `crate::system_actors`: this module knows none of them, so every family can implement the
//! trait without importing the list that names it.

use crate::Address;
use crate::args::ArgsError;
use crate::payload::Message;

/// What a system actor's call type says about the actor and about each call: implemented by the
/// one enum of each system actor's calls.
pub trait SystemCall: Sized {
    /// The reserved address the actor lives at.
    const ADDRESS: Address;
    /// The actor's name as its refusals say it (`"the tokens actor"`).
    const NAME: &'static str;
    /// Every handler, in the order its documentation lists them.
    const HANDLERS: &'static [&'static str];
    /// Whether the validity rule refuses a transaction to the actor that carries value (a form
    /// rule: no handler of the actor could take it). Elsewhere a call whose handler takes no
    /// value ([`takes_value`](Self::takes_value)) is refused when it runs (E1202).
    const VALUE_REFUSED_AT_ADMISSION: bool = false;

    /// Decodes a call from its handler name and its argument map. Refuses an unknown handler
    /// (E1205 when it runs) and unknown, missing or mistyped arguments (E1202); what the values
    /// mean is checked when the call runs.
    fn decode(handler: &str, arguments: &[u8]) -> Result<Self, SystemCallError>;

    /// The call's handler name.
    fn handler(&self) -> &'static str;

    /// The call's canonical argument map: what [`decode`](Self::decode) takes back.
    fn encode_args(&self) -> Vec<u8>;

    /// What the call costs before it runs: `(cycles, cells)`, known before any state is read.
    fn cost(&self) -> (u64, u64);

    /// Whether the call may carry value (a stake, a deposit, an escrow).
    fn takes_value(&self) -> bool;

    /// Whether the call changes state (refused under a read-only call, E1206).
    fn writes(&self) -> bool {
        true
    }

    /// The Message a transaction to [`ADDRESS`](Self::ADDRESS) carries for this call.
    fn message(&self) -> Message {
        Message { handler: self.handler().to_owned(), payload: self.encode_args() }
    }
}

/// Why a handler name and an argument map are not a call of a system actor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SystemCallError {
    /// No such handler (E1205).
    #[error("{actor} has no handler {handler:?}; it has {}", handlers.join(", "))]
    Handler {
        /// The actor called, as [`SystemCall::NAME`] says it.
        actor: &'static str,
        /// The handler asked for.
        handler: String,
        /// The handlers it has.
        handlers: &'static [&'static str],
    },
    /// The arguments are not the handler's (E1202).
    #[error(transparent)]
    Args(#[from] ArgsError),
}

impl SystemCallError {
    /// The refusal of `handler`, which `C`'s actor does not have.
    pub fn unknown_handler<C: SystemCall>(handler: &str) -> Self {
        SystemCallError::Handler { actor: C::NAME, handler: handler.to_owned(), handlers: C::HANDLERS }
    }
}
