//! The block being executed, as its header gives it: what every part of the executor (the
//! block's phases, the actor host, the native system actors) reads of the block it runs in.
//!
//! Its own module so that those parts import it downwards rather than from `block`, which
//! drives them.

use drover_types::{Address, H256};

/// The block being executed, as its header gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEnv {
    /// This network's chain id; transactions for another are refused.
    pub chain_id: u64,
    /// Height of the block.
    pub height: u64,
    /// The block's timestamp, Unix milliseconds (what handlers see).
    pub timestamp_ms: u64,
    /// Receives the tips of the block's transactions.
    pub proposer: Address,
    /// Digest of the parent block: unknown before the parent is final, so it seeds what must
    /// not be steered by a transaction's sender (the assignment of runners to jobs).
    pub parent: H256,
}
