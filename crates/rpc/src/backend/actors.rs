//! Actors: records, code, storage, mailbox, logs, runs, timers, upgrades and read-only calls
//! (`routes::actors`).

use crate::pagination::Page;
use drover_types::{
    Address,
    api::{
        ActorCodeInfo, ActorInfo, ActorReadResponse, LogPage, MailboxPage, StoragePage, SystemRunPage, TimerPage,
        UpgradePage,
    },
    error::ApiError,
};
use std::future::Future;

/// A read-only handler call, checked by the route (`POST /actor/read`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActorCall {
    /// The actor to run.
    pub actor: Address,
    /// Name of the exported handler to run.
    pub handler: String,
    /// Input bytes for the handler.
    pub payload: Vec<u8>,
    /// What the handler sees as its caller and origin (the request's `from`, or the zero address).
    pub caller: Address,
    /// Cycles budget, within the node's cap.
    pub max_cycles: u64,
    /// Cells budget, within the node's cap.
    pub max_cells: u64,
    /// Whether to answer the execution's trace.
    pub trace: bool,
}

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait ActorBackend: Send + Sync {
    /// The actor at `address` in the latest finalized state (`None`: no actor there).
    fn actor(&self, address: Address) -> impl Future<Output = Result<Option<ActorInfo>, ApiError>> + Send;

    /// The code of the actor at `address` (`None`: no actor there).
    fn actor_code(&self, address: Address) -> impl Future<Output = Result<Option<ActorCodeInfo>, ApiError>> + Send;

    /// Up to `limit` storage entries of the actor at `address` with keys after `after` (from the
    /// first when `None`), in storage order (`None`: no actor there).
    fn actor_storage(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<StoragePage>, ApiError>> + Send;

    /// How many storage entries the actor at `address` holds (`None`: no actor there).
    fn actor_storage_count(&self, address: Address) -> impl Future<Output = Result<Option<u64>, ApiError>> + Send;

    /// Up to `limit` messages waiting for the actor at `address` after queue position `after`, in
    /// delivery order (`None`: no actor there).
    fn actor_mailbox(
        &self,
        address: Address,
        after: Option<u64>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<MailboxPage>, ApiError>> + Send;

    /// Up to `limit` events the actor at `address` emitted in successful transactions, timer
    /// fires and deliveries, in chain order, after the position `after` names (a page's
    /// `next_cursor`; `None`: no actor there).
    fn actor_logs(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<LogPage>, ApiError>> + Send;

    /// Up to `limit` system runs (timer fires, deliveries, timers dropped unpaid) of the actor at
    /// `address`, in chain order, after the position `after` names (a page's `next_cursor`;
    /// `None`: no actor there).
    fn actor_runs(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> impl Future<Output = Result<Option<SystemRunPage>, ApiError>> + Send;

    /// A page of the pending timers of the actor at `address`, in firing order (`None`: no
    /// actor there).
    fn actor_timers(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<Option<TimerPage>, ApiError>> + Send;

    /// A page of the upgrades of the actor at `address`, oldest first (`None`: no actor there).
    fn actor_upgrades(
        &self,
        address: Address,
        page: Page,
    ) -> impl Future<Output = Result<Option<UpgradePage>, ApiError>> + Send;

    /// Runs `call` read-only on the latest finalized state. A missing actor is 5000, a missing
    /// handler 5002, a write attempt 5003, a budget exceeded 5004; a handler that reverts or
    /// traps otherwise is an answer with that status.
    fn actor_read(&self, call: ActorCall) -> impl Future<Output = Result<ActorReadResponse, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
