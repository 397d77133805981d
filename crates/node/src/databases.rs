//! The state database as `Stateful` manages it, and ordered reads of a block's parent state.
//!
//! Glue manages one QMDB (`Shared<StateDb>`). Its speculative batches answer point reads
//! through their parent chain, but actor storage iteration (`storage_next`) also needs "the
//! next key after K" in the *parent* state of the block being executed: the committed database
//! merged with the writes of every not-yet-finalized ancestor. QMDB's merkleized batches answer
//! exactly that (`get_next_key`), but a glue batch keeps neither its parent nor the database
//! handle where the application can reach them.
//!
//! [`StateDatabases`] therefore wraps glue's set and delegates everything to it, except that
//! each batch it hands the application ([`BlockBatch`]) also carries the database handle and
//! where it was forked from: a pending merkleized parent, or the applied database at a known
//! operation count. Ordered reads then go through the parent (which merges its ancestors'
//! diffs over the database) or the database itself, under one read lock. A database that has
//! moved past the batch's chain answers `StaleRead`, as glue's own batch reads do, so a block
//! is never executed against another branch's state.
//!
//! [`OrderedRead`] and [`next_entry`] turn "next key" into the executor's next-key queries; the
//! API's read-only calls use them over the committed database, blocks over a [`BlockBatch`].

use crate::application::StateDb;
use commonware_glue::stateful::db::{
    Anchor, Barrier, DatabaseSet, Shared, StateSyncSet, SyncEngineConfig, TipUpdate,
    Unmerkleized as _,
};
use commonware_runtime::{Clock, Metrics, Spawner};
use commonware_storage::{
    mmr::{self, Location},
    qmdb::{Error, current::batch::MerkleizedBatch},
};
use commonware_utils::channel::ring;
use drover_execution::{Entry, NextKeyQuery};
use std::ops::Deref;

type Inner<E> = Shared<StateDb<E>>;
type InnerUnmerkleized<E> = <Inner<E> as DatabaseSet<E>>::Unmerkleized;
type InnerMerkleized<E> = <Inner<E> as DatabaseSet<E>>::Merkleized;
pub type StateError = Error<mmr::Family>;

/// The state database set handed to `Stateful`: glue's shared database, whose batches know
/// their parent state (see the module docs). Derefs to the shared database for everything else.
pub struct StateDatabases<E: Bounds>(Inner<E>);

/// What the state database needs of the runtime.
pub trait Bounds: Spawner + Clock + Metrics + commonware_storage::Context {}
impl<E: Spawner + Clock + Metrics + commonware_storage::Context> Bounds for E {}

impl<E: Bounds> Clone for StateDatabases<E> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<E: Bounds> Deref for StateDatabases<E> {
    type Target = Inner<E>;

    fn deref(&self) -> &Inner<E> {
        &self.0
    }
}

/// The state a batch was forked from.
enum Base<E: Bounds> {
    /// A pending block's merkleized batch (which reads through its own ancestors).
    Parent(InnerMerkleized<E>),
    /// The applied database, when it held this many operations.
    Applied(Location),
}

/// A block's speculative batch: glue's batch plus what ordered reads of its parent state need.
pub struct BlockBatch<E: Bounds> {
    batch: InnerUnmerkleized<E>,
    db: Inner<E>,
    base: Base<E>,
}

/// A merkleized block batch: glue's, plus the database handle its children need.
pub struct SealedBatch<E: Bounds> {
    inner: InnerMerkleized<E>,
    db: Inner<E>,
}

impl<E: Bounds> Clone for SealedBatch<E> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone(), db: self.db.clone() }
    }
}

impl<E: Bounds> Deref for SealedBatch<E> {
    type Target = InnerMerkleized<E>;

    fn deref(&self) -> &InnerMerkleized<E> {
        &self.inner
    }
}

impl<E: Bounds> BlockBatch<E> {
    /// Values of `keys` in the parent state (in order).
    pub async fn get_many(&self, keys: &[&Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, StateError> {
        self.batch.get_many(keys).await
    }

    /// Records a write of the block.
    pub fn write(self, key: Vec<u8>, value: Option<Vec<u8>>) -> Self {
        Self { batch: self.batch.write(key, value), ..self }
    }

    pub async fn merkleize(self) -> Result<SealedBatch<E>, StateError> {
        Ok(SealedBatch { inner: self.batch.merkleize().await?, db: self.db })
    }

    /// The answer to `query` in the parent state (the block's own writes are the executor's).
    pub async fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, StateError> {
        let db = self.db.read().await;
        let view = ParentView { db: &db, base: &self.base };
        next_entry(&view, query).await
    }
}

/// The parent state of a batch, read under one database read lock.
struct ParentView<'a, E: Bounds> {
    db: &'a StateDb<E>,
    base: &'a Base<E>,
}

impl<E: Bounds> ParentView<'_, E> {
    fn check_applied(&self, ops: Location) -> Result<(), StateError> {
        if self.db.bounds().end == ops { Ok(()) } else { Err(Error::StaleRead) }
    }
}

/// Ordered point reads of one state.
#[allow(clippy::ptr_arg, reason = "the database's key type is `Vec<u8>`")]
pub trait OrderedRead {
    fn get(&self, key: &Vec<u8>) -> impl Future<Output = Result<Option<Vec<u8>>, StateError>> + Send;
    /// The smallest key strictly greater than `key`.
    fn next_key(&self, key: &Vec<u8>) -> impl Future<Output = Result<Option<Vec<u8>>, StateError>> + Send;
}

impl<E: Bounds> OrderedRead for ParentView<'_, E> {
    async fn get(&self, key: &Vec<u8>) -> Result<Option<Vec<u8>>, StateError> {
        match self.base {
            Base::Parent(parent) => MerkleizedBatch::get(parent, key, self.db).await,
            Base::Applied(ops) => {
                self.check_applied(*ops)?;
                self.db.get(key).await
            }
        }
    }

    async fn next_key(&self, key: &Vec<u8>) -> Result<Option<Vec<u8>>, StateError> {
        match self.base {
            Base::Parent(parent) => MerkleizedBatch::get_next_key(parent, key, self.db).await,
            Base::Applied(ops) => {
                self.check_applied(*ops)?;
                self.db.get_next_key(key).await
            }
        }
    }
}

impl<E: Bounds> OrderedRead for StateDb<E> {
    async fn get(&self, key: &Vec<u8>) -> Result<Option<Vec<u8>>, StateError> {
        StateDb::get(self, key).await
    }

    async fn next_key(&self, key: &Vec<u8>) -> Result<Option<Vec<u8>>, StateError> {
        self.get_next_key(key).await
    }
}

/// The first entry of `state` under `query.prefix` after `query.after` (from the prefix itself
/// when there is no `after`).
pub async fn next_entry(state: &impl OrderedRead, query: &NextKeyQuery) -> Result<Option<Entry>, StateError> {
    let candidate = match &query.after {
        Some(after) => state.next_key(after).await?,
        None => match state.get(&query.prefix).await? {
            Some(value) => return Ok(Some((query.prefix.clone(), value))),
            None => state.next_key(&query.prefix).await?,
        },
    };
    match candidate {
        Some(key) if key.starts_with(&query.prefix) => Ok(state.get(&key).await?.map(|value| (key, value))),
        _ => Ok(None),
    }
}

impl<E: Bounds> DatabaseSet<E> for StateDatabases<E> {
    type Unmerkleized = BlockBatch<E>;
    type Merkleized = SealedBatch<E>;
    type Readers = <Inner<E> as DatabaseSet<E>>::Readers;
    type Config = <Inner<E> as DatabaseSet<E>>::Config;
    type SyncTargets = <Inner<E> as DatabaseSet<E>>::SyncTargets;

    async fn init(context: E, config: Self::Config, expected: Option<Self::SyncTargets>) -> Self {
        Self(Inner::init(context, config, expected).await)
    }

    fn initial_sync_targets() -> Self::SyncTargets {
        Inner::<E>::initial_sync_targets()
    }

    async fn new_batches(&self) -> BlockBatch<E> {
        // The batch and the operation count must describe the same applied state: read the
        // count on both sides of the fork and retry if a block was applied in between.
        loop {
            let before = self.0.read().await.bounds().end;
            let batch = self.0.new_batches().await;
            if self.0.read().await.bounds().end == before {
                return BlockBatch { batch, db: self.0.clone(), base: Base::Applied(before) };
            }
        }
    }

    fn fork_batches(parent: &SealedBatch<E>) -> BlockBatch<E> {
        BlockBatch {
            batch: Inner::<E>::fork_batches(&parent.inner),
            db: parent.db.clone(),
            base: Base::Parent(parent.inner.clone()),
        }
    }

    fn matches_sync_targets(batches: &SealedBatch<E>, targets: &Self::SyncTargets) -> bool {
        Inner::<E>::matches_sync_targets(&batches.inner, targets)
    }

    fn readers(&self) -> Self::Readers {
        self.0.readers()
    }

    async fn apply(&self, batches: SealedBatch<E>) {
        self.0.apply(batches.inner).await
    }

    async fn finalize(&self) -> Barrier {
        self.0.finalize().await
    }

    async fn prune(&self, targets: &Self::SyncTargets) {
        self.0.prune(targets).await
    }

    async fn committed_targets(&self) -> Self::SyncTargets {
        self.0.committed_targets().await
    }
}

impl<E, R> StateSyncSet<E, R> for StateDatabases<E>
where
    E: Bounds,
    R: Send,
    Inner<E>: StateSyncSet<E, R>,
{
    type Error = <Inner<E> as StateSyncSet<E, R>>::Error;

    async fn sync<D: commonware_cryptography::Digest>(
        context: E,
        config: Self::Config,
        sources: R,
        anchor: Anchor<D>,
        targets: Self::SyncTargets,
        tip_updates: ring::Receiver<TipUpdate<D, Self::SyncTargets>>,
        sync_config: SyncEngineConfig,
    ) -> Result<(Self, Anchor<D>), Self::Error> {
        let (db, anchor) =
            Inner::<E>::sync(context, config, sources, anchor, targets, tip_updates, sync_config).await?;
        Ok((Self(db), anchor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_runtime::{Runner as _, Supervisor as _, buffer::paged::CacheRef, deterministic};
    use commonware_utils::{NZU16, NZUsize};

    fn query(after: Option<&[u8]>) -> NextKeyQuery {
        NextKeyQuery { prefix: b"a".to_vec(), after: after.map(<[u8]>::to_vec) }
    }

    async fn next(batch: &BlockBatch<deterministic::Context>, after: Option<&[u8]>) -> Option<Vec<u8>> {
        batch.next_entry(&query(after)).await.expect("read").map(|(key, _)| key)
    }

    #[test]
    fn ordered_reads_see_pending_ancestors_over_the_database() {
        deterministic::Runner::default().start(|context| async move {
            let config = crate::engine::qmdb_config::<deterministic::Context>(
                "test",
                CacheRef::new(NZU16!(4096), NZUsize!(64)),
            );
            let dbs = StateDatabases::init(context.child("state"), config, None).await;
            let put = |batch: BlockBatch<_>, key: &[u8], value: Option<&[u8]>| {
                batch.write(key.to_vec(), value.map(<[u8]>::to_vec))
            };

            // Applied: a1, a3, b1.
            let batch = dbs.new_batches().await;
            let batch = put(put(put(batch, b"a1", Some(b"1")), b"a3", Some(b"3")), b"b1", Some(b"x"));
            dbs.apply(batch.merkleize().await.unwrap()).await;

            // A pending parent writes a2 and deletes a3; its child reads through it.
            let from_db = dbs.new_batches().await;
            let parent = put(put(dbs.new_batches().await, b"a2", Some(b"2")), b"a3", None);
            let parent = parent.merkleize().await.unwrap();
            let child = StateDatabases::fork_batches(&parent);
            assert_eq!(next(&child, None).await, Some(b"a1".to_vec()));
            assert_eq!(next(&child, Some(b"a1")).await, Some(b"a2".to_vec()));
            assert_eq!(next(&child, Some(b"a2")).await, None, "a3 was deleted and b1 is past the prefix");
            assert_eq!(
                child.next_entry(&query(Some(b"a1"))).await.unwrap(),
                Some((b"a2".to_vec(), b"2".to_vec()))
            );

            // A batch of the applied state sees the database alone.
            assert_eq!(next(&from_db, Some(b"a1")).await, Some(b"a3".to_vec()));

            // Once the parent is applied, its child still reads the same state; the batch forked
            // from the state before it has gone stale.
            dbs.apply(parent).await;
            assert_eq!(next(&child, Some(b"a1")).await, Some(b"a2".to_vec()));
            assert!(matches!(from_db.next_entry(&query(None)).await, Err(Error::StaleRead)));
        });
    }
}
