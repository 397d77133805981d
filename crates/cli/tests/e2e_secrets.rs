//! End-to-end: secrets through the real node and the CLI. An owner stores a secret for two
//! readers; each reads it back with its own key; a third account cannot; revoking a reader
//! removes its envelope; a tampered envelope fails to open with a clear error; the chain only
//! ever holds ciphertext; a job naming the secret is run by a runner that opens it.

mod common;

use common::*;
use drover_client::{Wallet, secrets::open};

fn key_file(dir: &std::path::Path, index: u32) -> String {
    let path = dir.join(format!("dev-{index}.key"));
    std::fs::write(&path, Wallet::new(dev_key(index)).secret_key().to_hex()).unwrap();
    path.to_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_readers_read_a_secret_others_cannot_and_revoked_ones_lose_it() {
    let node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let client = node.client();
    let dir = tempfile::tempdir().unwrap();
    let (owner, r1, r2, stranger) =
        (key_file(dir.path(), 0), key_file(dir.path(), 1), key_file(dir.path(), 2), key_file(dir.path(), 3));
    let pubkey = |key: &str| {
        let out = ok(drover(&url, &["--json", "secrets", "pubkey", "--key", key]));
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["public_key"].as_str().unwrap().to_owned()
    };
    let (p1, p2) = (pubkey(&r1), pubkey(&r2));
    let value = dir.path().join("value");
    std::fs::write(&value, b"postgres://app:s3cret@db").unwrap();
    ok(drover(
        &url,
        &[
            "secrets",
            "set",
            "db-url",
            "--reader",
            &format!("{p1},{p2}"),
            "--file",
            value.to_str().unwrap(),
            "--key",
            &owner,
        ],
    ));
    let owner_address = Wallet::new(dev_key(0)).address().to_hex();

    // Both readers read it back; the chain holds ciphertext only.
    for reader in [&r1, &r2] {
        let out = ok(drover(&url, &["secrets", "get", &owner_address, "db-url", "--key", reader]));
        assert!(out.contains("postgres://app:s3cret@db"), "{out}");
    }
    let list = ok(drover(&url, &["secrets", "list", &owner_address]));
    assert!(list.contains("db-url") && !list.contains("s3cret"), "{list}");
    let r1_address = Wallet::new(dev_key(1)).address();
    let envelope = client.secret_envelope(&dev_key(0).address(), "db-url", &r1_address).await.unwrap().unwrap();
    assert!(!String::from_utf8_lossy(&envelope.envelope).contains("s3cret"));

    // A stranger has no envelope, and cannot open someone else's.
    let out = drover(&url, &["secrets", "get", &owner_address, "db-url", "--key", &stranger]);
    assert!(!out.status.success());
    let other = open(&dev_key(0).address(), "db-url", &dev_key(3), &envelope.envelope);
    assert!(other.is_err());
    // Tampered ciphertext fails with a clear error.
    let mut tampered = envelope.envelope.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 1;
    let error = open(&dev_key(0).address(), "db-url", &dev_key(1), &tampered).unwrap_err();
    assert!(error.to_string().contains("does not open"), "{error}");

    // A job naming the secret: the runner (a reader) opens it and its executor sees the value.
    let log = std::fs::File::create(dir.path().join("runner.log")).unwrap();
    let mut runner = std::process::Command::new(BIN)
        .args(["--rpc-url", &url, "runner", "--key", &r1, "--executors", "echo"])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let input = drover_types::args::ArgsBuilder::new()
        .bytes("input", b"connect")
        .raw("secrets", {
            let mut w = drover_types::cbor::Writer::with_capacity(64);
            w.array(1).array(2).bytes(&dev_key(0).address().0).text("db-url");
            w.into_inner()
        })
        .encode();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while client.active_runners(0, 10).await.unwrap().total_count == 0 {
        assert!(std::time::Instant::now() < deadline, "the runner did not register");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    ok(drover(
        &url,
        &[
            "--json",
            "job",
            "submit",
            "--type",
            "echo",
            "--input-hex",
            &hex::encode(&input),
            "--max-price",
            "0",
            "--key",
            &owner,
        ],
    ));
    let job = drover_types::job::job_id(&dev_key(0).address(), 0);
    let verdict = loop {
        if let Some(verdict) = client.job_verified(&job).await.unwrap() {
            break verdict;
        }
        assert!(std::time::Instant::now() < deadline, "the job was not answered");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let _ = runner.kill();
    let _ = runner.wait();
    let opened = drover_types::args::Args::decode(&verdict.result).unwrap();
    assert_eq!(opened.bytes("input").unwrap(), b"connect");
    assert_eq!(opened.map("secrets").unwrap().bytes("db-url").unwrap(), b"postgres://app:s3cret@db");

    // Revoke: the envelope is gone from the chain's state.
    ok(drover(&url, &["secrets", "revoke", "db-url", "--reader", &r1_address.to_hex(), "--key", &owner]));
    let out = drover(&url, &["secrets", "get", &owner_address, "db-url", "--key", &r1]);
    assert!(!out.status.success(), "a revoked reader has no envelope");
    let (status, body) =
        get_raw(&url, &format!("/secrets/{owner_address}/db-url/envelope/{}", r1_address.to_hex())).await;
    assert_error(status, &body, 404, 1002);
    let out = ok(drover(&url, &["secrets", "get", &owner_address, "db-url", "--key", &r2]));
    assert!(out.contains("postgres://"), "the other reader keeps it: {out}");
    let (status, body) =
        get_raw(&url, &format!("/secrets/{owner_address}/bad%20name/envelope/{}", r1_address.to_hex())).await;
    assert_error(status, &body, 400, 1001);
}
