//! Client subcommands: keys, status, faucet, transfer, reads of accounts, transactions and
//! blocks, actors (`deploy`, `call`, `read`, `actor`, in [`crate::actor_cmds`]), tokens
//! ([`crate::token_cmds`]), runners and delegations ([`crate::runner_cmds`]), jobs
//! ([`crate::job_cmds`]), governance ([`crate::gov_cmds`]), history, blocks, events, streams
//! and simulation ([`crate::explore_cmds`]), and `verify`
//! (fetch a proof and check it against the genesis group key), all over a node's HTTP API
//! through `drover-client`; [`run`] dispatches them.
//!
//! Every command produces a [`Report`] with two renderings: human-readable text (the default)
//! and, with `--json`, the API's own JSON records (wrapped in a small object where a command combines
//! several). Arguments are parsed by clap into typed values (addresses, hashes, exact amounts),
//! so bad input is refused with a message before any request is sent. Refusals by the node show
//! its error name, code and message. Output is written in one piece and a closed stdout is an
//! error, not a panic.

use crate::{
    report::{Report, Text, amount_text, format_duration, health_word, receipt_text, timestamp_with_age, unix_now},
    submission::submit_and_report,
};
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use drover_client::amount::parse_amount;
use drover_client::verify::{self, Identity};
use drover_client::{BlockSelector, BlockSelectorParseError, Client, TxBuilder, Wallet};
use drover_node::genesis::Genesis;
use drover_types::api::{
    AccountInfo, BlockInfo, ChainInfo, HealthDetailed, ReceiptInfo, TransactionInfo, TransactionState,
};
use drover_types::{Address, H256};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum ClientCommand {
    /// Create account keys or show their address.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Show the node's chain, finalized height and health.
    Status,
    /// Fund an address from the node's faucet (development networks only).
    Faucet {
        /// Address to fund (40 hex digits, 0x optional; default: the default key's).
        address: Option<Address>,
        /// Key file whose address is funded when no address is given (default: `DROVER_KEY`,
        /// then the project's `.drover/config.toml`).
        #[arg(long, conflicts_with = "address")]
        key: Option<PathBuf>,
    },
    /// Send native currency from a key file's account.
    Transfer(TransferArgs),
    /// Show an account's nonce and balance (`null` in JSON for an address without state).
    Account {
        /// Address to read (40 hex digits, 0x optional).
        address: Address,
    },
    /// Show a transaction with its receipt once included, or its pending status.
    Tx {
        /// Transaction hash (64 hex digits, 0x optional).
        hash: H256,
    },
    /// Show a finalized block.
    Block {
        /// `latest`, a height, or a block hash.
        #[arg(default_value = "latest", value_parser = parse_block_selector)]
        selector: BlockSelector,
    },
    /// Deploy an actor (WebAssembly binary or text, or a Rust actor crate's directory).
    Deploy(crate::actor_cmds::DeployArgs),
    /// Replace an actor's code (owner only; the manifest may only narrow).
    Upgrade(crate::actor_cmds::UpgradeArgs),
    /// Call an actor's handler in a transaction.
    Call(crate::actor_cmds::CallArgs),
    /// Run an actor's handler read-only (no transaction, nothing written).
    Read(crate::actor_cmds::ReadArgs),
    /// Show an actor (`actor ADDRESS [VIEW]`: summary, code, storage, logs, runs, mailbox,
    /// timers or history), or develop one in Rust: `actor new`, `actor build`, `actor address`.
    Actor(crate::actor_cmds::ActorArgs),
    /// Fetch a proof and print the value only if it verifies against the genesis group key.
    #[command(subcommand)]
    Verify(VerifyCommand),
    /// Native tokens: create, read, transfer, approve, mint, burn, freeze.
    #[command(subcommand)]
    Token(crate::token_cmds::TokenCommand),
    /// Account libraries: publish, info, remove.
    #[command(subcommand)]
    Library(crate::library_cmds::LibraryCommand),
    /// Storage volumes on chain and their objects at relays: volume, put, get, ls, rm, stats.
    #[command(subcommand)]
    Storage(crate::storage_cmds::StorageCommand),
    /// Secrets stored encrypted on chain: set, get, list, grant, revoke, delete, pubkey.
    #[command(subcommand)]
    Secrets(crate::secrets_cmds::SecretsCommand),
    /// Chain parameters and governance: params, proposals, proposal, lock, unlock, propose,
    /// vote, execute.
    #[command(subcommand)]
    Gov(crate::gov_cmds::GovCommand),
    /// Jobs bought from runners: submit, status, results, verified, cancel.
    #[command(subcommand)]
    Job(crate::job_cmds::JobCommand),
    /// List the registered runners (with their health), show one, or list an account's delegations.
    Runners(crate::runner_cmds::RunnersArgs),
    /// Delegate DRV to a runner (adds to its selection weight).
    Delegate(crate::runner_cmds::DelegationArgs),
    /// Undelegate DRV from a runner; it unbonds before `withdraw` pays it back.
    Undelegate(crate::runner_cmds::DelegationArgs),
    /// Take back stake or delegations that finished unbonding with a runner.
    Withdraw(crate::runner_cmds::WithdrawArgs),
    /// List the entitlement registry, or check a manifest file against it.
    Entitlements(crate::actor_cmds::EntitlementsArgs),
    /// An account's transactions, sent and received, newest first.
    History(crate::explore_cmds::HistoryArgs),
    /// Recent finalized blocks, newest first.
    Blocks(crate::explore_cmds::BlocksArgs),
    /// Events across emitters, by emitter, topic and height range.
    Events(crate::explore_cmds::EventsArgs),
    /// Follow blocks, a transaction or events live (server-sent events, resumed when closed).
    #[command(subcommand)]
    Watch(crate::explore_cmds::WatchCommand),
    /// What a transfer, a call or a deploy would do, without sending it.
    #[command(subcommand)]
    Simulate(crate::explore_cmds::SimulateCommand),
}

/// What `verify` proves. The node is not trusted: the value is printed only after the
/// certificate, block digest, root and Merkle proof all check out.
#[derive(Debug, Subcommand)]
pub(crate) enum VerifyCommand {
    /// An account (or its absence) in the latest finalized state.
    Account {
        address: Address,
        #[command(flatten)]
        trust: Trust,
    },
    /// An actor record (or its absence) in the latest finalized state.
    Actor {
        address: Address,
        #[command(flatten)]
        trust: Trust,
    },
    /// An actor storage slot (or its absence) in the latest finalized state.
    Storage {
        address: Address,
        /// The actor's storage key, hex (0x optional).
        key: String,
        #[command(flatten)]
        trust: Trust,
    },
    /// A transaction's inclusion in its finalized block.
    Tx {
        hash: H256,
        #[command(flatten)]
        trust: Trust,
    },
    /// A transaction's receipt in its finalized block.
    Receipt {
        hash: H256,
        #[command(flatten)]
        trust: Trust,
    },
}

#[derive(Debug, Args)]
pub(crate) struct Trust {
    /// Genesis file of the network: its `identity` (group public key) is all that is trusted.
    #[arg(long)]
    genesis: PathBuf,
}

#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Generate a new secp256k1 account key.
    New {
        /// Write the key to this new file (mode 0600) instead of printing it.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Show the address of a key file, and where the default key comes from.
    Show {
        /// Key file: 64 hex digits, 0x optional, as an Ethereum private key (default: `DROVER_KEY`,
        /// then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// Write a key file from an Ethereum private key or a BIP-39 mnemonic read from standard
    /// input (never from the command line, which shells keep in their history).
    Import {
        /// Write the key to this new file (mode 0600).
        #[arg(long)]
        out: PathBuf,
        /// For a mnemonic: the account index of the Ethereum path m/44'/60'/0'/0/INDEX (the
        /// accounts wallets list first).
        #[arg(long, default_value_t = 0)]
        index: u32,
    },
    /// Make a key file the default for commands run in this directory and below
    /// (`.drover/config.toml`).
    Use {
        /// The key file (a relative path is kept relative to this directory).
        key: PathBuf,
    },
}

#[derive(Debug, Args)]
pub(crate) struct TransferArgs {
    /// Key file of the sending account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Receiving address.
    #[arg(long)]
    to: Address,
    /// Base units (e.g. 1500), or whole DRV with a suffix (e.g. 1.5drv).
    #[arg(long, value_parser = parse_amount)]
    amount: u128,
    /// Wait for the transaction to be included and show its outcome.
    #[arg(long)]
    wait: bool,
    /// Max fee per cycle in base units (default: the node's suggestion).
    #[arg(long)]
    max_fee_per_cycle: Option<u128>,
    /// Tip per cycle in base units (default: the node's suggestion).
    #[arg(long)]
    tip_per_cycle: Option<u128>,
    /// Nonce (default: the account's next nonce at the latest finalized block).
    #[arg(long)]
    nonce: Option<u64>,
}

/// Runs a client command against the node at `rpc_url` (`--rpc-url` or `DROVER_RPC_URL`, else
/// the project's: see [`crate::project::rpc_url`]); `json` selects the JSON rendering.
pub(crate) async fn run(cmd: ClientCommand, rpc_url: Option<String>, json: bool) -> Result<()> {
    // Only a command that talks to a node looks for a project's config: `keys` works whatever
    // lies above the working directory.
    let connect = || {
        let url = crate::project::rpc_url(rpc_url.clone())?;
        Client::new(&url).context("check --rpc-url, DROVER_RPC_URL or the project's rpc_url")
    };
    let report = match cmd {
        ClientCommand::Keys(keys) => keys_command(keys)?,
        ClientCommand::Status => status(&connect()?).await?,
        ClientCommand::Faucet { address, key } => {
            let address = match address {
                Some(address) => address,
                None => crate::project::wallet(key.as_deref())?.address(),
            };
            faucet(&connect()?, address).await?
        }
        ClientCommand::Transfer(args) => transfer(&connect()?, args).await?,
        ClientCommand::Account { address } => account(&connect()?, address).await?,
        ClientCommand::Tx { hash } => transaction(&connect()?, hash).await?,
        ClientCommand::Block { selector } => block(&connect()?, selector).await?,
        ClientCommand::Verify(what) => verify(&connect()?, what).await?,
        ClientCommand::Deploy(args) => crate::actor_cmds::deploy(&connect()?, args).await?,
        ClientCommand::Upgrade(args) => crate::actor_cmds::upgrade(&connect()?, args).await?,
        ClientCommand::Call(args) => crate::actor_cmds::call(&connect()?, args).await?,
        ClientCommand::Read(args) => crate::actor_cmds::read(&connect()?, args).await?,
        ClientCommand::Actor(args) => match (args.develop, args.address) {
            (Some(command), _) => crate::actor_dev::run(&connect()?, command).await?,
            (None, Some(address)) => crate::actor_cmds::actor(&connect()?, address, args.view).await?,
            (None, None) => bail!("give an actor's address, or new, build or address"),
        },
        ClientCommand::Token(cmd) => crate::token_cmds::run(&connect()?, cmd).await?,
        ClientCommand::Job(cmd) => crate::job_cmds::run(&connect()?, cmd).await?,
        ClientCommand::Gov(cmd) => crate::gov_cmds::run(&connect()?, cmd).await?,
        ClientCommand::Secrets(cmd) => crate::secrets_cmds::run(&connect()?, cmd).await?,
        ClientCommand::Storage(cmd) => crate::storage_cmds::run(&connect()?, cmd).await?,
        ClientCommand::Library(cmd) => crate::library_cmds::run(&connect()?, cmd).await?,
        ClientCommand::Runners(args) => crate::runner_cmds::runners(&connect()?, args).await?,
        ClientCommand::Delegate(args) => crate::runner_cmds::delegate(&connect()?, args).await?,
        ClientCommand::Undelegate(args) => crate::runner_cmds::undelegate(&connect()?, args).await?,
        ClientCommand::Withdraw(args) => crate::runner_cmds::withdraw(&connect()?, args).await?,
        ClientCommand::Entitlements(args) => crate::actor_cmds::entitlements(&connect()?, args).await?,
        ClientCommand::History(args) => crate::explore_cmds::history(&connect()?, args).await?,
        ClientCommand::Blocks(args) => crate::explore_cmds::blocks(&connect()?, args).await?,
        ClientCommand::Events(args) => crate::explore_cmds::events(&connect()?, args).await?,
        ClientCommand::Watch(cmd) => return crate::explore_cmds::watch(&connect()?, cmd, json).await,
        ClientCommand::Simulate(cmd) => crate::explore_cmds::simulate(&connect()?, cmd).await?,
    };
    report.print(json)
}

#[derive(Serialize)]
struct NewKey<'a> {
    address: Address,
    #[serde(skip_serializing_if = "Option::is_none")]
    private_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_file: Option<&'a std::path::Path>,
}

#[derive(Serialize)]
struct KeyAddress {
    address: Address,
}

/// A block selector as typed on the command line, where stray spaces from quoting are forgiven.
fn parse_block_selector(text: &str) -> Result<BlockSelector, BlockSelectorParseError> {
    text.trim().parse()
}

fn keys_command(cmd: KeysCommand) -> Result<Report> {
    match cmd {
        KeysCommand::New { out } => {
            let wallet = Wallet::generate();
            let mut text = Text::default();
            text.field("address", wallet.address());
            let record = match &out {
                Some(path) => {
                    wallet.save(path)?;
                    text.field("key file", path.display());
                    NewKey { address: wallet.address(), private_key: None, key_file: Some(path) }
                }
                None => {
                    let private_key = wallet.secret_key().to_hex();
                    text.field("private key", &private_key);
                    text.line("Keep the private key secret: anyone holding it controls the account.");
                    NewKey { address: wallet.address(), private_key: Some(private_key), key_file: None }
                }
            };
            Report::new(text, &record)
        }
        KeysCommand::Show { key } => {
            let source = crate::project::default_key(key.as_deref())?;
            let wallet =
                Wallet::load(source.path()).with_context(|| format!("cannot load the key {}", source.describe()))?;
            let mut text = Text::default();
            text.field("address", wallet.address()).field("key file", source.describe());
            Report::new(text, &KeyAddress { address: wallet.address() })
        }
        KeysCommand::Import { out, index } => {
            let mut secret = String::new();
            std::io::Read::read_to_string(
                &mut std::io::Read::take(std::io::stdin(), SECRET_INPUT_MAX_BYTES),
                &mut secret,
            )
            .context("cannot read the key from standard input")?;
            let wallet = import_key(&secret, index)?;
            wallet.save(&out)?;
            let mut text = Text::default();
            text.field("address", wallet.address()).field("key file", out.display());
            Report::new(text, &NewKey { address: wallet.address(), private_key: None, key_file: Some(&out) })
        }
        KeysCommand::Use { key } => {
            let wallet = Wallet::load(&key).with_context(|| format!("cannot load the key {}", key.display()))?;
            let cwd = std::env::current_dir().context("cannot read the working directory")?;
            let existing = cwd.join(crate::project::PROJECT_DIR).join(crate::project::CONFIG_FILE);
            let mut config = if existing.is_file() {
                crate::project::ProjectConfig::load(&existing)?
            } else {
                crate::project::ProjectConfig::default()
            };
            config.key = Some(key.clone());
            let path = config.save(&cwd)?;
            let mut text = Text::default();
            text.field("address", wallet.address()).field("key file", key.display()).field("config", path.display());
            Report::new(text, &KeyAddress { address: wallet.address() })
        }
    }
}

/// Most bytes `keys import` reads from standard input: a mnemonic of 24 words is under 250.
const SECRET_INPUT_MAX_BYTES: u64 = 1_024;
/// Words of the shortest BIP-39 mnemonic.
const MNEMONIC_WORDS_MIN: usize = 12;

/// A wallet from an Ethereum private key (64 hex digits, `0x` optional) or a BIP-39 mnemonic
/// (English), derived at m/44'/60'/0'/0/`index` as Ethereum wallets do.
fn import_key(secret: &str, index: u32) -> Result<Wallet> {
    let words: Vec<&str> = secret.split_whitespace().collect();
    if words.len() < MNEMONIC_WORDS_MIN {
        if index != 0 {
            bail!("--index is for mnemonics; a private key is one account");
        }
        return Wallet::from_hex(secret.trim()).context("not a private key (64 hex digits) nor a mnemonic");
    }
    let phrase = words.join(" ").to_lowercase();
    let mnemonic = bip39::Mnemonic::parse_in_normalized(bip39::Language::English, &phrase)
        .map_err(|e| anyhow::anyhow!("not a valid BIP-39 mnemonic: {e}"))?;
    let path: bip32::DerivationPath =
        format!("m/44'/60'/0'/0/{index}").parse().map_err(|e| anyhow::anyhow!("bad account index: {e}"))?;
    let key = bip32::XPrv::derive_from_path(mnemonic.to_seed(""), &path)
        .map_err(|e| anyhow::anyhow!("cannot derive the key: {e}"))?;
    let bytes: [u8; 32] = key.private_key().to_bytes().into();
    Ok(Wallet::new(drover_types::SecretKey::from_bytes(&bytes).context("the derived key is not valid")?))
}

#[derive(Serialize)]
struct StatusRecord<'a> {
    chain_info: &'a ChainInfo,
    height: u64,
    health: &'a HealthDetailed,
}

async fn status(client: &Client) -> Result<Report> {
    let (info, height, health) = tokio::try_join!(client.chain_info(), client.height(), client.health_detailed())
        .with_context(|| format!("cannot read the status of {}", client.base_url()))?;
    let mut text = Text::default();
    text.field("node", client.base_url())
        .field("network", format!("{} (chain id {})", info.network, info.chain_id))
        .field("genesis", info.genesis_hash)
        .field("version", &health.version)
        .field("height", height)
        .field("last block", timestamp_with_age(health.last_block_timestamp, unix_now()))
        .field(
            "health",
            format!(
                "{} (storage {}, mempool {}, rpc {})",
                health_word(health.status),
                health_word(health.components.storage),
                health_word(health.components.mempool),
                health_word(health.components.rpc)
            ),
        )
        .field(
            "mempool",
            format!("{} transactions from {} accounts", health.mempool_transaction_count, health.mempool_account_count),
        )
        .field("uptime", format_duration(health.uptime_seconds));
    Report::new(text, &StatusRecord { chain_info: &info, height, health: &health })
}

/// How long `faucet` waits for its transaction to be included, in ms.
const FAUCET_WAIT_MS: u64 = 30_000;
/// How often `faucet` looks for the receipt, in ms.
const FAUCET_POLL_MS: u64 = 100;

/// Funds `address` and waits until the funding is in a finalized block, so that the next
/// command can spend it.
async fn faucet(client: &Client, address: Address) -> Result<Report> {
    let funded = client.faucet(&address).await.with_context(|| format!("the faucet did not fund {address}"))?;
    let mut text = Text::default();
    text.field("funded", funded.address)
        .field("amount", amount_text(funded.amount))
        .field("transaction", funded.tx_hash);
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(FAUCET_WAIT_MS);
    loop {
        if let Some(receipt) = client.receipt(&funded.tx_hash).await.context("cannot read the funding's receipt")? {
            text.field("block", receipt.block_height);
            break;
        }
        if std::time::Instant::now() >= deadline {
            text.line(format!("Not included yet; check with: drover tx {}", funded.tx_hash));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(FAUCET_POLL_MS)).await;
    }
    Report::new(text, &funded)
}

async fn transfer(client: &Client, args: TransferArgs) -> Result<Report> {
    let wallet = crate::project::wallet(args.key.as_deref())?;
    let mut builder = TxBuilder::transfer(args.to, args.amount);
    if let Some(fee) = args.max_fee_per_cycle {
        builder = builder.max_fee_per_cycle(fee);
    }
    if let Some(tip) = args.tip_per_cycle {
        builder = builder.tip_per_cycle(tip);
    }
    if let Some(nonce) = args.nonce {
        builder = builder.nonce(nonce);
    }
    let context = builder
        .fetch_context(client, wallet.address())
        .await
        .context("cannot prepare the transfer (chain id, nonce or fees)")?;
    let tx = builder.sign(&context, &wallet)?;
    let hash = tx.hash();
    let mut text = Text::default();
    text.field("from", wallet.address())
        .field("to", args.to)
        .field("amount", amount_text(args.amount))
        .field("nonce", tx.nonce)
        .field("max fee", format!("{} per cycle (tip {})", tx.max_fee_per_cycle, tx.tip_per_cycle))
        .field("hash", hash);
    submit_and_report(client, &tx, text, args.wait).await
}

async fn account(client: &Client, address: Address) -> Result<Report> {
    let info = client.account(&address).await.with_context(|| format!("cannot read account {address}"))?;
    let mut text = Text::default();
    text.field("address", address);
    match &info {
        Some(AccountInfo { nonce, balance, .. }) => {
            text.field("nonce", nonce).field("balance", amount_text(*balance));
        }
        None => {
            text.field("state", "none (nonce 0, balance 0)");
        }
    }
    Report::new(text, &info)
}

/// The trusted group key of the network defined by the genesis file at `path`.
fn trusted_identity(path: &std::path::Path) -> Result<Identity> {
    let genesis = Genesis::load(path).with_context(|| format!("cannot load the genesis file {}", path.display()))?;
    Ok(genesis.identity)
}

#[derive(Serialize)]
struct VerifiedRecord {
    kind: &'static str,
    verified: bool,
    height: u64,
    block_hash: H256,
    #[serde(flatten)]
    value: serde_json::Value,
}

async fn verify(client: &Client, what: VerifyCommand) -> Result<Report> {
    let mut text = Text::default();
    let (kind, block, value) = match what {
        VerifyCommand::Account { address, trust } => {
            let identity = trusted_identity(&trust.genesis)?;
            let proof = client.proof_account(&address, None).await.context("cannot fetch the proof")?;
            let verified = verify::verify_account(&proof, &identity, &address).context("the proof does not verify")?;
            text.field("address", address);
            match verified.account {
                Some(account) => text.field("nonce", account.nonce).field("balance", amount_text(account.balance)),
                None => text.field("state", "none (absence proven)"),
            };
            let value = serde_json::json!({"address": address, "account": verified.account.map(|a| {
                serde_json::json!({"nonce": a.nonce, "balance": a.balance})
            })});
            ("account", verified.block, value)
        }
        VerifyCommand::Actor { address, trust } => {
            let identity = trusted_identity(&trust.genesis)?;
            let proof = client.proof_actor(&address, None).await.context("cannot fetch the proof")?;
            let verified = verify::verify_actor(&proof, &identity, &address).context("the proof does not verify")?;
            text.field("address", address);
            let value = state_value_text(&mut text, verified.value.as_deref());
            ("actor", verified.block, serde_json::json!({"address": address, "value": value}))
        }
        VerifyCommand::Storage { address, key, trust } => {
            let slot =
                drover_types::hexfmt::decode(&key).with_context(|| format!("storage key is not hex: {key:?}"))?;
            let identity = trusted_identity(&trust.genesis)?;
            let proof = client.proof_storage(&address, &slot, None).await.context("cannot fetch the proof")?;
            let verified =
                verify::verify_storage(&proof, &identity, &address, &slot).context("the proof does not verify")?;
            text.field("address", address).field("key", format!("0x{}", hex::encode(&slot)));
            let value = state_value_text(&mut text, verified.value.as_deref());
            let key = format!("0x{}", hex::encode(&slot));
            ("storage", verified.block, serde_json::json!({"address": address, "key": key, "value": value}))
        }
        VerifyCommand::Tx { hash, trust } => {
            let identity = trusted_identity(&trust.genesis)?;
            let proof = client
                .proof_tx(&hash)
                .await
                .context("cannot fetch the proof")?
                .with_context(|| format!("no finalized block includes transaction {hash}"))?;
            let verified = verify::verify_tx(&proof, &identity, &hash).context("the proof does not verify")?;
            text.field("hash", hash).field("index", verified.index);
            text.field("nonce", verified.tx.nonce).field("value", amount_text(verified.tx.value));
            if let Some(to) = verified.tx.to {
                text.field("to", to);
            }
            let record = serde_json::json!({"hash": hash, "index": verified.index, "nonce": verified.tx.nonce,
                "to": verified.tx.to, "value": verified.tx.value.to_string()});
            ("tx", verified.block, record)
        }
        VerifyCommand::Receipt { hash, trust } => {
            let identity = trusted_identity(&trust.genesis)?;
            let proof = client
                .proof_receipt(&hash)
                .await
                .context("cannot fetch the proof")?
                .with_context(|| format!("no finalized block includes transaction {hash}"))?;
            let verified = verify::verify_receipt(&proof, &identity, &hash).context("the proof does not verify")?;
            let receipt = ReceiptInfo::from(&verified.receipt);
            receipt_text(&mut text, &receipt);
            ("receipt", verified.block, serde_json::to_value(&receipt).context("cannot encode the receipt")?)
        }
    };
    text.field("proven at", format!("block {} ({})", block.height, block.hash));
    text.field("verified", "certificate, block digest, root, requested record and proof check out");
    Report::new(text, &VerifiedRecord { kind, verified: true, height: block.height, block_hash: block.hash, value })
}

/// Prints a proven state value (or proven absence); answers it as base64 for JSON.
fn state_value_text(text: &mut Text, value: Option<&[u8]>) -> Option<String> {
    use base64::Engine as _;
    match value {
        Some(bytes) => {
            text.field("value", format!("0x{}", hex::encode(bytes)));
            Some(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        None => {
            text.field("value", "none (absence proven)");
            None
        }
    }
}

#[derive(Serialize)]
struct TransactionRecord<'a> {
    transaction: &'a TransactionInfo,
    receipt: Option<&'a ReceiptInfo>,
}

async fn transaction(client: &Client, hash: H256) -> Result<Report> {
    let context = || format!("cannot read transaction {hash}");
    let (tx, receipt) = match client.transaction(&hash).await.with_context(context)? {
        Some(tx) => {
            let receipt = client.receipt(&hash).await.with_context(context)?;
            (tx, receipt)
        }
        None => match client.pending_transaction(&hash).await.with_context(context)? {
            Some(tx) => (tx, None),
            None => bail!("transaction {hash} is unknown to the node: neither in a finalized block nor pending"),
        },
    };
    let mut text = Text::default();
    text.field("hash", tx.hash);
    match (tx.status, tx.block_height, tx.index) {
        (TransactionState::Included, Some(height), Some(index)) => {
            text.field("state", format!("included in block {height} at index {index}"))
        }
        (TransactionState::Included, _, _) => text.field("state", "included"),
        (TransactionState::Pending, _, _) => text.field("state", "pending in the mempool"),
    };
    text.field("from", tx.from)
        .field("to", tx.to.map_or_else(|| "none (actor deploy)".to_owned(), |to| to.to_string()))
        .field("value", amount_text(tx.value))
        .field("nonce", tx.nonce)
        .field("chain id", tx.chain_id)
        .field("limits", format!("{} cycles, {} cells", tx.cycles_limit, tx.cells_limit))
        .field("max fees", format!("{} per cycle, {} per cell", tx.max_fee_per_cycle, tx.max_fee_per_cell))
        .field("tips", format!("{} per cycle, {} per cell", tx.tip_per_cycle, tx.tip_per_cell))
        .field("payload", format!("{} bytes", tx.payload.len()));
    if let Some(receipt) = &receipt {
        receipt_text(&mut text, receipt);
    }
    Report::new(text, &TransactionRecord { transaction: &tx, receipt: receipt.as_ref() })
}

async fn block(client: &Client, selector: BlockSelector) -> Result<Report> {
    let Some(block) = client.block(selector).await.with_context(|| format!("cannot read block {selector}"))? else {
        bail!("no finalized block matches {selector}");
    };
    let BlockInfo { height, hash, parent_hash, timestamp, proposer, view, .. } = &block;
    let mut text = Text::default();
    text.field("height", height)
        .field("hash", hash)
        .field("parent", parent_hash)
        .field("time", timestamp_with_age(*timestamp, unix_now()))
        .field("proposer", proposer)
        .field("view", view)
        .field("state root", block.state_root)
        .field("txs root", block.transactions_root)
        .field("receipts root", block.receipts_root)
        .field("used", format!("{} cycles, {} cells", block.cycles_used, block.cells_used))
        .field("basefees", format!("{} per cycle, {} per cell", block.basefee_cycle, block.basefee_cell))
        .field("finalized", if block.finalization.is_some() { "certificate known" } else { "certificate not held" })
        .field("transactions", block.transactions.len());
    for tx in &block.transactions {
        text.line(format!("  {tx}"));
    }
    Report::new(text, &block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches, Parser};

    #[derive(Debug, Parser)]
    struct Harness {
        #[command(subcommand)]
        command: ClientCommand,
    }

    fn parse(args: &[&str]) -> Result<ClientCommand, clap::Error> {
        let matches = Harness::command().try_get_matches_from(std::iter::once("drover").chain(args.iter().copied()))?;
        Harness::from_arg_matches(&matches).map(|h| h.command)
    }

    const ADDRESS: &str = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf";

    #[test]
    fn actor_commands_parse_and_refuse_two_payload_forms() {
        let cmd =
            parse(&["deploy", "counter.wat", "--key", "k", "--manifest", "storage.kv,econ.transfer", "--salt", "s"])
                .unwrap();
        assert!(matches!(cmd, ClientCommand::Deploy(_)));
        let cmd = parse(&["upgrade", ADDRESS, "echo.wasm", "--key", "k", "--manifest", "events.emit"]).unwrap();
        assert!(matches!(cmd, ClientCommand::Upgrade(_)));
        let cmd =
            parse(&["call", ADDRESS, "increment", "--key", "k", "--payload-json", "{}", "--value", "1drv"]).unwrap();
        assert!(matches!(cmd, ClientCommand::Call(_)));
        assert!(matches!(parse(&["read", ADDRESS, "get"]), Ok(ClientCommand::Read(_))));
        assert!(matches!(parse(&["read", ADDRESS, "echo", "--text", "hi"]), Ok(ClientCommand::Read(_))));
        assert!(parse(&["read", ADDRESS, "echo", "--text", "hi", "--hex", "00"]).is_err());
        let view_of = |args: &[&str]| match parse(args) {
            Ok(ClientCommand::Actor(crate::actor_cmds::ActorArgs { develop: None, address: Some(_), view })) => {
                Some(view)
            }
            _ => None,
        };
        for (view, expected) in [
            ("storage", crate::actor_cmds::ActorView::Storage),
            ("logs", crate::actor_cmds::ActorView::Logs),
            ("runs", crate::actor_cmds::ActorView::Runs),
            ("mailbox", crate::actor_cmds::ActorView::Mailbox),
            ("timers", crate::actor_cmds::ActorView::Timers),
        ] {
            assert_eq!(view_of(&["actor", ADDRESS, view]), Some(expected));
        }
        assert_eq!(view_of(&["actor", ADDRESS]), Some(crate::actor_cmds::ActorView::Summary));
        // The development subcommands take the place of the address.
        for args in [
            &["actor", "new", "counter"][..],
            &["actor", "build"],
            &["actor", "build", "some/dir"],
            &["actor", "address", "--salt", "s"],
            &["actor", "address", "code.wat", "--sender", ADDRESS],
        ] {
            assert!(
                matches!(parse(args), Ok(ClientCommand::Actor(crate::actor_cmds::ActorArgs { develop: Some(_), .. }))),
                "{args:?}"
            );
        }
        assert!(parse(&["deploy", "."]).is_ok(), "a crate directory, the key and manifest by default");
        for bad in [
            &["read", ADDRESS, "get", "--payload-text", "a", "--payload-hex", "00"][..],
            &["read", "0x12", "get"],
            &["actor", ADDRESS, "nonsense"],
            &["actor"],
            &["actor", "new"],
            &["actor", "address", "--sender", ADDRESS, "--key", "k"],
            &["call", ADDRESS],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn command_definitions_are_consistent() {
        Harness::command().debug_assert();
    }

    #[test]
    fn parses_transfers() {
        let cmd = parse(&["transfer", "--key", "k", "--to", ADDRESS, "--amount", "1.5drv", "--wait", "--nonce", "4"])
            .unwrap();
        let ClientCommand::Transfer(args) = cmd else { panic!("not a transfer: {cmd:?}") };
        assert_eq!(args.amount, 1_500_000_000);
        assert_eq!(args.to.to_string(), ADDRESS);
        assert!(args.wait);
        assert_eq!((args.nonce, args.max_fee_per_cycle, args.tip_per_cycle), (Some(4), None, None));
        let cmd = parse(&[
            "transfer",
            "--key",
            "k",
            "--to",
            ADDRESS,
            "--amount",
            "7",
            "--max-fee-per-cycle",
            "20",
            "--tip-per-cycle",
            "3",
        ])
        .unwrap();
        let ClientCommand::Transfer(args) = cmd else { panic!("not a transfer: {cmd:?}") };
        assert_eq!((args.amount, args.max_fee_per_cycle, args.tip_per_cycle), (7, Some(20), Some(3)));
        assert!(!args.wait);
    }

    #[test]
    fn refuses_bad_arguments() {
        for args in [
            &["transfer", "--key", "k", "--to", ADDRESS, "--amount", "1.5"][..],
            &["transfer", "--key", "k", "--to", ADDRESS, "--amount", "0.0000000001drv"],
            &["transfer", "--key", "k", "--to", "0x1234", "--amount", "1"],
            &["transfer", "--key", "k", "--to", ADDRESS],
            &["transfer", "--key", "k", "--to", ADDRESS, "--amount", "1", "--nonce", "-1"],
            &["transfer", "--key", "k", "--to", ADDRESS, "--amount", "1", "--max-fee-per-cycle", "1.5"],
            &["account", "nope"],
            &["account"],
            &["tx", "0x12"],
            &["block", "-3"],
            &["block", "latest", "extra"],
            &["faucet", ""],
            &["faucet", ADDRESS, "--key", "k"],
            &["keys", "rotate"],
            &["keys", "import"],
        ] {
            assert!(parse(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn parses_reads() {
        assert!(matches!(parse(&["block"]), Ok(ClientCommand::Block { selector: BlockSelector::Latest })));
        assert!(matches!(parse(&["block", "12"]), Ok(ClientCommand::Block { selector: BlockSelector::Height(12) })));
        assert!(matches!(parse(&["block", " LATEST "]), Ok(ClientCommand::Block { selector: BlockSelector::Latest })));
        let hash = H256([0xcd; 32]);
        assert!(matches!(parse(&["tx", &hash.to_string()]), Ok(ClientCommand::Tx { hash: h }) if h == hash));
        assert!(matches!(parse(&["status"]), Ok(ClientCommand::Status)));
        assert!(matches!(parse(&["keys", "new"]), Ok(ClientCommand::Keys(KeysCommand::New { out: None }))));
        assert!(matches!(
            parse(&["account", &ADDRESS.to_uppercase().replace("0X", "")]),
            Ok(ClientCommand::Account { address }) if address.to_string() == ADDRESS
        ));
    }

    #[test]
    fn new_keys_are_written_once_and_shown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        let report = keys_command(KeysCommand::New { out: Some(path.clone()) }).unwrap();
        let wallet = Wallet::load(&path).unwrap();
        assert!(report.text.0.contains(&wallet.address().to_string()));
        assert!(!report.text.0.contains(&wallet.secret_key().to_hex()));
        assert!(!report.json.contains("private_key"));
        assert!(keys_command(KeysCommand::New { out: Some(path.clone()) }).is_err());
        assert_eq!(Wallet::load(&path).unwrap().address(), wallet.address());

        let shown = keys_command(KeysCommand::Show { key: Some(path) }).unwrap();
        assert!(shown.json.contains(&wallet.address().to_string()));

        let printed = keys_command(KeysCommand::New { out: None }).unwrap();
        let record: serde_json::Value = serde_json::from_str(&printed.json).unwrap();
        let key = record["private_key"].as_str().unwrap();
        let address = Wallet::from_hex(key).unwrap().address().to_string();
        assert_eq!(record["address"].as_str(), Some(address.as_str()));
        assert!(printed.text.0.contains(key));
    }

    #[test]
    fn imports_ethereum_private_keys_and_mnemonics() {
        // Hardhat's and Anvil's well-known development mnemonic: its first two accounts.
        let phrase = "test test test test test test test test test test test junk";
        assert_eq!(import_key(phrase, 0).unwrap().address().to_string(), "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
        assert_eq!(
            import_key(&format!("  {}\n", phrase.to_uppercase()), 1).unwrap().address().to_string(),
            "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
        );
        let key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
        assert_eq!(
            import_key(&format!("{key}\n"), 0).unwrap().address().to_string(),
            "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
        );
        assert!(import_key(key, 1).is_err(), "an index is for mnemonics");
        assert!(import_key("test test test test test test test test test test test test", 0).is_err(), "checksum");
        assert!(import_key("not a key", 0).is_err());
    }

    #[test]
    fn keys_show_reports_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad");
        std::fs::write(&path, "not a key").unwrap();
        let err = keys_command(KeysCommand::Show { key: Some(path) }).err().unwrap();
        assert!(format!("{err:#}").contains("invalid secret key"), "{err:#}");
        assert!(keys_command(KeysCommand::Show { key: Some(dir.path().join("missing")) }).is_err());
    }
}
