//! `drover runners`, `drover delegate`, `drover undelegate` and `drover withdraw`: the runner
//! registry (`0x00…01`) from the command line.
//!
//! `runners` lists the registered runners with their health, or shows one with `--address` (any runner, with its
//! health and unbonding stake). Delegation commands sign one registry call with limits that cover
//! exactly its cost and wait for its outcome unless `--no-wait`. Amounts are base units or DRV
//! with a suffix (`1.5drv`), like every native amount.

use crate::{
    report::{Report, Text, amount_text},
    submission::sign_and_submit,
};
use anyhow::{Context, Result, anyhow};
use clap::Args;
use drover_client::amount::parse_amount;
use drover_client::{Client, TxBuilder};
use drover_types::{Address, api::RunnerInfo, runner::RegistryCall};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct RunnersArgs {
    /// Show this runner (any health) instead of listing the healthy ones.
    #[arg(long)]
    address: Option<Address>,
    /// List an account's delegations instead.
    #[arg(long, conflicts_with = "address")]
    delegations_of: Option<Address>,
    #[arg(long, default_value_t = 0)]
    offset: u64,
    #[arg(long, default_value_t = 50)]
    limit: u64,
}

#[derive(Debug, Args)]
pub(crate) struct DelegationArgs {
    /// The runner.
    #[arg(long)]
    runner: Address,
    /// Base units (e.g. 1500), or whole DRV with a suffix (e.g. 1.5drv).
    #[arg(long, value_parser = parse_amount)]
    amount: u128,
    #[command(flatten)]
    sending: RegistrySending,
}

#[derive(Debug, Args)]
pub(crate) struct WithdrawArgs {
    /// The runner the unbonded stake or delegation was with (your own address for your stake).
    #[arg(long)]
    runner: Address,
    #[command(flatten)]
    sending: RegistrySending,
}

/// How a registry call is signed and sent.
#[derive(Debug, Args)]
pub(crate) struct RegistrySending {
    /// Key file of the sending account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Only submit; do not wait for the outcome.
    #[arg(long)]
    no_wait: bool,
}

fn runner_text(text: &mut Text, runner: &RunnerInfo) {
    text.field("runner", runner.address)
        .field("health", &runner.health)
        .field("stake", amount_text(runner.stake))
        .field("delegated", amount_text(runner.delegated_stake))
        .field("price per job", amount_text(runner.rate_card.price_per_job))
        .field(
            "runs",
            format!(
                "{} (at most {} at once)",
                runner.capabilities.job_types.join(", "),
                runner.capabilities.max_concurrent_jobs
            ),
        )
        .field("reputation", runner.reputation)
        .field("active jobs", runner.active_jobs)
        .field(
            "registered",
            format!("block {}, last heartbeat {}", runner.registered_height, runner.last_heartbeat_height),
        );
    for unbonding in &runner.unbonding {
        text.field("unbonding", format!("{} from block {}", amount_text(unbonding.amount), unbonding.release_height));
    }
}

pub(crate) async fn runners(client: &Client, args: RunnersArgs) -> Result<Report> {
    let mut text = Text::default();
    if let Some(address) = args.address {
        let runner = client
            .runner(&address)
            .await
            .context("cannot read the runner")?
            .ok_or_else(|| anyhow!("{address} has never registered as a runner"))?;
        runner_text(&mut text, &runner);
        return Report::new(text, &runner);
    }
    if let Some(address) = args.delegations_of {
        let list = client.delegations(&address, args.offset, args.limit).await.context("cannot list delegations")?;
        text.field("delegator", address).field("delegations", list.total_count);
        for delegation in &list.delegations {
            text.line(format!(
                "{}  {} since block {}, rewards {}",
                delegation.runner,
                amount_text(delegation.amount),
                delegation.since_height,
                amount_text(delegation.rewards)
            ));
            for pending in &delegation.pending {
                text.line(format!(
                    "    unbonding {} from block {}",
                    amount_text(pending.amount),
                    pending.release_height
                ));
            }
        }
        return Report::new(text, &list);
    }
    let list = client.active_runners(args.offset, args.limit).await.context("cannot list runners")?;
    text.field("registered runners", list.total_count);
    for runner in &list.runners {
        text.line(format!(
            "{}  {}  stake {}  delegated {}  {} per job  reputation {}  [{}]",
            runner.address,
            runner.health,
            amount_text(runner.stake),
            amount_text(runner.delegated_stake),
            amount_text(runner.rate_card.price_per_job),
            runner.reputation,
            runner.capabilities.job_types.join(", ")
        ));
    }
    Report::new(text, &list)
}

pub(crate) async fn delegate(client: &Client, args: DelegationArgs) -> Result<Report> {
    let call = RegistryCall::Delegate { runner: args.runner };
    send(client, &args.sending, &call, args.amount, |text| {
        text.field("runner", args.runner).field("delegate", amount_text(args.amount));
    })
    .await
}

pub(crate) async fn undelegate(client: &Client, args: DelegationArgs) -> Result<Report> {
    let call = RegistryCall::Undelegate { runner: args.runner, amount: args.amount };
    send(client, &args.sending, &call, 0, |text| {
        text.field("runner", args.runner).field("undelegate", amount_text(args.amount));
    })
    .await
}

pub(crate) async fn withdraw(client: &Client, args: WithdrawArgs) -> Result<Report> {
    let call = RegistryCall::Withdraw { runner: args.runner };
    send(client, &args.sending, &call, 0, |text| {
        text.field("runner", args.runner);
    })
    .await
}

async fn send(
    client: &Client,
    sending: &RegistrySending,
    call: &RegistryCall,
    value: u128,
    describe: impl FnOnce(&mut Text),
) -> Result<Report> {
    let wallet = crate::project::wallet(sending.key.as_deref())?;
    let mut text = Text::default();
    describe(&mut text);
    sign_and_submit(client, &wallet, TxBuilder::registry(call, value), text, !sending.no_wait).await
}
