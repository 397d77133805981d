//! Proofs for light clients: `GET /proof/account/{address}`, `/proof/actor/{address}`,
//! `/proof/storage/{address}/{key}`, `/proof/tx/{tx_hash}`, `/proof/receipt/{tx_hash}`,
//! `GET /state/{actor}/{key_hex}` (a storage value with its proof) and `POST /proof/multi`.
//!
//! Every proof carries the encoded block and its finalization certificate, so it can be checked
//! with the network's group key alone (format: `docs/proofs.md`). State proofs prove the record
//! or its absence against the block's `state_root`; an absent record is a 200 with `value: null`
//! and an exclusion proof, not a 404, because absence is what is being proven.
//!
//! `POST /proof/multi` answers every request in order, each with its proof or its own error
//! body, so one bad item does not refuse the batch; all its state proofs are taken against the
//! same block. Only a body that is not a JSON list of requests, or holds none or more than
//! [`MULTI_PROOF_REQUESTS_MAX`], is refused whole.

use crate::{
    backend::{Backend, StateQuery},
    error::{Concealer, HttpError},
    extract::{AddressParam, ApiQuery, HashParam, RawBody, json_body, parse_address, parse_hash},
    limits::{MAX_STORAGE_KEY_BYTES, MULTI_PROOF_REQUESTS_MAX},
    openapi::errors,
    state::AppState,
};
use axum::{
    Json,
    extract::{FromRequestParts, Path, State},
    http::request::Parts,
    response::{IntoResponse, Response},
};
use drover_types::{
    Address, ErrorCode, H256,
    api::{
        ErrorBody, InclusionProofInfo, InclusionProofKind, MultiProofItem, MultiProofResponse, ProofInfo, ProofRequest,
        StateProofInfo, paths,
    },
    error::ApiError,
};
use serde::Deserialize;
use utoipa::{
    PartialSchema, ToSchema,
    openapi::{ArrayBuilder, RefOr, Schema, schema::Ref},
};
use utoipa_axum::{router::OpenApiRouter, routes};

/// Query of the state-proof routes.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProofQuery {
    /// Height whose post-state to prove; only the latest finalized height is servable (absent:
    /// the latest).
    pub height: Option<u64>,
}

/// Refusals of a state proof: a bad address (3001) or storage key or height (1001), or a state
/// the node cannot prove (1002: nothing finalized yet, or a height other than the latest).
const STATE_PROOF_ERRORS: &[ErrorCode] = &[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::NotFound];

/// Parses an actor storage key written as hex (`0x` optional, any case; `0x` alone is the empty
/// key), at most [`MAX_STORAGE_KEY_BYTES`] bytes (1001 otherwise).
pub fn parse_storage_key(text: &str) -> Result<Vec<u8>, HttpError> {
    let key = drover_types::hexfmt::decode(text)
        .map_err(|err| HttpError::new(ErrorCode::BadRequest, format!("storage key is not hex ({err}): {text:?}")))?;
    if key.len() > MAX_STORAGE_KEY_BYTES {
        return Err(HttpError::new(
            ErrorCode::BadRequest,
            format!("storage key is {} bytes; at most {MAX_STORAGE_KEY_BYTES} allowed", key.len()),
        ));
    }
    Ok(key)
}

/// The two path parameters of a storage route: an actor address (3001 when bad) and a hex
/// storage key (1001 when bad).
pub struct StorageParams(pub Address, pub Vec<u8>);

impl<S: Send + Sync> FromRequestParts<S> for StorageParams {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path((address, key)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| HttpError::new(ErrorCode::BadRequest, rejection.body_text()))?;
        Ok(Self(parse_address(&address)?, parse_storage_key(&key)?))
    }
}

/// The proof of one state record.
async fn one_state_proof<B: Backend>(
    backend: &B,
    query: StateQuery,
    height: Option<u64>,
) -> Result<Json<StateProofInfo>, HttpError> {
    backend
        .state_proofs(vec![query], height)
        .await?
        .pop()
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::Internal, "the node returned no proof"))
}

async fn one_inclusion_proof<B: Backend>(
    backend: &B,
    kind: InclusionProofKind,
    hash: H256,
) -> Result<Json<InclusionProofInfo>, HttpError> {
    backend
        .inclusion_proof(kind, hash)
        .await?
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::NotFound, format!("no finalized block includes transaction {hash}")))
}

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag(
        "proofs",
        "Merkle proofs for light clients, with the block and its finalization certificate",
    ))
    .routes(routes!(state_value))
    .routes(routes!(account))
    .routes(routes!(actor))
    .routes(routes!(storage))
    .routes(routes!(tx))
    .routes(routes!(receipt))
    .routes(routes!(multi))
}

/// `GET /proof/account/{address}`: the account record (or its absence) proven against a finalized
/// state root.
#[utoipa::path(
    get,
    path = paths::PROOF_ACCOUNT,
    tag = "proofs",
    summary = "An account (or its absence) proven against a finalized state root",
    description = "`value` is the account record (canonical CBOR `[nonce, balance]`), or `null` with an exclusion proof.",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."), ProofQuery),
    responses((status = 200, description = "The proof with the block and its finalization certificate.", body = StateProofInfo)),
    extensions(("x-errors" = json!(errors(STATE_PROOF_ERRORS)))),
)]
pub async fn account<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    ApiQuery(query): ApiQuery<ProofQuery>,
) -> Result<Json<StateProofInfo>, HttpError> {
    one_state_proof(&state.backend, StateQuery::Account(address), query.height).await
}

/// `GET /proof/actor/{address}`: the actor record (or its absence) proven against a finalized state
/// root.
#[utoipa::path(
    get,
    path = paths::PROOF_ACTOR,
    tag = "proofs",
    summary = "An actor record (or its absence) proven against a finalized state root",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."), ProofQuery),
    responses((status = 200, description = "The proof with the block and its finalization certificate.", body = StateProofInfo)),
    extensions(("x-errors" = json!(errors(STATE_PROOF_ERRORS)))),
)]
pub async fn actor<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    ApiQuery(query): ApiQuery<ProofQuery>,
) -> Result<Json<StateProofInfo>, HttpError> {
    one_state_proof(&state.backend, StateQuery::Actor(address), query.height).await
}

/// `GET /proof/storage/{address}/{key}`: a storage slot (or its absence) proven against a finalized
/// state root.
#[utoipa::path(
    get,
    path = paths::PROOF_STORAGE,
    tag = "proofs",
    summary = "An actor storage slot (or its absence) proven against a finalized state root",
    params(
        ("address" = String, Path, description = "The actor: 20 bytes of hex."),
        ("key" = String, Path, description = "The actor's storage key: hex, `0x` optional, at most 256 bytes."),
        ProofQuery,
    ),
    responses((status = 200, description = "The proof with the block and its finalization certificate.", body = StateProofInfo)),
    extensions(("x-errors" = json!(errors(STATE_PROOF_ERRORS)))),
)]
pub async fn storage<B: Backend>(
    State(state): State<AppState<B>>,
    StorageParams(address, key): StorageParams,
    ApiQuery(query): ApiQuery<ProofQuery>,
) -> Result<Json<StateProofInfo>, HttpError> {
    one_state_proof(&state.backend, StateQuery::Storage(address, key), query.height).await
}

/// `GET /state/{actor}/{key_hex}`: a storage value together with its proof.
#[utoipa::path(
    get,
    path = paths::STATE_VALUE,
    tag = "proofs",
    summary = "An actor storage value together with its proof",
    description = "The same record as `/proof/storage/{address}/{key}`: `value` (base64, `null` when unset) with its proof.",
    params(
        ("actor" = String, Path, description = "The actor: 20 bytes of hex."),
        ("key_hex" = String, Path, description = "The actor's storage key: hex, `0x` optional, at most 256 bytes."),
        ProofQuery,
    ),
    responses((status = 200, description = "The value and its proof.", body = StateProofInfo)),
    extensions(("x-errors" = json!(errors(STATE_PROOF_ERRORS)))),
)]
pub async fn state_value<B: Backend>(
    State(state): State<AppState<B>>,
    StorageParams(address, key): StorageParams,
    ApiQuery(query): ApiQuery<ProofQuery>,
) -> Result<Json<StateProofInfo>, HttpError> {
    one_state_proof(&state.backend, StateQuery::Storage(address, key), query.height).await
}

/// `GET /proof/tx/{tx_hash}`: a transaction proven in its block's transactions root.
#[utoipa::path(
    get,
    path = paths::PROOF_TX,
    tag = "proofs",
    summary = "A transaction proven in its block's transactions root",
    params(("tx_hash" = String, Path, description = "Transaction hash: 32 bytes of hex.")),
    responses((status = 200, description = "The transaction, its inclusion proof, the block and its certificate.", body = InclusionProofInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotFound])))),
)]
pub async fn tx<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(hash): HashParam,
) -> Result<Json<InclusionProofInfo>, HttpError> {
    one_inclusion_proof(&state.backend, InclusionProofKind::Tx, hash).await
}

/// `GET /proof/receipt/{tx_hash}`: a receipt proven in its block's receipts root.
#[utoipa::path(
    get,
    path = paths::PROOF_RECEIPT,
    tag = "proofs",
    summary = "A receipt proven in its block's receipts root",
    params(("tx_hash" = String, Path, description = "Transaction hash: 32 bytes of hex.")),
    responses((status = 200, description = "The receipt, its inclusion proof, the block and its certificate.", body = InclusionProofInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotFound])))),
)]
pub async fn receipt<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(hash): HashParam,
) -> Result<Json<InclusionProofInfo>, HttpError> {
    one_inclusion_proof(&state.backend, InclusionProofKind::Receipt, hash).await
}

/// Body of `POST /proof/multi` as the document shows it: a list of 1 to
/// [`MULTI_PROOF_REQUESTS_MAX`] requests, as [`multi`] checks. Written by hand because the derive
/// cannot bound a list's length.
pub struct MultiProofRequests;

impl PartialSchema for MultiProofRequests {
    fn schema() -> RefOr<Schema> {
        ArrayBuilder::new()
            .items(Ref::from_schema_name("ProofRequest"))
            .min_items(Some(1))
            .max_items(Some(MULTI_PROOF_REQUESTS_MAX))
            .into()
    }
}

impl ToSchema for MultiProofRequests {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((ProofRequest::name().into_owned(), ProofRequest::schema()));
        ProofRequest::schemas(schemas);
    }
}

/// A checked multi-proof request.
enum Parsed {
    State(StateQuery),
    Inclusion(InclusionProofKind, H256),
}

fn required<'a>(field: &'a Option<String>, name: &str, kind: &str) -> Result<&'a str, HttpError> {
    field.as_deref().ok_or_else(|| HttpError::new(ErrorCode::BadRequest, format!("a `{kind}` request needs `{name}`")))
}

fn parse_request(request: &ProofRequest) -> Result<Parsed, HttpError> {
    let kind = request.kind.as_str();
    let address = || parse_address(required(&request.address, "address", kind)?);
    let hash = || parse_hash(required(&request.tx_hash, "tx_hash", kind)?);
    Ok(match kind {
        "account" => Parsed::State(StateQuery::Account(address()?)),
        "actor" => Parsed::State(StateQuery::Actor(address()?)),
        "storage" => {
            Parsed::State(StateQuery::Storage(address()?, parse_storage_key(required(&request.key, "key", kind)?)?))
        }
        "tx" => Parsed::Inclusion(InclusionProofKind::Tx, hash()?),
        "receipt" => Parsed::Inclusion(InclusionProofKind::Receipt, hash()?),
        other => {
            return Err(HttpError::new(
                ErrorCode::BadRequest,
                format!("unknown proof kind {other:?}: expected account, actor, storage, tx or receipt"),
            ));
        }
    })
}

/// An error in place of a proof; internal ones only as the request id (see [`crate::error`]).
fn error_item(concealer: &mut Concealer, error: &ApiError) -> MultiProofItem {
    MultiProofItem::Error(ErrorBody::from(&concealer.conceal(error.clone())))
}

/// `POST /proof/multi`: up to 32 proofs in one request, each a proof or the error of that item
/// alone.
#[utoipa::path(
    post,
    path = paths::PROOF_MULTI,
    tag = "proofs",
    summary = "Several proofs in one request",
    description = "Body: a JSON list of 1 to 32 requests `{\"kind\": \"account\"|\"actor\"|\"storage\"|\"tx\"|\"receipt\", \"address\", \"key\", \"tx_hash\"}`. \
        Results come in request order, each a proof or an error body; the state proofs all prove the same block's post-state.",
    params(ProofQuery),
    request_body(content = MultiProofRequests, content_type = "application/json"),
    responses((status = 200, description = "One result per request, in order.", body = MultiProofResponse)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn multi<B: Backend>(
    State(state): State<AppState<B>>,
    ApiQuery(query): ApiQuery<ProofQuery>,
    RawBody(body): RawBody,
) -> Result<Response, HttpError> {
    let requests: Vec<ProofRequest> = json_body(&body)?;
    if requests.is_empty() || requests.len() > MULTI_PROOF_REQUESTS_MAX {
        return Err(HttpError::new(
            ErrorCode::BadRequest,
            format!("a multi-proof request holds 1 to {MULTI_PROOF_REQUESTS_MAX} requests, not {}", requests.len()),
        ));
    }
    let parsed: Vec<Result<Parsed, ApiError>> =
        requests.iter().map(|request| parse_request(request).map_err(ApiError::from)).collect();

    // One call for every state request, so they share one block.
    let queries: Vec<StateQuery> = parsed
        .iter()
        .filter_map(|p| match p {
            Ok(Parsed::State(query)) => Some(query.clone()),
            _ => None,
        })
        .collect();
    let mut state_proofs = if queries.is_empty() {
        Ok(Vec::new().into_iter())
    } else {
        state.backend.state_proofs(queries, query.height).await.map(Vec::into_iter)
    };

    let mut concealer = Concealer::default();
    let mut results = Vec::with_capacity(parsed.len());
    for item in parsed {
        let result = match item {
            Err(error) => error_item(&mut concealer, &error),
            Ok(Parsed::State(_)) => match &mut state_proofs {
                Ok(proofs) => proofs.next().map_or_else(
                    || {
                        error_item(
                            &mut concealer,
                            &ApiError::new(ErrorCode::Internal, "the node returned fewer proofs than asked"),
                        )
                    },
                    |proof| MultiProofItem::Proof(ProofInfo::State(proof)),
                ),
                Err(error) => error_item(&mut concealer, error),
            },
            Ok(Parsed::Inclusion(kind, hash)) => match one_inclusion_proof(&state.backend, kind, hash).await {
                Ok(Json(proof)) => MultiProofItem::Proof(ProofInfo::Inclusion(proof)),
                Err(error) => error_item(&mut concealer, &error.into()),
            },
        };
        results.push(result);
    }
    let mut response = Json(MultiProofResponse { results }).into_response();
    concealer.tag(&mut response);
    Ok(response)
}

#[cfg(test)]
mod tests {
    use crate::{
        backend::{
            IncludedTransaction, StateQuery, chain::mock::ChainMock, proofs::mock::ProofsMock,
            transactions::mock::TransactionsMock,
        },
        mock::*,
    };
    use axum::http::StatusCode;
    use drover_types::{Address, ErrorCode};
    use serde_json::json;

    /// A mock with one finalized block above genesis and one included transaction.
    fn mock() -> MockBackend {
        let tx = verified(0, 0);
        let mock = MockBackend::with(|chain: &mut ChainMock| chain.blocks.push(block(1)));
        mock.edit(|data: &mut TransactionsMock| {
            data.receipts.insert(tx.hash, success_receipt(&tx, 1, 0));
            data.included.insert(tx.hash, IncludedTransaction { tx, block_height: 1, index: 0 });
        });
        mock.edit(|data: &mut ProofsMock| {
            data.storage.insert((Address([7; 20]), b"k".to_vec()), b"v".to_vec());
        });
        mock
    }

    #[tokio::test]
    async fn state_proofs_carry_value_proof_block_and_certificate() {
        let mock = mock();
        let app = app(&mock);
        let address = key(0).address();
        let answer = get(&app, &format!("/proof/account/{address}")).await;
        assert_eq!(answer.status, StatusCode::OK);
        let body = answer.json();
        assert_eq!(body["kind"], "account");
        assert_eq!(body["address"], address.to_hex());
        assert_eq!(body["key"], format!("0x01{}", hex::encode(address.0)));
        assert!(body["value"].is_string());
        assert_eq!(body["storage_key"], serde_json::Value::Null);
        assert_eq!(body["height"], 1);
        assert_eq!(body["block_hash"], block(1).hash.to_hex());
        for field in ["proof", "header", "finalization", "state_root"] {
            assert!(body[field].is_string(), "{field}");
        }

        // Absence is proven, not a 404.
        let absent = get(&app, "/proof/account/0x0000000000000000000000000000000000000abc").await;
        assert_eq!(absent.status, StatusCode::OK);
        assert_eq!(absent.json()["value"], serde_json::Value::Null);
        let actor = get(&app, &format!("/proof/actor/{address}")).await.json();
        assert_eq!(actor["kind"], "actor");

        let slot = format!("0x{}", hex::encode([7; 20]));
        let storage = get(&app, &format!("/proof/storage/{slot}/0x6B")).await.json();
        assert_eq!(storage["kind"], "storage");
        assert_eq!(storage["storage_key"], "0x6b");
        assert_eq!(storage["value"], "dg==");
        assert_eq!(get(&app, &format!("/state/{slot}/6b")).await.json(), storage);
        // The state-sync routes under `/state` still answer.
        get(&app, "/state/snapshot").await.assert_error(404, ErrorCode::NotFound);

        assert_eq!(get(&app, &format!("/proof/account/{address}?height=1")).await.status, StatusCode::OK);
    }

    #[tokio::test]
    async fn state_proof_errors() {
        let app = app(&mock());
        let slot = format!("0x{}", hex::encode([7; 20]));
        for bad in ["0x12", "zz"] {
            get(&app, &format!("/proof/account/{bad}")).await.assert_error(400, ErrorCode::InvalidAddress);
            get(&app, &format!("/proof/actor/{bad}")).await.assert_error(400, ErrorCode::InvalidAddress);
            get(&app, &format!("/proof/storage/{bad}/00")).await.assert_error(400, ErrorCode::InvalidAddress);
            get(&app, &format!("/state/{bad}/00")).await.assert_error(400, ErrorCode::InvalidAddress);
        }
        let too_long = "00".repeat(crate::limits::MAX_STORAGE_KEY_BYTES + 1);
        for bad in ["0xz1", "123", too_long.as_str()] {
            get(&app, &format!("/proof/storage/{slot}/{bad}")).await.assert_error(400, ErrorCode::BadRequest);
            get(&app, &format!("/state/{slot}/{bad}")).await.assert_error(400, ErrorCode::BadRequest);
        }
        let address = key(0).address();
        get(&app, &format!("/proof/account/{address}?height=0")).await.assert_error(404, ErrorCode::NotFound);
        get(&app, &format!("/proof/account/{address}?height=x")).await.assert_error(400, ErrorCode::BadRequest);
        // Nothing finalized yet: nothing to prove against.
        let empty = app_for_genesis_only();
        get(&empty, &format!("/proof/account/{address}")).await.assert_error(404, ErrorCode::NotFound);
    }

    /// The documented storage key pattern is exactly what the parser takes (generated traffic
    /// found `{key}` documented as any string, so `/proof/storage/{address}/0` was valid by the
    /// document and answered 400).
    #[test]
    fn storage_key_pattern_is_what_the_parser_takes() {
        let pattern = regex::Regex::new(crate::openapi::STORAGE_KEY_PATTERN).unwrap();
        let max = crate::limits::MAX_STORAGE_KEY_BYTES;
        for bytes in [0, 1, 2, max - 1, max, max + 1] {
            for digits in
                ["ab".repeat(bytes), format!("{}F", "a".repeat(2 * bytes)), format!("{}g0", "0".repeat(2 * bytes))]
            {
                for prefix in ["", "0x", "0X", "x", "0x0x"] {
                    let text = format!("{prefix}{digits}");
                    assert_eq!(
                        pattern.is_match(&text),
                        super::parse_storage_key(&text).is_ok(),
                        "{} bytes: {prefix}…",
                        bytes
                    );
                }
            }
        }
    }

    /// Heights are u64: the document once said int64, so 2^63 looked invalid to clients while the
    /// node took it. Any u64 gets past the query parser (and is then refused as unservable).
    #[tokio::test]
    async fn any_u64_height_is_a_well_formed_query() {
        let app = app(&mock());
        let address = key(0).address();
        for height in ["9223372036854775808", "18446744073709551615"] {
            get(&app, &format!("/proof/account/{address}?height={height}"))
                .await
                .assert_error(404, ErrorCode::NotFound);
            let body = json!([{"kind": "account", "address": address.to_hex()}]).to_string();
            let answer = post(&app, &format!("/proof/multi?height={height}"), "application/json", body).await;
            assert_eq!(answer.status, StatusCode::OK);
            assert_eq!(answer.json()["results"][0]["code"], ErrorCode::NotFound.code());
        }
        get(&app, &format!("/proof/account/{address}?height=18446744073709551616"))
            .await
            .assert_error(400, ErrorCode::BadRequest);
    }

    fn app_for_genesis_only() -> axum::Router {
        app(&MockBackend::default())
    }

    #[tokio::test]
    async fn transaction_and_receipt_proofs() {
        let app = app(&mock());
        let hash = verified(0, 0).hash;
        let tx = get(&app, &format!("/proof/tx/{hash}")).await;
        assert_eq!(tx.status, StatusCode::OK);
        let body = tx.json();
        assert_eq!(
            (body["kind"].clone(), body["height"].clone(), body["index"].clone()),
            (json!("tx"), json!(1), json!(0))
        );
        assert_eq!(body["tx_hash"], hash.to_hex());
        let receipt = get(&app, &format!("/proof/receipt/{hash}")).await.json();
        assert_eq!(receipt["kind"], "receipt");
        for field in ["encoded", "proof", "header", "block_hash", "root", "finalization"] {
            assert!(receipt[field].is_string(), "{field}");
        }
        let unknown = drover_types::keccak256(b"unknown");
        get(&app, &format!("/proof/tx/{unknown}")).await.assert_error(404, ErrorCode::NotFound);
        get(&app, &format!("/proof/receipt/{unknown}")).await.assert_error(404, ErrorCode::NotFound);
        get(&app, "/proof/tx/0x12").await.assert_error(400, ErrorCode::BadRequest);
        get(&app, "/proof/receipt/latest").await.assert_error(400, ErrorCode::BadRequest);
    }

    #[tokio::test]
    async fn multi_answers_each_item_in_order_with_one_state_batch() {
        let mock = mock();
        let app = app(&mock);
        let address = key(1).address();
        let hash = verified(0, 0).hash;
        let body = json!([
            {"kind": "account", "address": address.to_hex()},
            {"kind": "account", "address": "0x12"},
            {"kind": "tx", "tx_hash": hash.to_hex()},
            {"kind": "storage", "address": address.to_hex(), "key": "0xzz"},
            {"kind": "receipt", "tx_hash": drover_types::keccak256(b"unknown").to_hex()},
            {"kind": "storage", "address": address.to_hex(), "key": "01"},
            {"kind": "block"},
            {"kind": "actor"},
        ]);
        let answer = post(&app, "/proof/multi", "application/json", body.to_string()).await;
        assert_eq!(answer.status, StatusCode::OK);
        let results = answer.json()["results"].as_array().unwrap().clone();
        assert_eq!(results.len(), 8);
        assert_eq!(results[0]["kind"], "account");
        assert_eq!(results[1]["code"], ErrorCode::InvalidAddress.code());
        assert_eq!(results[2]["kind"], "tx");
        assert_eq!(results[3]["code"], ErrorCode::BadRequest.code());
        assert_eq!(results[4]["code"], ErrorCode::NotFound.code());
        assert_eq!(results[5]["kind"], "storage");
        assert_eq!(results[6]["code"], ErrorCode::BadRequest.code());
        assert_eq!(results[7]["code"], ErrorCode::BadRequest.code());
        // Both state proofs came from one backend call, so they prove the same block.
        let batches = mock.part::<ProofsMock>().lock().proof_batches.clone();
        assert_eq!(batches, vec![(vec![StateQuery::Account(address), StateQuery::Storage(address, vec![1])], None)]);

        // A height the node cannot prove fails the state items only.
        let mixed = json!([
            {"kind": "account", "address": address.to_hex()},
            {"kind": "tx", "tx_hash": hash.to_hex()},
        ]);
        let results = post(&app, "/proof/multi?height=7", "application/json", mixed.to_string()).await.json();
        assert_eq!(results["results"][0]["code"], ErrorCode::NotFound.code());
        assert_eq!(results["results"][1]["kind"], "tx");
    }

    #[tokio::test]
    async fn multi_refuses_bodies_that_are_not_a_bounded_list() {
        let app = app(&mock());
        let item = json!({"kind": "account", "address": key(0).address().to_hex()});
        let too_many = serde_json::Value::Array(vec![item.clone(); crate::limits::MULTI_PROOF_REQUESTS_MAX + 1]);
        let full = serde_json::Value::Array(vec![item; crate::limits::MULTI_PROOF_REQUESTS_MAX]);
        for bad in [json!([]), too_many, json!({"kind": "account"}), json!([1])] {
            post(&app, "/proof/multi", "application/json", bad.to_string())
                .await
                .assert_error(400, ErrorCode::BadRequest);
        }
        assert_eq!(post(&app, "/proof/multi", "application/json", full.to_string()).await.status, StatusCode::OK);
        get(&app, "/proof/multi").await.assert_error(405, ErrorCode::BadRequest);
    }
}
