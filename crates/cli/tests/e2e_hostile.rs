//! End-to-end: what an attacker sends costs the node what it paid for, and the chain keeps
//! finalizing. A transaction that reads thousands of keys nobody wrote (each one a database
//! lookup) is included in the next block or two and is repeated block after block while honest
//! transfers keep landing; read-only calls that spin at their cycle budget do not stop blocks.
//! Bounds are in blocks, never in seconds.

mod common;

use common::*;
use drover_client::Client;
use drover_types::{
    Address, SecretKey, Transaction,
    api::{ActorReadRequest, ReceiptStatus},
    payload::{Deploy, Manifest, Message},
};

/// Blocks between the finalized height once a transaction is admitted and its inclusion: a
/// block already proposed, the one being built when it arrives, and the next one which takes
/// it. (Before reads on demand, a 4,000-key scan took minutes.)
const INCLUSION_BLOCKS_MAX: u64 = 3;
/// A scan of this many keys fits under the block's cycle limit (2,004 cycles per read).
const KEYS_PER_SCAN_MAX: u32 = 9_000;
const SCAN_CYCLES_LIMIT: u64 = 19_000_000;

fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    wat::parse_file(&path).unwrap_or_else(|e| panic!("{path} compiles: {e}"))
}

fn tx(key: &SecretKey, nonce: u64, to: Option<Address>, payload: Vec<u8>, cycles_limit: u64) -> Transaction {
    Transaction {
        chain_id: 100,
        nonce,
        to,
        value: 0,
        cycles_limit,
        cells_limit: 10_000,
        max_fee_per_cycle: 1_000,
        max_fee_per_cell: 1_000,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload,
        signature: None,
    }
    .sign(key)
}

fn scan(keys: u32, start: u32) -> Vec<u8> {
    let payload = [keys.to_le_bytes(), start.to_le_bytes()].concat();
    Message { handler: "scan".to_owned(), payload }.encode()
}

/// Submits `txs` and answers, for each, the finalized height once the node had admitted it and
/// the height it was included at, checking that it succeeded.
async fn included(client: &Client, txs: &[Transaction]) -> Vec<(u64, u64)> {
    let answer = client.submit(txs).await.expect("submit");
    assert_eq!(answer.accepted as usize, txs.len(), "{answer:?}");
    let admitted = client.height().await.expect("height");
    let mut heights = Vec::new();
    for tx in txs {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let receipt = loop {
            if let Some(receipt) = client.receipt(&tx.hash()).await.expect("receipt") {
                break receipt;
            }
            assert!(std::time::Instant::now() < deadline, "{} was never included", tx.hash());
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        assert_eq!(receipt.status, ReceiptStatus::Success, "{receipt:?}");
        heights.push((admitted, receipt.block_height));
    }
    heights
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_key_scans_at_the_block_limit_are_included_at_once_and_the_chain_keeps_finalizing() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let (attacker, honest) = (dev_key(0), dev_key(1));
    let deploy = Deploy {
        code: example("fresh_reader"),
        manifest: Manifest::new(vec!["storage.kv".to_owned()]),
        salt: Vec::new(),
        init: None,
    };
    let reader = deploy.actor_address(&attacker.address());
    included(&client, &[tx(&attacker, 0, None, deploy.encode(), 5_000_000)]).await;

    // The two sizes the attack was measured at: 4,000 keys once stalled the chain for minutes.
    let mut nonce = 1;
    for keys in [4_000, KEYS_PER_SCAN_MAX] {
        let attack = tx(&attacker, nonce, Some(reader), scan(keys, 0), SCAN_CYCLES_LIMIT);
        nonce += 1;
        let (admitted, at) = included(&client, std::slice::from_ref(&attack)).await[0];
        assert!(at <= admitted + INCLUSION_BLOCKS_MAX, "{keys} keys: admitted at height {admitted}, included at {at}");
        let cycles = client.receipt(&attack.hash()).await.unwrap().expect("receipt").cycles_used;
        assert!(cycles > u64::from(keys) * 2_000, "each read is paid for: {cycles} cycles for {keys} keys");
    }

    // The attack repeated block after block, fresh keys each time, beside honest transfers:
    // every scan and every transfer lands within two blocks of its submission.
    for round in 0..6u32 {
        let attack = tx(
            &attacker,
            nonce,
            Some(reader),
            scan(KEYS_PER_SCAN_MAX, (round + 1) * KEYS_PER_SCAN_MAX),
            SCAN_CYCLES_LIMIT,
        );
        let transfer = transfer(&honest, 100, u64::from(round), SecretKey::random().address(), 1);
        nonce += 1;
        let (attack, transfer) = ([attack], [transfer]);
        let (scanned, paid) = tokio::join!(included(&client, &attack), included(&client, &transfer));
        for (what, (admitted, at)) in [("scan", scanned[0]), ("transfer", paid[0])] {
            assert!(
                at <= admitted + INCLUSION_BLOCKS_MAX,
                "round {round}: {what} admitted at {admitted}, included at {at}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_calls_at_their_budget_do_not_stop_blocks() {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let key = dev_key(0);
    let deploy = Deploy {
        code: example("fresh_reader"),
        manifest: Manifest::new(vec!["storage.kv".to_owned()]),
        salt: Vec::new(),
        init: None,
    };
    let reader = deploy.actor_address(&key.address());
    included(&client, &[tx(&key, 0, None, deploy.encode(), 5_000_000)]).await;

    // Eight clients: four spin until the read budget (10,000,000 cycles) runs out, four read
    // 1,000 fresh keys each time; three rounds each.
    let start = client.height().await.unwrap();
    let spinner =
        Deploy { code: example("infinite_loop"), manifest: Manifest::new(Vec::new()), salt: Vec::new(), init: None };
    let spin = spinner.actor_address(&key.address());
    included(&client, &[tx(&key, 1, None, spinner.encode(), 5_000_000)]).await;
    let mut readers = Vec::new();
    for i in 0..8u32 {
        let client = client.clone();
        readers.push(tokio::spawn(async move {
            for round in 0..3u32 {
                let (actor, handler, payload) = match i % 2 {
                    0 => (spin, "spin", Vec::new()),
                    _ => {
                        (reader, "scan", [1_000u32.to_le_bytes(), (i * 100_000 + round * 1_000).to_le_bytes()].concat())
                    }
                };
                let request = ActorReadRequest {
                    actor,
                    handler: handler.to_owned(),
                    payload: Some(payload),
                    payload_text: None,
                    payload_json: None,
                    max_cycles: None,
                    max_cells: None,
                    from: None,
                    trace: None,
                };
                match client.actor_read(&request).await {
                    Ok(answer) => {
                        assert_eq!((handler, answer.status), ("scan", ReceiptStatus::Success), "{answer:?}");
                        assert!(answer.cycles_used > 1_000 * 2_000);
                    }
                    // Spinning to the end of the budget is refused for exactly that.
                    Err(drover_client::ClientError::Api { code: 5004, message, .. }) => {
                        assert_eq!(handler, "spin", "{message}");
                        assert!(message.contains("cycles"), "{message}");
                    }
                    Err(e) => panic!("{handler}: {e}"),
                }
            }
        }));
    }
    // Meanwhile transfers keep landing within two blocks.
    let honest = dev_key(1);
    for nonce in 0..5 {
        let (admitted, at) =
            included(&client, &[transfer(&honest, 100, nonce, SecretKey::random().address(), 1)]).await[0];
        assert!(at <= admitted + INCLUSION_BLOCKS_MAX, "transfer admitted at {admitted}, included at {at}");
    }
    for reader in readers {
        reader.await.expect("reader");
    }
    assert!(client.height().await.unwrap() > start + 5);
}
