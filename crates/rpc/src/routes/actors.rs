//! Actors: `GET /actor/{address}` (summary), `/actor/{address}/code` and
//! `/actor/{address}/manifest`, read from the latest finalized state, and `POST /actor/read`,
//! which runs a handler read-only on it. The lists (storage, mailbox, logs, runs) are pages
//! behind one [`CursorQuery`]; log and run cursors are opaque index positions whose length is
//! checked here. A page of storage, mailbox, logs or timers also ends once the records it read
//! reach [`PAGE_READ_BYTES_MAX`](crate::limits::PAGE_READ_BYTES_MAX) (the node's to enforce):
//! shorter than its limit, it still says where to go on.
//!
//! A read's request must carry exactly one payload form (`payload`, `payload_text`,
//! `payload_json`; 400 with 5001 otherwise); `payload_json` reaches the handler as compact JSON
//! with object keys sorted, so equal values give equal bytes. Budgets default to and may not
//! exceed the node's caps ([`READ_MAX_CYCLES`], [`READ_MAX_CELLS`]).
//!
//! An address that holds no actor answers 404 with code 5000 (an account without code is an
//! account, not an actor: `/account/{address}` describes it); a malformed address answers 400
//! with code 3001.

use crate::{
    backend::{ActorCall, Backend},
    error::HttpError,
    extract::{AddressParam, ApiQuery, RawBody, json_body, parse_address},
    limits::{MAX_STORAGE_KEY_BYTES, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, READ_MAX_CELLS, READ_MAX_CYCLES},
    openapi::errors,
    pagination::Page,
    state::AppState,
};
use axum::{Json, extract::State};
use drover_types::{
    Address, ErrorCode,
    api::{
        ActorCodeInfo, ActorInfo, ActorReadRequest, ActorReadResponse, CursorPage, LogInfo, LogPage,
        MailboxMessageInfo, MailboxPage, Paginated, StorageCount, StorageEntryInfo, StoragePage, SystemRunInfo,
        SystemRunPage, TimerInfo, TimerPage, UpgradeInfo, UpgradePage, paths,
    },
    payload::Manifest,
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

fn no_actor(address: Address) -> HttpError {
    HttpError::new(ErrorCode::ActorNotFound, format!("address {address} holds no actor"))
}

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("actors", "Actors: code, manifest and state"))
        .routes(routes!(actor))
        .routes(routes!(code))
        .routes(routes!(manifest))
        .routes(routes!(read))
        .routes(routes!(upgrade_history))
        .routes(routes!(storage))
        .routes(routes!(storage_count))
        .routes(routes!(mailbox))
        .routes(routes!(timers))
        .routes(routes!(logs))
        .routes(routes!(runs))
}

/// `GET /actor/{address}`: the actor's summary (404 with 5000 when it holds no actor).
#[utoipa::path(
    get,
    path = paths::ACTOR,
    tag = "actors",
    summary = "An actor's summary",
    description = "Code hash, owner, balance, nonce, mailbox count and bytes, deploy height, upgrades and manifest, at the latest finalized block.",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The actor.", body = ActorInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn actor<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<ActorInfo>, HttpError> {
    state.backend.actor(address).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// `GET /actor/{address}/code`: the actor's WebAssembly code and its hash.
#[utoipa::path(
    get,
    path = paths::ACTOR_CODE,
    tag = "actors",
    summary = "An actor's WebAssembly code",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The code (base64) with its hash and size.", body = ActorCodeInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn code<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<ActorCodeInfo>, HttpError> {
    state.backend.actor_code(address).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// `GET /actor/{address}/manifest`: the entitlements the actor is granted.
#[utoipa::path(
    get,
    path = paths::ACTOR_MANIFEST,
    tag = "actors",
    summary = "An actor's entitlements manifest",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The manifest.", body = Manifest)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn manifest<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<Manifest>, HttpError> {
    state.backend.actor(address).await?.map(|actor| Json(actor.manifest)).ok_or_else(|| no_actor(address))
}

/// Query of the cursor-paged lists (storage, mailbox, logs, runs): `cursor` is the previous
/// page's `next_cursor` (absent for the first page), `limit` the page size (default 50, capped
/// at 1,000; 0 counts as 1). Each route documents the two itself, since a cursor's form differs
/// per list (its `pattern` is what that list's parser takes).
#[derive(Debug, Deserialize)]
pub struct CursorQuery {
    /// The previous page's `next_cursor`; absent for the first page.
    cursor: Option<String>,
    /// Items per page: default 50, capped at 1,000.
    limit: Option<u64>,
}

impl CursorQuery {
    fn limit(&self) -> u64 {
        self.limit.unwrap_or(PAGE_LIMIT_DEFAULT).clamp(1, PAGE_LIMIT_MAX)
    }

    /// The cursor as hex bytes (`0x` or `0X` optional) whose length `fits`; `what` says what it must be.
    fn hex_cursor(&self, fits: impl Fn(usize) -> bool, what: &str) -> Result<Option<Vec<u8>>, HttpError> {
        self.cursor
            .as_deref()
            .map(|text| match drover_types::hexfmt::decode(text) {
                Ok(bytes) if fits(bytes.len()) => Ok(bytes),
                _ => {
                    Err(HttpError::new(ErrorCode::BadRequest, format!("cursor must be {what} (a page's next_cursor)")))
                }
            })
            .transpose()
    }
}

/// `GET /actors/{address}/storage`: a page of the actor's storage entries, in storage order.
#[utoipa::path(
    get,
    path = paths::ACTOR_STORAGE,
    tag = "actors",
    summary = "An actor's storage, a page at a time in storage order",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("cursor" = Option<String>, Query, pattern = "^(0[xX])?([0-9a-fA-F]{2}){0,256}$", description = "The previous page's `next_cursor` (a storage key in hex); absent for the first page."),
        ("limit" = Option<u64>, Query, description = "Items per page: default 50, capped at 1,000. A page also ends once its items reach 4 MiB (after its first): it then holds fewer, and `next_cursor` goes on."),
    ),
    responses((status = 200, description = "Entries after the cursor and the next cursor.", body = CursorPage<StorageEntryInfo>)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn storage<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    ApiQuery(query): ApiQuery<CursorQuery>,
) -> Result<Json<StoragePage>, HttpError> {
    let after = query.hex_cursor(
        |len| len <= MAX_STORAGE_KEY_BYTES,
        &format!("a storage key of at most {MAX_STORAGE_KEY_BYTES} bytes of hex"),
    )?;
    state.backend.actor_storage(address, after, query.limit()).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// `GET /actors/{address}/storage/count`: how many storage entries the actor holds.
#[utoipa::path(
    get,
    path = paths::ACTOR_STORAGE_COUNT,
    tag = "actors",
    summary = "How many storage entries an actor holds",
    description = "Kept in the state as entries are added and removed, so it is exact and needs no scan.",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The entry count in the latest finalized state.", body = StorageCount)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn storage_count<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<StorageCount>, HttpError> {
    let count = state.backend.actor_storage_count(address).await?.ok_or_else(|| no_actor(address))?;
    Ok(Json(StorageCount { address, count }))
}

/// `GET /actors/{address}/mailbox`: a page of the messages waiting for the actor, in delivery
/// order.
#[utoipa::path(
    get,
    path = paths::ACTOR_MAILBOX,
    tag = "actors",
    summary = "Messages waiting for an actor, a page at a time in delivery order",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("cursor" = Option<String>, Query, pattern = "^[0-9]{1,19}$", description = "The previous page's `next_cursor` (a queue position); absent for the first page."),
        ("limit" = Option<u64>, Query, description = "Items per page: default 50, capped at 1,000. A page also ends once its items reach 4 MiB (after its first): it then holds fewer, and `next_cursor` goes on."),
    ),
    responses((status = 200, description = "Pending messages after the cursor and the next cursor.", body = CursorPage<MailboxMessageInfo>)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn mailbox<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    ApiQuery(query): ApiQuery<CursorQuery>,
) -> Result<Json<MailboxPage>, HttpError> {
    let after = query
        .cursor
        .as_deref()
        .map(str::parse::<u64>)
        .transpose()
        .map_err(|e| HttpError::new(ErrorCode::BadRequest, format!("cursor is not a queue position: {e}")))?;
    state.backend.actor_mailbox(address, after, query.limit()).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// Length of a log cursor: the position of the last event of the previous page (height, phase,
/// index in the phase, event index), in hex. Opaque to clients.
pub const LOG_CURSOR_BYTES: usize = 17;

/// `GET /actor/{address}/logs`: a page of the actor's events, in chain order.
#[utoipa::path(
    get,
    path = paths::ACTOR_LOGS,
    tag = "actors",
    summary = "Events an actor emitted, a page at a time in chain order",
    description = "Topic, data, block height and origin of each event of the actor's successful executions (reverted parts emit nothing): a transaction (`tx_hash`, `tx_index`), a timer fire (`timer_id`) or a mailbox delivery (`message_seq`, `from`). Within a block, timer fires and deliveries ran first, so their events come first.",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("cursor" = Option<String>, Query, pattern = "^(0[xX])?[0-9a-fA-F]{34}$", description = "The previous page's `next_cursor` (17 bytes of hex); absent for the first page."),
        ("limit" = Option<u64>, Query, description = "Items per page: default 50, capped at 1,000. A page also ends once its items reach 4 MiB (after its first): it then holds fewer, and `next_cursor` goes on."),
    ),
    responses((status = 200, description = "Events after the cursor and the next cursor.", body = CursorPage<LogInfo>)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn logs<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    ApiQuery(query): ApiQuery<CursorQuery>,
) -> Result<Json<LogPage>, HttpError> {
    let after = query.hex_cursor(|len| len == LOG_CURSOR_BYTES, &format!("{LOG_CURSOR_BYTES} bytes of hex"))?;
    state.backend.actor_logs(address, after, query.limit()).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// Length of a run cursor: the position of the last run of the previous page (height, index
/// among the block's system runs), in hex. Opaque to clients.
pub const RUN_CURSOR_BYTES: usize = 12;

/// `GET /actor/{address}/runs`: a page of the actor's timer fires and mailbox deliveries, in chain
/// order.
#[utoipa::path(
    get,
    path = paths::ACTOR_RUNS,
    tag = "actors",
    summary = "An actor's timer fires and mailbox deliveries, a page at a time in chain order",
    description = "Handlers of the actor that blocks ran before their transactions: timer fires (`timer_id`) and deliveries (`message_seq`, `from`), with status, metering, fee, revert reason, E-code and number of events. A timer dropped because the actor could not pay its maximum fee is `failed` with E1503.",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("cursor" = Option<String>, Query, pattern = "^(0[xX])?[0-9a-fA-F]{24}$", description = "The previous page's `next_cursor` (12 bytes of hex); absent for the first page."),
        ("limit" = Option<u64>, Query, description = "Items per page: default 50, capped at 1,000."),
    ),
    responses((status = 200, description = "Runs after the cursor and the next cursor.", body = CursorPage<SystemRunInfo>)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn runs<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    ApiQuery(query): ApiQuery<CursorQuery>,
) -> Result<Json<SystemRunPage>, HttpError> {
    let after = query.hex_cursor(|len| len == RUN_CURSOR_BYTES, &format!("{RUN_CURSOR_BYTES} bytes of hex"))?;
    state.backend.actor_runs(address, after, query.limit()).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// `GET /actor/{address}/timers`: a page of the actor's pending timers, in firing order.
#[utoipa::path(
    get,
    path = paths::ACTOR_TIMERS,
    tag = "actors",
    summary = "An actor's pending timers, in firing order",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("offset" = Option<u64>, Query, description = "Timers to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, capped at 1,000). A page also ends once its timers reach 4 MiB (after its first): it then holds fewer, and the next page is at `offset` plus the timers it holds.")
    ),
    responses((status = 200, description = "The list envelope: id, height, handler, payload and cycles budget of each pending timer in the page.", body = Paginated<TimerInfo>)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn timers<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    page: Page,
) -> Result<Json<TimerPage>, HttpError> {
    state.backend.actor_timers(address, page).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// `GET /actor/{address}/upgrade-history`: a page of the actor's upgrades, oldest first.
#[utoipa::path(
    get,
    path = paths::ACTOR_UPGRADE_HISTORY,
    tag = "actors",
    summary = "An actor's upgrades, oldest first",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("offset" = Option<u64>, Query, description = "Upgrades to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, capped at 1,000).")
    ),
    responses((status = 200, description = "The list envelope: height, old and new code hash and transaction of each upgrade in the page.", body = Paginated<UpgradeInfo>)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::ActorNotFound])))),
)]
pub async fn upgrade_history<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    page: Page,
) -> Result<Json<UpgradePage>, HttpError> {
    state.backend.actor_upgrades(address, page).await?.map(Json).ok_or_else(|| no_actor(address))
}

/// The checked call a read request describes.
fn checked(request: ActorReadRequest) -> Result<ActorCall, HttpError> {
    let invalid = |message: String| HttpError::new(ErrorCode::InvalidActorRequest, message);
    let payload = match (request.payload, request.payload_text, request.payload_json) {
        (Some(bytes), None, None) => bytes,
        (None, Some(text), None) => text.into_bytes(),
        // serde_json's maps keep keys sorted, and `to_vec` writes compactly.
        (None, None, Some(json)) => {
            serde_json::to_vec(&json).map_err(|e| invalid(format!("payload_json cannot be written: {e}")))?
        }
        _ => {
            return Err(invalid("give exactly one of payload (base64), payload_text and payload_json".to_owned()));
        }
    };
    let budget = |asked: Option<u64>, cap: u64, name: &str| match asked {
        None => Ok(cap),
        Some(0) => Err(invalid(format!("{name} must be positive"))),
        Some(n) if n > cap => Err(invalid(format!("{name} is at most {cap} on this node, got {n}"))),
        Some(n) => Ok(n),
    };
    Ok(ActorCall {
        actor: request.actor,
        handler: request.handler,
        payload,
        caller: request.from.unwrap_or(Address::ZERO),
        max_cycles: budget(request.max_cycles, READ_MAX_CYCLES, "max_cycles")?,
        max_cells: budget(request.max_cells, READ_MAX_CELLS, "max_cells")?,
        trace: request.trace.unwrap_or(false),
    })
}

/// `POST /actor/read`: runs a handler read-only on the latest finalized state (5002, 5003 and 5004
/// for a missing handler, a write and an exhausted budget).
#[utoipa::path(
    post,
    path = paths::ACTOR_READ,
    tag = "actors",
    summary = "Run a handler read-only",
    description = "Runs the handler on the latest finalized state; nothing is written. Exactly one payload form.",
    request_body(content = ActorReadRequest, content_type = "application/json"),
    responses((status = 200, description = "The handler's result and metering, with the state it read.", body = ActorReadResponse)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::ActorNotFound, ErrorCode::InvalidActorRequest, ErrorCode::HandlerNotFound, ErrorCode::ReadOnlyViolation, ErrorCode::ReadLimitsExceeded])))),
)]
pub async fn read<B: Backend>(
    State(state): State<AppState<B>>,
    RawBody(body): RawBody,
) -> Result<Json<ActorReadResponse>, HttpError> {
    // Addresses are checked first so a bad one is 3001, not a generic 1001.
    let value: serde_json::Value = json_body(&body)?;
    for field in ["actor", "from"] {
        if let Some(text) = value.get(field).and_then(serde_json::Value::as_str) {
            parse_address(text)?;
        }
    }
    let request: ActorReadRequest = serde_json::from_value(value).map_err(|err| {
        HttpError::new(ErrorCode::BadRequest, format!("request body is not the expected JSON: {err}"))
    })?;
    let call = checked(request)?;
    Ok(Json(state.backend.actor_read(call).await?))
}

#[cfg(test)]
mod tests {
    use crate::{backend::actors::mock::ActorsMock, limits::MAX_STORAGE_KEY_BYTES, mock::*};
    use axum::http::StatusCode;
    use drover_types::{Address, ErrorCode};

    #[tokio::test]
    async fn read_requests_take_exactly_one_payload_form_within_the_caps() {
        let mock = MockBackend::with(|data: &mut ActorsMock| data.actors.push(actor(Address([0xac; 20]))));
        let app = app(&mock);
        let read = |body: serde_json::Value| {
            let app = app.clone();
            async move { post(&app, "/actor/read", "application/json", body.to_string()).await }
        };
        let actor = "0xacacacacacacacacacacacacacacacacacacacac";
        // The mock echoes the payload as the result.
        let answer =
            read(serde_json::json!({"actor": actor, "handler": "get", "payload_json": {"b": 1, "a": [true]}})).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
        let body = answer.json();
        assert_eq!(body["status"], "success");
        let echoed =
            base64::Engine::decode(&base64::engine::general_purpose::STANDARD, body["result"].as_str().unwrap())
                .unwrap();
        assert_eq!(echoed, br#"{"a":[true],"b":1}"#);
        assert_eq!(
            read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": ""})).await.status,
            StatusCode::OK
        );
        assert_eq!(
            read(serde_json::json!({"actor": actor, "handler": "get", "payload": "AAE="})).await.status,
            StatusCode::OK
        );

        for bad in [
            serde_json::json!({"actor": actor, "handler": "get"}),
            serde_json::json!({"actor": actor, "handler": "get", "payload": "AAE=", "payload_text": "x"}),
            serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "max_cycles": 0}),
            serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "max_cycles": crate::limits::READ_MAX_CYCLES + 1}),
            serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "max_cells": crate::limits::READ_MAX_CELLS + 1}),
        ] {
            read(bad).await.assert_error(400, ErrorCode::InvalidActorRequest);
        }
        read(serde_json::json!({"actor": "0x12", "handler": "get", "payload_text": ""}))
            .await
            .assert_error(400, ErrorCode::InvalidAddress);
        read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "from": "nope"}))
            .await
            .assert_error(400, ErrorCode::InvalidAddress);
        read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "extra": 1}))
            .await
            .assert_error(400, ErrorCode::BadRequest);
        // A trace is asked for with a boolean, and the answer carries the field either way.
        let traced =
            read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "trace": true})).await;
        assert_eq!(traced.status, StatusCode::OK, "{}", traced.text());
        assert!(traced.json().get("trace").is_some());
        read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "trace": "yes"}))
            .await
            .assert_error(400, ErrorCode::BadRequest);
        read(serde_json::json!({"actor": "0x0000000000000000000000000000000000000abc", "handler": "get", "payload_text": ""}))
            .await
            .assert_error(404, ErrorCode::ActorNotFound);
    }

    /// Generated traffic found two kinds of valid reads refused: `"max_cycles": 55.0` (JSON
    /// Schema's `integer` includes it) and a `payload_json` that is not an object (the document
    /// said object; the handler takes any JSON value). A `null` payload form counts as absent.
    #[tokio::test]
    async fn reads_take_integral_numbers_any_json_payload_and_null_as_absent() {
        let mock = MockBackend::with(|data: &mut ActorsMock| data.actors.push(actor(Address([0xac; 20]))));
        let app = app(&mock);
        let read = |body: serde_json::Value| {
            let app = app.clone();
            async move { post(&app, "/actor/read", "application/json", body.to_string()).await }
        };
        let actor = "0xacacacacacacacacacacacacacacacacacacacac";
        for good in [
            serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "max_cycles": 55.0, "max_cells": 1e3}),
            serde_json::json!({"actor": actor, "handler": "get", "payload_json": 5}),
            serde_json::json!({"actor": actor, "handler": "get", "payload_json": [1, "a"]}),
            serde_json::json!({"actor": actor, "handler": "get", "payload_json": false}),
            serde_json::json!({"actor": actor, "handler": "get", "payload_json": "text"}),
            serde_json::json!({"actor": actor, "handler": "get", "payload": null, "payload_json": null, "payload_text": "x"}),
        ] {
            let answer = read(good.clone()).await;
            assert_eq!(answer.status, StatusCode::OK, "{good}: {}", answer.text());
        }
        for fraction in
            [serde_json::json!(55.5), serde_json::json!(-1.0), serde_json::json!(1e20), serde_json::json!("5")]
        {
            read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "max_cycles": fraction}))
                .await
                .assert_error(400, ErrorCode::BadRequest);
        }
        read(serde_json::json!({"actor": actor, "handler": "get", "payload_json": null}))
            .await
            .assert_error(400, ErrorCode::InvalidActorRequest);
        read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "max_cells": 0.0}))
            .await
            .assert_error(400, ErrorCode::InvalidActorRequest);
    }

    /// The `pattern` a route documents for `cursor`.
    fn cursor_pattern(route: &str) -> regex::Regex {
        let doc = serde_json::to_value(crate::routes::routes::<MockBackend>().1).unwrap();
        let parameters = doc["paths"][route]["get"]["parameters"].as_array().cloned().unwrap_or_default();
        let cursor = parameters.iter().find(|p| p["name"] == "cursor").unwrap_or_else(|| panic!("{route}: no cursor"));
        regex::Regex::new(cursor["schema"]["pattern"].as_str().unwrap_or_else(|| panic!("{route}: no pattern")))
            .unwrap()
    }

    /// Each list documents the cursors it takes (generated traffic found `cursor` documented as
    /// any string, answered 400), and the cursors it hands out are among them.
    #[tokio::test]
    async fn documented_cursor_patterns_are_what_each_list_takes() {
        let mock = MockBackend::with(|data: &mut ActorsMock| data.actors.push(actor(Address([0xac; 20]))));
        // Hundreds of requests: no global limit in the way.
        let config = crate::RpcConfig { global_rate_limit_per_sec: 1_000_000, ..crate::RpcConfig::default() };
        let app = crate::mock::api(mock, config);
        let at = |route: &str| route.replace("{address}", "0xacacacacacacacacacacacacacacacacacacacac");
        for (route, bytes) in [
            ("/actors/{address}/storage", MAX_STORAGE_KEY_BYTES),
            ("/actor/{address}/logs", super::LOG_CURSOR_BYTES),
            ("/actor/{address}/runs", super::RUN_CURSOR_BYTES),
        ] {
            let pattern = cursor_pattern(route);
            for length in [0, 1, bytes - 1, bytes, bytes + 1] {
                for digits in [
                    "ab".repeat(length),
                    format!("{}F", "0".repeat(2 * length)),
                    format!("{}zz", "0".repeat(2 * length)),
                ] {
                    for prefix in ["", "0x", "0X"] {
                        let cursor = format!("{prefix}{digits}");
                        let answer = get(&app, &format!("{}?cursor={cursor}", at(route))).await;
                        let taken = answer.status == StatusCode::OK;
                        assert_eq!(
                            pattern.is_match(&cursor),
                            taken,
                            "{route} {length} bytes: {prefix}…: {}",
                            answer.text()
                        );
                    }
                }
            }
        }
        let mailbox = cursor_pattern("/actors/{address}/mailbox");
        for cursor in ["", "0", "7", "9999999999999999999", "x", "-1", "1.0", "0x1"] {
            let taken = get(&app, &format!("{}?cursor={cursor}", at("/actors/{address}/mailbox"))).await.status
                == StatusCode::OK;
            assert_eq!(mailbox.is_match(cursor), taken, "mailbox {cursor:?}");
        }
        let handed_out = get(&app, &format!("{}?limit=1", at("/actors/{address}/storage"))).await.json();
        let next = handed_out["next_cursor"].as_str().expect("a second page");
        assert!(cursor_pattern("/actors/{address}/storage").is_match(next), "{next}");
    }

    /// Offsets are u64 up to u64::MAX, as the document now says (it said int64).
    #[tokio::test]
    async fn offsets_span_u64() {
        let mock = MockBackend::with(|data: &mut ActorsMock| data.actors.push(actor(Address([0xac; 20]))));
        let app = app(&mock);
        let timers = "/actor/0xacacacacacacacacacacacacacacacacacacacac/timers";
        let page = get(&app, &format!("{timers}?offset=18446744073709551615&limit=18446744073709551615")).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text());
        assert_eq!(page.json()["limit"], 1000);
        get(&app, &format!("{timers}?offset=18446744073709551616")).await.assert_error(400, ErrorCode::BadRequest);
    }

    #[tokio::test]
    async fn storage_pages_and_upgrade_history() {
        let mock = MockBackend::with(|data: &mut ActorsMock| data.actors.push(actor(Address([0xac; 20]))));
        let app = app(&mock);
        let base = "/actors/0xacacacacacacacacacacacacacacacacacacacac/storage";
        let page = get(&app, base).await.json();
        assert_eq!(page["limit"], 50);
        assert_eq!(page["items"][0]["key"], "0x61");
        assert_eq!(page["next_cursor"], "0x61");
        let next = get(&app, &format!("{base}?cursor=0x61&limit=5000")).await.json();
        assert_eq!(next["limit"], 1000);
        assert_eq!(next["items"][0]["key"], "0x62");
        assert!(next["next_cursor"].is_null());
        let too_long = format!("?cursor={}", "ab".repeat(MAX_STORAGE_KEY_BYTES + 1));
        for bad in ["?cursor=zz", "?limit=-1", "?limit=ten", too_long.as_str()] {
            get(&app, &format!("{base}{bad}")).await.assert_error(400, ErrorCode::BadRequest);
        }
        get(&app, "/actors/0x0000000000000000000000000000000000000abc/storage")
            .await
            .assert_error(404, ErrorCode::ActorNotFound);
        let count = get(&app, &format!("{base}/count")).await.json();
        assert_eq!(count, serde_json::json!({"address": "0xacacacacacacacacacacacacacacacacacacacac", "count": 2}));
        get(&app, "/actors/0x0000000000000000000000000000000000000abc/storage/count")
            .await
            .assert_error(404, ErrorCode::ActorNotFound);
        get(&app, "/actors/0xabc/storage/count").await.assert_error(400, ErrorCode::InvalidAddress);

        let mailbox =
            get(&app, "/actors/0xacacacacacacacacacacacacacacacacacacacac/mailbox?cursor=7&limit=9").await.json();
        assert_eq!(mailbox, serde_json::json!({"items": [], "next_cursor": null, "limit": 9}));
        get(&app, "/actors/0xacacacacacacacacacacacacacacacacacacacac/mailbox?cursor=x")
            .await
            .assert_error(400, ErrorCode::BadRequest);
        let logs = get(&app, "/actor/0xacacacacacacacacacacacacacacacacacacacac/logs?limit=3").await.json();
        assert_eq!(logs, serde_json::json!({"items": [], "next_cursor": null, "limit": 3}));
        get(&app, "/actor/0xacacacacacacacacacacacacacacacacacacacac/logs?cursor=00")
            .await
            .assert_error(400, ErrorCode::BadRequest);
        let timers =
            get(&app, "/actor/0xacacacacacacacacacacacacacacacacacacacac/timers?offset=2&limit=3").await.json();
        assert_eq!(timers, serde_json::json!({"items": [], "total_count": 0, "offset": 2, "limit": 3}));
        get(&app, "/actor/0xacacacacacacacacacacacacacacacacacacacac/timers?offset=-1")
            .await
            .assert_error(400, ErrorCode::BadRequest);
        get(&app, "/actor/0x0000000000000000000000000000000000000abc/timers")
            .await
            .assert_error(404, ErrorCode::ActorNotFound);
        let history = get(&app, "/actor/0xacacacacacacacacacacacacacacacacacacacac/upgrade-history").await.json();
        assert_eq!(history, serde_json::json!({"items": [], "total_count": 0, "offset": 0, "limit": 50}));
        get(&app, "/actor/0x12/upgrade-history").await.assert_error(400, ErrorCode::InvalidAddress);
    }

    #[tokio::test]
    async fn log_items_say_where_each_event_came_from() {
        use drover_types::{
            H256,
            api::{LogInfo, LogOrigin},
        };
        let echo = Address([0xac; 20]);
        let sender = Address([0x5e; 20]);
        let item = |origin| LogInfo {
            topic: "t".into(),
            data: vec![1],
            block_height: 9,
            origin,
            tx_hash: None,
            tx_index: None,
            timer_id: None,
            message_seq: None,
            from: None,
            event_index: 0,
        };
        let logs = vec![
            LogInfo { timer_id: Some(9 << 32), ..item(LogOrigin::Timer) },
            LogInfo { message_seq: Some(4), from: Some(sender), ..item(LogOrigin::Delivery) },
            LogInfo { tx_hash: Some(H256([0xab; 32])), tx_index: Some(0), ..item(LogOrigin::Transaction) },
        ];
        let mock = MockBackend::with(|data: &mut ActorsMock| {
            data.actors.push(actor(echo));
            data.logs.insert(echo, logs);
        });
        let app = app(&mock);
        let base = "/actor/0xacacacacacacacacacacacacacacacacacacacac/logs";
        let page = get(&app, base).await.json();
        let common = serde_json::json!({"topic": "t", "data": "AQ==", "block_height": 9, "event_index": 0});
        let with = |fields: serde_json::Value| {
            let mut item = common.clone();
            item.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
            item
        };
        assert_eq!(
            page["items"],
            serde_json::json!([
                with(serde_json::json!({"origin": "timer", "tx_hash": null, "tx_index": null, "timer_id": 9u64 << 32,
                    "message_seq": null, "from": null})),
                with(serde_json::json!({"origin": "delivery", "tx_hash": null, "tx_index": null, "timer_id": null,
                    "message_seq": 4, "from": sender.to_hex()})),
                with(serde_json::json!({"origin": "transaction", "tx_hash": H256([0xab; 32]).to_hex(), "tx_index": 0,
                    "timer_id": null, "message_seq": null, "from": null})),
            ])
        );
        // A cursor is a whole position (17 bytes); one of the earlier 16-byte form is refused.
        let position = "00".repeat(super::LOG_CURSOR_BYTES);
        assert_eq!(get(&app, &format!("{base}?cursor=0x{position}")).await.status, StatusCode::OK);
        get(&app, &format!("{base}?cursor={}", "00".repeat(16))).await.assert_error(400, ErrorCode::BadRequest);
    }

    #[tokio::test]
    async fn runs_come_in_cursor_pages_with_their_kind_and_outcome() {
        use drover_types::api::{ExecErrorInfo, ReceiptStatus, RunKind, SystemRunInfo};
        use drover_types::{ExecError, exec_error::ExecCode};
        let alarm = Address([0xac; 20]);
        let sender = Address([0x5e; 20]);
        let fired = SystemRunInfo {
            block_height: 9,
            kind: RunKind::Timer,
            timer_id: Some(9 << 32),
            message_seq: None,
            from: None,
            handler: "ring".into(),
            status: ReceiptStatus::Success,
            cycles_used: 1_200,
            cells_used: 8,
            fee: 1_208,
            fee_burned: 1_208,
            fee_tip: 0,
            revert_reason: None,
            error: None,
            event_count: 1,
        };
        let delivered = SystemRunInfo {
            kind: RunKind::Delivery,
            timer_id: None,
            message_seq: Some(4),
            from: Some(sender),
            handler: "pong".into(),
            ..fired.clone()
        };
        let unpaid = ExecError::new(ExecCode::TimerUnpaid, "timer 42949672961 dropped: its owner holds 0");
        let dropped = SystemRunInfo {
            block_height: 10,
            timer_id: Some((10 << 32) | 1),
            status: ReceiptStatus::Failed,
            cycles_used: 0,
            cells_used: 0,
            fee: 0,
            fee_burned: 0,
            event_count: 0,
            error: Some(ExecErrorInfo::from(&unpaid)),
            ..fired.clone()
        };
        let mock = MockBackend::with(|data: &mut ActorsMock| {
            data.actors.push(actor(alarm));
            data.runs.insert(alarm, vec![fired, delivered, dropped]);
        });
        let app = app(&mock);
        let base = "/actor/0xacacacacacacacacacacacacacacacacacacacac/runs";

        let first = get(&app, &format!("{base}?limit=2")).await.json();
        assert_eq!(first["limit"], 2);
        assert_eq!(
            first["items"][0],
            serde_json::json!({
                "block_height": 9, "kind": "timer", "timer_id": 9u64 << 32, "message_seq": null, "from": null,
                "handler": "ring", "status": "success", "cycles_used": 1_200, "cells_used": 8,
                "fee": 1_208, "fee_burned": 1_208, "fee_tip": 0, "revert_reason": null, "error": null,
                "event_count": 1,
            })
        );
        assert_eq!(first["items"][1]["kind"], "delivery");
        assert_eq!(first["items"][1]["message_seq"], 4);
        assert_eq!(first["items"][1]["from"], sender.to_hex());
        assert!(first["items"][1]["timer_id"].is_null());
        let cursor = first["next_cursor"].as_str().expect("a second page");
        let second = get(&app, &format!("{base}?cursor={cursor}")).await.json();
        assert_eq!(second["limit"], 50);
        assert!(second["next_cursor"].is_null());
        let dropped = &second["items"][0];
        assert_eq!((dropped["status"].as_str(), dropped["block_height"].as_u64()), (Some("failed"), Some(10)));
        assert_eq!(dropped["error"]["code"], "E1503");
        assert_eq!(dropped["error"]["category"], "timer");
        assert_eq!(dropped["error"]["message"], unpaid.message);
        assert_eq!(get(&app, &format!("{base}?limit=5000")).await.json()["limit"], 1000);

        let too_long = format!("?cursor={}", "00".repeat(super::RUN_CURSOR_BYTES + 1));
        for bad in ["?cursor=zz", "?cursor=00", "?limit=-1", too_long.as_str()] {
            get(&app, &format!("{base}{bad}")).await.assert_error(400, ErrorCode::BadRequest);
        }
        get(&app, "/actor/0x0000000000000000000000000000000000000abc/runs")
            .await
            .assert_error(404, ErrorCode::ActorNotFound);
        get(&app, "/actor/0x12/runs").await.assert_error(400, ErrorCode::InvalidAddress);
    }

    #[tokio::test]
    async fn summary_code_and_manifest_of_an_actor() {
        let mock = MockBackend::with(|data: &mut ActorsMock| data.actors.push(actor(Address([0xac; 20]))));
        let app = app(&mock);
        let body = get(&app, "/actor/0xacacacacacacacacacacacacacacacacacacacac").await.json();
        assert_eq!(body["code_hash"], drover_types::keccak256(&[0, 0x61, 0x73, 0x6d]).to_hex());
        assert_eq!(body["owner"], Address([1; 20]).to_hex());
        assert_eq!(body["mailbox_count"], 2);
        assert_eq!(body["manifest"]["entitlements"], serde_json::json!(["storage.kv"]));

        let code = get(&app, "/actor/acacacacacacacacacacacacacacacacacacacac/code").await.json();
        assert_eq!(code["size"], 4);
        assert_eq!(code["code"], "AGFzbQ==");
        let manifest = get(&app, "/actor/0xacacacacacacacacacacacacacacacacacacacac/manifest").await;
        assert_eq!(manifest.status, StatusCode::OK);
        assert_eq!(manifest.json(), serde_json::json!({"entitlements": ["storage.kv"]}));

        for path in ["", "/code", "/manifest"] {
            get(&app, &format!("/actor/0x0000000000000000000000000000000000000abc{path}"))
                .await
                .assert_error(404, ErrorCode::ActorNotFound);
            get(&app, &format!("/actor/0x12{path}")).await.assert_error(400, ErrorCode::InvalidAddress);
        }
    }
}
