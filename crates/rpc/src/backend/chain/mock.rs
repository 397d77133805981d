//! The chain's mock: blocks from [`block`] (only the genesis block at first), basefees 7 and 3,
//! health figures and metrics text a test can set. [`ChainMock::push`] adds a block and
//! publishes its height, as finalization does.

use super::{ChainBackend, ChainHealth};
use crate::mock::{CHAIN_ID, MockBackend, block};
use drover_types::{
    Basefees, BlockSelector,
    api::{BlockInfo, ChainInfo},
    error::ApiError,
};
use tokio::sync::watch;

/// The group key `/chain-info` reports (the mock signs no certificates, so any hex serves).
pub(crate) const MOCK_IDENTITY: &str = "0x5eed";

pub(crate) struct ChainMock {
    pub chain_id: u64,
    pub blocks: Vec<BlockInfo>,
    pub basefees: Basefees,
    pub health: ChainHealth,
    pub metrics: String,
    heights: watch::Sender<u64>,
}

impl Default for ChainMock {
    fn default() -> Self {
        Self {
            chain_id: CHAIN_ID,
            blocks: vec![block(0)],
            basefees: Basefees { cycle: 7, cell: 3 },
            health: ChainHealth {
                block_height: 0,
                last_block_timestamp: 1_700_000_000,
                mempool_transaction_count: 0,
                mempool_account_count: 0,
                storage_ok: true,
            },
            metrics: "# TYPE drover_chain_height gauge\ndrover_chain_height 0\n# EOF\n".to_owned(),
            heights: watch::channel(0).0,
        }
    }
}

impl ChainMock {
    /// The latest height.
    pub(crate) fn height(&self) -> u64 {
        self.blocks.len() as u64 - 1
    }

    /// Adds the next block and publishes its height, which it answers.
    pub(crate) fn push(&mut self) -> u64 {
        let height = self.blocks.len() as u64;
        self.blocks.push(block(height));
        self.heights.send_replace(height);
        height
    }
}

impl ChainBackend for MockBackend {
    fn chain_info(&self) -> ChainInfo {
        ChainInfo {
            chain_id: self.read(|chain: &ChainMock| chain.chain_id),
            network: "drover-test".to_owned(),
            genesis_hash: block(0).hash,
            identity: MOCK_IDENTITY.to_owned(),
            version: "0.1.0-test".to_owned(),
        }
    }

    fn height(&self) -> u64 {
        self.read(ChainMock::height)
    }

    fn finalized_heights(&self) -> watch::Receiver<u64> {
        self.read(|chain: &ChainMock| chain.heights.subscribe())
    }

    async fn block(&self, selector: BlockSelector) -> Result<Option<BlockInfo>, ApiError> {
        Ok(self.read(|chain: &ChainMock| match selector {
            BlockSelector::Latest => chain.blocks.last().cloned(),
            BlockSelector::Height(height) => chain.blocks.iter().find(|b| b.height == height).cloned(),
            BlockSelector::Hash(hash) => chain.blocks.iter().find(|b| b.hash == hash).cloned(),
        }))
    }

    fn basefees(&self) -> Basefees {
        self.read(|chain: &ChainMock| chain.basefees)
    }

    fn health(&self) -> ChainHealth {
        self.read(|chain: &ChainMock| chain.health)
    }

    fn metrics(&self) -> String {
        self.read(|chain: &ChainMock| chain.metrics.clone())
    }
}
