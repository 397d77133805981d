//! Why a transaction was not admitted to a node's pool, as a type.
//!
//! Admission refuses for one of three reasons, and whoever asked may need to tell them apart:
//! the transaction breaks the validity rule ([`crate::validity`]: it is bad, whoever sent it),
//! the pool's policy turns it away (already pending, too far ahead, a replacement that pays too
//! little, a full pool: it may be fine elsewhere or later), or the node cannot decide now (a
//! state read failed). Gossip counts a peer's invalid transactions apart from a full pool; the
//! HTTP edge turns each into the API's code (`drover_rpc::error`), the only place codes are
//! chosen.

use crate::validity::Rejection;

/// Why the pool turned a (valid) transaction away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolRefusalKind {
    /// The same transaction is already pending.
    AlreadyKnown,
    /// The nonce is below the sender's next nonce counting what the pool already holds.
    NonceUsed,
    /// The nonce is further ahead of the sender's pending run than the pool queues.
    NonceGap,
    /// The balance cannot cover this transaction together with the sender's other pending ones.
    Reserved,
    /// A pending transaction with this nonce pays at least as much.
    ReplacementUnderpriced,
    /// The sender holds as many pending transactions as the pool keeps per sender.
    SenderFull,
    /// The pool is full and holds nothing cheaper to evict.
    PoolFull,
    /// The pool's indexes disagree (an internal fault, never expected): retry.
    Inconsistent,
}

/// A refusal by the pool's policy, with what happened in this instance.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PoolRefusal {
    /// Which policy refused it.
    pub kind: PoolRefusalKind,
    /// What happened in this instance.
    pub message: String,
}

impl PoolRefusal {
    /// A refusal of `kind` with this instance's `message`.
    pub fn new(kind: PoolRefusalKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}

/// Why a transaction was not admitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdmissionError {
    /// It breaks the validity rule.
    #[error(transparent)]
    Invalid(#[from] Rejection),
    /// The pool's policy turned it away.
    #[error(transparent)]
    Pool(#[from] PoolRefusal),
    /// The node could not decide now (its state could not be read): the sender may retry.
    #[error("{0}")]
    Unavailable(String),
}
