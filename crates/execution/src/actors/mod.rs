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
//! - Limits are named constants below; changing one is a consensus change.

pub(crate) mod call;
pub(crate) mod deploy;
pub(crate) mod host;
pub(crate) mod mailbox;
pub(crate) mod read;
#[cfg(test)]
mod tests;
pub(crate) mod timers;
pub(crate) mod upgrade;

use drover_types::{Address, Event, ExecError, FeeBreakdown, TxStatus};
use drover_vm::{Outcome, Status};

/// Cells budget of one timer fire or one mailbox delivery (bytes it may write).
pub(crate) const SYSTEM_RUN_CELLS_LIMIT: u64 = 16_384;
/// Timer slots a block examines per timer it may fire (the chain parameter
/// `max_timer_fires_per_block`), fired or found cancelled: cancelled timers cost their owners
/// when scheduled, but must not let them pile up unpaid work on one later block. The timer and
/// delivery caps per block and the mailbox capacity are chain parameters
/// (`drover_types::governance`).
pub(crate) const TIMER_SLOTS_EXAMINED_PER_FIRE: u64 = 8;

/// Topic of the event a deploy emits (address: the new actor, data: its code hash).
pub(crate) const DEPLOY_EVENT_TOPIC: &str = "deploy";
/// Topic of the event an upgrade emits (address: the actor, data: its new code hash).
pub(crate) const UPGRADE_EVENT_TOPIC: &str = "upgrade";

/// What ran outside any transaction: a timer fire or a mailbox delivery. Listed in
/// [`BlockOutcome::system_runs`](crate::BlockOutcome::system_runs) in execution order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemRun {
    /// Which timer fired or which message was delivered.
    pub kind: SystemRunKind,
    /// The actor whose handler ran (the timer's owner, the message's recipient).
    pub actor: Address,
    /// Name of the handler that ran.
    pub handler: String,
    /// `Success`, `Reverted`, or `Failed` (a trap, or a timer dropped unpaid: E1503).
    pub status: TxStatus,
    /// Cycles metered, within the run's budget.
    pub cycles_used: u64,
    /// Cells metered, within the run's budget of 16,384.
    pub cells_used: u64,
    /// Burned in full (no proposer tip: nobody bid for this work).
    pub fee: FeeBreakdown,
    /// Events of a successful run.
    pub events: Vec<Event>,
    /// Reason the handler gave when it reverted.
    pub revert_reason: Option<String>,
    /// The E-code of a run that did not succeed.
    pub error: Option<ExecError>,
}

/// Which deferred work a [`SystemRun`] was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemRunKind {
    /// Timer `id` (`height << 32 | seq`), paid by its owner.
    Timer {
        /// Id of the timer that fired.
        id: u64,
    },
    /// Message `seq` of the global queue from `from`, paid by the budget `from` bought.
    Delivery {
        /// The message's position in the global queue.
        seq: u64,
        /// The actor that sent the message.
        from: Address,
    },
}

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

/// What the block's deferred work may still use and has used. Timers and deliveries together
/// use at most each meter's target, so that user transactions always keep the other half of
/// the block limit.
pub(crate) struct Deferred {
    pub(crate) cycles_left: u64,
    pub(crate) cells_left: u64,
    pub(crate) cycles_used: u64,
    pub(crate) cells_used: u64,
    pub(crate) burned: u128,
    pub(crate) runs: Vec<SystemRun>,
}

impl Deferred {
    pub(crate) fn new(params: &crate::FeeParams) -> Self {
        Deferred {
            cycles_left: params.target_cycles,
            cells_left: params.target_cells,
            cycles_used: 0,
            cells_used: 0,
            burned: 0,
            runs: Vec::new(),
        }
    }

    /// Whether a run with a budget of `cycles` (and [`SYSTEM_RUN_CELLS_LIMIT`] cells) fits.
    pub(crate) fn fits(&self, cycles: u64) -> bool {
        cycles <= self.cycles_left && SYSTEM_RUN_CELLS_LIMIT <= self.cells_left
    }

    /// Counts work done outside a [`SystemRun`] (a job's deadline or assignment retry) whose
    /// fee `burned` was just burned (zero for work paid for when it was asked for).
    pub(crate) fn use_budget(&mut self, cycles: u64, cells: u64, burned: u128) {
        self.cycles_left = self.cycles_left.saturating_sub(cycles);
        self.cells_left = self.cells_left.saturating_sub(cells);
        self.cycles_used = self.cycles_used.saturating_add(cycles);
        self.cells_used = self.cells_used.saturating_add(cells);
        self.burned = self.burned.saturating_add(burned);
    }

    pub(crate) fn record(&mut self, run: SystemRun) {
        self.cycles_left = self.cycles_left.saturating_sub(run.cycles_used);
        self.cells_left = self.cells_left.saturating_sub(run.cells_used);
        self.cycles_used = self.cycles_used.saturating_add(run.cycles_used);
        self.cells_used = self.cells_used.saturating_add(run.cells_used);
        self.burned = self.burned.saturating_add(run.fee.burned);
        self.runs.push(run);
    }
}

/// `cycles × cycle price + cells × cell price`, or `None` on overflow.
pub(crate) fn cost(cycles: u64, cells: u64, cycle_price: u128, cell_price: u128) -> Option<u128> {
    u128::from(cycles).checked_mul(cycle_price)?.checked_add(u128::from(cells).checked_mul(cell_price)?)
}

/// Runs the block's deferred work on `host`: due timers, mailbox deliveries, then the jobs'
/// deadlines and assignment retries (whose events are not kept: their effects are in the job
/// records).
pub(crate) fn run_deferred<S: crate::StateRead>(
    host: &mut host::ActorHost<'_, '_, S>,
    env: &crate::BlockEnv,
    deferred: &mut Deferred,
) -> Result<(), crate::overlay::ReadError> {
    timers::fire_due(host, env, deferred)?;
    mailbox::deliver(host, env, deferred)?;
    let jobs = crate::jobs::deferred::run(host, deferred);
    settled(host)?;
    host.events.clear();
    jobs.map_err(|e| crate::overlay::ReadError::Corrupt(host::corrupt(Vec::new(), e.to_string())))
}
