//! `drover job ...`: jobs through the job dispatcher (`0x00…02`).
//!
//! `submit` signs a dispatcher `submit` with the escrow as value (by default exactly `runners ×
//! max_price`) and limits that cover its first assignment attempt, waits for its outcome unless
//! `--no-wait`, and prints the job id (known before inclusion: `keccak256(submitter ‖
//! seq_be8)` with the submitter's count of earlier submissions, read from the chain). `status`,
//! `results` and `verified` read the job routes; `cancel` ends a job before its verdict. Input
//! is text (`--input`), a file (`--input-file`) or hex (`--input-hex`); results print as text
//! when they are UTF-8, as hex otherwise.

use crate::{
    report::{Report, Text, amount_text},
    submission::sign_and_submit,
};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};
use drover_client::amount::parse_amount;
use drover_client::{Client, TxBuilder};
use drover_types::{
    H256,
    job::{Callback, JobCall, JobLimits, JobSpec, Verification, VerificationMode, job_id},
};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum JobCommand {
    /// Submit a job to the runners, with its escrow.
    Submit(SubmitArgs),
    /// Show a job's spec and status.
    Status { job: H256 },
    /// List the results runners submitted.
    Results {
        job: H256,
        #[arg(long, default_value_t = 0)]
        offset: u64,
        #[arg(long, default_value_t = 50)]
        limit: u64,
    },
    /// Show a job's verified result (fails while it has none).
    Verified { job: H256 },
    /// Cancel a job you submitted (runners that answered are paid, the rest is refunded).
    Cancel {
        job: H256,
        #[command(flatten)]
        sending: JobSending,
    },
}

#[derive(Debug, Args)]
pub(crate) struct SubmitArgs {
    /// Job type (runners offer types: echo, wasm, http, ...).
    #[arg(long = "type")]
    job_type: String,
    /// Input as text.
    #[arg(long, conflicts_with_all = ["input_file", "input_hex"])]
    input: Option<String>,
    /// Input read from a file.
    #[arg(long, conflicts_with = "input_hex")]
    input_file: Option<PathBuf>,
    /// Input as hex.
    #[arg(long)]
    input_hex: Option<String>,
    /// How many runners run it (1-16).
    #[arg(long, default_value_t = 1)]
    runners: u64,
    /// none (first result), majority (threshold equal results) or unanimous.
    #[arg(long, default_value = "none")]
    verification: String,
    /// Equal results that decide a majority (default: more than half the runners).
    #[arg(long)]
    threshold: Option<u64>,
    /// Most a runner may charge: base units or DRV (`0.5drv`).
    #[arg(long, value_parser = parse_amount)]
    max_price: u128,
    /// Blocks before the job fails without a verdict.
    #[arg(long, default_value_t = 100)]
    timeout_blocks: u64,
    /// Escrow sent with the job (default: runners × max price).
    #[arg(long, value_parser = parse_amount)]
    escrow: Option<u128>,
    #[command(flatten)]
    sending: JobSending,
}

/// How a dispatcher call is signed and sent.
#[derive(Debug, Args)]
pub(crate) struct JobSending {
    /// Key file of the sending account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Only submit; do not wait for the outcome.
    #[arg(long)]
    no_wait: bool,
}

/// Bytes as text when they are printable UTF-8, as `0x` hex otherwise.
fn bytes_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.chars().any(char::is_control) => text.to_owned(),
        _ => format!("0x{}", hex::encode(bytes)),
    }
}

/// The spec `args` describe.
fn spec(args: &SubmitArgs) -> Result<JobSpec> {
    let input = match (&args.input, &args.input_file, &args.input_hex) {
        (Some(text), _, _) => text.as_bytes().to_vec(),
        (_, Some(path), _) => std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
        (_, _, Some(hex)) => hex::decode(hex.trim_start_matches("0x")).context("--input-hex is not hex")?,
        _ => Vec::new(),
    };
    let mode = VerificationMode::parse(&args.verification)
        .ok_or_else(|| anyhow!("--verification is none, majority or unanimous"))?;
    let threshold = args.threshold.unwrap_or(match mode {
        VerificationMode::None => 1,
        VerificationMode::Majority => args.runners / 2 + 1,
        VerificationMode::Unanimous => args.runners,
    });
    let spec = JobSpec {
        job_type: args.job_type.clone(),
        input,
        runners: args.runners,
        verification: Verification { mode, threshold },
        max_price: args.max_price,
        timeout_blocks: args.timeout_blocks,
        callback: None::<Callback>,
    };
    spec.check(&JobLimits::CAPS).map_err(anyhow::Error::msg)?;
    Ok(spec)
}

pub(crate) async fn run(client: &Client, command: JobCommand) -> Result<Report> {
    let mut text = Text::default();
    match command {
        JobCommand::Submit(args) => {
            let spec = spec(&args)?;
            let least = spec.runner_escrow().ok_or_else(|| anyhow!("runners × max price is above 2^128"))?;
            let escrow = args.escrow.unwrap_or(least);
            if escrow < least {
                bail!("--escrow must be at least runners × max price = {}", amount_text(least));
            }
            let wallet = crate::project::wallet(args.sending.key.as_deref())?;
            let seq = client.job_submissions(&wallet.address()).await.context("cannot read the submission count")?;
            let job = job_id(&wallet.address(), seq);
            text.field("job", job).field("escrow", amount_text(escrow));
            let call = JobCall::Submit(spec);
            sign_and_submit(client, &wallet, TxBuilder::job(&call, escrow), text, !args.sending.no_wait).await
        }
        JobCommand::Status { job } => {
            let info = client.job(&job).await.context("cannot read the job")?.ok_or_else(|| anyhow!("no job {job}"))?;
            text.field("job", info.job_id)
                .field("status", &info.status)
                .field("type", &info.job_type)
                .field("submitter", info.submitter)
                .field(
                    "runners",
                    format!("{} ({} {})", info.runners, info.verification.mode, info.verification.threshold),
                )
                .field("max price", amount_text(info.max_price))
                .field("escrow", amount_text(info.escrow))
                .field("results", info.results_count)
                .field("blocks", format!("submitted {}, deadline {}", info.submitted_height, info.deadline_height));
            for runner in &info.assigned_runners {
                text.field("assigned", runner);
            }
            Report::new(text, &info)
        }
        JobCommand::Results { job, offset, limit } => {
            let list = client.job_results(&job, offset, limit).await.context("cannot read the results")?;
            text.field("job", job).field("results", list.total_count);
            for result in &list.results {
                text.line(format!("{}  block {}  {}", result.runner, result.height, bytes_text(&result.result)));
            }
            Report::new(text, &list)
        }
        JobCommand::Verified { job } => {
            let verdict = client
                .job_verified(&job)
                .await
                .context("cannot read the verdict")?
                .ok_or_else(|| anyhow!("job {job} has no verified result (see drover job status {job})"))?;
            text.field("job", verdict.job_id)
                .field("result", bytes_text(&verdict.result))
                .field("agreed", format!("{} of {}", verdict.consensus_count, verdict.total_runners))
                .field("block", verdict.height);
            Report::new(text, &verdict)
        }
        JobCommand::Cancel { job, sending } => {
            let wallet = crate::project::wallet(sending.key.as_deref())?;
            text.field("cancel", job);
            let call = JobCall::Cancel { job };
            sign_and_submit(client, &wallet, TxBuilder::job(&call, 0), text, !sending.no_wait).await
        }
    }
}
