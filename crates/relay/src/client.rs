//! The relay client: what `drover storage put|get|ls|rm` calls.
//!
//! A [`RelayClient`] holds the wallet's key and a session key of its own, generated at random
//! when the client is built. It issues one delegation token (the wallet hands the session key
//! the right to act for it, [`TOKEN_LIFETIME_MS`]) and reissues it when it nears its expiry; the
//! session key signs each request: `request_hash(method, path_and_query, audience, timestamp,
//! nonce, body)` with a fresh 16-byte random nonce (`drover_types::storage::auth`), the audience being the
//! relay's on-chain address as the client was given it (from the volume's record on chain), so
//! that no other relay can replay the request.
//!
//! The signature covers the request target **exactly as sent**, so the client builds it once and
//! signs that: object keys and query values are percent-encoded with one rule (every byte but
//! `A-Z a-z 0-9 - . _ ~`, and `/` inside keys, becomes `%XX`), the URL library then parses the
//! result, and the client checks that it did not rewrite the target before signing it. The relay
//! decodes the path to get the key back; it verifies the signature over the raw target.
//!
//! Refusals come back typed ([`ClientError`]): an authentication refusal with the relay's code,
//! not found, forbidden, too large, out of capacity, or a transport failure. A read checks the
//! object against the content hash the relay sends (`ETag`); [`RelayClient::put_sealed`] and
//! [`RelayClient::get_sealed`] add the private-volume encryption of [`crate::crypt`].

use crate::api::{DeleteResponse, HealthResponse, ListResponse, PutResponse, RelayErrorCode, VolumeResponse};
use crate::crypt::{CryptError, SEAL_OVERHEAD_BYTES, VolumeKey};
use crate::limits::{KeyError, MAX_LIST_LIMIT, MAX_OBJECT_BYTES, validate_key};
use crate::manifest::ListEntry;
use bytes::Bytes;
use drover_types::api::ErrorBody;
use drover_types::storage::auth::{
    DELEGATION_HEADER, DelegationToken, NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, relay_audience, request_hash,
    session_public_key,
};
use drover_types::{Address, H256, SecretKey, keccak256};
use parking_lot::Mutex;
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use std::fmt::Write as _;
use std::time::Duration;

/// Lifetime of the delegation tokens the client issues, in ms (1 hour).
pub const TOKEN_LIFETIME_MS: u64 = 60 * 60 * 1_000;
/// A token with less than this left (ms) is reissued before the next request.
pub const TOKEN_REFRESH_MARGIN_MS: u64 = 5 * 60 * 1_000;
/// Random bytes of each request nonce.
pub const NONCE_BYTES: usize = 16;
/// How long to wait for a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a whole request may take (a 64 MiB upload on a slow link).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

/// Why a relay request failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The relay URL is not an `http` or `https` URL without query or fragment.
    #[error("invalid relay URL {0:?}")]
    Url(String),
    /// The object key is invalid (checked before sending).
    #[error("invalid object key: {0}")]
    Key(#[from] KeyError),
    /// The client has no wallet (built with [`RelayClient::anonymous`]) and the call needs one.
    #[error("this call needs a wallet key")]
    NoWallet,
    /// The relay refused the authentication (401).
    #[error("the relay refused the authentication ({name}, code {code}): {message}")]
    Auth {
        /// 9100 (token), 9101 (request signature, timestamp, nonce) or 9102 (replay).
        code: u16,
        /// The code's name.
        name: String,
        /// The relay's explanation.
        message: String,
    },
    /// No such volume on this relay (or a private one this wallet may not see), or no such
    /// object (404).
    #[error("not found: {0}")]
    NotFound(String),
    /// The wallet may not do this (403): not the owner, or the volume takes no writes.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The object exceeds the relay's limit (413, or checked before sending).
    #[error("too large: {0}")]
    TooLarge(String),
    /// The relay is full, or the volume is (507: its objects, or the size its owner pays for).
    #[error("no room: {0}")]
    Capacity(String),
    /// Any other refusal.
    #[error("the relay answered {status}: {message}")]
    Relay {
        /// The HTTP status.
        status: u16,
        /// The relay's code, if the body carried one.
        code: Option<RelayErrorCode>,
        /// The relay's explanation (or the body).
        message: String,
    },
    /// The object does not match the content hash the relay announced.
    #[error("the object does not match its content hash {expected} (got {got})")]
    Integrity {
        /// The hash the relay announced.
        expected: H256,
        /// The hash of what arrived.
        got: H256,
    },
    /// A sealed object does not open.
    #[error(transparent)]
    Crypt(#[from] CryptError),
    /// An answer that is not what the API promises.
    #[error("unexpected answer from the relay: {0}")]
    Response(String),
    /// The request did not complete.
    #[error("transport: {0}")]
    Transport(#[from] reqwest::Error),
}

struct Auth {
    wallet: SecretKey,
    session: SecretKey,
    /// The audience of the relay's address, which every request is signed for.
    audience: String,
    /// The current token, encoded, and its expiry.
    token: Mutex<(String, u64)>,
}

/// A client of one relay (see the module documentation).
pub struct RelayClient {
    http: reqwest::Client,
    /// The relay's URL without a trailing `/`.
    base: String,
    /// The path part of `base` (empty for a relay at the root of its origin).
    base_path: String,
    chain_id: u64,
    auth: Option<Auth>,
}

impl std::fmt::Debug for RelayClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayClient")
            .field("base", &self.base)
            .field("chain_id", &self.chain_id)
            .field("wallet", &self.wallet())
            .finish_non_exhaustive()
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Percent-encodes every byte but the unreserved ones (and `/` if `keep_slash`).
pub fn percent_encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for &byte in text.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') || (keep_slash && byte == b'/') {
            out.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

impl RelayClient {
    /// A client of the relay registered as `relay` (the address the chain records for the
    /// volume), reached at `url`, acting for `wallet` on `chain_id`, with a fresh random session
    /// key.
    pub fn new(url: &str, relay: &Address, chain_id: u64, wallet: SecretKey) -> Result<Self, ClientError> {
        let session = SecretKey::random();
        let auth = Auth { wallet, session, audience: relay_audience(relay), token: Mutex::new((String::new(), 0)) };
        Self::build(url, chain_id, Some(auth))
    }

    /// A client without a wallet: it can only read public volumes.
    pub fn anonymous(url: &str) -> Result<Self, ClientError> {
        Self::build(url, 0, None)
    }

    fn build(url: &str, chain_id: u64, auth: Option<Auth>) -> Result<Self, ClientError> {
        let parsed = Url::parse(url).map_err(|_| ClientError::Url(url.to_owned()))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(ClientError::Url(url.to_owned()));
        }
        let base = parsed.as_str().trim_end_matches('/').to_owned();
        let base_path = parsed.path().trim_end_matches('/').to_owned();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(ClientError::Transport)?;
        Ok(RelayClient { http, base, base_path, chain_id, auth })
    }

    /// The wallet the client acts for.
    pub fn wallet(&self) -> Option<Address> {
        self.auth.as_ref().map(|auth| auth.wallet.address())
    }

    /// The key that seals this wallet's objects of `volume` ([`crate::crypt`]).
    pub fn volume_key(&self, volume: H256) -> Result<VolumeKey, ClientError> {
        let auth = self.auth.as_ref().ok_or(ClientError::NoWallet)?;
        Ok(VolumeKey::derive(&auth.wallet, volume))
    }

    /// Stores `bytes` as `key` of `volume`.
    pub async fn put(&self, volume: H256, key: &str, bytes: impl Into<Bytes>) -> Result<PutResponse, ClientError> {
        validate_key(key)?;
        if self.auth.is_none() {
            return Err(ClientError::NoWallet);
        }
        let bytes = bytes.into();
        if bytes.len() > MAX_OBJECT_BYTES {
            return Err(ClientError::TooLarge(format!(
                "{} bytes; a relay takes at most {MAX_OBJECT_BYTES}",
                bytes.len()
            )));
        }
        json(self.send(Method::PUT, object_path(volume, key), bytes).await?).await
    }

    /// The object `key` of `volume`, checked against the content hash the relay announces.
    pub async fn get(&self, volume: H256, key: &str) -> Result<Vec<u8>, ClientError> {
        validate_key(key)?;
        let mut response = self.send(Method::GET, object_path(volume, key), Bytes::new()).await?;
        // The relay names the object's hash; an answer without one, or longer than any object,
        // is not taken (a relay is not trusted with the bytes it serves).
        let expected = response
            .headers()
            .get(reqwest::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim_matches('"').parse::<H256>().ok())
            .ok_or_else(|| ClientError::Response("the object comes without its content hash (ETag)".into()))?;
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            if bytes.len() + chunk.len() > MAX_OBJECT_BYTES {
                return Err(ClientError::Response(format!("the object is longer than {MAX_OBJECT_BYTES} bytes")));
            }
            bytes.extend_from_slice(&chunk);
        }
        let got = keccak256(&bytes);
        if got != expected {
            return Err(ClientError::Integrity { expected, got });
        }
        Ok(bytes)
    }

    /// Deletes the object `key` of `volume`.
    pub async fn delete(&self, volume: H256, key: &str) -> Result<DeleteResponse, ClientError> {
        validate_key(key)?;
        if self.auth.is_none() {
            return Err(ClientError::NoWallet);
        }
        json(self.send(Method::DELETE, object_path(volume, key), Bytes::new()).await?).await
    }

    /// One page of `volume`'s objects whose key starts with `prefix`, after the key `after`, at
    /// most `limit` (1 to [`MAX_LIST_LIMIT`]).
    pub async fn list(
        &self,
        volume: H256,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<ListResponse, ClientError> {
        let mut path = format!("/v1/volumes/{volume}/objects?limit={}", limit.clamp(1, MAX_LIST_LIMIT));
        if !prefix.is_empty() {
            path.push_str(&format!("&prefix={}", percent_encode(prefix, false)));
        }
        if let Some(after) = after {
            path.push_str(&format!("&after={}", percent_encode(after, false)));
        }
        json(self.send(Method::GET, path, Bytes::new()).await?).await
    }

    /// Every object of `volume` whose key starts with `prefix`, page after page.
    pub async fn list_all(&self, volume: H256, prefix: &str) -> Result<Vec<ListEntry>, ClientError> {
        let mut entries = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.list(volume, prefix, after.as_deref(), MAX_LIST_LIMIT).await?;
            entries.extend(page.entries);
            match page.next_after {
                // A relay that does not advance would loop forever.
                Some(next) if after.as_ref().is_none_or(|previous| next > *previous) => after = Some(next),
                Some(_) => return Err(ClientError::Response("the listing does not advance".into())),
                None => return Ok(entries),
            }
        }
    }

    /// `volume`'s root, size and object count as the relay holds them.
    pub async fn info(&self, volume: H256) -> Result<VolumeResponse, ClientError> {
        json(self.send(Method::GET, format!("/v1/volumes/{volume}"), Bytes::new()).await?).await
    }

    /// The relay's address and totals.
    pub async fn health(&self) -> Result<HealthResponse, ClientError> {
        json(self.send(Method::GET, "/v1/health".to_owned(), Bytes::new()).await?).await
    }

    /// Seals `plaintext` with the wallet's key for `volume` and stores it as `key`.
    pub async fn put_sealed(&self, volume: H256, key: &str, plaintext: &[u8]) -> Result<PutResponse, ClientError> {
        validate_key(key)?;
        if plaintext.len() > MAX_OBJECT_BYTES - SEAL_OVERHEAD_BYTES {
            return Err(ClientError::TooLarge(format!(
                "{} bytes; sealed objects hold at most {}",
                plaintext.len(),
                MAX_OBJECT_BYTES - SEAL_OVERHEAD_BYTES
            )));
        }
        let sealed = self.volume_key(volume)?.seal(key, plaintext);
        self.put(volume, key, sealed).await
    }

    /// Reads `key` of `volume` and opens it with the wallet's key for the volume.
    pub async fn get_sealed(&self, volume: H256, key: &str) -> Result<Vec<u8>, ClientError> {
        let volume_key = self.volume_key(volume)?;
        let sealed = self.get(volume, key).await?;
        Ok(volume_key.open(key, &sealed)?)
    }

    /// The authentication headers of a request, reissuing the token if it nears expiry.
    fn sign(&self, auth: &Auth, method: &Method, path_and_query: &str, body: &[u8]) -> [(&'static str, String); 4] {
        let now = now_ms();
        let token = {
            let mut token = auth.token.lock();
            if token.1 < now.saturating_add(TOKEN_REFRESH_MARGIN_MS) {
                let expires_at_ms = now.saturating_add(TOKEN_LIFETIME_MS);
                let issued = DelegationToken::issue(
                    &auth.wallet,
                    session_public_key(&auth.session),
                    self.chain_id,
                    expires_at_ms,
                );
                *token = (issued.encode(), expires_at_ms);
            }
            token.0.clone()
        };
        let timestamp = now.to_string();
        let nonce = hex::encode(rand::random::<[u8; NONCE_BYTES]>());
        let hash = request_hash(method.as_str(), path_and_query, &auth.audience, &timestamp, &nonce, body);
        let signature = format!("0x{}", hex::encode(auth.session.sign_prehash(&hash).to_rsv()));
        [
            (DELEGATION_HEADER, token),
            (TIMESTAMP_HEADER, timestamp),
            (NONCE_HEADER, nonce),
            (SIGNATURE_HEADER, signature),
        ]
    }

    /// Sends a request for `path_and_query` (already percent-encoded), signed if the client has
    /// a wallet; a refusal becomes its [`ClientError`].
    async fn send(
        &self,
        method: Method,
        path_and_query: String,
        body: Bytes,
    ) -> Result<reqwest::Response, ClientError> {
        let url =
            Url::parse(&format!("{}{path_and_query}", self.base)).map_err(|_| ClientError::Url(self.base.clone()))?;
        let sent = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        if sent != format!("{}{path_and_query}", self.base_path) {
            // The signature would not match what goes on the wire.
            return Err(ClientError::Response(format!("the URL library rewrote {path_and_query:?} as {sent:?}")));
        }
        let mut request = self.http.request(method.clone(), url);
        if let Some(auth) = &self.auth {
            for (name, value) in self.sign(auth, &method, &sent, &body) {
                request = request.header(name, value);
            }
        }
        if !body.is_empty() || method == Method::PUT {
            request = request.body(body);
        }
        let response = request.send().await?;
        if response.status().is_success() {
            return Ok(response);
        }
        Err(refusal(response).await)
    }
}

fn object_path(volume: H256, key: &str) -> String {
    format!("/v1/volumes/{volume}/objects/{}", percent_encode(key, true))
}

async fn json<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, ClientError> {
    let bytes = response.bytes().await?;
    serde_json::from_slice(&bytes).map_err(|e| ClientError::Response(e.to_string()))
}

async fn refusal(response: reqwest::Response) -> ClientError {
    let status = response.status();
    let bytes = match response.bytes().await {
        Ok(bytes) => bytes,
        Err(e) => return ClientError::Transport(e),
    };
    let Ok(body) = serde_json::from_slice::<ErrorBody>(&bytes) else {
        return ClientError::Relay {
            status: status.as_u16(),
            code: None,
            message: String::from_utf8_lossy(&bytes).chars().take(200).collect(),
        };
    };
    match status {
        StatusCode::UNAUTHORIZED => ClientError::Auth { code: body.code, name: body.error, message: body.message },
        StatusCode::NOT_FOUND => ClientError::NotFound(body.message),
        StatusCode::FORBIDDEN => ClientError::Forbidden(body.message),
        StatusCode::PAYLOAD_TOO_LARGE => ClientError::TooLarge(body.message),
        StatusCode::INSUFFICIENT_STORAGE => ClientError::Capacity(body.message),
        _ => ClientError::Relay {
            status: status.as_u16(),
            code: RelayErrorCode::from_code(body.code),
            message: body.message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_encoded_so_the_url_library_leaves_them_alone() {
        assert_eq!(percent_encode("a/b c+d%é?#", true), "a/b%20c%2Bd%25%C3%A9%3F%23");
        assert_eq!(percent_encode("a/b", false), "a%2Fb");
        let client = RelayClient::anonymous("http://127.0.0.1:1/relay/").unwrap();
        assert_eq!(client.base_path, "/relay");
        for key in ["plain.txt", "dir/sub/x", "spaces and ünïcode", "a\\b", "..x/y..", "q?x=1#frag", "%2e%2e"] {
            let path = object_path(H256::ZERO, key);
            let url = Url::parse(&format!("{}{path}", client.base)).unwrap();
            assert_eq!(url.path(), format!("/relay{path}"), "{key:?}");
        }
    }

    #[test]
    fn only_http_urls_are_relays() {
        for bad in ["ftp://x", "not a url", "http://x/?q=1", "http://x/#f"] {
            assert!(matches!(RelayClient::anonymous(bad), Err(ClientError::Url(_))), "{bad}");
        }
    }
}
