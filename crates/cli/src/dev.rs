//! `drover dev`: a local single-validator devnet.
//!
//! The first run generates a network in `--dir` (chain id 100, faucet on, development accounts
//! prefunded); later runs resume the same chain. `--reset` is the only thing that deletes it.
//!
//! Snapshots let a test return to a known chain in seconds: `--snapshot NAME` saves the whole
//! devnet (configs, keys, state database) under `DIR/snapshots/NAME` before starting it, and
//! `--restore NAME` puts a saved one back before starting. Both copy files, so they only run
//! while the devnet is stopped (a running node's files can be torn): the devnet's ports must be
//! free. A snapshot keeps everything, identity included, so a restored devnet is the same chain
//! at the saved height, and goes on from there with new blocks.

use crate::node_cmd::{SyncFrom, run_validator};
use anyhow::Context as _;
use clap::Args;
use drover_node::{
    config::ValidatorConfig,
    devnet::{self, DEV_ACCOUNT_BALANCE, DEV_ACCOUNTS, FAUCET_KEY_INDEX, NetworkSpec},
};
use drover_types::{SecretKey, params::BASE_UNITS_PER_DRV};
use std::path::{Path, PathBuf};

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
    /// Save the devnet's whole state as NAME (replacing a snapshot of that name), then start.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["restore", "reset"])]
    pub snapshot: Option<String>,
    /// Put back the state saved as NAME, then start.
    #[arg(long, value_name = "NAME", conflicts_with = "reset")]
    pub restore: Option<String>,
}

/// Where a devnet keeps its snapshots, inside its directory.
const SNAPSHOTS_DIR: &str = "snapshots";
/// Longest snapshot name, in bytes.
const SNAPSHOT_NAME_MAX_BYTES: usize = 64;

pub(crate) fn run(args: DevArgs) -> anyhow::Result<()> {
    if args.reset && args.dir.exists() {
        std::fs::remove_dir_all(&args.dir).with_context(|| format!("cannot delete {}", args.dir.display()))?;
        println!("deleted the devnet in {}", args.dir.display());
    }
    let config_path = devnet::validator_file(&args.dir, 0);
    if let Some(name) = &args.restore {
        restore(&args.dir, name)?;
        println!("restored the devnet in {} from snapshot {name:?}", args.dir.display());
    }
    if let Some(name) = &args.snapshot {
        snapshot(&args.dir, name)?;
        println!("saved the devnet in {} as snapshot {name:?}", args.dir.display());
    }
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
    run_validator(validator, rpc, SyncFrom::none(), None)
}

/// The snapshot directory of `name`, after checking the name (letters, digits, `-`, `_`).
fn snapshot_dir(dir: &Path, name: &str) -> anyhow::Result<PathBuf> {
    let valid = !name.is_empty()
        && name.len() <= SNAPSHOT_NAME_MAX_BYTES
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    anyhow::ensure!(valid, "{name:?} cannot name a snapshot: use letters, digits, `-` and `_` (at most 64)");
    Ok(dir.join(SNAPSHOTS_DIR).join(name))
}

/// Refuses to copy the files of a devnet whose node is running: its ports are taken.
fn ensure_stopped(dir: &Path) -> anyhow::Result<()> {
    let config = devnet::validator_file(dir, 0);
    anyhow::ensure!(config.exists(), "no devnet in {}: run `drover dev` once first", dir.display());
    let validator = ValidatorConfig::load(&config)?;
    for address in [validator.rpc_addr, validator.p2p_listen] {
        if std::net::TcpListener::bind(address).is_err() {
            anyhow::bail!("{address} is in use: stop the devnet in {} before saving or restoring it", dir.display());
        }
    }
    Ok(())
}

/// Saves every file of the devnet in `dir` (but its snapshots) as snapshot `name`.
fn snapshot(dir: &Path, name: &str) -> anyhow::Result<()> {
    let target = snapshot_dir(dir, name)?;
    ensure_stopped(dir)?;
    // Written beside the old one first, so a failed save never loses the snapshot it replaces.
    let partial = dir.join(SNAPSHOTS_DIR).join(format!(".{name}.partial"));
    if partial.exists() {
        std::fs::remove_dir_all(&partial).with_context(|| format!("cannot delete {}", partial.display()))?;
    }
    copy_devnet(dir, &partial)?;
    if target.exists() {
        std::fs::remove_dir_all(&target).with_context(|| format!("cannot replace {}", target.display()))?;
    }
    std::fs::rename(&partial, &target).with_context(|| format!("cannot write {}", target.display()))
}

/// Replaces the devnet in `dir` (but its snapshots) with snapshot `name`.
fn restore(dir: &Path, name: &str) -> anyhow::Result<()> {
    let source = snapshot_dir(dir, name)?;
    anyhow::ensure!(source.is_dir(), "no snapshot {name:?} in {}", dir.join(SNAPSHOTS_DIR).display());
    ensure_stopped(dir)?;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry?;
        if entry.file_name() == SNAPSHOTS_DIR {
            continue;
        }
        let path = entry.path();
        let removed =
            if entry.file_type()?.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        removed.with_context(|| format!("cannot delete {}", path.display()))?;
    }
    copy_tree(&source, dir)
}

/// Copies the devnet's files (all of `dir` but its snapshots) into `target`.
fn copy_devnet(dir: &Path, target: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(target).with_context(|| format!("cannot create {}", target.display()))?;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry?;
        if entry.file_name() != SNAPSHOTS_DIR {
            copy_entry(&entry, &target.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// Copies the contents of `source` into `target` (created if needed), recursively.
fn copy_tree(source: &Path, target: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(target).with_context(|| format!("cannot create {}", target.display()))?;
    for entry in std::fs::read_dir(source).with_context(|| format!("cannot list {}", source.display()))? {
        let entry = entry?;
        copy_entry(&entry, &target.join(entry.file_name()))?;
    }
    Ok(())
}

fn copy_entry(entry: &std::fs::DirEntry, target: &Path) -> anyhow::Result<()> {
    let path = entry.path();
    if entry.file_type()?.is_dir() {
        copy_tree(&path, target)
    } else {
        // `fs::copy` keeps the permissions: key files stay private.
        std::fs::copy(&path, target).with_context(|| format!("cannot copy {}", path.display())).map(drop)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_restores_every_file_but_the_snapshots() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dir.path().join("dev");
        let bind = || std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let (rpc, p2p) = (bind(), bind());
        let (rpc_port, p2p_port) = (rpc.local_addr().unwrap().port(), p2p.local_addr().unwrap().port());
        drop((rpc, p2p));
        let spec = NetworkSpec { rpc_port, p2p_port, ..NetworkSpec::devnet() };
        devnet::generate(&dev, &spec).unwrap();
        std::fs::create_dir_all(dev.join("validator-0/state/a")).unwrap();
        std::fs::write(dev.join("validator-0/state/a/blob"), b"height 5").unwrap();
        snapshot(&dev, "five").unwrap();

        std::fs::write(dev.join("validator-0/state/a/blob"), b"height 9").unwrap();
        std::fs::write(dev.join("validator-0/state/new"), b"later").unwrap();
        restore(&dev, "five").unwrap();
        assert_eq!(std::fs::read(dev.join("validator-0/state/a/blob")).unwrap(), b"height 5");
        assert!(!dev.join("validator-0/state/new").exists(), "files written after the snapshot are gone");
        assert!(dev.join(SNAPSHOTS_DIR).join("five").is_dir(), "the snapshot survives its restore");
        assert!(!dev.join(SNAPSHOTS_DIR).join("five").join(SNAPSHOTS_DIR).exists(), "snapshots hold no snapshots");

        // Saving again under the same name replaces it.
        std::fs::write(dev.join("validator-0/state/a/blob"), b"height 12").unwrap();
        snapshot(&dev, "five").unwrap();
        restore(&dev, "five").unwrap();
        assert_eq!(std::fs::read(dev.join("validator-0/state/a/blob")).unwrap(), b"height 12");

        assert!(restore(&dev, "missing").is_err());
        for bad in ["", "../x", "a/b", ".hidden"] {
            assert!(snapshot(&dev, bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_running_devnet_is_neither_saved_nor_restored() {
        let dir = tempfile::tempdir().unwrap();
        let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = busy.local_addr().unwrap().port();
        let spec = NetworkSpec { rpc_port: port, p2p_port: port.wrapping_add(1).max(1024), ..NetworkSpec::devnet() };
        devnet::generate(dir.path(), &spec).unwrap();
        let refused = snapshot(dir.path(), "x").unwrap_err().to_string();
        assert!(refused.contains("in use"), "{refused}");
    }
}
