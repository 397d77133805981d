//! End-to-end: four validators as separate processes on 127.0.0.1 — gossip, agreement, a
//! validator killed under load and restarted, loss of quorum and its return, fast-sync of a
//! wiped validator (also through a peer that tampers with batches), backup/restore, and a
//! validator with state far behind that fast-syncs (one close behind replays).

mod common;

use common::*;
use drover_client::{BlockSelector, Client};
use drover_types::{Address, H256, api::WaitStatus};
use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// Time allowed for a chain to reach a height in these tests.
const PROGRESS_TIMEOUT: Duration = Duration::from_secs(90);

async fn height(url: &str) -> u64 {
    Client::new(url).unwrap().height().await.unwrap_or(0)
}

async fn wait_for(url: &str, target: u64) {
    wait_until(url, target, String::new).await;
}

/// Waits until `url` passes `target`; on timeout, fails with `detail` after the height.
async fn wait_until(url: &str, target: u64, detail: impl Fn() -> String) {
    let deadline = Instant::now() + PROGRESS_TIMEOUT;
    while height(url).await < target {
        assert!(Instant::now() < deadline, "{url} stuck below height {target}{}", detail());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Lines of a stuck validator's log shown when a wait fails.
const LOG_TAIL_LINES: usize = 80;

/// [`wait_for`] a validator of the test; if it stays stuck, the failure shows the end of its log.
async fn wait_node(node: &TestNode, target: u64) {
    wait_until(&node.url, target, || {
        let log = node.log();
        let tail: Vec<&str> = log.lines().rev().take(LOG_TAIL_LINES).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!("; end of its log:\n{}", tail.join("\n"))
    })
    .await;
}

/// Hash and state root of the block at `at` on `url`.
async fn block_at(url: &str, at: u64) -> (H256, H256) {
    let block = Client::new(url).unwrap().block(BlockSelector::Height(at)).await.unwrap().unwrap();
    (block.hash, block.state_root)
}

/// Every node is past `at` and holds the same block (hash and state root) there.
async fn assert_agree(nodes: &[&TestNode], at: u64) {
    for node in nodes {
        wait_node(node, at).await;
    }
    let first = block_at(&nodes[0].url, at).await;
    for node in &nodes[1..] {
        assert_eq!(block_at(&node.url, at).await, first, "validator {} differs at {at}", node.index);
    }
}

/// Submits transfers from one dev account to `url`, one every few milliseconds, until stopped.
fn load(url: String, key_index: u32, stop: Arc<AtomicBool>, sent: Arc<AtomicU64>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let client = Client::new(&url).unwrap();
        let key = dev_key(key_index);
        let mut nonce = 0;
        while !stop.load(Ordering::Relaxed) {
            let tx = transfer(&key, 100, nonce, Address([0x42; 20]), 1);
            if client.submit(&[tx]).await.is_ok() {
                nonce += 1;
                sent.fetch_add(1, Ordering::Relaxed);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_validators_agree_survive_a_crash_and_wait_out_a_lost_quorum() {
    let mut nodes = start_network(4, NodeOptions::default()).await;

    // A transaction sent to one validator is gossiped and included whoever leads.
    let recipient = Address([0x77; 20]);
    let tx = transfer(&dev_key(0), 100, 0, recipient, 5);
    let answer = nodes[2].client().submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert_eq!(answer.results[0].status, WaitStatus::Success, "{answer:?}");
    let included = answer.results[0].block_height.unwrap();
    for node in &nodes {
        wait_node(node, included).await;
        let account = node.client().account(&recipient).await.unwrap().unwrap();
        assert_eq!(account.balance, 5, "validator {}", node.index);
    }
    let metrics = nodes[0].client().metrics().await.unwrap();
    assert!(metrics.contains("chain_gossip_received_total"), "{metrics}");

    // Kill -9 one validator under load: the other three keep finalizing.
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let loaders = vec![
        load(nodes[0].url.clone(), 1, stop.clone(), sent.clone()),
        load(nodes[1].url.clone(), 2, stop.clone(), sent.clone()),
    ];
    tokio::time::sleep(Duration::from_millis(500)).await;
    nodes[3].kill9();
    let at_kill = height(&nodes[0].url).await;
    wait_node(&nodes[0], at_kill + 20).await;

    // Restarted, it catches up and agrees on the state.
    nodes[3].spawn();
    let tip = height(&nodes[0].url).await;
    wait_node(&nodes[3], tip).await;
    stop.store(true, Ordering::Relaxed);
    for loader in loaders {
        loader.await.unwrap();
    }
    assert!(sent.load(Ordering::Relaxed) > 0);
    let settled = height(&nodes[0].url).await + 3;
    assert_agree(&nodes.iter().collect::<Vec<_>>(), settled).await;
    // Every transfer sent was finalized: the two senders' nonces match what was sent.
    let mut nonces = 0;
    for key in [1, 2] {
        let account = nodes[3].client().account(&dev_key(key).address()).await.unwrap().unwrap();
        nonces += account.nonce;
    }
    let deadline = Instant::now() + PROGRESS_TIMEOUT;
    while nonces < sent.load(Ordering::Relaxed) {
        assert!(Instant::now() < deadline, "transfers were lost: {nonces} of {}", sent.load(Ordering::Relaxed));
        tokio::time::sleep(Duration::from_millis(200)).await;
        nonces = 0;
        for key in [1, 2] {
            nonces += nodes[0].client().account(&dev_key(key).address()).await.unwrap().unwrap().nonce;
        }
    }

    // Two of four stopped: no quorum, so nothing is finalized, and nothing forks.
    let exit = nodes[2].stop();
    assert!(exit.success());
    nodes[3].stop();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stalled = height(&nodes[0].url).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(height(&nodes[0].url).await, stalled, "finalized without a quorum");
    assert_eq!(height(&nodes[1].url).await, stalled);
    // Health says so honestly: the height stands still and the last block ages, while
    // `synced` stays true as the spec defines it.
    let health = serde_json::to_value(nodes[0].client().health_detailed().await.unwrap()).unwrap();
    assert_eq!(health["block_height"], stalled);
    assert_eq!(health["synced"], true);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    assert!(now - health["last_block_timestamp"].as_u64().unwrap() >= 3, "{health}");
    // Operators see peers, views, finalization latency and served state-sync requests.
    let metrics = nodes[0].client().metrics().await.unwrap();
    for name in
        ["chain_finalization_latency_seconds", "chain_height", "consensus_", "network_", "drover_rpc_requests_total"]
    {
        assert!(metrics.contains(name), "metrics lack {name}");
    }

    // Both back: finality resumes and all four agree.
    nodes[2].spawn();
    nodes[3].spawn();
    wait_node(&nodes[0], stalled + 10).await;
    assert_agree(&nodes.iter().collect::<Vec<_>>(), stalled + 10).await;
}

/// A reverse proxy to `upstream` that corrupts every `/state/operations` batch it relays.
async fn tampering_proxy(upstream: String) -> String {
    use axum::{body::Bytes, extract::Request, http::StatusCode, response::IntoResponse};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().fallback(move |request: Request| {
        let upstream = upstream.clone();
        async move {
            let path = request.uri().path_and_query().map(|p| p.as_str().to_owned()).unwrap_or_default();
            let response = reqwest::get(format!("{upstream}{path}")).await.unwrap();
            let status = StatusCode::from_u16(response.status().as_u16()).unwrap();
            let content_type = response.headers().get("content-type").cloned();
            let mut body = response.bytes().await.unwrap().to_vec();
            if path.starts_with("/state/operations") && status.is_success() {
                // Flip a bit of the last operation: the batch still decodes, its proof fails.
                if let Some(last) = body.last_mut() {
                    *last ^= 0x01;
                }
            }
            let mut answer = (status, Bytes::from(body)).into_response();
            if let Some(content_type) = content_type {
                answer.headers_mut().insert("content-type", content_type);
            }
            answer
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wiped_validator_fast_syncs_and_a_backup_restores() {
    let mut nodes = start_network(4, NodeOptions::default()).await;
    // Some state beyond genesis: funded accounts.
    let client = nodes[0].client();
    let mut funded = Vec::new();
    for i in 0..20u8 {
        let to = Address([i + 1; 20]);
        let tx = transfer(&dev_key(0), 100, u64::from(i), to, 1_000 + u128::from(i));
        funded.push((to, 1_000 + u128::from(i)));
        client.submit(&[tx]).await.unwrap();
    }
    let last = client.submit_wait(&[transfer(&dev_key(0), 100, 20, Address([0xee; 20]), 1)], 10_000).await.unwrap();
    assert_eq!(last.results[0].status, WaitStatus::Success);

    // The snapshot endpoint describes the latest finalized block's sync target.
    let snapshot = client.state_snapshot().await.unwrap().unwrap();
    let block = client.block(BlockSelector::Height(snapshot.height)).await.unwrap().unwrap();
    assert_eq!(snapshot.canonical_root, block.state_root);
    assert_eq!(snapshot.ops_root, block.ops_root);
    assert_eq!(snapshot.op_count, block.op_count);
    let batch = client.state_operations(snapshot.op_count, snapshot.range_start, Some(10)).await.unwrap();
    assert!(!batch.is_empty());

    // Wipe validator 3 and sync it through a peer that tampers with every batch only: the node
    // stops with an error naming the failure, and its database holds nothing unverified.
    nodes[3].stop();
    std::fs::remove_dir_all(nodes[3].state_dir()).unwrap();
    let proxy = tampering_proxy(nodes[0].url.clone()).await;
    nodes[3].spawn_with(&["--sync-from", &proxy]);
    let status = nodes[3].wait_exit(PROGRESS_TIMEOUT).expect("a sync from a tampering peer must stop");
    assert!(!status.success());
    let log = nodes[3].log();
    assert!(log.contains("failed verification"), "{log}");
    assert!(log.contains("state sync"), "{log}");

    // Restarted with an honest fallback, the interrupted sync resumes and completes.
    let honest = nodes[1].url.clone();
    nodes[3].spawn_with(&["--sync-from", &proxy, "--sync-from", &honest]);
    let tip = height(&nodes[0].url).await;
    wait_node(&nodes[3], tip).await;
    for (address, balance) in &funded {
        let account = nodes[3].client().account(address).await.unwrap().unwrap();
        assert_eq!(account.balance, *balance);
    }
    // Its history, blocks and events begin after the sync: it says so, and a query below answers
    // 4002, never an empty page; a node that synced from genesis holds them.
    let synced = nodes[3].client().indexed_range().await.unwrap();
    assert!(synced.first_height > 1, "{synced:?}");
    let (status, body) = get_raw(&nodes[3].url, "/events?from_height=1&to_height=2").await;
    assert_error(status, &body, 404, 4002);
    let (funded_first, _) = funded[0];
    let page = nodes[3].client().history(&funded_first, None, 10).await.unwrap();
    assert!(page.items.is_empty() && page.first_indexed_height == synced.first_height, "{page:?}");
    assert_eq!(nodes[1].client().history(&funded_first, None, 10).await.unwrap().items.len(), 1);
    let settled = height(&nodes[0].url).await + 3;
    assert_agree(&nodes.iter().collect::<Vec<_>>(), settled).await;

    // Backup and restore: stop, copy, wipe, restore, start → same height and root, re-joins.
    assert!(nodes[2].stop().success());
    let stopped_at = height(&nodes[0].url).await.min(settled + 1000);
    let backup = nodes[2].dir.path().join("backup-2");
    copy_dir(&nodes[2].state_dir(), &backup);
    std::fs::remove_dir_all(nodes[2].state_dir()).unwrap();
    copy_dir(&backup, &nodes[2].state_dir());
    nodes[2].spawn();
    nodes[2].wait_ready(settled).await;
    assert_eq!(block_at(&nodes[2].url, settled).await, block_at(&nodes[0].url, settled).await);
    wait_node(&nodes[2], stopped_at + 10).await;
    assert_agree(&nodes.iter().collect::<Vec<_>>(), stopped_at + 10).await;
}

/// `--fast-sync-min-gap` of the catch-up test: a few seconds of blocks.
const TEST_FAST_SYNC_MIN_GAP_BLOCKS: u64 = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_validator_with_state_far_behind_fast_syncs_and_one_close_behind_replays() {
    let mut nodes = start_network(4, NodeOptions::default()).await;
    let gap = TEST_FAST_SYNC_MIN_GAP_BLOCKS.to_string();
    let client = nodes[0].client();
    let early = Address([0xa1; 20]);
    let sent = client.submit_wait(&[transfer(&dev_key(0), 100, 0, early, 7)], 10_000).await.unwrap();
    assert_eq!(sent.results[0].status, WaitStatus::Success);
    wait_node(&nodes[3], height(&nodes[0].url).await).await;

    // Validator 3 stops; the chain moves on by more than the gap, funding an account meanwhile.
    assert!(nodes[3].stop().success());
    let stopped_at = height(&nodes[0].url).await;
    let late = Address([0xa2; 20]);
    let sent = client.submit_wait(&[transfer(&dev_key(0), 100, 1, late, 9)], 10_000).await.unwrap();
    assert_eq!(sent.results[0].status, WaitStatus::Success);
    wait_node(&nodes[0], stopped_at + 2 * TEST_FAST_SYNC_MIN_GAP_BLOCKS).await;

    // Far behind, it fast-syncs over its state. Through a peer that tampers with every batch the
    // sync fails, and the node stops; the switch to fast-sync is durable: without a peer the
    // node refuses to start on the unfinished state rather than serve it or build on it.
    let proxy = tampering_proxy(nodes[0].url.clone()).await;
    nodes[3].spawn_with(&["--sync-from", &proxy, "--fast-sync-min-gap", &gap]);
    let status = nodes[3].wait_exit(PROGRESS_TIMEOUT).expect("a sync from a tampering peer must stop");
    assert!(!status.success());
    let log = nodes[3].log();
    assert!(log.contains("failed verification") || log.contains("batch does not decode"), "{log}");
    nodes[3].spawn();
    let status = nodes[3].wait_exit(PROGRESS_TIMEOUT).expect("an unfinished fast-sync needs a peer");
    assert!(!status.success());
    assert!(nodes[3].log().contains("an interrupted fast-sync must finish"), "{}", nodes[3].log());

    // With an honest fallback it completes and follows the tip, holding what it missed.
    let honest = nodes[1].url.clone();
    nodes[3].spawn_with(&["--sync-from", &proxy, "--sync-from", &honest, "--fast-sync-min-gap", &gap]);
    wait_node(&nodes[3], height(&nodes[0].url).await).await;
    assert_eq!(nodes[3].client().account(&late).await.unwrap().unwrap().balance, 9);
    // Its indexes restart after the sync height, and say so: nothing below, never a hole.
    let indexed = nodes[3].client().indexed_range().await.unwrap();
    assert!(indexed.first_height > stopped_at + TEST_FAST_SYNC_MIN_GAP_BLOCKS, "{indexed:?}");
    let page = nodes[3].client().history(&early, None, 10).await.unwrap();
    assert!(page.items.is_empty() && page.first_indexed_height == indexed.first_height, "{page:?}");
    let (status, body) = get_raw(&nodes[3].url, &format!("/blocks?cursor={}", indexed.first_height)).await;
    assert_error(status, &body, 404, 4002);
    // What the chain does after the sync, the synced node records like any other.
    let after = Address([0xa3; 20]);
    let sent = client.submit_wait(&[transfer(&dev_key(0), 100, 2, after, 11)], 10_000).await.unwrap();
    let included = sent.results[0].block_height.expect("the transfer is included");
    wait_node(&nodes[3], included).await;
    let page = nodes[3].client().history(&after, None, 10).await.unwrap();
    let hashes: Vec<_> = page.items.iter().map(|entry| (entry.tx_hash, entry.block_height)).collect();
    assert_eq!(hashes, [(sent.results[0].hash, included)], "{page:?}");

    // Validator 2 stops for fewer blocks than the gap: it replays them and keeps its indexes.
    assert!(nodes[2].stop().success());
    let stopped_at = height(&nodes[0].url).await;
    wait_node(&nodes[0], stopped_at + 10).await;
    nodes[2].spawn_with(&["--sync-from", &honest, "--fast-sync-min-gap", &gap]);
    wait_node(&nodes[2], height(&nodes[0].url).await).await;
    assert_eq!(nodes[2].client().indexed_range().await.unwrap().first_height, 1);
    assert_eq!(nodes[2].client().history(&early, None, 10).await.unwrap().items.len(), 1);
    let settled = height(&nodes[0].url).await + 3;
    assert_agree(&nodes.iter().collect::<Vec<_>>(), settled).await;
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devnet_command_runs_one_process_per_validator_and_stops_them() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let rpc = free_port_block(8);
    let p2p = rpc + 4;
    let log = std::fs::File::create(dir.path().join("devnet.log")).unwrap();
    let mut devnet = Command::new(BIN)
        .args(["devnet", "--validators", "4", "--dir"])
        .arg(dir.path().join("net"))
        .args(["--rpc-port", &rpc.to_string(), "--p2p-port", &p2p.to_string()])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let urls: Vec<_> = (0..4).map(|i| format!("http://127.0.0.1:{}", rpc + i)).collect();
    let refs: Vec<_> = urls.iter().map(String::as_str).collect();
    for url in &refs {
        wait_for(url, 3).await;
    }
    let at = height(refs[0]).await + 1;
    for url in &refs {
        wait_for(url, at).await;
    }
    let first = block_at(refs[0], at).await;
    for url in &refs[1..] {
        assert_eq!(block_at(url, at).await, first);
    }

    // SIGTERM to the supervisor stops every validator gracefully.
    let status = Command::new("kill").args(["-TERM", &devnet.id().to_string()]).status().unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let exit = loop {
        if let Some(exit) = devnet.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "devnet did not stop");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(exit.success());
    let text = std::fs::read_to_string(dir.path().join("devnet.log")).unwrap();
    assert_eq!(text.matches("stopped (exit status: 0)").count(), 4, "{text}");
    for url in &refs {
        assert!(Client::new(url).unwrap().height().await.is_err(), "{url} still answers");
    }
}
