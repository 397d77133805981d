//! Storage authentication: the delegation token and the per-request signature that authenticate
//! a wallet's requests to the storage family's owner routes (`/ras/...`) and to relays.
//!
//! A wallet signs one **delegation token** handing a session key the right to act for it:
//! base64url (no padding) of the canonical CBOR map `{"wallet": bytes(20), "session_key":
//! bytes(33) (compressed secp256k1), "scope": "ras", "chain_id": uint, "audience": "drover:ras",
//! "expires_at_ms": uint, "signature": bytes(65)}`, where `signature` is the wallet's `r ‖ s ‖ v`
//! over keccak256 of the same map without `signature`. It travels in [`DELEGATION_HEADER`].
//! Each request then carries [`TIMESTAMP_HEADER`] (Unix ms, within [`REQUEST_SKEW_MS`] of the
//! verifier's clock), [`NONCE_HEADER`] (at least [`MIN_NONCE_BYTES`] random bytes as hex, never
//! accepted twice within the window: the verifier keeps them) and [`SIGNATURE_HEADER`]: the
//! session key's `r ‖ s ‖ v` over [`request_hash`].
//!
//! The signed message names its **audience**, the verifier it is for, so that a request one
//! verifier saw cannot be replayed at another (each keeps only its own nonces): a relay is
//! [`relay_audience`] of its on-chain address, which a client takes from the chain (the volume's
//! record), never from the relay; the nodes of a chain are [`node_audience`] of its chain id.
//! The nodes share one audience on purpose: they serve the same records and admit the same
//! transactions, so a request replayed from one to another reads what the wallet could read
//! and submits a transaction the chain takes once; the audience keeps it from a relay (and a
//! relay's from the nodes), and the token's chain id from other chains. What would make
//! replay across relays harmful — a volume held by more than one relay — is exactly what the
//! relay's address rules out.
//!
//! Verification ([`DelegationToken::verify`], [`verify_request`]) refuses, each with its own
//! [`AuthError`]: a token that does not decode, a wrong scope, audience or chain id, an expired
//! token or one valid for more than [`MAX_TOKEN_LIFETIME_MS`], a wallet signature that does not
//! recover the wallet, a stale or future timestamp, a short or non-hex nonce, and a request
//! signature that does not recover the session key. Replays are the verifier's to refuse (it
//! holds the nonces it accepted).

use crate::address::address_of_uncompressed;
use crate::args::{Args, ArgsBuilder};
use crate::{Address, H256, SecretKey, Signature, keccak256};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use k256::elliptic_curve::sec1::ToEncodedPoint;

/// Header carrying the delegation token.
pub const DELEGATION_HEADER: &str = "X-DRFS-Delegation";
/// Header carrying the request's Unix time in milliseconds.
pub const TIMESTAMP_HEADER: &str = "X-DRFS-Timestamp";
/// Header carrying the request's nonce (hex).
pub const NONCE_HEADER: &str = "X-DRFS-Nonce";
/// Header carrying the session key's signature of the request (`0x` + 65 bytes hex).
pub const SIGNATURE_HEADER: &str = "X-DRFS-Signature";
/// The only scope this family accepts.
pub const TOKEN_SCOPE: &str = "ras";
/// The only audience this family accepts.
pub const TOKEN_AUDIENCE: &str = "drover:ras";
/// Longest a token may be valid for, from the moment it is checked (30 days), in ms.
pub const MAX_TOKEN_LIFETIME_MS: u64 = 30 * 24 * 60 * 60 * 1_000;
/// Largest difference between a request's timestamp and the verifier's clock, in ms.
pub const REQUEST_SKEW_MS: u64 = 30_000;
/// Fewest random bytes in a request nonce.
pub const MIN_NONCE_BYTES: usize = 16;
/// Most bytes of a nonce (hex-decoded).
pub const MAX_NONCE_BYTES: usize = 64;
/// Longest token accepted, in characters of base64url.
pub const MAX_TOKEN_CHARS: usize = 1_024;

/// Why a token or a request is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No token, or one that is not base64url of the canonical map.
    #[error("the delegation token is missing or malformed: {0}")]
    Malformed(String),
    /// The scope is not `ras`.
    #[error("the delegation token's scope is not \"ras\"")]
    Scope,
    /// The audience is not `drover:ras`.
    #[error("the delegation token's audience is not \"drover:ras\"")]
    Audience,
    /// The token is for another chain.
    #[error("the delegation token is for chain {got}, this is chain {expected}")]
    ChainId {
        /// This chain.
        expected: u64,
        /// The token's.
        got: u64,
    },
    /// The token has expired.
    #[error("the delegation token expired")]
    Expired,
    /// The token is valid for longer than 30 days.
    #[error("the delegation token is valid for more than 30 days")]
    TooLong,
    /// The wallet's signature does not recover the wallet.
    #[error("the delegation token is not signed by its wallet")]
    TokenSignature,
    /// The session key is not a compressed secp256k1 key.
    #[error("the delegation token's session key is not a compressed secp256k1 public key")]
    SessionKey,
    /// The timestamp is missing, not a number, or too far from the verifier's clock.
    #[error("the request timestamp is missing or more than 30 s from the node's clock")]
    Timestamp,
    /// The nonce is missing, not hex, or shorter than 16 bytes.
    #[error("the request nonce is missing, not hex, or not 16 to 64 bytes")]
    Nonce,
    /// The request signature does not recover the session key (a request signed for another
    /// audience, path, body, timestamp or nonce).
    #[error("the request is not signed by the token's session key for this verifier")]
    RequestSignature,
}

/// A wallet's delegation to a session key (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelegationToken {
    /// The wallet the session acts for.
    pub wallet: Address,
    /// The session's public key, compressed.
    pub session_key: [u8; 33],
    /// Always [`TOKEN_SCOPE`] once verified.
    pub scope: String,
    /// The chain it is valid on.
    pub chain_id: u64,
    /// Always [`TOKEN_AUDIENCE`] once verified.
    pub audience: String,
    /// Unix ms after which it is refused.
    pub expires_at_ms: u64,
    /// The wallet's signature of [`DelegationToken::signing_hash`].
    pub signature: Signature,
}

fn unsigned_args(token: &DelegationToken) -> ArgsBuilder {
    ArgsBuilder::new()
        .address("wallet", &token.wallet)
        .bytes("session_key", &token.session_key)
        .text("scope", &token.scope)
        .uint("chain_id", token.chain_id)
        .text("audience", &token.audience)
        .uint("expires_at_ms", token.expires_at_ms)
}

/// The compressed public key of `key`: what a session key is named by in a token.
pub fn session_public_key(key: &SecretKey) -> [u8; 33] {
    let public = k256::SecretKey::from_slice(&key.to_bytes())
        .unwrap_or_else(|_| unreachable!("a secret key is a non-zero scalar"))
        .public_key();
    let mut out = [0u8; 33];
    out.copy_from_slice(public.to_encoded_point(true).as_bytes());
    out
}

/// The address of a compressed secp256k1 public key, or `None` if it is not one.
pub fn session_address(session_key: &[u8; 33]) -> Option<Address> {
    let key = k256::PublicKey::from_sec1_bytes(session_key).ok()?;
    Some(address_of_uncompressed(key.to_encoded_point(false).as_bytes()))
}

impl DelegationToken {
    /// A token `wallet` signs for `session_key` on `chain_id` until `expires_at_ms`.
    pub fn issue(wallet: &SecretKey, session_key: [u8; 33], chain_id: u64, expires_at_ms: u64) -> Self {
        let mut token = DelegationToken {
            wallet: wallet.address(),
            session_key,
            scope: TOKEN_SCOPE.to_owned(),
            chain_id,
            audience: TOKEN_AUDIENCE.to_owned(),
            expires_at_ms,
            signature: Signature::from_rsv(&[0; 65]).unwrap_or_else(|_| unreachable!("65 bytes")),
        };
        token.signature = wallet.sign_prehash(&token.signing_hash());
        token
    }

    /// keccak256 of the canonical map without `signature`: what the wallet signs.
    pub fn signing_hash(&self) -> H256 {
        keccak256(&unsigned_args(self).encode())
    }

    /// The header value: base64url (no padding) of the canonical map.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(unsigned_args(self).bytes("signature", &self.signature.to_rsv()).encode())
    }

    /// Parses a header value (shape only; [`DelegationToken::verify`] checks the rest).
    pub fn decode(text: &str) -> Result<Self, AuthError> {
        if text.len() > MAX_TOKEN_CHARS {
            return Err(AuthError::Malformed(format!("longer than {MAX_TOKEN_CHARS} characters")));
        }
        let bytes = URL_SAFE_NO_PAD.decode(text.trim()).map_err(|e| AuthError::Malformed(e.to_string()))?;
        let args = Args::decode(&bytes).map_err(|e| AuthError::Malformed(e.to_string()))?;
        let malformed = |e: crate::args::ArgsError| AuthError::Malformed(e.to_string());
        args.only(&["scope", "wallet", "audience", "chain_id", "signature", "session_key", "expires_at_ms"])
            .map_err(malformed)?;
        let session_key: [u8; 33] =
            args.bytes("session_key").map_err(malformed)?.try_into().map_err(|_| AuthError::SessionKey)?;
        Ok(DelegationToken {
            wallet: args.address("wallet").map_err(malformed)?,
            session_key,
            scope: args.text("scope").map_err(malformed)?.to_owned(),
            chain_id: args.uint("chain_id").map_err(malformed)?,
            audience: args.text("audience").map_err(malformed)?.to_owned(),
            expires_at_ms: args.uint("expires_at_ms").map_err(malformed)?,
            signature: Signature::from_rsv(args.bytes("signature").map_err(malformed)?)
                .map_err(|_| AuthError::TokenSignature)?,
        })
    }

    /// Checks the token for `chain_id` at `now_ms`: scope, audience, chain, lifetime, the
    /// session key's form and the wallet's signature.
    pub fn verify(&self, chain_id: u64, now_ms: u64) -> Result<(), AuthError> {
        if self.scope != TOKEN_SCOPE {
            return Err(AuthError::Scope);
        }
        if self.audience != TOKEN_AUDIENCE {
            return Err(AuthError::Audience);
        }
        if self.chain_id != chain_id {
            return Err(AuthError::ChainId { expected: chain_id, got: self.chain_id });
        }
        if self.expires_at_ms <= now_ms {
            return Err(AuthError::Expired);
        }
        if self.expires_at_ms - now_ms > MAX_TOKEN_LIFETIME_MS {
            return Err(AuthError::TooLong);
        }
        session_address(&self.session_key).ok_or(AuthError::SessionKey)?;
        match self.signature.recover(&self.signing_hash()) {
            Ok(signer) if signer == self.wallet => Ok(()),
            _ => Err(AuthError::TokenSignature),
        }
    }
}

/// The audience of the nodes of chain `chain_id`: `drover-node:` and the chain id in decimal.
pub fn node_audience(chain_id: u64) -> String {
    format!("drover-node:{chain_id}")
}

/// The audience of the relay registered as `relay`: `drover-relay:` and its address (`0x` and 40
/// lower-case hex digits).
pub fn relay_audience(relay: &Address) -> String {
    format!("drover-relay:{}", relay.to_hex())
}

/// What the session key signs for a request to `audience`: keccak256(`method ‖ " " ‖
/// path_and_query ‖ "\n" ‖ audience ‖ "\n" ‖ timestamp ‖ "\n" ‖ nonce ‖ "\n" ‖
/// keccak256(body)`), the text parts exactly as sent (the audience as [`node_audience`] or
/// [`relay_audience`] writes it), the body hash as 32 raw bytes.
pub fn request_hash(
    method: &str,
    path_and_query: &str,
    audience: &str,
    timestamp: &str,
    nonce: &str,
    body: &[u8],
) -> H256 {
    let head = format!("{method} {path_and_query}\n{audience}\n{timestamp}\n{nonce}\n");
    keccak256(&[head.as_bytes(), &keccak256(body).0].concat())
}

/// Checks a request made to `audience` (the verifier's own) under a verified `token` at
/// `now_ms`: the timestamp's skew, the nonce's form and the session key's signature, which a
/// request signed for another audience does not match. Returns the nonce's bytes for the
/// verifier's replay check.
pub fn verify_request(
    token: &DelegationToken,
    (method, path_and_query, body): (&str, &str, &[u8]),
    audience: &str,
    (timestamp, nonce, signature): (&str, &str, &str),
    now_ms: u64,
) -> Result<Vec<u8>, AuthError> {
    let at: u64 = timestamp.parse().map_err(|_| AuthError::Timestamp)?;
    if at.abs_diff(now_ms) > REQUEST_SKEW_MS {
        return Err(AuthError::Timestamp);
    }
    let nonce_bytes = hex::decode(nonce.trim_start_matches("0x")).map_err(|_| AuthError::Nonce)?;
    if !(MIN_NONCE_BYTES..=MAX_NONCE_BYTES).contains(&nonce_bytes.len()) {
        return Err(AuthError::Nonce);
    }
    let signature = hex::decode(signature.trim_start_matches("0x")).map_err(|_| AuthError::RequestSignature)?;
    let signature = Signature::from_rsv(&signature).map_err(|_| AuthError::RequestSignature)?;
    let session = session_address(&token.session_key).ok_or(AuthError::SessionKey)?;
    match signature.recover(&request_hash(method, path_and_query, audience, timestamp, nonce, body)) {
        Ok(signer) if signer == session => Ok(nonce_bytes),
        _ => Err(AuthError::RequestSignature),
    }
}

/// Most live nonces one wallet may hold in a [`NonceCache`]: a busy client signs thousands of
/// requests a minute, yet no single wallet can crowd the others out.
pub const MAX_NONCES_PER_WALLET: usize = 10_000;
/// Most live nonces a [`NonceCache`] holds over all wallets: a memory guard (about 150 B each).
pub const MAX_NONCES: usize = 500_000;
/// How long an accepted nonce is remembered, in ms: twice the timestamp skew, so a request
/// accepted at either edge of the window cannot be replayed inside it.
pub const NONCE_TTL_MS: u64 = 2 * REQUEST_SKEW_MS;

/// Why a [`NonceCache`] refused a nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The wallet already used this nonce within the window.
    #[error("this nonce was already used")]
    Replayed,
    /// The wallet holds [`MAX_NONCES_PER_WALLET`] live nonces.
    #[error("this wallet signed more than {MAX_NONCES_PER_WALLET} requests within the last minute")]
    WalletBusy,
    /// The cache holds [`MAX_NONCES`] live nonces.
    #[error("too many requests are live; retry shortly")]
    Full,
}

/// The nonces a verifier accepted within the replay window, per wallet, oldest first.
///
/// A nonce is unique per wallet: two wallets may pick the same bytes. Each wallet holds at most
/// [`MAX_NONCES_PER_WALLET`] live nonces, so one wallet filling its share refuses only itself;
/// the cache as a whole holds at most [`MAX_NONCES`] (the per-IP request limit in front of the
/// verifier keeps many fresh wallets from one client from reaching it).
#[derive(Default)]
pub struct NonceCache {
    inner: std::sync::Mutex<Nonces>,
}

#[derive(Default)]
struct Nonces {
    seen: std::collections::HashSet<(Address, Vec<u8>)>,
    per_wallet: std::collections::HashMap<Address, usize>,
    order: std::collections::VecDeque<(u64, Address, Vec<u8>)>,
}

impl NonceCache {
    /// Records `wallet`'s `nonce` at `now_ms`, first forgetting the nonces older than
    /// [`NONCE_TTL_MS`].
    pub fn accept(&self, wallet: Address, nonce: Vec<u8>, now_ms: u64) -> Result<(), ReplayError> {
        let mut inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Nonces { seen, per_wallet, order } = &mut *inner;
        while order.front().is_some_and(|(at, _, _)| at.saturating_add(NONCE_TTL_MS) < now_ms) {
            let Some((_, old_wallet, old)) = order.pop_front() else { break };
            seen.remove(&(old_wallet, old));
            if let Some(count) = per_wallet.get_mut(&old_wallet) {
                *count -= 1;
                if *count == 0 {
                    per_wallet.remove(&old_wallet);
                }
            }
        }
        let key = (wallet, nonce);
        if seen.contains(&key) {
            return Err(ReplayError::Replayed);
        }
        if per_wallet.get(&wallet).is_some_and(|count| *count >= MAX_NONCES_PER_WALLET) {
            return Err(ReplayError::WalletBusy);
        }
        if seen.len() >= MAX_NONCES {
            return Err(ReplayError::Full);
        }
        *per_wallet.entry(wallet).or_default() += 1;
        order.push_back((now_ms, wallet, key.1.clone()));
        seen.insert(key);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000_000;
    const CHAIN: u64 = 100;

    fn session() -> (SecretKey, [u8; 33]) {
        let key = SecretKey::dev(5);
        let public = k256::SecretKey::from_slice(&key.to_bytes()).unwrap().public_key();
        let compressed: [u8; 33] = public.to_encoded_point(true).as_bytes().try_into().unwrap();
        (key, compressed)
    }

    fn token() -> DelegationToken {
        DelegationToken::issue(&SecretKey::dev(0), session().1, CHAIN, NOW + 60_000)
    }

    #[test]
    fn a_token_round_trips_and_verifies() {
        let token = token();
        let decoded = DelegationToken::decode(&token.encode()).unwrap();
        assert_eq!(decoded, token);
        assert_eq!(decoded.verify(CHAIN, NOW), Ok(()));
        assert_eq!(session_address(&token.session_key), Some(SecretKey::dev(5).address()));
    }

    #[test]
    fn every_token_refusal() {
        let good = token();
        let with = |change: fn(&mut DelegationToken)| {
            let mut token = good.clone();
            change(&mut token);
            token.verify(CHAIN, NOW)
        };
        assert_eq!(with(|t| t.scope = "all".into()), Err(AuthError::Scope));
        assert_eq!(with(|t| t.audience = "elsewhere".into()), Err(AuthError::Audience));
        assert_eq!(good.verify(1, NOW), Err(AuthError::ChainId { expected: 1, got: CHAIN }));
        assert_eq!(good.verify(CHAIN, NOW + 60_000), Err(AuthError::Expired));
        let long = DelegationToken::issue(&SecretKey::dev(0), session().1, CHAIN, NOW + MAX_TOKEN_LIFETIME_MS + 1);
        assert_eq!(long.verify(CHAIN, NOW), Err(AuthError::TooLong));
        // A field changed after signing (a forged wallet or expiry): the signature no longer fits.
        assert_eq!(with(|t| t.wallet = Address([9; 20])), Err(AuthError::TokenSignature));
        assert_eq!(with(|t| t.expires_at_ms += 1), Err(AuthError::TokenSignature));
        assert_eq!(with(|t| t.session_key = [5; 33]), Err(AuthError::SessionKey), "0x05 is no SEC1 prefix");
        // Signed by another key for this wallet.
        let mut other = DelegationToken::issue(&SecretKey::dev(1), session().1, CHAIN, NOW + 60_000);
        other.wallet = SecretKey::dev(0).address();
        assert_eq!(other.verify(CHAIN, NOW), Err(AuthError::TokenSignature));
        for text in ["", "!!!", &"A".repeat(MAX_TOKEN_CHARS + 1), &URL_SAFE_NO_PAD.encode([0xa0])] {
            assert!(matches!(DelegationToken::decode(text), Err(AuthError::Malformed(_))), "{text:?}");
        }
    }

    #[test]
    fn every_request_refusal() {
        let token = token();
        let (session_key, _) = session();
        let nonce = "00112233445566778899aabbccddeeff";
        let timestamp = NOW.to_string();
        let relay = relay_audience(&Address([0xee; 20]));
        let sign_for = |key: &SecretKey, audience: &str, path: &str, body: &[u8]| {
            let hash = request_hash("PUT", path, audience, &timestamp, nonce, body);
            format!("0x{}", hex::encode(key.sign_prehash(&hash).to_rsv()))
        };
        let sign = |key: &SecretKey, path: &str, body: &[u8]| sign_for(key, &relay, path, body);
        let good = sign(&session_key, "/v/1/a.txt", b"data");
        let check = |path: &str, body: &[u8], ts: &str, nonce: &str, sig: &str, now: u64| {
            verify_request(&token, ("PUT", path, body), &relay, (ts, nonce, sig), now)
        };
        assert_eq!(check("/v/1/a.txt", b"data", &timestamp, nonce, &good, NOW), Ok(hex::decode(nonce).unwrap()));
        assert_eq!(
            check("/v/1/a.txt", b"data", &timestamp, nonce, &good, NOW + REQUEST_SKEW_MS + 1),
            Err(AuthError::Timestamp)
        );
        assert_eq!(check("/v/1/a.txt", b"data", "soon", nonce, &good, NOW), Err(AuthError::Timestamp));
        assert_eq!(check("/v/1/a.txt", b"data", &timestamp, "00ff", &good, NOW), Err(AuthError::Nonce));
        assert_eq!(check("/v/1/a.txt", b"data", &timestamp, "zz", &good, NOW), Err(AuthError::Nonce));
        assert_eq!(check("/v/1/b.txt", b"data", &timestamp, nonce, &good, NOW), Err(AuthError::RequestSignature));
        assert_eq!(check("/v/1/a.txt", b"other", &timestamp, nonce, &good, NOW), Err(AuthError::RequestSignature));
        let by_wallet = sign(&SecretKey::dev(0), "/v/1/a.txt", b"data");
        assert_eq!(check("/v/1/a.txt", b"data", &timestamp, nonce, &by_wallet, NOW), Err(AuthError::RequestSignature));
        // Signed for another relay, or for the nodes: not this relay's request.
        for audience in [relay_audience(&Address([0xef; 20])), node_audience(CHAIN)] {
            let elsewhere = sign_for(&session_key, &audience, "/v/1/a.txt", b"data");
            assert_eq!(
                check("/v/1/a.txt", b"data", &timestamp, nonce, &elsewhere, NOW),
                Err(AuthError::RequestSignature)
            );
            let there =
                verify_request(&token, ("PUT", "/v/1/a.txt", b"data"), &audience, (&timestamp, nonce, &elsewhere), NOW);
            assert_eq!(there, Ok(hex::decode(nonce).unwrap()), "valid where it was meant to go");
        }
        assert_eq!(relay_audience(&Address([0xee; 20])), format!("drover-relay:0x{}", "ee".repeat(20)));
        assert_eq!(node_audience(100), "drover-node:100");
    }
    #[test]
    fn a_nonce_is_refused_twice_per_wallet_and_one_busy_wallet_does_not_lock_out_others() {
        let cache = NonceCache::default();
        let (a, b) = (Address([1; 20]), Address([2; 20]));
        assert_eq!(cache.accept(a, vec![7; 16], NOW), Ok(()));
        assert_eq!(cache.accept(a, vec![7; 16], NOW), Err(ReplayError::Replayed));
        assert_eq!(cache.accept(b, vec![7; 16], NOW), Ok(()), "nonces are per wallet");
        for i in 1..MAX_NONCES_PER_WALLET as u64 {
            assert_eq!(cache.accept(a, i.to_be_bytes().repeat(2), NOW), Ok(()));
        }
        assert_eq!(cache.accept(a, vec![8; 16], NOW), Err(ReplayError::WalletBusy));
        assert_eq!(cache.accept(b, vec![8; 16], NOW), Ok(()), "another wallet is not locked out");
        // Once the window has passed, the wallet's nonces are forgotten: it may sign again, and
        // an old nonce is no longer remembered (its timestamp is refused by then anyway).
        let later = NOW + NONCE_TTL_MS + 1;
        assert_eq!(cache.accept(a, vec![8; 16], later), Ok(()));
        assert_eq!(cache.accept(a, vec![7; 16], later), Ok(()));
    }

    /// The example of `docs/storage.md`, byte for byte.
    #[test]
    fn the_documented_example() {
        let token =
            DelegationToken::issue(&SecretKey::dev(0), session_public_key(&SecretKey::dev(1)), 100, 1_900_000_000_000);
        assert_eq!(
            hex::encode(unsigned_args(&token).encode()),
            "a66573636f7065637261736677616c6c657454d0def2131c85136a1c65d8692cf6c523b76f06a16861756469656e63656a\
             64726f7665723a72617368636861696e5f696418646b73657373696f6e5f6b657958210269409005768c46617bc1e0862d\
             936a22d27e1aabc30ecfe868571f1dac856dd36d657870697265735f61745f6d731b000001ba60d33800"
        );
        assert_eq!(
            token.signing_hash().to_string(),
            "0x1b061eb49051e57a51272b565172742c5c3e077898ecfbea53eb567aefe02f09"
        );
        assert_eq!(
            token.encode(),
            "p2VzY29wZWNyYXNmd2FsbGV0VNDe8hMchRNqHGXYaSz2xSO3bwahaGF1ZGllbmNlamRyb3ZlcjpyYXNoY2hhaW5faWQYZGlzaWdu\
             YXR1cmVYQTg6g2Dgw1xCVpjSTGvfH5OgcNGpshYIkTkXqbt9PbfONE4ZtKOCWmGtCQaunJaF2TeapIFkC34-LEva9UhQrbkBa3Nl\
             c3Npb25fa2V5WCECaUCQBXaMRmF7weCGLZNqItJ-GqvDDs_oaFcfHayFbdNtZXhwaXJlc19hdF9tcxsAAAG6YNM4AA"
        );
        let head = b"GET /ras/auth/me\ndrover-node:100\n1899999990000\n00112233445566778899aabbccddeeff\n";
        let hash = request_hash(
            "GET",
            "/ras/auth/me",
            &node_audience(100),
            "1899999990000",
            "00112233445566778899aabbccddeeff",
            b"",
        );
        assert_eq!(hash, keccak256(&[&head[..], &keccak256(b"").0].concat()), "the message, byte for byte");
        assert_eq!(hash.to_string(), "0x8ff0ad8d9792e0a23d4b4d446525917c35565585d19645a437814e1928861f28");
    }
}
