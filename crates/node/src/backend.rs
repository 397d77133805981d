//! The HTTP API's view of the node: [`drover_rpc::Backend`] over the real chain.
//!
//! Reads go to the latest applied (finalized) state in QMDB, the indexes, marshal's block
//! archive and the mempool; writes go to the mempool. The faucet signs ordinary transfers from
//! its funded account, serialised so concurrent requests get consecutive nonces. Proofs are
//! built by [`Prover`].

use crate::error::NodeError;
use crate::{
    admission,
    application::Scheme,
    block::{Block, to_h256},
    chain::ChainShared,
    config::FaucetConfig,
    databases::Databases,
    gossip::GossipHandle,
    indexes::{LOG_POSITION_LEN, LogEntry, LogOrigin as IndexedOrigin, RUN_POSITION_LEN, RunEntry},
    proofs::{PAIRING_ATTEMPTS_MAX, PAIRING_RETRY_MS, Prover},
    reads::{CommittedReader, Interrupt, READ_TIME_BUDGET_MS, StateStamp},
};
use ::tokio::sync::watch;
use commonware_codec::Encode as _;
use commonware_consensus::{
    marshal::{Identifier, core::Mailbox, standard::Standard},
    types::Height,
};
use commonware_cryptography::{Digestible as _, sha256};
use commonware_runtime::{Metrics as _, tokio};
use commonware_storage::{mmr::Location, qmdb::sync::Request};
use drover_execution::{BlockEnv, ReadFailure, ReadRequest, SystemRunKind, Vm, read_actor};
use drover_rpc::backend::{
    ActorCall, Backend, ChainHealth, FaucetSettings, IncludedTransaction, OperationsRequest, StateQuery,
};
use drover_rpc::pagination::Page;
use drover_state::{Account, ActorRecord, MailboxUsage, MessageRecord, TimerRecord, UpgradeRecord, keys};
use drover_types::exec_error::ExecCode;
use drover_types::{
    Address, Basefees, BlockSelector, ErrorCode, H256, Receipt, Transaction, VerifiedTransaction,
    api::{
        AccountInfo, ActorCodeInfo, ActorInfo, ActorReadResponse, BlockInfo, ChainInfo, ExecErrorInfo,
        InclusionProofInfo, InclusionProofKind, LogInfo, LogOrigin, LogPage, MailboxMessageInfo, MailboxPage,
        ManifestInfo, ReceiptStatus, RunKind, StateProofInfo, StateSnapshot, StorageEntryInfo, StoragePage,
        SystemRunInfo, SystemRunPage, TimerInfo, TimerPage, UpgradeInfo, UpgradePage,
    },
    error::ApiError,
};
use drover_vm::{Outcome, Status};
use std::{num::NonZeroU64, sync::Arc};

/// The API answer for a read-only call's outcome; the refusals the spec names become errors.
fn read_response(outcome: Outcome, block_height: u64, state_root: H256) -> Result<ActorReadResponse, ApiError> {
    let (status, revert_reason) = match &outcome.status {
        Status::Success => (ReceiptStatus::Success, None),
        Status::Revert { reason } => (ReceiptStatus::Reverted, Some(String::from_utf8_lossy(reason).into_owned())),
        Status::Trap(error) => {
            let refusal = match error.code {
                ExecCode::HandlerNotFound => Some(ErrorCode::HandlerNotFound),
                ExecCode::ReadOnlyViolation => Some(ErrorCode::ReadOnlyViolation),
                ExecCode::OutOfCycles | ExecCode::OutOfCells => Some(ErrorCode::ReadLimitsExceeded),
                _ => None,
            };
            if let Some(code) = refusal {
                return Err(ApiError::new(code, error.message.clone()));
            }
            (ReceiptStatus::Failed, None)
        }
    };
    Ok(ActorReadResponse {
        status,
        error: outcome.error().as_ref().map(Into::into),
        result: outcome.result,
        cycles_used: outcome.cycles_used,
        cells_used: outcome.cells_used,
        block_height,
        state_root,
        revert_reason,
    })
}

// The HTTP layer checks cursor lengths before the indexes see them.
const _: () = assert!(LOG_POSITION_LEN == drover_rpc::routes::actors::LOG_CURSOR_BYTES);
const _: () = assert!(RUN_POSITION_LEN == drover_rpc::routes::actors::RUN_CURSOR_BYTES);

/// The API record of a logged event: the fields of its origin set, the others `null`.
fn log_info(entry: LogEntry) -> LogInfo {
    let mut info = LogInfo {
        topic: entry.event.topic,
        data: entry.event.data,
        block_height: entry.height,
        origin: LogOrigin::Transaction,
        tx_hash: None,
        tx_index: None,
        timer_id: None,
        message_seq: None,
        from: None,
        event_index: entry.event_index,
    };
    match entry.origin {
        IndexedOrigin::Transaction { hash } => {
            info.tx_hash = Some(hash);
            info.tx_index = Some(entry.index);
        }
        IndexedOrigin::Timer { id } => {
            info.origin = LogOrigin::Timer;
            info.timer_id = Some(id);
        }
        IndexedOrigin::Delivery { seq, from } => {
            info.origin = LogOrigin::Delivery;
            info.message_seq = Some(seq);
            info.from = Some(from);
        }
    }
    info
}

/// The API record of an indexed system run: the fields of its kind set, the others `null`.
fn run_info(entry: RunEntry) -> SystemRunInfo {
    let (kind, timer_id, message_seq, from) = match entry.kind {
        SystemRunKind::Timer { id } => (RunKind::Timer, Some(id), None, None),
        SystemRunKind::Delivery { seq, from } => (RunKind::Delivery, None, Some(seq), Some(from)),
    };
    SystemRunInfo {
        block_height: entry.height,
        kind,
        timer_id,
        message_seq,
        from,
        handler: entry.handler,
        status: entry.status.into(),
        cycles_used: entry.cycles_used,
        cells_used: entry.cells_used,
        fee: entry.fee.total(),
        fee_burned: entry.fee.burned,
        fee_tip: entry.fee.tip,
        revert_reason: entry.revert_reason,
        error: entry.error.as_ref().map(ExecErrorInfo::from),
        event_count: entry.event_count,
    }
}

/// Up to `limit` records of the committed state in the key range `range`, after the key
/// `after` (from the start of the range when `None`), in key order; `own` names the records of
/// the range's owner (a range can hold another owner's record whose spread collides, which is
/// skipped). Also says whether more follow.
async fn scan<E, T>(
    db: &crate::databases::StateDb<E>,
    range: &[u8],
    after: Option<Vec<u8>>,
    limit: u64,
    own: impl Fn(&[u8], Vec<u8>) -> Option<T>,
) -> Result<(Vec<T>, bool), commonware_storage::qmdb::Error<commonware_storage::mmr::Family>>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    use futures::StreamExt as _;
    use std::ops::Bound;
    let start = match after {
        Some(after) => Bound::Excluded(after),
        None => Bound::Included(range.to_vec()),
    };
    // One record past the page says whether another page follows.
    let wanted = usize::try_from(limit).unwrap_or(usize::MAX).saturating_add(1);
    let mut stream = Box::pin(db.stream_range((start, Bound::Unbounded)));
    let mut records = Vec::new();
    while records.len() < wanted {
        let Some(entry) = stream.next().await else { break };
        let (key, value) = entry?;
        if !key.starts_with(range) {
            break;
        }
        records.extend(own(&key, value));
    }
    let more = records.len() == wanted;
    records.truncate(wanted - 1);
    Ok((records, more))
}

/// Cycles limit the faucet puts on its transfers (exactly a transfer's cost).
const FAUCET_CYCLES_LIMIT: u64 = drover_types::params::TRANSFER_CYCLES;

struct Inner {
    chain: Arc<ChainShared>,
    marshal: Mailbox<Scheme, Standard<Block>>,
    databases: Databases<tokio::Context>,
    metrics: Arc<tokio::Context>,
    chain_info: ChainInfo,
    faucet: Option<FaucetConfig>,
    faucet_lock: ::tokio::sync::Mutex<()>,
    gossip: Option<GossipHandle>,
    prover: Prover,
    /// Runs read-only calls (its own module cache: reads never wait on block execution).
    vm: Arc<Vm>,
    /// The threads read-only calls run on.
    reads: crate::reads::ReadPool,
}

#[derive(Clone)]
pub struct NodeHandle(Arc<Inner>);

impl NodeHandle {
    /// A page of an actor's entries in an index whose cursors are `N`-byte positions, with the
    /// next page's cursor (`None`: no actor there).
    async fn index_page<const N: usize, T>(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
        fetch: impl FnOnce(Option<[u8; N]>, usize) -> Result<(Vec<T>, bool), crate::indexes::IndexError>,
        position: impl Fn(&T) -> [u8; N],
    ) -> Result<Option<(Vec<T>, Option<String>)>, ApiError> {
        if self.read_keys([keys::actor_key(&address)]).await?[0].is_none() {
            return Ok(None);
        }
        let after = after
            .map(|bytes| <[u8; N]>::try_from(bytes.as_slice()))
            .transpose()
            .map_err(|_| ApiError::new(ErrorCode::BadRequest, format!("this cursor is {N} bytes")))?;
        let (entries, more) = fetch(after, usize::try_from(limit).unwrap_or(usize::MAX)).map_err(NodeError::from)?;
        let next_cursor = more.then(|| entries.last().map(|e| format!("0x{}", hex::encode(position(e))))).flatten();
        Ok(Some((entries, next_cursor)))
    }

    pub fn new(
        chain: Arc<ChainShared>,
        marshal: Mailbox<Scheme, Standard<Block>>,
        databases: Databases<tokio::Context>,
        metrics: Arc<tokio::Context>,
        genesis_digest: sha256::Digest,
        faucet: Option<FaucetConfig>,
        gossip: Option<GossipHandle>,
    ) -> Self {
        let chain_info = ChainInfo {
            chain_id: chain.genesis.chain_id(),
            network: chain.genesis.network().to_string(),
            genesis_hash: to_h256(&genesis_digest),
            version: env!("CARGO_PKG_VERSION").to_string(),
        };
        let prover = Prover::new(chain.clone(), marshal.clone(), databases.clone());
        Self(Arc::new(Inner {
            chain,
            marshal,
            databases,
            metrics,
            chain_info,
            faucet,
            faucet_lock: ::tokio::sync::Mutex::new(()),
            gossip,
            prover,
            vm: Arc::new(Vm::new()),
            reads: crate::reads::ReadPool::new(),
        }))
    }

    /// The latest applied state and its finalized block (which may be published a moment
    /// after the state is applied).
    async fn paired_state(&self) -> Result<(StateStamp, Arc<crate::proofs::CertifiedBlock>), ApiError> {
        for _ in 0..PAIRING_ATTEMPTS_MAX {
            let stamp = {
                let db = self.0.databases.read().await;
                StateStamp { ops: db.bounds().end, root: db.root() }
            };
            if let Some(block) = self.0.prover.block_with_root(&stamp.root).await {
                return Ok((stamp, block));
            }
            ::tokio::time::sleep(std::time::Duration::from_millis(PAIRING_RETRY_MS)).await;
        }
        Err(NodeError::unfinished("the state kept moving: no finalized block matched it").into())
    }

    /// Several keys of the latest applied state, read under one lock so they agree.
    async fn read_keys<const N: usize>(&self, keys: [Vec<u8>; N]) -> Result<[Option<Vec<u8>>; N], ApiError> {
        let db = self.0.databases.read().await;
        let mut values = [const { None }; N];
        for (value, key) in values.iter_mut().zip(&keys) {
            let read = db.get(key).await;
            self.0.chain.record_storage(read.is_ok());
            *value = read.map_err(NodeError::from)?;
        }
        Ok(values)
    }

    /// An account in the latest applied state.
    async fn read_account(&self, address: &Address) -> Result<Option<Account>, ApiError> {
        admission::read_account(&self.0.chain, &self.0.databases, address).await
    }

    fn block_info(&self, block: &Block, digest: sha256::Digest, finalization: Option<String>) -> BlockInfo {
        BlockInfo {
            height: block.height.get(),
            hash: to_h256(&digest),
            parent_hash: to_h256(&block.parent),
            timestamp: block.timestamp_secs(),
            timestamp_ms: block.timestamp_ms,
            proposer: block.proposer,
            view: block.context.round.view().get(),
            state_root: to_h256(&block.state_root),
            transactions_root: to_h256(&block.transactions_root),
            receipts_root: to_h256(&block.receipts_root),
            ops_root: to_h256(&block.ops_root),
            sync_range_start: block.range.start().as_u64(),
            op_count: block.range.end().as_u64(),
            transactions: block.transactions.iter().map(|t| drover_types::keccak256(t)).collect(),
            cycles_used: block.cycles_used,
            cells_used: block.cells_used,
            basefee_cycle: block.basefee_cycle.to_string(),
            basefee_cell: block.basefee_cell.to_string(),
            finalization,
        }
    }
}

impl Backend for NodeHandle {
    fn chain_info(&self) -> ChainInfo {
        self.0.chain_info.clone()
    }

    async fn submit(&self, txs: Vec<VerifiedTransaction>) -> Vec<Result<(), ApiError>> {
        let results = admission::admit(&self.0.chain, &self.0.databases, txs.clone()).await;
        if let Some(gossip) = &self.0.gossip {
            let admitted: Vec<_> = txs.into_iter().zip(&results).filter(|(_, r)| r.is_ok()).map(|(tx, _)| tx).collect();
            gossip.publish(&admitted);
        }
        results
    }

    async fn transaction(&self, hash: H256) -> Result<Option<IncludedTransaction>, ApiError> {
        let found = self.0.chain.indexes.transaction(&hash)?;
        Ok(found.map(|t| IncludedTransaction { tx: t.tx, block_height: t.height, index: t.index }))
    }

    async fn receipt(&self, hash: H256) -> Result<Option<Receipt>, ApiError> {
        Ok(self.0.chain.indexes.receipt(&hash)?)
    }

    fn pending_transaction(&self, hash: H256) -> Option<VerifiedTransaction> {
        self.0.chain.mempool.get(&hash)
    }

    fn dropped_reason(&self, hash: H256) -> Option<String> {
        self.0.chain.mempool.dropped_reason(&hash).map(|reason| reason.to_string())
    }

    async fn account(&self, address: Address) -> Result<Option<AccountInfo>, ApiError> {
        Ok(self.read_account(&address).await?.map(|a| AccountInfo { address, nonce: a.nonce, balance: a.balance }))
    }

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
            manifest: ManifestInfo { entitlements: record.entitlements },
        }))
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
            scan(&db, &keys::storage_range(&address), after, limit, own).await.map_err(NodeError::from)?;
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
            scan(&db, &keys::mailbox_range(&address), after, limit, own).await.map_err(NodeError::from)?;
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
        let indexes = &self.0.chain.indexes;
        let page =
            self.index_page(address, after, limit, |after, n| indexes.logs(&address, after, n), |e| e.position).await?;
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
        let indexes = &self.0.chain.indexes;
        let page =
            self.index_page(address, after, limit, |after, n| indexes.runs(&address, after, n), |e| e.position).await?;
        Ok(page.map(|(entries, next_cursor)| SystemRunPage {
            items: entries.into_iter().map(run_info).collect(),
            next_cursor,
            limit,
        }))
    }

    async fn actor_timers(&self, address: Address, page: Page) -> Result<Option<TimerPage>, ApiError> {
        let db = self.0.databases.read().await;
        if db.get(&keys::actor_key(&address)).await.map_err(NodeError::from)?.is_none() {
            return Ok(None);
        }
        let total = match db.get(&keys::timer_pending_key(&address)).await.map_err(NodeError::from)? {
            Some(bytes) => drover_state::decode_count(&bytes).map_err(NodeError::from)?,
            None => 0,
        };
        // An actor holds at most MAX_PENDING_TIMERS_PER_ACTOR timers, so skipping to the offset
        // scans a bounded range.
        let own = |key: &[u8], _| keys::timer_index_entry(key).filter(|(owner, _)| *owner == address).map(|(_, id)| id);
        let wanted = page.offset.saturating_add(page.limit);
        let (ids, _) =
            scan(&db, &keys::timer_index_range(&address), None, wanted, own).await.map_err(NodeError::from)?;
        let mut timers = Vec::new();
        for id in ids.into_iter().skip(usize::try_from(page.offset).unwrap_or(usize::MAX)) {
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
        let request = ReadRequest {
            actor: call.actor,
            handler: call.handler,
            payload: call.payload,
            caller: call.caller,
            max_cycles: call.max_cycles,
            max_cells: call.max_cells,
        };
        let request = Arc::new(request);
        let basefees = self.0.chain.tip().next_basefees;
        let deadline = crate::reads::read_deadline();
        let mut restarts = 0u32;
        while std::time::Instant::now() < deadline {
            let (stamp, block) = self.paired_state().await?;
            let env = BlockEnv {
                chain_id: self.0.chain_info.chain_id,
                height: block.height,
                timestamp_ms: block.timestamp_ms,
                proposer: Address::ZERO,
            };
            let (inner, request, runtime) = (self.0.clone(), request.clone(), ::tokio::runtime::Handle::current());
            let (result, interrupt, answered_at) = self
                .0
                .reads
                .run(move || {
                    let reader = CommittedReader::new(&inner.databases, &runtime, stamp, deadline);
                    let result = read_actor(&inner.vm, &env, basefees, &reader, &request);
                    (result, reader.interrupt(), reader.stamp())
                })
                .await
                .map_err(|busy| ApiError::new(ErrorCode::RateLimited, busy.to_string()))?;
            match (result, interrupt) {
                (Ok(outcome), _) => {
                    // The answers hold at the state the read ended at (see `reads`).
                    let height = if answered_at == stamp {
                        Some(block.height)
                    } else {
                        self.0.prover.block_with_root(&answered_at.root).await.map(|b| b.height)
                    };
                    // A state the answers hold at is a finalized one: it has a block.
                    let height = height
                        .ok_or_else(|| NodeError::unfinished("the state a read ended at has no block near the tip"))?;
                    return read_response(outcome, height, to_h256(&answered_at.root));
                }
                (Err(ReadFailure::NoActor(address)), _) => {
                    return Err(ApiError::new(ErrorCode::ActorNotFound, format!("address {address} holds no actor")));
                }
                (Err(ReadFailure::Corrupt(e)), _) => return Err(NodeError::unfinished(e).into()),
                (Err(ReadFailure::Unavailable(_)), Some(Interrupt::StateMoved)) => restarts += 1,
                (Err(ReadFailure::Unavailable(_)), Some(Interrupt::OutOfTime)) => break,
                (Err(ReadFailure::Unavailable(fault)), _) => return Err(NodeError::unfinished(fault).into()),
            }
        }
        Err(ApiError::new(
            ErrorCode::ReadLimitsExceeded,
            format!(
                "the read did not finish within {READ_TIME_BUDGET_MS} ms ({restarts} restarts after a block \
                 changed a value it had read); lower max_cycles or retry"
            ),
        ))
    }

    async fn actor_code(&self, address: Address) -> Result<Option<ActorCodeInfo>, ApiError> {
        let [record, code] = self.read_keys([keys::actor_key(&address), keys::actor_code_key(&address)]).await?;
        let (Some(record), Some(code)) = (record, code) else { return Ok(None) };
        let record = ActorRecord::decode(&record).map_err(NodeError::from)?;
        Ok(Some(ActorCodeInfo { address, code_hash: record.code_hash, size: code.len() as u64, code }))
    }

    fn height(&self) -> u64 {
        self.0.chain.tip().height
    }

    fn finalized_heights(&self) -> watch::Receiver<u64> {
        self.0.chain.subscribe_heights()
    }

    async fn block(&self, selector: BlockSelector) -> Result<Option<BlockInfo>, ApiError> {
        let identifier = match selector {
            BlockSelector::Latest => Identifier::Height(Height::new(self.height())),
            BlockSelector::Height(h) => Identifier::Height(Height::new(h)),
            BlockSelector::Hash(h) => Identifier::Digest(sha256::Digest::from(h.0)),
        };
        let Some(block) = self.0.marshal.get_block(identifier).await else {
            return Ok(None);
        };
        // Marshal may hold a block a moment before the node has indexed it (its receipts,
        // logs, the tip): a block is served once everything about it can be read.
        if block.inner().height.get() > self.height() {
            return Ok(None);
        }
        let finalization = if block.inner().height.get() == 0 {
            None
        } else {
            self.0.marshal.get_finalization(block.inner().height).await.map(|f| hex::encode(f.encode()))
        };
        Ok(Some(self.block_info(block.inner(), block.digest(), finalization)))
    }

    fn basefees(&self) -> Basefees {
        self.0.chain.tip().next_basefees
    }

    fn health(&self) -> ChainHealth {
        let tip = self.0.chain.tip();
        ChainHealth {
            block_height: tip.height,
            last_block_timestamp: tip.timestamp_ms / 1000,
            mempool_transaction_count: self.0.chain.mempool.len(),
            mempool_account_count: self.0.chain.mempool.sender_count(),
            storage_ok: self.0.chain.storage_ok(),
        }
    }

    fn faucet(&self) -> Option<FaucetSettings> {
        self.0
            .faucet
            .as_ref()
            .map(|f| FaucetSettings { drip_amount: f.drip_amount, requests_per_minute: f.requests_per_minute })
    }

    async fn fund(&self, address: Address) -> Result<H256, ApiError> {
        let faucet = self
            .0
            .faucet
            .as_ref()
            .ok_or_else(|| ApiError::new(ErrorCode::FaucetDisabled, "the faucet is not enabled"))?;
        let _serial = self.0.faucet_lock.lock().await;
        let from = faucet.key.address();
        let account = self.read_account(&from).await?.unwrap_or_default();
        let nonce = self.0.chain.mempool.next_nonce(&from, account.nonce);
        let fees = self.0.chain.tip().next_basefees;
        // Pay twice the current basefee so the drip survives a few basefee increases.
        let max_fee_per_cycle = fees.cycle.saturating_mul(2).max(1);
        let tx = Transaction {
            chain_id: self.0.chain_info.chain_id,
            nonce,
            to: Some(address),
            value: faucet.drip_amount,
            cycles_limit: FAUCET_CYCLES_LIMIT,
            cells_limit: 0,
            max_fee_per_cycle,
            max_fee_per_cell: fees.cell.max(1),
            tip_per_cycle: 0,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        }
        .sign(&faucet.key);
        let verified = tx.verify().map_err(NodeError::unfinished)?;
        let hash = verified.hash;
        let mut results = self.submit(vec![verified]).await;
        match results.pop() {
            Some(Ok(())) => Ok(hash),
            Some(Err(e)) => Err(e),
            None => Err(NodeError::unfinished("admission returned no result").into()),
        }
    }

    fn metrics(&self) -> String {
        self.0.metrics.encode()
    }

    fn state_snapshot(&self) -> Option<StateSnapshot> {
        self.0.chain.snapshot()
    }

    async fn state_proofs(
        &self,
        queries: Vec<StateQuery>,
        height: Option<u64>,
    ) -> Result<Vec<StateProofInfo>, ApiError> {
        self.0.prover.state_proofs(queries, height).await
    }

    async fn inclusion_proof(
        &self,
        kind: InclusionProofKind,
        hash: H256,
    ) -> Result<Option<InclusionProofInfo>, ApiError> {
        self.0.prover.inclusion_proof(kind, hash).await
    }

    async fn state_operations(&self, request: OperationsRequest) -> Result<Vec<u8>, ApiError> {
        let (size, start, request) = match request {
            OperationsRequest::Operations { size, start, max } => {
                let max_ops = NonZeroU64::new(max)
                    .ok_or_else(|| ApiError::new(ErrorCode::BadRequest, "max must be at least 1"))?;
                let request = Request::Operations { size: Location::new(size), start: Location::new(start), max_ops };
                (size, start, request)
            }
            OperationsRequest::Boundary { size, start } => {
                (size, start, Request::Boundary { size: Location::new(size), start: Location::new(start) })
            }
        };
        let held = self.0.databases.read().await.bounds().end.as_u64();
        if size > held {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("size {size} is beyond this node's {held} operations"),
            ));
        }
        // Within MAX_OPERATIONS_RESPONSE_BYTES: fewer operations when they are large.
        match crate::sync_source::serve_operations(&*self.0.databases, request).await {
            Ok(bytes) => Ok(bytes),
            // Sizes and ranges below the retained history were pruned.
            Err(e) => Err(ApiError::new(
                ErrorCode::NotFound,
                format!("operations {start}.. at size {size} are not held (pruned or out of range): {e}"),
            )),
        }
    }
}
