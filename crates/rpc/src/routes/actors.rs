//! Actors: `GET /actor/{address}` (summary), `/actor/{address}/code` and
//! `/actor/{address}/manifest`, read from the latest finalized state.
//!
//! An address that holds no actor answers 404 with code 5000 (an account without code is an
//! account, not an actor: `/account/{address}` describes it); a malformed address answers 400
//! with code 3001.

use crate::{backend::Backend, error::HttpError, extract::AddressParam, state::AppState};
use axum::{Json, extract::State};
use drover_types::{
    Address, ErrorCode,
    api::{ActorCodeInfo, ActorInfo, ManifestInfo},
};

fn no_actor(address: Address) -> HttpError {
    HttpError::new(ErrorCode::ActorNotFound, format!("address {address} holds no actor"))
}

#[utoipa::path(
    get,
    path = "/actor/{address}",
    tag = "actors",
    summary = "An actor's summary",
    description = "Code hash, owner, balance, nonce, mailbox count and bytes, deploy height, upgrades and manifest, at the latest finalized block.",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The actor.", body = ActorInfo))
)]
pub async fn actor<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<ActorInfo>, HttpError> {
    state.backend.actor(address).await?.map(Json).ok_or_else(|| no_actor(address))
}

#[utoipa::path(
    get,
    path = "/actor/{address}/code",
    tag = "actors",
    summary = "An actor's WebAssembly code",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The code (base64) with its hash and size.", body = ActorCodeInfo))
)]
pub async fn code<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<ActorCodeInfo>, HttpError> {
    state.backend.actor_code(address).await?.map(Json).ok_or_else(|| no_actor(address))
}

#[utoipa::path(
    get,
    path = "/actor/{address}/manifest",
    tag = "actors",
    summary = "An actor's entitlements manifest",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The manifest.", body = ManifestInfo))
)]
pub async fn manifest<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<ManifestInfo>, HttpError> {
    state
        .backend
        .actor(address)
        .await?
        .map(|actor| Json(actor.manifest))
        .ok_or_else(|| no_actor(address))
}

#[cfg(test)]
mod tests {
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::{Address, ErrorCode};

    #[tokio::test]
    async fn summary_code_and_manifest_of_an_actor() {
        let mock = MockBackend::with(|data| data.actors.push(actor(Address([0xac; 20]))));
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
            get(&app, &format!("/actor/0x12{path}"))
                .await
                .assert_error(400, ErrorCode::InvalidAddress);
        }
    }
}
