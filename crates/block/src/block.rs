//! The consensus block.
//!
//! A block carries its transactions (canonical encodings) and a header that commits to
//! everything a client or a syncing peer needs to check: parent digest, height, timestamp,
//! proposer (the account that received the tips), transactions root, receipts root, the meters
//! used, the basefees in force, the post-state root (QMDB canonical root) and the state-sync
//! target (ops root and the operation range `sync boundary .. op count`). It also embeds the
//! consensus context it was proposed in, as [`CertifiableBlock`] requires.
//!
//! The encoding is the header (every field but the transactions) followed by the transactions.
//! The block digest (its "hash" in the API) is the SHA-256 of the header alone, so a light
//! client checks a block's roots from a few hundred bytes instead of the whole block. The digest
//! still pins the transactions: decoding refuses a block whose transactions do not hash to its
//! `transactions_root` (genesis excepted: its root commits to the genesis document), so one digest
//! names exactly one block. Decoding is bounded: [`MAX_BLOCK_TRANSACTIONS`] and
//! [`MAX_BLOCK_BYTES`] keep a peer from making us allocate without limit.

use bytes::BufMut;
use commonware_codec::{Buf, EncodeSize, Error as CodecError, FixedSize, RangeCfg, Read, ReadExt as _, Write};
use commonware_consensus::{
    Block as ConsensusBlock, BoundedBlock, CertifiableBlock, Heightable,
    simplex::types::Context,
    types::{Epoch, Height, Round, View},
};
use commonware_cryptography::{Digest as _, Digestible, Hasher, Sha256, ed25519, sha256};
use commonware_storage::{bmt, mmr::Location};
use commonware_utils::range::NonEmptyRange;
use drover_types::{Address, H256, Receipt};

/// Consensus context embedded in every block.
pub type BlockContext = Context<sha256::Digest, ed25519::PublicKey>;

/// Most transactions in one block.
pub const MAX_BLOCK_TRANSACTIONS: usize = 16_384;
/// Largest encoded transaction accepted inside a block, in bytes.
pub const MAX_TRANSACTION_BYTES: usize = 512 * 1024;
/// Largest total of transaction bytes in one block.
pub use drover_types::params::MAX_BLOCK_BYTES;
// Decoding may never refuse a block that validity accepts.
const _: () = assert!(drover_types::params::MAX_TRANSACTIONS_PER_BLOCK <= MAX_BLOCK_TRANSACTIONS);

/// A consensus block: the header (every field but `transactions`) and the transactions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The consensus round, leader and parent view the block was proposed in.
    pub context: BlockContext,
    /// Digest of the parent block (`sha256::Digest::EMPTY` for genesis).
    pub parent: sha256::Digest,
    /// The parent's height plus one; genesis is height 0.
    pub height: Height,
    /// Unix milliseconds, strictly after the parent's (rules in `docs/protocol.md`).
    pub timestamp_ms: u64,
    /// The proposer's account, which receives the block's tips.
    pub proposer: Address,
    /// Canonical CBOR of each signed transaction, in execution order.
    pub transactions: Vec<Vec<u8>>,
    /// Binary Merkle root over the transaction hashes (see [`transactions_root()`]); for
    /// genesis, the genesis commitment.
    pub transactions_root: sha256::Digest,
    /// Binary Merkle root over the receipts (see [`receipts_root()`]).
    pub receipts_root: sha256::Digest,
    /// Cycles used by the block's system runs and transactions.
    pub cycles_used: u64,
    /// Cells (bytes written) used by the block's system runs and transactions.
    pub cells_used: u64,
    /// Basefee per cycle in force for this block, base units.
    pub basefee_cycle: u128,
    /// Basefee per cell in force for this block, base units.
    pub basefee_cell: u128,
    /// QMDB canonical root after executing this block.
    pub state_root: sha256::Digest,
    /// QMDB operations root after executing this block (state-sync target).
    pub ops_root: sha256::Digest,
    /// Operation range `sync boundary .. op count` (state-sync target).
    pub range: NonEmptyRange<Location>,
}

impl Block {
    /// Unix seconds of the block timestamp.
    pub fn timestamp_secs(&self) -> u64 {
        self.timestamp_ms / 1000
    }

    /// The genesis block: height 0, never executed. Its transactions root commits to the genesis
    /// document (the allocations stand in for transactions), so two networks with different
    /// genesis files have different genesis digests.
    pub fn genesis(
        leader: ed25519::PublicKey,
        genesis_commitment: sha256::Digest,
        timestamp_ms: u64,
        ops_root: sha256::Digest,
        range: NonEmptyRange<Location>,
    ) -> Self {
        Self {
            context: Context {
                round: Round::new(Epoch::zero(), View::zero()),
                leader,
                parent: (View::zero(), sha256::Digest::EMPTY),
            },
            parent: sha256::Digest::EMPTY,
            height: Height::zero(),
            timestamp_ms,
            proposer: Address::ZERO,
            transactions: Vec::new(),
            transactions_root: genesis_commitment,
            receipts_root: merkle_root(std::iter::empty()),
            cycles_used: 0,
            cells_used: 0,
            basefee_cycle: 0,
            basefee_cell: 0,
            state_root: sha256::Digest::EMPTY,
            ops_root,
            range,
        }
    }
}

/// Binary Merkle root (SHA-256) over 32-byte leaves; the root of no leaves is fixed.
pub fn merkle_root(leaves: impl ExactSizeIterator<Item = [u8; 32]>) -> sha256::Digest {
    let mut builder = bmt::Builder::<Sha256>::new(leaves.len());
    for leaf in leaves {
        builder.add(&sha256::Digest::from(leaf));
    }
    builder.build().root()
}

/// Transactions root: Merkle root over the transaction hashes (keccak256 of each encoding).
pub fn transactions_root(hashes: &[H256]) -> sha256::Digest {
    merkle_root(hashes.iter().map(|h| h.0))
}

/// Receipts root: Merkle root over SHA-256 of each receipt's canonical encoding.
pub fn receipts_root(receipts: &[Receipt]) -> sha256::Digest {
    merkle_root(receipt_leaves(receipts).into_iter())
}

/// The leaves of the receipts tree, in block order: what [`receipts_root`] is built from and
/// what a receipt's inclusion proof is taken over (`proof::inclusion_proof`).
pub fn receipt_leaves(receipts: &[Receipt]) -> Vec<[u8; 32]> {
    receipts.iter().map(|r| crate::proof::receipt_leaf(&r.encode())).collect()
}

/// Converts a SHA-256 digest to the API's 32-byte hash type.
pub fn to_h256(digest: &sha256::Digest) -> H256 {
    H256(digest.0)
}

impl Block {
    /// Writes the header: every field but the transactions, in encoding order.
    fn write_header(&self, buf: &mut impl BufMut) {
        self.context.write(buf);
        self.parent.write(buf);
        self.height.write(buf);
        self.timestamp_ms.write(buf);
        self.proposer.0.write(buf);
        self.transactions_root.write(buf);
        self.receipts_root.write(buf);
        self.cycles_used.write(buf);
        self.cells_used.write(buf);
        self.basefee_cycle.write(buf);
        self.basefee_cell.write(buf);
        self.state_root.write(buf);
        self.ops_root.write(buf);
        self.range.write(buf);
    }

    fn header_size(&self) -> usize {
        self.context.encode_size()
            + self.parent.encode_size()
            + self.height.encode_size()
            + self.timestamp_ms.encode_size()
            + Address::LEN
            + self.transactions_root.encode_size()
            + self.receipts_root.encode_size()
            + self.cycles_used.encode_size()
            + self.cells_used.encode_size()
            + self.basefee_cycle.encode_size()
            + self.basefee_cell.encode_size()
            + self.state_root.encode_size()
            + self.ops_root.encode_size()
            + self.range.encode_size()
    }

    /// The header bytes the digest is taken over (what proofs carry).
    pub fn header_bytes(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.header_size());
        self.write_header(&mut buf);
        buf
    }

    /// Reads a header; the block it returns has no transactions.
    fn read_header(buf: &mut impl Buf) -> Result<Self, CodecError> {
        Ok(Self {
            context: BlockContext::read(buf)?,
            parent: sha256::Digest::read(buf)?,
            height: Height::read(buf)?,
            timestamp_ms: u64::read(buf)?,
            proposer: Address(<[u8; 20]>::read(buf)?),
            transactions: Vec::new(),
            transactions_root: sha256::Digest::read(buf)?,
            receipts_root: sha256::Digest::read(buf)?,
            cycles_used: u64::read(buf)?,
            cells_used: u64::read(buf)?,
            basefee_cycle: u128::read(buf)?,
            basefee_cell: u128::read(buf)?,
            state_root: sha256::Digest::read(buf)?,
            ops_root: sha256::Digest::read(buf)?,
            range: NonEmptyRange::read(buf)?,
        })
    }

    /// Decodes header bytes (as [`Block::header_bytes`] writes them) into a block whose
    /// `transactions` are empty: what a light client checks a proof against.
    pub fn decode_header(bytes: &[u8]) -> Result<Self, CodecError> {
        let mut buf = bytes::Bytes::copy_from_slice(bytes);
        let header = Self::read_header(&mut buf)?;
        if !buf.is_empty() {
            return Err(CodecError::ExtraData(buf.len()));
        }
        Ok(header)
    }
}

impl Write for Block {
    fn write(&self, buf: &mut impl BufMut) {
        self.write_header(buf);
        self.transactions.write(buf);
    }
}

impl EncodeSize for Block {
    fn encode_size(&self) -> usize {
        self.header_size() + self.transactions.encode_size()
    }
}

impl Read for Block {
    type Cfg = ();

    fn read_cfg(buf: &mut impl Buf, _: &()) -> Result<Self, CodecError> {
        let mut block = Self::read_header(buf)?;
        let tx_cfg = (RangeCfg::new(0..=MAX_BLOCK_TRANSACTIONS), (RangeCfg::new(1..=MAX_TRANSACTION_BYTES), ()));
        let transactions = Vec::<Vec<u8>>::read_cfg(buf, &tx_cfg)?;
        let total: usize = transactions.iter().map(Vec::len).sum();
        if total > MAX_BLOCK_BYTES {
            return Err(CodecError::Invalid("Block", "transactions exceed MAX_BLOCK_BYTES"));
        }
        // The digest covers only the header, so the body must match the header's root.
        if !block.height.is_zero() {
            let hashes: Vec<H256> = transactions.iter().map(|tx| drover_types::keccak256(tx)).collect();
            if transactions_root(&hashes) != block.transactions_root {
                return Err(CodecError::Invalid("Block", "transactions do not match transactions_root"));
            }
        }
        block.transactions = transactions;
        Ok(block)
    }
}

impl Digestible for Block {
    type Digest = sha256::Digest;

    fn digest(&self) -> sha256::Digest {
        Sha256::hash(&[&self.header_bytes()])
    }
}

impl Heightable for Block {
    fn height(&self) -> Height {
        self.height
    }
}

impl ConsensusBlock for Block {
    fn parent(&self) -> sha256::Digest {
        self.parent
    }
}

impl CertifiableBlock for Block {
    type Context = BlockContext;

    fn context(&self) -> Self::Context {
        self.context.clone()
    }
}

impl BoundedBlock for Block {
    fn max_encode_size(_: &Self::Cfg) -> usize {
        use commonware_codec::MaxEncodeSize;
        BlockContext::MAX_ENCODE_SIZE
            + 3 * sha256::Digest::SIZE
            + Height::MAX_ENCODE_SIZE
            + 3 * u64::SIZE
            + Address::LEN
            // length prefixes of the list and of each transaction, then the bytes
            + 5 * (1 + MAX_BLOCK_TRANSACTIONS)
            + MAX_BLOCK_BYTES
            + 2 * sha256::Digest::SIZE
            + 2 * u128::SIZE
            + NonEmptyRange::<Location>::MAX_ENCODE_SIZE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_codec::{DecodeExt as _, Encode as _};
    use commonware_cryptography::Signer as _;

    fn block_with(transactions: Vec<Vec<u8>>) -> Block {
        let mut block = Block::genesis(
            ed25519::PrivateKey::from_seed(0).public_key(),
            sha256::Digest::EMPTY,
            1_000,
            sha256::Digest::EMPTY,
            commonware_utils::non_empty_range!(Location::new(0), Location::new(1)),
        );
        block.height = Height::new(7);
        let hashes: Vec<H256> = transactions.iter().map(|tx| drover_types::keccak256(tx)).collect();
        block.transactions_root = transactions_root(&hashes);
        block.transactions = transactions;
        block
    }

    #[test]
    fn the_digest_is_the_header_hash_and_the_header_pins_the_body() {
        let block = block_with(vec![vec![1, 2, 3], vec![4, 5]]);
        assert_eq!(block.digest(), Sha256::hash(&[&block.header_bytes()]));
        let decoded = Block::decode(block.encode()).unwrap();
        assert_eq!(decoded, block);

        // Every header field moves the digest.
        let mut other = block.clone();
        other.state_root = Sha256::hash(&[b"other"]);
        assert_ne!(other.digest(), block.digest());

        // A body that does not hash to the header's root does not decode, so no two blocks
        // share a digest.
        let mut forged = block.clone();
        forged.transactions[0] = vec![9, 9, 9];
        assert_eq!(forged.digest(), block.digest());
        assert!(Block::decode(forged.encode()).is_err());
    }

    #[test]
    fn header_bytes_decode_to_the_header_alone() {
        let block = block_with(vec![vec![1, 2, 3]]);
        let header = Block::decode_header(&block.header_bytes()).unwrap();
        assert!(header.transactions.is_empty());
        assert_eq!(Block { transactions: block.transactions.clone(), ..header.clone() }, block);
        assert_eq!(header.digest(), block.digest());
        let mut long = block.header_bytes();
        long.push(0);
        assert!(Block::decode_header(&long).is_err());
        assert!(Block::decode_header(&block.header_bytes()[..10]).is_err());
    }
}
