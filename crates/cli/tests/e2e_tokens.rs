//! End-to-end: native tokens through the real node, the CLI and the HTTP API — create, transfer,
//! approve, transfer_from, mint, burn, freeze refusals, balances, allowances and paging; an
//! actor holding and swapping tokens; a balance proven against the finalized state root; bad
//! arguments refused with their codes; the same token state after a restart.

mod common;

use common::*;
use drover_client::{TxBuilder, Wallet, verify};
use drover_node::{devnet::GENESIS_FILE, genesis::Genesis};
use drover_state::token::{Holding, holding_key};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, Transaction,
    api::{ReceiptStatus, TokenInfo},
    args::ArgsBuilder,
    payload::{Deploy, Manifest, Message},
    token::{TOKENS_ADDRESS, TokenCall, token_id},
};
use std::process::Output;

/// A command that fails; its stderr.
fn refused(out: Output) -> String {
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout)
}

/// Signs `builder` from `wallet` and waits for its receipt status.
async fn send(node: &TestNode, wallet: &Wallet, builder: TxBuilder) -> (Transaction, ReceiptStatus) {
    let client = node.client();
    let context = builder.fetch_context(&client, wallet.address()).await.unwrap();
    let tx = builder.sign(&context, wallet).unwrap();
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert!(answer.results[0].block_height.is_some(), "{answer:?}");
    let receipt = client.receipt(&tx.hash()).await.unwrap().expect("a receipt");
    (tx, receipt.status)
}

async fn balance(node: &TestNode, token: &Address, holder: &Address) -> u128 {
    node.client().token_balance(token, holder).await.unwrap().expect("a known token").balance
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_from_creation_to_proof_and_restart() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let keys = tempfile::tempdir().unwrap();
    let (alice, bob) = (Wallet::new(dev_key(0)), Wallet::new(dev_key(1)));
    let key_file = |name: &str, wallet: &Wallet| {
        let path = keys.path().join(name);
        std::fs::write(&path, wallet.secret_key().to_hex()).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (alice_key, bob_key) = (key_file("alice", &alice), key_file("bob", &bob));
    let (a, b) = (alice.address().to_hex(), bob.address().to_hex());

    // Create: 1,000 whole GLD of 2 decimals, capped at 5,000, mintable.
    let out = ok(drover(
        &url,
        &[
            "token",
            "create",
            "--key",
            &alice_key,
            "--name",
            "Gold",
            "--symbol",
            "GLD",
            "--decimals",
            "2",
            "--supply",
            "1000GLD",
            "--max-supply",
            "5000GLD",
            "--mintable",
        ],
    ));
    let gld = token_id(&alice.address(), "GLD");
    assert!(out.contains(&gld.to_hex()), "{out}");
    let info: TokenInfo = node.client().token(&gld).await.unwrap().expect("the token exists");
    assert_eq!((info.supply, info.max_supply, info.owner, info.decimals), (100_000, Some(500_000), alice.address(), 2));
    let again = refused(drover(
        &url,
        &[
            "token",
            "create",
            "--key",
            &alice_key,
            "--name",
            "Gold",
            "--symbol",
            "GLD",
            "--decimals",
            "2",
            "--supply",
            "1",
        ],
    ));
    assert!(again.contains("E1408"), "{again}");

    // Transfer 2.5 GLD (250 base units), approve and transfer_from, mint, burn.
    let g = gld.to_hex();
    ok(drover(&url, &["token", "transfer", &g, "--to", &b, "--amount", "2.5", "--key", &alice_key]));
    assert_eq!(balance(&node, &gld, &bob.address()).await, 250);
    ok(drover(&url, &["token", "approve", &g, "--spender", &b, "--amount", "100", "--key", &alice_key]));
    let out = ok(drover(&url, &["token", "allowance", &g, &a, &b]));
    assert!(out.contains("1 GLD (100 base units)"), "{out}");
    ok(drover(&url, &["token", "transfer-from", &g, "--from", &a, "--to", &b, "--amount", "60", "--key", &bob_key]));
    assert_eq!(
        node.client().token_allowance(&gld, &alice.address(), &bob.address()).await.unwrap().unwrap().allowance,
        40
    );
    let over = refused(drover(
        &url,
        &["token", "transfer-from", &g, "--from", &a, "--to", &b, "--amount", "41", "--key", &bob_key],
    ));
    assert!(over.contains("E1403"), "{over}");
    ok(drover(&url, &["token", "mint", &g, "--to", &b, "--amount", "10GLD", "--key", &alice_key]));
    let not_owner = refused(drover(&url, &["token", "mint", &g, "--to", &b, "--amount", "1", "--key", &bob_key]));
    assert!(not_owner.contains("E1404"), "{not_owner}");
    ok(drover(&url, &["token", "burn", &g, "--amount", "10", "--key", &bob_key]));
    assert_eq!(balance(&node, &gld, &bob.address()).await, 250 + 60 + 1_000 - 10);
    assert_eq!(node.client().token(&gld).await.unwrap().unwrap().supply, 100_000 + 1_000 - 10);

    // Freeze: the frozen holder neither sends nor receives; unfreeze restores both.
    ok(drover(&url, &["token", "freeze", &g, "--account", &b, "--key", &alice_key]));
    let frozen = refused(drover(&url, &["token", "transfer", &g, "--to", &a, "--amount", "1", "--key", &bob_key]));
    assert!(frozen.contains("E1407"), "{frozen}");
    let frozen = refused(drover(&url, &["token", "transfer", &g, "--to", &b, "--amount", "1", "--key", &alice_key]));
    assert!(frozen.contains("E1407"), "{frozen}");
    let held = node.client().account_tokens(&bob.address(), 0, 50).await.unwrap();
    assert!(held.tokens[0].frozen);
    ok(drover(&url, &["token", "unfreeze", &g, "--account", &b, "--key", &alice_key]));
    ok(drover(&url, &["token", "transfer", &g, "--to", &a, "--amount", "1", "--key", &bob_key]));

    // A second token, listed after the first; paging and holdings.
    ok(drover(
        &url,
        &[
            "token",
            "create",
            "--key",
            &bob_key,
            "--name",
            "Silver",
            "--symbol",
            "SLV",
            "--decimals",
            "0",
            "--supply",
            "1000",
        ],
    ));
    let slv = token_id(&bob.address(), "SLV");
    let list = node.client().tokens(1, 1).await.unwrap();
    assert_eq!((list.total_count, list.tokens.len(), list.tokens[0].token_id), (2, 1, slv));
    let held = node.client().account_tokens(&bob.address(), 0, 50).await.unwrap();
    assert_eq!(held.total_count, 2);
    let (status, body) = get_raw(&url, &format!("/token/{}", Address([0xee; 20]).to_hex())).await;
    assert_error(status, &body, 404, 1002);
    let (status, body) = get_raw(&url, &format!("/token/{g}/balance/0x1234")).await;
    assert_error(status, &body, 400, 3001);
    let (status, body) = get_raw(&url, &format!("/token/{g}/balance/{}", Address([0xdd; 20]).to_hex())).await;
    assert_eq!((status, body["balance"].as_str()), (200, Some("0")));

    // An actor holds and swaps tokens: 1 GLD base unit for 2 SLV.
    let code = wat::parse_file(format!("{}/../../actors/exchange.wat", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let deploy = Deploy {
        code,
        manifest: Manifest::new(vec!["storage.kv".into(), "token.use".into()]),
        salt: Vec::new(),
        init: None,
    };
    let exchange = deploy.actor_address(&bob.address());
    let (_, status) =
        send(&node, &bob, TxBuilder::message(None, 0, deploy.encode()).cycles_limit(5_000_000).cells_limit(200_000))
            .await;
    assert_eq!(status, ReceiptStatus::Success);
    let call = |handler: &str, payload: Vec<u8>| {
        TxBuilder::message(Some(exchange), 0, Message { handler: handler.into(), payload }.encode())
            .cycles_limit(2_000_000)
            .cells_limit(10_000)
    };
    let init = [&slv.0[..], &gld.0, &2u64.to_le_bytes()].concat();
    assert_eq!(send(&node, &bob, call("init", init)).await.1, ReceiptStatus::Success);
    let stock = TxBuilder::token(&TokenCall::Transfer { token: slv, to: exchange, amount: 500 });
    assert_eq!(send(&node, &bob, stock).await.1, ReceiptStatus::Success);
    let approve = TxBuilder::token(&TokenCall::Approve { token: gld, spender: exchange, amount: 100 });
    assert_eq!(send(&node, &alice, approve).await.1, ReceiptStatus::Success);
    assert_eq!(send(&node, &alice, call("swap", 100u64.to_le_bytes().to_vec())).await.1, ReceiptStatus::Success);
    assert_eq!(balance(&node, &slv, &alice.address()).await, 200);
    assert_eq!(balance(&node, &gld, &exchange).await, 100);
    assert_eq!(balance(&node, &slv, &exchange).await, 300);
    // Without an allowance left the swap reverts whole.
    assert_ne!(send(&node, &alice, call("swap", 1u64.to_le_bytes().to_vec())).await.1, ReceiptStatus::Success);
    assert_eq!(balance(&node, &slv, &alice.address()).await, 200);

    // A call that is not one of the actor's calls (an argument missing) is invalid, and so is
    // value sent to the tokens actor: both are refused at admission.
    let raw = Message { handler: "transfer".into(), payload: ArgsBuilder::new().address("token", &gld).encode() };
    let builder = TxBuilder::message(Some(TOKENS_ADDRESS), 0, raw.encode()).cycles_limit(100_000).cells_limit(1_000);
    let context = builder.fetch_context(&node.client(), alice.address()).await.unwrap();
    let (status, body) = submit_raw(&url, &[builder.sign(&context, &alice).unwrap()]).await;
    assert_error(status, &body, 400, 2012);
    let with_value =
        TxBuilder::message(Some(TOKENS_ADDRESS), 1, TokenCall::Burn { token: gld, amount: 1 }.message().encode())
            .cycles_limit(100_000)
            .cells_limit(1_000);
    let context = with_value.fetch_context(&node.client(), alice.address()).await.unwrap();
    let (status, body) = submit_raw(&url, &[with_value.sign(&context, &alice).unwrap()]).await;
    assert_error(status, &body, 400, 2012);

    // A balance proven against the finalized state root, from the genesis identity alone.
    let identity = Genesis::load(&node.dir.path().join(GENESIS_FILE)).unwrap().identity;
    let key = holding_key(&gld, &bob.address());
    let proof = node.client().proof_storage(&TOKENS_ADDRESS, &key, None).await.unwrap();
    let verified = verify::verify_storage(&proof, &identity, &TOKENS_ADDRESS, &key).unwrap();
    let proven = Holding::decode(&verified.value.expect("a holding")).unwrap();
    assert_eq!(proven.balance, balance(&node, &gld, &bob.address()).await);
    let out = ok(drover(
        &url,
        &[
            "verify",
            "storage",
            &TOKENS_ADDRESS.to_hex(),
            &format!("0x{}", hex::encode(&key)),
            "--genesis",
            node.dir.path().join(GENESIS_FILE).to_str().unwrap(),
        ],
    ));
    assert!(out.contains("verified"), "{out}");

    // The same token state after a restart.
    let before = (
        node.client().tokens(0, 50).await.unwrap(),
        node.client().account_tokens(&bob.address(), 0, 50).await.unwrap(),
        node.client().account_tokens(&exchange, 0, 50).await.unwrap(),
    );
    node.stop();
    node.spawn();
    node.wait_ready(1).await;
    let after = (
        node.client().tokens(0, 50).await.unwrap(),
        node.client().account_tokens(&bob.address(), 0, 50).await.unwrap(),
        node.client().account_tokens(&exchange, 0, 50).await.unwrap(),
    );
    assert_eq!(before, after);
    node.stop();
}
