//! End-to-end: jobs through the real node, three real `drover runner` daemons and the HTTP API.
//!
//! An actor submits a job asking three runners with majority 2; one runner is `--faulty`; the
//! verified result arrives in the actor's mailbox handler; the honest runners are paid, the
//! faulty one is not and loses reputation; the rest of the escrow is refunded; every figure is
//! read back through the API and adds up to the base unit. Then a runner is killed in the middle
//! of a job that needs it, which fails at its deadline with its escrow refunded; the CLI's `job`
//! commands; the signed result flow refusing a wrong signer and another flow's transaction; and
//! a daemon killed right after answering that does not answer again once restarted. The daemons
//! poll once an hour, so every step here also shows that a daemon looks at the chain when its
//! stream of finalized blocks says a block came, and posts each result as soon as it is ready.

mod common;

use common::*;
use drover_client::{Client, TxBuilder, Wallet};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, H256, Transaction,
    api::{ReceiptStatus, SignedFlowRequest},
    job::{
        Callback, JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, JobStatus, Verification, VerificationMode,
        callback_payload, job_id,
    },
    payload::{Deploy, Manifest, Message},
};
use std::process::{Child, Command};
use std::time::Duration;

const PRICE: u128 = 1_000;

/// A running `drover runner` daemon, stopped by PID when dropped.
struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a runner daemon that polls once an hour: every look it takes here comes from a block
/// its stream of finalized blocks announced, and each result is posted as soon as it is ready.
fn start_runner(url: &str, dir: &std::path::Path, wallet: &Wallet, extra: &[&str]) -> Daemon {
    let key = dir.join(format!("{}.key", wallet.address()));
    std::fs::write(&key, wallet.secret_key().to_hex()).unwrap();
    let log = std::fs::File::create(dir.join(format!("{}.log", wallet.address()))).unwrap();
    let child = Command::new(BIN)
        .args(["--rpc-url", url, "runner", "--key"])
        .arg(&key)
        .args(["--executors", "echo", "--price", &PRICE.to_string(), "--heartbeat-blocks", "5"])
        .args(["--poll-interval-ms", "3600000"])
        .args(extra)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    Daemon(child)
}

async fn send(client: &Client, wallet: &Wallet, builder: TxBuilder) -> (Transaction, drover_types::api::ReceiptInfo) {
    let context = builder.fetch_context(client, wallet.address()).await.unwrap();
    let tx = builder.sign(&context, wallet).unwrap();
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert!(answer.results[0].block_height.is_some(), "{answer:?}");
    let receipt = client.receipt(&tx.hash()).await.unwrap().expect("a receipt");
    (tx, receipt)
}

async fn balance_of(client: &Client, address: Address) -> u128 {
    client.account(&address).await.unwrap().map_or(0, |a| a.balance)
}

/// Submits an echo job of `input` asking one runner through the CLI; answers the runner the
/// chain assigns to `job`.
async fn submit_to_one_runner(client: &Client, url: &str, key: &std::path::Path, input: &str, job: &H256) -> Address {
    let key = key.to_str().unwrap();
    let args =
        ["job", "submit", "--type", "echo", "--input", input, "--runners", "1", "--max-price", "1000", "--key", key];
    ok(drover(url, &args));
    until("an assignment", || async { client.job(job).await.ok()??.assigned_runners.first().copied() }).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_runners_one_faulty_verify_a_job_into_an_actors_mailbox() {
    let node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let client = node.client();
    let dir = tempfile::tempdir().unwrap();
    let owner = Wallet::new(dev_key(0));
    let runners: Vec<Wallet> = (3..6).map(|i| Wallet::new(dev_key(i))).collect();
    let faulty = runners[2].address();
    let mut daemons: Vec<Daemon> = runners
        .iter()
        // The honest runners answer late, so the faulty answer is always counted.
        .map(|r| {
            let extra: &[&str] = if r.address() == faulty { &["--faulty"] } else { &["--answer-delay-ms", "1500"] };
            start_runner(&url, dir.path(), r, extra)
        })
        .collect();
    until("three healthy runners", || async {
        let list = client.active_runners(0, 10).await.ok()?;
        (list.total_count == 3 && list.runners.iter().all(|r| r.health == "healthy")).then_some(())
    })
    .await;

    // The actor that buys the work.
    let code = wat::parse_file(format!("{}/../../actors/job_client.wat", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let deploy = Deploy {
        code,
        manifest: Manifest::new(vec!["storage.kv".into(), "job.submit".into()]),
        salt: Vec::new(),
        init: None,
    };
    let actor = deploy.actor_address(&owner.address());
    let deployed = TxBuilder::message(None, 0, deploy.encode()).cycles_limit(5_000_000).cells_limit(200_000);
    assert_eq!(send(&client, &owner, deployed).await.1.status, ReceiptStatus::Success);
    let escrow = 3 * PRICE + 1_000_000_000;
    let fund = TxBuilder::transfer(actor, escrow);
    assert_eq!(send(&client, &owner, fund).await.1.status, ReceiptStatus::Success);

    let spec = JobSpec {
        job_type: "echo".into(),
        input: b"hello, runners".to_vec(),
        runners: 3,
        verification: Verification { mode: VerificationMode::Majority, threshold: 2 },
        max_price: PRICE,
        timeout_blocks: 60,
        callback: Some(Callback { handler: "on_job".into(), cycles: 200_000 }),
    };
    let payer = balance_of(&client, actor).await;
    let mut input = escrow.to_le_bytes().to_vec();
    input.extend(JobCall::Submit(spec.clone()).encode_args());
    let submit = TxBuilder::message(Some(actor), 0, Message { handler: "submit".into(), payload: input }.encode())
        .cycles_limit(3_000_000)
        .cells_limit(100_000);
    let (_, receipt) = send(&client, &owner, submit).await;
    assert_eq!(receipt.status, ReceiptStatus::Success, "{receipt:?}");
    let job = job_id(&actor, 0);

    // The verified result lands in the actor's storage through its mailbox handler.
    let answer = until("the callback", || async { client.state_value(&actor, b"answer").await.ok()?.value }).await;
    assert_eq!(answer, callback_payload(&job, JobStatus::Completed, b"hello, runners"));
    let from = client.state_value(&actor, b"from").await.unwrap().value.unwrap();
    assert_eq!(from, JOB_DISPATCHER_ADDRESS.0.to_vec(), "the callback came from the dispatcher");

    let info = client.job(&job).await.unwrap().expect("the job");
    assert_eq!((info.status.as_str(), info.escrow, info.submitter), ("completed", 0, actor));
    let verdict = client.job_verified(&job).await.unwrap().expect("a verdict");
    assert_eq!(
        (verdict.result.as_slice(), verdict.consensus_count, verdict.total_runners),
        (&b"hello, runners"[..], 2, 3)
    );

    // Honest runners paid and trusted more; the faulty one neither.
    let results = client.job_results(&job, 0, 50).await.unwrap();
    let deciding = results
        .results
        .iter()
        .filter(|r| r.result == b"hello, runners")
        .map(|r| r.tx_hash.unwrap())
        .next_back()
        .unwrap();
    let receipt = client.receipt(&deciding).await.unwrap().unwrap();
    let mut paid = Vec::new();
    let mut refunded = 0u128;
    for event in &receipt.events {
        let mut d = minicbor::Decoder::new(&event.data);
        match event.topic.as_str() {
            drover_types::job::EVENT_PAID => {
                d.array().unwrap();
                d.bytes().unwrap();
                let runner = Address::from_slice(d.bytes().unwrap()).unwrap();
                paid.push((runner, drover_types::cbor::decode_u128(&mut d).unwrap()));
            }
            drover_types::job::EVENT_REFUNDED => {
                d.array().unwrap();
                d.bytes().unwrap();
                d.bytes().unwrap();
                refunded = drover_types::cbor::decode_u128(&mut d).unwrap();
            }
            _ => {}
        }
    }
    assert_eq!(paid.len(), 2, "{:?}", receipt.events);
    assert!(paid.iter().all(|(runner, amount)| *runner != faulty && *amount == PRICE));
    // Escrow in = payments + callback budget + refund, to the base unit.
    assert_eq!(paid.iter().map(|(_, a)| a).sum::<u128>() + info.callback_reserve + refunded, escrow);
    for wallet in &runners {
        let record = client.runner(&wallet.address()).await.unwrap().unwrap();
        if wallet.address() == faulty {
            assert_eq!(record.reputation, 70, "the faulty runner loses reputation: {record:?}");
        } else {
            assert_eq!(record.reputation, 81, "{record:?}");
        }
        assert_eq!(record.active_jobs, 0);
    }
    // The actor got back all but the payments and what the callback's delivery used.
    let delivered = balance_of(&client, actor).await;
    assert!(
        delivered > payer - 2 * PRICE - info.callback_reserve && delivered <= payer - 2 * PRICE,
        "{payer} → {delivered}"
    );
    assert_eq!(balance_of(&client, JOB_DISPATCHER_ADDRESS).await, 0);

    // The faulty runner, restarted to hold its jobs for a minute, is killed in the middle of a
    // unanimous job that needs it: the job fails at its deadline and the submitting account
    // gets its escrow back.
    drop(daemons.pop());
    daemons.push(start_runner(&url, dir.path(), &runners[2], &["--faulty", "--answer-delay-ms", "60000"]));
    let submitter = Wallet::new(dev_key(1));
    let key = dir.path().join("submitter.key");
    std::fs::write(&key, submitter.secret_key().to_hex()).unwrap();
    let before = balance_of(&client, submitter.address()).await;
    let out = ok(drover(
        &url,
        &[
            "--json",
            "job",
            "submit",
            "--type",
            "echo",
            "--input",
            "ping",
            "--runners",
            "3",
            "--verification",
            "unanimous",
            "--max-price",
            "1000",
            "--timeout-blocks",
            "8",
            "--key",
            key.to_str().unwrap(),
        ],
    ));
    let submitted: serde_json::Value = serde_json::from_str(&out).unwrap();
    let hash: H256 = submitted["results"][0]["hash"].as_str().unwrap().parse().unwrap();
    let fee = client.receipt(&hash).await.unwrap().expect("the submit's receipt").fee;
    let second = job_id(&submitter.address(), 0);
    until("the job's assignment", || async {
        let info = client.job(&second).await.ok()??;
        (info.status == "assigned").then_some(())
    })
    .await;
    // Killed once its log says it is running the job (holding its answer for a minute).
    let log = dir.path().join(format!("{}.log", runners[2].address()));
    let running = format!("running job {second}");
    until("the runner to start the job", || async {
        std::fs::read_to_string(&log).ok().filter(|text| text.contains(&running)).map(|_| ())
    })
    .await;
    drop(daemons.pop());
    let failed = until("the deadline", || async {
        let info = client.job(&second).await.ok()??;
        (info.status == "failed").then_some(info)
    })
    .await;
    assert_eq!(failed.escrow, 0);
    let spent = before - balance_of(&client, submitter.address()).await;
    assert_eq!(spent, fee, "only the submit's fee is spent: the escrow came back whole");
    let status = ok(drover(&url, &["job", "status", &second.to_string()]));
    assert!(status.contains("failed"), "{status}");
    let out = drover(&url, &["job", "verified", &second.to_string()]);
    assert!(!out.status.success(), "a failed job has no verified result");
    let (code, body) = get_raw(&url, &format!("/job/{second}/verified")).await;
    assert_error(code, &body, 404, 7001);
    let (code, body) = get_raw(&url, &format!("/job/{}", H256([0xab; 32]))).await;
    assert_error(code, &body, 404, 7002);

    // The dead runner leaves (its job is over), so the next job goes to a live one.
    let leave = TxBuilder::registry(&drover_types::runner::RegistryCall::Deregister, 0);
    assert_eq!(send(&client, &runners[2], leave).await.1.status, ReceiptStatus::Success);

    // The signed result flow refuses a wrong signer and another flow's transaction.
    let third = job_id(&submitter.address(), 1);
    let assigned = submit_to_one_runner(&client, &url, &key, "x", &third).await;
    let runner = runners.iter().find(|r| r.address() == assigned).unwrap();
    let a = assigned.to_hex();
    let payload = client.heartbeat_payload(&assigned).await.unwrap();
    let heartbeat_signature =
        runner.secret_key().sign_prehash(&H256(payload.message_to_sign_base64.clone().try_into().unwrap()));
    let other_flow = SignedFlowRequest {
        unsigned_transaction_base64: payload.unsigned_transaction_base64,
        signature: format!("0x{}", hex::encode(heartbeat_signature.to_rsv())),
    };
    let (code, _, body) = post_raw(
        &url,
        &format!("/runner/{a}/job_result"),
        "application/json",
        serde_json::to_vec(&other_flow).unwrap(),
    )
    .await;
    assert_error(code, &body, 400, 7004);
    // The runner's own result transaction, built here (the daemon may answer before a payload
    // could be fetched), signed by someone else.
    let result_call = JobCall::SubmitResult { job: third, result: b"x".to_vec() };
    let result_builder = TxBuilder::job(&result_call, 0);
    let unsigned = result_builder.build(&result_builder.fetch_context(&client, assigned).await.unwrap()).unwrap();
    let wrong = submitter.secret_key().sign_prehash(&unsigned.signing_hash());
    let forged = SignedFlowRequest {
        unsigned_transaction_base64: unsigned.encode_unsigned(),
        signature: format!("0x{}", hex::encode(wrong.to_rsv())),
    };
    let (code, _, body) =
        post_raw(&url, &format!("/runner/{a}/job_result"), "application/json", serde_json::to_vec(&forged).unwrap())
            .await;
    assert_error(code, &body, 400, 7005);
    let done = until("the one-runner job", || async {
        let info = client.job(&third).await.ok()??;
        (info.status == "completed").then_some(info)
    })
    .await;
    assert_eq!(done.results_count, 1, "the daemon answered once");
    let out = ok(drover(&url, &["job", "verified", &third.to_string()]));
    assert!(out.contains('x'), "{out}");

    // A daemon killed (-9) right after answering and started again does not answer twice.
    let fourth = job_id(&submitter.address(), 2);
    let assigned = submit_to_one_runner(&client, &url, &key, "y", &fourth).await;
    let index = runners.iter().position(|r| r.address() == assigned).unwrap();
    let log = dir.path().join(format!("{assigned}.log"));
    let answered = format!("answered job {fourth}");
    until("the answer", || async { std::fs::read_to_string(&log).ok()?.contains(&answered).then_some(()) }).await;
    daemons[index].0.kill().unwrap();
    daemons[index].0.wait().unwrap();
    std::fs::rename(&log, dir.path().join("before-restart.log")).unwrap();
    daemons[index] = start_runner(&url, dir.path(), &runners[index], &["--answer-delay-ms", "1500"]);
    let done = until("the restarted runner's job", || async {
        let info = client.job(&fourth).await.ok()??;
        (info.status == "completed").then_some(info)
    })
    .await;
    assert_eq!(done.results_count, 1);
    // Give the restarted daemon a few polls: it must not post the answer again.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!after.contains(&answered), "answered twice: {after}");
    drop(daemons);
}
