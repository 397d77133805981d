//! The actors' mock: actors a test sets (each with the code [`MOCK_ACTOR_CODE`], storage `a` →
//! 1 and `b` → 2, an empty mailbox), their logs and runs; a read echoes its payload.

use super::*;
use crate::mock::MOCK_ACTOR_CODE;
use crate::mock::MockBackend;
use drover_types::{
    ErrorCode, H256,
    api::{LogInfo, ReceiptStatus, StorageEntryInfo, SystemRunInfo},
};
use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct ActorsMock {
    /// Actors by address.
    pub actors: Vec<ActorInfo>,
    /// Events in each actor's log, served as one page whatever the cursor.
    pub logs: HashMap<Address, Vec<LogInfo>>,
    /// System runs of each actor in chain order; the mock's cursor ends in a run's index here.
    pub runs: HashMap<Address, Vec<SystemRunInfo>>,
}

impl ActorBackend for MockBackend {
    async fn actor(&self, address: Address) -> Result<Option<ActorInfo>, ApiError> {
        Ok(self.part::<ActorsMock>().lock().actors.iter().find(|a| a.address == address).cloned())
    }

    async fn actor_code(&self, address: Address) -> Result<Option<ActorCodeInfo>, ApiError> {
        Ok(self.part::<ActorsMock>().lock().actors.iter().find(|a| a.address == address).map(|a| ActorCodeInfo {
            address,
            code_hash: a.code_hash,
            size: MOCK_ACTOR_CODE.len() as u64,
            code: MOCK_ACTOR_CODE.to_vec(),
        }))
    }

    /// Every mock actor holds `a` → `1` and `b` → `2`; pages are one entry long.
    async fn actor_storage(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> Result<Option<StoragePage>, ApiError> {
        if !self.part::<ActorsMock>().lock().actors.iter().any(|a| a.address == address) {
            return Ok(None);
        }
        let entries = [(b"a".to_vec(), vec![1]), (b"b".to_vec(), vec![2])];
        let mut rest = entries.into_iter().filter(|(key, _)| after.as_ref().is_none_or(|after| key > after));
        let items: Vec<_> = rest.next().into_iter().map(|(key, value)| StorageEntryInfo { key, value }).collect();
        let next_cursor = rest.next().and(items.last().map(|entry| format!("0x{}", hex::encode(&entry.key))));
        Ok(Some(StoragePage { items, next_cursor, limit }))
    }

    async fn actor_storage_count(&self, address: Address) -> Result<Option<u64>, ApiError> {
        Ok(self.part::<ActorsMock>().lock().actors.iter().any(|a| a.address == address).then_some(2))
    }

    async fn actor_mailbox(
        &self,
        address: Address,
        _after: Option<u64>,
        limit: u64,
    ) -> Result<Option<MailboxPage>, ApiError> {
        Ok(self.part::<ActorsMock>().lock().actors.iter().any(|a| a.address == address).then(|| MailboxPage {
            items: Vec::new(),
            next_cursor: None,
            limit,
        }))
    }

    async fn actor_logs(
        &self,
        address: Address,
        _after: Option<Vec<u8>>,
        limit: u64,
    ) -> Result<Option<LogPage>, ApiError> {
        let part = self.part::<ActorsMock>();
        let data = part.lock();
        Ok(data.actors.iter().any(|a| a.address == address).then(|| LogPage {
            items: data.logs.get(&address).cloned().unwrap_or_default(),
            next_cursor: None,
            limit,
        }))
    }

    /// Pages of the actor's `runs`; a cursor (length checked by the route) is eight zero bytes
    /// and the index of the page's last run, so the route's cursor handling is exercised.
    async fn actor_runs(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> Result<Option<SystemRunPage>, ApiError> {
        let part = self.part::<ActorsMock>();
        let data = part.lock();
        if !data.actors.iter().any(|a| a.address == address) {
            return Ok(None);
        }
        let runs = data.runs.get(&address).cloned().unwrap_or_default();
        let start = after.map_or(0, |cursor| {
            let index = u32::from_be_bytes(cursor[cursor.len() - 4..].try_into().unwrap());
            index as usize + 1
        });
        let items: Vec<_> = runs.iter().skip(start).take(limit as usize).cloned().collect();
        let end = start + items.len();
        let next_cursor = (end < runs.len()).then(|| format!("0x{}{:08x}", "00".repeat(8), end - 1));
        Ok(Some(SystemRunPage { items, next_cursor, limit }))
    }

    async fn actor_timers(&self, address: Address, page: Page) -> Result<Option<TimerPage>, ApiError> {
        Ok(self
            .part::<ActorsMock>()
            .lock()
            .actors
            .iter()
            .any(|a| a.address == address)
            .then(|| page.envelope(Vec::new(), 0)))
    }

    async fn actor_upgrades(&self, address: Address, page: Page) -> Result<Option<UpgradePage>, ApiError> {
        Ok(self
            .part::<ActorsMock>()
            .lock()
            .actors
            .iter()
            .any(|a| a.address == address)
            .then(|| page.envelope(Vec::new(), 0)))
    }

    async fn actor_read(&self, call: ActorCall) -> Result<ActorReadResponse, ApiError> {
        if !self.part::<ActorsMock>().lock().actors.iter().any(|a| a.address == call.actor) {
            return Err(ApiError::new(ErrorCode::ActorNotFound, "no actor"));
        }
        Ok(ActorReadResponse {
            status: ReceiptStatus::Success,
            result: call.payload,
            cycles_used: 1,
            cells_used: 0,
            block_height: 1,
            state_root: H256([0; 32]),
            revert_reason: None,
            error: None,
            trace: None,
        })
    }
}
