//! Jobs: `GET /job/{job_id}`, `/job/{job_id}/status`, `/job/{job_id}/results` and
//! `/job/{job_id}/verified`.
//!
//! An id that names no job is 404 with 7002; a job without a verdict yet (pending, assigned,
//! failed, cancelled) has no `verified` result: 404 with 7001. Runners submit results through
//! the signed flow of `routes::runners`.

use crate::{
    backend::Backend, error::HttpError, extract::HashParam, openapi::errors, pagination::Page, state::AppState,
};
use axum::{Json, extract::State};
use drover_types::{
    ErrorCode, H256,
    api::{JobInfo, JobResultList, JobStatusInfo, VerifiedResultInfo, paths},
};
use utoipa_axum::{router::OpenApiRouter, routes};

fn unknown(job: H256) -> HttpError {
    HttpError::new(ErrorCode::JobNotFound, format!("no job has id {job}"))
}

async fn job_info<B: Backend>(backend: &B, job: H256) -> Result<JobInfo, HttpError> {
    backend.job(job).await?.ok_or_else(|| unknown(job))
}

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag(
        "jobs",
        "Jobs bought from runners: spec, status, results and verdict",
    ))
    .routes(routes!(job))
    .routes(routes!(status))
    .routes(routes!(results))
    .routes(routes!(verified))
}

/// `GET /job/{job_id}`: the job spec and where it is.
#[utoipa::path(
    get,
    path = paths::JOB,
    tag = "jobs",
    summary = "A job",
    description = "The job as submitted (type, input, runners, verification, max price, timeout, callback) with its \
        submitter, escrow, status, assigned runners and heights.",
    params(("job_id" = String, Path, description = "The job: 32 bytes of hex.")),
    responses((status = 200, description = "The job.", body = JobInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::JobNotFound])))),
)]
pub async fn job<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(job): HashParam,
) -> Result<Json<JobInfo>, HttpError> {
    Ok(Json(job_info(&state.backend, job).await?))
}

/// `GET /job/{job_id}/status`: where a job is.
#[utoipa::path(
    get,
    path = paths::JOB_STATUS,
    tag = "jobs",
    summary = "A job's status",
    params(("job_id" = String, Path, description = "The job: 32 bytes of hex.")),
    responses((status = 200, description = "Its status, runners and number of results.", body = JobStatusInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::JobNotFound])))),
)]
pub async fn status<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(job): HashParam,
) -> Result<Json<JobStatusInfo>, HttpError> {
    let info = job_info(&state.backend, job).await?;
    Ok(Json(JobStatusInfo {
        job_id: info.job_id,
        status: info.status,
        assigned_runners: info.assigned_runners,
        results_count: info.results_count,
    }))
}

/// `GET /job/{job_id}/results`: one page of a job's results.
#[utoipa::path(
    get,
    path = paths::JOB_RESULTS,
    tag = "jobs",
    summary = "A job's submitted results",
    description = "Every result runners submitted, in submission order, each with its runner, block and transaction.",
    params(
        ("job_id" = String, Path, description = "The job: 32 bytes of hex."),
        ("offset" = Option<u64>, Query, description = "Results to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `results`.", body = JobResultList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::JobNotFound])))),
)]
pub async fn results<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(job): HashParam,
    page: Page,
) -> Result<Json<JobResultList>, HttpError> {
    state.backend.job_results(job, page).await?.map(Json).ok_or_else(|| unknown(job))
}

/// `GET /job/{job_id}/verified`: a completed job's verdict.
#[utoipa::path(
    get,
    path = paths::JOB_VERIFIED,
    tag = "jobs",
    summary = "A job's verified result",
    description = "The result its verification decided, with how many runners agreed; 404 with 7001 until the job \
        is completed (a failed or cancelled job never has one).",
    params(("job_id" = String, Path, description = "The job: 32 bytes of hex.")),
    responses((status = 200, description = "The verdict.", body = VerifiedResultInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::JobNotFound, ErrorCode::JobNotVerified])))),
)]
pub async fn verified<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(job): HashParam,
) -> Result<Json<VerifiedResultInfo>, HttpError> {
    match state.backend.job_verified(job).await? {
        None => Err(unknown(job)),
        Some(None) => Err(HttpError::new(ErrorCode::JobNotVerified, format!("job {job} has no verified result"))),
        Some(Some(verdict)) => Ok(Json(verdict)),
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::jobs::mock::{JobsMock, job};
    use crate::mock::*;
    use drover_types::{
        Address, ErrorCode, H256,
        api::{JobResultInfo, VerifiedResultInfo},
    };

    #[tokio::test]
    async fn jobs_their_results_and_verdicts() {
        let runners = [Address([1; 20]), Address([2; 20])];
        let result = JobResultInfo { runner: runners[0], result: b"out".to_vec(), height: 5, tx_hash: None };
        let verdict = VerifiedResultInfo {
            job_id: H256([1; 32]),
            result: b"out".to_vec(),
            consensus_count: 2,
            total_runners: 2,
            height: 6,
        };
        let backend = MockBackend::with(|data: &mut JobsMock| {
            data.jobs = vec![
                (job(1, "completed", &runners), vec![result.clone()], Some(verdict)),
                (job(2, "assigned", &runners), vec![result], None),
            ];
        });
        let app = app(&backend);
        let one = format!("/job/0x{}", "01".repeat(32));
        let two = format!("/job/0x{}", "02".repeat(32));
        let body = get(&app, &one).await.json();
        assert_eq!((body["status"].as_str(), body["input"].as_str()), (Some("completed"), Some("aW4=")));
        let body = get(&app, &format!("{two}/status")).await.json();
        assert_eq!(body["assigned_runners"].as_array().map(Vec::len), Some(2));
        let body = get(&app, &format!("{two}/results")).await.json();
        assert_eq!((body["total_count"].as_u64(), body["results"][0]["result"].as_str()), (Some(1), Some("b3V0")));
        let body = get(&app, &format!("{one}/verified")).await.json();
        assert_eq!(body["consensus_count"], 2);
        get(&app, &format!("{two}/verified")).await.assert_error(404, ErrorCode::JobNotVerified);
        let unknown = format!("/job/0x{}", "03".repeat(32));
        for path in
            [unknown.clone(), format!("{unknown}/status"), format!("{unknown}/results"), format!("{unknown}/verified")]
        {
            get(&app, &path).await.assert_error(404, ErrorCode::JobNotFound);
        }
        get(&app, "/job/0x1234").await.assert_error(400, ErrorCode::BadRequest);
    }
}
