//! `bench jobs`: jobs completed per second end to end — submitted by actors, run by three real
//! `drover runner` daemons, verified, and answered into the submitting actor's mailbox — and
//! the time from submission to the callback's delivery.
//!
//! One fresh single-validator devnet and three runners (echo, price 1 base unit) spawned from
//! this binary, each stopped by PID at the end. `--senders` accounts each deploy their own job
//! client actor (`actors/job_client.wat`) and fund it, so every job id is known in advance
//! (`keccak256(actor ‖ seq)`, with `seq` the sender's order of submission). The senders then
//! submit `--jobs` jobs asking all three runners with majority 2, keeping at most `--window`
//! jobs in flight. The submitting calls are sent with the limits a simulation of the first one
//! suggests (what it uses plus the node's margin), as a client sizing its calls would: a
//! proposer reserves each transaction's whole limits in a block, so inflated limits alone
//! would cap the jobs a block takes. A job is done when its callback has been delivered: the
//! dispatcher queues it in the block that decides the job, and the next block delivers it
//! before anything else (within the deliveries' share of the block; the window keeps below
//! it, or a block later). Two streams watch the chain: the dispatcher's `job.ended` events
//! (`/stream/events`) give each job's deciding block, and `/stream/blocks` the finalized
//! height; once the block after its decision is final, a job is stamped when its actor's
//! storage holds its answer (`/state/{actor}/{key}`, a point read), else looked at again at
//! the next block. The blocks' meters are summed into the report
//! (interval, transactions, cycles and cells used, basefees): where the chain's capacity went.
//! At the end every actor's storage must hold one
//! answer per job it submitted (its callbacks all ran).

use super::*;
use drover_client::{EventFilter, StreamMessage, Subscription};
use drover_types::api::{BlockSummary, ReceiptStatus, SimulateRequest};
use drover_types::job::{
    Callback, EVENT_ENDED, JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, Verification, VerificationMode, job_id,
};
use drover_types::system_call::SystemCall;
use futures::{StreamExt, TryStreamExt};
use std::collections::BTreeMap;
use std::path::Path;
use tokio::sync::mpsc::{self, UnboundedSender};
/// Reads of the actors' answers in flight at once.
const STATE_READS_IN_FLIGHT: usize = 16;
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
/// Cycles limit of the simulated submitting call (the actor, `job_submit`, the first assignment
/// attempt), an upper bound: the calls are sent with the limits the simulation suggests, since
/// a proposer reserves a transaction's whole limits in a block.
const SUBMIT_CALL_CYCLES: u64 = 1_500_000;
/// Cells limit of the simulated submitting call.
const SUBMIT_CALL_CELLS: u64 = 100_000;

#[derive(Args)]
pub(crate) struct JobArgs {
    /// Jobs submitted in all.
    #[arg(long, default_value_t = 2_000)]
    pub jobs: u64,
    /// Submitting accounts, each with its own job client actor.
    #[arg(long, default_value_t = 8)]
    pub senders: u32,
    /// Most jobs in flight (submitted, callback not seen yet): the offered load follows what
    /// the chain completes instead of piling up in the mempool. A job takes about 520 ms
    /// unloaded, so 160 in flight reach the chain's capacity (some 200 jobs a second, see
    /// `docs/performance.md`) while the median stays under a second.
    #[arg(long, default_value_t = 160)]
    pub window: usize,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

/// A signed call from `key` with the job bench's max fees and `limits` (cycles, cells).
fn job_tx(
    key: &SecretKey,
    chain_id: u64,
    nonce: u64,
    to: Address,
    payload: Vec<u8>,
    limits: (u64, u64),
) -> Transaction {
    Transaction {
        chain_id,
        nonce,
        to: Some(to),
        value: 0,
        cycles_limit: limits.0,
        cells_limit: limits.1,
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

/// What the watchers report to the bench's loop.
enum Update {
    /// A block was finalized.
    Block(Box<BlockSummary>),
    /// A job ended (`job.ended`) in the block at `height`.
    Ended { job: H256, status: String, height: u64 },
    /// A stream failed.
    Failed(anyhow::Error),
}

/// The watchers' tasks, stopped when the bench ends however it ends.
struct Watchers(Vec<tokio::task::JoinHandle<()>>);

impl Drop for Watchers {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// Follows `subscription`, opened again after the node closes it (a slow reader is cut with a
/// `closed` message) from the last message seen, and hands each message to `forward`.
async fn follow(
    client: &Client,
    mut subscription: Subscription,
    open: impl AsyncFn(&Client, Option<&str>) -> Result<Subscription, ClientError>,
    mut forward: impl FnMut(StreamMessage) -> anyhow::Result<bool>,
) -> anyhow::Result<()> {
    loop {
        match subscription.next().await? {
            Some(StreamMessage::Closed(_)) | None => {
                let last = subscription.last_event_id().map(str::to_owned);
                subscription = open(client, last.as_deref()).await?;
            }
            Some(message) => {
                if !forward(message)? {
                    return Ok(());
                }
            }
        }
    }
}

/// Reports every finalized block from now on.
async fn watch_blocks(client: Client, subscription: Subscription, updates: UnboundedSender<Update>) {
    let open = async |client: &Client, last: Option<&str>| client.stream_blocks(None, last).await;
    let forward = |message| {
        if let StreamMessage::Block(block) = message {
            return Ok(updates.send(Update::Block(Box::new(block))).is_ok());
        }
        Ok(true)
    };
    if let Err(error) = follow(&client, subscription, open, forward).await {
        let _ = updates.send(Update::Failed(error.context("the block stream failed")));
    }
}

/// The filter of the jobs' ends.
fn ended_filter() -> EventFilter {
    EventFilter { emitters: vec![JOB_DISPATCHER_ADDRESS], topics: vec![EVENT_ENDED.into()], ..EventFilter::default() }
}

/// Reports every job's end from now on: its event's data is `[job, status]`.
async fn watch_ended(client: Client, subscription: Subscription, updates: UnboundedSender<Update>) {
    let open = async |client: &Client, last: Option<&str>| client.stream_events(&ended_filter(), last).await;
    let forward = |message| {
        let StreamMessage::Event(event) = message else { return Ok(true) };
        let mut data = minicbor::Decoder::new(&event.data);
        ensure!(data.array()? == Some(2), "a job.ended event is not [job, status]");
        let job = H256::from_slice(data.bytes()?).context("a job.ended event's job is not 32 bytes")?;
        let status = data.str()?.to_owned();
        Ok(updates.send(Update::Ended { job, status, height: event.block_height }).is_ok())
    };
    if let Err(error) = follow(&client, subscription, open, forward).await {
        let _ = updates.send(Update::Failed(error.context("the job.ended stream failed")));
    }
}

pub(super) async fn jobs(args: JobArgs) -> anyhow::Result<()> {
    ensure!(args.jobs > 0 && args.senders > 0, "--jobs and --senders must be positive");
    let network = SpawnedNetwork::start(1, args.block_interval_ms).await?;
    let client = Client::new(&network.urls[0])?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);
    let per_sender = args.jobs.div_ceil(u64::from(args.senders));
    let call_fee = (u128::from(SUBMIT_CALL_CYCLES) + u128::from(SUBMIT_CALL_CELLS)) * JOB_MAX_FEE;
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

    // The submitting calls' limits: what the first one uses, with the simulation's margin.
    let first = job_tx(&senders[0], chain_id, 2, actors[0], job_call(0), (SUBMIT_CALL_CYCLES, SUBMIT_CALL_CELLS));
    let request = SimulateRequest { transaction: Some(first.encode()), ..SimulateRequest::default() };
    // The simulation runs on the state of the last block applied, which may trail the setup's
    // receipt by a block.
    let simulated = loop {
        let simulated = client.simulate(&request).await?;
        if simulated.status == ReceiptStatus::Success {
            break simulated;
        }
        ensure!(
            Instant::now() < deadline + Duration::from_secs(60),
            "the submitting call fails: {:?}",
            simulated.error
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let limits = (simulated.suggested_cycles_limit, simulated.suggested_cells_limit);
    println!(
        "a submitting call uses {} cycles and {} cells; sent with limits of {} and {}",
        simulated.cycles_used, simulated.cells_used, limits.0, limits.1
    );

    // The jobs, in each sender's nonce order: job n of sender s is job_id(actor_s, n).
    let mut submissions = Vec::new();
    let mut index = 0;
    for round in 0..per_sender {
        for (s, sender) in senders.iter().enumerate() {
            if index == args.jobs {
                break;
            }
            let tx = job_tx(sender, chain_id, 2 + round, actors[s], job_call(index), limits);
            submissions.push((job_id(&actors[s], round), actors[s], tx));
            index += 1;
        }
    }
    println!("submitting {} jobs (3 runners, majority 2, callback) from {} actors", submissions.len(), actors.len());
    let (updates_tx, mut updates) = mpsc::unbounded_channel();
    // Both streams are open before the first submission, so no end goes unseen.
    let block_stream = client.stream_blocks(None, None).await?;
    let ended_stream = client.stream_events(&ended_filter(), None).await?;
    let watchers = Watchers(vec![
        tokio::spawn(watch_blocks(client.clone(), block_stream, updates_tx.clone())),
        tokio::spawn(watch_ended(client.clone(), ended_stream, updates_tx)),
    ]);
    let started = Instant::now();
    // job → (its actor, submitted at, height of the block that should deliver its callback once
    // it ended)
    let mut in_flight: HashMap<H256, (Address, Instant, Option<u64>)> = HashMap::new();
    let mut latencies = Vec::with_capacity(submissions.len());
    let mut blocks = Vec::new();
    let mut height = 0;
    let window = args.window.max(1);
    let mut next = 0;
    loop {
        let room = window.saturating_sub(in_flight.len()).min(submissions.len() - next).min(50);
        if room > 0 {
            let chunk = &submissions[next..next + room];
            next += room;
            let txs: Vec<Transaction> = chunk.iter().map(|(_, _, tx)| tx.clone()).collect();
            submit_until_admitted(&client, &txs, &retries).await?;
            let now = Instant::now();
            in_flight.extend(chunk.iter().map(|(job, actor, _)| (*job, (*actor, now, None))));
            continue;
        }
        if in_flight.is_empty() && next == submissions.len() {
            break;
        }
        let left = RUN_TIMEOUT.saturating_sub(started.elapsed());
        let update = tokio::time::timeout(left, updates.recv()).await;
        match update.map_err(|_| anyhow::anyhow!("{} jobs never got their callback", in_flight.len()))? {
            Some(Update::Block(block)) => {
                height = block.height;
                blocks.push(*block);
            }
            Some(Update::Ended { job, status, height: ended }) => {
                if let Some((_, _, delivery)) = in_flight.get_mut(&job) {
                    ensure!(status == "completed", "job {job} ended {status}");
                    *delivery = Some(ended + 1);
                }
            }
            Some(Update::Failed(error)) => return Err(error),
            None => bail!("the watchers stopped"),
        }
        // A callback waits a block more when the deliveries' share of its block is used up: the
        // actor's storage says whether it ran (its handler stores the answer under the job id).
        // Read STATE_READS_IN_FLIGHT at a time: one after the other, they would hold up the
        // submissions at a few hundred jobs a second.
        let due: Vec<(H256, Address)> = in_flight
            .iter()
            .filter(|(_, (_, _, delivery))| delivery.is_some_and(|d| d <= height))
            .map(|(job, (actor, _, _))| (*job, *actor))
            .collect();
        let answered: Vec<(H256, bool)> = futures::stream::iter(due)
            .map(|(job, actor)| {
                let client = &client;
                async move { Ok::<_, ClientError>((job, client.state_value(&actor, &job.0).await?.value.is_some())) }
            })
            .buffer_unordered(STATE_READS_IN_FLIGHT)
            .try_collect()
            .await?;
        for (job, delivered) in answered {
            let Some((_, at, delivery)) = in_flight.get_mut(&job) else { continue };
            if delivered {
                latencies.push(at.elapsed());
                in_flight.remove(&job);
            } else {
                *delivery = Some(height + 1);
            }
        }
    }
    let elapsed = started.elapsed();
    drop(watchers);
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
    print_blocks(&blocks);
    if let Some(middle) = blocks.get(blocks.len() / 2) {
        let runners: Vec<Address> = runner_keys.iter().map(SecretKey::address).collect();
        print_block_costs(&client, middle, &runners).await?;
    }
    drop(network);
    Ok(())
}

/// What the blocks of the run held: where the chain's capacity went.
fn print_blocks(blocks: &[BlockSummary]) {
    let (Some(first), Some(last)) = (blocks.first(), blocks.last()) else { return };
    let count = blocks.len() as f64;
    let mean = |value: fn(&BlockSummary) -> u64| blocks.iter().map(value).sum::<u64>() as f64 / count;
    let interval = last.timestamp_ms.saturating_sub(first.timestamp_ms) as f64 / (count - 1.0).max(1.0);
    println!("  blocks:               {:>10} (one every {interval:.0} ms)", blocks.len());
    println!(
        "  per block:            {:>10.1} transactions, {:.1} system runs",
        mean(|b| u64::from(b.transaction_count)),
        mean(|b| u64::from(b.system_run_count))
    );
    println!("  used per block:       {:>10.0} cycles, {:.0} cells", mean(|b| b.cycles_used), mean(|b| b.cells_used));
    let basefees = |b: &BlockSummary| format!("{}/{}", b.basefee_cycle, b.basefee_cell);
    let highest =
        blocks.iter().max_by_key(|b| b.basefee_cycle.parse::<u128>().unwrap_or(0)).map_or_else(String::new, basefees);
    println!("  basefees (cycle/cell): {} first, {} highest, {} last", basefees(first), highest, basefees(last));
}

/// Where one block's cycles went, by kind of transaction (from its receipts) and its system runs
/// (the rest): the cost of a job as the chain charges it.
async fn print_block_costs(client: &Client, block: &BlockSummary, runners: &[Address]) -> anyhow::Result<()> {
    // kind → (count, cycles, cells)
    let mut kinds: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    let (mut cycles, mut cells) = (0, 0);
    for hash in block.transactions.iter().flatten() {
        let receipt = client.receipt(hash).await?.context("a receipt of a finalized block")?;
        let kind = match (runners.contains(&receipt.from), receipt.status, &receipt.error) {
            (false, _, _) => "submitting call".to_owned(),
            (true, ReceiptStatus::Success, _) => "result".to_owned(),
            (true, _, Some(error)) => format!("result refused ({})", error.code),
            (true, _, None) => "result refused".to_owned(),
        };
        let entry = kinds.entry(kind).or_default();
        *entry = (entry.0 + 1, entry.1 + receipt.cycles_used, entry.2 + receipt.cells_used);
        cycles += receipt.cycles_used;
        cells += receipt.cells_used;
    }
    println!("  block {} ({} cycles, {} cells used):", block.height, block.cycles_used, block.cells_used);
    for (kind, (count, kind_cycles, kind_cells)) in kinds {
        println!("    {count:>4} × {kind}: {} cycles, {} cells each", kind_cycles / count, kind_cells / count);
    }
    println!(
        "    {:>4} system runs (callbacks, due entries): {} cycles, {} cells in all",
        block.system_run_count,
        block.cycles_used.saturating_sub(cycles),
        block.cells_used.saturating_sub(cells)
    );
    Ok(())
}
