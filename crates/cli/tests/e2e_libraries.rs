//! End-to-end: account libraries through the real node, the CLI and the HTTP API — publish a
//! library, run it from an actor (its storage lands in the actor), re-publish while a caller
//! pins the first version, read versions back, 9000 for unknown ones, and removal.

mod common;

use common::*;
use drover_client::{TxBuilder, Wallet};
use drover_types::{
    api::ReceiptStatus,
    payload::{Deploy, Manifest, Message},
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_is_published_run_in_the_callers_context_and_removed() {
    let node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let client = node.client();
    let dir = tempfile::tempdir().unwrap();
    let publisher = Wallet::new(dev_key(0));
    let key = dir.path().join("publisher.key");
    std::fs::write(&key, publisher.secret_key().to_hex()).unwrap();
    let key = key.to_str().unwrap();
    let actors = format!("{}/../../actors", env!("CARGO_MANIFEST_DIR"));
    ok(drover(
        &url,
        &[
            "library",
            "publish",
            &format!("{actors}/lib_fixed.wat"),
            "--name",
            "fixed",
            "--manifest",
            "storage.kv",
            "--key",
            key,
        ],
    ));
    let p = publisher.address();
    let info = client.library(&p, "fixed", None).await.unwrap().expect("published");
    assert_eq!((info.version, info.manifest.entitlements(), info.removed), (1, &["storage.kv".to_owned()][..], false));

    // An actor runs it in its own context.
    let user = Wallet::new(dev_key(1));
    let deploy = Deploy {
        code: wat::parse_file(format!("{actors}/lib_user.wat")).unwrap(),
        manifest: Manifest::new(vec!["storage.kv".into()]),
        salt: Vec::new(),
        init: None,
    };
    let actor = deploy.actor_address(&user.address());
    let send = |builder: TxBuilder| {
        let client = client.clone();
        let user = user.clone();
        async move {
            let context = builder.fetch_context(&client, user.address()).await.unwrap();
            let tx = builder.sign(&context, &user).unwrap();
            client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
            client.receipt(&tx.hash()).await.unwrap().expect("a receipt")
        }
    };
    let receipt = send(TxBuilder::message(None, 0, deploy.encode()).cycles_limit(5_000_000).cells_limit(100_000)).await;
    assert_eq!(receipt.status, ReceiptStatus::Success);
    let call = |handler: &str, version: u32, rest: &[u8]| {
        let payload = [&p.0[..], &version.to_le_bytes(), rest].concat();
        TxBuilder::message(Some(actor), 0, Message { handler: handler.into(), payload }.encode())
            .cycles_limit(2_000_000)
            .cells_limit(10_000)
    };
    let args = [6u64.to_le_bytes(), 7u64.to_le_bytes(), 2u64.to_le_bytes()].concat();
    assert_eq!(send(call("compute", 0, &args)).await.status, ReceiptStatus::Success);
    assert_eq!(client.state_value(&actor, b"out").await.unwrap().value, Some(21u64.to_le_bytes().to_vec()));
    assert_eq!(send(call("memo", 1, b"kept here")).await.status, ReceiptStatus::Success);
    assert_eq!(client.state_value(&actor, b"memo").await.unwrap().value, Some(b"kept here".to_vec()));

    // Version 2 (the echo actor's code: no mul_div); version 1 stays callable and listed.
    ok(drover(&url, &["library", "publish", &format!("{actors}/echo.wat"), "--name", "fixed", "--key", key]));
    let out = ok(drover(&url, &["library", "info", &p.to_hex(), "fixed", "--version", "1"]));
    assert!(out.contains("1 of 2"), "{out}");
    assert_eq!(send(call("compute", 1, &args)).await.status, ReceiptStatus::Success, "pinned to version 1");
    assert_ne!(send(call("compute", 0, &args)).await.status, ReceiptStatus::Success, "the latest has no mul_div");
    let (status, body) = get_raw(&url, &format!("/library/{}/fixed?version=3", p.to_hex())).await;
    assert_error(status, &body, 404, 9000);
    let (_, latest) = get_raw(&url, &format!("/library/{}/fixed?version=0", p.to_hex())).await;
    assert_eq!(latest["version"], 2, "version 0 is the latest, as in library_call");
    let (status, body) = get_raw(&url, &format!("/library/{}/nope", p.to_hex())).await;
    assert_error(status, &body, 404, 9000);
    let (_, list) = get_raw(&url, &format!("/library/{}", p.to_hex())).await;
    assert_eq!(list["total_count"], 1);

    // Removed: no version runs; the record stays readable.
    ok(drover(&url, &["library", "remove", "fixed", "--key", key]));
    assert_ne!(send(call("compute", 1, &args)).await.status, ReceiptStatus::Success);
    assert!(client.library(&p, "fixed", None).await.unwrap().unwrap().removed);
}
