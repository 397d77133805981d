//! The chain as a whole for the API: identity, the tip, finalized blocks, basefees, health
//! figures and the node's metrics.
//!
//! A finalized block is read from the indexes, which keep its header, transaction hashes and
//! certificate (written at commit, `crate::certificates`), on a blocking thread: never through
//! marshal's actor, whose loop also stores finalizations and hands blocks to the application,
//! so reads would queue in front of block commit. Marshal is asked only for what the indexes
//! do not hold: the genesis block, blocks recorded before they kept headers, and the
//! certificate of a block replayed from a peer's backfill.

use super::{NodeHandle, records};
use crate::{
    block::Block,
    error::NodeError,
    indexes::{IndexError, Indexes, StoredBlock},
};
use ::tokio::sync::watch;
use commonware_codec::Encode as _;
use commonware_consensus::{marshal::Identifier, types::Height};
use commonware_cryptography::{Digestible as _, sha256};
use commonware_runtime::Metrics as _;
use drover_rpc::backend::{ChainBackend, ChainHealth};
use drover_types::{
    Basefees, BlockSelector, H256,
    api::{BlockInfo, ChainInfo},
    error::ApiError,
};

impl NodeHandle {
    /// The API record of a block the indexes hold, its certificate asked of marshal only when
    /// the indexes have none.
    async fn stored_block_info(&self, stored: StoredBlock) -> Result<BlockInfo, ApiError> {
        let mut info = info_of_stored(stored)?;
        if info.finalization.is_none() {
            info.finalization =
                self.0.marshal.get_finalization(Height::new(info.height)).await.map(|f| hex::encode(f.encode()));
        }
        Ok(info)
    }
}

/// The API record of a block the indexes hold, with the certificate they hold (if any).
fn info_of_stored(stored: StoredBlock) -> Result<BlockInfo, NodeError> {
    let header = Block::decode_header(&stored.header)
        .map_err(|e| NodeError::Inconsistent(format!("the stored header of block {}: {e}", stored.height)))?;
    let finalization = stored.finalization.map(hex::encode);
    Ok(records::block_info(&header, header.digest(), stored.transactions, finalization))
}

/// What the indexes say of the block a selector names.
enum Indexed {
    Held(StoredBlock),
    /// Above the tip: indexed a moment before the tip says so, the block is served once
    /// everything about it (its receipts, logs, the tip) can be read.
    AboveTip,
    /// Not held here: marshal may hold it.
    Elsewhere,
    /// No finalized block: the indexes hold every block from their first header on, and
    /// marshal is not asked (a lookup of any hash or height a client makes up would otherwise
    /// be one more request in marshal's loop, between the commit's steps).
    Unknown,
}

fn indexed_block(indexes: &Indexes, selector: BlockSelector, tip: u64, genesis: &H256) -> Result<Indexed, IndexError> {
    // Marshal holds what the indexes do not: blocks below their first header (genesis among them).
    let below_indexes = |height: Option<u64>| -> Result<Indexed, IndexError> {
        let marshal_may_hold = match (indexes.first_header_height()?, height) {
            (None, _) => true,
            (Some(first), Some(height)) => height < first,
            (Some(first), None) => first > 1,
        };
        Ok(if marshal_may_hold { Indexed::Elsewhere } else { Indexed::Unknown })
    };
    let height = match selector {
        BlockSelector::Latest => tip,
        BlockSelector::Height(height) => height,
        BlockSelector::Hash(hash) if hash == *genesis => return Ok(Indexed::Elsewhere),
        BlockSelector::Hash(hash) => match indexes.block_height(&hash)? {
            Some(height) => height,
            None => return below_indexes(None),
        },
    };
    if height > tip {
        return Ok(Indexed::AboveTip);
    }
    match indexes.stored_block(height)? {
        Some(stored) => Ok(Indexed::Held(stored)),
        None => below_indexes(Some(height)),
    }
}

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
        let (tip, genesis) = (self.height(), self.0.chain_info.genesis_hash);
        match self.read_indexes(move |indexes| indexed_block(indexes, selector, tip, &genesis)).await? {
            Indexed::Held(stored) => return self.stored_block_info(stored).await.map(Some),
            Indexed::AboveTip | Indexed::Unknown => return Ok(None),
            Indexed::Elsewhere => {}
        }
        let identifier = match selector {
            BlockSelector::Latest => Identifier::Height(Height::new(tip)),
            BlockSelector::Height(h) => Identifier::Height(Height::new(h)),
            BlockSelector::Hash(h) => Identifier::Digest(sha256::Digest::from(h.0)),
        };
        let Some(block) = self.0.marshal.get_block(identifier).await else {
            return Ok(None);
        };
        if block.inner().height.get() > self.height() {
            return Ok(None);
        }
        let finalization = if block.inner().height.get() == 0 {
            None
        } else {
            self.0.marshal.get_finalization(block.inner().height).await.map(|f| hex::encode(f.encode()))
        };
        let transactions = block.inner().transactions.iter().map(|t| drover_types::keccak256(t)).collect();
        Ok(Some(records::block_info(block.inner(), block.digest(), transactions, finalization)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        block::to_h256,
        indexes::{BlockEntries, BlockHeader, tests::transaction},
    };
    use commonware_cryptography::Signer as _;
    use commonware_storage::mmr::Location;
    use drover_types::{Address, H256, VerifiedTransaction};

    /// A finalized block at `height` holding `transactions`, recorded as `capture` records it.
    fn record(indexes: &Indexes, height: u64, transactions: &[VerifiedTransaction], finalization: &[u8]) -> Block {
        let mut block = Block::genesis(
            commonware_cryptography::ed25519::PrivateKey::from_seed(0).public_key(),
            sha256::Digest::from([0; 32]),
            1_000 * height,
            sha256::Digest::from([0x5a; 32]),
            commonware_utils::non_empty_range!(Location::new(3), Location::new(9)),
        );
        block.height = Height::new(height);
        block.parent = sha256::Digest::from([height as u8; 32]);
        block.proposer = Address([0x77; 20]);
        block.transactions = transactions.iter().map(|tx| tx.encoded.clone()).collect();
        block.cycles_used = 21_000 * transactions.len() as u64;
        block.basefee_cycle = u128::from(u64::MAX) + 3;
        indexes
            .record(BlockEntries {
                height,
                timestamp_ms: block.timestamp_ms,
                transactions,
                receipts: &[],
                credits: &[],
                system_runs: &[],
                header: BlockHeader {
                    hash: to_h256(&block.digest()),
                    parent: to_h256(&block.parent),
                    proposer: block.proposer,
                    view: block.context.round.view().get(),
                    state_root: to_h256(&block.state_root),
                    cycles_used: block.cycles_used,
                    cells_used: block.cells_used,
                    basefee_cycle: block.basefee_cycle,
                    basefee_cell: block.basefee_cell,
                },
                header_bytes: &block.header_bytes(),
                receipt_leaves: &[],
                finalization: Some(finalization),
            })
            .unwrap();
        block
    }

    const GENESIS: H256 = H256([0x6e; 32]);

    /// `/block/{selector}` answers a block recorded at commit from the indexes alone (nothing
    /// here can reach marshal), and answers what marshal's copy of the block would.
    #[test]
    fn a_recorded_block_is_answered_from_the_indexes_as_marshal_would() {
        let dir = tempfile::tempdir().unwrap();
        let indexes = Indexes::open(dir.path()).unwrap();
        let transactions = [transaction(0), transaction(1)];
        let block = record(&indexes, 7, &transactions, b"certificate of 7");
        record(&indexes, 8, &[], b"certificate of 8");
        let tip = 7;

        let from_marshal = records::block_info(
            &block,
            block.digest(),
            block.transactions.iter().map(|tx| drover_types::keccak256(tx)).collect(),
            Some(hex::encode(b"certificate of 7")),
        );
        for selector in [BlockSelector::Height(7), BlockSelector::Latest, BlockSelector::Hash(to_h256(&block.digest()))]
        {
            let Indexed::Held(stored) = indexed_block(&indexes, selector, tip, &GENESIS).unwrap() else {
                panic!("block 7 is held by the indexes");
            };
            assert_eq!(info_of_stored(stored).unwrap(), from_marshal);
        }
        // Recorded, not yet published as the tip: not served, and marshal is not asked either.
        assert!(matches!(indexed_block(&indexes, BlockSelector::Height(8), tip, &GENESIS).unwrap(), Indexed::AboveTip));
        assert!(matches!(
            indexed_block(&indexes, BlockSelector::Height(900), tip, &GENESIS).unwrap(),
            Indexed::AboveTip
        ));
        // What the indexes never recorded (genesis, blocks from before they kept headers).
        assert!(matches!(
            indexed_block(&indexes, BlockSelector::Height(6), tip, &GENESIS).unwrap(),
            Indexed::Elsewhere
        ));
        let unknown = BlockSelector::Hash(H256([0xee; 32]));
        assert!(matches!(indexed_block(&indexes, unknown, tip, &GENESIS).unwrap(), Indexed::Elsewhere));
    }

    /// With every block since the first recorded, a hash or height the indexes do not know is
    /// no finalized block: marshal is asked only for the genesis block.
    #[test]
    fn a_block_the_indexes_would_hold_is_not_asked_of_marshal() {
        let dir = tempfile::tempdir().unwrap();
        let indexes = Indexes::open(dir.path()).unwrap();
        record(&indexes, 1, &[], b"certificate of 1");
        record(&indexes, 2, &[], b"certificate of 2");
        let lookup = |selector| indexed_block(&indexes, selector, 2, &GENESIS).unwrap();
        assert!(matches!(lookup(BlockSelector::Hash(H256([0xee; 32]))), Indexed::Unknown));
        assert!(matches!(lookup(BlockSelector::Hash(GENESIS)), Indexed::Elsewhere));
        assert!(matches!(lookup(BlockSelector::Height(0)), Indexed::Elsewhere));
        assert!(matches!(lookup(BlockSelector::Height(2)), Indexed::Held(_)));
    }
}
