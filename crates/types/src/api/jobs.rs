//! Jobs: `GET /job/{job_id}` and its `status`, `results` and `verified`, and
//! `/runner/{address}/jobs`.
//!
//! Amounts are native base units, JSON integers (`super::encoding`); job inputs and results are
//! base64.

use super::encoding::base64_bytes;
use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// How a job's results become its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerificationInfo {
    /// `none`, `majority` or `unanimous`.
    #[cfg_attr(feature = "openapi", schema(example = "majority"))]
    pub mode: String,
    /// Identical results that decide the job.
    pub threshold: u64,
}

/// The delivery of a job's outcome to the actor that submitted it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CallbackInfo {
    /// The submitting actor's handler.
    pub handler: String,
    /// Cycles its delivery may use.
    pub cycles: u64,
}

/// `GET /job/{job_id}`: the job spec and where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobInfo {
    /// `keccak256(submitter ‖ seq_be8)`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub job_id: H256,
    /// The account or actor that submitted it.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub submitter: Address,
    /// What kind of work.
    #[cfg_attr(feature = "openapi", schema(example = "echo"))]
    pub job_type: String,
    /// The work's input.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub input: Vec<u8>,
    /// Runners it asks for.
    pub runners: u64,
    /// How its results become the verdict.
    pub verification: VerificationInfo,
    /// Most a runner may charge.
    pub max_price: u128,
    /// Blocks from submission to the deadline.
    pub timeout_blocks: u64,
    /// Its callback, if an actor asked for one.
    pub callback: Option<CallbackInfo>,
    /// Base units the dispatcher holds for it (0 once it ended).
    pub escrow: u128,
    /// Part of the escrow that bought the callback's delivery (cycles × cycle basefee + 16,384
    /// × cell basefee at submission); 0 without a callback.
    pub callback_reserve: u128,
    /// `pending`, `assigned`, `completed`, `failed` or `cancelled`.
    #[cfg_attr(feature = "openapi", schema(example = "assigned"))]
    pub status: String,
    /// The runners assigned to it, in the order drawn.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub assigned_runners: Vec<Address>,
    /// Results submitted so far.
    pub results_count: u64,
    /// Height of its submission.
    pub submitted_height: u64,
    /// Height at which it fails without a verdict.
    pub deadline_height: u64,
    /// Height at which it ended.
    pub finished_height: Option<u64>,
}

/// `GET /job/{job_id}/status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobStatusInfo {
    /// The job.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub job_id: H256,
    /// `pending`, `assigned`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The runners assigned to it.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub assigned_runners: Vec<Address>,
    /// Results submitted so far.
    pub results_count: u64,
}

/// One runner's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobResultInfo {
    /// The runner.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub runner: Address,
    /// Its result.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub result: Vec<u8>,
    /// Height of the block that took it.
    pub height: u64,
    /// The transaction that carried it.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub tx_hash: Option<H256>,
}

/// `GET /job/{job_id}/results`: the results in submission order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobResultList {
    /// The job.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub job_id: H256,
    /// The page's results.
    pub results: Vec<JobResultInfo>,
    /// Number of results.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// `GET /job/{job_id}/verified`: the verdict (404 with 7001 until there is one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerifiedResultInfo {
    /// The job.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub job_id: H256,
    /// The verified result.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub result: Vec<u8>,
    /// How many runners' results equal it.
    pub consensus_count: u64,
    /// Runners the job asked for.
    pub total_runners: u64,
    /// Height of the block that decided it.
    pub height: u64,
}

/// `GET /runner/{address}/jobs`: the jobs a runner is assigned to and has not answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunnerJobList {
    /// The runner.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// The page's jobs, in job id order.
    pub jobs: Vec<JobInfo>,
    /// Number of such jobs.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}
