//! The state-sync resolver handed to `Stateful`.
//!
//! Glue's own p2p resolver only accepts databases with fixed-size values, and our state uses
//! variable-size values, so state is fetched over HTTP instead (`--sync-from`, see
//! [`crate::fast_sync`]). The resolver has two jobs:
//!
//! * **serving**: it keeps the database `Stateful` attaches once recovered or synced, which the
//!   HTTP API reads for `/state/operations`;
//! * **fetching**: glue's sync engine calls [`Source::serve`]; with peers configured, each
//!   request is fetched from them. The response goes back with [`Feedback`]: when glue finds that
//!   a batch fails verification against the finalized ops root, the same request is fetched from
//!   the next peer; when none is left, the feedback ends and sync fails with an error. Without
//!   peers the resolver refuses to fetch.

use crate::{
    application::StateDb,
    fast_sync::{HttpPeers, StateOp, StateResponse},
};
use commonware_codec::Read;
use commonware_cryptography::sha256;
use crate::databases::{Bounds, StateDatabases};
use commonware_glue::stateful::db::{AttachableResolverSet, Shared};
use commonware_storage::{
    mmr,
    qmdb::sync::{Feedback, Request, Source, source},
};
use commonware_utils::channel::{mpsc, oneshot};
use std::sync::{Arc, OnceLock};
use tracing::{error, warn};

/// Why the resolver could not answer a fetch.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("this node has no state-sync peer; start it with `--sync-from URL`")]
    NoPeers,
    #[error(transparent)]
    Peers(#[from] crate::fast_sync::FastSyncError),
}

/// Holds the attached state database and, for a node that fast-syncs, its HTTP peers.
pub struct AttachedState<E: commonware_storage::Context + commonware_runtime::Spawner> {
    db: Arc<OnceLock<Shared<StateDb<E>>>>,
    peers: Option<HttpPeers>,
    op_cfg: <StateOp<E> as Read>::Cfg,
}

impl<E: commonware_storage::Context + commonware_runtime::Spawner> Clone for AttachedState<E> {
    fn clone(&self) -> Self {
        Self { db: self.db.clone(), peers: self.peers.clone(), op_cfg: self.op_cfg }
    }
}

impl<E: commonware_storage::Context + commonware_runtime::Spawner> AttachedState<E> {
    /// `op_cfg` bounds what a fetched operation may decode to (the state's key and value
    /// limits).
    pub fn new(peers: Option<HttpPeers>, op_cfg: <StateOp<E> as Read>::Cfg) -> Self {
        Self { db: Arc::new(OnceLock::new()), peers, op_cfg }
    }

    /// The database, once `Stateful` has recovered or synced it.
    pub fn database(&self) -> Option<Shared<StateDb<E>>> {
        self.db.get().cloned()
    }
}

impl<E: Bounds> AttachableResolverSet<StateDatabases<E>> for AttachedState<E> {
    async fn attach_databases(&self, databases: StateDatabases<E>) {
        let _ = self.db.set((*databases).clone());
    }
}

impl<E> Source for AttachedState<E>
where
    E: commonware_storage::Context + commonware_runtime::Spawner,
{
    type Family = mmr::Family;
    type Digest = sha256::Digest;
    type Op = StateOp<E>;
    type Error = FetchError;

    async fn serve(&self, request: Request<mmr::Family>) -> source::Result<Self> {
        let peers = self.peers.clone().ok_or(FetchError::NoPeers)?;
        let (response, peer) = peers.fetch::<E>(request, 0, &self.op_cfg).await?;

        // Glue judges the batch; on a rejection, offer the next peer's answer.
        let (candidates, candidate_rx) = mpsc::channel::<(StateResponse<E>, oneshot::Sender<bool>)>(1);
        let (verdict_tx, verdict_rx) = oneshot::channel();
        let op_cfg = self.op_cfg;
        ::tokio::spawn(async move {
            let (mut verdict, mut peer) = (verdict_rx, peer);
            // `Err`: glue dropped the feedback (request cancelled or superseded).
            while let Ok(false) = verdict.await {
                warn!(
                    peer = peers.url(peer),
                    size = request.size().as_u64(),
                    start = request.start().as_u64(),
                    "state-sync batch failed verification against the finalized ops root"
                );
                let next = match peers.fetch::<E>(request, peer + 1, &op_cfg).await {
                    Ok(next) => next,
                    Err(e) => {
                        error!(
                            error = %e,
                            "no peer served a state-sync batch that verifies: state sync stops; \
                             the local database holds only verified operations"
                        );
                        return;
                    }
                };
                let (next_verdict, next_verdict_rx) = oneshot::channel();
                if candidates.send((next.0, next_verdict)).await.is_err() {
                    return;
                }
                (verdict, peer) = (next_verdict_rx, next.1);
            }
        });
        Ok((response, Some(Feedback::new(verdict_tx, candidate_rx))))
    }
}
