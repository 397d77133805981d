//! Canonical CBOR (RFC 8949 §4.2.1 core deterministic encoding), strictly enforced.
//!
//! Rules: shortest-form integers and lengths, definite lengths only, map keys sorted by their
//! encoded bytes with no duplicates, no floats, no tags except tag 2 (unsigned bignum) for
//! integers above 2^64-1 with no leading zero bytes. [`check_canonical`] walks any item and
//! rejects violations; typed decoders call it so they can stay simple.

/// Why bytes are not an acceptable CBOR encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CborError {
    /// Not well-formed CBOR, or not the expected shape (wrong type, wrong element count, ...).
    #[error("malformed CBOR: {0}")]
    Malformed(String),
    /// Well-formed but not the canonical encoding (non-shortest int, unsorted map, indefinite length, ...).
    #[error("non-canonical CBOR: {0}")]
    NonCanonical(String),
    /// Bytes left after the item.
    #[error("trailing bytes after CBOR item")]
    Trailing,
}

/// Checks that `bytes` hold exactly one canonical CBOR item (nesting depth bounded by
/// [`MAX_DEPTH`]). Returns the item's length (== bytes.len() on success).
pub fn check_canonical(bytes: &[u8]) -> Result<(), CborError> { todo!() }

/// Maximum nesting depth accepted by the decoder (bounds recursion on hostile input).
pub const MAX_DEPTH: usize = 32;
// TODO(types): helpers to encode/decode u128 (with tag 2 above u64::MAX) on minicbor Encoder/Decoder.
