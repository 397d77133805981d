//! The HTTP API's view of the node: [`drover_rpc::Backend`] over the real chain.
//!
//! Reads go to the latest applied (finalized) state in QMDB, the indexes (which keep each
//! finalized block's header and certificate: marshal's block archive is read only for blocks
//! they lack, see `chain`) and the mempool; writes go to the mempool. The faucet signs ordinary transfers from
//! its funded account, serialised so concurrent requests get consecutive nonces. Proofs are
//! built by [`Prover`](crate::proofs::Prover).
//!
//! [`NodeHandle`] implements each endpoint family's trait (`drover_rpc::backend`) in the module
//! of that family's name (the storage relays' in `storage`); the shared ways of reading live in
//! `handle` (state keys, accounts), `pages` (listings and scans) and `records` (index entries
//! and blocks as API records). `drover_rpc::Backend` is then implemented by its blanket impl.

mod accounts;
mod actor_read;
mod actors;
mod chain;
mod entitlements;
mod faucet;
mod finalized_state;
mod governance;
mod handle;
mod history;
mod jobs;
mod library;
mod pages;
mod proofs;
mod records;
mod runners;
mod secrets;
mod simulation;
mod state_sync;
mod storage;
mod tokens;
mod transactions;

pub(crate) use handle::NodeHandle;
