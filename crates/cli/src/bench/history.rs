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
//!    (what delivering to many streams adds), counted for the blocks finalized once every stream
//!    was open. The two runs' finality p50/p99 compare what the streams cost the chain.

use super::reads::{PathOf, get_run};
use super::*;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

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

    // Signed first: signing takes both cores for a while, which would delay the streams' reads.
    let txs = transfers.sign(next, count);
    let tip = client.height().await?;
    let ips = (0..args.subscribers).map(|i| std::net::Ipv4Addr::new(127, 0, 0, 2 + (i / per_ip) as u8));
    let readers = StreamReaders::start(&address, ips, tip + 1)?;
    readers.opened(args.subscribers, Duration::from_secs(60)).await?;
    // Opening a thousand streams takes a while, and the streams opened last start with the
    // blocks finalized meanwhile, which they receive late by the time it took: those are not
    // what delivering costs, so only blocks finalized once every stream is open count.
    let all_open = client.height().await?;
    let watched = run_load(&client, std::slice::from_ref(&client), txs, load).await?;
    // Every stream has the last block by now.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut arrivals = readers.stop().await?;
    arrivals.retain(|(height, _, _)| *height > all_open);
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
pub(super) type Arrivals = Arc<parking_lot::Mutex<Vec<(u64, u64, u64)>>>;

/// Bytes a stream reader asks the kernel for at once: a few block messages.
const READ_BUFFER_BYTES: usize = 256 * 1024;
/// The start of a message that a reader keeps, where its id and block timestamp are.
const MESSAGE_HEAD_BYTES: usize = 512;
/// Largest response head a reader accepts.
const RESPONSE_HEAD_BYTES_MAX: usize = 16 * 1024;
/// Longest chunk-size line a reader waits for the end of (a size and extensions).
const CHUNK_SIZE_LINE_BYTES_MAX: usize = 1024;

/// The blank line that ends a message, its searcher built once rather than for every piece of
/// data read.
static MESSAGE_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\n\n"));

/// Block streams read on a thread and a single-threaded runtime of their own, so that reading
/// them neither delays the load generator and the finality tracker (their wakeups would queue
/// behind a thousand readers') nor is delayed by them; only the two cores are shared.
pub(super) struct StreamReaders {
    /// What the streams received.
    arrivals: Arrivals,
    /// Streams the node accepted so far.
    open: Arc<AtomicU64>,
    /// Why each stream that ended before [`StreamReaders::stop`] ended: its blocks would be
    /// missing from the figures, the slowest first (the node closes a slow consumer).
    ended: Arc<parking_lot::Mutex<Vec<String>>>,
    stop: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl StreamReaders {
    /// A block stream from height `from` of the node at `address` for each of `ips` (the local
    /// address each connects from).
    pub(super) fn start(
        address: &str,
        ips: impl IntoIterator<Item = std::net::Ipv4Addr>,
        from: u64,
    ) -> anyhow::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let (arrivals, open) = (Arrivals::default(), Arc::new(AtomicU64::new(0)));
        let ended = Arc::new(parking_lot::Mutex::new(Vec::new()));
        for ip in ips {
            let (arrivals, open, ended) = (Arc::clone(&arrivals), Arc::clone(&open), Arc::clone(&ended));
            let address = address.to_owned();
            runtime.spawn(async move {
                let why = match follow(address, ip, from, arrivals, open).await {
                    Ok(()) => "the node ended the stream".to_owned(),
                    Err(error) => format!("{error:#}"),
                };
                ended.lock().push(why);
            });
        }
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new().name("stream-readers".into()).spawn(move || {
            runtime.block_on(async {
                let _ = stopped.await;
            });
        })?;
        Ok(Self { arrivals, open, ended, stop, thread })
    }

    /// Waits until `count` streams are open, at most `within`.
    pub(super) async fn opened(&self, count: usize, within: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + within;
        while self.open.load(Ordering::Relaxed) < count as u64 {
            ensure!(Instant::now() < deadline, "only {} of {count} streams opened", self.open.load(Ordering::Relaxed));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }

    /// Closes every stream; what they received. Fails if a stream ended before: the figures
    /// would leave its blocks out.
    pub(super) async fn stop(self) -> anyhow::Result<Vec<(u64, u64, u64)>> {
        let _ = self.stop.send(());
        let thread = self.thread;
        tokio::task::spawn_blocking(move || thread.join())
            .await?
            .map_err(|_| anyhow::anyhow!("the stream readers' thread panicked"))?;
        let ended = self.ended.lock();
        ensure!(ended.is_empty(), "{} streams ended early, the first: {}", ended.len(), ended[0]);
        Ok(std::mem::take(&mut *self.arrivals.lock()))
    }
}

/// A block stream from `from` over a connection from `ip`: counts itself in `open` once the
/// node answers, then notes each block's arrival in `arrivals` (when the read that completed
/// its message returned).
///
/// It costs little beside the node on the same cores: large reads into one buffer, the chunked
/// framing walked by its sizes, message ends found with `memchr` (SIMD), and only a message's
/// head kept, where its id and timestamp are.
async fn follow(
    address: String,
    ip: std::net::Ipv4Addr,
    from: u64,
    arrivals: Arrivals,
    open: Arc<AtomicU64>,
) -> anyhow::Result<()> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind((ip, 0).into())?;
    let mut stream = socket.connect(address.parse()?).await?;
    let request = format!("GET /stream/blocks?from_height={from} HTTP/1.1\r\nHost: {address}\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut raw: Vec<u8> = Vec::with_capacity(READ_BUFFER_BYTES);
    let head_end = loop {
        if let Some(at) = memchr::memmem::find(&raw, b"\r\n\r\n") {
            break at + 4;
        }
        ensure!(raw.len() < RESPONSE_HEAD_BYTES_MAX, "response head too long");
        ensure!(stream.read_buf(&mut raw).await? > 0, "connection closed");
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    ensure!(head.lines().next().is_some_and(|status| status.contains(" 200 ")), "the stream was refused: {head}");
    ensure!(head.contains("transfer-encoding: chunked"), "the stream is not chunked: {head}");
    open.fetch_add(1, Ordering::Relaxed);
    let mut body = ChunkedBody::default();
    let mut messages = Messages::default();
    let mut pos = head_end;
    loop {
        let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as u64;
        let Some(used) = body.walk(&raw[pos..], |data| messages.feed(data, now_ms, &arrivals))? else {
            return Ok(());
        };
        pos += used;
        if pos == raw.len() {
            raw.clear();
            pos = 0;
        } else if pos > READ_BUFFER_BYTES / 2 {
            raw.drain(..pos);
            pos = 0;
        }
        raw.reserve(READ_BUFFER_BYTES - raw.len().min(READ_BUFFER_BYTES / 2));
        ensure!(stream.read_buf(&mut raw).await? > 0, "connection closed");
    }
}

/// Where a reader is in a chunked body.
#[derive(Default)]
struct ChunkedBody {
    /// Data bytes of the current chunk not yet seen.
    data_left: usize,
    /// Bytes of the CRLF after the current chunk's data not yet seen.
    crlf_left: usize,
}

impl ChunkedBody {
    /// Walks `input`, handing each piece of chunk data to `data`: the bytes used (the rest is
    /// an incomplete chunk-size line), or `None` at the body's end.
    fn walk(&mut self, input: &[u8], mut data: impl FnMut(&[u8])) -> anyhow::Result<Option<usize>> {
        let mut pos = 0;
        loop {
            let available = input.len() - pos;
            if self.data_left > 0 {
                let take = self.data_left.min(available);
                if take == 0 {
                    return Ok(Some(pos));
                }
                data(&input[pos..pos + take]);
                (pos, self.data_left) = (pos + take, self.data_left - take);
                if self.data_left == 0 {
                    self.crlf_left = 2;
                }
            } else if self.crlf_left > 0 {
                let take = self.crlf_left.min(available);
                if take == 0 {
                    return Ok(Some(pos));
                }
                let expected = &b"\r\n"[2 - self.crlf_left..][..take];
                ensure!(&input[pos..pos + take] == expected, "a chunk's data is not followed by CRLF");
                (pos, self.crlf_left) = (pos + take, self.crlf_left - take);
            } else {
                let Some(eol) = memchr::memmem::find(&input[pos..], b"\r\n") else {
                    ensure!(available <= CHUNK_SIZE_LINE_BYTES_MAX, "a chunk-size line without its end");
                    return Ok(Some(pos));
                };
                let line = std::str::from_utf8(&input[pos..pos + eol]).context("chunk size")?;
                let size = usize::from_str_radix(line.split(';').next().unwrap_or_default().trim(), 16)
                    .with_context(|| format!("chunk size {line:?}"))?;
                if size == 0 {
                    return Ok(None);
                }
                (pos, self.data_left) = (pos + eol + 2, size);
            }
        }
    }
}

/// Server-sent events split at their blank lines, whatever the chunks: each message's head is
/// kept until its end, then its id and timestamp noted.
#[derive(Default)]
struct Messages {
    head: Vec<u8>,
    /// The data seen last ended with a line feed (a message's end may span two chunks).
    after_newline: bool,
}

impl Messages {
    fn feed(&mut self, mut data: &[u8], now_ms: u64, arrivals: &Arrivals) {
        while !data.is_empty() {
            let end =
                if self.after_newline && data[0] == b'\n' { Some(1) } else { MESSAGE_END.find(data).map(|at| at + 2) };
            let Some(end) = end else {
                self.keep(data);
                self.after_newline = data.ends_with(b"\n");
                return;
            };
            self.keep(&data[..end]);
            self.after_newline = false;
            if let Some(arrival) = self.arrival(now_ms) {
                arrivals.lock().push(arrival);
            }
            self.head.clear();
            data = &data[end..];
        }
    }

    fn keep(&mut self, data: &[u8]) {
        let room = MESSAGE_HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&data[..room.min(data.len())]);
    }

    /// `(height, now_ms, timestamp)` of a block message (`None` for a comment or another kind).
    fn arrival(&self, now_ms: u64) -> Option<(u64, u64, u64)> {
        let number = |after: &[u8]| {
            let at = memchr::memmem::find(&self.head, after)? + after.len();
            let digits = self.head[at..].iter().take_while(|b| b.is_ascii_digit()).count();
            std::str::from_utf8(&self.head[at..at + digits]).ok()?.parse::<u64>().ok()
        };
        Some((number(b"id: ")?, now_ms, number(b"\"timestamp_ms\":")?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two block messages and a comment, chunked at every possible place, read in pieces of
    /// every size: each block is noted once with its id and timestamp.
    #[test]
    fn a_reader_finds_every_message_whatever_the_chunks_and_reads() {
        let messages = b"id: 7\nevent: block\ndata: {\"height\":7,\"timestamp_ms\":1000,\"x\":\"a\\n\"}\n\n: keep-alive\n\nid: 8\nevent: block\ndata: {\"timestamp_ms\":2000}\n\n";
        for cut in 1..messages.len() {
            let mut body = Vec::new();
            for part in [&messages[..cut], &messages[cut..]] {
                body.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
                body.extend_from_slice(part);
                body.extend_from_slice(b"\r\n");
            }
            body.extend_from_slice(b"0\r\n\r\n");
            for read in [1, 2, 3, 7, body.len()] {
                let arrivals = Arrivals::default();
                let (mut chunked, mut parsed) = (ChunkedBody::default(), Messages::default());
                let (mut buffer, mut ended) = (Vec::new(), false);
                for piece in body.chunks(read) {
                    buffer.extend_from_slice(piece);
                    match chunked.walk(&buffer, |data| parsed.feed(data, 5, &arrivals)).unwrap() {
                        Some(used) => drop(buffer.drain(..used)),
                        None => {
                            ended = true;
                            break;
                        }
                    }
                }
                assert!(ended, "cut {cut}, reads of {read}");
                assert_eq!(*arrivals.lock(), [(7, 5, 1000), (8, 5, 2000)], "cut {cut}, reads of {read}");
            }
        }
    }

    #[test]
    fn a_reader_refuses_broken_framing_and_takes_extensions() {
        let walk = |body: &[u8]| {
            let mut seen = Vec::new();
            ChunkedBody::default().walk(body, |data| seen.extend_from_slice(data)).map(|end| (end, seen))
        };
        assert_eq!(walk(b"3;name=value\r\nabc\r\n0\r\n\r\n").unwrap(), (None, b"abc".to_vec()));
        assert!(walk(b"zz\r\nabc\r\n").is_err(), "a size that is not hex");
        assert!(walk(b"3\r\nabcXY0\r\n").is_err(), "data not followed by CRLF");
        assert!(walk(&[b'1'; CHUNK_SIZE_LINE_BYTES_MAX + 1]).is_err(), "a size line that never ends");
        assert_eq!(walk(&[b'1'; 8]).unwrap(), (Some(0), Vec::new()), "a size line still coming");
    }
}
