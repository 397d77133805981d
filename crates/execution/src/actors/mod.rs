//! Actor execution: deploy, call, upgrade, read-only calls, and the work a block does before
//! its transactions (due timers, mailbox deliveries, then the jobs' due work).
//!
//! Every actor invocation runs through one [`host::ActorHost`] over the block's journaled
//! [`Overlay`](crate::overlay::Overlay): the VM meters and checks, the host applies effects to
//! the overlay and rolls back those of any invocation that does not succeed (nested calls
//! included), so a revert or a trap leaves exactly the state before it, while the fee is
//! charged outside the rolled-back part. One module per family: [`deploy`], [`call`],
//! [`upgrade`], [`mailbox`], [`timers`], [`read`].
//!
//! Invariants:
//! - Determinism: no read outside the overlay, no hash-map order, no clock; the VM's module
//!   cache only saves compile time (a cached module meters like a fresh one).
//! - State is read on demand, once per key per block; a read the state cannot answer
//!   ([`ReadFault`](crate::ReadFault)) or a corrupt record ends the block without an outcome.
//! - Deferred work is bounded per block and never wedged: timers, deliveries and the jobs' due
//!   entries each run within their share of the targets (`crate::deferred`), at least their
//!   head every block.
//! - Limits are named constants below; changing one is a consensus change.

pub(crate) mod call;
#[cfg(test)]
mod deferred_audit;
#[cfg(test)]
mod deferred_tests;
pub(crate) mod deploy;
pub(crate) mod host;
pub(crate) mod mailbox;
pub(crate) mod read;
#[cfg(test)]
mod tests;
pub(crate) mod timers;
pub(crate) mod trace;
pub(crate) mod upgrade;

use drover_types::{ExecError, TxStatus};
use drover_vm::{Outcome, Status};

/// Timer slots a block examines per timer it may fire (the chain parameter
/// `max_timer_fires_per_block`), fired or found cancelled, each height moved on to counting as
/// one: cancelled timers cost their owners when scheduled, but must not let them pile up unpaid
/// work on one later block. The timer and delivery caps per block and the mailbox capacity are
/// chain parameters (`drover_types::chain_params`).
pub(crate) const TIMER_SLOTS_EXAMINED_PER_FIRE: u64 = 8;

/// Topic of the event a deploy emits (address: the new actor, data: its code hash).
pub const DEPLOY_EVENT_TOPIC: &str = "deploy";
/// Topic of the event an upgrade emits (address: the actor, data: its new code hash).
pub(crate) const UPGRADE_EVENT_TOPIC: &str = "upgrade";

/// Receipt fields that follow from an outcome: status, revert reason, error.
pub(crate) fn status_of(outcome: &Outcome) -> (TxStatus, Option<String>, Option<ExecError>) {
    let status = match outcome.status {
        Status::Success => TxStatus::Success,
        Status::Revert { .. } => TxStatus::Reverted,
        Status::Trap(_) => TxStatus::Failed,
    };
    let reason = match &outcome.status {
        Status::Revert { reason } => Some(String::from_utf8_lossy(reason).into_owned()),
        _ => None,
    };
    (status, reason, outcome.error())
}

/// What one actor transaction did, before its fee is charged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Work {
    pub(crate) status: TxStatus,
    /// Cycles and cells metered beyond the intrinsic cost.
    pub(crate) cycles_used: u64,
    pub(crate) cells_used: u64,
    pub(crate) revert_reason: Option<String>,
    pub(crate) error: Option<ExecError>,
}

impl Work {
    pub(crate) fn success() -> Self {
        Work { status: TxStatus::Success, cycles_used: 0, cells_used: 0, revert_reason: None, error: None }
    }

    /// A failure found before anything ran (the intrinsic cost is still paid).
    pub(crate) fn failed(error: ExecError) -> Self {
        Work { status: TxStatus::Failed, error: Some(error), ..Work::success() }
    }

    pub(crate) fn from_outcome(outcome: &Outcome) -> Self {
        let (status, revert_reason, error) = status_of(outcome);
        Work { status, cycles_used: outcome.cycles_used, cells_used: outcome.cells_used, revert_reason, error }
    }
}

/// Fails with the reason if the host met an unreadable state or a corrupt record.
pub(crate) fn settled<S: crate::StateRead>(
    host: &mut host::ActorHost<'_, '_, S>,
) -> Result<(), crate::overlay::ReadError> {
    host.fatal.take().map_or(Ok(()), Err)
}
