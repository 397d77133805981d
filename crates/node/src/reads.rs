//! Read-only calls (`POST /actor/read`): off the commit path, bounded in time, concurrent.
//!
//! A read runs a handler against the latest applied state. It is free for the caller, so what
//! it may cost the node is bounded by rules of the node, not by a fee:
//!
//! * **Never in the commit's way.** The state lock is taken for one lookup at a time
//!   ([`CommittedReader`]), never across the handler, so a block commit waits for at most one
//!   lookup (or one chunk of [`REVALIDATION_LOOKUPS_PER_HOLD`], below).
//! * **One consistent state.** Every lookup checks that the state is still the one the read's
//!   answers so far are valid at (its operation count). When a block was committed in between,
//!   the reader looks up again every key it has answered, at the new state: if none changed,
//!   the read goes on there (its answers are then those of the new state), and the read answers
//!   with that state's block height and root; if one changed, the read starts over on the new
//!   state. The handler sees the block height and time of the block it started at.
//! * **Bounded in time.** All attempts together get [`READ_TIME_BUDGET_MS`]; a read that cannot
//!   finish in it answers 5004 (each attempt is itself bounded by the call's cycles, which the
//!   API caps at a block's cycle target).
//! * **Bounded in CPU.** Reads run on [`READ_THREADS`] threads of their own at the lowest CPU
//!   priority, so that block production and verification keep the cores they need however many
//!   clients read; at most [`READS_QUEUED_MAX`] more wait for a thread, and a read beyond that
//!   is refused at once with 429 instead of queueing without bound.

use crate::databases::{StateDatabases, StateDb};
use commonware_cryptography::sha256;
use commonware_runtime::tokio;
use commonware_storage::mmr::Location;
use drover_execution::{Entry, NextKeyQuery, ReadFault, StateRead};
use std::{
    cell::{Cell, RefCell},
    sync::Arc,
    time::{Duration, Instant},
};

/// Most time one read-only call may take, all attempts included.
pub(crate) const READ_TIME_BUDGET_MS: u64 = 2_000;
/// Threads that run read-only calls (each call runs on one, start to end).
pub(crate) const READ_THREADS: usize = 2;
/// Most read-only calls waiting for a thread; more are refused with 429.
pub(crate) const READS_QUEUED_MAX: usize = 64;
/// Answers looked up again per hold of the state lock when a read outlives a block.
pub(crate) const REVALIDATION_LOOKUPS_PER_HOLD: usize = 256;
/// Niceness of the read threads: the lowest CPU priority Linux offers.
const READ_THREAD_NICENESS: i32 = 19;

/// Why a [`CommittedReader`] stopped answering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Interrupt {
    /// A block changed a value the read had already used: start over on the new state.
    StateMoved,
    /// The read's time budget is spent.
    OutOfTime,
    /// The database failed to answer.
    Storage(String),
}

/// A state of the database: its operation count and root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StateStamp {
    pub ops: Location,
    pub root: sha256::Digest,
}

/// An answer the reader gave, kept to check it against a newer state.
enum Answered {
    Value(Vec<u8>, Option<Vec<u8>>),
    Next(NextKeyQuery, Option<Entry>),
}

impl Answered {
    /// Whether the state `db` gives the same answer.
    async fn holds(&self, db: &StateDb<tokio::Context>) -> Result<bool, crate::databases::StateError> {
        Ok(match self {
            Answered::Value(key, value) => db.get(key).await? == *value,
            Answered::Next(query, entry) => crate::databases::next_entry(db, query).await? == *entry,
        })
    }
}

/// How a lookup ended under the lock.
enum Looked<T> {
    Done(T),
    /// The state is no longer the reader's: this one.
    Moved(StateStamp),
}

/// The latest applied state, read one lookup at a time (see the module docs).
pub(crate) struct CommittedReader<'a> {
    databases: &'a StateDatabases<tokio::Context>,
    runtime: &'a ::tokio::runtime::Handle,
    /// The state the answers so far are valid at.
    stamp: Cell<StateStamp>,
    answered: RefCell<Vec<Answered>>,
    deadline: Instant,
    interrupt: Cell<Option<Interrupt>>,
}

impl<'a> CommittedReader<'a> {
    pub(crate) fn new(
        databases: &'a StateDatabases<tokio::Context>,
        runtime: &'a ::tokio::runtime::Handle,
        stamp: StateStamp,
        deadline: Instant,
    ) -> Self {
        Self {
            databases,
            runtime,
            stamp: Cell::new(stamp),
            answered: RefCell::default(),
            deadline,
            interrupt: Cell::new(None),
        }
    }

    /// Why the reader stopped answering, if it did.
    pub(crate) fn interrupt(&self) -> Option<Interrupt> {
        self.interrupt.take()
    }

    /// The state every answer given is valid at.
    pub(crate) fn stamp(&self) -> StateStamp {
        self.stamp.get()
    }

    fn stop(&self, why: Interrupt) -> ReadFault {
        let fault = ReadFault(format!("{why:?}"));
        self.interrupt.set(Some(why));
        fault
    }

    fn out_of_time(&self) -> Result<(), ReadFault> {
        if Instant::now() >= self.deadline { Err(self.stop(Interrupt::OutOfTime)) } else { Ok(()) }
    }

    /// Runs `read` under the state lock if the state is still the reader's, else says which.
    fn try_lookup<T>(
        &self,
        read: impl AsyncFnOnce(&StateDb<tokio::Context>) -> Result<T, crate::databases::StateError>,
    ) -> Result<Looked<T>, ReadFault> {
        self.runtime
            .block_on(async {
                let db = self.databases.read().await;
                let now = db.bounds().end;
                if now != self.stamp.get().ops {
                    return Ok(Looked::Moved(StateStamp { ops: now, root: db.root() }));
                }
                read(&db).await.map(Looked::Done)
            })
            .map_err(|e| self.stop(Interrupt::Storage(e.to_string())))
    }

    /// Checks every answer given so far against `state`, a chunk per hold of the lock (moving
    /// to a newer state when one is committed meanwhile); adopts the state if they all hold.
    fn revalidate(&self, mut state: StateStamp) -> Result<(), ReadFault> {
        'state: loop {
            self.out_of_time()?;
            let answered = self.answered.borrow();
            for chunk in answered.chunks(REVALIDATION_LOOKUPS_PER_HOLD) {
                let checked = self.runtime.block_on(async {
                    let db = self.databases.read().await;
                    let now = db.bounds().end;
                    if now != state.ops {
                        return Ok(Looked::Moved(StateStamp { ops: now, root: db.root() }));
                    }
                    for answer in chunk {
                        if !answer.holds(&db).await? {
                            return Ok(Looked::Done(false));
                        }
                    }
                    Ok::<_, crate::databases::StateError>(Looked::Done(true))
                });
                match checked.map_err(|e| self.stop(Interrupt::Storage(e.to_string())))? {
                    Looked::Done(true) => {}
                    Looked::Done(false) => return Err(self.stop(Interrupt::StateMoved)),
                    Looked::Moved(newer) => {
                        state = newer;
                        continue 'state;
                    }
                }
            }
            self.stamp.set(state);
            return Ok(());
        }
    }

    /// One lookup at the reader's state, revalidating first if a block moved it.
    fn lookup<T: Clone>(
        &self,
        read: impl AsyncFn(&StateDb<tokio::Context>) -> Result<T, crate::databases::StateError>,
        answered: impl FnOnce(T) -> Answered,
    ) -> Result<T, ReadFault> {
        loop {
            self.out_of_time()?;
            match self.try_lookup(&read)? {
                Looked::Done(value) => {
                    self.answered.borrow_mut().push(answered(value.clone()));
                    return Ok(value);
                }
                Looked::Moved(state) => self.revalidate(state)?,
            }
        }
    }
}

impl StateRead for CommittedReader<'_> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
        let key = key.to_vec();
        self.lookup(async |db| db.get(&key).await, |value| Answered::Value(key.clone(), value))
    }

    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, ReadFault> {
        self.lookup(
            async |db| crate::databases::next_entry(db, query).await,
            |entry| Answered::Next(query.clone(), entry),
        )
    }
}

/// The threads read-only calls run on, and the bound on those waiting for one.
pub(crate) struct ReadPool {
    pool: rayon::ThreadPool,
    slots: Arc<::tokio::sync::Semaphore>,
}

/// A read-only call was refused: [`READS_QUEUED_MAX`] already wait.
#[derive(Debug, thiserror::Error)]
#[error("{READS_QUEUED_MAX} read-only calls are already waiting; retry shortly")]
pub(crate) struct ReadsBusy;

impl ReadPool {
    pub(crate) fn new() -> Self {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(READ_THREADS)
            .thread_name(|i| format!("drover-read-{i}"))
            .start_handler(|_| lower_thread_priority())
            .build()
            .expect("the read threads start");
        let slots = Arc::new(::tokio::sync::Semaphore::new(READ_THREADS + READS_QUEUED_MAX));
        Self { pool, slots }
    }

    /// Runs `work` on a read thread and waits for it; refused when the queue is full.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ReadsBusy> {
        let slot = Arc::clone(&self.slots).try_acquire_owned().map_err(|_| ReadsBusy)?;
        let (done, result) = ::tokio::sync::oneshot::channel();
        self.pool.spawn(move || {
            let _slot = slot;
            let _ = done.send(work());
        });
        // The pool runs every job it is given, and a panicking job aborts the process (rayon's
        // rule without a panic handler), so the answer always comes.
        Ok(result.await.expect("a read job always answers"))
    }
}

impl Default for ReadPool {
    fn default() -> Self {
        Self::new()
    }
}

/// Lowers the calling thread's CPU priority (Linux: per-thread niceness).
fn lower_thread_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` has no preconditions; `setpriority` only reads its arguments. A failure
    // (not permitted) leaves the thread at normal priority, which is still correct.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, READ_THREAD_NICENESS);
    }
}

/// How long a read that started now may take.
pub(crate) fn read_deadline() -> Instant {
    Instant::now() + Duration::from_millis(READ_TIME_BUDGET_MS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_glue::stateful::db::DatabaseSet as _;
    use commonware_runtime::{Runner as _, Supervisor as _, buffer::paged::CacheRef};
    use commonware_utils::{NZU16, NZUsize};

    type Databases = StateDatabases<tokio::Context>;

    async fn apply(dbs: &Databases, key: &[u8], value: &[u8]) -> StateStamp {
        let batch = dbs.new_batches().await.write(key.to_vec(), Some(value.to_vec()));
        dbs.apply(batch.merkleize().await.expect("merkleize")).await;
        let db = dbs.read().await;
        StateStamp { ops: db.bounds().end, root: db.root() }
    }

    /// What a read of `a` then `b`, started at `stamp` on a thread of its own (as the read pool
    /// runs it), answers when a block writing `key` lands between its two lookups: both
    /// answers, why it stopped if it did, and the state its answers hold at.
    async fn read_across_a_block(
        dbs: &Databases,
        stamp: StateStamp,
        key: &'static [u8],
    ) -> (Vec<Result<Option<Vec<u8>>, ReadFault>>, Option<Interrupt>, StateStamp) {
        let (reading, runtime) = (dbs.clone(), ::tokio::runtime::Handle::current());
        let (first_done, first) = std::sync::mpsc::channel();
        let (block_done, block) = std::sync::mpsc::channel::<()>();
        let reader = ::tokio::task::spawn_blocking(move || {
            let reader = CommittedReader::new(&reading, &runtime, stamp, read_deadline());
            let a = reader.get(b"a");
            first_done.send(()).expect("signal");
            block.recv().expect("the block is applied");
            let b = reader.get(b"b");
            (vec![a, b], reader.interrupt(), reader.stamp())
        });
        first.recv().expect("the first lookup");
        apply(dbs, key, b"2").await;
        block_done.send(()).expect("signal");
        reader.await.expect("reader")
    }

    #[test]
    fn a_read_outliving_a_block_goes_on_unless_a_value_it_used_changed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = tokio::Config::new().with_storage_directory(dir.path());
        tokio::Runner::new(config).start(|context| async move {
            let config =
                crate::engine::qmdb_config::<tokio::Context>("test", CacheRef::new(NZU16!(4096), NZUsize!(64)));
            let dbs = Databases::init(context.child("state"), config, None).await;
            apply(&dbs, b"a", b"1").await;
            let start = apply(&dbs, b"b", b"1").await;

            // The block changes nothing the read used: the read goes on at the new state.
            let (answers, interrupt, held_at) = read_across_a_block(&dbs, start, b"c").await;
            assert_eq!(answers, [Ok(Some(b"1".to_vec())), Ok(Some(b"1".to_vec()))]);
            assert_eq!(interrupt, None);
            let now = dbs.read().await.bounds().end;
            assert_eq!(held_at.ops, now, "the answers hold at the newer state");

            // The block changes a value the read used: the read must start over.
            let (answers, interrupt, _) = read_across_a_block(&dbs, held_at, b"a").await;
            assert_eq!(answers[0], Ok(Some(b"1".to_vec())));
            assert!(answers[1].is_err());
            assert_eq!(interrupt, Some(Interrupt::StateMoved));
        });
    }
}
