//! End-to-end: governance through the real node, the CLI and the HTTP API. Accounts lock
//! weight; a first proposal shortens governance's own periods; a second raises the cycle target
//! and the cycle basefee floor, and `/governance/params`, `/basefee`, admission and block
//! building follow from the block after its execution (a transaction above the old block limit
//! is refused before and included after); then a rejected proposal, an expired one and one refused for an
//! out-of-range value.

mod common;

use common::*;
use drover_client::{Client, Wallet};
use std::time::{Duration, Instant};

fn key_file(dir: &std::path::Path, index: u32) -> String {
    let path = dir.join(format!("dev-{index}.key"));
    std::fs::write(&path, Wallet::new(dev_key(index)).secret_key().to_hex()).unwrap();
    path.to_str().unwrap().to_owned()
}

async fn proposal_field(client: &Client, id: u64, field: &str) -> serde_json::Value {
    let detail = client.proposal(id).await.unwrap().expect("the proposal");
    serde_json::to_value(&detail).unwrap()[field].clone()
}

async fn wait_for_height(client: &Client, height: u64) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while client.height().await.unwrap() < height {
        assert!(Instant::now() < deadline, "height {height} not reached");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Votes `support` on proposal `id` from each key, waits for its vote to end, and executes it.
async fn vote_and_execute(url: &str, client: &Client, id: u64, votes: &[(&str, &str)], executor: &str) -> String {
    for (key, support) in votes {
        ok(drover(url, &["gov", "vote", &id.to_string(), "--support", support, "--key", key]));
    }
    let executable = proposal_field(client, id, "executable_height").await.as_u64().unwrap();
    let ends = proposal_field(client, id, "voting_ends_height").await.as_u64().unwrap();
    wait_for_height(client, ends.max(executable)).await;
    let out = drover(url, &["gov", "execute", &id.to_string(), "--key", executor]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    proposal_field(client, id, "status").await.as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_change_by_vote_and_take_effect_on_chain() {
    let node = TestNode::start(NodeOptions { block_interval_ms: 50, ..NodeOptions::default() }).await;
    let url = node.url.clone();
    let client = node.client();
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (key_file(dir.path(), 0), key_file(dir.path(), 1), key_file(dir.path(), 2));
    ok(drover(&url, &["gov", "lock", "--amount", "1000drv", "--key", &a]));
    ok(drover(&url, &["gov", "lock", "--amount", "500drv", "--key", &b]));
    ok(drover(&url, &["gov", "lock", "--amount", "300drv", "--key", &c]));
    let params = client.governance_params().await.unwrap();
    assert_eq!(params.total_locked, 1_800 * 1_000_000_000);

    // Governance shortens its own periods (the defaults: 100 blocks of vote, 20 of timelock).
    ok(drover(
        &url,
        &[
            "gov",
            "propose",
            "--change",
            "voting_period_blocks=10,timelock_blocks=1,execution_window_blocks=10,max_pending_timers_per_actor=100",
            "--description",
            "faster governance",
            "--key",
            &a,
        ],
    ));
    assert_eq!(vote_and_execute(&url, &client, 0, &[(&a, "for"), (&b, "for")], &c).await, "executed");
    // The entitlement registry shows a governed limit at its live value.
    let executed_at = client.proposal(0).await.unwrap().unwrap().proposal.closed_height.unwrap();
    wait_for_height(&client, executed_at + 1).await;
    let (_, registry) = get_raw(&url, "/entitlements/registry").await;
    let timers = registry["entitlements"].as_array().unwrap().iter().find(|e| e["id"] == "timer.schedule").unwrap();
    assert_eq!(timers["params"]["max_pending_timers_per_actor"], 100, "{timers}");

    // A transaction above the genesis block limit (2 × 10,000,000 cycles) cannot be admitted.
    let big_sender = Wallet::new(dev_key(6));
    let big = || drover_client::TxBuilder::transfer(drover_types::Address([0x77; 20]), 1).cycles_limit(30_000_000);
    let context = big().fetch_context(&client, big_sender.address()).await.unwrap();
    let refused = client.submit(&[big().sign(&context, &big_sender).unwrap()]).await.unwrap_err();
    assert!(
        matches!(refused, drover_client::ClientError::Api { code: 2010, .. }),
        "above the block limit: {refused:?}"
    );

    // Raise the cycle target and the cycle basefee floor.
    ok(drover(
        &url,
        &["gov", "propose", "--change", "target_cycles=20000000", "--change", "min_basefee_cycle=5", "--key", &b],
    ));
    let proposal = client.proposal(1).await.unwrap().unwrap();
    assert_eq!(proposal.proposal.voting_ends_height - proposal.proposal.created_height, 10, "the new period");
    assert_eq!(vote_and_execute(&url, &client, 1, &[(&a, "for"), (&c, "against")], &b).await, "executed");
    let executed_at = client.proposal(1).await.unwrap().unwrap().proposal.closed_height.unwrap();
    wait_for_height(&client, executed_at + 1).await;
    let params = client.governance_params().await.unwrap();
    let value = |name: &str| params.value(name).unwrap();
    assert_eq!((value("target_cycles"), value("min_basefee_cycle")), (20_000_000, 5));
    let (_, basefee) = get_raw(&url, "/basefee").await;
    assert_eq!(basefee["basefee_cycle"], "5", "the basefee follows its new floor: {basefee}");
    let out = ok(drover(&url, &["gov", "params"]));
    assert!(out.contains("target_cycles") && out.contains("20000000"), "{out}");
    // Admission and block building follow the new limit (2 × 20,000,000): the same transaction
    // is admitted and included.
    let context = big().fetch_context(&client, big_sender.address()).await.unwrap();
    let included = client.submit_wait(&[big().sign(&context, &big_sender).unwrap()], 10_000).await.unwrap();
    assert!(included.results[0].block_height.is_some(), "{included:?}");

    // Rejected: more weight against.
    ok(drover(&url, &["gov", "propose", "--change", "target_cells=600000", "--key", &c]));
    assert_eq!(vote_and_execute(&url, &client, 2, &[(&a, "against"), (&c, "for")], &c).await, "rejected");

    // Expired: passed, but executed after its window.
    ok(drover(&url, &["gov", "propose", "--change", "target_cells=700000", "--key", &c]));
    ok(drover(&url, &["gov", "vote", "3", "--support", "for", "--key", &a]));
    let expires = proposal_field(&client, 3, "expires_height").await.as_u64().unwrap();
    wait_for_height(&client, expires).await;
    assert_eq!(proposal_field(&client, 3, "status").await, "expired");
    ok(drover(&url, &["gov", "execute", "3", "--key", &c]));
    assert_eq!(proposal_field(&client, 3, "status").await, "expired");
    let params = client.governance_params().await.unwrap();
    assert_eq!(params.value("target_cells"), Some(500_000), "neither applied");

    // Out of bounds: refused when proposed, with its code.
    let out = drover(&url, &["gov", "propose", "--change", "voting_period_blocks=0", "--key", &c]);
    assert!(!out.status.success());
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("E1703"), "{said}");

    // The API: lists by status, one proposal with votes and timeline, errors.
    let executed = client.proposals(Some("executed"), 0, 50).await.unwrap();
    assert_eq!(executed.total_count, 2);
    let detail = client.proposal(1).await.unwrap().unwrap();
    assert_eq!(detail.votes.len(), 2);
    assert!(detail.timeline.iter().any(|e| e.event == "executed"));
    let (status, body) = get_raw(&url, "/governance/proposal/99").await;
    assert_error(status, &body, 404, 1002);
    let (status, body) = get_raw(&url, "/governance/proposals?status=maybe").await;
    assert_error(status, &body, 400, 1001);
    let out = ok(drover(&url, &["gov", "proposals"]));
    assert!(out.contains("faster governance"), "{out}");
}
