//! End-to-end: what apps and wallets read beyond the state, over the real node, its HTTP API, the
//! Rust client and the CLI — the history of accounts after transfers, an actor's transfers and
//! token transfers; the block list; an event query across emitters whose events the receipt
//! proofs hold; block, transaction and event streams, one resumed with `Last-Event-ID` after a
//! disconnect; a simulation whose receipt, once the transaction is sent with its limits, is the
//! one simulated; the CLI sizing a call's limits from a simulation; and the same history after a
//! restart.

mod common;

use common::*;
use drover_client::{Client, EventFilter, StreamMessage, TxBuilder, Wallet};
use drover_types::{
    Address, H256,
    api::{Direction, ReceiptInfo, ReceiptStatus, ReceivedBy},
    payload::{Deploy, Manifest, Message},
    token::{NewToken, TokenCall, token_id},
};

/// The deploy of the example actor `actors/{name}.wat` with these entitlements.
fn example(name: &str, entitlements: &[&str]) -> Deploy {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    Deploy {
        code: wat::parse_file(&path).unwrap_or_else(|e| panic!("{path} compiles: {e}")),
        manifest: Manifest::new(entitlements.iter().map(|id| (*id).to_owned()).collect()),
        salt: Vec::new(),
        init: None,
    }
}

/// Sizes `builder`'s open limits by simulation, signs it from `wallet`, waits for its receipt.
async fn send(client: &Client, wallet: &Wallet, builder: TxBuilder) -> ReceiptInfo {
    let (tx, _) = builder.prepare(client, wallet).await.unwrap();
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert!(answer.results[0].block_height.is_some(), "{answer:?}");
    let receipt = client.receipt(&tx.hash()).await.unwrap().expect("a receipt");
    assert_eq!(receipt.status, ReceiptStatus::Success, "{receipt:?}");
    receipt
}

/// The account the bulk actor's `pay` sends its `n`th unit to.
fn payee(n: u8) -> Address {
    let mut address = [0; 20];
    address[0] = 0xbe;
    address[19] = n;
    Address(address)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_events_streams_and_simulation() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let (url, client) = (node.url.clone(), node.client());
    let alice = Wallet::new(dev_key(0));
    let bob = Address([0xb0; 20]);

    // A transfer, an actor that pays two accounts, and a token transfer.
    let transfer = send(&client, &alice, TxBuilder::transfer(bob, 500)).await;
    let deploy = example("bulk", &["storage.kv", "actor.call", "econ.transfer"]);
    let bulk = deploy.actor_address(&alice.address());
    send(&client, &alice, TxBuilder::message(None, 1_000_000, deploy.encode())).await;

    // The simulation of a call is what the call does once sent with the limits it suggests.
    let pay = Message { handler: "pay".into(), payload: [2u32.to_le_bytes(), 0u32.to_le_bytes()].concat() };
    let builder = TxBuilder::message(Some(bulk), 0, pay.encode());
    let context = builder.fetch_context(&client, alice.address()).await.unwrap();
    let (builder, simulation) = builder.estimate(&client, alice.address(), &context).await.unwrap();
    let simulation = simulation.expect("open limits are simulated");
    let tx = builder.sign(&context, &alice).unwrap();
    assert_eq!(
        (tx.cycles_limit, tx.cells_limit),
        (simulation.suggested_cycles_limit, simulation.suggested_cells_limit)
    );
    assert!(tx.cycles_limit > simulation.cycles_used && simulation.margin_percent == 20, "{simulation:?}");
    client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    let paid = client.receipt(&tx.hash()).await.unwrap().expect("a receipt");
    assert_eq!(
        (paid.status, paid.cycles_used, paid.cells_used, &paid.events),
        (simulation.status, simulation.cycles_used, simulation.cells_used, &simulation.events)
    );

    let create = TokenCall::Create(NewToken {
        name: "Gold".into(),
        symbol: "GLD".into(),
        decimals: 0,
        initial_supply: 1_000,
        max_supply: None,
        mintable: false,
    });
    send(&client, &alice, TxBuilder::token(&create)).await;
    let gold = token_id(&alice.address(), "GLD");
    let token_transfer =
        send(&client, &alice, TxBuilder::token(&TokenCall::Transfer { token: gold, to: bob, amount: 30 })).await;

    // Bob: the destination of the transfer; a token recipient the token call did not name as `to`.
    let history = client.history(&bob, None, 50).await.unwrap();
    assert_eq!(history.first_indexed_height, 1);
    let hashes: Vec<H256> = history.items.iter().map(|e| e.tx_hash).collect();
    assert_eq!(hashes, [token_transfer.tx_hash, transfer.tx_hash]);
    let (tokens, native) = (&history.items[0], &history.items[1]);
    assert_eq!(
        (tokens.direction, tokens.destination, &tokens.received),
        (Direction::Received, false, &vec![ReceivedBy::TokenTransfer])
    );
    assert_eq!((tokens.tokens_received[0].token, tokens.tokens_received[0].amount), (gold, 30));
    assert_eq!((native.destination, &native.received, native.value_received), (true, &vec![ReceivedBy::Transfer], 500));
    // The actor's payees, named by nothing but the actor's transfers.
    for n in 0..2 {
        let history = client.history(&payee(n), None, 50).await.unwrap();
        assert_eq!(history.items.len(), 1, "{history:?}");
        let entry = &history.items[0];
        assert_eq!((entry.tx_hash, entry.from, entry.to), (tx.hash(), alice.address(), Some(bulk)));
        assert_eq!((&entry.received, entry.value_received), (&vec![ReceivedBy::ActorTransfer], 1));
    }
    // Alice sent all five; pages of two follow each other newest first.
    let mut sent = Vec::new();
    let mut cursor = None;
    loop {
        let page = client.history(&alice.address(), cursor.as_deref(), 2).await.unwrap();
        sent.extend(page.items.iter().map(|e| (e.block_height, e.direction)));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(sent.len(), 5, "{sent:?}");
    assert!(sent.windows(2).all(|w| w[0].0 >= w[1].0) && sent.iter().all(|(_, d)| *d == Direction::Sent));
    let text = ok(drover(&url, &["history", &bob.to_hex()]));
    assert!(text.contains("token transfer") && text.contains("received"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(drover(&url, &["--json", "history", &payee(1).to_hex()]))).unwrap();
    assert_eq!(json["items"][0]["received"], serde_json::json!(["actor_transfer"]));

    // Blocks, newest first, with their counts.
    let blocks = client.blocks(None, 10).await.unwrap();
    assert!(blocks.items.windows(2).all(|w| w[0].height > w[1].height));
    let including = blocks.items.iter().find(|b| b.height == paid.block_height).expect("the call's block is listed");
    assert!(including.transaction_count >= 1 && including.transactions.is_none());
    assert!(ok(drover(&url, &["blocks", "--limit", "3"])).contains("txs"));

    // Events across emitters: the token's transfer, which the receipt's proof holds.
    let filter = EventFilter { topics: vec!["token.transfer".into()], from_height: Some(1), ..EventFilter::default() };
    let page = client.events(&filter, None, 50).await.unwrap();
    assert_eq!(page.items.len(), 1, "{page:?}");
    let event = &page.items[0];
    assert_eq!((event.address, event.tx_hash), (gold, Some(token_transfer.tx_hash)));
    let receipt = client.receipt(&token_transfer.tx_hash).await.unwrap().unwrap();
    let held = &receipt.events[event.event_index as usize];
    assert_eq!((&held.topic, &held.data, receipt.index), (&event.topic, &event.data, event.tx_index.unwrap()));
    assert!(client.proof_receipt(&token_transfer.tx_hash).await.unwrap().is_some());
    let bobs = EventFilter { emitters: vec![bob], topics: vec!["transfer".into()], ..EventFilter::default() };
    assert_eq!(client.events(&bobs, None, 50).await.unwrap().items.len(), 1);
    assert!(ok(drover(&url, &["events", "--topic", "token.transfer", "--from-height", "1"])).contains(&gold.to_hex()));

    // A block stream from height 1, cut after three blocks and resumed with Last-Event-ID.
    let mut stream = client.stream_blocks(Some(1), None).await.unwrap();
    for height in 1..=3 {
        match stream.next().await.unwrap() {
            Some(StreamMessage::Block(block)) => assert_eq!(block.height, height),
            other => panic!("{other:?}"),
        }
    }
    let last = stream.last_event_id().map(str::to_owned);
    assert_eq!(last.as_deref(), Some("3"));
    drop(stream);
    let mut resumed = client.stream_blocks(None, last.as_deref()).await.unwrap();
    match resumed.next().await.unwrap() {
        Some(StreamMessage::Block(block)) => {
            assert_eq!(block.height, 4);
            assert!(block.transactions.is_some());
        }
        other => panic!("{other:?}"),
    }
    // A transaction's stream says its outcome once; an event stream catches up on its filter.
    let mut outcome = client.stream_transaction(&transfer.tx_hash).await.unwrap();
    assert!(matches!(outcome.next().await.unwrap(), Some(StreamMessage::Receipt(r)) if r.tx_hash == transfer.tx_hash));
    assert!(outcome.next().await.unwrap().is_none());
    let mut events = client.stream_events(&filter, None).await.unwrap();
    assert!(matches!(events.next().await.unwrap(), Some(StreamMessage::Event(e)) if e.address == gold));
    let watched = ok(drover(&url, &["watch", "blocks", "--from-height", "1", "--count", "2"]));
    assert_eq!(watched.lines().count(), 2, "{watched}");

    // The CLI sizes a call's limits from a simulation, and simulates without sending.
    let keys = tempfile::tempdir().unwrap();
    let key_file = keys.path().join("alice.key");
    alice.save(&key_file).unwrap();
    let key_file = key_file.to_str().unwrap();
    let fill = format!("0x{}", hex::encode([1u32.to_le_bytes(), 7u32.to_le_bytes()].concat()));
    let called = ok(drover(&url, &["call", &bulk.to_hex(), "fill", "--hex", &fill, "--key", key_file]));
    assert!(called.contains("limits") && called.contains("simulated"), "{called}");
    let simulated = ok(drover(
        &url,
        &["simulate", "call", &bulk.to_hex(), "walk", "--hex", &fill, "--from", &alice.address().to_hex(), "--trace"],
    ));
    assert!(simulated.contains("success"), "{simulated}");
    // Its trace names the handler it entered, with what it spent.
    let entered = format!("{bulk} walk: success, ");
    assert!(simulated.contains("trace:") && simulated.contains(&entered), "{simulated}");

    // History is durable: the same after a restart.
    let before = client.history(&bob, None, 50).await.unwrap();
    let height = client.height().await.unwrap();
    assert!(node.stop().success());
    node.spawn();
    node.wait_ready(height).await;
    assert_eq!(client.history(&bob, None, 50).await.unwrap().items, before.items);
    assert_eq!(client.indexed_range().await.unwrap().first_height, 1);
}

/// A client that stops reading an event stream while the node has more to send is closed as a
/// slow consumer, told the last id it was sent, and resumes from there with `Last-Event-ID`; the
/// node then stops without waiting on the open stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_event_consumer_is_closed_and_resumes_from_its_last_id() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    let mut node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let alice = Wallet::new(dev_key(0));
    let deploy = example("audit", &["events.emit"]);
    let audit = deploy.actor_address(&alice.address());
    send(&client, &alice, TxBuilder::message(None, 0, deploy.encode())).await;

    // The stream is opened from a socket whose receive buffer is as small as the kernel allows,
    // and then not read: what the node sends waits in its buffers.
    let address: std::net::SocketAddr = node.url.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    let request = format!("GET /stream/events?emitter={audit} HTTP/1.1\r\nHost: {address}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 512];
    let read = stream.read(&mut head).await.unwrap();
    assert!(head[..read].starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&head[..read]));

    // Each call emits 32 events of 16 KiB (about 1 MiB of messages): a handful overflows what
    // the stream may hold for a client (1 MiB) plus what the sockets take.
    let emit = |n: u32| Message {
        handler: "emit".into(),
        payload: [n.to_le_bytes(), 16_384u32.to_le_bytes()].iter().flatten().copied().collect(),
    };
    for _ in 0..8 {
        let receipt = send(&client, &alice, TxBuilder::message(Some(audit), 0, emit(32).encode())).await;
        assert_eq!(receipt.events.len(), 32);
    }

    // Read it all now: the node ended the stream with a `closed` message naming the last id sent.
    let mut body = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(30), stream.read_to_end(&mut body))
        .await
        .expect("the node closes a slow consumer's stream")
        .unwrap();
    let text = String::from_utf8_lossy(&body);
    let closed = text.split("event: closed\ndata: ").nth(1).expect("a closed message");
    let closed: serde_json::Value = serde_json::from_str(closed.lines().next().unwrap()).unwrap();
    assert!(closed["reason"].as_str().unwrap().starts_with("slow consumer"), "{closed}");
    let last = closed["last_event_id"].as_str().expect("the last id sent").to_owned();

    // Resumed from that id, the stream carries on with the event right after it (the one an
    // event query from that cursor answers first), not from the start nor from the tip.
    let filter = EventFilter { emitters: vec![audit], ..EventFilter::default() };
    let all = EventFilter { from_height: Some(1), ..filter.clone() };
    let next = client.events(&all, Some(&last), 1).await.unwrap().items.remove(0);
    let mut resumed = client.stream_events(&filter, Some(&last)).await.unwrap();
    match resumed.next().await.unwrap() {
        Some(StreamMessage::Event(event)) => {
            assert_eq!(event, next);
            assert_eq!(resumed.last_event_id(), Some(next.cursor.as_str()));
        }
        other => panic!("{other:?}"),
    }

    // A stream never ends by itself: a node stopping with one open does not wait the whole
    // 10 s grace for it (the API gets 2 s to finish its requests).
    let stopping = std::time::Instant::now();
    assert!(node.stop().success());
    let took = stopping.elapsed();
    assert!(took < std::time::Duration::from_secs(9), "stopping took {took:?} with a stream open");
    drop(resumed);
}
