//! Storage relays (RAS): `/ras/...`.
//!
//! # Authentication
//!
//! A request to an owner route authenticates with the delegation token of
//! [`DELEGATION_HEADER`] and the session-key signature of the other `X-DRFS-*` headers
//! (`drover_types::storage::auth`), signed for the nodes' audience (`node_audience` of the chain id: a
//! request signed for a relay does not pass). The node checks the token against its chain id
//! and clock, the request's timestamp (±30 s), nonce and signature, that the wallet has not revoked the session
//! key on chain (the storage manager's revocation marker), and refuses a nonce the wallet has
//! already used within the window ([`drover_types::storage::auth::NonceCache`]). Every refusal is 401 with
//! its code: 9100 for the token (missing, malformed, wrong scope, audience or chain, expired,
//! longer than 30 days, not the wallet's, revoked), 9101 for the request (timestamp, nonce,
//! signature), 9102 for a replay.
//!
//! # Routes
//!
//! Public, without a token, limited per client IP ([`crate::limits::STORAGE_PUBLIC_RATE_PER_SEC`], 429
//! code 1004):
//! `GET /ras/stats`, `/ras/relays/public`, `/ras/write-relayers`, `/ras/billing/summary` and
//! `/ras/revocations/{wallet}/{session_key}`. The relay lists walk the registry's listing slots:
//! O(registered relays), which the stake each relay bonds bounds.
//!
//! Authenticated: `GET /ras/challenge` (no token needed), `/ras/auth/me`,
//! `/ras/accounts/balance`, `/ras/volumes`, `/ras/volumes/{volume_id}` (its owner or its relay;
//! anyone else gets the 404 of an unknown id, 9103, so a private volume's existence never
//! leaks), and the transaction routes `POST /ras/volumes` (create),
//! `/ras/volumes/{volume_id}/delete|undelete|deposit` and `/ras/revoke`: each takes a signed
//! transaction, checks that it is this route's storage-manager call signed by the
//! authenticated wallet (400, 9104, otherwise) and admits it exactly like `/submit`.

use crate::{
    backend::{Backend, RelayFilter},
    client::ClientId,
    error::HttpError,
    extract::{HashParam, RawBody, json_body, parse_address},
    openapi::{SUBMIT_ERRORS, errors},
    pagination::Page,
    rate_limit,
    routes::transactions::submit_one,
    state::AppState,
};
use axum::{
    Json,
    extract::{FromRequest, Path, Request, State},
    http::{HeaderMap, Method, Uri},
    response::Response,
};
use bytes::Bytes;
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, ErrorCode, Transaction, VerifiedTransaction,
    api::{
        BillingSummary, RasAccountBalance, RasChallenge, RasMe, RasStats, RasTransactionRequest, RelayList,
        RevocationInfo, SubmitResponse, VolumeInfo, VolumeList, paths,
    },
    payload::Message,
    storage::auth::{
        DELEGATION_HEADER, DelegationToken, NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, TOKEN_AUDIENCE,
        node_audience, verify_request,
    },
    storage::{STORAGE_MANAGER_ADDRESS, StorageCall},
};
use utoipa_axum::{router::OpenApiRouter, routes};

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> &'h str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

/// Authenticates an owner-route request: the token, the request's signature, the session key
/// not revoked on chain, the nonce.
pub(crate) async fn authenticate<B: Backend>(
    state: &AppState<B>,
    (method, uri, headers, body): (&Method, &Uri, &HeaderMap, &[u8]),
) -> Result<DelegationToken, HttpError> {
    let token_error =
        |e: drover_types::storage::auth::AuthError| HttpError::new(ErrorCode::RasTokenInvalid, e.to_string());
    let now = now_ms();
    let chain_id = state.backend.chain_info().chain_id;
    let token = DelegationToken::decode(header(headers, DELEGATION_HEADER)).map_err(token_error)?;
    token.verify(chain_id, now).map_err(token_error)?;
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    let nonce = verify_request(
        &token,
        (method.as_str(), path, body),
        &node_audience(chain_id),
        (header(headers, TIMESTAMP_HEADER), header(headers, NONCE_HEADER), header(headers, SIGNATURE_HEADER)),
        now,
    )
    .map_err(|e| HttpError::new(ErrorCode::RasRequestInvalid, e.to_string()))?;
    // Only a request the session key signed costs a state read.
    if let Some(height) = state.backend.storage_revocation(token.wallet, token.session_key).await? {
        return Err(HttpError::new(
            ErrorCode::RasTokenInvalid,
            format!("the delegation token's session key was revoked by its wallet at height {height}"),
        ));
    }
    state
        .storage_nonces
        .accept(token.wallet, nonce, now)
        .map_err(|e| HttpError::new(ErrorCode::RasReplayed, e.to_string()))?;
    Ok(token)
}

/// An authenticated request (`authenticate`) and its body: the last extractor of an owner
/// route.
pub struct Authenticated {
    /// The verified token: whom the request acts for.
    pub token: DelegationToken,
    /// The request body, as signed.
    pub body: Bytes,
}

impl<B: Backend> FromRequest<AppState<B>> for Authenticated {
    type Rejection = HttpError;

    async fn from_request(request: Request, state: &AppState<B>) -> Result<Self, Self::Rejection> {
        let (method, uri, headers) = (request.method().clone(), request.uri().clone(), request.headers().clone());
        let RawBody(body) = RawBody::from_request(request, state).await?;
        let token = authenticate(state, (&method, &uri, &headers, &body)).await?;
        Ok(Self { token, body })
    }
}

/// Refusals of the storage-relay authentication ([`authenticate`]).
const STORAGE_AUTH_ERRORS: &[ErrorCode] =
    &[ErrorCode::RasTokenInvalid, ErrorCode::RasRequestInvalid, ErrorCode::RasReplayed];

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag(
        "ras",
        "Storage relays: authentication, relays, volumes, billing and the volume transactions",
    ))
    .routes(routes!(challenge))
    .routes(routes!(me))
    .routes(routes!(stats))
    .routes(routes!(public_relays))
    .routes(routes!(write_relayers))
    .routes(routes!(billing_summary))
    .routes(routes!(revocation))
    .routes(routes!(balance))
    .routes(routes!(volumes, create))
    .routes(routes!(volume))
    .routes(routes!(delete))
    .routes(routes!(undelete))
    .routes(routes!(deposit))
    .routes(routes!(revoke))
}

/// `GET /ras/challenge`: what a client needs to build its token and requests.
#[utoipa::path(
    get,
    path = paths::RAS_CHALLENGE,
    tag = "ras",
    summary = "Parameters for storage-relay authentication",
    description = "The chain id and audience a delegation token must name, the audience a request to this node \
        is signed for, the node's clock (requests must be stamped within 30 s of it) and a fresh random nonce a \
        client may use.",
    responses((status = 200, description = "The challenge.", body = RasChallenge)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn challenge<B: Backend>(State(state): State<AppState<B>>) -> Json<RasChallenge> {
    let nonce: [u8; 16] = rand::random();
    let chain_id = state.backend.chain_info().chain_id;
    Json(RasChallenge {
        chain_id,
        audience: TOKEN_AUDIENCE.to_owned(),
        request_audience: node_audience(chain_id),
        server_time_ms: now_ms(),
        nonce: hex::encode(nonce),
    })
}

/// `GET /ras/auth/me`: who a valid request authenticates as.
#[utoipa::path(
    get,
    path = paths::RAS_AUTH_ME,
    tag = "ras",
    summary = "The wallet a request authenticates as",
    description = "Checks the X-DRFS-Delegation token and the request's X-DRFS-Timestamp, X-DRFS-Nonce and \
        X-DRFS-Signature (docs/storage.md); 401 with 9100 (token), 9101 (request) or 9102 (replay) otherwise.",
    responses((status = 200, description = "The wallet and session.", body = RasMe)),
    extensions(("x-errors" = json!(errors(STORAGE_AUTH_ERRORS)))),
)]
pub async fn me(Authenticated { token, .. }: Authenticated) -> Json<RasMe> {
    Json(RasMe {
        wallet: token.wallet,
        session_key: format!("0x{}", hex::encode(token.session_key)),
        expires_at_ms: token.expires_at_ms,
    })
}

/// `GET /ras/stats`: the family's totals.
#[utoipa::path(
    get,
    path = paths::RAS_STATS,
    tag = "ras",
    summary = "Storage-relay totals",
    description = "Registered relays with their capacity and stake, volumes not yet reaped with their bytes and \
        deposits, rent paid and creation fees burned, at the latest finalized height. No token; limited per \
        client IP.",
    responses((status = 200, description = "The totals.", body = RasStats)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn stats<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
) -> Result<Json<RasStats>, HttpError> {
    rate_limit::check_storage(&state, client)?;
    Ok(Json(state.backend.storage_stats().await?))
}

/// `GET /ras/relays/public`: one page of the relays listed publicly.
#[utoipa::path(
    get,
    path = paths::RAS_RELAYS_PUBLIC,
    tag = "ras",
    summary = "Publicly listed relays",
    description = "Registered relays that asked to be listed, whatever their health, in the order of the \
        chain's listing of them (a page reads only its own relays). No token; limited per client IP.",
    params(
        ("offset" = Option<u64>, Query, description = "Relays to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `relays`.", body = RelayList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn public_relays<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
    page: Page,
) -> Result<Json<RelayList>, HttpError> {
    rate_limit::check_storage(&state, client)?;
    Ok(Json(state.backend.storage_relays(RelayFilter::Public, page).await?))
}

/// `GET /ras/write-relayers`: one page of the relays that take writes.
#[utoipa::path(
    get,
    path = paths::RAS_WRITE_RELAYERS,
    tag = "ras",
    summary = "Relays taking writes",
    description = "Registered relays whose settings take writes, in the order of the chain's listing of them (a \
        page reads only its own relays), each with its `health` and `free_bytes`: a new volume goes to one that \
        is `healthy` with `free_bytes` above 0 (else E1954). No token; limited per client IP.",
    params(
        ("offset" = Option<u64>, Query, description = "Relays to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `relays`.", body = RelayList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn write_relayers<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
    page: Page,
) -> Result<Json<RelayList>, HttpError> {
    rate_limit::check_storage(&state, client)?;
    Ok(Json(state.backend.storage_relays(RelayFilter::Writable, page).await?))
}

/// `GET /ras/billing/summary`: the volumes' totals.
#[utoipa::path(
    get,
    path = paths::RAS_BILLING_SUMMARY,
    tag = "ras",
    summary = "Storage billing totals",
    description = "Volumes not yet reaped, their bytes and deposits (as of each one's last settlement), rent \
        paid to relays and creation fees burned, all time. No token; limited per client IP.",
    responses((status = 200, description = "The totals.", body = BillingSummary)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn billing_summary<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
) -> Result<Json<BillingSummary>, HttpError> {
    rate_limit::check_storage(&state, client)?;
    Ok(Json(BillingSummary::from(&state.backend.storage_stats().await?)))
}

/// A compressed session key: 33 bytes of hex, `0x` optional (1001 otherwise).
fn parse_session_key(text: &str) -> Result<[u8; 33], HttpError> {
    let bytes = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")).unwrap_or(text);
    hex::decode(bytes).ok().and_then(|bytes| <[u8; 33]>::try_from(bytes).ok()).ok_or_else(|| {
        HttpError::new(ErrorCode::BadRequest, format!("a session key is 33 bytes of hex (compressed): {text:?}"))
    })
}

/// `GET /ras/revocations/{wallet}/{session_key}`: whether a wallet revoked a session key.
#[utoipa::path(
    get,
    path = paths::RAS_REVOCATION,
    tag = "ras",
    summary = "Whether a wallet revoked a session key",
    description = "What relays check before honouring a delegation token (the chain's revocation marker; the \
        node refuses revoked tokens itself). No token; limited per client IP: cache the answer briefly.",
    params(
        ("wallet" = String, Path, description = "The wallet: 20 bytes of hex."),
        ("session_key" = String, Path, description = "The session key, compressed: 33 bytes of hex."),
    ),
    responses((status = 200, description = "The revocation, if any.", body = RevocationInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress])))),
)]
pub async fn revocation<B: Backend>(
    State(state): State<AppState<B>>,
    client: ClientId,
    Path((wallet, session_key)): Path<(String, String)>,
) -> Result<Json<RevocationInfo>, HttpError> {
    let (wallet, session_key) = (parse_address(&wallet)?, parse_session_key(&session_key)?);
    rate_limit::check_storage(&state, client)?;
    let height = state.backend.storage_revocation(wallet, session_key).await?;
    Ok(Json(RevocationInfo {
        wallet,
        session_key: format!("0x{}", hex::encode(session_key)),
        revoked: height.is_some(),
        height,
    }))
}

/// `GET /ras/accounts/balance`: the wallet's balance and what its volumes hold and cost.
#[utoipa::path(
    get,
    path = paths::RAS_ACCOUNT_BALANCE,
    tag = "ras",
    summary = "The authenticated wallet's balance and storage costs",
    description = "Its DRV balance, its volumes, the sum of their deposits (rent settled to the latest height) \
        and what its active volumes cost per block. At most 1,000 volumes are summed (`truncated` says when \
        the wallet has more). Authenticated (docs/storage.md).",
    responses((status = 200, description = "The balance.", body = RasAccountBalance)),
    extensions(("x-errors" = json!(errors(STORAGE_AUTH_ERRORS)))),
)]
pub async fn balance<B: Backend>(
    State(state): State<AppState<B>>,
    Authenticated { token, .. }: Authenticated,
) -> Result<Json<RasAccountBalance>, HttpError> {
    Ok(Json(state.backend.storage_account(token.wallet).await?))
}

/// `GET /ras/volumes`: one page of the wallet's volumes.
#[utoipa::path(
    get,
    path = paths::RAS_VOLUMES,
    tag = "ras",
    summary = "The authenticated wallet's volumes",
    description = "Its volumes not yet reaped, in volume-id order, each at the latest height. Authenticated \
        (docs/storage.md): sign the path with its query.",
    params(
        ("offset" = Option<u64>, Query, description = "Volumes to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `volumes`.", body = VolumeList)),
    extensions(("x-errors" = json!(errors(&[STORAGE_AUTH_ERRORS, &[ErrorCode::BadRequest]].concat())))),
)]
pub async fn volumes<B: Backend>(
    State(state): State<AppState<B>>,
    page: Page,
    Authenticated { token, .. }: Authenticated,
) -> Result<Json<VolumeList>, HttpError> {
    Ok(Json(state.backend.storage_volumes(token.wallet, page).await?))
}

/// The 404 of a volume the wallet may not see: the same for an unknown id and for someone
/// else's volume, public or private (it names no id, so the bodies are byte for byte equal).
fn volume_not_found() -> HttpError {
    HttpError::new(ErrorCode::RasVolumeNotFound, "no such volume owned or held by the authenticated wallet")
}

/// `GET /ras/volumes/{volume_id}`: a volume, for its owner or its relay.
#[utoipa::path(
    get,
    path = paths::RAS_VOLUME,
    tag = "ras",
    summary = "A volume, for its owner or its relay",
    description = "The volume at the latest height when the authenticated wallet owns it or is its relay; 404 \
        (9103) otherwise, the same answer for an unknown id and for anyone else's volume.",
    params(("volume_id" = String, Path, description = "The volume: 32 bytes of hex.")),
    responses((status = 200, description = "The volume.", body = VolumeInfo)),
    extensions(("x-errors" = json!(errors(&[STORAGE_AUTH_ERRORS, &[ErrorCode::BadRequest, ErrorCode::RasVolumeNotFound]].concat())))),
)]
pub async fn volume<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(id): HashParam,
    Authenticated { token, .. }: Authenticated,
) -> Result<Json<VolumeInfo>, HttpError> {
    match state.backend.storage_volume(id).await? {
        Some(volume) if volume.owner == token.wallet || volume.relay == token.wallet => Ok(Json(volume)),
        _ => Err(volume_not_found()),
    }
}

/// The signed transaction of a transaction route's body, if it is a call of the storage manager
/// that `expected` takes, signed by `wallet` (9104 otherwise; 1001 when the body is not the JSON).
fn storage_transaction(
    wallet: Address,
    body: &[u8],
    expected: impl FnOnce(&StorageCall) -> bool,
    what: &str,
) -> Result<VerifiedTransaction, HttpError> {
    let request: RasTransactionRequest = json_body(body)?;
    let mismatch = |why: String| HttpError::new(ErrorCode::RasTransactionMismatch, why);
    let tx = Transaction::decode(&request.transaction_base64)
        .map_err(|e| mismatch(format!("transaction_base64 is not a transaction: {e}")))?;
    let call = Some(&tx)
        .filter(|tx| tx.to == Some(STORAGE_MANAGER_ADDRESS))
        .and_then(|tx| Message::decode(&tx.payload).ok())
        .and_then(|message| StorageCall::decode(&message.handler, &message.payload).ok())
        .filter(|call| expected(call))
        .ok_or_else(|| mismatch(format!("the transaction is not {what}")))?;
    if tx.value != 0 && !call.takes_value() {
        return Err(mismatch(format!("a {} carries no value; the transaction carries {}", call.handler(), tx.value)));
    }
    // The one recovery of this transaction: its sender is checked here and admitted as is.
    match tx.verify() {
        Ok(tx) if tx.sender == wallet => Ok(tx),
        Ok(tx) => Err(mismatch(format!(
            "the transaction is signed by {}, not by the authenticated wallet {wallet}",
            tx.sender
        ))),
        Err(e) => Err(mismatch(format!("the transaction's signature does not recover a sender: {e}"))),
    }
}

/// Admits a transaction route's transaction like `/submit` once [`storage_transaction`] took it.
async fn submit_storage<B: Backend>(
    state: &AppState<B>,
    Authenticated { token, body }: Authenticated,
    expected: impl FnOnce(&StorageCall) -> bool,
    what: &str,
) -> Result<Response, HttpError> {
    let tx = storage_transaction(token.wallet, &body, expected, what)?;
    Ok(submit_one(&state.backend, tx).await)
}

/// `POST /ras/volumes`: admits the wallet's signed `create` like `/submit`.
#[utoipa::path(
    post,
    path = paths::RAS_VOLUMES,
    tag = "ras",
    summary = "Create a volume (a signed transaction)",
    description = "Takes the wallet's signed `create` of the storage manager (value: the creation fee plus the \
        first deposit); refuses another call or a transaction the authenticated wallet did not sign (9104), \
        then answers like `/submit`. Authenticated (docs/storage.md).",
    request_body(content = RasTransactionRequest, content_type = "application/json"),
    responses((status = 200, description = "Accepted into the mempool; the record of `/submit`.", body = SubmitResponse)),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, STORAGE_AUTH_ERRORS, &[ErrorCode::RasTransactionMismatch]].concat())))),
)]
pub async fn create<B: Backend>(State(state): State<AppState<B>>, auth: Authenticated) -> Result<Response, HttpError> {
    let is_create = |call: &StorageCall| matches!(call, StorageCall::Create { .. });
    submit_storage(&state, auth, is_create, "a create of the storage manager").await
}

/// `POST /ras/volumes/{volume_id}/delete`: admits the owner's signed `delete` like `/submit`.
#[utoipa::path(
    post,
    path = paths::RAS_VOLUME_DELETE,
    tag = "ras",
    summary = "Delete a volume (a signed transaction)",
    description = "Takes the wallet's signed `delete` of this volume (no value); refuses another call, another \
        volume or a transaction the authenticated wallet did not sign (9104), then answers like `/submit`. \
        Authenticated (docs/storage.md).",
    params(("volume_id" = String, Path, description = "The volume: 32 bytes of hex.")),
    request_body(content = RasTransactionRequest, content_type = "application/json"),
    responses((status = 200, description = "Accepted into the mempool; the record of `/submit`.", body = SubmitResponse)),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, STORAGE_AUTH_ERRORS, &[ErrorCode::RasTransactionMismatch]].concat())))),
)]
pub async fn delete<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(id): HashParam,
    auth: Authenticated,
) -> Result<Response, HttpError> {
    let is_delete = |call: &StorageCall| matches!(call, StorageCall::Delete { volume } if *volume == id);
    submit_storage(&state, auth, is_delete, &format!("a delete of volume {id}")).await
}

/// `POST /ras/volumes/{volume_id}/undelete`: admits the owner's signed `undelete` like `/submit`.
#[utoipa::path(
    post,
    path = paths::RAS_VOLUME_UNDELETE,
    tag = "ras",
    summary = "Undelete a volume (a signed transaction)",
    description = "Takes the wallet's signed `undelete` of this volume (no value); refuses another call, another \
        volume or a transaction the authenticated wallet did not sign (9104), then answers like `/submit`. \
        Authenticated (docs/storage.md).",
    params(("volume_id" = String, Path, description = "The volume: 32 bytes of hex.")),
    request_body(content = RasTransactionRequest, content_type = "application/json"),
    responses((status = 200, description = "Accepted into the mempool; the record of `/submit`.", body = SubmitResponse)),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, STORAGE_AUTH_ERRORS, &[ErrorCode::RasTransactionMismatch]].concat())))),
)]
pub async fn undelete<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(id): HashParam,
    auth: Authenticated,
) -> Result<Response, HttpError> {
    let is_undelete = |call: &StorageCall| matches!(call, StorageCall::Undelete { volume } if *volume == id);
    submit_storage(&state, auth, is_undelete, &format!("an undelete of volume {id}")).await
}

/// `POST /ras/volumes/{volume_id}/deposit`: admits the wallet's signed `deposit` like `/submit`.
#[utoipa::path(
    post,
    path = paths::RAS_VOLUME_DEPOSIT,
    tag = "ras",
    summary = "Top a volume's deposit up (a signed transaction)",
    description = "Takes the wallet's signed `deposit` to this volume (the value is added to its deposit); \
        refuses another call, another volume or a transaction the authenticated wallet did not sign (9104), \
        then answers like `/submit`. Authenticated (docs/storage.md).",
    params(("volume_id" = String, Path, description = "The volume: 32 bytes of hex.")),
    request_body(content = RasTransactionRequest, content_type = "application/json"),
    responses((status = 200, description = "Accepted into the mempool; the record of `/submit`.", body = SubmitResponse)),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, STORAGE_AUTH_ERRORS, &[ErrorCode::RasTransactionMismatch]].concat())))),
)]
pub async fn deposit<B: Backend>(
    State(state): State<AppState<B>>,
    HashParam(id): HashParam,
    auth: Authenticated,
) -> Result<Response, HttpError> {
    let is_deposit = |call: &StorageCall| matches!(call, StorageCall::Deposit { volume } if *volume == id);
    submit_storage(&state, auth, is_deposit, &format!("a deposit to volume {id}")).await
}

/// `POST /ras/revoke`: admits the wallet's signed `revoke` like `/submit`.
#[utoipa::path(
    post,
    path = paths::RAS_REVOKE,
    tag = "ras",
    summary = "Revoke a session key (a signed transaction)",
    description = "Takes the wallet's signed `revoke` of the storage manager (no value): once included, the \
        node (401, 9100) and relays refuse the wallet's tokens for that session key. Refuses another call or \
        a transaction the authenticated wallet did not sign (9104), then answers like `/submit`. \
        Authenticated (docs/storage.md).",
    request_body(content = RasTransactionRequest, content_type = "application/json"),
    responses((status = 200, description = "Accepted into the mempool; the record of `/submit`.", body = SubmitResponse)),
    extensions(("x-errors" = json!(errors(&[SUBMIT_ERRORS, STORAGE_AUTH_ERRORS, &[ErrorCode::RasTransactionMismatch]].concat())))),
)]
pub async fn revoke<B: Backend>(State(state): State<AppState<B>>, auth: Authenticated) -> Result<Response, HttpError> {
    let is_revoke = |call: &StorageCall| matches!(call, StorageCall::Revoke { .. });
    submit_storage(&state, auth, is_revoke, "a revoke of the storage manager").await
}

#[cfg(test)]
mod tests {
    use crate::backend::{
        accounts::mock::AccountsMock,
        storage::mock::{StorageMock, relay, volume},
        transactions::mock::TransactionsMock,
    };
    use crate::mock::*;
    use axum::{body::Body, extract::ConnectInfo, http::Request};
    use base64::Engine as _;
    use drover_types::{
        Address, ErrorCode, H256, SecretKey, Transaction,
        api::{RelayHealth, VolumeInfo},
        payload::Message,
        storage::auth::{DelegationToken, node_audience, relay_audience, request_hash, session_public_key},
        storage::{STORAGE_MANAGER_ADDRESS, StorageCall, VolumeStatus},
        system_call::SystemCall,
    };
    use serde_json::json;
    use std::{
        net::SocketAddr,
        sync::atomic::{AtomicU64, Ordering},
    };

    fn session() -> (SecretKey, [u8; 33]) {
        let key = SecretKey::dev(7);
        let public = session_public_key(&key);
        (key, public)
    }

    fn now() -> u64 {
        super::now_ms()
    }

    /// A nonce no other request of the test binary uses.
    fn fresh_nonce() -> String {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        format!("{:032x}", NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// A request with `token`, stamped `at`, with `nonce`, signed by `signer` for the node.
    fn signed_with(
        request: (&str, &str, &[u8]),
        token: &str,
        at: u64,
        nonce: &str,
        signer: &SecretKey,
    ) -> Request<Body> {
        signed_for(&node_audience(CHAIN_ID), request, token, at, nonce, signer)
    }

    /// A request with `token`, stamped `at`, with `nonce`, signed by `signer` for `audience`.
    fn signed_for(
        audience: &str,
        (method, path, body): (&str, &str, &[u8]),
        token: &str,
        at: u64,
        nonce: &str,
        signer: &SecretKey,
    ) -> Request<Body> {
        let hash = request_hash(method, path, audience, &at.to_string(), nonce, body);
        let signature = format!("0x{}", hex::encode(signer.sign_prehash(&hash).to_rsv()));
        Request::builder()
            .method(method)
            .uri(path)
            .header("Content-Type", "application/json")
            .header("X-DRFS-Delegation", token)
            .header("X-DRFS-Timestamp", at.to_string())
            .header("X-DRFS-Nonce", nonce)
            .header("X-DRFS-Signature", signature)
            .body(Body::from(body.to_vec()))
            .unwrap()
    }

    /// A request of dev key `wallet`'s session, valid now.
    fn signed(method: &str, path: &str, body: &[u8], wallet: &SecretKey) -> Request<Body> {
        let (session_key, session_public) = session();
        let token = DelegationToken::issue(wallet, session_public, CHAIN_ID, now() + 60_000);
        signed_with((method, path, body), &token.encode(), now(), &fresh_nonce(), &session_key)
    }

    /// A signed `GET /ras/auth/me`.
    fn me(token: &str, at: u64, nonce: &str, signer: &SecretKey) -> Request<Body> {
        signed_with(("GET", "/ras/auth/me", b""), token, at, nonce, signer)
    }

    #[tokio::test]
    async fn a_signed_request_authenticates_and_every_refusal_is_401_with_its_code() {
        let app = app(&MockBackend::default());
        let (session_key, session_public) = session();
        let wallet = key(0);
        let token = DelegationToken::issue(&wallet, session_public, CHAIN_ID, now() + 60_000);
        let nonce = "0123456789abcdef0123456789abcdef";
        let answer = send(&app, me(&token.encode(), now(), nonce, &session_key)).await;
        assert_eq!(answer.status, 200, "{}", answer.json());
        assert_eq!(answer.json()["wallet"], wallet.address().to_hex());
        // The same nonce again: a replay.
        send(&app, me(&token.encode(), now(), nonce, &session_key)).await.assert_error(401, ErrorCode::RasReplayed);

        send(&app, me("", now(), &fresh_nonce(), &session_key)).await.assert_error(401, ErrorCode::RasTokenInvalid);
        let other_chain = DelegationToken::issue(&wallet, session_public, CHAIN_ID + 1, now() + 60_000);
        send(&app, me(&other_chain.encode(), now(), &fresh_nonce(), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        let expired = DelegationToken::issue(&wallet, session_public, CHAIN_ID, now() - 1);
        send(&app, me(&expired.encode(), now(), &fresh_nonce(), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        let mut elsewhere = token.clone();
        elsewhere.audience = "another:service".into();
        elsewhere.signature = wallet.sign_prehash(&elsewhere.signing_hash());
        send(&app, me(&elsewhere.encode(), now(), &fresh_nonce(), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        let mut forged = token.clone();
        forged.wallet = key(1).address();
        send(&app, me(&forged.encode(), now(), &fresh_nonce(), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        // Signed by another key than the session's, or stamped long ago.
        send(&app, me(&token.encode(), now(), &fresh_nonce(), &wallet))
            .await
            .assert_error(401, ErrorCode::RasRequestInvalid);
        send(&app, me(&token.encode(), now() - 120_000, &fresh_nonce(), &session_key))
            .await
            .assert_error(401, ErrorCode::RasRequestInvalid);
        // Signed for a relay (or another chain's nodes): not a request to this node.
        for audience in [relay_audience(&Address([0xee; 20])), node_audience(CHAIN_ID + 1)] {
            let request = signed_for(
                &audience,
                ("GET", "/ras/auth/me", b""),
                &token.encode(),
                now(),
                &fresh_nonce(),
                &session_key,
            );
            send(&app, request).await.assert_error(401, ErrorCode::RasRequestInvalid);
        }

        let challenge = get(&app, "/ras/challenge").await.json();
        assert_eq!(
            (challenge["chain_id"].as_u64(), challenge["audience"].as_str()),
            (Some(CHAIN_ID), Some("drover:ras"))
        );
        assert_eq!(challenge["request_audience"], json!(node_audience(CHAIN_ID)));
    }

    #[tokio::test]
    async fn a_revoked_session_key_is_refused_with_9100() {
        let backend = MockBackend::default();
        let app = app(&backend);
        let wallet = key(0);
        assert_eq!(send(&app, signed("GET", "/ras/auth/me", b"", &wallet)).await.status, 200);
        backend.part::<StorageMock>().lock().revocations.insert((wallet.address(), session().1), 12);
        let refused = send(&app, signed("GET", "/ras/auth/me", b"", &wallet)).await;
        refused.assert_error(401, ErrorCode::RasTokenInvalid);
        assert!(refused.json()["message"].as_str().unwrap().contains("revoked"), "{}", refused.json());
        // Another wallet's token for the same session key is not affected.
        assert_eq!(send(&app, signed("GET", "/ras/auth/me", b"", &key(1))).await.status, 200);
    }

    fn backend() -> MockBackend {
        MockBackend::with(|data: &mut StorageMock| {
            data.relays = vec![
                relay(1, RelayHealth::Healthy, (true, true), 50),
                relay(2, RelayHealth::Unhealthy, (true, true), 50),
                relay(3, RelayHealth::Healthy, (true, false), 0),
                relay(4, RelayHealth::Healthy, (false, true), 10),
                relay(5, RelayHealth::Healthy, (true, false), 1),
            ];
            let (me, other) = (key(0).address(), key(1).address());
            data.volumes = vec![
                volume(me, "photos", Address([1; 20]), false),
                volume(me, "site", Address([5; 20]), true),
                VolumeInfo { status: VolumeStatus::Grace, ..volume(me, "old", Address([1; 20]), false) },
                volume(other, "secret", Address([5; 20]), false),
                volume(other, "open", Address([1; 20]), true),
            ];
            data.volume_fees_burned = 50;
        })
    }

    fn from(uri: &str, ip: [u8; 4]) -> Request<Body> {
        let mut request = Request::get(uri).body(Body::empty()).unwrap();
        request.extensions_mut().insert(ConnectInfo(SocketAddr::from((ip, 5000))));
        request
    }

    #[tokio::test]
    async fn public_aggregates_and_relay_lists() {
        let app = app(&backend());
        // Native amounts are JSON integers, above 2^64 too (read as text: `Value` stops there).
        let stats = get(&app, "/ras/stats").await.text();
        let relay_stake = 5 * (u128::from(u64::MAX) + 1);
        assert_eq!(
            stats,
            format!(
                "{{\"height\":0,\"relays\":5,\"capacity_bytes\":500,\"relay_stake\":{relay_stake},\"volumes\":5,\
                 \"bytes\":50,\"deposits\":5000,\"rent_paid\":0,\"fees_burned\":50}}"
            )
        );
        let billing = get(&app, "/ras/billing/summary").await.json();
        assert_eq!(
            billing,
            json!({"height": 0, "volumes": 5, "bytes": 50, "deposits": 5000, "rent_paid": 0, "fees_burned": 50})
        );

        let addresses = |list: &serde_json::Value| -> Vec<String> {
            list["relays"].as_array().unwrap().iter().map(|r| r["address"].as_str().unwrap().to_owned()).collect()
        };
        let hex = |n: u8| Address([n; 20]).to_hex();
        // Public whatever the health, in slot order.
        let public = get(&app, "/ras/relays/public").await.json();
        assert_eq!(addresses(&public), [hex(1), hex(2), hex(4)]);
        assert_eq!((public["total_count"].clone(), public["limit"].clone()), (json!(3), json!(50)));
        let page = get(&app, "/ras/relays/public?offset=1&limit=1").await.json();
        assert_eq!((addresses(&page), page["total_count"].clone()), (vec![hex(2)], json!(3)));
        assert_eq!(page["relays"][0]["health"], json!("unhealthy"));
        let text = get(&app, "/ras/relays/public?offset=1&limit=1").await.text();
        assert!(text.contains(&format!("\"stake\":{},", u128::from(u64::MAX) + 1)), "{text}");
        // Taking writes, each with its health and free bytes (a new volume needs both).
        let writable = get(&app, "/ras/write-relayers").await.json();
        assert_eq!(addresses(&writable), [hex(1), hex(2), hex(3), hex(5)]);
        assert_eq!(
            (writable["relays"][1]["health"].clone(), writable["relays"][2]["free_bytes"].clone()),
            (json!("unhealthy"), json!(0))
        );
        get(&app, "/ras/write-relayers?limit=ten").await.assert_error(400, ErrorCode::BadRequest);
    }

    #[tokio::test]
    async fn revocations_are_public() {
        let wallet = key(0).address();
        let revoked = [2u8; 33];
        let backend = MockBackend::with(|data: &mut StorageMock| {
            data.revocations.insert((wallet, revoked), 9);
        });
        let app = app(&backend);
        let path = |key: &[u8]| format!("/ras/revocations/{}/0x{}", wallet.to_hex(), hex::encode(key));
        let answer = get(&app, &path(&revoked)).await.json();
        assert_eq!(
            answer,
            json!({"wallet": wallet.to_hex(), "session_key": format!("0x{}", "02".repeat(33)), "revoked": true, "height": 9})
        );
        let answer = get(&app, &path(&[3; 33])).await.json();
        assert_eq!((answer["revoked"].clone(), answer["height"].clone()), (json!(false), json!(null)));
        get(&app, &path(&[3; 32])).await.assert_error(400, ErrorCode::BadRequest);
        get(&app, &format!("/ras/revocations/0x12/{}", "02".repeat(33)))
            .await
            .assert_error(400, ErrorCode::InvalidAddress);
    }

    #[tokio::test]
    async fn public_reads_are_limited_per_client_ip_with_retry_after() {
        let config = crate::RpcConfig { storage_public_rate_per_sec: 2, ..crate::RpcConfig::default() };
        let app = api(backend(), config);
        let revocation = format!("/ras/revocations/{}/{}", key(0).address().to_hex(), "02".repeat(33));
        assert_eq!(send(&app, from("/ras/stats", [127, 0, 0, 1])).await.status, 200);
        assert_eq!(send(&app, from(&revocation, [127, 0, 0, 1])).await.status, 200);
        for uri in ["/ras/relays/public", "/ras/write-relayers", "/ras/billing/summary", "/ras/stats", &revocation] {
            let refused = send(&app, from(uri, [127, 0, 0, 1])).await;
            refused.assert_error(429, ErrorCode::RateLimited);
            assert_eq!(refused.header(axum::http::header::RETRY_AFTER), Some("1"));
        }
        // Another client is not held back, nor are other routes.
        assert_eq!(send(&app, from("/ras/relays/public", [127, 0, 0, 2])).await.status, 200);
        assert_eq!(send(&app, from("/ras/challenge", [127, 0, 0, 1])).await.status, 200);
        let metrics = get(&app, "/metrics").await.text();
        assert!(metrics.contains(r#"drover_rpc_rate_limited_total{limiter="ras"} 5"#), "{metrics}");
    }

    #[tokio::test]
    async fn a_wallet_reads_its_balance_and_volumes() {
        let app = app(&backend());
        let wallet = key(0);
        let balance = send(&app, signed("GET", "/ras/accounts/balance", b"", &wallet)).await;
        assert_eq!(balance.status, 200, "{}", balance.json());
        assert_eq!(
            balance.json(),
            json!({
                "wallet": wallet.address().to_hex(), "balance": 1_000_000_000_000u64, "volumes": 3,
                "deposits": 3000, "rent_per_block": 40, "truncated": false,
            })
        );
        let list = send(&app, signed("GET", "/ras/volumes?offset=1&limit=1", b"", &wallet)).await.json();
        assert_eq!(
            (list["total_count"].clone(), list["offset"].clone(), list["limit"].clone()),
            (json!(3), json!(1), json!(1))
        );
        assert_eq!(list["volumes"].as_array().unwrap().len(), 1);
        assert_eq!(list["volumes"][0]["owner"], json!(wallet.address().to_hex()));
        // The query is part of what is signed.
        let (session_key, session_public) = session();
        let token = DelegationToken::issue(&wallet, session_public, CHAIN_ID, now() + 60_000).encode();
        let hash =
            request_hash("GET", "/ras/volumes", &node_audience(CHAIN_ID), &now().to_string(), &fresh_nonce(), b"");
        let mut tampered =
            signed_with(("GET", "/ras/volumes?limit=1", b""), &token, now(), &fresh_nonce(), &session_key);
        tampered.headers_mut().insert(
            "X-DRFS-Signature",
            format!("0x{}", hex::encode(session_key.sign_prehash(&hash).to_rsv())).parse().unwrap(),
        );
        send(&app, tampered).await.assert_error(401, ErrorCode::RasRequestInvalid);
        send(&app, Request::get("/ras/volumes").body(Body::empty()).unwrap())
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
    }

    #[tokio::test]
    async fn a_volume_is_seen_by_its_owner_and_its_relay_only_and_never_leaks() {
        let (me, other) = (key(0).address(), key(1).address());
        let relay = key(2);
        let backend = MockBackend::with(|data: &mut StorageMock| {
            data.volumes =
                vec![volume(me, "photos", relay.address(), false), volume(other, "open", relay.address(), true)];
        });
        let app = app(&backend);
        let path =
            |owner: &Address, name: &str| format!("/ras/volumes/{}", drover_types::storage::volume_id(owner, name));
        let mine = send(&app, signed("GET", &path(&me, "photos"), b"", &key(0))).await;
        assert_eq!(mine.status, 200, "{}", mine.json());
        assert_eq!(mine.json()["name"], json!("photos"));
        assert_eq!(mine.json()["status"], json!("active"));
        // Its relay, authenticated as itself, sees both.
        let held = send(&app, signed("GET", &path(&me, "photos"), b"", &relay)).await;
        assert_eq!(held.status, 200);
        assert_eq!(send(&app, signed("GET", &path(&other, "open"), b"", &relay)).await.status, 200);

        // Someone else's volume, public or private, and an unknown id: the very same answer.
        let private = send(&app, signed("GET", &path(&me, "photos"), b"", &key(1))).await;
        let public = send(&app, signed("GET", &path(&other, "open"), b"", &key(0))).await;
        let unknown = send(&app, signed("GET", &path(&me, "nothing"), b"", &key(1))).await;
        for answer in [&private, &public, &unknown] {
            answer.assert_error(404, ErrorCode::RasVolumeNotFound);
        }
        assert_eq!(private.body, unknown.body);
        assert_eq!(public.body, unknown.body);
        send(&app, signed("GET", "/ras/volumes/0x12", b"", &key(0))).await.assert_error(400, ErrorCode::BadRequest);
    }

    /// `call` to the storage manager from dev key `signer`, with `value`, as a route's body.
    fn body_of(call: &StorageCall, value: u128, signer: &SecretKey) -> Vec<u8> {
        body_of_tx(&storage_tx(call, value).sign(signer))
    }

    fn storage_tx(call: &StorageCall, value: u128) -> Transaction {
        Transaction {
            to: Some(STORAGE_MANAGER_ADDRESS),
            value,
            cycles_limit: 1_000_000,
            cells_limit: 10_000,
            payload: call.message().encode(),
            ..transfer(CHAIN_ID, 0)
        }
    }

    fn body_of_tx(tx: &Transaction) -> Vec<u8> {
        let encoded = base64::engine::general_purpose::STANDARD.encode(tx.encode());
        serde_json::to_vec(&json!({ "transaction_base64": encoded })).unwrap()
    }

    #[tokio::test]
    async fn transaction_routes_admit_the_wallets_own_call_like_submit() {
        let backend = MockBackend::default();
        let app = app(&backend);
        let wallet = key(0);
        let id = H256([4; 32]);
        let create = StorageCall::Create {
            name: "photos".into(),
            relay: Address([1; 20]),
            public: false,
            max_size_bytes: 1 << 20,
        };
        let post_signed = |path: &str, body: Vec<u8>, signer: &SecretKey| signed("POST", path, &body, signer);

        let answer = send(&app, post_signed("/ras/volumes", body_of(&create, 5_000, &wallet), &wallet)).await;
        assert_eq!(answer.status, 200, "{}", answer.json());
        assert_eq!(answer.json()["accepted"], json!(1));
        let delete = format!("/ras/volumes/{id}/delete");
        let deleting = body_of(&StorageCall::Delete { volume: id }, 0, &wallet);
        assert_eq!(send(&app, post_signed(&delete, deleting.clone(), &wallet)).await.status, 200);
        for (route, call, value) in
            [("undelete", StorageCall::Undelete { volume: id }, 0), ("deposit", StorageCall::Deposit { volume: id }, 7)]
        {
            let path = format!("/ras/volumes/{id}/{route}");
            let answer = send(&app, post_signed(&path, body_of(&call, value, &wallet), &wallet)).await;
            assert_eq!(answer.status, 200, "{route}: {}", answer.json());
        }
        let revoke = body_of(&StorageCall::Revoke { session_key: session().1 }, 0, &wallet);
        assert_eq!(send(&app, post_signed("/ras/revoke", revoke, &wallet)).await.status, 200);
        let submitted = backend.part::<TransactionsMock>().lock().submitted.clone();
        assert_eq!(submitted.len(), 5);
        assert!(submitted.iter().all(|tx| tx.sender == wallet.address()));
        let handlers: Vec<String> =
            submitted.iter().map(|tx| Message::decode(&tx.tx.payload).unwrap().handler).collect();
        assert_eq!(handlers, ["create", "delete", "undelete", "deposit", "revoke"]);

        // Refused with 9104: another wallet's signature, another call, another volume, a value
        // where none is taken, an unsigned or undecodable transaction, another destination.
        let mismatches = [
            ("/ras/volumes", body_of(&create, 5_000, &key(1))),
            ("/ras/volumes", deleting.clone()),
            (delete.as_str(), body_of(&StorageCall::Delete { volume: H256([5; 32]) }, 0, &wallet)),
            (delete.as_str(), body_of(&StorageCall::Undelete { volume: id }, 0, &wallet)),
            (delete.as_str(), body_of(&StorageCall::Delete { volume: id }, 1, &wallet)),
            (delete.as_str(), body_of_tx(&storage_tx(&StorageCall::Delete { volume: id }, 0))),
            (delete.as_str(), serde_json::to_vec(&json!({"transaction_base64": "AAEC"})).unwrap()),
            (
                delete.as_str(),
                body_of_tx(
                    &Transaction { to: Some(Address([9; 20])), ..storage_tx(&StorageCall::Delete { volume: id }, 0) }
                        .sign(&wallet),
                ),
            ),
            ("/ras/revoke", body_of(&StorageCall::Reap { volume: id }, 0, &wallet)),
        ];
        for (path, body) in mismatches {
            let answer = send(&app, post_signed(path, body, &wallet)).await;
            answer.assert_error(400, ErrorCode::RasTransactionMismatch);
        }
        send(&app, post_signed(&delete, b"{".to_vec(), &wallet)).await.assert_error(400, ErrorCode::BadRequest);
        // Unauthenticated: 401 before anything is read.
        let unsigned = Request::post("/ras/volumes").body(Body::from(body_of(&create, 1, &wallet))).unwrap();
        send(&app, unsigned).await.assert_error(401, ErrorCode::RasTokenInvalid);
        assert_eq!(backend.part::<TransactionsMock>().lock().submitted.len(), 5, "nothing refused reached the mempool");

        // The mempool's refusals come back as /submit's.
        let stale = Transaction { nonce: 0, ..storage_tx(&create, 5_000) }.sign(&key(1));
        backend.part::<AccountsMock>().lock().accounts.get_mut(&key(1).address()).unwrap().nonce = 3;
        send(&app, post_signed("/ras/volumes", body_of_tx(&stale), &key(1)))
            .await
            .assert_error(400, ErrorCode::NonceTooLow);
    }
}
