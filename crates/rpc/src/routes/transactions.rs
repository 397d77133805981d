//! Transactions: `POST /submit`, `POST /submit_wait`, `GET /transaction/{hash}`,
//! `GET /transaction/{hash}/receipt`, `GET /mempool/transaction/{hash}`.
//!
//! Admission itself lives in the `submission` module; these handlers shape its outcomes. Both
//! submit routes answer 200 when at least one transaction was accepted, else the status of the
//! first refusal with its fields repeated at the top level.
//!
//! `/submit_wait` subscribes to finalized heights before admitting, so a block finalized while
//! the submission is being admitted is not missed, then re-reads the receipts of the accepted
//! transactions after every finalized block until all are known or `timeout_ms` passes. At most
//! `SUBMIT_WAITS_IN_FLIGHT_MAX` waits run at once (each costs receipt reads on every block); one
//! more is refused before admission, 429 with code 1004 and `Retry-After`.

use crate::{
    backend::Backend,
    error::{HttpError, outcome_response},
    extract::{ApiQuery, HashParam, RawBody},
    limits::{RETRY_AFTER_SECS_MIN, WAIT_TIMEOUT_MS_DEFAULT, WAIT_TIMEOUT_MS_MAX, WAIT_TIMEOUT_MS_MIN},
    openapi::{SUBMIT_ERRORS, errors},
    rate_limit::window::Limiter,
    state::AppState,
    submission::{Admission, admit, admit_verified},
};
use axum::{Json, extract::State, http::HeaderMap, response::Response};
use drover_types::{
    ErrorCode, VerifiedTransaction,
    api::{ReceiptInfo, SubmitResponse, SubmitResult, SubmitWaitResponse, SubmitWaitResult, TransactionInfo, paths},
};
use serde::Deserialize;
use std::time::Duration;
use tokio::time::{Instant, timeout_at};
use utoipa_axum::{router::OpenApiRouter, routes};

/// Body of `POST /submit` and `/submit_wait` as the document shows it: raw bytes of the
/// canonical CBOR envelope `{"Transactions": [tx, ...]}`.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct SubmissionBytes(pub Vec<u8>);

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("transactions", "Submission, transactions and receipts"))
        .routes(routes!(submit))
        .routes(routes!(submit_wait))
        .routes(routes!(transaction))
        .routes(routes!(receipt))
        .routes(routes!(mempool_transaction))
}

/// `POST /submit`: decodes a CBOR submission and admits each transaction on its own.
#[utoipa::path(
    post,
    path = paths::SUBMIT,
    tag = "transactions",
    summary = "Submit a batch of signed transactions",
    description = "Body: canonical CBOR `{\"Transactions\": [tx, ...]}` holding 1 to 50 signed \
        transactions, at most 524,288 bytes. Each transaction is admitted or refused on its own; \
        `results` follow submission order.",
    request_body(content(
        (SubmissionBytes = "application/cbor"),
        (SubmissionBytes = "application/octet-stream"),
    ), description = "Submission envelope"),
    responses(
        (status = 200, description = "At least one transaction accepted.", body = SubmitResponse),
        (status = 415, description = "`1001 bad_request`: Content-Type is neither application/cbor nor application/octet-stream.", body = drover_types::api::ErrorBody),
    ),
    extensions(("x-errors" = json!(errors(SUBMIT_ERRORS)))),
)]
pub async fn submit<B: Backend>(
    State(state): State<AppState<B>>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, HttpError> {
    let admission = admit(&state.backend, &headers, body).await?;
    let refusal = admission.refusal().map(|err| err.code);
    Ok(outcome_response(refusal, submit_response(&admission), &admission.concealer))
}

/// The `/submit` record of an admission (also what the signed runner flows answer).
pub(crate) fn submit_response(admission: &Admission) -> SubmitResponse {
    let refusal = admission.refusal();
    SubmitResponse {
        results: admission
            .outcomes
            .iter()
            .map(|o| match &o.verdict {
                Ok(()) => SubmitResult::accepted(o.hash),
                Err(err) => SubmitResult::rejected(o.hash, err),
            })
            .collect(),
        accepted: admission.accepted(),
        rejected: admission.rejected(),
        code: refusal.map(|err| err.code.code()),
        error: refusal.map(|err| err.code.name().to_owned()),
        message: refusal.map(|err| err.message.clone()),
    }
}

/// Admits one signed transaction, whose sender the caller recovered, exactly like a `/submit`
/// of it alone and answers the same record and status: what the signed runner flows and the
/// storage-relay transaction routes answer once they have checked the transaction is theirs.
pub(crate) async fn submit_one<B: Backend>(backend: &B, tx: VerifiedTransaction) -> Response {
    let admission = admit_verified(backend, tx).await;
    let refusal = admission.refusal().map(|err| err.code);
    outcome_response(refusal, submit_response(&admission), &admission.concealer)
}

/// Query of `/submit_wait`, kept as text so a bad value gets 2015 rather than a generic 1001.
#[derive(Deserialize)]
pub struct WaitQuery {
    timeout_ms: Option<String>,
}

fn wait_timeout(query: &WaitQuery) -> Result<Duration, HttpError> {
    let Some(text) = query.timeout_ms.as_deref() else {
        return Ok(Duration::from_millis(WAIT_TIMEOUT_MS_DEFAULT));
    };
    text.parse::<u64>()
        .ok()
        .filter(|ms| {
            text.bytes().all(|b| b.is_ascii_digit()) && (WAIT_TIMEOUT_MS_MIN..=WAIT_TIMEOUT_MS_MAX).contains(ms)
        })
        .map(Duration::from_millis)
        .ok_or_else(|| {
            HttpError::new(
                ErrorCode::InvalidWaitTimeout,
                format!(
                    "timeout_ms must be an integer from {WAIT_TIMEOUT_MS_MIN} to {WAIT_TIMEOUT_MS_MAX}, got {text:?}"
                ),
            )
        })
}

/// `POST /submit_wait`: admits like `/submit`, then waits up to `timeout_ms` for the receipts.
#[utoipa::path(
    post,
    path = paths::SUBMIT_WAIT,
    tag = "transactions",
    summary = "Submit a batch and wait for its receipts",
    description = "Same body and admission as `/submit`; then waits until every accepted \
        transaction has a receipt or `timeout_ms` passes. Per transaction: `success`, `reverted` \
        or `failed` with `block_height`, `cycles_used`, `cells_used`, `fee`, `revert_reason` and \
        the execution `error`; `pending` on timeout; `rejected` with `code`/`error`/`message`.",
    params(("timeout_ms" = Option<u64>, Query, minimum = 100, maximum = 10_000, description = "Wait in milliseconds, 100 to 10,000 (default 5,000).")),
    request_body(content(
        (SubmissionBytes = "application/cbor"),
        (SubmissionBytes = "application/octet-stream"),
    ), description = "Submission envelope"),
    responses(
        (status = 200, description = "At least one transaction accepted.", body = SubmitWaitResponse),
        (status = 415, description = "`1001 bad_request`: Content-Type is neither application/cbor nor application/octet-stream.", body = drover_types::api::ErrorBody),
        (status = 429, description = "`1004 rate_limited`: the global rate limit, or 256 waits (`SUBMIT_WAITS_IN_FLIGHT_MAX`) already in flight; nothing was admitted. `2016 admission_busy`: the mempool is full.", body = drover_types::api::ErrorBody),
    ),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, &[ErrorCode::InvalidWaitTimeout]].concat())))),
)]
pub async fn submit_wait<B: Backend>(
    State(state): State<AppState<B>>,
    ApiQuery(query): ApiQuery<WaitQuery>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, HttpError> {
    let timeout = wait_timeout(&query)?;
    // Held until the answer: the slot of this wait.
    let _slot = state.submit_waits.clone().try_acquire_owned().map_err(|_| {
        state.metrics.rate_limited(Limiter::SubmitWaits);
        HttpError::rate_limited(
            RETRY_AFTER_SECS_MIN,
            format!(
                "{} /submit_wait requests are already waiting, the most this node serves at once; \
                 retry later, or submit with /submit and read /transaction/{{hash}}/receipt",
                state.submit_waits_max
            ),
        )
    })?;
    let mut finalized = state.backend.finalized_heights();
    let admission = admit(&state.backend, &headers, body).await?;
    let deadline = Instant::now() + timeout;

    let mut results: Vec<SubmitWaitResult> = admission
        .outcomes
        .iter()
        .map(|o| match &o.verdict {
            Ok(()) => SubmitWaitResult::pending(o.hash),
            Err(err) => SubmitWaitResult::rejected(o.hash, err),
        })
        .collect();
    loop {
        let mut waiting = false;
        for result in results.iter_mut().filter(|r| r.status == drover_types::api::WaitStatus::Pending) {
            match state.backend.receipt(result.hash).await {
                Ok(Some(receipt)) => *result = SubmitWaitResult::executed(&receipt),
                Ok(None) => waiting = true,
                Err(err) => {
                    // Reported as pending: the transaction was admitted, and its receipt can
                    // still be read later from /transaction/{hash}/receipt.
                    tracing::warn!(hash = %result.hash, error = %err, "receipt lookup failed while waiting");
                    waiting = true;
                }
            }
        }
        if !waiting {
            break;
        }
        match timeout_at(deadline, finalized.changed()).await {
            Ok(Ok(())) => continue,
            // Timed out, or the node stopped finalizing for good (shutting down).
            Ok(Err(_)) | Err(_) => break,
        }
    }

    let refusal = admission.refusal();
    let body = SubmitWaitResponse {
        results,
        accepted: admission.accepted(),
        rejected: admission.rejected(),
        code: refusal.map(|err| err.code.code()),
        error: refusal.map(|err| err.code.name().to_owned()),
        message: refusal.map(|err| err.message.clone()),
    };
    Ok(outcome_response(refusal.map(|err| err.code), body, &admission.concealer))
}

/// 404 for a transaction the node cannot show, saying why the mempool dropped it if it did.
fn not_found<B: Backend>(state: &AppState<B>, what: &str, hash: drover_types::H256) -> HttpError {
    let message = match state.backend.dropped_reason(hash) {
        Some(reason) => format!("no {what} for transaction {hash}: it was dropped from the mempool ({reason})"),
        None => format!("no {what} for transaction {hash}"),
    };
    HttpError::new(ErrorCode::NotFound, message)
}

/// `GET /transaction/{hash}`: a transaction of a finalized block, or one still pending.
#[utoipa::path(
    get,
    path = paths::TRANSACTION,
    tag = "transactions",
    summary = "A transaction by hash",
    description = "An included transaction (`status` `included`, with `block_height` and \
        `index`), or else one still in the mempool (`status` `pending`).",
    params(("hash" = String, Path, description = "Transaction hash, 32 bytes of hex (`0x` optional).")),
    responses((status = 200, description = "The transaction.", body = TransactionInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotFound])))),
)]
pub async fn transaction<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(hash): HashParam,
) -> Result<Json<TransactionInfo>, HttpError> {
    if let Some(included) = state.backend.transaction(hash).await? {
        return Ok(Json(TransactionInfo::included(&included.tx, included.block_height, included.index)));
    }
    state
        .backend
        .pending_transaction(hash)
        .map(|tx| Json(TransactionInfo::pending(&tx)))
        .ok_or_else(|| not_found(&state, "transaction", hash))
}

/// `GET /transaction/{hash}/receipt`: the receipt of an included transaction (404 until it is
/// included).
#[utoipa::path(
    get,
    path = paths::TRANSACTION_RECEIPT,
    tag = "transactions",
    summary = "The receipt of an included transaction",
    params(("hash" = String, Path, description = "Transaction hash, 32 bytes of hex (`0x` optional).")),
    responses((status = 200, description = "The receipt; 404 until the transaction is in a finalized block.", body = ReceiptInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotFound])))),
)]
pub async fn receipt<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(hash): HashParam,
) -> Result<Json<ReceiptInfo>, HttpError> {
    let receipt = state.backend.receipt(hash).await?.ok_or_else(|| not_found(&state, "receipt", hash))?;
    Ok(Json(ReceiptInfo::from(&receipt)))
}

/// `GET /mempool/transaction/{hash}`: a transaction still pending in the mempool.
#[utoipa::path(
    get,
    path = paths::MEMPOOL_TRANSACTION,
    tag = "transactions",
    summary = "A transaction still pending in the mempool",
    params(("hash" = String, Path, description = "Transaction hash, 32 bytes of hex (`0x` optional).")),
    responses((status = 200, description = "The pending transaction (`status` `pending`).", body = TransactionInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotFound])))),
)]
pub async fn mempool_transaction<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(hash): HashParam,
) -> Result<Json<TransactionInfo>, HttpError> {
    state
        .backend
        .pending_transaction(hash)
        .map(|tx| Json(TransactionInfo::pending(&tx)))
        .ok_or_else(|| not_found(&state, "pending transaction", hash))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::IncludedTransaction;
    use crate::backend::{accounts::mock::AccountsMock, transactions::mock::TransactionsMock};
    use crate::mock::*;
    use axum::{
        body::Body,
        http::{Request, StatusCode, header},
    };
    use drover_types::{
        Address, Signature, Transaction, keccak256,
        submission::{MAX_SUBMISSION_BYTES, encode_submission},
    };

    const HASH_ZERO: &str = "0x0000000000000000000000000000000000000000000000000000000000000000";

    async fn submit(mock: &MockBackend, body: Vec<u8>) -> Answer {
        post_cbor(&app(mock), "/submit", body).await
    }

    #[tokio::test]
    async fn submit_accepts_a_batch_in_order() {
        let mock = MockBackend::default();
        let txs = [signed(0, 0), signed(1, 0), signed(0, 1)];
        let answer = submit(&mock, encode_submission(&txs)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        let body = answer.json();
        assert_eq!(body["accepted"], 3);
        assert_eq!(body["rejected"], 0);
        assert!(body.get("code").is_none());
        for (result, tx) in body["results"].as_array().unwrap().iter().zip(&txs) {
            assert_eq!(result, &serde_json::json!({"hash": tx.hash().to_hex(), "status": "accepted"}));
        }
        let submitted = mock.part::<TransactionsMock>().lock().submitted.iter().map(|tx| tx.hash).collect::<Vec<_>>();
        assert_eq!(submitted, txs.iter().map(Transaction::hash).collect::<Vec<_>>());
    }

    /// Scrapes `/metrics` until `line` is in it (the tasks being waited for run meanwhile); the
    /// count bounds the wait.
    async fn until_metrics_show(app: &axum::Router, line: &str) {
        for _ in 0..10_000 {
            if get(app, "/metrics").await.text().lines().any(|l| l == line) {
                return;
            }
            tokio::task::yield_now().await;
        }
        panic!("/metrics never showed {line}");
    }

    #[tokio::test]
    async fn waits_beyond_the_cap_are_refused_429_before_admission() {
        let mock = MockBackend::default();
        let config = crate::RpcConfig {
            submit_waits_in_flight_max: 2,
            global_rate_limit_per_sec: 1_000_000,
            ..crate::RpcConfig::default()
        };
        let app = crate::mock::api(mock.clone(), config);
        // Two waits of 10 s on a chain that finalizes nothing hold both slots.
        let waiting: Vec<_> = (0..2)
            .map(|i| {
                let app = app.clone();
                tokio::spawn(async move {
                    post_cbor(&app, "/submit_wait?timeout_ms=10000", encode_submission(&[signed(i, 0)])).await
                })
            })
            .collect();
        until_metrics_show(&app, "drover_rpc_submit_waits_in_flight 2").await;

        let third = signed(2, 0);
        let refused =
            post_cbor(&app, "/submit_wait?timeout_ms=100", encode_submission(std::slice::from_ref(&third))).await;
        refused.assert_error(429, ErrorCode::RateLimited);
        assert_eq!(refused.header(header::RETRY_AFTER), Some("1"));
        assert!(refused.json()["message"].as_str().unwrap().contains("/submit_wait"));
        assert!(
            !mock.part::<TransactionsMock>().lock().submitted.iter().any(|tx| tx.hash == third.hash()),
            "a refused wait admits nothing"
        );
        // /submit is not capped.
        assert_eq!(submit(&mock, encode_submission(&[signed(2, 1)])).await.status, StatusCode::OK);

        // A wait that ends frees its slot.
        for task in &waiting {
            task.abort();
        }
        until_metrics_show(&app, "drover_rpc_submit_waits_in_flight 0").await;
        let answer = post_cbor(&app, "/submit_wait?timeout_ms=100", encode_submission(&[third])).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        let text = get(&app, "/metrics").await.text();
        assert!(text.contains(r#"drover_rpc_rate_limited_total{limiter="submit_waits"} 1"#), "{text}");
    }

    #[tokio::test]
    async fn internal_refusals_show_only_a_request_id() {
        let detail = "state read failed: qmdb journal /srv/drover/state/7 is torn";
        let mock = MockBackend::with(|data: &mut TransactionsMock| {
            data.submit_refusal = Some(drover_types::admission::AdmissionError::Unavailable(detail.into()));
        });
        for path in ["/submit", "/submit_wait?timeout_ms=100"] {
            let answer = post_cbor(&app(&mock), path, encode_submission(&[signed(0, 0), signed(1, 0)])).await;
            answer.assert_error(500, ErrorCode::AdmissionRetry);
            let id = answer.header(crate::error::REQUEST_ID_HEADER).unwrap_or_else(|| panic!("{path}: no request id"));
            let message = format!("internal error (request id {id})");
            let body = answer.json();
            assert_eq!(body["message"], message, "{path}: {body}");
            for result in body["results"].as_array().unwrap() {
                assert_eq!(result["code"], 2017, "{path}: {body}");
                assert_eq!(result["message"], message, "{path}: {body}");
            }
            assert!(!answer.text().contains("qmdb"), "{path}: {}", answer.text());
        }
        // Ordinary refusals keep their message and carry no request id.
        let answer = submit(&MockBackend::default(), encode_submission(&[transfer(7, 0).sign(&key(0))])).await;
        answer.assert_error(400, ErrorCode::WrongChainId);
        assert_eq!(answer.header(crate::error::REQUEST_ID_HEADER), None);
    }

    #[tokio::test]
    async fn submit_accepts_octet_stream_and_a_missing_content_type() {
        let mock = MockBackend::default();
        let answer = post(&app(&mock), "/submit", "application/octet-stream", encode_submission(&[signed(0, 0)])).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        let request = Request::post("/submit").body(Body::from(encode_submission(&[signed(1, 0)]))).unwrap();
        let answer = send(&app(&mock), request).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    }

    #[tokio::test]
    async fn other_content_types_are_415_with_1001() {
        let answer =
            post(&app(&MockBackend::default()), "/submit", "application/json", encode_submission(&[signed(0, 0)]))
                .await;
        answer.assert_error(415, ErrorCode::BadRequest);
    }

    #[tokio::test]
    async fn mixed_batch_reports_each_transaction() {
        let mock = MockBackend::default();
        let wrong_chain = transfer(7, 0).sign(&key(0));
        let mut bad_signature = signed(1, 0);
        if let Some(sig) = bad_signature.signature.as_mut() {
            sig.r = [0; 32];
        }
        let not_a_tx = vec![0x05];
        let good = signed(2, 0);
        let items = vec![wrong_chain.encode(), bad_signature.encode(), not_a_tx.clone(), good.encode()];
        let answer = submit(&mock, envelope(&items)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        let body = answer.json();
        assert_eq!((body["accepted"].as_u64(), body["rejected"].as_u64()), (Some(1), Some(3)));
        assert!(body.get("code").is_none());
        let results = body["results"].as_array().unwrap();
        let expect = [
            (wrong_chain.hash(), ErrorCode::WrongChainId),
            (bad_signature.hash(), ErrorCode::InvalidSignature),
            (keccak256(&not_a_tx), ErrorCode::MalformedTransaction),
        ];
        for (result, (hash, code)) in results.iter().zip(expect) {
            assert_eq!(result["hash"], hash.to_hex(), "{result}");
            assert_eq!(result["status"], "rejected");
            assert_eq!(result["code"], code.code());
            assert_eq!(result["error"], code.name());
            assert!(result["message"].is_string());
        }
        assert_eq!(results[3], serde_json::json!({"hash": good.hash().to_hex(), "status": "accepted"}));
        // Only the survivor reached the mempool.
        assert_eq!(mock.part::<TransactionsMock>().lock().submitted.len(), 1);
    }

    #[tokio::test]
    async fn nothing_accepted_answers_the_first_refusals_status_and_fields() {
        let mock = MockBackend::default();
        let answer = submit(&mock, envelope(&[transfer(7, 0).sign(&key(0)).encode(), vec![0x05]])).await;
        answer.assert_error(400, ErrorCode::WrongChainId);
        let body = answer.json();
        assert_eq!(body["message"], body["results"][0]["message"]);
        assert_eq!((body["accepted"].as_u64(), body["rejected"].as_u64()), (Some(0), Some(2)));
        assert_eq!(body["results"][1]["code"], 2000);
    }

    #[tokio::test]
    async fn mempool_refusals_are_per_transaction() {
        let mock = MockBackend::default();
        mock.part::<AccountsMock>().lock().accounts.values_mut().for_each(|account| account.nonce = 5);
        let answer = submit(&mock, encode_submission(&[signed(0, 4)])).await;
        answer.assert_error(400, ErrorCode::NonceTooLow);
        let answer = submit(&mock, encode_submission(&[signed(0, 4), signed(0, 5)])).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json()["results"][0]["code"], 2003);
        assert_eq!(answer.json()["results"][1]["status"], "accepted");
    }

    #[tokio::test]
    async fn a_signature_over_another_transaction_recovers_another_sender() {
        let mock = MockBackend::default();
        let original = signed(0, 0);
        let mut forged = transfer(CHAIN_ID, 1);
        forged.signature = original.signature;
        let answer = submit(&mock, encode_submission(&[original.clone(), forged.clone()])).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        let body = answer.json();
        assert_eq!(body["results"][0]["status"], "accepted");
        // The forged copy recovers some unrelated key, which the mempool knows nothing of.
        assert_eq!(body["results"][1]["code"], ErrorCode::InsufficientBalance.code());
        let submitted = mock.part::<TransactionsMock>().lock().submitted.clone();
        assert_eq!(submitted[0].sender, key(0).address());
        assert_eq!(submitted[1].hash, forged.hash());
        assert_ne!(submitted[1].sender, key(0).address());
    }

    #[tokio::test]
    async fn corrupted_or_missing_signatures_are_2001() {
        let mock = MockBackend::default();
        let mut high_s = signed(0, 0);
        high_s.signature = Some(Signature { y_parity: 0, r: [1; 32], s: [0xff; 32] });
        let unsigned = transfer(CHAIN_ID, 0);
        for tx in [high_s, unsigned] {
            let answer = submit(&mock, encode_submission(&[tx])).await;
            answer.assert_error(400, ErrorCode::InvalidSignature);
        }
        assert!(mock.part::<TransactionsMock>().lock().submitted.is_empty());
    }

    #[tokio::test]
    async fn envelope_refusals() {
        let mock = MockBackend::default();
        let canonical = encode_submission(&[signed(0, 0)]);
        let mut trailing = canonical.clone();
        trailing.push(0x00);
        let mut non_shortest = vec![0xb8, 0x01];
        non_shortest.extend_from_slice(&canonical[1..]);
        let cases: [(Vec<u8>, ErrorCode); 6] = [
            (vec![0xff, 0x00, 0x13], ErrorCode::MalformedCbor),
            (Vec::new(), ErrorCode::MalformedCbor),
            (trailing, ErrorCode::MalformedCbor),
            (non_shortest, ErrorCode::NonCanonicalCbor),
            (envelope(&[]), ErrorCode::InvalidBatch),
            (envelope(&vec![signed(0, 0).encode(); 51]), ErrorCode::InvalidBatch),
        ];
        for (body, code) in cases {
            submit(&mock, body).await.assert_error(400, code);
        }
        assert!(mock.part::<TransactionsMock>().lock().submitted.is_empty());
        // 50 is still fine.
        let fifty: Vec<_> = (0..50).map(|nonce| signed(0, nonce)).collect();
        let answer = submit(&mock, encode_submission(&fifty)).await;
        assert_eq!(answer.json()["accepted"], 50);
    }

    #[tokio::test]
    async fn oversized_bodies_are_413() {
        let mock = MockBackend::default();
        let app = app(&mock);
        post_cbor(&app, "/submit", vec![0; MAX_SUBMISSION_BYTES + 1])
            .await
            .assert_error(413, ErrorCode::SubmissionTooLarge);
        post_cbor(&app, "/submit_wait", vec![0; MAX_SUBMISSION_BYTES + 1])
            .await
            .assert_error(413, ErrorCode::SubmissionTooLarge);
        // Past 1 MB: refused on Content-Length before reading, or while reading without one.
        let huge = vec![0; crate::limits::MAX_REQUEST_BYTES + 1];
        let with_length = Request::post("/submit")
            .header(header::CONTENT_TYPE, "application/cbor")
            .header(header::CONTENT_LENGTH, huge.len())
            .body(Body::from(huge.clone()))
            .unwrap();
        send(&app, with_length).await.assert_error(413, ErrorCode::PayloadTooLarge);
        post_cbor(&app, "/submit", huge).await.assert_error(413, ErrorCode::PayloadTooLarge);
        assert!(mock.part::<TransactionsMock>().lock().submitted.is_empty());
    }

    #[tokio::test]
    async fn submit_wait_reports_receipts() {
        let mock = MockBackend::with(|data: &mut TransactionsMock| data.include_on_submit = true);
        let txs = [signed(0, 0), signed(1, 0)];
        let mut items: Vec<_> = txs.iter().map(Transaction::encode).collect();
        items.push(transfer(7, 0).sign(&key(2)).encode());
        let answer = post_cbor(&app(&mock), "/submit_wait?timeout_ms=10000", envelope(&items)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        let body = answer.json();
        assert_eq!((body["accepted"].as_u64(), body["rejected"].as_u64()), (Some(2), Some(1)));
        for (result, tx) in body["results"].as_array().unwrap().iter().zip(&txs) {
            assert_eq!(
                result,
                &serde_json::json!({
                    "hash": tx.hash().to_hex(),
                    "status": "success",
                    "block_height": 1,
                    "cycles_used": 21_000,
                    "cells_used": 0,
                    "fee": 21_000 * 8,
                })
            );
        }
        let rejected = &body["results"][2];
        assert_eq!(rejected["status"], "rejected");
        assert_eq!(rejected["code"], 2002);
        assert_eq!(rejected["error"], "wrong_chain_id");
    }

    #[tokio::test]
    async fn submit_wait_reports_execution_errors() {
        let mock = MockBackend::default();
        let tx = verified(0, 0);
        let mut failed = success_receipt(&tx, 3, 0);
        failed.status = drover_types::TxStatus::Reverted;
        failed.revert_reason = Some("insufficient allowance".to_owned());
        failed.error = Some(drover_types::ExecError::new(drover_types::exec_error::ExecCode::OutOfCycles, "ran out"));
        mock.part::<TransactionsMock>().lock().receipts.insert(tx.hash, failed);
        let answer = post_cbor(&app(&mock), "/submit_wait", encode_submission(std::slice::from_ref(&tx.tx))).await;
        let result = &answer.json()["results"][0];
        assert_eq!(result["status"], "reverted");
        assert_eq!(result["block_height"], 3);
        assert_eq!(result["revert_reason"], "insufficient allowance");
        assert_eq!(result["error"]["code"], "E1005");
        assert_eq!(result["error"]["category"], "precheck");
        assert!(result["error"]["fix"].is_string());
    }

    #[tokio::test]
    async fn submit_wait_times_out_as_pending() {
        let mock = MockBackend::default();
        let tx = signed(0, 0);
        let started = std::time::Instant::now();
        let answer =
            post_cbor(&app(&mock), "/submit_wait?timeout_ms=100", encode_submission(std::slice::from_ref(&tx))).await;
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json()["results"][0], serde_json::json!({"hash": tx.hash().to_hex(), "status": "pending"}));
    }

    #[tokio::test]
    async fn submit_wait_with_nothing_accepted_answers_the_refusal() {
        let answer = post_cbor(
            &app(&MockBackend::default()),
            "/submit_wait",
            encode_submission(&[transfer(7, 0).sign(&key(0))]),
        )
        .await;
        answer.assert_error(400, ErrorCode::WrongChainId);
        assert_eq!(answer.json()["results"][0]["status"], "rejected");
    }

    #[tokio::test]
    async fn submit_wait_timeout_bounds_are_2015() {
        let mock = MockBackend::default();
        let app = app(&mock);
        for bad in ["99", "10001", "0", "-5", "abc", "", "1e3", "+500", "18446744073709551616"] {
            let answer =
                post_cbor(&app, &format!("/submit_wait?timeout_ms={bad}"), encode_submission(&[signed(0, 0)])).await;
            answer.assert_error(400, ErrorCode::InvalidWaitTimeout);
        }
        assert!(mock.part::<TransactionsMock>().lock().submitted.is_empty());
        assert_eq!(wait_timeout(&WaitQuery { timeout_ms: None }), Ok(Duration::from_millis(5_000)));
        assert_eq!(wait_timeout(&WaitQuery { timeout_ms: Some("100".into()) }), Ok(Duration::from_millis(100)));
        assert_eq!(wait_timeout(&WaitQuery { timeout_ms: Some("10000".into()) }), Ok(Duration::from_secs(10)));
    }

    #[tokio::test]
    async fn lookups_of_a_dropped_transaction_say_why() {
        let mock = MockBackend::default();
        let dropped = verified(2, 0);
        mock.part::<TransactionsMock>()
            .lock()
            .dropped
            .insert(dropped.hash, "expired: pending longer than the mempool's time to live".into());
        let app = app(&mock);
        for path in ["/mempool/transaction/{}", "/transaction/{}", "/transaction/{}/receipt"] {
            let answer = get(&app, &path.replace("{}", &dropped.hash.to_string())).await;
            answer.assert_error(404, ErrorCode::NotFound);
            let message = answer.json()["message"].as_str().unwrap().to_owned();
            assert!(message.contains("dropped from the mempool (expired"), "{path}: {message}");
        }
        let unknown = get(&app, &format!("/transaction/{}", verified(3, 0).hash)).await;
        assert!(!unknown.json()["message"].as_str().unwrap().contains("dropped"));
    }

    #[tokio::test]
    async fn transaction_lookups() {
        let mock = MockBackend::default();
        let pending = verified(0, 0);
        let included = verified(1, 0);
        {
            let part = mock.part::<TransactionsMock>();
            let mut data = part.lock();
            data.pending.insert(pending.hash, pending.clone());
            data.receipts.insert(included.hash, success_receipt(&included, 4, 2));
            data.included
                .insert(included.hash, IncludedTransaction { tx: included.clone(), block_height: 4, index: 2 });
        }
        let app = app(&mock);

        let body = get(&app, &format!("/transaction/{}", included.hash)).await.json();
        assert_eq!(body["hash"], included.hash.to_hex());
        assert_eq!(body["from"], key(1).address().to_hex());
        assert_eq!(body["status"], "included");
        assert_eq!((body["block_height"].as_u64(), body["index"].as_u64()), (Some(4), Some(2)));
        assert_eq!(body["to"], Address([0x11; 20]).to_hex());
        assert_eq!((body["value"].as_u64(), body["cycles_limit"].as_u64()), (Some(1), Some(21_000)));
        assert_eq!((body["max_fee_per_cycle"].as_u64(), body["tip_per_cycle"].as_u64()), (Some(10), Some(1)));
        assert_eq!(body["payload"], "");
        assert_eq!(body["signature"]["r"].as_str().map(str::len), Some(66));

        // Without the 0x prefix and in upper case too; a pending one answers from the mempool.
        let bare = hex::encode_upper(pending.hash.0);
        let body = get(&app, &format!("/transaction/{bare}")).await.json();
        assert_eq!((body["status"].as_str(), body["block_height"].is_null()), (Some("pending"), true));
        let body = get(&app, &format!("/mempool/transaction/{}", pending.hash)).await.json();
        assert_eq!(body["status"], "pending");
        get(&app, &format!("/mempool/transaction/{}", included.hash)).await.assert_error(404, ErrorCode::NotFound);

        let body = get(&app, &format!("/transaction/{}/receipt", included.hash)).await.json();
        assert_eq!(
            body,
            serde_json::json!({
                "tx_hash": included.hash.to_hex(),
                "block_height": 4,
                "index": 2,
                "from": key(1).address().to_hex(),
                "to": Address([0x11; 20]).to_hex(),
                "status": "success",
                "cycles_used": 21_000,
                "cells_used": 0,
                "fee": 21_000 * 8,
                "fee_burned": 21_000 * 7,
                "fee_tip": 21_000,
                "events": [],
                "revert_reason": null,
                "error": null,
            })
        );
        get(&app, &format!("/transaction/{}/receipt", pending.hash)).await.assert_error(404, ErrorCode::NotFound);
        get(&app, &format!("/transaction/{HASH_ZERO}")).await.assert_error(404, ErrorCode::NotFound);
        for bad in ["0x1234", "nothex", &HASH_ZERO[..65]] {
            get(&app, &format!("/transaction/{bad}")).await.assert_error(400, ErrorCode::BadRequest);
            get(&app, &format!("/transaction/{bad}/receipt")).await.assert_error(400, ErrorCode::BadRequest);
            get(&app, &format!("/mempool/transaction/{bad}")).await.assert_error(400, ErrorCode::BadRequest);
        }
    }
}
