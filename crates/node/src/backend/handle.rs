//! The node handle the API holds: the chain, the state database, the indexes, the prover, the
//! faucet and the read pool, shared by every request.

use crate::error::NodeError;
use crate::{
    application::Scheme,
    block::{Block, to_h256},
    chain::ChainShared,
    config::FaucetConfig,
    databases::Databases,
    gossip::GossipHandle,
    indexes::{IndexError, Indexes},
    intake,
    proofs::Prover,
};
use commonware_consensus::marshal::{core::Mailbox, standard::Standard};
use commonware_cryptography::sha256;
use commonware_runtime::tokio;
use drover_execution::Vm;
use drover_state::Account;
use drover_types::{Address, api::ChainInfo, error::ApiError};
use std::sync::Arc;

pub(super) struct Inner {
    pub(super) chain: Arc<ChainShared>,
    pub(super) marshal: Mailbox<Scheme, Standard<Block>>,
    pub(super) databases: Databases<tokio::Context>,
    pub(super) metrics: Arc<tokio::Context>,
    pub(super) chain_info: ChainInfo,
    pub(super) faucet: Option<FaucetConfig>,
    pub(super) faucet_lock: ::tokio::sync::Mutex<()>,
    pub(super) gossip: Option<GossipHandle>,
    pub(super) prover: Prover,
    /// Runs read-only calls (its own module cache: reads never wait on block execution).
    pub(super) vm: Arc<Vm>,
    /// The threads read-only calls run on.
    pub(super) reads: crate::reads::ReadPool,
    /// The threads simulations run on (their own queue: simulations and reads never wait for
    /// each other).
    pub(super) simulations: crate::reads::ReadPool,
}

#[derive(Clone)]
pub(crate) struct NodeHandle(pub(super) Arc<Inner>);

impl NodeHandle {
    pub(crate) fn new(
        chain: Arc<ChainShared>,
        marshal: Mailbox<Scheme, Standard<Block>>,
        databases: Databases<tokio::Context>,
        metrics: Arc<tokio::Context>,
        genesis_digest: sha256::Digest,
        faucet: Option<FaucetConfig>,
        gossip: Option<GossipHandle>,
    ) -> Self {
        let chain_info = ChainInfo {
            chain_id: chain.genesis.chain_id(),
            network: chain.genesis.network().to_string(),
            genesis_hash: to_h256(&genesis_digest),
            identity: crate::keys::encode_hex(&chain.genesis.identity),
            version: env!("CARGO_PKG_VERSION").to_string(),
        };
        let prover = Prover::new(chain.clone(), marshal.clone(), databases.clone());
        Self(Arc::new(Inner {
            chain,
            marshal,
            databases,
            metrics,
            chain_info,
            faucet,
            faucet_lock: ::tokio::sync::Mutex::new(()),
            gossip,
            prover,
            vm: Arc::new(Vm::new()),
            reads: crate::reads::ReadPool::new(),
            simulations: crate::reads::ReadPool::new(),
        }))
    }

    /// Several keys of the latest applied state, read under one lock so they agree.
    pub(super) async fn read_keys<const N: usize>(&self, keys: [Vec<u8>; N]) -> Result<[Option<Vec<u8>>; N], ApiError> {
        let db = self.0.databases.read().await;
        let mut values = [const { None }; N];
        for (value, key) in values.iter_mut().zip(&keys) {
            let read = db.get(key).await;
            self.0.chain.record_storage(read.is_ok());
            *value = read.map_err(NodeError::from)?;
        }
        Ok(values)
    }

    /// An account in the latest applied state.
    pub(super) async fn read_account(&self, address: &Address) -> Result<Option<Account>, ApiError> {
        intake::read_account(&self.0.chain, &self.0.databases, address).await
    }
}

/// Runs `read` of the indexes on a blocking thread: a page reads up to thousands of entries,
/// each of which may come from disk, and even a point read waits while the store syncs a flush
/// or compaction (see `crate::indexes`); neither may hold one of the few async workers every
/// route and the consensus glue share. Every index read of the API goes through here.
pub(crate) async fn read_indexes<T: Send + 'static>(
    chain: &Arc<ChainShared>,
    read: impl FnOnce(&Indexes) -> Result<T, IndexError> + Send + 'static,
) -> Result<T, ApiError> {
    let chain = Arc::clone(chain);
    let answer = ::tokio::task::spawn_blocking(move || read(&chain.indexes))
        .await
        .map_err(|e| NodeError::unfinished(format!("an index read did not finish: {e}")))?;
    Ok(answer?)
}
