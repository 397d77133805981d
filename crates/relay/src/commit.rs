//! The commit loop: the relay reports each changed volume's root and size on chain.
//!
//! Every round (every `interval`, the first one at start) the loop reads each volume's current
//! root and size from the store and hands those that differ from the last commit it recorded to
//! the [`Committer`] (the node side: a `commit` call of the storage manager signed by the relay's
//! key). A commit that went through is recorded in `DIR/volumes/<volume id hex>/committed` (the
//! canonical CBOR map `{"root": bytes(32), "size_bytes": uint}`, written crash-safely), so a
//! restart neither re-commits what was committed nor forgets what was not.
//!
//! Invariants and their reasons:
//!
//! - The record is written only **after** the committer reported success. A crash between the
//!   two re-commits the same root after restart: harmless (the chain gets what it already has),
//!   where the other order could lose a commit for good.
//! - A failed commit ([`CommitError::Failed`]) is retried next round; the root may have moved on
//!   meanwhile, and only the latest is ever committed.
//! - A refused commit ([`CommitError::Refused`]: the chain will never take it, e.g. the volume
//!   was purged or moved) is not retried until the volume's root changes or the relay restarts,
//!   so a doomed transaction is not sent every round.
//! - A volume with no record counts as never committed: its current root is committed, even the
//!   empty one (its objects were all deleted before the first commit).

use crate::store::{COMMITTED_FILE, Store, StoreError, VolumeSummary};
use drover_types::H256;
use drover_types::args::{Args, ArgsBuilder, ArgsError};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// A commit interval the CLI may default to.
pub const DEFAULT_COMMIT_INTERVAL: Duration = Duration::from_secs(60);

/// Why a commit did not go through.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommitError {
    /// It may go through later (node unreachable, transaction not included): retried next round.
    #[error("the commit did not go through: {0}")]
    Failed(String),
    /// The chain will not take it (the volume is gone or not this relay's): not retried until
    /// the root changes.
    #[error("the chain refuses the commit: {0}")]
    Refused(String),
}

/// Commits a volume's root and size on chain (the node side implements it).
pub trait Committer: Send + Sync + 'static {
    /// Records `root` and `size_bytes` for `volume` on chain; `Ok` once it is included.
    fn commit(&self, volume: H256, root: H256, size_bytes: u64)
    -> impl Future<Output = Result<(), CommitError>> + Send;
}

/// What was last committed for a volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Committed {
    /// The root committed.
    pub root: H256,
    /// The size committed.
    pub size_bytes: u64,
}

impl Committed {
    fn encode(&self) -> Vec<u8> {
        ArgsBuilder::new().id("root", &self.root).uint("size_bytes", self.size_bytes).encode()
    }

    fn decode(bytes: &[u8]) -> Result<Self, ArgsError> {
        let args = Args::decode(bytes)?;
        args.only(&["root", "size_bytes"])?;
        Ok(Committed { root: args.id("root")?, size_bytes: args.uint("size_bytes")? })
    }
}

impl From<VolumeSummary> for Committed {
    fn from(summary: VolumeSummary) -> Self {
        Committed { root: summary.root, size_bytes: summary.size_bytes }
    }
}

/// What one round did, volume by volume.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundReport {
    /// Volumes whose root was committed.
    pub committed: Vec<H256>,
    /// Volumes whose commit failed (retried next round).
    pub failed: Vec<H256>,
    /// Volumes whose commit the chain refused.
    pub refused: Vec<H256>,
}

/// The commit loop of one relay (see the module documentation).
pub struct CommitLoop<C> {
    store: Arc<Store>,
    committer: C,
    committed: HashMap<H256, Committed>,
    /// The root the chain refused, per volume.
    refused: HashMap<H256, H256>,
}

impl<C: Committer> CommitLoop<C> {
    /// A loop over `store`'s volumes, reading what was committed before (blocking: one small
    /// file per volume). A record that does not decode counts as none: the root is committed
    /// again rather than possibly never.
    pub fn open(store: Arc<Store>, committer: C) -> Result<Self, StoreError> {
        let mut committed = HashMap::new();
        for volume in store.volumes() {
            let Some(bytes) = store.read_volume_file(&volume, COMMITTED_FILE)? else { continue };
            match Committed::decode(&bytes) {
                Ok(record) => {
                    committed.insert(volume, record);
                }
                Err(e) => tracing::warn!(%volume, error = %e, "ignoring an unreadable commit record"),
            }
        }
        Ok(CommitLoop { store, committer, committed, refused: HashMap::new() })
    }

    /// What was last committed for `volume`, as far as this relay knows.
    pub fn last_committed(&self, volume: &H256) -> Option<Committed> {
        self.committed.get(volume).copied()
    }

    /// Commits every volume whose root or size differs from its last commit.
    pub async fn round(&mut self) -> RoundReport {
        let store = self.store.clone();
        let current = match tokio::task::spawn_blocking(move || {
            store.volumes().into_iter().map(|volume| (volume, store.summary(volume))).collect::<Vec<_>>()
        })
        .await
        {
            Ok(current) => current,
            Err(e) => {
                tracing::error!(error = %e, "reading the volumes failed");
                return RoundReport::default();
            }
        };
        let stored: HashSet<H256> = current.iter().map(|(volume, _)| *volume).collect();
        self.committed.retain(|volume, _| stored.contains(volume));
        self.refused.retain(|volume, _| stored.contains(volume));

        let mut report = RoundReport::default();
        for (volume, summary) in current {
            let now = Committed::from(summary);
            if self.committed.get(&volume) == Some(&now) || self.refused.get(&volume) == Some(&now.root) {
                continue;
            }
            match self.committer.commit(volume, now.root, now.size_bytes).await {
                Ok(()) => {
                    self.committed.insert(volume, now);
                    self.refused.remove(&volume);
                    let store = self.store.clone();
                    let persisted = tokio::task::spawn_blocking(move || {
                        store.write_volume_file(&volume, COMMITTED_FILE, &now.encode())
                    })
                    .await;
                    match persisted {
                        Ok(Ok(())) => {}
                        // Committed all the same; a restart commits the same root once more.
                        Ok(Err(e)) => tracing::error!(%volume, error = %e, "could not record a commit"),
                        Err(e) => tracing::error!(%volume, error = %e, "could not record a commit"),
                    }
                    tracing::info!(%volume, root = %now.root, size_bytes = now.size_bytes, "volume committed");
                    report.committed.push(volume);
                }
                Err(e @ CommitError::Failed(_)) => {
                    tracing::warn!(%volume, error = %e, "commit failed; retrying next round");
                    report.failed.push(volume);
                }
                Err(e @ CommitError::Refused(_)) => {
                    tracing::warn!(%volume, root = %now.root, error = %e, "commit refused; not retried until the volume changes");
                    self.refused.insert(volume, now.root);
                    report.refused.push(volume);
                }
            }
        }
        report
    }

    /// Runs a round now and then every `interval` until `shutdown` completes (a round in flight
    /// is abandoned: what it committed without recording is committed again after restart).
    pub async fn run(mut self, interval: Duration, shutdown: impl Future<Output = ()>) {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                _ = ticker.tick() => {}
            }
            tokio::select! {
                () = &mut shutdown => break,
                _ = self.round() => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;

    #[derive(Clone, Default)]
    struct Recorder {
        calls: Arc<Mutex<Vec<(H256, H256, u64)>>>,
        fail: Arc<Mutex<Option<CommitError>>>,
    }

    impl Committer for Recorder {
        async fn commit(&self, volume: H256, root: H256, size_bytes: u64) -> Result<(), CommitError> {
            self.calls.lock().push((volume, root, size_bytes));
            match self.fail.lock().clone() {
                Some(e) => Err(e),
                None => Ok(()),
            }
        }
    }

    #[test]
    fn a_record_round_trips() {
        let record = Committed { root: H256([3; 32]), size_bytes: 42 };
        assert_eq!(Committed::decode(&record.encode()), Ok(record));
    }

    #[tokio::test]
    async fn failures_are_retried_and_refusals_wait_for_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path(), u64::MAX).unwrap());
        let volume = H256([1; 32]);
        store.put(volume, "a", b"1", u64::MAX).unwrap();
        let recorder = Recorder::default();
        let mut commits = CommitLoop::open(store.clone(), recorder.clone()).unwrap();

        *recorder.fail.lock() = Some(CommitError::Failed("node down".into()));
        assert_eq!(commits.round().await.failed, [volume]);
        assert_eq!(commits.round().await.failed, [volume], "retried");
        *recorder.fail.lock() = Some(CommitError::Refused("purged".into()));
        assert_eq!(commits.round().await.refused, [volume]);
        assert_eq!(commits.round().await, RoundReport::default(), "not retried while the root stands");
        *recorder.fail.lock() = None;
        store.put(volume, "b", b"2", u64::MAX).unwrap();
        assert_eq!(commits.round().await.committed, [volume]);
        assert_eq!(commits.last_committed(&volume), Some(Committed::from(store.summary(volume))));
        assert_eq!(recorder.calls.lock().len(), 4, "two failures, one refusal, one commit");
    }
}
