//! `drover bench state`: what reads and writes cost as the state grows the way users grow it.
//!
//! On a fresh devnet, the state grows in steps of `--step`: first accounts (transfers, each to a
//! new address `0xbe ‖ counter`) up to `--accounts`, then one actor's storage (the `bulk`
//! actor's `fill`, new keys) up to `--entries`. Each step is a measured burst (`--burst`
//! transfers, or fills of `--burst` entries, as fast as the node admits them) followed by the
//! rest of the step at a pace the fee market sustains (full blocks raise the basefee 12.5 % per
//! block, so a long burst would price out any fixed fee); before each burst the basefee is let
//! back to its minimum. Per step it reports the burst's finalized transfers (or entries written)
//! per second, the node's resident memory and its state directory's size. At the end it runs
//! random reads and rewrites over the actor's entries (`touch`) and restarts the node, timing
//! how long it takes to serve again at that size.

use super::*;
use drover_types::api::WaitStatus;

#[derive(Args)]
pub(crate) struct StateArgs {
    /// Accounts to create (one per transfer to a fresh address).
    #[arg(long, default_value_t = 1_000_000)]
    pub accounts: u64,
    /// Storage entries to write into one actor.
    #[arg(long, default_value_t = 1_000_000)]
    pub entries: u64,
    /// State added between two measurements.
    #[arg(long, default_value_t = 100_000)]
    pub step: u64,
    /// Transactions (transfers) or entries (writes) of each measured burst.
    #[arg(long, default_value_t = 20_000)]
    pub burst: u64,
    /// Sending accounts.
    #[arg(long, default_value_t = 1_000)]
    pub senders: u32,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

/// Transfers per second offered between bursts: below the cycle target (476 transfers a
/// block at 100 ms), so the basefee falls while the state grows.
const PACED_TRANSFERS_PER_SEC: u64 = 4_000;
/// Entries one `fill` transaction writes (about 5,040 cycles each: two fit in a block).
const ENTRIES_PER_FILL: u32 = 1_800;
/// Cycles limit of a `fill` of [`ENTRIES_PER_FILL`] entries.
const FILL_CYCLES_LIMIT: u64 = 9_900_000;
/// Cells limit of a fill: 16 bytes per entry and the payload.
const FILL_CELLS_LIMIT: u64 = 16 * ENTRIES_PER_FILL as u64 + 64;
/// Account balances one `balances` transaction reads (1,036 cycles each).
const BALANCE_READS_PER_TX: u32 = 17_000;
const BALANCE_CYCLES_LIMIT: u64 = 19_000_000;
/// `balances` transactions of the read-cost measurement.
const BALANCE_TXS: u64 = 20;
/// Random reads and rewrites per `touch` transaction.
const TOUCHES_PER_TX: u32 = 1_000;
/// `touch` transactions of the final random-access run.
const TOUCH_TXS: u64 = 40;
const TOUCH_CYCLES_LIMIT: u64 = 9_900_000;
const BULK_WAT: &str = include_str!("../../../../actors/bulk.wat");

pub(super) async fn state(args: StateArgs) -> anyhow::Result<()> {
    ensure!(args.step > 0 && args.burst > 0 && args.burst <= args.step, "need 0 < --burst <= --step");
    let mut network = SpawnedNetwork::start(1, args.block_interval_ms).await?;
    let client = Client::new(&network.urls[0])?;
    let clients = [client.clone()];
    let chain_id = client.chain_info().await?.chain_id;
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);
    let retries = AtomicU64::new(0);
    let per_sender = args.accounts.div_ceil(u64::from(args.senders));
    let senders =
        fund_senders(&client, &funder, chain_id, args.senders, Workload::Transfers.budget(per_sender), 50, &retries)
            .await?;
    let mut nonces = vec![0u64; senders.len()];
    let mut next_recipient = 0u64;
    let floor = client.basefee().await?;
    println!(
        "{:>10} {:>12} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "accounts", "transfers/s", "p50 ms", "p99 ms", "exec ms", "RSS MiB", "disk MiB"
    );

    // Accounts.
    let transfers = |count: u64, nonces: &mut [u64], next: &mut u64| -> Vec<Transaction> {
        let batch: Vec<(usize, u64, u64)> = (0..count)
            .map(|i| {
                let s = ((*next + i) % senders.len() as u64) as usize;
                let nonce = nonces[s];
                nonces[s] += 1;
                (s, nonce, *next + i)
            })
            .collect();
        *next += count;
        batch
            .into_par_iter()
            .map(|(s, nonce, recipient)| {
                bench_transfer(&senders[s], chain_id, nonce, Recipients::Fresh.address(recipient), 1)
            })
            .collect()
    };
    let fast = Load { batch: 50, concurrency: 8, rate: None };
    let paced = Load { batch: 50, concurrency: 8, rate: Some(PACED_TRANSFERS_PER_SEC) };
    while next_recipient < args.accounts {
        let step_end = (next_recipient + args.step).min(args.accounts);
        wait_basefee(&client, &floor).await?;
        let exec_before = execution_seconds(&client).await?;
        let burst = transfers(args.burst.min(step_end - next_recipient), &mut nonces, &mut next_recipient);
        let report = run_load(&client, &clients, burst, fast).await?;
        ensure!(report.finalized == report.sent, "{} transfers never finalized", report.sent - report.finalized);
        let exec = per_block_ms(&client, exec_before, report.blocks).await?;
        let rest = transfers(step_end - next_recipient, &mut nonces, &mut next_recipient);
        if !rest.is_empty() {
            run_load(&client, &clients, rest, paced).await?;
        }
        let (rss, disk) = footprint(&network)?;
        println!(
            "{step_end:>10} {:>12.0} {:>10.0} {:>10.0} {exec:>10.1} {rss:>12.0} {disk:>10.0}",
            report.throughput(),
            percentile(&report.latencies, 0.5).as_secs_f64() * 1000.0,
            percentile(&report.latencies, 0.99).as_secs_f64() * 1000.0,
        );
    }

    // One actor's storage, written by one account funded for every fill and touch.
    let txs_needed = args.entries.div_ceil(u64::from(ENTRIES_PER_FILL)) + TOUCH_TXS + BALANCE_TXS + 1;
    let most_per_tx = FILL_CYCLES_LIMIT.max(TOUCH_CYCLES_LIMIT).max(BALANCE_CYCLES_LIMIT) + FILL_CELLS_LIMIT;
    let writer_budget = u128::from(txs_needed) * u128::from(most_per_tx) * BENCH_MAX_FEE_PER_CYCLE * 2;
    let writer = fund_senders(&client, &funder, chain_id, 1, writer_budget, 1, &retries).await?;
    let deployer = &writer[0];
    let mut writer_nonce = 0;
    let bulk = deploy_bulk(&client, deployer, chain_id, writer_nonce).await?;
    writer_nonce += 1;

    // What a state read costs at this size: blocks of `balances` calls, each reading the accounts
    // of BALANCE_READS_PER_TX fresh recipients spread over the whole account family.
    if args.accounts > 0 {
        wait_basefee(&client, &floor).await?;
        let exec_before = execution_seconds(&client).await?;
        let lookups_before = counter(&client, "chain_state_lookups_total").await?;
        let reads: Vec<Transaction> = (0..BALANCE_TXS)
            .map(|i| {
                let start = (i * args.accounts / BALANCE_TXS) as u32;
                let payload = [BALANCE_READS_PER_TX.to_le_bytes(), start.to_le_bytes()].concat();
                let message = Message { handler: "balances".to_owned(), payload };
                let tx = bench_tx(
                    deployer,
                    chain_id,
                    writer_nonce,
                    Some(bulk),
                    0,
                    message.encode(),
                    BALANCE_CYCLES_LIMIT,
                    1_000,
                );
                writer_nonce += 1;
                tx
            })
            .collect();
        let report = run_load(&client, &clients, reads, one_at_a_time()).await?;
        let exec = execution_seconds(&client).await? - exec_before;
        let lookups = counter(&client, "chain_state_lookups_total").await? - lookups_before;
        println!(
            "\naccount reads over {} accounts: {} lookups in {} blocks, {:.1} µs of block execution per lookup",
            args.accounts,
            lookups,
            report.blocks,
            exec * 1e6 / lookups.max(1) as f64
        );
    }
    println!();
    println!(
        "{:>10} {:>12} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "entries", "writes/s", "p50 ms", "p99 ms", "exec ms", "RSS MiB", "disk MiB"
    );
    let mut written = 0u64;
    let fills = |entries: u64, nonce: &mut u64, written: &mut u64| -> Vec<Transaction> {
        let mut txs = Vec::new();
        let end = *written + entries;
        while *written < end {
            let n = (end - *written).min(u64::from(ENTRIES_PER_FILL)) as u32;
            let payload = [n.to_le_bytes(), (*written as u32).to_le_bytes()].concat();
            let message = Message { handler: "fill".to_owned(), payload };
            txs.push(bench_tx(
                deployer,
                chain_id,
                *nonce,
                Some(bulk),
                0,
                message.encode(),
                FILL_CYCLES_LIMIT,
                FILL_CELLS_LIMIT,
            ));
            *nonce += 1;
            *written += u64::from(n);
        }
        txs
    };
    let one = one_at_a_time();
    while written < args.entries {
        let step_end = (written + args.step).min(args.entries);
        wait_basefee(&client, &floor).await?;
        let exec_before = execution_seconds(&client).await?;
        let entries_before = written;
        let burst = fills(args.burst.min(step_end - written), &mut writer_nonce, &mut written);
        let report = run_load(&client, &clients, burst.clone(), one).await?;
        ensure_succeeded(&client, &burst).await?;
        ensure!(report.finalized == report.sent, "{} fills never finalized", report.sent - report.finalized);
        let exec = per_block_ms(&client, exec_before, report.blocks).await?;
        let writes_per_sec = (written - entries_before) as f64 / report.elapsed.as_secs_f64();
        wait_basefee(&client, &floor).await?;
        let rest = fills(step_end - written, &mut writer_nonce, &mut written);
        if !rest.is_empty() {
            run_load(&client, &clients, rest.clone(), one).await?;
            ensure_succeeded(&client, &rest).await?;
        }
        let count = client.actor_storage_count(&bulk).await?.context("the bulk actor")?.count;
        ensure!(count == written, "the actor holds {count} entries, not {written}");
        let (rss, disk) = footprint(&network)?;
        println!(
            "{step_end:>10} {writes_per_sec:>12.0} {:>10.0} {:>10.0} {exec:>10.1} {rss:>12.0} {disk:>10.0}",
            percentile(&report.latencies, 0.5).as_secs_f64() * 1000.0,
            percentile(&report.latencies, 0.99).as_secs_f64() * 1000.0,
        );
    }
    let count = client.actor_storage_count(&bulk).await?.context("the bulk actor")?.count;
    ensure!(count == args.entries, "the actor holds {count} entries, not {}", args.entries);

    // Random reads and rewrites over the whole map.
    if args.entries > 0 {
        wait_basefee(&client, &floor).await?;
        let exec_before = execution_seconds(&client).await?;
        let touches: Vec<Transaction> = (0..TOUCH_TXS)
            .map(|i| {
                let payload =
                    [TOUCHES_PER_TX.to_le_bytes(), (i as u32).to_le_bytes(), (args.entries as u32).to_le_bytes()]
                        .concat();
                let message = Message { handler: "touch".to_owned(), payload };
                let tx = bench_tx(
                    deployer,
                    chain_id,
                    writer_nonce,
                    Some(bulk),
                    0,
                    message.encode(),
                    TOUCH_CYCLES_LIMIT,
                    20_000,
                );
                writer_nonce += 1;
                tx
            })
            .collect();
        let report = run_load(&client, &clients, touches, one).await?;
        let exec = per_block_ms(&client, exec_before, report.blocks).await?;
        println!();
        println!(
            "random reads + rewrites over {} entries: {:.0} per second ({} blocks, {exec:.1} ms of execution per block)",
            args.entries,
            (TOUCH_TXS * u64::from(TOUCHES_PER_TX)) as f64 / report.elapsed.as_secs_f64(),
            report.blocks
        );
    }

    // Restart at this size.
    let height = client.height().await?;
    network.stop(0);
    let started = Instant::now();
    network.spawn(0, &[])?;
    wait_height(&client, height + 1, RUN_TIMEOUT).await?;
    let (rss, disk) = footprint(&network)?;
    println!(
        "restart with {} accounts and {} entries: serving and finalizing after {:.2} s (RSS {rss:.0} MiB, disk {disk:.0} MiB)",
        args.accounts,
        args.entries,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Fails unless every one of `txs` succeeded (a benchmark that measures failed work measures
/// nothing).
async fn ensure_succeeded(client: &Client, txs: &[Transaction]) -> anyhow::Result<()> {
    for tx in txs {
        let receipt = client.receipt(&tx.hash()).await?.context("a finalized transaction has no receipt")?;
        ensure!(
            receipt.status == drover_types::api::ReceiptStatus::Success,
            "a benchmark transaction did not succeed: {receipt:?}"
        );
    }
    Ok(())
}

/// One connection submitting batches of 20, as fast as admitted.
fn one_at_a_time() -> Load {
    Load { batch: 20, concurrency: 1, rate: None }
}

/// Deploys the `bulk` actor from `deployer` (whose next nonce is `nonce`) and waits for it.
async fn deploy_bulk(client: &Client, deployer: &SecretKey, chain_id: u64, nonce: u64) -> anyhow::Result<Address> {
    let deploy = Deploy {
        code: wat::parse_str(BULK_WAT).context("the bulk actor does not compile")?,
        manifest: Manifest::new(vec!["storage.kv".to_owned(), "actor.call".to_owned()]),
        salt: b"bench".to_vec(),
        init: None,
    };
    let actor = deploy.actor_address(&deployer.address());
    let tx = bench_tx(deployer, chain_id, nonce, None, 0, deploy.encode(), 5_000_000, 100_000);
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await?;
    ensure!(
        answer.results.first().is_some_and(|r| r.status == WaitStatus::Success),
        "the bulk deploy failed: {answer:?}"
    );
    Ok(actor)
}

/// Basefee an idle chain comes back down to: a decrease is rounded down, so below 8 an empty
/// block (a 1/8 decrease) no longer lowers it.
const SETTLED_BASEFEE: u128 = 8;

/// Waits until the basefees are back near `floor` (full blocks raised them).
async fn wait_basefee(client: &Client, floor: &drover_types::api::BasefeeInfo) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(120);
    let settled = |now: &str, floor: &str| {
        let (now, floor): (u128, u128) = (now.parse().unwrap_or(u128::MAX), floor.parse().unwrap_or(0));
        now <= floor.max(SETTLED_BASEFEE)
    };
    loop {
        let now = client.basefee().await?;
        if settled(&now.basefee_cycle, &floor.basefee_cycle) && settled(&now.basefee_cell, &floor.basefee_cell) {
            return Ok(());
        }
        ensure!(Instant::now() < deadline, "the basefee did not come back down");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The node's total block execution time so far, in seconds (`chain_block_execution_seconds`).
async fn execution_seconds(client: &Client) -> anyhow::Result<f64> {
    let metrics = client.metrics().await?;
    Ok(metrics
        .lines()
        .find_map(|line| line.strip_prefix("chain_block_execution_seconds_sum ")?.parse().ok())
        .unwrap_or(0.0))
}

/// Average execution milliseconds per block since `before` over `blocks` blocks (each block is
/// executed once on a single validator).
async fn per_block_ms(client: &Client, before: f64, blocks: u64) -> anyhow::Result<f64> {
    Ok((execution_seconds(client).await? - before) * 1000.0 / blocks.max(1) as f64)
}

/// The validator's resident memory and the size of its state directory, in MiB.
fn footprint(network: &SpawnedNetwork) -> anyhow::Result<(f64, f64)> {
    let pid = network.pid(0).context("the validator is not running")?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let rss_kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    Ok((rss_kib / 1024.0, dir_size(&network.state_dir(0)) as f64 / (1024.0 * 1024.0)))
}

fn dir_size(path: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else { return 0 };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => dir_size(&entry.path()),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        })
        .sum()
}
