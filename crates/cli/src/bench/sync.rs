//! `bench sync`: fast-sync of a grown state.

use super::*;

#[derive(Args)]
pub(crate) struct SyncArgs {
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

/// Transfers each sender sends per wave while the state is built.
pub(super) const SYNC_WAVE_TRANSFERS_PER_SENDER: u64 = 20;

pub(super) async fn sync(args: SyncArgs) -> anyhow::Result<()> {
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
