//! Runners: `GET /runners/active`, `/runner/{address}`, `/runner/{address}/jobs` and
//! `/account/{address}/delegations`, and the runners' signed flows (heartbeat, job result).
//!
//! An address that never registered is 404 with 7000; a deregistered runner is still served
//! (health `deregistered`, with its unbonding stake) so its delegators can follow their funds.
//!
//! # Signed flows
//!
//! A runner daemon need not build transactions: `GET /runner/{address}/heartbeat_payload`
//! answers the heartbeat transaction the node built for it (its next nonce, pending
//! transactions included; the suggested fees of `/basefee`; limits that cover the call exactly)
//! and `message_to_sign_base64`, the transaction's 32-byte signing hash. The runner signs those
//! bytes and posts `{unsigned_transaction_base64, signature}` to `/runner/{address}/heartbeat`.
//! The node checks that the transaction is that flow's for that runner (7004 otherwise: another
//! destination, handler, argument or value) and that the signature recovers `{address}` (7005),
//! then admits it exactly like `/submit` and answers the same record and status. The job-result
//! flow is the same with `GET /runner/{address}/job_result_payload?job_id=…&result_base64=…`
//! (7002 unknown job, 7003 runner not assigned or job closed) and `POST
//! /runner/{address}/job_result`, whose transaction must be a `submit_result` of the dispatcher.

use crate::{
    backend::Backend,
    error::HttpError,
    extract::{AddressParam, ApiQuery, RawBody, json_body, parse_hash},
    openapi::{SUBMIT_ERRORS, errors},
    pagination::Page,
    routes::{
        chain::{SUGGESTED_TIP_PER_CELL, SUGGESTED_TIP_PER_CYCLE, suggested_max_fee},
        transactions::submit_one,
    },
    state::AppState,
};
use axum::{Json, extract::State, response::Response};
use base64::{Engine, prelude::BASE64_STANDARD};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, ErrorCode, Signature, Transaction,
    api::{
        DelegationList, RunnerInfo, RunnerJobList, RunnerList, SignedFlowPayload, SignedFlowRequest, SubmitResponse,
        paths,
    },
    job::{JOB_DISPATCHER_ADDRESS, JobCall, JobStatus, MAX_JOB_RESULT_BYTES, MAX_RUNNERS_PER_JOB},
    params::system_call_limits,
    payload::Message,
    runner::{RUNNER_REGISTRY_ADDRESS, RegistryCall},
};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("runners", "Off-chain compute runners and delegations to them"))
        .routes(routes!(active))
        .routes(routes!(runner))
        .routes(routes!(heartbeat_payload))
        .routes(routes!(heartbeat))
        .routes(routes!(delegations))
        .routes(routes!(jobs))
        .routes(routes!(job_result_payload))
        .routes(routes!(job_result))
}

/// `GET /runners/active`: one page of the registered runners.
#[utoipa::path(
    get,
    path = paths::RUNNERS_ACTIVE,
    tag = "runners",
    summary = "Registered runners",
    description = "Runners that are registered (not deregistered), in the registry's slot order, each with its \
        `health` (`healthy`, `unhealthy` when its last heartbeat is older than the gap, `paused`), stake, delegated \
        stake, rate card, capabilities and reputation. A page reads only its own runners.",
    params(
        ("offset" = Option<u64>, Query, description = "Runners to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `runners`.", body = RunnerList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn active<B: Backend>(State(state): State<AppState<B>>, page: Page) -> Result<Json<RunnerList>, HttpError> {
    Ok(Json(state.backend.active_runners(page).await?))
}

/// `GET /runner/{address}`: a runner's record (404 with 7000 if it never registered).
#[utoipa::path(
    get,
    path = paths::RUNNER,
    tag = "runners",
    summary = "A runner's record",
    params(("address" = String, Path, description = "The runner: 20 bytes of hex.")),
    responses((status = 200, description = "The runner.", body = RunnerInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::RunnerNotFound])))),
)]
pub async fn runner<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<RunnerInfo>, HttpError> {
    state
        .backend
        .runner(address)
        .await?
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::RunnerNotFound, format!("{address} has never registered as a runner")))
}

/// `GET /account/{address}/delegations`: one page of an account's delegations.
#[utoipa::path(
    get,
    path = paths::ACCOUNT_DELEGATIONS,
    tag = "runners",
    summary = "An account's delegations to runners",
    description = "Active delegations and those still unbonding, in runner order; an account without any gets an \
        empty list.",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("offset" = Option<u64>, Query, description = "Delegations to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `delegations`.", body = DelegationList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress])))),
)]
pub async fn delegations<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    page: Page,
) -> Result<Json<DelegationList>, HttpError> {
    Ok(Json(state.backend.delegations(address, page).await?))
}

/// The transaction the node builds for `runner` to send `message` to `to` (unsigned): its next
/// nonce, pending transactions included; the suggested fees; limits that cover the call.
async fn flow_transaction<B: Backend>(
    backend: &B,
    runner: Address,
    to: Address,
    payload: Vec<u8>,
    cost: (u64, u64),
) -> Result<Transaction, HttpError> {
    let (cycles_limit, cells_limit) = system_call_limits(payload.len(), cost);
    let basefees = backend.basefees();
    Ok(Transaction {
        chain_id: backend.chain_info().chain_id,
        nonce: backend.next_nonce(runner).await?,
        to: Some(to),
        value: 0,
        cycles_limit,
        cells_limit,
        max_fee_per_cycle: suggested_max_fee(basefees.cycle, SUGGESTED_TIP_PER_CYCLE),
        max_fee_per_cell: suggested_max_fee(basefees.cell, SUGGESTED_TIP_PER_CELL),
        tip_per_cycle: SUGGESTED_TIP_PER_CYCLE,
        tip_per_cell: SUGGESTED_TIP_PER_CELL,
        payload,
        signature: None,
    })
}

/// What a flow's `*_payload` route answers for `tx`.
fn flow_payload(tx: &Transaction) -> Json<SignedFlowPayload> {
    Json(SignedFlowPayload {
        message_to_sign_base64: tx.signing_hash().0.to_vec(),
        unsigned_transaction_base64: tx.encode_unsigned(),
        nonce: tx.nonce,
    })
}

async fn registered<B: Backend>(backend: &B, runner: Address) -> Result<RunnerInfo, HttpError> {
    backend
        .runner(runner)
        .await?
        .ok_or_else(|| HttpError::new(ErrorCode::RunnerNotFound, format!("{runner} has never registered as a runner")))
}

/// `GET /runner/{address}/heartbeat_payload`: the runner's heartbeat transaction, to sign.
#[utoipa::path(
    get,
    path = paths::RUNNER_HEARTBEAT_PAYLOAD,
    tag = "runners",
    summary = "The heartbeat transaction a runner signs",
    description = "Built by the node: the runner's next nonce, the suggested fees, limits that cover the call. Sign \
        `message_to_sign_base64` (the 32-byte signing hash) and post it with `unsigned_transaction_base64` to \
        `/runner/{address}/heartbeat`.",
    params(("address" = String, Path, description = "The runner: 20 bytes of hex.")),
    responses((status = 200, description = "The payload to sign.", body = SignedFlowPayload)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::RunnerNotFound])))),
)]
pub async fn heartbeat_payload<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(runner): AddressParam,
) -> Result<Json<SignedFlowPayload>, HttpError> {
    registered(&state.backend, runner).await?;
    let call = RegistryCall::Heartbeat;
    let tx =
        flow_transaction(&state.backend, runner, RUNNER_REGISTRY_ADDRESS, call.message().encode(), call.max_cost())
            .await?;
    Ok(flow_payload(&tx))
}

/// Parses `r ‖ s ‖ v` hex, `v` 0/1 or 27/28 (7005 otherwise: it cannot be the runner's).
fn parse_signature(text: &str) -> Result<Signature, HttpError> {
    let refused = |why: String| HttpError::new(ErrorCode::FlowSignatureMismatch, why);
    let mut bytes = drover_types::hexfmt::decode(text).map_err(|e| refused(format!("signature is not hex: {e}")))?;
    if let Some(v @ (27 | 28)) = bytes.last().copied() {
        let last = bytes.len() - 1;
        bytes[last] = v - 27;
    }
    Signature::from_rsv(&bytes)
        .map_err(|_| refused(format!("signature is {} bytes, not r ‖ s ‖ v (65 bytes, v 0/1 or 27/28)", bytes.len())))
}

/// Admits a signed flow's transaction for `runner` like `/submit`: `is_flows` says whether the
/// unsigned transaction is the flow's (7004 with `what` otherwise), and the signature must
/// recover `runner` (7005).
async fn admit_flow<B: Backend>(
    state: &AppState<B>,
    runner: Address,
    body: &[u8],
    is_flows: impl FnOnce(&Transaction) -> bool,
    what: &str,
) -> Result<Response, HttpError> {
    registered(&state.backend, runner).await?;
    let request: SignedFlowRequest = json_body(body)?;
    let mismatch = |why: String| HttpError::new(ErrorCode::FlowTransactionMismatch, why);
    let unsigned = Transaction::decode(&request.unsigned_transaction_base64)
        .map_err(|e| mismatch(format!("unsigned_transaction_base64 is not a transaction: {e}")))?;
    if unsigned.signature.is_some() || unsigned.value != 0 || !is_flows(&unsigned) {
        return Err(mismatch(format!("the transaction is not {what} without value and signature")));
    }
    let tx = Transaction { signature: Some(parse_signature(&request.signature)?), ..unsigned };
    // The one recovery of this transaction: its sender is checked here and admitted as is.
    let tx = match tx.verify() {
        Ok(tx) if tx.sender == runner => tx,
        Ok(tx) => {
            return Err(HttpError::new(
                ErrorCode::FlowSignatureMismatch,
                format!("the signature recovers {}, not the runner {runner}", tx.sender),
            ));
        }
        Err(e) => {
            return Err(HttpError::new(
                ErrorCode::FlowSignatureMismatch,
                format!("the signature does not recover: {e}"),
            ));
        }
    };
    Ok(submit_one(&state.backend, tx).await)
}

/// `POST /runner/{address}/heartbeat`: admits the runner's signed heartbeat like `/submit`.
#[utoipa::path(
    post,
    path = paths::RUNNER_HEARTBEAT,
    tag = "runners",
    summary = "Submit a runner's signed heartbeat",
    description = "Takes the flow's unsigned transaction and the runner's signature of its message; refuses a \
        transaction that is not this flow's (7004) or a signature that does not recover the runner (7005); then \
        answers like `/submit`.",
    params(("address" = String, Path, description = "The runner: 20 bytes of hex.")),
    request_body(content = SignedFlowRequest, content_type = "application/json"),
    responses((status = 200, description = "Accepted into the mempool; the record of `/submit`.", body = SubmitResponse)),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, &[ErrorCode::InvalidAddress, ErrorCode::FlowTransactionMismatch, ErrorCode::FlowSignatureMismatch]].concat())))),
)]
pub async fn heartbeat<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(runner): AddressParam,
    RawBody(body): RawBody,
) -> Result<Response, HttpError> {
    let heartbeat = RegistryCall::Heartbeat.message().encode();
    let is_heartbeat = |tx: &Transaction| tx.to == Some(RUNNER_REGISTRY_ADDRESS) && tx.payload == heartbeat;
    admit_flow(&state, runner, &body, is_heartbeat, "a heartbeat of the runner registry").await
}

/// `GET /runner/{address}/jobs`: one page of the jobs a runner is assigned to and has not
/// answered.
#[utoipa::path(
    get,
    path = paths::RUNNER_JOBS,
    tag = "runners",
    summary = "Jobs awaiting a runner's result",
    description = "The assigned jobs this runner has not answered, in job id order, each with its spec and input: \
        what a runner daemon polls. 404 with 7000 for an address that never registered.",
    params(
        ("address" = String, Path, description = "The runner: 20 bytes of hex."),
        ("offset" = Option<u64>, Query, description = "Jobs to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `jobs`.", body = RunnerJobList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress])))),
)]
pub async fn jobs<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(runner): AddressParam,
    page: Page,
) -> Result<Json<RunnerJobList>, HttpError> {
    registered(&state.backend, runner).await?;
    Ok(Json(state.backend.runner_jobs(runner, page).await?))
}

/// Query of `GET /runner/{address}/job_result_payload`.
#[derive(Debug, serde::Deserialize)]
pub struct JobResultQuery {
    /// The job: 32 bytes of hex.
    job_id: String,
    /// The result, base64 (standard alphabet, padded).
    result_base64: String,
}

/// `GET /runner/{address}/job_result_payload`: the runner's result transaction, to sign.
#[utoipa::path(
    get,
    path = paths::RUNNER_JOB_RESULT_PAYLOAD,
    tag = "runners",
    summary = "The result transaction a runner signs",
    description = "Built by the node for a runner assigned to the job (7002 unknown job, 7003 not assigned or the \
        job no longer takes results): a `submit_result` of the dispatcher with the runner's next nonce, the \
        suggested fees and limits that cover it. Sign `message_to_sign_base64` and post it with \
        `unsigned_transaction_base64` to `/runner/{address}/job_result`.",
    params(
        ("address" = String, Path, description = "The runner: 20 bytes of hex."),
        ("job_id" = String, Query, description = "The job: 32 bytes of hex."),
        ("result_base64" = String, Query, description = "The result, base64 (at most 16 KiB decoded)."),
    ),
    responses((status = 200, description = "The payload to sign.", body = SignedFlowPayload)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::RunnerNotFound, ErrorCode::JobNotFound, ErrorCode::RunnerNotAssigned])))),
)]
pub async fn job_result_payload<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(runner): AddressParam,
    ApiQuery(query): ApiQuery<JobResultQuery>,
) -> Result<Json<SignedFlowPayload>, HttpError> {
    let job = parse_hash(&query.job_id)?;
    let result = BASE64_STANDARD
        .decode(&query.result_base64)
        .map_err(|e| HttpError::new(ErrorCode::BadRequest, format!("result_base64 is not base64: {e}")))?;
    if result.len() > MAX_JOB_RESULT_BYTES {
        return Err(HttpError::new(
            ErrorCode::BadRequest,
            format!("the result is {} bytes; at most {MAX_JOB_RESULT_BYTES}", result.len()),
        ));
    }
    registered(&state.backend, runner).await?;
    let info = state
        .backend
        .job(job)
        .await?
        .ok_or_else(|| HttpError::new(ErrorCode::JobNotFound, format!("no job has id {job}")))?;
    if info.status != JobStatus::Assigned.as_str() || !info.assigned_runners.contains(&runner) {
        return Err(HttpError::new(
            ErrorCode::RunnerNotAssigned,
            format!(
                "{runner} cannot answer job {job}: it is {} and assigned to {:?}",
                info.status, info.assigned_runners
            ),
        ));
    }
    // A job holds at most MAX_RUNNERS_PER_JOB results, so one page holds them all.
    let results = state.backend.job_results(job, Page { offset: 0, limit: MAX_RUNNERS_PER_JOB }).await?;
    let results = results.map(|list| list.results).unwrap_or_default();
    if results.iter().any(|r| r.runner == runner) {
        return Err(HttpError::new(
            ErrorCode::RunnerNotAssigned,
            format!("{runner} has already answered job {job}; a job takes one result per runner"),
        ));
    }
    // Limits for this job as it stands: what is stored, and the other runners still to answer.
    let stored_bytes = results.iter().map(|r| r.result.len() as u64).sum();
    let pending_others = info.runners.saturating_sub(results.len() as u64 + 1);
    let cost = JobCall::result_max_cost(result.len(), stored_bytes, pending_others);
    let call = JobCall::SubmitResult { job, result };
    let tx = flow_transaction(&state.backend, runner, JOB_DISPATCHER_ADDRESS, call.message().encode(), cost).await?;
    Ok(flow_payload(&tx))
}

/// `POST /runner/{address}/job_result`: admits the runner's signed result like `/submit`.
#[utoipa::path(
    post,
    path = paths::RUNNER_JOB_RESULT,
    tag = "runners",
    summary = "Submit a runner's signed job result",
    description = "Takes the flow's unsigned transaction and the runner's signature of its message; refuses a \
        transaction that is not a `submit_result` of the dispatcher (7004) or a signature that does not recover \
        the runner (7005); then answers like `/submit`.",
    params(("address" = String, Path, description = "The runner: 20 bytes of hex.")),
    request_body(content = SignedFlowRequest, content_type = "application/json"),
    responses((status = 200, description = "Accepted into the mempool; the record of `/submit`.", body = SubmitResponse)),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, &[ErrorCode::InvalidAddress, ErrorCode::FlowTransactionMismatch, ErrorCode::FlowSignatureMismatch]].concat())))),
)]
pub async fn job_result<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(runner): AddressParam,
    RawBody(body): RawBody,
) -> Result<Response, HttpError> {
    let is_result = |tx: &Transaction| {
        tx.to == Some(JOB_DISPATCHER_ADDRESS)
            && Message::decode(&tx.payload).is_ok_and(|message| {
                matches!(JobCall::decode(&message.handler, &message.payload), Ok(JobCall::SubmitResult { .. }))
            })
    };
    admit_flow(&state, runner, &body, is_result, "a submit_result of the job dispatcher").await
}

#[cfg(test)]
mod tests {
    use crate::backend::{
        jobs::mock::{JobsMock, job},
        runners::mock::{RunnersMock, runner_info, with_registered_runner},
        transactions::mock::TransactionsMock,
    };
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::{
        Address, ErrorCode,
        api::{DelegationInfo, RunnerInfo},
    };
    use serde_json::json;

    fn runner(n: u8, health: &str) -> RunnerInfo {
        runner_info(Address([n; 20]), health)
    }

    fn backend() -> MockBackend {
        MockBackend::with(|data: &mut RunnersMock| {
            data.runners = vec![runner(1, "healthy"), runner(2, "paused"), runner(3, "healthy")];
            data.delegations.insert(
                Address([9; 20]),
                vec![DelegationInfo {
                    runner: Address([1; 20]),
                    amount: 7,
                    since_height: 3,
                    pending: Vec::new(),
                    rewards: 0,
                }],
            );
        })
    }

    fn with_runner() -> MockBackend {
        with_registered_runner()
    }

    fn signed_request(unsigned: &[u8], signature: &[u8]) -> Vec<u8> {
        use base64::Engine as _;
        let unsigned = base64::engine::general_purpose::STANDARD.encode(unsigned);
        serde_json::to_vec(
            &json!({"unsigned_transaction_base64": unsigned, "signature": format!("0x{}", hex::encode(signature))}),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn the_heartbeat_flow_signs_the_nodes_transaction() {
        use base64::Engine as _;
        use drover_types::Transaction;
        let backend = with_runner();
        let app = app(&backend);
        let runner = key(0);
        let path = format!("/runner/{}/heartbeat", runner.address().to_hex());
        let payload = get(&app, &format!("{path}_payload")).await.json();
        let decode =
            |field: &str| base64::engine::general_purpose::STANDARD.decode(payload[field].as_str().unwrap()).unwrap();
        let unsigned = decode("unsigned_transaction_base64");
        let message = decode("message_to_sign_base64");
        let tx = Transaction::decode(&unsigned).unwrap();
        assert_eq!(message, tx.signing_hash().0, "the message is the signing hash");
        assert_eq!(payload["nonce"], json!(tx.nonce));
        let signature = tx.clone().sign(&runner).signature.unwrap().to_rsv();

        // Another key's signature, a forged transaction, a non-heartbeat: refused with their codes.
        let other = tx.clone().sign(&key(1)).signature.unwrap().to_rsv();
        post(&app, &path, "application/json", signed_request(&unsigned, &other))
            .await
            .assert_error(400, ErrorCode::FlowSignatureMismatch);
        post(&app, &path, "application/json", signed_request(&unsigned, &[1; 64]))
            .await
            .assert_error(400, ErrorCode::FlowSignatureMismatch);
        let forged = Transaction { value: 1, ..tx.clone() }.encode_unsigned();
        post(&app, &path, "application/json", signed_request(&forged, &signature))
            .await
            .assert_error(400, ErrorCode::FlowTransactionMismatch);
        let elsewhere = Transaction { to: Some(Address([5; 20])), ..tx.clone() }.encode_unsigned();
        post(&app, &path, "application/json", signed_request(&elsewhere, &signature))
            .await
            .assert_error(400, ErrorCode::FlowTransactionMismatch);
        post(&app, &path, "application/json", b"{".to_vec()).await.assert_error(400, ErrorCode::BadRequest);

        // v as 27/28 is accepted; the answer is /submit's.
        let mut legacy = signature;
        legacy[64] += 27;
        let answer = post(&app, &path, "application/json", signed_request(&unsigned, &legacy)).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json()["accepted"], json!(1));
        assert_eq!(backend.part::<TransactionsMock>().lock().submitted.len(), 1);

        let stranger = format!("/runner/{}/heartbeat_payload", Address([4; 20]).to_hex());
        get(&app, &stranger).await.assert_error(404, ErrorCode::RunnerNotFound);
    }

    #[tokio::test]
    async fn the_job_result_flow_is_for_assigned_runners_and_submit_results_only() {
        use base64::Engine as _;
        use drover_types::{H256, Transaction};
        let runner = key(0);
        let answer = drover_types::api::JobResultInfo {
            runner: runner.address(),
            result: b"out".to_vec(),
            height: 3,
            tx_hash: None,
        };
        let backend = MockBackend::with(|data: &mut RunnersMock| {
            data.runners = vec![RunnerInfo { address: runner.address(), ..super::tests::runner(0, "healthy") }];
        });
        backend.edit(|data: &mut JobsMock| {
            data.jobs = vec![
                (job(1, "assigned", &[runner.address()]), Vec::new(), None),
                (job(2, "assigned", &[Address([7; 20])]), Vec::new(), None),
                (job(3, "completed", &[runner.address()]), Vec::new(), None),
                (job(5, "assigned", &[runner.address()]), vec![answer], None),
            ];
        });
        let app = app(&backend);
        let base = format!("/runner/{}", runner.address().to_hex());
        let payload_for = |id: u8| {
            format!("{base}/job_result_payload?job_id=0x{}&result_base64=b3V0", format!("{id:02x}").repeat(32))
        };
        let payload = get(&app, &payload_for(1)).await.json();
        let unsigned = base64::engine::general_purpose::STANDARD
            .decode(payload["unsigned_transaction_base64"].as_str().unwrap())
            .unwrap();
        let tx = Transaction::decode(&unsigned).unwrap();
        let signature = tx.clone().sign(&runner).signature.unwrap().to_rsv();
        let path = format!("{base}/job_result");

        // Not assigned, or the job is over: 7003; unknown job: 7002; bad query: 1001.
        get(&app, &payload_for(2)).await.assert_error(409, ErrorCode::RunnerNotAssigned);
        get(&app, &payload_for(3)).await.assert_error(409, ErrorCode::RunnerNotAssigned);
        // Already answered: 7003 too, rather than a transaction the dispatcher refuses at a fee.
        get(&app, &payload_for(5)).await.assert_error(409, ErrorCode::RunnerNotAssigned);
        get(&app, &payload_for(4)).await.assert_error(404, ErrorCode::JobNotFound);
        get(&app, &format!("{base}/job_result_payload?job_id=0x01")).await.assert_error(400, ErrorCode::BadRequest);
        let bad_base64 = format!("{base}/job_result_payload?job_id=0x{}&result_base64=%%%", "01".repeat(32));
        get(&app, &bad_base64).await.assert_error(400, ErrorCode::BadRequest);

        // Another key's signature: 7005; a heartbeat (another flow's transaction) signed by
        // the runner: 7004.
        let other = tx.clone().sign(&key(1)).signature.unwrap().to_rsv();
        post(&app, &path, "application/json", signed_request(&unsigned, &other))
            .await
            .assert_error(400, ErrorCode::FlowSignatureMismatch);
        let heartbeat = get(&app, &format!("{base}/heartbeat_payload")).await.json();
        let heartbeat = base64::engine::general_purpose::STANDARD
            .decode(heartbeat["unsigned_transaction_base64"].as_str().unwrap())
            .unwrap();
        let heartbeat_signature = Transaction::decode(&heartbeat).unwrap().sign(&runner).signature.unwrap().to_rsv();
        post(&app, &path, "application/json", signed_request(&heartbeat, &heartbeat_signature))
            .await
            .assert_error(400, ErrorCode::FlowTransactionMismatch);
        // And a result posted to the heartbeat flow: 7004 too.
        post(&app, &format!("{base}/heartbeat"), "application/json", signed_request(&unsigned, &signature))
            .await
            .assert_error(400, ErrorCode::FlowTransactionMismatch);

        let answer = post(&app, &path, "application/json", signed_request(&unsigned, &signature)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
        let submitted = backend.part::<TransactionsMock>().lock().submitted.clone();
        assert_eq!(submitted.len(), 1);
        assert_eq!(submitted[0].sender, runner.address());
        let jobs = get(&app, &format!("{base}/jobs")).await.json();
        assert_eq!(jobs["total_count"], json!(1));
        assert_eq!(jobs["jobs"][0]["job_id"], json!(H256([1; 32]).to_string()));
        // An address that never registered: 7000, for its jobs and its flows alike.
        let stranger = format!("/runner/{}", Address([9; 20]).to_hex());
        get(&app, &format!("{stranger}/jobs")).await.assert_error(404, ErrorCode::RunnerNotFound);
        post(&app, &format!("{stranger}/job_result"), "application/json", signed_request(&unsigned, &signature))
            .await
            .assert_error(404, ErrorCode::RunnerNotFound);
    }

    #[tokio::test]
    async fn runners_and_delegations() {
        let app = app(&backend());
        // Every registered runner, each with its health.
        let active = get(&app, "/runners/active?limit=1&offset=2").await.json();
        assert_eq!((active["total_count"].clone(), active["limit"].clone()), (json!(3), json!(1)));
        assert_eq!(active["runners"][0]["address"], json!(Address([3; 20]).to_hex()));
        let paused = get(&app, "/runners/active?limit=1&offset=1").await.json();
        assert_eq!(paused["runners"][0]["health"], json!("paused"));
        // Native amounts are JSON integers, above 2^64 too (read as text: `Value` stops there).
        let text = get(&app, "/runners/active?limit=1&offset=2").await.text();
        assert!(text.contains(&format!("\"delegated_stake\":{},", u128::MAX)), "{text}");
        assert_eq!(active["runners"][0]["rate_card"], json!({"price_per_job": 5}));
        let one = get(&app, &format!("/runner/{}", Address([2; 20]).to_hex())).await;
        assert_eq!(one.status, StatusCode::OK);
        assert_eq!(one.json()["health"], json!("paused"));
        get(&app, &format!("/runner/{}", Address([4; 20]).to_hex())).await.assert_error(404, ErrorCode::RunnerNotFound);
        get(&app, "/runner/0x12").await.assert_error(400, ErrorCode::InvalidAddress);
        let list = get(&app, &format!("/account/{}/delegations", Address([9; 20]).to_hex())).await.json();
        assert_eq!(list["delegations"][0]["amount"], json!(7));
        assert_eq!(list["total_count"], json!(1));
        let none = get(&app, &format!("/account/{}/delegations", Address([8; 20]).to_hex())).await.json();
        assert_eq!(none["delegations"], json!([]));
        get(&app, "/account/zz/delegations").await.assert_error(400, ErrorCode::InvalidAddress);
    }
}
