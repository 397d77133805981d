//! `drover gov ...`: chain parameters and governance (`0x00…09`) from the command line.
//!
//! Reads (`params`, `proposals`, `proposal`) go to the governance routes. `lock`, `unlock`,
//! `propose`, `vote` and `execute` each sign one governance call and, unless `--no-wait`, wait
//! for its outcome. `propose` takes each change as `name=value` (a parameter of `gov params`);
//! it sends the live `proposal_deposit` unless `--deposit` says otherwise. Amounts are base units
//! or DRV with a suffix (`1.5drv`).

use crate::{
    report::{Report, Text, amount_text},
    submission::sign_and_submit,
};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};
use drover_client::amount::parse_amount;
use drover_client::{Client, TxBuilder};
use drover_types::governance::GovernanceCall;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum GovCommand {
    /// Show every chain parameter: its value, default and bounds.
    Params,
    /// List proposals, optionally by status (voting, passed, rejected, executed, expired).
    Proposals {
        #[arg(long)]
        status: Option<String>,
        #[arg(long, default_value_t = 0)]
        offset: u64,
        #[arg(long, default_value_t = 50)]
        limit: u64,
    },
    /// Show one proposal with its tally and timeline.
    Proposal { id: u64 },
    /// Lock DRV as voting weight.
    Lock {
        /// Base units or DRV (`100drv`).
        #[arg(long, value_parser = parse_amount)]
        amount: u128,
        #[command(flatten)]
        sending: GovSending,
    },
    /// Take back locked weight (after the end of your latest vote).
    Unlock {
        #[arg(long, value_parser = parse_amount)]
        amount: u128,
        #[command(flatten)]
        sending: GovSending,
    },
    /// Propose parameter changes, each as name=value.
    Propose {
        /// Changes: `target_cycles=20000000` (repeat or comma-separate).
        #[arg(long = "change", value_delimiter = ',', required = true)]
        changes: Vec<String>,
        /// What the proposal is for.
        #[arg(long, default_value = "")]
        description: String,
        /// Deposit (default: the live proposal_deposit).
        #[arg(long, value_parser = parse_amount)]
        deposit: Option<u128>,
        #[command(flatten)]
        sending: GovSending,
    },
    /// Vote on a proposal with all your locked weight.
    Vote {
        id: u64,
        /// `for` or `against`.
        #[arg(long)]
        support: String,
        #[command(flatten)]
        sending: GovSending,
    },
    /// Close a proposal whose vote ended: apply it (passed, after its timelock) or close it
    /// as rejected or expired.
    Execute {
        id: u64,
        #[command(flatten)]
        sending: GovSending,
    },
}

/// How a governance call is signed and sent.
#[derive(Debug, Args)]
pub(crate) struct GovSending {
    /// Key file of the sending account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Only submit; do not wait for the outcome.
    #[arg(long)]
    no_wait: bool,
}

fn parse_change(text: &str) -> Result<(String, u128)> {
    let (name, value) = text.split_once('=').ok_or_else(|| anyhow!("a change is name=value, got {text:?}"))?;
    let value = value.trim().parse().with_context(|| format!("{value:?} is not a whole number"))?;
    Ok((name.trim().to_owned(), value))
}

pub(crate) async fn run(client: &Client, command: GovCommand) -> Result<Report> {
    let mut text = Text::default();
    let (call, value, sending) = match command {
        GovCommand::Params => {
            let params = client.governance_params().await.context("cannot read the parameters")?;
            text.field("height", params.height).field("locked for voting", amount_text(params.total_locked));
            for p in &params.params {
                text.line(format!("{:<28} {:>24}   default {}, {} to {}", p.name, p.value, p.default, p.min, p.max));
            }
            return Report::new(text, &params);
        }
        GovCommand::Proposals { status, offset, limit } => {
            let list = client.proposals(status.as_deref(), offset, limit).await.context("cannot list proposals")?;
            text.field("proposals", list.total_count);
            for p in &list.proposals {
                let changes: Vec<String> = p.changes.iter().map(|(k, v)| format!("{k}={v}")).collect();
                text.line(format!("{:>4}  {:<9} {}  {}", p.id, p.status, changes.join(","), p.description));
            }
            return Report::new(text, &list);
        }
        GovCommand::Proposal { id } => {
            let detail = client
                .proposal(id)
                .await
                .context("cannot read the proposal")?
                .ok_or_else(|| anyhow!("no proposal {id}"))?;
            let p = &detail.proposal;
            text.field("proposal", p.id).field("status", &p.status).field("proposer", p.proposer);
            for (name, value) in &p.changes {
                text.field("change", format!("{name} = {value}"));
            }
            text.field("description", &p.description)
                .field("votes for", amount_text(p.votes_for))
                .field("votes against", amount_text(p.votes_against))
                .field("quorum", amount_text(p.quorum_weight))
                .field("approval", format!("{} %", p.approval_percent));
            for entry in &detail.timeline {
                text.field(&entry.event, entry.height);
            }
            return Report::new(text, &detail);
        }
        GovCommand::Lock { amount, sending } => {
            text.field("lock", amount_text(amount));
            (GovernanceCall::Lock, amount, sending)
        }
        GovCommand::Unlock { amount, sending } => {
            text.field("unlock", amount_text(amount));
            (GovernanceCall::Unlock { amount }, 0, sending)
        }
        GovCommand::Propose { changes, description, deposit, sending } => {
            let changes = changes.iter().map(|c| parse_change(c)).collect::<Result<Vec<_>>>()?;
            let deposit = match deposit {
                Some(deposit) => deposit,
                None => {
                    let params = client.governance_params().await.context("cannot read the proposal deposit")?;
                    params.value("proposal_deposit").ok_or_else(|| anyhow!("the node lists no proposal_deposit"))?
                }
            };
            text.field("deposit", amount_text(deposit));
            (GovernanceCall::Propose { changes, description }, deposit, sending)
        }
        GovCommand::Vote { id, support, sending } => {
            let support = match support.as_str() {
                "for" | "yes" => true,
                "against" | "no" => false,
                other => bail!("--support is for or against, got {other:?}"),
            };
            text.field("proposal", id).field("vote", if support { "for" } else { "against" });
            (GovernanceCall::Vote { proposal: id, support }, 0, sending)
        }
        GovCommand::Execute { id, sending } => {
            text.field("execute", id);
            (GovernanceCall::Execute { proposal: id }, 0, sending)
        }
    };
    let wallet = crate::project::wallet(sending.key.as_deref())?;
    sign_and_submit(client, &wallet, TxBuilder::governance(&call, value), text, !sending.no_wait).await
}
