//! Secrets: `GET /secrets/{owner}` and `/secrets/{owner}/{name}/envelope/{reader}`.
//!
//! Lists never carry values; an envelope is ciphertext only its reader opens. An owner without
//! secrets has an empty list; an unknown secret, or a reader without an envelope, is 404 (1002).

use crate::{
    backend::Backend,
    error::HttpError,
    extract::{AddressParam, parse_address},
    openapi::errors,
    pagination::Page,
    state::AppState,
};
use axum::{
    Json,
    extract::{Path, State},
};
use drover_types::{
    ErrorCode,
    api::{SecretEnvelope, SecretList, paths},
    secrets::check_name,
};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("secrets", "Secrets stored as per-reader ciphertext envelopes"))
        .routes(routes!(secrets))
        .routes(routes!(envelope))
}

/// `GET /secrets/{owner}`: one page of an owner's secrets.
#[utoipa::path(
    get,
    path = paths::SECRETS,
    tag = "secrets",
    summary = "An owner's secrets (names and readers, never values)",
    params(
        ("owner" = String, Path, description = "The owner: 20 bytes of hex."),
        ("offset" = Option<u64>, Query, description = "Secrets to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `secrets`.", body = SecretList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress])))),
)]
pub async fn secrets<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(owner): AddressParam,
    page: Page,
) -> Result<Json<SecretList>, HttpError> {
    Ok(Json(state.backend.secrets(owner, page).await?))
}

/// `GET /secrets/{owner}/{name}/envelope/{reader}`: one reader's envelope.
#[utoipa::path(
    get,
    path = paths::SECRET_ENVELOPE,
    tag = "secrets",
    summary = "One reader's envelope of a secret",
    description = "The reader's ciphertext of the owner's secret; only the reader's key opens it (docs/secrets.md).",
    params(
        ("owner" = String, Path, description = "The owner: 20 bytes of hex."),
        ("name" = String, Path, description = "The secret's name: 1 to 64 characters of a-z A-Z 0-9 . _ -."),
        ("reader" = String, Path, description = "The reader: 20 bytes of hex."),
    ),
    responses((status = 200, description = "The envelope.", body = SecretEnvelope)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::NotFound])))),
)]
pub async fn envelope<B: Backend>(
    State(state): State<AppState<B>>,
    Path((owner, name, reader)): Path<(String, String, String)>,
) -> Result<Json<SecretEnvelope>, HttpError> {
    let (owner, reader) = (parse_address(&owner)?, parse_address(&reader)?);
    check_name(&name).map_err(|reason| HttpError::new(ErrorCode::BadRequest, reason))?;
    state
        .backend
        .secret_envelope(owner, name.clone(), reader)
        .await?
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::NotFound, format!("{reader} holds no envelope of {owner}'s {name:?}")))
}
