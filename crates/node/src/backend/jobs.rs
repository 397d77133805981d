//! Job reads for the API: records of the job dispatcher's storage in the latest applied state,
//! decoded into the `drover_types::api` job records.
//!
//! A job is one lookup and its results one lookup each (at most 16). A runner's open
//! assignments are one key range (laid out by runner, see `drover_state::job::assigned_range`),
//! bounded by its `max_concurrent_jobs`; each is then one job lookup. All reads of one request
//! happen under one read lock and see one state.

use super::{
    handle::NodeHandle,
    pages::{read_storage, scan},
};
use crate::databases::OrderedRead;
use crate::error::NodeError;
use drover_rpc::backend::JobBackend;
use drover_rpc::pagination::Page;
use drover_state::job::{JobRecord, ResultRecord, assigned_entry, assigned_range, job_key, result_key};
use drover_types::{
    Address, H256,
    api::{CallbackInfo, JobInfo, JobResultInfo, JobResultList, RunnerJobList, VerificationInfo, VerifiedResultInfo},
    error::ApiError,
    job::JOB_DISPATCHER_ADDRESS,
};

/// The results of `job` at indexes `page.offset..` (at most `page.limit`) of its `count`.
async fn results(db: &impl OrderedRead, job: &H256, count: u64, page: &Page) -> Result<Vec<ResultRecord>, ApiError> {
    let count = count.min(u64::from(u8::MAX));
    let end = count.min(page.offset.saturating_add(page.limit));
    let mut results = Vec::new();
    for index in page.offset.min(end)..end {
        // Below `count`, which is at most u8::MAX.
        let record = read_storage(db, &JOB_DISPATCHER_ADDRESS, &result_key(job, index as u8), ResultRecord::decode)
            .await?
            .ok_or_else(|| NodeError::missing("job dispatcher: a result below the count"))?;
        results.push(record);
    }
    Ok(results)
}

fn info(job_id: H256, record: JobRecord) -> JobInfo {
    JobInfo {
        job_id,
        submitter: record.submitter,
        job_type: record.job_type,
        input: record.input,
        runners: record.runners,
        verification: VerificationInfo { mode: record.mode.as_str().to_owned(), threshold: record.threshold },
        max_price: record.max_price,
        timeout_blocks: record.timeout_blocks,
        callback: record.callback.map(|c| CallbackInfo { handler: c.handler, cycles: c.cycles }),
        escrow: record.escrow,
        callback_reserve: record.callback_reserve,
        status: record.status.as_str().to_owned(),
        assigned_runners: record.assigned.iter().map(|a| a.runner).collect(),
        results_count: record.results_count,
        submitted_height: record.submitted_height,
        deadline_height: record.deadline_height,
        finished_height: record.finished_height,
    }
}

impl JobBackend for NodeHandle {
    async fn job(&self, job: H256) -> Result<Option<JobInfo>, ApiError> {
        let db = self.0.databases.read().await;
        Ok(read_storage(&*db, &JOB_DISPATCHER_ADDRESS, &job_key(&job), JobRecord::decode)
            .await?
            .map(|record| info(job, record)))
    }

    async fn job_results(&self, job: H256, page: Page) -> Result<Option<JobResultList>, ApiError> {
        let db = self.0.databases.read().await;
        let Some(record) = read_storage(&*db, &JOB_DISPATCHER_ADDRESS, &job_key(&job), JobRecord::decode).await? else {
            return Ok(None);
        };
        let results = results(&*db, &job, record.results_count, &page)
            .await?
            .into_iter()
            .map(|r| JobResultInfo { runner: r.runner, result: r.result, height: r.height, tx_hash: r.tx_hash })
            .collect();
        Ok(Some(JobResultList {
            job_id: job,
            results,
            total_count: record.results_count,
            offset: page.offset,
            limit: page.limit,
        }))
    }

    async fn job_verified(&self, job: H256) -> Result<Option<Option<VerifiedResultInfo>>, ApiError> {
        let db = self.0.databases.read().await;
        let Some(record) = read_storage(&*db, &JOB_DISPATCHER_ADDRESS, &job_key(&job), JobRecord::decode).await? else {
            return Ok(None);
        };
        let (Some(verdict), Some(height)) = (record.verdict, record.finished_height) else {
            return Ok(Some(None));
        };
        let result =
            read_storage(&*db, &JOB_DISPATCHER_ADDRESS, &result_key(&job, verdict.result), ResultRecord::decode)
                .await?
                .ok_or_else(|| NodeError::missing("job dispatcher: the verdict's result"))?;
        Ok(Some(Some(VerifiedResultInfo {
            job_id: job,
            result: result.result,
            consensus_count: verdict.consensus_count,
            total_runners: record.runners,
            height,
        })))
    }

    async fn runner_jobs(&self, runner: Address, page: Page) -> Result<RunnerJobList, ApiError> {
        let db = self.0.databases.read().await;
        let own = |key: &[u8], _: Vec<u8>| {
            let (owner, job) = assigned_entry(key)?;
            (owner == runner).then_some(job)
        };
        let (ids, _) =
            scan(&*db, &assigned_range(&runner), None, u64::MAX, usize::MAX, own).await.map_err(NodeError::from)?;
        let total_count = ids.len() as u64;
        let mut jobs = Vec::new();
        for job in ids.into_iter().skip(usize::try_from(page.offset).unwrap_or(usize::MAX)) {
            if jobs.len() as u64 >= page.limit {
                break;
            }
            let record = read_storage(&*db, &JOB_DISPATCHER_ADDRESS, &job_key(&job), JobRecord::decode)
                .await?
                .ok_or_else(|| NodeError::missing("job dispatcher: an assignment without its job"))?;
            jobs.push(info(job, record));
        }
        Ok(RunnerJobList { address: runner, jobs, total_count, offset: page.offset, limit: page.limit })
    }
}
