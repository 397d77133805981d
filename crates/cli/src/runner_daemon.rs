//! `drover runner`: the reference runner daemon — registration and heartbeats.
//!
//! On start it reads its record (`GET /runner/{address}`) and registers with `--stake` when it
//! is not a registered runner. Then it keeps itself healthy: whenever its last heartbeat is
//! `--heartbeat-blocks` old it sends one through the signed flow (`heartbeat_payload`, sign the
//! message, `POST heartbeat`), so the node builds the transaction and the daemon only signs.
//! Every request that fails (the node restarting, a refusal) is logged and retried after
//! [`RETRY_DELAY_MS`]; the daemon itself stops only on SIGINT or SIGTERM. Its state is the
//! chain's: a restarted daemon reads its record again and neither registers twice nor skips a
//! heartbeat. Running jobs comes with the job dispatcher (`docs/runners.md`).

use crate::report::Text;
use crate::submission::sign_and_submit;
use anyhow::{Context, Result, bail};
use clap::Args;
use drover_client::amount::parse_amount;
use drover_client::{Client, TxBuilder, Wallet};
use drover_types::{
    H256,
    api::SignedFlowRequest,
    runner::{Capabilities, HEARTBEAT_GAP_BLOCKS, MIN_RUNNER_STAKE, RateCard, RegistryCall},
};
use std::{path::PathBuf, time::Duration};

/// Wait between two looks at the chain, in milliseconds.
const POLL_INTERVAL_MS: u64 = 500;
/// Wait after a failed request before trying again, in milliseconds.
const RETRY_DELAY_MS: u64 = 2_000;

#[derive(Debug, Args)]
pub(crate) struct RunnerArgs {
    /// Key file of the runner's account.
    #[arg(long)]
    key: PathBuf,
    /// Stake to register with when not registered: base units or DRV (`1.5drv`).
    #[arg(long, value_parser = parse_amount, default_value_t = MIN_RUNNER_STAKE)]
    stake: u128,
    /// Price per job, in base units or DRV.
    #[arg(long, value_parser = parse_amount, default_value_t = 0)]
    price: u128,
    /// Job types offered, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "echo")]
    job_types: Vec<String>,
    /// Jobs run at once.
    #[arg(long, default_value_t = 4)]
    max_concurrent_jobs: u64,
    /// Send a heartbeat when the last one is this many blocks old (below the chain's gap of
    /// 50, so the runner never turns unhealthy).
    #[arg(long, default_value_t = HEARTBEAT_GAP_BLOCKS / 5)]
    heartbeat_blocks: u64,
}

/// Runs the daemon until SIGINT or SIGTERM.
pub(crate) async fn run(args: RunnerArgs, rpc_url: &str) -> Result<()> {
    if args.heartbeat_blocks == 0 || args.heartbeat_blocks >= HEARTBEAT_GAP_BLOCKS {
        bail!("--heartbeat-blocks must be 1 to {}", HEARTBEAT_GAP_BLOCKS - 1);
    }
    let capabilities =
        Capabilities { job_types: args.job_types.clone(), max_concurrent_jobs: args.max_concurrent_jobs };
    capabilities.check().map_err(anyhow::Error::msg).context("invalid --job-types or --max-concurrent-jobs")?;
    let wallet = Wallet::load(&args.key)?;
    let client = Client::new(rpc_url).context("check --rpc-url or DROVER_RPC_URL")?;
    println!("runner {} on {}", wallet.address(), client.base_url());
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    // Height at which this process last sent a heartbeat: not another one until it is due
    // again, even while the first waits for its block.
    let mut sent_at = None;
    loop {
        let delay = match step(&client, &wallet, &args, &capabilities, &mut sent_at).await {
            Ok(()) => POLL_INTERVAL_MS,
            Err(error) => {
                eprintln!("runner: {error:#}; trying again in {RETRY_DELAY_MS} ms");
                RETRY_DELAY_MS
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(delay)) => {}
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        }
    }
    println!("runner {} stopped", wallet.address());
    Ok(())
}

/// One look at the chain: register if needed, heartbeat if due.
async fn step(
    client: &Client,
    wallet: &Wallet,
    args: &RunnerArgs,
    capabilities: &Capabilities,
    sent_at: &mut Option<u64>,
) -> Result<()> {
    let runner = wallet.address();
    let record = client.runner(&runner).await.context("cannot read the runner's record")?;
    let Some(record) = record.filter(|r| r.health != "deregistered") else {
        let register = RegistryCall::Register {
            rate_card: RateCard { price_per_job: args.price },
            capabilities: capabilities.clone(),
        };
        let report =
            sign_and_submit(client, wallet, TxBuilder::registry(&register, args.stake), Text::default(), true).await?;
        if let Some(failure) = report.failure {
            bail!("registration failed: {failure}");
        }
        println!("runner {runner} registered with a stake of {} base units", args.stake);
        return Ok(());
    };
    let height = client.height().await.context("cannot read the chain height")?;
    let last = record.last_heartbeat_height.max(sent_at.unwrap_or(0));
    if height.saturating_sub(last) < args.heartbeat_blocks {
        return Ok(());
    }
    let payload = client.heartbeat_payload(&runner).await.context("cannot fetch the heartbeat payload")?;
    let message: [u8; 32] =
        payload.message_to_sign_base64.as_slice().try_into().context("the node's message to sign is not 32 bytes")?;
    let signature = wallet.secret_key().sign_prehash(&H256(message)).to_rsv();
    let request = SignedFlowRequest {
        unsigned_transaction_base64: payload.unsigned_transaction_base64,
        signature: format!("0x{}", hex::encode(signature)),
    };
    let answer = client.post_heartbeat(&runner, &request).await.context("the heartbeat was not admitted")?;
    if answer.accepted == 0 {
        bail!("the heartbeat was refused: {}", answer.message.unwrap_or_default());
    }
    *sent_at = Some(height);
    println!("runner {runner}: heartbeat at height {height} (nonce {})", payload.nonce);
    Ok(())
}
