//! Why stored bytes are not a valid record.

use drover_types::cbor::CborError;

/// Stored bytes are not the canonical encoding of the expected record (malformed CBOR, the wrong
/// shape, a value out of range, a non-canonical form, or trailing bytes).
///
/// Records are only ever written by the executor, so this means a corrupt database or a key read
/// as the wrong record type; callers treat it as an internal error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid record: {0}")]
pub struct RecordError(#[from] pub CborError);
