//! End-to-end: every issue-2 endpoint and the error codes reachable through them, against a
//! real node over HTTP.

mod common;

use common::*;
use drover_types::{
    Address, SecretKey, Transaction,
    api::{ReceiptStatus, SubmitStatus, WaitStatus},
    submission::encode_submission,
};

const CHAIN: u64 = 100;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endpoints_answer_their_records() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let url = node.url.clone();

    // Liveness, health, chain info.
    let (status, body) = get_raw(&url, "/health").await;
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));
    for path in ["/health/detailed", "/health/ready"] {
        let (status, body) = get_raw(&url, path).await;
        assert_eq!(status, 200, "{path}");
        for field in [
            "status",
            "version",
            "uptime_seconds",
            "block_height",
            "last_block_timestamp",
            "mempool_transaction_count",
            "mempool_account_count",
            "components",
            "synced",
        ] {
            assert!(body.get(field).is_some(), "{path} lacks {field}: {body}");
        }
        assert_eq!(body["synced"], true);
        assert_eq!(body["components"]["mempool"], "ok");
        assert!(body["last_block_timestamp"].as_u64().unwrap() > 0);
    }
    let info = client.chain_info().await.unwrap();
    assert_eq!(info.chain_id, CHAIN);
    assert_eq!(info.network, "drover-devnet");
    assert!(!info.version.is_empty());

    // Blocks: latest, by height, by hash; genesis hash is block 0's.
    let height = client.height().await.unwrap();
    assert!(height >= 1);
    let (status, latest) = get_raw(&url, "/block/latest").await;
    assert_eq!(status, 200);
    assert!(latest["height"].as_u64().unwrap() >= height);
    let (status, one) = get_raw(&url, "/block/1").await;
    assert_eq!(status, 200);
    assert_eq!(one["height"], 1);
    let hash = one["hash"].as_str().unwrap().to_string();
    let (status, by_hash) = get_raw(&url, &format!("/block/{hash}")).await;
    assert_eq!(status, 200);
    assert_eq!(by_hash, one);
    assert!(one["finalization"].is_string(), "block carries its certificate: {one}");
    let (status, genesis) = get_raw(&url, "/block/0").await;
    assert_eq!(status, 200);
    assert_eq!(genesis["hash"].as_str().unwrap(), info.genesis_hash.to_string());

    // Basefee as numeric strings.
    let (status, fee) = get_raw(&url, "/basefee").await;
    assert_eq!(status, 200);
    for field in ["basefee_cycle", "basefee_cell", "suggested_max_fee_per_cycle", "suggested_max_fee_per_cell"] {
        assert!(fee[field].as_str().unwrap().parse::<u128>().is_ok(), "{field}: {fee}");
    }

    // Accounts.
    let alice = dev_key(0);
    let account = client.account(&alice.address()).await.unwrap().unwrap();
    assert_eq!(account.address, alice.address());
    assert!(account.balance > 0);

    // A transfer through submit_wait, then its transaction and receipt records.
    let bob = SecretKey::random().address();
    let tx = transfer(&alice, CHAIN, account.nonce, bob, 12_345);
    let waited = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    let result = &waited.results[0];
    assert_eq!(result.status, WaitStatus::Success, "{waited:?}");
    assert_eq!(result.cycles_used, Some(21_000));
    assert_eq!(result.cells_used, Some(0));
    assert!(result.block_height.unwrap() >= 1);
    let fee_paid = result.fee.unwrap();
    assert!(fee_paid > 0);
    let receipt = client.receipt(&tx.hash()).await.unwrap().unwrap();
    assert_eq!(receipt.status, ReceiptStatus::Success);
    assert_eq!(receipt.from, alice.address());
    assert_eq!(receipt.to, Some(bob));
    assert_eq!(receipt.fee, receipt.fee_burned + receipt.fee_tip);
    assert_eq!(receipt.events.len(), 1);
    assert_eq!(receipt.events[0].topic, "transfer");
    let included = client.transaction(&tx.hash()).await.unwrap().unwrap();
    assert_eq!(included.from, alice.address());
    assert_eq!(included.block_height, Some(receipt.block_height));
    assert_eq!(client.account(&bob).await.unwrap().unwrap().balance, 12_345);
    let after = client.account(&alice.address()).await.unwrap().unwrap();
    assert_eq!(after.nonce, account.nonce + 1);
    assert_eq!(after.balance, account.balance - 12_345 - fee_paid);
    let (_, block) = get_raw(&url, &format!("/block/{}", receipt.block_height)).await;
    assert!(block["transactions"].as_array().unwrap().iter().any(|h| h == &tx.hash().to_string()));

    // A pending transaction (nonce gap) has no receipt; both transaction routes show it pending.
    let pending = transfer(&alice, CHAIN, after.nonce + 3, bob, 1);
    let (status, body) = submit_raw(&url, std::slice::from_ref(&pending)).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = get_raw(&url, &format!("/mempool/transaction/{}", pending.hash())).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hash"], pending.hash().to_string());
    let (status, body) = get_raw(&url, &format!("/transaction/{}/receipt", pending.hash())).await;
    assert_error(status, &body, 404, 1002);
    let (status, body) = get_raw(&url, &format!("/transaction/{}", pending.hash())).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("pending")), "{body}");
    assert!(body["block_height"].is_null());

    // Replacing it with a higher tip drops the first; its lookups say why.
    let replacement = Transaction { tip_per_cycle: 2, signature: None, ..pending.clone() }.sign(&alice);
    let (status, body) = submit_raw(&url, std::slice::from_ref(&replacement)).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = get_raw(&url, &format!("/mempool/transaction/{}", pending.hash())).await;
    assert_error(status, &body, 404, 1002);
    assert!(body["message"].as_str().unwrap().contains("replaced by transaction"), "{body}");

    // Metrics in Prometheus text.
    let metrics = client.metrics().await.unwrap();
    assert!(metrics.contains("chain_height"), "{metrics}");
    assert!(metrics.contains("drover_rpc_requests_total"), "{metrics}");
    // Client-chosen methods and paths become no labels: they fall into `other` and `unmatched`.
    let http = reqwest::Client::new();
    for i in 0..10 {
        let method = reqwest::Method::from_bytes(format!("GARBAGE{i}").as_bytes()).unwrap();
        for path in [format!("/garbage/{i}"), "/height".to_owned()] {
            let response = http.request(method.clone(), format!("{url}{path}")).send().await.unwrap();
            assert!(response.status().is_client_error(), "{method} {path}: {}", response.status());
        }
    }
    let metrics = client.metrics().await.unwrap();
    assert!(!metrics.contains("GARBAGE") && !metrics.contains("/garbage"), "{metrics}");
    for line in [
        r#"drover_rpc_requests_total{route="unmatched",method="other",status="404"} 10"#,
        r#"drover_rpc_requests_total{route="/height",method="other",status="405"} 10"#,
    ] {
        assert!(metrics.contains(line), "missing {line} in\n{metrics}");
    }

    // Faucet (dev chain 100): funds a fresh address.
    let carol = SecretKey::random().address();
    let funded = client.faucet(&carol).await.unwrap();
    assert_eq!(funded.address, carol);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while client.account(&carol).await.unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "faucet transfer never landed");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(client.account(&carol).await.unwrap().unwrap().balance, funded.amount);

    // Dev mode: Swagger UI and the OpenAPI document.
    let (status, _) = get_raw(&url, "/swagger-ui/").await;
    assert_eq!(status, 200);
    let (status, spec) = get_raw(&url, "/api-docs/openapi.json").await;
    assert_eq!(status, 200);
    for path in ["/submit", "/submit_wait", "/account/{address}", "/block/{selector}", "/faucet", "/health/detailed"] {
        assert!(spec["paths"].get(path).is_some(), "openapi lacks {path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_the_spec_codes() {
    let node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let client = node.client();
    let alice = dev_key(1);
    let nonce = client.account(&alice.address()).await.unwrap().unwrap().nonce;
    let bob = Address([7; 20]);

    // Addresses and unknown things.
    let (status, body) = get_raw(&url, "/account/0x1234").await;
    assert_error(status, &body, 400, 3001);
    let (status, body) = get_raw(&url, &format!("/account/{}", SecretKey::random().address())).await;
    assert_error(status, &body, 404, 3000);
    let (status, body) = get_raw(&url, &format!("/transaction/{}", drover_types::H256([9; 32]))).await;
    assert_error(status, &body, 404, 1002);
    let (status, body) = get_raw(&url, "/no/such/route").await;
    assert_error(status, &body, 404, 1002);
    let (status, body) = get_raw(&url, "/block/99999999").await;
    assert_error(status, &body, 404, 4000);
    let (status, body) = get_raw(&url, "/block/yesterday").await;
    assert_error(status, &body, 400, 4001);

    // Envelope-level refusals.
    let (status, _, body) = post_raw(&url, "/submit", "application/cbor", vec![0xff, 0x00, 0x13]).await;
    assert_error(status, &body, 400, 6001);
    let good = transfer(&alice, CHAIN, nonce, bob, 1);
    let mut non_canonical = encode_submission(std::slice::from_ref(&good));
    // chain id 100 is `18 64`; the same value in a two-byte argument is not canonical.
    let tx_bytes = good.encode();
    let at = non_canonical.windows(tx_bytes.len()).position(|w| w == tx_bytes.as_slice()).unwrap();
    assert_eq!(&non_canonical[at + 1..at + 3], &[0x18, 0x64]);
    non_canonical.splice(at + 1..at + 3, [0x19, 0x00, 0x64]);
    let (status, _, body) = post_raw(&url, "/submit", "application/cbor", non_canonical).await;
    assert_error(status, &body, 400, 6002);
    let (status, body) = submit_raw(&url, &[]).await;
    assert_error(status, &body, 400, 2014);
    let many: Vec<Transaction> = (0..51).map(|i| transfer(&alice, CHAIN, nonce + i, bob, 1)).collect();
    let (status, body) = submit_raw(&url, &many).await;
    assert_error(status, &body, 400, 2014);
    let (status, _, body) = post_raw(&url, "/submit", "application/cbor", vec![0u8; 600 * 1024]).await;
    assert_error(status, &body, 413, 2013);
    let (status, _, body) = post_raw(&url, "/faucet", "application/json", vec![b' '; 1_100_000]).await;
    assert_error(status, &body, 413, 6000);
    for timeout in ["50", "20000", "abc"] {
        let (status, _, body) = post_raw(
            &url,
            &format!("/submit_wait?timeout_ms={timeout}"),
            "application/cbor",
            encode_submission(std::slice::from_ref(&good)),
        )
        .await;
        assert_error(status, &body, 400, 2015);
    }

    // Per-transaction refusals.
    let mut bad_sig = good.clone();
    if let Some(sig) = bad_sig.signature.as_mut() {
        sig.s = [0xff; 32];
    }
    let (status, body) = submit_raw(&url, &[bad_sig]).await;
    assert_error(status, &body, 400, 2001);
    let (status, body) = submit_raw(&url, &[transfer(&alice, 1, nonce, bob, 1)]).await;
    assert_error(status, &body, 400, 2002);
    let (status, body) = submit_raw(&url, &[transfer(&alice, CHAIN, nonce + 5_000, bob, 1)]).await;
    assert_error(status, &body, 400, 2004);
    let cheap = Transaction { max_fee_per_cycle: 0, tip_per_cycle: 0, signature: None, ..good.clone() }.sign(&alice);
    let (status, body) = submit_raw(&url, &[cheap]).await;
    assert_error(status, &body, 400, 2011);

    // Deploys and payloads need actors, which this network does not run yet.
    let deploy = Transaction { to: None, payload: vec![1, 2, 3], signature: None, ..good.clone() }.sign(&alice);
    let (status, body) = submit_raw(&url, &[deploy]).await;
    assert_error(status, &body, 400, 2012);

    // A signature made over another transaction recovers someone else: the original sender's
    // account is never touched.
    let other = transfer(&alice, CHAIN, nonce, Address([8; 20]), 999);
    let forged = Transaction { signature: other.signature, ..good.clone() };
    let recovered = forged.recover_sender().unwrap();
    assert_ne!(recovered, alice.address());
    let (status, body) = submit_raw(&url, &[forged]).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["results"][0]["status"], "rejected");

    // Mixed batch: one accepted, one refused; HTTP 200 with per-item results.
    let (status, body) = submit_raw(&url, &[good.clone(), transfer(&alice, 1, nonce + 1, bob, 1)]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["results"][0]["status"], "accepted");
    assert_eq!(body["results"][1]["status"], "rejected");
    assert_eq!(body["results"][1]["code"], 2002);
    assert_eq!(body["accepted"], 1);

    // Once included, the same nonce is too low.
    let waited = client.submit_wait(&[transfer(&alice, CHAIN, nonce + 1, bob, 2)], 10_000).await.unwrap();
    assert_eq!(waited.results[0].status, WaitStatus::Success, "{waited:?}");
    let (status, body) = submit_raw(&url, &[transfer(&alice, CHAIN, nonce, bob, 3)]).await;
    assert_error(status, &body, 400, 2003);
    assert_eq!(body["results"][0]["status"], serde_json::to_value(SubmitStatus::Rejected).unwrap());
}
