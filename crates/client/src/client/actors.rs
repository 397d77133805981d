//! Actors: the client's methods for the routes of `drover-rpc`'s `routes::actors`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode,
    api::{
        ActorCodeInfo, ActorInfo, ActorReadRequest, ActorReadResponse, LogPage, MailboxPage, StorageCount, StoragePage,
        SystemRunPage, TimerPage, UpgradePage, paths, paths::fill,
    },
    payload::Manifest,
};

impl Client {
    /// `GET /actor/{address}`; `None` for an address that holds no actor.
    pub async fn actor(&self, address: &Address) -> Result<Option<ActorInfo>, ClientError> {
        self.get_optional(&fill(paths::ACTOR, &[address]), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/code`; `None` for an address that holds no actor.
    pub async fn actor_code(&self, address: &Address) -> Result<Option<ActorCodeInfo>, ClientError> {
        self.get_optional(&fill(paths::ACTOR_CODE, &[address]), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/manifest`: the entitlements the actor is granted; `None` for an
    /// address that holds no actor.
    pub async fn actor_manifest(&self, address: &Address) -> Result<Option<Manifest>, ClientError> {
        self.get_optional(&fill(paths::ACTOR_MANIFEST, &[address]), ErrorCode::ActorNotFound).await
    }

    /// `GET /actors/{address}/storage`: one page of the actor's storage after `cursor`; `None`
    /// for an address that holds no actor.
    pub async fn actor_storage(
        &self,
        address: &Address,
        cursor: Option<&str>,
    ) -> Result<Option<StoragePage>, ClientError> {
        self.get_optional(&page_path(fill(paths::ACTOR_STORAGE, &[address]), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actors/{address}/mailbox`: one page of the messages waiting for the actor after
    /// `cursor`, in delivery order; `None` for an address that holds no actor.
    pub async fn actor_mailbox(
        &self,
        address: &Address,
        cursor: Option<&str>,
    ) -> Result<Option<MailboxPage>, ClientError> {
        self.get_optional(&page_path(fill(paths::ACTOR_MAILBOX, &[address]), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/logs`: one page of the actor's events after `cursor`, in chain
    /// order; `None` for an address that holds no actor.
    pub async fn actor_logs(&self, address: &Address, cursor: Option<&str>) -> Result<Option<LogPage>, ClientError> {
        self.get_optional(&page_path(fill(paths::ACTOR_LOGS, &[address]), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/runs`: one page of the actor's timer fires and mailbox deliveries
    /// after `cursor`, in chain order; `None` for an address that holds no actor.
    pub async fn actor_runs(
        &self,
        address: &Address,
        cursor: Option<&str>,
    ) -> Result<Option<SystemRunPage>, ClientError> {
        self.get_optional(&page_path(fill(paths::ACTOR_RUNS, &[address]), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/timers`: the page of pending timers (in firing order) at
    /// `offset`, of at most `limit`; `None` for an address that holds no actor.
    pub async fn actor_timers(
        &self,
        address: &Address,
        offset: u64,
        limit: u64,
    ) -> Result<Option<TimerPage>, ClientError> {
        let path = format!("{}?offset={offset}&limit={limit}", fill(paths::ACTOR_TIMERS, &[address]));
        self.get_optional(&path, ErrorCode::ActorNotFound).await
    }

    /// `GET /actors/{address}/storage/count`; `None` for an address that holds no actor.
    pub async fn actor_storage_count(&self, address: &Address) -> Result<Option<StorageCount>, ClientError> {
        self.get_optional(&fill(paths::ACTOR_STORAGE_COUNT, &[address]), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/upgrade-history`: the page of upgrades (oldest first) at `offset`,
    /// of at most `limit`; `None` for an address that holds no actor.
    pub async fn actor_upgrades(
        &self,
        address: &Address,
        offset: u64,
        limit: u64,
    ) -> Result<Option<UpgradePage>, ClientError> {
        let path = format!("{}?offset={offset}&limit={limit}", fill(paths::ACTOR_UPGRADE_HISTORY, &[address]));
        self.get_optional(&path, ErrorCode::ActorNotFound).await
    }

    /// `POST /actor/read`: runs a handler read-only on the latest finalized state.
    pub async fn actor_read(&self, request: &ActorReadRequest) -> Result<ActorReadResponse, ClientError> {
        let url = self.url(paths::ACTOR_READ);
        self.send_json(&url, self.http.post(&url).json(request)).await
    }
}

/// `path`, or the page of it after `cursor` (a previous page's `next_cursor`).
fn page_path(path: String, cursor: Option<&str>) -> String {
    match cursor {
        Some(cursor) => format!("{path}?cursor={cursor}"),
        None => path,
    }
}
