//! Account history and the list of blocks, written by [`Indexes::record`] in the block's one
//! atomic batch, so a crash never leaves half a block's entries.
//!
//! **History.** `account (20) ‖ height (8, BE) ‖ index (4, BE)` → one [`HistoryEntry`] per
//! account and transaction. A transaction names: its sender (`sent`); its destination (its `to`,
//! or the actor a deploy created); and every account it credited (execution's credits: its own
//! value, an actor's `transfer` host call or the value of a nested call, a system actor paying
//! out, a native token transfer or mint), with what each received summed per asset. An account's
//! keys sort in chain order, so its newest entries are read by walking its range backwards from
//! a cursor: a page costs its entries, whatever the account's count.
//!
//! What a transaction writes here is bounded by what it paid: one entry for its sender, one for
//! its destination and one per distinct account it credited, each credit being a paid operation
//! (an actor's transfer is at least 9,000 cycles, a token transfer 33,800; an event, which the
//! logs index already keeps, is 1,000). A block at its cycle limit (20 million at genesis) so
//! writes at most a few thousand entries of about 130 bytes, which is less than its events may
//! already write (`docs/history.md`, "Cost").
//!
//! **Blocks.** `height (8, BE)` → [`BlockRecord`]: the header fields a block list shows, the
//! counts (transactions, system runs, events) and the transaction hashes, so a list or a stream
//! of blocks reads this index alone, never the block archive that consensus uses.

use super::{HASH_LEN, IndexError, Indexes, Order, err, page};
use drover_execution::{Asset, Credit, DEPLOY_EVENT_TOPIC};
use drover_types::{
    Address, H256, Receipt, TxStatus, VerifiedTransaction,
    cbor::{self, CborError, Writer},
};
use fjall::Keyspace;
use minicbor::decode::Decoder;
use std::collections::BTreeMap;

/// Length of a history position after the account: height, index.
pub(crate) const HISTORY_POSITION_LEN: usize = 12;

/// How an account took part in a transaction (a set of these bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Roles(u8);

impl Roles {
    /// It sent the transaction.
    pub const SENT: Roles = Roles(1);
    /// It is the transaction's destination: its `to`, or the actor its deploy created.
    pub const DESTINATION: Roles = Roles(2);
    /// It received native value from the sender: a transfer's, or a call's or deploy's value.
    pub const TRANSFER: Roles = Roles(4);
    /// It received native value from an actor: a `transfer` host call, the value of a nested
    /// call, a system actor paying out.
    pub const ACTOR_TRANSFER: Roles = Roles(8);
    /// It received native tokens: a transfer, a `transfer_from` or a mint.
    pub const TOKEN_TRANSFER: Roles = Roles(16);
    const ALL: u8 = 31;

    /// Whether every bit of `other` is set.
    pub fn has(self, other: Roles) -> bool {
        self.0 & other.0 == other.0
    }

    fn add(&mut self, other: Roles) {
        self.0 |= other.0;
    }
}

/// One transaction in an account's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    /// Height and index, big-endian: the cursor of a history page.
    pub position: [u8; HISTORY_POSITION_LEN],
    pub height: u64,
    /// Position of the transaction in its block (its receipt's index).
    pub index: u32,
    pub hash: H256,
    pub from: Address,
    pub to: Option<Address>,
    /// The transaction's own value.
    pub value: u128,
    pub status: TxStatus,
    /// What the sender paid (burned and tip).
    pub fee: u128,
    pub roles: Roles,
    /// Native value this account received in the transaction, from anyone.
    pub native_received: u128,
    /// Tokens this account received, by token id (ascending), summed.
    pub tokens_received: Vec<(Address, u128)>,
}

/// Elements of a history record: hash, from, to, value, status, fee, roles, native received,
/// tokens received (`[[token, amount], ...]`).
const HISTORY_FIELDS: u64 = 9;

/// An account's part in one transaction, while the block's entries are gathered.
#[derive(Default)]
struct Part {
    roles: Roles,
    native: u128,
    tokens: BTreeMap<Address, u128>,
}

/// The accounts a transaction names, each with its part (see the module documentation).
fn parts(tx: &VerifiedTransaction, receipt: &Receipt, credits: &[Credit]) -> BTreeMap<Address, Part> {
    let mut parts: BTreeMap<Address, Part> = BTreeMap::new();
    parts.entry(tx.sender).or_default().roles.add(Roles::SENT);
    let deployed = || receipt.events.iter().find(|e| e.topic == DEPLOY_EVENT_TOPIC).map(|e| e.address);
    if let Some(destination) = tx.tx.to.or_else(deployed) {
        parts.entry(destination).or_default().roles.add(Roles::DESTINATION);
    }
    for credit in credits {
        let part = parts.entry(credit.to).or_default();
        match credit.asset {
            Asset::Native => {
                part.native = part.native.saturating_add(credit.amount);
                let from_sender = credit.from == Some(tx.sender);
                part.roles.add(if from_sender { Roles::TRANSFER } else { Roles::ACTOR_TRANSFER });
            }
            Asset::Token(token) => {
                let amount = part.tokens.entry(token).or_default();
                *amount = amount.saturating_add(credit.amount);
                part.roles.add(Roles::TOKEN_TRANSFER);
            }
        }
    }
    parts
}

fn encode_entry(tx: &VerifiedTransaction, receipt: &Receipt, part: &Part) -> Vec<u8> {
    let mut w = Writer::with_capacity(160 + part.tokens.len() * 40);
    w.array(HISTORY_FIELDS).bytes(&tx.hash.0).bytes(&tx.sender.0);
    match tx.tx.to {
        Some(to) => w.bytes(&to.0),
        None => w.null(),
    };
    w.u128(tx.tx.value)
        .text(receipt.status.as_str())
        .u128(receipt.fee.total())
        .uint(u64::from(part.roles.0))
        .u128(part.native)
        .array(part.tokens.len() as u64);
    for (token, amount) in &part.tokens {
        w.array(2).bytes(&token.0).u128(*amount);
    }
    w.into_inner()
}

fn decode_entry(bytes: &[u8], position: [u8; HISTORY_POSITION_LEN]) -> Result<HistoryEntry, IndexError> {
    let (height, index) = position.split_at(8);
    let height = u64::from_be_bytes(height.try_into().map_err(err)?);
    let index = u32::from_be_bytes(index.try_into().map_err(err)?);
    cbor::decode_strict(bytes, |d: &mut Decoder<'_>| {
        cbor::expect_array(d, HISTORY_FIELDS)?;
        let hash = H256(cbor::decode_fixed(d)?);
        let from = Address(cbor::decode_fixed(d)?);
        let to = if cbor::take_null(d)? { None } else { Some(Address(cbor::decode_fixed(d)?)) };
        let value = cbor::decode_u128(d)?;
        let status = d.str()?.parse::<TxStatus>().map_err(|e| CborError::malformed(e.to_string()))?;
        let fee = cbor::decode_u128(d)?;
        let roles = u8::try_from(d.u64()?)
            .ok()
            .filter(|bits| bits & !Roles::ALL == 0)
            .ok_or_else(|| CborError::malformed("unknown history roles"))?;
        let native_received = cbor::decode_u128(d)?;
        let count = d.array()?.ok_or_else(|| CborError::malformed("indefinite token list"))?;
        let mut tokens_received = Vec::new();
        for _ in 0..count {
            cbor::expect_array(d, 2)?;
            tokens_received.push((Address(cbor::decode_fixed(d)?), cbor::decode_u128(d)?));
        }
        Ok(HistoryEntry {
            position,
            height,
            index,
            hash,
            from,
            to,
            value,
            status,
            fee,
            roles: Roles(roles),
            native_received,
            tokens_received,
        })
    })
    .map_err(err)
}

/// Adds the history entries of the transaction at `index` of the block at `height`.
pub(super) fn write_history(
    batch: &mut fjall::OwnedWriteBatch,
    keyspace: &Keyspace,
    (height, index): (u64, u32),
    tx: &VerifiedTransaction,
    receipt: &Receipt,
    credits: &[Credit],
) {
    for (account, part) in parts(tx, receipt, credits) {
        let key = [account.0.as_slice(), &height.to_be_bytes(), &index.to_be_bytes()].concat();
        batch.insert(keyspace, key, encode_entry(tx, receipt, &part));
    }
}

/// What a block list and a block stream show of a finalized block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockRecord {
    pub height: u64,
    pub hash: H256,
    pub parent: H256,
    pub timestamp_ms: u64,
    pub proposer: Address,
    /// Consensus view in which it was proposed.
    pub view: u64,
    pub state_root: H256,
    pub cycles_used: u64,
    pub cells_used: u64,
    pub basefee_cycle: u128,
    pub basefee_cell: u128,
    pub transaction_count: u32,
    pub system_run_count: u32,
    pub event_count: u32,
    /// The transactions' hashes in block order; empty when read without them.
    pub transactions: Vec<H256>,
}

/// Elements of a block record: hash, parent, timestamp, proposer, view, state root, cycles,
/// cells, the two basefees, system runs, events, transaction hashes (`[hash, ...]`).
const BLOCK_FIELDS: u64 = 13;

pub(super) fn encode_block(record: &BlockRecord) -> Vec<u8> {
    let mut w = Writer::with_capacity(256 + record.transactions.len() * (HASH_LEN + 2));
    w.array(BLOCK_FIELDS)
        .bytes(&record.hash.0)
        .bytes(&record.parent.0)
        .uint(record.timestamp_ms)
        .bytes(&record.proposer.0)
        .uint(record.view)
        .bytes(&record.state_root.0)
        .uint(record.cycles_used)
        .uint(record.cells_used)
        .u128(record.basefee_cycle)
        .u128(record.basefee_cell)
        .uint(u64::from(record.system_run_count))
        .uint(u64::from(record.event_count))
        .array(record.transactions.len() as u64);
    for hash in &record.transactions {
        w.bytes(&hash.0);
    }
    w.into_inner()
}

/// A block record; its transaction hashes only `with_transactions` (they are skipped, not
/// decoded, otherwise).
fn decode_block(bytes: &[u8], height: u64, with_transactions: bool) -> Result<BlockRecord, IndexError> {
    cbor::decode_strict(bytes, |d: &mut Decoder<'_>| {
        cbor::expect_array(d, BLOCK_FIELDS)?;
        let hash = H256(cbor::decode_fixed(d)?);
        let parent = H256(cbor::decode_fixed(d)?);
        let timestamp_ms = d.u64()?;
        let proposer = Address(cbor::decode_fixed(d)?);
        let view = d.u64()?;
        let state_root = H256(cbor::decode_fixed(d)?);
        let (cycles_used, cells_used) = (d.u64()?, d.u64()?);
        let (basefee_cycle, basefee_cell) = (cbor::decode_u128(d)?, cbor::decode_u128(d)?);
        let (system_run_count, event_count) = (d.u32()?, d.u32()?);
        let count = d.array()?.ok_or_else(|| CborError::malformed("indefinite transaction list"))?;
        let mut transactions = Vec::new();
        for _ in 0..count {
            if with_transactions {
                transactions.push(H256(cbor::decode_fixed(d)?));
            } else {
                d.skip()?;
            }
        }
        Ok(BlockRecord {
            height,
            hash,
            parent,
            timestamp_ms,
            proposer,
            view,
            state_root,
            cycles_used,
            cells_used,
            basefee_cycle,
            basefee_cell,
            transaction_count: u32::try_from(count).map_err(|_| CborError::malformed("too many transactions"))?,
            system_run_count,
            event_count,
            transactions,
        })
    })
    .map_err(err)
}

impl Indexes {
    /// Up to `limit` transactions of `account` before the position `before` (a
    /// [`HistoryEntry::position`]; from the newest when `None`), newest first; also says whether
    /// more follow.
    pub fn history(
        &self,
        account: &Address,
        before: Option<[u8; HISTORY_POSITION_LEN]>,
        limit: usize,
    ) -> Result<(Vec<HistoryEntry>, bool), IndexError> {
        page(&self.history, &account.0, (Order::Newest, before), (limit, usize::MAX), |position, value| {
            decode_entry(value, position)
        })
    }

    /// Up to `limit` blocks below `before` (from the latest when `None`), newest first, without
    /// their transaction hashes, ending early once their records reach `bytes_max` bytes (after
    /// one block at least: a record holds its block's transaction hashes, 34 bytes each, which
    /// the list reads and leaves out); also says whether more follow.
    pub fn blocks(
        &self,
        before: Option<u64>,
        limit: usize,
        bytes_max: usize,
    ) -> Result<(Vec<BlockRecord>, bool), IndexError> {
        page(&self.blocks, &[], (Order::Newest, before.map(u64::to_be_bytes)), (limit, bytes_max), |position, value| {
            decode_block(value, u64::from_be_bytes(position), false)
        })
    }

    /// The block at `height` with its transaction hashes, if recorded.
    pub fn block(&self, height: u64) -> Result<Option<BlockRecord>, IndexError> {
        match self.blocks.get(height.to_be_bytes()).map_err(err)? {
            Some(value) => decode_block(&value, height, true).map(Some),
            None => Ok(None),
        }
    }

    /// The first height these indexes hold history, blocks and event queries for (0 before any
    /// block): a node that fast-synced, or was upgraded from a version without them, holds
    /// nothing below it.
    pub fn history_from(&self) -> Result<u64, IndexError> {
        self.meta(super::META_HISTORY_FROM)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{Block, open, receipt};
    use super::*;
    use drover_types::{Event, SecretKey, Transaction, TxStatus};

    const BOB: Address = Address([0xb0; 20]);
    const CAROL: Address = Address([0xca; 20]);
    const ACTOR: Address = Address([0xac; 20]);
    const TOKEN: Address = Address([0x70; 20]);

    fn tx(nonce: u64, to: Option<Address>, value: u128) -> VerifiedTransaction {
        Transaction {
            chain_id: 100,
            nonce,
            to,
            value,
            cycles_limit: 100_000,
            cells_limit: 1_000,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 1,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload: if to == Some(BOB) { Vec::new() } else { vec![1] },
            signature: None,
        }
        .sign(&SecretKey::dev(0))
        .verify()
        .expect("a signed transaction verifies")
    }

    fn native(from: Address, to: Address, amount: u128) -> Credit {
        Credit { to, from: Some(from), asset: Asset::Native, amount }
    }

    /// Height 4: a transfer to Bob. Height 5: a call whose actor pays Carol twice and mints her
    /// tokens, then a call that reverted. Height 6: a deploy.
    fn chain() -> (Vec<Block>, Address) {
        let sender = SecretKey::dev(0).address();
        let (transfer, call, reverted) = (tx(0, Some(BOB), 500), tx(1, Some(ACTOR), 7), tx(2, Some(ACTOR), 0));
        let deploy = tx(3, None, 0);
        let deployed = Address([0xde; 20]);
        let mut failed = receipt(&reverted, 5, 1, Vec::new());
        failed.status = TxStatus::Reverted;
        let credits = vec![
            native(sender, ACTOR, 7),
            native(ACTOR, CAROL, 3),
            native(ACTOR, CAROL, 2),
            Credit { to: CAROL, from: None, asset: Asset::Token(TOKEN), amount: 9 },
        ];
        let deploy_event = Event { address: deployed, topic: DEPLOY_EVENT_TOPIC.into(), data: vec![0; 32] };
        let blocks = vec![
            Block {
                height: 4,
                receipts: vec![receipt(&transfer, 4, 0, Vec::new())],
                credits: vec![vec![native(sender, BOB, 500)]],
                transactions: vec![transfer],
                ..Block::default()
            },
            Block {
                height: 5,
                receipts: vec![receipt(&call, 5, 0, Vec::new()), failed],
                credits: vec![credits, Vec::new()],
                transactions: vec![call, reverted],
                ..Block::default()
            },
            Block {
                height: 6,
                receipts: vec![receipt(&deploy, 6, 0, vec![deploy_event])],
                credits: vec![Vec::new()],
                transactions: vec![deploy],
                ..Block::default()
            },
        ];
        (blocks, deployed)
    }

    fn hashes(entries: &[HistoryEntry]) -> Vec<(u64, u32)> {
        entries.iter().map(|e| (e.height, e.index)).collect()
    }

    #[test]
    fn history_names_the_sender_the_destination_and_everyone_credited_newest_first() {
        let (_dir, indexes) = open();
        let (blocks, deployed) = chain();
        for block in &blocks {
            block.record(&indexes);
        }
        let sender = SecretKey::dev(0).address();
        let (sent, more) = indexes.history(&sender, None, 10).unwrap();
        assert!(!more);
        assert_eq!(hashes(&sent), [(6, 0), (5, 1), (5, 0), (4, 0)]);
        assert!(sent.iter().all(|e| e.roles == Roles::SENT && e.from == sender));
        assert_eq!(sent[1].status, TxStatus::Reverted);
        assert_eq!((sent[3].to, sent[3].value, sent[3].fee), (Some(BOB), 500, 330_000));

        let (bob, _) = indexes.history(&BOB, None, 10).unwrap();
        assert_eq!(hashes(&bob), [(4, 0)]);
        assert!(bob[0].roles.has(Roles::DESTINATION) && bob[0].roles.has(Roles::TRANSFER));
        assert_eq!(bob[0].native_received, 500);

        // Carol was named by no field of the transaction: the actor paid her and minted to her.
        let (carol, _) = indexes.history(&CAROL, None, 10).unwrap();
        assert_eq!(hashes(&carol), [(5, 0)]);
        let roles = carol[0].roles;
        assert!(roles.has(Roles::ACTOR_TRANSFER) && roles.has(Roles::TOKEN_TRANSFER));
        assert!(!roles.has(Roles::DESTINATION) && !roles.has(Roles::TRANSFER) && !roles.has(Roles::SENT));
        assert_eq!((carol[0].native_received, carol[0].tokens_received.clone()), (5, vec![(TOKEN, 9)]));

        // The actor: the destination of both calls, paid by the first only.
        let (actor, _) = indexes.history(&ACTOR, None, 10).unwrap();
        assert_eq!(hashes(&actor), [(5, 1), (5, 0)]);
        assert_eq!((actor[0].roles, actor[0].native_received), (Roles::DESTINATION, 0));
        assert!(actor[1].roles.has(Roles::TRANSFER));
        assert_eq!(actor[1].native_received, 7);

        // A deploy's destination is the actor it created.
        let (created, _) = indexes.history(&deployed, None, 10).unwrap();
        assert_eq!((hashes(&created), created[0].to), (vec![(6, 0)], None));

        // Pages follow each other by cursor.
        let mut paged = Vec::new();
        let mut before = None;
        loop {
            let (page, more) = indexes.history(&sender, before, 1).unwrap();
            before = page.last().map(|e| e.position);
            paged.extend(page);
            if !more {
                break;
            }
        }
        assert_eq!(paged, sent);

        // A replay after a crash writes the same entries again.
        blocks[1].record(&indexes);
        assert_eq!(indexes.history(&sender, None, 10).unwrap().0, sent);
        assert_eq!(indexes.history(&Address([0x01; 20]), None, 10).unwrap(), (Vec::new(), false));
    }

    #[test]
    fn blocks_list_newest_first_with_counts_and_the_stream_gets_hashes() {
        let (_dir, indexes) = open();
        assert_eq!(indexes.history_from().unwrap(), 0);
        let (blocks, _) = chain();
        for block in &blocks {
            block.record(&indexes);
        }
        let (list, more) = indexes.blocks(None, 2, usize::MAX).unwrap();
        assert!(more);
        assert_eq!(list.iter().map(|b| (b.height, b.transaction_count)).collect::<Vec<_>>(), [(6, 1), (5, 2)]);
        assert!(list.iter().all(|b| b.transactions.is_empty()), "a list leaves the hashes out");
        let header = super::super::tests::header(5);
        assert_eq!(
            (list[1].hash, list[1].view, list[1].basefee_cell, list[1].timestamp_ms, list[1].event_count),
            (header.hash, header.view, header.basefee_cell, 5_000, 0)
        );
        let (rest, more) = indexes.blocks(Some(5), 10, usize::MAX).unwrap();
        assert!(!more);
        assert_eq!(rest.iter().map(|b| b.height).collect::<Vec<_>>(), [4]);
        // A page ends once its records reach the byte bound, one block at least.
        let (first, more) = indexes.blocks(None, 10, 1).unwrap();
        assert!(more);
        assert_eq!(first.iter().map(|b| b.height).collect::<Vec<_>>(), [6]);
        let full = indexes.block(5).unwrap().expect("recorded");
        assert_eq!(full.transactions, blocks[1].transactions.iter().map(|t| t.hash).collect::<Vec<_>>());
        assert_eq!(indexes.block(7).unwrap(), None);
        // History starts at the first block recorded, and stays there.
        assert_eq!(indexes.history_from().unwrap(), 4);
        Block { height: 2, ..Block::default() }.record(&indexes);
        assert_eq!(indexes.history_from().unwrap(), 4);
    }

    #[test]
    fn a_corrupt_record_is_an_error_not_a_panic() {
        let position = [0; HISTORY_POSITION_LEN];
        assert!(decode_entry(&[0x89, 0x00], position).is_err());
        assert!(decode_block(&[0xff], 1, true).is_err());
        let (_dir, indexes) = open();
        indexes.history.insert([ACTOR.0.as_slice(), &[1; 3]].concat(), vec![0x80]).unwrap();
        assert!(indexes.history(&ACTOR, None, 10).is_err());
    }
}
