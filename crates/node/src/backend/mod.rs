//! The HTTP API's view of the node: [`drover_rpc::Backend`] over the real chain.
//!
//! Reads go to the latest applied (finalized) state in QMDB, the indexes, marshal's block
//! archive and the mempool; writes go to the mempool. The faucet signs ordinary transfers from
//! its funded account, serialised so concurrent requests get consecutive nonces. Proofs are
//! built by [`Prover`].

mod actor_read;
mod explorer;
mod faucet;
mod governance;
mod handle;
mod jobs;
mod library;
mod pages;
mod records;
mod runners;
mod secrets;
mod simulator;
mod storage;
mod tokens;

pub(crate) use handle::NodeHandle;
use pages::scan;
use records::{log_info, run_info};

use crate::databases::OrderedRead;
use crate::error::NodeError;
use crate::intake;
use ::tokio::sync::watch;
use commonware_codec::Encode as _;
use commonware_consensus::{marshal::Identifier, types::Height};
use commonware_cryptography::{Digestible as _, sha256};
use commonware_runtime::Metrics as _;
use commonware_storage::{mmr::Location, qmdb::sync::Request};
use drover_rpc::backend::{
    ActorCall, Backend, ChainHealth, FaucetSettings, IncludedTransaction, OperationsRequest, StateQuery,
};
use drover_rpc::pagination::Page;
use drover_state::{Account, ActorRecord, MailboxUsage, MessageRecord, TimerRecord, UpgradeRecord, keys};
use drover_types::{
    Address, Basefees, BlockSelector, ErrorCode, H256, Receipt, VerifiedTransaction,
    admission::AdmissionError,
    api::{
        AccountInfo, AccountTokens, ActorCodeInfo, ActorInfo, ActorReadResponse, BlockInfo, ChainInfo, DelegationList,
        EntitlementInfo, InclusionProofInfo, InclusionProofKind, JobInfo, JobResultList, LogPage, MailboxMessageInfo,
        MailboxPage, ManifestInfo, RunnerInfo, RunnerJobList, RunnerList, StateProofInfo, StateSnapshot,
        StorageEntryInfo, StoragePage, SystemRunPage, TimerInfo, TimerPage, TokenInfo, TokenList, UpgradeInfo,
        UpgradePage, VerifiedResultInfo,
    },
    error::ApiError,
};
use std::num::NonZeroU64;

impl Backend for NodeHandle {
    fn chain_info(&self) -> ChainInfo {
        self.0.chain_info.clone()
    }

    async fn submit(&self, txs: Vec<VerifiedTransaction>) -> Vec<Result<(), AdmissionError>> {
        let results = intake::admit(&self.0.chain, &self.0.databases, txs.clone()).await;
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

    async fn tokens(&self, page: Page) -> Result<TokenList, ApiError> {
        self.read_tokens(page).await
    }

    async fn token(&self, id: Address) -> Result<Option<TokenInfo>, ApiError> {
        self.read_token(id).await
    }

    async fn token_balance(&self, id: Address, holder: Address) -> Result<Option<u128>, ApiError> {
        self.read_token_balance(id, holder).await
    }

    async fn token_allowance(&self, id: Address, owner: Address, spender: Address) -> Result<Option<u128>, ApiError> {
        self.read_token_allowance(id, owner, spender).await
    }

    async fn next_nonce(&self, address: Address) -> Result<u64, ApiError> {
        let finalized = self.read_account(&address).await?.map_or(0, |account| account.nonce);
        Ok(self.0.chain.mempool.next_nonce(&address, finalized))
    }

    fn entitlements(&self) -> Vec<EntitlementInfo> {
        let live = self.0.chain.tip().next_params;
        drover_vm::ENTITLEMENT_REGISTRY
            .iter()
            .map(|(id, e)| EntitlementInfo {
                id: (*id).to_owned(),
                description: e.description().to_owned(),
                host_functions: e.host_functions().iter().map(|f| (*f).to_owned()).collect(),
                // A limit that is a chain parameter is shown at its live value.
                params: e
                    .params()
                    .into_iter()
                    .map(|(name, value)| {
                        let value = live.get(name).and_then(|v| u64::try_from(v).ok()).unwrap_or(value);
                        (name.to_owned(), value)
                    })
                    .collect(),
            })
            .collect()
    }

    fn manifest_problems(&self, ids: &[String]) -> Vec<(usize, String)> {
        drover_vm::manifest_problems(ids)
    }

    async fn active_runners(&self, page: Page) -> Result<RunnerList, ApiError> {
        self.read_active_runners(page).await
    }

    async fn runner(&self, address: Address) -> Result<Option<RunnerInfo>, ApiError> {
        self.read_runner(address).await
    }

    async fn delegations(&self, address: Address, page: Page) -> Result<DelegationList, ApiError> {
        self.read_delegations(address, page).await
    }

    async fn job(&self, id: H256) -> Result<Option<JobInfo>, ApiError> {
        self.read_job(id).await
    }

    async fn job_results(&self, id: H256, page: Page) -> Result<Option<JobResultList>, ApiError> {
        self.read_job_results(id, page).await
    }

    async fn job_verified(&self, id: H256) -> Result<Option<Option<VerifiedResultInfo>>, ApiError> {
        self.read_job_verified(id).await
    }

    async fn runner_jobs(&self, runner: Address, page: Page) -> Result<RunnerJobList, ApiError> {
        self.read_runner_jobs(runner, page).await
    }

    async fn library(
        &self,
        publisher: Address,
        name: String,
        version: Option<u32>,
    ) -> Result<Option<drover_types::api::LibraryInfo>, ApiError> {
        self.read_library(publisher, name, version).await
    }

    async fn libraries(&self, publisher: Address, page: Page) -> Result<drover_types::api::LibraryList, ApiError> {
        self.read_libraries(publisher, page).await
    }

    async fn secrets(&self, owner: Address, page: Page) -> Result<drover_types::api::SecretList, ApiError> {
        self.read_secrets(owner, page).await
    }

    async fn secret_envelope(
        &self,
        owner: Address,
        name: String,
        reader: Address,
    ) -> Result<Option<drover_types::api::SecretEnvelope>, ApiError> {
        self.read_secret_envelope(owner, name, reader).await
    }

    async fn governance_params(&self) -> Result<drover_types::api::GovernanceParams, ApiError> {
        self.read_governance_params().await
    }

    async fn proposals(
        &self,
        status: Option<drover_types::governance::ProposalStatus>,
        page: Page,
    ) -> Result<drover_types::api::ProposalList, ApiError> {
        self.read_proposals(status, page).await
    }

    async fn proposal(&self, id: u64, page: Page) -> Result<Option<drover_types::api::ProposalDetail>, ApiError> {
        self.read_proposal(id, page).await
    }

    async fn account_tokens(&self, address: Address, page: Page) -> Result<AccountTokens, ApiError> {
        self.read_account_tokens(address, page).await
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

    async fn actor_code(&self, address: Address) -> Result<Option<ActorCodeInfo>, ApiError> {
        let [record, code] = self.read_keys([keys::actor_key(&address), keys::actor_code_key(&address)]).await?;
        let (Some(record), Some(code)) = (record, code) else { return Ok(None) };
        let record = ActorRecord::decode(&record).map_err(NodeError::from)?;
        Ok(Some(ActorCodeInfo { address, code_hash: record.code_hash, size: code.len() as u64, code }))
    }

    async fn ras_stats(&self) -> Result<drover_types::api::RasStats, ApiError> {
        self.read_ras_stats().await
    }

    async fn ras_relays(
        &self,
        filter: drover_rpc::backend::RelayFilter,
        page: Page,
    ) -> Result<drover_types::api::RelayList, ApiError> {
        self.read_ras_relays(filter, page).await
    }

    async fn ras_volume(&self, id: H256) -> Result<Option<drover_types::api::VolumeInfo>, ApiError> {
        self.read_ras_volume(id).await
    }

    async fn ras_volumes(&self, owner: Address, page: Page) -> Result<drover_types::api::VolumeList, ApiError> {
        self.read_ras_volumes(owner, page).await
    }

    async fn ras_account(&self, wallet: Address) -> Result<drover_types::api::RasAccountBalance, ApiError> {
        self.read_ras_account(wallet).await
    }

    async fn ras_revocation(&self, wallet: Address, session_key: [u8; 33]) -> Result<Option<u64>, ApiError> {
        self.read_ras_revocation(wallet, session_key).await
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
        Ok(Some(records::block_info(block.inner(), block.digest(), finalization)))
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
        self.drip(address).await
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
