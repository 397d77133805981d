//! End-to-end: secrets through the real node and the CLI. An owner stores a secret for two
//! readers; each reads it back with its own key; a third account cannot; revoking a reader
//! removes its envelope; a tampered envelope fails to open with a clear error; the chain only
//! ever holds ciphertext; a job naming the secret is run by a reader that opens it for the
//! owner's wasm job, and opens nothing for a stranger's jobs naming it.

mod common;

use common::*;
use drover_client::{Wallet, secrets::open};

/// A job module that returns its input with the low bit of every byte flipped.
const FLIP_LOW_BIT: &str = r#"(module
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "run") (param $ptr i32) (param $len i32) (result i64)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (i32.store8 (i32.add (local.get $ptr) (local.get $i))
          (i32.xor (i32.load8_u (i32.add (local.get $ptr) (local.get $i))) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32)) (i64.extend_i32_u (local.get $len)))))"#;

/// A job module that returns its input whole (what a thief would submit).
const RETURN_INPUT: &str = r#"(module
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "run") (param $ptr i32) (param $len i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32)) (i64.extend_i32_u (local.get $len)))))"#;

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

    // Jobs naming the secret, run by a reader that offers echo and wasm. The owner's wasm job
    // gets the value (its module flips the low bit of every byte it sees, so the result proves
    // what it saw without holding the plaintext); a stranger's jobs naming the owner's secret
    // get no plaintext, whether their executor would echo it (wasm returning its input whole)
    // or is echo itself.
    let log = std::fs::File::create(dir.path().join("runner.log")).unwrap();
    let mut runner = std::process::Command::new(BIN)
        .args(["--rpc-url", &url, "runner", "--key", &r1, "--executors", "echo,wasm"])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while client.active_runners(0, 10).await.unwrap().total_count == 0 {
        assert!(std::time::Instant::now() < deadline, "the runner did not register");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let naming = |job_input: &[u8]| {
        drover_types::args::ArgsBuilder::new()
            .bytes("input", job_input)
            .raw("secrets", {
                let mut w = drover_types::cbor::Writer::with_capacity(64);
                w.array(1).array(2).bytes(&dev_key(0).address().0).text("db-url");
                w.into_inner()
            })
            .encode()
    };
    let wasm_job = |module: &str| {
        let module = wat::parse_str(module).unwrap();
        drover_types::args::ArgsBuilder::new()
            .bytes("module", &module)
            .bytes("input", b"connect")
            .uint("fuel", 1_000_000)
            .encode()
    };
    let submit = |key: &str, job_type: &str, input: &[u8]| {
        ok(drover(
            &url,
            &[
                "job",
                "submit",
                "--type",
                job_type,
                "--input-hex",
                &hex::encode(input),
                "--max-price",
                "0",
                "--key",
                key,
            ],
        ));
    };
    submit(&owner, "wasm", &naming(&wasm_job(FLIP_LOW_BIT)));
    submit(&stranger, "wasm", &naming(&wasm_job(RETURN_INPUT)));
    submit(&stranger, "echo", &naming(b"connect"));
    let jobs = [
        drover_types::job::job_id(&dev_key(0).address(), 0),
        drover_types::job::job_id(&dev_key(3).address(), 0),
        drover_types::job::job_id(&dev_key(3).address(), 1),
    ];
    let mut verdicts = Vec::new();
    for job in jobs {
        verdicts.push(loop {
            if let Some(verdict) = client.job_verified(&job).await.unwrap() {
                break verdict.result;
            }
            assert!(std::time::Instant::now() < deadline, "job {job} was not answered");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        });
    }
    let _ = runner.kill();
    let _ = runner.wait();
    let seen: Vec<u8> = verdicts[0].iter().map(|b| b ^ 1).collect();
    let opened = drover_types::args::Args::decode(&seen).unwrap();
    assert_eq!(opened.bytes("input").unwrap(), b"connect");
    assert_eq!(opened.map("secrets").unwrap().bytes("db-url").unwrap(), b"postgres://app:s3cret@db");
    let refusal = |verdict: &[u8]| drover_types::args::Args::decode(verdict).unwrap().text("error").unwrap().to_owned();
    assert!(refusal(&verdicts[1]).contains("not to the job's submitter"), "{}", refusal(&verdicts[1]));
    assert!(refusal(&verdicts[2]).contains("echo jobs are not given secrets"), "{}", refusal(&verdicts[2]));
    // Nothing the chain holds carries the value: every transaction of every block (secrets as
    // envelopes, jobs, results).
    let plaintext = b"s3cret";
    let tip = client.height().await.unwrap();
    for height in 1..=tip {
        let block = client.block(drover_types::BlockSelector::Height(height)).await.unwrap().unwrap();
        for hash in block.transactions {
            let tx = client.transaction(&hash).await.unwrap().unwrap();
            assert!(!tx.payload.windows(plaintext.len()).any(|w| w == plaintext), "plaintext in {hash}");
        }
    }

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
