//! End-to-end: graceful restart, kill -9 under load, height.dat, and the `drover dev` command.

mod common;

use common::*;
use drover_types::{SecretKey, api::WaitStatus};
use std::{
    process::{Command, Stdio},
    time::{Duration, Instant},
};

const CHAIN: u64 = 100;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_restart_resumes_with_the_same_state() {
    let mut node = TestNode::start(NodeOptions { persist_height: true, ..NodeOptions::default() }).await;
    let client = node.client();
    let key = dev_key(3);
    let to = SecretKey::random().address();
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
    let txs: Vec<_> = (0..10).map(|i| transfer(&key, CHAIN, nonce + i, to, 1_000 + i as u128)).collect();
    let waited = client.submit_wait(&txs, 10_000).await.unwrap();
    assert!(waited.results.iter().all(|r| r.status == WaitStatus::Success), "{waited:?}");
    let height = client.height().await.unwrap();
    let block = client.block(drover_client::BlockSelector::Height(height)).await.unwrap().unwrap();
    let balance = client.account(&to).await.unwrap().unwrap();

    let status = node.stop();
    assert!(status.success(), "graceful stop exits 0: {status}; log:\n{}", node.log());
    let hint: u64 =
        std::fs::read_to_string(node.dir.path().join("validator-0/height.dat")).unwrap().trim().parse().unwrap();
    assert!(hint >= height);

    node.spawn();
    node.wait_ready(height).await;
    let client = node.client();
    let same = client.block(drover_client::BlockSelector::Height(height)).await.unwrap().unwrap();
    assert_eq!(same.hash, block.hash);
    assert_eq!(same.state_root, block.state_root);
    assert_eq!(client.account(&to).await.unwrap().unwrap(), balance);
    for tx in &txs {
        assert!(client.receipt(&tx.hash()).await.unwrap().is_some());
    }
    // The chain keeps finalizing after the restart.
    node.wait_height(height + 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_under_load_loses_no_finalized_transaction() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let senders: Vec<SecretKey> = (0..4).map(dev_key).collect();
    let to = SecretKey::random().address();
    let mut nonces = Vec::new();
    for key in &senders {
        nonces.push(client.account(&key.address()).await.unwrap().unwrap().nonce);
    }
    // Submit batches until some are finalized, then kill -9 while more are in flight.
    let mut submitted = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut finalized = Vec::new();
    for round in 0..40u64 {
        let mut batch = Vec::new();
        for (i, key) in senders.iter().enumerate() {
            batch.push(transfer(key, CHAIN, nonces[i] + round, to, 1));
        }
        let (status, body) = submit_raw(&node.url, &batch).await;
        assert_eq!(status, 200, "{body}");
        submitted.extend(batch.iter().map(|t| t.hash()));
        finalized.clear();
        for hash in &submitted {
            if client.receipt(hash).await.unwrap().is_some() {
                finalized.push(*hash);
            }
        }
        if finalized.len() >= 40 {
            break;
        }
        assert!(Instant::now() < deadline, "nothing finalized under load");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!finalized.is_empty());
    let height = client.height().await.unwrap();
    let block = client.block(drover_client::BlockSelector::Height(height)).await.unwrap().unwrap();
    node.kill9();

    node.spawn();
    node.wait_ready(height).await;
    let client = node.client();
    for hash in &finalized {
        assert!(client.receipt(hash).await.unwrap().is_some(), "finalized {hash} lost after kill -9");
    }
    let same = client.block(drover_client::BlockSelector::Height(height)).await.unwrap().unwrap();
    assert_eq!(same.state_root, block.state_root);
    // Nonces still add up: each sender's nonce counts exactly its included transfers.
    node.wait_height(height + 2).await;
    let balance = client.account(&to).await.unwrap().map_or(0, |a| a.balance);
    let mut included = 0u128;
    for (i, key) in senders.iter().enumerate() {
        included += (client.account(&key.address()).await.unwrap().unwrap().nonce - nonces[i]) as u128;
    }
    assert_eq!(balance, included, "every included transfer moved exactly 1 unit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn height_file_is_absent_unless_enabled() {
    let node = TestNode::start(NodeOptions::default()).await;
    node.wait_height(2).await;
    assert!(!node.dir.path().join("validator-0/height.dat").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dev_command_creates_resumes_and_resets() {
    let dir = tempfile::tempdir().unwrap();
    let devnet = dir.path().join("devnet");
    let run = |extra: &[&str]| {
        let rpc = free_port_block(2);
        let p2p = rpc + 1;
        let log = std::fs::File::create(dir.path().join(format!("dev-{rpc}.log"))).unwrap();
        let child = Command::new(BIN)
            .arg("dev")
            .arg("--dir")
            .arg(&devnet)
            .args(["--rpc-port", &rpc.to_string(), "--p2p-port", &p2p.to_string()])
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        (child, format!("http://127.0.0.1:{rpc}"), dir.path().join(format!("dev-{rpc}.log")))
    };
    async fn wait_height(url: &str, height: u64, log: &std::path::Path) -> u64 {
        let client = drover_client::Client::new(url).unwrap();
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            if let Ok(h) = client.height().await
                && h >= height
            {
                return h;
            }
            assert!(
                Instant::now() < deadline,
                "devnet did not reach height {height}; log:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    fn stop(mut child: std::process::Child) {
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
        assert!(child.wait().unwrap().success());
    }

    let (child, url, log) = run(&[]);
    let reached = wait_height(&url, 3, &log).await;
    let chain = drover_client::Client::new(&url).unwrap().chain_info().await.unwrap();
    assert_eq!(chain.chain_id, 100);
    let (status, _) = get_raw(&url, "/swagger-ui/").await;
    assert_eq!(status, 200, "dev mode serves the Swagger UI");
    stop(child);
    let printed = std::fs::read_to_string(&log).unwrap();
    assert!(printed.contains(&SecretKey::dev(0).to_hex()), "dev keys printed: {printed}");
    assert!(printed.contains("/swagger-ui"));

    // A second run resumes the same chain.
    let (child, url, log) = run(&[]);
    let resumed = wait_height(&url, reached, &log).await;
    assert!(resumed >= reached);
    let again = drover_client::Client::new(&url).unwrap().chain_info().await.unwrap();
    assert_eq!(again.genesis_hash, chain.genesis_hash);
    stop(child);

    // --reset starts a new chain (fresh keys, so a new genesis).
    let (child, url, log) = run(&["--reset"]);
    wait_height(&url, 1, &log).await;
    let fresh = drover_client::Client::new(&url).unwrap().chain_info().await.unwrap();
    assert_ne!(fresh.genesis_hash, chain.genesis_hash);
    stop(child);
}
