//! The [`Host`] trait: the state side of an execution, implemented by the execution layer.
//!
//! The VM owns metering, limits, entitlement and read-only checks, and memory access; the host
//! owns state. By the time a `Host` method runs, the VM has already charged the call's cycles and
//! cells and checked the actor's entitlements and the read-only flag, so a host needs none of
//! those checks; it only applies the operation or reports why it cannot (a [`HostError`] with an
//! E-code, which traps the actor).
//!
//! **Atomicity contract.** The VM never undoes anything. A host must journal every effect
//! (storage writes, events, balance changes, mailbox messages, timers) so that it can discard
//! all effects of an invocation whose status is not [`Status::Success`](crate::Status): the
//! outermost one (the whole transaction's state changes go, the fee stays) and each nested
//! [`Host::call`] (only the callee's effects go; the caller sees the status and continues).
//! `MockHost` (feature `testing`) shows the pattern with a checkpoint stack.
//!
//! **Reentrancy.** [`Host::call`] runs the callee by calling [`Vm::invoke`](crate::Vm::invoke)
//! again with the same host (`self`); the VM is reentrant (`&self`, one store per invocation).
//! The VM has already filled the callee's [`CallContext`] (depth + 1, caller = the calling actor)
//! and bounded its cycles and cells by what the caller has left.

use crate::{
    error::HostError,
    invocation::{CallContext, Outcome},
};
use drover_types::{Address, exec_error::ExecCode};

/// A synchronous call from one actor to another, as the VM hands it to [`Host::call`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRequest {
    /// The callee's context, complete: `self_address` is the callee, `caller` the calling actor,
    /// `value` the value to move, `depth` one more than the caller's.
    pub context: CallContext,
    /// Name of the callee's handler to run.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// The callee's cycles budget (already bounded by what the caller has left).
    pub cycles_limit: u64,
    /// The callee's cells budget: what the caller has left.
    pub cells_limit: u64,
    /// Whether the callee runs read-only (it does when the caller does).
    pub read_only: bool,
}

/// A `library_call`: which library, and the call to run in the caller's context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryRequest {
    /// The library's publisher.
    pub publisher: Address,
    /// Its name.
    pub name: String,
    /// The version to run; 0 for the latest.
    pub version: u32,
    /// The call: the caller's context (one level deeper), handler, payload and budgets.
    pub call: CallRequest,
    /// The caller's entitlements (the library gets these intersected with its own manifest).
    pub entitlements: crate::Entitlements,
}

/// A message for another actor's mailbox, delivered in a later block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    /// The sending actor, which pays for the delivery.
    pub from: Address,
    /// The recipient actor.
    pub to: Address,
    /// Name of the recipient's handler to run.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// Value moved from `from` with the message (the host escrows it until delivery).
    pub value: u128,
    /// Cycles budget of the delivery, paid by the sender.
    pub cycles_limit: u64,
}

/// A one-shot timer: at `height`, before user transactions, run `handler` of `owner`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerRequest {
    /// The actor that scheduled it; it is also the fee payer of each fire.
    pub owner: Address,
    /// Height at whose start the timer fires (above the current height).
    pub height: u64,
    /// Name of the owner's handler to run.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// Cycles budget of the handler's run.
    pub cycles_limit: u64,
}

/// A storage entry: `(key, value)`.
pub type StorageEntry = (Vec<u8>, Vec<u8>);

/// The state side of an execution. Every method acts for the actor named in its arguments (the
/// VM passes the executing actor), so one host object serves a whole call tree.
pub trait Host {
    /// The value under `key` in `actor`'s storage.
    fn storage_get(&mut self, actor: &Address, key: &[u8]) -> Result<Option<Vec<u8>>, HostError>;

    /// Writes `value` under `key` in `actor`'s storage.
    fn storage_set(&mut self, actor: &Address, key: &[u8], value: &[u8]) -> Result<(), HostError>;

    /// Removes `key` from `actor`'s storage; whether it was present.
    fn storage_remove(&mut self, actor: &Address, key: &[u8]) -> Result<bool, HostError>;

    /// The entry of `actor`'s storage that follows the key `after` in the host's storage order
    /// (the first entry when `None`). The order is the host's, fixed for a given state (on the
    /// chain: by a hash of the key, not the keys' byte order); the VM filters by prefix.
    fn storage_next(&mut self, actor: &Address, after: Option<&[u8]>) -> Result<Option<StorageEntry>, HostError>;

    /// Appends an event to `actor`'s log (dropped with everything else on revert).
    fn emit(&mut self, actor: &Address, topic: &[u8], data: &[u8]) -> Result<(), HostError>;

    /// Balance of any address, in base units.
    fn balance(&mut self, address: &Address) -> Result<u128, HostError>;

    /// Whether `address` has an account (a balance or a nonce): a `transfer` that would create
    /// one pays for it, and the VM asks before it charges.
    fn account_exists(&mut self, address: &Address) -> Result<bool, HostError>;

    /// Moves `amount` from `from` to `to` (E1212 when `from` cannot cover it).
    fn transfer(&mut self, from: &Address, to: &Address, amount: u128) -> Result<(), HostError>;

    /// Queues a message in the recipient's mailbox (E1211 when it holds no actor).
    fn send(&mut self, message: OutgoingMessage) -> Result<(), HostError>;

    /// Runs a synchronous call: move the value, invoke the callee through the VM with `self`,
    /// discard the callee's effects unless it succeeded, return its outcome. A `HostError` here
    /// (no actor, balance) traps the caller; a callee that reverts or traps does not.
    fn call(&mut self, request: CallRequest) -> Result<Outcome, HostError>;

    /// Runs a library handler in the calling actor's context: `request.call.context` is the
    /// caller's own (its `self_address`, storage and balance), the entitlements are the caller's
    /// `entitlements` intersected with the library's manifest, and the effects are discarded
    /// unless it succeeds. An unknown or removed library or version is an outcome that failed
    /// (E1852), not an error. Hosts without libraries answer that for every library.
    fn library_call(&mut self, request: LibraryRequest) -> Result<Outcome, HostError> {
        Ok(Outcome {
            status: crate::Status::Trap(drover_types::ExecError::new(
                ExecCode::UnknownLibrary,
                format!("no library {} of {}", request.name, request.publisher),
            )),
            result: Vec::new(),
            cycles_used: 0,
            cells_used: 0,
        })
    }

    /// Records a timer and returns its id (E1502 when the owner has too many pending).
    fn timer_schedule(&mut self, timer: TimerRequest) -> Result<u64, HostError>;

    /// Cancels `owner`'s timer `id`; whether there was one to cancel.
    fn timer_cancel(&mut self, owner: &Address, id: u64) -> Result<bool, HostError>;
}
