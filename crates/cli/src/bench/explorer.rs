//! `drover bench explorer`: the requests each page of the block explorer (`docs/explorer.md`)
//! sends, timed on a chain of `--transactions` transactions, and what the explorer costs the
//! chain's finality (`docs/performance.md`, "Explorer pages").
//!
//! 1. **Chain.** `--transactions` transfers from `--senders` accounts to fresh recipients are
//!    finalized in rounds of `--round` (as `bench history` does: each sender ends with thousands
//!    of history entries), then what the other pages show: a token created by the faucet account
//!    with a share sent to every sender, a governance proposal with its vote, and the audit actor
//!    (`actors/audit.wat`) with [`ACTOR_ENTRIES`] storage entries and [`ACTOR_EVENTS`] events.
//! 2. **Pages.** For `--seconds` per page, one keep-alive connection opens the page again and
//!    again: the requests the explorer's page sends when it opens ([`Page::requests`]: the same
//!    routes, page sizes and proof requests), one after the other, for a random block,
//!    transaction or sender each time. Per page: each request's p50/p99, and the whole page's
//!    (its requests in sequence; a browser sends up to 4 at once, so it waits less).
//! 3. **Cost to the chain.** Transfers at `--rate` for `--load-seconds` with nothing reading,
//!    then twice again while `--tabs` block streams are open (what as many open live pages hold)
//!    and `--readers` connections open every page in turn: each one page every
//!    `--page-interval-ms` (people browsing), then back to back (the most reads the node
//!    answers), then once more with nothing reading (what the machine's other work moved). The
//!    transfers' submit→finalized p50/p99 in each run, and the pages' latency while blocks
//!    commit.
//!
//! The streams themselves are measured by `bench history` (lag, and finality with up to 1,000
//! open); the explorer's static files are served from memory and not timed.

use super::history::StreamReaders;
use super::reads::read_response;
use super::tokens::{settle, token_tx};
use super::*;
use drover_client::{TxBuilder, Wallet};
use drover_types::{
    api::{ReceiptStatus, WaitStatus},
    governance::GovernanceCall,
    token::{NewToken, TokenCall},
};
use std::sync::atomic::AtomicBool;
use tokio::io::{AsyncWriteExt as _, BufReader};

#[derive(Args)]
pub(crate) struct ExplorerArgs {
    /// Transfers finalized before the pages are read.
    #[arg(long, default_value_t = 1_000_000)]
    pub transactions: u64,
    /// Transfers signed and sent per round while the chain is built.
    #[arg(long, default_value_t = 100_000)]
    pub round: u64,
    /// Sending accounts (each ends with `--transactions` / `--senders` history entries).
    #[arg(long, default_value_t = 200)]
    pub senders: u32,
    /// How long each page is read, in seconds.
    #[arg(long, default_value_t = 5)]
    pub seconds: u64,
    /// Transfers per second offered during the cost runs.
    #[arg(long, default_value_t = 2_000)]
    pub rate: u64,
    /// How long each cost run offers transfers, in seconds (0: no cost runs).
    #[arg(long, default_value_t = 20)]
    pub load_seconds: u64,
    /// Connections opening every page in turn during the cost runs with readers.
    #[arg(long, default_value_t = 4)]
    pub readers: usize,
    /// How often each reader opens a page in the paced cost run, in milliseconds.
    #[arg(long, default_value_t = 250)]
    pub page_interval_ms: u64,
    /// Block streams open during the cost runs with readers (the live pages' streams).
    #[arg(long, default_value_t = 10)]
    pub tabs: usize,
    /// The pages read, comma-separated (default: every page).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub pages: Vec<Page>,
}

/// Transfers per second while the chain is built: blocks stay below the cycle target even when
/// a busy machine makes them late, so the basefee stays under the benchmark's max fee (at 5,000
/// /s it rose past it on a loaded machine).
const BUILD_TRANSFERS_PER_SEC: u64 = 3_000;
/// One transaction hash in this many is kept to open transaction pages with.
const TX_SAMPLE_EVERY: usize = 997;
/// Storage entries the audit actor is given, in calls of [`ENTRIES_PER_CALL`].
const ACTOR_ENTRIES: u32 = 1_000;
const ENTRIES_PER_CALL: u32 = 250;
/// Storage key and value length of the audit actor's entries, bytes.
const ACTOR_ENTRY_BYTES: u32 = 32;
/// Events the audit actor emits, in calls of [`EVENTS_PER_CALL`].
const ACTOR_EVENTS: u32 = 1_000;
const EVENTS_PER_CALL: u32 = 100;
/// Data length of each of the audit actor's events, bytes.
const ACTOR_EVENT_DATA_BYTES: u32 = 32;
/// The audit actor, its entitlements and the balance it is deployed with (none needed here).
const AUDIT_WAT: &str = include_str!("../../../../actors/audit.wat");
const AUDIT_MANIFEST: &[&str] =
    &["storage.kv", "events.emit", "econ.transfer", "mailbox.send", "actor.call", "job.submit", "timer.schedule"];
/// How long a setup transaction may take to finalize, milliseconds.
const SETUP_WAIT_MS: u64 = 10_000;
/// Items per page of the explorer's lists (`PAGE_ITEMS` in `explorer/src/paged.ts`).
const PAGE_ITEMS: u32 = 20;
/// Blocks the home page charts (`CHART_BLOCKS` in `explorer/src/pages/home.ts`).
const CHART_BLOCKS: u32 = 30;
/// Items of the actor page's multi-proof: its record and one page of storage entries.
const PROOF_MULTI_ITEMS: usize = 1 + PAGE_ITEMS as usize;

/// What the pages are opened on.
struct Fixture {
    /// Heights holding the transfers.
    heights: (u64, u64),
    /// Some of the transfers' hashes.
    transactions: Vec<H256>,
    /// The senders: thousands of history entries each.
    senders: Vec<Address>,
    /// The audit actor, and the keys of its first page of storage (the multi-proof's).
    actor: Address,
    actor_keys: Vec<String>,
    token: Address,
}

/// A page of the explorer, as its route opens it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Page {
    Home,
    Blocks,
    OlderBlocks,
    Block,
    Transaction,
    Account,
    Actor,
    Tokens,
    Token,
    Runners,
    Governance,
    Proposal,
}

/// Every page, in the order they are reported.
const PAGES: [Page; 12] = [
    Page::Home,
    Page::Blocks,
    Page::OlderBlocks,
    Page::Block,
    Page::Transaction,
    Page::Account,
    Page::Actor,
    Page::Tokens,
    Page::Token,
    Page::Runners,
    Page::Governance,
    Page::Proposal,
];

/// One request of a page: its route (the label it is reported under), what is sent, and
/// whether the page takes a 404 as an answer (an absent record it shows as such).
struct Request {
    route: &'static str,
    post: Option<String>,
    path: String,
    absent_ok: bool,
}

fn get(route: &'static str, path: String) -> Request {
    Request { route, post: None, path, absent_ok: false }
}

fn get_or_absent(route: &'static str, path: String) -> Request {
    Request { absent_ok: true, ..get(route, path) }
}

impl Page {
    fn name(self) -> &'static str {
        match self {
            Page::Home => "home `#/`",
            Page::Blocks => "blocks `#/blocks`",
            Page::OlderBlocks => "older blocks `#/blocks?before=`",
            Page::Block => "block `#/block/{height}`",
            Page::Transaction => "transaction `#/tx/{hash}`",
            Page::Account => "account `#/address/{sender}`",
            Page::Actor => "actor `#/address/{actor}`",
            Page::Tokens => "tokens `#/tokens`",
            Page::Token => "token `#/token/{id}`",
            Page::Runners => "runners `#/runners`",
            Page::Governance => "governance `#/governance`",
            Page::Proposal => "proposal `#/proposal/{id}`",
        }
    }

    /// What the page sends when it opens (`r` picks its block, transaction or sender), in the
    /// order the explorer's sources send them; streams and the requests of later clicks aside.
    fn requests(self, f: &Fixture, r: u64) -> Vec<Request> {
        let (low, high) = f.heights;
        let height = low + r % (high - low + 1);
        let trust = || get("GET /chain-info", "/chain-info".to_owned());
        match self {
            Page::Home => vec![
                get("GET /blocks?limit=30", format!("/blocks?limit={CHART_BLOCKS}")),
                // The latest transactions: the newest block holding any (here, a full one).
                get("GET /block/{height}", format!("/block/{height}")),
                get("GET /health/detailed", "/health/detailed".to_owned()),
                get("GET /basefee", "/basefee".to_owned()),
                trust(),
            ],
            Page::Blocks => vec![get("GET /blocks?limit=20", format!("/blocks?limit={PAGE_ITEMS}"))],
            Page::OlderBlocks => {
                vec![get("GET /blocks?limit=20&cursor={height}", format!("/blocks?limit={PAGE_ITEMS}&cursor={height}"))]
            }
            Page::Block => vec![get("GET /block/{height}", format!("/block/{height}"))],
            Page::Transaction => {
                let hash = f.transactions[(r % f.transactions.len() as u64) as usize];
                vec![
                    get("GET /transaction/{hash}", format!("/transaction/{hash}")),
                    get("GET /transaction/{hash}/receipt", format!("/transaction/{hash}/receipt")),
                    trust(),
                    get("GET /proof/receipt/{hash}", format!("/proof/receipt/{hash}")),
                ]
            }
            Page::Account => {
                let a = f.senders[(r % f.senders.len() as u64) as usize];
                let mut requests = vec![
                    get("GET /account/{address}", format!("/account/{a}")),
                    get_or_absent("GET /actor/{address} (none)", format!("/actor/{a}")),
                    trust(),
                    get("GET /proof/account/{address}", format!("/proof/account/{a}")),
                ];
                requests.extend(account_lists(a));
                requests
            }
            Page::Actor => {
                let a = f.actor;
                let multi: Vec<serde_json::Value> = std::iter::once(serde_json::json!({"kind": "actor", "address": a}))
                    .chain(
                        f.actor_keys.iter().map(|key| serde_json::json!({"kind": "storage", "address": a, "key": key})),
                    )
                    .take(PROOF_MULTI_ITEMS)
                    .collect();
                let mut requests = vec![
                    get_or_absent("GET /account/{actor}", format!("/account/{a}")),
                    get("GET /actor/{address}", format!("/actor/{a}")),
                    trust(),
                    get("GET /proof/account/{actor}", format!("/proof/account/{a}")),
                    get("GET /actor/{address}/code", format!("/actor/{a}/code")),
                    get("GET /actors/{address}/storage/count", format!("/actors/{a}/storage/count")),
                    get("GET /actors/{address}/storage?limit=20", format!("/actors/{a}/storage?limit={PAGE_ITEMS}")),
                    Request {
                        route: "POST /proof/multi (actor + 20 entries)",
                        post: Some(serde_json::Value::Array(multi).to_string()),
                        path: "/proof/multi".to_owned(),
                        absent_ok: false,
                    },
                    get("GET /actor/{address}/logs?limit=20", format!("/actor/{a}/logs?limit={PAGE_ITEMS}")),
                    get("GET /actors/{address}/mailbox?limit=20", format!("/actors/{a}/mailbox?limit={PAGE_ITEMS}")),
                    get("GET /actor/{address}/timers", format!("/actor/{a}/timers?offset=0&limit={PAGE_ITEMS}")),
                    get(
                        "GET /actor/{address}/upgrade-history",
                        format!("/actor/{a}/upgrade-history?offset=0&limit={PAGE_ITEMS}"),
                    ),
                    get("GET /actor/{address}/runs?limit=20", format!("/actor/{a}/runs?limit={PAGE_ITEMS}")),
                ];
                requests.extend(account_lists(a));
                requests
            }
            Page::Tokens => vec![get("GET /tokens", format!("/tokens?offset=0&limit={PAGE_ITEMS}"))],
            Page::Token => vec![
                get("GET /token/{id}", format!("/token/{}", f.token)),
                get("GET /events?emitter={token}&limit=20", format!("/events?emitter={}&limit={PAGE_ITEMS}", f.token)),
            ],
            Page::Runners => vec![get("GET /runners/active", format!("/runners/active?offset=0&limit={PAGE_ITEMS}"))],
            Page::Governance => vec![
                get("GET /governance/params", "/governance/params".to_owned()),
                get("GET /governance/proposals", format!("/governance/proposals?offset=0&limit={PAGE_ITEMS}")),
            ],
            Page::Proposal => vec![get("GET /governance/proposal/{id}", "/governance/proposal/0?limit=100".to_owned())],
        }
    }
}

/// The lists every address page shows: token holdings, delegations and history.
fn account_lists(a: Address) -> [Request; 3] {
    [
        get("GET /account/{address}/tokens", format!("/account/{a}/tokens?offset=0&limit={PAGE_ITEMS}")),
        get("GET /account/{address}/delegations", format!("/account/{a}/delegations?offset=0&limit={PAGE_ITEMS}")),
        get("GET /account/{address}/history?limit=20", format!("/account/{a}/history?limit={PAGE_ITEMS}")),
    ]
}

/// One keep-alive HTTP/1.1 connection to the node (a minimal client, so the load generator costs
/// little beside the node on the same cores).
struct Connection {
    host: String,
    read: BufReader<tokio::net::tcp::OwnedReadHalf>,
    write: tokio::net::tcp::OwnedWriteHalf,
    body: Vec<u8>,
}

impl Connection {
    async fn open(host: &str) -> anyhow::Result<Self> {
        let stream = tokio::net::TcpStream::connect(host).await?;
        stream.set_nodelay(true)?;
        let (read, write) = stream.into_split();
        Ok(Self { host: host.to_owned(), read: BufReader::new(read), write, body: Vec::new() })
    }

    /// Sends `request` and reads its answer; its latency.
    async fn send(&mut self, request: &Request) -> anyhow::Result<Duration> {
        let host = &self.host;
        let text = match &request.post {
            None => format!("GET {} HTTP/1.1\r\nHost: {host}\r\n\r\n", request.path),
            Some(body) => format!(
                "POST {} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                request.path,
                body.len()
            ),
        };
        let started = Instant::now();
        self.write.write_all(text.as_bytes()).await?;
        let status = read_response(&mut self.read, &mut self.body).await?;
        let elapsed = started.elapsed();
        ensure!(
            status == 200 || (status == 404 && request.absent_ok),
            "{} answered {status}: {}",
            request.path,
            String::from_utf8_lossy(&self.body)
        );
        Ok(elapsed)
    }
}

/// The latencies of one page's openings: each request's (by its position in the page) and each
/// whole opening's.
struct PageTimes {
    page: Page,
    routes: Vec<&'static str>,
    requests: Vec<Vec<Duration>>,
    openings: Vec<Duration>,
}

impl PageTimes {
    fn new(page: Page, fixture: &Fixture) -> Self {
        let routes: Vec<&'static str> = page.requests(fixture, 0).iter().map(|r| r.route).collect();
        Self { page, requests: vec![Vec::new(); routes.len()], routes, openings: Vec::new() }
    }

    /// Opens the page once on `connection`.
    async fn open(&mut self, connection: &mut Connection, fixture: &Fixture, r: u64) -> anyhow::Result<()> {
        let started = Instant::now();
        for (i, request) in self.page.requests(fixture, r).iter().enumerate() {
            self.requests[i].push(connection.send(request).await?);
        }
        self.openings.push(started.elapsed());
        Ok(())
    }

    fn merge(&mut self, other: PageTimes) {
        for (mine, theirs) in self.requests.iter_mut().zip(other.requests) {
            mine.extend(theirs);
        }
        self.openings.extend(other.openings);
    }

    /// Prints the page's line and one line per request.
    fn report(mut self) {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        self.openings.sort();
        let mut all: Vec<Duration> = self.requests.iter().flatten().copied().collect();
        all.sort();
        println!(
            "{}: {} openings of {} requests; requests p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; whole page p50 {:.2} ms, p99 {:.2} ms",
            self.page.name(),
            self.openings.len(),
            self.routes.len(),
            ms(percentile(&all, 0.50)),
            ms(percentile(&all, 0.99)),
            ms(all.last().copied().unwrap_or_default()),
            ms(percentile(&self.openings, 0.50)),
            ms(percentile(&self.openings, 0.99)),
        );
        for (route, mut latencies) in self.routes.iter().zip(self.requests) {
            latencies.sort();
            println!(
                "    {route}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                ms(percentile(&latencies, 0.50)),
                ms(percentile(&latencies, 0.99)),
                ms(latencies.last().copied().unwrap_or_default()),
            );
        }
    }
}

/// A pseudo-random sequence (the pages' picks), different for each `seed`.
struct Picks(u64);

impl Picks {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

pub(super) async fn explorer(args: ExplorerArgs) -> anyhow::Result<()> {
    ensure!(args.transactions > 0 && args.round > 0 && args.senders > 0, "counts must be positive");
    ensure!(args.seconds > 0 && args.rate > 0, "--seconds and --rate must be positive");
    let network =
        SpawnedNetwork::start_with_env(1, 100, &[("RPC_STREAM_SUBSCRIBERS_PER_CLIENT", &args.tabs.max(1).to_string())])
            .await?;
    let client = Client::new(&network.urls[0])?;
    let host = network.urls[0].trim_start_matches("http://").to_owned();
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let load_txs = 4 * args.rate * args.load_seconds;
    let per_sender = (args.transactions + load_txs + 1_000).div_ceil(u64::from(args.senders));
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);
    let senders =
        fund_senders(&client, &funder, chain_id, args.senders, Workload::Transfers.budget(per_sender), 50, &retries)
            .await?;
    let mut transfers = FreshTransfers::new(senders, chain_id);

    let first = client.height().await? + 1;
    let mut sample = Vec::new();
    let mut built = 0;
    while built < args.transactions {
        let count = args.round.min(args.transactions - built);
        let txs = transfers.sign(built, count);
        sample.extend(txs.iter().step_by(TX_SAMPLE_EVERY).map(Transaction::hash));
        let load = Load { batch: 50, concurrency: 8, rate: Some(BUILD_TRANSFERS_PER_SEC) };
        let report = run_load(&client, std::slice::from_ref(&client), txs, load).await?;
        built += count;
        println!("finalized {built} transfers ({:.0}/s)", report.throughput());
    }
    let last = client.height().await?;

    let senders: Vec<Address> = transfers.senders().iter().map(SecretKey::address).collect();
    let token = give_token(&client, &funder, chain_id, &senders).await?;
    propose(&client, &funder, chain_id).await?;
    let actor = audit_actor(&client, &funder, chain_id).await?;
    let actor_keys: Vec<String> = client
        .actor_storage(&actor, None)
        .await?
        .context("the audit actor is missing")?
        .items
        .into_iter()
        .take(PAGE_ITEMS as usize)
        .map(|entry| format!("0x{}", hex::encode(entry.key)))
        .collect();
    let fixture = Arc::new(Fixture { heights: (first, last), transactions: sample, senders, actor, actor_keys, token });
    println!(
        "\n{} transfers in blocks {first}..={last}; the audit actor {actor} holds {ACTOR_ENTRIES} entries and \
         {ACTOR_EVENTS} events; token {token}\n",
        args.transactions
    );

    println!("pages, one connection, the chain idle:");
    let pages: Arc<[Page]> = if args.pages.is_empty() { PAGES.into() } else { args.pages.clone().into() };
    for &page in pages.iter() {
        let mut times = PageTimes::new(page, &fixture);
        let mut connection = Connection::open(&host).await?;
        let mut picks = Picks(0x9e37_79b9_7f4a_7c15);
        let deadline = Instant::now() + Duration::from_secs(args.seconds);
        while Instant::now() < deadline {
            times.open(&mut connection, &fixture, picks.next()).await?;
        }
        times.report();
    }

    if args.load_seconds == 0 {
        return Ok(());
    }
    let load = Load { batch: 50, concurrency: 4, rate: Some(args.rate) };
    let count = args.rate * args.load_seconds;
    let mut next = args.transactions;
    let alone = run_load(&client, std::slice::from_ref(&client), transfers.sign(next, count), load).await?;
    next += count;
    println!("\ntransfers at {} /s, nothing reading:", args.rate);
    alone.print("transfers");

    let tip = client.height().await?;
    let readers = StreamReaders::start(&host, (0..args.tabs).map(|_| std::net::Ipv4Addr::LOCALHOST), tip + 1)?;
    readers.opened(args.tabs, Duration::from_secs(30)).await?;
    let paced = Duration::from_millis(args.page_interval_ms);
    for (interval, how) in [
        (Some(paced), format!("each opening a page every {} ms", args.page_interval_ms)),
        (None, "each opening pages back to back".to_owned()),
    ] {
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..args.readers)
            .map(|reader| {
                let (fixture, pages, stop) = (Arc::clone(&fixture), Arc::clone(&pages), Arc::clone(&stop));
                tokio::spawn(read_pages(host.clone(), fixture, pages, reader as u64, interval, stop))
            })
            .collect();
        let watched = run_load(&client, std::slice::from_ref(&client), transfers.sign(next, count), load).await;
        next += count;
        stop.store(true, Ordering::Relaxed);
        let mut under_load: Vec<PageTimes> = pages.iter().map(|page| PageTimes::new(*page, &fixture)).collect();
        for reader in readers {
            for (all, mine) in under_load.iter_mut().zip(reader.await??) {
                all.merge(mine);
            }
        }
        println!(
            "\ntransfers at {} /s, {} connections {how}, {} block streams open:",
            args.rate, args.readers, args.tabs
        );
        watched?.print("transfers");
        println!("\npages while those transfers finalize:");
        for times in under_load {
            times.report();
        }
    }
    readers.stop().await?;
    // Again with nothing reading: how much the machine's other work moved the figures.
    let again = run_load(&client, std::slice::from_ref(&client), transfers.sign(next, count), load).await?;
    println!("\ntransfers at {} /s, nothing reading, again:", args.rate);
    again.print("transfers");
    Ok(())
}

/// One reader: opens every page in turn on its own connection, one every `interval` (`None`:
/// back to back), until `stop`; answers the latencies by page.
async fn read_pages(
    host: String,
    fixture: Arc<Fixture>,
    pages: Arc<[Page]>,
    seed: u64,
    interval: Option<Duration>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<Vec<PageTimes>> {
    let mut connection = Connection::open(&host).await?;
    let mut times: Vec<PageTimes> = pages.iter().map(|page| PageTimes::new(*page, &fixture)).collect();
    let mut picks = Picks(seed);
    let mut due = Instant::now();
    // Checked before each page, not each round of pages: a paced round lasts seconds, and pages
    // opened after the load stopped would be counted as read during it.
    'reading: loop {
        for page in &mut times {
            if stop.load(Ordering::Relaxed) {
                break 'reading;
            }
            page.open(&mut connection, &fixture, picks.next()).await?;
            if let Some(interval) = interval {
                // A reader that fell behind goes on at its pace, without a burst to catch up.
                due = (due + interval).max(Instant::now());
                tokio::time::sleep_until(due.into()).await;
            }
        }
    }
    Ok(times)
}

/// Sends `builder` from `key` with the limits its simulation finds, and waits for its success.
async fn send(client: &Client, key: &SecretKey, chain_id: u64, builder: TxBuilder) -> anyhow::Result<()> {
    let (tx, simulation) = builder.chain_id(chain_id).prepare(client, &Wallet::new(key.clone())).await?;
    if let Some(simulation) = simulation {
        ensure!(simulation.status == ReceiptStatus::Success, "a setup transaction would not succeed: {simulation:?}");
    }
    let answer = client.submit_wait(std::slice::from_ref(&tx), SETUP_WAIT_MS).await?;
    ensure!(
        answer.results.first().is_some_and(|r| r.status == WaitStatus::Success),
        "a setup transaction did not succeed: {answer:?}"
    );
    Ok(())
}

/// Creates a token from `funder` and gives every sender some; answers its id.
async fn give_token(
    client: &Client,
    funder: &SecretKey,
    chain_id: u64,
    senders: &[Address],
) -> anyhow::Result<Address> {
    let new = NewToken {
        name: "Explorer".into(),
        symbol: "XPLR".into(),
        decimals: 2,
        initial_supply: 1_000 * senders.len() as u128,
        max_supply: None,
        mintable: false,
    };
    let token = drover_types::token::token_id(&funder.address(), &new.symbol);
    let nonce = client.account(&funder.address()).await?.context("the funder account is empty")?.nonce;
    let mut txs = vec![token_tx(funder, chain_id, nonce, &TokenCall::Create(new))];
    txs.extend(senders.iter().enumerate().map(|(i, to)| {
        token_tx(funder, chain_id, nonce + 1 + i as u64, &TokenCall::Transfer { token, to: *to, amount: 1_000 })
    }));
    settle(client, &txs, 50, &AtomicU64::new(0)).await?;
    Ok(token)
}

/// Locks the quorum weight, proposes a change and votes for it (proposal 0).
async fn propose(client: &Client, funder: &SecretKey, chain_id: u64) -> anyhow::Result<()> {
    let params = client.governance_params().await?;
    let weight = params.value("min_quorum_weight").context("no min_quorum_weight")?;
    let deposit = params.value("proposal_deposit").context("no proposal_deposit")?;
    let changes = vec![("target_cycles".to_owned(), u128::from(10_000_000u64))];
    let description = "drover bench explorer".to_owned();
    for (call, value) in [
        (GovernanceCall::Lock, weight),
        (GovernanceCall::Propose { changes, description }, deposit),
        (GovernanceCall::Vote { proposal: 0, support: true }, 0),
    ] {
        send(client, funder, chain_id, TxBuilder::governance(&call, value)).await?;
    }
    Ok(())
}

/// Deploys the audit actor from `funder`, fills its storage and has it emit events; answers its
/// address.
async fn audit_actor(client: &Client, funder: &SecretKey, chain_id: u64) -> anyhow::Result<Address> {
    let deploy = Deploy {
        code: wat::parse_str(AUDIT_WAT).context("the audit actor does not compile")?,
        manifest: Manifest::new(AUDIT_MANIFEST.iter().map(|e| (*e).to_owned()).collect()),
        salt: b"explorer".to_vec(),
        init: None,
    };
    let actor = deploy.actor_address(&funder.address());
    send(client, funder, chain_id, TxBuilder::message(None, 0, deploy.encode())).await?;
    let words = |words: &[u32]| -> Vec<u8> { words.iter().flat_map(|w| w.to_le_bytes()).collect() };
    let call = |handler: &str, payload: Vec<u8>| {
        TxBuilder::message(Some(actor), 0, Message { handler: handler.to_owned(), payload }.encode())
    };
    for start in (0..ACTOR_ENTRIES).step_by(ENTRIES_PER_CALL as usize) {
        let payload = words(&[ENTRIES_PER_CALL, start, ACTOR_ENTRY_BYTES, ACTOR_ENTRY_BYTES]);
        send(client, funder, chain_id, call("storage_set", payload)).await?;
    }
    for _ in 0..ACTOR_EVENTS / EVENTS_PER_CALL {
        send(client, funder, chain_id, call("emit", words(&[EVENTS_PER_CALL, ACTOR_EVENT_DATA_BYTES]))).await?;
    }
    Ok(actor)
}
