//! What a Drover node and a light client must agree on byte for byte to check chain data
//! without trusting the node that served it.
//!
//! - [`block`]: the consensus block, its codec and digest, and the binary Merkle roots its header
//!   commits to (transactions, receipts).
//! - [`scheme`]: the threshold signing scheme of consensus, its namespace, and the check of a
//!   finalization certificate against the network's group public key (the genesis `identity`).
//! - [`proof`]: the formats of state proofs (QMDB current-state inclusion and exclusion proofs
//!   against a block's `state_root`) and of transaction and receipt inclusion proofs.
//!
//! The node depends on this crate for its block type; the SDK (`drover-client`) depends on it
//! to verify proofs. It holds no I/O and no node logic, so a light client pulls in the
//! Commonware codec, cryptography and Merkle code it needs and nothing else. `drover-types`
//! stays free of Commonware; this crate is the one place where Drover records meet it.

pub mod block;
pub mod proof;
pub mod scheme;

pub use block::{Block, BlockContext, merkle_root, receipt_leaves, receipts_root, to_h256, transactions_root};
pub use scheme::{Finalization, Identity, NAMESPACE, Scheme, ThresholdVariant};
