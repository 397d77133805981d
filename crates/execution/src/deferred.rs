//! Scheduling the work a block does before its transactions: due timers, mailbox deliveries and
//! the jobs' due entries (deadlines and assignment retries), each a queue with its share of the
//! block's deferred budget ([`Deferred`]), and what each run reports ([`SystemRun`]).
//!
//! This module only keeps the accounts: which budget an entry runs with, what each queue has
//! used, what was burned. The queues themselves are walked by their owners
//! (`crate::actors::timers`, `crate::actors::mailbox`, `crate::jobs::deferred`), in the order
//! the block runs them (`crate::block`), so none of them depends on another.
//!
//! Invariant: deferred work is bounded per block and never wedged. Each queue runs within its
//! share of the targets (plus what the queues before it left), so the deferred work uses at most
//! the targets and transactions keep the other half of the block limit; each queue runs at least
//! its head every block.

use drover_types::{
    Address, Event, ExecError, FeeBreakdown, TxStatus,
    params::{
        DEFERRED_SHARE_PARTS, DELIVERY_SHARE_PARTS, DUE_ENTRY_SHARE_PARTS, SYSTEM_RUN_CELLS_LIMIT, TIMER_SHARE_PARTS,
    },
};

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
/// an untouched share (`drover_types::chain_params`); an entry accepted under larger values,
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
