//! `drover node` and `drover init`.

use clap::Args;
use drover_node::{
    config::ValidatorConfig,
    devnet::{self, NetworkSpec},
    engine::{self, EngineConfig},
    fast_sync::{FAST_SYNC_MIN_GAP_BLOCKS, ProgressHook, SyncProgress},
    genesis::Genesis,
};
use std::{path::PathBuf, sync::Arc};

#[derive(Args)]
pub(crate) struct NodeArgs {
    /// Validator config (YAML).
    #[arg(long)]
    pub config: PathBuf,
    /// Fast-sync from this peer's HTTP API (e.g. http://127.0.0.1:4001) when the node has no
    /// state yet, or is at least `--fast-sync-min-gap` blocks behind the peer's finalized tip
    /// (closer, it replays the missing blocks); repeat to give fallbacks.
    #[arg(long = "sync-from", value_name = "URL")]
    pub sync_from: Vec<String>,
    /// Blocks behind its `--sync-from` peer from which a node with state fast-syncs instead of
    /// replaying (its indexes then restart after the sync height).
    #[arg(long = "fast-sync-min-gap", value_name = "BLOCKS", default_value_t = FAST_SYNC_MIN_GAP_BLOCKS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub fast_sync_min_gap: u64,
}

#[derive(Args)]
pub(crate) struct InitArgs {
    /// Number of validators.
    #[arg(long, default_value_t = 1)]
    pub validators: u32,
    /// Output directory (created; must not already hold a genesis).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = devnet::DEV_CHAIN_ID)]
    pub chain_id: u64,
    #[arg(long, default_value = "drover-devnet")]
    pub network: String,
    /// HTTP port of validator 0 (validator i uses this + i).
    #[arg(long, default_value_t = 4000)]
    pub rpc_port: u16,
    /// p2p port of validator 0 (validator i uses this + i).
    #[arg(long, default_value_t = 30300)]
    pub p2p_port: u16,
    /// Do not prefund the development accounts nor enable the faucet.
    #[arg(long)]
    pub no_dev_accounts: bool,
    /// Target interval between blocks, in milliseconds.
    #[arg(long, default_value_t = drover_node::config::BLOCK_INTERVAL_MS_DEFAULT)]
    pub block_interval_ms: u64,
    /// Write height.dat after every finalized block.
    #[arg(long)]
    pub persist_height: bool,
}

pub(crate) fn run_init(args: InitArgs) -> anyhow::Result<()> {
    let spec = NetworkSpec {
        validators: args.validators,
        chain_id: args.chain_id,
        network: args.network,
        rpc_port: args.rpc_port,
        p2p_port: args.p2p_port,
        dev_accounts: !args.no_dev_accounts,
        block_interval_ms: args.block_interval_ms,
        persist_height: args.persist_height,
    };
    let paths = devnet::generate(&args.out, &spec)?;
    println!("genesis: {}", args.out.join(devnet::GENESIS_FILE).display());
    for path in paths {
        println!("validator config: {}", path.display());
    }
    Ok(())
}

pub(crate) fn run_node(args: NodeArgs) -> anyhow::Result<()> {
    let validator = ValidatorConfig::load(&args.config)?;
    let progress = (!args.sync_from.is_empty()).then(sync_progress_bar);
    let rpc = drover_rpc::RpcConfig { explorer: validator.explorer, ..drover_rpc::RpcConfig::from_env() };
    run_validator(validator, rpc, SyncFrom { peers: args.sync_from, min_gap_blocks: args.fast_sync_min_gap }, progress)
}

/// Where and when a node fast-syncs (`--sync-from`, `--fast-sync-min-gap`).
pub(crate) struct SyncFrom {
    pub peers: Vec<String>,
    pub min_gap_blocks: u64,
}

impl SyncFrom {
    /// No peers: the node replays whatever it misses.
    pub(crate) fn none() -> Self {
        Self { peers: Vec::new(), min_gap_blocks: FAST_SYNC_MIN_GAP_BLOCKS }
    }
}

/// A progress bar of fetched state operations (drawn only on a terminal).
fn sync_progress_bar() -> ProgressHook {
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template("fast-sync {bar:40} {pos}/{len} operations ({per_sec}, eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Arc::new(move |progress: SyncProgress| {
        bar.set_length(progress.target_ops);
        bar.set_position(progress.fetched_ops);
    })
}

/// Installs logging (RUST_LOG overrides the config's level).
pub(crate) fn init_logging(level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_target(false).try_init();
}

/// Runs a validator in the production runtime until SIGINT/SIGTERM.
pub(crate) fn run_validator(
    validator: ValidatorConfig,
    rpc: drover_rpc::RpcConfig,
    sync_from: SyncFrom,
    sync_progress: Option<ProgressHook>,
) -> anyhow::Result<()> {
    init_logging(&validator.log_level);
    let genesis = Genesis::load(&validator.genesis_config_path)?;
    engine::run_until_signalled(EngineConfig {
        validator,
        genesis,
        rpc,
        sync_from: sync_from.peers,
        fast_sync_min_gap_blocks: sync_from.min_gap_blocks,
        sync_progress,
    })
}
