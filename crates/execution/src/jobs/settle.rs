//! Deciding a job from its results and settling it: payments, reputations, the callback and
//! the refund.
//!
//! Verification compares results byte for byte: `none` decides on the first result,
//! `majority` when `threshold` results are equal (and fails as soon as the results left cannot
//! reach it), `unanimous` when every runner answered the same (and fails at the first
//! difference). At the deadline a job without a verdict fails.
//!
//! Settling is bounded by the job's runners (at most 16 records): each assigned runner's active
//! job count drops and its marker goes; on `completed`, runners whose result equals the verdict
//! are paid their price and gain reputation, runners whose result differs lose reputation, and
//! runners that had not answered yet (beaten to it) are neither paid nor blamed; on `failed`,
//! runners that never answered lose reputation (less than for a wrong result) and nobody is
//! paid; on `cancelled`, runners that answered are paid. A completed or failed job of an actor with a callback has
//! `{job_id, status, result}` queued to its handler with the reserved budget; if it cannot be
//! queued (mailbox full) the reserve is refunded with the rest.

use super::{emit, read, write};
use crate::native::{Meter, NativeHost};
use crate::runners::rewards;
use drover_state::{
    job::{JobRecord, ResultRecord, Verdict, assigned_key, job_key, result_key},
    runner::{RunnerRecord, runner_key},
};
use drover_types::job::{EVENT_ENDED, EVENT_PAID, EVENT_REFUNDED};
use drover_types::{
    H256,
    job::{JOB_DISPATCHER_ADDRESS, JobStatus, RESULT_READ_CYCLES_PER_BYTE, VerificationMode, callback_payload},
    keccak256,
    runner::RUNNER_REGISTRY_ADDRESS,
};
use drover_vm::{HostError, OutgoingMessage};
use std::collections::BTreeMap;

/// How a job ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// A verdict.
    Completed(Verdict),
    /// No verdict: the deadline passed or the results cannot reach one.
    Failed,
    /// Its submitter ended it.
    Cancelled,
}

/// Whether the job's results decide it now: `Some(Completed)` with the verdict, `Some(Failed)`
/// when no verdict is possible any more, `None` to wait for more results. Answers the results
/// read, for [`settle`]. Reading and hashing them is charged per byte on `meter` (a job holds up
/// to 16 results of 16 KiB): the work is linear in their bytes, results being grouped by hash
/// rather than compared pairwise.
pub(crate) fn decide<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job: &H256,
    record: &JobRecord,
) -> Result<(Option<Ending>, Vec<ResultRecord>), HostError> {
    let mut results = Vec::with_capacity(record.assigned.len());
    // Per distinct result: how many runners gave it, and its first index.
    let mut groups: BTreeMap<H256, (u64, u8)> = BTreeMap::new();
    for index in 0..record.results_count {
        let index = u8::try_from(index).map_err(|_| HostError::internal("too many results"))?;
        let stored = read(host, &result_key(job, index), ResultRecord::decode)?
            .ok_or_else(|| HostError::internal(format!("job {job}: result {index} is missing")))?;
        let bytes = stored.result.len() as u64;
        meter.charge(bytes.saturating_mul(RESULT_READ_CYCLES_PER_BYTE), 0, "reading a job's results")?;
        groups.entry(keccak256(&stored.result)).or_insert((0, index)).0 += 1;
        results.push(stored);
    }
    // The largest group, the earliest on a tie.
    let (best, best_index) =
        groups.values().copied().max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1))).unwrap_or((0, 0));
    let answered = results.len() as u64;
    let waiting = record.runners.saturating_sub(answered);
    let verdict = Ending::Completed(Verdict { result: best_index, consensus_count: best });
    let ending = match record.mode {
        VerificationMode::None => (answered > 0).then_some(verdict),
        VerificationMode::Majority if best >= record.threshold => Some(verdict),
        VerificationMode::Majority => (best + waiting < record.threshold).then_some(Ending::Failed),
        VerificationMode::Unanimous if best < answered => Some(Ending::Failed),
        VerificationMode::Unanimous => (waiting == 0).then_some(verdict),
    };
    Ok((ending, results))
}

/// Ends `job` (record `record`) with `ending` (see the module documentation) and saves it.
/// `results` are the job's results as [`decide`] read them; only a completed job needs them
/// (to compare each with the verdict), so a deadline or a cancel reads none.
pub(crate) fn settle<H: NativeHost>(
    host: &mut H,
    job: &H256,
    mut record: JobRecord,
    ending: Ending,
    results: &[ResultRecord],
) -> Result<(), HostError> {
    let verdict = match ending {
        Ending::Completed(verdict) => {
            let result = results.get(usize::from(verdict.result)).ok_or_else(|| HostError::internal("no verdict"))?;
            Some(result.result.clone())
        }
        _ => None,
    };
    let params = host.params();
    for assignment in record.assigned.clone() {
        let key = runner_key(&assignment.runner);
        let mut runner = host
            .read_storage(&RUNNER_REGISTRY_ADDRESS, &key, RunnerRecord::decode)?
            .ok_or_else(|| HostError::internal(format!("assigned runner {} has no record", assignment.runner)))?;
        runner.active_jobs = runner.active_jobs.saturating_sub(1);
        let answered = assignment.result.is_some();
        let answer = assignment.result.and_then(|i| results.get(usize::from(i))).map(|r| &r.result);
        let paid = match ending {
            Ending::Completed(_) if answered && answer == verdict.as_ref() => {
                runner.reputation = runner.reputation.saturating_add(params.reputation_gain).min(100);
                true
            }
            Ending::Completed(_) if answered => {
                runner.reputation = runner.reputation.saturating_sub(params.reputation_loss_wrong);
                false
            }
            // Beaten to it by the runners that decided the job: neither paid nor blamed.
            Ending::Completed(_) => false,
            Ending::Failed if !answered => {
                runner.reputation = runner.reputation.saturating_sub(params.reputation_loss_silent);
                false
            }
            Ending::Failed => false,
            Ending::Cancelled => answered,
        };
        if paid {
            record.escrow = record
                .escrow
                .checked_sub(assignment.price)
                .ok_or_else(|| HostError::internal(format!("job {job}: escrow below its payments")))?;
            rewards::pay(host, &assignment.runner, &mut runner, assignment.price)?;
            emit(host, EVENT_PAID, |w| {
                w.array(3).bytes(&job.0).bytes(&assignment.runner.0).u128(assignment.price);
            });
        }
        host.write_storage(&RUNNER_REGISTRY_ADDRESS, &key, Some(runner.encode()));
        if assignment.result.is_none() {
            write(host, &assigned_key(job, &assignment.runner), None);
        }
    }
    let status = match ending {
        Ending::Completed(verdict) => {
            record.verdict = Some(verdict);
            JobStatus::Completed
        }
        Ending::Failed => JobStatus::Failed,
        Ending::Cancelled => JobStatus::Cancelled,
    };
    if let (Some(callback), false) = (&record.callback, status == JobStatus::Cancelled) {
        let message = OutgoingMessage {
            from: JOB_DISPATCHER_ADDRESS,
            to: record.submitter,
            handler: callback.handler.clone(),
            payload: callback_payload(job, status, verdict.as_deref().unwrap_or_default()),
            value: 0,
            cycles_limit: callback.cycles,
        };
        let basefees = drover_state::Basefees { cycle: record.basefee_cycle, cell: record.basefee_cell };
        let saved = host.save();
        match host.enqueue(message, basefees) {
            // The delivery was bought at these basefees: exactly the reserve.
            Ok(()) => record.escrow = record.escrow.saturating_sub(record.callback_reserve),
            Err(_) => host.restore(saved),
        }
    }
    let refund = std::mem::take(&mut record.escrow);
    host.move_value(&JOB_DISPATCHER_ADDRESS, &record.submitter, refund)?;
    let submitter = record.submitter;
    emit(host, EVENT_REFUNDED, |w| {
        w.array(3).bytes(&job.0).bytes(&submitter.0).u128(refund);
    });
    record.status = status;
    record.finished_height = Some(host.env().height);
    write(host, &job_key(job), Some(record.encode()));
    emit(host, EVENT_ENDED, |w| {
        w.array(2).bytes(&job.0).text(status.as_str());
    });
    Ok(())
}
