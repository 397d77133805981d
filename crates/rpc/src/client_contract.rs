//! The Rust client's contract with this router: every method of `drover-client` runs against
//! the API as a node serves it (the router behind its layers, over TCP on loopback, through
//! [`crate::serve`]) over the mock backend, and decodes what it gets into the records it
//! promises.
//!
//! Every request's matched route template is recorded on the way out, and the test ends by
//! comparing the routes the client reached with the OpenAPI document's operations: a client
//! method whose path the router does not serve (which the client would read as an absence, the
//! router's 404 being code 1002) leaves its operation unreached, and a route the client has no
//! method for shows the same way. So a path that is wrong on either side fails here, in a unit
//! test, rather than in an end-to-end run.
//!
//! The steps follow the families of `routes/`; the mock is set up once, before the server
//! starts answering, except where a step needs what an earlier one did (a block for the state
//! proofs, an included transaction for the inclusion proofs).

use crate::{
    RpcConfig,
    backend::{
        actors::mock::ActorsMock,
        chain::mock::ChainMock,
        faucet::mock::FaucetMock,
        governance::mock::{GovernanceMock, proposal},
        history::mock::HistoryMock,
        jobs::mock::{JobsMock, job},
        library::mock::LibrariesMock,
        proofs::mock::ProofsMock,
        runners::mock::{RunnersMock, runner_info},
        secrets::mock::SecretsMock,
        simulation::mock::SimulationMock,
        state_sync::mock::{StateSyncMock, snapshot},
        storage::mock::{StorageMock, relay, volume},
        tokens::mock::{TokensMock, gold},
        transactions::mock::TransactionsMock,
    },
    mock::{CHAIN_ID, MOCK_ACTOR_CODE, MockBackend, actor, key},
    tests::documented,
};
use axum::{
    Router,
    extract::{MatchedPath, Request},
    middleware::{Next, from_fn},
};
use drover_client::{Client, ClientError, EventFilter, StreamMessage, TxBuilder, Wallet, storage_auth::StorageSigner};
use drover_types::{
    Address, BlockSelector, ErrorCode, H256, SecretKey, Transaction,
    api::{
        ActorReadRequest, DelegationInfo, Direction, HealthStatus, HistoryEntryInfo, IndexedEvent, JobResultInfo,
        LibraryInfo, LogOrigin, MultiProofItem, ProofRequest, ReceiptStatus, ReceivedBy, RelayHealth, SecretEnvelope,
        SignedFlowPayload, SignedFlowRequest, SimulateRequest, SimulationInfo, SubmitStatus, TransactionState,
        VerifiedResultInfo, WaitStatus,
    },
    payload::Manifest,
    storage::StorageCall,
};
use parking_lot::Mutex;
use serde_json::json;
use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

/// The actor every actor route is asked about.
const ACTOR: Address = Address([0xac; 20]);
/// An address that holds nothing.
const NOBODY: Address = Address([0x77; 20]);
/// A token holder and the spender it approved.
const HOLDER: Address = Address([0xbb; 20]);
const SPENDER: Address = Address([0xcc; 20]);
/// A delegator of the runner.
const DELEGATOR: Address = Address([9; 20]);

/// The operations (path template, lowercase method) requests were routed to.
type Reached = Arc<Mutex<BTreeMap<String, BTreeSet<String>>>>;

/// Serves the API over `mock` on a loopback port; answers the client of it and what it reached.
async fn serve(mock: &MockBackend) -> (Client, Reached) {
    // The contract is about paths and records: no limit of the rate of requests in the way.
    let config = RpcConfig {
        global_rate_limit_per_sec: 1_000_000,
        state_sync_rate_per_sec: 1_000_000,
        storage_public_rate_per_sec: 1_000_000,
        ..RpcConfig::default()
    };
    let http = crate::Http::new(&config);
    let api = crate::layered(crate::router(mock.clone(), config, &http), &http);
    let reached = Reached::default();
    let recorder = Arc::clone(&reached);
    let app = Router::new().fallback_service(api).layer(from_fn(move |request: Request, next: Next| {
        let recorder = Arc::clone(&recorder);
        async move {
            let method = request.method().as_str().to_lowercase();
            let response = next.run(request).await;
            if let Some(route) = response.extensions().get::<MatchedPath>() {
                recorder.lock().entry(route.as_str().to_owned()).or_default().insert(method);
            }
            response
        }
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(crate::serve(listener, app, std::future::pending()));
    (Client::new(&format!("http://{address}")).unwrap(), reached)
}

/// The mock every step reads: one record or more in each family.
fn mock() -> MockBackend {
    let mock = MockBackend::default();
    let runner = key(0).address();
    mock.edit(|data: &mut ActorsMock| data.actors.push(actor(ACTOR)));
    mock.edit(|data: &mut TokensMock| {
        data.tokens = (1..=2).map(gold).collect();
        data.token_balances.insert((Address([1; 20]), HOLDER), 2_500);
        data.token_allowances.insert((Address([1; 20]), HOLDER, SPENDER), 7);
    });
    mock.edit(|data: &mut RunnersMock| {
        data.runners = vec![runner_info(runner, "healthy")];
        let delegation = DelegationInfo { runner, amount: 7, since_height: 3, pending: Vec::new(), rewards: 0 };
        data.delegations.insert(DELEGATOR, vec![delegation]);
    });
    mock.edit(|data: &mut JobsMock| {
        let answered = JobResultInfo { runner: key(1).address(), result: b"out".to_vec(), height: 5, tx_hash: None };
        let verdict = VerifiedResultInfo {
            job_id: H256([2; 32]),
            result: b"out".to_vec(),
            consensus_count: 1,
            total_runners: 1,
            height: 6,
        };
        data.jobs = vec![
            (job(1, "assigned", &[runner]), Vec::new(), None),
            (job(2, "completed", &[key(1).address()]), vec![answered], Some(verdict)),
        ];
    });
    mock.edit(|data: &mut LibrariesMock| {
        data.libraries = vec![LibraryInfo {
            publisher: ACTOR,
            name: "math".into(),
            version: 2,
            latest_version: 2,
            code_hash: H256([3; 32]),
            code_size: 4,
            manifest: Manifest::new(vec!["storage.kv".into()]),
            published_height: 1,
            removed: false,
        }];
    });
    mock.edit(|data: &mut SecretsMock| {
        data.envelopes = vec![SecretEnvelope {
            owner: ACTOR,
            name: "api-key".into(),
            reader: HOLDER,
            version: 1,
            envelope: vec![1, 2, 3],
        }];
    });
    mock.edit(|data: &mut GovernanceMock| data.proposals = vec![proposal(0, "voting"), proposal(1, "executed")]);
    mock.edit(|data: &mut StorageMock| {
        data.relays =
            vec![relay(1, RelayHealth::Healthy, (true, true), 50), relay(2, RelayHealth::Healthy, (true, false), 50)];
        data.volumes = vec![volume(runner, "photos", Address([1; 20]), false)];
        data.revocations.insert((runner, [2; 33]), 4);
    });
    mock.edit(|data: &mut StateSyncMock| data.snapshot = Some(snapshot()));
    mock.edit(|data: &mut ProofsMock| {
        data.storage.insert((ACTOR, b"k".to_vec()), b"v".to_vec());
    });
    mock.edit(|data: &mut HistoryMock| {
        data.first_height = 1;
        data.history.insert(HOLDER, vec![history_entry(2, 0), history_entry(1, 0)]);
        data.events = vec![indexed_event(1), indexed_event(2)];
    });
    mock.edit(|data: &mut SimulationMock| data.answer = Some(Ok(simulation_answer())));
    // One finalized block above genesis, so there is a state to prove.
    mock.edit(|data: &mut ChainMock| {
        data.push();
    });
    mock
}

/// Every client method against the served router; then every operation the document lists
/// must have been reached.
#[tokio::test]
async fn every_client_method_reaches_its_route_and_decodes_the_answer() {
    let mock = mock();
    let (client, reached) = serve(&mock).await;

    chain(&client).await;
    health(&client).await;
    accounts(&client).await;
    let included = transactions(&client, &mock).await;
    actors(&client).await;
    tokens(&client).await;
    entitlements(&client).await;
    runners(&client).await;
    jobs(&client).await;
    libraries(&client).await;
    secrets(&client).await;
    governance(&client).await;
    storage_relays(&client).await;
    state_sync(&client).await;
    proofs(&client, included).await;
    history(&client, included).await;
    simulation(&client, &mock).await;
    faucet(&client, &mock).await;

    let document = crate::routes::routes::<MockBackend>().1;
    let reached = reached.lock().clone();
    let unreached: Vec<_> = documented(&document)
        .into_iter()
        .flat_map(|(path, methods)| methods.into_iter().map(move |method| format!("{method} {path}")))
        .filter(|operation| {
            let (method, path) = operation.split_once(' ').unwrap();
            !reached.get(path).is_some_and(|methods| methods.contains(method))
        })
        .collect();
    assert!(unreached.is_empty(), "operations no client method reached: {unreached:?}");
}

async fn chain(client: &Client) {
    let info = client.chain_info().await.unwrap();
    assert_eq!((info.chain_id, info.network.as_str()), (CHAIN_ID, "drover-test"));
    assert_eq!(client.height().await.unwrap(), 1);
    assert_eq!(client.block(BlockSelector::Latest).await.unwrap().map(|b| b.height), Some(1));
    assert_eq!(client.block(BlockSelector::Height(0)).await.unwrap().map(|b| b.height), Some(0));
    assert_eq!(client.block(BlockSelector::Height(99)).await.unwrap(), None);
    let basefee = client.basefee().await.unwrap();
    assert_eq!((basefee.basefee_cycle.as_str(), basefee.basefee_cell.as_str()), ("7", "3"));
    let fees = client.fee_suggestion().await.unwrap();
    assert!(fees.max_fee_per_cycle >= 7 && fees.max_fee_per_cell >= 3, "{fees:?}");
}

async fn health(client: &Client) {
    assert_eq!(client.health().await.unwrap().status, HealthStatus::Ok);
    assert_eq!(client.health_detailed().await.unwrap().components.storage, HealthStatus::Ok);
    assert_eq!(client.health_ready().await.unwrap().status, HealthStatus::Ok);
    assert!(client.metrics().await.unwrap().contains("drover_chain_height"));
}

async fn accounts(client: &Client) {
    let account = client.account(&key(0).address()).await.unwrap().unwrap();
    assert_eq!((account.nonce, account.balance), (0, 1_000_000_000_000));
    assert_eq!(client.account(&NOBODY).await.unwrap(), None);
}

/// Submits, looks up and waits; answers the hash of a transaction now included.
async fn transactions(client: &Client, mock: &MockBackend) -> H256 {
    let wallet = Wallet::new(key(0));
    let builder = TxBuilder::transfer(NOBODY, 1);
    let context = builder.fetch_context(client, wallet.address()).await.unwrap();
    assert_eq!((context.chain_id, context.nonce), (CHAIN_ID, 0));
    let pending = builder.sign(&context, &wallet).unwrap();
    let answer = client.submit(std::slice::from_ref(&pending)).await.unwrap();
    assert_eq!((answer.accepted, answer.results[0].status), (1, SubmitStatus::Accepted));
    let found = client.pending_transaction(&pending.hash()).await.unwrap().unwrap();
    assert_eq!((found.hash, found.from), (pending.hash(), wallet.address()));
    // `/transaction/{hash}` knows a pending transaction too, as pending.
    let state = client.transaction(&pending.hash()).await.unwrap().map(|t| (t.status, t.block_height));
    assert_eq!(state, Some((TransactionState::Pending, None)));
    assert_eq!(client.transaction(&H256([5; 32])).await.unwrap(), None);
    assert_eq!(client.receipt(&pending.hash()).await.unwrap(), None);

    // A refusal of every transaction is the first refusal, as an error.
    let foreign = TxBuilder::transfer(NOBODY, 1).sign(&context, &Wallet::new(SecretKey::dev(9))).unwrap();
    let refused = client.submit(&[foreign]).await.unwrap_err();
    assert_eq!(refused.status(), Some(400));

    mock.edit(|data: &mut TransactionsMock| data.include_on_submit = true);
    let waited = builder.nonce(1).sign(&context, &wallet).unwrap();
    let answer = client.submit_wait(std::slice::from_ref(&waited), 5_000).await.unwrap();
    let result = &answer.results[0];
    assert_eq!((result.hash, result.status, result.block_height), (waited.hash(), WaitStatus::Success, Some(2)));
    // Later steps submit too; their transactions stay pending so the chain stays at height 2.
    mock.edit(|data: &mut TransactionsMock| data.include_on_submit = false);
    let included = client.transaction(&waited.hash()).await.unwrap().unwrap();
    assert_eq!(included.block_height, Some(2));
    let receipt = client.receipt(&waited.hash()).await.unwrap().unwrap();
    assert_eq!(receipt.block_height, 2);
    waited.hash()
}

async fn actors(client: &Client) {
    let info = client.actor(&ACTOR).await.unwrap().unwrap();
    assert_eq!(info.address, ACTOR);
    assert_eq!(client.actor(&NOBODY).await.unwrap(), None);
    assert_eq!(client.actor_code(&ACTOR).await.unwrap().unwrap().code, MOCK_ACTOR_CODE);
    assert_eq!(client.actor_manifest(&ACTOR).await.unwrap().unwrap().entitlements(), ["storage.kv"]);
    assert_eq!(client.actor_manifest(&NOBODY).await.unwrap(), None);
    let first = client.actor_storage(&ACTOR, None).await.unwrap().unwrap();
    assert_eq!(first.items.iter().map(|e| e.key.clone()).collect::<Vec<_>>(), [b"a".to_vec()]);
    let cursor = first.next_cursor.unwrap();
    let second = client.actor_storage(&ACTOR, Some(&cursor)).await.unwrap().unwrap();
    assert_eq!((second.items[0].key.as_slice(), second.next_cursor), (&b"b"[..], None));
    assert_eq!(client.actor_storage_count(&ACTOR).await.unwrap().unwrap().count, 2);
    assert!(client.actor_mailbox(&ACTOR, None).await.unwrap().unwrap().items.is_empty());
    assert!(client.actor_logs(&ACTOR, None).await.unwrap().unwrap().items.is_empty());
    assert!(client.actor_runs(&ACTOR, None).await.unwrap().unwrap().items.is_empty());
    assert_eq!(client.actor_timers(&ACTOR, 0, 5).await.unwrap().unwrap().limit, 5);
    assert_eq!(client.actor_upgrades(&ACTOR, 0, 5).await.unwrap().unwrap().limit, 5);
    let request = ActorReadRequest {
        actor: ACTOR,
        handler: "echo".into(),
        payload: None,
        payload_text: Some("hi".into()),
        payload_json: None,
        max_cycles: None,
        max_cells: None,
        from: None,
        trace: None,
    };
    let answer = client.actor_read(&request).await.unwrap();
    assert_eq!((answer.status, answer.result.as_slice()), (ReceiptStatus::Success, &b"hi"[..]));
}

async fn tokens(client: &Client) {
    let token = Address([1; 20]);
    let list = client.tokens(0, 1).await.unwrap();
    assert_eq!((list.total_count, list.tokens.len()), (2, 1));
    assert_eq!(client.token(&token).await.unwrap().unwrap().supply, u128::MAX);
    assert_eq!(client.token(&NOBODY).await.unwrap(), None);
    assert_eq!(client.token_balance(&token, &HOLDER).await.unwrap().unwrap().balance, 2_500);
    assert_eq!(client.token_allowance(&token, &HOLDER, &SPENDER).await.unwrap().unwrap().allowance, 7);
    let held = client.account_tokens(&HOLDER, 0, 10).await.unwrap();
    assert_eq!(held.tokens.iter().map(|t| t.token_id).collect::<Vec<_>>(), [token]);
}

async fn entitlements(client: &Client) {
    let registry = client.entitlements().await.unwrap();
    assert_eq!(registry.entitlements.len(), 2);
    let valid = client.validate_manifest(&json!({"entitlements": ["storage.kv"]})).await.unwrap();
    assert!(valid.valid && valid.errors.is_empty(), "{valid:?}");
    let invalid = client.validate_manifest(&json!({"entitlements": ["nope"]})).await.unwrap();
    assert!(!invalid.valid && invalid.errors.len() == 1, "{invalid:?}");
}

/// The flow's transaction signed by `signer`, as the runner sends it back.
fn signed_flow(payload: &SignedFlowPayload, signer: &SecretKey) -> SignedFlowRequest {
    let tx = Transaction::decode(&payload.unsigned_transaction_base64).unwrap();
    let signature = tx.sign(signer).signature.unwrap().to_rsv();
    SignedFlowRequest {
        unsigned_transaction_base64: payload.unsigned_transaction_base64.clone(),
        signature: format!("0x{}", hex::encode(signature)),
    }
}

async fn runners(client: &Client) {
    let runner = key(0);
    let list = client.active_runners(0, 10).await.unwrap();
    assert_eq!(list.runners.iter().map(|r| r.address).collect::<Vec<_>>(), [runner.address()]);
    assert_eq!(client.runner(&runner.address()).await.unwrap().unwrap().health, "healthy");
    assert_eq!(client.runner(&NOBODY).await.unwrap(), None);
    let delegations = client.delegations(&DELEGATOR, 0, 10).await.unwrap();
    assert_eq!(delegations.delegations[0].amount, 7);

    let heartbeat = client.heartbeat_payload(&runner.address()).await.unwrap();
    let answer = client.post_heartbeat(&runner.address(), &signed_flow(&heartbeat, &runner)).await.unwrap();
    assert_eq!(answer.accepted, 1);

    let open = client.runner_jobs(&runner.address(), 0, 10).await.unwrap();
    assert_eq!(open.jobs.iter().map(|j| j.job_id).collect::<Vec<_>>(), [H256([1; 32])]);
    let result = client.job_result_payload(&runner.address(), &H256([1; 32]), b"out").await.unwrap();
    let answer = client.post_job_result(&runner.address(), &signed_flow(&result, &runner)).await.unwrap();
    assert_eq!(answer.accepted, 1);
}

async fn jobs(client: &Client) {
    let (open, done) = (H256([1; 32]), H256([2; 32]));
    assert_eq!(client.job(&open).await.unwrap().unwrap().status, "assigned");
    assert_eq!(client.job(&H256([3; 32])).await.unwrap(), None);
    assert_eq!(client.job_status(&done).await.unwrap().unwrap().status, "completed");
    assert_eq!(client.job_status(&H256([3; 32])).await.unwrap(), None);
    assert_eq!(client.job_results(&done, 0, 10).await.unwrap().results[0].result, b"out");
    assert_eq!(client.job_verified(&done).await.unwrap().unwrap().consensus_count, 1);
    assert_eq!(client.job_verified(&open).await.unwrap(), None);
    // Read from the dispatcher's storage (`/state/...`): nothing submitted yet.
    assert_eq!(client.job_submissions(&key(0).address()).await.unwrap(), 0);
}

async fn libraries(client: &Client) {
    assert_eq!(client.library(&ACTOR, "math", None).await.unwrap().unwrap().version, 2);
    assert_eq!(client.library(&ACTOR, "math", Some(2)).await.unwrap().unwrap().latest_version, 2);
    assert_eq!(client.library(&ACTOR, "math", Some(1)).await.unwrap(), None);
    // A name is one path segment: "math#" is not read as "math" with a fragment.
    assert_eq!(client.library(&ACTOR, "math#", None).await.unwrap(), None);
    let list = client.libraries(&ACTOR, 0, 10).await.unwrap();
    assert_eq!(list.libraries.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), ["math"]);
}

async fn secrets(client: &Client) {
    let list = client.secrets(&ACTOR, 0, 10).await.unwrap();
    assert_eq!(list.secrets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["api-key"]);
    assert_eq!(client.secret_envelope(&ACTOR, "api-key", &HOLDER).await.unwrap().unwrap().envelope, [1, 2, 3]);
    assert_eq!(client.secret_envelope(&ACTOR, "api-key", &NOBODY).await.unwrap(), None);
    // A name that spells another path reaches the server as a name, which it refuses (1001),
    // not as the path to another reader's envelope.
    let crafted = format!("api-key/envelope/{HOLDER}#");
    let refused = client.secret_envelope(&ACTOR, &crafted, &NOBODY).await.unwrap_err();
    assert_eq!((refused.status(), refused.error_code()), (Some(400), Some(ErrorCode::BadRequest)));
}

async fn governance(client: &Client) {
    assert!(!client.governance_params().await.unwrap().params.is_empty());
    assert_eq!(client.proposals(None, 0, 10).await.unwrap().total_count, 2);
    let voting = client.proposals(Some("voting"), 0, 10).await.unwrap();
    assert_eq!(voting.proposals.iter().map(|p| p.id).collect::<Vec<_>>(), [0]);
    assert_eq!(client.proposal(1).await.unwrap().unwrap().proposal.status, "executed");
    assert_eq!(client.proposal(9).await.unwrap(), None);
}

async fn storage_relays(client: &Client) {
    let wallet = Wallet::new(key(0));
    assert_eq!(client.storage_challenge().await.unwrap().chain_id, CHAIN_ID);
    assert_eq!(client.storage_stats().await.unwrap().relays, 2);
    assert_eq!(client.storage_billing_summary().await.unwrap().height, client.height().await.unwrap());
    assert_eq!(client.storage_public_relays(0, 5).await.unwrap().relays.len(), 1);
    assert_eq!(client.storage_write_relayers(0, 5).await.unwrap().relays.len(), 2);
    let revoked = client.storage_revocation(&wallet.address(), &[2; 33]).await.unwrap();
    assert_eq!((revoked.revoked, revoked.height), (true, Some(4)));

    let signer = StorageSigner::issue(wallet.secret_key(), SecretKey::dev(7), CHAIN_ID);
    assert_eq!(client.storage_me(&signer).await.unwrap().wallet, wallet.address());
    assert_eq!(client.storage_balance(&signer).await.unwrap().volumes, 1);
    let list = client.storage_volumes(&signer, 0, 10).await.unwrap();
    let id = list.volumes[0].volume_id;
    assert_eq!(client.storage_volume(&signer, &id).await.unwrap().map(|v| v.name), Some("photos".to_owned()));
    assert_eq!(client.storage_volume(&signer, &H256([1; 32])).await.unwrap(), None);

    // Each owner transaction is the wallet's own call, admitted like a submission.
    let context = TxBuilder::storage(&StorageCall::Delete { volume: id }, 0)
        .fetch_context(client, wallet.address())
        .await
        .unwrap();
    let sign = |call: StorageCall, value| TxBuilder::storage(&call, value).sign(&context, &wallet).unwrap();
    let create =
        StorageCall::Create { name: "docs".into(), relay: Address([1; 20]), public: false, max_size_bytes: 1 << 20 };
    let answers = [
        client.storage_create_volume(&signer, &sign(create, 5_000)).await,
        client.storage_delete_volume(&signer, &id, &sign(StorageCall::Delete { volume: id }, 0)).await,
        client.storage_undelete_volume(&signer, &id, &sign(StorageCall::Undelete { volume: id }, 0)).await,
        client.storage_deposit(&signer, &id, &sign(StorageCall::Deposit { volume: id }, 9)).await,
        client.storage_revoke(&signer, &sign(StorageCall::Revoke { session_key: [3; 33] }, 0)).await,
    ];
    for answer in answers {
        assert_eq!(answer.unwrap().accepted, 1);
    }
}

async fn state_sync(client: &Client) {
    assert_eq!(client.state_snapshot().await.unwrap(), Some(snapshot()));
    let batch = client.state_operations(100, 4, Some(10)).await.unwrap();
    assert_eq!(String::from_utf8(batch).unwrap(), "Operations { size: 100, start: 4, max: 10 }");
    let boundary = client.state_operations(100, 4, None).await.unwrap();
    assert_eq!(String::from_utf8(boundary).unwrap(), "Boundary { size: 100, start: 4 }");
}

async fn proofs(client: &Client, included: H256) {
    let height = client.height().await.unwrap();
    let account = client.proof_account(&key(0).address(), None).await.unwrap();
    assert_eq!((account.address, account.height), (key(0).address(), height));
    assert!(account.value.is_some());
    assert_eq!(client.proof_actor(&ACTOR, Some(height)).await.unwrap().address, ACTOR);
    assert_eq!(client.proof_storage(&ACTOR, b"k", None).await.unwrap().value.as_deref(), Some(&b"v"[..]));
    assert_eq!(client.state_value(&ACTOR, b"k").await.unwrap().value.as_deref(), Some(&b"v"[..]));
    let tx = client.proof_tx(&included).await.unwrap().unwrap();
    assert_eq!((tx.tx_hash, tx.height), (included, 2));
    assert_eq!(client.proof_receipt(&included).await.unwrap().unwrap().tx_hash, included);
    assert_eq!(client.proof_tx(&H256([5; 32])).await.unwrap(), None);
    let requests = [
        ProofRequest { kind: "account".into(), address: Some(key(0).address().to_hex()), key: None, tx_hash: None },
        ProofRequest { kind: "tx".into(), address: None, key: None, tx_hash: Some(included.to_hex()) },
    ];
    let multi = client.proof_multi(&requests, None).await.unwrap();
    assert_eq!(multi.results.len(), 2);
    assert!(multi.results.iter().all(|item| matches!(item, MultiProofItem::Proof(_))), "{multi:?}");
}

/// `HOLDER`'s transaction at `height`: a transfer it received.
fn history_entry(height: u64, index: u32) -> HistoryEntryInfo {
    HistoryEntryInfo {
        tx_hash: H256([height as u8; 32]),
        block_height: height,
        index,
        direction: Direction::Received,
        status: ReceiptStatus::Success,
        from: key(0).address(),
        to: Some(HOLDER),
        value: 5,
        fee: 7,
        destination: true,
        received: vec![ReceivedBy::Transfer],
        value_received: 5,
        tokens_received: Vec::new(),
    }
}

/// `ACTOR`'s `tick` event in the block at `height`.
fn indexed_event(height: u64) -> IndexedEvent {
    let mut cursor = [0u8; crate::backend::history::EVENT_CURSOR_BYTES];
    cursor[..8].copy_from_slice(&height.to_be_bytes());
    IndexedEvent {
        address: ACTOR,
        topic: "tick".into(),
        data: vec![1],
        block_height: height,
        origin: LogOrigin::Transaction,
        tx_hash: Some(H256([height as u8; 32])),
        tx_index: Some(0),
        timer_id: None,
        message_seq: None,
        from: None,
        event_index: 0,
        cursor: hex::encode(cursor),
    }
}

/// History, blocks, events and the three streams; `included` is finalized at height 2.
async fn history(client: &Client, included: H256) {
    let range = client.indexed_range().await.unwrap();
    assert_eq!((range.first_height, range.last_height), (1, 2));
    let first = client.history(&HOLDER, None, 1).await.unwrap();
    assert_eq!(first.items[0].block_height, 2);
    let rest = client.history(&HOLDER, first.next_cursor.as_deref(), 1).await.unwrap();
    assert_eq!((rest.items[0].block_height, rest.next_cursor), (1, None));
    let blocks = client.blocks(None, 1).await.unwrap();
    assert_eq!((blocks.items[0].height, blocks.next_cursor.as_deref()), (2, Some("2")));
    let filter = EventFilter { emitters: vec![ACTOR], topics: vec!["tick".into()], ..EventFilter::default() };
    let events = client.events(&filter, None, 1).await.unwrap();
    assert_eq!((events.items[0].block_height, events.from_height, events.to_height), (1, 1, 2));
    let rest = client.events(&filter, events.next_cursor.as_deref(), 1).await.unwrap();
    assert_eq!((rest.items[0].block_height, rest.next_cursor), (2, None));

    let mut blocks = client.stream_blocks(Some(1), None).await.unwrap();
    match blocks.next().await.unwrap() {
        Some(StreamMessage::Block(block)) => assert_eq!(block.height, 1),
        other => panic!("expected block 1, got {other:?}"),
    }
    assert_eq!(blocks.last_event_id(), Some("1"));
    let mut outcome = client.stream_transaction(&included).await.unwrap();
    match outcome.next().await.unwrap() {
        Some(StreamMessage::Receipt(receipt)) => assert_eq!(receipt.tx_hash, included),
        other => panic!("expected the receipt, got {other:?}"),
    }
    let mut events = client.stream_events(&EventFilter { from_height: Some(2), ..filter }, None).await.unwrap();
    match events.next().await.unwrap() {
        Some(StreamMessage::Event(event)) => assert_eq!(event.block_height, 2),
        other => panic!("expected the event of block 2, got {other:?}"),
    }
}

/// What the mock's simulation answers: a call that used 30,000 cycles and 10 cells.
fn simulation_answer() -> SimulationInfo {
    SimulationInfo {
        status: ReceiptStatus::Success,
        error: None,
        revert_reason: None,
        cycles_used: 30_000,
        cells_used: 10,
        fee: 300_030,
        fee_burned: 300_000,
        fee_tip: 30,
        events: Vec::new(),
        cycles_limit: 1_000_000,
        cells_limit: 100,
        suggested_cycles_limit: 36_000,
        suggested_cells_limit: 12,
        margin_percent: 20,
        nonce: 0,
        block_height: 2,
        state_root: H256::ZERO,
        trace: None,
    }
}

/// A builder with open limits sized by `POST /simulate`.
async fn simulation(client: &Client, mock: &MockBackend) {
    let sender = key(0).address();
    let builder = TxBuilder::message(Some(ACTOR), 0, b"call".to_vec());
    let context = builder.fetch_context(client, sender).await.unwrap();
    let (sized, simulated) = builder.clone().estimate(client, sender, &context).await.unwrap();
    assert_eq!(simulated.map(|s| s.suggested_cycles_limit), Some(36_000));
    let tx = sized.build(&context).unwrap();
    assert_eq!((tx.cycles_limit, tx.cells_limit), (36_000, 12));
    // Asked for, the trace comes back.
    let request = SimulateRequest { trace: Some(true), ..sized.simulate_request(sender, &context).unwrap() };
    assert!(client.simulate(&request).await.unwrap().trace.is_some());
    // `prepare` does the whole round: context, simulation, signature.
    let (signed, simulated) = builder.prepare(client, &Wallet::new(key(0))).await.unwrap();
    assert_eq!((signed.cycles_limit, signed.cells_limit, signed.recover_sender()), (36_000, 12, Ok(sender)));
    assert!(simulated.is_some());
    let asked = mock.read(|data: &SimulationMock| data.requests.iter().map(|(_, trace)| *trace).collect::<Vec<_>>());
    assert_eq!(asked, [false, true, false]);
}

async fn faucet(client: &Client, mock: &MockBackend) {
    let funded = client.faucet(&NOBODY).await.unwrap();
    assert_eq!((funded.address, funded.tx_hash), (NOBODY, drover_types::keccak256(&NOBODY.0)));
    // A 404 that is not "no such thing" stays an error.
    mock.edit(|data: &mut FaucetMock| data.faucet = None);
    let disabled: ClientError = client.faucet(&NOBODY).await.unwrap_err();
    assert_eq!((disabled.status(), disabled.error_code()), (Some(404), Some(ErrorCode::FaucetDisabled)));
}
