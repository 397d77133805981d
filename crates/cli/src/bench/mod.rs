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
//!
//! `bench proofs` starts a devnet, includes one transfer, then asks for `--requests` proofs of
//! each kind one after another over HTTP (account present, account absent, storage slot,
//! transaction, receipt) and verifies each in the client: HTTP round-trip latency and
//! verification time percentiles per kind. The chain keeps finalizing during the run, so
//! proofs are taken against a moving tip, as in production.

mod hostile;
mod reads;
mod state;

use anyhow::{Context as _, bail, ensure};
use clap::{Args, Subcommand};
use drover_client::{BlockSelector, Client, ClientError};
use drover_node::devnet::FAUCET_KEY_INDEX;
use drover_types::{
    Address, H256, SecretKey, Transaction, VerifiedTransaction,
    payload::{Deploy, Manifest, Message},
};
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
/// Max fee per cycle of benchmark transactions: far above any basefee the load can cause.
const BENCH_MAX_FEE_PER_CYCLE: u128 = 1_000_000;
/// Max fee per cell of benchmark transactions.
const BENCH_MAX_FEE_PER_CELL: u128 = 1_000;
/// How long a run may take before it is abandoned.
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Finalized transfers per second and submit→finalized latency.
    Transfers(TransferArgs),
    /// Signature recoveries per second (the admission ceiling).
    Recover(RecoverArgs),
    /// Finalized actor calls per second (increments of one counter actor) and submit→finalized
    /// latency; `--transfers` counts the calls.
    Calls(TransferArgs),
    /// Fast-sync throughput: a wiped validator rebuilds a state of `--ops` operations from a
    /// peer over HTTP (at the default per-IP state-sync rate limit).
    Sync(SyncArgs),
    /// Proof latency over HTTP and client verification time, per proof kind.
    Proofs(ProofArgs),
    /// Honest transfers' finality while attackers send the costliest work they can.
    Hostile(hostile::HostileArgs),
    /// Transfers and actor writes per second as the state grows to millions of accounts and
    /// entries; memory, disk and restart time at that size.
    State(state::StateArgs),
    /// `GET /account` requests per second and latency, idle and while blocks are committed.
    Reads(reads::ReadArgs),
}

#[derive(Args)]
pub struct ProofArgs {
    /// Proofs asked for of each kind.
    #[arg(long, default_value_t = 500)]
    pub requests: usize,
    /// Validators of the spawned network.
    #[arg(long, default_value_t = 1)]
    pub validators: u32,
    /// Block interval of the spawned network, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

#[derive(Args)]
pub struct SyncArgs {
    /// Validators of the spawned network (the last one is wiped and fast-syncs).
    #[arg(long, default_value_t = 4)]
    pub validators: u32,
    /// State operations to build before syncing (the peer's snapshot `op_count`).
    #[arg(long, default_value_t = 1_000_000)]
    pub ops: u64,
    /// Accounts sending the transfers that create the state (each to a new address).
    #[arg(long, default_value_t = 500)]
    pub senders: u32,
    /// Block interval of the spawned network, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
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
    /// Validators of the spawned network; submissions are spread over all of them.
    #[arg(long, default_value_t = 1)]
    pub validators: u32,
    /// Who receives the transfers (`bench transfers` only).
    #[arg(long, value_enum, default_value_t = Recipients::Fresh)]
    pub recipients: Recipients,
}

/// Recipients of `bench transfers`: how the load grows the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Recipients {
    /// A new address per transfer, `0xbe ‖ 19-byte counter` (the usual EVM dev-chain workload):
    /// every transfer creates an account.
    Fresh,
    /// A new random address per transfer.
    Random,
    /// A new address per transfer sharing its first 7 bytes with all the others, as an attacker
    /// choosing colliding keys would send them.
    Prefix,
    /// One existing sink account (no state growth).
    One,
}

impl Recipients {
    /// The recipient of transfer `index` of a run.
    fn address(self, index: u64) -> Address {
        let mut bytes = [0; 20];
        match self {
            Recipients::Fresh => {
                bytes[0] = 0xbe;
                bytes[12..].copy_from_slice(&index.to_be_bytes());
            }
            Recipients::Random => bytes = SecretKey::random().address().0,
            Recipients::Prefix => {
                bytes = SecretKey::random().address().0;
                bytes[..7].copy_from_slice(b"\xbe\xbe\xbe\xbe\xbe\xbe\xbe");
            }
            Recipients::One => bytes = [0xee; 20],
        }
        Address(bytes)
    }
}

#[derive(Args)]
pub struct RecoverArgs {
    /// Signatures to recover.
    #[arg(long, default_value_t = 20_000)]
    pub count: usize,
}

pub fn run(command: BenchCommand, rpc_url: &str) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        match command {
            BenchCommand::Recover(args) => recover(args),
            BenchCommand::Transfers(args) => transfers(args, rpc_url, Workload::Transfers).await,
            BenchCommand::Calls(args) => transfers(args, rpc_url, Workload::CounterCalls).await,
            BenchCommand::Sync(args) => sync(args).await,
            BenchCommand::Proofs(args) => proofs(args).await,
            BenchCommand::Hostile(args) => hostile::hostile(args).await,
            BenchCommand::State(args) => state::state(args).await,
            BenchCommand::Reads(args) => reads::reads(args).await,
        }
    })
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
                cycles_limit: drover_types::params::TRANSFER_CYCLES,
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

/// A network started for the run; every validator is stopped (by PID) when dropped.
struct SpawnedNetwork {
    dir: tempfile::TempDir,
    exe: std::path::PathBuf,
    children: Vec<Option<Child>>,
    urls: Vec<String>,
}

impl SpawnedNetwork {
    /// Generates an `n`-validator network on free loopback ports and starts every validator;
    /// returns once each one has finalized a block.
    async fn start(n: u32, block_interval_ms: u64) -> anyhow::Result<Self> {
        let exe = std::env::current_exe()?;
        let dir = tempfile::tempdir()?;
        // One block for both, so the HTTP and p2p ports can never overlap.
        let rpc = free_port_block(2 * n)?;
        let p2p = rpc + n as u16;
        let status = Command::new(&exe)
            .args(["init", "--validators", &n.to_string(), "--out"])
            .arg(dir.path())
            .args(["--rpc-port", &rpc.to_string(), "--p2p-port", &p2p.to_string()])
            .args(["--block-interval-ms", &block_interval_ms.to_string()])
            .stdout(Stdio::null())
            .status()?;
        ensure!(status.success(), "drover init failed");
        let urls = (0..n).map(|i| format!("http://127.0.0.1:{}", rpc + i as u16)).collect();
        let mut network = Self { dir, exe, children: Vec::new(), urls };
        for index in 0..n {
            network.children.push(None);
            network.spawn(index as usize, &[])?;
        }
        for url in network.urls.clone() {
            wait_height(&Client::new(&url)?, 1, Duration::from_secs(60)).await?;
        }
        Ok(network)
    }

    fn spawn(&mut self, index: usize, args: &[&str]) -> anyhow::Result<()> {
        let log = std::fs::File::create(self.dir.path().join(format!("validator-{index}.log")))?;
        let child = Command::new(&self.exe)
            .args(["node", "--config"])
            .arg(self.dir.path().join(format!("validator-{index}.yaml")))
            .args(args)
            .env("RPC_GLOBAL_RATE_LIMIT_PER_SEC", BENCH_RATE_LIMIT_PER_SEC)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?;
        self.children[index] = Some(child);
        Ok(())
    }

    /// Stops validator `index` gracefully and waits for it.
    fn stop(&mut self, index: usize) {
        if let Some(mut child) = self.children[index].take() {
            let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
            let _ = child.wait();
        }
    }

    /// The process id of validator `index`, while it runs.
    fn pid(&self, index: usize) -> Option<u32> {
        self.children[index].as_ref().map(Child::id)
    }

    fn state_dir(&self, index: usize) -> std::path::PathBuf {
        self.dir.path().join(format!("validator-{index}/state"))
    }
}

impl Drop for SpawnedNetwork {
    fn drop(&mut self) {
        for index in 0..self.children.len() {
            self.stop(index);
        }
    }
}

/// `count` consecutive free loopback ports.
fn free_port_block(count: u32) -> anyhow::Result<u16> {
    for _ in 0..100 {
        let base = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let fits = (1..count).all(|i| {
            u16::try_from(u32::from(base) + i)
                .is_ok_and(|port| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok())
        });
        if fits {
            return Ok(base);
        }
    }
    bail!("no block of {count} free ports")
}

async fn wait_height(client: &Client, height: u64, within: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + within;
    while client.height().await.unwrap_or(0) < height {
        ensure!(Instant::now() < deadline, "{} did not reach height {height}", client.base_url());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

fn bench_transfer(key: &SecretKey, chain_id: u64, nonce: u64, to: Address, value: u128) -> Transaction {
    bench_tx(key, chain_id, nonce, Some(to), value, Vec::new(), drover_types::params::TRANSFER_CYCLES, 0)
}

#[allow(clippy::too_many_arguments)]
fn bench_tx(
    key: &SecretKey,
    chain_id: u64,
    nonce: u64,
    to: Option<Address>,
    value: u128,
    payload: Vec<u8>,
    cycles_limit: u64,
    cells_limit: u64,
) -> Transaction {
    Transaction {
        chain_id,
        nonce,
        to,
        value,
        cycles_limit,
        cells_limit,
        max_fee_per_cycle: BENCH_MAX_FEE_PER_CYCLE,
        max_fee_per_cell: BENCH_MAX_FEE_PER_CELL,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload,
        signature: None,
    }
    .sign(key)
}

/// What a load run submits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Workload {
    /// Plain transfers to one sink account.
    Transfers,
    /// `increment` calls to one counter actor (`actors/counter.wat`), deployed first.
    CounterCalls,
}

/// The counter actor the calls workload deploys.
const COUNTER_WAT: &str = include_str!("../../../../actors/counter.wat");
/// Limits of one counter call: an increment costs about 31,000 cycles and writes 13 cells.
const COUNTER_CALL_CYCLES_LIMIT: u64 = 60_000;
const COUNTER_CALL_CELLS_LIMIT: u64 = 64;
/// Limits of the counter's deploy.
const COUNTER_DEPLOY_CYCLES_LIMIT: u64 = 2_000_000;
const COUNTER_DEPLOY_CELLS_LIMIT: u64 = 10_000;

impl Workload {
    /// The most one transaction of this workload can cost its sender, value included.
    fn max_cost(self) -> u128 {
        let (cycles, cells) = match self {
            Workload::Transfers => (drover_types::params::TRANSFER_CYCLES, 0),
            Workload::CounterCalls => (COUNTER_CALL_CYCLES_LIMIT, COUNTER_CALL_CELLS_LIMIT),
        };
        1 + u128::from(cycles) * BENCH_MAX_FEE_PER_CYCLE + u128::from(cells) * BENCH_MAX_FEE_PER_CELL
    }

    /// What a sender needs for `count` transactions, with a margin for basefee rises.
    fn budget(self, count: u64) -> u128 {
        u128::from(count) * self.max_cost() * 2
    }

    fn noun(self) -> &'static str {
        match self {
            Workload::Transfers => "transfers",
            Workload::CounterCalls => "counter calls",
        }
    }
}

/// Deploys the counter from `deployer` and waits for it; answers its address.
async fn deploy_counter(client: &Client, deployer: &SecretKey, chain_id: u64) -> anyhow::Result<Address> {
    let deploy = Deploy {
        code: wat::parse_str(COUNTER_WAT).context("the counter actor does not compile")?,
        manifest: Manifest { entitlements: vec!["storage.kv".to_owned()] },
        salt: b"bench".to_vec(),
        init: None,
    };
    let actor = deploy.actor_address(&deployer.address());
    let nonce = client.account(&deployer.address()).await?.context("deployer account is empty")?.nonce;
    let tx = bench_tx(
        deployer,
        chain_id,
        nonce,
        None,
        0,
        deploy.encode(),
        COUNTER_DEPLOY_CYCLES_LIMIT,
        COUNTER_DEPLOY_CELLS_LIMIT,
    );
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await?;
    ensure!(
        answer.results.first().is_some_and(|r| r.status == drover_types::api::WaitStatus::Success),
        "the counter deploy did not succeed: {answer:?}"
    );
    Ok(actor)
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
async fn track(
    client: Client,
    from_height: u64,
    want: usize,
    seen: Arc<parking_lot::Mutex<HashMap<H256, Instant>>>,
) -> anyhow::Result<(u64, u64)> {
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

/// Creates `count` random accounts funded from `funder` with `budget` base units each, and waits
/// until the funding is finalized.
async fn fund_senders(
    client: &Client,
    funder: &SecretKey,
    chain_id: u64,
    count: u32,
    budget: u128,
    batch: usize,
    retries: &AtomicU64,
) -> anyhow::Result<Vec<SecretKey>> {
    let senders: Vec<SecretKey> = (0..count).into_par_iter().map(|_| SecretKey::random()).collect();
    let funder_nonce = client.account(&funder.address()).await?.context("funder account is empty")?.nonce;
    let funding: Vec<Transaction> = senders
        .par_iter()
        .enumerate()
        .map(|(i, s)| bench_transfer(funder, chain_id, funder_nonce + i as u64, s.address(), budget))
        .collect();
    println!("funding {} senders with {} base units each", senders.len(), budget);
    for chunk in funding.chunks(batch) {
        submit_until_admitted(client, chunk, retries).await?;
    }
    let last = funding.last().map(|t| t.hash()).context("no funding")?;
    let deadline = Instant::now() + Duration::from_secs(120);
    while client.receipt(&last).await?.is_none() {
        ensure!(Instant::now() < deadline, "funding did not finalize");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(senders)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

async fn transfers(args: TransferArgs, rpc_url: &str, workload: Workload) -> anyhow::Result<()> {
    ensure!(args.senders > 0 && args.transfers > 0, "--senders and --transfers must be positive");
    ensure!((1..=50).contains(&args.batch), "--batch must be 1..=50");
    ensure!(args.validators > 0, "--validators must be positive");
    let (_network, urls) = if args.external {
        (None, vec![rpc_url.to_string()])
    } else {
        let network = SpawnedNetwork::start(args.validators, args.block_interval_ms).await?;
        let urls = network.urls.clone();
        (Some(network), urls)
    };
    let client = Client::new(&urls[0])?;
    let clients = urls.iter().map(|url| Client::new(url)).collect::<Result<Vec<_>, _>>()?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = Arc::new(AtomicU64::new(0));

    // Fund the senders from the funder account.
    let funder = SecretKey::dev(args.funder);
    let per_sender = args.transfers.div_ceil(args.senders as u64);
    let senders =
        fund_senders(&client, &funder, chain_id, args.senders, workload.budget(per_sender), args.batch, &retries)
            .await?;
    let (counter, call) = match workload {
        Workload::Transfers => (None, Vec::new()),
        Workload::CounterCalls => {
            let counter = deploy_counter(&client, &funder, chain_id).await?;
            println!("counter actor deployed at {counter}");
            (Some(counter), Message { handler: "increment".to_owned(), payload: Vec::new() }.encode())
        }
    };

    // Pre-sign, ordered in waves: every sender's nonce 0, then every sender's nonce 1, ...
    println!("pre-signing {} {}", args.transfers, workload.noun());
    let recipients = args.recipients;
    let mut txs: Vec<Transaction> = (0..per_sender)
        .into_par_iter()
        .flat_map_iter(|nonce| {
            let (senders, call) = (&senders, &call);
            let count = senders.len() as u64;
            (0..senders.len()).map(move |s| match counter {
                None => {
                    let to = recipients.address(nonce * count + s as u64);
                    bench_transfer(&senders[s], chain_id, nonce, to, 1)
                }
                Some(counter) => bench_tx(
                    &senders[s],
                    chain_id,
                    nonce,
                    Some(counter),
                    0,
                    call.clone(),
                    COUNTER_CALL_CYCLES_LIMIT,
                    COUNTER_CALL_CELLS_LIMIT,
                ),
            })
        })
        .collect();
    txs.truncate(args.transfers as usize);

    let load = Load { batch: args.batch, concurrency: args.concurrency, rate: args.rate };
    let report = run_load(&client, &clients, txs, load).await?;
    println!();
    let offered = args.rate.map_or("as fast as admitted".to_string(), |r| format!("offered at {r} tx/s"));
    let recipients = match workload {
        Workload::Transfers => format!(", recipients {:?}", args.recipients).to_lowercase(),
        Workload::CounterCalls => String::new(),
    };
    println!(
        "{}: {} submitted from {} senders in batches of {}, {} workers over {} validator(s), {offered}{recipients}",
        workload.noun(),
        report.sent,
        senders.len(),
        args.batch,
        args.concurrency,
        clients.len()
    );
    report.print(workload.noun());
    ensure!(report.finalized == report.sent, "{} transfers never finalized", report.sent - report.finalized);
    Ok(())
}

/// How a load is offered.
#[derive(Clone, Copy)]
struct Load {
    /// Transactions per submission.
    batch: usize,
    /// Concurrent submitting connections.
    concurrency: usize,
    /// Offered transactions per second (`None`: as fast as admitted).
    rate: Option<u64>,
}

/// What a load run measured.
struct LoadReport {
    sent: usize,
    finalized: usize,
    /// From the first submission to the observation of the last finalization.
    elapsed: Duration,
    submit_elapsed: Duration,
    blocks: u64,
    heights: (u64, u64),
    /// Submit→finalized, sorted.
    latencies: Vec<Duration>,
    busy_retries: u64,
}

impl LoadReport {
    fn throughput(&self) -> f64 {
        self.finalized as f64 / self.elapsed.as_secs_f64()
    }

    fn print(&self, noun: &str) {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "  submitted in:         {:>10.2} s ({:.0} tx/s admitted)",
            self.submit_elapsed.as_secs_f64(),
            self.sent as f64 / self.submit_elapsed.as_secs_f64()
        );
        println!("  all finalized in:     {:>10.2} s", self.elapsed.as_secs_f64());
        println!("  finalized:            {} of {} (lost: {})", self.finalized, self.sent, self.sent - self.finalized);
        println!("  sustained throughput: {:>10.0} finalized {noun}/s", self.throughput());
        println!(
            "  blocks:               {} (heights {}..={}), {:.0} transactions/block",
            self.blocks,
            self.heights.0,
            self.heights.1,
            self.finalized as f64 / self.blocks.max(1) as f64
        );
        println!("  latency p50:          {:>10.0} ms", ms(percentile(&self.latencies, 0.50)));
        println!("  latency p99:          {:>10.0} ms", ms(percentile(&self.latencies, 0.99)));
        println!("  latency max:          {:>10.0} ms", ms(self.latencies.last().copied().unwrap_or_default()));
        println!("  busy retries (429):   {}", self.busy_retries);
    }
}

/// Submits `txs` in order (batches of `load.batch` from `load.concurrency` workers spread over
/// `clients`, at `load.rate`) while a tracker on `client` stamps each one's finalization.
async fn run_load(
    client: &Client,
    clients: &[Client],
    txs: Vec<Transaction>,
    load: Load,
) -> anyhow::Result<LoadReport> {
    let hashes: Vec<H256> = txs.par_iter().map(|t| t.hash()).collect();
    let batches: Vec<Vec<Transaction>> = txs.chunks(load.batch).map(<[Transaction]>::to_vec).collect();
    let start_height = client.height().await?;
    let seen = Arc::new(parking_lot::Mutex::new(HashMap::with_capacity(txs.len())));
    let tracker = tokio::spawn(track(client.clone(), start_height, txs.len(), seen.clone()));
    let submitted_at = Arc::new(parking_lot::Mutex::new(HashMap::with_capacity(txs.len())));
    let queue = Arc::new(parking_lot::Mutex::new(batches.into_iter().enumerate()));
    let retries = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    // With a rate, batch i may not be sent before started + i × batch / rate.
    let batch_interval = load.rate.map(|rate| Duration::from_secs_f64(load.batch as f64 / rate.max(1) as f64));
    let mut workers = Vec::new();
    for worker in 0..load.concurrency {
        let client = clients[worker % clients.len()].clone();
        let (queue, retries, submitted_at) = (queue.clone(), retries.clone(), submitted_at.clone());
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
    let mut latencies: Vec<Duration> =
        hashes.iter().filter_map(|h| Some(seen.get(h)?.saturating_duration_since(*submitted_at.get(h)?))).collect();
    latencies.sort();
    Ok(LoadReport {
        sent: hashes.len(),
        finalized: hashes.iter().filter(|h| seen.contains_key(h)).count(),
        elapsed,
        submit_elapsed,
        blocks,
        heights: (start_height + 1, end_height),
        latencies,
        busy_retries: retries.load(Ordering::Relaxed),
    })
}

/// Transfers each sender sends per wave while the state is built.
const SYNC_WAVE_TRANSFERS_PER_SENDER: u64 = 20;

async fn sync(args: SyncArgs) -> anyhow::Result<()> {
    ensure!(args.validators >= 2, "--validators must be at least 2 (one peer, one syncing node)");
    ensure!(args.senders > 0 && args.ops > 0, "--senders and --ops must be positive");
    let mut network = SpawnedNetwork::start(args.validators, args.block_interval_ms).await?;
    let clients = network.urls.iter().map(|url| Client::new(url)).collect::<Result<Vec<_>, _>>()?;
    let peer = &clients[0];
    let chain_id = peer.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);

    // Build the state: transfers to fresh addresses (each creates an account) in waves until
    // the peer's snapshot holds `--ops` operations.
    let transfers_each = args.ops.div_ceil(u64::from(args.senders));
    let senders = fund_senders(
        peer,
        &SecretKey::dev(FAUCET_KEY_INDEX),
        chain_id,
        args.senders,
        Workload::Transfers.budget(transfers_each),
        50,
        &retries,
    )
    .await?;
    let built = Instant::now();
    let mut nonce = 0;
    let snapshot = loop {
        let snapshot = peer.state_snapshot().await?.context("no snapshot")?;
        if snapshot.op_count >= args.ops {
            break snapshot;
        }
        print!("\rbuilding state: {} of {} operations", snapshot.op_count, args.ops);
        let wave: Vec<Transaction> = (nonce..nonce + SYNC_WAVE_TRANSFERS_PER_SENDER)
            .into_par_iter()
            .flat_map_iter(|n| {
                let senders = &senders;
                (0..senders.len())
                    .map(move |s| bench_transfer(&senders[s], chain_id, n, SecretKey::random().address(), 1))
            })
            .collect();
        nonce += SYNC_WAVE_TRANSFERS_PER_SENDER;
        let last = wave.last().map(Transaction::hash).context("empty wave")?;
        let mut submissions = Vec::new();
        for (i, chunk) in wave.chunks(50).enumerate() {
            let (client, chunk) = (clients[i % clients.len()].clone(), chunk.to_vec());
            submissions.push(async move { submit_until_admitted(&client, &chunk, &AtomicU64::new(0)).await });
        }
        futures::future::try_join_all(submissions).await?;
        let deadline = Instant::now() + RUN_TIMEOUT;
        while peer.receipt(&last).await?.is_none() {
            ensure!(Instant::now() < deadline, "state building stalled");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    println!(
        "\rbuilt {} operations in {:.1} s (snapshot at height {})",
        snapshot.op_count,
        built.elapsed().as_secs_f64(),
        snapshot.height
    );

    // Wipe the last validator and fast-sync it from the first.
    let syncing = clients.len() - 1;
    network.stop(syncing);
    std::fs::remove_dir_all(network.state_dir(syncing)).context("cannot wipe the syncing validator")?;
    let started = Instant::now();
    let peer_url = network.urls[0].clone();
    network.spawn(syncing, &["--sync-from", &peer_url])?;
    // The API opens once the state is synced and verified.
    wait_height(&clients[syncing], 1, RUN_TIMEOUT).await?;
    let synced_in = started.elapsed();
    let synced = clients[syncing].state_snapshot().await?;
    let tip = peer.height().await?;
    wait_height(&clients[syncing], tip, RUN_TIMEOUT).await?;
    let caught_up = started.elapsed();
    let ops = snapshot.op_count - snapshot.range_start;
    println!("fast-sync of {ops} operations (sync range {}..{}):", snapshot.range_start, snapshot.op_count);
    println!(
        "  state synced and verified in: {:>8.2} s ({:.0} operations/s, process start included)",
        synced_in.as_secs_f64(),
        ops as f64 / synced_in.as_secs_f64()
    );
    println!("  following the tip after:      {:>8.2} s (height {tip})", caught_up.as_secs_f64());
    if let Some(synced) = synced {
        println!("  first snapshot after sync:    height {}, {} operations", synced.height, synced.op_count);
    }
    Ok(())
}

/// One proof kind of `bench proofs`: fetches a proof and verifies it, timing both.
async fn time_proof(
    client: &Client,
    identity: &drover_client::verify::Identity,
    kind: &str,
    target: (Address, H256),
) -> anyhow::Result<(Duration, Duration)> {
    use drover_client::verify;
    let (address, hash) = target;
    let start = Instant::now();
    let check: Box<dyn FnOnce() -> Result<(), verify::VerifyError>> = match kind {
        "account" | "account (absent)" => {
            let proof = client.proof_account(&address, None).await?;
            Box::new(move || verify::verify_account(&proof, identity).map(|_| ()))
        }
        "storage (absent)" => {
            let proof = client.proof_storage(&address, b"slot", None).await?;
            Box::new(move || verify::verify_storage(&proof, identity).map(|_| ()))
        }
        "tx" => {
            let proof = client.proof_tx(&hash).await?.context("transaction not included")?;
            Box::new(move || verify::verify_tx(&proof, identity).map(|_| ()))
        }
        _ => {
            let proof = client.proof_receipt(&hash).await?.context("transaction not included")?;
            Box::new(move || verify::verify_receipt(&proof, identity).map(|_| ()))
        }
    };
    let fetched = start.elapsed();
    let start = Instant::now();
    check().with_context(|| format!("a {kind} proof did not verify"))?;
    Ok((fetched, start.elapsed()))
}

async fn proofs(args: ProofArgs) -> anyhow::Result<()> {
    ensure!(args.requests > 0, "--requests must be positive");
    let network = SpawnedNetwork::start(args.validators, args.block_interval_ms).await?;
    let genesis = drover_node::genesis::Genesis::load(&network.dir.path().join(drover_node::devnet::GENESIS_FILE))?;
    let client = Client::new(&network.urls[0])?;
    let sender = SecretKey::dev(FAUCET_KEY_INDEX);
    let nonce = client.account(&sender.address()).await?.context("the faucet account is not funded")?.nonce;
    let to = SecretKey::random().address();
    let tx = bench_transfer(&sender, client.chain_info().await?.chain_id, nonce, to, 1);
    let waited = client.submit_wait(std::slice::from_ref(&tx), 10_000).await?;
    ensure!(
        waited.results.first().is_some_and(|r| r.block_height.is_some()),
        "the transfer was not included: {waited:?}"
    );

    let absent = SecretKey::random().address();
    println!(
        "proofs ({} per kind, {} validator(s), block interval {} ms)",
        args.requests, args.validators, args.block_interval_ms
    );
    println!(
        "  {:<18} {:>12} {:>12} {:>14} {:>14}",
        "kind", "http p50 ms", "http p99 ms", "verify p50 ms", "verify p99 ms"
    );
    let kinds = [("account", to), ("account (absent)", absent), ("storage (absent)", to), ("tx", to), ("receipt", to)];
    for (kind, address) in kinds {
        let mut http = Vec::with_capacity(args.requests);
        let mut check = Vec::with_capacity(args.requests);
        for _ in 0..args.requests {
            let (fetched, verified) = time_proof(&client, &genesis.identity, kind, (address, tx.hash())).await?;
            http.push(fetched);
            check.push(verified);
        }
        http.sort();
        check.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "  {kind:<18} {:>12.2} {:>12.2} {:>14.2} {:>14.2}",
            ms(percentile(&http, 0.50)),
            ms(percentile(&http, 0.99)),
            ms(percentile(&check, 0.50)),
            ms(percentile(&check, 0.99)),
        );
    }
    Ok(())
}
