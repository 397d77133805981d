//! `drover bench reads`: `GET /account/{address}` requests per second and their latency, on an
//! idle chain and while blocks full of transfers are being committed.
//!
//! The devnet is first given `--accounts` accounts (transfers to fresh addresses). Then
//! `--connections` keep-alive connections each send requests back to back for `--seconds`, for a
//! random one of those accounts each time, with the rate limit lifted (as `wrk` would: a minimal
//! HTTP/1.1 client, so the load generator costs little of the machine the node shares). The
//! second run does the same while transfers are offered at `--write-rate` per second. Each run
//! reports the share of requests the node's account view did not hold (each a state database
//! lookup): with more accounts than the view caches, most of a uniform random read's.

use super::*;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};

#[derive(Args)]
pub(crate) struct ReadArgs {
    /// Accounts created before reading (each by a transfer to a fresh address).
    #[arg(long, default_value_t = 100_000)]
    pub accounts: u64,
    /// Keep-alive connections reading at once.
    #[arg(long, default_value_t = 2)]
    pub connections: usize,
    /// How long each run lasts, in seconds.
    #[arg(long, default_value_t = 15)]
    pub seconds: u64,
    /// Transfers per second offered during the second run.
    #[arg(long, default_value_t = 4_000)]
    pub write_rate: u64,
    /// Sending accounts.
    #[arg(long, default_value_t = 500)]
    pub senders: u32,
}

/// Transfers per second while the accounts are created: below the cycle target, so the basefee
/// stays at its minimum.
const CREATE_TRANSFERS_PER_SEC: u64 = 4_000;

pub(super) async fn reads(args: ReadArgs) -> anyhow::Result<()> {
    ensure!(
        args.connections > 0 && args.seconds > 0 && args.accounts > 0,
        "--connections, --seconds and --accounts must be positive"
    );
    let network = SpawnedNetwork::start(1, 100).await?;
    let client = Client::new(&network.urls[0])?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let write_txs = args.write_rate * args.seconds;
    let per_sender = (args.accounts + write_txs).div_ceil(u64::from(args.senders));
    let senders = fund_senders(
        &client,
        &SecretKey::dev(FAUCET_KEY_INDEX),
        chain_id,
        args.senders,
        Workload::Transfers.budget(per_sender),
        50,
        &retries,
    )
    .await?;
    let mut transfers = FreshTransfers::new(senders, chain_id);
    println!("creating {} accounts", args.accounts);
    let create = Load { batch: 50, concurrency: 8, rate: Some(CREATE_TRANSFERS_PER_SEC) };
    run_load(&client, std::slice::from_ref(&client), transfers.sign(0, args.accounts), create).await?;

    let address = network.urls[0].trim_start_matches("http://").to_owned();
    let misses = counter(&client, ACCOUNT_MISSES).await?;
    let idle = read_run(&address, args.accounts, args.connections, args.seconds).await?;
    let misses = counter(&client, ACCOUNT_MISSES).await? - misses;
    report("idle chain", &idle, args.seconds, misses);

    // The same reads while transfers to fresh addresses fill blocks.
    let writes = transfers.sign(args.accounts, write_txs);
    let load = Load { batch: 50, concurrency: 4, rate: Some(args.write_rate) };
    let (clients, writer) = ([client.clone()], client.clone());
    let writing = tokio::spawn(async move { run_load(&writer, &clients, writes, load).await });
    let misses = counter(&client, ACCOUNT_MISSES).await?;
    let busy = read_run(&address, args.accounts, args.connections, args.seconds).await?;
    let misses = counter(&client, ACCOUNT_MISSES).await? - misses;
    let written = writing.await??;
    report(&format!("while {:.0} transfers/s finalize", written.throughput()), &busy, args.seconds, misses);
    Ok(())
}

/// The node's count of account reads its account view did not hold.
const ACCOUNT_MISSES: &str = "chain_account_read_misses_total";

fn report(what: &str, latencies: &[Duration], seconds: u64, misses: u64) {
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "GET /account, {what}: {:.0} requests/s, p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs ({} requests, {:.0} % read from the database)",
        latencies.len() as f64 / seconds as f64,
        us(percentile(latencies, 0.50)),
        us(percentile(latencies, 0.99)),
        us(latencies.last().copied().unwrap_or_default()),
        latencies.len(),
        misses as f64 * 100.0 / latencies.len().max(1) as f64
    );
}

/// `connections` keep-alive connections reading random accounts among the first `accounts`
/// fresh recipients for `seconds`; answers every request's latency, sorted.
async fn read_run(address: &str, accounts: u64, connections: usize, seconds: u64) -> anyhow::Result<Vec<Duration>> {
    let path: PathOf = Box::new(move |r| format!("/account/{}", Recipients::Fresh.address(r % accounts)));
    get_run(address, connections, seconds, Arc::new(path)).await
}

/// The path of a read request, from a pseudo-random number.
pub(super) type PathOf = Box<dyn Fn(u64) -> String + Send + Sync>;

/// `connections` keep-alive connections asking for `path(r)` (r pseudo-random) back to back for
/// `seconds`; answers every request's latency, sorted.
pub(super) async fn get_run(
    address: &str,
    connections: usize,
    seconds: u64,
    path: Arc<PathOf>,
) -> anyhow::Result<Vec<Duration>> {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for connection in 0..connections {
        let (address, path) = (address.to_owned(), Arc::clone(&path));
        tasks.push(tokio::spawn(async move {
            let stream = tokio::net::TcpStream::connect(&address).await?;
            stream.set_nodelay(true)?;
            let (read, mut write) = stream.into_split();
            let mut read = BufReader::new(read);
            let mut latencies = Vec::new();
            let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ connection as u64;
            let mut body = Vec::new();
            while Instant::now() < deadline {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let path = path(state >> 33);
                let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n");
                let started = Instant::now();
                write.write_all(request.as_bytes()).await?;
                let status = read_response(&mut read, &mut body).await?;
                latencies.push(started.elapsed());
                ensure!(status == 200, "GET {path} answered {status}: {}", String::from_utf8_lossy(&body));
            }
            anyhow::Ok(latencies)
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await??);
    }
    all.sort();
    Ok(all)
}

/// Reads one HTTP/1.1 response with a `Content-Length` body; answers its status.
pub(super) async fn read_response(
    read: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
    body: &mut Vec<u8>,
) -> anyhow::Result<u16> {
    let mut line = String::new();
    read.read_line(&mut line).await?;
    let status = line.split_whitespace().nth(1).and_then(|code| code.parse().ok()).context("no status line")?;
    let mut length = 0usize;
    loop {
        line.clear();
        ensure!(read.read_line(&mut line).await? > 0, "connection closed");
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().context("content-length")?;
        }
    }
    body.resize(length, 0);
    read.read_exact(body).await?;
    Ok(status)
}
