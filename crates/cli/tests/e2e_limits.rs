//! End-to-end: rate limits, faucet rules and mempool capacity at the spec's codes.

mod common;

use common::*;
use drover_types::{Address, SecretKey};

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
    let (status, _, body) =
        post_raw(&node.url, "/faucet", "application/json", br#"{"address":"0x12"}"#.to_vec()).await;
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
