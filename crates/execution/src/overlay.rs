//! Reading the prefetched snapshot and buffering a block's account changes.
//!
//! The node prefetches every key [`prefetch_keys`](crate::prefetch_keys) names into a snapshot
//! and the executor reads only through [`StateRead`]. Each account is decoded once, on first use,
//! and then lives in the [`Overlay`] until the end of the block, when each one whose stored form
//! changed is encoded once. The overlay is a `BTreeMap` so that its writes come out in key order
//! without depending on any hash seed.

use crate::Writes;
use drover_state::{Account, RecordError, keys::account_key};
use drover_types::Address;
use std::{
    collections::{BTreeMap, HashMap},
    hash::BuildHasher,
};

/// Read access to the state a block executes on.
///
/// `get` must answer every key [`prefetch_keys`](crate::prefetch_keys) returned for the block
/// exactly as the parent state holds it (`None` for an absent key). The executor reads no other
/// key, so a snapshot of those keys is enough.
pub trait StateRead {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>>;
}

impl<S: BuildHasher> StateRead for HashMap<Vec<u8>, Vec<u8>, S> {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        HashMap::get(self, key).cloned()
    }
}

impl StateRead for BTreeMap<Vec<u8>, Vec<u8>> {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        BTreeMap::get(self, key).cloned()
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

/// One account as the parent state held it and as the block has left it so far.
struct Slot {
    original: Option<Account>,
    current: Account,
}

/// A block's view of accounts: the snapshot plus the changes made so far.
pub(crate) struct Overlay<'a, S> {
    state: &'a S,
    accounts: BTreeMap<Address, Slot>,
}

impl<'a, S: StateRead> Overlay<'a, S> {
    pub(crate) fn new(state: &'a S) -> Self {
        Self {
            state,
            accounts: BTreeMap::new(),
        }
    }

    /// The account's current value (empty if it does not exist).
    pub(crate) fn account(&mut self, address: Address) -> Result<Account, StateError> {
        if let Some(slot) = self.accounts.get(&address) {
            return Ok(slot.current);
        }
        let key = account_key(&address);
        let original = match self.state.get(&key) {
            Some(bytes) => {
                Some(Account::decode(&bytes).map_err(|source| StateError { key, source })?)
            }
            None => None,
        };
        let current = original.unwrap_or_default();
        self.accounts.insert(address, Slot { original, current });
        Ok(current)
    }

    /// Replaces the account's value. Callers read an account (with [`Overlay::account`]) before
    /// they write it; an account written unread is taken to have been absent.
    pub(crate) fn set(&mut self, address: Address, account: Account) {
        self.accounts
            .entry(address)
            .and_modify(|slot| slot.current = account)
            .or_insert(Slot {
                original: None,
                current: account,
            });
    }

    /// Key-value writes for every account whose stored form changed, in key order. An empty
    /// account is stored as an absent key.
    pub(crate) fn into_writes(self) -> Writes {
        self.accounts
            .into_iter()
            .filter_map(|(address, slot)| {
                let stored = (!slot.current.is_empty()).then_some(slot.current);
                (stored != slot.original).then(|| {
                    (
                        account_key(&address),
                        stored.map(|account| account.encode()),
                    )
                })
            })
            .collect()
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
        let state = HashMap::from([(key.clone(), vec![0x82, 0x01])]);
        let mut overlay = Overlay::new(&state);
        let error = overlay.account(address(1)).unwrap_err();
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
            fn get(&self, _: &[u8]) -> Option<Vec<u8>> {
                self.0.set(self.0.get() + 1);
                None
            }
        }
        let state = Counting(std::cell::Cell::new(0));
        let mut overlay = Overlay::new(&state);
        for _ in 0..3 {
            overlay.account(address(1)).unwrap();
        }
        assert_eq!(state.0.get(), 1);
    }
}
