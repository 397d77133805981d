//! `drover bench`: load generation and measurements (never timed assertions in tests).
//!
//! `bench transfers` starts a fresh devnet from this very binary (or targets `--external`
//! nodes), funds `--senders` accounts from the devnet faucet account, pre-signs
//! `--transfers` transfers, and submits them over HTTP in batches of `--batch` from
//! `--concurrency` workers as fast as the node admits them (retrying after 429). A tracker
//! follows finalized blocks and stamps each transaction when its block is seen, giving
//! sustained finalized transfers per second and submit→finalized latency percentiles
//! (latency includes up to one tracker poll interval).
//!
//! `bench recover` measures signature recoveries per second on this machine, single-threaded
//! and across all cores: the ceiling of admission throughput.
//!
//! `bench proofs` starts a devnet, includes one transfer, then asks for `--requests` proofs of
//! each kind one after another over HTTP (account present, account absent, storage slot,
//! transaction, receipt) and verifies each in the client: HTTP round-trip latency and
//! verification time percentiles per kind. The chain keeps finalizing during the run, so
//! proofs are taken against a moving tip, as in production.

mod catchup;
mod explorer;
mod history;
mod hostile;
mod jobs;
mod load;
mod network;
mod proofs;
mod reads;
mod recover;
mod state;
mod storage;
mod sync;
mod tokens;
mod transfers;

use load::*;
use network::*;
use proofs::{ProofArgs, proofs};
use recover::{RecoverArgs, recover};
use sync::{SyncArgs, sync};
use transfers::*;

use anyhow::{Context as _, bail, ensure};
use clap::{Args, Subcommand};
use drover_client::{BlockSelector, Client, ClientError};
use drover_node::devnet::FAUCET_KEY_INDEX;
use drover_types::{
    Address, H256, SecretKey, Transaction, VerifiedTransaction,
    payload::{Deploy, Manifest, Message},
};
use rayon::prelude::*;
use std::{
    collections::HashMap,
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

/// How often the tracker asks for new finalized blocks.
const TRACKER_POLL: Duration = Duration::from_millis(10);
/// Rate limit given to a spawned devnet: effectively unlimited.
const BENCH_RATE_LIMIT_PER_SEC: &str = "1000000000";
/// Max fee per cycle of benchmark transactions: far above any basefee the load can cause.
const BENCH_MAX_FEE_PER_CYCLE: u128 = 1_000_000;
/// Max fee per cell of benchmark transactions.
const BENCH_MAX_FEE_PER_CELL: u128 = 1_000;
/// How long a run may take before it is abandoned.
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
    /// Finalized transfers per second and submit→finalized latency.
    Transfers(TransferArgs),
    /// Signature recoveries per second (the admission ceiling).
    Recover(RecoverArgs),
    /// Finalized actor calls per second (increments of one counter actor) and submit→finalized
    /// latency; `--transfers` counts the calls.
    Calls(TransferArgs),
    /// Fast-sync throughput: a wiped validator rebuilds a state of `--ops` operations from a
    /// peer over HTTP (at the default per-IP state-sync rate limit).
    Sync(SyncArgs),
    /// How long a validator `--gap` blocks behind takes to follow the tip, by fast-sync and by
    /// replay.
    Catchup(catchup::CatchupArgs),
    /// Proof latency over HTTP and client verification time, per proof kind.
    Proofs(ProofArgs),
    /// Honest transfers' finality while attackers send the costliest work they can.
    Hostile(hostile::HostileArgs),
    /// Transfers and actor writes per second as the state grows to millions of accounts and
    /// entries; memory, disk and restart time at that size.
    State(state::StateArgs),
    /// Finalized token transfers per second against plain transfers, in one run.
    Tokens(tokens::TokenArgs),
    /// `GET /account` requests per second and latency, idle and while blocks are committed.
    Reads(reads::ReadArgs),
    /// Jobs completed per second end to end (three runner daemons, majority 2, callbacks) and
    /// the submission→callback latency.
    Jobs(jobs::JobArgs),
    /// Sealed objects put and got per second through a relay daemon, and how long its roots
    /// take to reach the chain.
    Storage(storage::StorageArgs),
    /// Account history and event query latency with many transactions indexed, simulation
    /// latency, and block streams' lag and cost to finality.
    History(history::HistoryArgs),
    /// The requests of each block-explorer page, timed with many transactions on the chain, and
    /// what pages and their streams cost the chain's finality.
    Explorer(explorer::ExplorerArgs),
}

pub(crate) fn run(command: BenchCommand, rpc_url: &str) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        match command {
            BenchCommand::Recover(args) => recover(args),
            BenchCommand::Transfers(args) => transfers(args, rpc_url, Workload::Transfers).await,
            BenchCommand::Calls(args) => transfers(args, rpc_url, Workload::CounterCalls).await,
            BenchCommand::Sync(args) => sync(args).await,
            BenchCommand::Catchup(args) => catchup::catchup(args).await,
            BenchCommand::Tokens(args) => tokens::tokens(args).await,
            BenchCommand::Proofs(args) => proofs(args).await,
            BenchCommand::Hostile(args) => hostile::hostile(args).await,
            BenchCommand::State(args) => state::state(args).await,
            BenchCommand::Reads(args) => reads::reads(args).await,
            BenchCommand::Jobs(args) => jobs::jobs(args).await,
            BenchCommand::Storage(args) => storage::storage(args).await,
            BenchCommand::History(args) => history::history(args).await,
            BenchCommand::Explorer(args) => explorer::explorer(args).await,
        }
    })
}
