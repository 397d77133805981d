//! The submission envelope `{"Transactions": [tx, ...]}` (body of `POST /submit` and
//! `/submit_wait`).
//!
//! The envelope as a whole must be canonical CBOR with exactly one key `"Transactions"`
//! holding an array; otherwise it is refused whole. Each element is then decoded on its own, so
//! one malformed transaction is refused without refusing its neighbours.

use crate::{Transaction, cbor::CborError};

/// Most transactions in one submission.
pub const MAX_TRANSACTIONS_PER_SUBMISSION: usize = 50;
/// Largest submission body, in bytes (512 KB).
pub const MAX_SUBMISSION_BYTES: usize = 524_288;

/// One element of a submission: its exact bytes and the decoded transaction (or why not).
#[derive(Clone, Debug)]
pub struct SubmissionItem {
    /// The element's bytes as they stand in the envelope.
    pub raw: Vec<u8>,
    pub decoded: Result<Transaction, CborError>,
}

/// Why a whole submission is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error(transparent)]
    Cbor(#[from] CborError),
    #[error("submission holds no transaction")]
    Empty,
    #[error("submission holds {0} transactions; at most 50 are allowed")]
    TooMany(usize),
}

/// Decodes an envelope (canonical check, shape check, 1..=50 elements).
pub fn decode_submission(bytes: &[u8]) -> Result<Vec<SubmissionItem>, EnvelopeError> { todo!() }

/// Encodes transactions into an envelope.
pub fn encode_submission(txs: &[Transaction]) -> Vec<u8> { todo!() }
