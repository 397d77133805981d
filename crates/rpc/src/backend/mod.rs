//! What the HTTP layer needs from a running node.
//!
//! The router is generic over [`Backend`] so the HTTP layer depends only on `drover-types`;
//! `drover-node` implements it over the real chain (mempool, QMDB, indexes, marshal). Reads see
//! the latest finalized state. Every method is cheap to call concurrently.
//!
//! One narrow trait per endpoint family, in its own module with the family's mock beside it
//! (`<family>/mock.rs`, for the router's tests); [`Backend`] is their sum, implemented for any
//! type that implements every family (a blanket impl), so the node implements each family in
//! a module of its own and a new family is one more bound here.

pub mod accounts;
pub mod actors;
pub mod chain;
pub mod entitlements;
pub mod faucet;
pub mod governance;
pub mod history;
pub mod jobs;
pub mod library;
pub mod proofs;
pub mod runners;
pub mod secrets;
pub mod simulation;
pub mod state_sync;
pub mod storage;
pub mod tokens;
pub mod transactions;

pub use accounts::AccountBackend;
pub use actors::ActorBackend;
pub use actors::ActorCall;
pub use chain::ChainBackend;
pub use chain::ChainHealth;
pub use entitlements::EntitlementBackend;
pub use faucet::FaucetBackend;
pub use faucet::FaucetSettings;
pub use governance::GovernanceBackend;
pub use history::EventQuery;
pub use history::HistoryBackend;
pub use jobs::JobBackend;
pub use library::LibraryBackend;
pub use proofs::ProofBackend;
pub use proofs::StateQuery;
pub use runners::RunnerBackend;
pub use secrets::SecretBackend;
pub use simulation::Simulated;
pub use simulation::SimulationBackend;
pub use simulation::UnsignedTx;
pub use state_sync::OperationsRequest;
pub use state_sync::StateSyncBackend;
pub use storage::RelayFilter;
pub use storage::StorageBackend;
pub use tokens::TokenBackend;
pub use transactions::IncludedTransaction;
pub use transactions::TransactionBackend;

/// Everything the HTTP API reads from or hands to the node: every family's trait. Backends are
/// handles, cheap to clone.
pub trait Backend:
    ChainBackend
    + TransactionBackend
    + AccountBackend
    + ActorBackend
    + TokenBackend
    + EntitlementBackend
    + RunnerBackend
    + JobBackend
    + LibraryBackend
    + SecretBackend
    + GovernanceBackend
    + StorageBackend
    + FaucetBackend
    + StateSyncBackend
    + ProofBackend
    + HistoryBackend
    + SimulationBackend
    + Clone
    + 'static
{
}

impl<T> Backend for T where
    T: ChainBackend
        + TransactionBackend
        + AccountBackend
        + ActorBackend
        + TokenBackend
        + EntitlementBackend
        + RunnerBackend
        + JobBackend
        + LibraryBackend
        + SecretBackend
        + GovernanceBackend
        + StorageBackend
        + FaucetBackend
        + StateSyncBackend
        + ProofBackend
        + HistoryBackend
        + SimulationBackend
        + Clone
        + 'static
{
}
