//! `drover bench history`: the figures of account history, event queries, block streams and
//! simulation (`docs/performance.md`, "History, events, streams and simulation").
//!
//! 1. **Index.** `--transactions` transfers from `--senders` accounts to fresh recipients are
//!    finalized, in rounds of `--round` (each transfer writes two history entries, an event under
//!    three keys and its share of a block record).
//! 2. **Reads.** For `--seconds` each, keep-alive connections ask back to back for a sender's
//!    newest history page (`limit=50`, a random sender of thousands of transactions), a
//!    recipient's, the newest 50 `transfer` events, and one recipient's `transfer` events over
//!    the default range (10,000 blocks); then `POST /simulate` of a transfer. Latency p50/p99.
//! 3. **Streams.** Transfers at `--rate` for `--stream-seconds` with no stream open, then again
//!    with `--subscribers` block streams open from `--subscriber-ips` loopback addresses
//!    (127.0.0.2 and up: the node caps each client IP's connections). Every stream reads every
//!    block; its lag is the time it received the block after the block's timestamp (the proposer's
//!    clock, so it includes the block's finalization), and after the first stream received it
//!    (what delivering to many streams adds). The two runs' finality p50/p99 compare what the
//!    streams cost the chain.

use super::reads::{PathOf, get_run};
use super::*;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};

#[derive(Args)]
pub(crate) struct HistoryArgs {
    /// Transfers indexed before the reads.
    #[arg(long, default_value_t = 1_000_000)]
    pub transactions: u64,
    /// Transfers signed and sent per round of indexing.
    #[arg(long, default_value_t = 100_000)]
    pub round: u64,
    /// Sending accounts.
    #[arg(long, default_value_t = 200)]
    pub senders: u32,
    /// Keep-alive connections reading at once.
    #[arg(long, default_value_t = 2)]
    pub connections: usize,
    /// How long each read run lasts, in seconds.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Block streams open during the second stream run.
    #[arg(long, default_value_t = 1_000)]
    pub subscribers: usize,
    /// Loopback addresses the streams are spread over (127.0.0.2 and up).
    #[arg(long, default_value_t = 10)]
    pub subscriber_ips: u8,
    /// Transfers per second offered during the stream runs.
    #[arg(long, default_value_t = 5_000)]
    pub rate: u64,
    /// How long each stream run offers transfers, in seconds.
    #[arg(long, default_value_t = 20)]
    pub stream_seconds: u64,
}

/// Transfers per second while indexing: about what one validator finalizes here.
const INDEX_TRANSFERS_PER_SEC: u64 = 5_000;

pub(super) async fn history(args: HistoryArgs) -> anyhow::Result<()> {
    ensure!(args.senders > 0 && args.round > 0 && args.connections > 0, "counts must be positive");
    ensure!(args.rate > 0 && args.stream_seconds > 0, "--rate and --stream-seconds must be positive");
    ensure!(args.subscriber_ips > 0 && args.subscriber_ips < 250, "--subscriber-ips must be 1..250");
    let per_ip = args.subscribers.div_ceil(usize::from(args.subscriber_ips)).max(1);
    let network = SpawnedNetwork::start_with_env(
        1,
        100,
        &[
            ("RPC_STREAM_SUBSCRIBERS_MAX", &args.subscribers.max(1).to_string()),
            ("RPC_STREAM_SUBSCRIBERS_PER_CLIENT", &per_ip.to_string()),
        ],
    )
    .await?;
    let client = Client::new(&network.urls[0])?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let stream_txs = 2 * args.rate * args.stream_seconds;
    let per_sender = (args.transactions + stream_txs + 1_000).div_ceil(u64::from(args.senders));
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

    let mut indexed = 0;
    while indexed < args.transactions {
        let count = args.round.min(args.transactions - indexed);
        let load = Load { batch: 50, concurrency: 8, rate: Some(INDEX_TRANSFERS_PER_SEC) };
        let report = run_load(&client, std::slice::from_ref(&client), transfers.sign(indexed, count), load).await?;
        indexed += count;
        println!("indexed {indexed} transfers ({:.0}/s)", report.throughput());
    }

    let address = network.urls[0].trim_start_matches("http://").to_owned();
    let sender_addresses: Vec<Address> = transfers.senders().iter().map(SecretKey::address).collect();
    let recipients = indexed;
    let queries: [(&str, PathOf); 4] = [
        (
            "history page of a sender",
            Box::new(move |r| {
                format!("/account/{}/history?limit=50", sender_addresses[r as usize % sender_addresses.len()])
            }),
        ),
        (
            "history page of a recipient",
            Box::new(move |r| format!("/account/{}/history?limit=50", Recipients::Fresh.address(r % recipients))),
        ),
        ("newest 50 transfer events", Box::new(|_| "/events?topic=transfer&limit=50".to_owned())),
        (
            "a recipient's transfer events, 10,000 blocks",
            Box::new(move |r| {
                format!("/events?emitter={}&topic=transfer&limit=50", Recipients::Fresh.address(r % recipients))
            }),
        ),
    ];
    // `--transactions 0` or `--seconds 0` measures the streams alone.
    if indexed > 0 && args.seconds > 0 {
        for (what, path) in queries {
            let latencies = get_run(&address, args.connections, args.seconds, Arc::new(path)).await?;
            report(what, &latencies, args.seconds);
        }
        let latencies = simulate_run(&client, transfers.senders()[0].address(), args.seconds).await?;
        report("POST /simulate of a transfer", &latencies, args.seconds);
    }

    let mut next = indexed;
    let load = Load { batch: 50, concurrency: 8, rate: Some(args.rate) };
    let count = args.rate * args.stream_seconds;
    let alone = run_load(&client, std::slice::from_ref(&client), transfers.sign(next, count), load).await?;
    next += count;
    println!("\ntransfers at {} /s, no stream open:", args.rate);
    alone.print("transfers");

    let tip = client.height().await?;
    let lags: Arrivals = Arc::default();
    let open = Arc::new(AtomicU64::new(0));
    let mut streams = Vec::new();
    for i in 0..args.subscribers {
        let ip = std::net::Ipv4Addr::new(127, 0, 0, 2 + (i / per_ip) as u8);
        let (address, lags, open) = (address.clone(), Arc::clone(&lags), Arc::clone(&open));
        streams.push(tokio::spawn(follow(address, ip, tip + 1, lags, open)));
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while open.load(Ordering::Relaxed) < args.subscribers as u64 {
        ensure!(
            Instant::now() < deadline,
            "only {} of {} streams opened",
            open.load(Ordering::Relaxed),
            args.subscribers
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let watched = run_load(&client, std::slice::from_ref(&client), transfers.sign(next, count), load).await?;
    // Every stream has the last block by now.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for stream in &streams {
        stream.abort();
    }
    let arrivals = std::mem::take(&mut *lags.lock());
    // The first stream to receive a block received it as soon as the node published it.
    let mut first: HashMap<u64, u64> = HashMap::new();
    for (height, arrived_ms, _) in &arrivals {
        let earliest = first.entry(*height).or_insert(*arrived_ms);
        *earliest = (*earliest).min(*arrived_ms);
    }
    let mut after_stamp: Vec<Duration> =
        arrivals.iter().map(|(_, arrived, stamp)| Duration::from_millis(arrived.saturating_sub(*stamp))).collect();
    let mut after_first: Vec<Duration> =
        arrivals.iter().map(|(height, arrived, _)| Duration::from_millis(arrived - first[height])).collect();
    after_stamp.sort();
    after_first.sort();
    println!("\ntransfers at {} /s, {} block streams open:", args.rate, args.subscribers);
    watched.print("transfers");
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    for (what, lags) in [("after the block's timestamp", &after_stamp), ("after the first stream", &after_first)] {
        println!(
            "  stream lag {what}: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
            ms(percentile(lags, 0.50)),
            ms(percentile(lags, 0.99)),
            ms(lags.last().copied().unwrap_or_default()),
        );
    }
    println!("  blocks received: {} over {} streams", arrivals.len(), args.subscribers);
    Ok(())
}

fn report(what: &str, latencies: &[Duration], seconds: u64) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what}: {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} requests)",
        latencies.len() as f64 / seconds as f64,
        ms(percentile(latencies, 0.50)),
        ms(percentile(latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
        latencies.len()
    );
}

/// `POST /simulate` of a transfer from `from`, back to back for `seconds`.
async fn simulate_run(client: &Client, from: Address, seconds: u64) -> anyhow::Result<Vec<Duration>> {
    let request = drover_types::api::SimulateRequest {
        from: Some(from),
        to: Some(Address([0xee; 20])),
        value: Some(1),
        ..Default::default()
    };
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut latencies = Vec::new();
    while Instant::now() < deadline {
        let started = Instant::now();
        let simulation = client.simulate(&request).await?;
        latencies.push(started.elapsed());
        ensure!(simulation.status == drover_types::api::ReceiptStatus::Success, "{simulation:?}");
    }
    latencies.sort();
    Ok(latencies)
}

/// Each block a stream received: its height, when (Unix ms) and its timestamp.
type Arrivals = Arc<parking_lot::Mutex<Vec<(u64, u64, u64)>>>;

/// A block stream from `from` over a connection from `ip`: counts itself in `open` once the
/// node answers, then notes each block's arrival in `arrivals`.
pub(super) async fn follow(
    address: String,
    ip: std::net::Ipv4Addr,
    from: u64,
    arrivals: Arrivals,
    open: Arc<AtomicU64>,
) -> anyhow::Result<()> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind((ip, 0).into())?;
    let stream = socket.connect(address.parse()?).await?;
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let request = format!("GET /stream/blocks?from_height={from} HTTP/1.1\r\nHost: {address}\r\n\r\n");
    write.write_all(request.as_bytes()).await?;
    let mut line = String::new();
    read.read_line(&mut line).await?;
    ensure!(line.contains(" 200 "), "the stream was refused: {line}");
    loop {
        line.clear();
        ensure!(read.read_line(&mut line).await? > 0, "connection closed");
        if line.trim_end().is_empty() {
            break;
        }
    }
    open.fetch_add(1, Ordering::Relaxed);
    // The body is chunked; messages may span chunks. A message's id and timestamp are in its
    // first line and the start of its JSON: only those are read, the buffer is compacted once
    // a chunk (the client must cost little beside the node on the same cores).
    let mut messages: Vec<u8> = Vec::new();
    let mut scanned = 0;
    loop {
        line.clear();
        ensure!(read.read_line(&mut line).await? > 0, "connection closed");
        let size = usize::from_str_radix(line.trim_end(), 16).context("chunk size")?;
        if size == 0 {
            return Ok(());
        }
        let start = messages.len();
        messages.resize(start + size + 2, 0);
        read.read_exact(&mut messages[start..]).await?;
        messages.truncate(start + size);
        let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as u64;
        let mut consumed = 0;
        while let Some(end) = messages[scanned.max(consumed)..].windows(2).position(|w| w == b"\n\n") {
            let end = scanned.max(consumed) + end + 2;
            let head = &messages[consumed..end.min(consumed + 512)];
            let number = |after: &[u8]| {
                let at = head.windows(after.len()).position(|w| w == after)? + after.len();
                let digits: Vec<u8> = head[at..].iter().take_while(|b| b.is_ascii_digit()).copied().collect();
                std::str::from_utf8(&digits).ok()?.parse::<u64>().ok()
            };
            if let (Some(height), Some(stamp)) = (number(b"id: "), number(b"\"timestamp_ms\":")) {
                arrivals.lock().push((height, now_ms, stamp));
            }
            consumed = end;
        }
        messages.drain(..consumed);
        // What is left is the start of a message: the next search starts near its end.
        scanned = messages.len().saturating_sub(1);
    }
}
