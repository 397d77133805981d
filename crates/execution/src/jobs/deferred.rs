//! The dispatcher's part of a block's deferred work: deadlines and assignment retries.
//!
//! Both are entries due at a height (`drover_state::job`), walked in key order — by height,
//! then in scheduling order — from where the previous block stopped, like timers. A block
//! examines at most [`MAX_DUE_ENTRIES_PER_BLOCK`] entries and only while the due entries' share
//! of the deferred budget admits the next one at its most expensive
//! ([`DUE_ENTRY_CYCLES_LIMIT`] cycles, 16,384 cells; [`Deferred::admit`]); the rest wait, in
//! order, for the next block. An entry whose job has moved on (assigned, ended) costs one
//! lookup and is dropped.
//!
//! A deadline fails a job that has no verdict yet ([`settle`](super::settle)); the `submit`
//! paid for it, so it burns nothing here. A retry tries a pending job's assignment again with a
//! fresh seed (this block's parent) and, if it fails again, schedules the next retry twice as
//! far away. The submitter pays each retry like an owner pays its timer: it must hold the most
//! the attempt can cost (`runners × ATTEMPT_CYCLES_PER_RUNNER` cycles and the entry's cells at
//! this block's basefees), and the fee for what it used is burned; a submitter that cannot
//! pay has its job wait for its deadline without further retries. Both count against the
//! block's deferred budget.

use super::{assign, read, schedule_retry, settle, write};
use crate::actors::{Deferred, Queue, cost};
use crate::native::{Meter, NativeHost};
use drover_state::{
    decode_count,
    job::{DueCursor, DueEntry, JobRecord, due_count_key, due_cursor_key, due_key, job_key},
};
use drover_types::job::{
    ATTEMPT_CYCLES_PER_RUNNER, DUE_ENTRY_CYCLES_LIMIT, JobStatus, RETRY_ENTRY_CELLS, SUBMIT_CYCLES,
};
use drover_vm::HostError;

/// Most due entries (deadlines and retries, acted on or dropped) one block examines.
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
                let mut meter = Meter::new(budget.cycles, budget.cells);
                let saved = host.save();
                let burned = match process(host, &mut meter, entry) {
                    Ok(burned) => burned,
                    Err(_) => {
                        // A refusal here (a corrupt record, a meter exhausted) must not stop
                        // the chain: the entry's work is undone and dropped alike on every
                        // validator; a read failure is in the host's fatal slot and ends the
                        // block.
                        host.restore(saved);
                        0
                    }
                };
                let (cycles, cells) = meter.used();
                deferred.use_budget(Queue::DueEntries, cycles, cells, burned);
            }
            seq += 1;
        }
        write(host, &due_count_key(at), None);
        if at >= height {
            break None;
        }
        at += 1;
        seq = 0;
    };
    write(host, &due_cursor_key(), stopped.map(|cursor| cursor.encode()));
    Ok(())
}

/// Acts on one due entry; answers the fee it burned.
fn process<H: NativeHost>(host: &mut H, meter: &mut Meter, entry: DueEntry) -> Result<u128, HostError> {
    let DueEntry { job, retry } = entry;
    let Some(mut record) = read(host, &job_key(&job), JobRecord::decode)? else {
        return Ok(0);
    };
    if record.status.is_final() {
        return Ok(0);
    }
    if retry == 0 {
        meter.charge(SUBMIT_CYCLES, 0, "settling a job at its deadline")?;
        settle::settle(host, &job, record, settle::Ending::Failed, &[])?;
        return Ok(0);
    }
    if record.status != JobStatus::Pending {
        return Ok(0);
    }
    let basefees = host.basefees();
    let max_cycles = record.runners.saturating_mul(ATTEMPT_CYCLES_PER_RUNNER);
    let max_fee = cost(max_cycles, RETRY_ENTRY_CELLS, basefees.cycle, basefees.cell);
    let balance = host.balance_of(&record.submitter)?;
    let Some(max_fee) = max_fee.filter(|fee| *fee <= balance) else {
        return Ok(0);
    };
    let height = host.env().height;
    if assign::assign(host, meter, &job, &mut record)? {
        write(host, &job_key(&job), Some(record.encode()));
    } else {
        meter.charge(0, RETRY_ENTRY_CELLS, "scheduling the next retry")?;
        schedule_retry(host, &job, &record, height, retry.saturating_add(1))?;
    }
    let (cycles, cells) = meter.used();
    // Used ≤ the maximum, so the fee is at most what the submitter was found to hold.
    let fee = cost(cycles, cells, basefees.cycle, basefees.cell).unwrap_or(max_fee).min(max_fee);
    host.burn(&record.submitter, fee)?;
    Ok(fee)
}
