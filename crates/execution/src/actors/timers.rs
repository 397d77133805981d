//! Firing due timers at the start of a block, before mailbox deliveries and transactions.
//!
//! Timers fire in key order — by height, then by scheduling order within a height (FIFO) —
//! starting where the previous block stopped ([`TimerCursor`]; absent: at this block's height).
//! A block fires at most `max_timer_fires_per_block` timers (a chain parameter), examines at
//! most [`TIMER_SLOTS_EXAMINED_PER_FIRE`] times as many slots (cancelled ones, and each height
//! it moves on to, included, so that timers scheduled and cancelled over many blocks, or a
//! cursor left behind by a long backlog, cannot load one block with unpaid lookups), and
//! fires only while the timers' share of the deferred budget admits the next timer
//! ([`Deferred::admit`]); the rest wait, in order, for the next block, and the cursor records
//! where.
//!
//! Each timer is removed before it runs (it fires once, whatever happens). Its owner pays: the
//! maximum fee of the budget it runs with (`cycles_limit × basefee_cycle +
//! SYSTEM_RUN_CELLS_LIMIT × basefee_cell`, less if its budget was cut to the share) is held from
//! the owner's balance, the handler runs, the fee for what it used is burned and the rest
//! returned. An owner that cannot hold the maximum fee has its timer dropped, recorded as a
//! [`SystemRun`] with status failed and E1503.

use super::{TIMER_SLOTS_EXAMINED_PER_FIRE, host::ActorHost, settled, status_of};
use crate::charge::cost;
use crate::deferred::{Budget, Deferred, Queue, SystemRun, SystemRunKind};
use crate::{BlockEnv, StateRead, overlay::ReadError};
use drover_state::{TimerCursor, TimerRecord, decode_count, keys, timer::timer_id};
use drover_types::{ExecError, FeeBreakdown, TxStatus, exec_error::ExecCode};
use drover_vm::{CallContext, CallRequest};

/// Fires the due timers (see the module documentation).
pub(crate) fn fire_due<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    deferred: &mut Deferred,
) -> Result<(), ReadError> {
    let cursor_key = keys::timer_cursor_key();
    let cursor =
        host.overlay.record(&cursor_key, TimerCursor::decode)?.unwrap_or(TimerCursor { height: env.height, seq: 0 });
    let (mut height, mut seq) = (cursor.height, cursor.seq);
    let max_fires = host.params.max_timer_fires_per_block;
    let max_examined = max_fires.saturating_mul(TIMER_SLOTS_EXAMINED_PER_FIRE);
    let (mut fired, mut examined) = (0u64, 0u64);
    let stopped_at = 'heights: loop {
        let slot_key = keys::timer_slot_key(height);
        let count = host.overlay.record(&slot_key, decode_count)?.unwrap_or(0);
        while u64::from(seq) < count {
            if examined == max_examined {
                break 'heights Some(TimerCursor { height, seq });
            }
            examined += 1;
            let timer_key = keys::timer_key(height, seq);
            let Some(timer) = host.overlay.record(&timer_key, TimerRecord::decode)? else {
                // Cancelled.
                seq += 1;
                continue;
            };
            let budget = if fired < max_fires { deferred.admit(Queue::Timers, timer.cycles_limit) } else { None };
            let Some(budget) = budget else {
                break 'heights Some(TimerCursor { height, seq });
            };
            fire(host, env, (height, seq), timer, budget, deferred)?;
            seq += 1;
            fired += 1;
        }
        // Nothing can be scheduled at or below the current height: the count is done with.
        host.overlay.put(slot_key, None);
        if height >= env.height {
            break None;
        }
        // The next height's count is a slot examined too, so that a cursor left far behind
        // (a backlog at one height that took many blocks) cannot make one block walk every
        // height since.
        if examined == max_examined {
            break Some(TimerCursor { height: height + 1, seq: 0 });
        }
        examined += 1;
        height += 1;
        seq = 0;
    };
    host.overlay.put(cursor_key, stopped_at.map(|cursor| cursor.encode()));
    Ok(())
}

/// Fires timer `seq` of `height` with `budget` (what the deferred budget admitted).
fn fire<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    (height, seq): (u64, u32),
    timer: TimerRecord,
    budget: Budget,
    deferred: &mut Deferred,
) -> Result<(), ReadError> {
    let owner = timer.owner;
    // Scheduling refused heights that do not fit, so every stored timer has an id.
    let id = timer_id(height, seq).unwrap_or(u64::MAX);
    let forgotten = host.forget_timer(height, seq, &owner);
    settled(host)?;
    let mut run = SystemRun {
        kind: SystemRunKind::Timer { id },
        actor: owner,
        handler: timer.handler.clone(),
        status: TxStatus::Failed,
        cycles_used: 0,
        cells_used: 0,
        fee: FeeBreakdown::default(),
        events: Vec::new(),
        revert_reason: None,
        error: None,
    };
    let basefees = host.basefees;
    let max_fee = cost(budget.cycles, budget.cells, basefees.cycle, basefees.cell);
    let balance = host.overlay.account(owner)?.balance;
    let held = match (forgotten, max_fee) {
        (Ok(()), Some(max_fee)) if max_fee <= balance => host.debit(&owner, max_fee).map(|()| max_fee),
        (Ok(()), _) => {
            run.error = Some(ExecError::new(
                ExecCode::TimerUnpaid,
                format!(
                    "timer {id} dropped: its owner holds {balance}, its maximum fee is {}",
                    max_fee.map_or_else(|| "above 2^128".to_owned(), |fee| fee.to_string())
                ),
            ));
            deferred.record(run);
            return Ok(());
        }
        (Err(e), _) => Err(e),
    };
    settled(host)?;
    let held = match held {
        Ok(held) => held,
        Err(e) => {
            run.error = Some(e.into());
            deferred.record(run);
            return Ok(());
        }
    };
    host.events.clear();
    let outcome = host.run(CallRequest {
        context: CallContext {
            self_address: owner,
            caller: owner,
            origin: owner,
            block_height: env.height,
            timestamp_ms: env.timestamp_ms,
            value: 0,
            depth: 0,
        },
        handler: timer.handler,
        payload: timer.payload,
        cycles_limit: budget.cycles,
        cells_limit: budget.cells,
        read_only: false,
    });
    // Used ≤ the limits, so the fee is at most what was held.
    let fee = cost(outcome.cycles_used, outcome.cells_used, basefees.cycle, basefees.cell).unwrap_or(held).min(held);
    let refunded = host.credit(&owner, held - fee);
    settled(host)?;
    if let Err(e) = refunded {
        return Err(ReadError::Corrupt(super::host::corrupt(keys::account_key(&owner), e.to_string())));
    }
    let (status, revert_reason, error) = status_of(&outcome);
    run.status = status;
    run.revert_reason = revert_reason;
    run.error = error;
    run.cycles_used = outcome.cycles_used;
    run.cells_used = outcome.cells_used;
    run.fee = FeeBreakdown { burned: fee, tip: 0 };
    run.events = std::mem::take(&mut host.events);
    deferred.record(run);
    Ok(())
}
