//! The job dispatcher: the native system actor at [`JOB_DISPATCHER_ADDRESS`].
//!
//! Reached like the other system actors (a transaction's Message, or an actor's `call` and
//! `job_submit`, through `native::run`); the sender is the submitter or the runner. The
//! escrow of every job sits in the dispatcher's own account until the job ends.
//!
//! # Rules
//!
//! - `submit`: a spec within the rules (E1609), a callback only from an actor (E1617), an
//!   escrow (the value) of at least `runners × max_price` plus the callback's budget priced at
//!   this block's basefees (E1610). The job id is `keccak256(submitter ‖ seq_be8)`, returned as
//!   the call's result. It is assigned in the same call when enough eligible runners are drawn
//!   (`assign`); otherwise it stays pending and is tried again `1, 2, 4, …` blocks later until
//!   its deadline, each retry paid by the submitter like a timer is by its owner.
//! - `submit_result`: the job is assigned (E1611 unknown, E1612 not assigned or ended), the
//!   sender is one of its runners (E1613) and has not answered (E1614). Each result is
//!   compared with the stored ones; when the verification decides, the job is settled in the
//!   same call.
//! - `cancel`: by the submitter (E1615) before the job ends (E1612). Runners that already
//!   answered are paid (their work is public once submitted); the rest of the escrow goes back.
//! - Deadlines and retries run in each block's deferred work (`deferred`), bounded per block.
//!
//! Settlement (`settle`) pays each runner whose result equals the verdict its price (its
//! delegators' share through the registry, see `runners::rewards`), moves reputations, frees
//! the runners' slots, buys the callback's delivery from the reserve, and refunds the rest:
//! escrow in = payments + callback budget + refund, to the base unit.

pub(crate) mod assign;
pub(crate) mod deferred;
pub(crate) mod settle;
#[cfg(test)]
mod tests;

use crate::charge::cost;
use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::{
    decode_count, encode_count,
    job::{
        Assignment, DueEntry, JobRecord, ResultRecord, assigned_key, due_count_key, due_key, job_key, result_key,
        state_key, submissions_key,
    },
};
use drover_types::{
    Address, Event, H256,
    cbor::Writer,
    exec_error::ExecCode,
    job::{EVENT_RESULT, EVENT_SUBMITTED, JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, JobStatus, job_id},
    params::SYSTEM_RUN_CELLS_LIMIT,
};
use drover_vm::{CallContext, HostError};
use settle::Ending;

impl SystemActor for JobCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        let user_keys = match self {
            JobCall::Submit(_) => vec![submissions_key(sender)],
            JobCall::Cancel { job } | JobCall::SubmitResult { job, .. } => vec![job_key(job)],
        };
        user_keys.iter().map(|key| state_key(key)).collect()
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        let mut dispatcher = Dispatcher { host, meter, sender: context.caller };
        dispatcher.apply(self, context.value)
    }
}

fn refuse(code: ExecCode, message: impl Into<String>) -> HostError {
    HostError::new(code, message)
}

/// The dispatcher's storage entry `user_key`, decoded.
pub(crate) fn read<H: NativeHost, T>(
    host: &mut H,
    user_key: &[u8],
    decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
) -> Result<Option<T>, HostError> {
    host.read_storage(&JOB_DISPATCHER_ADDRESS, user_key, decode)
}

/// Writes (or deletes) the dispatcher's storage entry `user_key`.
pub(crate) fn write<H: NativeHost>(host: &mut H, user_key: &[u8], value: Option<Vec<u8>>) {
    host.write_storage(&JOB_DISPATCHER_ADDRESS, user_key, value);
}

/// Emits a dispatcher event whose data `data` writes.
pub(crate) fn emit<H: NativeHost>(host: &mut H, topic: &str, data: impl FnOnce(&mut Writer<Vec<u8>>)) {
    let mut w = Writer::with_capacity(64);
    data(&mut w);
    host.emit_event(Event { address: JOB_DISPATCHER_ADDRESS, topic: topic.to_owned(), data: w.into_inner() });
}

/// Adds `entry` to the work due at `height`.
pub(crate) fn schedule<H: NativeHost>(host: &mut H, height: u64, entry: DueEntry) -> Result<(), HostError> {
    let seq = read(host, &due_count_key(height), decode_count)?.unwrap_or(0);
    let seq = u32::try_from(seq).map_err(|_| HostError::internal("too much work due at one height"))?;
    write(host, &due_key(height, seq), Some(entry.encode()));
    write(host, &due_count_key(height), Some(encode_count(u64::from(seq) + 1)));
    Ok(())
}

/// Schedules retry `retry` (from 1) of a pending job `2^(retry-1)` blocks after `height`, if
/// that is before its deadline.
pub(crate) fn schedule_retry<H: NativeHost>(
    host: &mut H,
    job: &H256,
    record: &JobRecord,
    height: u64,
    retry: u32,
) -> Result<(), HostError> {
    let wait = 1u64.checked_shl(retry.saturating_sub(1)).unwrap_or(u64::MAX);
    let at = height.saturating_add(wait);
    if at < record.deadline_height {
        schedule(host, at, DueEntry { job: *job, retry })?;
    }
    Ok(())
}

/// One call's view of the dispatcher, as `sender`.
struct Dispatcher<'x, H> {
    host: &'x mut H,
    meter: &'x mut Meter,
    sender: Address,
}

impl<H: NativeHost> Dispatcher<'_, H> {
    fn apply(&mut self, call: JobCall, value: u128) -> Result<Vec<u8>, HostError> {
        match call {
            JobCall::Submit(spec) => self.submit(spec, value).map(|job| job.0.to_vec()),
            JobCall::SubmitResult { job, result } => self.submit_result(job, result).map(|()| Vec::new()),
            JobCall::Cancel { job } => {
                let record = self.job(&job)?;
                if record.submitter != self.sender {
                    return Err(refuse(ExecCode::NotSubmitter, format!("{} did not submit job {job}", self.sender)));
                }
                if record.status.is_final() {
                    return Err(refuse(ExecCode::JobNotOpen, format!("job {job} is {}", record.status.as_str())));
                }
                settle::settle(self.host, &job, record, Ending::Cancelled, &[]).map(|()| Vec::new())
            }
        }
    }

    fn job(&mut self, job: &H256) -> Result<JobRecord, HostError> {
        read(self.host, &job_key(job), JobRecord::decode)?
            .ok_or_else(|| refuse(ExecCode::UnknownJob, format!("no job has id {job}")))
    }

    fn submit(&mut self, spec: JobSpec, value: u128) -> Result<H256, HostError> {
        spec.check(&self.host.params().job_limits()).map_err(|reason| refuse(ExecCode::JobSpec, reason))?;
        if spec.callback.is_some() && !self.host.is_actor(&self.sender)? {
            return Err(refuse(ExecCode::CallbackNeedsActor, format!("{} is not an actor", self.sender)));
        }
        let basefees = self.host.basefees();
        let reserve = match &spec.callback {
            Some(callback) => cost(callback.cycles, SYSTEM_RUN_CELLS_LIMIT, basefees.cycle, basefees.cell),
            None => Some(0),
        };
        let needed = reserve.and_then(|reserve| spec.runner_escrow()?.checked_add(reserve));
        let (Some(reserve), Some(needed)) = (reserve, needed) else {
            return Err(refuse(ExecCode::JobEscrow, "the escrow this job needs is above 2^128"));
        };
        if value < needed {
            return Err(refuse(
                ExecCode::JobEscrow,
                format!(
                    "the job needs an escrow of {needed} base units (runners × max_price + callback); {value} sent"
                ),
            ));
        }
        let env = *self.host.env();
        let seq = read(self.host, &submissions_key(&self.sender), decode_count)?.unwrap_or(0);
        write(self.host, &submissions_key(&self.sender), Some(encode_count(seq.saturating_add(1))));
        let job = job_id(&self.sender, seq);
        let deadline_height = env.height.saturating_add(spec.timeout_blocks);
        schedule(self.host, deadline_height, DueEntry { job, retry: 0 })?;
        let mut record = JobRecord {
            submitter: self.sender,
            job_type: spec.job_type,
            input: spec.input,
            runners: spec.runners,
            mode: spec.verification.mode,
            threshold: spec.verification.threshold,
            max_price: spec.max_price,
            timeout_blocks: spec.timeout_blocks,
            callback: spec.callback,
            escrow: value,
            callback_reserve: reserve,
            basefee_cycle: basefees.cycle,
            basefee_cell: basefees.cell,
            status: JobStatus::Pending,
            assigned: Vec::new(),
            results_count: 0,
            submitted_height: env.height,
            deadline_height,
            finished_height: None,
            verdict: None,
        };
        let sender = self.sender;
        emit(self.host, EVENT_SUBMITTED, |w| {
            w.array(3).bytes(&job.0).bytes(&sender.0).u128(value);
        });
        if !assign::assign(self.host, self.meter, &job, &mut record)? {
            schedule_retry(self.host, &job, &record, env.height, 1)?;
        }
        write(self.host, &job_key(&job), Some(record.encode()));
        Ok(job)
    }

    fn submit_result(&mut self, job: H256, result: Vec<u8>) -> Result<(), HostError> {
        let mut record = self.job(&job)?;
        if record.status != JobStatus::Assigned {
            return Err(refuse(
                ExecCode::JobNotOpen,
                format!("job {job} is {}; results are taken while it is assigned", record.status.as_str()),
            ));
        }
        let sender = self.sender;
        let position = record
            .assigned
            .iter()
            .position(|a| a.runner == sender)
            .ok_or_else(|| refuse(ExecCode::NotAssigned, format!("{sender} is not assigned to job {job}")))?;
        if record.assigned[position].result.is_some() {
            return Err(refuse(ExecCode::ResultSubmitted, format!("{sender} already answered job {job}")));
        }
        // At most MAX_RUNNERS_PER_JOB (16) results, each from a distinct assigned runner.
        let index = u8::try_from(record.results_count).map_err(|_| HostError::internal("too many results"))?;
        let height = self.host.env().height;
        let stored = ResultRecord { runner: sender, result, height, tx_hash: self.host.tx_hash() };
        write(self.host, &result_key(&job, index), Some(stored.encode()));
        write(self.host, &assigned_key(&job, &sender), None);
        record.assigned[position] = Assignment { result: Some(index), ..record.assigned[position] };
        record.results_count += 1;
        emit(self.host, EVENT_RESULT, |w| {
            w.array(2).bytes(&job.0).bytes(&sender.0);
        });
        match settle::decide(self.host, self.meter, &job, &record)? {
            (Some(ending), results) => settle::settle(self.host, &job, record, ending, &results),
            (None, _) => {
                write(self.host, &job_key(&job), Some(record.encode()));
                Ok(())
            }
        }
    }
}
