//! End-to-end: the runner registry through the real node, the CLI and the HTTP API — register,
//! heartbeat, delegate and undelegate, the active list and an account's delegations, refusals
//! with their codes, deregistration and the stake held until it unbonds; the entitlement
//! registry and manifest checks; the signed heartbeat flow; the runner daemon registering and
//! heartbeating across a node restart.

mod common;

use common::*;
use drover_client::{TxBuilder, Wallet};
use drover_types::{
    Address, H256,
    api::{ReceiptStatus, SignedFlowRequest},
    runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall},
};
use std::process::Command;

/// Sends a registry call and answers its receipt's status and error code.
async fn send(node: &TestNode, wallet: &Wallet, call: &RegistryCall, value: u128) -> (ReceiptStatus, Option<String>) {
    let client = node.client();
    let builder = TxBuilder::registry(call, value);
    let context = builder.fetch_context(&client, wallet.address()).await.unwrap();
    let tx = builder.sign(&context, wallet).unwrap();
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert!(answer.results[0].block_height.is_some(), "{answer:?}");
    let receipt = client.receipt(&tx.hash()).await.unwrap().expect("a receipt");
    (receipt.status, receipt.error.map(|e| e.code.as_str().to_owned()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runners_register_take_delegations_and_leave() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let (runner, delegator) = (Wallet::new(dev_key(0)), Wallet::new(dev_key(1)));
    let keys = tempfile::tempdir().unwrap();
    let delegator_key = keys.path().join("delegator");
    std::fs::write(&delegator_key, delegator.secret_key().to_hex()).unwrap();
    let delegator_key = delegator_key.to_str().unwrap();
    let r = runner.address().to_hex();

    let register = RegistryCall::Register {
        rate_card: RateCard { price_per_job: 1_000 },
        capabilities: Capabilities { job_types: vec!["echo".into(), "wasm".into()], max_concurrent_jobs: 4 },
    };
    assert_eq!(send(&node, &runner, &register, MIN_RUNNER_STAKE - 1).await.1.as_deref(), Some("E1601"));
    assert_eq!(send(&node, &runner, &register, MIN_RUNNER_STAKE).await, (ReceiptStatus::Success, None));
    assert_eq!(send(&node, &runner, &register, MIN_RUNNER_STAKE).await.1.as_deref(), Some("E1602"));
    assert_eq!(send(&node, &runner, &RegistryCall::Heartbeat, 0).await, (ReceiptStatus::Success, None));
    let info = node.client().runner(&runner.address()).await.unwrap().expect("registered");
    assert_eq!((info.stake, info.health.as_str(), info.reputation), (MIN_RUNNER_STAKE, "healthy", 80));
    assert_eq!(node.client().account(&RUNNER_REGISTRY_ADDRESS).await.unwrap().unwrap().balance, MIN_RUNNER_STAKE);

    // The signed heartbeat flow: the node builds the transaction, the runner signs its message.
    let client = node.client();
    let payload = client.heartbeat_payload(&runner.address()).await.unwrap();
    let message = H256(payload.message_to_sign_base64.clone().try_into().expect("32 bytes"));
    let signature = runner.secret_key().sign_prehash(&message).to_rsv();
    let request = SignedFlowRequest {
        unsigned_transaction_base64: payload.unsigned_transaction_base64.clone(),
        signature: format!("0x{}", hex::encode(signature)),
    };
    let answer = client.post_heartbeat(&runner.address(), &request).await.unwrap();
    assert_eq!(answer.accepted, 1, "{answer:?}");
    let hash = answer.results[0].hash;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while client.receipt(&hash).await.unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "the heartbeat was not included");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let receipt = client.receipt(&hash).await.unwrap().unwrap();
    assert_eq!(receipt.status, ReceiptStatus::Success, "{receipt:?}");
    assert_eq!(client.runner(&runner.address()).await.unwrap().unwrap().last_heartbeat_height, receipt.block_height);
    // Signed by someone else: refused, nothing admitted.
    let forged = SignedFlowRequest {
        signature: format!("0x{}", hex::encode(delegator.secret_key().sign_prehash(&message).to_rsv())),
        ..request
    };
    let (status, _, body) =
        post_raw(&url, &format!("/runner/{r}/heartbeat"), "application/json", serde_json::to_vec(&forged).unwrap())
            .await;
    assert_error(status, &body, 400, 7005);

    // Delegate and undelegate through the CLI.
    ok(drover(&url, &["delegate", "--runner", &r, "--amount", "2drv", "--key", delegator_key]));
    ok(drover(&url, &["undelegate", "--runner", &r, "--amount", "0.5drv", "--key", delegator_key]));
    let out = drover(&url, &["undelegate", "--runner", &r, "--amount", "5drv", "--key", delegator_key]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("E1606")
            || String::from_utf8_lossy(&out.stdout).contains("E1606")
    );
    let out = drover(&url, &["withdraw", "--runner", &r, "--key", delegator_key]);
    assert!(!out.status.success(), "nothing has unbonded yet");
    let list = node.client().delegations(&delegator.address(), 0, 50).await.unwrap();
    assert_eq!(list.total_count, 1);
    assert_eq!((list.delegations[0].runner, list.delegations[0].amount), (runner.address(), 1_500_000_000));
    assert_eq!(list.delegations[0].pending[0].amount, 500_000_000);
    let active = node.client().active_runners(0, 50).await.unwrap();
    assert_eq!((active.total_count, active.runners[0].delegated_stake), (1, 1_500_000_000));
    let out = ok(drover(&url, &["runners"]));
    assert!(out.contains(&r), "{out}");
    let out = ok(drover(&url, &["runners", "--delegations-of", &delegator.address().to_hex()]));
    assert!(out.contains("unbonding"), "{out}");

    // The entitlement registry and manifest checks, through the CLI.
    let out = ok(drover(&url, &["entitlements"]));
    assert!(out.contains("token.use") && out.contains("storage_get"), "{out}");
    let good = keys.path().join("good.json");
    std::fs::write(&good, r#"{"entitlements": ["storage.kv", "token.use"]}"#).unwrap();
    ok(drover(&url, &["entitlements", "--validate", good.to_str().unwrap()]));
    let bad = keys.path().join("bad.json");
    std::fs::write(&bad, r#"{"entitlements": ["storage.kv", "storage.kv", "root"]}"#).unwrap();
    let out = drover(&url, &["--json", "entitlements", "--validate", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let verdict: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["errors"].as_array().unwrap().len(), 2, "{verdict}");
    let (status, _, body) = post_raw(&url, "/entitlements/validate-manifest", "application/json", b"{".to_vec()).await;
    assert_error(status, &body, 400, 1001);

    // Errors of the routes.
    let (status, body) = get_raw(&url, &format!("/runner/{}", Address([0x77; 20]).to_hex())).await;
    assert_error(status, &body, 404, 7000);
    let (status, body) = get_raw(&url, "/runner/0x1234").await;
    assert_error(status, &body, 400, 3001);

    // Deregister: off the active list, stake held until it unbonds.
    assert_eq!(send(&node, &runner, &RegistryCall::Deregister, 0).await, (ReceiptStatus::Success, None));
    let info = node.client().runner(&runner.address()).await.unwrap().unwrap();
    assert_eq!((info.health.as_str(), info.stake, info.unbonding[0].amount), ("deregistered", 0, MIN_RUNNER_STAKE));
    assert_eq!(node.client().active_runners(0, 50).await.unwrap().total_count, 0);
    assert_eq!(
        send(&node, &runner, &RegistryCall::Withdraw { runner: runner.address() }, 0).await.1.as_deref(),
        Some("E1607")
    );
    let held = node.client().account(&RUNNER_REGISTRY_ADDRESS).await.unwrap().unwrap().balance;
    assert_eq!(held, MIN_RUNNER_STAKE + 2_000_000_000, "stake and delegation stay with the registry");

    // The same records after a restart.
    let before = (
        node.client().runner(&runner.address()).await.unwrap(),
        node.client().delegations(&delegator.address(), 0, 50).await.unwrap(),
    );
    node.stop();
    node.spawn();
    node.wait_ready(1).await;
    let after = (
        node.client().runner(&runner.address()).await.unwrap(),
        node.client().delegations(&delegator.address(), 0, 50).await.unwrap(),
    );
    assert_eq!(before, after);
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_daemon_registers_heartbeats_and_outlives_a_node_restart() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let wallet = Wallet::new(dev_key(2));
    let keys = tempfile::tempdir().unwrap();
    let key = keys.path().join("runner");
    std::fs::write(&key, wallet.secret_key().to_hex()).unwrap();
    let log = std::fs::File::create(keys.path().join("runner.log")).unwrap();
    let mut daemon = Command::new(BIN)
        .args(["--rpc-url", &node.url, "runner", "--key"])
        .arg(&key)
        .args(["--executors", "echo,wasm", "--heartbeat-blocks", "3"])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let client = node.client();
    let heartbeat_after = |height: u64| {
        let client = client.clone();
        let address = wallet.address();
        async move {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            loop {
                if let Ok(Some(runner)) = client.runner(&address).await
                    && runner.last_heartbeat_height > height
                {
                    return runner;
                }
                assert!(std::time::Instant::now() < deadline, "no heartbeat after height {height}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    };
    let registered = heartbeat_after(0).await;
    assert_eq!(registered.capabilities.job_types, ["echo", "wasm"]);
    let beat = heartbeat_after(registered.registered_height).await;
    assert_eq!(beat.health, "healthy");

    // The node goes away and comes back: the daemon keeps trying and heartbeats again.
    node.stop();
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    node.spawn();
    node.wait_ready(1).await;
    let again = heartbeat_after(beat.last_heartbeat_height).await;
    assert!(again.last_heartbeat_height > beat.last_heartbeat_height);
    // Registered once: the stake is the one registration's.
    assert_eq!(again.stake, MIN_RUNNER_STAKE);
    assert!(daemon.try_wait().unwrap().is_none(), "the daemon outlived the node restart");
    daemon.kill().unwrap();
    daemon.wait().unwrap();
    node.stop();
}
