//! `drover token ...`: native tokens through the tokens system actor (`0x00…0c`).
//!
//! Reads (`info`, `list`, `balance`, `allowance`, `held`) go to the token routes. Every other
//! command signs one token call with limits that cover exactly its cost and, unless
//! `--no-wait`, waits for its outcome. Amounts are base units (`1500`) or whole tokens with the
//! token's decimals when written with a point (`1.5`) or the symbol (`2GLD`); the token's record
//! is read first for its decimals, so an unknown token is refused before anything is signed.

use crate::{
    report::{Report, Text},
    submission::sign_and_submit,
};
use anyhow::{Context, Result, anyhow};
use clap::{Args, Subcommand};
use drover_client::amount::{format_token, parse_token_amount};
use drover_client::{Client, TxBuilder};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address,
    api::TokenInfo,
    token::{NewToken, TokenCall, token_id},
};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum TokenCommand {
    /// Create a token; its initial supply goes to the sender, who becomes its owner.
    Create(CreateArgs),
    /// Show a token's metadata and supply.
    Info { token: Address },
    /// List tokens in creation order.
    List {
        #[arg(long, default_value_t = 0)]
        offset: u64,
        #[arg(long, default_value_t = 50)]
        limit: u64,
    },
    /// Show a holder's balance of a token.
    Balance { token: Address, address: Address },
    /// Show what a spender may still move of an owner's tokens.
    Allowance { token: Address, owner: Address, spender: Address },
    /// List the tokens an address holds.
    Held {
        address: Address,
        #[arg(long, default_value_t = 0)]
        offset: u64,
        #[arg(long, default_value_t = 50)]
        limit: u64,
    },
    /// Send tokens to an address.
    Transfer {
        token: Address,
        #[arg(long)]
        to: Address,
        #[arg(long)]
        amount: String,
        #[command(flatten)]
        sending: TokenSending,
    },
    /// Let a spender move up to an amount of your tokens (replaces any earlier allowance).
    Approve {
        token: Address,
        #[arg(long)]
        spender: Address,
        #[arg(long)]
        amount: String,
        #[command(flatten)]
        sending: TokenSending,
    },
    /// Move tokens from a holder who approved you.
    TransferFrom {
        token: Address,
        #[arg(long)]
        from: Address,
        #[arg(long)]
        to: Address,
        #[arg(long)]
        amount: String,
        #[command(flatten)]
        sending: TokenSending,
    },
    /// Mint new tokens to an address (owner of a mintable token).
    Mint {
        token: Address,
        #[arg(long)]
        to: Address,
        #[arg(long)]
        amount: String,
        #[command(flatten)]
        sending: TokenSending,
    },
    /// Destroy some of your tokens.
    Burn {
        token: Address,
        #[arg(long)]
        amount: String,
        #[command(flatten)]
        sending: TokenSending,
    },
    /// Stop an account from sending or receiving the token (owner).
    Freeze {
        token: Address,
        #[arg(long)]
        account: Address,
        #[command(flatten)]
        sending: TokenSending,
    },
    /// Let a frozen account send and receive the token again (owner).
    Unfreeze {
        token: Address,
        #[arg(long)]
        account: Address,
        #[command(flatten)]
        sending: TokenSending,
    },
    /// Hand the token's owner rights to another address (owner).
    SetOwner {
        token: Address,
        #[arg(long)]
        owner: Address,
        #[command(flatten)]
        sending: TokenSending,
    },
}

#[derive(Debug, Args)]
pub(crate) struct CreateArgs {
    /// Display name (1–64 bytes).
    #[arg(long)]
    name: String,
    /// Ticker: 1–16 of A–Z and 0–9, unique among your tokens.
    #[arg(long)]
    symbol: String,
    /// Decimal places of one whole token (0–36).
    #[arg(long, default_value_t = 18)]
    decimals: u8,
    /// Initial supply, minted to you: base units, or whole tokens (`1000.0`, `1000GLD`).
    #[arg(long)]
    supply: String,
    /// Most that may ever exist, in the same units (default: no cap).
    #[arg(long)]
    max_supply: Option<String>,
    /// Allow minting after creation.
    #[arg(long)]
    mintable: bool,
    #[command(flatten)]
    sending: TokenSending,
}

/// How a token call is signed and sent.
#[derive(Debug, Args)]
pub(crate) struct TokenSending {
    /// Key file of the sending account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Only submit; do not wait for the outcome.
    #[arg(long)]
    no_wait: bool,
}

pub(crate) async fn run(client: &Client, cmd: TokenCommand) -> Result<Report> {
    match cmd {
        TokenCommand::Create(args) => create(client, args).await,
        TokenCommand::Info { token } => {
            let info = known(client, &token).await?;
            let mut text = Text::default();
            info_text(&mut text, &info);
            Report::new(text, &info)
        }
        TokenCommand::List { offset, limit } => {
            let list = client.tokens(offset, limit).await.context("cannot list tokens")?;
            let mut text = Text::default();
            text.field("tokens", format!("{} in all, {} from {}", list.total_count, list.tokens.len(), list.offset));
            for token in &list.tokens {
                text.line(format!(
                    "{}  {:<16} {}",
                    token.token_id,
                    token.symbol,
                    format_token(token.supply, token.decimals, &token.symbol)
                ));
            }
            Report::new(text, &list)
        }
        TokenCommand::Balance { token, address } => {
            let info = known(client, &token).await?;
            let balance = client
                .token_balance(&token, &address)
                .await
                .context("cannot read the balance")?
                .ok_or_else(|| unknown(&token))?;
            let mut text = Text::default();
            text.field("token", format!("{} ({})", info.symbol, token))
                .field("holder", address)
                .field("balance", amount(&info, balance.balance));
            Report::new(text, &balance)
        }
        TokenCommand::Allowance { token, owner, spender } => {
            let info = known(client, &token).await?;
            let allowance = client
                .token_allowance(&token, &owner, &spender)
                .await
                .context("cannot read the allowance")?
                .ok_or_else(|| unknown(&token))?;
            let mut text = Text::default();
            text.field("token", format!("{} ({})", info.symbol, token))
                .field("owner", owner)
                .field("spender", spender)
                .field("allowance", amount(&info, allowance.allowance));
            Report::new(text, &allowance)
        }
        TokenCommand::Held { address, offset, limit } => {
            let held = client.account_tokens(&address, offset, limit).await.context("cannot list the holdings")?;
            let mut text = Text::default();
            text.field("holder", address).field("tokens", held.total_count);
            for holding in &held.tokens {
                let frozen = if holding.frozen { "  (frozen)" } else { "" };
                text.line(format!(
                    "{}  {}{frozen}",
                    holding.token_id,
                    format_token(holding.balance, holding.decimals, &holding.symbol)
                ));
            }
            Report::new(text, &held)
        }
        TokenCommand::Transfer { token, to, amount, sending } => {
            let info = known(client, &token).await?;
            let amount = parse(&info, &amount)?;
            send(client, &sending, &info, TokenCall::Transfer { token, to, amount }).await
        }
        TokenCommand::Approve { token, spender, amount, sending } => {
            let info = known(client, &token).await?;
            let amount = parse(&info, &amount)?;
            send(client, &sending, &info, TokenCall::Approve { token, spender, amount }).await
        }
        TokenCommand::TransferFrom { token, from, to, amount, sending } => {
            let info = known(client, &token).await?;
            let amount = parse(&info, &amount)?;
            send(client, &sending, &info, TokenCall::TransferFrom { token, from, to, amount }).await
        }
        TokenCommand::Mint { token, to, amount, sending } => {
            let info = known(client, &token).await?;
            let amount = parse(&info, &amount)?;
            send(client, &sending, &info, TokenCall::Mint { token, to, amount }).await
        }
        TokenCommand::Burn { token, amount, sending } => {
            let info = known(client, &token).await?;
            let amount = parse(&info, &amount)?;
            send(client, &sending, &info, TokenCall::Burn { token, amount }).await
        }
        TokenCommand::Freeze { token, account, sending } => {
            let info = known(client, &token).await?;
            send(client, &sending, &info, TokenCall::Freeze { token, account }).await
        }
        TokenCommand::Unfreeze { token, account, sending } => {
            let info = known(client, &token).await?;
            send(client, &sending, &info, TokenCall::Unfreeze { token, account }).await
        }
        TokenCommand::SetOwner { token, owner, sending } => {
            let info = known(client, &token).await?;
            send(client, &sending, &info, TokenCall::SetOwner { token, owner }).await
        }
    }
}

fn unknown(token: &Address) -> anyhow::Error {
    anyhow!("no token has the id {token} (see `drover token list`)")
}

/// The token's record, or an error saying it does not exist.
async fn known(client: &Client, token: &Address) -> Result<TokenInfo> {
    client.token(token).await.with_context(|| format!("cannot read token {token}"))?.ok_or_else(|| unknown(token))
}

fn parse(info: &TokenInfo, text: &str) -> Result<u128> {
    parse_token_amount(text, &info.symbol, info.decimals).with_context(|| {
        format!("amounts of {} are base units (1500) or whole tokens (1.5, 2{})", info.symbol, info.symbol)
    })
}

fn amount(info: &TokenInfo, base_units: u128) -> String {
    format!("{} ({base_units} base units)", format_token(base_units, info.decimals, &info.symbol))
}

fn info_text(text: &mut Text, info: &TokenInfo) {
    text.field("token", info.token_id)
        .field("name", &info.name)
        .field("symbol", &info.symbol)
        .field("decimals", info.decimals)
        .field("supply", amount(info, info.supply))
        .field("max supply", info.max_supply.map_or_else(|| "none".to_owned(), |max| amount(info, max)))
        .field("owner", info.owner)
        .field("mintable", info.mintable)
        .field("created", format!("block {} by {}", info.created_height, info.creator));
}

async fn create(client: &Client, args: CreateArgs) -> Result<Report> {
    let wallet = crate::project::wallet(args.sending.key.as_deref())?;
    let units = |text: &str| {
        parse_token_amount(text, &args.symbol, args.decimals)
            .with_context(|| format!("{text:?} is not an amount of base units or whole {}", args.symbol))
    };
    let new = NewToken {
        name: args.name.clone(),
        symbol: args.symbol.clone(),
        decimals: u64::from(args.decimals),
        initial_supply: units(&args.supply)?,
        max_supply: args.max_supply.as_deref().map(units).transpose()?,
        mintable: args.mintable,
    };
    let id = token_id(&wallet.address(), &args.symbol);
    let mut text = Text::default();
    text.field("token", id)
        .field("symbol", &args.symbol)
        .field("supply", format_token(new.initial_supply, args.decimals, &args.symbol));
    let builder = TxBuilder::token(&TokenCall::Create(new));
    sign_and_submit(client, &wallet, builder, text, !args.sending.no_wait).await
}

async fn send(client: &Client, sending: &TokenSending, info: &TokenInfo, call: TokenCall) -> Result<Report> {
    let wallet = crate::project::wallet(sending.key.as_deref())?;
    let mut text = Text::default();
    text.field("token", format!("{} ({})", info.symbol, info.token_id)).field("call", call.handler());
    match &call {
        TokenCall::Transfer { to, amount: n, .. } | TokenCall::Mint { to, amount: n, .. } => {
            text.field("to", to).field("amount", amount(info, *n));
        }
        TokenCall::TransferFrom { from, to, amount: n, .. } => {
            text.field("from holder", from).field("to", to).field("amount", amount(info, *n));
        }
        TokenCall::Approve { spender, amount: n, .. } => {
            text.field("spender", spender).field("allowance", amount(info, *n));
        }
        TokenCall::Burn { amount: n, .. } => {
            text.field("amount", amount(info, *n));
        }
        TokenCall::Freeze { account, .. } | TokenCall::Unfreeze { account, .. } => {
            text.field("account", account);
        }
        TokenCall::SetOwner { owner, .. } => {
            text.field("new owner", owner);
        }
        TokenCall::Create(_) | TokenCall::Balance { .. } => {}
    }
    sign_and_submit(client, &wallet, TxBuilder::token(&call), text, !sending.no_wait).await
}
