//! In-memory [`Backend`] and request helpers for the router tests (no sockets: requests go
//! through `tower::ServiceExt::oneshot`).
//!
//! The mock's mempool admits a transaction when its sender has an account (else 2006) and its
//! nonce is not below the account's (else 2003). With `include_on_submit`, admitted
//! transactions are included shortly after in a new block with a success receipt, and the
//! finalized height advances, which is what `/submit_wait` waits for.
//!
//! Proofs are stand-ins (the bytes `mock-proof`, the latest block's hash as the block bytes):
//! route tests check shapes, errors and ordering; real proofs are tested in `drover-client` and
//! end to end.

use crate::pagination::Page;
use crate::{
    RpcConfig,
    backend::{
        ActorCall, Backend, ChainHealth, FaucetSettings, IncludedTransaction, OperationsRequest, RelayFilter,
        StateQuery,
    },
    router,
};
use axum::{
    Router,
    body::{Body, to_bytes},
    http::{HeaderMap, Request, StatusCode, header},
};
use drover_types::{
    Address, Basefees, BlockSelector, ErrorCode, FeeBreakdown, H256, Receipt, SecretKey, Transaction, TxStatus,
    VerifiedTransaction,
    admission::{AdmissionError, PoolRefusal, PoolRefusalKind},
    api::{
        AccountInfo, AccountTokens, ActorCodeInfo, ActorInfo, ActorReadResponse, BlockInfo, CapabilitiesInfo,
        ChainInfo, DelegationInfo, DelegationList, EntitlementInfo, GovernanceParams, InclusionProofInfo,
        InclusionProofKind, JobInfo, JobResultInfo, JobResultList, LogInfo, LogPage, MailboxPage, ManifestInfo,
        ParamInfo, ProposalDetail, ProposalList, RasAccountBalance, RasStats, RateCardInfo, ReceiptStatus, RelayInfo,
        RelayList, RunnerInfo, RunnerJobList, RunnerList, SecretEnvelope, SecretList, StateProofInfo, StateProofKind,
        StateSnapshot, StorageEntryInfo, StoragePage, SystemRunInfo, SystemRunPage, TimerPage, TokenHolding, TokenInfo,
        TokenList, UpgradePage, VerifiedResultInfo, VolumeInfo, VolumeList,
    },
    error::ApiError,
    keccak256,
};
use parking_lot::Mutex;
use std::{collections::HashMap, sync::Arc, time::Duration};
use tokio::sync::watch;
use tower::ServiceExt;

/// Chain id of the mock network (the dev chain, which the faucet serves).
pub(crate) const CHAIN_ID: u64 = 100;
/// Delay between admission and inclusion with `include_on_submit`.
const INCLUSION_DELAY: Duration = Duration::from_millis(20);

pub(crate) struct MockData {
    pub chain_id: u64,
    pub accounts: HashMap<Address, AccountInfo>,
    pub included: HashMap<H256, IncludedTransaction>,
    pub receipts: HashMap<H256, Receipt>,
    pub pending: HashMap<H256, VerifiedTransaction>,
    /// Hashes the mempool dropped, with why.
    pub dropped: HashMap<H256, String>,
    pub blocks: Vec<BlockInfo>,
    pub basefees: Basefees,
    pub health: ChainHealth,
    pub faucet: Option<FaucetSettings>,
    /// Every transaction handed to `submit`, in order.
    pub submitted: Vec<VerifiedTransaction>,
    /// When set, `submit` refuses every transaction with this error.
    pub submit_refusal: Option<AdmissionError>,
    pub include_on_submit: bool,
    pub metrics: String,
    pub snapshot: Option<StateSnapshot>,
    /// Actors by address, with the code the mock serves for each (`\0asm`).
    pub actors: Vec<ActorInfo>,
    /// Every request handed to `state_operations`; each is answered with its debug text.
    pub operations_requests: Vec<OperationsRequest>,
    /// Actor storage slots, by actor and key.
    pub storage: HashMap<(Address, Vec<u8>), Vec<u8>>,
    /// Every batch handed to `state_proofs`, with its height.
    pub proof_batches: Vec<(Vec<StateQuery>, Option<u64>)>,
    /// Events in each actor's log, served as one page whatever the cursor.
    pub logs: HashMap<Address, Vec<LogInfo>>,
    /// System runs of each actor in chain order; the mock's cursor ends in a run's index here.
    pub runs: HashMap<Address, Vec<SystemRunInfo>>,
    /// Tokens in creation order.
    pub tokens: Vec<TokenInfo>,
    /// Balances by (token, holder).
    pub token_balances: HashMap<(Address, Address), u128>,
    /// Allowances by (token, owner, spender).
    pub token_allowances: HashMap<(Address, Address, Address), u128>,
    /// Runners, listed in this order.
    pub runners: Vec<RunnerInfo>,
    /// Delegations by delegator.
    pub delegations: HashMap<Address, Vec<DelegationInfo>>,
    /// Jobs, with their results and verdict.
    pub jobs: Vec<(JobInfo, Vec<JobResultInfo>, Option<VerifiedResultInfo>)>,
    /// Proposals in id order, with their votes.
    pub proposals: Vec<ProposalDetail>,
    /// Secrets' envelopes.
    pub envelopes: Vec<SecretEnvelope>,
    /// Library versions.
    pub libraries: Vec<drover_types::api::LibraryInfo>,
    /// Registered storage relays, in listing-slot order.
    pub relays: Vec<RelayInfo>,
    /// Volumes (as the node would serve them at the tip).
    pub volumes: Vec<VolumeInfo>,
    /// Revoked session keys by (wallet, key), with the height.
    pub revocations: HashMap<(Address, [u8; 33]), u64>,
    /// Creation fees burned, for `/ras/stats` (the other totals are sums over the lists).
    pub volume_fees_burned: u128,
    /// History, events and the first indexed height (`crate::explorer::mock`).
    pub explorer: crate::explorer::mock::MockExplorer,
    /// Simulations asked and the answer (`crate::simulator::mock`).
    pub simulator: crate::simulator::mock::MockSimulator,
}

#[derive(Clone)]
pub(crate) struct MockBackend {
    pub data: Arc<Mutex<MockData>>,
    heights: Arc<watch::Sender<u64>>,
}

impl Default for MockBackend {
    fn default() -> Self {
        let mut accounts = HashMap::new();
        for index in 0..3 {
            let address = key(index).address();
            accounts.insert(address, AccountInfo { address, nonce: 0, balance: 1_000_000_000_000 });
        }
        let data = MockData {
            chain_id: CHAIN_ID,
            accounts,
            included: HashMap::new(),
            receipts: HashMap::new(),
            pending: HashMap::new(),
            dropped: HashMap::new(),
            blocks: vec![block(0)],
            basefees: Basefees { cycle: 7, cell: 3 },
            health: ChainHealth {
                block_height: 0,
                last_block_timestamp: 1_700_000_000,
                mempool_transaction_count: 0,
                mempool_account_count: 0,
                storage_ok: true,
            },
            faucet: Some(FaucetSettings { drip_amount: 10_000_000_000, requests_per_minute: 5 }),
            submitted: Vec::new(),
            submit_refusal: None,
            include_on_submit: false,
            metrics: "# TYPE drover_chain_height gauge\ndrover_chain_height 0\n# EOF\n".to_owned(),
            snapshot: None,
            actors: Vec::new(),
            operations_requests: Vec::new(),
            storage: HashMap::new(),
            proof_batches: Vec::new(),
            logs: HashMap::new(),
            runs: HashMap::new(),
            tokens: Vec::new(),
            token_balances: HashMap::new(),
            token_allowances: HashMap::new(),
            runners: Vec::new(),
            delegations: HashMap::new(),
            jobs: Vec::new(),
            proposals: Vec::new(),
            envelopes: Vec::new(),
            libraries: Vec::new(),
            relays: Vec::new(),
            volumes: Vec::new(),
            revocations: HashMap::new(),
            volume_fees_burned: 0,
            explorer: Default::default(),
            simulator: Default::default(),
        };
        Self { data: Arc::new(Mutex::new(data)), heights: Arc::new(watch::channel(0).0) }
    }
}

impl MockBackend {
    pub(crate) fn with(edit: impl FnOnce(&mut MockData)) -> Self {
        let mock = Self::default();
        edit(&mut mock.data.lock());
        mock
    }

    /// Includes `hashes` (pending) in a new block with success receipts.
    pub(crate) fn include(&self, hashes: &[H256]) {
        let height = {
            let mut data = self.data.lock();
            let height = data.blocks.len() as u64;
            for (index, hash) in hashes.iter().enumerate() {
                let Some(tx) = data.pending.remove(hash) else {
                    continue;
                };
                let index = index as u32;
                data.receipts.insert(*hash, success_receipt(&tx, height, index));
                data.included.insert(*hash, IncludedTransaction { tx, block_height: height, index });
            }
            data.blocks.push(block(height));
            height
        };
        self.heights.send_replace(height);
    }
}

impl Backend for MockBackend {
    fn chain_info(&self) -> ChainInfo {
        ChainInfo {
            chain_id: self.data.lock().chain_id,
            network: "drover-test".to_owned(),
            genesis_hash: block(0).hash,
            version: "0.1.0-test".to_owned(),
        }
    }

    async fn submit(&self, txs: Vec<VerifiedTransaction>) -> Vec<Result<(), AdmissionError>> {
        let (verdicts, admitted, include) = {
            let mut data = self.data.lock();
            let mut admitted = Vec::new();
            let verdicts = txs
                .into_iter()
                .map(|tx| {
                    data.submitted.push(tx.clone());
                    if let Some(refusal) = &data.submit_refusal {
                        return Err(refusal.clone());
                    }
                    let Some(account) = data.accounts.get(&tx.sender) else {
                        return Err(PoolRefusal::new(PoolRefusalKind::Reserved, "sender holds no funds").into());
                    };
                    if tx.tx.nonce < account.nonce {
                        return Err(PoolRefusal::new(PoolRefusalKind::NonceUsed, "nonce already used").into());
                    }
                    admitted.push(tx.hash);
                    data.pending.insert(tx.hash, tx);
                    Ok(())
                })
                .collect();
            (verdicts, admitted, data.include_on_submit)
        };
        if include && !admitted.is_empty() {
            let mock = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(INCLUSION_DELAY).await;
                mock.include(&admitted);
            });
        }
        verdicts
    }

    async fn transaction(&self, hash: H256) -> Result<Option<IncludedTransaction>, ApiError> {
        Ok(self.data.lock().included.get(&hash).cloned())
    }

    async fn receipt(&self, hash: H256) -> Result<Option<Receipt>, ApiError> {
        Ok(self.data.lock().receipts.get(&hash).cloned())
    }

    fn pending_transaction(&self, hash: H256) -> Option<VerifiedTransaction> {
        self.data.lock().pending.get(&hash).cloned()
    }

    fn dropped_reason(&self, hash: H256) -> Option<String> {
        self.data.lock().dropped.get(&hash).cloned()
    }

    async fn account(&self, address: Address) -> Result<Option<AccountInfo>, ApiError> {
        Ok(self.data.lock().accounts.get(&address).cloned())
    }

    async fn tokens(&self, page: Page) -> Result<TokenList, ApiError> {
        let data = self.data.lock();
        let tokens = data.tokens.iter().skip(page.offset as usize).take(page.limit as usize).cloned().collect();
        Ok(TokenList { tokens, total_count: data.tokens.len() as u64, offset: page.offset, limit: page.limit })
    }

    async fn token(&self, id: Address) -> Result<Option<TokenInfo>, ApiError> {
        Ok(self.data.lock().tokens.iter().find(|t| t.token_id == id).cloned())
    }

    async fn token_balance(&self, id: Address, holder: Address) -> Result<Option<u128>, ApiError> {
        let data = self.data.lock();
        let known = data.tokens.iter().any(|t| t.token_id == id);
        Ok(known.then(|| data.token_balances.get(&(id, holder)).copied().unwrap_or(0)))
    }

    async fn token_allowance(&self, id: Address, owner: Address, spender: Address) -> Result<Option<u128>, ApiError> {
        let data = self.data.lock();
        let known = data.tokens.iter().any(|t| t.token_id == id);
        Ok(known.then(|| data.token_allowances.get(&(id, owner, spender)).copied().unwrap_or(0)))
    }

    async fn next_nonce(&self, address: Address) -> Result<u64, ApiError> {
        Ok(self.data.lock().accounts.get(&address).map_or(0, |account| account.nonce))
    }

    fn entitlements(&self) -> Vec<EntitlementInfo> {
        ["storage.kv", "events.emit"]
            .into_iter()
            .map(|id| EntitlementInfo {
                id: id.to_owned(),
                description: format!("the mock's {id}"),
                host_functions: Vec::new(),
                params: Default::default(),
            })
            .collect()
    }

    fn manifest_problems(&self, ids: &[String]) -> Vec<(usize, String)> {
        let known = self.entitlements();
        let mut problems = Vec::new();
        for (at, id) in ids.iter().enumerate() {
            if !known.iter().any(|e| e.id == *id) {
                problems.push((at, "unknown".to_owned()));
            } else if ids[..at].contains(id) {
                problems.push((at, "repeated".to_owned()));
            }
        }
        problems
    }

    async fn active_runners(&self, page: Page) -> Result<RunnerList, ApiError> {
        let data = self.data.lock();
        let registered: Vec<_> = data.runners.iter().filter(|r| r.health != "deregistered").cloned().collect();
        let total_count = registered.len() as u64;
        let runners = registered.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(RunnerList { runners, total_count, offset: page.offset, limit: page.limit })
    }

    async fn runner(&self, address: Address) -> Result<Option<RunnerInfo>, ApiError> {
        Ok(self.data.lock().runners.iter().find(|r| r.address == address).cloned())
    }

    async fn delegations(&self, address: Address, page: Page) -> Result<DelegationList, ApiError> {
        let all = self.data.lock().delegations.get(&address).cloned().unwrap_or_default();
        let total_count = all.len() as u64;
        let delegations = all.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(DelegationList { address, delegations, total_count, offset: page.offset, limit: page.limit })
    }

    async fn job(&self, id: H256) -> Result<Option<JobInfo>, ApiError> {
        Ok(self.data.lock().jobs.iter().find(|(job, _, _)| job.job_id == id).map(|(job, _, _)| job.clone()))
    }

    async fn job_results(&self, id: H256, page: Page) -> Result<Option<JobResultList>, ApiError> {
        let data = self.data.lock();
        Ok(data.jobs.iter().find(|(job, _, _)| job.job_id == id).map(|(_, results, _)| JobResultList {
            job_id: id,
            results: results.iter().skip(page.offset as usize).take(page.limit as usize).cloned().collect(),
            total_count: results.len() as u64,
            offset: page.offset,
            limit: page.limit,
        }))
    }

    async fn job_verified(&self, id: H256) -> Result<Option<Option<VerifiedResultInfo>>, ApiError> {
        Ok(self.data.lock().jobs.iter().find(|(job, _, _)| job.job_id == id).map(|(_, _, verdict)| verdict.clone()))
    }

    async fn runner_jobs(&self, runner: Address, page: Page) -> Result<RunnerJobList, ApiError> {
        let data = self.data.lock();
        let open: Vec<JobInfo> = data
            .jobs
            .iter()
            .filter(|(job, results, _)| {
                job.status == "assigned"
                    && job.assigned_runners.contains(&runner)
                    && !results.iter().any(|r| r.runner == runner)
            })
            .map(|(job, _, _)| job.clone())
            .collect();
        let total_count = open.len() as u64;
        let jobs = open.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(RunnerJobList { address: runner, jobs, total_count, offset: page.offset, limit: page.limit })
    }

    async fn library(
        &self,
        publisher: Address,
        name: String,
        version: Option<u32>,
    ) -> Result<Option<drover_types::api::LibraryInfo>, ApiError> {
        let data = self.data.lock();
        Ok(data
            .libraries
            .iter()
            .find(|l| l.publisher == publisher && l.name == name && version.is_none_or(|v| v == l.version))
            .cloned())
    }

    async fn libraries(&self, publisher: Address, page: Page) -> Result<drover_types::api::LibraryList, ApiError> {
        let data = self.data.lock();
        let all: Vec<_> = data.libraries.iter().filter(|l| l.publisher == publisher).cloned().collect();
        let total_count = all.len() as u64;
        let libraries = all.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(drover_types::api::LibraryList { publisher, libraries, total_count, offset: page.offset, limit: page.limit })
    }

    async fn secrets(&self, owner: Address, page: Page) -> Result<SecretList, ApiError> {
        let data = self.data.lock();
        let mut secrets: Vec<drover_types::api::SecretInfo> = Vec::new();
        for envelope in data.envelopes.iter().filter(|e| e.owner == owner) {
            match secrets.iter_mut().find(|s| s.name == envelope.name) {
                Some(secret) => secret.readers.push(envelope.reader),
                None => secrets.push(drover_types::api::SecretInfo {
                    name: envelope.name.clone(),
                    version: envelope.version,
                    readers: vec![envelope.reader],
                    updated_height: 1,
                }),
            }
        }
        let total_count = secrets.len() as u64;
        let secrets = secrets.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(SecretList { owner, secrets, total_count, offset: page.offset, limit: page.limit })
    }

    async fn secret_envelope(
        &self,
        owner: Address,
        name: String,
        reader: Address,
    ) -> Result<Option<SecretEnvelope>, ApiError> {
        let data = self.data.lock();
        Ok(data.envelopes.iter().find(|e| e.owner == owner && e.name == name && e.reader == reader).cloned())
    }

    async fn governance_params(&self) -> Result<GovernanceParams, ApiError> {
        let live = drover_types::governance::ChainParams::default();
        Ok(GovernanceParams { height: self.height(), params: ParamInfo::all(&live), total_locked: 0 })
    }

    async fn proposals(
        &self,
        status: Option<drover_types::governance::ProposalStatus>,
        page: Page,
    ) -> Result<ProposalList, ApiError> {
        let data = self.data.lock();
        let matching: Vec<_> = data
            .proposals
            .iter()
            .filter(|p| status.is_none_or(|s| p.proposal.status == s.as_str()))
            .map(|p| p.proposal.clone())
            .collect();
        let total_count = matching.len() as u64;
        let proposals = matching.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(ProposalList { proposals, total_count, offset: page.offset, limit: page.limit })
    }

    async fn proposal(&self, id: u64, _page: Page) -> Result<Option<ProposalDetail>, ApiError> {
        Ok(self.data.lock().proposals.iter().find(|p| p.proposal.id == id).cloned())
    }

    async fn account_tokens(&self, address: Address, page: Page) -> Result<AccountTokens, ApiError> {
        let data = self.data.lock();
        let held: Vec<_> = data
            .tokens
            .iter()
            .filter_map(|t| {
                let balance = data.token_balances.get(&(t.token_id, address)).copied().filter(|b| *b > 0)?;
                Some(TokenHolding {
                    token_id: t.token_id,
                    symbol: t.symbol.clone(),
                    decimals: t.decimals,
                    balance,
                    frozen: false,
                })
            })
            .collect();
        let total_count = held.len() as u64;
        let tokens = held.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(AccountTokens { address, tokens, total_count, offset: page.offset, limit: page.limit })
    }

    async fn ras_stats(&self) -> Result<RasStats, ApiError> {
        let data = self.data.lock();
        Ok(RasStats {
            height: data.blocks.len() as u64 - 1,
            relays: data.relays.len() as u64,
            capacity_bytes: data.relays.iter().map(|r| r.capacity_bytes).sum(),
            relay_stake: data.relays.iter().map(|r| r.stake).sum(),
            volumes: data.volumes.len() as u64,
            bytes: data.volumes.iter().map(|v| v.size_bytes).sum(),
            deposits: data.volumes.iter().map(|v| v.deposit).sum(),
            rent_paid: data.volumes.iter().map(|v| v.rent_paid).sum(),
            fees_burned: data.volume_fees_burned,
        })
    }

    async fn ras_relays(&self, filter: RelayFilter, page: Page) -> Result<RelayList, ApiError> {
        let data = self.data.lock();
        let kept: Vec<_> = data.relays.iter().filter(|r| filter.keeps(r)).cloned().collect();
        let total_count = kept.len() as u64;
        let relays = kept.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(RelayList { relays, total_count, offset: page.offset, limit: page.limit })
    }

    async fn ras_volume(&self, id: H256) -> Result<Option<VolumeInfo>, ApiError> {
        Ok(self.data.lock().volumes.iter().find(|v| v.volume_id == id).cloned())
    }

    async fn ras_volumes(&self, owner: Address, page: Page) -> Result<VolumeList, ApiError> {
        let data = self.data.lock();
        let mut owned: Vec<_> = data.volumes.iter().filter(|v| v.owner == owner).cloned().collect();
        owned.sort_by_key(|v| v.volume_id);
        let total_count = owned.len() as u64;
        let volumes = owned.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(VolumeList { volumes, total_count, offset: page.offset, limit: page.limit })
    }

    async fn ras_account(&self, wallet: Address) -> Result<RasAccountBalance, ApiError> {
        let data = self.data.lock();
        let owned: Vec<_> = data.volumes.iter().filter(|v| v.owner == wallet).collect();
        Ok(RasAccountBalance {
            wallet,
            balance: data.accounts.get(&wallet).map_or(0, |a| a.balance),
            volumes: owned.len() as u64,
            deposits: owned.iter().map(|v| v.deposit).sum(),
            rent_per_block: owned
                .iter()
                .filter(|v| v.status == drover_types::storage::VolumeStatus::Active)
                .map(|v| v.rent_per_block)
                .sum(),
            truncated: false,
        })
    }

    async fn ras_revocation(&self, wallet: Address, session_key: [u8; 33]) -> Result<Option<u64>, ApiError> {
        Ok(self.data.lock().revocations.get(&(wallet, session_key)).copied())
    }

    fn height(&self) -> u64 {
        self.data.lock().blocks.len() as u64 - 1
    }

    fn finalized_heights(&self) -> watch::Receiver<u64> {
        self.heights.subscribe()
    }

    async fn block(&self, selector: BlockSelector) -> Result<Option<BlockInfo>, ApiError> {
        let data = self.data.lock();
        Ok(match selector {
            BlockSelector::Latest => data.blocks.last().cloned(),
            BlockSelector::Height(height) => data.blocks.iter().find(|b| b.height == height).cloned(),
            BlockSelector::Hash(hash) => data.blocks.iter().find(|b| b.hash == hash).cloned(),
        })
    }

    fn basefees(&self) -> Basefees {
        self.data.lock().basefees
    }

    fn health(&self) -> ChainHealth {
        self.data.lock().health
    }

    fn faucet(&self) -> Option<FaucetSettings> {
        self.data.lock().faucet
    }

    async fn fund(&self, address: Address) -> Result<H256, ApiError> {
        Ok(keccak256(&address.0))
    }

    fn metrics(&self) -> String {
        self.data.lock().metrics.clone()
    }

    async fn actor(&self, address: Address) -> Result<Option<ActorInfo>, ApiError> {
        Ok(self.data.lock().actors.iter().find(|a| a.address == address).cloned())
    }

    async fn actor_code(&self, address: Address) -> Result<Option<ActorCodeInfo>, ApiError> {
        Ok(self.data.lock().actors.iter().find(|a| a.address == address).map(|a| ActorCodeInfo {
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
        if !self.data.lock().actors.iter().any(|a| a.address == address) {
            return Ok(None);
        }
        let entries = [(b"a".to_vec(), vec![1]), (b"b".to_vec(), vec![2])];
        let mut rest = entries.into_iter().filter(|(key, _)| after.as_ref().is_none_or(|after| key > after));
        let items: Vec<_> = rest.next().into_iter().map(|(key, value)| StorageEntryInfo { key, value }).collect();
        let next_cursor = rest.next().and(items.last().map(|entry| format!("0x{}", hex::encode(&entry.key))));
        Ok(Some(StoragePage { items, next_cursor, limit }))
    }

    async fn actor_storage_count(&self, address: Address) -> Result<Option<u64>, ApiError> {
        Ok(self.data.lock().actors.iter().any(|a| a.address == address).then_some(2))
    }

    async fn actor_mailbox(
        &self,
        address: Address,
        _after: Option<u64>,
        limit: u64,
    ) -> Result<Option<MailboxPage>, ApiError> {
        Ok(self.data.lock().actors.iter().any(|a| a.address == address).then(|| MailboxPage {
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
        let data = self.data.lock();
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
        let data = self.data.lock();
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
        Ok(self.data.lock().actors.iter().any(|a| a.address == address).then(|| page.envelope(Vec::new(), 0)))
    }

    async fn actor_upgrades(&self, address: Address, page: Page) -> Result<Option<UpgradePage>, ApiError> {
        Ok(self.data.lock().actors.iter().any(|a| a.address == address).then(|| page.envelope(Vec::new(), 0)))
    }

    async fn actor_read(&self, call: ActorCall) -> Result<ActorReadResponse, ApiError> {
        if !self.data.lock().actors.iter().any(|a| a.address == call.actor) {
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
        })
    }

    fn state_snapshot(&self) -> Option<StateSnapshot> {
        self.data.lock().snapshot
    }

    async fn state_proofs(
        &self,
        queries: Vec<StateQuery>,
        height: Option<u64>,
    ) -> Result<Vec<StateProofInfo>, ApiError> {
        let mut data = self.data.lock();
        data.proof_batches.push((queries.clone(), height));
        let latest = data.blocks.len() as u64 - 1;
        if latest == 0 {
            return Err(ApiError::new(ErrorCode::NotFound, "no block finalized yet"));
        }
        if height.is_some_and(|h| h != latest) {
            return Err(ApiError::new(ErrorCode::NotFound, "only the latest state is provable"));
        }
        Ok(queries.iter().map(|q| data.state_proof(q)).collect())
    }

    async fn inclusion_proof(
        &self,
        kind: InclusionProofKind,
        hash: H256,
    ) -> Result<Option<InclusionProofInfo>, ApiError> {
        let data = self.data.lock();
        let Some(included) = data.included.get(&hash) else {
            return Ok(None);
        };
        let encoded = match kind {
            InclusionProofKind::Tx => included.tx.encoded.clone(),
            InclusionProofKind::Receipt => match data.receipts.get(&hash) {
                Some(receipt) => receipt.encode(),
                None => return Ok(None),
            },
        };
        let block = block(included.block_height);
        Ok(Some(InclusionProofInfo {
            kind,
            tx_hash: hash,
            height: included.block_height,
            index: included.index,
            encoded,
            proof: MOCK_PROOF.to_vec(),
            block_hash: block.hash,
            root: block.transactions_root,
            header: block.hash.0.to_vec(),
            finalization: "00".to_owned(),
        }))
    }

    async fn state_operations(&self, request: OperationsRequest) -> Result<Vec<u8>, ApiError> {
        let mut data = self.data.lock();
        let Some(snapshot) = data.snapshot else {
            return Err(ApiError::new(ErrorCode::NotFound, "no snapshot"));
        };
        let size = match request {
            OperationsRequest::Operations { size, .. } | OperationsRequest::Boundary { size, .. } => size,
        };
        if size > snapshot.op_count {
            return Err(ApiError::new(ErrorCode::NotFound, "size beyond the log"));
        }
        data.operations_requests.push(request);
        Ok(format!("{request:?}").into_bytes())
    }
}

/// Stand-in proof bytes of the mock.
pub(crate) const MOCK_PROOF: &[u8] = b"mock-proof";

impl MockData {
    /// A stand-in proof of `query` against the latest block (the schema's prefixes as key).
    fn state_proof(&self, query: &StateQuery) -> StateProofInfo {
        let (kind, address, storage_key, value) = match query {
            StateQuery::Account(address) => (
                StateProofKind::Account,
                *address,
                None,
                self.accounts.get(address).map(|a| format!("{}/{}", a.nonce, a.balance).into_bytes()),
            ),
            StateQuery::Actor(address) => (StateProofKind::Actor, *address, None, None),
            StateQuery::Storage(address, key) => (
                StateProofKind::Storage,
                *address,
                Some(key.clone()),
                self.storage.get(&(*address, key.clone())).cloned(),
            ),
        };
        let prefix = match kind {
            StateProofKind::Account => 1,
            StateProofKind::Actor => 2,
            StateProofKind::Storage => 3,
        };
        let mut key = vec![prefix];
        key.extend_from_slice(&address.0);
        key.extend_from_slice(storage_key.as_deref().unwrap_or_default());
        let latest = self.blocks.last().cloned().unwrap_or_else(|| block(0));
        StateProofInfo {
            kind,
            address,
            storage_key,
            key,
            value,
            proof: MOCK_PROOF.to_vec(),
            height: latest.height,
            block_hash: latest.hash,
            state_root: latest.state_root,
            header: latest.hash.0.to_vec(),
            finalization: "00".to_owned(),
        }
    }
}

/// The code every mock actor has: the WebAssembly magic number.
pub(crate) const MOCK_ACTOR_CODE: &[u8] = &[0, 0x61, 0x73, 0x6d];

/// A mock actor owned by `0x01…01` with two messages waiting.
pub(crate) fn actor(address: Address) -> ActorInfo {
    ActorInfo {
        address,
        code_hash: keccak256(MOCK_ACTOR_CODE),
        owner: Address([1; 20]),
        balance: 5,
        nonce: 0,
        mailbox_count: 2,
        mailbox_bytes: 40,
        created_height: 3,
        upgrades: 0,
        manifest: ManifestInfo { entitlements: vec!["storage.kv".to_owned()] },
    }
}

pub(crate) fn key(index: u32) -> SecretKey {
    SecretKey::dev(index)
}

/// A runner at `address` in `health`.
pub(crate) fn runner_info(address: Address, health: &str) -> RunnerInfo {
    RunnerInfo {
        address,
        stake: 1_000_000_000,
        delegated_stake: u128::MAX,
        rate_card: RateCardInfo { price_per_job: 5 },
        capabilities: CapabilitiesInfo { job_types: vec!["echo".into()], max_concurrent_jobs: 2 },
        health: health.into(),
        registered_height: 1,
        last_heartbeat_height: 2,
        reputation: 80,
        active_jobs: 0,
        unbonding: Vec::new(),
    }
}

/// A mock where `key(0)`'s address is a registered, healthy runner.
pub(crate) fn with_registered_runner() -> MockBackend {
    MockBackend::with(|data| data.runners = vec![runner_info(key(0).address(), "healthy")])
}

/// A plain transfer (the paper's fee settings), unsigned.
pub(crate) fn transfer(chain_id: u64, nonce: u64) -> Transaction {
    Transaction {
        chain_id,
        nonce,
        to: Some(Address([0x11; 20])),
        value: 1,
        cycles_limit: 21_000,
        cells_limit: 0,
        max_fee_per_cycle: 10,
        max_fee_per_cell: 2,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload: Vec::new(),
        signature: None,
    }
}

/// A transfer on the mock chain signed by dev key `index`.
pub(crate) fn signed(index: u32, nonce: u64) -> Transaction {
    transfer(CHAIN_ID, nonce).sign(&key(index))
}

pub(crate) fn verified(index: u32, nonce: u64) -> VerifiedTransaction {
    signed(index, nonce).verify().unwrap()
}

/// A submission envelope around already-encoded elements (which need not be transactions).
pub(crate) fn envelope(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0xa1, 0x6c];
    out.extend_from_slice(b"Transactions");
    match items.len() {
        n @ 0..=23 => out.push(0x80 | n as u8),
        n => out.extend_from_slice(&[0x98, n as u8]),
    }
    for item in items {
        out.extend_from_slice(item);
    }
    out
}

pub(crate) fn block(height: u64) -> BlockInfo {
    let hash = keccak256(&height.to_be_bytes());
    BlockInfo {
        height,
        hash,
        parent_hash: if height == 0 { H256::ZERO } else { keccak256(&(height - 1).to_be_bytes()) },
        timestamp: 1_700_000_000 + height,
        timestamp_ms: (1_700_000_000 + height) * 1000,
        proposer: Address::system(1),
        view: height,
        state_root: H256::ZERO,
        transactions_root: H256::ZERO,
        receipts_root: H256::ZERO,
        ops_root: H256::ZERO,
        sync_range_start: 0,
        op_count: 0,
        transactions: Vec::new(),
        cycles_used: 0,
        cells_used: 0,
        basefee_cycle: "7".to_owned(),
        basefee_cell: "3".to_owned(),
        finalization: None,
    }
}

pub(crate) fn success_receipt(tx: &VerifiedTransaction, block_height: u64, index: u32) -> Receipt {
    Receipt {
        tx_hash: tx.hash,
        block_height,
        index,
        from: tx.sender,
        to: tx.tx.to,
        status: TxStatus::Success,
        cycles_used: 21_000,
        cells_used: 0,
        fee: FeeBreakdown { burned: 21_000 * 7, tip: 21_000 },
        events: Vec::new(),
        revert_reason: None,
        error: None,
    }
}

/// The router over `mock` with the default configuration.
pub(crate) fn app(mock: &MockBackend) -> Router {
    api(mock.clone(), RpcConfig::default())
}

/// The API as the server serves it (the router behind its layers) over `mock`, as a router.
pub(crate) fn api(mock: MockBackend, config: RpcConfig) -> Router {
    let http = crate::Http::new(&config);
    Router::new().fallback_service(crate::layered(router(mock, config, &http), &http))
}

pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|err| panic!("body is not JSON ({err}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub(crate) fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts an error answer: status, and a JSON body with the code and its name.
    #[track_caller]
    pub(crate) fn assert_error(&self, status: u16, code: ErrorCode) {
        let body = self.json();
        assert_eq!(self.status.as_u16(), status, "{body}");
        assert_eq!(body["code"], code.code(), "{body}");
        assert_eq!(body["error"], code.name(), "{body}");
        assert!(body["message"].is_string(), "{body}");
    }
}

pub(crate) async fn send(app: &Router, request: Request<Body>) -> Answer {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec();
    Answer { status, headers, body }
}

pub(crate) async fn get(app: &Router, uri: &str) -> Answer {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

pub(crate) async fn post(app: &Router, uri: &str, content_type: &str, body: impl Into<Body>) -> Answer {
    send(app, Request::post(uri).header(header::CONTENT_TYPE, content_type).body(body.into()).unwrap()).await
}

pub(crate) async fn post_cbor(app: &Router, uri: &str, body: Vec<u8>) -> Answer {
    post(app, uri, "application/cbor", body).await
}
