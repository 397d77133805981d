//! Actor reads for the API: records, code, storage and mailbox pages over the latest applied state,
//! logs and runs from the indexes, timers and upgrades, and read-only calls (`actor_read`).

use super::{NodeHandle, pages, records};
use pages::scan;
use records::{log_info, run_info};

use crate::databases::OrderedRead;
use crate::error::NodeError;
use drover_rpc::backend::{ActorBackend, ActorCall};
use drover_rpc::pagination::Page;
use drover_state::{Account, ActorRecord, MailboxUsage, MessageRecord, TimerRecord, UpgradeRecord, keys};
use drover_types::{
    Address,
    api::{
        ActorCodeInfo, ActorInfo, ActorReadResponse, LogPage, MailboxMessageInfo, MailboxPage, StorageEntryInfo,
        StoragePage, SystemRunPage, TimerInfo, TimerPage, UpgradeInfo, UpgradePage,
    },
    error::ApiError,
    payload::Manifest,
};

impl ActorBackend for NodeHandle {
    async fn actor(&self, address: Address) -> Result<Option<ActorInfo>, ApiError> {
        let [record, account, usage] = self
            .read_keys([keys::actor_key(&address), keys::account_key(&address), keys::mailbox_usage_key(&address)])
            .await?;
        let Some(record) = record else { return Ok(None) };
        let record = ActorRecord::decode(&record).map_err(NodeError::from)?;
        let account =
            account.map(|bytes| Account::decode(&bytes)).transpose().map_err(NodeError::from)?.unwrap_or_default();
        let usage =
            usage.map(|bytes| MailboxUsage::decode(&bytes)).transpose().map_err(NodeError::from)?.unwrap_or_default();
        Ok(Some(ActorInfo {
            address,
            code_hash: record.code_hash,
            owner: record.owner,
            balance: account.balance,
            nonce: account.nonce,
            mailbox_count: usage.count,
            mailbox_bytes: usage.bytes,
            created_height: record.created_height,
            upgrades: record.upgrades,
            manifest: Manifest::new(record.entitlements),
        }))
    }

    async fn actor_code(&self, address: Address) -> Result<Option<ActorCodeInfo>, ApiError> {
        let [record, code] = self.read_keys([keys::actor_key(&address), keys::actor_code_key(&address)]).await?;
        let (Some(record), Some(code)) = (record, code) else { return Ok(None) };
        let record = ActorRecord::decode(&record).map_err(NodeError::from)?;
        Ok(Some(ActorCodeInfo { address, code_hash: record.code_hash, size: code.len() as u64, code }))
    }

    async fn actor_storage(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> Result<Option<StoragePage>, ApiError> {
        let db = self.0.databases.read().await;
        if db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)?.is_none() {
            return Ok(None);
        }
        let after = after.map(|key| keys::storage_key(&address, &key));
        let own = |key: &[u8], value| match keys::storage_entry(key) {
            Some((owner, user_key)) if owner == address => Some(StorageEntryInfo { key: user_key.to_vec(), value }),
            _ => None,
        };
        let (items, more) =
            scan(&*db, &keys::storage_range(&address), after, limit, own).await.map_err(NodeError::from)?;
        let next_cursor = more.then(|| items.last().map(|e| format!("0x{}", hex::encode(&e.key)))).flatten();
        Ok(Some(StoragePage { items, next_cursor, limit }))
    }

    async fn actor_storage_count(&self, address: Address) -> Result<Option<u64>, ApiError> {
        let [actor, count] =
            self.read_keys([keys::actor_key(&address), keys::actor_storage_count_key(&address)]).await?;
        if actor.is_none() {
            return Ok(None);
        }
        Ok(Some(count.map_or(Ok(0), |bytes| drover_state::decode_count(&bytes)).map_err(NodeError::from)?))
    }

    async fn actor_mailbox(
        &self,
        address: Address,
        after: Option<u64>,
        limit: u64,
    ) -> Result<Option<MailboxPage>, ApiError> {
        let db = self.0.databases.read().await;
        if db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)?.is_none() {
            return Ok(None);
        }
        let after = after.map(|seq| keys::mailbox_entry_key(&address, seq));
        let own = |key: &[u8], _| keys::mailbox_entry(key).filter(|(owner, _)| *owner == address).map(|(_, seq)| seq);
        let (seqs, more) =
            scan(&*db, &keys::mailbox_range(&address), after, limit, own).await.map_err(NodeError::from)?;
        let mut items = Vec::with_capacity(seqs.len());
        for seq in seqs {
            let bytes = db
                .get(&keys::message_key(seq))
                .await
                .map_err(NodeError::from)?
                .ok_or_else(|| NodeError::missing(format!("message {seq} of {address}")))?;
            let message = MessageRecord::decode(&bytes).map_err(NodeError::from)?;
            items.push(MailboxMessageInfo {
                seq,
                from: message.from,
                handler: message.handler,
                payload: message.payload,
                value: message.value,
                cycles_limit: message.cycles_limit,
            });
        }
        let next_cursor = more.then(|| items.last().map(|m| m.seq.to_string())).flatten();
        Ok(Some(MailboxPage { items, next_cursor, limit }))
    }

    async fn actor_logs(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> Result<Option<LogPage>, ApiError> {
        let page = self
            .index_page(
                address,
                after,
                limit,
                move |indexes, after, n| indexes.logs(&address, after, n),
                |e| e.position,
            )
            .await?;
        Ok(page.map(|(entries, next_cursor)| LogPage {
            items: entries.into_iter().map(log_info).collect(),
            next_cursor,
            limit,
        }))
    }

    async fn actor_runs(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
    ) -> Result<Option<SystemRunPage>, ApiError> {
        let page = self
            .index_page(
                address,
                after,
                limit,
                move |indexes, after, n| indexes.runs(&address, after, n),
                |e| e.position,
            )
            .await?;
        Ok(page.map(|(entries, next_cursor)| SystemRunPage {
            items: entries.into_iter().map(run_info).collect(),
            next_cursor,
            limit,
        }))
    }

    async fn actor_timers(&self, address: Address, page: Page) -> Result<Option<TimerPage>, ApiError> {
        let db = self.0.databases.read().await;
        timers(&*db, address, page).await
    }

    async fn actor_upgrades(&self, address: Address, page: Page) -> Result<Option<UpgradePage>, ApiError> {
        let db = self.0.databases.read().await;
        let Some(record) = db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)? else {
            return Ok(None);
        };
        let record = ActorRecord::decode(&record).map_err(NodeError::from)?;
        let total = u64::from(record.upgrades);
        let mut history = Vec::new();
        for seq in page.offset.min(total)..page.offset.saturating_add(page.limit).min(total) {
            // Below `record.upgrades`, which is a u32.
            let seq = seq as u32;
            let bytes = db
                .get(&keys::upgrade_key(&address, seq))
                .await
                .map_err(NodeError::from)?
                .ok_or_else(|| NodeError::missing(format!("upgrade {seq} of {address}")))?;
            let upgrade = UpgradeRecord::decode(&bytes).map_err(NodeError::from)?;
            history.push(UpgradeInfo {
                height: upgrade.height,
                old_code_hash: upgrade.old_code_hash,
                new_code_hash: upgrade.new_code_hash,
                tx_hash: upgrade.tx_hash,
            });
        }
        Ok(Some(page.envelope(history, total)))
    }

    async fn actor_read(&self, call: ActorCall) -> Result<ActorReadResponse, ApiError> {
        self.read_actor(call).await
    }
}

/// A page of the pending timers of the actor at `address` (`None`: no actor there), in its
/// timer listing's order: the count and, per timer of the page, its slot and its record.
async fn timers(db: &impl OrderedRead, address: Address, page: Page) -> Result<Option<TimerPage>, ApiError> {
    if db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)?.is_none() {
        return Ok(None);
    }
    let (items, total) = pages::listed(db, &keys::timers_listing(&address), &page).await?;
    let mut timers = Vec::with_capacity(items.len());
    for item in items {
        let id = <[u8; 8]>::try_from(item.as_slice())
            .map(u64::from_be_bytes)
            .map_err(|_| NodeError::missing(format!("a timer of {address} listed without an 8-byte id")))?;
        let (height, seq) = drover_state::timer::timer_id_parts(id);
        let bytes = db
            .get(&keys::timer_key(height, seq))
            .await
            .map_err(NodeError::from)?
            .ok_or_else(|| NodeError::missing(format!("timer {id} of {address}")))?;
        let timer = TimerRecord::decode(&bytes).map_err(NodeError::from)?;
        timers.push(TimerInfo {
            id,
            height,
            handler: timer.handler,
            payload: timer.payload,
            cycles_limit: timer.cycles_limit,
        });
    }
    Ok(Some(page.envelope(timers, total)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pages::tests::{Counted, LARGE, bounded_at_every_offset};

    #[test]
    fn a_page_of_timers_reads_the_page_whatever_the_actor_has_pending() {
        let actor = Address([0xac; 20]);
        let mut db = Counted::default();
        db.apply([(keys::actor_key(&actor), Some(vec![0]))]);
        let id = |i: u64| drover_state::timer::timer_id(1_000 + i, 0).unwrap();
        db.list(
            &keys::timers_listing(&actor),
            LARGE,
            |i| id(i).to_be_bytes().to_vec(),
            |i| {
                let timer = TimerRecord { owner: actor, handler: "tick".into(), payload: Vec::new(), cycles_limit: 5 };
                vec![(keys::timer_key(1_000 + i, 0), timer.encode())]
            },
        );
        bounded_at_every_offset(&db, 2, 2, |page| {
            let db = &db;
            async move {
                let answer = timers(db, actor, page).await.unwrap().expect("an actor");
                assert_eq!(answer.total_count, LARGE);
                if let Some(first) = answer.items.first() {
                    assert_eq!((first.id, first.height), (id(page.offset), 1_000 + page.offset));
                }
                answer.items.len()
            }
        });
    }
}
