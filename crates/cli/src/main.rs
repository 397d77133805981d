//! The `drover` binary: validator node, local devnet, network generation and client commands.
//!
//! Node commands (`dev`, `devnet`, `node`, `init`) run or prepare validators; client commands talk to a
//! node's HTTP API (`--rpc-url`, else `DROVER_RPC_URL`, else the project's `.drover/config.toml`,
//! else `http://127.0.0.1:4000`: see [`project`]). `bench` drives load at a node and reports
//! figures. `actor new|build|address` work on Rust actor crates ([`actor_dev`]).

mod actor_cmds;
mod actor_dev;
mod bench;
mod client_cmds;
mod dev;
mod devnet_cmd;
mod explore_cmds;
mod gov_cmds;
mod heartbeat;
mod job_cmds;
mod job_secrets;
mod library_cmds;
mod node_cmd;
mod project;
mod relay_daemon;
mod report;
mod runner_cmds;
mod runner_daemon;
mod secrets_cmds;
mod simulation;
mod storage_cmds;
mod submission;
mod token_cmds;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "drover", version, about = "Drover validator node and client")]
struct Cli {
    /// HTTP API of the node that client commands talk to (default: `rpc_url` in the project's
    /// `.drover/config.toml`, else http://127.0.0.1:4000).
    #[arg(long, global = true, env = "DROVER_RPC_URL")]
    rpc_url: Option<String>,
    /// Print raw JSON records instead of human-readable output.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a local single-validator devnet (chain id 100, faucet and dev mode on).
    Dev(dev::DevArgs),
    /// Run a local multi-validator network, one process per validator.
    Devnet(devnet_cmd::DevnetArgs),
    /// Run a validator from its config file.
    Node(node_cmd::NodeArgs),
    /// Write a genesis and one validator config per validator, with fresh keys.
    Init(node_cmd::InitArgs),
    /// Run the reference runner daemon: register if needed, then keep heartbeating.
    Runner(runner_daemon::RunnerArgs),
    /// Run the reference storage relay: register or update, serve objects, commit roots.
    Relay(relay_daemon::RelayArgs),
    /// Measure a node under load.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    #[command(flatten)]
    Client(client_cmds::ClientCommand),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Dev(args) => dev::run(args),
        Command::Devnet(args) => devnet_cmd::run(args),
        Command::Node(args) => node_cmd::run_node(args),
        Command::Init(args) => node_cmd::run_init(args),
        Command::Bench(cmd) => bench::run(cmd, &project::rpc_url(cli.rpc_url)?),
        Command::Runner(args) => in_runtime(runner_daemon::run(args, &project::rpc_url(cli.rpc_url)?)),
        Command::Relay(args) => in_runtime(relay_daemon::run(args, &project::rpc_url(cli.rpc_url)?)),
        Command::Client(cmd) => in_runtime(client_cmds::run(cmd, cli.rpc_url, cli.json)),
    }
}

/// Runs a command that talks to a node on a fresh multi-threaded runtime.
fn in_runtime(command: impl std::future::Future<Output = anyhow::Result<()>>) -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(command)
}

/// Resolves a path relative to the current directory, for messages.
fn display_path(path: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
