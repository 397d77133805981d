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
//!   entries each run within their share of the targets ([`Deferred`]), at least their head
//!   every block.
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

use drover_types::{
    Address, Event, ExecError, FeeBreakdown, TxStatus,
    params::{DEFERRED_SHARE_PARTS, DELIVERY_SHARE_PARTS, DUE_ENTRY_SHARE_PARTS, TIMER_SHARE_PARTS},
};
use drover_vm::{Outcome, Status};

/// Cells budget of one timer fire, one mailbox delivery or one job due entry (bytes it may
/// write).
pub(crate) use drover_types::params::SYSTEM_RUN_CELLS_LIMIT;
/// Timer slots a block examines per timer it may fire (the chain parameter
/// `max_timer_fires_per_block`), fired or found cancelled, each height moved on to counting as
/// one: cancelled timers cost their owners when scheduled, but must not let them pile up unpaid
/// work on one later block. The timer and delivery caps per block and the mailbox capacity are
/// chain parameters (`drover_types::governance`).
pub(crate) const TIMER_SLOTS_EXAMINED_PER_FIRE: u64 = 8;

/// Topic of the event a deploy emits (address: the new actor, data: its code hash).
pub const DEPLOY_EVENT_TOPIC: &str = "deploy";
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

/// The three queues of deferred work, in the order a block runs them, each with its share of
/// the block's deferred budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Queue {
    /// Due timers.
    Timers,
    /// Mailbox deliveries (messages and job callbacks).
    Deliveries,
    /// The jobs' deadlines and assignment retries.
    DueEntries,
}

impl Queue {
    /// Every queue, in the order a block runs them.
    const ALL: [Queue; 3] = [Queue::Timers, Queue::Deliveries, Queue::DueEntries];

    /// Its parts of the deferred budget (of [`DEFERRED_SHARE_PARTS`]).
    fn parts(self) -> u64 {
        match self {
            Queue::Timers => TIMER_SHARE_PARTS,
            Queue::Deliveries => DELIVERY_SHARE_PARTS,
            Queue::DueEntries => DUE_ENTRY_SHARE_PARTS,
        }
    }

    /// Its position in [`Queue::ALL`].
    fn index(self) -> usize {
        self as usize
    }
}

/// The budget one deferred entry runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
    pub(crate) cycles: u64,
    pub(crate) cells: u64,
}

/// What the block's deferred work may still use and has used. Timers, deliveries and due
/// entries each have a share of each meter's target ([`DEFERRED_SHARE_PARTS`]: a quarter, a
/// half and a quarter) that the others cannot take; a queue may also use what the queues run
/// before it left of theirs in this block. So the deferred work uses at most the targets (user
/// transactions always keep the other half of the block limit), an idle queue lends its share
/// to the next, and no queue's traffic stops another's.
///
/// An entry runs when its reservation (its cycles and [`SYSTEM_RUN_CELLS_LIMIT`] cells) fits
/// what its queue has left; otherwise its queue waits for the next block, which starts every
/// share afresh. The bounds of the chain parameters make every entry accepted under them fit
/// an untouched share (`drover_types::governance`); an entry accepted under larger values,
/// before a vote lowered them (or under a genesis outside the bounds), runs when it is first in
/// its queue in the block, its budget cut to what the queue has. So each queue runs at least
/// its head every block, and never more than it has.
pub(crate) struct Deferred {
    /// Each queue's own `(cycles, cells)`, in [`Queue::ALL`] order.
    shares: [(u64, u64); 3],
    /// What each queue has used, likewise.
    used: [(u64, u64); 3],
    pub(crate) cycles_used: u64,
    pub(crate) cells_used: u64,
    pub(crate) burned: u128,
    pub(crate) runs: Vec<SystemRun>,
}

impl Deferred {
    pub(crate) fn new(params: &crate::FeeParams) -> Self {
        let part = |target: u64, queue: Queue| {
            let share = u128::from(target) * u128::from(queue.parts()) / u128::from(DEFERRED_SHARE_PARTS);
            u64::try_from(share).unwrap_or(target)
        };
        Deferred {
            shares: Queue::ALL.map(|queue| (part(params.target_cycles, queue), part(params.target_cells, queue))),
            used: [(0, 0); 3],
            cycles_used: 0,
            cells_used: 0,
            burned: 0,
            runs: Vec::new(),
        }
    }

    /// What `queue` has left: its share and those of the queues before it, less what they
    /// all used (the queues before it are done when it runs).
    fn left(&self, queue: Queue) -> (u64, u64) {
        let upto = queue.index() + 1;
        let sum = |pairs: &[(u64, u64)]| {
            pairs
                .iter()
                .fold((0u64, 0u64), |(c, k), (cycles, cells)| (c.saturating_add(*cycles), k.saturating_add(*cells)))
        };
        let (shares, used) = (sum(&self.shares[..upto]), sum(&self.used[..upto]));
        (shares.0.saturating_sub(used.0), shares.1.saturating_sub(used.1))
    }

    /// The budget an entry of `queue` reserving `cycles` (and [`SYSTEM_RUN_CELLS_LIMIT`] cells)
    /// runs with now, or `None` if its queue must wait for the next block (see [`Deferred`]).
    pub(crate) fn admit(&self, queue: Queue, cycles: u64) -> Option<Budget> {
        let (cycles_left, cells_left) = self.left(queue);
        if cycles <= cycles_left && SYSTEM_RUN_CELLS_LIMIT <= cells_left {
            return Some(Budget { cycles, cells: SYSTEM_RUN_CELLS_LIMIT });
        }
        let first = self.used[queue.index()] == (0, 0);
        first.then(|| Budget { cycles: cycles.min(cycles_left), cells: SYSTEM_RUN_CELLS_LIMIT.min(cells_left) })
    }

    /// Counts work of `queue` done outside a [`SystemRun`] (a job's deadline or assignment
    /// retry) whose fee `burned` was just burned (zero for work paid for when it was asked for).
    pub(crate) fn use_budget(&mut self, queue: Queue, cycles: u64, cells: u64, burned: u128) {
        let used = &mut self.used[queue.index()];
        *used = (used.0.saturating_add(cycles), used.1.saturating_add(cells));
        self.cycles_used = self.cycles_used.saturating_add(cycles);
        self.cells_used = self.cells_used.saturating_add(cells);
        self.burned = self.burned.saturating_add(burned);
    }

    pub(crate) fn record(&mut self, run: SystemRun) {
        let queue = match run.kind {
            SystemRunKind::Timer { .. } => Queue::Timers,
            SystemRunKind::Delivery { .. } => Queue::Deliveries,
        };
        self.use_budget(queue, run.cycles_used, run.cells_used, run.fee.burned);
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
