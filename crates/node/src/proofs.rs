//! Proofs for light clients: state records against a finalized block's `state_root`, and
//! transactions and receipts against its `transactions_root` and `receipts_root`. Each proof
//! carries the encoded block header and its finalization certificate (formats: `docs/proofs.md`).
//!
//! **Pairing the state with its block.** QMDB `current` proves against its *current* root
//! only, and the database advances while the API reads it: glue applies a finalized block's
//! batch before the chain publishes that block as the tip. So proofs are taken under one read
//! lock together with the root they verify against, and only then paired with the finalized
//! block whose `state_root` equals that root (the tip, or the block just above or below it
//! while the tip is being published). When none matches, the state moved on between the two
//! reads: the whole batch is taken again, at most [`PAIRING_ATTEMPTS_MAX`] times. All state
//! proofs of one call prove the same block, which is what `/proof/multi` relies on.
//!
//! Historical state is not provable: `current` has no key-value proofs against an older root.
//! A `height` other than the paired block's is refused with 1002 (see `docs/proofs.md`).
//!
//! The last paired block is cached by state root, so proofs between two blocks cost only the
//! database reads.
//!
//! **Blocks and certificates come from the indexes**, which keep each finalized block's header,
//! transaction hashes, receipts-tree leaves and certificate (written at commit, in the block's
//! index batch; `crate::certificates`), read on a blocking thread. Marshal's actor also stores
//! finalizations and hands blocks to the application, so a read through it queues in front of
//! block commit; it is asked only for what the indexes lack (blocks recorded before they kept
//! headers and leaves, the certificate of a block replayed from a peer's backfill). A receipt's
//! proof reads its block's leaves and the one receipt (two reads), and checks that receipt's
//! leaf against them; a block recorded without leaves is proven the old way, from every
//! receipt of the block.

use crate::error::NodeError;
use crate::{
    application::Scheme,
    block::{Block, to_h256},
    chain::ChainShared,
    databases::Databases,
    index_reads::read_indexes,
    indexes::StoredBlock,
};
use commonware_codec::Encode as _;
use commonware_consensus::{
    marshal::{Identifier, core::Mailbox, standard::Standard},
    types::Height,
};
use commonware_cryptography::{Digestible as _, sha256};
use commonware_runtime::tokio;
use drover_block::proof::{inclusion_proof as bmt_proof, receipt_leaf};
use drover_rpc::backend::StateQuery;
use drover_types::{
    ErrorCode, H256,
    api::{InclusionProofInfo, InclusionProofKind, StateProofInfo, StateProofKind},
    error::ApiError,
    keccak256,
};
use parking_lot::Mutex;
use std::{sync::Arc, time::Duration};

/// Times a batch of state proofs is taken before giving up on pairing its root with a block.
pub(crate) const PAIRING_ATTEMPTS_MAX: u32 = 50;
/// Wait between two pairing attempts, in milliseconds (a block is applied and published within
/// a few milliseconds).
pub(crate) const PAIRING_RETRY_MS: u64 = 5;
/// Finalized blocks below the tip whose post-state a root is looked for in.
pub(crate) const PAIRING_DEPTH_BLOCKS: u64 = 8;

type Marshal = Mailbox<Scheme, Standard<Block>>;

/// A finalized block as proofs carry it.
pub(crate) struct CertifiedBlock {
    pub(crate) height: u64,
    pub(crate) timestamp_ms: u64,
    digest: sha256::Digest,
    state_root: sha256::Digest,
    /// The header bytes the digest is taken over.
    header: Vec<u8>,
    finalization: String,
}

/// A finalized block's header and transaction hashes, and its certificate if held.
struct HeldBlock {
    /// The header, decoded (its `transactions` are empty).
    header: Block,
    header_bytes: Vec<u8>,
    transactions: Vec<H256>,
    finalization: Option<Vec<u8>>,
}

/// What the indexes hold for an inclusion proof of one transaction.
struct Located {
    height: u64,
    index: u32,
    /// The transaction's canonical encoding (its leaf is the hash of it).
    transaction: Vec<u8>,
    block: Option<StoredBlock>,
    /// For a receipt proof.
    receipt: Option<StoredReceipt>,
}

/// A receipt as the indexes hold it, with its block's receipts-tree leaves.
struct StoredReceipt {
    /// `None` for a block recorded before the indexes kept them.
    leaves: Option<Vec<[u8; 32]>>,
    /// The receipt's canonical encoding.
    encoded: Option<Vec<u8>>,
}

/// Builds proofs from the state database and the indexes (marshal's block archive for what
/// they lack).
pub(crate) struct Prover {
    chain: Arc<ChainShared>,
    marshal: Marshal,
    databases: Databases<tokio::Context>,
    /// The block the state root was last paired with.
    last: Mutex<Option<Arc<CertifiedBlock>>>,
}

impl Prover {
    pub(crate) fn new(chain: Arc<ChainShared>, marshal: Marshal, databases: Databases<tokio::Context>) -> Self {
        Self { chain, marshal, databases, last: Mutex::new(None) }
    }

    /// The block at `height` as the indexes hold it (`stored`), or else as marshal does; the
    /// certificate asked of marshal only if the indexes have none. `None` if the block is not held.
    async fn held(&self, height: u64, stored: Option<StoredBlock>) -> Result<Option<HeldBlock>, ApiError> {
        let (header_bytes, transactions, finalization) = match stored {
            Some(stored) => (stored.header, stored.transactions, stored.finalization),
            None => {
                let Some(block) = self.marshal.get_block(Identifier::Height(Height::new(height))).await else {
                    return Ok(None);
                };
                let transactions = block.inner().transactions.iter().map(|tx| keccak256(tx)).collect();
                (block.inner().header_bytes(), transactions, None)
            }
        };
        let header = Block::decode_header(&header_bytes)
            .map_err(|e| NodeError::Inconsistent(format!("the header of block {height}: {e}")))?;
        let finalization = match finalization {
            Some(encoded) => Some(encoded),
            None => self.marshal.get_finalization(Height::new(height)).await.map(|f| f.encode().to_vec()),
        };
        Ok(Some(HeldBlock { header, header_bytes, transactions, finalization }))
    }

    /// The finalized block at `height` with its certificate (`None` if either is not held).
    async fn certified(&self, height: u64) -> Result<Option<CertifiedBlock>, ApiError> {
        let stored = read_indexes(&self.chain, move |indexes| indexes.stored_block(height)).await?;
        let Some(held) = self.held(height, stored).await? else {
            return Ok(None);
        };
        let Some(finalization) = held.finalization else {
            return Ok(None);
        };
        Ok(Some(CertifiedBlock {
            height,
            timestamp_ms: held.header.timestamp_ms,
            digest: held.header.digest(),
            state_root: held.header.state_root,
            header: held.header_bytes,
            finalization: hex::encode(finalization),
        }))
    }

    /// The finalized block whose post-state root is `root`, if it is the tip, the block after
    /// it, or one of the [`PAIRING_DEPTH_BLOCKS`] before it.
    pub(crate) async fn block_with_root(&self, root: &sha256::Digest) -> Result<Option<Arc<CertifiedBlock>>, ApiError> {
        let last = self.last.lock().clone();
        if let Some(last) = last
            && last.state_root == *root
        {
            return Ok(Some(last));
        }
        let tip = self.chain.tip().height;
        // The database is applied before the tip is published, so it may be one block ahead;
        // a state read a moment ago may be a few blocks behind on a busy node.
        let heights: Vec<u64> = [tip, tip.saturating_add(1)]
            .into_iter()
            .chain((1..=PAIRING_DEPTH_BLOCKS).map(|back| tip.saturating_sub(back)))
            .filter(|height| *height > 0)
            .collect();
        // The candidates' headers in one read; only the block whose root matches (or one the
        // indexes hold no header of) is read whole, with its certificate.
        let candidates = heights.clone();
        let headers = read_indexes(&self.chain, move |indexes| {
            candidates.iter().map(|height| indexes.header(*height)).collect::<Result<Vec<_>, _>>()
        })
        .await?;
        for (height, header) in heights.into_iter().zip(headers) {
            if let Some(bytes) = header {
                let header = Block::decode_header(&bytes)
                    .map_err(|e| NodeError::Inconsistent(format!("the header of block {height}: {e}")))?;
                if header.state_root != *root {
                    continue;
                }
            }
            if let Some(block) = self.certified(height).await?
                && block.state_root == *root
            {
                let block = Arc::new(block);
                *self.last.lock() = Some(block.clone());
                return Ok(Some(block));
            }
        }
        Ok(None)
    }

    /// Proofs of `queries`, in order, against one finalized block's post-state.
    pub(crate) async fn state_proofs(
        &self,
        queries: Vec<StateQuery>,
        height: Option<u64>,
    ) -> Result<Vec<StateProofInfo>, ApiError> {
        if self.chain.tip().height == 0 {
            return Err(ApiError::new(ErrorCode::NotFound, "no block finalized yet: there is no state to prove"));
        }
        let keys: Vec<Vec<u8>> = queries.iter().map(state_key).collect();
        for _ in 0..PAIRING_ATTEMPTS_MAX {
            let (root, proven) = self.prove_keys(&keys).await?;
            let Some(block) = self.block_with_root(&root).await? else {
                ::tokio::time::sleep(Duration::from_millis(PAIRING_RETRY_MS)).await;
                continue;
            };
            if let Some(asked) = height
                && asked != block.height
            {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!(
                        "the state at height {asked} cannot be proven: proofs are served for the latest \
                         finalized state only (now height {})",
                        block.height
                    ),
                ));
            }
            return Ok(queries
                .into_iter()
                .zip(keys)
                .zip(proven)
                .map(|((query, key), (value, proof))| {
                    let (kind, address, storage_key) = match query {
                        StateQuery::Account(address) => (StateProofKind::Account, address, None),
                        StateQuery::Actor(address) => (StateProofKind::Actor, address, None),
                        StateQuery::Storage(address, slot) => (StateProofKind::Storage, address, Some(slot)),
                    };
                    StateProofInfo {
                        kind,
                        address,
                        storage_key,
                        key,
                        value,
                        proof,
                        height: block.height,
                        block_hash: to_h256(&block.digest),
                        state_root: to_h256(&block.state_root),
                        header: block.header.clone(),
                        finalization: block.finalization.clone(),
                    }
                })
                .collect());
        }
        Err(NodeError::unfinished("the state kept advancing while it was being proven").into())
    }

    /// Values and encoded proofs of `keys`, with the root they prove against, under one read lock.
    async fn prove_keys(
        &self,
        keys: &[Vec<u8>],
    ) -> Result<(sha256::Digest, Vec<(Option<Vec<u8>>, Vec<u8>)>), ApiError> {
        let db = self.databases.read().await;
        let root = db.root();
        let mut proven = Vec::with_capacity(keys.len());
        for key in keys {
            let value = db.get(key).await.map_err(NodeError::from)?;
            let proof = match &value {
                Some(_) => db.key_value_proof(key.clone()).await.map_err(NodeError::from)?.encode().to_vec(),
                None => db.exclusion_proof(key).await.map_err(NodeError::from)?.encode().to_vec(),
            };
            proven.push((value, proof));
        }
        Ok((root, proven))
    }

    /// Proof that transaction `hash` (or its receipt) is in its block; `None` if not included.
    pub(crate) async fn inclusion_proof(
        &self,
        kind: InclusionProofKind,
        hash: H256,
    ) -> Result<Option<InclusionProofInfo>, ApiError> {
        let located = read_indexes(&self.chain, move |indexes| {
            let Some(found) = indexes.transaction(&hash)? else {
                return Ok(None);
            };
            let receipt = match kind {
                InclusionProofKind::Tx => None,
                InclusionProofKind::Receipt => Some(StoredReceipt {
                    leaves: indexes.receipt_leaves(found.height)?,
                    encoded: indexes.receipt_bytes(&hash)?,
                }),
            };
            let block = indexes.stored_block(found.height)?;
            Ok(Some(Located {
                height: found.height,
                index: found.index,
                transaction: found.tx.encoded,
                block,
                receipt,
            }))
        })
        .await?;
        let Some(Located { height, index, transaction, block, receipt }) = located else {
            return Ok(None);
        };
        let Some(block) = self.held(height, block).await? else {
            return Err(ApiError::new(ErrorCode::NotFound, format!("block {height} is no longer held by this node")));
        };
        let Some(finalization) = block.finalization else {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("this node holds no finalization certificate of block {height}"),
            ));
        };
        let hashes = block.transactions;
        let position = usize::try_from(index).map_err(NodeError::unfinished)?;
        if hashes.get(position) != Some(&hash) {
            return Err(NodeError::Inconsistent(format!(
                "index says transaction {hash} is #{index} of block {height}, the block disagrees"
            ))
            .into());
        }
        let missing = |what: &H256| NodeError::missing(format!("the receipt of {what} in block {height}"));
        let (leaves, encoded, root) = match receipt {
            None => (hashes.iter().map(|h| h.0).collect::<Vec<_>>(), transaction, block.header.transactions_root),
            Some(StoredReceipt { leaves: Some(leaves), encoded }) => {
                let encoded = encoded.ok_or_else(|| missing(&hash))?;
                if leaves.len() != hashes.len() || leaves[position] != receipt_leaf(&encoded) {
                    return Err(NodeError::Inconsistent(format!(
                        "the stored receipts tree of block {height} disagrees with the receipt of {hash}"
                    ))
                    .into());
                }
                (leaves, encoded, block.header.receipts_root)
            }
            // Recorded before the indexes kept leaves: every receipt of the block, hashed.
            Some(StoredReceipt { leaves: None, .. }) => {
                let wanted = hashes.clone();
                let read = read_indexes(&self.chain, move |indexes| {
                    wanted.iter().map(|tx| indexes.receipt_bytes(tx)).collect::<Result<Vec<_>, _>>()
                })
                .await?;
                let mut encoded_receipts = read
                    .into_iter()
                    .zip(&hashes)
                    .map(|(r, tx)| r.ok_or_else(|| missing(tx)))
                    .collect::<Result<Vec<_>, _>>()?;
                let leaves = encoded_receipts.iter().map(|r| receipt_leaf(r)).collect();
                (leaves, encoded_receipts.swap_remove(position), block.header.receipts_root)
            }
        };
        // Hashing a full block's tree takes milliseconds, and `POST /proof/multi` asks for many:
        // on a blocking thread, like the reads, not on one of the API's few async workers.
        let proof = ::tokio::task::spawn_blocking(move || bmt_proof(&leaves, index))
            .await
            .map_err(|e| NodeError::unfinished(format!("a proof did not finish: {e}")))?
            .map_err(NodeError::unfinished)?;
        Ok(Some(InclusionProofInfo {
            kind,
            tx_hash: hash,
            height,
            index,
            encoded,
            proof,
            block_hash: to_h256(&block.header.digest()),
            root: to_h256(&root),
            header: block.header_bytes,
            finalization: hex::encode(finalization),
        }))
    }
}

/// The state key a query names (schema: `drover_state::keys`).
pub(crate) fn state_key(query: &StateQuery) -> Vec<u8> {
    use drover_state::keys;
    match query {
        StateQuery::Account(address) => keys::account_key(address),
        StateQuery::Actor(address) => keys::actor_key(address),
        StateQuery::Storage(address, slot) => keys::storage_key(address, slot),
    }
}
