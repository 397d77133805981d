//! Submitting a signed transaction and reporting the node's answer, for every command that
//! sends one (`transfer`, `deploy`, `call`, `upgrade`).

use crate::report::{Report, Text, amount_text, wait_status_word};
use anyhow::{Context, Result};
use drover_client::{Client, TxBuilder, TxContext, Wallet};
use drover_types::{
    Transaction,
    api::{SubmitStatus, WaitError, WaitStatus},
};

/// How long `--wait` asks the node to wait for the receipt (the node's maximum), in ms.
const SUBMIT_WAIT_TIMEOUT_MS: u64 = 10_000;

/// Fills in `builder`'s chain id, nonce and fees from the node, signs it with `wallet`, adds
/// the sender, nonce and hash to `text`, then submits it like [`submit_and_report`].
pub(crate) async fn sign_and_submit(
    client: &Client,
    wallet: &Wallet,
    builder: TxBuilder,
    text: Text,
    wait: bool,
) -> Result<Report> {
    let context = builder
        .fetch_context(client, wallet.address())
        .await
        .context("cannot prepare the transaction (chain id, nonce or fees)")?;
    sign_with_and_submit(client, wallet, &builder, &context, text, wait).await
}

/// Like [`sign_and_submit`], with the chain id, nonce and fees of `context` (already asked of
/// the node, as for a simulation of the same transaction).
pub(crate) async fn sign_with_and_submit(
    client: &Client,
    wallet: &Wallet,
    builder: &TxBuilder,
    context: &TxContext,
    mut text: Text,
    wait: bool,
) -> Result<Report> {
    let tx = builder.sign(context, wallet)?;
    text.field("from", wallet.address()).field("nonce", tx.nonce).field("hash", tx.hash());
    submit_and_report(client, &tx, text, wait).await
}

/// Submits a signed transaction and reports the node's answer: admission only, or (with
/// `wait`) the outcome once included. A refusal or a non-success outcome fails the command.
pub(crate) async fn submit_and_report(client: &Client, tx: &Transaction, text: Text, wait: bool) -> Result<Report> {
    let hash = tx.hash();
    let refused = |code: Option<u16>, error: Option<&str>, message: Option<&str>| {
        format!(
            "the node refused transaction {hash}: {} (code {}): {}",
            error.unwrap_or("unknown"),
            code.map_or_else(|| "?".to_owned(), |c| c.to_string()),
            message.unwrap_or("no message")
        )
    };
    if !wait {
        let response = client.submit(std::slice::from_ref(tx)).await.context("the transaction was not submitted")?;
        let mut report = Report::new(text, &response)?;
        match response.results.iter().find(|r| r.hash == hash) {
            Some(result) if result.status == SubmitStatus::Accepted => {
                report.text.field("status", "accepted into the mempool");
            }
            Some(result) => {
                report.failure = Some(refused(result.code, result.error.as_deref(), result.message.as_deref()));
            }
            None => report.failure = Some(format!("the node's answer does not mention transaction {hash}")),
        }
        return Ok(report);
    }
    let response = client
        .submit_wait(std::slice::from_ref(tx), SUBMIT_WAIT_TIMEOUT_MS)
        .await
        .context("the transaction was not submitted")?;
    let mut report = Report::new(text, &response)?;
    let Some(result) = response.results.iter().find(|r| r.hash == hash) else {
        report.failure = Some(format!("the node's answer does not mention transaction {hash}"));
        return Ok(report);
    };
    let text = &mut report.text;
    match result.status {
        WaitStatus::Rejected => {
            let error = match &result.error {
                Some(WaitError::Admission(name)) => Some(name.as_str()),
                _ => None,
            };
            report.failure = Some(refused(result.code, error, result.message.as_deref()));
            return Ok(report);
        }
        WaitStatus::Pending => {
            text.field("status", "pending: not included before the wait ended")
                .line(format!("Check later with: drover tx {hash}"));
            return Ok(report);
        }
        WaitStatus::Success | WaitStatus::Reverted | WaitStatus::Failed => {}
    }
    let status = wait_status_word(result.status);
    text.field("status", status);
    if let Some(height) = result.block_height {
        text.field("block", height);
    }
    if let Some(cycles) = result.cycles_used {
        text.field("cycles used", cycles);
    }
    if let Some(fee) = result.fee {
        text.field("fee", amount_text(fee));
    }
    if let Some(reason) = &result.revert_reason {
        text.field("revert reason", reason);
    }
    if let Some(WaitError::Execution(error)) = &result.error {
        text.field("error", format!("{} ({}): {}", error.code, error.category, error.message)).field("fix", &error.fix);
    }
    if result.status != WaitStatus::Success {
        report.failure = Some(format!("transaction {hash} was included but {status}"));
    }
    Ok(report)
}
