//! Accounts of the latest finalized state: a bounded cache over the state database, readable
//! without the database's lock when the account is cached.
//!
//! Every read of the state database takes its lock, and a block's commit holds that lock for
//! a few milliseconds every block: reads of accounts (the API's `GET /account`, admission's
//! sender checks, the faucet) would queue behind it. [`AccountView`] answers the accounts it
//! holds behind locks held only for a lookup or a block's updates; the others are read from the
//! database once and kept. It holds at most the configured number of accounts (the validator
//! config's `account_cache_entries`, [`ACCOUNT_CACHE_ENTRIES_DEFAULT`]), so a state of any size
//! costs the node no memory per account beyond the database's own index entry; which accounts
//! stay is `quick_cache`'s choice (S3-FIFO: an account read again is kept over one read once,
//! so a scan of many accounts does not flush the ones in use).
//!
//! * **Blocks.** Each finalized block's account writes are recorded when the block is captured
//!   ([`AccountView::record_block`]), before its state is applied to the database, and held
//!   apart from the cache (never evicted) until it is applied ([`AccountView::block_applied`]),
//!   when they enter the cache: the view is never behind the database, and a replayed block
//!   records the same values again. An account a block deleted is cached as absent.
//! * **Misses.** An account the view does not hold is read from the database
//!   ([`AccountView::read_missed`]: one lookup) and cached, unless a block was captured since
//!   the miss: the read may then be older than that block's values, which must win.
//!
//! Nothing is read ahead at start: the cache fills from the blocks and the reads the node serves.

use crate::{
    databases::{Bounds, StateDatabases},
    error::NodeError,
};
use drover_state::{Account, keys};
use drover_types::Address;
use parking_lot::RwLock;
use quick_cache::sync::Cache;
use std::collections::HashMap;

/// Accounts the view holds unless the validator config says otherwise: about 15 MiB, at the
/// ~157 bytes a cached account takes (address, nonce and balance, 68 bytes padded to 144 in the
/// cache's slots, and its share of the cache's index; `quick_cache`'s `memory_used` for a full
/// cache of 100,000).
pub const ACCOUNT_CACHE_ENTRIES_DEFAULT: usize = 100_000;

/// What the view knows of an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The account as finalized (`None`: it does not exist).
    Known(Option<Account>),
    /// Not cached: read it with [`AccountView::read_missed`], handing back this ticket.
    Miss(Ticket),
}

/// Which blocks a miss was answered after: a database read made under an older ticket may
/// predate a block's values, so it is not cached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    captured: u64,
}

/// The account writes of the block captured and not yet applied to the database.
#[derive(Default)]
struct Pending {
    writes: HashMap<Address, Option<Account>>,
    /// Blocks with account writes captured so far.
    captured: u64,
}

/// The accounts of the latest finalized state (see the module docs).
pub struct AccountView {
    /// Read-locked by every lookup, so that a block's writes move into the cache at once.
    pending: RwLock<Pending>,
    /// `None`: the account does not exist.
    cache: Cache<Address, Option<Account>>,
}

impl AccountView {
    /// A view holding at most about `entries` accounts (at least one).
    pub fn new(entries: usize) -> Self {
        Self { pending: RwLock::default(), cache: Cache::new(entries.max(1)) }
    }

    pub fn get(&self, address: &Address) -> Lookup {
        let pending = self.pending.read();
        if let Some(account) = pending.writes.get(address) {
            return Lookup::Known(*account);
        }
        match self.cache.get(address) {
            Some(account) => Lookup::Known(account),
            None => Lookup::Miss(Ticket { captured: pending.captured }),
        }
    }

    /// Reads an account the view missed from the database (one lookup) and caches it.
    pub(crate) async fn read_missed<E: Bounds>(
        &self,
        databases: &StateDatabases<E>,
        address: &Address,
        ticket: Ticket,
    ) -> Result<Option<Account>, NodeError> {
        let bytes = {
            let db = databases.read().await;
            db.get(&keys::account_key(address)).await?
        };
        let account = bytes.map(|bytes| Account::decode(&bytes)).transpose()?;
        self.fill(*address, account, ticket);
        Ok(account)
    }

    /// Caches a database read, unless a block was captured since its miss.
    fn fill(&self, address: Address, account: Option<Account>, ticket: Ticket) {
        let pending = self.pending.read();
        if pending.captured == ticket.captured {
            self.cache.insert(address, account);
        }
    }

    /// Records the account writes of a finalized block about to be applied (`None`: the
    /// account was deleted).
    pub fn record_block(&self, writes: &[(Address, Option<Account>)]) {
        if writes.is_empty() {
            return;
        }
        let mut pending = self.pending.write();
        pending.captured += 1;
        pending.writes.extend(writes.iter().copied());
    }

    /// The recorded block is in the database: its accounts join the cache.
    pub fn block_applied(&self) {
        let mut pending = self.pending.write();
        // Taken, not drained: a large block's map is not kept for the small ones after it.
        for (address, account) in std::mem::take(&mut pending.writes) {
            self.cache.insert(address, account);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_glue::stateful::db::DatabaseSet as _;
    use commonware_runtime::{Runner as _, Supervisor as _, buffer::paged::CacheRef, deterministic};
    use commonware_utils::{NZU16, NZUsize};

    fn account(balance: u128) -> Account {
        Account { nonce: 1, balance }
    }

    fn address(i: u32) -> Address {
        let mut bytes = [0xbe; 20];
        bytes[16..].copy_from_slice(&i.to_be_bytes());
        Address(bytes)
    }

    fn known(view: &AccountView, address: &Address) -> Option<Option<Account>> {
        match view.get(address) {
            Lookup::Known(account) => Some(account),
            Lookup::Miss(_) => None,
        }
    }

    fn ticket(view: &AccountView, address: &Address) -> Ticket {
        match view.get(address) {
            Lookup::Miss(ticket) => ticket,
            Lookup::Known(account) => panic!("{address} is cached: {account:?}"),
        }
    }

    #[test]
    fn the_view_holds_at_most_its_capacity_however_many_accounts_pass() {
        const ENTRIES: usize = 1_000;
        let view = AccountView::new(ENTRIES);
        // Blocks write 50,000 distinct accounts, and as many more are read after a miss.
        for block in 0..100 {
            let writes: Vec<_> = (0..500).map(|i| (address(block * 500 + i), Some(account(i.into())))).collect();
            view.record_block(&writes);
            view.block_applied();
        }
        for i in 50_000..100_000 {
            let ticket = ticket(&view, &address(i));
            view.fill(address(i), None, ticket);
        }
        let (held, capacity) = (view.cache.len(), view.cache.capacity());
        assert!(held as u64 <= capacity, "{held} accounts held, capacity {capacity}");
        assert!(capacity < (ENTRIES + view.cache.num_shards()) as u64, "capacity {capacity} for {ENTRIES}");
        assert!(held > ENTRIES / 2, "the cache is used: {held} accounts held");
    }

    #[test]
    fn recorded_blocks_win_over_reads_older_than_them() {
        let view = AccountView::new(100);
        let (a, b) = (address(1), address(2));
        // A read of `a` misses, then a block crediting `a` is captured before the database
        // answers the read with `a`'s older value.
        let stale = ticket(&view, &a);
        view.record_block(&[(a, Some(account(10)))]);
        view.fill(a, Some(account(5)), stale);
        assert_eq!(known(&view, &a), Some(Some(account(10))), "captured, not yet applied");
        view.block_applied();
        assert_eq!(known(&view, &a), Some(Some(account(10))), "applied: in the cache");
        // The same with the read answered after the block was applied.
        let stale = ticket(&view, &b);
        view.record_block(&[(b, Some(account(7)))]);
        view.block_applied();
        view.fill(b, Some(account(1)), stale);
        assert_eq!(known(&view, &b), Some(Some(account(7))));
        // A miss after the block is cached as read.
        let c = address(3);
        let fresh = ticket(&view, &c);
        view.fill(c, Some(account(3)), fresh);
        assert_eq!(known(&view, &c), Some(Some(account(3))));
    }

    #[test]
    fn a_recorded_block_is_never_evicted_before_it_is_applied() {
        let view = AccountView::new(1);
        let writes: Vec<_> = (0..100).map(|i| (address(i), Some(account(i.into())))).collect();
        view.record_block(&writes);
        for i in 1_000..2_000 {
            let ticket = ticket(&view, &address(i));
            view.fill(address(i), None, ticket);
        }
        for (address, account) in &writes {
            assert_eq!(known(&view, address), Some(*account));
        }
    }

    #[test]
    fn a_deleted_account_reads_as_absent() {
        let view = AccountView::new(100);
        let a = address(1);
        view.record_block(&[(a, Some(account(10)))]);
        view.block_applied();
        view.record_block(&[(a, None)]);
        assert_eq!(known(&view, &a), Some(None), "captured");
        view.block_applied();
        assert_eq!(known(&view, &a), Some(None), "applied");
    }

    /// Writes `accounts` to the database directly, as applying a block does.
    async fn apply(dbs: &StateDatabases<deterministic::Context>, accounts: &[(Address, Option<Account>)]) {
        let mut batch = dbs.new_batches().await;
        for (address, account) in accounts {
            batch = batch.write(keys::account_key(address), account.map(|a| a.encode()));
        }
        dbs.apply(batch.merkleize().await.expect("merkleize")).await;
    }

    #[test]
    fn a_miss_reads_the_database_once_and_a_hit_does_not() {
        deterministic::Runner::default().start(|context| async move {
            let config =
                crate::engine::qmdb_config::<deterministic::Context>("test", CacheRef::new(NZU16!(4096), NZUsize!(64)));
            let dbs = StateDatabases::init(context.child("state"), config, None).await;
            let view = AccountView::new(100);
            let (a, absent) = (address(1), address(2));
            apply(&dbs, &[(a, Some(account(10)))]).await;

            let miss = ticket(&view, &a);
            assert_eq!(view.read_missed(&dbs, &a, miss).await.unwrap(), Some(account(10)));
            let miss = ticket(&view, &absent);
            assert_eq!(view.read_missed(&dbs, &absent, miss).await.unwrap(), None);

            // The database changes behind the view's back (no block records it): the cached
            // answers show the view no longer reads the database for these accounts.
            apply(&dbs, &[(a, None), (absent, Some(account(4)))]).await;
            assert_eq!(known(&view, &a), Some(Some(account(10))));
            assert_eq!(known(&view, &absent), Some(None));
            // An account it does not hold is read from the database as it is now.
            let other = address(3);
            apply(&dbs, &[(other, Some(account(6)))]).await;
            let miss = ticket(&view, &other);
            assert_eq!(view.read_missed(&dbs, &other, miss).await.unwrap(), Some(account(6)));
        });
    }
}
