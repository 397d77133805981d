//! Reading the parent state on demand, and buffering a block's changes with a journal for
//! rollback.
//!
//! **Reads.** The executor reads the parent state only through [`StateRead`], which answers
//! every question when it is asked: the node reads the key from its database (the committed
//! state merged with the writes of the pending ancestors), a test reads a `BTreeMap`. Two kinds
//! of question exist: the value of a key, and the next entry after a key under a prefix
//! ([`NextKeyQuery`]), which actor storage iteration needs. A reader that cannot answer (a
//! storage failure, or a reader that gives up by its own rule) fails with [`ReadFault`], and
//! execution stops: a block or a read without its state has no outcome. So the cost of a block
//! is one lookup per distinct key it reads, each paid for by whoever asked for it.
//!
//! **Overlay.** Each account is decoded once, on first use, and lives in the [`Overlay`] until
//! the end of the block; other records live there as raw bytes, and every value read stays
//! cached there (also across a rollback), so no key is read from the state twice in a block.
//! Every change pushes an undo entry on a journal, so [`Overlay::checkpoint`] /
//! [`Overlay::rollback`] undo exactly the changes made since — nested actor calls, a reverted
//! transaction, a transaction the proposer drops for want of room. The maps are `BTreeMap`s so
//! that writes come out in key order without depending on any hash seed.
//!
//! **Walks.** [`Overlay::next_entry`] answers "the next entry after K under P" from the keys the
//! block holds and the parent's answer, which must skip every key the block deleted. Asking the
//! parent again after each deleted key would cost one parent lookup per deletion passed, on every
//! step of every walk: a transaction that deletes a few thousand entries and then walks from the
//! start a few thousand times would make millions of lookups for the price of a few thousand
//! host calls. So the overlay remembers, per prefix, the ranges of keys its walks have already
//! covered: a range `(from, to]` means that every parent key under the prefix in it is held by
//! the block (read, written or deleted), so a walk that reaches it continues after `to` without
//! asking, and the parent is asked each question once per block. Keys the block holds and
//! that have a value are indexed on their own, so the block's next live key is found without
//! stepping over deletions either: the work of one `next_entry` is a few map lookups plus the
//! parent lookups that extend the covered ranges, each of which passes a deletion the block
//! paid for or ends the walk. A range rests only on keys whose slot a rollback never removes
//! (those read from the state); a key written without being read could vanish on a rollback,
//! so no range is recorded across one.

use crate::Writes;
use drover_state::{Account, RecordError, keys::account_key};
use drover_types::Address;
use std::collections::{BTreeMap, BTreeSet};

/// The state could not be read: a storage failure, or a reader that gave up (a read-only call
/// out of time, a state that moved under it). Execution stops without an outcome.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the state could not be read: {0}")]
pub struct ReadFault(pub String);

/// "The first entry of the parent state whose key starts with `prefix` and is strictly greater
/// than `after`" (from the first key with the prefix when `after` is `None`).
///
/// The node answers it from the committed database (`get_next_key`) merged with the writes of
/// the not-yet-finalized ancestors, as `(key, value)` or `None` when there is no such entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NextKeyQuery {
    /// The key prefix every answer must start with.
    pub prefix: Vec<u8>,
    /// Answer with a key strictly greater than this one; `None`: from the first key with the
    /// prefix.
    pub after: Option<Vec<u8>>,
}

/// A storage entry of the parent state: `(key, value)`.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Read access to the parent state a block executes on, answered on demand.
pub trait StateRead {
    /// The value under `key` (`Ok(None)`: absent).
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadFault>;

    /// The answer to a next-key query.
    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, ReadFault>;
}

/// A complete in-memory state.
impl StateRead for BTreeMap<Vec<u8>, Vec<u8>> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
        Ok(BTreeMap::get(self, key).cloned())
    }

    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, ReadFault> {
        use std::ops::Bound;
        let start = match &query.after {
            Some(after) => Bound::Excluded(after.clone()),
            None => Bound::Included(query.prefix.clone()),
        };
        Ok(self
            .range((start, Bound::Unbounded))
            .next()
            .filter(|(key, _)| key.starts_with(&query.prefix))
            .map(|(key, value)| (key.clone(), value.clone())))
    }
}

/// The state holds bytes that are not the record its key calls for.
///
/// Only the executor writes these records, so this means a corrupt database; every honest node
/// would hit it at the same point, and the node must stop rather than guess a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt state record at key 0x{}: {source}", hex::encode(key))]
pub struct StateError {
    /// The key whose record is corrupt.
    pub key: Vec<u8>,
    /// Why its bytes do not decode.
    pub source: RecordError,
}

/// Why a read through the overlay gave no value. Either ends the block (or the read-only call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The reader could not answer.
    Fault(ReadFault),
    /// The stored bytes are not the expected record.
    Corrupt(StateError),
}

impl From<ReadFault> for ReadError {
    fn from(fault: ReadFault) -> Self {
        ReadError::Fault(fault)
    }
}

impl From<StateError> for ReadError {
    fn from(error: StateError) -> Self {
        ReadError::Corrupt(error)
    }
}

/// One account as the parent state held it and as the block has left it so far.
struct Slot {
    original: Option<Account>,
    current: Account,
}

/// A raw record: what the parent held (if read) and the block's current value.
#[derive(Clone)]
struct KvSlot {
    /// `None` when the record was written without being read: it is always written out.
    original: Option<Option<Vec<u8>>>,
    current: Option<Vec<u8>>,
}

/// How to undo one change.
enum Undo {
    /// Restore the account's current value (`None`: the slot did not exist).
    Account(Address, Option<Account>),
    /// Restore the record's slot (`None`: the slot did not exist).
    Kv(Vec<u8>, Option<KvSlot>),
}

/// A position in one prefix's key range: before its first key, at a key, after its last key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Pos {
    Start,
    Key(Vec<u8>),
    End,
}

/// The ranges of one prefix that the block's walks have covered: `from → to` for the range
/// `(from, to]`, each holding no parent key under the prefix that the block does not hold.
/// Ranges never overlap or touch (touching ones are merged).
#[derive(Default)]
struct Covered(BTreeMap<Pos, Pos>);

impl Covered {
    /// Where a walk standing at `at` continues: the end of the range that holds what follows
    /// `at`, or `at` itself.
    fn skip(&self, at: Pos) -> Pos {
        match self.0.range(..=&at).next_back() {
            Some((_, to)) if *to > at => to.clone(),
            _ => at,
        }
    }

    /// Records `(from, to]` as covered, merged with the ranges it reaches.
    fn add(&mut self, from: Pos, to: Pos) {
        let (mut from, mut to) = (from, to);
        if let Some((start, end)) = self.0.range(..=&from).next_back()
            && *end >= from
        {
            to = to.max(end.clone());
            from = start.clone();
        }
        let absorbed: Vec<Pos> = self.0.range(&from..=&to).map(|(start, _)| start.clone()).collect();
        for start in absorbed {
            if let Some(end) = self.0.remove(&start) {
                to = to.max(end);
            }
        }
        self.0.insert(from, to);
    }
}

/// A position in the journal to roll back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Checkpoint(usize);

/// A block's view of the state: the parent plus the changes made so far, journaled.
pub(crate) struct Overlay<'a, S> {
    state: &'a S,
    accounts: BTreeMap<Address, Slot>,
    kv: BTreeMap<Vec<u8>, KvSlot>,
    /// The keys of `kv` that currently have a value.
    live: BTreeSet<Vec<u8>>,
    /// Per prefix, what the block's walks have covered (see the module doc).
    covered: BTreeMap<Vec<u8>, Covered>,
    journal: Vec<Undo>,
}

impl<'a, S: StateRead> Overlay<'a, S> {
    pub(crate) fn new(state: &'a S) -> Self {
        Self {
            state,
            accounts: BTreeMap::new(),
            kv: BTreeMap::new(),
            live: BTreeSet::new(),
            covered: BTreeMap::new(),
            journal: Vec::new(),
        }
    }

    /// Sets the slot of `key` (`None`: the block no longer holds it), keeping `live` in step.
    fn set_slot(&mut self, key: Vec<u8>, slot: Option<KvSlot>) {
        match slot {
            Some(slot) => {
                if slot.current.is_some() {
                    self.live.insert(key.clone());
                } else {
                    self.live.remove(&key);
                }
                self.kv.insert(key, slot);
            }
            None => {
                self.live.remove(&key);
                self.kv.remove(&key);
            }
        }
    }

    /// The account's current value (empty if it does not exist).
    pub(crate) fn account(&mut self, address: Address) -> Result<Account, ReadError> {
        if let Some(slot) = self.accounts.get(&address) {
            return Ok(slot.current);
        }
        let key = account_key(&address);
        let original = match self.state.get(&key)? {
            Some(bytes) => Some(Account::decode(&bytes).map_err(|source| StateError { key, source })?),
            None => None,
        };
        let current = original.unwrap_or_default();
        self.accounts.insert(address, Slot { original, current });
        Ok(current)
    }

    /// Replaces the account's value. Callers read an account (with [`Overlay::account`]) before
    /// they write it; an account written unread is taken to have been absent.
    pub(crate) fn set(&mut self, address: Address, account: Account) {
        let previous = self.accounts.get(&address).map(|slot| slot.current);
        self.journal.push(Undo::Account(address, previous));
        self.accounts
            .entry(address)
            .and_modify(|slot| slot.current = account)
            .or_insert(Slot { original: None, current: account });
    }

    /// The raw value under `key` as the block has left it.
    pub(crate) fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadError> {
        if let Some(slot) = self.kv.get(key) {
            return Ok(slot.current.clone());
        }
        let value = self.state.get(key)?;
        self.set_slot(key.to_vec(), Some(KvSlot { original: Some(value.clone()), current: value.clone() }));
        Ok(value)
    }

    /// Reads and decodes a record.
    pub(crate) fn record<T>(
        &mut self,
        key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, RecordError>,
    ) -> Result<Option<T>, ReadError> {
        match self.get(key)? {
            Some(bytes) => {
                decode(&bytes).map(Some).map_err(|source| ReadError::Corrupt(StateError { key: key.to_vec(), source }))
            }
            None => Ok(None),
        }
    }

    /// Writes `value` under `key` (`None` deletes it).
    pub(crate) fn put(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        let previous = self.kv.get(&key).cloned();
        self.journal.push(Undo::Kv(key.clone(), previous));
        if value.is_none() {
            self.live.remove(&key);
        } else if !self.live.contains(&key) {
            self.live.insert(key.clone());
        }
        match self.kv.get_mut(&key) {
            Some(slot) => slot.current = value,
            None => {
                self.kv.insert(key, KvSlot { original: None, current: value });
            }
        }
    }

    /// The first entry whose key starts with `prefix` and is greater than `after`, as the block
    /// has left the state: the block's next live key merged with the parent's next key that the
    /// block does not hold, found past the ranges earlier walks covered (see the module doc).
    pub(crate) fn next_entry(&mut self, prefix: &[u8], after: Option<&[u8]>) -> Result<Option<Entry>, ReadError> {
        use std::ops::Bound;
        let start = match after {
            Some(after) => Bound::Excluded(after.to_vec()),
            None => Bound::Included(prefix.to_vec()),
        };
        let written = self
            .live
            .range((start, Bound::Unbounded))
            .next()
            .filter(|key| key.starts_with(prefix))
            .and_then(|key| Some((key.clone(), self.kv.get(key)?.current.clone()?)));
        let mut covered = self.covered.remove(prefix).unwrap_or_default();
        let parent = self.parent_next(prefix, after, &mut covered);
        self.covered.insert(prefix.to_vec(), covered);
        Ok(match (written, parent?) {
            (Some(w), Some(p)) => Some(if w.0 <= p.0 { w } else { p }),
            (w, p) => w.or(p),
        })
    }

    /// The first parent entry under `prefix` after `after` whose key the block does not hold
    /// (`None` too when the parent's next key holds a value in the block: the block's own next
    /// key comes first then). Each parent answer extends `covered`.
    fn parent_next(
        &mut self,
        prefix: &[u8],
        after: Option<&[u8]>,
        covered: &mut Covered,
    ) -> Result<Option<Entry>, ReadError> {
        let mut at = after.map_or(Pos::Start, |after| Pos::Key(after.to_vec()));
        loop {
            at = covered.skip(at);
            let cursor = match &at {
                Pos::Start => None,
                Pos::Key(key) => Some(key.clone()),
                Pos::End => return Ok(None),
            };
            let Some((key, value)) = self.state.next_entry(&NextKeyQuery { prefix: prefix.to_vec(), after: cursor })?
            else {
                covered.add(at, Pos::End);
                return Ok(None);
            };
            let next = Pos::Key(key.clone());
            match self.kv.get(&key) {
                Some(slot) => {
                    // A slot written unread goes on a rollback, and the range with it.
                    if slot.original.is_some() {
                        covered.add(at, next.clone());
                    }
                    // A key with a value here: the block's own next key is it or a smaller one.
                    if slot.current.is_some() {
                        return Ok(None);
                    }
                    at = next;
                }
                None => {
                    // The answer carries the value: remember it so a later get needs no fetch.
                    let slot = KvSlot { original: Some(Some(value.clone())), current: Some(value.clone()) };
                    self.set_slot(key.clone(), Some(slot));
                    covered.add(at, next);
                    return Ok(Some((key, value)));
                }
            }
        }
    }

    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint(self.journal.len())
    }

    /// Undoes every change made since `checkpoint`.
    pub(crate) fn rollback(&mut self, checkpoint: Checkpoint) {
        while self.journal.len() > checkpoint.0 {
            match self.journal.pop() {
                Some(Undo::Account(address, Some(previous))) => {
                    if let Some(slot) = self.accounts.get_mut(&address) {
                        slot.current = previous;
                    }
                }
                Some(Undo::Account(address, None)) => {
                    self.accounts.remove(&address);
                }
                Some(Undo::Kv(key, slot)) => self.set_slot(key, slot),
                None => break,
            }
        }
    }

    /// Drops the journal: the changes so far can no longer be rolled back (called between
    /// transactions, so the journal stays as small as one transaction).
    pub(crate) fn settle(&mut self) {
        self.journal.clear();
    }

    /// Key-value writes for every account and record whose stored form changed, sorted by key.
    /// An empty account is stored as an absent key.
    #[cfg(test)]
    pub(crate) fn into_writes(self) -> Writes {
        self.into_changes().0
    }

    /// [`Overlay::into_writes`], and the accounts among them by address (`None`: deleted).
    pub(crate) fn into_changes(self) -> (Writes, Vec<(Address, Option<Account>)>) {
        let accounts: Vec<(Address, Option<Account>)> = self
            .accounts
            .into_iter()
            .filter_map(|(address, slot)| {
                let stored = (!slot.current.is_empty()).then_some(slot.current);
                (stored != slot.original).then_some((address, stored))
            })
            .collect();
        let account_writes =
            accounts.iter().map(|(address, stored)| (account_key(address), stored.map(|account| account.encode())));
        let records = self.kv.into_iter().filter_map(|(key, slot)| match slot.original {
            Some(original) if original == slot.current => None,
            _ => Some((key, slot.current)),
        });
        let mut writes: Writes = account_writes.chain(records).collect();
        writes.sort_by(|a, b| a.0.cmp(&b.0));
        (writes, accounts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(n: u8) -> Address {
        Address([n; 20])
    }

    #[test]
    fn absent_accounts_read_empty_and_stay_unwritten_when_untouched() {
        let state = BTreeMap::new();
        let mut overlay = Overlay::new(&state);
        assert_eq!(overlay.account(address(1)), Ok(Account::default()));
        assert!(overlay.into_writes().is_empty());
    }

    #[test]
    fn only_changed_accounts_are_written_in_key_order() {
        let stored = Account { nonce: 1, balance: 10 };
        let state = BTreeMap::from([(account_key(&address(2)), stored.encode())]);
        let mut overlay = Overlay::new(&state);
        assert_eq!(overlay.account(address(2)), Ok(stored));
        for n in [9, 3, 2] {
            let account = overlay.account(address(n)).unwrap();
            overlay.set(address(n), Account { balance: account.balance + 1, ..account });
        }
        let unchanged = overlay.account(address(5)).unwrap();
        overlay.set(address(5), unchanged);
        let writes = overlay.into_writes();
        let keys: Vec<_> = writes.iter().map(|(key, _)| key.clone()).collect();
        let mut expected = [account_key(&address(2)), account_key(&address(3)), account_key(&address(9))];
        expected.sort();
        assert_eq!(keys, expected);
        let written = writes.iter().find(|(key, _)| *key == account_key(&address(2)));
        assert_eq!(written.and_then(|(_, value)| value.clone()), Some(Account { nonce: 1, balance: 11 }.encode()));
    }

    #[test]
    fn an_emptied_account_is_deleted() {
        let state = BTreeMap::from([(account_key(&address(1)), Account { nonce: 0, balance: 5 }.encode())]);
        let mut overlay = Overlay::new(&state);
        overlay.account(address(1)).unwrap();
        overlay.set(address(1), Account::default());
        assert_eq!(overlay.into_writes(), [(account_key(&address(1)), None)]);
    }

    #[test]
    fn corrupt_records_are_reported_with_their_key() {
        let key = account_key(&address(1));
        let state = BTreeMap::from([(key.clone(), vec![0x82, 0x01])]);
        let mut overlay = Overlay::new(&state);
        let Err(ReadError::Corrupt(error)) = overlay.account(address(1)) else {
            panic!("expected a corrupt record");
        };
        assert_eq!(error.key, key);
        let expected = format!("corrupt state record at key 0x{}", hex::encode(&key));
        assert!(error.to_string().starts_with(&expected), "{error}");
    }

    #[test]
    fn each_key_is_read_from_the_state_once_even_across_a_rollback() {
        struct Counting(std::cell::Cell<usize>);
        impl StateRead for Counting {
            fn get(&self, _: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
                self.0.set(self.0.get() + 1);
                Ok(None)
            }
            fn next_entry(&self, _: &NextKeyQuery) -> Result<Option<Entry>, ReadFault> {
                Ok(None)
            }
        }
        let state = Counting(std::cell::Cell::new(0));
        let mut overlay = Overlay::new(&state);
        let checkpoint = overlay.checkpoint();
        for _ in 0..3 {
            overlay.account(address(1)).unwrap();
            overlay.get(b"\x03k").unwrap();
        }
        overlay.put(b"\x03k".to_vec(), Some(b"v".to_vec()));
        overlay.rollback(checkpoint);
        overlay.account(address(1)).unwrap();
        assert_eq!(overlay.get(b"\x03k"), Ok(None));
        assert_eq!(state.0.get(), 2);
    }

    #[test]
    fn rollback_undoes_exactly_the_changes_since_the_checkpoint() {
        let state = BTreeMap::from([(b"\x03k1".to_vec(), b"v1".to_vec())]);
        let mut overlay = Overlay::new(&state);
        overlay.account(address(1)).unwrap();
        overlay.set(address(1), Account { nonce: 1, balance: 1 });
        let checkpoint = overlay.checkpoint();
        overlay.set(address(1), Account { nonce: 2, balance: 2 });
        overlay.account(address(2)).unwrap();
        overlay.set(address(2), Account { nonce: 0, balance: 9 });
        overlay.put(b"\x03k1".to_vec(), None);
        overlay.put(b"\x03k2".to_vec(), Some(b"v2".to_vec()));
        overlay.rollback(checkpoint);
        assert_eq!(overlay.get(b"\x03k1"), Ok(Some(b"v1".to_vec())));
        assert_eq!(overlay.get(b"\x03k2"), Ok(None));
        assert_eq!(overlay.account(address(2)), Ok(Account::default()));
        let writes = overlay.into_writes();
        assert_eq!(writes, [(account_key(&address(1)), Some(Account { nonce: 1, balance: 1 }.encode()))]);
    }

    #[test]
    fn a_fault_stops_the_read_and_is_not_cached() {
        struct Failing;
        impl StateRead for Failing {
            fn get(&self, _: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
                Err(ReadFault("disk gone".into()))
            }
            fn next_entry(&self, _: &NextKeyQuery) -> Result<Option<Entry>, ReadFault> {
                Err(ReadFault("disk gone".into()))
            }
        }
        let mut overlay = Overlay::new(&Failing);
        let fault = ReadError::Fault(ReadFault("disk gone".into()));
        assert_eq!(overlay.get(b"\x03b"), Err(fault.clone()));
        assert_eq!(overlay.get(b"\x03b"), Err(fault.clone()));
        assert_eq!(overlay.account(address(1)), Err(fault.clone()));
        assert_eq!(overlay.next_entry(b"\x03", None), Err(fault));
        assert!(overlay.into_writes().is_empty());
    }

    #[test]
    fn next_entry_merges_parent_answers_with_the_block_writes() {
        let state: BTreeMap<Vec<u8>, Vec<u8>> = [
            (b"\x03a1".to_vec(), b"1".to_vec()),
            (b"\x03a3".to_vec(), b"3".to_vec()),
            (b"\x03a5".to_vec(), b"5".to_vec()),
            (b"\x03b1".to_vec(), b"x".to_vec()),
        ]
        .into_iter()
        .collect();
        let mut overlay = Overlay::new(&state);
        overlay.put(b"\x03a1".to_vec(), None); // deleted
        overlay.put(b"\x03a2".to_vec(), Some(b"2".to_vec())); // inserted
        overlay.put(b"\x03a5".to_vec(), Some(b"five".to_vec())); // overwritten
        let mut seen = Vec::new();
        let mut after: Option<Vec<u8>> = None;
        while let Some((key, value)) = overlay.next_entry(b"\x03a", after.as_deref()).unwrap() {
            seen.push((key.clone(), value));
            after = Some(key);
        }
        assert_eq!(
            seen,
            [
                (b"\x03a2".to_vec(), b"2".to_vec()),
                (b"\x03a3".to_vec(), b"3".to_vec()),
                (b"\x03a5".to_vec(), b"five".to_vec()),
            ]
        );
    }

    #[test]
    fn walks_after_deletions_ask_the_parent_once_per_deleted_key() {
        use crate::testing::{AUDIT_CYCLES_PER_LOOKUP, Counting};
        use drover_vm::meter::{CYCLES_STORAGE_NEXT, CYCLES_STORAGE_REMOVE};
        // The attack: an actor holds 1,500 entries, deletes them all in one transaction, then
        // walks from the start 3,000 times; every walk used to ask the parent past each deletion.
        let (entries, walks) = (1_500u64, 3_000u64);
        let prefix = b"\x03p".to_vec();
        let state: BTreeMap<Vec<u8>, Vec<u8>> =
            (0..entries).map(|i| ([&prefix[..], &i.to_be_bytes()].concat(), vec![1])).collect();
        let reader = Counting::new(&state);
        let mut overlay = Overlay::new(&reader);
        for key in state.keys() {
            assert!(overlay.get(key).unwrap().is_some());
            overlay.put(key.clone(), None);
        }
        for _ in 0..walks {
            assert_eq!(overlay.next_entry(&prefix, None), Ok(None));
        }
        let paid = entries * CYCLES_STORAGE_REMOVE + walks * CYCLES_STORAGE_NEXT;
        let lookups = reader.reads().lookups();
        assert!(lookups * AUDIT_CYCLES_PER_LOOKUP <= paid, "{lookups} lookups for {paid} cycles");
        // A walk from the middle, and one after the deleted keys came back, see the right keys.
        let middle = [&prefix[..], &700u64.to_be_bytes()].concat();
        let checkpoint = overlay.checkpoint();
        overlay.put(middle.clone(), Some(b"back".to_vec()));
        assert_eq!(overlay.next_entry(&prefix, None), Ok(Some((middle.clone(), b"back".to_vec()))));
        assert_eq!(overlay.next_entry(&prefix, Some(&middle)), Ok(None));
        overlay.rollback(checkpoint);
        assert_eq!(overlay.next_entry(&prefix, None), Ok(None));
        let mut overlay = Overlay::new(&reader);
        let checkpoint = overlay.checkpoint();
        for key in state.keys() {
            overlay.get(key).unwrap();
            overlay.put(key.clone(), None);
        }
        overlay.next_entry(&prefix, None).unwrap();
        overlay.rollback(checkpoint);
        let first = state.iter().next().map(|(key, value)| (key.clone(), value.clone()));
        assert_eq!(overlay.next_entry(&prefix, None), Ok(first));
    }

    /// One step of [`walks_agree_with_the_merged_state`]: keys and prefixes are drawn from a
    /// small space so that writes, deletions and walks meet.
    #[derive(Debug, Clone)]
    enum Step {
        /// Read then write (`None`: delete), as `storage_set` and `storage_remove` do.
        Write(u8, Option<u8>),
        /// Write without reading first, as system records are.
        Blind(u8, Option<u8>),
        Checkpoint,
        Rollback,
        /// Walk under prefix `0x03 ‖ p` after the key `n` (or from the start).
        Next(u8, Option<u8>),
    }

    fn key(n: u8) -> Vec<u8> {
        vec![0x03, b'a' + n % 3, n]
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        let value = proptest::option::of(0..4u8);
        prop_oneof![
            (0..24u8, value.clone()).prop_map(|(k, v)| Step::Write(k, v)),
            (0..24u8, value).prop_map(|(k, v)| Step::Blind(k, v)),
            Just(Step::Checkpoint),
            Just(Step::Rollback),
            (0..3u8, proptest::option::of(0..24u8)).prop_map(|(p, after)| Step::Next(p, after)),
            (0..3u8, proptest::option::of(0..24u8)).prop_map(|(p, after)| Step::Next(p, after)),
        ]
    }

    proptest::proptest! {
        #[test]
        fn walks_agree_with_the_merged_state(
            parent in proptest::collection::btree_map(0..24u8, 0..4u8, 0..16),
            steps in proptest::collection::vec(step(), 1..80),
        ) {
            let state: BTreeMap<Vec<u8>, Vec<u8>> = parent.iter().map(|(k, v)| (key(*k), vec![*v])).collect();
            let mut overlay = Overlay::new(&state);
            let mut model = state.clone();
            let mut saved = Vec::new();
            for step in steps {
                match step {
                    Step::Write(k, value) | Step::Blind(k, value) => {
                        if matches!(step, Step::Write(..)) {
                            proptest::prop_assert_eq!(overlay.get(&key(k)).unwrap(), model.get(&key(k)).cloned());
                        }
                        let value = value.map(|v| vec![v]);
                        overlay.put(key(k), value.clone());
                        match value {
                            Some(value) => model.insert(key(k), value),
                            None => model.remove(&key(k)),
                        };
                    }
                    Step::Checkpoint => saved.push((overlay.checkpoint(), model.clone())),
                    Step::Rollback => {
                        if let Some((checkpoint, before)) = saved.pop() {
                            overlay.rollback(checkpoint);
                            model = before;
                        }
                    }
                    Step::Next(p, after) => {
                        let prefix = vec![0x03, b'a' + p];
                        let after = after.map(|n| [&prefix[..], &[n]].concat());
                        let expected = model
                            .range(after.clone().unwrap_or_else(|| prefix.clone())..)
                            .find(|(k, _)| Some(*k) != after.as_ref())
                            .filter(|(k, _)| k.starts_with(&prefix))
                            .map(|(k, v)| (k.clone(), v.clone()));
                        proptest::prop_assert_eq!(overlay.next_entry(&prefix, after.as_deref()).unwrap(), expected);
                    }
                }
            }
        }
    }
}
