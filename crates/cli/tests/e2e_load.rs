//! End-to-end: many concurrent submitters; balances add up exactly (nothing created, nothing
//! lost), counting burned fees and the proposer's tips.

mod common;

use common::*;
use drover_types::{Address, SecretKey, api::WaitStatus};
use std::time::{Duration, Instant};

const CHAIN: u64 = 100;
const SENDERS: u32 = 10;
const TRANSFERS_PER_SENDER: u64 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_submitters_conserve_value() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let config = std::fs::read_to_string(node.config_path()).unwrap();
    let tips: Address = config
        .lines()
        .find_map(|l| l.strip_prefix("tips_account: "))
        .unwrap()
        .trim()
        .trim_matches('\'')
        .parse()
        .unwrap();

    let senders: Vec<SecretKey> = (0..SENDERS).map(dev_key).collect();
    let recipients: Vec<Address> = (0..5).map(|_| SecretKey::random().address()).collect();
    let mut everyone: Vec<Address> = senders.iter().map(|k| k.address()).collect();
    everyone.extend(&recipients);
    everyone.push(tips);
    let balance_of = |accounts: Vec<Option<drover_types::api::AccountInfo>>| -> u128 {
        accounts.into_iter().map(|a| a.map_or(0, |a| a.balance)).sum()
    };
    let mut before = Vec::new();
    for a in &everyone {
        before.push(client.account(a).await.unwrap());
    }
    let total_before = balance_of(before);

    // Each sender submits its transfers from its own task, in batches, concurrently.
    let mut tasks = Vec::new();
    for (s, key) in senders.iter().cloned().enumerate() {
        let client = node.client();
        let recipients = recipients.clone();
        tasks.push(tokio::spawn(async move {
            let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
            let txs: Vec<_> = (0..TRANSFERS_PER_SENDER)
                .map(|i| {
                    transfer(&key, CHAIN, nonce + i, recipients[(s + i as usize) % recipients.len()], 1 + i as u128)
                })
                .collect();
            let mut hashes = Vec::new();
            for chunk in txs.chunks(10) {
                let response = client.submit(chunk).await.unwrap();
                assert_eq!(response.accepted as usize, chunk.len(), "{response:?}");
                hashes.extend(chunk.iter().map(|t| t.hash()));
            }
            hashes
        }));
    }
    let mut hashes = Vec::new();
    for task in tasks {
        hashes.extend(task.await.unwrap());
    }

    // Wait for every receipt; sum what was burned.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut burned = 0u128;
    for hash in &hashes {
        loop {
            if let Some(receipt) = client.receipt(hash).await.unwrap() {
                assert_eq!(receipt.status, drover_types::api::ReceiptStatus::Success, "{receipt:?}");
                burned += receipt.fee_burned;
                break;
            }
            assert!(Instant::now() < deadline, "transfer {hash} never finalized");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut after = Vec::new();
    for a in &everyone {
        after.push(client.account(a).await.unwrap());
    }
    let total_after = balance_of(after);
    assert_eq!(total_before, total_after + burned, "value was created or lost");
    for (s, key) in senders.iter().enumerate() {
        let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
        assert!(nonce >= TRANSFERS_PER_SENDER, "sender {s} nonce {nonce}");
    }
    let sent: u128 = (0..TRANSFERS_PER_SENDER).map(|i| 1 + i as u128).sum::<u128>() * SENDERS as u128;
    let mut received = 0u128;
    for r in &recipients {
        received += client.account(r).await.unwrap().map_or(0, |a| a.balance);
    }
    assert_eq!(received, sent);
    // And submit_wait reports them as successes too.
    let key = dev_key(0);
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
    let waited = client.submit_wait(&[transfer(&key, CHAIN, nonce, recipients[0], 1)], 10_000).await.unwrap();
    assert_eq!(waited.results[0].status, WaitStatus::Success);
}
