//! Libraries: `GET /library/{publisher}/{name}` (`?version=`, default or 0 the latest) and
//! `GET /library/{publisher}`.
//!
//! An unknown library, or a version it does not have, is 404 with 9000. A removed library is
//! still served (with `removed: true`) so its callers can see why it no longer runs.

use crate::{
    backend::Backend,
    error::HttpError,
    extract::{AddressParam, ApiQuery, parse_address},
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
    api::{LibraryInfo, LibraryList, paths},
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Query of `GET /library/{publisher}/{name}`.
#[derive(Debug, Deserialize)]
pub struct VersionQuery {
    /// A version (from 1); the latest when absent or 0, as in `library_call`.
    version: Option<u32>,
}

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag(
        "libraries",
        "Actor code published once and run by actors in their own context",
    ))
    .routes(routes!(libraries))
    .routes(routes!(library))
}

/// `GET /library/{publisher}/{name}`: one library version.
#[utoipa::path(
    get,
    path = paths::LIBRARY,
    tag = "libraries",
    summary = "A library",
    description = "The library's latest version, or the one asked for: code hash and size, manifest, height. 404 \
        with 9000 for an unknown library or version.",
    params(
        ("publisher" = String, Path, description = "The publisher: 20 bytes of hex."),
        ("name" = String, Path, description = "The library's name."),
        ("version" = Option<u32>, Query, description = "A version (default, or 0: the latest)."),
    ),
    responses((status = 200, description = "The library.", body = LibraryInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress, ErrorCode::LibraryNotFound])))),
)]
pub async fn library<B: Backend>(
    State(state): State<AppState<B>>,
    Path((publisher, name)): Path<(String, String)>,
    ApiQuery(query): ApiQuery<VersionQuery>,
) -> Result<Json<LibraryInfo>, HttpError> {
    let publisher = parse_address(&publisher)?;
    // Version 0 is the latest, as in `library_call`: the backend sees `None`.
    let version = query.version.filter(|v| *v != 0);
    state.backend.library(publisher, name.clone(), version).await?.map(Json).ok_or_else(|| {
        HttpError::new(ErrorCode::LibraryNotFound, format!("{publisher} has no library {name:?} at that version"))
    })
}

/// `GET /library/{publisher}`: one page of a publisher's libraries.
#[utoipa::path(
    get,
    path = paths::LIBRARIES,
    tag = "libraries",
    summary = "A publisher's libraries",
    params(
        ("publisher" = String, Path, description = "The publisher: 20 bytes of hex."),
        ("offset" = Option<u64>, Query, description = "Libraries to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `libraries`.", body = LibraryList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress])))),
)]
pub async fn libraries<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(publisher): AddressParam,
    page: Page,
) -> Result<Json<LibraryList>, HttpError> {
    Ok(Json(state.backend.libraries(publisher, page).await?))
}
