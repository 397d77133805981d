//! `drover dev`: a local single-validator devnet.
//!
//! The first run generates a network in `--dir` (chain id 100, faucet on, development accounts
//! prefunded); later runs resume the same chain. `--reset` is the only thing that deletes it.

use crate::node_cmd::run_validator;
use anyhow::Context as _;
use clap::Args;
use drover_node::{
    config::ValidatorConfig,
    devnet::{self, DEV_ACCOUNT_BALANCE, DEV_ACCOUNTS, FAUCET_KEY_INDEX, NetworkSpec},
};
use drover_types::{SecretKey, params::BASE_UNITS_PER_DRV};
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct DevArgs {
    /// Where the devnet keeps its configs and state.
    #[arg(long, default_value = ".drover-dev")]
    pub dir: PathBuf,
    /// Delete the devnet in `--dir` first and start a new chain.
    #[arg(long)]
    pub reset: bool,
    /// HTTP port (default 4000 for a new devnet; a resumed devnet keeps its own unless given).
    #[arg(long)]
    pub rpc_port: Option<u16>,
    /// p2p port (default 30300 for a new devnet; a resumed devnet keeps its own unless given).
    #[arg(long)]
    pub p2p_port: Option<u16>,
    /// Target interval between blocks, in milliseconds.
    #[arg(long, default_value_t = drover_node::config::BLOCK_INTERVAL_MS_DEFAULT)]
    pub block_interval_ms: u64,
}

pub(crate) fn run(args: DevArgs) -> anyhow::Result<()> {
    if args.reset && args.dir.exists() {
        std::fs::remove_dir_all(&args.dir).with_context(|| format!("cannot delete {}", args.dir.display()))?;
        println!("deleted the devnet in {}", args.dir.display());
    }
    let config_path = devnet::validator_file(&args.dir, 0);
    if !config_path.exists() {
        let defaults = NetworkSpec::devnet();
        let spec = NetworkSpec {
            rpc_port: args.rpc_port.unwrap_or(defaults.rpc_port),
            p2p_port: args.p2p_port.unwrap_or(defaults.p2p_port),
            block_interval_ms: args.block_interval_ms,
            ..defaults
        };
        devnet::generate(&args.dir, &spec)?;
        println!("created a new devnet in {}", crate::display_path(&args.dir).display());
    } else {
        println!("resuming the devnet in {}", crate::display_path(&args.dir).display());
    }
    let mut validator = ValidatorConfig::load(&config_path)?;
    if let Some(port) = args.rpc_port {
        validator.rpc_addr.set_port(port);
    }
    if let Some(port) = args.p2p_port {
        // A single-validator devnet: this node is its only peer.
        validator.p2p_listen.set_port(port);
        for (_, address) in &mut validator.peers {
            address.set_port(port);
        }
    }
    print_banner(&validator);
    let mut rpc = drover_rpc::RpcConfig::from_env();
    rpc.dev_mode = true;
    run_validator(validator, rpc, Vec::new(), None)
}

fn print_banner(validator: &ValidatorConfig) {
    let url = format!("http://{}", validator.rpc_addr);
    println!();
    println!("Drover devnet (chain id {})", devnet::DEV_CHAIN_ID);
    println!("  RPC:        {url}");
    println!("  Explorer:   {url}/explorer/");
    println!("  Swagger UI: {url}/swagger-ui");
    println!("  OpenAPI:    {url}/api-docs/openapi.json");
    println!();
    println!(
        "Development accounts ({} DRV each; well-known keys, never use them on a real network):",
        DEV_ACCOUNT_BALANCE / BASE_UNITS_PER_DRV
    );
    for i in 0..DEV_ACCOUNTS {
        let key = SecretKey::dev(i);
        println!("  ({i}) {}  private key {}", key.address(), key.to_hex());
    }
    println!("Faucet account: {}", SecretKey::dev(FAUCET_KEY_INDEX).address());
    println!();
}
