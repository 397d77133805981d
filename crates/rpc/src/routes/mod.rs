//! The route table: one module per endpoint family. Handlers are thin: they extract with
//! the `extract` module, call the [`Backend`], and shape the JSON records of
//! [`drover_types::api`].
//!
//! Each family's `router` registers its handlers with `utoipa_axum`'s `routes!`, which reads
//! the method and path from the handler's `#[utoipa::path]`: that attribute is the one
//! declaration of a route (method, path from [`drover_types::api::paths`], parameters, answers
//! and, in its `x-errors` extension, the error codes), and the served router and the OpenAPI
//! document are both built from it here. A family's router also declares the family's OpenAPI
//! tag (`openapi::tag`), so a family joins the API with one `merge` line below.

pub mod accounts;
pub mod actors;
pub mod blocks;
pub mod chain;
pub mod entitlements;
pub mod events;
pub mod faucet;
pub mod governance;
pub mod health;
pub mod history;
pub mod jobs;
pub mod library;
pub mod metrics;
pub mod proofs;
pub mod runners;
pub mod secrets;
pub mod simulate;
pub mod state_sync;
pub mod storage;
pub mod stream;
pub mod tokens;
pub mod transactions;

use crate::{backend::Backend, openapi, state::AppState};
use axum::Router;
use utoipa::openapi::OpenApi;
use utoipa_axum::router::OpenApiRouter;

/// Every route of the API (without fallbacks and layers, which [`crate::router`] adds) and the
/// OpenAPI document of exactly these routes.
pub(crate) fn routes<B: Backend>() -> (Router<AppState<B>>, OpenApi) {
    let (router, document) = declared::<B>().split_for_parts();
    (router, openapi::complete(document))
}

/// Every family's routes, with the operations as their handlers declare them (in the order the
/// document lists their tags).
pub(crate) fn declared<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(openapi::base())
        .merge(transactions::router())
        .merge(accounts::router())
        .merge(actors::router())
        .merge(tokens::router())
        .merge(runners::router())
        .merge(jobs::router())
        .merge(governance::router())
        .merge(secrets::router())
        .merge(library::router())
        .merge(storage::router())
        .merge(entitlements::router())
        .merge(blocks::router())
        .merge(chain::router())
        .merge(health::router())
        .merge(metrics::router())
        .merge(faucet::router())
        .merge(state_sync::router())
        .merge(proofs::router())
        .merge(history::router())
        .merge(events::router())
        .merge(stream::router())
        .merge(simulate::router())
}
