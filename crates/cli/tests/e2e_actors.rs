//! End-to-end: actors through the real node and the CLI — deploy, call, read, upgrade and inspect
//! the example actors over HTTP. Reverts and traps roll back everything (nested calls included)
//! but pay; hostile actors are stopped within their limits while the chain carries on; mailbox
//! delivery is exactly once, also across a kill -9; metering is the same after a restart; a
//! message to an address without an actor is refused at admission. Timer
//! fires and mailbox deliveries, which no transaction receipt shows, are read from the actor's
//! runs.

mod common;

use common::*;
use drover_client::{Client, verify};
use drover_node::{devnet::GENESIS_FILE, genesis::Genesis};
use drover_types::{
    Address, SecretKey, Transaction,
    api::{ActorReadRequest, ActorReadResponse, ReceiptInfo, ReceiptStatus, WaitStatus},
    payload::{ACTOR_UPGRADES_ADDRESS, Deploy, Manifest, Message, Upgrade},
};

/// Generous limits for actor transactions (unused limits are not charged).
const ACTOR_CYCLES_LIMIT: u64 = 5_000_000;
const ACTOR_CELLS_LIMIT: u64 = 100_000;

/// The deploy of the example actor `actors/{name}.wat` with these entitlements and salt.
fn example(name: &str, entitlements: &[&str], salt: &[u8]) -> Deploy {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    Deploy {
        code: wat::parse_file(&path).unwrap_or_else(|e| panic!("{path} compiles: {e}")),
        manifest: Manifest::new(entitlements.iter().map(|id| (*id).to_owned()).collect()),
        salt: salt.to_vec(),
        init: None,
    }
}

/// A read-only call of `handler` with an empty input.
async fn read(client: &Client, actor: Address, handler: &str) -> ActorReadResponse {
    client
        .actor_read(&ActorReadRequest {
            actor,
            handler: handler.to_owned(),
            payload: None,
            payload_text: Some(String::new()),
            payload_json: None,
            max_cycles: None,
            max_cells: None,
            from: None,
            trace: None,
        })
        .await
        .unwrap_or_else(|e| panic!("read {handler}: {e}"))
}

fn actor_tx(key: &SecretKey, nonce: u64, to: Option<Address>, payload: Vec<u8>) -> Transaction {
    Transaction {
        chain_id: 100,
        nonce,
        to,
        value: 0,
        cycles_limit: ACTOR_CYCLES_LIMIT,
        cells_limit: ACTOR_CELLS_LIMIT,
        max_fee_per_cycle: 1_000,
        max_fee_per_cell: 1_000,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload,
        signature: None,
    }
    .sign(key)
}

fn call(handler: &str) -> Vec<u8> {
    Message { handler: handler.to_owned(), payload: Vec::new() }.encode()
}

async fn receipt(client: &Client, tx: &Transaction) -> ReceiptInfo {
    let answer = client.submit_wait(std::slice::from_ref(tx), 10_000).await.unwrap();
    assert!(answer.results[0].block_height.is_some(), "{answer:?}");
    client.receipt(&tx.hash()).await.unwrap().expect("receipt")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployed_counter_counts_reverts_cleanly_and_refuses_unknown_handlers() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let key = dev_key(0);

    let deploy = example("counter", &["storage.kv"], b"e2e");
    let actor = deploy.actor_address(&key.address());
    // Limits below a deploy's intrinsic cost (its code) are refused at admission.
    let mut cheap = actor_tx(&key, 0, None, deploy.encode());
    cheap.cells_limit = 10;
    let (status, body) = submit_raw(&node.url, &[cheap.sign(&key)]).await;
    assert_error(status, &body, 400, 2005);
    let deployed = receipt(&client, &actor_tx(&key, 0, None, deploy.encode())).await;
    assert_eq!(deployed.status, ReceiptStatus::Success, "{deployed:?}");
    assert!(deployed.cells_used > 0, "code is stored: {deployed:?}");

    // The actor's summary, code and manifest; an address without an actor is 404 (5000).
    let summary = client.actor(&actor).await.unwrap().expect("the actor exists");
    assert_eq!(summary.code_hash, drover_types::keccak256(&deploy.code));
    assert_eq!(summary.owner, key.address());
    assert_eq!(summary.created_height, deployed.block_height);
    assert_eq!(summary.manifest.entitlements(), vec!["storage.kv".to_owned()]);
    assert_eq!(summary.mailbox_count, 0);
    let code = client.actor_code(&actor).await.unwrap().expect("code");
    assert_eq!(code.code, deploy.code);
    assert_eq!(code.size, deploy.code.len() as u64);
    let (status, body) = get_raw(&node.url, &format!("/actor/{actor}/manifest")).await;
    assert_eq!((status, &body), (200, &serde_json::json!({"entitlements": ["storage.kv"]})));
    assert!(client.actor(&key.address()).await.unwrap().is_none(), "an account is not an actor");
    let (status, body) = get_raw(&node.url, "/actor/0x12").await;
    assert_error(status, &body, 400, 3001);

    // Increments run metered wasm (more than a transfer's 21,000 cycles). The first reads an
    // absent slot, the next ones copy its 8 bytes (metered per byte), and from then on the same
    // call on the same shape of state costs exactly the same.
    let first = receipt(&client, &actor_tx(&key, 1, Some(actor), call("increment"))).await;
    let second = receipt(&client, &actor_tx(&key, 2, Some(actor), call("increment"))).await;
    assert_eq!(first.status, ReceiptStatus::Success, "{first:?}");
    assert_eq!(second.status, ReceiptStatus::Success, "{second:?}");
    assert!(first.cycles_used > 21_000);
    assert_eq!(second.cycles_used, first.cycles_used + 8);

    // A revert keeps nothing of what the handler wrote, but the sender pays for the work.
    let before = client.account(&key.address()).await.unwrap().unwrap();
    let reverted = receipt(&client, &actor_tx(&key, 3, Some(actor), call("bump_and_revert"))).await;
    assert_eq!(reverted.status, ReceiptStatus::Reverted, "{reverted:?}");
    assert_eq!(reverted.revert_reason.as_deref(), Some("changed my mind"));
    assert!(reverted.fee > 0);
    let after = client.account(&key.address()).await.unwrap().unwrap();
    assert_eq!(after.nonce, before.nonce + 1);
    assert_eq!(after.balance, before.balance - reverted.fee);

    // A third increment costs what the second did, and the counter reads 3 in the finalized
    // state (the reverted bump left no trace), proven against the group key.
    let third = receipt(&client, &actor_tx(&key, 4, Some(actor), call("increment"))).await;
    assert_eq!(third.cycles_used, second.cycles_used);
    let identity = Genesis::load(&node.dir.path().join(GENESIS_FILE)).unwrap().identity;
    let proof = client.proof_storage(&actor, b"count", None).await.unwrap();
    let proven = verify::verify_storage(&proof, &identity, &actor, b"count").expect("the storage proof verifies");
    assert_eq!(proven.value, Some(3u64.to_le_bytes().to_vec()));

    // Read-only calls see the same state and change nothing.
    let post_read = |body: serde_json::Value| {
        let url = node.url.clone();
        async move { post_raw(&url, "/actor/read", "application/json", body.to_string().into_bytes()).await }
    };
    let got = read(&client, actor, "get").await;
    assert_eq!(got.status, ReceiptStatus::Success);
    assert_eq!(got.result, 3u64.to_le_bytes());
    assert!(got.block_height >= third.block_height);
    assert!(got.cycles_used > 0);
    // A handler that writes is refused (5003) and the state keeps its value.
    let (status, _, body) =
        post_read(serde_json::json!({"actor": actor, "handler": "increment", "payload_text": ""})).await;
    assert_error(status, &body, 400, 5003);
    let (status, _, body) =
        post_read(serde_json::json!({"actor": actor, "handler": "no_such_handler", "payload_text": ""})).await;
    assert_error(status, &body, 404, 5002);
    let (status, _, body) =
        post_read(serde_json::json!({"actor": actor, "handler": "get", "payload_text": "", "max_cycles": 10})).await;
    assert_error(status, &body, 400, 5004);
    let (status, _, body) =
        post_read(serde_json::json!({"actor": key.address(), "handler": "get", "payload_text": ""})).await;
    assert_error(status, &body, 404, 5000);
    let proof = client.proof_storage(&actor, b"count", None).await.unwrap();
    let proven = verify::verify_storage(&proof, &identity, &actor, b"count").expect("the storage proof verifies");
    assert_eq!(proven.value, Some(3u64.to_le_bytes().to_vec()));

    // Its storage, listed in pages, and its (empty) upgrade history.
    let (status, page) = get_raw(&node.url, &format!("/actors/{actor}/storage?limit=1")).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["items"][0]["key"], format!("0x{}", hex::encode(b"count")));
    assert_eq!(
        page["items"][0]["value"],
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, 3u64.to_le_bytes())
    );
    assert!(page["next_cursor"].is_null(), "{page}");
    let (status, history) = get_raw(&node.url, &format!("/actor/{actor}/upgrade-history")).await;
    assert_eq!((status, history), (200, serde_json::json!({"items": [], "total_count": 0, "offset": 0, "limit": 50})));
    let (status, body) = get_raw(&node.url, &format!("/actors/{}/storage", key.address())).await;
    assert_error(status, &body, 404, 5000);

    // An unknown handler fails with its E-code and moves nothing but the fee.
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
    let missing = receipt(&client, &actor_tx(&key, nonce, Some(actor), call("no_such_handler"))).await;
    assert_ne!(missing.status, ReceiptStatus::Success, "{missing:?}");
    assert_eq!(missing.error.as_ref().map(|e| e.code.as_str()), Some("E1205"), "{missing:?}");

    // A second deploy of the same code and salt to the same address is refused.
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
    let again = receipt(&client, &actor_tx(&key, nonce, None, deploy.encode())).await;
    assert_ne!(again.status, ReceiptStatus::Success, "{again:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_to_an_address_without_an_actor_is_refused_at_admission() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let key = dev_key(1);
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;

    // An account holds no code: the message could never be delivered, so it is not admitted
    // (it used to be accepted, then dropped from the mempool without a receipt).
    let account = dev_key(2).address();
    let (status, body) = submit_raw(&node.url, &[actor_tx(&key, nonce, Some(account), call("increment"))]).await;
    assert_error(status, &body, 400, 2012);
    assert_eq!(body["error"], "invalid_payload", "{body}");
    assert!(body["message"].as_str().unwrap().contains("holds no actor"), "{body}");
    // Nor is a message to a reserved system address that no system actor serves (0x…0f).
    let (status, body) =
        submit_raw(&node.url, &[actor_tx(&key, nonce, Some(Address::system(0x0f)), call("transfer"))]).await;
    assert_error(status, &body, 400, 2012);
    assert!(
        client
            .pending_transaction(&actor_tx(&key, nonce, Some(account), call("increment")).hash())
            .await
            .unwrap()
            .is_none()
    );

    // A deploy sent together with a call of the actor it creates: both admitted, and the call,
    // whose nonce comes after the deploy's, finds the actor.
    let deploy = example("counter", &["storage.kv"], b"together");
    let actor = deploy.actor_address(&key.address());
    let batch =
        [actor_tx(&key, nonce, None, deploy.encode()), actor_tx(&key, nonce + 1, Some(actor), call("increment"))];
    let answer = client.submit_wait(&batch, 10_000).await.unwrap();
    assert_eq!(answer.accepted, 2, "{answer:?}");
    for result in &answer.results {
        assert_eq!(result.status, WaitStatus::Success, "{answer:?}");
    }
    // A call ordered before its deploy would find no actor: refused, the deploy admitted.
    let other = example("counter", &["storage.kv"], b"late");
    let early = actor_tx(&key, nonce + 2, Some(other.actor_address(&key.address())), call("increment"));
    let (status, body) = submit_raw(&node.url, &[early, actor_tx(&key, nonce + 3, None, other.encode())]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["results"][0]["code"], 2012, "{body}");
    assert_eq!(body["results"][1]["status"], "accepted", "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ledger_storage_pages_follow_the_cursor() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let key = dev_key(1);
    let deploy = example("ledger", &["storage.kv"], b"");
    let ledger = deploy.actor_address(&key.address());
    assert_eq!(receipt(&client, &actor_tx(&key, 0, None, deploy.encode())).await.status, ReceiptStatus::Success);
    // Three holders: three storage entries ("b" ++ address, plus the owner record).
    for (nonce, holder) in [(1u64, [0x10u8; 20]), (2, [0x20; 20]), (3, [0x30; 20])] {
        let mut input = holder.to_vec();
        input.extend_from_slice(&(nonce * 100).to_le_bytes());
        let message = Message { handler: "mint".to_owned(), payload: input }.encode();
        let minted = receipt(&client, &actor_tx(&key, nonce, Some(ledger), message)).await;
        assert_eq!(minted.status, ReceiptStatus::Success, "{minted:?}");
    }

    // In a block, `audit` iterates the balances (storage_next) behind two more mints of the same
    // submission, and stores their sum.
    let mut txs: Vec<Transaction> = [(4u64, [0x40u8; 20]), (5, [0x50; 20])]
        .into_iter()
        .map(|(nonce, holder)| {
            let payload = [holder.as_slice(), &(nonce * 100).to_le_bytes()].concat();
            actor_tx(&key, nonce, Some(ledger), Message { handler: "mint".to_owned(), payload }.encode())
        })
        .collect();
    txs.push(actor_tx(&key, 6, Some(ledger), call("audit")));
    let answer = client.submit_wait(&txs, 10_000).await.unwrap();
    assert!(answer.results.iter().all(|r| r.block_height.is_some()), "{answer:?}");
    for tx in &txs {
        let receipt = client.receipt(&tx.hash()).await.unwrap().expect("receipt");
        assert_eq!(receipt.status, ReceiptStatus::Success, "{receipt:?}");
    }
    let supply = 1_500u64.to_le_bytes().to_vec();
    assert_eq!(read(&client, ledger, "supply").await.result, supply);

    let mut keys = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(cursor) => format!("/actors/{ledger}/storage?limit=1&cursor={cursor}"),
            None => format!("/actors/{ledger}/storage?limit=1"),
        };
        let (status, page) = get_raw(&node.url, &path).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["items"].as_array().unwrap().len(), 1, "{page}");
        keys.push(page["items"][0]["key"].as_str().unwrap().to_owned());
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    // Pages come in storage order (see docs/actors.md), each entry once.
    let mut in_storage_order = keys.clone();
    in_storage_order
        .sort_by_key(|key| drover_state::keys::storage_key(&ledger, &hex::decode(&key[2..]).expect("hex keys")));
    assert_eq!(keys, in_storage_order, "pages come in storage order");
    in_storage_order.dedup();
    assert_eq!(in_storage_order.len(), keys.len());
    for holder in [[0x10u8; 20], [0x20; 20], [0x30; 20]] {
        let expected = format!("0x{}", hex::encode([b"b".as_slice(), &holder].concat()));
        assert!(keys.contains(&expected), "{keys:?} lacks {expected}");
    }
    let (_, all) = get_raw(&node.url, &format!("/actors/{ledger}/storage")).await;
    assert_eq!(all["items"].as_array().unwrap().len(), keys.len());
    assert!(all["next_cursor"].is_null());
    let stored = all["items"].as_array().unwrap().iter().find(|item| item["key"] == "0x737570706c79");
    assert_eq!(
        stored.expect("the audited supply")["value"],
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &supply)
    );

    // Owner, five holders and the supply; the count is kept in state, not scanned.
    let count = client.actor_storage_count(&ledger).await.unwrap().expect("an actor");
    assert_eq!((count.address, count.count), (ledger, 7));
    assert_eq!(keys.len(), 7);
    let (status, body) = get_raw(&node.url, &format!("/actors/{}/storage/count", Address([0x77; 20]))).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(5000)), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timer_fires_at_its_height_or_is_dropped_unpaid_and_shows_in_the_runs() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let key = dev_key(2);
    let deploy = example("alarm", &["storage.kv", "timer.schedule"], b"");
    let alarm = deploy.actor_address(&key.address());
    let deployed = receipt(&client, &actor_tx(&key, 0, None, deploy.encode())).await;
    assert_eq!(deployed.status, ReceiptStatus::Success, "{deployed:?}");
    // The alarm pays for its timer: fund it with a value deposit (empty payload).
    let mut deposit = actor_tx(&key, 1, Some(alarm), Vec::new());
    deposit.value = 10_000_000_000;
    let deposited = receipt(&client, &deposit.sign(&key)).await;
    assert_eq!(deposited.status, ReceiptStatus::Success, "{deposited:?}");
    // A second alarm holds nothing, so its timer cannot be paid when it is due.
    let unfunded_deploy = example("alarm", &["storage.kv", "timer.schedule"], b"unfunded");
    let unfunded = unfunded_deploy.actor_address(&key.address());
    assert_eq!(
        receipt(&client, &actor_tx(&key, 2, None, unfunded_deploy.encode())).await.status,
        ReceiptStatus::Success
    );

    let target = client.height().await.unwrap() + 30;
    let arm = Message { handler: "arm".to_owned(), payload: target.to_le_bytes().to_vec() }.encode();
    for (nonce, actor) in [(3, alarm), (4, unfunded)] {
        let armed = receipt(&client, &actor_tx(&key, nonce, Some(actor), arm.clone())).await;
        assert_eq!(armed.status, ReceiptStatus::Success, "{armed:?}");
    }
    let (status, page) = get_raw(&node.url, &format!("/actor/{alarm}/timers")).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total_count"], 1, "{page}");
    let timers = &page["items"];
    assert_eq!(timers.as_array().unwrap().len(), 1, "{page}");
    assert_eq!(timers[0]["height"], target);
    assert_eq!(timers[0]["handler"], "ring");
    let timer_id = timers[0]["id"].as_u64().expect("a timer id");
    let (_, skipped) = get_raw(&node.url, &format!("/actor/{alarm}/timers?offset=1")).await;
    assert_eq!(skipped["items"], serde_json::json!([]), "{skipped}");
    let (_, unpaid_timers) = get_raw(&node.url, &format!("/actor/{unfunded}/timers")).await;
    let unpaid_id = unpaid_timers["items"][0]["id"].as_u64().expect("a timer id");
    let (_, runs) = get_raw(&node.url, &format!("/actor/{alarm}/runs")).await;
    assert_eq!(runs, serde_json::json!({"items": [], "next_cursor": null, "limit": 50}), "nothing ran yet");

    node.wait_height(target + 1).await;
    let (_, timers) = get_raw(&node.url, &format!("/actor/{alarm}/timers")).await;
    let none = serde_json::json!({"items": [], "total_count": 0, "offset": 0, "limit": 50});
    assert_eq!(timers, none, "the timer fired and left the listing");
    let rang = read(&client, alarm, "rang_at").await;
    assert_eq!(rang.result, target.to_le_bytes(), "it fired at its height");
    let (status, mailbox) = get_raw(&node.url, &format!("/actors/{alarm}/mailbox")).await;
    assert_eq!((status, mailbox), (200, serde_json::json!({"items": [], "next_cursor": null, "limit": 50})));

    // The fire is in the alarm's runs: no transaction, so no receipt shows it.
    let (status, runs) = get_raw(&node.url, &format!("/actor/{alarm}/runs")).await;
    assert_eq!(status, 200, "{runs}");
    assert_eq!(runs["items"].as_array().unwrap().len(), 1, "{runs}");
    assert!(runs["next_cursor"].is_null(), "{runs}");
    let fired = &runs["items"][0];
    assert_eq!(fired["kind"], "timer", "{fired}");
    assert_eq!(fired["timer_id"], timer_id);
    assert!(fired["message_seq"].is_null() && fired["from"].is_null(), "{fired}");
    assert_eq!(fired["block_height"], target);
    assert_eq!(fired["handler"], "ring");
    assert_eq!(fired["status"], "success");
    assert!(fired["error"].is_null() && fired["revert_reason"].is_null(), "{fired}");
    assert!(fired["cycles_used"].as_u64().unwrap() > 0, "{fired}");
    assert!(fired["fee"].as_u64().unwrap() > 0, "{fired}");
    assert_eq!(fired["fee"], fired["fee_burned"], "deferred work is burned in full: {fired}");
    // `ring` emits nothing, so every event in the alarm's log (its deploy, the deposit's
    // transfer) came from a transaction.
    assert_eq!(fired["event_count"], 0);
    let (_, logs) = get_raw(&node.url, &format!("/actor/{alarm}/logs")).await;
    let events = logs["items"].as_array().unwrap();
    assert_eq!(events[0]["topic"], "deploy", "{logs}");
    assert_eq!(events[0]["tx_hash"], deployed.tx_hash.to_string());
    for event in events {
        assert_eq!(event["origin"], "transaction", "{event}");
        assert!(event["tx_hash"].is_string() && event["timer_id"].is_null(), "{event}");
    }

    // The unfunded alarm's timer was dropped, with why, and never rang.
    let (status, runs) = get_raw(&node.url, &format!("/actor/{unfunded}/runs")).await;
    assert_eq!(status, 200, "{runs}");
    assert_eq!(runs["items"].as_array().unwrap().len(), 1, "{runs}");
    let dropped = &runs["items"][0];
    assert_eq!((&dropped["kind"], &dropped["timer_id"]), (&serde_json::json!("timer"), &serde_json::json!(unpaid_id)));
    assert_eq!(dropped["block_height"], target);
    assert_eq!(dropped["status"], "failed");
    assert_eq!(dropped["error"]["code"], "E1503", "{dropped}");
    assert!(dropped["error"]["message"].as_str().unwrap().contains("dropped"), "{dropped}");
    assert_eq!((dropped["cycles_used"].as_u64(), dropped["fee"].as_u64()), (Some(0), Some(0)));
    let (_, timers) = get_raw(&node.url, &format!("/actor/{unfunded}/timers")).await;
    assert_eq!(timers, none, "a dropped timer is gone");
    assert_eq!(read(&client, unfunded, "rang_at").await.result, 0u64.to_le_bytes());

    let (status, body) = get_raw(&node.url, &format!("/actor/{}/runs", key.address())).await;
    assert_error(status, &body, 404, 5000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_actors_events_are_in_its_receipts_and_its_log() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let key = dev_key(3);
    let deploy = example("echo", &["events.emit"], b"");
    let echo = deploy.actor_address(&key.address());
    assert_eq!(receipt(&client, &actor_tx(&key, 0, None, deploy.encode())).await.status, ReceiptStatus::Success);
    let mut hashes = Vec::new();
    for (nonce, word) in [(1u64, "first"), (2, "second"), (3, "third")] {
        let message = Message { handler: "echo".to_owned(), payload: word.as_bytes().to_vec() }.encode();
        let tx = actor_tx(&key, nonce, Some(echo), message);
        let echoed = receipt(&client, &tx).await;
        assert_eq!(echoed.status, ReceiptStatus::Success, "{echoed:?}");
        assert_eq!(echoed.events.len(), 1, "{echoed:?}");
        assert_eq!(echoed.events[0].topic, "echo");
        hashes.push(tx.hash());
    }

    // The log, a page at a time, in chain order.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(cursor) => format!("/actor/{echo}/logs?limit=2&cursor={cursor}"),
            None => format!("/actor/{echo}/logs?limit=2"),
        };
        let (status, page) = get_raw(&node.url, &path).await;
        assert_eq!(status, 200, "{page}");
        for item in page["items"].as_array().unwrap() {
            // The deploy's own event opens the log.
            if item["topic"] == "deploy" && seen.is_empty() {
                continue;
            }
            assert_eq!(item["topic"], "echo", "{item}");
            let data =
                base64::Engine::decode(&base64::engine::general_purpose::STANDARD, item["data"].as_str().unwrap())
                    .unwrap();
            seen.push((String::from_utf8(data).unwrap(), item["tx_hash"].as_str().unwrap().to_owned()));
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let expected: Vec<_> = ["first", "second", "third"]
        .iter()
        .zip(&hashes)
        .map(|(word, hash)| ((*word).to_owned(), hash.to_string()))
        .collect();
    assert_eq!(seen, expected);
    let (status, body) = get_raw(&node.url, &format!("/actor/{}/logs", key.address())).await;
    assert_error(status, &body, 404, 5000);
}

/// Deploys and funds two pingers (salts `a` and `b`) with `key`, and has the first ping the
/// second; returns their addresses once the `start` transaction is included.
async fn start_ping_pong(client: &Client, key: &SecretKey) -> [Address; 2] {
    let mut nonce = 0;
    let mut pingers = Vec::new();
    for salt in [b"a", b"b"] {
        let deploy = example("pinger", &["storage.kv", "mailbox.send"], salt);
        let address = deploy.actor_address(&key.address());
        assert_eq!(receipt(client, &actor_tx(key, nonce, None, deploy.encode())).await.status, ReceiptStatus::Success);
        // Each pinger prepays its messages' budgets: fund it.
        let mut deposit = actor_tx(key, nonce + 1, Some(address), Vec::new());
        deposit.value = 100_000_000_000;
        assert_eq!(receipt(client, &deposit.sign(key)).await.status, ReceiptStatus::Success);
        nonce += 2;
        pingers.push(address);
    }
    let start = Message { handler: "start".to_owned(), payload: pingers[1].0.to_vec() }.encode();
    let started = receipt(client, &actor_tx(key, nonce, Some(pingers[0]), start)).await;
    assert_eq!(started.status, ReceiptStatus::Success, "{started:?}");
    [pingers[0], pingers[1]]
}

/// A pinger's (pings received, pongs received) in the latest finalized state.
async fn ping_pong_counts(client: &Client, pinger: Address) -> (u64, u64) {
    let answer = read(client, pinger, "counts").await;
    let pings = u64::from_le_bytes(answer.result[0..8].try_into().unwrap());
    let pongs = u64::from_le_bytes(answer.result[8..16].try_into().unwrap());
    (pings, pongs)
}

/// Waits for the game to end, then checks that it ended exactly once each way: three pings
/// answered by three pongs, and nothing left in either mailbox.
async fn assert_ping_pong_finished_exactly_once(node: &TestNode, pingers: [Address; 2]) {
    let client = node.client();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while ping_pong_counts(&client, pingers[0]).await.1 < 3 {
        assert!(std::time::Instant::now() < deadline, "ping-pong did not finish");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    node.wait_height(client.height().await.unwrap() + 5).await;
    assert_eq!(ping_pong_counts(&client, pingers[0]).await, (0, 3));
    assert_eq!(ping_pong_counts(&client, pingers[1]).await, (3, 0));
    for pinger in &pingers {
        let (_, mailbox) = get_raw(&node.url, &format!("/actors/{pinger}/mailbox")).await;
        assert_eq!(mailbox["items"], serde_json::json!([]), "every message was delivered");
    }

    // Each delivery is a run of its recipient, in queue order: three pings to the second
    // pinger, three pongs back to the first. Pages of two follow the cursor.
    for (pinger, sender, handler) in [(pingers[1], pingers[0], "ping"), (pingers[0], pingers[1], "pong")] {
        let mut runs = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let path = match &cursor {
                Some(cursor) => format!("/actor/{pinger}/runs?limit=2&cursor={cursor}"),
                None => format!("/actor/{pinger}/runs?limit=2"),
            };
            let (status, page) = get_raw(&node.url, &path).await;
            assert_eq!(status, 200, "{page}");
            runs.extend(page["items"].as_array().unwrap().iter().cloned());
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        assert_eq!(runs.len(), 3, "{runs:?}");
        for run in &runs {
            assert_eq!(run["kind"], "delivery", "{run}");
            assert_eq!(run["handler"], handler, "{run}");
            assert_eq!(run["from"], sender.to_string(), "{run}");
            assert_eq!(run["status"], "success", "{run}");
            assert!(run["timer_id"].is_null() && run["message_seq"].is_u64(), "{run}");
            // Pinger emits no events.
            assert_eq!(run["event_count"], 0, "{run}");
        }
        let order: Vec<_> = runs.iter().map(|r| (r["block_height"].as_u64(), r["message_seq"].as_u64())).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "chain order: {order:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pingers_play_ping_pong_through_their_mailboxes() {
    let node = TestNode::start(NodeOptions::default()).await;
    // Messages are delivered at the start of later blocks until the first pinger has 3 pongs.
    let pingers = start_ping_pong(&node.client(), &dev_key(4)).await;
    assert_ping_pong_finished_exactly_once(&node, pingers).await;
    let runs = cli(&node, &["actor", &pingers[1].to_hex(), "runs"], true);
    assert_eq!(runs.matches(": ping success,").count(), 3, "{runs}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mailbox_delivery_is_exactly_once_across_a_kill_and_restart() {
    // Slow blocks stretch the game (six deliveries, one per block) over seconds.
    let mut node = TestNode::start(NodeOptions { block_interval_ms: 500, ..NodeOptions::default() }).await;
    let client = node.client();
    let pingers = start_ping_pong(&client, &dev_key(4)).await;

    // Kill the node mid-game: after the first delivery, while messages are still queued.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while ping_pong_counts(&client, pingers[1]).await.0 == 0 {
        assert!(std::time::Instant::now() < deadline, "the first ping was not delivered");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let height = client.height().await.unwrap();
    assert!(ping_pong_counts(&client, pingers[0]).await.1 < 3, "the game is still under way");
    node.kill9();

    // The restarted node replays what it had not persisted and carries on: no message is lost
    // or delivered twice.
    node.spawn();
    node.wait_ready(height).await;
    assert_ping_pong_finished_exactly_once(&node, pingers).await;
}

/// Runs the `drover` CLI against `node`; its stdout, after checking the exit status.
fn cli(node: &TestNode, args: &[&str], succeeds: bool) -> String {
    let out = std::process::Command::new(BIN).args(["--rpc-url", &node.url]).args(args).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.success(), succeeds, "drover {args:?}\n{stdout}{stderr}");
    stdout.into_owned()
}

fn upgrade_tx(key: &SecretKey, nonce: u64, actor: Address, file: &str, entitlements: &[&str]) -> Transaction {
    let upgrade = Upgrade {
        actor,
        code: example(file, &[], b"").code,
        manifest: Manifest::new(entitlements.iter().map(|id| (*id).to_owned()).collect()),
    };
    actor_tx(key, nonce, Some(ACTOR_UPGRADES_ADDRESS), upgrade.message())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_upgrades_an_actor_with_the_cli_and_its_history_records_it() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let (owner, stranger) = (dev_key(5), dev_key(6));
    let keys = tempfile::tempdir().unwrap();
    let key_file = keys.path().join("owner.key");
    drover_client::Wallet::new(owner.clone()).save(&key_file).unwrap();
    let key_file = key_file.to_str().unwrap();
    let actors = format!("{}/../../actors", env!("CARGO_MANIFEST_DIR"));

    // Deploy the counter and count once, through the CLI.
    let counter_wat = format!("{actors}/counter.wat");
    cli(&node, &["deploy", &counter_wat, "--manifest", "storage.kv,events.emit", "--key", key_file], true);
    let counter = example("counter", &["storage.kv", "events.emit"], b"").actor_address(&owner.address());
    cli(&node, &["call", &counter.to_hex(), "increment", "--key", key_file], true);
    assert!(cli(&node, &["actor", &counter.to_hex(), "history"], true).contains("no upgrades"));
    let views = |view: &str| cli(&node, &["actor", &counter.to_hex(), view], true);
    assert!(views("logs").contains("deploy"), "the deploy event opens the log");
    assert!(views("mailbox").contains("no pending messages"));
    assert!(views("timers").contains("no pending timers"));
    assert!(views("runs").contains("no timer fires or deliveries"));
    assert!(views("storage").contains("entries"));
    let missing = Address([0x55; 20]).to_hex();
    assert!(cli(&node, &["--json", "actor", &missing, "logs"], false).is_empty());

    // Only the owner may upgrade, and only to a narrower manifest; refusals change nothing.
    for (tx, code) in [
        (upgrade_tx(&stranger, 0, counter, "echo", &["events.emit"]), "E1303"),
        (upgrade_tx(&owner, 2, counter, "echo", &["events.emit", "actor.call"]), "E1304"),
        (upgrade_tx(&owner, 3, counter, "float_op", &["events.emit"]), "E1101"),
    ] {
        let refused = receipt(&client, &tx).await;
        assert_eq!(refused.status, ReceiptStatus::Failed, "{refused:?}");
        assert_eq!(refused.error.as_ref().map(|e| e.code.as_str()), Some(code), "{refused:?}");
    }
    assert_eq!(client.actor(&counter).await.unwrap().unwrap().upgrades, 0);

    // The owner's upgrade through the CLI replaces code and manifest and keeps the storage.
    let echo_wat = format!("{actors}/echo.wat");
    cli(&node, &["upgrade", &counter.to_hex(), &echo_wat, "--manifest", "events.emit", "--key", key_file], true);
    let echo_code = example("echo", &[], b"").code;
    let summary = client.actor(&counter).await.unwrap().unwrap();
    assert_eq!((summary.code_hash, summary.upgrades), (drover_types::keccak256(&echo_code), 1));
    assert_eq!(summary.manifest.entitlements(), ["events.emit"]);
    assert_eq!(client.actor_code(&counter).await.unwrap().unwrap().code, echo_code);
    let page = client.actor_upgrades(&counter, 0, 50).await.unwrap().unwrap();
    assert_eq!((page.total_count, page.offset, page.limit), (1, 0, 50));
    assert!(client.actor_upgrades(&counter, 1, 50).await.unwrap().unwrap().items.is_empty());
    let history = page.items;
    assert_eq!(history.len(), 1);
    let counter_code = example("counter", &[], b"").code;
    assert_eq!(
        (history[0].old_code_hash, history[0].new_code_hash),
        (drover_types::keccak256(&counter_code), drover_types::keccak256(&echo_code))
    );
    let upgraded = client.receipt(&history[0].tx_hash).await.unwrap().expect("the upgrade's receipt");
    assert_eq!(upgraded.block_height, history[0].height);
    let (_, storage) = get_raw(&node.url, &format!("/actors/{counter}/storage")).await;
    assert_eq!(storage["items"][0]["key"], "0x636f756e74", "the counter's slot stays: {storage}");
    assert!(cli(&node, &["actor", &counter.to_hex(), "history"], true).contains("height"));

    // The new code runs; the old handler is gone.
    let echoed = receipt(
        &client,
        &actor_tx(&owner, 5, Some(counter), Message { handler: "echo".into(), payload: b"hi".to_vec() }.encode()),
    )
    .await;
    assert_eq!(echoed.status, ReceiptStatus::Success, "{echoed:?}");
    let gone = receipt(&client, &actor_tx(&owner, 6, Some(counter), call("increment"))).await;
    assert_eq!(gone.error.as_ref().map(|e| e.code.as_str()), Some("E1205"), "{gone:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_actors_are_stopped_within_their_limits_and_the_node_carries_on() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let key = dev_key(7);
    let mut nonce = 0;
    let mut next_nonce = || {
        nonce += 1;
        nonce - 1
    };

    // Floating point is refused at deploy.
    let floats = receipt(&client, &actor_tx(&key, next_nonce(), None, example("float_op", &[], b"").encode())).await;
    assert_eq!(floats.error.as_ref().map(|e| e.code.as_str()), Some("E1101"), "{floats:?}");

    let mut deployed = std::collections::HashMap::new();
    for (name, manifest) in [
        ("infinite_loop", &[][..]),
        ("memory_bomb", &[][..]),
        ("deep_recursion", &["actor.call"][..]),
        ("oversize_result", &[][..]),
        ("counter", &["storage.kv"][..]),
        ("proxy", &["storage.kv", "actor.call", "econ.transfer"][..]),
        ("readonly_write", &["storage.kv", "actor.call"][..]),
    ] {
        let deploy = example(name, manifest, b"");
        let done = receipt(&client, &actor_tx(&key, next_nonce(), None, deploy.encode())).await;
        assert_eq!(done.status, ReceiptStatus::Success, "{name}: {done:?}");
        deployed.insert(name, deploy.actor_address(&key.address()));
    }

    // Each hostile call fails with its code inside the transaction's limits and still pays.
    let start_height = client.height().await.unwrap();
    for (name, handler, code) in [
        ("infinite_loop", "spin", "E1005"),
        ("memory_bomb", "grow", "E1204"),
        ("memory_bomb", "grow_big", "E1204"),
        ("deep_recursion", "dive", "E1203"),
        ("oversize_result", "big", "E1207"),
    ] {
        let failed = receipt(&client, &actor_tx(&key, next_nonce(), Some(deployed[name]), call(handler))).await;
        assert_eq!(failed.status, ReceiptStatus::Failed, "{name}.{handler}: {failed:?}");
        assert_eq!(failed.error.as_ref().map(|e| e.code.as_str()), Some(code), "{name}.{handler}: {failed:?}");
        assert!(failed.cycles_used <= ACTOR_CYCLES_LIMIT && failed.fee > 0, "{failed:?}");
    }
    let spin = read_raw(&node, deployed["infinite_loop"], "spin", "").await;
    assert_error(spin.0, &spin.1, 400, 5004);
    // Within the limits the same actors work.
    let fits = receipt(&client, &actor_tx(&key, next_nonce(), Some(deployed["oversize_result"]), call("fits"))).await;
    assert_eq!(fits.status, ReceiptStatus::Success, "{fits:?}");

    // A nested call that reverts at the outer level leaves nothing: the proxy's own write and
    // the counter's increment are both undone; without the revert both stay.
    let counter = deployed["counter"];
    let forward = |handler: &str| {
        let payload = [&counter.0[..], &0u128.to_le_bytes(), b"increment"].concat();
        Message { handler: handler.to_owned(), payload }.encode()
    };
    let reverted =
        receipt(&client, &actor_tx(&key, next_nonce(), Some(deployed["proxy"]), forward("forward_then_revert"))).await;
    assert_eq!(reverted.status, ReceiptStatus::Reverted, "{reverted:?}");
    assert_eq!(read(&client, counter, "get").await.result, 0u64.to_le_bytes());
    let (_, proxy_storage) = get_raw(&node.url, &format!("/actors/{}/storage", deployed["proxy"])).await;
    assert_eq!(proxy_storage["items"], serde_json::json!([]), "{proxy_storage}");
    let forwarded = receipt(&client, &actor_tx(&key, next_nonce(), Some(deployed["proxy"]), forward("forward"))).await;
    assert_eq!(forwarded.status, ReceiptStatus::Success, "{forwarded:?}");
    assert_eq!(read(&client, counter, "get").await.result, 1u64.to_le_bytes());

    // A read cannot write, not even through a nested call to itself.
    let relay = read_raw(&node, deployed["readonly_write"], "relay", &deployed["readonly_write"].to_hex()).await;
    assert_error(relay.0, &relay.1, 400, 5003);
    assert_eq!(read(&client, deployed["readonly_write"], "peek").await.result, b"");

    // Metering is deterministic: once the slot exists, every increment costs the same, also
    // after a restart.
    let increment = |nonce| actor_tx(&key, nonce, Some(counter), call("increment"));
    let (n1, n2) = (next_nonce(), next_nonce());
    let costs = |r: &ReceiptInfo| (r.cycles_used, r.cells_used);
    let first = costs(&receipt(&client, &increment(n1)).await);
    assert_eq!(costs(&receipt(&client, &increment(n2)).await), first);
    assert!(client.height().await.unwrap() > start_height, "the chain kept finalizing");
    node.stop();
    node.spawn();
    node.wait_ready(0).await;
    let client = node.client();
    assert_eq!(costs(&receipt(&client, &increment(next_nonce())).await), first, "the same cost after a restart");
    assert_eq!(read(&client, counter, "get").await.result, 4u64.to_le_bytes());
}

/// `POST /actor/read` of `handler` with `payload_hex`: the status and body as they come.
async fn read_raw(node: &TestNode, actor: Address, handler: &str, payload_hex: &str) -> (u16, serde_json::Value) {
    let body = serde_json::json!({"actor": actor, "handler": handler, "payload": base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        hex::decode(payload_hex.trim_start_matches("0x")).unwrap(),
    )});
    let (status, _, body) = post_raw(&node.url, "/actor/read", "application/json", body.to_string().into_bytes()).await;
    (status, body)
}
