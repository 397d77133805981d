//! Jobs: the dispatcher system actor's address, its calls, the job id, and the rules a job
//! follows from submission to its verdict.
//!
//! An account or an actor `submit`s a job to [`JOB_DISPATCHER_ADDRESS`] with an escrow (the
//! call's value) covering `runners × max_price` plus the budget of its callback; the dispatcher
//! assigns `runners` staked runners, collects their results (`submit_result`, assigned runners
//! only), and decides by the job's [`Verification`]. Runners whose result matches the verdict
//! are paid their price; the rest of the escrow goes back to the submitter. [`JobCall`] is the
//! wire form, shared by clients and the executor.

use crate::args::{Args, ArgsBuilder, ArgsError};
use crate::system_call::{SystemCall, SystemCallError};
use crate::{Address, H256, keccak256};

/// The job dispatcher system actor.
pub use crate::runner::JOB_DISPATCHER_ADDRESS;

/// Largest job input any vote may allow, in bytes (the live limit is the chain parameter
/// `max_job_input_bytes`).
pub const MAX_JOB_INPUT_BYTES: usize = 64 * 1024;
/// Largest result a runner submits, in bytes.
pub const MAX_JOB_RESULT_BYTES: usize = 16 * 1024;
/// Most runners any vote may let one job ask for: the dispatcher's per-block budget and a
/// result's price are sized for it (the live limit is the chain parameter `max_runners_per_job`).
pub const MAX_RUNNERS_PER_JOB: u64 = 16;
/// Longest time any vote may let a job wait for its verdict, in blocks from its submission (the
/// live limit is the chain parameter `max_job_timeout_blocks`).
pub const MAX_JOB_TIMEOUT_BLOCKS: u64 = 1_000_000;
/// Longest callback handler name, in bytes.
pub const MAX_CALLBACK_HANDLER_BYTES: usize = 64;
/// Most cycles any vote may let a callback delivery use (the live limit is the chain parameter
/// `max_callback_cycles`, which also stays within a quarter of `target_cycles`).
pub const MAX_CALLBACK_CYCLES: u64 = 10_000_000;

/// The bounds a job is checked against: the live chain parameters
/// (`crate::chain_params::ChainParams::job_limits`), or the caps no vote can pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobLimits {
    /// Most runners one job asks for.
    pub max_runners: u64,
    /// Longest timeout, in blocks.
    pub max_timeout_blocks: u64,
    /// Largest input, in bytes.
    pub max_input_bytes: u64,
    /// Most cycles of a callback.
    pub max_callback_cycles: u64,
}

impl JobLimits {
    /// The caps: what a client can check without asking the chain.
    pub const CAPS: JobLimits = JobLimits {
        max_runners: MAX_RUNNERS_PER_JOB,
        max_timeout_blocks: MAX_JOB_TIMEOUT_BLOCKS,
        max_input_bytes: MAX_JOB_INPUT_BYTES as u64,
        max_callback_cycles: MAX_CALLBACK_CYCLES,
    };
}

// The topics of the dispatcher's events: what clients filter `/events` and `/stream/events` on.

/// Topic of the event a submission emits: `[job, submitter, escrow]`.
pub const EVENT_SUBMITTED: &str = "job.submitted";
/// Topic of the event an assignment emits: `[job, [runner]]`.
pub const EVENT_ASSIGNED: &str = "job.assigned";
/// Topic of the event a result emits: `[job, runner]`.
pub const EVENT_RESULT: &str = "job.result";
/// Topic of the event a job's end emits: `[job, status]`.
pub const EVENT_ENDED: &str = "job.ended";
/// Topic of the event a runner's payment emits: `[job, runner, amount]` (the runner's
/// delegators' share included).
pub const EVENT_PAID: &str = "job.paid";
/// Topic of the event the refund of a job's escrow emits: `[job, submitter, amount]`.
pub const EVENT_REFUNDED: &str = "job.refunded";

/// Cycles of a `submit` besides its input and its first assignment attempt (charged as it
/// goes): the record, and settling the job at its deadline.
pub const SUBMIT_CYCLES: u64 = 60_000;
/// Cycles per input byte of a `submit` (hashing and storing it).
pub const SUBMIT_CYCLES_PER_INPUT_BYTE: u64 = 4;
/// Draws per runner a job asks for, at most, in one assignment attempt.
pub const DRAWS_PER_RUNNER: u64 = 4;
/// Most cycles one assignment attempt of a job asking `runners` can use: finding the runners
/// it can afford (once), its draws, and per runner asked for, taking at most one runner that
/// cannot take jobs out of the index (two walks).
pub const fn attempt_cycles(runners: u64) -> u64 {
    crate::runner::ELIGIBLE_CYCLES.saturating_add(
        runners.saturating_mul(DRAWS_PER_RUNNER * crate::runner::DRAW_CYCLES + 2 * crate::runner::INDEX_WALK_CYCLES),
    )
}
/// Cycles a retry pays before its assignment attempt: reading its due entry, the job and the
/// submitter's balance (sixteen lookups at the cost audit's price of one per 500 cycles).
pub const RETRY_READ_CYCLES: u64 = 8_000;
/// Cycles budget of one due entry (a deadline or an assignment retry): the larger of settling
/// a job and a retry of the largest job.
pub const DUE_ENTRY_CYCLES_LIMIT: u64 = {
    let retry = RETRY_READ_CYCLES + attempt_cycles(MAX_RUNNERS_PER_JOB);
    if retry > SUBMIT_CYCLES { retry } else { SUBMIT_CYCLES }
};
/// Cells of a scheduled retry entry.
pub const RETRY_ENTRY_CELLS: u64 = 64;
/// Cycles of a `submit_result` (comparing the results, settling the job when it decides).
pub const SUBMIT_RESULT_CYCLES: u64 = 60_000;
/// Cycles of a `cancel` (settling the job).
pub const CANCEL_CYCLES: u64 = 40_000;
/// Cycles per byte of the stored results a `submit_result` reads and hashes to decide its job
/// (charged as it goes: up to 16 results of 16 KiB).
pub const RESULT_READ_CYCLES_PER_BYTE: u64 = 4;
/// Cells of a job record besides its input.
pub const JOB_RECORD_CELLS: u64 = 512;
/// Cells of a stored result besides its bytes.
pub const RESULT_RECORD_CELLS: u64 = 128;

/// How a job's results become its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerificationMode {
    /// The first result is the verdict.
    None,
    /// `threshold` byte-identical results are the verdict (more than half the runners).
    Majority,
    /// Every runner's result, all byte-identical.
    Unanimous,
}

impl VerificationMode {
    /// The wire and API word.
    pub fn as_str(self) -> &'static str {
        match self {
            VerificationMode::None => "none",
            VerificationMode::Majority => "majority",
            VerificationMode::Unanimous => "unanimous",
        }
    }

    /// Parses the wire word.
    pub fn parse(word: &str) -> Option<Self> {
        [VerificationMode::None, VerificationMode::Majority, VerificationMode::Unanimous]
            .into_iter()
            .find(|mode| mode.as_str() == word)
    }
}

/// A job's verification: its mode and the number of identical results that decide it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verification {
    /// The mode.
    pub mode: VerificationMode,
    /// Identical results needed: 1 for `none`, the runner count for `unanimous`.
    pub threshold: u64,
}

/// What an actor that submitted a job receives when it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Callback {
    /// Handler of the submitting actor that receives `{job_id, status, result}`.
    pub handler: String,
    /// Cycles its delivery may use (bought at submission, from the escrow).
    pub cycles: u64,
}

/// A job as submitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSpec {
    /// What kind of work (runners offer job types).
    pub job_type: String,
    /// The work's input, given to each runner.
    pub input: Vec<u8>,
    /// How many runners run it (1–`max_runners_per_job`).
    pub runners: u64,
    /// How results become the verdict.
    pub verification: Verification,
    /// Most a runner may charge, in base units.
    pub max_price: u128,
    /// Blocks from submission to the deadline (1–`max_job_timeout_blocks`).
    pub timeout_blocks: u64,
    /// The delivery of the outcome to a submitting actor.
    pub callback: Option<Callback>,
}

impl JobSpec {
    /// Why this spec is refused under `limits` (execution answers E1609).
    pub fn check(&self, limits: &JobLimits) -> Result<(), String> {
        let JobLimits { max_runners, max_timeout_blocks, max_input_bytes, max_callback_cycles } = *limits;
        crate::runner::check_job_type(&self.job_type)?;
        if self.input.len() as u64 > max_input_bytes {
            return Err(format!("the input is {} bytes; at most {max_input_bytes}", self.input.len()));
        }
        if !(1..=max_runners).contains(&self.runners) {
            return Err(format!("a job asks for 1 to {max_runners} runners; got {}", self.runners));
        }
        let Verification { mode, threshold } = self.verification;
        let valid = match mode {
            VerificationMode::None => threshold == 1,
            VerificationMode::Majority => threshold > self.runners / 2 && threshold <= self.runners,
            VerificationMode::Unanimous => threshold == self.runners,
        };
        if !valid {
            return Err(format!(
                "verification {} with {} runners takes a threshold of {}; got {threshold}",
                mode.as_str(),
                self.runners,
                match mode {
                    VerificationMode::None => "1".to_owned(),
                    VerificationMode::Majority => format!("{} to {}", self.runners / 2 + 1, self.runners),
                    VerificationMode::Unanimous => self.runners.to_string(),
                }
            ));
        }
        if !(1..=max_timeout_blocks).contains(&self.timeout_blocks) {
            return Err(format!("timeout_blocks is 1 to {max_timeout_blocks}; got {}", self.timeout_blocks));
        }
        if let Some(callback) = &self.callback {
            let name = &callback.handler;
            if name.is_empty() || name.len() > MAX_CALLBACK_HANDLER_BYTES {
                return Err(format!("the callback handler is 1 to {MAX_CALLBACK_HANDLER_BYTES} bytes"));
            }
            if callback.cycles == 0 || callback.cycles > max_callback_cycles {
                return Err(format!("callback cycles are 1 to {max_callback_cycles}; got {}", callback.cycles));
            }
        }
        Ok(())
    }

    /// The least escrow before the callback budget: `runners × max_price` (`None` above 2^128).
    pub fn runner_escrow(&self) -> Option<u128> {
        u128::from(self.runners).checked_mul(self.max_price)
    }
}

/// One call of the dispatcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobCall {
    /// `submit`: a new job; the call's value is its escrow.
    Submit(JobSpec),
    /// `cancel`: the submitter ends its job before its verdict.
    Cancel {
        /// The job.
        job: H256,
    },
    /// `submit_result`: an assigned runner's result.
    SubmitResult {
        /// The job.
        job: H256,
        /// The result bytes (at most [`MAX_JOB_RESULT_BYTES`]).
        result: Vec<u8>,
    },
}

impl JobCall {
    /// What a transaction's limits must cover for this call: its fixed [`cost`](Self::cost)
    /// plus, for a submit, the most its first assignment attempt can use, and for a result, the
    /// most reading the stored results can.
    pub fn max_cost(&self) -> (u64, u64) {
        let (cycles, cells) = self.cost();
        match self {
            JobCall::Submit(spec) => (
                cycles.saturating_add(attempt_cycles(spec.runners)),
                cells.saturating_add(spec.runners.saturating_mul(2 * crate::runner::INDEX_WALK_CELLS)),
            ),
            // Deciding reads and hashes every result stored so far, at most all of them.
            JobCall::SubmitResult { .. } => (
                cycles.saturating_add(MAX_RUNNERS_PER_JOB * MAX_JOB_RESULT_BYTES as u64 * RESULT_READ_CYCLES_PER_BYTE),
                cells,
            ),
            JobCall::Cancel { .. } => (cycles, cells),
        }
    }

    /// What a `submit_result` transaction's limits must cover for one job, tighter than
    /// [`max_cost`](Self::max_cost): deciding reads the results stored when it lands, which are
    /// those stored now (`stored_bytes`), up to `pending_others` more from the job's other
    /// runners (at most [`MAX_JOB_RESULT_BYTES`] each) and this one (`result_len`). A block
    /// reserves a transaction's whole limit, so a limit sized for sixteen 16 KiB results (over a
    /// million cycles) would let a block hold only some twenty results.
    pub fn result_max_cost(result_len: usize, stored_bytes: u64, pending_others: u64) -> (u64, u64) {
        let read = stored_bytes
            .saturating_add(result_len as u64)
            .saturating_add(pending_others.saturating_mul(MAX_JOB_RESULT_BYTES as u64));
        (
            SUBMIT_RESULT_CYCLES.saturating_add(read.saturating_mul(RESULT_READ_CYCLES_PER_BYTE)),
            RESULT_RECORD_CELLS.saturating_add(result_len as u64),
        )
    }
}

impl SystemCall for JobCall {
    const ADDRESS: Address = JOB_DISPATCHER_ADDRESS;
    const NAME: &'static str = "the job dispatcher";

    /// Every handler of the dispatcher.
    const HANDLERS: &'static [&'static str] = &["submit", "cancel", "submit_result"];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            JobCall::Submit(_) => "submit",
            JobCall::Cancel { .. } => "cancel",
            JobCall::SubmitResult { .. } => "submit_result",
        }
    }

    /// What the call costs before it runs: `(cycles, cells)`.
    fn cost(&self) -> (u64, u64) {
        match self {
            JobCall::Submit(spec) => {
                let input = spec.input.len() as u64;
                let cycles = SUBMIT_CYCLES.saturating_add(input.saturating_mul(SUBMIT_CYCLES_PER_INPUT_BYTE));
                (cycles, JOB_RECORD_CELLS.saturating_add(input))
            }
            JobCall::Cancel { .. } => (CANCEL_CYCLES, 0),
            JobCall::SubmitResult { result, .. } => {
                (SUBMIT_RESULT_CYCLES, RESULT_RECORD_CELLS.saturating_add(result.len() as u64))
            }
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        match self {
            JobCall::Submit(spec) => {
                let verification = ArgsBuilder::new()
                    .text("mode", spec.verification.mode.as_str())
                    .uint("threshold", spec.verification.threshold);
                let args = ArgsBuilder::new()
                    .text("job_type", &spec.job_type)
                    .bytes("input", &spec.input)
                    .uint("runners", spec.runners)
                    .map("verification", verification)
                    .u128("max_price", spec.max_price)
                    .uint("timeout_blocks", spec.timeout_blocks);
                match &spec.callback {
                    Some(callback) => args.map(
                        "callback",
                        ArgsBuilder::new().text("handler", &callback.handler).uint("cycles", callback.cycles),
                    ),
                    None => args,
                }
                .encode()
            }
            JobCall::Cancel { job } => ArgsBuilder::new().id("job", job).encode(),
            JobCall::SubmitResult { job, result } => ArgsBuilder::new().id("job", job).bytes("result", result).encode(),
        }
    }

    /// Decodes a call from its handler and argument map.
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        let call = match handler {
            "submit" => {
                args.only(&[
                    "input",
                    "runners",
                    "callback",
                    "job_type",
                    "max_price",
                    "verification",
                    "timeout_blocks",
                ])?;
                let verification = args.map("verification")?;
                verification.only(&["mode", "threshold"])?;
                let word = verification.text("mode")?;
                let mode = VerificationMode::parse(word).ok_or_else(|| ArgsError::Invalid {
                    key: "verification.mode".to_owned(),
                    expected: "\"none\", \"majority\" or \"unanimous\"",
                })?;
                let runners = args.uint("runners")?;
                let threshold = match (verification.opt_uint("threshold")?, mode) {
                    (Some(threshold), _) => threshold,
                    (None, VerificationMode::None) => 1,
                    (None, VerificationMode::Majority) => runners / 2 + 1,
                    (None, VerificationMode::Unanimous) => runners,
                };
                let callback = match args.opt_map("callback")? {
                    Some(callback) => {
                        callback.only(&["cycles", "handler"])?;
                        Some(Callback {
                            handler: callback.text("handler")?.to_owned(),
                            cycles: callback.uint("cycles")?,
                        })
                    }
                    None => None,
                };
                JobCall::Submit(JobSpec {
                    job_type: args.text("job_type")?.to_owned(),
                    input: args.bytes("input")?.to_vec(),
                    runners,
                    verification: Verification { mode, threshold },
                    max_price: args.u128("max_price")?,
                    timeout_blocks: args.uint("timeout_blocks")?,
                    callback,
                })
            }
            "cancel" => {
                args.only(&["job"])?;
                JobCall::Cancel { job: args.id("job")? }
            }
            "submit_result" => {
                args.only(&["job", "result"])?;
                let result = args.bytes("result")?;
                if result.len() > MAX_JOB_RESULT_BYTES {
                    return Err(ArgsError::Invalid {
                        key: "result".to_owned(),
                        expected: "bytes of at most MAX_JOB_RESULT_BYTES (16 KiB)",
                    }
                    .into());
                }
                JobCall::SubmitResult { job: args.id("job")?, result: result.to_vec() }
            }
            other => return Err(SystemCallError::unknown_handler::<Self>(other)),
        };
        Ok(call)
    }

    fn takes_value(&self) -> bool {
        matches!(self, JobCall::Submit(_))
    }
}

/// The id of `submitter`'s job number `seq` (its count of earlier submissions):
/// `keccak256(submitter ‖ seq as 8 big-endian bytes)`, known before the job is included.
pub fn job_id(submitter: &Address, seq: u64) -> H256 {
    keccak256(&[&submitter.0[..], &seq.to_be_bytes()].concat())
}

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStatus {
    /// Waiting for enough eligible runners (retried each block until the deadline).
    Pending,
    /// Runners are assigned; results are being collected.
    Assigned,
    /// A verdict was reached.
    Completed,
    /// The deadline passed, or no verdict is possible any more.
    Failed,
    /// Ended by its submitter.
    Cancelled,
}

impl JobStatus {
    /// Every status, in the order of their numbers.
    pub const ALL: [JobStatus; 5] =
        [JobStatus::Pending, JobStatus::Assigned, JobStatus::Completed, JobStatus::Failed, JobStatus::Cancelled];

    /// The API's word.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Assigned => "assigned",
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the job has ended.
    pub fn is_final(self) -> bool {
        matches!(self, JobStatus::Completed | JobStatus::Failed | JobStatus::Cancelled)
    }
}

/// The canonical CBOR map a callback handler receives: `{"job_id": bytes(32), "result": bytes
/// (empty unless completed), "status": text}`.
pub fn callback_payload(job: &H256, status: JobStatus, result: &[u8]) -> Vec<u8> {
    ArgsBuilder::new().id("job_id", job).bytes("result", result).text("status", status.as_str()).encode()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> JobSpec {
        JobSpec {
            job_type: "echo".into(),
            input: b"hello".to_vec(),
            runners: 3,
            verification: Verification { mode: VerificationMode::Majority, threshold: 2 },
            max_price: 10,
            timeout_blocks: 20,
            callback: Some(Callback { handler: "on_job".into(), cycles: 50_000 }),
        }
    }

    #[test]
    fn every_call_round_trips_through_its_message() {
        let job = H256([3; 32]);
        for call in [
            JobCall::Submit(spec()),
            JobCall::Submit(JobSpec { callback: None, ..spec() }),
            JobCall::Cancel { job },
            JobCall::SubmitResult { job, result: vec![1, 2, 3] },
        ] {
            let message = call.message();
            assert_eq!(JobCall::decode(&message.handler, &message.payload), Ok(call));
        }
        assert!(matches!(JobCall::decode("steal", &[0xa0]), Err(SystemCallError::Handler { .. })));
        let oversize = JobCall::SubmitResult { job, result: vec![0; MAX_JOB_RESULT_BYTES + 1] }.message();
        assert!(JobCall::decode(&oversize.handler, &oversize.payload).is_err());
    }

    #[test]
    fn every_argument_missing_or_mistyped_is_refused() {
        let job = H256([3; 32]);
        for call in [JobCall::Submit(spec()), JobCall::Cancel { job }, JobCall::SubmitResult { job, result: vec![1] }] {
            let message = call.message();
            for (what, payload) in crate::args::mutations::broken(&message.payload) {
                // The callback is optional.
                let optional = what.starts_with("callback") && what.ends_with("missing");
                let decoded = JobCall::decode(&message.handler, &payload);
                assert_eq!(decoded.is_ok(), optional, "{} with {what}: {decoded:?}", message.handler);
            }
        }
    }

    #[test]
    fn a_results_limit_covers_what_deciding_can_read_for_its_job() {
        // The first of three runners, a 5-byte result: its own, and two more that may land first.
        let (cycles, cells) = JobCall::result_max_cost(5, 0, 2);
        let read = 5 + 2 * MAX_JOB_RESULT_BYTES as u64;
        assert_eq!(cycles, SUBMIT_RESULT_CYCLES + read * RESULT_READ_CYCLES_PER_BYTE);
        let call = JobCall::SubmitResult { job: H256([1; 32]), result: vec![7; 5] };
        assert_eq!(cells, call.max_cost().1);
        assert!(cycles * 5 < call.max_cost().0, "{cycles} against the worst case {:?}", call.max_cost());
        // The last one reads only what is stored and its own.
        assert_eq!(JobCall::result_max_cost(5, 10, 0).0, SUBMIT_RESULT_CYCLES + 15 * RESULT_READ_CYCLES_PER_BYTE);
    }

    #[test]
    fn spec_rules() {
        assert_eq!(spec().check(&JobLimits::CAPS), Ok(()));
        let with = |change: fn(&mut JobSpec)| {
            let mut spec = spec();
            change(&mut spec);
            spec.check(&JobLimits::CAPS)
        };
        assert!(with(|s| s.runners = 0).is_err());
        assert!(with(|s| s.runners = MAX_RUNNERS_PER_JOB + 1).is_err());
        assert!(with(|s| s.verification.threshold = 1).is_err(), "1 of 3 is no majority");
        assert!(with(|s| s.verification.threshold = 4).is_err());
        assert!(with(|s| s.verification = Verification { mode: VerificationMode::Unanimous, threshold: 2 }).is_err());
        assert!(with(|s| s.verification = Verification { mode: VerificationMode::Unanimous, threshold: 3 }).is_ok());
        assert!(with(|s| s.verification = Verification { mode: VerificationMode::None, threshold: 2 }).is_err());
        assert!(with(|s| s.timeout_blocks = 0).is_err());
        assert!(with(|s| s.timeout_blocks = MAX_JOB_TIMEOUT_BLOCKS + 1).is_err());
        assert!(with(|s| s.input = vec![0; MAX_JOB_INPUT_BYTES + 1]).is_err());
        assert!(with(|s| s.job_type = "Echo".into()).is_err());
        assert!(with(|s| s.callback = Some(Callback { handler: String::new(), cycles: 1 })).is_err());
        assert!(with(|s| s.callback = Some(Callback { handler: "h".into(), cycles: 0 })).is_err());
        // The live limits hold below the caps.
        let live = JobLimits { max_runners: 2, ..JobLimits::CAPS };
        assert!(spec().check(&live).is_err(), "3 runners above a live limit of 2");
        let live = JobLimits { max_timeout_blocks: 5, ..JobLimits::CAPS };
        assert!(spec().check(&live).is_err());
    }

    #[test]
    fn job_ids_follow_the_submitters_count() {
        let submitter = Address([9; 20]);
        assert_ne!(job_id(&submitter, 0), job_id(&submitter, 1));
        assert_eq!(job_id(&submitter, 7), keccak256(&[&[9u8; 20][..], &7u64.to_be_bytes()].concat()));
    }
}
