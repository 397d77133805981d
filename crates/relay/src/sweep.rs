//! The sweep: the relay drops the bytes of volumes the chain no longer gives it.
//!
//! A volume whose deposit ran out past its grace, or that its owner deleted past the grace, is
//! `purged` on chain: nobody pays for its bytes any more and the relay may drop them; once it is
//! reaped the chain does not know it at all. Every round (every `interval`), the sweep asks the
//! [`Directory`] about each volume in the store and drops the volumes it answers are purged,
//! unknown, or held by another relay.
//!
//! Dropping is final, so the sweep is careful about what it believes:
//!
//! - a lookup that fails (the node unreachable) never counts: the volume is kept;
//! - a volume is dropped only once the chain has said it is gone for at least `confirm_after`
//!   (across rounds), so one wrong answer (a node still syncing, a misconfigured chain id) does
//!   not erase anything; a volume seen alive again starts over.

use crate::server::Directory;
use crate::store::Store;
use drover_types::{Address, H256, storage::VolumeStatus};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A sweep interval the CLI may default to.
pub const DEFAULT_SWEEP_INTERVAL: Duration = Duration::from_secs(60);
/// How long the chain must have said a volume is gone before its bytes are dropped, by default.
pub const DEFAULT_CONFIRM_AFTER: Duration = Duration::from_secs(10 * 60);

/// What one round did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Volumes the chain still gives this relay.
    pub kept: usize,
    /// Volumes the chain says are gone, not long enough yet.
    pub pending: usize,
    /// Volumes dropped.
    pub dropped: usize,
    /// Volumes whose lookup failed (kept).
    pub unknown: usize,
    /// Volumes the chain gave up whose bytes could not be dropped (tried again next round).
    pub failed: usize,
}

/// Drops the bytes of the volumes the chain no longer gives this relay.
pub struct Sweeper<D> {
    store: Arc<Store>,
    directory: D,
    relay: Address,
    confirm_after: Duration,
    gone_since: HashMap<H256, Instant>,
}

impl<D: Directory> Sweeper<D> {
    /// A sweeper of `store` for the relay `relay`, asking `directory`, dropping a volume once
    /// the chain has said it is gone for `confirm_after`.
    pub fn new(store: Arc<Store>, directory: D, relay: Address, confirm_after: Duration) -> Self {
        Sweeper { store, directory, relay, confirm_after, gone_since: HashMap::new() }
    }

    /// One look at every stored volume.
    pub async fn round(&mut self) -> SweepReport {
        let mut report = SweepReport::default();
        let stored = self.store.volumes();
        self.gone_since.retain(|volume, _| stored.contains(volume));
        for volume in stored {
            let ours = match self.directory.volume(volume).await {
                Ok(info) => info.is_some_and(|info| info.relay == self.relay && info.status != VolumeStatus::Purged),
                Err(error) => {
                    tracing::warn!(%volume, %error, "sweep: lookup failed; kept");
                    report.unknown += 1;
                    continue;
                }
            };
            if ours {
                self.gone_since.remove(&volume);
                report.kept += 1;
                continue;
            }
            let since = *self.gone_since.entry(volume).or_insert_with(Instant::now);
            if since.elapsed() < self.confirm_after {
                report.pending += 1;
                continue;
            }
            let store = Arc::clone(&self.store);
            // One volume that cannot be dropped must not keep the sweep from the others.
            match tokio::task::spawn_blocking(move || store.delete_volume(volume)).await {
                Ok(Ok(_)) => {}
                Ok(Err(error)) => {
                    tracing::warn!(%volume, %error, "sweep: cannot drop the volume; trying again next round");
                    report.failed += 1;
                    continue;
                }
                Err(error) => {
                    tracing::warn!(%volume, %error, "sweep: the drop did not finish; trying again next round");
                    report.failed += 1;
                    continue;
                }
            }
            self.gone_since.remove(&volume);
            tracing::info!(%volume, "sweep: the chain no longer gives this volume to the relay; its bytes are dropped");
            report.dropped += 1;
        }
        report
    }

    /// Runs a round every `interval` until `shutdown` completes.
    pub async fn run(mut self, interval: Duration, shutdown: impl Future<Output = ()>) {
        let rounds = async {
            loop {
                let report = self.round().await;
                tracing::debug!(?report, "sweep round");
                tokio::time::sleep(interval).await;
            }
        };
        tokio::select! {
            () = rounds => {}
            () = shutdown => {}
        }
    }
}
