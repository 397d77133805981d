//! Actor commands: `deploy`, `upgrade`, `call`, `read` and `actor`, over the same HTTP API and
//! report rendering as the other client commands.
//!
//! `deploy` and `upgrade` take WebAssembly in binary or text form (`.wat`, compiled here), or a
//! Rust actor crate's directory, built first (`crate::actor_dev`), whose `manifest.json` is the
//! manifest unless `--manifest` gives one (for an upgrade too: an upgrade sent without one would
//! narrow the actor to no entitlement). `actor ADDRESS [VIEW]` shows an actor; `actor new`,
//! `build` and `address` are `crate::actor_dev`'s.
//! `call` and `read` take the handler's input as `--payload-json`, `--payload-text` (`--text`)
//! or `--payload-hex` (`--hex`): at most one, none means empty. JSON has no short form because
//! `--json` is the global switch for JSON output. Transactions are signed from a key file like
//! `transfer`, with limits sized by the node's simulation of them unless `--cycles` and `--cells`
//! are both given ([`crate::simulation::size_limits`]); `--trace` prints the simulation's trace
//! of the handlers, as `read --trace` prints a read's.

use crate::{
    actor_dev::load_code,
    report::{Report, Text, amount_text, status_text},
    submission::sign_with_and_submit,
};
use anyhow::{Context, Result, bail};
use clap::Args;
use drover_client::amount::parse_amount;
use drover_client::{Client, TxBuilder, Wallet};
use drover_types::Address;
use drover_types::api::{
    ActorReadRequest, LogInfo, LogOrigin, MailboxMessageInfo, Paginated, ReceiptStatus, RunKind, StorageEntryInfo,
    SystemRunInfo, TimerInfo, UpgradeInfo,
};
use drover_types::payload::{ACTOR_UPGRADES_ADDRESS, Deploy, Manifest, Message, Upgrade};
use std::path::PathBuf;

/// The handler's input: at most one form (named like the API's payload forms; `--json` is the
/// global output switch).
#[derive(Debug, Args)]
pub(crate) struct Input {
    /// Input as JSON (sent as compact JSON text with sorted keys).
    #[arg(long, conflicts_with_all = ["payload_text", "payload_hex"])]
    payload_json: Option<String>,
    /// Input as UTF-8 text.
    #[arg(long, visible_alias = "text", conflicts_with = "payload_hex")]
    payload_text: Option<String>,
    /// Input as hex bytes (0x optional).
    #[arg(long, visible_alias = "hex")]
    payload_hex: Option<String>,
}

impl Input {
    pub(crate) fn bytes(&self) -> Result<Vec<u8>> {
        if let Some(json) = &self.payload_json {
            let value: serde_json::Value = serde_json::from_str(json).context("--payload-json is not JSON")?;
            return Ok(serde_json::to_vec(&value)?);
        }
        if let Some(text) = &self.payload_text {
            return Ok(text.clone().into_bytes());
        }
        if let Some(hex) = &self.payload_hex {
            return drover_types::hexfmt::decode(hex).context("--payload-hex is not hex");
        }
        Ok(Vec::new())
    }
}

/// How a transaction is signed and sent.
#[derive(Debug, Args)]
pub(crate) struct Sending {
    /// Key file of the sending account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Cycles limit (default: what a simulation of the transaction used, plus its margin).
    #[arg(long)]
    cycles: Option<u64>,
    /// Cells limit (default: what a simulation of the transaction used, plus its margin).
    #[arg(long)]
    cells: Option<u64>,
    /// Only submit; do not wait for the outcome.
    #[arg(long)]
    no_wait: bool,
    /// Show what the handlers would do, from a simulation of the transaction before it is sent:
    /// each handler entered with its cycles and cells, the keys it reads and writes, its events,
    /// transfers and nested calls, and where it stops.
    #[arg(long)]
    trace: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DeployArgs {
    /// WebAssembly module: binary (.wasm) or text (.wat), or a Rust actor crate's directory.
    file: PathBuf,
    /// Entitlement ids, comma-separated (e.g. storage.kv,econ.transfer); for a crate directory,
    /// its manifest.json unless given.
    #[arg(long, value_delimiter = ',')]
    manifest: Vec<String>,
    /// Salt (UTF-8, at most 32 bytes): the same code deployed twice needs two salts.
    #[arg(long, default_value = "")]
    salt: String,
    /// Handler to run once right after the deploy.
    #[arg(long)]
    init: Option<String>,
    #[command(flatten)]
    input: Input,
    #[command(flatten)]
    sending: Sending,
}

#[derive(Debug, Args)]
pub(crate) struct UpgradeArgs {
    actor: Address,
    /// The new WebAssembly module: binary (.wasm) or text (.wat), or a Rust actor crate's
    /// directory.
    file: PathBuf,
    /// The new entitlement ids, comma-separated: a subset of the actor's current ones; for a
    /// crate directory, its manifest.json unless given.
    #[arg(long, value_delimiter = ',')]
    manifest: Vec<String>,
    #[command(flatten)]
    sending: Sending,
}

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    actor: Address,
    handler: String,
    #[command(flatten)]
    input: Input,
    /// Value sent with the call: base units, or DRV with a suffix (e.g. 1.5drv).
    #[arg(long, value_parser = parse_amount, default_value = "0")]
    value: u128,
    #[command(flatten)]
    sending: Sending,
}

#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    actor: Address,
    handler: String,
    #[command(flatten)]
    input: Input,
    /// Cycles budget (default: the node's cap).
    #[arg(long)]
    max_cycles: Option<u64>,
    /// The caller (and origin) the handler sees (default: the zero address).
    #[arg(long)]
    from: Option<Address>,
    /// Show what the handler did: each handler entered with its cycles and cells, the keys it
    /// read, its nested calls, and where it reverted or failed.
    #[arg(long)]
    trace: bool,
}

/// What `actor` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ActorView {
    Summary,
    Code,
    Storage,
    Logs,
    Runs,
    Mailbox,
    Timers,
    History,
}

/// `drover actor`: show one actor, or develop one.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct ActorArgs {
    #[command(subcommand)]
    pub(crate) develop: Option<crate::actor_dev::ActorDevCommand>,
    /// The actor to show.
    #[arg(required = true)]
    pub(crate) address: Option<Address>,
    /// What to show of it.
    #[arg(value_enum, default_value = "summary")]
    pub(crate) view: ActorView,
}

pub(crate) async fn deploy(client: &Client, args: DeployArgs) -> Result<Report> {
    let code = load_code(&args.file)?;
    let entitlements = crate::actor_dev::entitlements(&args.file, args.manifest)?;
    let init = args.init.map(|handler| args.input.bytes().map(|payload| Message { handler, payload })).transpose()?;
    let deploy = Deploy { code, manifest: Manifest::new(entitlements), salt: args.salt.into_bytes(), init };
    let wallet = crate::project::wallet(args.sending.key.as_deref())?;
    let actor = deploy.actor_address(&wallet.address());
    let mut text = Text::default();
    text.field("actor", actor)
        .field("code bytes", deploy.code.len())
        .field("manifest", deploy.manifest.entitlements().join(", "));
    send(client, &wallet, TxBuilder::message(None, 0, deploy.encode()), &args.sending, text).await
}

pub(crate) async fn upgrade(client: &Client, args: UpgradeArgs) -> Result<Report> {
    let entitlements = crate::actor_dev::entitlements(&args.file, args.manifest)?;
    let upgrade = Upgrade { actor: args.actor, code: load_code(&args.file)?, manifest: Manifest::new(entitlements) };
    let wallet = crate::project::wallet(args.sending.key.as_deref())?;
    let mut text = Text::default();
    text.field("actor", args.actor)
        .field("new code hash", drover_types::keccak256(&upgrade.code))
        .field("code bytes", upgrade.code.len());
    let builder = TxBuilder::message(Some(ACTOR_UPGRADES_ADDRESS), 0, upgrade.message());
    send(client, &wallet, builder, &args.sending, text).await
}

pub(crate) async fn call(client: &Client, args: CallArgs) -> Result<Report> {
    let payload = Message { handler: args.handler.clone(), payload: args.input.bytes()? }.encode();
    let wallet = crate::project::wallet(args.sending.key.as_deref())?;
    let mut text = Text::default();
    text.field("actor", args.actor).field("handler", &args.handler);
    if args.value > 0 {
        text.field("value", amount_text(args.value));
    }
    send(client, &wallet, TxBuilder::message(Some(args.actor), args.value, payload), &args.sending, text).await
}

async fn send(client: &Client, wallet: &Wallet, builder: TxBuilder, sending: &Sending, text: Text) -> Result<Report> {
    let mut builder = builder;
    if let Some(cycles) = sending.cycles {
        builder = builder.cycles_limit(cycles);
    }
    if let Some(cells) = sending.cells {
        builder = builder.cells_limit(cells);
    }
    match crate::simulation::size_limits(client, wallet.address(), builder, text, sending.trace).await? {
        Ok((builder, context, text)) => {
            sign_with_and_submit(client, wallet, &builder, &context, text, !sending.no_wait).await
        }
        Err(refused) => Ok(refused),
    }
}

pub(crate) async fn read(client: &Client, args: ReadArgs) -> Result<Report> {
    let payload = args.input.bytes()?;
    let answer = client
        .actor_read(&ActorReadRequest {
            actor: args.actor,
            handler: args.handler,
            payload: Some(payload),
            payload_text: None,
            payload_json: None,
            max_cycles: args.max_cycles,
            max_cells: None,
            from: args.from,
            trace: args.trace.then_some(true),
        })
        .await
        .context("the read was refused")?;
    let mut text = Text::default();
    text.field("status", status_text(answer.status))
        .field("result (hex)", format!("0x{}", hex::encode(&answer.result)));
    if let Ok(utf8) = std::str::from_utf8(&answer.result)
        && !utf8.is_empty()
        && utf8.chars().all(|c| !c.is_control())
    {
        text.field("result (text)", utf8);
    }
    text.field("cycles used", answer.cycles_used).field("block", answer.block_height);
    if let Some(reason) = &answer.revert_reason {
        text.field("revert reason", reason);
    }
    if let Some(trace) = &answer.trace {
        crate::simulation::trace_text(&mut text, trace);
    }
    let mut report = Report::new(text, &answer)?;
    if answer.status != ReceiptStatus::Success {
        report.failure = Some(format!("the handler ended {}", status_text(answer.status)));
    }
    Ok(report)
}

pub(crate) async fn actor(client: &Client, address: Address, view: ActorView) -> Result<Report> {
    let missing = || format!("address {address} holds no actor");
    let mut text = Text::default();
    match view {
        ActorView::Summary => {
            let Some(info) = client.actor(&address).await? else { bail!(missing()) };
            text.field("actor", info.address)
                .field("code hash", info.code_hash)
                .field("owner", info.owner)
                .field("balance", amount_text(info.balance))
                .field("nonce", info.nonce)
                .field("mailbox", format!("{} messages ({} bytes)", info.mailbox_count, info.mailbox_bytes))
                .field("deployed at", info.created_height)
                .field("upgrades", info.upgrades)
                .field("manifest", info.manifest.entitlements().join(", "));
            Report::new(text, &info)
        }
        ActorView::Code => {
            let Some(code) = client.actor_code(&address).await? else { bail!(missing()) };
            text.field("code hash", code.code_hash).field("size", format!("{} bytes", code.size));
            Report::new(text, &code)
        }
        ActorView::Storage => {
            let Some(page) = client.actor_storage(&address, None).await? else { bail!(missing()) };
            if let Some(count) = client.actor_storage_count(&address).await? {
                text.field("entries", count.count);
            }
            let row =
                |e: &StorageEntryInfo| (format!("0x{}", hex::encode(&e.key)), format!("0x{}", hex::encode(&e.value)));
            list(&mut text, &page.items, row, "no entries", page.next_cursor.as_deref());
            Report::new(text, &page)
        }
        ActorView::Logs => {
            let Some(page) = client.actor_logs(&address, None).await? else { bail!(missing()) };
            let row = |log: &LogInfo| {
                let origin = match (log.origin, log.tx_hash, log.timer_id, log.message_seq) {
                    (LogOrigin::Transaction, Some(hash), ..) => format!("tx {hash}"),
                    (LogOrigin::Timer, _, Some(id), _) => format!("timer {id}"),
                    (LogOrigin::Delivery, .., Some(seq)) => format!("message #{seq}"),
                    (origin, ..) => format!("{origin:?}").to_lowercase(),
                };
                (
                    format!("height {}", log.block_height),
                    format!("{} 0x{} ({origin})", log.topic, hex::encode(&log.data)),
                )
            };
            list(&mut text, &page.items, row, "no events", page.next_cursor.as_deref());
            Report::new(text, &page)
        }
        ActorView::Runs => {
            let Some(page) = client.actor_runs(&address, None).await? else { bail!(missing()) };
            let row = |run: &SystemRunInfo| {
                let what = match (run.kind, run.timer_id, run.message_seq) {
                    (RunKind::Timer, Some(id), _) => format!("timer {id}"),
                    (RunKind::Delivery, _, Some(seq)) => format!("message #{seq}"),
                    (kind, ..) => format!("{kind:?}").to_lowercase(),
                };
                let mut outcome =
                    format!("{what}: {} {}, {} cycles", run.handler, status_text(run.status), run.cycles_used);
                if let Some(error) = &run.error {
                    outcome.push_str(&format!(" ({}: {})", error.code, error.message));
                }
                (format!("height {}", run.block_height), outcome)
            };
            list(&mut text, &page.items, row, "no timer fires or deliveries", page.next_cursor.as_deref());
            Report::new(text, &page)
        }
        ActorView::Mailbox => {
            let Some(page) = client.actor_mailbox(&address, None).await? else { bail!(missing()) };
            let row = |m: &MailboxMessageInfo| {
                (format!("#{}", m.seq), format!("{} from {} ({} payload bytes)", m.handler, m.from, m.payload.len()))
            };
            list(&mut text, &page.items, row, "no pending messages", page.next_cursor.as_deref());
            Report::new(text, &page)
        }
        ActorView::Timers => {
            let Some(page) = client.actor_timers(&address, 0, PAGE_LIMIT).await? else { bail!(missing()) };
            let row = |t: &TimerInfo| (format!("timer {}", t.id), format!("{} at height {}", t.handler, t.height));
            list(&mut text, &page.items, row, "no pending timers", more(&page).as_deref());
            Report::new(text, &page)
        }
        ActorView::History => {
            let Some(page) = client.actor_upgrades(&address, 0, PAGE_LIMIT).await? else { bail!(missing()) };
            let row = |u: &UpgradeInfo| {
                (format!("height {}", u.height), format!("{} -> {}", u.old_code_hash, u.new_code_hash))
            };
            list(&mut text, &page.items, row, "no upgrades", more(&page).as_deref());
            Report::new(text, &page)
        }
    }
}

/// Items an offset-paged view shows (the API's default page size).
const PAGE_LIMIT: u64 = 50;

/// Where an offset page leaves off, if more items follow it.
fn more<T>(page: &Paginated<T>) -> Option<String> {
    let shown = page.offset.saturating_add(page.items.len() as u64);
    (shown < page.total_count).then(|| format!("{shown} of {}", page.total_count))
}

/// One field per item (`none` when there are none), then where the next page starts.
fn list<T>(text: &mut Text, items: &[T], row: impl Fn(&T) -> (String, String), none: &str, next_cursor: Option<&str>) {
    for item in items {
        let (name, value) = row(item);
        text.field(&name, value);
    }
    if items.is_empty() {
        text.line(none);
    }
    if let Some(cursor) = next_cursor {
        text.line(format!("(more after {cursor})"));
    }
}

#[derive(Debug, Args)]
pub(crate) struct EntitlementsArgs {
    /// Check this manifest (JSON: `{"entitlements": [...]}`) instead of listing the registry.
    #[arg(long)]
    validate: Option<PathBuf>,
}

/// `drover entitlements`: the registry, or the verdict on a manifest file.
pub(crate) async fn entitlements(client: &Client, args: EntitlementsArgs) -> Result<Report> {
    let mut text = Text::default();
    let Some(path) = args.validate else {
        let registry = client.entitlements().await.context("cannot read the entitlement registry")?;
        for entitlement in &registry.entitlements {
            text.field(&entitlement.id, &entitlement.description);
            if !entitlement.host_functions.is_empty() {
                text.line(format!("    host functions: {}", entitlement.host_functions.join(", ")));
            }
        }
        return Report::new(text, &registry);
    };
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let manifest: serde_json::Value =
        serde_json::from_slice(&bytes).with_context(|| format!("{} is not JSON", path.display()))?;
    let verdict = client.validate_manifest(&manifest).await.context("cannot check the manifest")?;
    text.field("manifest", path.display()).field("valid", verdict.valid);
    for problem in &verdict.errors {
        text.line(format!("  {:?}: {}", problem.id, problem.reason));
    }
    let mut report = Report::new(text, &verdict)?;
    if !verdict.valid {
        report.failure = Some(format!("{} is not a valid manifest", path.display()));
    }
    Ok(report)
}
