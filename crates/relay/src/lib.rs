//! The reference storage relay as a library: what a relay stores, how it serves it, how it
//! reports it on chain, and what a client calls to use it.
//!
//! A relay keeps the objects of the storage volumes it serves on local disk ([`store`]: chunks
//! addressed by their keccak256, one manifest per volume), commits to each volume's contents with
//! a 32-byte root anyone holding the manifest can recompute ([`manifest`]), serves them over HTTP
//! to wallets that authenticate with the storage delegation token and per-request signature
//! ([`server`]), and periodically reports each changed volume's root and size on chain
//! ([`commit`]); [`sweep`] drops the bytes of volumes the chain has purged. [`client`] is what `drover storage put|get|ls|rm` calls, and [`crypt`] seals the
//! objects of private volumes on the client so the relay only ever holds ciphertext.
//!
//! The chain stays out of this crate: the server asks a [`server::Directory`] who owns a volume
//! and whether it is public, and the commit loop hands roots to a [`commit::Committer`]. The node
//! side implements both. `docs/relay.md` describes the layout, the HTTP API, the root and the
//! encryption format byte by byte.

pub mod api;
pub mod client;
pub mod commit;
pub mod crypt;
pub mod limits;
pub mod manifest;
pub mod server;
pub mod store;
pub mod sweep;

pub use client::{ClientError, RelayClient};
pub use commit::{CommitError, CommitLoop, Committer};
pub use crypt::{CryptError, VolumeKey};
pub use manifest::{EMPTY_ROOT, Manifest};
pub use server::{Directory, DirectoryError, Relay, RelayConfig, RelayError, VolumeInfo, serve};
pub use store::{Store, StoreError};
pub use sweep::{SweepReport, Sweeper};
