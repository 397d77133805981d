//! The typed HTTP client.
//!
//! One method per endpoint, each returning the JSON record the node serves (the record types of
//! `drover_types::api`, shared with the server). Lookups of things that may not exist return
//! `Ok(None)` on the 404 whose code means "no such thing" (3000 for accounts, 4000 for blocks,
//! 1002 otherwise); any other 404, such as a disabled faucet's 8000, stays an error.
//!
//! Bodies are read up to [`RESPONSE_BYTES_MAX`] so a misbehaving server cannot exhaust memory.
//! `/submit_wait` gets a per-request timeout long enough to cover the wait it asks for.

pub(crate) mod explorer;

use crate::builder::FeeSuggestion;
use crate::error::{ClientError, excerpt};
use crate::ras::RasSigner;
use drover_types::{
    Address, BlockSelector, ErrorCode, H256, Transaction,
    api::{
        AccountInfo, AccountTokens, ActorCodeInfo, ActorInfo, ActorReadRequest, ActorReadResponse, BasefeeInfo,
        BillingSummary, BlockInfo, ChainInfo, DelegationList, EntitlementList, FaucetRequest, FaucetResponse,
        GovernanceParams, HealthDetailed, HeightInfo, InclusionProofInfo, JobInfo, JobResultList, Liveness, LogPage,
        MailboxPage, ManifestValidation, MultiProofResponse, ProofRequest, ProposalDetail, ProposalList,
        RasAccountBalance, RasChallenge, RasMe, RasStats, RasTransactionRequest, ReceiptInfo, RelayList,
        RevocationInfo, RunnerInfo, RunnerJobList, RunnerList, SecretEnvelope, SecretList, SignedFlowPayload,
        SignedFlowRequest, StateProofInfo, StateSnapshot, StorageCount, StoragePage, SubmitResponse,
        SubmitWaitResponse, SystemRunPage, TimerPage, TokenAllowance, TokenBalance, TokenInfo, TokenList,
        TransactionInfo, UpgradePage, VerifiedResultInfo, VolumeInfo, VolumeList,
    },
    job::JOB_DISPATCHER_ADDRESS,
    submission::encode_submission,
};
use reqwest::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use serde::de::DeserializeOwned;
use std::time::Duration;

/// Default time allowed for one request, connection included, in seconds.
pub const REQUEST_TIMEOUT_SECS_DEFAULT: u64 = 30;
/// Largest response body read, in bytes.
pub const RESPONSE_BYTES_MAX: usize = 16 * 1024 * 1024;
/// Time allowed on top of a `/submit_wait` wait for the request and the answer, in ms.
const WAIT_MARGIN_MS: u64 = 5_000;
/// Longest a pooled connection is kept idle, in seconds: below the node's idle limit (its
/// header-read timeout, 10 s), so the client never reuses a connection the node is closing.
pub(crate) const POOL_IDLE_TIMEOUT_SECS: u64 = 5;

/// Media type of a submission body.
const CBOR_MEDIA_TYPE: &str = "application/cbor";
/// Media type of a JSON request body.
const JSON_MEDIA_TYPE: &str = "application/json";

/// A client of one node's HTTP API. Cheap to clone (clones share one connection pool).
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    /// Base URL without a trailing slash; paths are appended to it.
    base: String,
    timeout: Duration,
}

impl Client {
    /// A client of the node at `base_url` (e.g. `http://127.0.0.1:4000`) with the default
    /// timeout.
    pub fn new(base_url: &str) -> Result<Self, ClientError> {
        Self::with_timeout(base_url, Duration::from_secs(REQUEST_TIMEOUT_SECS_DEFAULT))
    }

    /// A client whose requests each get at most `timeout` (`/submit_wait` gets more if its
    /// wait needs it).
    pub fn with_timeout(base_url: &str, timeout: Duration) -> Result<Self, ClientError> {
        let invalid = |reason: &str| ClientError::InvalidUrl { url: base_url.to_owned(), reason: reason.to_owned() };
        let url = reqwest::Url::parse(base_url.trim()).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("the scheme must be http or https"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(invalid("no host"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(invalid("a base URL takes no query or fragment"));
        }
        let base = url.as_str().trim_end_matches('/').to_owned();
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .pool_idle_timeout(Duration::from_secs(POOL_IDLE_TIMEOUT_SECS))
            .user_agent(concat!("drover-client/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|source| ClientError::Transport { url: base.clone(), source })?;
        Ok(Self { http, base, timeout })
    }

    /// The base URL requests go to, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request; answers the status and body of a 2xx response, or the error the
    /// response carries.
    async fn send(&self, url: &str, request: reqwest::RequestBuilder) -> Result<(u16, Vec<u8>), ClientError> {
        let transport = |source| ClientError::Transport { url: url.to_owned(), source };
        let mut response = request.send().await.map_err(transport)?;
        let status = response.status().as_u16();
        let retry_after = response.headers().get(RETRY_AFTER).and_then(retry_after_seconds);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(transport)? {
            if body.len().saturating_add(chunk.len()) > RESPONSE_BYTES_MAX {
                return Err(ClientError::BodyTooLarge { url: url.to_owned(), status, limit_bytes: RESPONSE_BYTES_MAX });
            }
            body.extend_from_slice(&chunk);
        }
        if (200..300).contains(&status) {
            Ok((status, body))
        } else {
            Err(ClientError::from_error_response(url, status, retry_after, &body))
        }
    }

    async fn send_json<T: DeserializeOwned>(
        &self,
        url: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ClientError> {
        let (status, body) = self.send(url, request).await?;
        serde_json::from_slice(&body).map_err(|e| ClientError::UnexpectedResponse {
            url: url.to_owned(),
            status,
            reason: format!("not the expected record ({e}): {}", excerpt(&body)),
        })
    }

    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        let url = self.url(path);
        self.send_json(&url, self.http.get(&url)).await
    }

    /// A GET whose 404 with code `absent` (or the generic 1002) means "no such thing".
    async fn get_optional<T: DeserializeOwned>(&self, path: &str, absent: ErrorCode) -> Result<Option<T>, ClientError> {
        match self.get(path).await {
            Ok(record) => Ok(Some(record)),
            Err(err) if err.is_not_found_with(&[absent, ErrorCode::NotFound]) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// `POST /submit`: hands signed transactions (1 to 50) to the node's mempool. The answer
    /// lists each transaction as accepted or rejected; when none was accepted the node answers
    /// with the first refusal's status, and this returns that refusal as [`ClientError::Api`].
    pub async fn submit(&self, txs: &[Transaction]) -> Result<SubmitResponse, ClientError> {
        let url = self.url("/submit");
        self.send_json(&url, self.cbor_post(&url, txs)).await
    }

    /// `POST /submit_wait?timeout_ms=…`: like [`Client::submit`], then waits up to
    /// `timeout_ms` (the node accepts 100 to 10,000) for the transactions' receipts.
    pub async fn submit_wait(&self, txs: &[Transaction], timeout_ms: u64) -> Result<SubmitWaitResponse, ClientError> {
        let url = self.url(&format!("/submit_wait?timeout_ms={timeout_ms}"));
        let wait = Duration::from_millis(timeout_ms.saturating_add(WAIT_MARGIN_MS));
        self.send_json(&url, self.cbor_post(&url, txs).timeout(self.timeout.max(wait))).await
    }

    fn cbor_post(&self, url: &str, txs: &[Transaction]) -> reqwest::RequestBuilder {
        self.http.post(url).header(CONTENT_TYPE, CBOR_MEDIA_TYPE).body(encode_submission(txs))
    }

    /// `GET /transaction/{hash}`: a transaction included in a finalized block; `None` if the
    /// node knows no included transaction with this hash.
    pub async fn transaction(&self, hash: &H256) -> Result<Option<TransactionInfo>, ClientError> {
        self.get_optional(&format!("/transaction/{hash}"), ErrorCode::NotFound).await
    }

    /// `GET /transaction/{hash}/receipt`; `None` while the transaction is not included.
    pub async fn receipt(&self, hash: &H256) -> Result<Option<ReceiptInfo>, ClientError> {
        self.get_optional(&format!("/transaction/{hash}/receipt"), ErrorCode::NotFound).await
    }

    /// `GET /mempool/transaction/{hash}`: a transaction still pending; `None` if the mempool
    /// does not hold it.
    pub async fn pending_transaction(&self, hash: &H256) -> Result<Option<TransactionInfo>, ClientError> {
        self.get_optional(&format!("/mempool/transaction/{hash}"), ErrorCode::NotFound).await
    }

    /// `GET /account/{address}`; `None` for an address that holds no state.
    pub async fn account(&self, address: &Address) -> Result<Option<AccountInfo>, ClientError> {
        self.get_optional(&format!("/account/{address}"), ErrorCode::AccountNotFound).await
    }

    /// `GET /entitlements/registry`: the whole entitlement registry.
    pub async fn entitlements(&self) -> Result<EntitlementList, ClientError> {
        self.get("/entitlements/registry?limit=1000").await
    }

    /// `POST /entitlements/validate-manifest`: every problem of `manifest` (a JSON manifest).
    pub async fn validate_manifest(&self, manifest: &serde_json::Value) -> Result<ManifestValidation, ClientError> {
        let url = self.url("/entitlements/validate-manifest");
        self.send_json(&url, self.http.post(&url).json(manifest)).await
    }

    /// `GET /runners/active?offset=&limit=`: one page of healthy runners.
    pub async fn active_runners(&self, offset: u64, limit: u64) -> Result<RunnerList, ClientError> {
        self.get(&format!("/runners/active?offset={offset}&limit={limit}")).await
    }

    /// `GET /runner/{address}`; `None` for an address that never registered.
    pub async fn runner(&self, address: &Address) -> Result<Option<RunnerInfo>, ClientError> {
        self.get_optional(&format!("/runner/{address}"), ErrorCode::RunnerNotFound).await
    }

    /// `GET /runner/{address}/heartbeat_payload`: the heartbeat transaction the node built for
    /// the runner, and the message to sign.
    pub async fn heartbeat_payload(&self, runner: &Address) -> Result<SignedFlowPayload, ClientError> {
        self.get(&format!("/runner/{runner}/heartbeat_payload")).await
    }

    /// `POST /runner/{address}/heartbeat`: the flow's transaction with the runner's signature;
    /// answers like [`Client::submit`].
    pub async fn post_heartbeat(
        &self,
        runner: &Address,
        request: &SignedFlowRequest,
    ) -> Result<SubmitResponse, ClientError> {
        let url = self.url(&format!("/runner/{runner}/heartbeat"));
        self.send_json(&url, self.http.post(&url).json(request)).await
    }

    /// `GET /runner/{address}/jobs?offset=&limit=`: one page of the jobs the runner is assigned
    /// to and has not answered.
    pub async fn runner_jobs(&self, runner: &Address, offset: u64, limit: u64) -> Result<RunnerJobList, ClientError> {
        self.get(&format!("/runner/{runner}/jobs?offset={offset}&limit={limit}")).await
    }

    /// `GET /runner/{address}/job_result_payload`: the result transaction the node built for the
    /// runner, and the message to sign.
    pub async fn job_result_payload(
        &self,
        runner: &Address,
        job: &H256,
        result: &[u8],
    ) -> Result<SignedFlowPayload, ClientError> {
        use base64::Engine as _;
        let url = self.url(&format!("/runner/{runner}/job_result_payload"));
        let result = base64::engine::general_purpose::STANDARD.encode(result);
        // The query builder percent-encodes `+`, `/` and `=` of the base64.
        let request = self.http.get(&url).query(&[("job_id", job.to_string()), ("result_base64", result)]);
        self.send_json(&url, request).await
    }

    /// `POST /runner/{address}/job_result`: the flow's transaction with the runner's signature;
    /// answers like [`Client::submit`].
    pub async fn post_job_result(
        &self,
        runner: &Address,
        request: &SignedFlowRequest,
    ) -> Result<SubmitResponse, ClientError> {
        let url = self.url(&format!("/runner/{runner}/job_result"));
        self.send_json(&url, self.http.post(&url).json(request)).await
    }

    /// How many jobs `submitter` has submitted (in the latest state): the `seq` of its next job
    /// id, `keccak256(submitter ‖ seq_be8)`. Read from the dispatcher's storage.
    pub async fn job_submissions(&self, submitter: &Address) -> Result<u64, ClientError> {
        let key = drover_state::job::submissions_key(submitter);
        let path = format!("/state/{JOB_DISPATCHER_ADDRESS}/0x{}", hex::encode(&key));
        let record = self.state_value(&JOB_DISPATCHER_ADDRESS, &key).await?;
        match record.value {
            None => Ok(0),
            Some(bytes) => drover_state::decode_count(&bytes).map_err(|e| ClientError::UnexpectedResponse {
                url: self.url(&path),
                status: 200,
                reason: format!("the submission count is not a count record: {e}"),
            }),
        }
    }

    /// `GET /library/{publisher}/{name}` (`?version=`); `None` when unknown (9000).
    pub async fn library(
        &self,
        publisher: &Address,
        name: &str,
        version: Option<u32>,
    ) -> Result<Option<drover_types::api::LibraryInfo>, ClientError> {
        let version = version.map(|v| format!("?version={v}")).unwrap_or_default();
        self.get_optional(&format!("/library/{publisher}/{name}{version}"), ErrorCode::LibraryNotFound).await
    }

    /// `GET /secrets/{owner}?offset=&limit=`: one page of an owner's secrets (never values).
    pub async fn secrets(&self, owner: &Address, offset: u64, limit: u64) -> Result<SecretList, ClientError> {
        self.get(&format!("/secrets/{owner}?offset={offset}&limit={limit}")).await
    }

    /// `GET /secrets/{owner}/{name}/envelope/{reader}`; `None` when the reader holds no
    /// envelope of that secret.
    pub async fn secret_envelope(
        &self,
        owner: &Address,
        name: &str,
        reader: &Address,
    ) -> Result<Option<SecretEnvelope>, ClientError> {
        self.get_optional(&format!("/secrets/{owner}/{name}/envelope/{reader}"), ErrorCode::NotFound).await
    }

    /// `GET /ras/challenge`: the chain id and audience a delegation token names, and the node's
    /// clock.
    pub async fn ras_challenge(&self) -> Result<RasChallenge, ClientError> {
        self.get("/ras/challenge").await
    }

    /// `GET /ras/stats`: the storage relays' and volumes' totals.
    pub async fn ras_stats(&self) -> Result<RasStats, ClientError> {
        self.get("/ras/stats").await
    }

    /// `GET /ras/relays/public?offset=&limit=`: one page of the publicly listed relays.
    pub async fn ras_public_relays(&self, offset: u64, limit: u64) -> Result<RelayList, ClientError> {
        self.get(&format!("/ras/relays/public?offset={offset}&limit={limit}")).await
    }

    /// `GET /ras/write-relayers?offset=&limit=`: one page of the relays a new volume can go to.
    pub async fn ras_write_relayers(&self, offset: u64, limit: u64) -> Result<RelayList, ClientError> {
        self.get(&format!("/ras/write-relayers?offset={offset}&limit={limit}")).await
    }

    /// `GET /ras/billing/summary`: the volumes' totals.
    pub async fn ras_billing_summary(&self) -> Result<BillingSummary, ClientError> {
        self.get("/ras/billing/summary").await
    }

    /// `GET /ras/revocations/{wallet}/{session_key}`: whether `wallet` revoked `session_key`.
    pub async fn ras_revocation(
        &self,
        wallet: &Address,
        session_key: &[u8; 33],
    ) -> Result<RevocationInfo, ClientError> {
        self.get(&format!("/ras/revocations/{wallet}/0x{}", hex::encode(session_key))).await
    }

    /// A request to an owner route, signed by `signer`'s session (`path` is what the node routes,
    /// query included, and is what is signed).
    async fn ras_send<T: DeserializeOwned>(
        &self,
        signer: &RasSigner,
        method: reqwest::Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<T, ClientError> {
        let url = self.url(path);
        let bytes = body.as_deref().unwrap_or_default();
        let headers = signer.headers(method.as_str(), path, bytes);
        let mut request = self.http.request(method, &url);
        for (name, value) in headers.pairs() {
            request = request.header(name, value);
        }
        if let Some(body) = body {
            request = request.header(CONTENT_TYPE, JSON_MEDIA_TYPE).body(body);
        }
        self.send_json(&url, request).await
    }

    /// `GET /ras/auth/me`: whom `signer`'s requests authenticate as.
    pub async fn ras_me(&self, signer: &RasSigner) -> Result<RasMe, ClientError> {
        self.ras_send(signer, reqwest::Method::GET, "/ras/auth/me", None).await
    }

    /// `GET /ras/accounts/balance`: the wallet's balance and what its volumes hold and cost.
    pub async fn ras_balance(&self, signer: &RasSigner) -> Result<RasAccountBalance, ClientError> {
        self.ras_send(signer, reqwest::Method::GET, "/ras/accounts/balance", None).await
    }

    /// `GET /ras/volumes?offset=&limit=`: one page of the wallet's volumes.
    pub async fn ras_volumes(&self, signer: &RasSigner, offset: u64, limit: u64) -> Result<VolumeList, ClientError> {
        let path = format!("/ras/volumes?offset={offset}&limit={limit}");
        self.ras_send(signer, reqwest::Method::GET, &path, None).await
    }

    /// `GET /ras/volumes/{volume_id}`: a volume the wallet owns or holds as its relay; `None`
    /// otherwise (9103: unknown, or someone else's).
    pub async fn ras_volume(&self, signer: &RasSigner, volume: &H256) -> Result<Option<VolumeInfo>, ClientError> {
        let path = format!("/ras/volumes/{volume}");
        match self.ras_send(signer, reqwest::Method::GET, &path, None).await {
            Ok(info) => Ok(Some(info)),
            Err(err) if err.is_not_found_with(&[ErrorCode::RasVolumeNotFound]) => Ok(None),
            Err(err) => Err(err),
        }
    }

    async fn ras_transaction(
        &self,
        signer: &RasSigner,
        path: &str,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        // A record of one base64 string always serializes.
        let body = serde_json::to_vec(&RasTransactionRequest { transaction_base64: tx.encode() }).unwrap_or_default();
        self.ras_send(signer, reqwest::Method::POST, path, Some(body)).await
    }

    /// `POST /ras/volumes`: the wallet's signed `create` (build it with
    /// [`TxBuilder::storage`](crate::TxBuilder::storage)); answers like [`Client::submit`].
    pub async fn ras_create_volume(&self, signer: &RasSigner, tx: &Transaction) -> Result<SubmitResponse, ClientError> {
        self.ras_transaction(signer, "/ras/volumes", tx).await
    }

    /// `POST /ras/volumes/{volume_id}/delete`: the owner's signed `delete` of `volume`.
    pub async fn ras_delete_volume(
        &self,
        signer: &RasSigner,
        volume: &H256,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.ras_transaction(signer, &format!("/ras/volumes/{volume}/delete"), tx).await
    }

    /// `POST /ras/volumes/{volume_id}/undelete`: the owner's signed `undelete` of `volume`.
    pub async fn ras_undelete_volume(
        &self,
        signer: &RasSigner,
        volume: &H256,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.ras_transaction(signer, &format!("/ras/volumes/{volume}/undelete"), tx).await
    }

    /// `POST /ras/volumes/{volume_id}/deposit`: the wallet's signed `deposit` to `volume`.
    pub async fn ras_deposit(
        &self,
        signer: &RasSigner,
        volume: &H256,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.ras_transaction(signer, &format!("/ras/volumes/{volume}/deposit"), tx).await
    }

    /// `POST /ras/revoke`: the wallet's signed `revoke` of a session key.
    pub async fn ras_revoke(&self, signer: &RasSigner, tx: &Transaction) -> Result<SubmitResponse, ClientError> {
        self.ras_transaction(signer, "/ras/revoke", tx).await
    }

    /// `GET /governance/params`: the chain parameters in force and their bounds.
    pub async fn governance_params(&self) -> Result<GovernanceParams, ClientError> {
        self.get("/governance/params").await
    }

    /// `GET /governance/proposals?status=&offset=&limit=`: one page of proposals.
    pub async fn proposals(&self, status: Option<&str>, offset: u64, limit: u64) -> Result<ProposalList, ClientError> {
        let status = status.map(|s| format!("&status={s}")).unwrap_or_default();
        self.get(&format!("/governance/proposals?offset={offset}&limit={limit}{status}")).await
    }

    /// `GET /governance/proposal/{id}`; `None` for an id no proposal has.
    pub async fn proposal(&self, id: u64) -> Result<Option<ProposalDetail>, ClientError> {
        self.get_optional(&format!("/governance/proposal/{id}"), ErrorCode::NotFound).await
    }

    /// `GET /job/{job_id}`; `None` for an id that names no job.
    pub async fn job(&self, job: &H256) -> Result<Option<JobInfo>, ClientError> {
        self.get_optional(&format!("/job/{job}"), ErrorCode::JobNotFound).await
    }

    /// `GET /job/{job_id}/results?offset=&limit=`: one page of a job's results.
    pub async fn job_results(&self, job: &H256, offset: u64, limit: u64) -> Result<JobResultList, ClientError> {
        self.get(&format!("/job/{job}/results?offset={offset}&limit={limit}")).await
    }

    /// `GET /job/{job_id}/verified`; `None` while the job has no verified result.
    pub async fn job_verified(&self, job: &H256) -> Result<Option<VerifiedResultInfo>, ClientError> {
        self.get_optional(&format!("/job/{job}/verified"), ErrorCode::JobNotVerified).await
    }

    /// `GET /account/{address}/delegations?offset=&limit=`: one page of an account's delegations.
    pub async fn delegations(&self, address: &Address, offset: u64, limit: u64) -> Result<DelegationList, ClientError> {
        self.get(&format!("/account/{address}/delegations?offset={offset}&limit={limit}")).await
    }

    /// `GET /tokens?offset=&limit=`: one page of tokens in creation order.
    pub async fn tokens(&self, offset: u64, limit: u64) -> Result<TokenList, ClientError> {
        self.get(&format!("/tokens?offset={offset}&limit={limit}")).await
    }

    /// `GET /token/{token_id}`; `None` for an id no token has.
    pub async fn token(&self, token: &Address) -> Result<Option<TokenInfo>, ClientError> {
        self.get_optional(&format!("/token/{token}"), ErrorCode::NotFound).await
    }

    /// `GET /token/{token_id}/balance/{address}`; `None` for an id no token has.
    pub async fn token_balance(&self, token: &Address, holder: &Address) -> Result<Option<TokenBalance>, ClientError> {
        self.get_optional(&format!("/token/{token}/balance/{holder}"), ErrorCode::NotFound).await
    }

    /// `GET /token/{token_id}/allowance/{owner}/{spender}`; `None` for an id no token has.
    pub async fn token_allowance(
        &self,
        token: &Address,
        owner: &Address,
        spender: &Address,
    ) -> Result<Option<TokenAllowance>, ClientError> {
        self.get_optional(&format!("/token/{token}/allowance/{owner}/{spender}"), ErrorCode::NotFound).await
    }

    /// `GET /account/{address}/tokens?offset=&limit=`: one page of the tokens `address` holds.
    pub async fn account_tokens(
        &self,
        address: &Address,
        offset: u64,
        limit: u64,
    ) -> Result<AccountTokens, ClientError> {
        self.get(&format!("/account/{address}/tokens?offset={offset}&limit={limit}")).await
    }

    /// `GET /actor/{address}`; `None` for an address that holds no actor.
    pub async fn actor(&self, address: &Address) -> Result<Option<ActorInfo>, ClientError> {
        self.get_optional(&format!("/actor/{address}"), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/code`; `None` for an address that holds no actor.
    pub async fn actor_code(&self, address: &Address) -> Result<Option<ActorCodeInfo>, ClientError> {
        self.get_optional(&format!("/actor/{address}/code"), ErrorCode::ActorNotFound).await
    }

    /// `GET /actors/{address}/storage`: one page of the actor's storage after `cursor`; `None`
    /// for an address that holds no actor.
    pub async fn actor_storage(
        &self,
        address: &Address,
        cursor: Option<&str>,
    ) -> Result<Option<StoragePage>, ClientError> {
        self.get_optional(&page_path(format!("/actors/{address}/storage"), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actors/{address}/mailbox`: one page of the messages waiting for the actor after
    /// `cursor`, in delivery order; `None` for an address that holds no actor.
    pub async fn actor_mailbox(
        &self,
        address: &Address,
        cursor: Option<&str>,
    ) -> Result<Option<MailboxPage>, ClientError> {
        self.get_optional(&page_path(format!("/actors/{address}/mailbox"), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/logs`: one page of the actor's events after `cursor`, in chain
    /// order; `None` for an address that holds no actor.
    pub async fn actor_logs(&self, address: &Address, cursor: Option<&str>) -> Result<Option<LogPage>, ClientError> {
        self.get_optional(&page_path(format!("/actor/{address}/logs"), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/runs`: one page of the actor's timer fires and mailbox deliveries
    /// after `cursor`, in chain order; `None` for an address that holds no actor.
    pub async fn actor_runs(
        &self,
        address: &Address,
        cursor: Option<&str>,
    ) -> Result<Option<SystemRunPage>, ClientError> {
        self.get_optional(&page_path(format!("/actor/{address}/runs"), cursor), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/timers`: the page of pending timers (in firing order) at
    /// `offset`, of at most `limit`; `None` for an address that holds no actor.
    pub async fn actor_timers(
        &self,
        address: &Address,
        offset: u64,
        limit: u64,
    ) -> Result<Option<TimerPage>, ClientError> {
        let path = format!("/actor/{address}/timers?offset={offset}&limit={limit}");
        self.get_optional(&path, ErrorCode::ActorNotFound).await
    }

    /// `GET /actors/{address}/storage/count`; `None` for an address that holds no actor.
    pub async fn actor_storage_count(&self, address: &Address) -> Result<Option<StorageCount>, ClientError> {
        self.get_optional(&format!("/actors/{address}/storage/count"), ErrorCode::ActorNotFound).await
    }

    /// `GET /actor/{address}/upgrade-history`: the page of upgrades (oldest first) at `offset`,
    /// of at most `limit`; `None` for an address that holds no actor.
    pub async fn actor_upgrades(
        &self,
        address: &Address,
        offset: u64,
        limit: u64,
    ) -> Result<Option<UpgradePage>, ClientError> {
        let path = format!("/actor/{address}/upgrade-history?offset={offset}&limit={limit}");
        self.get_optional(&path, ErrorCode::ActorNotFound).await
    }

    /// `POST /actor/read`: runs a handler read-only on the latest finalized state.
    pub async fn actor_read(&self, request: &ActorReadRequest) -> Result<ActorReadResponse, ClientError> {
        let url = self.url("/actor/read");
        self.send_json(&url, self.http.post(&url).json(request)).await
    }

    /// `GET /height`: the latest finalized height.
    pub async fn height(&self) -> Result<u64, ClientError> {
        self.get::<HeightInfo>("/height").await.map(|info| info.height)
    }

    /// `GET /block/{selector}`; `None` when no finalized block matches.
    pub async fn block(&self, selector: BlockSelector) -> Result<Option<BlockInfo>, ClientError> {
        self.get_optional(&format!("/block/{selector}"), ErrorCode::BlockNotFound).await
    }

    /// `GET /chain-info`.
    pub async fn chain_info(&self) -> Result<ChainInfo, ClientError> {
        self.get("/chain-info").await
    }

    /// `GET /basefee`: basefees of the next block and suggested fees (decimal strings).
    pub async fn basefee(&self) -> Result<BasefeeInfo, ClientError> {
        self.get("/basefee").await
    }

    /// `GET /basefee`, parsed into the fee values a [`crate::TxBuilder`] falls back on.
    pub async fn fee_suggestion(&self) -> Result<FeeSuggestion, ClientError> {
        let info = self.basefee().await?;
        FeeSuggestion::from_basefee(&info).map_err(|e| ClientError::UnexpectedResponse {
            url: self.url("/basefee"),
            status: 200,
            reason: e.to_string(),
        })
    }

    /// `GET /health`: liveness.
    pub async fn health(&self) -> Result<Liveness, ClientError> {
        self.get("/health").await
    }

    /// `GET /health/detailed`: component health, height, mempool figures.
    pub async fn health_detailed(&self) -> Result<HealthDetailed, ClientError> {
        self.get("/health/detailed").await
    }

    /// `POST /faucet` (development networks): funds `address`. A node without a faucet
    /// answers 404 with code 8000, a chain other than 1 or 100 answers 403 with code 8001.
    pub async fn faucet(&self, address: &Address) -> Result<FaucetResponse, ClientError> {
        let url = self.url("/faucet");
        self.send_json(&url, self.http.post(&url).json(&FaucetRequest { address: *address })).await
    }

    /// `GET /state/snapshot`: the node's latest state-sync checkpoint; `None` before its first
    /// finalized block.
    pub async fn state_snapshot(&self) -> Result<Option<StateSnapshot>, ClientError> {
        self.get_optional("/state/snapshot", ErrorCode::NotFound).await
    }

    /// `GET /state/operations`: the encoded batch of operations `start .. start + max` proven
    /// against the ops root at `size` operations (`max = None`: the boundary operation at
    /// `start` with its pinned nodes). The bytes are untrusted until verified against a
    /// finalized ops root (`docs/state-sync.md`).
    pub async fn state_operations(&self, size: u64, start: u64, max: Option<u64>) -> Result<Vec<u8>, ClientError> {
        let query = match max {
            Some(max) => format!("size={size}&start={start}&max={max}"),
            None => format!("size={size}&start={start}&boundary=true"),
        };
        let url = self.url(&format!("/state/operations?{query}"));
        self.send(&url, self.http.get(&url)).await.map(|(_, body)| body)
    }

    /// `GET /proof/account/{address}`: the account or its absence, with its proof against the
    /// post-state of the latest finalized block (`height`: refused unless it is that block's).
    /// Untrusted until checked with [`crate::verify::verify_account`].
    pub async fn proof_account(&self, address: &Address, height: Option<u64>) -> Result<StateProofInfo, ClientError> {
        self.get(&with_height(format!("/proof/account/{address}"), height)).await
    }

    /// `GET /proof/actor/{address}` (check with [`crate::verify::verify_actor`]).
    pub async fn proof_actor(&self, address: &Address, height: Option<u64>) -> Result<StateProofInfo, ClientError> {
        self.get(&with_height(format!("/proof/actor/{address}"), height)).await
    }

    /// `GET /proof/storage/{address}/{key}` (check with [`crate::verify::verify_storage`]).
    pub async fn proof_storage(
        &self,
        address: &Address,
        key: &[u8],
        height: Option<u64>,
    ) -> Result<StateProofInfo, ClientError> {
        self.get(&with_height(format!("/proof/storage/{address}/0x{}", hex::encode(key)), height)).await
    }

    /// `GET /state/{actor}/{key_hex}`: the storage value with its proof (the same record as
    /// [`Self::proof_storage`]).
    pub async fn state_value(&self, actor: &Address, key: &[u8]) -> Result<StateProofInfo, ClientError> {
        self.get(&format!("/state/{actor}/0x{}", hex::encode(key))).await
    }

    /// `GET /proof/tx/{tx_hash}`; `None` when no finalized block includes it (check with
    /// [`crate::verify::verify_tx`]).
    pub async fn proof_tx(&self, hash: &H256) -> Result<Option<InclusionProofInfo>, ClientError> {
        self.get_optional(&format!("/proof/tx/{hash}"), ErrorCode::NotFound).await
    }

    /// `GET /proof/receipt/{tx_hash}`; `None` when no finalized block includes it (check with
    /// [`crate::verify::verify_receipt`]).
    pub async fn proof_receipt(&self, hash: &H256) -> Result<Option<InclusionProofInfo>, ClientError> {
        self.get_optional(&format!("/proof/receipt/{hash}"), ErrorCode::NotFound).await
    }

    /// `POST /proof/multi`: one result per request, in order (check with
    /// [`crate::verify::verify_multi`]).
    pub async fn proof_multi(
        &self,
        requests: &[ProofRequest],
        height: Option<u64>,
    ) -> Result<MultiProofResponse, ClientError> {
        let url = self.url(&with_height("/proof/multi".to_owned(), height));
        self.send_json(&url, self.http.post(&url).json(requests)).await
    }

    /// `GET /metrics`: Prometheus text.
    pub async fn metrics(&self) -> Result<String, ClientError> {
        let url = self.url("/metrics");
        let (status, body) = self.send(&url, self.http.get(&url)).await?;
        String::from_utf8(body).map_err(|_| ClientError::UnexpectedResponse {
            url,
            status,
            reason: "metrics are not UTF-8 text".to_owned(),
        })
    }
}

/// `path` with the optional `height` query parameter of the state-proof routes.
fn with_height(path: String, height: Option<u64>) -> String {
    match height {
        Some(height) => format!("{path}?height={height}"),
        None => path,
    }
}

/// Delay-seconds form of `Retry-After` (the HTTP-date form is not used by the node).
fn retry_after_seconds(value: &HeaderValue) -> Option<u64> {
    value.to_str().ok()?.trim().parse().ok()
}

/// `path`, or the page of it after `cursor` (a previous page's `next_cursor`).
fn page_path(path: String, cursor: Option<&str>) -> String {
    match cursor {
        Some(cursor) => format!("{path}?cursor={cursor}"),
        None => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TxBuilder, TxContext, Wallet};
    use axum::{
        Json, Router,
        body::Bytes,
        extract::{Path, RawQuery},
        http::{HeaderMap, StatusCode, header},
        response::{IntoResponse, Response},
        routing::{get, post},
    };
    use drover_types::api::{
        ComponentsHealth, ErrorBody, HealthStatus, SubmitResult, SubmitStatus, SubmitWaitResult, TransactionState,
        WaitStatus,
    };
    use drover_types::submission::decode_submission;

    /// An address the mock knows, with nonce 5.
    const KNOWN: Address = Address([0xaa; 20]);
    /// A transaction nonce the mock's mempool refuses as too low.
    const STALE_NONCE: u64 = 99;

    fn error(status: StatusCode, code: ErrorCode, message: &str) -> Response {
        let body = ErrorBody { code: code.code(), error: code.name().to_owned(), message: message.to_owned() };
        (status, Json(body)).into_response()
    }

    fn chain_info() -> ChainInfo {
        ChainInfo { chain_id: 100, network: "devnet".into(), genesis_hash: H256([1; 32]), version: "0.1.0".into() }
    }

    fn block(height: u64) -> BlockInfo {
        BlockInfo {
            height,
            hash: H256([height as u8; 32]),
            parent_hash: H256::ZERO,
            timestamp: 1_700_000_000,
            timestamp_ms: 1_700_000_000_000,
            proposer: KNOWN,
            view: height,
            state_root: H256([2; 32]),
            transactions_root: H256([3; 32]),
            receipts_root: H256([4; 32]),
            ops_root: H256([5; 32]),
            sync_range_start: 0,
            op_count: 10,
            transactions: vec![H256([6; 32])],
            cycles_used: 21_000,
            cells_used: 0,
            basefee_cycle: "7".into(),
            basefee_cell: "1".into(),
            finalization: None,
        }
    }

    async fn account(Path(address): Path<String>) -> Response {
        match address.parse::<Address>() {
            Ok(address) if address == KNOWN => {
                Json(AccountInfo { address, nonce: 5, balance: u128::from(u64::MAX) + 1 }).into_response()
            }
            Ok(_) => error(StatusCode::NOT_FOUND, ErrorCode::AccountNotFound, "no state"),
            Err(_) => error(StatusCode::BAD_REQUEST, ErrorCode::InvalidAddress, "bad address"),
        }
    }

    async fn block_route(Path(selector): Path<String>) -> Response {
        match selector.as_str() {
            "latest" => Json(block(42)).into_response(),
            "7" => Json(block(7)).into_response(),
            _ => error(StatusCode::NOT_FOUND, ErrorCode::BlockNotFound, "no such block"),
        }
    }

    async fn faucet(Json(request): Json<FaucetRequest>) -> Response {
        if request.address == KNOWN {
            let mut response = error(StatusCode::TOO_MANY_REQUESTS, ErrorCode::RateLimited, "5 per minute");
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("12"));
            return response;
        }
        error(StatusCode::NOT_FOUND, ErrorCode::FaucetDisabled, "faucet disabled")
    }

    /// Accepts every decodable transaction but those with [`STALE_NONCE`].
    async fn submit(headers: HeaderMap, body: Bytes) -> Response {
        if headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) != Some(CBOR_MEDIA_TYPE) {
            return error(StatusCode::BAD_REQUEST, ErrorCode::MalformedCbor, "wrong content type");
        }
        let Ok(items) = decode_submission(&body) else {
            return error(StatusCode::BAD_REQUEST, ErrorCode::MalformedCbor, "bad envelope");
        };
        let results: Vec<SubmitResult> = items
            .iter()
            .map(|item| match &item.decoded {
                Ok(tx) if tx.nonce != STALE_NONCE => SubmitResult::accepted(tx.hash()),
                _ => SubmitResult {
                    hash: drover_types::keccak256(&item.raw),
                    status: SubmitStatus::Rejected,
                    code: Some(ErrorCode::NonceTooLow.code()),
                    error: Some(ErrorCode::NonceTooLow.name().into()),
                    message: Some("nonce 99 already used".into()),
                },
            })
            .collect();
        let accepted = results.iter().filter(|r| r.status == SubmitStatus::Accepted).count() as u64;
        let rejected = results.len() as u64 - accepted;
        let first = results.iter().find(|r| r.status == SubmitStatus::Rejected).filter(|_| accepted == 0);
        let response = SubmitResponse {
            code: first.and_then(|r| r.code),
            error: first.and_then(|r| r.error.clone()),
            message: first.and_then(|r| r.message.clone()),
            results,
            accepted,
            rejected,
        };
        let status = if accepted > 0 { StatusCode::OK } else { StatusCode::BAD_REQUEST };
        (status, Json(response)).into_response()
    }

    /// Echoes `timeout_ms` as every transaction's block height.
    async fn submit_wait(RawQuery(query): RawQuery, body: Bytes) -> Response {
        let timeout_ms = query.as_deref().and_then(|q| q.strip_prefix("timeout_ms=")).and_then(|v| v.parse().ok());
        let Ok(items) = decode_submission(&body) else {
            return error(StatusCode::BAD_REQUEST, ErrorCode::MalformedCbor, "bad envelope");
        };
        let results: Vec<SubmitWaitResult> = items
            .iter()
            .filter_map(|item| item.decoded.as_ref().ok())
            .map(|tx| SubmitWaitResult {
                status: WaitStatus::Success,
                block_height: timeout_ms,
                fee: Some(u128::from(tx.cycles_limit) * 7),
                ..SubmitWaitResult::pending(tx.hash())
            })
            .collect();
        let accepted = results.len() as u64;
        Json(SubmitWaitResponse { results, accepted, rejected: 0, code: None, error: None, message: None })
            .into_response()
    }

    fn pending_tx() -> Transaction {
        TxBuilder::transfer(KNOWN, 3)
            .sign(&TxContext { chain_id: 100, ..TxContext::default() }, &Wallet::new(drover_types::SecretKey::dev(2)))
            .unwrap()
    }

    async fn mempool_transaction(Path(hash): Path<String>) -> Response {
        let tx = pending_tx();
        if hash.parse() == Ok(tx.hash()) {
            let Ok(verified) = tx.verify() else {
                return error(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, "unverifiable");
            };
            return Json(TransactionInfo::pending(&verified)).into_response();
        }
        error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "not pending")
    }

    fn router() -> Router {
        let basefee = BasefeeInfo {
            basefee_cycle: "7".into(),
            basefee_cell: "1".into(),
            suggested_tip_per_cycle: "2".into(),
            suggested_tip_per_cell: "0".into(),
            suggested_max_fee_per_cycle: "16".into(),
            suggested_max_fee_per_cell: "2".into(),
        };
        let health = HealthDetailed {
            status: HealthStatus::Degraded,
            version: "0.1.0".into(),
            uptime_seconds: 9,
            block_height: 42,
            last_block_timestamp: 1_700_000_000,
            mempool_transaction_count: 30_000,
            mempool_account_count: 3,
            components: ComponentsHealth {
                storage: HealthStatus::Ok,
                mempool: HealthStatus::Degraded,
                rpc: HealthStatus::Ok,
            },
            synced: true,
        };
        Router::new()
            .route("/account/{address}", get(account))
            .route("/height", get(|| async { Json(HeightInfo { height: 42 }) }))
            .route("/block/{selector}", get(block_route))
            .route("/chain-info", get(|| async { Json(chain_info()) }))
            .route("/basefee", get(move || async move { Json(basefee) }))
            .route("/health", get(|| async { Json(Liveness { status: HealthStatus::Ok }) }))
            .route("/health/detailed", get(move || async move { Json(health) }))
            .route("/faucet", post(faucet))
            .route("/submit", post(submit))
            .route("/submit_wait", post(submit_wait))
            .route(
                "/transaction/{hash}",
                get(|| async { error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "not included") }),
            )
            .route(
                "/transaction/{hash}/receipt",
                get(|| async { error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no receipt") }),
            )
            .route("/mempool/transaction/{hash}", get(mempool_transaction))
            .route("/metrics", get(|| async { "# TYPE drover_height gauge\ndrover_height 42\n" }))
            // A misbehaving node under a path prefix.
            .route("/broken/height", get(|| async { r#"{"height":"tall"}"# }))
            .route("/broken/chain-info", get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "oops") }))
            .route("/broken/metrics", get(|| async { Bytes::from_static(b"\xff\xfe") }))
            .route("/broken/health", get(|| async { Bytes::from(vec![b' '; RESPONSE_BYTES_MAX + 1]) }))
    }

    /// Serves the mock on a free loopback port; answers its base URL.
    async fn serve() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router()).await });
        format!("http://{address}")
    }

    #[test]
    fn validates_base_urls() {
        for good in ["http://127.0.0.1:4000", "http://127.0.0.1:4000/", "https://localhost/api/", " http://[::1]:4000 "]
        {
            assert!(Client::new(good).is_ok(), "{good}");
        }
        assert_eq!(Client::new("http://127.0.0.1:4000/").unwrap().base_url(), "http://127.0.0.1:4000");
        assert_eq!(Client::new("https://localhost/api/").unwrap().base_url(), "https://localhost/api");
        for bad in ["", "127.0.0.1:4000", "ftp://127.0.0.1", "http://", "http://h/?q=1", "http://h/#f", "not a url"] {
            assert!(matches!(Client::new(bad), Err(ClientError::InvalidUrl { .. })), "{bad}");
        }
    }

    #[test]
    fn retry_after_takes_delay_seconds_only() {
        assert_eq!(retry_after_seconds(&HeaderValue::from_static("12")), Some(12));
        assert_eq!(retry_after_seconds(&HeaderValue::from_static(" 3 ")), Some(3));
        assert_eq!(retry_after_seconds(&HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(retry_after_seconds(&HeaderValue::from_static("-1")), None);
    }

    #[tokio::test]
    async fn decodes_reads() {
        let client = Client::new(&serve().await).unwrap();
        let known = client.account(&KNOWN).await.unwrap().unwrap();
        assert_eq!((known.nonce, known.balance), (5, u128::from(u64::MAX) + 1));
        assert_eq!(client.account(&Address([1; 20])).await.unwrap(), None);
        assert_eq!(client.height().await.unwrap(), 42);
        assert_eq!(client.block(BlockSelector::Latest).await.unwrap(), Some(block(42)));
        assert_eq!(client.block(BlockSelector::Height(7)).await.unwrap(), Some(block(7)));
        assert_eq!(client.block(BlockSelector::Height(8)).await.unwrap(), None);
        assert_eq!(client.chain_info().await.unwrap(), chain_info());
        assert_eq!(client.basefee().await.unwrap().basefee_cycle, "7");
        assert_eq!(
            client.fee_suggestion().await.unwrap(),
            FeeSuggestion { max_fee_per_cycle: 16, max_fee_per_cell: 2, tip_per_cycle: 2, tip_per_cell: 0 }
        );
        assert_eq!(client.health().await.unwrap().status, HealthStatus::Ok);
        let health = client.health_detailed().await.unwrap();
        assert_eq!((health.status, health.components.mempool), (HealthStatus::Degraded, HealthStatus::Degraded));
        assert!(client.metrics().await.unwrap().contains("drover_height 42"));
    }

    #[tokio::test]
    async fn looks_transactions_up() {
        let client = Client::new(&serve().await).unwrap();
        let tx = pending_tx();
        assert_eq!(client.transaction(&tx.hash()).await.unwrap(), None);
        assert_eq!(client.receipt(&tx.hash()).await.unwrap(), None);
        let pending = client.pending_transaction(&tx.hash()).await.unwrap().unwrap();
        assert_eq!((pending.hash, pending.status, pending.block_height), (tx.hash(), TransactionState::Pending, None));
        assert_eq!(pending.from, drover_types::SecretKey::dev(2).address());
        assert_eq!(client.pending_transaction(&H256::ZERO).await.unwrap(), None);
    }

    #[tokio::test]
    async fn submits_cbor_and_decodes_results() {
        let client = Client::new(&serve().await).unwrap();
        let wallet = Wallet::new(drover_types::SecretKey::dev(0));
        let context = client_context(&client, &wallet).await;
        let good = TxBuilder::transfer(KNOWN, 1).sign(&context, &wallet).unwrap();
        let stale = TxBuilder::transfer(KNOWN, 1).nonce(STALE_NONCE).sign(&context, &wallet).unwrap();

        let response = client.submit(&[good.clone(), stale.clone()]).await.unwrap();
        assert_eq!((response.accepted, response.rejected), (1, 1));
        assert_eq!(response.results.first().map(|r| (r.hash, r.status)), Some((good.hash(), SubmitStatus::Accepted)));
        assert_eq!(response.results.get(1).and_then(|r| r.code), Some(2003));

        // Nothing accepted: the first refusal, as an error.
        let err = client.submit(std::slice::from_ref(&stale)).await.unwrap_err();
        assert_eq!((err.status(), err.code()), (Some(400), Some(2003)));
        assert_eq!(err.error_code(), Some(ErrorCode::NonceTooLow));

        let waited = client.submit_wait(std::slice::from_ref(&good), 2_500).await.unwrap();
        let result = waited.results.first().unwrap();
        assert_eq!((result.hash, result.status, result.block_height), (good.hash(), WaitStatus::Success, Some(2_500)));
        assert_eq!(result.fee, Some(21_000 * 7));
    }

    async fn client_context(client: &Client, wallet: &Wallet) -> TxContext {
        TxBuilder::transfer(KNOWN, 1).fetch_context(client, wallet.address()).await.unwrap()
    }

    #[tokio::test]
    async fn fetches_only_what_the_builder_lacks() {
        let client = Client::new(&serve().await).unwrap();
        let fresh = TxBuilder::transfer(KNOWN, 1).fetch_context(&client, Address([1; 20])).await.unwrap();
        let fees = FeeSuggestion { max_fee_per_cycle: 16, max_fee_per_cell: 2, tip_per_cycle: 2, tip_per_cell: 0 };
        assert_eq!(fresh, TxContext { chain_id: 100, nonce: 0, fees });
        let known = TxBuilder::transfer(KNOWN, 1).fetch_context(&client, KNOWN).await.unwrap();
        assert_eq!(known.nonce, 5);
        // Everything fixed: no request at all, so even an unreachable node does.
        let offline = Client::new(&closed_port_url().await).unwrap();
        let fixed = TxBuilder::transfer(KNOWN, 1)
            .chain_id(1)
            .nonce(3)
            .max_fee_per_cycle(1)
            .max_fee_per_cell(1)
            .tip_per_cycle(0)
            .tip_per_cell(0);
        assert_eq!(fixed.fetch_context(&offline, KNOWN).await.unwrap(), TxContext::default());
    }

    #[tokio::test]
    async fn surfaces_api_errors() {
        let client = Client::new(&serve().await).unwrap();
        let limited = client.faucet(&KNOWN).await.unwrap_err();
        assert_eq!((limited.status(), limited.code(), limited.retry_after()), (Some(429), Some(1004), Some(12)));
        // A 404 that is not "no such thing" is an error, not an absence.
        let disabled = client.faucet(&Address([1; 20])).await.unwrap_err();
        assert_eq!((disabled.status(), disabled.error_code()), (Some(404), Some(ErrorCode::FaucetDisabled)));
        assert!(disabled.to_string().contains("faucet_disabled (code 8000, HTTP 404): faucet disabled"));
    }

    #[tokio::test]
    async fn refuses_malformed_answers() {
        let client = Client::new(&format!("{}/broken/", serve().await)).unwrap();
        let unexpected = |err: ClientError| match err {
            ClientError::UnexpectedResponse { status, reason, .. } => (status, reason),
            other => panic!("expected an unexpected response, got {other}"),
        };
        let (status, reason) = unexpected(client.height().await.unwrap_err());
        assert_eq!(status, 200);
        assert!(reason.contains("tall"), "{reason}");
        let (status, reason) = unexpected(client.chain_info().await.unwrap_err());
        assert_eq!(status, 500);
        assert!(reason.contains("oops"), "{reason}");
        assert_eq!(unexpected(client.metrics().await.unwrap_err()).0, 200);
        assert!(matches!(
            client.health().await.unwrap_err(),
            ClientError::BodyTooLarge { limit_bytes: RESPONSE_BYTES_MAX, .. }
        ));
        // A route the node does not serve: axum's bare 404, not an absence.
        let (status, _) = unexpected(client.account(&KNOWN).await.unwrap_err());
        assert_eq!(status, 404);
    }

    /// The token a request carries, if its `X-DRFS-*` headers verify as the node checks them.
    fn ras_check(
        method: &axum::http::Method,
        uri: &axum::http::Uri,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Result<drover_types::ras::DelegationToken, String> {
        use drover_types::ras::{DelegationToken, node_audience, verify_request};
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let now = crate::ras::now_ms();
        let token = DelegationToken::decode(&header("X-DRFS-Delegation")).map_err(|e| e.to_string())?;
        token.verify(100, now).map_err(|e| e.to_string())?;
        let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
        let (timestamp, nonce, signature) =
            (header("X-DRFS-Timestamp"), header("X-DRFS-Nonce"), header("X-DRFS-Signature"));
        let stamps = (timestamp.as_str(), nonce.as_str(), signature.as_str());
        verify_request(&token, (method.as_str(), path, body), &node_audience(100), stamps, now)
            .map_err(|e| format!("{e} ({} {path})", method.as_str()))?;
        Ok(token)
    }

    fn ras_volume_record(owner: Address) -> drover_types::api::VolumeInfo {
        drover_types::api::VolumeInfo {
            volume_id: drover_types::storage::volume_id(&owner, "photos"),
            owner,
            name: "photos".into(),
            relay: KNOWN,
            relay_endpoint: None,
            public: false,
            status: drover_types::storage::VolumeStatus::Active,
            created_height: 1,
            root: H256::ZERO,
            committed_height: 0,
            size_bytes: 0,
            max_size_bytes: 1 << 20,
            billed_bytes: 0,
            next_billed_bytes: None,
            billed_bytes_from_height: None,
            dropped: false,
            price_per_byte_block: 1,
            deposit: u128::from(u64::MAX) + 1,
            rent_per_block: 0,
            paid_until_height: None,
            rent_paid: 0,
            deleted_height: None,
            purge_height: None,
        }
    }

    /// Every `/ras/...` route: owner routes verify the request's signature and echo what they
    /// were asked (the wallet, the query, the transaction's handler and path).
    async fn ras_route(method: axum::http::Method, uri: axum::http::Uri, headers: HeaderMap, body: Bytes) -> Response {
        use drover_types::api::*;
        let path = uri.path().to_owned();
        let zero = |height| RasStats {
            height,
            relays: 0,
            capacity_bytes: 0,
            relay_stake: 0,
            volumes: 0,
            bytes: 0,
            deposits: 0,
            rent_paid: 0,
            fees_burned: 0,
        };
        match path.as_str() {
            "/ras/stats" => return Json(zero(42)).into_response(),
            "/ras/billing/summary" => return Json(BillingSummary::from(&zero(43))).into_response(),
            "/ras/relays/public" | "/ras/write-relayers" => {
                let query = uri.query().unwrap_or_default().to_owned();
                let list = RelayList {
                    relays: Vec::new(),
                    total_count: 0,
                    offset: 0,
                    limit: if path.contains("public") { 1 } else { 2 },
                };
                assert_eq!(query, "offset=0&limit=5");
                return Json(list).into_response();
            }
            _ if path.starts_with("/ras/revocations/") => {
                let parts: Vec<&str> = path.split('/').collect();
                return Json(RevocationInfo {
                    wallet: parts[3].parse().unwrap(),
                    session_key: parts[4].to_owned(),
                    revoked: true,
                    height: Some(4),
                })
                .into_response();
            }
            _ => {}
        }
        let token = match ras_check(&method, &uri, &headers, &body) {
            Ok(token) => token,
            Err(why) => return error(StatusCode::UNAUTHORIZED, ErrorCode::RasRequestInvalid, &why),
        };
        let wallet = token.wallet;
        match (method.as_str(), path.as_str()) {
            ("GET", "/ras/auth/me") => Json(RasMe {
                wallet,
                session_key: format!("0x{}", hex::encode(token.session_key)),
                expires_at_ms: token.expires_at_ms,
            })
            .into_response(),
            ("GET", "/ras/accounts/balance") => Json(RasAccountBalance {
                wallet,
                balance: 7,
                volumes: 1,
                deposits: 2,
                rent_per_block: 3,
                truncated: false,
            })
            .into_response(),
            ("GET", "/ras/volumes") => {
                assert_eq!(uri.query(), Some("offset=1&limit=2"));
                Json(VolumeList { volumes: vec![ras_volume_record(wallet)], total_count: 1, offset: 1, limit: 2 })
                    .into_response()
            }
            ("GET", _) => {
                let record = ras_volume_record(wallet);
                if path == format!("/ras/volumes/{}", record.volume_id) {
                    Json(record).into_response()
                } else {
                    error(StatusCode::NOT_FOUND, ErrorCode::RasVolumeNotFound, "no such volume")
                }
            }
            ("POST", _) => {
                let request: RasTransactionRequest = serde_json::from_slice(&body).unwrap();
                let tx = Transaction::decode(&request.transaction_base64).unwrap();
                assert_eq!(tx.recover_sender(), Ok(wallet));
                let handler = drover_types::payload::Message::decode(&tx.payload).unwrap().handler;
                let response = SubmitResponse {
                    results: vec![SubmitResult::accepted(tx.hash())],
                    accepted: 1,
                    rejected: 0,
                    code: None,
                    error: None,
                    message: Some(format!("{handler} {path}")),
                };
                Json(response).into_response()
            }
            _ => error(StatusCode::METHOD_NOT_ALLOWED, ErrorCode::BadRequest, "no"),
        }
    }

    async fn serve_ras() -> String {
        let router = Router::new().fallback(ras_route);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await });
        format!("http://{address}")
    }

    #[tokio::test]
    async fn storage_relay_routes_are_typed_and_signed() {
        use drover_types::storage::StorageCall;
        let client = Client::new(&serve_ras().await).unwrap();
        let wallet = Wallet::new(drover_types::SecretKey::dev(0));
        let signer = RasSigner::issue(wallet.secret_key(), drover_types::SecretKey::dev(7), 100);

        assert_eq!(client.ras_stats().await.unwrap().height, 42);
        assert_eq!(client.ras_billing_summary().await.unwrap().height, 43);
        assert_eq!(client.ras_public_relays(0, 5).await.unwrap().limit, 1);
        assert_eq!(client.ras_write_relayers(0, 5).await.unwrap().limit, 2);
        let revocation = client.ras_revocation(&KNOWN, &[2; 33]).await.unwrap();
        assert_eq!(
            (revocation.wallet, revocation.session_key, revocation.height),
            (KNOWN, format!("0x{}", "02".repeat(33)), Some(4))
        );

        let me = client.ras_me(&signer).await.unwrap();
        assert_eq!(
            (me.wallet, me.session_key),
            (wallet.address(), format!("0x{}", hex::encode(signer.session_public_key())))
        );
        assert_eq!(client.ras_balance(&signer).await.unwrap().balance, 7);
        let list = client.ras_volumes(&signer, 1, 2).await.unwrap();
        assert_eq!(list.volumes[0].deposit, u128::from(u64::MAX) + 1);
        let id = list.volumes[0].volume_id;
        assert_eq!(client.ras_volume(&signer, &id).await.unwrap().map(|v| v.name), Some("photos".to_owned()));
        assert_eq!(client.ras_volume(&signer, &H256([1; 32])).await.unwrap(), None);

        let context = TxContext { chain_id: 100, ..TxContext::default() };
        let sign = |call: &StorageCall, value| TxBuilder::storage(call, value).sign(&context, &wallet).unwrap();
        let created = client
            .ras_create_volume(
                &signer,
                &sign(
                    &StorageCall::Create {
                        name: "photos".into(),
                        relay: KNOWN,
                        public: false,
                        max_size_bytes: 1 << 20,
                    },
                    5,
                ),
            )
            .await
            .unwrap();
        assert_eq!(created.message.as_deref(), Some("create /ras/volumes"));
        let answers = [
            client.ras_delete_volume(&signer, &id, &sign(&StorageCall::Delete { volume: id }, 0)).await.unwrap(),
            client.ras_undelete_volume(&signer, &id, &sign(&StorageCall::Undelete { volume: id }, 0)).await.unwrap(),
            client.ras_deposit(&signer, &id, &sign(&StorageCall::Deposit { volume: id }, 9)).await.unwrap(),
            client
                .ras_revoke(&signer, &sign(&StorageCall::Revoke { session_key: signer.session_public_key() }, 0))
                .await
                .unwrap(),
        ];
        let messages: Vec<String> = answers.into_iter().map(|a| a.message.unwrap()).collect();
        assert_eq!(
            messages,
            [
                format!("delete /ras/volumes/{id}/delete"),
                format!("undelete /ras/volumes/{id}/undelete"),
                format!("deposit /ras/volumes/{id}/deposit"),
                "revoke /ras/revoke".to_owned(),
            ]
        );
        // A session for another chain is refused, as the node refuses it.
        let elsewhere = RasSigner::issue(wallet.secret_key(), drover_types::SecretKey::dev(7), 7);
        let refused = client.ras_me(&elsewhere).await.unwrap_err();
        assert_eq!((refused.status(), refused.error_code()), (Some(401), Some(ErrorCode::RasRequestInvalid)));
    }

    /// A loopback URL where nothing listens.
    async fn closed_port_url() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        format!("http://{address}")
    }

    #[tokio::test]
    async fn reports_transport_failures() {
        let client = Client::with_timeout(&closed_port_url().await, Duration::from_secs(2)).unwrap();
        let err = client.height().await.unwrap_err();
        assert!(matches!(err, ClientError::Transport { .. }), "{err}");
        assert_eq!((err.status(), err.code()), (None, None));
    }
}
