//! The state-sync resolver handed to `Stateful`.
//!
//! Glue's own p2p resolver only accepts databases with fixed-size values, and our state uses
//! variable-size values, so this node does not fetch state over p2p: fast-sync goes through the
//! HTTP endpoints instead. `Stateful` still needs a resolver: this one keeps the database it is
//! attached to (once recovered or synced), which is what serving snapshots needs, and refuses
//! to fetch.

use crate::application::StateDb;
use commonware_cryptography::sha256;
use commonware_glue::stateful::db::{AttachableResolver, Shared};
use commonware_storage::{
    mmr,
    qmdb::sync::{self, Request, Source, source},
};
use std::sync::{Arc, OnceLock};

#[derive(Debug, thiserror::Error)]
#[error("this node does not fetch state over p2p; use `--sync-from` (HTTP fast-sync)")]
pub struct NoPeerFetch;

/// Holds the attached state database; never fetches.
pub struct AttachedState<E: commonware_storage::Context + commonware_runtime::Spawner> {
    db: Arc<OnceLock<Shared<StateDb<E>>>>,
}

impl<E: commonware_storage::Context + commonware_runtime::Spawner> Clone for AttachedState<E> {
    fn clone(&self) -> Self {
        Self { db: self.db.clone() }
    }
}

impl<E: commonware_storage::Context + commonware_runtime::Spawner> Default for AttachedState<E> {
    fn default() -> Self {
        Self { db: Arc::new(OnceLock::new()) }
    }
}

impl<E: commonware_storage::Context + commonware_runtime::Spawner> AttachedState<E> {
    /// The database, once `Stateful` has recovered or synced it.
    pub fn database(&self) -> Option<Shared<StateDb<E>>> {
        self.db.get().cloned()
    }
}

impl<E> AttachableResolver<StateDb<E>> for AttachedState<E>
where
    E: commonware_storage::Context + commonware_runtime::Spawner,
{
    async fn attach_database(&self, db: Shared<StateDb<E>>) {
        let _ = self.db.set(db);
    }
}

impl<E> Source for AttachedState<E>
where
    E: commonware_storage::Context + commonware_runtime::Spawner,
{
    type Family = mmr::Family;
    type Digest = sha256::Digest;
    type Op = <StateDb<E> as sync::Database>::Op;
    type Error = NoPeerFetch;

    async fn serve(&self, _request: Request<mmr::Family>) -> source::Result<Self> {
        Err(NoPeerFetch)
    }
}
