//! Drover Rust SDK: a typed client of a node's HTTP API, wallets, and a transaction builder.
//!
//! - [`Client`] has one async method per endpoint and answers the JSON records of
//!   [`drover_types::api`], the very types the node serializes, so both sides agree on every
//!   field. Refusals decode into [`ClientError::Api`] with the node's code and message.
//! - [`Wallet`] holds one secp256k1 key (Ethereum-compatible key files) and signs.
//! - [`TxBuilder`] completes a transaction from the chain (chain id, nonce, fee suggestions,
//!   and limits from the node's simulation of it) and signs it; its building step is pure, so
//!   it works and tests without a node.
//! - [`Subscription`] reads a push stream (blocks, a transaction's outcome, events) as it
//!   comes; [`EventFilter`] selects events for a query or a stream.
//! - [`amount`] parses and prints native amounts (`1500`, `1.5drv`) exactly.
//! - [`storage_auth`] signs requests to the storage-relay routes (delegation token, session-key
//!   signature), for the node's `/ras/...` routes and for relays.
//! - [`verify`] checks the node's proofs (state, transactions, receipts) against the network's
//!   group public key alone: certificate, block digest, root, Merkle proof, value. The block
//!   codec and proof formats come from `drover-block`, which the node uses too, so both sides
//!   share one definition of every byte that is hashed or signed.
//!
//! Invariant: nothing a node sends can make the SDK panic; every malformed answer is a
//! [`ClientError::UnexpectedResponse`].

pub mod amount;
pub(crate) mod builder;
mod client;
pub(crate) mod error;
pub mod secrets;
pub mod storage_auth;
pub mod verify;
pub(crate) mod wallet;

pub use builder::{BasefeeFieldError, BuildError, EstimateError, FeeSuggestion, TxBuilder, TxContext};
pub use client::history::{EventFilter, STREAM_IDLE_SECS_MAX, StreamMessage, Subscription};
pub use client::{Client, REQUEST_TIMEOUT_SECS_DEFAULT, RESPONSE_BYTES_MAX};
pub use drover_types::block_selector::{BlockSelector, BlockSelectorParseError};
pub use error::ClientError;
pub use wallet::{Wallet, WalletError};
