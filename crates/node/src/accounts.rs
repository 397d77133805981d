//! Accounts of the latest finalized state, readable without the state database's lock.
//!
//! Every read of the state database takes its lock, and a block's commit holds that lock for
//! a few milliseconds every block: reads of accounts (the API's `GET /account`, admission's
//! sender checks, the faucet) would queue behind it. [`AccountView`] keeps every account in
//! memory instead, behind a lock held only for a map lookup or a block's updates:
//!
//! * **Updates.** Each finalized block's account writes are recorded when the block is captured
//!   ([`AccountView::record_block`]), before its state is applied to the database: the view is
//!   never behind the database, and a replayed block records the same values again.
//! * **Warm-up.** At start the view knows nothing; a background task walks the account family of
//!   the database in chunks ([`warm_up`]), each under the lock only briefly, and fills in what the
//!   view does not hold yet. A block recorded meanwhile always wins: its values are newer than any
//!   the walk can read, and an account it emptied (deleted) stays recorded as deleted until the
//!   walk ends. Until then a read the view cannot answer goes to the database.
//!
//! Memory: about 64 bytes per account (the address, nonce and balance in a hash map).

use crate::databases::{StateDatabases, StateDb};
use drover_state::{Account, keys};
use drover_types::Address;
use parking_lot::RwLock;
use std::{
    collections::HashMap,
    sync::atomic::{AtomicBool, Ordering},
};

/// Accounts the warm-up reads per hold of the database lock.
pub(crate) const WARM_UP_CHUNK_ACCOUNTS: usize = 4_096;

/// What the view knows of an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The account as finalized (`None`: it does not exist).
    Known(Option<Account>),
    /// The warm-up has not reached it: ask the database.
    Unknown,
}

/// The accounts of the latest finalized state (see the module docs).
#[derive(Default)]
pub struct AccountView {
    /// `None`: deleted by a block the warm-up may not have seen; dropped when it ends.
    accounts: RwLock<HashMap<Address, Option<Account>>>,
    complete: AtomicBool,
}

impl AccountView {
    pub fn get(&self, address: &Address) -> Lookup {
        match self.accounts.read().get(address) {
            Some(account) => Lookup::Known(*account),
            None if self.complete.load(Ordering::Acquire) => Lookup::Known(None),
            None => Lookup::Unknown,
        }
    }

    /// Records the account writes of a finalized block (`None`: the account was deleted).
    pub fn record_block(&self, writes: &[(Address, Option<Account>)]) {
        if writes.is_empty() {
            return;
        }
        let complete = self.complete.load(Ordering::Acquire);
        let mut accounts = self.accounts.write();
        for (address, account) in writes {
            match account {
                None if complete => {
                    accounts.remove(address);
                }
                _ => {
                    accounts.insert(*address, *account);
                }
            }
        }
    }

    /// Adds accounts read from the database, unless a block recorded them first.
    fn fill(&self, read: Vec<(Address, Account)>) {
        let mut accounts = self.accounts.write();
        for (address, account) in read {
            accounts.entry(address).or_insert(Some(account));
        }
    }

    /// The warm-up has read every account: from now on, an absent account does not exist.
    fn complete(&self) {
        let mut accounts = self.accounts.write();
        accounts.retain(|_, account| account.is_some());
        self.complete.store(true, Ordering::Release);
    }

    /// How many accounts the view holds.
    pub fn len(&self) -> usize {
        self.accounts.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the warm-up has ended.
    pub fn is_complete(&self) -> bool {
        self.complete.load(Ordering::Acquire)
    }
}

/// Fills `view` with every account of the state database, [`WARM_UP_CHUNK_ACCOUNTS`] per hold
/// of its lock, then marks it complete.
pub(crate) async fn warm_up<E>(
    view: &AccountView,
    databases: &StateDatabases<E>,
) -> Result<(), crate::databases::StateError>
where
    E: crate::databases::Bounds,
{
    use std::ops::Bound;
    let family = vec![keys::PREFIX_ACCOUNT];
    let mut start = Bound::Included(family.clone());
    loop {
        let (chunk, last) = {
            let db = databases.read().await;
            read_chunk(&db, start.clone(), &family).await?
        };
        view.fill(chunk);
        match last {
            Some(key) => start = Bound::Excluded(key),
            None => break,
        }
    }
    view.complete();
    Ok(())
}

/// Up to [`WARM_UP_CHUNK_ACCOUNTS`] accounts from `start`, and the last key read if the family
/// goes on.
async fn read_chunk<E>(
    db: &StateDb<E>,
    start: std::ops::Bound<Vec<u8>>,
    family: &[u8],
) -> Result<(Vec<(Address, Account)>, Option<Vec<u8>>), crate::databases::StateError>
where
    E: crate::databases::Bounds,
{
    use futures::StreamExt as _;
    let mut stream = Box::pin(db.stream_range((start, std::ops::Bound::Unbounded)));
    let mut chunk = Vec::with_capacity(WARM_UP_CHUNK_ACCOUNTS);
    let mut last = None;
    while chunk.len() < WARM_UP_CHUNK_ACCOUNTS {
        let Some(entry) = stream.next().await else { return Ok((chunk, None)) };
        let (key, value) = entry?;
        if !key.starts_with(family) {
            return Ok((chunk, None));
        }
        // Only the executor writes accounts: a record that does not decode is a corrupt
        // database, which the executor reports when it meets it; the view leaves it to it.
        if let (Some(address), Ok(account)) = (keys::account_address(&key), Account::decode(&value)) {
            chunk.push((address, account));
        }
        last = Some(key);
    }
    Ok((chunk, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(balance: u128) -> Account {
        Account { nonce: 1, balance }
    }

    #[test]
    fn blocks_win_over_the_warm_up_and_deletions_hold_until_it_ends() {
        let view = AccountView::default();
        let (a, b, c) = (Address([1; 20]), Address([2; 20]), Address([3; 20]));
        assert_eq!(view.get(&a), Lookup::Unknown);
        // A block credits `a` and deletes `b` while the warm-up is still reading older values.
        view.record_block(&[(a, Some(account(10))), (b, None)]);
        view.fill(vec![(a, account(5)), (b, account(7)), (c, account(1))]);
        assert_eq!(view.get(&a), Lookup::Known(Some(account(10))));
        assert_eq!(view.get(&b), Lookup::Known(None));
        assert_eq!(view.get(&c), Lookup::Known(Some(account(1))));
        assert_eq!(view.get(&Address([9; 20])), Lookup::Unknown);
        view.complete();
        assert!(view.is_complete());
        assert_eq!(view.len(), 2, "the deletion marker is gone");
        assert_eq!(view.get(&b), Lookup::Known(None));
        assert_eq!(view.get(&Address([9; 20])), Lookup::Known(None));
        view.record_block(&[(c, None)]);
        assert_eq!(view.get(&c), Lookup::Known(None));
        assert_eq!(view.len(), 1);
    }
}
