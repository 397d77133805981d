//! What the node's simulation of a transaction, and the trace of a simulation or a read, tell
//! a command: [`size_limits`] sizes the limits of a transaction about to be sent from its
//! simulation (for every command that sends one with open limits), [`simulation_text`] and
//! [`trace_text`] print what a simulation found and the handlers a trace walked through.
//!
//! The actor commands (`call`, `deploy`, `upgrade`, `read --trace`) and `simulate` share them.

use crate::report::{Report, Text, amount_text, outcome_text, status_text};
use anyhow::{Context, Result};
use drover_client::{Client, TxBuilder, TxContext};
use drover_types::Address;
use drover_types::api::{CallTrace, ExecutionTrace, ReceiptStatus, SimulationInfo, TraceStep, TracedValue};

/// Sizes the open limits of `builder`, sent by `sender`, from the node's simulation of it (and
/// notes them in `text`, with the simulation's trace when `trace` asks for it): `Ok` with the
/// builder to send and the chain id, nonce and fees to sign it with (those it was simulated
/// with, asked of the node once), or `Err` with the report of a transaction with open limits
/// that the simulation found would not succeed, which is not to be sent. A transaction whose
/// limits are both set is simulated only for its trace, and sent whatever the simulation found.
pub(crate) async fn size_limits(
    client: &Client,
    sender: Address,
    builder: TxBuilder,
    mut text: Text,
    trace: bool,
) -> Result<Result<(TxBuilder, TxContext, Text), Report>> {
    let context = builder
        .fetch_context(client, sender)
        .await
        .context("cannot prepare the transaction (chain id, nonce or fees)")?;
    let open = !builder.limits_set();
    if !open && !trace {
        return Ok(Ok((builder, context, text)));
    }
    let mut request = builder.simulate_request(sender, &context)?;
    request.trace = trace.then_some(true);
    let simulation = client.simulate(&request).await.context("cannot simulate the transaction")?;
    if open && simulation.status != ReceiptStatus::Success {
        simulation_text(&mut text, &simulation);
        let mut report = Report::new(text, &simulation)?;
        report.failure = Some(format!(
            "a simulation finds the transaction would be {}: nothing was sent (set --cycles and --cells to send it \
             anyway)",
            status_text(simulation.status)
        ));
        return Ok(Err(report));
    }
    if open {
        text.field(
            "limits",
            format!(
                "{} cycles, {} cells (simulated: {} and {} used, +{}%)",
                simulation.suggested_cycles_limit,
                simulation.suggested_cells_limit,
                simulation.cycles_used,
                simulation.cells_used,
                simulation.margin_percent
            ),
        );
    }
    if let Some(trace) = &simulation.trace {
        trace_text(&mut text, trace);
    }
    Ok(Ok((builder.limits_from(&simulation), context, text)))
}

pub(crate) fn simulation_text(text: &mut Text, simulation: &SimulationInfo) {
    text.field("simulated", status_text(simulation.status))
        .field("at height", simulation.block_height)
        .field("used", format!("{} cycles, {} cells", simulation.cycles_used, simulation.cells_used))
        .field("of limits", format!("{} cycles, {} cells", simulation.cycles_limit, simulation.cells_limit))
        .field("fee", amount_text(simulation.fee))
        .field(
            "suggested",
            format!(
                "--cycles {} --cells {} (+{}%)",
                simulation.suggested_cycles_limit, simulation.suggested_cells_limit, simulation.margin_percent
            ),
        );
    outcome_text(text, simulation.revert_reason.as_deref(), simulation.error.as_ref(), &simulation.events);
    if let Some(trace) = &simulation.trace {
        trace_text(text, trace);
    }
}

/// The lines of a trace (of a read or a simulation): one per handler entered and per step.
pub(crate) fn trace_text(text: &mut Text, trace: &ExecutionTrace) {
    text.line("trace:");
    match &trace.call {
        Some(call) => trace_lines(text, call, 1),
        None => {
            text.line("  no handler ran");
        }
    }
    if trace.omitted_steps > 0 {
        text.line(format!("  ({} more steps not shown)", trace.omitted_steps));
    }
}

/// A traced value: its bytes in hex (the head, if cut), its length, and its text when printable.
fn traced_value(value: &TracedValue) -> String {
    let mut out = format!("0x{}", hex::encode(&value.head));
    if (value.head.len() as u64) < value.len {
        out.push('…');
    }
    out.push_str(&format!(" ({} bytes", value.len));
    if let Ok(text) = std::str::from_utf8(&value.head)
        && !text.is_empty()
        && text.chars().all(|c| !c.is_control())
    {
        out.push_str(&format!(", {text:?}"));
    }
    out.push(')');
    out
}

/// One line per handler entered and per step, indented by depth.
fn trace_lines(text: &mut Text, call: &CallTrace, depth: usize) {
    let indent = "  ".repeat(depth);
    let handler = match &call.library {
        Some(library) => format!("library {library}::{}", call.handler),
        None => call.handler.clone(),
    };
    let mut line = format!(
        "{indent}{} {handler}: {}, {} cycles, {} cells",
        call.actor,
        status_text(call.status),
        call.cycles_used,
        call.cells_used
    );
    if call.value > 0 {
        line.push_str(&format!(", value {}", amount_text(call.value)));
    }
    if let Some(reason) = &call.revert_reason {
        line.push_str(&format!(" — reverted: {reason:?}"));
    }
    if let Some(error) = &call.error {
        line.push_str(&format!(" — {}: {}", error.code, error.message));
    }
    text.line(line);
    // Keys in hex, and as text when they are (as most keys actors choose are).
    let key = |key: &[u8]| match std::str::from_utf8(key) {
        Ok(text) if !text.is_empty() && text.chars().all(|c| c.is_ascii_graphic()) => {
            format!("0x{} ({text:?})", hex::encode(key))
        }
        _ => format!("0x{}", hex::encode(key)),
    };
    for step in &call.steps {
        let line = match step {
            TraceStep::StorageGet { key: k, value } => {
                format!("read {} -> {}", key(k), value.as_ref().map_or_else(|| "absent".to_owned(), traced_value))
            }
            TraceStep::StorageNext { after, key: found, value } => format!(
                "next after {} -> {}",
                after.as_deref().map_or_else(|| "the start".to_owned(), key),
                match (found, value) {
                    (Some(k), Some(v)) => format!("{} = {}", key(k), traced_value(v)),
                    _ => "the end".to_owned(),
                }
            ),
            TraceStep::StorageSet { key: k, value } => format!("write {} = {}", key(k), traced_value(value)),
            TraceStep::StorageRemove { key: k, present } => {
                format!("remove {} ({})", key(k), if *present { "was present" } else { "was absent" })
            }
            TraceStep::Event { topic, data } => format!("event {topic:?} {}", traced_value(data)),
            TraceStep::Transfer { to, amount } => format!("transfer {} to {to}", amount_text(*amount)),
            TraceStep::Send { to, handler, payload_len, value, cycles } => format!(
                "send {handler} to {to} ({payload_len} payload bytes, value {}, {cycles} cycles)",
                amount_text(*value)
            ),
            TraceStep::TimerSchedule { height, handler, cycles } => {
                format!("timer {handler} at height {height} ({cycles} cycles)")
            }
            TraceStep::TimerCancel { id, cancelled } => {
                format!("cancel timer {id} ({})", if *cancelled { "cancelled" } else { "none pending" })
            }
            TraceStep::Call { call: nested } => {
                trace_lines(text, nested, depth + 1);
                continue;
            }
        };
        text.line(format!("{indent}  {line}"));
    }
}
