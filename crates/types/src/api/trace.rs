//! The trace of an actor execution (`POST /actor/read` with `"trace": true`): each handler
//! entered (the outermost one and every nested call or library call), with what it spent, how it
//! ended, and, in order, the host calls that touched state or reached out — keys read and
//! written, events, transfers, messages, timers — and the calls it made.
//!
//! A trace is bounded: at most [`TRACE_STEPS_MAX`] steps (calls included) are kept, the rest
//! counted in `omitted_steps`, and a value is shown up to [`TRACE_VALUE_BYTES_MAX`] bytes with
//! its full length, so a trace is at most a few megabytes however much work the execution paid
//! for.

use super::encoding::hex_bytes;
use super::{ExecErrorInfo, ReceiptStatus};
use crate::Address;
use serde::{Deserialize, Serialize};

/// Steps a trace keeps (host calls and nested calls together); the rest are counted.
pub const TRACE_STEPS_MAX: usize = 4_096;
/// Bytes of a stored value a step shows (its full length is given beside it).
pub const TRACE_VALUE_BYTES_MAX: usize = 64;

/// A traced execution: the outermost handler, and the steps that did not fit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExecutionTrace {
    /// The outermost handler (`None` only if it never started).
    pub call: Option<CallTrace>,
    /// Steps beyond [`TRACE_STEPS_MAX`], not shown.
    pub omitted_steps: u64,
}

/// One handler run: the outermost one or a nested call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CallTrace {
    /// The actor whose handler ran (for a library call, the library's publisher).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub actor: Address,
    /// The handler.
    pub handler: String,
    /// The library's name, for a `library_call` (`null` otherwise).
    pub library: Option<String>,
    /// Value sent with the call, base units.
    pub value: u128,
    /// How it ended: `success`, `reverted` or `failed`.
    pub status: ReceiptStatus,
    /// Cycles it used, nested calls included.
    pub cycles_used: u64,
    /// Cells it used, nested calls included.
    pub cells_used: u64,
    /// Its revert reason (`reverted` only).
    pub revert_reason: Option<String>,
    /// Why it failed (`failed` only), or the refusal that kept it from starting.
    pub error: Option<ExecErrorInfo>,
    /// What it did, in order.
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub steps: Vec<TraceStep>,
}

/// A host call of a traced handler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum TraceStep {
    /// `storage_get`: a key read, and its value (`null` when absent).
    StorageGet {
        /// The key (hex).
        #[serde(with = "hex_bytes")]
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        key: Vec<u8>,
        /// The value read, if any.
        value: Option<TracedValue>,
    },
    /// `storage_next`: the entry after `after` (from the start when `null`), if any.
    StorageNext {
        /// The cursor (hex), `null` from the start.
        #[serde(with = "super::encoding::opt_hex_bytes")]
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        after: Option<Vec<u8>>,
        /// The key found (hex), `null` at the end.
        #[serde(with = "super::encoding::opt_hex_bytes")]
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        key: Option<Vec<u8>>,
        /// Its value.
        value: Option<TracedValue>,
    },
    /// `storage_set`: a key written.
    StorageSet {
        /// The key (hex).
        #[serde(with = "hex_bytes")]
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        key: Vec<u8>,
        /// The value written.
        value: TracedValue,
    },
    /// `storage_remove`: a key removed, and whether it was present.
    StorageRemove {
        /// The key (hex).
        #[serde(with = "hex_bytes")]
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        key: Vec<u8>,
        /// Whether it held a value.
        present: bool,
    },
    /// `emit`: an event.
    Event {
        /// Its topic.
        topic: String,
        /// Its data.
        data: TracedValue,
    },
    /// `transfer`: value moved from the actor.
    Transfer {
        /// The recipient.
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        to: Address,
        /// Base units.
        amount: u128,
    },
    /// `send`: a message queued for a later block.
    Send {
        /// The recipient actor.
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        to: Address,
        /// Its handler.
        handler: String,
        /// Payload bytes.
        payload_len: u64,
        /// Value sent, base units.
        value: u128,
        /// Cycles attached to the delivery.
        cycles: u64,
    },
    /// `timer_schedule`: a timer set.
    TimerSchedule {
        /// Height it fires at.
        height: u64,
        /// The handler it runs.
        handler: String,
        /// Cycles attached.
        cycles: u64,
    },
    /// `timer_cancel`: whether a pending timer was cancelled.
    TimerCancel {
        /// The timer's id.
        id: u64,
        /// Whether one was pending.
        cancelled: bool,
    },
    /// A nested call (`call`, `job_submit`, `library_call`), with its own steps.
    Call {
        /// The callee's frame.
        call: CallTrace,
    },
}

/// A value as a trace shows it: its first [`TRACE_VALUE_BYTES_MAX`] bytes and its length.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TracedValue {
    /// The first bytes (hex).
    #[serde(with = "hex_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub head: Vec<u8>,
    /// The whole value's length, in bytes.
    pub len: u64,
}

impl TracedValue {
    /// The traced form of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        TracedValue { head: bytes[..bytes.len().min(TRACE_VALUE_BYTES_MAX)].to_vec(), len: bytes.len() as u64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_tagged_by_operation_and_values_cut_to_their_head() {
        let step = TraceStep::StorageGet { key: b"count".to_vec(), value: Some(TracedValue::of(&[7; 100])) };
        let json = serde_json::to_value(&step).unwrap();
        assert_eq!(json["op"], "storage_get");
        assert_eq!(json["key"], "0x636f756e74");
        assert_eq!(json["value"]["len"], 100);
        assert_eq!(json["value"]["head"].as_str().unwrap().len(), 2 + 2 * TRACE_VALUE_BYTES_MAX);
        assert_eq!(serde_json::from_value::<TraceStep>(json).unwrap(), step);
    }
}
