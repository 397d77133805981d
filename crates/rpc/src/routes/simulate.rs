//! `POST /simulate`: what a transaction would do at the tip, without committing anything.
//!
//! The body is JSON ([`SimulateRequest`]): a signed transaction (its canonical CBOR, base64),
//! whose form and signature are checked as `/submit` checks them (2000, 2001), or the fields of
//! an unsigned one with its sender in `from`. The node runs it as the next block's transaction
//! over the latest finalized state, off the commit path and bounded like `POST /actor/read`
//! (its own threads and queue, a time budget; a full queue is 429), and answers its status,
//! meters, fee, events, revert reason or E-code, limits to send it with and, when asked
//! (`"trace": true`), the trace of the handlers it runs. A transaction the validity rule refuses
//! (nonce, balance, fees, limits) is answered with the code `/submit` would give it.

use crate::{
    backend::{Backend, Simulated, UnsignedTx},
    error::HttpError,
    extract::{RawBody, json_body},
    openapi::errors,
    state::AppState,
};
use axum::{Json, extract::State};
use drover_types::{
    ErrorCode, Transaction,
    api::{SimulateRequest, SimulationInfo, paths},
};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::new().routes(routes!(simulate))
}

/// Refusals of a simulation: the request's form, the transaction's (as `/submit` refuses it);
/// a queue of simulations already full is 429, among the common codes.
const SIMULATE_ERRORS: &[ErrorCode] = &[
    ErrorCode::BadRequest,
    ErrorCode::MalformedTransaction,
    ErrorCode::InvalidSignature,
    ErrorCode::WrongChainId,
    ErrorCode::NonceTooLow,
    ErrorCode::NonceTooHigh,
    ErrorCode::OutOfGas,
    ErrorCode::InsufficientBalance,
    ErrorCode::InvalidFees,
    ErrorCode::BasefeeTooLow,
    ErrorCode::InvalidPayload,
];

/// The transaction a request describes (1001 when it mixes the two forms or names no sender,
/// 2000 when the signed one does not decode, 2001 when its signature recovers no sender). The
/// request's `trace` is read by the handler.
fn simulated(request: SimulateRequest) -> Result<Simulated, HttpError> {
    let SimulateRequest {
        transaction,
        from,
        to,
        value,
        payload,
        nonce,
        cycles_limit,
        cells_limit,
        max_fee_per_cycle,
        max_fee_per_cell,
        tip_per_cycle,
        tip_per_cell,
        trace: _,
    } = request;
    if let Some(bytes) = transaction {
        let unsigned_fields = from.is_some()
            || to.is_some()
            || value.is_some()
            || payload.is_some()
            || nonce.is_some()
            || cycles_limit.is_some()
            || cells_limit.is_some()
            || max_fee_per_cycle.is_some()
            || max_fee_per_cell.is_some()
            || tip_per_cycle.is_some()
            || tip_per_cell.is_some();
        if unsigned_fields {
            return Err(HttpError::new(
                ErrorCode::BadRequest,
                "`transaction` is a signed transaction: it takes no other field",
            ));
        }
        let tx = Transaction::decode(&bytes)
            .map_err(|e| HttpError::new(ErrorCode::MalformedTransaction, format!("transaction: {e}")))?;
        let verified =
            tx.verify().map_err(|e| HttpError::new(ErrorCode::InvalidSignature, format!("transaction: {e}")))?;
        return Ok(Simulated::Signed(verified));
    }
    let from = from.ok_or_else(|| {
        HttpError::new(ErrorCode::BadRequest, "give `transaction` (signed) or `from` (the sender of an unsigned one)")
    })?;
    Ok(Simulated::Unsigned(UnsignedTx {
        from,
        to,
        value: value.unwrap_or(0),
        payload: payload.unwrap_or_default(),
        nonce,
        cycles_limit,
        cells_limit,
        max_fee_per_cycle,
        max_fee_per_cell,
        tip_per_cycle,
        tip_per_cell,
    }))
}

/// `POST /simulate`: runs a transaction at the tip without committing it.
#[utoipa::path(
    post,
    path = paths::SIMULATE,
    tag = "transactions",
    summary = "What a transaction would do at the tip, and limits to send it with",
    description = "Runs a signed transaction, or an unsigned one from `from`, as the next block's transaction over the latest finalized state, committing nothing: status, cycles and cells used, fee, events, revert reason or E-code, and `suggested_cycles_limit` / `suggested_cells_limit` (what it used, plus `margin_percent` of what it used beyond its intrinsic cost, within the block limits). Fields an unsigned transaction leaves out are filled in: the sender's next nonce, the basefees as max fees, no tip, and the block limits capped by what the sender can pay. With `\"trace\": true` (either form) it answers the trace of the handlers the transaction runs too, as `POST /actor/read` does. A transaction the validity rule refuses answers the code `/submit` would. Runs on the read threads with its own queue (429 when full) and the read time budget.",
    request_body(content = SimulateRequest, content_type = "application/json"),
    responses((status = 200, description = "What the transaction would do.", body = SimulationInfo)),
    extensions(("x-errors" = json!(errors(SIMULATE_ERRORS)))),
)]
pub async fn simulate<B: Backend>(
    State(state): State<AppState<B>>,
    RawBody(body): RawBody,
) -> Result<Json<SimulationInfo>, HttpError> {
    let request: SimulateRequest = json_body(&body)?;
    let trace = request.trace.unwrap_or(false);
    Ok(Json(state.backend.simulate(simulated(request)?, trace).await?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::simulation::mock::SimulationMock;
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::{
        Address, H256,
        api::{ReceiptStatus, SimulationInfo},
        error::ApiError,
    };

    fn answer() -> SimulationInfo {
        SimulationInfo {
            status: ReceiptStatus::Success,
            error: None,
            revert_reason: None,
            cycles_used: 30_000,
            cells_used: 10,
            fee: 300_030,
            fee_burned: 300_000,
            fee_tip: 30,
            events: Vec::new(),
            cycles_limit: 1_000_000,
            cells_limit: 100,
            suggested_cycles_limit: 36_000,
            suggested_cells_limit: 12,
            margin_percent: 20,
            nonce: 0,
            block_height: 3,
            state_root: H256::ZERO,
            trace: None,
        }
    }

    #[tokio::test]
    async fn signed_and_unsigned_requests_reach_the_node_checked() {
        let mock = MockBackend::with(|data: &mut SimulationMock| data.answer = Some(Ok(answer())));
        let app = app(&mock);
        let signed = signed(0, 0);
        let body = serde_json::json!({ "transaction": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, signed.encode()), "trace": true });
        let answer = post(&app, "/simulate", "application/json", body.to_string()).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json()["suggested_cycles_limit"], 36_000);
        assert!(answer.json()["trace"].is_object(), "a signed transaction may ask for its trace");
        let from = Address([9; 20]);
        let body = serde_json::json!({ "from": from.to_hex(), "to": Address([1; 20]).to_hex(), "value": 5, "payload": "AQI=" });
        let answer = post(&app, "/simulate", "application/json", body.to_string()).await;
        assert_eq!((answer.status, answer.json()["trace"].is_null()), (StatusCode::OK, true));
        let requests = mock.part::<SimulationMock>().lock().requests.split_off(0);
        match &requests[..] {
            [(Simulated::Signed(tx), true), (Simulated::Unsigned(unsigned), false)] => {
                assert_eq!(tx.hash, signed.hash());
                assert_eq!(
                    (unsigned.from, unsigned.value, unsigned.payload.clone(), unsigned.nonce),
                    (from, 5, vec![1, 2], None)
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn malformed_requests_are_refused_before_the_node_runs_anything() {
        let mock = MockBackend::with(|data: &mut SimulationMock| data.answer = Some(Ok(answer())));
        let app = app(&mock);
        let mut unsigned = signed(0, 0);
        unsigned.signature = None;
        let b64 = |bytes: Vec<u8>| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes);
        let from = Address([9; 20]).to_hex();
        for (body, code) in [
            (serde_json::json!({}), ErrorCode::BadRequest),
            (serde_json::json!({ "to": from }), ErrorCode::BadRequest),
            (serde_json::json!({ "transaction": b64(signed(0, 0).encode()), "from": from }), ErrorCode::BadRequest),
            (serde_json::json!({ "transaction": b64(vec![0x80]) }), ErrorCode::MalformedTransaction),
            (serde_json::json!({ "transaction": b64(unsigned.encode()) }), ErrorCode::InvalidSignature),
            (serde_json::json!({ "from": from, "memo": 1 }), ErrorCode::BadRequest),
            (serde_json::json!({ "from": from, "nonce": -1 }), ErrorCode::BadRequest),
        ] {
            post(&app, "/simulate", "application/json", body.to_string()).await.assert_error(code.http_status(), code);
        }
        assert!(mock.read(|data: &SimulationMock| data.requests.is_empty()));
        // The node's refusal is served with its own code.
        let refusal = ApiError::new(ErrorCode::NonceTooLow, "nonce 0 is used");
        let mock = MockBackend::with(|data: &mut SimulationMock| data.answer = Some(Err(refusal)));
        let body = serde_json::json!({ "from": from });
        post(&crate::mock::app(&mock), "/simulate", "application/json", body.to_string())
            .await
            .assert_error(400, ErrorCode::NonceTooLow);
    }
}
