//! Storage relays (RAS): signing requests to the node's `/ras/...` owner routes and to relays.
//!
//! A wallet signs one delegation token for a session key ([`DelegationToken::issue`]); the
//! session key then signs every request: `X-DRFS-Timestamp` (now, Unix ms), `X-DRFS-Nonce` (16
//! fresh random bytes, hex) and `X-DRFS-Signature` over
//! [`request_hash`]`(method, path_and_query, audience, timestamp, nonce, body)`
//! (`docs/storage.md`), the audience being the verifier the request is for: the chain's nodes
//! ([`StorageSigner::headers`]) or one relay, named by its on-chain address
//! ([`StorageSigner::relay_headers`]). [`StorageSigner`] holds the token and the session key and builds
//! those headers; [`AuthHeaders::pairs`] lists them for any HTTP client.
//!
//! The path signed is the one the node routes: `/ras/...` with its query, exactly as sent (a
//! base URL's own path, e.g. a proxy's prefix, is not part of it).

use drover_types::{
    Address, SecretKey,
    storage::auth::{
        DELEGATION_HEADER, DelegationToken, MAX_TOKEN_LIFETIME_MS, NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER,
        node_audience, relay_audience, request_hash, session_public_key,
    },
};

/// Lifetime of the tokens [`StorageSigner::issue`] signs, in ms (one hour).
pub const DEFAULT_TOKEN_LIFETIME_MS: u64 = 60 * 60 * 1_000;
/// Random bytes of each request's nonce.
pub const NONCE_BYTES: usize = 16;

/// Unix time in milliseconds (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The four `X-DRFS-*` headers of one signed request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthHeaders {
    /// `X-DRFS-Delegation`: the encoded token.
    pub delegation: String,
    /// `X-DRFS-Timestamp`: Unix ms, decimal.
    pub timestamp: String,
    /// `X-DRFS-Nonce`: hex.
    pub nonce: String,
    /// `X-DRFS-Signature`: `0x` + the session key's `r ‖ s ‖ v`.
    pub signature: String,
}

impl AuthHeaders {
    /// `(name, value)` of each header, to set on a request.
    pub fn pairs(&self) -> [(&'static str, &str); 4] {
        [
            (DELEGATION_HEADER, &self.delegation),
            (TIMESTAMP_HEADER, &self.timestamp),
            (NONCE_HEADER, &self.nonce),
            (SIGNATURE_HEADER, &self.signature),
        ]
    }
}

/// A session acting for a wallet: its delegation token and the session key that signs each
/// request.
#[derive(Clone)]
pub struct StorageSigner {
    token: DelegationToken,
    encoded: String,
    session_key: SecretKey,
}

impl std::fmt::Debug for StorageSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StorageSigner")
            .field("wallet", &self.token.wallet)
            .field("session_key", &format!("0x{}", hex::encode(self.token.session_key)))
            .field("expires_at_ms", &self.token.expires_at_ms)
            .finish_non_exhaustive()
    }
}

impl StorageSigner {
    /// `wallet` delegates to `session_key` on `chain_id` until `expires_at_ms` (at most 30 days
    /// ahead when used).
    pub fn new(wallet: &SecretKey, session_key: SecretKey, chain_id: u64, expires_at_ms: u64) -> Self {
        let token = DelegationToken::issue(wallet, session_public_key(&session_key), chain_id, expires_at_ms);
        Self::from_token(token, session_key)
    }

    /// `wallet` delegates to `session_key` on `chain_id` for [`DEFAULT_TOKEN_LIFETIME_MS`] from
    /// now.
    pub fn issue(wallet: &SecretKey, session_key: SecretKey, chain_id: u64) -> Self {
        let lifetime = DEFAULT_TOKEN_LIFETIME_MS.min(MAX_TOKEN_LIFETIME_MS);
        Self::new(wallet, session_key, chain_id, now_ms().saturating_add(lifetime))
    }

    /// A session from a token the wallet signed elsewhere, with its session key.
    pub fn from_token(token: DelegationToken, session_key: SecretKey) -> Self {
        Self { encoded: token.encode(), token, session_key }
    }

    /// The wallet the session acts for.
    pub fn wallet(&self) -> Address {
        self.token.wallet
    }

    /// The session's public key (compressed), as the token names it.
    pub fn session_public_key(&self) -> [u8; 33] {
        self.token.session_key
    }

    /// The token.
    pub fn token(&self) -> &DelegationToken {
        &self.token
    }

    /// The headers of `method path_and_query` with `body` to a node of the token's chain,
    /// stamped now with a fresh random nonce.
    pub fn headers(&self, method: &str, path_and_query: &str, body: &[u8]) -> AuthHeaders {
        let nonce: [u8; NONCE_BYTES] = rand::random();
        self.headers_at(&node_audience(self.token.chain_id), (method, path_and_query, body), now_ms(), &nonce)
    }

    /// The headers of `method path_and_query` with `body` to the relay registered as `relay`
    /// (the address the chain records for the volume, not one the relay claims), stamped now
    /// with a fresh random nonce.
    pub fn relay_headers(&self, relay: &Address, method: &str, path_and_query: &str, body: &[u8]) -> AuthHeaders {
        let nonce: [u8; NONCE_BYTES] = rand::random();
        self.headers_at(&relay_audience(relay), (method, path_and_query, body), now_ms(), &nonce)
    }

    /// The headers of a request to `audience` stamped `timestamp_ms` with `nonce` (what
    /// [`StorageSigner::headers`] and [`StorageSigner::relay_headers`] do with the clock and fresh
    /// randomness).
    pub fn headers_at(
        &self,
        audience: &str,
        (method, path_and_query, body): (&str, &str, &[u8]),
        timestamp_ms: u64,
        nonce: &[u8],
    ) -> AuthHeaders {
        let timestamp = timestamp_ms.to_string();
        let nonce = hex::encode(nonce);
        let hash = request_hash(method, path_and_query, audience, &timestamp, &nonce, body);
        let signature = format!("0x{}", hex::encode(self.session_key.sign_prehash(&hash).to_rsv()));
        AuthHeaders { delegation: self.encoded.clone(), timestamp, nonce, signature }
    }
}

/// The headers of one request that `wallet` delegates to `session_key` for (a token of
/// [`DEFAULT_TOKEN_LIFETIME_MS`] signed now; a session that makes many requests keeps one
/// [`StorageSigner`] instead).
pub fn request_headers(
    wallet: &SecretKey,
    session_key: &SecretKey,
    chain_id: u64,
    (method, path_and_query, body): (&str, &str, &[u8]),
) -> AuthHeaders {
    StorageSigner::issue(wallet, session_key.clone(), chain_id).headers(method, path_and_query, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::storage::auth::verify_request;

    #[test]
    fn headers_verify_as_the_node_checks_them() {
        let wallet = SecretKey::dev(0);
        let signer = StorageSigner::issue(&wallet, SecretKey::dev(7), 100);
        assert_eq!(signer.wallet(), wallet.address());
        let headers = signer.headers("POST", "/ras/volumes?x=1", b"{}");
        let token = DelegationToken::decode(&headers.delegation).unwrap();
        assert_eq!(token, *signer.token());
        token.verify(100, now_ms()).unwrap();
        let node = node_audience(100);
        let nonce = verify_request(
            &token,
            ("POST", "/ras/volumes?x=1", b"{}"),
            &node,
            (&headers.timestamp, &headers.nonce, &headers.signature),
            now_ms(),
        )
        .unwrap();
        assert_eq!(nonce.len(), NONCE_BYTES);
        // Another body, path or method is not what was signed.
        for (method, path, body) in [
            ("POST", "/ras/volumes?x=1", &b"{ }"[..]),
            ("POST", "/ras/volumes", b"{}"),
            ("GET", "/ras/volumes?x=1", b"{}"),
        ] {
            assert!(
                verify_request(
                    &token,
                    (method, path, body),
                    &node,
                    (&headers.timestamp, &headers.nonce, &headers.signature),
                    now_ms()
                )
                .is_err()
            );
        }
        // A relay's request verifies at that relay only.
        let relay = Address([0xee; 20]);
        let to_relay = signer.relay_headers(&relay, "GET", "/v1/health", b"");
        let stamps = (to_relay.timestamp.as_str(), to_relay.nonce.as_str(), to_relay.signature.as_str());
        let at = |audience: &str| verify_request(&token, ("GET", "/v1/health", b""), audience, stamps, now_ms());
        assert!(at(&relay_audience(&relay)).is_ok());
        assert!(at(&relay_audience(&Address([0xef; 20]))).is_err());
        assert!(at(&node).is_err());
        // Fresh nonces each time.
        assert_ne!(signer.headers("GET", "/ras/auth/me", b"").nonce, signer.headers("GET", "/ras/auth/me", b"").nonce);
        let names: Vec<&str> = headers.pairs().iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["X-DRFS-Delegation", "X-DRFS-Timestamp", "X-DRFS-Nonce", "X-DRFS-Signature"]);
        let once = request_headers(&wallet, &SecretKey::dev(7), 100, ("GET", "/ras/auth/me", b""));
        assert_eq!(DelegationToken::decode(&once.delegation).unwrap().wallet, wallet.address());
        assert!(format!("{signer:?}").contains(&wallet.address().to_hex()));
    }

    #[test]
    fn fixed_stamps_give_fixed_headers() {
        let signer = StorageSigner::new(&SecretKey::dev(0), SecretKey::dev(7), 100, 2_000_000_000_000);
        let request = ("GET", "/ras/auth/me", &b""[..]);
        let a = signer.headers_at(&node_audience(100), request, 1_700_000_000_000, &[1; 16]);
        let b = signer.headers_at(&node_audience(100), request, 1_700_000_000_000, &[1; 16]);
        assert_eq!(a, b);
        assert_eq!((a.timestamp.as_str(), a.nonce.as_str()), ("1700000000000", "01".repeat(16).as_str()));
    }
}
