//! The state database as `Stateful` manages it, and on-demand reads of a block's parent state.
//!
//! Glue manages one QMDB (`Shared<StateDb>`). A block executes against its *parent* state: the
//! committed database merged with the writes of every not-yet-finalized ancestor. QMDB's
//! merkleized batches answer exactly that, for point reads and for "the next key after K"
//! (`get_next_key`, which actor storage iteration needs), but a glue batch keeps neither its
//! parent nor the database handle where the application can reach them.
//!
//! [`StateDatabases`] therefore wraps glue's set and delegates everything to it, except that
//! each batch it hands the application ([`BlockBatch`]) also knows its [`ParentState`]: the
//! database handle and where the batch was forked from (a pending merkleized parent, or the
//! applied database at a known operation count).
//!
//! [`ParentState::read`] runs a block's execution over a [`ParentReader`]: it takes the
//! database read lock once, checks that the database is still on the batch's chain (a database
//! that has moved past it answers `StaleRead`, as glue's own batch reads do, so a block is never
//! executed against another branch's state), reads the predictable keys together, and then
//! answers each read the executor makes when it makes it, by a lookup through the parent (which
//! merges its ancestors' diffs over the database) or in the database itself. The lock is held
//! for the whole execution so that every read sees the same state; it is a read lock, so only
//! the apply of a finalized block waits, for at most one block's execution. No proposer or
//! sender chooses how long that is: a block is refused before any transaction runs unless the
//! limits of its transactions fit the block's (`drover_execution`'s block validator), so its
//! execution is bounded by the block limits whatever a byzantine leader proposes. The executor is
//! synchronous (the VM calls its host synchronously), so each lookup is driven to completion in
//! place: QMDB's reads need no other task to make progress (page-cache fetches are driven by
//! their waiters), under the tokio runtime and the deterministic one alike. Each lookup runs
//! outside tokio's cooperative budget (`drive`): execution runs inside one task that does not
//! yield between lookups, so once a block had made about a hundred reads that missed the page
//! cache, every further file read would have answered "yield first", and driving it in place
//! would have spun forever.
//!
//! [`OrderedRead`] and [`next_entry`] turn "next key" into the executor's next-key queries; the
//! API's read-only calls use them over the committed database, blocks over a [`ParentReader`].

use commonware_cryptography::Sha256;
use commonware_glue::stateful::db::{
    Anchor, Barrier, DatabaseSet, Shared, StateSyncSet, SyncEngineConfig, TipUpdate, Unmerkleized as _,
};
use commonware_parallel::Sequential;
use commonware_runtime::{Clock, Metrics, Spawner};
use commonware_storage::{
    mmr::{self, Location},
    qmdb::{
        Error,
        current::{batch::MerkleizedBatch, ordered::variable},
    },
};
use commonware_utils::channel::ring;
use drover_execution::{Entry, NextKeyQuery, ReadFault, StateRead};
use std::{
    cell::Cell,
    collections::{BTreeMap, HashMap},
    ops::Deref,
};

/// The one state database: ordered (prefix scans, exclusion proofs), variable-size values,
/// indexed by the keys' index prefix (`translator::StatePrefix`).
pub type StateDb<E> =
    variable::Db<mmr::Family, E, Vec<u8>, Vec<u8>, Sha256, crate::translator::StatePrefix, 32, Sequential>;

/// The database set glue manages: the state database, with each block batch knowing its parent.
pub type Databases<E> = StateDatabases<E>;

type Inner<E> = Shared<StateDb<E>>;
type InnerUnmerkleized<E> = <Inner<E> as DatabaseSet<E>>::Unmerkleized;
type InnerMerkleized<E> = <Inner<E> as DatabaseSet<E>>::Merkleized;
/// An error of the state database.
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

impl<E: Bounds> Clone for Base<E> {
    fn clone(&self) -> Self {
        match self {
            Base::Parent(parent) => Base::Parent(parent.clone()),
            Base::Applied(ops) => Base::Applied(*ops),
        }
    }
}

/// A block's speculative batch: glue's batch plus its parent state.
pub struct BlockBatch<E: Bounds> {
    batch: InnerUnmerkleized<E>,
    parent: ParentState<E>,
}

/// The parent state of a block's batch: the database handle and where the batch was forked
/// from. Cheap to clone, so that a block's execution can run in a task of its own.
pub struct ParentState<E: Bounds> {
    db: Inner<E>,
    base: Base<E>,
}

impl<E: Bounds> Clone for ParentState<E> {
    fn clone(&self) -> Self {
        Self { db: self.db.clone(), base: self.base.clone() }
    }
}

/// Writes laid over the parent state: block 1's genesis allocations and parameters (the
/// genesis block is never executed); empty for every later block. `None` deletes.
pub type Layer = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

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
    /// The state this batch was forked from.
    pub fn parent(&self) -> ParentState<E> {
        self.parent.clone()
    }

    /// Records a write of the block.
    pub fn write(self, key: Vec<u8>, value: Option<Vec<u8>>) -> Self {
        Self { batch: self.batch.write(key, value), ..self }
    }

    /// Merkleizes the block's writes; the sealed batch computes the block's state root.
    pub async fn merkleize(self) -> Result<SealedBatch<E>, StateError> {
        Ok(SealedBatch { inner: self.batch.merkleize().await?, db: self.parent.db })
    }
}

impl<E: Bounds> ParentState<E> {
    /// Runs `run` over this state with `layer` laid over it, read on demand under one database
    /// read lock held throughout (see the module docs), after reading `prefetch` together.
    /// Fails if the database has left this state's chain or a prefetch read fails; a read that
    /// fails later is the executor's to report ([`ReadFault`]).
    pub async fn read<R>(
        &self,
        layer: &Layer,
        prefetch: &[Vec<u8>],
        run: impl FnOnce(&ParentReader<'_, E>) -> R,
    ) -> Result<R, StateError> {
        let db = self.db.read().await;
        let view = ParentView { db: &db, base: &self.base };
        if let Base::Applied(ops) = self.base {
            view.check_applied(ops)?;
        }
        let unlayered: Vec<&Vec<u8>> = prefetch.iter().filter(|key| !layer.contains_key(*key)).collect();
        let unlayered_count = unlayered.len() as u64;
        let values = view.get_many(&unlayered).await?;
        let prefetched = unlayered.into_iter().cloned().zip(values).collect();
        let reader = ParentReader { view, layer, prefetched, lookups: Cell::new(unlayered_count) };
        Ok(run(&reader))
    }
}

/// A block's parent state as the executor reads it: the layer, then the prefetched keys, then
/// one lookup per read (see the module docs).
pub struct ParentReader<'a, E: Bounds> {
    view: ParentView<'a, E>,
    layer: &'a Layer,
    prefetched: HashMap<Vec<u8>, Option<Vec<u8>>>,
    /// Database lookups so far (the prefetched keys, then each read on demand).
    lookups: Cell<u64>,
}

impl<E: Bounds> ParentReader<'_, E> {
    /// Database lookups made so far, prefetched keys included.
    pub fn lookups(&self) -> u64 {
        self.lookups.get()
    }
}

fn fault(error: StateError) -> ReadFault {
    ReadFault(error.to_string())
}

impl<E: Bounds> StateRead for ParentReader<'_, E> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
        if let Some(value) = self.layer.get(key).or_else(|| self.prefetched.get(key)) {
            return Ok(value.clone());
        }
        self.lookups.set(self.lookups.get() + 1);
        drive(self.view.get(&key.to_vec())).map_err(fault)
    }

    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, ReadFault> {
        self.lookups.set(self.lookups.get() + 1);
        drive(layered_next_entry(&self.view, self.layer, query)).map_err(fault)
    }
}

/// Drives one lookup to completion on this thread. The storage reads under it await tokio
/// join handles, which consume the enclosing task's cooperative budget and, once it is spent,
/// answer "pending" and wake at once until the task yields to its scheduler, which a task
/// blocked here never does: unconstrained, they only wait for the read itself. Outside tokio
/// (the deterministic runtime) this changes nothing.
fn drive<F: Future>(lookup: F) -> F::Output {
    futures::executor::block_on(tokio::task::unconstrained(lookup))
}

/// The answer to `query` in `state` with `layer` laid over it: the first entry after the
/// query's start that the layer does not delete.
async fn layered_next_entry(
    state: &impl OrderedRead,
    layer: &Layer,
    query: &NextKeyQuery,
) -> Result<Option<Entry>, StateError> {
    use std::ops::Bound;
    let start = match &query.after {
        Some(after) => Bound::Excluded(after.clone()),
        None => Bound::Included(query.prefix.clone()),
    };
    let layered = layer
        .range((start, Bound::Unbounded))
        .take_while(|(key, _)| key.starts_with(&query.prefix))
        .find_map(|(key, value)| value.clone().map(|value| (key.clone(), value)));
    let mut cursor = query.clone();
    let stored = loop {
        match next_entry(state, &cursor).await? {
            // The layer decides this key (it is `layered` or deleted): look further.
            Some((key, _)) if layer.contains_key(&key) => cursor.after = Some(key),
            other => break other,
        }
    };
    Ok(match (layered, stored) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    })
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

    async fn get_many(&self, keys: &[&Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, StateError> {
        match self.base {
            Base::Parent(parent) => MerkleizedBatch::get_many(parent, keys, self.db).await,
            Base::Applied(_) => self.db.get_many(keys).await,
        }
    }
}

/// Ordered point reads of one state.
#[allow(clippy::ptr_arg, reason = "the database's key type is `Vec<u8>`")]
pub trait OrderedRead {
    /// The value under `key`.
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
                let parent = ParentState { db: self.0.clone(), base: Base::Applied(before) };
                return BlockBatch { batch, parent };
            }
        }
    }

    fn fork_batches(parent: &SealedBatch<E>) -> BlockBatch<E> {
        BlockBatch {
            batch: Inner::<E>::fork_batches(&parent.inner),
            parent: ParentState { db: parent.db.clone(), base: Base::Parent(parent.inner.clone()) },
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

    /// The next entry under `a` after `after` in the batch's parent state with `layer` over it.
    async fn next_in(
        batch: &BlockBatch<deterministic::Context>,
        layer: &Layer,
        after: Option<&[u8]>,
    ) -> Result<Option<Entry>, StateError> {
        batch.parent().read(layer, &[], |reader| reader.next_entry(&query(after)).expect("read")).await
    }

    async fn next(batch: &BlockBatch<deterministic::Context>, after: Option<&[u8]>) -> Option<Vec<u8>> {
        next_in(batch, &Layer::new(), after).await.expect("on the chain").map(|(key, _)| key)
    }

    #[test]
    fn reads_see_pending_ancestors_over_the_database() {
        deterministic::Runner::default().start(|context| async move {
            let config =
                crate::engine::qmdb_config::<deterministic::Context>("test", CacheRef::new(NZU16!(4096), NZUsize!(64)));
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
                next_in(&child, &Layer::new(), Some(b"a1")).await.unwrap(),
                Some((b"a2".to_vec(), b"2".to_vec()))
            );
            // Point reads, prefetched or on demand, agree.
            let keys = [b"a1".to_vec(), b"a3".to_vec()];
            let read = |reader: &ParentReader<'_, _>| {
                keys.iter().chain([&b"a2".to_vec()]).map(|key| reader.get(key).expect("read")).collect::<Vec<_>>()
            };
            let expected = vec![Some(b"1".to_vec()), None, Some(b"2".to_vec())];
            assert_eq!(child.parent().read(&Layer::new(), &keys, read).await.unwrap(), expected);
            assert_eq!(child.parent().read(&Layer::new(), &[], read).await.unwrap(), expected);

            // A layer decides the keys it holds.
            let layer = Layer::from([(b"a0".to_vec(), Some(b"0".to_vec())), (b"a1".to_vec(), None)]);
            let first = next_in(&child, &layer, None).await.unwrap();
            assert_eq!(first, Some((b"a0".to_vec(), b"0".to_vec())));
            assert_eq!(next_in(&child, &layer, Some(b"a0")).await.unwrap().map(|e| e.0), Some(b"a2".to_vec()));
            let layered = child.parent().read(&layer, &keys, |reader| reader.get(b"a1").expect("read")).await;
            assert_eq!(layered.unwrap(), None);

            // A batch of the applied state sees the database alone.
            assert_eq!(next(&from_db, Some(b"a1")).await, Some(b"a3".to_vec()));

            // Once the parent is applied, its child still reads the same state; the batch forked
            // from the state before it has gone stale.
            dbs.apply(parent).await;
            assert_eq!(next(&child, Some(b"a1")).await, Some(b"a2".to_vec()));
            assert!(matches!(next_in(&from_db, &Layer::new(), None).await, Err(Error::StaleRead)));
        });
    }

    /// Under tokio, a block reads its state from a blocking task that never yields between
    /// lookups; reads that miss the page cache must still complete however many there are.
    #[test]
    fn many_uncached_reads_complete_under_tokio() {
        const KEYS: u32 = 10_000;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let storage = dir.path().to_path_buf();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let config = commonware_runtime::tokio::Config::new().with_storage_directory(storage);
            commonware_runtime::tokio::Runner::new(config).start(|context| async move {
                // Two pages of cache: almost every read of the journal goes to the file.
                let config = crate::engine::qmdb_config::<commonware_runtime::tokio::Context>(
                    "test",
                    CacheRef::new(NZU16!(4096), NZUsize!(2)),
                );
                let dbs = StateDatabases::init(context.child("state"), config, None).await;
                let key = |i: u32| [b"k".as_slice(), &i.to_be_bytes()].concat();
                let mut batch = dbs.new_batches().await;
                for i in 0..KEYS {
                    batch = batch.write(key(i), Some(vec![7; 400]));
                }
                dbs.apply(batch.merkleize().await.unwrap()).await;
                assert!(dbs.finalize().await.durable().await);
                let reading = dbs.new_batches().await;
                let read = context.child("execute").shared(true).spawn(move |_| async move {
                    reading
                        .parent()
                        .read(&Layer::new(), &[], |reader| {
                            (0..KEYS).filter(|&i| reader.get(&key(i)).expect("read").is_some()).count()
                        })
                        .await
                });
                let found = read.await.expect("the task ran").expect("on the chain");
                done.send(found).expect("the test waits");
            });
        });
        let found = finished.recv_timeout(std::time::Duration::from_secs(120)).expect("the reads completed");
        assert_eq!(found, KEYS as usize);
    }
}
