//! Protocol types shared by every Drover crate.
//!
//! Everything that is signed, hashed or sent over the wire is defined here: addresses and hashes,
//! the canonical CBOR rules (RFC 8949 §4.2.1 core deterministic encoding, strictly enforced on
//! decode), the 13-element transaction array and its submission envelope, secp256k1 keys with
//! Ethereum-compatible addresses, the meaning of payloads (messages and deploys), receipts and
//! events, the registries of API error codes (1000–9000) and execution error codes (E-codes), and
//! the protocol numbers several crates share ([`params`]).
//! `docs/protocol.md` describes every wire format with test vectors.
//!
//! Invariant: every value has exactly one encoding. Decoders reject anything a canonical encoder
//! would not have produced, so a transaction has one byte string and therefore one hash.

pub mod address;
pub mod admission;
pub mod api;
pub mod args;
pub mod basefees;
pub mod block_selector;
pub mod cbor;
pub mod chain_params;
pub mod error;
pub mod event;
pub mod exec_error;
pub mod governance;
pub mod hash;
pub mod hexfmt;
pub mod job;
pub mod keys;
pub mod library;
pub mod params;
pub mod payload;
pub mod receipt;
pub mod runner;
pub mod secrets;
pub mod signature;
pub mod storage;
pub mod submission;
pub mod system_actors;
pub mod system_call;
pub mod token;
pub mod transaction;
pub mod validity;

pub use address::Address;
pub use basefees::Basefees;
pub use block_selector::BlockSelector;
pub use error::ErrorCode;
pub use event::Event;
pub use exec_error::ExecError;
pub use hash::{H256, keccak256};
pub use keys::SecretKey;
pub use receipt::{FeeBreakdown, Receipt, TxStatus};
pub use transaction::{Signature, Transaction, VerifiedTransaction};
