//! The chain as a whole for the API: identity, the tip, finalized blocks from marshal, basefees,
//! health figures and the node's metrics.

use super::{NodeHandle, records};
use ::tokio::sync::watch;
use commonware_codec::Encode as _;
use commonware_consensus::{marshal::Identifier, types::Height};
use commonware_cryptography::{Digestible as _, sha256};
use commonware_runtime::Metrics as _;
use drover_rpc::backend::{ChainBackend, ChainHealth};
use drover_types::{
    Basefees, BlockSelector,
    api::{BlockInfo, ChainInfo},
    error::ApiError,
};

impl ChainBackend for NodeHandle {
    fn chain_info(&self) -> ChainInfo {
        self.0.chain_info.clone()
    }

    fn height(&self) -> u64 {
        self.0.chain.tip().height
    }

    fn finalized_heights(&self) -> watch::Receiver<u64> {
        self.0.chain.subscribe_heights()
    }

    async fn block(&self, selector: BlockSelector) -> Result<Option<BlockInfo>, ApiError> {
        let identifier = match selector {
            BlockSelector::Latest => Identifier::Height(Height::new(self.height())),
            BlockSelector::Height(h) => Identifier::Height(Height::new(h)),
            BlockSelector::Hash(h) => Identifier::Digest(sha256::Digest::from(h.0)),
        };
        let Some(block) = self.0.marshal.get_block(identifier).await else {
            return Ok(None);
        };
        // Marshal may hold a block a moment before the node has indexed it (its receipts,
        // logs, the tip): a block is served once everything about it can be read.
        if block.inner().height.get() > self.height() {
            return Ok(None);
        }
        let finalization = if block.inner().height.get() == 0 {
            None
        } else {
            self.0.marshal.get_finalization(block.inner().height).await.map(|f| hex::encode(f.encode()))
        };
        Ok(Some(records::block_info(block.inner(), block.digest(), finalization)))
    }

    fn basefees(&self) -> Basefees {
        self.0.chain.tip().next_basefees
    }

    fn health(&self) -> ChainHealth {
        let tip = self.0.chain.tip();
        ChainHealth {
            block_height: tip.height,
            last_block_timestamp: tip.timestamp_ms / 1000,
            mempool_transaction_count: self.0.chain.mempool.len(),
            mempool_account_count: self.0.chain.mempool.sender_count(),
            storage_ok: self.0.chain.storage_ok(),
        }
    }

    fn metrics(&self) -> String {
        self.0.metrics.encode()
    }
}
