//! Jobs: the client's methods for the routes of `drover-rpc`'s `routes::jobs`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode, H256,
    api::{JobInfo, JobResultList, JobStatusInfo, VerifiedResultInfo, paths, paths::fill},
    job::JOB_DISPATCHER_ADDRESS,
};

impl Client {
    /// How many jobs `submitter` has submitted (in the latest state): the `seq` of its next job
    /// id, `keccak256(submitter ‖ seq_be8)`. Read from the dispatcher's storage.
    pub async fn job_submissions(&self, submitter: &Address) -> Result<u64, ClientError> {
        let key = drover_state::job::submissions_key(submitter);
        let path = fill(paths::STATE_VALUE, &[&JOB_DISPATCHER_ADDRESS, &format!("0x{}", hex::encode(&key))]);
        let record = self.state_value(&JOB_DISPATCHER_ADDRESS, &key).await?;
        match record.value {
            None => Ok(0),
            Some(bytes) => drover_state::decode_count(&bytes).map_err(|e| ClientError::UnexpectedResponse {
                url: self.url(&path),
                status: 200,
                reason: format!("the submission count is not a count record: {e}"),
            }),
        }
    }

    /// `GET /job/{job_id}`; `None` for an id that names no job.
    pub async fn job(&self, job: &H256) -> Result<Option<JobInfo>, ClientError> {
        self.get_optional(&fill(paths::JOB, &[job]), ErrorCode::JobNotFound).await
    }

    /// `GET /job/{job_id}/status`: where a job is (status, runners, results so far); `None` for
    /// an id that names no job.
    pub async fn job_status(&self, job: &H256) -> Result<Option<JobStatusInfo>, ClientError> {
        self.get_optional(&fill(paths::JOB_STATUS, &[job]), ErrorCode::JobNotFound).await
    }

    /// `GET /job/{job_id}/results?offset=&limit=`: one page of a job's results.
    pub async fn job_results(&self, job: &H256, offset: u64, limit: u64) -> Result<JobResultList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", fill(paths::JOB_RESULTS, &[job]))).await
    }

    /// `GET /job/{job_id}/verified`; `None` while the job has no verified result.
    pub async fn job_verified(&self, job: &H256) -> Result<Option<VerifiedResultInfo>, ClientError> {
        self.get_optional(&fill(paths::JOB_VERIFIED, &[job]), ErrorCode::JobNotVerified).await
    }
}
