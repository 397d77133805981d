//! Entitlements: `GET /entitlements/registry` and `POST /entitlements/validate-manifest`.
//!
//! The registry is the VM's own (the node serves it through the backend), so what is listed is
//! exactly what a deploy accepts. Validation takes a manifest as JSON,
//! `{"entitlements": ["storage.kv", ...]}`, and answers every problem in order rather than the
//! first: an unknown or repeated id (the deploy check, E1302), an element that is not a
//! string, a key other than `entitlements`, a manifest that is not an object. The verdict's
//! shape half is `drover_types::payload::Manifest`'s own JSON decoder, the declaration a
//! deploy's manifest is decoded by, so the two never disagree (the walk here only explains).
//! Only a body that is not JSON at all is refused (400, 1001); no body makes it answer 500.

use crate::{
    backend::Backend,
    error::HttpError,
    extract::{RawBody, json_body},
    openapi::errors,
    pagination::Page,
    state::AppState,
};
use axum::{Json, extract::State};
use drover_types::ErrorCode;
use drover_types::api::{EntitlementList, ManifestProblem, ManifestValidation, paths};
use drover_types::payload::Manifest;
use serde_json::Value;
use utoipa_axum::{router::OpenApiRouter, routes};

/// The manifest key that lists entitlement ids.
const ENTITLEMENTS_KEY: &str = "entitlements";

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("entitlements", "The entitlement registry and manifest checks"))
        .routes(routes!(registry))
        .routes(routes!(validate_manifest))
}

/// `GET /entitlements/registry`: one page of the entitlement registry.
#[utoipa::path(
    get,
    path = paths::ENTITLEMENTS_REGISTRY,
    tag = "entitlements",
    summary = "The entitlement registry",
    description = "Every entitlement id a manifest may list, with what it unlocks, the host functions that need \
        it and the limits that bound them.",
    params(
        ("offset" = Option<u64>, Query, description = "Entitlements to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `entitlements`.", body = EntitlementList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn registry<B: Backend>(State(state): State<AppState<B>>, page: Page) -> Json<EntitlementList> {
    let all = state.backend.entitlements();
    let total_count = all.len() as u64;
    let entitlements = all
        .into_iter()
        .skip(usize::try_from(page.offset).unwrap_or(usize::MAX))
        .take(usize::try_from(page.limit).unwrap_or(usize::MAX))
        .collect();
    Json(EntitlementList { entitlements, total_count, offset: page.offset, limit: page.limit })
}

/// `POST /entitlements/validate-manifest`: every problem a deploy would find in a manifest.
#[utoipa::path(
    post,
    path = paths::ENTITLEMENTS_VALIDATE_MANIFEST,
    tag = "entitlements",
    summary = "Check a manifest against the registry",
    description = "Takes `{\"entitlements\": [id, ...]}` and answers `valid` with every problem in order: unknown \
        or repeated ids, elements that are not strings, unknown keys. A body that is not JSON is 400.",
    request_body(content = Object, description = "A manifest: `{\"entitlements\": [\"storage.kv\", ...]}`.", content_type = "application/json"),
    responses((status = 200, description = "The verdict.", body = ManifestValidation)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn validate_manifest<B: Backend>(
    State(state): State<AppState<B>>,
    RawBody(body): RawBody,
) -> Result<Json<ManifestValidation>, HttpError> {
    let manifest: Value = json_body(&body)?;
    let shape = |reason: String| ManifestProblem { id: String::new(), reason };
    let mut errors = Vec::new();
    let items: &[Value] =
        match &manifest {
            Value::Object(map) => {
                errors.extend(map.keys().filter(|key| *key != ENTITLEMENTS_KEY).map(|key| {
                    shape(format!("unknown manifest key {key:?}; a manifest has only {ENTITLEMENTS_KEY:?}"))
                }));
                match map.get(ENTITLEMENTS_KEY) {
                    None => &[],
                    Some(Value::Array(items)) => items,
                    Some(_) => {
                        errors.push(shape(format!("{ENTITLEMENTS_KEY:?} is an array of entitlement ids")));
                        &[]
                    }
                }
            }
            _ => {
                errors.push(shape(format!("a manifest is an object {{\"{ENTITLEMENTS_KEY}\": [id, ...]}}")));
                &[]
            }
        };
    // Strings are checked by the registry's own rule; their positions map problems back.
    let strings: Vec<(usize, String)> =
        items.iter().enumerate().filter_map(|(at, item)| item.as_str().map(|id| (at, id.to_owned()))).collect();
    let ids: Vec<String> = strings.iter().map(|(_, id)| id.clone()).collect();
    let mut found: Vec<(usize, ManifestProblem)> = state
        .backend
        .manifest_problems(&ids)
        .into_iter()
        .filter_map(|(position, reason)| {
            let (at, id) = strings.get(position)?;
            Some((*at, ManifestProblem { id: id.clone(), reason }))
        })
        .collect();
    found.extend(items.iter().enumerate().filter(|(_, item)| !item.is_string()).map(|(at, item)| {
        (at, ManifestProblem { id: item.to_string(), reason: "an entitlement id is a string".to_owned() })
    }));
    found.sort_by_key(|(at, _)| *at);
    errors.extend(found.into_iter().map(|(_, problem)| problem));
    // The shape is the declaration's to judge; the walk above only says where it goes wrong.
    if let Err(e) = serde_json::from_value::<Manifest>(manifest)
        && errors.is_empty()
    {
        errors.push(shape(e.to_string()));
    }
    Ok(Json(ManifestValidation { valid: errors.is_empty(), errors }))
}

#[cfg(test)]
mod tests {
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::ErrorCode;
    use serde_json::json;

    async fn validate(body: &str) -> (StatusCode, serde_json::Value) {
        let app = app(&MockBackend::default());
        let answer = post(&app, "/entitlements/validate-manifest", "application/json", body.as_bytes().to_vec()).await;
        (answer.status, answer.json())
    }

    #[tokio::test]
    async fn the_registry_pages() {
        let app = app(&MockBackend::default());
        let all = get(&app, "/entitlements/registry").await.json();
        assert!(all["total_count"].as_u64().unwrap() >= 2);
        assert_eq!(all["entitlements"][0]["id"], json!("storage.kv"));
        let one = get(&app, "/entitlements/registry?offset=1&limit=1").await.json();
        assert_eq!(one["entitlements"].as_array().unwrap().len(), 1);
        assert_eq!(one["limit"], json!(1));
    }

    #[tokio::test]
    async fn manifests_get_every_problem_in_order() {
        assert_eq!(
            validate(r#"{"entitlements": ["storage.kv"]}"#).await,
            (StatusCode::OK, json!({"valid": true, "errors": []}))
        );
        assert_eq!(validate("{}").await.1, json!({"valid": true, "errors": []}));
        assert_eq!(validate(r#"{"entitlements": []}"#).await.1, json!({"valid": true, "errors": []}));
        let (status, verdict) = validate(r#"{"entitlements": ["storage.kv", "nope", 7, "storage.kv", null]}"#).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(verdict["valid"], json!(false));
        let ids: Vec<_> = verdict["errors"].as_array().unwrap().iter().map(|e| e["id"].clone()).collect();
        assert_eq!(ids, [json!("nope"), json!("7"), json!("storage.kv"), json!("null")]);
        for shape in [r#"[]"#, r#""storage.kv""#, r#"{"entitlements": "storage.kv"}"#, r#"{"entitlement": []}"#, "7"] {
            let (status, verdict) = validate(shape).await;
            assert_eq!(status, StatusCode::OK, "{shape}");
            assert_eq!(verdict["valid"], json!(false), "{shape}");
        }
        for not_json in ["", "{", "entitlements", "\u{0}"] {
            let app = app(&MockBackend::default());
            post(&app, "/entitlements/validate-manifest", "application/json", not_json.as_bytes().to_vec())
                .await
                .assert_error(400, ErrorCode::BadRequest);
        }
    }

    /// The verdict is a deploy's: valid exactly when the manifest decodes as the deploy's
    /// `Manifest`, whose CBOR a deploy payload carries, and names known ids once.
    #[tokio::test]
    async fn the_verdict_is_the_deploy_manifests() {
        use crate::backend::EntitlementBackend;
        use drover_types::payload::Manifest;
        for body in [
            "{}",
            r#"{"entitlements": []}"#,
            r#"{"entitlements": ["storage.kv"]}"#,
            r#"{"entitlements": ["storage.kv", "storage.kv"]}"#,
            r#"{"entitlements": null}"#,
            r#"{"entitlements": [null]}"#,
            r#"{"entitlements": [], "x": 1}"#,
            r#"[["storage.kv"]]"#,
            "[]",
            "null",
        ] {
            let decoded = serde_json::from_str::<Manifest>(body)
                .ok()
                .filter(|m| Manifest::decode(&m.encode()).as_ref() == Ok(m))
                .filter(|m| MockBackend::default().manifest_problems(m.entitlements()).is_empty());
            let (_, verdict) = validate(body).await;
            assert_eq!(verdict["valid"], json!(decoded.is_some()), "{body}");
        }
    }
}
