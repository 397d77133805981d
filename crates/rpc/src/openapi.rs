//! The OpenAPI document (utoipa) and, in development mode, the Swagger UI.
//!
//! The document is built from the routes themselves (`routes::routes`): each handler's
//! `#[utoipa::path]` declares its operation (method, path, parameters, request body, success
//! response) and, in its `x-errors` extension written with [`errors`], the registered
//! [`ErrorCode`]s it can answer. [`complete`] turns those codes into error responses grouped by
//! HTTP status ([`ErrorResponses`]), so every description comes from the error registry itself
//! and cannot drift from what is served; the extension itself is not served. Codes every
//! operation can answer (1000 internal, 1003 timeout, 1004 rate limited, and 6000 for request
//! bodies) are added to all.
//!
//! [`ParameterSchemas`] completes the parameters' schemas from what the extractors accept (the
//! `pattern` of each kind of path parameter, the range of integer query parameters), and
//! [`ReadPayloadForms`] states that a read carries exactly one payload form, so a request the
//! document calls valid is one the node can take (checked with generated traffic, see
//! `docs/robustness.md`).
//!
//! The document is served at `/api-docs/openapi.json` and the vendored (offline) Swagger UI at
//! `/swagger-ui` only when `DROVER_DEV_MODE` is set; otherwise both paths are unknown routes.

use crate::extract::{ADDRESS_PATTERN, BLOCK_SELECTOR_PATTERN, HASH_PATTERN};
use drover_types::{
    ErrorCode,
    api::{DroppedInfo, ErrorBody, StreamClosed, TraceStep},
};
use std::collections::BTreeMap;
use utoipa::{
    Modify, Number, OpenApi,
    openapi::{
        AllOfBuilder, ContentBuilder, HttpMethod, KnownFormat, ObjectBuilder, OneOfBuilder, RefOr, ResponseBuilder,
        Schema, SchemaFormat, Type,
        header::HeaderBuilder,
        path::{Operation, ParameterIn, PathItem},
        schema::{Ref, SchemaType},
        tag::TagBuilder,
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
    // `TraceStep` nests `CallTrace`, which holds steps: utoipa stops collecting at the cycle, so
    // the step schema is registered here. `DroppedInfo` and `StreamClosed` are messages of the
    // push streams besides the one each operation names as its body (a transaction stream's
    // `dropped`, the `closed` that ends a stream), so clients get their types too.
    components(schemas(ErrorBody, TraceStep, DroppedInfo, StreamClosed)),
)]
struct ApiDoc;

/// The document before any route joins it: its description and shared schemas (each tag is
/// declared beside the router of the family it names, with [`tag`]).
pub(crate) fn base() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

/// A document holding only the tag `name` and its description. A family's router starts from it
/// (`OpenApiRouter::with_openapi`), so the tag is declared beside the routes it groups and joins
/// the document when the family's router is merged.
pub(crate) fn tag(name: &str, description: &str) -> utoipa::openapi::OpenApi {
    let mut document = utoipa::openapi::OpenApi::default();
    document.tags = Some(vec![TagBuilder::new().name(name).description(Some(description)).build()]);
    document
}

/// `document` (the base with every route's operation) completed: error responses from each
/// operation's declared codes, parameter patterns and ranges, and the read request's forms.
pub(crate) fn complete(mut document: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    for modifier in [&ErrorResponses as &dyn Modify, &ParameterSchemas, &ReadPayloadForms] {
        modifier.modify(&mut document);
    }
    document
}

/// Name of the operation extension in which a handler's `#[utoipa::path]` declares the codes
/// it can answer: `extensions(("x-errors" = json!(errors(&[...]))))`. [`complete`] reads and
/// removes it.
pub(crate) const ERRORS_EXTENSION: &str = "x-errors";

/// The codes an operation can answer besides [`COMMON_ERRORS`] (and [`BODY_ERRORS`] for POST),
/// as the value of its [`ERRORS_EXTENSION`].
pub(crate) fn errors(codes: &[ErrorCode]) -> Vec<u16> {
    codes.iter().map(|code| code.code()).collect()
}

use ErrorCode::*;

/// Refusals of a submission, whole or per transaction (the status of a batch where nothing was
/// accepted is that of its first refusal).
pub(crate) const SUBMIT_ERRORS: &[ErrorCode] = &[
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

/// Codes any operation can answer.
pub(crate) const COMMON_ERRORS: &[ErrorCode] = &[Internal, Timeout, RateLimited];
/// Codes any operation with a request body can answer.
pub(crate) const BODY_ERRORS: &[ErrorCode] = &[PayloadTooLarge];

/// Adds each operation's error responses, grouped by HTTP status.
pub(crate) struct ErrorResponses;

impl Modify for ErrorResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for (method, operation) in operations_mut(item) {
                let declared = declared_errors(operation);
                let body = if method == HttpMethod::Post { BODY_ERRORS } else { &[] };
                add_error_responses(
                    operation,
                    declared.into_iter().chain(COMMON_ERRORS.iter().copied()).chain(body.iter().copied()),
                );
            }
        }
    }
}

/// The codes `operation` declares in its [`ERRORS_EXTENSION`], which is removed (an extension
/// left empty is removed too, so the served operation is as utoipa wrote it).
fn declared_errors(operation: &mut Operation) -> Vec<ErrorCode> {
    let Some(extensions) = operation.extensions.as_mut() else {
        return Vec::new();
    };
    let declared = extensions.remove(ERRORS_EXTENSION);
    if extensions.is_empty() {
        operation.extensions = None;
    }
    declared
        .and_then(|value| serde_json::from_value::<Vec<u16>>(value).ok())
        .into_iter()
        .flatten()
        .filter_map(ErrorCode::from_code)
        .collect()
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

/// What `routes::proofs` takes as a storage key, as the OpenAPI `pattern` of storage key
/// parameters: whole bytes of hex, at most
/// [`MAX_STORAGE_KEY_BYTES`](crate::limits::MAX_STORAGE_KEY_BYTES) of them. The bound is
/// written out (a pattern is a literal); a test fails if it and the constant disagree.
pub(crate) const STORAGE_KEY_PATTERN: &str = "^(0[xX])?([0-9a-fA-F]{2}){0,256}$";

/// What `routes::storage` takes as a session key: a compressed secp256k1 key, 33 bytes of hex.
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
pub(crate) fn swagger_ui(document: utoipa::openapi::OpenApi) -> SwaggerUi {
    SwaggerUi::new(SWAGGER_UI_PATH).url(OPENAPI_JSON_PATH, document)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The complete document, as served.
    fn served() -> utoipa::openapi::OpenApi {
        crate::routes::routes::<crate::mock::MockBackend>().1
    }

    /// Each tag is declared once (beside its family's router) and describes something: every
    /// operation's tags are declared, and every declared tag groups an operation.
    #[test]
    fn every_tag_has_one_description_and_an_operation() {
        let mut document = served();
        let declared: Vec<String> = document.tags.iter().flatten().map(|tag| tag.name.clone()).collect();
        let unique: std::collections::BTreeSet<&String> = declared.iter().collect();
        // Merging drops a tag equal to one already there: a name left twice has two descriptions.
        assert_eq!(unique.len(), declared.len(), "a tag with two descriptions: {declared:?}");
        assert!(document.tags.iter().flatten().all(|tag| tag.description.as_ref().is_some_and(|d| !d.is_empty())));
        let mut used = std::collections::BTreeSet::new();
        for (path, item) in document.paths.paths.iter_mut() {
            for (_, operation) in operations_mut(item) {
                let tags = operation.tags.clone().unwrap_or_default();
                assert!(!tags.is_empty(), "{path} has no tag");
                // The server places a connection by its path's prefix (`crate::serve_streams_apart`).
                let stream = path.starts_with(drover_types::api::paths::STREAMS_PREFIX);
                assert_eq!(
                    tags.iter().any(|tag| tag == "streams"),
                    stream,
                    "{path}: a stream if and only if tagged so"
                );
                for tag in tags {
                    assert!(unique.contains(&tag), "{path}: tag {tag:?} is not declared");
                    used.insert(tag);
                }
            }
        }
        assert_eq!(used.len(), unique.len(), "declared tags without an operation: {declared:?} against {used:?}");
    }

    /// Every operation declares the codes it can answer with its handler (an empty list says it
    /// has none of its own), and the served document carries them as responses, not as the
    /// declaring extension.
    #[test]
    fn every_operation_declares_its_errors() {
        let mut declared = crate::routes::declared::<crate::mock::MockBackend>().into_openapi();
        let mut operations = 0;
        for (path, item) in declared.paths.paths.iter_mut() {
            for (_, operation) in operations_mut(item) {
                let extension = operation.extensions.as_ref().and_then(|e| e.get(ERRORS_EXTENSION));
                let codes: Vec<u16> = serde_json::from_value(extension.cloned().unwrap_or_default())
                    .unwrap_or_else(|_| panic!("{path} declares no {ERRORS_EXTENSION}"));
                for code in codes {
                    assert!(ErrorCode::from_code(code).is_some(), "{path}: {code} is not registered");
                }
                operations += 1;
            }
        }
        assert!(operations > 60, "{operations}");
        let mut served = served();
        for (path, item) in served.paths.paths.iter_mut() {
            for (_, operation) in operations_mut(item) {
                assert!(operation.extensions.is_none(), "{path}");
                for status in ["429", "500", "503"] {
                    assert!(operation.responses.responses.contains_key(status), "{path} lacks {status}");
                }
            }
        }
    }

    fn document() -> serde_json::Value {
        serde_json::to_value(served()).unwrap()
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
        let json = document();
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

    /// Every `$ref` names a schema the document holds: a generator refuses a document with one
    /// that does not (a recursive type is where utoipa's collection stops).
    #[test]
    fn every_reference_resolves() {
        fn walk(value: &serde_json::Value, schemas: &serde_json::Value, dangling: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(map) => {
                    if let Some(serde_json::Value::String(target)) = map.get("$ref")
                        && let Some(name) = target.strip_prefix("#/components/schemas/")
                        && !schemas[name].is_object()
                    {
                        dangling.push(target.clone());
                    }
                    map.values().for_each(|v| walk(v, schemas, dangling));
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, schemas, dangling)),
                _ => {}
            }
        }
        let json = document();
        let mut dangling = Vec::new();
        walk(&json, &json["components"]["schemas"], &mut dangling);
        assert!(dangling.is_empty(), "references to missing schemas: {dangling:?}");
    }
}
