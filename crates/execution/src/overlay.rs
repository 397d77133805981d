//! Reading the parent state, discovering what is missing, and buffering a block's changes with a
//! journal for rollback.
//!
//! **Reads.** The executor reads the parent state only through [`StateRead`], which may answer
//! [`Unknown`]: the node runs the executor over a partial [`Snapshot`] and fetches what it names
//! (see [`NeedState`](crate::NeedState)). A `BTreeMap` is a complete state and never answers
//! unknown. Two kinds of question exist: the value of a key, and the next entry after a key
//! under a prefix ([`NextKeyQuery`]), which actor storage iteration needs and a speculative
//! batch cannot answer by itself.
//!
//! **Overlay.** Each account is decoded once, on first use, and lives in the [`Overlay`] until
//! the end of the block; other records live there as raw bytes. Every change pushes an undo
//! entry on a journal, so [`Overlay::checkpoint`] / [`Overlay::rollback`] undo exactly the
//! changes made since — nested actor calls, a reverted transaction, a transaction the proposer
//! drops for want of room. The maps are `BTreeMap`s so that writes come out in key order
//! without depending on any hash seed.
//!
//! **Missing state.** A read the state cannot answer is recorded (key or next-key query) and
//! fails with [`ReadError::Unknown`]. What the executor computes after such a failure is thrown
//! away; what matters is that every missing item of the round is recorded. An answer, once
//! given, is what a complete state would have said, so the final round (the one with nothing
//! missing) computes exactly what a complete snapshot computes.

use crate::Writes;
use drover_state::{Account, RecordError, keys::account_key};
use drover_types::Address;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The state could not answer: the key (or next-key query) was not fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unknown;

/// "The first entry of the parent state whose key starts with `prefix` and is strictly greater
/// than `after`" (from the first key with the prefix when `after` is `None`).
///
/// The node answers it from the committed database (`get_next_key`) merged with the writes of
/// the not-yet-finalized ancestors, as `(key, value)` or `None` when there is no such entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NextKeyQuery {
    pub prefix: Vec<u8>,
    pub after: Option<Vec<u8>>,
}

/// A storage entry of the parent state: `(key, value)`.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Read access to the parent state a block executes on.
pub trait StateRead {
    /// The value under `key` (`Ok(None)`: absent), or [`Unknown`] if not fetched.
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Unknown>;

    /// The answer to a next-key query, or [`Unknown`] if not fetched.
    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, Unknown>;
}

/// A complete state: every key is known.
impl StateRead for BTreeMap<Vec<u8>, Vec<u8>> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Unknown> {
        Ok(BTreeMap::get(self, key).cloned())
    }

    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, Unknown> {
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

/// A partial state: the answers the node has fetched so far. What it was not given is
/// [`Unknown`]. Built by the node round after round from [`NeedState`](crate::NeedState).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    values: HashMap<Vec<u8>, Option<Vec<u8>>>,
    next: HashMap<NextKeyQuery, Option<Entry>>,
}

impl Snapshot {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the parent state's value of `key` (`None`: absent). A later answer replaces an
    /// earlier one (the node lays the genesis writes over block 1's reads this way).
    pub fn insert(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        self.values.insert(key, value);
    }

    /// Records the answer to a next-key query.
    pub fn answer(&mut self, query: NextKeyQuery, answer: Option<Entry>) {
        self.next.insert(query, answer);
    }

    /// Whether `key` has been answered.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.values.contains_key(key)
    }
}

impl StateRead for Snapshot {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Unknown> {
        self.values.get(key).cloned().ok_or(Unknown)
    }

    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, Unknown> {
        self.next.get(query).cloned().ok_or(Unknown)
    }
}

/// The state holds bytes that are not the record its key calls for.
///
/// Only the executor writes these records, so this means a corrupt database; every honest node
/// would hit it at the same point, and the node must stop rather than guess a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt state record at key 0x{}: {source}", hex::encode(key))]
pub struct StateError {
    pub key: Vec<u8>,
    pub source: RecordError,
}

/// Why a read through the overlay gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// Not fetched yet; recorded in the overlay's missing set.
    Unknown,
    /// The stored bytes are not the expected record: fatal for the block.
    Corrupt(StateError),
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

/// A position in the journal to roll back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Checkpoint(usize);

/// A block's view of the state: the parent plus the changes made so far, journaled.
pub(crate) struct Overlay<'a, S> {
    state: &'a S,
    accounts: BTreeMap<Address, Slot>,
    kv: BTreeMap<Vec<u8>, KvSlot>,
    journal: Vec<Undo>,
    missing: BTreeSet<Vec<u8>>,
    missing_next: BTreeSet<NextKeyQuery>,
    /// Reads that found state missing, counted every time (a key missed twice counts twice),
    /// so that a caller can tell whether its own work missed anything.
    misses: usize,
}

impl<'a, S: StateRead> Overlay<'a, S> {
    pub(crate) fn new(state: &'a S) -> Self {
        Self {
            state,
            accounts: BTreeMap::new(),
            kv: BTreeMap::new(),
            journal: Vec::new(),
            missing: BTreeSet::new(),
            missing_next: BTreeSet::new(),
            misses: 0,
        }
    }

    /// The account's current value (empty if it does not exist).
    pub(crate) fn account(&mut self, address: Address) -> Result<Account, ReadError> {
        if let Some(slot) = self.accounts.get(&address) {
            return Ok(slot.current);
        }
        let key = account_key(&address);
        let original = match self.state.get(&key) {
            Ok(Some(bytes)) => {
                Some(Account::decode(&bytes).map_err(|source| StateError { key, source })?)
            }
            Ok(None) => None,
            Err(Unknown) => {
                self.misses += 1;
                self.missing.insert(key);
                return Err(ReadError::Unknown);
            }
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
            .or_insert(Slot {
                original: None,
                current: account,
            });
    }

    /// The raw value under `key` as the block has left it.
    pub(crate) fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadError> {
        if let Some(slot) = self.kv.get(key) {
            return Ok(slot.current.clone());
        }
        match self.state.get(key) {
            Ok(value) => {
                self.kv.insert(
                    key.to_vec(),
                    KvSlot {
                        original: Some(value.clone()),
                        current: value.clone(),
                    },
                );
                Ok(value)
            }
            Err(Unknown) => {
                self.misses += 1;
                self.missing.insert(key.to_vec());
                Err(ReadError::Unknown)
            }
        }
    }

    /// Reads and decodes a record.
    pub(crate) fn record<T>(
        &mut self,
        key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, RecordError>,
    ) -> Result<Option<T>, ReadError> {
        match self.get(key)? {
            Some(bytes) => decode(&bytes).map(Some).map_err(|source| {
                ReadError::Corrupt(StateError {
                    key: key.to_vec(),
                    source,
                })
            }),
            None => Ok(None),
        }
    }

    /// Writes `value` under `key` (`None` deletes it).
    pub(crate) fn put(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        let previous = self.kv.get(&key).cloned();
        self.journal.push(Undo::Kv(key.clone(), previous));
        match self.kv.get_mut(&key) {
            Some(slot) => slot.current = value,
            None => {
                self.kv.insert(
                    key,
                    KvSlot {
                        original: None,
                        current: value,
                    },
                );
            }
        }
    }

    /// The first entry whose key starts with `prefix` and is greater than `after`, as the block
    /// has left the state: the parent's answer (skipping keys the block deleted) merged with
    /// keys the block wrote.
    pub(crate) fn next_entry(
        &mut self,
        prefix: &[u8],
        after: Option<&[u8]>,
    ) -> Result<Option<Entry>, ReadError> {
        use std::ops::Bound;
        let start = match after {
            Some(after) => Bound::Excluded(after.to_vec()),
            None => Bound::Included(prefix.to_vec()),
        };
        let written = self
            .kv
            .range((start, Bound::Unbounded))
            .take_while(|(key, _)| key.starts_with(prefix))
            .find_map(|(key, slot)| slot.current.clone().map(|value| (key.clone(), value)));
        let mut cursor = after.map(<[u8]>::to_vec);
        let parent = loop {
            let query = NextKeyQuery {
                prefix: prefix.to_vec(),
                after: cursor.clone(),
            };
            match self.state.next_entry(&query) {
                Ok(None) => break None,
                // A key the block holds: if it has a value, `written` holds it or a smaller
                // key, so the parent has nothing better; a deleted key is skipped by asking
                // again after it.
                Ok(Some((key, _))) if self.kv.contains_key(&key) => {
                    if self.kv.get(&key).is_some_and(|slot| slot.current.is_some()) {
                        break None;
                    }
                    cursor = Some(key);
                }
                Ok(Some((key, value))) => {
                    // The answer carries the value: remember it so a later get needs no fetch.
                    self.kv.insert(
                        key.clone(),
                        KvSlot {
                            original: Some(Some(value.clone())),
                            current: Some(value.clone()),
                        },
                    );
                    break Some((key, value));
                }
                Err(Unknown) => {
                    self.misses += 1;
                    self.missing_next.insert(query);
                    return Err(ReadError::Unknown);
                }
            }
        };
        Ok(match (written, parent) {
            (Some(w), Some(p)) => Some(if w.0 <= p.0 { w } else { p }),
            (w, p) => w.or(p),
        })
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
                Some(Undo::Kv(key, Some(slot))) => {
                    self.kv.insert(key, slot);
                }
                Some(Undo::Kv(key, None)) => {
                    self.kv.remove(&key);
                }
                None => break,
            }
        }
    }

    /// Drops the journal: the changes so far can no longer be rolled back (called between
    /// transactions, so the journal stays as small as one transaction).
    pub(crate) fn settle(&mut self) {
        self.journal.clear();
    }

    /// How many reads found state missing so far (each one counted).
    pub(crate) fn misses(&self) -> usize {
        self.misses
    }

    /// The missing keys and next-key queries, sorted.
    pub(crate) fn take_missing(&mut self) -> (Vec<Vec<u8>>, Vec<NextKeyQuery>) {
        (
            std::mem::take(&mut self.missing).into_iter().collect(),
            std::mem::take(&mut self.missing_next).into_iter().collect(),
        )
    }

    /// Key-value writes for every account and record whose stored form changed, sorted by key.
    /// An empty account is stored as an absent key.
    pub(crate) fn into_writes(self) -> Writes {
        let accounts = self.accounts.into_iter().filter_map(|(address, slot)| {
            let stored = (!slot.current.is_empty()).then_some(slot.current);
            (stored != slot.original).then(|| {
                (
                    account_key(&address),
                    stored.map(|account| account.encode()),
                )
            })
        });
        let records = self.kv.into_iter().filter_map(|(key, slot)| match slot.original {
            Some(original) if original == slot.current => None,
            _ => Some((key, slot.current)),
        });
        let mut writes: Writes = accounts.chain(records).collect();
        writes.sort_by(|a, b| a.0.cmp(&b.0));
        writes
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
        let stored = Account {
            nonce: 1,
            balance: 10,
        };
        let state = BTreeMap::from([(account_key(&address(2)), stored.encode())]);
        let mut overlay = Overlay::new(&state);
        assert_eq!(overlay.account(address(2)), Ok(stored));
        for n in [9, 3, 2] {
            let account = overlay.account(address(n)).unwrap();
            overlay.set(
                address(n),
                Account {
                    balance: account.balance + 1,
                    ..account
                },
            );
        }
        let unchanged = overlay.account(address(5)).unwrap();
        overlay.set(address(5), unchanged);
        let writes = overlay.into_writes();
        let keys: Vec<_> = writes.iter().map(|(key, _)| key.clone()).collect();
        assert_eq!(
            keys,
            [
                account_key(&address(2)),
                account_key(&address(3)),
                account_key(&address(9))
            ]
        );
        assert_eq!(
            writes[0].1,
            Some(
                Account {
                    nonce: 1,
                    balance: 11
                }
                .encode()
            )
        );
    }

    #[test]
    fn an_emptied_account_is_deleted() {
        let state = BTreeMap::from([(
            account_key(&address(1)),
            Account {
                nonce: 0,
                balance: 5,
            }
            .encode(),
        )]);
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
        assert!(
            error
                .to_string()
                .starts_with("corrupt state record at key 0x0101"),
            "{error}"
        );
    }

    #[test]
    fn each_account_is_read_from_the_snapshot_once() {
        struct Counting(std::cell::Cell<usize>);
        impl StateRead for Counting {
            fn get(&self, _: &[u8]) -> Result<Option<Vec<u8>>, Unknown> {
                self.0.set(self.0.get() + 1);
                Ok(None)
            }
            fn next_entry(&self, _: &NextKeyQuery) -> Result<Option<Entry>, Unknown> {
                Ok(None)
            }
        }
        let state = Counting(std::cell::Cell::new(0));
        let mut overlay = Overlay::new(&state);
        for _ in 0..3 {
            overlay.account(address(1)).unwrap();
        }
        assert_eq!(state.0.get(), 1);
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
        assert_eq!(
            writes,
            [(
                account_key(&address(1)),
                Some(Account { nonce: 1, balance: 1 }.encode())
            )]
        );
    }

    #[test]
    fn unknown_reads_are_recorded_not_guessed() {
        let mut snapshot = Snapshot::new();
        snapshot.insert(b"\x03a".to_vec(), None);
        let mut overlay = Overlay::new(&snapshot);
        assert_eq!(overlay.get(b"\x03a"), Ok(None));
        assert_eq!(overlay.get(b"\x03b"), Err(ReadError::Unknown));
        assert_eq!(overlay.account(address(1)), Err(ReadError::Unknown));
        assert_eq!(
            overlay.next_entry(b"\x03", None),
            Err(ReadError::Unknown)
        );
        let (keys, queries) = overlay.take_missing();
        assert_eq!(keys, [account_key(&address(1)), b"\x03b".to_vec()]);
        assert_eq!(
            queries,
            [NextKeyQuery {
                prefix: b"\x03".to_vec(),
                after: None
            }]
        );
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
        // The same walk over a snapshot answering the same queries gives the same entries.
        let mut snapshot = Snapshot::new();
        let cursors: [Option<&[u8]>; 5] = [None, Some(b"\x03a1"), Some(b"\x03a2"), Some(b"\x03a3"), Some(b"\x03a5")];
        for after in cursors {
            let query = NextKeyQuery {
                prefix: b"\x03a".to_vec(),
                after: after.map(<[u8]>::to_vec),
            };
            let answer = state.next_entry(&query).unwrap();
            snapshot.answer(query, answer);
        }
        let mut overlay = Overlay::new(&snapshot);
        overlay.put(b"\x03a1".to_vec(), None);
        overlay.put(b"\x03a2".to_vec(), Some(b"2".to_vec()));
        overlay.put(b"\x03a5".to_vec(), Some(b"five".to_vec()));
        let mut again = Vec::new();
        let mut after: Option<Vec<u8>> = None;
        while let Some((key, value)) = overlay.next_entry(b"\x03a", after.as_deref()).unwrap() {
            again.push((key.clone(), value));
            after = Some(key);
        }
        assert_eq!(again, seen);
    }
}
