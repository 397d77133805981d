//! `bench catchup`: how long a validator `--gap` blocks behind takes to follow the tip again,
//! by fast-sync and by replay.
//!
//! The network first runs at `--gap-block-interval-ms` so the gap builds quickly: once the
//! last validator has finalized `--stop-at` blocks it is stopped and its state directory copied
//! (the "backup"), and the others finalize `--gap` more blocks. They are then restarted at
//! `--block-interval-ms`, the pacing the tip keeps while the lagging validator catches up, and
//! finalize a few blocks at it before the lagging validator starts. It starts from the backup
//! twice: with `--sync-from` the first peer and `--fast-sync-min-gap 1` (it fast-syncs whatever
//! the gap), then, from the backup again, without it (it replays every missing block, fetched
//! from its peers over p2p). Each run reports the gap when it started, when the node's API
//! answered, and when its height reached the peer's: it follows the tip.

use super::*;

#[derive(Args)]
pub(crate) struct CatchupArgs {
    /// Validators of the spawned network (the last one falls behind); at least 4, so the
    /// others keep a quorum without it.
    #[arg(long, default_value_t = 4)]
    pub validators: u32,
    /// Blocks the lagging validator misses.
    #[arg(long, default_value_t = 10_000)]
    pub gap: u64,
    /// Height at which the lagging validator stops (its backup holds this much chain).
    #[arg(long, default_value_t = 20)]
    pub stop_at: u64,
    /// Block interval while the gap builds, in milliseconds.
    #[arg(long, default_value_t = 1)]
    pub gap_block_interval_ms: u64,
    /// Block interval while the lagging validator catches up, in milliseconds.
    #[arg(long, default_value_t = drover_node::config::BLOCK_INTERVAL_MS_DEFAULT)]
    pub block_interval_ms: u64,
    /// Skip the replay run (fast-sync only).
    #[arg(long)]
    pub no_replay: bool,
}

/// How long one catch-up run may take.
const CATCHUP_TIMEOUT: Duration = Duration::from_secs(4 * 3600);
/// Blocks the restarted validators finalize before the lagging one starts.
const CATCHUP_SETTLE_BLOCKS: u64 = 50;
/// How often the lagging node and its peer are polled.
const CATCHUP_POLL: Duration = Duration::from_millis(200);

pub(super) async fn catchup(args: CatchupArgs) -> anyhow::Result<()> {
    ensure!(args.validators >= 4, "--validators must be at least 4 (a quorum without the lagging one)");
    ensure!(args.gap > 0 && args.stop_at > 0, "--gap and --stop-at must be positive");
    let mut network = SpawnedNetwork::start(args.validators, args.gap_block_interval_ms).await?;
    let lagging = network.urls.len() - 1;
    let peer = Client::new(&network.urls[0])?;
    let lagging_client = Client::new(&network.urls[lagging])?;

    // The backup: the lagging validator's state a few blocks in.
    wait_height(&lagging_client, args.stop_at, RUN_TIMEOUT).await?;
    let stopped_at = lagging_client.height().await?;
    network.stop(lagging);
    let backup = network.dir.path().join("backup");
    copy_dir(&network.state_dir(lagging), &backup)?;

    // The gap, built at the short interval.
    let building = Instant::now();
    let target = stopped_at + args.gap;
    while peer.height().await.unwrap_or(0) < target {
        ensure!(building.elapsed() < CATCHUP_TIMEOUT, "the gap did not build in time");
        print!("\rbuilding the gap: height {} of {target}", peer.height().await.unwrap_or(0));
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let built = building.elapsed().as_secs_f64();
    println!("\rbuilt a gap of {} blocks in {built:.0} s ({:.0} blocks/s)", args.gap, args.gap as f64 / built);

    // The tip moves on at the production pacing from here.
    for index in 0..lagging {
        network.stop(index);
        set_block_interval(&network.dir.path().join(format!("validator-{index}.yaml")), args.block_interval_ms)?;
    }
    for index in 0..lagging {
        network.spawn(index, &[])?;
    }
    // Settled: the restarted validators finalize at their pacing again.
    wait_height(&peer, 1, RUN_TIMEOUT).await?;
    let resumed = peer.height().await?;
    wait_height(&peer, resumed + CATCHUP_SETTLE_BLOCKS, RUN_TIMEOUT).await?;
    let latest = peer.block(BlockSelector::Latest).await?.context("the peer has no block")?;
    println!(
        "the others restarted at {} ms per block; state of {} operations, {} in the sync range",
        args.block_interval_ms,
        latest.op_count,
        latest.op_count - latest.sync_range_start
    );

    let peer_url = network.urls[0].clone();
    let mut runs =
        vec![("fast-sync", vec!["--sync-from".to_owned(), peer_url, "--fast-sync-min-gap".into(), "1".into()])];
    if !args.no_replay {
        runs.push(("replay", Vec::new()));
    }
    for (name, flags) in runs {
        let state = network.state_dir(lagging);
        std::fs::remove_dir_all(&state).context("cannot remove the lagging validator's state")?;
        copy_dir(&backup, &state)?;
        let behind = peer.height().await?.saturating_sub(stopped_at);
        let started = Instant::now();
        network.spawn(lagging, &flags.iter().map(String::as_str).collect::<Vec<_>>())?;
        let mut answered = None;
        let tip = loop {
            ensure!(started.elapsed() < CATCHUP_TIMEOUT, "{name}: the node did not reach the tip in time");
            let tip = peer.height().await?;
            match lagging_client.height().await {
                Ok(height) => {
                    answered.get_or_insert(started.elapsed());
                    if height >= tip {
                        break tip;
                    }
                    print!("\r{name}: height {height} of {tip}   ");
                }
                Err(_) => print!("\r{name}: starting ({:.0} s)   ", started.elapsed().as_secs_f64()),
            }
            tokio::time::sleep(CATCHUP_POLL).await;
        };
        let followed = started.elapsed().as_secs_f64();
        let answered = answered.map_or(followed, |d| d.as_secs_f64());
        println!("\r{name}, {behind} blocks behind (height {stopped_at} to {tip}):");
        println!("  API answering after:     {answered:>9.1} s");
        println!("  following the tip after: {followed:>9.1} s ({:.0} blocks/s)", behind as f64 / followed);
        network.stop(lagging);
    }
    Ok(())
}

/// Sets `block_interval_ms` in a validator config.
fn set_block_interval(path: &std::path::Path, interval_ms: u64) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path)?;
    let mut replaced = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with("block_interval_ms:") {
                replaced += 1;
                format!("block_interval_ms: {interval_ms}")
            } else {
                line.to_owned()
            }
        })
        .collect();
    ensure!(replaced == 1, "{} has no single block_interval_ms line", path.display());
    std::fs::write(path, lines.join("\n") + "\n")?;
    Ok(())
}

/// Copies the directory tree `from` to `to`.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}
