//! The Drover validator node.
//!
//! Wires Commonware's threshold Simplex, marshal and `commonware_glue::stateful` (speculative
//! QMDB batches per block, the finalized one made durable) to Drover's execution, mempool,
//! indexes and HTTP API. A single-validator devnet runs the very same engine with n = 1.
//!
//! Module map: [`config`] and [`genesis`] load and validate what an operator writes;
//! [`keys`] generates and parses validator key material; [`block`] is the consensus block
//! (defined in `drover-block`, which light clients share);
//! [`application`] is the state machine glue drives, over the state database set in
//! [`databases`]; [`chain`] is the state shared with the
//! API; `indexes` stores finalized transactions, receipts and actor logs; `backend` serves the API;
//! [`intake`] puts transactions into the mempool, from the API and from `gossip`;
//! [`fast_sync`] and `sync_source` fetch and serve state for peers that fast-sync, and
//! [`resync`] fast-syncs a node that has state but is far behind;
//! `proofs` builds the state, transaction and receipt proofs light clients verify;
//! [`engine`] assembles and runs everything.

pub(crate) mod accounts;
pub mod application;
pub(crate) mod backend;
pub(crate) mod certificates;
pub mod intake;
pub use drover_block::block;
pub mod chain;
pub mod config;
pub mod databases;
pub mod devnet;
pub mod engine;
pub(crate) mod error;
pub mod fast_sync;
pub mod genesis;
pub(crate) mod gossip;
pub(crate) mod height_file;
pub(crate) mod index_reads;
pub(crate) mod indexes;
pub mod keys;
pub(crate) mod metrics;
pub(crate) mod proofs;
pub(crate) mod reads;
pub mod resync;

pub(crate) mod sync_source;
pub(crate) mod translator;
