//! 32-byte hashes (keccak256) used for transaction hashes, signing hashes and code hashes.
//! Text form is `0x`-prefixed lowercase hex; serde uses it.

use sha3::{Digest, Keccak256};

/// A 32-byte hash, written as `0x` and 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct H256(pub [u8; 32]);

/// Why a string is not a 32-byte hash.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid hash: expected 32 bytes of hex (64 hex digits, optional 0x prefix)")]
pub struct HashParseError;

impl H256 {
    /// The all-zero hash.
    pub const ZERO: H256 = H256([0; 32]);
    /// Its length in bytes.
    pub const LEN: usize = 32;
}

crate::hexfmt::fixed_bytes_text!(H256, 32, HashParseError);

/// keccak256 of `data`.
pub fn keccak256(data: &[u8]) -> H256 {
    H256(Keccak256::digest(data).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keccak_of_empty_input() {
        assert_eq!(keccak256(b"").to_string(), "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    }
}
