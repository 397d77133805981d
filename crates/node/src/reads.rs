//! Read-only calls (`POST /actor/read`): off the commit path, bounded in time, concurrent.
//!
//! A read runs a handler against the latest applied state. It is free for the caller, so what
//! it may cost the node is bounded by rules of the node, not by a fee:
//!
//! * **Never in the commit's way.** The state lock is taken for one lookup at a time
//!   ([`CommittedReader`]), never across the handler, so a block commit waits for at most one
//!   lookup. Every lookup checks that the state is still the one the read started on (its
//!   operation count); if a block was committed in between, the attempt stops and the read
//!   starts over on the new state. A read therefore sees one consistent state, and answers with
//!   that state's height and root.
//! * **Bounded in time.** All attempts together get [`READ_TIME_BUDGET_MS`]; a read that cannot
//!   finish in it answers 5004 (each attempt is itself bounded by the call's cycles, which the
//!   API caps at a block's cycle target).
//! * **Bounded in CPU.** Reads run on [`READ_THREADS`] threads of their own at the lowest CPU
//!   priority, so that block production and verification keep the cores they need however many
//!   clients read; at most [`READS_QUEUED_MAX`] more wait for a thread, and a read beyond that
//!   is refused at once with 429 instead of queueing without bound.

use crate::{application::StateDb, databases::StateDatabases};
use commonware_runtime::tokio;
use commonware_storage::mmr::Location;
use drover_execution::{Entry, NextKeyQuery, ReadFault, StateRead};
use std::{
    cell::Cell,
    sync::Arc,
    time::{Duration, Instant},
};

/// Most time one read-only call may take, all attempts included.
pub const READ_TIME_BUDGET_MS: u64 = 2_000;
/// Threads that run read-only calls (each call runs on one, start to end).
pub const READ_THREADS: usize = 2;
/// Most read-only calls waiting for a thread; more are refused with 429.
pub const READS_QUEUED_MAX: usize = 64;
/// Niceness of the read threads: the lowest CPU priority Linux offers.
const READ_THREAD_NICENESS: i32 = 19;

/// Why a [`CommittedReader`] stopped answering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interrupt {
    /// A block was committed since the read started: start over on the new state.
    StateMoved,
    /// The read's time budget is spent.
    OutOfTime,
    /// The database failed to answer.
    Storage(String),
}

/// The latest applied state, read one lookup at a time (see the module docs).
pub struct CommittedReader<'a> {
    databases: &'a StateDatabases<tokio::Context>,
    runtime: &'a ::tokio::runtime::Handle,
    /// The operation count of the state the read started on.
    ops: Location,
    deadline: Instant,
    interrupt: Cell<Option<Interrupt>>,
}

impl<'a> CommittedReader<'a> {
    pub fn new(
        databases: &'a StateDatabases<tokio::Context>,
        runtime: &'a ::tokio::runtime::Handle,
        ops: Location,
        deadline: Instant,
    ) -> Self {
        Self { databases, runtime, ops, deadline, interrupt: Cell::new(None) }
    }

    /// Why the reader stopped answering, if it did.
    pub fn interrupt(&self) -> Option<Interrupt> {
        self.interrupt.take()
    }

    fn stop(&self, why: Interrupt) -> ReadFault {
        let fault = ReadFault(format!("{why:?}"));
        self.interrupt.set(Some(why));
        fault
    }

    /// Runs one lookup under the state lock, if the state is still the read's and time is left.
    fn lookup<T>(
        &self,
        read: impl AsyncFnOnce(&StateDb<tokio::Context>) -> Result<T, crate::databases::StateError>,
    ) -> Result<T, ReadFault> {
        if Instant::now() >= self.deadline {
            return Err(self.stop(Interrupt::OutOfTime));
        }
        self.runtime
            .block_on(async {
                let db = self.databases.read().await;
                if db.bounds().end != self.ops {
                    return Err(Interrupt::StateMoved);
                }
                read(&db).await.map_err(|e| Interrupt::Storage(e.to_string()))
            })
            .map_err(|why| self.stop(why))
    }
}

impl StateRead for CommittedReader<'_> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ReadFault> {
        let key = key.to_vec();
        self.lookup(async |db| db.get(&key).await)
    }

    fn next_entry(&self, query: &NextKeyQuery) -> Result<Option<Entry>, ReadFault> {
        self.lookup(async |db| crate::databases::next_entry(db, query).await)
    }
}

/// The threads read-only calls run on, and the bound on those waiting for one.
pub struct ReadPool {
    pool: rayon::ThreadPool,
    slots: Arc<::tokio::sync::Semaphore>,
}

/// A read-only call was refused: [`READS_QUEUED_MAX`] already wait.
#[derive(Debug, thiserror::Error)]
#[error("{READS_QUEUED_MAX} read-only calls are already waiting; retry shortly")]
pub struct ReadsBusy;

impl ReadPool {
    pub fn new() -> Self {
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
    pub async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, ReadsBusy> {
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
pub fn read_deadline() -> Instant {
    Instant::now() + Duration::from_millis(READ_TIME_BUDGET_MS)
}
