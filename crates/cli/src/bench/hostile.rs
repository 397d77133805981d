//! `drover bench hostile`: honest transfers finalize on time while attackers do their worst.
//!
//! On a fresh devnet, a steady flow of honest transfers (each to a fresh address, tipping more
//! than the attackers, as a user who wants to be included soon does) runs for `--seconds`
//! while attackers send, each as fast as the node admits it:
//!
//! * **fresh-key scans**: a handler reading 9,000 keys nobody wrote, at the block's cycle limit;
//! * **map walks**: a handler iterating a 100,000-entry actor map with `storage_next`;
//! * **deep nested calls**: a handler calling itself as deep as the VM allows, twice per level,
//!   until its cycles run out;
//! * **maximal payloads**: transactions carrying the largest payload the VM takes;
//! * **read-only calls** at their cycle budget (fresh-key scans) from `--readers` connections;
//! * **state-sync reads**: `GET /state/operations` of the largest batch, from 4 connections.
//!
//! It reports the honest transfers' submit→finalized latency (p50, p99, max), the longest gap
//! between finalized blocks seen by a tracker polling every 10 ms, and what each attacker got
//! through. Targets: no gap above 2 s, honest p99 under 1 s.

use super::*;
use drover_types::api::ActorReadRequest;

#[derive(Args)]
pub(crate) struct HostileArgs {
    /// How long the attack runs, in seconds.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Honest transfers per second.
    #[arg(long, default_value_t = 200)]
    pub honest_rate: u64,
    /// Connections sending read-only calls at their budget.
    #[arg(long, default_value_t = 16)]
    pub readers: usize,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

/// The actors the attackers use.
const FRESH_READER_WAT: &str = include_str!("../../../../actors/fresh_reader.wat");
const BULK_WAT: &str = include_str!("../../../../actors/bulk.wat");

/// Keys a fresh-key scan reads: 9,000 × 2,004 cycles fits the attack's cycle limit.
const SCAN_KEYS: u32 = 9_000;
/// Cycles limit of every attacking transaction: nearly a whole block (the limit is 20,000,000).
const ATTACK_CYCLES_LIMIT: u64 = 19_000_000;
/// Entries of the map the walker iterates.
const MAP_ENTRIES: u32 = 100_000;
/// Entries one `fill` transaction writes while the map is built.
const FILL_PER_TX: u32 = 2_500;
/// Entries one walk visits (about 2,540 cycles each).
const WALK_ENTRIES: u32 = 7_000;
/// The largest payload an actor call may carry (`drover_vm::limits::MAX_PAYLOAD_BYTES`).
const PAYLOAD_BYTES: usize = 128 * 1024;
/// Attacking transactions each attacker keeps pending.
const ATTACK_WINDOW: u64 = 64;
/// Keys a read-only scan reads: 4,900 × 2,004 cycles fits the read budget of 10,000,000.
const READ_SCAN_KEYS: u32 = 4_900;
/// Honest senders (each sends at most one transfer per block interval or so).
const HONEST_SENDERS: u32 = 200;
/// Tip per cycle of honest transfers; attackers tip 1.
const HONEST_TIP_PER_CYCLE: u128 = 10;
/// Max fee per cycle of honest transfers: blocks kept full raise the basefee 12.5 % a block, so
/// attackers capped at [`BENCH_MAX_FEE_PER_CYCLE`] price themselves out after about 120 blocks,
/// and honest users who bid above that cap are included whatever the attack (they pay only the
/// basefee and their tip).
const HONEST_MAX_FEE_PER_CYCLE: u128 = 100 * BENCH_MAX_FEE_PER_CYCLE;
/// Connections asking for state-sync batches.
const STATE_SYNC_CONNECTIONS: usize = 4;
/// How long the block watcher goes on after the load stops.
const DRAIN: Duration = Duration::from_secs(10);

/// The attacks that are transactions.
#[derive(Clone, Copy, Debug)]
enum Attack {
    Scan,
    Walk,
    Nest,
    Payload,
}

impl Attack {
    const ALL: [Attack; 4] = [Attack::Scan, Attack::Walk, Attack::Nest, Attack::Payload];

    /// The handler and payload of attacking transaction number `n`.
    fn message(self, n: u64) -> Message {
        let pair = |a: u32, b: u32| [a.to_le_bytes(), b.to_le_bytes()].concat();
        let (handler, payload) = match self {
            // Fresh keys every time: nothing a cache kept from the last scan helps.
            Attack::Scan => ("scan", pair(SCAN_KEYS, (n as u32).wrapping_mul(SCAN_KEYS))),
            Attack::Walk => ("walk", WALK_ENTRIES.to_le_bytes().to_vec()),
            Attack::Nest => ("nest", pair(u32::MAX, 2)),
            // The handler refuses it at once: what costs is carrying it.
            Attack::Payload => ("scan", vec![0xa5; PAYLOAD_BYTES]),
        };
        Message { handler: handler.to_owned(), payload }
    }

    /// Cycles and cells limits of an attacking transaction: the heavy handlers may use nearly a
    /// block; a payload costs a cycle and a cell per byte, and as many as fit go into a block.
    fn limits(self) -> (u64, u64) {
        match self {
            Attack::Payload => {
                (drover_types::params::TRANSFER_CYCLES + 2 * PAYLOAD_BYTES as u64, PAYLOAD_BYTES as u64 + 1_000)
            }
            _ => (ATTACK_CYCLES_LIMIT, 10_000),
        }
    }
}

/// What each attacker achieved.
#[derive(Default)]
struct Tally {
    sent: AtomicU64,
    refused: AtomicU64,
}

pub(super) async fn hostile(args: HostileArgs) -> anyhow::Result<()> {
    ensure!(args.seconds > 0 && args.honest_rate > 0, "--seconds and --honest-rate must be positive");
    let network = SpawnedNetwork::start(1, args.block_interval_ms).await?;
    let url = network.urls[0].clone();
    let client = Client::new(&url)?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);

    // Accounts: the honest senders, one per attack, and the deployer.
    let honest_each = (args.honest_rate * args.seconds).div_ceil(u64::from(HONEST_SENDERS)) + 1;
    let honest_budget =
        u128::from(honest_each) * u128::from(drover_types::params::TRANSFER_CYCLES) * HONEST_MAX_FEE_PER_CYCLE * 2;
    let honest = fund_senders(&client, &funder, chain_id, HONEST_SENDERS, honest_budget, 50, &retries).await?;
    let attack_budget = u128::from(ATTACK_CYCLES_LIMIT) * BENCH_MAX_FEE_PER_CYCLE * 2_000;
    let attackers =
        fund_senders(&client, &funder, chain_id, Attack::ALL.len() as u32 + 1, attack_budget, 50, &retries).await?;
    let deployer = &attackers[Attack::ALL.len()];

    // The attackers' actors, and a 100,000-entry map for the walker.
    let reader = deploy_example(&client, deployer, chain_id, FRESH_READER_WAT, &["storage.kv"]).await?;
    let bulk = deploy_example(&client, deployer, chain_id, BULK_WAT, &["storage.kv", "actor.call"]).await?;
    println!("building a map of {MAP_ENTRIES} entries");
    let mut nonce = client.account(&deployer.address()).await?.context("deployer")?.nonce;
    let mut fills = Vec::new();
    for start in (0..MAP_ENTRIES).step_by(FILL_PER_TX as usize) {
        let payload = [FILL_PER_TX.to_le_bytes(), start.to_le_bytes()].concat();
        let message = Message { handler: "fill".to_owned(), payload };
        fills.push(bench_tx(deployer, chain_id, nonce, Some(bulk), 0, message.encode(), ATTACK_CYCLES_LIMIT, 100_000));
        nonce += 1;
    }
    for chunk in fills.chunks(10) {
        submit_until_admitted(&client, chunk, &retries).await?;
    }
    wait_receipt(&client, fills.last().context("no fill")?, Duration::from_secs(120)).await?;

    // Everything runs from here until the deadline; the watcher goes on a little longer, so
    // that the last honest transfers are seen finalized.
    let start_height = client.height().await?;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let seen = Arc::new(parking_lot::Mutex::new(HashMap::new()));
    let watcher = tokio::spawn(watch_blocks(client.clone(), start_height, deadline + DRAIN, seen.clone()));
    let mut tasks = Vec::new();
    let tallies: Vec<Arc<Tally>> = (0..Attack::ALL.len() + 2).map(|_| Arc::default()).collect();
    for (i, attack) in Attack::ALL.into_iter().enumerate() {
        let target = if matches!(attack, Attack::Scan | Attack::Payload) { reader } else { bulk };
        let (client, key, tally) = (client.clone(), attackers[i].clone(), tallies[i].clone());
        tasks.push(tokio::spawn(attack_with_transactions(client, key, chain_id, attack, target, deadline, tally)));
    }
    for r in 0..args.readers {
        let (client, tally) = (client.clone(), tallies[Attack::ALL.len()].clone());
        tasks.push(tokio::spawn(attack_with_reads(client, reader, r as u32, deadline, tally)));
    }
    for _ in 0..STATE_SYNC_CONNECTIONS {
        let (client, tally) = (client.clone(), tallies[Attack::ALL.len() + 1].clone());
        tasks.push(tokio::spawn(attack_with_state_sync(client, deadline, tally)));
    }
    let sent = honest_flow(&client, &honest, chain_id, args.honest_rate, deadline).await?;
    for task in tasks {
        task.await??;
    }
    let watched = watcher.await??;
    let seen = seen.lock();
    let mut latencies: Vec<Duration> =
        sent.iter().filter_map(|(hash, at)| Some(seen.get(hash)?.saturating_duration_since(*at))).collect();
    latencies.sort();

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!();
    println!(
        "hostile load for {} s, honest transfers at {}/s (tip {HONEST_TIP_PER_CYCLE}/cycle, max fee {HONEST_MAX_FEE_PER_CYCLE}; attackers tip 1, max fee {BENCH_MAX_FEE_PER_CYCLE})",
        args.seconds, args.honest_rate
    );
    println!("  honest transfers finalized: {} of {}", latencies.len(), sent.len());
    println!("  honest latency p50:         {:>8.0} ms", ms(percentile(&latencies, 0.50)));
    println!("  honest latency p99:         {:>8.0} ms", ms(percentile(&latencies, 0.99)));
    println!("  honest latency max:         {:>8.0} ms", ms(latencies.last().copied().unwrap_or_default()));
    println!(
        "  finalized blocks:           {} (heights {}..={})",
        watched.blocks,
        start_height + 1,
        watched.last_height
    );
    println!("  longest gap between blocks: {:>8.0} ms", ms(watched.longest_gap));
    println!("  highest cycle basefee:      {:>8}", watched.highest_basefee);
    for (i, attack) in Attack::ALL.iter().enumerate() {
        let tally = &tallies[i];
        println!(
            "  attack {:<8} transactions admitted {:>6}, refused {:>6}",
            format!("{attack:?}").to_lowercase(),
            tally.sent.load(Ordering::Relaxed),
            tally.refused.load(Ordering::Relaxed)
        );
    }
    let reads = &tallies[Attack::ALL.len()];
    println!(
        "  read-only scans at budget:  {} answered, {} refused (429/5004)",
        reads.sent.load(Ordering::Relaxed),
        reads.refused.load(Ordering::Relaxed)
    );
    let syncs = &tallies[Attack::ALL.len() + 1];
    println!(
        "  state-sync batches:         {} served, {} refused (429)",
        syncs.sent.load(Ordering::Relaxed),
        syncs.refused.load(Ordering::Relaxed)
    );
    ensure!(latencies.len() == sent.len(), "{} honest transfers were not finalized", sent.len() - latencies.len());
    Ok(())
}

/// Deploys one of the example actors from `deployer` and waits for it.
async fn deploy_example(
    client: &Client,
    deployer: &SecretKey,
    chain_id: u64,
    wat: &str,
    entitlements: &[&str],
) -> anyhow::Result<Address> {
    let deploy = Deploy {
        code: wat::parse_str(wat).context("an example actor does not compile")?,
        manifest: Manifest { entitlements: entitlements.iter().map(|e| (*e).to_owned()).collect() },
        salt: b"bench".to_vec(),
        init: None,
    };
    let actor = deploy.actor_address(&deployer.address());
    let nonce = client.account(&deployer.address()).await?.context("deployer account is empty")?.nonce;
    let tx = bench_tx(deployer, chain_id, nonce, None, 0, deploy.encode(), 5_000_000, 100_000);
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await?;
    ensure!(
        answer.results.first().is_some_and(|r| r.status == drover_types::api::WaitStatus::Success),
        "the deploy did not succeed: {answer:?}"
    );
    Ok(actor)
}

/// Keeps [`ATTACK_WINDOW`] attacking transactions pending until the deadline.
async fn attack_with_transactions(
    client: Client,
    key: SecretKey,
    chain_id: u64,
    attack: Attack,
    target: Address,
    deadline: Instant,
    tally: Arc<Tally>,
) -> anyhow::Result<()> {
    let mut next = client.account(&key.address()).await?.context("attacker account is empty")?.nonce;
    let mut n = 0u64;
    while Instant::now() < deadline {
        let executed = client.account(&key.address()).await?.map_or(0, |a| a.nonce);
        if next < executed + ATTACK_WINDOW {
            let message = attack.message(n).encode();
            let (cycles, cells) = attack.limits();
            let tx = bench_tx(&key, chain_id, next, Some(target), 0, message, cycles, cells);
            n += 1;
            match client.submit(std::slice::from_ref(&tx)).await {
                Ok(answer) if answer.accepted == 1 => {
                    tally.sent.fetch_add(1, Ordering::Relaxed);
                    next += 1;
                    continue;
                }
                _ => {
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                    next = next.max(executed);
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Sends read-only fresh-key scans at the read budget, back to back, until the deadline.
async fn attack_with_reads(
    client: Client,
    reader: Address,
    connection: u32,
    deadline: Instant,
    tally: Arc<Tally>,
) -> anyhow::Result<()> {
    let mut round = 0u32;
    while Instant::now() < deadline {
        let start = connection.wrapping_mul(1 << 24).wrapping_add(round.wrapping_mul(READ_SCAN_KEYS));
        let request = ActorReadRequest {
            actor: reader,
            handler: "scan".to_owned(),
            payload: Some([READ_SCAN_KEYS.to_le_bytes(), start.to_le_bytes()].concat()),
            payload_text: None,
            payload_json: None,
            max_cycles: None,
            max_cells: None,
            from: None,
            trace: None,
        };
        match client.actor_read(&request).await {
            Ok(_) => tally.sent.fetch_add(1, Ordering::Relaxed),
            Err(ClientError::Api { .. }) => tally.refused.fetch_add(1, Ordering::Relaxed),
            Err(e) => return Err(e.into()),
        };
        round += 1;
    }
    Ok(())
}

/// Asks for the largest state-sync batch, again and again, until the deadline.
async fn attack_with_state_sync(client: Client, deadline: Instant, tally: Arc<Tally>) -> anyhow::Result<()> {
    while Instant::now() < deadline {
        let Some(snapshot) = client.state_snapshot().await.ok().flatten() else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        match client.state_operations(snapshot.op_count, snapshot.range_start, None).await {
            Ok(_) => tally.sent.fetch_add(1, Ordering::Relaxed),
            Err(ClientError::Api { .. }) => {
                tally.refused.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
                0
            }
            Err(e) => return Err(e.into()),
        };
    }
    Ok(())
}

/// Sends transfers to random fresh addresses at `rate` per second until the deadline,
/// round-robin over `senders`; answers each one's hash and submission time.
async fn honest_flow(
    client: &Client,
    senders: &[SecretKey],
    chain_id: u64,
    rate: u64,
    deadline: Instant,
) -> anyhow::Result<Vec<(H256, Instant)>> {
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let started = Instant::now();
    let mut sent = Vec::new();
    let mut nonces = vec![0u64; senders.len()];
    let busy = AtomicU64::new(0);
    while Instant::now() < deadline {
        tokio::time::sleep_until((started + interval * sent.len() as u32).into()).await;
        let s = sent.len() % senders.len();
        let to = Recipients::Random.address(0);
        let tx = Transaction {
            tip_per_cycle: HONEST_TIP_PER_CYCLE,
            max_fee_per_cycle: HONEST_MAX_FEE_PER_CYCLE,
            signature: None,
            ..bench_transfer(&senders[s], chain_id, nonces[s], to, 1)
        }
        .sign(&senders[s]);
        nonces[s] += 1;
        let at = Instant::now();
        submit_until_admitted(client, std::slice::from_ref(&tx), &busy).await?;
        sent.push((tx.hash(), at));
    }
    Ok(sent)
}

/// What the block watcher saw.
struct Watched {
    blocks: u64,
    longest_gap: Duration,
    last_height: u64,
    highest_basefee: u128,
}

/// Follows finalized blocks until the deadline, stamping each transaction with the time its
/// block was seen (polling every 10 ms), and measuring the longest time between two blocks.
async fn watch_blocks(
    client: Client,
    from: u64,
    deadline: Instant,
    seen: Arc<parking_lot::Mutex<HashMap<H256, Instant>>>,
) -> anyhow::Result<Watched> {
    let mut next = from + 1;
    let mut last_seen = Instant::now();
    let mut watched = Watched { blocks: 0, longest_gap: Duration::ZERO, last_height: from, highest_basefee: 0 };
    while Instant::now() < deadline {
        match client.block(BlockSelector::Height(next)).await? {
            Some(block) => {
                let now = Instant::now();
                watched.longest_gap = watched.longest_gap.max(now - last_seen);
                last_seen = now;
                watched.highest_basefee = watched.highest_basefee.max(block.basefee_cycle.parse().unwrap_or(0));
                let mut seen = seen.lock();
                for hash in block.transactions {
                    seen.entry(hash).or_insert(now);
                }
                watched.blocks += 1;
                watched.last_height = next;
                next += 1;
            }
            None => tokio::time::sleep(TRACKER_POLL).await,
        }
    }
    Ok(watched)
}
