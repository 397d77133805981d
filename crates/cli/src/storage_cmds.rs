//! `drover storage ...`: volumes on chain and the objects relays hold for them.
//!
//! `volume create|deposit|delete|undelete` sign the storage manager's call with the wallet and
//! send it through the node's authenticated `/ras/volumes...` routes (the session token is minted
//! here from the key file, for this command only), then wait for the receipt; `volume
//! list|info`, `balance` and `revocations` read the node; `stats` and `relays` read the public
//! aggregates. `volume resize` (the owner's cap on the bytes it pays for), `volume reap`,
//! `volume drop` (a relay giving a volume up) and `revoke` are ordinary transactions.
//!
//! `put|get|ls|rm` talk to the volume's relay (`drover_relay::RelayClient`), whose endpoint the
//! node names. A private volume's objects are sealed here (AES-256-GCM under a key derived from
//! the wallet's key and the volume id) before they leave, and opened here: the relay and the
//! node only ever hold ciphertext. A public volume's objects are stored as given, and `get` and
//! `ls` of a public volume need no key when `--relay-url` names the relay.

use crate::report::{Report, Text, amount_text, receipt_text, status_text};
use crate::submission::sign_and_submit;
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};
use drover_client::amount::parse_amount;
use drover_client::storage_auth::StorageSigner;
use drover_client::{Client, TxBuilder, Wallet};
use drover_relay::RelayClient;
use drover_types::system_call::SystemCall;
use drover_types::{
    H256, SecretKey,
    api::{ReceiptStatus, RelayInfo, SubmitStatus, VolumeInfo},
    storage::{StorageCall, volume_id},
};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a volume command waits for its transaction's receipt, in milliseconds.
const RECEIPT_WAIT_MS: u64 = 30_000;
/// Pause between two looks for the receipt, in milliseconds.
const RECEIPT_POLL_MS: u64 = 250;

#[derive(Debug, Subcommand)]
pub(crate) enum StorageCommand {
    /// Volumes: create, list, info, resize, deposit, delete, undelete, reap, drop.
    #[command(subcommand)]
    Volume(VolumeCommand),
    /// Store a file (or standard input) as an object of a volume.
    Put {
        volume: String,
        /// The object's key, e.g. `photos/cat.jpg`.
        object: String,
        /// The file to store (default: standard input).
        file: Option<PathBuf>,
        #[command(flatten)]
        access: Access,
    },
    /// Fetch an object of a volume.
    Get {
        volume: String,
        object: String,
        /// Write it here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        access: Access,
    },
    /// List the objects of a volume.
    Ls {
        volume: String,
        #[arg(long, default_value = "")]
        prefix: String,
        #[command(flatten)]
        access: Access,
    },
    /// Delete an object of a volume.
    Rm {
        volume: String,
        object: String,
        #[command(flatten)]
        access: Access,
    },
    /// The wallet's balance, volumes, deposits and rent per block.
    Balance {
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Refuse, from now on, every delegation token of the wallet for a session key.
    Revoke {
        /// The session key (33 bytes compressed, hex).
        session_key: String,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Totals over relays and volumes.
    Stats,
    /// Registered relays: the public ones, or those taking writes (--writable; a new volume needs
    /// one that is also healthy and not full).
    Relays {
        #[arg(long)]
        writable: bool,
        #[arg(long, default_value_t = 0)]
        offset: u64,
        #[arg(long, default_value_t = 50)]
        limit: u64,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum VolumeCommand {
    /// Create a volume held by a relay, paying the creation fee and a first deposit.
    Create {
        name: String,
        /// The relay's address (see `drover storage relays --writable`).
        #[arg(long)]
        relay: drover_types::Address,
        /// Anyone may read it through the relay (default: private, sealed client side).
        #[arg(long)]
        public: bool,
        /// Deposit rent is paid from: base units or DRV (`1drv`).
        #[arg(long, value_parser = parse_amount, default_value_t = 0)]
        deposit: u128,
        /// Most bytes the relay may charge rent on (it refuses writes past them).
        #[arg(long)]
        max_size: u64,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Set the most bytes a volume's relay may charge rent on: fewer at once, more from the next
    /// rent window.
    Resize {
        volume: String,
        #[arg(long)]
        max_size: u64,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// The wallet's volumes.
    List {
        #[arg(long, default_value_t = 0)]
        offset: u64,
        #[arg(long, default_value_t = 50)]
        limit: u64,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// One volume (by id, or by name for the key's wallet).
    Info {
        volume: String,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Add to a volume's deposit.
    Deposit {
        volume: String,
        #[arg(value_parser = parse_amount)]
        amount: u128,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Delete a volume (undeletable during its grace).
    Delete {
        volume: String,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Take back a deletion still in its grace.
    Undelete {
        volume: String,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Remove a purged volume; what is left of its deposit goes back to its owner.
    Reap {
        volume: String,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// As the volume's relay (`--key`: the relay's key), stop holding it: its rent stops and it
    /// is purged after its grace, so the relay can deregister once it is reaped.
    Drop {
        /// The volume's id (`0x` + 64 hex).
        volume: H256,
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
}

/// Who talks to the relay: the owner (`--key`), or anyone for a public volume (`--relay-url`).
#[derive(Debug, Args)]
pub(crate) struct Access {
    /// Key file of the volume's owner.
    #[arg(long)]
    key: Option<PathBuf>,
    /// The relay's URL (default: the endpoint the chain records for the volume's relay).
    #[arg(long)]
    relay_url: Option<String>,
}

/// A volume given as `0x` + 64 hex, or as a name of `owner`'s.
fn parse_volume(text: &str, owner: Option<&Wallet>) -> Result<H256> {
    if let Ok(id) = text.parse::<H256>() {
        return Ok(id);
    }
    let owner = owner.ok_or_else(|| anyhow!("{text:?} is not a volume id; give --key to name one of yours"))?;
    Ok(volume_id(&owner.address(), text))
}

/// A session for `wallet` on the node's chain, for this command.
async fn session(client: &Client, wallet: &Wallet) -> Result<StorageSigner> {
    let chain_id = client.chain_info().await.context("cannot read the chain id")?.chain_id;
    Ok(StorageSigner::issue(wallet.secret_key(), SecretKey::random(), chain_id))
}

/// The key file's wallet, a session for it, and its volume `volume` as the node records it.
async fn owned_volume(
    client: &Client,
    key: Option<&std::path::Path>,
    volume: &str,
) -> Result<(Wallet, StorageSigner, VolumeInfo)> {
    let wallet = crate::project::wallet(key)?;
    let id = parse_volume(volume, Some(&wallet))?;
    let signer = session(client, &wallet).await?;
    let info = client
        .storage_volume(&signer, &id)
        .await
        .context("cannot read the volume")?
        .ok_or_else(|| anyhow!("{} has no volume {id}", wallet.address()))?;
    Ok((wallet, signer, info))
}

fn volume_text(text: &mut Text, volume: &VolumeInfo) {
    text.field("volume", volume.volume_id)
        .field("name", &volume.name)
        .field("owner", volume.owner)
        .field("relay", volume.relay)
        .field("endpoint", volume.relay_endpoint.as_deref().unwrap_or("-"))
        .field("public", volume.public)
        .field("status", volume.status.as_str())
        .field("root", volume.root)
        .field("size", format!("{} bytes", volume.size_bytes))
        .field("max size", format!("{} bytes", volume.max_size_bytes))
        .field("billed", format!("{} bytes", volume.billed_bytes));
    if let (Some(bytes), Some(from)) = (volume.next_billed_bytes, volume.billed_bytes_from_height) {
        text.field("billed next", format!("{bytes} bytes from height {from}"));
    }
    if volume.dropped {
        text.field("dropped", "by its relay");
    }
    text.field("deposit", amount_text(volume.deposit))
        .field("rent per block", amount_text(volume.rent_per_block))
        .field("rent paid", amount_text(volume.rent_paid));
    if let Some(until) = volume.paid_until_height {
        text.field("paid until height", until);
    }
    if let Some(purge) = volume.purge_height {
        text.field("purged at height", purge);
    }
}

fn relay_text(text: &mut Text, relay: &RelayInfo) {
    text.line(format!(
        "{}  {}  {}  {}/{} bytes  {} per byte-block{}",
        relay.address,
        relay.endpoint,
        relay.health.as_str(),
        relay.used_bytes,
        relay.capacity_bytes,
        relay.price_per_byte_block,
        if relay.write { "  writes" } else { "" }
    ));
}

pub(crate) async fn run(client: &Client, command: StorageCommand) -> Result<Report> {
    let mut text = Text::default();
    match command {
        StorageCommand::Volume(command) => volume(client, command).await,
        StorageCommand::Put { volume, object, file, access } => {
            let bytes = match &file {
                Some(path) => std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
                None => {
                    let mut bytes = Vec::new();
                    std::io::stdin().read_to_end(&mut bytes).context("cannot read standard input")?;
                    bytes
                }
            };
            let (relay, info) = relay_client(client, &volume, &access).await?;
            let answer = if info.public {
                relay.put(info.volume_id, &object, bytes.clone()).await
            } else {
                relay.put_sealed(info.volume_id, &object, &bytes).await
            }
            .with_context(|| format!("the relay did not store {object:?}"))?;
            text.field("volume", info.volume_id)
                .field("object", &answer.key)
                .field("bytes", bytes.len())
                .field("stored", format!("{} bytes{}", answer.size, if info.public { "" } else { " (sealed)" }))
                .field("root", answer.root);
            Report::new(text, &answer)
        }
        StorageCommand::Get { volume, object, out, access } => {
            let (relay, info) = relay_client(client, &volume, &access).await?;
            let bytes = if info.public {
                relay.get(info.volume_id, &object).await
            } else {
                relay.get_sealed(info.volume_id, &object).await
            }
            .with_context(|| format!("cannot fetch {object:?}"))?;
            match out {
                Some(path) => {
                    std::fs::write(&path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
                    text.field("written", path.display()).field("bytes", bytes.len());
                }
                None => {
                    std::io::stdout().write_all(&bytes).context("cannot write standard output")?;
                }
            }
            Report::new(text, &serde_json::json!({"volume": info.volume_id, "object": object, "bytes": bytes.len()}))
        }
        StorageCommand::Ls { volume, prefix, access } => {
            let (relay, info) = relay_client(client, &volume, &access).await?;
            let entries = relay.list_all(info.volume_id, &prefix).await.context("cannot list the volume")?;
            text.field("volume", info.volume_id).field("objects", entries.len());
            for entry in &entries {
                text.line(format!("{}  {} bytes  {}", entry.key, entry.size, entry.content_hash));
            }
            Report::new(text, &entries)
        }
        StorageCommand::Rm { volume, object, access } => {
            let (relay, info) = relay_client(client, &volume, &access).await?;
            let answer =
                relay.delete(info.volume_id, &object).await.with_context(|| format!("cannot delete {object:?}"))?;
            text.field("deleted", &answer.key).field("root", answer.root);
            Report::new(text, &answer)
        }
        StorageCommand::Balance { key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let signer = session(client, &wallet).await?;
            let balance = client.storage_balance(&signer).await.context("cannot read the storage balance")?;
            text.field("wallet", balance.wallet)
                .field("balance", amount_text(balance.balance))
                .field("volumes", balance.volumes)
                .field("deposits", amount_text(balance.deposits))
                .field("rent per block", amount_text(balance.rent_per_block));
            Report::new(text, &balance)
        }
        StorageCommand::Revoke { session_key, key } => {
            let bytes = hex::decode(session_key.trim_start_matches("0x")).context("a session key is hex")?;
            let session_key: [u8; 33] =
                bytes.try_into().map_err(|_| anyhow!("a session key is 33 bytes (compressed secp256k1)"))?;
            let wallet = crate::project::wallet(key.as_deref())?;
            text.field("revoke", format!("0x{}", hex::encode(session_key)));
            sign_and_submit(client, &wallet, TxBuilder::storage(&StorageCall::Revoke { session_key }, 0), text, true)
                .await
        }
        StorageCommand::Stats => {
            let stats = client.storage_stats().await.context("cannot read the storage totals")?;
            text.field("height", stats.height)
                .field("relays", stats.relays)
                .field("capacity", format!("{} bytes", stats.capacity_bytes))
                .field("volumes", stats.volumes)
                .field("stored", format!("{} bytes", stats.bytes))
                .field("deposits", amount_text(stats.deposits))
                .field("rent paid", amount_text(stats.rent_paid))
                .field("fees burned", amount_text(stats.fees_burned));
            Report::new(text, &stats)
        }
        StorageCommand::Relays { writable, offset, limit } => {
            let list = if writable {
                client.storage_write_relayers(offset, limit).await
            } else {
                client.storage_public_relays(offset, limit).await
            }
            .context("cannot list relays")?;
            text.field("relays", list.total_count);
            for relay in &list.relays {
                relay_text(&mut text, relay);
            }
            Report::new(text, &list)
        }
    }
}

async fn volume(client: &Client, command: VolumeCommand) -> Result<Report> {
    let mut text = Text::default();
    let (wallet, call, value) = match command {
        VolumeCommand::List { offset, limit, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let signer = session(client, &wallet).await?;
            let list = client.storage_volumes(&signer, offset, limit).await.context("cannot list the volumes")?;
            text.field("owner", wallet.address()).field("volumes", list.total_count);
            for volume in &list.volumes {
                text.line(format!(
                    "{}  {}  {}  {} bytes  deposit {}",
                    volume.volume_id,
                    volume.name,
                    volume.status.as_str(),
                    volume.size_bytes,
                    volume.deposit
                ));
            }
            return Report::new(text, &list);
        }
        VolumeCommand::Info { volume, key } => {
            let (_, _, info) = owned_volume(client, key.as_deref(), &volume).await?;
            volume_text(&mut text, &info);
            return Report::new(text, &info);
        }
        VolumeCommand::Create { name, relay, public, deposit, max_size, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let fee = client
                .governance_params()
                .await
                .context("cannot read the volume creation fee")?
                .value("volume_creation_fee")
                .ok_or_else(|| anyhow!("the node does not list volume_creation_fee"))?;
            let value = fee.checked_add(deposit).ok_or_else(|| anyhow!("the deposit is too large"))?;
            text.field("volume", volume_id(&wallet.address(), &name))
                .field("name", &name)
                .field("fee", amount_text(fee))
                .field("deposit", amount_text(deposit))
                .field("max size", format!("{max_size} bytes"));
            (wallet, StorageCall::Create { name, relay, public, max_size_bytes: max_size }, value)
        }
        VolumeCommand::Resize { volume, max_size, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let id = parse_volume(&volume, Some(&wallet))?;
            text.field("resize", id).field("max size", format!("{max_size} bytes"));
            let call = StorageCall::Resize { volume: id, max_size_bytes: max_size };
            return sign_and_submit(client, &wallet, TxBuilder::storage(&call, 0), text, true).await;
        }
        VolumeCommand::Drop { volume, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            text.field("drop", volume);
            let call = StorageCall::Drop { volume };
            return sign_and_submit(client, &wallet, TxBuilder::storage(&call, 0), text, true).await;
        }
        VolumeCommand::Deposit { volume, amount, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let id = parse_volume(&volume, Some(&wallet))?;
            text.field("volume", id).field("deposit", amount_text(amount));
            (wallet, StorageCall::Deposit { volume: id }, amount)
        }
        VolumeCommand::Delete { volume, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let id = parse_volume(&volume, Some(&wallet))?;
            text.field("delete", id);
            (wallet, StorageCall::Delete { volume: id }, 0)
        }
        VolumeCommand::Undelete { volume, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let id = parse_volume(&volume, Some(&wallet))?;
            text.field("undelete", id);
            (wallet, StorageCall::Undelete { volume: id }, 0)
        }
        VolumeCommand::Reap { volume, key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let id = parse_volume(&volume, Some(&wallet))?;
            text.field("reap", id);
            return sign_and_submit(
                client,
                &wallet,
                TxBuilder::storage(&StorageCall::Reap { volume: id }, 0),
                text,
                true,
            )
            .await;
        }
    };
    send_through_ras(client, &wallet, call, value, text).await
}

/// Signs `call` and sends it through its authenticated `/ras/volumes...` route, then waits for
/// its receipt.
async fn send_through_ras(
    client: &Client,
    wallet: &Wallet,
    call: StorageCall,
    value: u128,
    mut text: Text,
) -> Result<Report> {
    let builder = TxBuilder::storage(&call, value);
    let context = builder
        .fetch_context(client, wallet.address())
        .await
        .context("cannot prepare the transaction (chain id, nonce or fees)")?;
    let tx = builder.sign(&context, wallet)?;
    let hash = tx.hash();
    text.field("from", wallet.address()).field("nonce", tx.nonce).field("hash", hash);
    let signer = session(client, wallet).await?;
    let answer = match &call {
        StorageCall::Create { .. } => client.storage_create_volume(&signer, &tx).await,
        StorageCall::Deposit { volume } => client.storage_deposit(&signer, volume, &tx).await,
        StorageCall::Delete { volume } => client.storage_delete_volume(&signer, volume, &tx).await,
        StorageCall::Undelete { volume } => client.storage_undelete_volume(&signer, volume, &tx).await,
        other => bail!("{} has no /ras route", other.handler()),
    }
    .context("the node did not take the transaction")?;
    let result = answer.results.iter().find(|r| r.hash == hash);
    if result.map(|r| r.status) != Some(SubmitStatus::Accepted) {
        let message = result.and_then(|r| r.message.clone()).or(answer.message.clone()).unwrap_or_default();
        bail!("the node refused transaction {hash}: {message}");
    }
    let deadline = Instant::now() + Duration::from_millis(RECEIPT_WAIT_MS);
    let receipt = loop {
        if let Some(receipt) = client.receipt(&hash).await.context("cannot read the receipt")? {
            break receipt;
        }
        if Instant::now() > deadline {
            text.field("status", "pending: not included yet").line(format!("Check later with: drover tx {hash}"));
            return Report::new(text, &answer);
        }
        tokio::time::sleep(Duration::from_millis(RECEIPT_POLL_MS)).await;
    };
    receipt_text(&mut text, &receipt);
    let mut report = Report::new(text, &receipt)?;
    if receipt.status != ReceiptStatus::Success {
        report.failure = Some(format!("transaction {hash} was included but {}", status_text(receipt.status)));
    }
    Ok(report)
}

/// A client of `volume`'s relay for `access`, and the volume (read from the node with the
/// owner's key; without one, a public volume at `--relay-url`).
async fn relay_client(client: &Client, volume: &str, access: &Access) -> Result<(RelayClient, VolumeInfoLite)> {
    let Some(key) = &access.key else {
        let url = access.relay_url.as_deref().ok_or_else(|| anyhow!("give --key (the owner) or --relay-url"))?;
        let id = parse_volume(volume, None)?;
        let relay = RelayClient::anonymous(url).context("invalid --relay-url")?;
        return Ok((relay, VolumeInfoLite { volume_id: id, public: true }));
    };
    let (wallet, signer, info) = owned_volume(client, Some(key), volume).await?;
    let url = match (&access.relay_url, &info.relay_endpoint) {
        (Some(url), _) => url.clone(),
        (None, Some(endpoint)) => endpoint.clone(),
        (None, None) => bail!("the volume's relay {} is not registered any more", info.relay),
    };
    let relay = RelayClient::new(&url, &info.relay, signer.token().chain_id, wallet.secret_key().clone())
        .with_context(|| format!("invalid relay endpoint {url}"))?;
    Ok((relay, VolumeInfoLite { volume_id: info.volume_id, public: info.public }))
}

/// What object commands need to know of a volume.
struct VolumeInfoLite {
    volume_id: H256,
    public: bool,
}
