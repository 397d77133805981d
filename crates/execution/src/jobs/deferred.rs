//! The dispatcher's part of a block's deferred work: deadlines and assignment retries.
//!
//! Both are entries due at a height (`drover_state::job`), walked in key order — by height,
//! then in scheduling order — from where the previous block stopped, like timers. A block
//! examines at most [`MAX_DUE_ENTRIES_PER_BLOCK`] entries (each height it moves on to counting
//! as one) and only while the due entries' share of the deferred budget admits the next one at
//! its most expensive ([`DUE_ENTRY_CYCLES_LIMIT`] cycles, 16,384 cells; [`Deferred::admit`]);
//! the rest wait, in order, for the next block. An entry whose job has moved on (assigned,
//! ended) costs one lookup and is dropped.
//!
//! A deadline fails a job that has no verdict yet ([`settle`](super::settle)); the `submit`
//! paid for it, so it burns nothing here. A retry tries a pending job's assignment again with a
//! fresh seed (this block's parent) and, if it fails again, schedules the next retry twice as
//! far away. The submitter pays each retry like an owner pays its timer: its meter holds the
//! most the attempt can use (`RETRY_READ_CYCLES + attempt_cycles(runners)` cycles and the entry's
//! 16,384 cells), the submitter must hold that meter's whole price at this block's basefees,
//! and the fee for what it used is burned — also when the attempt fails (a meter exhausted, a
//! corrupt record) and its work is undone, since the block did that work. A submitter that
//! cannot pay has its job wait for its deadline without further retries. Both count against
//! the block's deferred budget.

use super::{assign, read, schedule_retry, settle, write};
use crate::charge::cost;
use crate::deferred::{Budget, Deferred, Queue};
use crate::native::{Meter, NativeHost};
use drover_state::{
    decode_count,
    job::{DueCursor, DueEntry, JobRecord, due_count_key, due_cursor_key, due_key, job_key},
};
use drover_types::{
    H256,
    job::{DUE_ENTRY_CYCLES_LIMIT, JobStatus, RETRY_ENTRY_CELLS, RETRY_READ_CYCLES, SUBMIT_CYCLES, attempt_cycles},
};
use drover_vm::HostError;

/// Most due entries (deadlines and retries, acted on or dropped, and heights moved on to) one
/// block examines.
pub(crate) const MAX_DUE_ENTRIES_PER_BLOCK: usize = 128;

/// Walks the entries due at this block's height and before (see the module documentation).
/// Fails only when the host met a state it cannot read (kept in the host's fatal slot).
pub(crate) fn run<H: NativeHost>(host: &mut H, deferred: &mut Deferred) -> Result<(), HostError> {
    let height = host.env().height;
    let cursor = read(host, &due_cursor_key(), DueCursor::decode)?.unwrap_or(DueCursor { height, seq: 0 });
    let (mut at, mut seq) = (cursor.height, cursor.seq);
    let mut examined = 0;
    let stopped = 'heights: loop {
        let count = read(host, &due_count_key(at), decode_count)?.unwrap_or(0);
        while u64::from(seq) < count {
            let budget = if examined < MAX_DUE_ENTRIES_PER_BLOCK {
                deferred.admit(Queue::DueEntries, DUE_ENTRY_CYCLES_LIMIT)
            } else {
                None
            };
            let Some(budget) = budget else {
                break 'heights Some(DueCursor { height: at, seq });
            };
            examined += 1;
            let key = due_key(at, seq);
            let entry = read(host, &key, DueEntry::decode)?;
            write(host, &key, None);
            if let Some(entry) = entry {
                let ((cycles, cells), burned) = process(host, budget, entry);
                deferred.use_budget(Queue::DueEntries, cycles, cells, burned);
            }
            seq += 1;
        }
        write(host, &due_count_key(at), None);
        if at >= height {
            break None;
        }
        // The next height's count counts as an entry examined (as for timers: a cursor left far
        // behind cannot make one block walk every height since).
        if examined == MAX_DUE_ENTRIES_PER_BLOCK {
            break Some(DueCursor { height: at + 1, seq: 0 });
        }
        examined += 1;
        at += 1;
        seq = 0;
    };
    write(host, &due_cursor_key(), stopped.map(|cursor| cursor.encode()));
    Ok(())
}

/// What a due entry asks for, once its job is read.
enum Work {
    /// Nothing: the job is gone or ended, or (a retry) no longer pending or its submitter
    /// cannot pay.
    Nothing,
    /// Failing the job at its deadline.
    Deadline(JobRecord),
    /// Assignment attempt `retry`, whose submitter holds `max_fee`, the price of `meter`.
    Retry { record: JobRecord, retry: u32, meter: Meter, max_fee: u128 },
}

/// Acts on one due entry within `budget`; answers the `(cycles, cells)` it used and the fee it
/// burned. A refusal here (a corrupt record, a meter exhausted) must not stop the chain: the
/// entry's work is undone and dropped alike on every validator (a read failure is in the
/// host's fatal slot and ends the block), and a retry's submitter still pays what it used.
fn process<H: NativeHost>(host: &mut H, budget: Budget, entry: DueEntry) -> ((u64, u64), u128) {
    let saved = host.save();
    let work = match prepare(host, budget, &entry) {
        Ok(work) => work,
        Err(_) => {
            host.restore(saved);
            return ((0, 0), 0);
        }
    };
    match work {
        Work::Nothing => ((0, 0), 0),
        Work::Deadline(record) => {
            let mut meter = Meter::new(budget.cycles, budget.cells);
            let settled = meter
                .charge(SUBMIT_CYCLES, 0, "settling a job at its deadline")
                .and_then(|()| settle::settle(host, &entry.job, record, settle::Ending::Failed, &[]));
            if settled.is_err() {
                host.restore(saved);
            }
            (meter.used(), 0)
        }
        Work::Retry { record, retry, mut meter, max_fee } => {
            let submitter = record.submitter;
            let attempted = meter
                .charge(RETRY_READ_CYCLES, 0, "reading a retried job")
                .and_then(|()| attempt(host, &mut meter, &entry.job, record, retry));
            if attempted.is_err() {
                host.restore(saved);
            }
            let (cycles, cells) = meter.used();
            let basefees = host.basefees();
            // Used ≤ the meter, so the fee is at most what the submitter was found to hold
            // (and still holds: an attempt moves none of its balance, and one undone is undone).
            let fee = cost(cycles, cells, basefees.cycle, basefees.cell).unwrap_or(max_fee).min(max_fee);
            if host.burn(&submitter, fee).is_err() {
                host.restore(saved);
                return ((cycles, cells), 0);
            }
            ((cycles, cells), fee)
        }
    }
}

/// Reads what `entry` asks for (see [`Work`]); a retry's meter and price follow from its job.
fn prepare<H: NativeHost>(host: &mut H, budget: Budget, entry: &DueEntry) -> Result<Work, HostError> {
    let Some(record) = read(host, &job_key(&entry.job), JobRecord::decode)? else {
        return Ok(Work::Nothing);
    };
    if record.status.is_final() {
        return Ok(Work::Nothing);
    }
    if entry.retry == 0 {
        return Ok(Work::Deadline(record));
    }
    if record.status != JobStatus::Pending {
        return Ok(Work::Nothing);
    }
    let attempt = attempt_cycles(record.runners);
    let meter = Meter::new(RETRY_READ_CYCLES.saturating_add(attempt).min(budget.cycles), budget.cells);
    let (cycles, cells) = meter.limits();
    let basefees = host.basefees();
    let balance = host.balance_of(&record.submitter)?;
    Ok(match cost(cycles, cells, basefees.cycle, basefees.cell).filter(|fee| *fee <= balance) {
        Some(max_fee) => Work::Retry { record, retry: entry.retry, meter, max_fee },
        None => Work::Nothing,
    })
}

/// Assignment attempt `retry` of the pending job `job`; schedules the next one if it fails.
fn attempt<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job: &H256,
    mut record: JobRecord,
    retry: u32,
) -> Result<(), HostError> {
    let height = host.env().height;
    if assign::assign(host, meter, job, &mut record)? {
        write(host, &job_key(job), Some(record.encode()));
    } else {
        meter.charge(0, RETRY_ENTRY_CELLS, "scheduling the next retry")?;
        schedule_retry(host, job, &record, height, retry.saturating_add(1))?;
    }
    Ok(())
}
