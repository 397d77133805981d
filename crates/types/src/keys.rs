//! secp256k1 secret keys, signing and address derivation.
//!
//! Key files are plain: 32 bytes as hex (optional `0x`), one line — an Ethereum private key
//! imports as is. Signatures are RFC 6979 deterministic, low-s, with a recovery parity.

use crate::{Address, H256, Signature};

/// A secp256k1 secret key.
#[derive(Clone)]
pub struct SecretKey(k256::ecdsa::SigningKey);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("invalid secret key: expected 32 bytes of hex")]
    Malformed,
    #[error("invalid secret key: not a valid secp256k1 scalar")]
    OutOfRange,
}

impl SecretKey {
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> { todo!() }
    /// Parses 64 hex digits, optional `0x`, surrounding whitespace ignored.
    pub fn from_hex(s: &str) -> Result<Self, KeyError> { todo!() }
    /// A fresh key from the operating system's RNG.
    pub fn random() -> Self { todo!() }
    pub fn to_bytes(&self) -> [u8; 32] { todo!() }
    /// `0x`-prefixed lowercase hex of the 32 secret bytes.
    pub fn to_hex(&self) -> String { todo!() }
    /// Address of this key's public key.
    pub fn address(&self) -> Address { todo!() }
    /// Signs a 32-byte prehash (RFC 6979, low-s).
    pub fn sign_prehash(&self, hash: &H256) -> Signature { todo!() }
    /// The deterministic development key number `index` (derived from a fixed, public dev seed:
    /// keccak256("drover-dev-seed" ‖ index as u32 big-endian)). Never use on a real network.
    pub fn dev(index: u32) -> Self { todo!() }
}

/// Address of an uncompressed public key (last 20 bytes of keccak256 of the 64-byte X‖Y).
pub fn address_of(key: &k256::ecdsa::VerifyingKey) -> Address { todo!() }
