//! What client commands print: a [`Report`] holds both renderings of a command's result
//! (human-readable [`Text`] and the API's JSON records) and whether the command failed; the
//! helpers here spell amounts, statuses, receipts and times the same way in every command.

use anyhow::{Context, Result, bail};
use drover_client::amount::format_drv;
use drover_types::api::{EventInfo, ExecErrorInfo, HealthStatus, ReceiptInfo, ReceiptStatus, WaitStatus};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// Width of the label column of human-readable output, in characters.
const LABEL_WIDTH_CHARS: usize = 16;

/// What a command prints, in both renderings, and whether it ends in failure.
pub(crate) struct Report {
    pub(crate) text: Text,
    pub(crate) json: String,
    /// Printed output still stands, but the command exits with this error.
    pub(crate) failure: Option<String>,
}

impl Report {
    pub(crate) fn new<T: Serialize>(text: Text, record: &T) -> Result<Self> {
        let json = serde_json::to_string_pretty(record).context("cannot encode the JSON output")?;
        Ok(Self { text, json, failure: None })
    }

    /// Writes the chosen rendering in one piece (a closed stdout is an error, not a panic), then
    /// fails if the command did.
    pub(crate) fn print(self, json: bool) -> Result<()> {
        let mut out = if json { self.json } else { self.text.0 };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes()).and_then(|()| stdout.flush()).context("cannot write to standard output")?;
        match self.failure {
            Some(failure) => bail!(failure),
            None => Ok(()),
        }
    }
}

/// Human-readable output: `label: value` lines with aligned values.
#[derive(Default)]
pub(crate) struct Text(pub(crate) String);

impl Text {
    pub(crate) fn field(&mut self, label: &str, value: impl std::fmt::Display) -> &mut Self {
        let label = format!("{label}:");
        // Writing to a String cannot fail.
        let _ = writeln!(self.0, "{label:<width$} {value}", width = LABEL_WIDTH_CHARS - 1);
        self
    }

    pub(crate) fn line(&mut self, line: impl std::fmt::Display) -> &mut Self {
        let _ = writeln!(self.0, "{line}");
        self
    }
}

/// How an execution ended, as the API spells it.
pub(crate) fn status_text(status: ReceiptStatus) -> &'static str {
    match status {
        ReceiptStatus::Success => "success",
        ReceiptStatus::Reverted => "reverted",
        ReceiptStatus::Failed => "failed",
    }
}

pub(crate) fn receipt_text(text: &mut Text, receipt: &ReceiptInfo) {
    text.field("outcome", status_text(receipt.status))
        .field("used", format!("{} cycles, {} cells", receipt.cycles_used, receipt.cells_used))
        .field("fee", format!("{} (burned {}, tip {})", amount_text(receipt.fee), receipt.fee_burned, receipt.fee_tip));
    outcome_text(text, receipt.revert_reason.as_deref(), receipt.error.as_ref(), &receipt.events);
}

/// How a run ended beyond its status, as a receipt and a simulation both tell it: the revert
/// reason, the E-code with its fix, and the events.
pub(crate) fn outcome_text(
    text: &mut Text,
    revert_reason: Option<&str>,
    error: Option<&ExecErrorInfo>,
    events: &[EventInfo],
) {
    if let Some(reason) = revert_reason {
        text.field("revert reason", reason);
    }
    if let Some(error) = error {
        text.field("error", format!("{} ({}): {}", error.code, error.category, error.message)).field("fix", &error.fix);
    }
    text.field("events", events.len());
    for event in events {
        text.line(format!("  {} from {}: {} bytes", event.topic, event.address, event.data.len()));
    }
}

/// `1.5 DRV (1500000000 base units)`.
pub(crate) fn amount_text(base_units: u128) -> String {
    format!("{} ({base_units} base units)", format_drv(base_units))
}

pub(crate) fn health_word(status: HealthStatus) -> &'static str {
    match status {
        HealthStatus::Ok => "ok",
        HealthStatus::Degraded => "degraded",
    }
}

pub(crate) fn wait_status_word(status: WaitStatus) -> &'static str {
    match status {
        WaitStatus::Success => "success",
        WaitStatus::Reverted => "reverted",
        WaitStatus::Failed => "failed",
        WaitStatus::Pending => "pending",
        WaitStatus::Rejected => "rejected",
    }
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs())
}

/// `1700000000 (Unix seconds, 12s ago)`; `none yet` for 0 (no block finalized).
pub(crate) fn timestamp_with_age(timestamp: u64, now: u64) -> String {
    if timestamp == 0 {
        return "none yet".to_owned();
    }
    match now.checked_sub(timestamp) {
        Some(age) => format!("{timestamp} (Unix seconds, {} ago)", format_duration(age)),
        None => format!("{timestamp} (Unix seconds, {} ahead of this clock)", format_duration(timestamp - now)),
    }
}

/// `45s`, `3m 05s`, `2h 03m 05s`, `4d 02h 03m`.
pub(crate) fn format_duration(seconds: u64) -> String {
    let (days, hours, minutes, secs) = (seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60, seconds % 60);
    match (days, hours, minutes) {
        (0, 0, 0) => format!("{secs}s"),
        (0, 0, _) => format!("{minutes}m {secs:02}s"),
        (0, _, _) => format!("{hours}h {minutes:02}m {secs:02}s"),
        _ => format!("{days}d {hours:02}h {minutes:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_times() {
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(185), "3m 05s");
        assert_eq!(format_duration(7_385), "2h 03m 05s");
        assert_eq!(format_duration(4 * 86_400 + 7_385), "4d 02h 03m");
        assert!(format_duration(u64::MAX).starts_with("213503982334601d"));
        assert_eq!(timestamp_with_age(0, 100), "none yet");
        assert_eq!(timestamp_with_age(88, 100), "88 (Unix seconds, 12s ago)");
        assert_eq!(timestamp_with_age(103, 100), "103 (Unix seconds, 3s ahead of this clock)");
        assert_eq!(amount_text(1_500_000_000), "1.5 DRV (1500000000 base units)");
    }

    #[test]
    fn text_aligns_labels() {
        let mut text = Text::default();
        text.field("a", 1).field("a much longer label", 2).line("free");
        assert_eq!(text.0, format!("a:{}1\na much longer label: 2\nfree\n", " ".repeat(LABEL_WIDTH_CHARS - 2)));
    }
}
