//! Actor reads for the API: records, code, storage and mailbox pages over the latest applied state,
//! logs and runs from the indexes, timers and upgrades, and read-only calls (`actor_read`).
//!
//! A page of storage, mailbox, timers or logs is bounded in bytes as well as in items: its items
//! run up to 128 KiB each, so it ends once the records it read reach [`PAGE_READ_BYTES_MAX`],
//! after its first item (storage and logs read one record past it to tell whether more follow;
//! mailbox and timers only the marker or slot that names it). The continuation is each list's
//! own: a cursor at the page's last item, or for timers the offset plus the items returned. So
//! the state's read lock is held for a bounded read.

use super::{NodeHandle, pages, records};
use pages::scan;
use records::{log_info, run_info};

use crate::databases::{Bounds, OrderedRead, StateDb};
use crate::error::NodeError;
use drover_rpc::backend::{ActorBackend, ActorCall};
use drover_rpc::limits::PAGE_READ_BYTES_MAX;
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
        storage(&*db, address, after, limit).await
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
        mailbox(&*db, address, after, limit).await
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
                move |indexes, after, n| indexes.logs(&address, after, n, PAGE_READ_BYTES_MAX),
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

/// A page of the storage of the actor at `address` (`None`: no actor there) after the user key
/// `after`, in key order: at most `limit` entries and [`PAGE_READ_BYTES_MAX`] bytes of them.
async fn storage<E: Bounds>(
    db: &StateDb<E>,
    address: Address,
    after: Option<Vec<u8>>,
    limit: u64,
) -> Result<Option<StoragePage>, ApiError> {
    if db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)?.is_none() {
        return Ok(None);
    }
    let after = after.map(|key| keys::storage_key(&address, &key));
    let own = |key: &[u8], value| match keys::storage_entry(key) {
        Some((owner, user_key)) if owner == address => Some(StorageEntryInfo { key: user_key.to_vec(), value }),
        _ => None,
    };
    let range = keys::storage_range(&address);
    let (items, more) = scan(db, &range, after, limit, PAGE_READ_BYTES_MAX, own).await.map_err(NodeError::from)?;
    let next_cursor = more.then(|| items.last().map(|e| format!("0x{}", hex::encode(&e.key)))).flatten();
    Ok(Some(StoragePage { items, next_cursor, limit }))
}

/// A page of the messages waiting for the actor at `address` (`None`: no actor there) after the
/// queue position `after`, in delivery order: at most `limit` messages and, past the first,
/// none once those read reach [`PAGE_READ_BYTES_MAX`] bytes. The queue's markers are a few dozen
/// bytes each, so the page's `limit` bounds their reads; each message is read only while the
/// budget lasts.
async fn mailbox<E: Bounds>(
    db: &StateDb<E>,
    address: Address,
    after: Option<u64>,
    limit: u64,
) -> Result<Option<MailboxPage>, ApiError> {
    if db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)?.is_none() {
        return Ok(None);
    }
    let after = after.map(|seq| keys::mailbox_entry_key(&address, seq));
    let own = |key: &[u8], _| keys::mailbox_entry(key).filter(|(owner, _)| *owner == address).map(|(_, seq)| seq);
    let range = keys::mailbox_range(&address);
    let (seqs, mut more) = scan(db, &range, after, limit, usize::MAX, own).await.map_err(NodeError::from)?;
    let mut items = Vec::with_capacity(seqs.len());
    let mut bytes = 0usize;
    for seq in seqs {
        if bytes >= PAGE_READ_BYTES_MAX {
            more = true;
            break;
        }
        let record = db
            .get(&keys::message_key(seq))
            .await
            .map_err(NodeError::from)?
            .ok_or_else(|| NodeError::missing(format!("message {seq} of {address}")))?;
        bytes = bytes.saturating_add(record.len());
        let message = MessageRecord::decode(&record).map_err(NodeError::from)?;
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

/// A page of the pending timers of the actor at `address` (`None`: no actor there), in its
/// timer listing's order: the count and, per timer of the page, its slot and its record, the
/// records only while those read stay below [`PAGE_READ_BYTES_MAX`] bytes (the page then holds
/// fewer than its limit, and the client goes on at its offset plus the timers it holds).
async fn timers(db: &impl OrderedRead, address: Address, page: Page) -> Result<Option<TimerPage>, ApiError> {
    if db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)?.is_none() {
        return Ok(None);
    }
    let (items, total) = pages::listed(db, &keys::timers_listing(&address), &page).await?;
    let mut timers = Vec::with_capacity(items.len());
    let mut bytes = 0usize;
    for item in items {
        if bytes >= PAGE_READ_BYTES_MAX {
            break;
        }
        let id = <[u8; 8]>::try_from(item.as_slice())
            .map(u64::from_be_bytes)
            .map_err(|_| NodeError::missing(format!("a timer of {address} listed without an 8-byte id")))?;
        let (height, seq) = drover_state::timer::timer_id_parts(id);
        let record = db
            .get(&keys::timer_key(height, seq))
            .await
            .map_err(NodeError::from)?
            .ok_or_else(|| NodeError::missing(format!("timer {id} of {address}")))?;
        bytes = bytes.saturating_add(record.len());
        let timer = TimerRecord::decode(&record).map_err(NodeError::from)?;
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
    use crate::databases::StateDatabases;
    use commonware_glue::stateful::db::DatabaseSet as _;
    use commonware_runtime::{Runner as _, Supervisor as _, buffer::paged::CacheRef, deterministic};
    use commonware_utils::{NZU16, NZUsize};
    use drover_rpc::limits::PAGE_LIMIT_MAX;
    use pages::tests::{Counted, LARGE, bounded_at_every_offset};

    const ACTOR: Address = Address([0xac; 20]);
    /// Largest payload of a message or a timer (the VM's `MAX_PAYLOAD_BYTES`).
    const PAYLOAD_BYTES: usize = 128 * 1024;

    /// A state database holding the actor [`ACTOR`] and `records`, run over by `test`.
    fn with_state<F>(records: Vec<(Vec<u8>, Vec<u8>)>, test: impl FnOnce(StateDatabases<deterministic::Context>) -> F)
    where
        F: Future<Output = ()>,
    {
        deterministic::Runner::default().start(|context| async move {
            let config =
                crate::engine::qmdb_config::<deterministic::Context>("test", CacheRef::new(NZU16!(4096), NZUsize!(64)));
            let dbs = StateDatabases::init(context.child("state"), config, None).await;
            let mut batch = dbs.new_batches().await.write(keys::actor_key(&ACTOR), Some(vec![0]));
            for (key, value) in records {
                batch = batch.write(key, Some(value));
            }
            dbs.apply(batch.merkleize().await.unwrap()).await;
            test(dbs).await;
        });
    }

    #[test]
    fn a_page_of_storage_ends_once_its_entries_reach_the_byte_budget() {
        // 80 entries of the largest value (64 KiB): 5 MiB, more than one page reads.
        let value = vec![7; 64 * 1024];
        let records = (0..80u32).map(|i| (keys::storage_key(&ACTOR, &i.to_be_bytes()), value.clone())).collect();
        with_state(records, |dbs| async move {
            let db = dbs.read().await;
            let first = storage(&*db, ACTOR, None, PAGE_LIMIT_MAX).await.unwrap().expect("an actor");
            assert!(!first.items.is_empty() && first.items.len() < 80, "{} entries", first.items.len());
            let bytes: usize = first.items.iter().map(|e| e.value.len()).sum();
            assert!(bytes <= PAGE_READ_BYTES_MAX + value.len(), "{bytes} bytes: one entry past the budget at most");
            // Page after page from each `next_cursor`, every entry comes once (in storage order,
            // which is not the user keys' order).
            let mut keys = Vec::new();
            let mut after = None;
            loop {
                let page = storage(&*db, ACTOR, after, PAGE_LIMIT_MAX).await.unwrap().expect("an actor");
                keys.extend(page.items.into_iter().map(|e| e.key));
                let Some(cursor) = page.next_cursor else { break };
                after = Some(hex::decode(cursor.trim_start_matches("0x")).unwrap());
            }
            keys.sort();
            assert_eq!(keys, (0..80u32).map(|i| i.to_be_bytes().to_vec()).collect::<Vec<_>>());
        });
    }

    #[test]
    fn a_page_of_the_mailbox_ends_once_its_messages_reach_the_byte_budget() {
        // 40 messages of the largest payload: 5 MiB, more than one page reads.
        let message = |seq: u64| MessageRecord {
            from: Address([1; 20]),
            to: ACTOR,
            handler: format!("h{seq}"),
            payload: vec![7; PAYLOAD_BYTES],
            value: 0,
            cycles_limit: 5,
            prepaid: 0,
            basefee_cycle: 1,
            basefee_cell: 1,
        };
        let records = (100..140u64)
            .flat_map(|seq| {
                [(keys::mailbox_entry_key(&ACTOR, seq), vec![0xf6]), (keys::message_key(seq), message(seq).encode())]
            })
            .collect();
        with_state(records, |dbs| async move {
            let db = dbs.read().await;
            let first = mailbox(&*db, ACTOR, None, PAGE_LIMIT_MAX).await.unwrap().expect("an actor");
            assert!(!first.items.is_empty() && first.items.len() < 40, "{} messages", first.items.len());
            let bytes: usize = first.items.iter().map(|m| m.payload.len()).sum();
            assert!(bytes <= PAGE_READ_BYTES_MAX + PAYLOAD_BYTES, "{bytes} bytes: one message past the budget at most");
            // Page after page from each `next_cursor`, every message comes once, in queue order.
            let mut seqs = Vec::new();
            let mut after = None;
            loop {
                let page = mailbox(&*db, ACTOR, after, PAGE_LIMIT_MAX).await.unwrap().expect("an actor");
                seqs.extend(page.items.iter().map(|m| m.seq));
                let Some(cursor) = page.next_cursor else { break };
                after = Some(cursor.parse().unwrap());
            }
            assert_eq!(seqs, (100..140).collect::<Vec<_>>());
        });
    }

    #[test]
    fn a_page_of_timers_ends_once_its_timers_reach_the_byte_budget() {
        // 40 timers of the largest payload: 5 MiB, more than one page reads.
        let mut db = Counted::default();
        db.apply([(keys::actor_key(&ACTOR), Some(vec![0]))]);
        let id = |i: u64| drover_state::timer::timer_id(1_000 + i, 0).unwrap();
        db.list(
            &keys::timers_listing(&ACTOR),
            40,
            |i| id(i).to_be_bytes().to_vec(),
            |i| {
                let payload = vec![7; PAYLOAD_BYTES];
                let timer = TimerRecord { owner: ACTOR, handler: "tick".into(), payload, cycles_limit: 5 };
                vec![(keys::timer_key(1_000 + i, 0), timer.encode())]
            },
        );
        let read = |offset| futures::executor::block_on(timers(&db, ACTOR, Page { offset, limit: PAGE_LIMIT_MAX }));
        let first = read(0).unwrap().expect("an actor");
        assert!(!first.items.is_empty() && first.items.len() < 40, "{} timers", first.items.len());
        assert_eq!(first.total_count, 40);
        let bytes: usize = first.items.iter().map(|t| t.payload.len()).sum();
        assert!(bytes <= PAGE_READ_BYTES_MAX + PAYLOAD_BYTES, "{bytes} bytes: one timer past the budget at most");
        // Page after page, each at the last one's offset plus what it held (as the clients go
        // on), every timer comes once, in listing order.
        let mut ids = Vec::new();
        let mut offset = 0;
        while offset < 40 {
            let page = read(offset).unwrap().expect("an actor");
            assert!(!page.items.is_empty(), "an empty page at {offset} of 40");
            offset += page.items.len() as u64;
            ids.extend(page.items.iter().map(|t| t.id));
        }
        assert_eq!(ids, (0..40).map(id).collect::<Vec<_>>());
    }

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
