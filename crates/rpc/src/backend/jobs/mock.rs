//! The jobs' mock: jobs with their results and verdict; a runner's jobs are those assigned to
//! it that it has not answered.

use super::*;
use crate::mock::MockBackend;
use drover_types::api::{JobResultInfo, VerificationInfo};

#[derive(Default)]
pub(crate) struct JobsMock {
    /// Jobs, with their results and verdict.
    pub jobs: Vec<(JobInfo, Vec<JobResultInfo>, Option<VerifiedResultInfo>)>,
}

impl JobBackend for MockBackend {
    async fn job(&self, id: H256) -> Result<Option<JobInfo>, ApiError> {
        Ok(self
            .part::<JobsMock>()
            .lock()
            .jobs
            .iter()
            .find(|(job, _, _)| job.job_id == id)
            .map(|(job, _, _)| job.clone()))
    }

    async fn job_results(&self, id: H256, page: Page) -> Result<Option<JobResultList>, ApiError> {
        let part = self.part::<JobsMock>();
        let data = part.lock();
        Ok(data.jobs.iter().find(|(job, _, _)| job.job_id == id).map(|(_, results, _)| JobResultList {
            job_id: id,
            results: results.iter().skip(page.offset as usize).take(page.limit as usize).cloned().collect(),
            total_count: results.len() as u64,
            offset: page.offset,
            limit: page.limit,
        }))
    }

    async fn job_verified(&self, id: H256) -> Result<Option<Option<VerifiedResultInfo>>, ApiError> {
        Ok(self
            .part::<JobsMock>()
            .lock()
            .jobs
            .iter()
            .find(|(job, _, _)| job.job_id == id)
            .map(|(_, _, verdict)| verdict.clone()))
    }

    async fn runner_jobs(&self, runner: Address, page: Page) -> Result<RunnerJobList, ApiError> {
        let part = self.part::<JobsMock>();
        let data = part.lock();
        let open: Vec<JobInfo> = data
            .jobs
            .iter()
            .filter(|(job, results, _)| {
                job.status == "assigned"
                    && job.assigned_runners.contains(&runner)
                    && !results.iter().any(|r| r.runner == runner)
            })
            .map(|(job, _, _)| job.clone())
            .collect();
        let total_count = open.len() as u64;
        let jobs = open.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(RunnerJobList { address: runner, jobs, total_count, offset: page.offset, limit: page.limit })
    }
}

/// A job record for the mock.
pub(crate) fn job(id: u8, status: &str, runners: &[Address]) -> JobInfo {
    JobInfo {
        job_id: H256([id; 32]),
        submitter: Address([9; 20]),
        job_type: "echo".into(),
        input: b"in".to_vec(),
        runners: runners.len() as u64,
        verification: VerificationInfo { mode: "majority".into(), threshold: 2 },
        max_price: 10,
        timeout_blocks: 20,
        callback: None,
        escrow: 30,
        callback_reserve: 0,
        status: status.into(),
        assigned_runners: runners.to_vec(),
        results_count: 0,
        submitted_height: 3,
        deadline_height: 23,
        finished_height: None,
    }
}
