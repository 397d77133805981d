//! The load machinery every benchmark shares: signed transactions, funding senders, submitting
//! until admitted, tracking finalized blocks, and the load report.

use super::*;

pub(super) fn bench_transfer(key: &SecretKey, chain_id: u64, nonce: u64, to: Address, value: u128) -> Transaction {
    bench_tx(key, chain_id, nonce, Some(to), value, Vec::new(), drover_types::params::TRANSFER_CYCLES, 0)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn bench_tx(
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

/// Transfers of 1 base unit from `senders` in turn, each with its next nonce: transfer `i` (of
/// every transfer signed so far and after) goes to `Recipients::Fresh.address(i)`, so each one
/// creates an account and writes its own history entries.
pub(super) struct FreshTransfers {
    senders: Vec<SecretKey>,
    nonces: Vec<u64>,
    chain_id: u64,
}

impl FreshTransfers {
    /// Senders whose next nonce is 0 (just funded).
    pub(super) fn new(senders: Vec<SecretKey>, chain_id: u64) -> Self {
        Self { nonces: vec![0; senders.len()], senders, chain_id }
    }

    pub(super) fn senders(&self) -> &[SecretKey] {
        &self.senders
    }

    /// Transfers `from .. from + count`, signed on every core.
    pub(super) fn sign(&mut self, from: u64, count: u64) -> Vec<Transaction> {
        let plan: Vec<(usize, u64, u64)> = (from..from + count)
            .map(|i| {
                let s = (i % self.senders.len() as u64) as usize;
                self.nonces[s] += 1;
                (s, self.nonces[s] - 1, i)
            })
            .collect();
        let (senders, chain_id) = (&self.senders, self.chain_id);
        plan.into_par_iter()
            .map(|(s, nonce, i)| bench_transfer(&senders[s], chain_id, nonce, Recipients::Fresh.address(i), 1))
            .collect()
    }
}

/// What a load run submits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Workload {
    /// Plain transfers to one sink account.
    Transfers,
    /// `increment` calls to one counter actor (`actors/counter.wat`), deployed first.
    CounterCalls,
}

/// The counter actor the calls workload deploys.
pub(super) const COUNTER_WAT: &str = include_str!("../../../../actors/counter.wat");
/// Limits of one counter call: an increment costs about 31,000 cycles and writes 13 cells.
pub(super) const COUNTER_CALL_CYCLES_LIMIT: u64 = 60_000;
pub(super) const COUNTER_CALL_CELLS_LIMIT: u64 = 64;
/// Limits of the counter's deploy.
pub(super) const COUNTER_DEPLOY_CYCLES_LIMIT: u64 = 2_000_000;
pub(super) const COUNTER_DEPLOY_CELLS_LIMIT: u64 = 10_000;

impl Workload {
    /// The most one transaction of this workload can cost its sender, value included.
    pub(super) fn max_cost(self) -> u128 {
        let (cycles, cells) = match self {
            Workload::Transfers => (drover_types::params::TRANSFER_CYCLES, 0),
            Workload::CounterCalls => (COUNTER_CALL_CYCLES_LIMIT, COUNTER_CALL_CELLS_LIMIT),
        };
        1 + u128::from(cycles) * BENCH_MAX_FEE_PER_CYCLE + u128::from(cells) * BENCH_MAX_FEE_PER_CELL
    }

    /// What a sender needs for `count` transactions, with a margin for basefee rises.
    pub(super) fn budget(self, count: u64) -> u128 {
        u128::from(count) * self.max_cost() * 2
    }

    pub(super) fn noun(self) -> &'static str {
        match self {
            Workload::Transfers => "transfers",
            Workload::CounterCalls => "counter calls",
        }
    }
}

/// Deploys the counter from `deployer` and waits for it; answers its address.
pub(super) async fn deploy_counter(client: &Client, deployer: &SecretKey, chain_id: u64) -> anyhow::Result<Address> {
    let deploy = Deploy {
        code: wat::parse_str(COUNTER_WAT).context("the counter actor does not compile")?,
        manifest: Manifest::new(vec!["storage.kv".to_owned()]),
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
pub(super) async fn submit_until_admitted(
    client: &Client,
    batch: &[Transaction],
    retries: &AtomicU64,
) -> anyhow::Result<()> {
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
pub(super) async fn track(
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
pub(super) async fn fund_senders(
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

/// The node's Prometheus counter `name` (with its `_total` suffix), 0 before it first counts.
pub(super) async fn counter(client: &Client, name: &str) -> anyhow::Result<u64> {
    let metrics = client.metrics().await?;
    Ok(metrics.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok()).unwrap_or(0))
}

pub(super) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// How a load is offered.
#[derive(Clone, Copy)]
pub(super) struct Load {
    /// Transactions per submission.
    pub(super) batch: usize,
    /// Concurrent submitting connections.
    pub(super) concurrency: usize,
    /// Offered transactions per second (`None`: as fast as admitted).
    pub(super) rate: Option<u64>,
}

/// What a load run measured.
pub(super) struct LoadReport {
    pub(super) sent: usize,
    pub(super) finalized: usize,
    /// From the first submission to the observation of the last finalization.
    pub(super) elapsed: Duration,
    pub(super) submit_elapsed: Duration,
    pub(super) blocks: u64,
    pub(super) heights: (u64, u64),
    /// Submit→finalized, sorted.
    pub(super) latencies: Vec<Duration>,
    pub(super) busy_retries: u64,
}

impl LoadReport {
    pub(super) fn throughput(&self) -> f64 {
        self.finalized as f64 / self.elapsed.as_secs_f64()
    }

    pub(super) fn print(&self, noun: &str) {
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
pub(super) async fn run_load(
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
