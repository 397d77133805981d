//! Storage relays (RAS), the part served so far: `GET /ras/challenge` and `GET /ras/auth/me`,
//! and the authentication every owner route will use (`authenticate`).
//!
//! A request authenticates with the delegation token of [`DELEGATION_HEADER`] and the
//! session-key signature of the other `X-DRFS-*` headers (`drover_types::ras`). The node checks
//! the token against its chain id and clock, the request's timestamp (±30 s), nonce and
//! signature, and refuses a nonce the wallet has already used within the window
//! ([`drover_types::ras::NonceCache`]).
//! Every refusal is 401 with its code: 9100 for the token (missing, malformed, wrong scope,
//! audience or chain, expired, longer than 30 days, not the wallet's), 9101 for the request
//! (timestamp, nonce, signature), 9102 for a replay.

use crate::{backend::Backend, error::HttpError, extract::RawBody, state::AppState};
use axum::{
    Json,
    extract::State,
    http::{HeaderMap, Method, Uri},
};
use drover_types::{
    ErrorCode,
    api::{RasChallenge, RasMe},
    ras::{
        DELEGATION_HEADER, DelegationToken, NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, TOKEN_AUDIENCE,
        verify_request,
    },
};
fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> &'h str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

/// Authenticates an owner-route request: the token, the request's signature, the nonce.
pub(crate) fn authenticate<B: Backend>(
    state: &AppState<B>,
    (method, uri, headers, body): (&Method, &Uri, &HeaderMap, &[u8]),
) -> Result<DelegationToken, HttpError> {
    let token_error = |e: drover_types::ras::AuthError| HttpError::new(ErrorCode::RasTokenInvalid, e.to_string());
    let now = now_ms();
    let token = DelegationToken::decode(header(headers, DELEGATION_HEADER)).map_err(token_error)?;
    token.verify(state.backend.chain_info().chain_id, now).map_err(token_error)?;
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    let nonce = verify_request(
        &token,
        (method.as_str(), path, body),
        (header(headers, TIMESTAMP_HEADER), header(headers, NONCE_HEADER), header(headers, SIGNATURE_HEADER)),
        now,
    )
    .map_err(|e| HttpError::new(ErrorCode::RasRequestInvalid, e.to_string()))?;
    state
        .ras_nonces
        .accept(token.wallet, nonce, now)
        .map_err(|e| HttpError::new(ErrorCode::RasReplayed, e.to_string()))?;
    Ok(token)
}

/// `GET /ras/challenge`: what a client needs to build its token and requests.
#[utoipa::path(
    get,
    path = "/ras/challenge",
    tag = "ras",
    summary = "Parameters for storage-relay authentication",
    description = "The chain id and audience a delegation token must name, the node's clock (requests must be \
        stamped within 30 s of it) and a fresh random nonce a client may use.",
    responses((status = 200, description = "The challenge.", body = RasChallenge))
)]
pub async fn challenge<B: Backend>(State(state): State<AppState<B>>) -> Json<RasChallenge> {
    let nonce: [u8; 16] = rand::random();
    Json(RasChallenge {
        chain_id: state.backend.chain_info().chain_id,
        audience: TOKEN_AUDIENCE.to_owned(),
        server_time_ms: now_ms(),
        nonce: hex::encode(nonce),
    })
}

/// `GET /ras/auth/me`: who a valid request authenticates as.
#[utoipa::path(
    get,
    path = "/ras/auth/me",
    tag = "ras",
    summary = "The wallet a request authenticates as",
    description = "Checks the X-DRFS-Delegation token and the request's X-DRFS-Timestamp, X-DRFS-Nonce and \
        X-DRFS-Signature (docs/storage.md); 401 with 9100 (token), 9101 (request) or 9102 (replay) otherwise.",
    responses((status = 200, description = "The wallet and session.", body = RasMe))
)]
pub async fn me<B: Backend>(
    State(state): State<AppState<B>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Json<RasMe>, HttpError> {
    let token = authenticate(&state, (&method, &uri, &headers, &body))?;
    Ok(Json(RasMe {
        wallet: token.wallet,
        session_key: format!("0x{}", hex::encode(token.session_key)),
        expires_at_ms: token.expires_at_ms,
    }))
}

#[cfg(test)]
mod tests {
    use crate::mock::*;
    use axum::{body::Body, http::Request};
    use drover_types::{
        ErrorCode, SecretKey,
        ras::{DelegationToken, request_hash, session_public_key},
    };

    fn session() -> (SecretKey, [u8; 33]) {
        let key = SecretKey::dev(7);
        let public = session_public_key(&key);
        (key, public)
    }

    fn now() -> u64 {
        super::now_ms()
    }

    /// A signed `GET /ras/auth/me` with `token`, stamped `at`, with `nonce`, signed by `signer`.
    fn request(token: &str, at: u64, nonce: &str, signer: &SecretKey) -> Request<Body> {
        let hash = request_hash("GET", "/ras/auth/me", &at.to_string(), nonce, b"");
        let signature = format!("0x{}", hex::encode(signer.sign_prehash(&hash).to_rsv()));
        Request::get("/ras/auth/me")
            .header("X-DRFS-Delegation", token)
            .header("X-DRFS-Timestamp", at.to_string())
            .header("X-DRFS-Nonce", nonce)
            .header("X-DRFS-Signature", signature)
            .body(Body::empty())
            .unwrap()
    }

    #[tokio::test]
    async fn a_signed_request_authenticates_and_every_refusal_is_401_with_its_code() {
        let app = app(&MockBackend::default());
        let (session_key, session_public) = session();
        let wallet = key(0);
        let token = DelegationToken::issue(&wallet, session_public, CHAIN_ID, now() + 60_000);
        let nonce = "0123456789abcdef0123456789abcdef";
        let answer = send(&app, request(&token.encode(), now(), nonce, &session_key)).await;
        assert_eq!(answer.status, 200, "{}", answer.json());
        assert_eq!(answer.json()["wallet"], wallet.address().to_hex());
        // The same nonce again: a replay.
        send(&app, request(&token.encode(), now(), nonce, &session_key))
            .await
            .assert_error(401, ErrorCode::RasReplayed);

        let fresh = |n: u8| format!("{n:02x}").repeat(16);
        send(&app, request("", now(), &fresh(1), &session_key)).await.assert_error(401, ErrorCode::RasTokenInvalid);
        let other_chain = DelegationToken::issue(&wallet, session_public, CHAIN_ID + 1, now() + 60_000);
        send(&app, request(&other_chain.encode(), now(), &fresh(2), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        let expired = DelegationToken::issue(&wallet, session_public, CHAIN_ID, now() - 1);
        send(&app, request(&expired.encode(), now(), &fresh(3), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        let mut elsewhere = token.clone();
        elsewhere.audience = "another:service".into();
        elsewhere.signature = wallet.sign_prehash(&elsewhere.signing_hash());
        send(&app, request(&elsewhere.encode(), now(), &fresh(4), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        let mut forged = token.clone();
        forged.wallet = key(1).address();
        send(&app, request(&forged.encode(), now(), &fresh(5), &session_key))
            .await
            .assert_error(401, ErrorCode::RasTokenInvalid);
        // Signed by another key than the session's, or stamped long ago.
        send(&app, request(&token.encode(), now(), &fresh(6), &wallet))
            .await
            .assert_error(401, ErrorCode::RasRequestInvalid);
        send(&app, request(&token.encode(), now() - 120_000, &fresh(7), &session_key))
            .await
            .assert_error(401, ErrorCode::RasRequestInvalid);

        let challenge = get(&app, "/ras/challenge").await.json();
        assert_eq!(
            (challenge["chain_id"].as_u64(), challenge["audience"].as_str()),
            (Some(CHAIN_ID), Some("drover:ras"))
        );
    }
}
