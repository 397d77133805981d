//! `bench jobs`: jobs completed per second end to end — submitted by actors, run by three real
//! `drover runner` daemons, verified, and answered into the submitting actor's mailbox — and
//! the time from submission to the callback's delivery.
//!
//! One fresh single-validator devnet and three runners (echo, price 1 base unit) spawned from
//! this binary, each stopped by PID at the end. `--senders` accounts each deploy their own job
//! client actor (`actors/job_client.wat`) and fund it, so every job id is known in advance
//! (`keccak256(actor ‖ seq)`, with `seq` the sender's order of submission). The senders then
//! submit `--jobs` jobs asking all three runners with majority 2, keeping at most `--window`
//! jobs in flight. A job is done when its callback has been delivered: the dispatcher queues
//! it in the block that decides the job, and the next block delivers it before anything else
//! (at most 256 deliveries a block; the window keeps far below). The watcher reads the
//! in-flight jobs' records (`/job/{id}`, a point read) and the chain height every
//! [`WATCH_INTERVAL`], and stamps a job when the block after its decision is final, so the
//! latency includes up to one interval. At the end every actor's storage must hold one
//! answer per job it submitted (its callbacks all ran).

use super::*;
use drover_types::job::{Callback, JobCall, JobSpec, Verification, VerificationMode, job_id};
use drover_types::system_call::SystemCall;
use std::path::Path;

/// How often the watcher looks at the in-flight jobs and the height.
const WATCH_INTERVAL: Duration = Duration::from_millis(50);
/// Storage entries of a job client actor besides one answer per job: `job`, `answer`, `from`.
const CLIENT_FIXED_ENTRIES: u64 = 3;
/// Price each runner asks, in base units.
const RUNNER_PRICE: u128 = 1;
/// Cycles each callback's delivery may use.
const CALLBACK_CYCLES: u64 = 100_000;
/// Escrow each job carries: three runners and a callback budget far above any basefee of the
/// run (the unused part comes back).
const JOB_ESCROW: u128 = 3 * RUNNER_PRICE + 10_000_000_000;
/// Max fee per cycle and per cell of the submitting calls: far above the basefees a windowed
/// load reaches, and low enough that every sender can hold its calls' maximum fees.
const JOB_MAX_FEE: u128 = 10_000;
/// Cycles limit of a submitting call (the actor, `job_submit`, the first assignment attempt).
const SUBMIT_CALL_CYCLES: u64 = 1_500_000;

#[derive(Args)]
pub(crate) struct JobArgs {
    /// Jobs submitted in all.
    #[arg(long, default_value_t = 2_000)]
    pub jobs: u64,
    /// Submitting accounts, each with its own job client actor.
    #[arg(long, default_value_t = 8)]
    pub senders: u32,
    /// Most jobs in flight (submitted, callback not seen yet): the offered load follows what
    /// the chain completes instead of piling up in the mempool.
    #[arg(long, default_value_t = 64)]
    pub window: usize,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

/// A signed call from `key` with the job bench's max fees.
fn job_tx(key: &SecretKey, chain_id: u64, nonce: u64, to: Address, payload: Vec<u8>) -> Transaction {
    Transaction {
        chain_id,
        nonce,
        to: Some(to),
        value: 0,
        cycles_limit: SUBMIT_CALL_CYCLES,
        cells_limit: 100_000,
        max_fee_per_cycle: JOB_MAX_FEE,
        max_fee_per_cell: JOB_MAX_FEE,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload,
        signature: None,
    }
    .sign(key)
}

fn start_runner(exe: &Path, dir: &Path, url: &str, key: &SecretKey, index: usize) -> anyhow::Result<Child> {
    let key_file = dir.join(format!("runner-{index}.key"));
    std::fs::write(&key_file, key.to_hex())?;
    let log = std::fs::File::create(dir.join(format!("runner-{index}.log")))?;
    Ok(Command::new(exe)
        .args(["--rpc-url", url, "runner", "--key"])
        .arg(&key_file)
        .args(["--executors", "echo", "--price", &RUNNER_PRICE.to_string(), "--max-concurrent-jobs", "1024"])
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()?)
}

fn job_call(index: u64) -> Vec<u8> {
    let spec = JobSpec {
        job_type: "echo".into(),
        input: index.to_le_bytes().to_vec(),
        runners: 3,
        verification: Verification { mode: VerificationMode::Majority, threshold: 2 },
        max_price: RUNNER_PRICE,
        timeout_blocks: 200,
        callback: Some(Callback { handler: "on_job".into(), cycles: CALLBACK_CYCLES }),
    };
    let mut input = JOB_ESCROW.to_le_bytes().to_vec();
    input.extend(JobCall::Submit(spec).encode_args());
    Message { handler: "submit".into(), payload: input }.encode()
}

pub(super) async fn jobs(args: JobArgs) -> anyhow::Result<()> {
    ensure!(args.jobs > 0 && args.senders > 0, "--jobs and --senders must be positive");
    let network = SpawnedNetwork::start(1, args.block_interval_ms).await?;
    let client = Client::new(&network.urls[0])?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);
    let per_sender = args.jobs.div_ceil(u64::from(args.senders));
    let call_fee = (u128::from(SUBMIT_CALL_CYCLES) + 100_000) * JOB_MAX_FEE;
    let actor_budget = u128::from(per_sender) * JOB_ESCROW;
    // The deploy's maximum fee at the bench's usual max fees, the actor's funds, the calls.
    let deploy_fee = 10_000_000 * BENCH_MAX_FEE_PER_CYCLE + 200_000 * BENCH_MAX_FEE_PER_CELL;
    let budget = actor_budget + u128::from(per_sender) * call_fee + deploy_fee + 1_000_000_000;
    let senders = fund_senders(&client, &funder, chain_id, args.senders, budget, 50, &retries).await?;
    let runner_keys = fund_senders(&client, &funder, chain_id, 3, 10_000_000_000_000, 50, &retries).await?;

    let runners = Daemons(
        runner_keys
            .iter()
            .enumerate()
            .map(|(i, key)| start_runner(&network.exe, network.dir.path(), &network.urls[0], key, i))
            .collect::<anyhow::Result<_>>()?,
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    while client.active_runners(0, 10).await?.total_count < 3 {
        ensure!(Instant::now() < deadline, "the runners did not register");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Each sender's job client actor, funded for its jobs' escrow.
    let code = wat::parse_str(include_str!("../../../../actors/job_client.wat"))?;
    let mut setup = Vec::new();
    let mut actors = Vec::new();
    for sender in &senders {
        let deploy = Deploy {
            code: code.clone(),
            manifest: Manifest::new(vec!["storage.kv".into(), "job.submit".into()]),
            salt: Vec::new(),
            init: None,
        };
        let actor = deploy.actor_address(&sender.address());
        actors.push(actor);
        setup.push(bench_tx(sender, chain_id, 0, None, 0, deploy.encode(), 10_000_000, 200_000));
        setup.push(bench_transfer(sender, chain_id, 1, actor, actor_budget));
    }
    println!("deploying and funding {} job client actors", actors.len());
    for chunk in setup.chunks(50) {
        submit_until_admitted(&client, chunk, &retries).await?;
    }
    let last = setup.last().map(Transaction::hash).context("no setup")?;
    while client.receipt(&last).await?.is_none() {
        ensure!(Instant::now() < deadline + Duration::from_secs(60), "the setup did not finalize");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The jobs, in each sender's nonce order: job n of sender s is job_id(actor_s, n).
    let mut submissions = Vec::new();
    let mut index = 0;
    for round in 0..per_sender {
        for (s, sender) in senders.iter().enumerate() {
            if index == args.jobs {
                break;
            }
            let tx = job_tx(sender, chain_id, 2 + round, actors[s], job_call(index));
            submissions.push((job_id(&actors[s], round), actors[s], tx));
            index += 1;
        }
    }
    println!("submitting {} jobs (3 runners, majority 2, callback) from {} actors", submissions.len(), actors.len());
    let started = Instant::now();
    // (job, actor, submitted at, height of the block that delivers its callback)
    let mut in_flight: Vec<(H256, Address, Instant, Option<u64>)> = Vec::new();
    let mut latencies = Vec::with_capacity(submissions.len());
    let window = args.window.max(1);
    let mut next = 0;
    let mut last_watch = Instant::now();
    loop {
        let room = window.saturating_sub(in_flight.len()).min(submissions.len() - next).min(50);
        if room > 0 {
            let chunk = &submissions[next..next + room];
            next += room;
            let txs: Vec<Transaction> = chunk.iter().map(|(_, _, tx)| tx.clone()).collect();
            submit_until_admitted(&client, &txs, &retries).await?;
            let now = Instant::now();
            in_flight.extend(chunk.iter().map(|(job, actor, _)| (*job, *actor, now, None)));
        } else if in_flight.is_empty() && next == submissions.len() {
            break;
        }
        if last_watch.elapsed() >= WATCH_INTERVAL {
            last_watch = Instant::now();
            let height = client.height().await?;
            let mut still = Vec::with_capacity(in_flight.len());
            for (job, actor, at, delivery) in in_flight.drain(..) {
                let delivery = match delivery {
                    Some(delivery) => Some(delivery),
                    None => client.job(&job).await?.and_then(|info| {
                        (info.status == "completed").then(|| info.finished_height.map(|h| h + 1)).flatten()
                    }),
                };
                match delivery {
                    Some(delivery) if delivery <= height => latencies.push(at.elapsed()),
                    _ => still.push((job, actor, at, delivery)),
                }
            }
            in_flight = still;
            ensure!(started.elapsed() < RUN_TIMEOUT, "{} jobs never got their callback", in_flight.len());
        } else {
            tokio::time::sleep(WATCH_INTERVAL / 4).await;
        }
    }
    let elapsed = started.elapsed();
    drop(runners);
    for (s, actor) in actors.iter().enumerate() {
        let submitted = submissions.iter().filter(|(_, a, _)| a == actor).count() as u64;
        let stored = client.actor_storage_count(actor).await?.map_or(0, |c| c.count);
        ensure!(stored == submitted + CLIENT_FIXED_ENTRIES, "actor {s} holds {stored} entries for {submitted} jobs");
    }
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1_000.0;
    println!();
    println!("jobs completed (submit → verified → callback delivered): {}", latencies.len());
    println!("  elapsed:              {:>10.1} s", elapsed.as_secs_f64());
    println!("  throughput:           {:>10.1} jobs/s", latencies.len() as f64 / elapsed.as_secs_f64());
    println!("  latency p50:          {:>10.0} ms", ms(percentile(&latencies, 0.50)));
    println!("  latency p99:          {:>10.0} ms", ms(percentile(&latencies, 0.99)));
    println!("  submission retries:   {:>10}", retries.load(Ordering::Relaxed));
    drop(network);
    Ok(())
}
