//! `drover relay`: the reference storage relay daemon.
//!
//! On start it registers at the relay registry (`0x…0b`) with `--stake` and its settings, or,
//! when it is registered already (E1952), updates its record to these settings, so a restart
//! with other flags takes effect. Then, until SIGINT or SIGTERM:
//!
//! - the `drover_relay` HTTP server on `--listen` stores and serves the objects under `--dir`;
//! - the commit loop, every `--commit-interval-ms`, commits each changed volume's manifest
//!   root and size on chain (`commit` at `0x…0a`), which is what its rent follows;
//! - a heartbeat goes out every `--heartbeat-blocks` blocks (the chain's gap is 50);
//! - the sweep, every `--sweep-interval-ms`, drops the bytes of volumes the chain has purged
//!   (or reaped) once it has said so for `--sweep-confirm-ms` (`drover_relay::sweep`).
//!
//! The relay learns who owns a volume, whether it is public and its status by asking the node
//! as itself (`GET /ras/volumes/{id}` answers a volume's relay as well as its owner), and
//! whether a session key is revoked from `/ras/revocations/...`. Every transaction it signs
//! (registration, heartbeats, commits) goes through one [`ChainSender`] in turn, each waiting
//! for its block, so two never race for a nonce. A request to the node that fails is logged
//! and tried again: the relay keeps serving while the node restarts.

use crate::heartbeat::HeartbeatPace;
use anyhow::{Context, Result, bail};
use clap::Args;
use drover_client::amount::parse_amount;
use drover_client::storage_auth::{StorageSigner, now_ms};
use drover_client::{Client, TxBuilder, Wallet};
use drover_relay::{
    CommitError, CommitLoop, Committer, Directory, DirectoryError, Relay, RelayConfig, Sweeper, VolumeInfo,
};
use drover_types::{
    Address, H256, SecretKey,
    exec_error::ExecCode,
    storage::{MIN_RELAY_STAKE, RelayCall, RelaySettings, StorageCall},
};
use std::{net::SocketAddr, path::PathBuf, sync::Arc, time::Duration};

/// Wait after a failed request before trying again, in milliseconds.
const RETRY_DELAY_MS: u64 = 2_000;
/// How long a transaction may wait for its block, in milliseconds (the node's maximum).
const SUBMIT_WAIT_TIMEOUT_MS: u64 = 10_000;
/// A session token is renewed when it has less than this left, in milliseconds.
const TOKEN_RENEW_MARGIN_MS: u64 = 5 * 60 * 1_000;

#[derive(Debug, Args)]
pub(crate) struct RelayArgs {
    /// Key file of the relay's account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Directory of the relay's objects and manifests (created if missing).
    #[arg(long)]
    dir: PathBuf,
    /// Address to serve on.
    #[arg(long, default_value = "127.0.0.1:4100")]
    listen: SocketAddr,
    /// Public URL clients reach the relay at (default: http:// + --listen).
    #[arg(long)]
    endpoint: Option<String>,
    /// Bytes offered over all volumes.
    #[arg(long, default_value_t = 1 << 30)]
    capacity: u64,
    /// Rent per byte per block, in base units or DRV.
    #[arg(long, value_parser = parse_amount, default_value_t = 1)]
    price: u128,
    /// Stake to register with: base units or DRV (`1.5drv`).
    #[arg(long, value_parser = parse_amount, default_value_t = MIN_RELAY_STAKE)]
    stake: u128,
    /// Do not list the relay in /ras/relays/public.
    #[arg(long)]
    unlisted: bool,
    /// Take no new volumes and no writes (serve reads only).
    #[arg(long)]
    read_only: bool,
    /// Send a heartbeat every this many blocks (default a fifth of the chain's live
    /// `heartbeat_gap_blocks`; at most half of it).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    heartbeat_blocks: Option<u64>,
    /// Commit changed volumes' roots this often, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    commit_interval_ms: u64,
    /// Look for volumes the chain has purged this often, in milliseconds.
    #[arg(
        long,
        default_value_t = drover_relay::sweep::DEFAULT_SWEEP_INTERVAL.as_millis() as u64,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    sweep_interval_ms: u64,
    /// Drop a volume's bytes once the chain has said it is gone for this long, in milliseconds.
    #[arg(long, default_value_t = drover_relay::sweep::DEFAULT_CONFIRM_AFTER.as_millis() as u64)]
    sweep_confirm_ms: u64,
}

/// Sends the relay's transactions one at a time, each waiting for its block.
struct ChainSender {
    client: Client,
    wallet: Wallet,
    turn: tokio::sync::Mutex<()>,
}

impl ChainSender {
    /// Signs and sends `builder`'s transaction; answers its receipt's error code (`None` on
    /// success).
    async fn send(&self, builder: TxBuilder) -> Result<Option<ExecCode>> {
        let _turn = self.turn.lock().await;
        let context = builder
            .fetch_context(&self.client, self.wallet.address())
            .await
            .context("cannot prepare the transaction (chain id, nonce or fees)")?;
        let tx = builder.sign(&context, &self.wallet)?;
        let answer = self.client.submit_wait(std::slice::from_ref(&tx), SUBMIT_WAIT_TIMEOUT_MS).await?;
        let result = answer.results.first().context("the node's answer is empty")?;
        if result.block_height.is_none() {
            bail!("transaction {} not included: {}", tx.hash(), result.message.clone().unwrap_or_default());
        }
        let receipt = self.client.receipt(&tx.hash()).await?.context("an included transaction has no receipt")?;
        Ok(receipt.error.map(|e| e.code.parse().unwrap_or(ExecCode::Internal)))
    }
}

/// The chain as the relay server sees it: volumes and revocations, read from the node.
struct NodeDirectory {
    client: Client,
    wallet: SecretKey,
    chain_id: u64,
    signer: parking_lot::Mutex<StorageSigner>,
}

impl NodeDirectory {
    fn new(client: &Client, wallet: &Wallet, chain_id: u64) -> Self {
        NodeDirectory {
            client: client.clone(),
            wallet: wallet.secret_key().clone(),
            chain_id,
            signer: parking_lot::Mutex::new(StorageSigner::issue(wallet.secret_key(), SecretKey::random(), chain_id)),
        }
    }

    /// The relay's session, renewed before its token expires.
    fn signer(&self) -> StorageSigner {
        let mut signer = self.signer.lock();
        if signer.token().expires_at_ms < now_ms().saturating_add(TOKEN_RENEW_MARGIN_MS) {
            *signer = StorageSigner::issue(&self.wallet, SecretKey::random(), self.chain_id);
        }
        signer.clone()
    }
}

impl Directory for NodeDirectory {
    async fn volume(&self, id: H256) -> Result<Option<VolumeInfo>, DirectoryError> {
        let signer = self.signer();
        let volume = self.client.storage_volume(&signer, &id).await.map_err(|e| DirectoryError(e.to_string()))?;
        Ok(volume.map(|v| VolumeInfo {
            owner: v.owner,
            public: v.public,
            relay: v.relay,
            status: v.status,
            max_size_bytes: v.max_size_bytes,
        }))
    }

    async fn session_revoked(&self, wallet: Address, session_key: [u8; 33]) -> Result<bool, DirectoryError> {
        let answer =
            self.client.storage_revocation(&wallet, &session_key).await.map_err(|e| DirectoryError(e.to_string()))?;
        Ok(answer.revoked)
    }
}

/// Commits volume roots through the relay's [`ChainSender`].
struct NodeCommitter(Arc<ChainSender>);

impl Committer for NodeCommitter {
    async fn commit(&self, volume: H256, root: H256, size_bytes: u64) -> Result<(), CommitError> {
        let call = StorageCall::Commit { volume, root, size_bytes };
        match self.0.send(TxBuilder::storage(&call, 0)).await {
            Ok(None) => Ok(()),
            // The chain will not take this root (the volume is gone or not this relay's, or
            // the size is past the capacity): retrying the same root cannot help.
            Ok(Some(code @ (ExecCode::UnknownVolume | ExecCode::VolumeState | ExecCode::RelayUnavailable))) => {
                Err(CommitError::Refused(format!("{code}")))
            }
            Ok(Some(code)) => Err(CommitError::Failed(format!("{code}"))),
            Err(error) => Err(CommitError::Failed(format!("{error:#}"))),
        }
    }
}

/// Runs the relay until SIGINT or SIGTERM.
pub(crate) async fn run(args: RelayArgs, rpc_url: &str) -> Result<()> {
    let settings = RelaySettings {
        endpoint: args.endpoint.clone().unwrap_or_else(|| format!("http://{}", args.listen)),
        capacity_bytes: args.capacity,
        price_per_byte_block: args.price,
        write: !args.read_only,
        read: true,
        public: !args.unlisted,
    };
    settings.check().map_err(anyhow::Error::msg).context("invalid --endpoint or --capacity")?;
    let wallet = crate::project::wallet(args.key.as_deref())?;
    let relay = wallet.address();
    let client = Client::new(rpc_url).context("check --rpc-url or DROVER_RPC_URL")?;
    let sender = Arc::new(ChainSender { client: client.clone(), wallet: wallet.clone(), turn: Default::default() });
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    // Bound before the relay registers: once listed, a client's connection waits in the backlog
    // until the server runs instead of being refused, and a busy --listen fails before any stake
    // is sent.
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;

    let chain_id = loop {
        match register(&sender, &settings, args.stake).await {
            Ok(()) => break client.chain_info().await?.chain_id,
            Err(error) => eprintln!("relay: {error:#}; trying again in {RETRY_DELAY_MS} ms"),
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(RETRY_DELAY_MS)) => {}
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = term.recv() => return Ok(()),
        }
    };
    let server = Relay::open(
        RelayConfig::new(&args.dir, chain_id, relay, args.capacity),
        NodeDirectory::new(&client, &wallet, chain_id),
    )
    .with_context(|| format!("cannot open the relay's directory {}", args.dir.display()))?;
    let commits = CommitLoop::open(server.store(), NodeCommitter(Arc::clone(&sender)))
        .context("cannot open the relay's commit record")?;
    let sweeper = Sweeper::new(
        server.store(),
        NodeDirectory::new(&client, &wallet, chain_id),
        relay,
        Duration::from_millis(args.sweep_confirm_ms),
    );
    println!("relay {relay} serving {} on {} from {}", settings.endpoint, args.listen, args.dir.display());

    let (stop, stopped) = tokio::sync::watch::channel(false);
    let until_stopped = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    };
    let serving = tokio::spawn(server.serve(listener, until_stopped(stopped.clone())));
    let committing =
        tokio::spawn(commits.run(Duration::from_millis(args.commit_interval_ms), until_stopped(stopped.clone())));
    let sweeping =
        tokio::spawn(sweeper.run(Duration::from_millis(args.sweep_interval_ms), until_stopped(stopped.clone())));
    let heartbeats = tokio::spawn(heartbeat_loop(Arc::clone(&sender), args.heartbeat_blocks, until_stopped(stopped)));
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    let _ = stop.send(true);
    let served = serving.await.context("the server task failed")?;
    let _ = committing.await;
    let _ = sweeping.await;
    heartbeats.abort();
    served.context("the relay server failed")?;
    println!("relay {relay} stopped");
    Ok(())
}

/// Registers with `settings` and `stake`, or updates the record of a registered relay.
async fn register(sender: &ChainSender, settings: &RelaySettings, stake: u128) -> Result<()> {
    let relay = sender.wallet.address();
    match sender.send(TxBuilder::relay(&RelayCall::Register(settings.clone()), stake)).await? {
        None => println!("relay {relay} registered with a stake of {stake} base units"),
        Some(ExecCode::RelayRegistration) => {
            match sender.send(TxBuilder::relay(&RelayCall::Update(settings.clone()), 0)).await? {
                None => println!("relay {relay} was registered; its settings are updated"),
                Some(code) => bail!("the update of the relay's settings failed: {code}"),
            }
        }
        Some(code) => bail!("the registration failed: {code}"),
    }
    Ok(())
}

/// Sends a heartbeat every `every_blocks` blocks until `stopped`.
async fn heartbeat_loop(
    sender: Arc<ChainSender>,
    every_blocks: Option<u64>,
    stopped: impl std::future::Future<Output = ()>,
) {
    let mut pace = HeartbeatPace::new(every_blocks);
    let beat = async {
        // Registration counted as one.
        let mut last = sender.client.height().await.unwrap_or(0);
        loop {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let height = match sender.client.height().await {
                Ok(height) => height,
                Err(error) => {
                    eprintln!("relay: cannot read the chain height: {error}");
                    continue;
                }
            };
            if height.saturating_sub(last) < pace.blocks(&sender.client).await {
                continue;
            }
            match sender.send(TxBuilder::relay(&RelayCall::Heartbeat, 0)).await {
                Ok(None) => last = height,
                Ok(Some(code)) => eprintln!("relay: the heartbeat failed: {code}"),
                Err(error) => eprintln!("relay: the heartbeat was not sent: {error:#}"),
            }
        }
    };
    tokio::select! {
        () = beat => {}
        () = stopped => {}
    }
}
