//! End-to-end: rate limits (and each client's share of the global one), faucet rules, mempool
//! capacity and the HTTP server's limits at the spec's codes.

mod common;

use common::*;
use drover_client::{TxBuilder, Wallet};
use drover_types::{
    Address, H256, SecretKey,
    api::SignedFlowRequest,
    runner::{Capabilities, MIN_RUNNER_STAKE, RateCard, RegistryCall},
};
use std::{
    net::IpAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_finishes_its_head_is_answered_408_and_cut_off() {
    let node = TestNode::start(NodeOptions::default()).await;
    let address = node.url.trim_start_matches("http://");
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    slow.write_all(b"GET /height HTTP/1.1\r\nhost: node\r\nx-never-ends: ").await.unwrap();
    // The node gives up on the head after its header-read timeout (10 s); the guard is only
    // there so that a node that never does fails the test instead of hanging it.
    let mut answer = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(120), slow.read_to_end(&mut answer))
        .await
        .expect("the node closes the connection")
        .expect("the connection ends cleanly");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    let body: serde_json::Value = serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["code"], 1003, "{body}");
    assert_eq!(body["error"], "timeout", "{body}");
    // Everyone else is still served.
    node.client().height().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faucet_allows_five_per_minute_then_429() {
    let node = TestNode::start(NodeOptions::default()).await;
    for i in 0..5u8 {
        let (status, _, body) = post_raw(
            &node.url,
            "/faucet",
            "application/json",
            serde_json::to_vec(&serde_json::json!({"address": Address([i + 1; 20])})).unwrap(),
        )
        .await;
        assert_eq!(status, 200, "request {i}: {body}");
        assert!(body["tx_hash"].is_string());
    }
    let (status, headers, body) = post_raw(
        &node.url,
        "/faucet",
        "application/json",
        serde_json::to_vec(&serde_json::json!({"address": Address([9; 20])})).unwrap(),
    )
    .await;
    assert_error(status, &body, 429, 1004);
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    // A bad address is refused before the limiter counts it.
    let (status, _, body) = post_raw(&node.url, "/faucet", "application/json", br#"{"address":"0x12"}"#.to_vec()).await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faucet_disabled_is_absent_and_other_chains_are_forbidden() {
    let disabled = TestNode::start(NodeOptions { dev_accounts: false, ..NodeOptions::default() }).await;
    let body = serde_json::to_vec(&serde_json::json!({"address": Address([1; 20])})).unwrap();
    let (status, _, json) = post_raw(&disabled.url, "/faucet", "application/json", body.clone()).await;
    assert_error(status, &json, 404, 8000);
    drop(disabled);

    let other_chain = TestNode::start(NodeOptions { chain_id: 7, ..NodeOptions::default() }).await;
    let (status, _, json) = post_raw(&other_chain.url, "/faucet", "application/json", body).await;
    assert_error(status, &json, 403, 8001);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn global_rate_limit_answers_429_with_retry_after() {
    let node = TestNode::start(NodeOptions { rate_limit_per_sec: 20, ..NodeOptions::default() }).await;
    let client = reqwest::Client::new();
    let mut limited = None;
    for _ in 0..200 {
        let response = client.get(format!("{}/height", node.url)).send().await.unwrap();
        if response.status().as_u16() == 429 {
            let retry = response.headers()["retry-after"].to_str().unwrap().to_string();
            let body: serde_json::Value = response.json().await.unwrap();
            limited = Some((retry, body));
            break;
        }
    }
    let (retry, body) = limited.expect("200 requests at once must exceed 20/s");
    assert_eq!(body["code"], 1004);
    assert!(retry.parse::<u64>().unwrap() >= 1);
}

/// An HTTP client whose connections leave from `local`, a loopback address.
fn client_from(local: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder().local_address(IpAddr::from(local)).build().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_client_does_not_crowd_out_another_client_or_a_runners_heartbeat() {
    // The spec's default limit: 100 requests per second, all clients together.
    let node = TestNode::start(NodeOptions { rate_limit_per_sec: 100, ..NodeOptions::default() }).await;
    let runner = Wallet::new(dev_key(0));
    let register = RegistryCall::Register {
        rate_card: RateCard { price_per_job: 1_000 },
        capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 1 },
    };
    let client = node.client();
    let builder = TxBuilder::registry(&register, MIN_RUNNER_STAKE);
    let tx = builder.sign(&builder.fetch_context(&client, runner.address()).await.unwrap(), &runner).unwrap();
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert!(answer.results[0].block_height.is_some(), "{answer:?}");

    // 127.0.0.1 floods `/height` on four connections.
    let flooding = Arc::new(AtomicBool::new(true));
    let (served, refused) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let flooders: Vec<_> = (0..4)
        .map(|_| {
            let (flooding, served, refused) = (flooding.clone(), served.clone(), refused.clone());
            let (http, url) = (client_from([127, 0, 0, 1]), format!("{}/height", node.url));
            tokio::spawn(async move {
                while flooding.load(Ordering::Relaxed) {
                    match http.get(&url).send().await.unwrap().status().as_u16() {
                        200 => served.fetch_add(1, Ordering::Relaxed),
                        429 => refused.fetch_add(1, Ordering::Relaxed),
                        other => panic!("the flooder got {other}"),
                    };
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;

    // 127.0.0.2 asks five times a second and is always served.
    let other = client_from([127, 0, 0, 2]);
    for _ in 0..25 {
        let status = other.get(format!("{}/height", node.url)).send().await.unwrap().status();
        assert_eq!(status, 200);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The runner, from 127.0.0.3, gets its heartbeat through the signed flow.
    let http = client_from([127, 0, 0, 3]);
    let base = format!("{}/runner/{}", node.url, runner.address().to_hex());
    let response = http.get(format!("{base}/heartbeat_payload")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let payload: drover_types::api::SignedFlowPayload = response.json().await.unwrap();
    let message = H256(payload.message_to_sign_base64.clone().try_into().expect("32 bytes"));
    let request = SignedFlowRequest {
        unsigned_transaction_base64: payload.unsigned_transaction_base64,
        signature: format!("0x{}", hex::encode(runner.secret_key().sign_prehash(&message).to_rsv())),
    };
    let response = http.post(format!("{base}/heartbeat")).json(&request).send().await.unwrap();
    let status = response.status();
    assert_eq!(status, 200, "{}", response.text().await.unwrap());

    flooding.store(false, Ordering::Relaxed);
    for flooder in flooders {
        flooder.await.unwrap();
    }
    let (served, refused) = (served.load(Ordering::Relaxed), refused.load(Ordering::Relaxed));
    assert!(served > 0 && refused > 0, "the flooder was served {served} times and refused {refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_sender_queue_is_429_admission_busy() {
    let node = TestNode::start(NodeOptions {
        extra_config: "mempool:\n  max_per_sender: 3\n".into(),
        ..NodeOptions::default()
    })
    .await;
    let key = dev_key(2);
    let client = node.client();
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
    let to = SecretKey::random().address();
    // Future nonces stay pending, so the sender's queue fills.
    for i in 0..3 {
        let (status, body) = submit_raw(&node.url, &[transfer(&key, 100, nonce + 10 + i, to, 1)]).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = submit_raw(&node.url, &[transfer(&key, 100, nonce + 13, to, 1)]).await;
    assert_error(status, &body, 429, 2016);
}

/// The spec's threshold, in pending transactions.
const DEGRADED_AT_PENDING: usize = 30_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_is_degraded_from_30000_pending_transactions() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();

    // 30 funded senders; each then queues nonces 1..=1000 behind a missing nonce 0, so every
    // one of those transactions stays pending.
    let senders: Vec<SecretKey> = (0..30).map(|_| SecretKey::random()).collect();
    let funding: Vec<_> = senders
        .iter()
        .enumerate()
        .map(|(i, s)| transfer(&dev_key(0), 100, i as u64, s.address(), 100_000_000_000))
        .collect();
    let answer = client.submit_wait(&funding, 10_000).await.unwrap();
    assert!(answer.results.iter().all(|r| r.block_height.is_some()), "{answer:?}");

    let queued: Vec<_> = senders
        .iter()
        .flat_map(|s| (1..=1_000).map(move |nonce| transfer(s, 100, nonce, Address([0x99; 20]), 1)))
        .collect();
    assert_eq!(queued.len(), DEGRADED_AT_PENDING);
    let (below, last) = queued.split_at(DEGRADED_AT_PENDING - 1);
    for batch in below.chunks(50) {
        let response = client.submit(batch).await.unwrap();
        assert_eq!(response.accepted as usize, batch.len(), "{response:?}");
    }
    let health = client.health_detailed().await.unwrap();
    assert_eq!(health.mempool_transaction_count, DEGRADED_AT_PENDING as u64 - 1);
    assert_eq!(serde_json::to_value(&health).unwrap()["status"], "ok");

    client.submit(last).await.unwrap();
    let health = serde_json::to_value(client.health_detailed().await.unwrap()).unwrap();
    assert_eq!(health["mempool_transaction_count"], DEGRADED_AT_PENDING);
    assert_eq!(health["status"], "degraded");
    assert_eq!(health["components"]["mempool"], "degraded");
    assert_eq!(health["synced"], true);

    // Filling one sender's gap lets its 1,001 transactions through: healthy again.
    client.submit(&[transfer(&senders[0], 100, 0, Address([0x99; 20]), 1)]).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let health = serde_json::to_value(client.health_detailed().await.unwrap()).unwrap();
        if health["status"] == "ok" {
            assert!(health["mempool_transaction_count"].as_u64().unwrap() < DEGRADED_AT_PENDING as u64);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still degraded: {health}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
