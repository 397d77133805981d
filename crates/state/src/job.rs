//! Job dispatcher records: the storage of the dispatcher system actor (`0x00…02`), proven with
//! `/proof/storage/0x…02/{key}` like any actor's storage.
//!
//! | user key | record |
//! | --- | --- |
//! | `"j" ‖ job(32)` | [`JobRecord`] |
//! | `"r" ‖ job(32) ‖ index(1)` | [`ResultRecord`], the job's `index`-th result |
//! | `"c" ‖ submitter(20)` | the submitter's number of submissions (count record; the next job id's `seq`) |
//! | `"a" ‖ job(32) ‖ runner(20)` | marker: the runner is assigned and has not answered, stored by runner (see [`assigned_range`]) |
//! | `"x" ‖ height(8, BE)` | number of due entries at `height` (count record) |
//! | `"x" ‖ height(8, BE) ‖ seq(4, BE)` | [`DueEntry`]: a job's deadline or assignment retry at `height` |
//! | `"X"` | where the walk of due entries stopped ([`TimerCursor`]; absent: nothing left before the current height) |
//!
//! Invariants: a job's `escrow` is what the dispatcher's account holds for it, and the account
//! holds the sum of the escrows of every job; a job's `"a"` markers exist exactly for its
//! assigned runners without a result while it is assigned; queue and deadline entries may name
//! jobs that have moved on (they are skipped when reached, and were paid for at submission).
//! A pending job has exactly one retry entry, at a height before its deadline, or none left.

use crate::keys::{PREFIX_JOB, owned_entry, owned_range, storage_key};
use crate::{RecordError, TimerCursor};
use drover_types::{
    Address, H256,
    cbor::{CborError, Writer, decode_fixed, decode_strict, decode_u128, expect_array, take_null},
    job::{Callback, JOB_DISPATCHER_ADDRESS, JobStatus, VerificationMode},
};
use minicbor::decode::Decoder;

/// The state key of the dispatcher's storage entry `user_key`.
pub fn state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&JOB_DISPATCHER_ADDRESS, user_key)
}

/// User key of a job's record.
pub fn job_key(job: &H256) -> Vec<u8> {
    [&b"j"[..], &job.0].concat()
}

/// User key of a job's `index`-th result.
pub fn result_key(job: &H256, index: u8) -> Vec<u8> {
    [&b"r"[..], &job.0, &[index]].concat()
}

/// User key of a submitter's number of submissions.
pub fn submissions_key(submitter: &Address) -> Vec<u8> {
    [&b"c"[..], &submitter.0].concat()
}

/// User key of the marker of `runner`'s open assignment to `job`.
pub fn assigned_key(job: &H256, runner: &Address) -> Vec<u8> {
    [&b"a"[..], &job.0, &runner.0].concat()
}

/// The range of `runner`'s open assignments, in job id order.
pub fn assigned_range(runner: &Address) -> Vec<u8> {
    owned_range(PREFIX_JOB, runner)
}

/// The runner and job of an assignment marker's state key, or `None` if `key` is not one.
pub fn assigned_entry(key: &[u8]) -> Option<(Address, H256)> {
    let (runner, job) = owned_entry(PREFIX_JOB, H256::LEN, key)?;
    Some((runner, H256(job.try_into().ok()?)))
}

/// User key of the number of due entries at `height`.
pub fn due_count_key(height: u64) -> Vec<u8> {
    [&b"x"[..], &height.to_be_bytes()].concat()
}

/// User key of the `seq`-th due entry at `height`.
pub fn due_key(height: u64, seq: u32) -> Vec<u8> {
    [&b"x"[..], &height.to_be_bytes(), &seq.to_be_bytes()].concat()
}

/// User key of where the walk of due entries stopped.
pub fn due_cursor_key() -> Vec<u8> {
    b"X".to_vec()
}

/// Work due on a job at a height: `[job, retry]` — `retry` 0 for its deadline, `n ≥ 1` for its
/// `n`-th assignment retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DueEntry {
    /// The job.
    pub job: H256,
    /// 0: the deadline; `n`: the `n`-th retry of a pending job's assignment.
    pub retry: u32,
}

impl DueEntry {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(40);
        w.array(2).bytes(&self.job.0).uint(u64::from(self.retry));
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            Ok(DueEntry { job: H256(decode_fixed(d)?), retry: d.u32()? })
        })?)
    }
}

/// A runner assigned to a job: `[runner, price, result index | null]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// The runner.
    pub runner: Address,
    /// What it is paid if its result matches the verdict (its price when assigned).
    pub price: u128,
    /// Index of its result among the job's results, once it answered.
    pub result: Option<u8>,
}

/// A job's verdict: `[result index, consensus_count]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Index of a result equal to the verdict.
    pub result: u8,
    /// How many results equal it.
    pub consensus_count: u64,
}

/// A job: `[submitter, job_type, input, runners, mode, threshold, max_price, timeout_blocks,
/// callback | null, escrow, callback_reserve, basefee_cycle, basefee_cell, status,
/// [assignment], results_count, submitted_height, deadline_height, finished_height | null,
/// verdict | null]` — `mode` and `status` as their numbers (order of
/// [`VerificationMode`] and [`JobStatus::ALL`]), `callback` as `[handler, cycles]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRecord {
    /// Account or actor that submitted it.
    pub submitter: Address,
    /// What kind of work.
    pub job_type: String,
    /// The work's input.
    pub input: Vec<u8>,
    /// Runners it asks for.
    pub runners: u64,
    /// Verification mode.
    pub mode: VerificationMode,
    /// Identical results that decide it.
    pub threshold: u64,
    /// Most a runner may charge.
    pub max_price: u128,
    /// Blocks from submission to the deadline.
    pub timeout_blocks: u64,
    /// Delivery of the outcome to the submitting actor.
    pub callback: Option<Callback>,
    /// Base units the dispatcher holds for the job (0 once it ended).
    pub escrow: u128,
    /// Part of the escrow that buys the callback's delivery.
    pub callback_reserve: u128,
    /// Cycle basefee at submission (the callback's budget is bought at it).
    pub basefee_cycle: u128,
    /// Cell basefee at submission.
    pub basefee_cell: u128,
    /// Where it is in its life.
    pub status: JobStatus,
    /// The runners assigned to it, in the order drawn.
    pub assigned: Vec<Assignment>,
    /// Results stored so far.
    pub results_count: u64,
    /// Height of its submission.
    pub submitted_height: u64,
    /// Height at which it fails if it has no verdict.
    pub deadline_height: u64,
    /// Height at which it ended.
    pub finished_height: Option<u64>,
    /// Its verdict, once completed.
    pub verdict: Option<Verdict>,
}

const MODES: [VerificationMode; 3] = [VerificationMode::None, VerificationMode::Majority, VerificationMode::Unanimous];

fn number<T: PartialEq>(all: &[T], value: &T) -> u64 {
    all.iter().position(|v| v == value).unwrap_or(0) as u64
}

fn from_number<T: Copy>(all: &[T], n: u64, what: &str) -> Result<T, CborError> {
    usize::try_from(n).ok().and_then(|i| all.get(i)).copied().ok_or_else(|| CborError::malformed(format!("{what} {n}")))
}

fn definite_array(d: &mut Decoder<'_>) -> Result<u64, CborError> {
    let at = d.position();
    d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))
}

impl JobRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(256 + self.input.len() + 64 * self.assigned.len());
        w.array(20).bytes(&self.submitter.0).text(&self.job_type).bytes(&self.input).uint(self.runners);
        w.uint(number(&MODES, &self.mode)).uint(self.threshold).u128(self.max_price).uint(self.timeout_blocks);
        match &self.callback {
            Some(callback) => w.array(2).text(&callback.handler).uint(callback.cycles),
            None => w.null(),
        };
        w.u128(self.escrow).u128(self.callback_reserve).u128(self.basefee_cycle).u128(self.basefee_cell);
        w.uint(number(&JobStatus::ALL, &self.status));
        w.array(self.assigned.len() as u64);
        for a in &self.assigned {
            w.array(3).bytes(&a.runner.0).u128(a.price);
            match a.result {
                Some(index) => w.uint(u64::from(index)),
                None => w.null(),
            };
        }
        w.uint(self.results_count).uint(self.submitted_height).uint(self.deadline_height);
        match self.finished_height {
            Some(height) => w.uint(height),
            None => w.null(),
        };
        match self.verdict {
            Some(v) => w.array(2).uint(u64::from(v.result)).uint(v.consensus_count),
            None => w.null(),
        };
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one job record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 20)?;
            let submitter = Address(decode_fixed(d)?);
            let job_type = d.str()?.to_owned();
            let input = d.bytes()?.to_vec();
            let runners = d.u64()?;
            let mode = from_number(&MODES, d.u64()?, "verification mode")?;
            let threshold = d.u64()?;
            let max_price = decode_u128(d)?;
            let timeout_blocks = d.u64()?;
            let callback = if take_null(d)? {
                None
            } else {
                expect_array(d, 2)?;
                Some(Callback { handler: d.str()?.to_owned(), cycles: d.u64()? })
            };
            let escrow = decode_u128(d)?;
            let callback_reserve = decode_u128(d)?;
            let basefee_cycle = decode_u128(d)?;
            let basefee_cell = decode_u128(d)?;
            let status = from_number(&JobStatus::ALL, d.u64()?, "job status")?;
            let count = definite_array(d)?;
            let mut assigned = Vec::with_capacity(usize::try_from(count).unwrap_or(usize::MAX).min(16));
            for _ in 0..count {
                expect_array(d, 3)?;
                let runner = Address(decode_fixed(d)?);
                let price = decode_u128(d)?;
                let result = if take_null(d)? { None } else { Some(d.u8()?) };
                assigned.push(Assignment { runner, price, result });
            }
            let results_count = d.u64()?;
            let submitted_height = d.u64()?;
            let deadline_height = d.u64()?;
            let finished_height = if take_null(d)? { None } else { Some(d.u64()?) };
            let verdict = if take_null(d)? {
                None
            } else {
                expect_array(d, 2)?;
                Some(Verdict { result: d.u8()?, consensus_count: d.u64()? })
            };
            Ok(JobRecord {
                submitter,
                job_type,
                input,
                runners,
                mode,
                threshold,
                max_price,
                timeout_blocks,
                callback,
                escrow,
                callback_reserve,
                basefee_cycle,
                basefee_cell,
                status,
                assigned,
                results_count,
                submitted_height,
                deadline_height,
                finished_height,
                verdict,
            })
        })?)
    }
}

/// A runner's result: `[runner, result, height, tx_hash | null]` (`null` when it did not come
/// from a transaction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultRecord {
    /// The runner that submitted it.
    pub runner: Address,
    /// The result bytes.
    pub result: Vec<u8>,
    /// Height of the block that took it.
    pub height: u64,
    /// The transaction that carried it.
    pub tx_hash: Option<H256>,
}

impl ResultRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(80 + self.result.len());
        w.array(4).bytes(&self.runner.0).bytes(&self.result).uint(self.height);
        match &self.tx_hash {
            Some(hash) => w.bytes(&hash.0),
            None => w.null(),
        };
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 4)?;
            let runner = Address(decode_fixed(d)?);
            let result = d.bytes()?.to_vec();
            let height = d.u64()?;
            let tx_hash = if take_null(d)? { None } else { Some(H256(decode_fixed(d)?)) };
            Ok(ResultRecord { runner, result, height, tx_hash })
        })?)
    }
}

/// The walk of due entries stops where the timer walk would: a `(height, seq)` position.
pub type DueCursor = TimerCursor;

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> JobRecord {
        JobRecord {
            submitter: Address([1; 20]),
            job_type: "echo".into(),
            input: b"in".to_vec(),
            runners: 3,
            mode: VerificationMode::Majority,
            threshold: 2,
            max_price: u128::MAX,
            timeout_blocks: 20,
            callback: Some(Callback { handler: "on_job".into(), cycles: 9 }),
            escrow: 30,
            callback_reserve: 5,
            basefee_cycle: 1,
            basefee_cell: 2,
            status: JobStatus::Assigned,
            assigned: vec![
                Assignment { runner: Address([2; 20]), price: 7, result: Some(0) },
                Assignment { runner: Address([3; 20]), price: 8, result: None },
            ],
            results_count: 1,
            submitted_height: 4,
            deadline_height: 24,
            finished_height: None,
            verdict: Some(Verdict { result: 0, consensus_count: 2 }),
        }
    }

    #[test]
    fn records_round_trip_and_refuse_corruption() {
        let record = job();
        assert_eq!(JobRecord::decode(&record.encode()), Ok(record.clone()));
        let ended = JobRecord { callback: None, finished_height: Some(9), verdict: None, ..record.clone() };
        assert_eq!(JobRecord::decode(&ended.encode()), Ok(ended));
        let mut bytes = record.encode();
        bytes.push(0);
        assert!(JobRecord::decode(&bytes).is_err());
        let result =
            ResultRecord { runner: Address([2; 20]), result: vec![1], height: 5, tx_hash: Some(H256([4; 32])) };
        assert_eq!(ResultRecord::decode(&result.encode()), Ok(result.clone()));
        let due = DueEntry { job: H256([5; 32]), retry: 3 };
        assert_eq!(DueEntry::decode(&due.encode()), Ok(due));
    }

    #[test]
    fn assignments_are_laid_out_by_runner() {
        let (runner, job) = (Address([1; 20]), H256([2; 32]));
        let key = state_key(&assigned_key(&job, &runner));
        assert!(key.starts_with(&assigned_range(&runner)));
        assert_eq!(assigned_entry(&key), Some((runner, job)));
    }
}
