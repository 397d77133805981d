//! End-to-end: the Rust example actors of `actors/rust` (their own workspace; their unit tests on
//! the SDK's mock host run in `e2e_actor_kit`, as `docs/actors.md` shows them) are built for
//! wasm32 by `drover actor build` (which checks each module with the validator's rules), deployed from their crate directories with `drover
//! deploy` and exercised through the CLI on a real devnet: the counter counts (and its read is
//! traced), the vault holds native tokens for its depositors, the alarm's timer rings and its note
//! arrives through the mailbox, and the job client buys an echo from a real `drover runner` and
//! keeps the dispatcher's callback.

mod common;

use common::*;
use drover_types::{
    Address, H256,
    api::{ReceiptStatus, TraceStep},
    job::{JobStatus, callback_payload, job_id},
};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// The example actors' workspace.
fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../actors/rust")
}

/// Where nested cargo runs build: apart from this test's own target directory (whose lock the
/// running `cargo test` may hold), shared by the tests so the SDK is compiled once.
fn nested_target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("actors")
}

/// The CLI against `url`, in `dir`, with nested builds in [`nested_target_dir`].
fn drover_in(url: &str, dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(["--rpc-url", url])
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", nested_target_dir())
        .env_remove("DROVER_KEY")
        .output()
        .unwrap()
}

/// The JSON answer of a read, whatever its status (a reverted read prints it and fails).
fn read_answer(url: &str, actor: Address, handler: &str) -> serde_json::Value {
    let out = drover(url, &["--json", "read", &actor.to_string(), handler]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("not JSON ({e}): {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn json(out: std::process::Output) -> serde_json::Value {
    let stdout = ok(out);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// A dev key written to a file in `dir`.
fn key_file(dir: &Path, index: u32) -> PathBuf {
    let path = dir.join(format!("dev-{index}.key"));
    std::fs::write(&path, dev_key(index).to_hex()).unwrap();
    path
}

/// Builds an example with `drover actor build` and deploys it from its directory; answers its
/// address (checked against `drover actor address`).
fn build_and_deploy(url: &str, name: &str, key: &Path) -> Address {
    let dir = examples().join(name);
    let built = json(drover_in(url, &dir, &["--json", "actor", "build"]));
    assert_eq!(built["valid"], true, "{built}");
    assert!(built["size"].as_u64().unwrap() < 64 * 1024, "a small module: {built}");
    let key = key.to_str().unwrap();
    let predicted = ok(drover_in(url, &dir, &["actor", "address", "--key", key, "--salt", "e2e"]));
    let deployed = json(drover_in(url, &dir, &["--json", "deploy", ".", "--key", key, "--salt", "e2e"]));
    assert_eq!(deployed["results"][0]["status"], "success", "{deployed}");
    let actor: Address = predicted.trim().parse().unwrap();
    let summary = json(drover_in(url, &dir, &["--json", "actor", &actor.to_string()]));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(summary["manifest"], manifest, "deployed with the crate's manifest.json");
    actor
}

/// `drover call` of a handler with hex input; answers the JSON answer of the wait.
fn call(url: &str, key: &Path, actor: Address, handler: &str, input: &[u8], extra: &[&str]) -> serde_json::Value {
    let (actor, input) = (actor.to_string(), hex::encode(input));
    let mut args = vec!["--json", "call", &actor, handler, "--payload-hex", &input, "--key", key.to_str().unwrap()];
    args.extend(extra);
    let answer = json(drover(url, &args));
    assert_eq!(answer["results"][0]["status"], "success", "{handler}: {answer}");
    answer
}

/// `drover read` of a handler with hex input: the result's bytes.
fn read(url: &str, actor: Address, handler: &str, input: &[u8]) -> Vec<u8> {
    let answer =
        json(drover(url, &["--json", "read", &actor.to_string(), handler, "--payload-hex", &hex::encode(input)]));
    assert_eq!(answer["status"], "success", "{handler}: {answer}");
    base64::Engine::decode(&base64::engine::general_purpose::STANDARD, answer["result"].as_str().unwrap()).unwrap()
}

fn u128_at(bytes: &[u8]) -> u128 {
    u128::from_le_bytes(bytes.try_into().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counter_vault_and_alarm_run_on_a_devnet() {
    let node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let client = node.client();
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(dir.path(), 0);
    let me = dev_key(0).address();

    // The counter counts, and its read is traced down to the key it read.
    let counter = build_and_deploy(&url, "counter", &key);
    call(&url, &key, counter, "increment", b"", &[]);
    call(&url, &key, counter, "increment", b"", &[]);
    assert_eq!(read(&url, counter, "get", b""), 2u64.to_le_bytes());
    let traced = json(drover(&url, &["--json", "read", &counter.to_string(), "get", "--trace"]));
    let root: drover_types::api::CallTrace = serde_json::from_value(traced["trace"]["call"].clone()).unwrap();
    assert_eq!((root.actor, root.handler.as_str(), root.status), (counter, "get", ReceiptStatus::Success));
    assert_eq!(root.cycles_used, traced["cycles_used"].as_u64().unwrap());
    assert!(
        matches!(&root.steps[..], [TraceStep::StorageGet { key, value: Some(v) }] if key == b"count" && v.head == 2u64.to_le_bytes()),
        "{:?}",
        root.steps
    );
    let text = ok(drover(&url, &["read", &counter.to_string(), "get", "--trace"]));
    assert!(text.contains("trace:") && text.contains(r#"read 0x636f756e74 ("count")"#), "{text}");

    // The vault holds a token for its depositor, moving shares only with the tokens.
    let vault = build_and_deploy(&url, "vault", &key);
    let key_arg = key.to_str().unwrap();
    ok(drover(
        &url,
        &[
            "token",
            "create",
            "--name",
            "Gold",
            "--symbol",
            "GLD",
            "--decimals",
            "0",
            "--supply",
            "1000",
            "--key",
            key_arg,
        ],
    ));
    let token = drover_types::token::token_id(&me, "GLD");
    let (token_text, vault_text) = (token.to_string(), vault.to_string());
    ok(drover(&url, &["token", "approve", &token_text, "--spender", &vault_text, "--amount", "300", "--key", key_arg]));
    let deposit = [&token.0[..], &250u128.to_le_bytes()].concat();
    call(&url, &key, vault, "deposit", &deposit, &[]);
    let share_query = [&token.0[..], &me.0].concat();
    assert_eq!(u128_at(&read(&url, vault, "share", &share_query)), 250);
    assert_eq!(u128_at(&read(&url, vault, "held", &token.0)), 250, "the tokens actor agrees");
    // A deposit beyond the allowance is refused by the tokens actor, and the vault reverts: the
    // simulation that sizes the call's limits finds it, so nothing is sent.
    let nonce = client.account(&me).await.unwrap().unwrap().nonce;
    let refused = drover(
        &url,
        &["--json", "call", &vault_text, "deposit", "--payload-hex", &hex::encode(&deposit), "--key", key_arg],
    );
    assert!(!refused.status.success());
    let refused: serde_json::Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(refused["status"], "reverted", "{refused}");
    assert!(refused["revert_reason"].as_str().unwrap().starts_with("E1403"), "{refused}");
    assert_eq!(client.account(&me).await.unwrap().unwrap().nonce, nonce, "nothing was sent");
    let withdraw = [&token.0[..], &100u128.to_le_bytes()].concat();
    call(&url, &key, vault, "withdraw", &withdraw, &[]);
    assert_eq!(u128_at(&read(&url, vault, "share", &share_query)), 150);
    let balance = client.token_balance(&token, &me).await.unwrap().unwrap().balance;
    assert_eq!(balance, 1000 - 250 + 100);

    // The alarm pays for its timer and its note from its balance.
    let alarm = build_and_deploy(&url, "alarm", &key);
    ok(drover(&url, &["transfer", "--to", &alarm.to_string(), "--amount", "1drv", "--wait", "--key", key_arg]));
    let at = client.height().await.unwrap() + 4;
    call(&url, &key, alarm, "arm", &at.to_le_bytes(), &[]);
    let status = until("the note", || async {
        let status = read(&url, alarm, "status", b"");
        (u64::from_le_bytes(status[8..16].try_into().unwrap()) > 0).then_some(status)
    })
    .await;
    let rang_at = u64::from_le_bytes(status[..8].try_into().unwrap());
    let noted_at = u64::from_le_bytes(status[8..16].try_into().unwrap());
    // Deliveries run after the block's timers, so a note sent by a fire can arrive in its block.
    assert!(rang_at >= at && noted_at >= rang_at, "rang at {rang_at}, noted at {noted_at}");
    assert_eq!(&status[16..], alarm.0, "the note came from the alarm itself");
    let runs = ok(drover(&url, &["actor", &alarm.to_string(), "runs"]));
    assert!(runs.contains("ring success") && runs.contains("noted success"), "{runs}");
}

/// A running `drover runner` daemon, stopped by PID when dropped.
struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_job_client_buys_an_echo_from_a_runner() {
    const PRICE: u128 = 1_000;
    let node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let client = node.client();
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(dir.path(), 0);
    let runner_key = key_file(dir.path(), 3);
    let log = std::fs::File::create(dir.path().join("runner.log")).unwrap();
    let _runner = Daemon(
        Command::new(BIN)
            .args(["--rpc-url", &url, "runner", "--key"])
            .arg(&runner_key)
            .args(["--executors", "echo", "--price", &PRICE.to_string(), "--heartbeat-blocks", "5"])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    until("a healthy runner", || async {
        let list = client.active_runners(0, 10).await.ok()?;
        (list.total_count == 1 && list.runners[0].health == "healthy").then_some(())
    })
    .await;

    let jobs = build_and_deploy(&url, "job-client", &key);
    let input = [&PRICE.to_le_bytes()[..], b"hello from rust"].concat();
    let answer = call(&url, &key, jobs, "submit", &input, &["--value", "1drv"]);
    assert!(answer["results"][0]["block_height"].is_u64(), "{answer}");
    let job: H256 = job_id(&jobs, 0);
    let kept = until("the dispatcher's callback", || async {
        let answer = read_answer(&url, jobs, "answer");
        (answer["status"] == "success").then(|| answer["result"].as_str().unwrap().to_owned())
    })
    .await;
    let kept = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, kept).unwrap();
    assert_eq!(kept, callback_payload(&job, JobStatus::Completed, b"hello from rust"));
    let info = client.job(&job).await.unwrap().expect("the job");
    assert_eq!((info.status.as_str(), info.submitter), ("completed", jobs));
}
