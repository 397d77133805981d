//! The OpenAPI document (utoipa) and, in development mode, the Swagger UI.
//!
//! Each handler carries its `#[utoipa::path]` (parameters, request body, success response).
//! The error responses are added by [`ErrorResponses`] from one table, [`OPERATION_ERRORS`],
//! listing the registered [`ErrorCode`]s each operation can answer, so every description comes
//! from the error registry itself and cannot drift from what is served. Codes every operation
//! can answer (1000 internal, 1003 timeout, 1004 rate limited, and 6000 for request bodies) are
//! added to all.
//!
//! [`ParameterSchemas`] completes the parameters' schemas from what the extractors accept (the
//! `pattern` of each kind of path parameter, the range of integer query parameters), and
//! [`ReadPayloadForms`] states that a read carries exactly one payload form, so a request the
//! document calls valid is one the node can take (checked with generated traffic, see
//! `docs/robustness.md`).
//!
//! The document is served at `/api-docs/openapi.json` and the vendored (offline) Swagger UI at
//! `/swagger-ui` only when `DROVER_DEV_MODE` is set; otherwise both paths are unknown routes.

use crate::{
    extract::{ADDRESS_PATTERN, BLOCK_SELECTOR_PATTERN, HASH_PATTERN},
    routes::{
        accounts, actors, blocks, chain, entitlements, events, faucet, governance, health, history, jobs, library,
        metrics, proofs, proofs::STORAGE_KEY_PATTERN, ras, runners, secrets, simulate, state_sync, stream, tokens,
        transactions,
    },
};
use drover_types::{ErrorCode, api::ErrorBody};
use std::collections::BTreeMap;
use utoipa::{
    Modify, Number, OpenApi,
    openapi::{
        AllOfBuilder, ContentBuilder, HttpMethod, KnownFormat, ObjectBuilder, OneOfBuilder, RefOr, ResponseBuilder,
        Schema, SchemaFormat, Type,
        header::HeaderBuilder,
        path::{Operation, ParameterIn, PathItem},
        schema::{Ref, SchemaType},
    },
};
use utoipa_swagger_ui::SwaggerUi;

/// Where the document is served in development mode.
pub(crate) const OPENAPI_JSON_PATH: &str = "/api-docs/openapi.json";
/// Where the Swagger UI is served in development mode.
pub(crate) const SWAGGER_UI_PATH: &str = "/swagger-ui";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Drover validator HTTP API",
        description = "HTTP API of a Drover validator node. Addresses and hashes are `0x` hex \
            (input: `0x` optional, any case); bytes are standard base64; native amounts are JSON \
            integers in base units (1 DRV = 10^9); basefees and token amounts are decimal \
            strings. Errors are `{\"code\", \"error\", \"message\"}` with the HTTP status of \
            their code; 429 and 503 responses carry `Retry-After`. Server limits: at most \
            1,024 connections (one more: 429, code 1004, then closed), 10 s to send a request \
            head (408, code 1003, then closed), 30 s from a request to its answer (503, code \
            1003), 256 `/submit_wait` waits at once (429, code 1004). A 500 shows no detail: its message is \
            `internal error (request id <id>)` and `X-Request-Id` carries the id under which the \
            node logged the detail."
    ),
    paths(
        transactions::submit,
        transactions::submit_wait,
        transactions::transaction,
        transactions::receipt,
        transactions::mempool_transaction,
        accounts::account,
        actors::actor,
        actors::code,
        actors::manifest,
        actors::read,
        actors::storage,
        actors::storage_count,
        actors::mailbox,
        actors::timers,
        actors::logs,
        actors::runs,
        actors::upgrade_history,
        tokens::tokens,
        tokens::token,
        tokens::balance,
        tokens::allowance,
        tokens::account_tokens,
        runners::active,
        runners::runner,
        runners::delegations,
        runners::heartbeat_payload,
        runners::heartbeat,
        runners::jobs,
        runners::job_result_payload,
        runners::job_result,
        ras::challenge,
        ras::me,
        ras::stats,
        ras::public_relays,
        ras::write_relayers,
        ras::billing_summary,
        ras::revocation,
        ras::balance,
        ras::volumes,
        ras::volume,
        ras::create,
        ras::delete,
        ras::undelete,
        ras::deposit,
        ras::revoke,
        library::libraries,
        library::library,
        secrets::secrets,
        secrets::envelope,
        governance::params,
        governance::proposals,
        governance::proposal,
        jobs::job,
        jobs::status,
        jobs::results,
        jobs::verified,
        entitlements::registry,
        entitlements::validate_manifest,
        blocks::height,
        blocks::block,
        chain::chain_info,
        chain::basefee,
        health::health,
        health::detailed,
        health::ready,
        metrics::metrics,
        faucet::faucet,
        state_sync::snapshot,
        state_sync::operations,
        proofs::account,
        proofs::actor,
        proofs::storage,
        proofs::state_value,
        proofs::tx,
        proofs::receipt,
        proofs::multi,
        history::history,
        history::blocks,
        history::indexed,
        events::events,
        stream::blocks,
        stream::transaction,
        stream::events,
        simulate::simulate,
    ),
    components(schemas(ErrorBody)),
    modifiers(&ErrorResponses, &ParameterSchemas, &ReadPayloadForms),
    tags(
        (name = "transactions", description = "Submission, transactions and receipts"),
        (name = "accounts", description = "Account state"),
        (name = "actors", description = "Actors: code, manifest and state"),
        (name = "tokens", description = "Native fungible tokens: metadata, balances, allowances"),
        (name = "runners", description = "Off-chain compute runners and delegations to them"),
        (name = "jobs", description = "Jobs bought from runners: spec, status, results and verdict"),
        (name = "governance", description = "Chain parameters and the proposals that change them"),
        (name = "secrets", description = "Secrets stored as per-reader ciphertext envelopes"),
        (name = "libraries", description = "Actor code published once and run by actors in their own context"),
        (name = "ras", description = "Storage relays: authentication, relays, volumes, billing and the volume transactions"),
        (name = "entitlements", description = "The entitlement registry and manifest checks"),
        (name = "blocks", description = "Finalized blocks"),
        (name = "chain", description = "Chain identity and fee market"),
        (name = "health", description = "Operator surfaces: health and metrics"),
        (name = "faucet", description = "Development-network faucet"),
        (name = "state-sync", description = "State snapshots for peers that fast-sync"),
        (name = "proofs", description = "Merkle proofs for light clients, with the block and its finalization certificate"),
        (name = "events", description = "Events across emitters, by emitter, topic and height range"),
        (name = "streams", description = "Push streams (server-sent events): blocks, a transaction's outcome, events"),
    )
)]
pub(crate) struct ApiDoc;

use ErrorCode::*;

/// Refusals of a submission, whole or per transaction (the status of a batch where nothing was
/// accepted is that of its first refusal).
const SUBMIT_ERRORS: &[ErrorCode] = &[
    BadRequest,
    MalformedTransaction,
    InvalidSignature,
    WrongChainId,
    NonceTooLow,
    NonceTooHigh,
    OutOfGas,
    InsufficientBalance,
    AlreadyKnown,
    ReplacementUnderpriced,
    DeferredRejected,
    InvalidFees,
    BasefeeTooLow,
    InvalidPayload,
    SubmissionTooLarge,
    InvalidBatch,
    AdmissionBusy,
    AdmissionRetry,
    MalformedCbor,
    NonCanonicalCbor,
];

/// Codes each operation can answer besides [`COMMON_ERRORS`] (and [`BODY_ERRORS`] for POST), as
/// groups so operations that share refusals share one list.
pub(crate) const OPERATION_ERRORS: &[(HttpMethod, &str, &[&[ErrorCode]])] = &[
    (HttpMethod::Post, "/submit", &[SUBMIT_ERRORS]),
    (HttpMethod::Post, "/submit_wait", &[SUBMIT_ERRORS, &[InvalidWaitTimeout]]),
    (HttpMethod::Get, "/transaction/{hash}", &[&[BadRequest, NotFound]]),
    (HttpMethod::Get, "/transaction/{hash}/receipt", &[&[BadRequest, NotFound]]),
    (HttpMethod::Get, "/mempool/transaction/{hash}", &[&[BadRequest, NotFound]]),
    (HttpMethod::Get, "/account/{address}", &[&[InvalidAddress, AccountNotFound]]),
    (HttpMethod::Get, "/actor/{address}", &[&[InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actor/{address}/code", &[&[InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actor/{address}/manifest", &[&[InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actors/{address}/storage", &[&[BadRequest, InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actors/{address}/storage/count", &[&[InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actors/{address}/mailbox", &[&[BadRequest, InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actor/{address}/logs", &[&[BadRequest, InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actor/{address}/runs", &[&[BadRequest, InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actor/{address}/timers", &[&[InvalidAddress, ActorNotFound]]),
    (HttpMethod::Get, "/actor/{address}/upgrade-history", &[&[InvalidAddress, ActorNotFound]]),
    (
        HttpMethod::Post,
        "/actor/read",
        &[&[
            BadRequest,
            InvalidAddress,
            ActorNotFound,
            InvalidActorRequest,
            HandlerNotFound,
            ReadOnlyViolation,
            ReadLimitsExceeded,
        ]],
    ),
    (HttpMethod::Get, "/tokens", &[&[BadRequest]]),
    (HttpMethod::Get, "/token/{token_id}", &[&[InvalidAddress, NotFound]]),
    (HttpMethod::Get, "/token/{token_id}/balance/{address}", &[&[InvalidAddress, NotFound]]),
    (HttpMethod::Get, "/token/{token_id}/allowance/{owner}/{spender}", &[&[InvalidAddress, NotFound]]),
    (HttpMethod::Get, "/account/{address}/tokens", &[&[BadRequest, InvalidAddress]]),
    (HttpMethod::Get, "/runners/active", &[&[BadRequest]]),
    (HttpMethod::Get, "/runner/{address}", &[&[InvalidAddress, RunnerNotFound]]),
    (HttpMethod::Get, "/account/{address}/delegations", &[&[BadRequest, InvalidAddress]]),
    (HttpMethod::Get, "/runner/{address}/heartbeat_payload", &[&[InvalidAddress, RunnerNotFound]]),
    (
        HttpMethod::Post,
        "/runner/{address}/heartbeat",
        &[SUBMIT_ERRORS, &[InvalidAddress, FlowTransactionMismatch, FlowSignatureMismatch]],
    ),
    (HttpMethod::Get, "/runner/{address}/jobs", &[&[BadRequest, InvalidAddress]]),
    (
        HttpMethod::Get,
        "/runner/{address}/job_result_payload",
        &[&[BadRequest, InvalidAddress, RunnerNotFound, JobNotFound, RunnerNotAssigned]],
    ),
    (
        HttpMethod::Post,
        "/runner/{address}/job_result",
        &[SUBMIT_ERRORS, &[InvalidAddress, FlowTransactionMismatch, FlowSignatureMismatch]],
    ),
    (HttpMethod::Get, "/ras/challenge", &[]),
    (HttpMethod::Get, "/ras/auth/me", &[RAS_AUTH_ERRORS]),
    (HttpMethod::Get, "/ras/stats", &[]),
    (HttpMethod::Get, "/ras/relays/public", &[&[BadRequest]]),
    (HttpMethod::Get, "/ras/write-relayers", &[&[BadRequest]]),
    (HttpMethod::Get, "/ras/billing/summary", &[]),
    (HttpMethod::Get, "/ras/revocations/{wallet}/{session_key}", &[&[BadRequest, InvalidAddress]]),
    (HttpMethod::Get, "/ras/accounts/balance", &[RAS_AUTH_ERRORS]),
    (HttpMethod::Get, "/ras/volumes", &[RAS_AUTH_ERRORS, &[BadRequest]]),
    (HttpMethod::Get, "/ras/volumes/{volume_id}", &[RAS_AUTH_ERRORS, &[BadRequest, RasVolumeNotFound]]),
    (HttpMethod::Post, "/ras/volumes", &[SUBMIT_ERRORS, RAS_AUTH_ERRORS, &[RasTransactionMismatch]]),
    (HttpMethod::Post, "/ras/volumes/{volume_id}/delete", &[SUBMIT_ERRORS, RAS_AUTH_ERRORS, &[RasTransactionMismatch]]),
    (
        HttpMethod::Post,
        "/ras/volumes/{volume_id}/undelete",
        &[SUBMIT_ERRORS, RAS_AUTH_ERRORS, &[RasTransactionMismatch]],
    ),
    (
        HttpMethod::Post,
        "/ras/volumes/{volume_id}/deposit",
        &[SUBMIT_ERRORS, RAS_AUTH_ERRORS, &[RasTransactionMismatch]],
    ),
    (HttpMethod::Post, "/ras/revoke", &[SUBMIT_ERRORS, RAS_AUTH_ERRORS, &[RasTransactionMismatch]]),
    (HttpMethod::Get, "/library/{publisher}", &[&[BadRequest, InvalidAddress]]),
    (HttpMethod::Get, "/library/{publisher}/{name}", &[&[BadRequest, InvalidAddress, LibraryNotFound]]),
    (HttpMethod::Get, "/secrets/{owner}", &[&[BadRequest, InvalidAddress]]),
    (HttpMethod::Get, "/secrets/{owner}/{name}/envelope/{reader}", &[&[BadRequest, InvalidAddress, NotFound]]),
    (HttpMethod::Get, "/governance/params", &[]),
    (HttpMethod::Get, "/governance/proposals", &[&[BadRequest]]),
    (HttpMethod::Get, "/governance/proposal/{id}", &[&[BadRequest, NotFound]]),
    (HttpMethod::Get, "/job/{job_id}", &[&[BadRequest, JobNotFound]]),
    (HttpMethod::Get, "/job/{job_id}/status", &[&[BadRequest, JobNotFound]]),
    (HttpMethod::Get, "/job/{job_id}/results", &[&[BadRequest, JobNotFound]]),
    (HttpMethod::Get, "/job/{job_id}/verified", &[&[BadRequest, JobNotFound, JobNotVerified]]),
    (HttpMethod::Get, "/entitlements/registry", &[&[BadRequest]]),
    (HttpMethod::Post, "/entitlements/validate-manifest", &[&[BadRequest]]),
    (HttpMethod::Get, "/height", &[]),
    (HttpMethod::Get, "/block/{selector}", &[&[BlockNotFound, InvalidBlockSelector]]),
    (HttpMethod::Get, "/chain-info", &[]),
    (HttpMethod::Get, "/basefee", &[]),
    (HttpMethod::Get, "/health", &[]),
    (HttpMethod::Get, "/health/detailed", &[]),
    (HttpMethod::Get, "/health/ready", &[]),
    (HttpMethod::Get, "/metrics", &[]),
    (HttpMethod::Post, "/faucet", &[&[BadRequest, InvalidAddress, FaucetDisabled, FaucetForbidden]]),
    (HttpMethod::Get, "/state/snapshot", &[&[NotFound]]),
    (HttpMethod::Get, "/state/operations", &[&[BadRequest, NotFound]]),
    (HttpMethod::Get, "/proof/account/{address}", &[STATE_PROOF_ERRORS]),
    (HttpMethod::Get, "/proof/actor/{address}", &[STATE_PROOF_ERRORS]),
    (HttpMethod::Get, "/proof/storage/{address}/{key}", &[STATE_PROOF_ERRORS]),
    (HttpMethod::Get, "/state/{actor}/{key_hex}", &[STATE_PROOF_ERRORS]),
    (HttpMethod::Get, "/proof/tx/{tx_hash}", &[&[BadRequest, NotFound]]),
    (HttpMethod::Get, "/proof/receipt/{tx_hash}", &[&[BadRequest, NotFound]]),
    (HttpMethod::Post, "/proof/multi", &[&[BadRequest]]),
    (HttpMethod::Get, "/account/{address}/history", &[&[BadRequest, InvalidAddress, NotIndexed]]),
    (HttpMethod::Get, "/blocks", &[&[BadRequest, NotIndexed]]),
    (HttpMethod::Get, "/indexed", &[]),
    (HttpMethod::Get, "/events", &[EVENT_QUERY_ERRORS]),
    (HttpMethod::Get, "/stream/blocks", &[&[BadRequest, NotIndexed]]),
    (HttpMethod::Get, "/stream/tx/{hash}", &[&[BadRequest]]),
    (HttpMethod::Get, "/stream/events", &[EVENT_QUERY_ERRORS]),
    (HttpMethod::Post, "/simulate", &[SIMULATE_ERRORS]),
];

/// Refusals of an event filter: bad parameters, bounds (1001), an emitter that is not an
/// address (3001), a range below the first indexed height (4002).
const EVENT_QUERY_ERRORS: &[ErrorCode] = &[BadRequest, InvalidAddress, NotIndexed];

/// Refusals of a simulation: the request's form, the transaction's (as `/submit` refuses it),
/// and a queue of simulations already full (429, among the common codes).
const SIMULATE_ERRORS: &[ErrorCode] = &[
    BadRequest,
    MalformedTransaction,
    InvalidSignature,
    WrongChainId,
    NonceTooLow,
    NonceTooHigh,
    OutOfGas,
    InsufficientBalance,
    InvalidFees,
    BasefeeTooLow,
    InvalidPayload,
];

/// Refusals of the storage-relay authentication (`routes::ras::authenticate`).
const RAS_AUTH_ERRORS: &[ErrorCode] = &[RasTokenInvalid, RasRequestInvalid, RasReplayed];

/// Refusals of a state proof: a bad address (3001) or storage key or height (1001), or a state
/// the node cannot prove (1002: nothing finalized yet, or a height other than the latest).
const STATE_PROOF_ERRORS: &[ErrorCode] = &[BadRequest, InvalidAddress, NotFound];

/// Codes any operation can answer.
pub(crate) const COMMON_ERRORS: &[ErrorCode] = &[Internal, Timeout, RateLimited];
/// Codes any operation with a request body can answer.
pub(crate) const BODY_ERRORS: &[ErrorCode] = &[PayloadTooLarge];

/// Adds each operation's error responses, grouped by HTTP status.
pub(crate) struct ErrorResponses;

impl Modify for ErrorResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (method, operation) in operations_mut(item) {
                let listed = OPERATION_ERRORS
                    .iter()
                    .find(|(m, p, _)| *m == method && p == path)
                    .map_or(&[][..], |(_, _, groups)| groups);
                let body = if method == HttpMethod::Post { BODY_ERRORS } else { &[] };
                add_error_responses(
                    operation,
                    listed.iter().flat_map(|group| group.iter()).chain(COMMON_ERRORS).chain(body).copied(),
                );
            }
        }
    }
}

fn operations_mut(item: &mut PathItem) -> impl Iterator<Item = (HttpMethod, &mut Operation)> {
    [(HttpMethod::Get, item.get.as_mut()), (HttpMethod::Post, item.post.as_mut())]
        .into_iter()
        .filter_map(|(method, operation)| operation.map(|op| (method, op)))
}

fn add_error_responses(operation: &mut Operation, codes: impl Iterator<Item = ErrorCode>) {
    let mut by_status: BTreeMap<u16, Vec<ErrorCode>> = BTreeMap::new();
    for code in codes {
        by_status.entry(code.http_status()).or_default().push(code);
    }
    for (status, mut codes) in by_status {
        codes.sort_by_key(|code| code.code());
        codes.dedup();
        let description = codes
            .iter()
            .map(|code| format!("- `{} {}`: {}", code.code(), code.name(), code.description()))
            .collect::<Vec<_>>()
            .join("\n");
        let mut response = ResponseBuilder::new().description(description).content(
            "application/json",
            ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build(),
        );
        if status == 429 || status == 503 {
            response = response.header(
                "Retry-After",
                HeaderBuilder::new()
                    .schema(ObjectBuilder::new().schema_type(Type::Integer))
                    .description(Some("Whole seconds until a retry can succeed (at least 1)."))
                    .build(),
            );
        }
        if status == 500 {
            response = response.header(
                "X-Request-Id",
                HeaderBuilder::new()
                    .schema(ObjectBuilder::new().schema_type(Type::String))
                    .description(Some(
                        "Id under which the node logged the error's detail; the message is \
                         `internal error (request id <id>)`.",
                    ))
                    .build(),
            );
        }
        operation.responses.responses.entry(status.to_string()).or_insert(RefOr::T(response.build()));
    }
}

/// Pattern of each path parameter, by name: what its extractor parses. Every path parameter is
/// listed (a test checks), since one documented as any string invites requests the node must
/// refuse with 400.
pub(crate) const PATH_PARAMETER_PATTERNS: &[(&str, &str)] = &[
    ("address", ADDRESS_PATTERN),
    ("actor", ADDRESS_PATTERN),
    ("token_id", ADDRESS_PATTERN),
    ("owner", ADDRESS_PATTERN),
    ("spender", ADDRESS_PATTERN),
    ("hash", HASH_PATTERN),
    ("tx_hash", HASH_PATTERN),
    ("job_id", HASH_PATTERN),
    ("id", "^[0-9]{1,20}$"),
    ("name", "^[A-Za-z0-9._-]{1,64}$"),
    ("reader", ADDRESS_PATTERN),
    ("publisher", ADDRESS_PATTERN),
    ("selector", BLOCK_SELECTOR_PATTERN),
    ("key", STORAGE_KEY_PATTERN),
    ("key_hex", STORAGE_KEY_PATTERN),
    ("wallet", ADDRESS_PATTERN),
    ("session_key", SESSION_KEY_PATTERN),
    ("volume_id", HASH_PATTERN),
];

/// What `routes::ras` takes as a session key: a compressed secp256k1 key, 33 bytes of hex.
pub(crate) const SESSION_KEY_PATTERN: &str = "^(0[xX])?[0-9a-fA-F]{66}$";

/// Format of integer query parameters: every one is a Rust `u64`, which utoipa documents as
/// `int64` (at most 2^63 - 1) although the node takes values up to 2^64 - 1.
pub(crate) const QUERY_INTEGER_FORMAT: &str = "uint64";

/// Completes parameter schemas: path parameters get their [`PATH_PARAMETER_PATTERNS`], integer
/// query parameters the `u64` range (a maximum set on the route itself is kept).
pub(crate) struct ParameterSchemas;

impl Modify for ParameterSchemas {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for (_, operation) in operations_mut(item) {
                for parameter in operation.parameters.iter_mut().flatten() {
                    let Some(RefOr::T(Schema::Object(schema))) = parameter.schema.as_mut() else {
                        continue;
                    };
                    match parameter.parameter_in {
                        ParameterIn::Path => {
                            if let Some((_, pattern)) =
                                PATH_PARAMETER_PATTERNS.iter().find(|(name, _)| *name == parameter.name)
                            {
                                schema.pattern = Some((*pattern).to_owned());
                            }
                        }
                        ParameterIn::Query if is_integer(&schema.schema_type) => {
                            schema.format = Some(SchemaFormat::Custom(QUERY_INTEGER_FORMAT.to_owned()));
                            if schema.maximum.is_none() {
                                schema.maximum = Some(u64_max());
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

fn is_integer(schema_type: &SchemaType) -> bool {
    match schema_type {
        SchemaType::Type(kind) => *kind == Type::Integer,
        SchemaType::Array(kinds) => kinds.contains(&Type::Integer),
        SchemaType::AnyValue => false,
    }
}

/// `u64::MAX` as a JSON number, exactly (a float would round it up to 2^64).
fn u64_max() -> Number {
    usize::try_from(u64::MAX).map_or(Number::Float(u64::MAX as f64), Number::UInt)
}

/// The read request's payload forms as schema: exactly one of `payload`, `payload_text` and
/// `payload_json` is present and not `null` (a `null` one counts as absent, as the node reads
/// it). The derived record lists the fields; this adds the constraint the node checks (5001).
pub(crate) struct ReadPayloadForms;

impl Modify for ReadPayloadForms {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(schemas) = openapi.components.as_mut().map(|c| &mut c.schemas) else {
            return;
        };
        let Some(record) = schemas.remove("ActorReadRequest") else {
            return;
        };
        let form = |name: &str, value: ObjectBuilder| ObjectBuilder::new().required(name).property(name, value);
        let forms = OneOfBuilder::new()
            .item(form(
                "payload",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Byte))),
            ))
            .item(form("payload_text", ObjectBuilder::new().schema_type(Type::String)))
            .item(form(
                "payload_json",
                ObjectBuilder::new().schema_type(SchemaType::Array(vec![
                    Type::Object,
                    Type::Array,
                    Type::String,
                    Type::Number,
                    Type::Boolean,
                ])),
            ));
        let constrained = AllOfBuilder::new().item(record).item(forms).build();
        schemas.insert("ActorReadRequest".to_owned(), RefOr::T(Schema::AllOf(constrained)));
    }
}

/// The Swagger UI and the document it shows, as routes to merge into the router.
pub(crate) fn swagger_ui() -> SwaggerUi {
    SwaggerUi::new(SWAGGER_UI_PATH).url(OPENAPI_JSON_PATH, ApiDoc::openapi())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_is_in_the_error_table_and_back() {
        let doc = ApiDoc::openapi();
        let mut documented = Vec::new();
        for (path, item) in &doc.paths.paths {
            let mut item = item.clone();
            for (method, operation) in operations_mut(&mut item) {
                documented.push((method, path.clone()));
                for status in ["429", "500", "503"] {
                    assert!(operation.responses.responses.contains_key(status), "{path} lacks {status}");
                }
            }
        }
        for (method, path, _) in OPERATION_ERRORS {
            assert!(documented.contains(&(method.clone(), (*path).to_owned())), "{path} not documented");
        }
        assert_eq!(documented.len(), OPERATION_ERRORS.len());
    }

    fn document() -> serde_json::Value {
        serde_json::to_value(ApiDoc::openapi()).unwrap()
    }

    /// Every parameter of the document, as (method, path, parameter).
    fn parameters(json: &serde_json::Value) -> Vec<(String, String, serde_json::Value)> {
        let mut all = Vec::new();
        for (path, item) in json["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                for parameter in operation["parameters"].as_array().into_iter().flatten() {
                    all.push((method.clone(), path.clone(), parameter.clone()));
                }
            }
        }
        all
    }

    /// Generated traffic found every path parameter documented as any string, so `/account/0`
    /// was a valid request by the document and answered 400. Each now has its parser's pattern.
    #[test]
    fn every_path_parameter_has_its_parsers_pattern() {
        let json = document();
        let mut path_parameters = 0;
        for (method, path, parameter) in parameters(&json) {
            if parameter["in"] != "path" {
                continue;
            }
            let name = parameter["name"].as_str().unwrap();
            let (_, pattern) = PATH_PARAMETER_PATTERNS
                .iter()
                .find(|(known, _)| *known == name)
                .unwrap_or_else(|| panic!("{method} {path}: no pattern for {{{name}}}"));
            assert_eq!(parameter["schema"]["pattern"], *pattern, "{method} {path} {{{name}}}");
            path_parameters += 1;
        }
        assert!(path_parameters >= 20, "{path_parameters}");
        // Addresses in request bodies too.
        let schemas = &json["components"]["schemas"];
        assert_eq!(schemas["FaucetRequest"]["properties"]["address"]["pattern"], ADDRESS_PATTERN);
        for field in ["actor", "from"] {
            assert_eq!(schemas["ActorReadRequest"]["allOf"][0]["properties"][field]["pattern"], ADDRESS_PATTERN);
        }
    }

    /// Query integers are u64: utoipa wrote `int64`, which made 2^63 look invalid although the
    /// node takes it. The exact maximum must survive as an integer (a float rounds up to 2^64).
    #[test]
    fn integer_query_parameters_span_u64_unless_the_route_bounds_them() {
        use crate::limits::{STATE_OPERATIONS_MAX, WAIT_TIMEOUT_MS_MAX, WAIT_TIMEOUT_MS_MIN};
        let json = document();
        let mut integers = 0;
        for (method, path, parameter) in parameters(&json) {
            let schema = &parameter["schema"];
            if parameter["in"] != "query" || schema["type"] != "integer" {
                continue;
            }
            integers += 1;
            let name = parameter["name"].as_str().unwrap();
            assert_eq!(schema["format"], QUERY_INTEGER_FORMAT, "{method} {path} {name}");
            let bounds = (schema["minimum"].as_u64(), schema["maximum"].as_u64());
            let expected = match name {
                "timeout_ms" => (Some(WAIT_TIMEOUT_MS_MIN), Some(WAIT_TIMEOUT_MS_MAX)),
                "max" => (Some(1), Some(STATE_OPERATIONS_MAX)),
                _ => (Some(0), Some(u64::MAX)),
            };
            assert_eq!(bounds, expected, "{method} {path} {name}");
        }
        assert!(integers >= 15, "{integers}");
        assert!(serde_json::to_string(&json).unwrap().contains("\"maximum\":18446744073709551615"));
    }

    /// Request bodies as the node takes them: submissions in either content type the node
    /// accepts (only `application/cbor` was listed, so no client could know the other), 1 to 32
    /// proof requests, and a read with exactly one payload form and budgets within the caps.
    #[test]
    fn request_bodies_say_what_the_node_takes() {
        let json = document();
        for path in ["/submit", "/submit_wait"] {
            let content = json["paths"][path]["post"]["requestBody"]["content"].as_object().unwrap();
            let mut types: Vec<&str> = content.keys().map(String::as_str).collect();
            types.sort_unstable();
            assert_eq!(types, crate::submission::SUBMISSION_CONTENT_TYPES, "{path}");
        }
        let schemas = &json["components"]["schemas"];
        let multi = &schemas["MultiProofRequests"];
        assert_eq!(
            (multi["minItems"].as_u64(), multi["maxItems"].as_u64()),
            (Some(1), Some(crate::limits::MULTI_PROOF_REQUESTS_MAX as u64))
        );
        assert_eq!(
            json["paths"]["/proof/multi"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/MultiProofRequests"
        );

        let read = &schemas["ActorReadRequest"]["allOf"];
        let fields = &read[0]["properties"];
        for (field, cap) in
            [("max_cycles", crate::limits::READ_MAX_CYCLES), ("max_cells", crate::limits::READ_MAX_CELLS)]
        {
            assert_eq!(
                (fields[field]["minimum"].as_u64(), fields[field]["maximum"].as_u64()),
                (Some(1), Some(cap)),
                "{field}"
            );
        }
        // Any JSON value: no type.
        assert!(fields["payload_json"].get("type").is_none(), "{}", fields["payload_json"]);
        let forms: Vec<&str> =
            read[1]["oneOf"].as_array().unwrap().iter().map(|form| form["required"][0].as_str().unwrap()).collect();
        assert_eq!(forms, ["payload", "payload_text", "payload_json"]);
        for form in read[1]["oneOf"].as_array().unwrap() {
            let name = form["required"][0].as_str().unwrap();
            let kinds = &form["properties"][name]["type"];
            assert!(
                kinds != "null" && !kinds.as_array().is_some_and(|k| k.contains(&"null".into())),
                "{name}: {kinds}"
            );
        }
    }

    #[test]
    fn error_responses_are_grouped_by_status_with_their_codes() {
        let json = serde_json::to_value(ApiDoc::openapi()).unwrap();
        let responses = &json["paths"]["/account/{address}"]["get"]["responses"];
        assert!(responses["400"]["description"].as_str().unwrap().contains("`3001 invalid_address`"));
        assert!(responses["404"]["description"].as_str().unwrap().contains("`3000 account_not_found`"));
        assert!(responses["429"]["headers"]["Retry-After"].is_object());
        assert!(responses["500"]["headers"]["X-Request-Id"].is_object());
        assert!(responses["503"]["headers"]["Retry-After"].is_object());
        assert!(responses["503"]["description"].as_str().unwrap().contains("`1003 timeout`"));
        let wait = json["paths"]["/submit_wait"]["post"]["responses"]["400"]["description"].as_str().unwrap();
        assert!(wait.contains("`2015 invalid_wait_timeout`") && wait.contains("`2001 invalid_signature`"));
        let submit = &json["paths"]["/submit"]["post"]["responses"];
        assert!(submit["413"]["description"].as_str().unwrap().contains("`2013 submission_too_large`"));
        assert!(submit["413"]["description"].as_str().unwrap().contains("`6000 payload_too_large`"));
        assert!(submit["415"].is_object());
        let faucet = &json["paths"]["/faucet"]["post"]["responses"];
        assert!(faucet["403"]["description"].as_str().unwrap().contains("`8001 faucet_forbidden`"));
        assert!(faucet["404"]["description"].as_str().unwrap().contains("`8000 faucet_disabled`"));
        assert_eq!(json["components"]["schemas"]["SubmissionBytes"]["format"], "binary");
        for schema in [
            "ErrorBody",
            "SubmitResponse",
            "SubmitWaitResult",
            "ReceiptInfo",
            "ExecErrorInfo",
            "HealthDetailed",
            "LogInfo",
            "SystemRunInfo",
            // One schema per kind of page, so each list documents its own items.
            "CursorPage_StorageEntryInfo",
            "CursorPage_MailboxMessageInfo",
            "CursorPage_LogInfo",
            "CursorPage_SystemRunInfo",
        ] {
            assert!(json["components"]["schemas"][schema].is_object(), "schema {schema} missing");
        }
    }
}
