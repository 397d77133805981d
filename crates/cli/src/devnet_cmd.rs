//! `drover devnet --validators N`: a local multi-validator network, one process per validator.
//!
//! The first run generates the network in `--dir` (one genesis, N validator configs with
//! threshold shares of one group key, HTTP ports `rpc_port + i` and p2p ports `p2p_port + i` on
//! 127.0.0.1); later runs resume it. Each validator runs as a child `drover node` process with
//! its log in `--dir/validator-i.log`, so killing or restarting one behaves exactly like a real
//! validator. SIGINT/SIGTERM stop every child gracefully (SIGTERM, then wait); a child that exits
//! on its own is reported and the others keep running. `--reset` is the only thing that deletes
//! the network (never use it on a production node).

use anyhow::{Context as _, bail};
use clap::Args;
use drover_node::{
    config::{BLOCK_INTERVAL_MS_DEFAULT, ValidatorConfig},
    devnet::{self, NetworkSpec},
};
use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::Duration,
};

/// How often the supervisor checks its children.
const POLL_INTERVAL_MS: u64 = 200;

#[derive(Args)]
pub(crate) struct DevnetArgs {
    /// Number of validators (a new network only).
    #[arg(long, default_value_t = 4)]
    pub validators: u32,
    /// Where the network keeps its configs, state and logs.
    #[arg(long, default_value = ".drover-devnet")]
    pub dir: PathBuf,
    /// Delete the network in `--dir` first and start a new chain.
    #[arg(long)]
    pub reset: bool,
    /// HTTP port of validator 0 (validator i uses this + i).
    #[arg(long, default_value_t = 4000)]
    pub rpc_port: u16,
    /// p2p port of validator 0 (validator i uses this + i).
    #[arg(long, default_value_t = 30300)]
    pub p2p_port: u16,
    /// Target interval between blocks, in milliseconds.
    #[arg(long, default_value_t = BLOCK_INTERVAL_MS_DEFAULT)]
    pub block_interval_ms: u64,
}

pub(crate) fn run(args: DevnetArgs) -> anyhow::Result<()> {
    if args.reset && args.dir.exists() {
        std::fs::remove_dir_all(&args.dir).with_context(|| format!("cannot delete {}", args.dir.display()))?;
        println!("deleted the network in {}", args.dir.display());
    }
    if !devnet::validator_file(&args.dir, 0).exists() {
        devnet::generate(
            &args.dir,
            &NetworkSpec {
                validators: args.validators,
                rpc_port: args.rpc_port,
                p2p_port: args.p2p_port,
                block_interval_ms: args.block_interval_ms,
                ..NetworkSpec::devnet()
            },
        )?;
        println!("created a {}-validator network in {}", args.validators, crate::display_path(&args.dir).display());
    } else {
        println!("resuming the network in {}", crate::display_path(&args.dir).display());
    }
    let configs = configs(&args.dir)?;
    let exe = std::env::current_exe().context("cannot find the drover executable")?;
    let mut children = Vec::with_capacity(configs.len());
    for (index, config) in configs.iter().enumerate() {
        let validator = ValidatorConfig::load(config)?;
        let log_path = args.dir.join(format!("validator-{index}.log"));
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .with_context(|| format!("cannot open {}", log_path.display()))?;
        let child = Command::new(&exe)
            .arg("node")
            .arg("--config")
            .arg(config)
            .env("DROVER_DEV_MODE", "1")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start validator {index}"))?;
        println!("validator {index}: http://{}  (pid {}, log {})", validator.rpc_addr, child.id(), log_path.display());
        children.push(Some(child));
    }
    println!("press Ctrl-C to stop every validator");
    supervise(&mut children)
}

/// The validator configs of a generated network, in index order.
fn configs(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let configs: Vec<_> =
        (0..).map(|index| devnet::validator_file(dir, index)).take_while(|path| path.exists()).collect();
    if configs.is_empty() {
        bail!("no validator config in {}", dir.display());
    }
    Ok(configs)
}

/// Waits for SIGINT/SIGTERM (then stops the children) or for every child to exit.
fn supervise(children: &mut [Option<Child>]) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut poll = tokio::time::interval(Duration::from_millis(POLL_INTERVAL_MS));
        loop {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => break,
                _ = term.recv() => break,
                _ = poll.tick() => {
                    for (index, slot) in children.iter_mut().enumerate() {
                        if let Some(child) = slot
                            && let Ok(Some(status)) = child.try_wait()
                        {
                            println!("validator {index} exited ({status})");
                            *slot = None;
                        }
                    }
                    if children.iter().all(Option::is_none) {
                        bail!("every validator has exited");
                    }
                }
            }
        }
        println!("stopping the validators");
        for child in children.iter().flatten() {
            terminate(child);
        }
        for (index, child) in children.iter_mut().enumerate() {
            if let Some(child) = child {
                let status = child.wait()?;
                println!("validator {index} stopped ({status})");
            }
        }
        Ok(())
    })
}

/// Asks a child to stop gracefully.
fn terminate(child: &Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: `kill` only sends a signal to the child this process started and still owns
        // (it has not been waited for, so the PID cannot have been reused).
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
}
