//! `drover bench`: load generation and measurements (never timed assertions in tests).
//!
//! `bench transfers` starts a fresh devnet from this very binary (or targets `--external`
//! nodes), funds `--senders` accounts from the devnet faucet account, pre-signs
//! `--transfers` transfers, and submits them over HTTP in batches of `--batch` from
//! `--concurrency` workers as fast as the node admits them (retrying after 429). A tracker
//! follows finalized blocks and stamps each transaction when its block is seen, giving
//! sustained finalized transfers per second and submit→finalized latency percentiles
//! (latency includes up to one tracker poll interval).
//!
//! `bench recover` measures signature recoveries per second on this machine, single-threaded
//! and across all cores: the ceiling of admission throughput.

use anyhow::{Context as _, bail, ensure};
use clap::{Args, Subcommand};
use drover_client::{BlockSelector, Client, ClientError};
use drover_node::devnet::FAUCET_KEY_INDEX;
use drover_types::{Address, H256, SecretKey, Transaction, VerifiedTransaction};
use rayon::prelude::*;
use std::{
    collections::HashMap,
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// How often the tracker asks for new finalized blocks.
const TRACKER_POLL: Duration = Duration::from_millis(10);
/// Rate limit given to a spawned devnet: effectively unlimited.
const BENCH_RATE_LIMIT_PER_SEC: &str = "1000000000";
/// Max fee per cycle of benchmark transfers: far above any basefee the load can cause.
const BENCH_MAX_FEE_PER_CYCLE: u128 = 1_000_000;
/// How long a run may take before it is abandoned.
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Finalized transfers per second and submit→finalized latency.
    Transfers(TransferArgs),
    /// Signature recoveries per second (the admission ceiling).
    Recover(RecoverArgs),
}

#[derive(Args)]
pub struct TransferArgs {
    /// Distinct sending accounts.
    #[arg(long, default_value_t = 1_000)]
    pub senders: u32,
    /// Transfers in total.
    #[arg(long, default_value_t = 100_000)]
    pub transfers: u64,
    /// Transactions per submission.
    #[arg(long, default_value_t = 50)]
    pub batch: usize,
    /// Concurrent submitting connections.
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// Use the node at `--rpc-url` (its rate limit must be lifted) instead of a fresh devnet.
    #[arg(long)]
    pub external: bool,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
    /// Offered load in transfers per second (default: as fast as the node admits them).
    #[arg(long)]
    pub rate: Option<u64>,
    /// Funder key index among the development keys (default: the faucet account).
    #[arg(long, default_value_t = FAUCET_KEY_INDEX)]
    pub funder: u32,
}

#[derive(Args)]
pub struct RecoverArgs {
    /// Signatures to recover.
    #[arg(long, default_value_t = 20_000)]
    pub count: usize,
}

pub fn run(command: BenchCommand, rpc_url: &str) -> anyhow::Result<()> {
    match command {
        BenchCommand::Recover(args) => recover(args),
        BenchCommand::Transfers(args) => {
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            runtime.block_on(transfers(args, rpc_url))
        }
    }
}

fn signed_batch(count: usize) -> Vec<Transaction> {
    (0..count)
        .into_par_iter()
        .map(|i| {
            let key = SecretKey::dev(i as u32 % 1024);
            Transaction {
                chain_id: 100,
                nonce: i as u64,
                to: Some(Address([1; 20])),
                value: 1,
                cycles_limit: drover_client::TRANSFER_CYCLES,
                cells_limit: 0,
                max_fee_per_cycle: 10,
                max_fee_per_cell: 1,
                tip_per_cycle: 1,
                tip_per_cell: 0,
                payload: Vec::new(),
                signature: None,
            }
            .sign(&key)
        })
        .collect()
}

fn recover(args: RecoverArgs) -> anyhow::Result<()> {
    ensure!(args.count > 0, "--count must be positive");
    let txs = signed_batch(args.count);
    let start = Instant::now();
    for tx in &txs {
        tx.recover_sender().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let single = args.count as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let verified: Vec<VerifiedTransaction> =
        txs.into_par_iter().map(|t| t.verify()).collect::<Result<_, _>>().map_err(|e| anyhow::anyhow!("{e}"))?;
    let parallel = verified.len() as f64 / start.elapsed().as_secs_f64();
    println!("signature recovery ({} signatures, {} threads)", args.count, rayon::current_num_threads());
    println!("  single thread:          {single:>10.0} recoveries/s");
    println!("  all threads (verify()): {parallel:>10.0} transactions/s (recovery + hashing + encoding)");
    Ok(())
}

/// A devnet started for the run; stopped (by PID) when dropped.
struct SpawnedDevnet {
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for SpawnedDevnet {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

async fn spawn_devnet(block_interval_ms: u64) -> anyhow::Result<(SpawnedDevnet, String)> {
    let exe = std::env::current_exe()?;
    let dir = tempfile::tempdir()?;
    let (rpc, p2p) = (free_port()?, free_port()?);
    let status = Command::new(&exe)
        .args(["init", "--validators", "1", "--out"])
        .arg(dir.path())
        .args(["--rpc-port", &rpc.to_string(), "--p2p-port", &p2p.to_string()])
        .args(["--block-interval-ms", &block_interval_ms.to_string()])
        .stdout(Stdio::null())
        .status()?;
    ensure!(status.success(), "drover init failed");
    let log = std::fs::File::create(dir.path().join("node.log"))?;
    let child = Command::new(&exe)
        .args(["node", "--config"])
        .arg(dir.path().join("validator-0.yaml"))
        .env("RPC_GLOBAL_RATE_LIMIT_PER_SEC", BENCH_RATE_LIMIT_PER_SEC)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()?;
    let url = format!("http://127.0.0.1:{rpc}");
    let devnet = SpawnedDevnet { child, _dir: dir };
    let client = Client::new(&url)?;
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.height().await.unwrap_or(0) < 1 {
        ensure!(Instant::now() < deadline, "devnet did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok((devnet, url))
}

fn bench_transfer(key: &SecretKey, chain_id: u64, nonce: u64, to: Address, value: u128) -> Transaction {
    Transaction {
        chain_id,
        nonce,
        to: Some(to),
        value,
        cycles_limit: drover_client::TRANSFER_CYCLES,
        cells_limit: 0,
        max_fee_per_cycle: BENCH_MAX_FEE_PER_CYCLE,
        max_fee_per_cell: 1,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload: Vec::new(),
        signature: None,
    }
    .sign(key)
}

/// Submits one batch, retrying while the node says "busy" (429) or asks to retry.
async fn submit_until_admitted(client: &Client, batch: &[Transaction], retries: &AtomicU64) -> anyhow::Result<()> {
    loop {
        match client.submit(batch).await {
            Ok(response) if response.accepted as usize == batch.len() => return Ok(()),
            Ok(response) => {
                // Some were refused: resubmit only the busy ones.
                let busy: Vec<Transaction> = response
                    .results
                    .iter()
                    .zip(batch)
                    .filter(|(r, _)| r.code == Some(2016) || r.code == Some(2017))
                    .map(|(_, t)| t.clone())
                    .collect();
                if busy.is_empty() {
                    bail!("transactions refused: {:?}", response.results.iter().find(|r| r.code.is_some()));
                }
                retries.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
                return Box::pin(submit_until_admitted(client, &busy, retries)).await;
            }
            Err(ClientError::Api { status: 429, .. }) | Err(ClientError::Api { code: 2017, .. }) => {
                retries.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Stamps every transaction of every newly finalized block with the time its block was seen.
async fn track(client: Client, from_height: u64, want: usize, seen: Arc<parking_lot::Mutex<HashMap<H256, Instant>>>) -> anyhow::Result<(u64, u64)> {
    let mut next = from_height + 1;
    let mut blocks = 0u64;
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        ensure!(Instant::now() < deadline, "run timed out");
        match client.block(BlockSelector::Height(next)).await? {
            Some(block) => {
                let now = Instant::now();
                let mut seen = seen.lock();
                for hash in block.transactions {
                    seen.entry(hash).or_insert(now);
                }
                if seen.len() >= want {
                    return Ok((blocks + 1, next));
                }
                blocks += 1;
                next += 1;
            }
            None => tokio::time::sleep(TRACKER_POLL).await,
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

async fn transfers(args: TransferArgs, rpc_url: &str) -> anyhow::Result<()> {
    ensure!(args.senders > 0 && args.transfers > 0, "--senders and --transfers must be positive");
    ensure!((1..=50).contains(&args.batch), "--batch must be 1..=50");
    let (_devnet, url) = if args.external {
        (None, rpc_url.to_string())
    } else {
        let (devnet, url) = spawn_devnet(args.block_interval_ms).await?;
        (Some(devnet), url)
    };
    let client = Client::new(&url)?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = Arc::new(AtomicU64::new(0));

    // Fund the senders from the funder account.
    let funder = SecretKey::dev(args.funder);
    let per_sender = args.transfers.div_ceil(args.senders as u64);
    let budget = per_sender as u128 * (1 + drover_client::TRANSFER_CYCLES as u128 * BENCH_MAX_FEE_PER_CYCLE) * 2;
    let senders: Vec<SecretKey> = (0..args.senders).into_par_iter().map(|_| SecretKey::random()).collect();
    let funder_nonce = client.account(&funder.address()).await?.context("funder account is empty")?.nonce;
    let funding: Vec<Transaction> = senders
        .par_iter()
        .enumerate()
        .map(|(i, s)| bench_transfer(&funder, chain_id, funder_nonce + i as u64, s.address(), budget))
        .collect();
    println!("funding {} senders with {} base units each", senders.len(), budget);
    for chunk in funding.chunks(args.batch) {
        submit_until_admitted(&client, chunk, &retries).await?;
    }
    let last = funding.last().map(|t| t.hash()).context("no funding")?;
    let deadline = Instant::now() + Duration::from_secs(120);
    while client.receipt(&last).await?.is_none() {
        ensure!(Instant::now() < deadline, "funding did not finalize");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Pre-sign, ordered in waves: every sender's nonce 0, then every sender's nonce 1, ...
    println!("pre-signing {} transfers", args.transfers);
    let sink = Address([0xee; 20]);
    let mut txs: Vec<Transaction> = (0..per_sender)
        .into_par_iter()
        .flat_map_iter(|nonce| {
            let senders = &senders;
            (0..senders.len()).map(move |s| bench_transfer(&senders[s], chain_id, nonce, sink, 1))
        })
        .collect();
    txs.truncate(args.transfers as usize);
    let hashes: Vec<H256> = txs.par_iter().map(|t| t.hash()).collect();
    let batches: Vec<Vec<Transaction>> = txs.chunks(args.batch).map(<[Transaction]>::to_vec).collect();

    // Submit from concurrent workers while the tracker stamps finalizations.
    let start_height = client.height().await?;
    let seen = Arc::new(parking_lot::Mutex::new(HashMap::with_capacity(txs.len())));
    let tracker = tokio::spawn(track(client.clone(), start_height, txs.len(), seen.clone()));
    let submitted_at = Arc::new(parking_lot::Mutex::new(HashMap::with_capacity(txs.len())));
    let queue = Arc::new(parking_lot::Mutex::new(batches.into_iter().enumerate()));
    let started = Instant::now();
    // With --rate, batch i may not be sent before started + i × batch / rate.
    let batch_interval = args.rate.map(|rate| Duration::from_secs_f64(args.batch as f64 / rate.max(1) as f64));
    let mut workers = Vec::new();
    for _ in 0..args.concurrency {
        let (client, queue, retries, submitted_at) = (client.clone(), queue.clone(), retries.clone(), submitted_at.clone());
        workers.push(tokio::spawn(async move {
            loop {
                let Some((index, batch)) = queue.lock().next() else { return anyhow::Ok(()) };
                if let Some(interval) = batch_interval {
                    tokio::time::sleep_until((started + interval * index as u32).into()).await;
                }
                let sent = Instant::now();
                submit_until_admitted(&client, &batch, &retries).await?;
                let mut at = submitted_at.lock();
                for tx in &batch {
                    at.insert(tx.hash(), sent);
                }
            }
        }));
    }
    for worker in workers {
        worker.await??;
    }
    let submit_elapsed = started.elapsed();
    let (blocks, end_height) = tracker.await??;
    let elapsed = started.elapsed();

    let seen = seen.lock();
    let submitted_at = submitted_at.lock();
    let mut latencies: Vec<Duration> = hashes
        .iter()
        .filter_map(|h| Some(seen.get(h)?.saturating_duration_since(*submitted_at.get(h)?)))
        .collect();
    latencies.sort();
    let finalized = hashes.iter().filter(|h| seen.contains_key(h)).count();
    println!();
    let offered = args.rate.map_or("as fast as admitted".to_string(), |r| format!("offered at {r} tx/s"));
    println!("transfers: {} submitted from {} senders in batches of {}, {} workers, {offered}", txs.len(), senders.len(), args.batch, args.concurrency);
    println!("  submitted in:         {:>10.2} s ({:.0} tx/s admitted)", submit_elapsed.as_secs_f64(), txs.len() as f64 / submit_elapsed.as_secs_f64());
    println!("  all finalized in:     {:>10.2} s", elapsed.as_secs_f64());
    println!("  finalized:            {finalized} of {} (lost: {})", txs.len(), txs.len() - finalized);
    println!("  sustained throughput: {:>10.0} finalized transfers/s", finalized as f64 / elapsed.as_secs_f64());
    println!("  blocks:               {blocks} (heights {}..={end_height}), {:.0} transfers/block", start_height + 1, finalized as f64 / blocks.max(1) as f64);
    println!("  latency p50:          {:>10.0} ms", percentile(&latencies, 0.50).as_secs_f64() * 1000.0);
    println!("  latency p99:          {:>10.0} ms", percentile(&latencies, 0.99).as_secs_f64() * 1000.0);
    println!("  latency max:          {:>10.0} ms", latencies.last().copied().unwrap_or_default().as_secs_f64() * 1000.0);
    println!("  busy retries (429):   {}", retries.load(Ordering::Relaxed));
    ensure!(finalized == txs.len(), "{} transfers never finalized", txs.len() - finalized);
    Ok(())
}
