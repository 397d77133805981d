//! Jobs: records, results, verdicts, and the jobs a runner is assigned to (`routes::jobs`,
//! `routes::runners`).

use crate::pagination::Page;
use drover_types::{
    Address, H256,
    api::{JobInfo, JobResultList, RunnerJobList, VerifiedResultInfo},
    error::ApiError,
};
use std::future::Future;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait JobBackend: Send + Sync {
    /// A job's record; `None` when no job has this id.
    fn job(&self, id: H256) -> impl Future<Output = Result<Option<JobInfo>, ApiError>> + Send;

    /// A job's results in submission order, one page; `None` when no job has this id.
    fn job_results(&self, id: H256, page: Page)
    -> impl Future<Output = Result<Option<JobResultList>, ApiError>> + Send;

    /// A job's verdict: `None` when no job has this id, `Some(None)` while it has none.
    fn job_verified(
        &self,
        id: H256,
    ) -> impl Future<Output = Result<Option<Option<VerifiedResultInfo>>, ApiError>> + Send;

    /// The jobs `runner` is assigned to and has not answered, in job id order, one page.
    fn runner_jobs(&self, runner: Address, page: Page) -> impl Future<Output = Result<RunnerJobList, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
