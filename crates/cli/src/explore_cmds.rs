//! Commands over the node's indexes and its simulation: `history` (an account's transactions),
//! `blocks` (recent blocks), `events` (events across emitters), `watch` (a push stream of
//! blocks, a transaction's outcome or events, printed as it comes) and `simulate` (what a
//! transfer, a call or a deploy would do, sent from an address, without sending it, printed by
//! `crate::simulation`).
//!
//! `watch` prints one line per message (with `--json`, the message's JSON record), and when the
//! node closes the stream (a slow consumer, a restart) opens it again from the last message's
//! id, so no message is missed or repeated.

use crate::report::{Report, Text, amount_text, status_text};
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use drover_client::amount::parse_amount;
use drover_client::{Client, EventFilter, StreamMessage, TxBuilder};
use drover_types::api::{
    BlockSummary, Direction, HistoryEntryInfo, IndexedEvent, LogOrigin, ReceiptStatus, ReceivedBy,
};
use drover_types::payload::{Deploy, Manifest, Message};
use drover_types::{Address, H256};
use std::io::Write as _;
use std::path::PathBuf;

/// Items a list command shows unless `--limit` says otherwise.
const LIST_LIMIT_DEFAULT: u64 = 20;

#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    /// The account (40 hex digits, 0x optional).
    address: Address,
    /// Entries older than this (a page's next cursor).
    #[arg(long)]
    cursor: Option<String>,
    /// Entries per page (at most 1,000).
    #[arg(long, default_value_t = LIST_LIMIT_DEFAULT)]
    limit: u64,
}

#[derive(Debug, Args)]
pub(crate) struct BlocksArgs {
    /// Blocks below this height (a page's next cursor).
    #[arg(long)]
    cursor: Option<String>,
    /// Blocks per page (at most 1,000).
    #[arg(long, default_value_t = LIST_LIMIT_DEFAULT)]
    limit: u64,
}

/// Which events: emitters and topics (each repeatable, any matching).
#[derive(Debug, Args)]
pub(crate) struct Filter {
    /// An emitter address; repeat for several (at most 16).
    #[arg(long = "emitter")]
    emitters: Vec<Address>,
    /// A topic; repeat for several (at most 4).
    #[arg(long = "topic")]
    topics: Vec<String>,
    /// First height.
    #[arg(long)]
    from_height: Option<u64>,
}

impl Filter {
    fn events(&self, to_height: Option<u64>) -> EventFilter {
        EventFilter {
            emitters: self.emitters.clone(),
            topics: self.topics.clone(),
            from_height: self.from_height,
            to_height,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct EventsArgs {
    #[command(flatten)]
    filter: Filter,
    /// Last height (default: the tip).
    #[arg(long)]
    to_height: Option<u64>,
    /// Events after this one (a page's next cursor).
    #[arg(long)]
    cursor: Option<String>,
    /// Events per page (at most 1,000).
    #[arg(long, default_value_t = LIST_LIMIT_DEFAULT)]
    limit: u64,
}

#[derive(Debug, Subcommand)]
pub(crate) enum WatchCommand {
    /// Finalized blocks as they finalize.
    Blocks {
        /// First height (default: the next block).
        #[arg(long)]
        from_height: Option<u64>,
        /// Stop after this many blocks.
        #[arg(long)]
        count: Option<u64>,
    },
    /// A transaction, until it is finalized or dropped.
    Tx {
        /// Transaction hash (64 hex digits, 0x optional).
        hash: H256,
    },
    /// Events matching a filter as blocks finalize.
    Events {
        #[command(flatten)]
        filter: Filter,
        /// Stop after this many events.
        #[arg(long)]
        count: Option<u64>,
    },
}

/// Who a simulated transaction is from: any address, or a key file's account (by default the
/// key `DROVER_KEY` or the project's `.drover/config.toml` names, as for the sending commands).
#[derive(Debug, Args)]
pub(crate) struct Sender {
    /// Key file of the sending account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long, conflicts_with = "from")]
    key: Option<PathBuf>,
    /// The sending address (no key needed: nothing is signed).
    #[arg(long)]
    from: Option<Address>,
    /// Cycles limit (default: the block's, capped by the sender's balance).
    #[arg(long)]
    cycles: Option<u64>,
    /// Cells limit (default: the block's, capped by the sender's balance).
    #[arg(long)]
    cells: Option<u64>,
    /// Show the trace of the handlers it would run: each handler entered with its cycles and
    /// cells, the keys it reads and writes, its events, transfers and nested calls.
    #[arg(long)]
    trace: bool,
}

impl Sender {
    fn address(&self) -> Result<Address> {
        match self.from {
            Some(from) => Ok(from),
            None => Ok(crate::project::wallet(self.key.as_deref())?.address()),
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum SimulateCommand {
    /// A transfer of native currency.
    Transfer {
        /// Receiving address.
        #[arg(long)]
        to: Address,
        /// Base units, or DRV with a suffix (e.g. 1.5drv).
        #[arg(long, value_parser = parse_amount)]
        amount: u128,
        #[command(flatten)]
        sender: Sender,
    },
    /// A call of an actor's handler.
    Call {
        actor: Address,
        handler: String,
        #[command(flatten)]
        input: crate::actor_cmds::Input,
        /// Value sent with the call: base units, or DRV with a suffix.
        #[arg(long, value_parser = parse_amount, default_value = "0")]
        value: u128,
        #[command(flatten)]
        sender: Sender,
    },
    /// A deploy of an actor (WebAssembly binary or text).
    Deploy {
        file: PathBuf,
        /// Entitlement ids, comma-separated.
        #[arg(long, value_delimiter = ',')]
        manifest: Vec<String>,
        /// Salt (UTF-8, at most 32 bytes).
        #[arg(long, default_value = "")]
        salt: String,
        #[command(flatten)]
        sender: Sender,
    },
}

/// `drover simulate`: what a transaction would do, without sending it.
pub(crate) async fn simulate(client: &Client, command: SimulateCommand) -> Result<Report> {
    let (builder, sender) = match command {
        SimulateCommand::Transfer { to, amount, sender } => (TxBuilder::message(Some(to), amount, Vec::new()), sender),
        SimulateCommand::Call { actor, handler, input, value, sender } => {
            let payload = Message { handler, payload: input.bytes()? }.encode();
            (TxBuilder::message(Some(actor), value, payload), sender)
        }
        SimulateCommand::Deploy { file, manifest, salt, sender } => {
            let deploy = Deploy {
                code: crate::actor_dev::load_code(&file)?,
                manifest: Manifest::new(manifest),
                salt: salt.into_bytes(),
                init: None,
            };
            (TxBuilder::message(None, 0, deploy.encode()), sender)
        }
    };
    let mut builder = builder;
    if let Some(cycles) = sender.cycles {
        builder = builder.cycles_limit(cycles);
    }
    if let Some(cells) = sender.cells {
        builder = builder.cells_limit(cells);
    }
    let from = sender.address()?;
    let context = builder.fetch_context(client, from).await.context("cannot read the chain id, nonce or fees")?;
    let mut request = builder.simulate_request(from, &context)?;
    request.trace = sender.trace.then_some(true);
    let simulation = client.simulate(&request).await.context("the node refused the simulation")?;
    let mut text = Text::default();
    text.field("from", from);
    crate::simulation::simulation_text(&mut text, &simulation);
    let mut report = Report::new(text, &simulation)?;
    if simulation.status != ReceiptStatus::Success {
        report.failure = Some(format!("the transaction would be {}", status_text(simulation.status)));
    }
    Ok(report)
}

fn history_row(entry: &HistoryEntryInfo) -> String {
    let mut row = match entry.direction {
        Direction::Sent => match entry.to {
            Some(to) => format!("sent to {to}"),
            None => "sent a deploy".to_owned(),
        },
        Direction::Received => format!("from {}", entry.from),
    };
    row.push_str(&format!(", {}", status_text(entry.status)));
    if entry.value_received > 0 || !entry.received.is_empty() {
        let how: Vec<_> = entry
            .received
            .iter()
            .map(|by| match by {
                ReceivedBy::Transfer => "transfer",
                ReceivedBy::ActorTransfer => "actor transfer",
                ReceivedBy::TokenTransfer => "token transfer",
            })
            .collect();
        row.push_str(&format!("; received {} by {}", amount_text(entry.value_received), how.join(", ")));
        for tokens in &entry.tokens_received {
            row.push_str(&format!(", {} of token {}", tokens.amount, tokens.token));
        }
    }
    row
}

/// `drover history ADDRESS`: the account's transactions, newest first.
pub(crate) async fn history(client: &Client, args: HistoryArgs) -> Result<Report> {
    let page = client
        .history(&args.address, args.cursor.as_deref(), args.limit)
        .await
        .with_context(|| format!("cannot read the history of {}", args.address))?;
    let mut text = Text::default();
    for entry in &page.items {
        text.field(
            &format!("{} #{}", entry.block_height, entry.index),
            format!("{} {}", entry.tx_hash, history_row(entry)),
        );
    }
    if page.items.is_empty() {
        text.line("no transactions");
    }
    if let Some(cursor) = &page.next_cursor {
        text.line(format!("(older: --cursor {cursor})"));
    } else if page.first_indexed_height > 1 {
        text.line(format!("(this node holds history from height {})", page.first_indexed_height));
    }
    Report::new(text, &page)
}

fn block_row(block: &BlockSummary) -> String {
    format!(
        "{} {} txs, {} runs, {} events, {} cycles, {} cells",
        block.hash,
        block.transaction_count,
        block.system_run_count,
        block.event_count,
        block.cycles_used,
        block.cells_used
    )
}

/// `drover blocks`: recent blocks, newest first.
pub(crate) async fn blocks(client: &Client, args: BlocksArgs) -> Result<Report> {
    let page = client.blocks(args.cursor.as_deref(), args.limit).await.context("cannot list the blocks")?;
    let mut text = Text::default();
    for block in &page.items {
        text.field(&format!("block {}", block.height), block_row(block));
    }
    if page.items.is_empty() {
        text.line("no blocks");
    }
    if let Some(cursor) = &page.next_cursor {
        text.line(format!("(older: --cursor {cursor})"));
    }
    Report::new(text, &page)
}

fn event_row(event: &IndexedEvent) -> String {
    let origin = match (event.origin, event.tx_hash, event.tx_index, event.timer_id, event.message_seq) {
        (LogOrigin::Transaction, Some(hash), Some(index), ..) => {
            format!("tx {hash} (#{index}, event {})", event.event_index)
        }
        (LogOrigin::Timer, .., Some(id), _) => format!("timer {id}"),
        (LogOrigin::Delivery, .., Some(seq)) => format!("message #{seq}"),
        (origin, ..) => format!("{origin:?}").to_lowercase(),
    };
    format!("{} {} 0x{} ({origin})", event.address, event.topic, hex::encode(&event.data))
}

/// `drover events`: events across emitters, in chain order.
pub(crate) async fn events(client: &Client, args: EventsArgs) -> Result<Report> {
    let filter = args.filter.events(args.to_height);
    let page = client.events(&filter, args.cursor.as_deref(), args.limit).await.context("the query was refused")?;
    let mut text = Text::default();
    text.field("heights", format!("{}..={}", page.from_height, page.to_height));
    for event in &page.items {
        text.field(&format!("height {}", event.block_height), event_row(event));
    }
    if page.items.is_empty() {
        text.line("no events");
    }
    if let Some(cursor) = &page.next_cursor {
        text.line(format!("(more: --cursor {cursor})"));
    }
    Report::new(text, &page)
}

/// One line of `watch`: the message's JSON record, or a human-readable line.
fn watch_line(message: &StreamMessage, json: bool) -> Result<String> {
    if json {
        let value = match message {
            StreamMessage::Block(block) => serde_json::to_string(block)?,
            StreamMessage::Receipt(receipt) => serde_json::to_string(receipt)?,
            StreamMessage::Dropped(dropped) => serde_json::to_string(dropped)?,
            StreamMessage::Event(event) => serde_json::to_string(event)?,
            StreamMessage::Closed(closed) => serde_json::to_string(closed)?,
        };
        return Ok(value);
    }
    Ok(match message {
        StreamMessage::Block(block) => format!("block {} {}", block.height, block_row(block)),
        StreamMessage::Receipt(receipt) => format!(
            "included at height {} #{}: {}, {} cycles, fee {}",
            receipt.block_height,
            receipt.index,
            status_text(receipt.status),
            receipt.cycles_used,
            amount_text(receipt.fee)
        ),
        StreamMessage::Dropped(dropped) => format!("dropped: {}", dropped.reason),
        StreamMessage::Event(event) => format!("height {} {}", event.block_height, event_row(event)),
        StreamMessage::Closed(closed) => format!("closed by the node: {}", closed.reason),
    })
}

/// `drover watch`: prints a stream's messages as they come, reopening it where it left off
/// when the node closes it, until `--count` messages (or a transaction's one) are printed.
pub(crate) async fn watch(client: &Client, command: WatchCommand, json: bool) -> Result<()> {
    let (count, once) = match &command {
        WatchCommand::Blocks { count, .. } | WatchCommand::Events { count, .. } => (*count, false),
        WatchCommand::Tx { .. } => (Some(1), true),
    };
    let mut printed = 0u64;
    let mut last_id: Option<String> = None;
    loop {
        let mut stream = match &command {
            WatchCommand::Blocks { from_height, .. } => {
                let from = if last_id.is_some() { None } else { *from_height };
                client.stream_blocks(from, last_id.as_deref()).await
            }
            WatchCommand::Tx { hash } => client.stream_transaction(hash).await,
            WatchCommand::Events { filter, .. } => {
                let mut filter = filter.events(None);
                if last_id.is_some() {
                    filter.from_height = None;
                }
                client.stream_events(&filter, last_id.as_deref()).await
            }
        }
        .context("cannot open the stream")?;
        while let Some(message) = stream.next().await.context("the stream broke")? {
            let line = watch_line(&message, json)?;
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{line}").and_then(|()| stdout.flush()).context("cannot write to standard output")?;
            if matches!(message, StreamMessage::Closed(_)) {
                continue;
            }
            printed += 1;
            if count.is_some_and(|count| printed >= count) {
                return Ok(());
            }
        }
        if once {
            bail!("the node ended the stream without an outcome");
        }
        last_id = stream.last_event_id().map(str::to_owned).or(last_id);
    }
}
