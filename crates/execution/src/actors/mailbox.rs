//! Delivering mailbox messages at the start of a block, after the due timers.
//!
//! Messages are delivered in the order they were sent (one global queue, so FIFO per actor
//! too), at most `max_deliveries_per_block` per block (a chain parameter) and only while the
//! deliveries' share of the deferred budget admits the next message ([`Deferred::admit`]); the
//! rest wait for the next block. A message sent in this block is never delivered in it:
//! deliveries run before transactions.
//!
//! Exactly once: a message's records are deleted in the writes of the block that delivers it,
//! whatever the delivery's outcome. The delivery runs with the budget the sender bought when it
//! sent the message (`cycles_limit` and [`SYSTEM_RUN_CELLS_LIMIT`](drover_types::params::SYSTEM_RUN_CELLS_LIMIT)
//! cells, priced at the sending block's basefees and held since; cut to the share if it was
//! bought under larger limits): the fee for what it used is burned and the rest goes back to
//! the sender. The escrowed value goes to the recipient if the handler succeeds and back to
//! the sender otherwise. A job's callback is sent by the dispatcher but bought from the job's
//! escrow, which is the recipient's (the submitter's): its unused budget goes to the recipient.

use super::{
    host::{ActorHost, corrupt},
    settled, status_of,
};
use crate::charge::cost;
use crate::deferred::{Budget, Deferred, Queue, SystemRun, SystemRunKind};
use crate::{BlockEnv, StateRead, overlay::ReadError};
use drover_state::{MailQueue, MessageRecord, keys};
use drover_types::{FeeBreakdown, TxStatus, job::JOB_DISPATCHER_ADDRESS};
use drover_vm::{CallContext, CallRequest};

/// Delivers the messages due in this block (see the module documentation).
pub(crate) fn deliver<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    deferred: &mut Deferred,
) -> Result<(), ReadError> {
    let queue_key = keys::mail_queue_key();
    let Some(queue) = host.overlay.record(&queue_key, MailQueue::decode)? else {
        return Ok(());
    };
    // Messages that deliveries send in this block (at `queue.tail` and beyond) wait for the next.
    let end = queue.tail.min(queue.head.saturating_add(host.params.max_deliveries_per_block));
    for seq in queue.head..end {
        let key = keys::message_key(seq);
        let message = host
            .overlay
            .record(&key, MessageRecord::decode)?
            .ok_or_else(|| ReadError::Corrupt(corrupt(key, "a queued message is missing")))?;
        let Some(budget) = deferred.admit(Queue::Deliveries, message.cycles_limit) else {
            break;
        };
        // Re-read: the previous delivery may have queued messages (moving the tail).
        let mut current = host.overlay.record(&queue_key, MailQueue::decode)?.unwrap_or(queue);
        current.head = seq + 1;
        host.overlay.put(queue_key.clone(), Some(current.encode()));
        deliver_one(host, env, seq, message, budget, deferred)?;
    }
    Ok(())
}

fn deliver_one<S: StateRead>(
    host: &mut ActorHost<'_, '_, S>,
    env: &BlockEnv,
    seq: u64,
    message: MessageRecord,
    budget: Budget,
    deferred: &mut Deferred,
) -> Result<(), ReadError> {
    let from = message.from;
    let account_fault = |e: drover_vm::HostError| ReadError::Corrupt(corrupt(keys::account_key(&from), e.to_string()));
    let forgotten = host.forget_message(seq, &message);
    settled(host)?;
    forgotten.map_err(account_fault)?;
    // The escrowed value goes back to the sender, and the call moves it on to the recipient
    // (and back again if the handler does not succeed).
    let returned = host.credit(&from, message.value);
    settled(host)?;
    returned.map_err(account_fault)?;
    host.events.clear();
    let outcome = host.run(CallRequest {
        context: CallContext {
            self_address: message.to,
            caller: from,
            origin: from,
            block_height: env.height,
            timestamp_ms: env.timestamp_ms,
            value: message.value,
            depth: 0,
        },
        handler: message.handler.clone(),
        payload: message.payload,
        cycles_limit: budget.cycles,
        cells_limit: budget.cells,
        read_only: false,
    });
    settled(host)?;
    // Used ≤ the budget, priced as when it was bought: at most what was prepaid.
    let fee = cost(outcome.cycles_used, outcome.cells_used, message.basefee_cycle, message.basefee_cell)
        .unwrap_or(message.prepaid)
        .min(message.prepaid);
    let refund_to = if from == JOB_DISPATCHER_ADDRESS { message.to } else { from };
    let refunded = host.credit(&refund_to, message.prepaid - fee);
    settled(host)?;
    refunded.map_err(account_fault)?;
    let (status, revert_reason, error) = status_of(&outcome);
    deferred.record(SystemRun {
        kind: SystemRunKind::Delivery { seq, from },
        actor: message.to,
        handler: message.handler,
        status,
        cycles_used: outcome.cycles_used,
        cells_used: outcome.cells_used,
        fee: FeeBreakdown { burned: fee, tip: 0 },
        events: if status == TxStatus::Success { std::mem::take(&mut host.events) } else { Vec::new() },
        revert_reason,
        error,
    });
    Ok(())
}
