//! Conversions of the node's records (blocks, indexed logs and runs, read outcomes) into the
//! API's JSON records.

use crate::{
    block::{Block, to_h256},
    indexes::{LOG_POSITION_LEN, LogEntry, LogOrigin as IndexedOrigin, RUN_POSITION_LEN, RunEntry},
};
use commonware_cryptography::sha256;
use drover_execution::SystemRunKind;
use drover_types::exec_error::ExecCode;
use drover_types::{
    ErrorCode, H256,
    api::{
        ActorReadResponse, BlockInfo, ExecErrorInfo, ExecutionTrace, LogInfo, LogOrigin, ReceiptStatus, RunKind,
        SystemRunInfo,
    },
    error::ApiError,
};
use drover_vm::{Outcome, Status};

/// The API answer for a read-only call's outcome; the refusals the spec names become errors.
pub(super) fn read_response(
    outcome: Outcome,
    trace: Option<ExecutionTrace>,
    block_height: u64,
    state_root: H256,
) -> Result<ActorReadResponse, ApiError> {
    let (status, revert_reason) = match &outcome.status {
        Status::Success => (ReceiptStatus::Success, None),
        Status::Revert { reason } => (ReceiptStatus::Reverted, Some(String::from_utf8_lossy(reason).into_owned())),
        Status::Trap(error) => {
            let refusal = match error.code {
                ExecCode::HandlerNotFound => Some(ErrorCode::HandlerNotFound),
                ExecCode::ReadOnlyViolation => Some(ErrorCode::ReadOnlyViolation),
                ExecCode::OutOfCycles | ExecCode::OutOfCells => Some(ErrorCode::ReadLimitsExceeded),
                _ => None,
            };
            if let Some(code) = refusal {
                return Err(ApiError::new(code, error.message.clone()));
            }
            (ReceiptStatus::Failed, None)
        }
    };
    Ok(ActorReadResponse {
        status,
        error: outcome.error().as_ref().map(Into::into),
        result: outcome.result,
        cycles_used: outcome.cycles_used,
        cells_used: outcome.cells_used,
        block_height,
        state_root,
        revert_reason,
        trace,
    })
}

const _: () = assert!(LOG_POSITION_LEN == drover_rpc::routes::actors::LOG_CURSOR_BYTES);
const _: () = assert!(RUN_POSITION_LEN == drover_rpc::routes::actors::RUN_CURSOR_BYTES);

/// The API record of a logged event: the fields of its origin set, the others `null`.
pub(super) fn log_info(entry: LogEntry) -> LogInfo {
    let mut info = LogInfo {
        topic: entry.event.topic,
        data: entry.event.data,
        block_height: entry.height,
        origin: LogOrigin::Transaction,
        tx_hash: None,
        tx_index: None,
        timer_id: None,
        message_seq: None,
        from: None,
        event_index: entry.event_index,
    };
    match entry.origin {
        IndexedOrigin::Transaction { hash } => {
            info.tx_hash = Some(hash);
            info.tx_index = Some(entry.index);
        }
        IndexedOrigin::Timer { id } => {
            info.origin = LogOrigin::Timer;
            info.timer_id = Some(id);
        }
        IndexedOrigin::Delivery { seq, from } => {
            info.origin = LogOrigin::Delivery;
            info.message_seq = Some(seq);
            info.from = Some(from);
        }
    }
    info
}

/// The API record of an indexed system run: the fields of its kind set, the others `null`.
pub(super) fn run_info(entry: RunEntry) -> SystemRunInfo {
    let (kind, timer_id, message_seq, from) = match entry.kind {
        SystemRunKind::Timer { id } => (RunKind::Timer, Some(id), None, None),
        SystemRunKind::Delivery { seq, from } => (RunKind::Delivery, None, Some(seq), Some(from)),
    };
    SystemRunInfo {
        block_height: entry.height,
        kind,
        timer_id,
        message_seq,
        from,
        handler: entry.handler,
        status: entry.status.into(),
        cycles_used: entry.cycles_used,
        cells_used: entry.cells_used,
        fee: entry.fee.total(),
        fee_burned: entry.fee.burned,
        fee_tip: entry.fee.tip,
        revert_reason: entry.revert_reason,
        error: entry.error.as_ref().map(ExecErrorInfo::from),
        event_count: entry.event_count,
    }
}

/// The API record of a finalized block: its header, its transaction hashes in block order, and
/// its finalization certificate's hex where known.
pub(super) fn block_info(
    block: &Block,
    digest: sha256::Digest,
    transactions: Vec<H256>,
    finalization: Option<String>,
) -> BlockInfo {
    BlockInfo {
        height: block.height.get(),
        hash: to_h256(&digest),
        parent_hash: to_h256(&block.parent),
        timestamp: block.timestamp_secs(),
        timestamp_ms: block.timestamp_ms,
        proposer: block.proposer,
        view: block.context.round.view().get(),
        state_root: to_h256(&block.state_root),
        transactions_root: to_h256(&block.transactions_root),
        receipts_root: to_h256(&block.receipts_root),
        ops_root: to_h256(&block.ops_root),
        sync_range_start: block.range.start().as_u64(),
        op_count: block.range.end().as_u64(),
        transactions,
        cycles_used: block.cycles_used,
        cells_used: block.cells_used,
        basefee_cycle: block.basefee_cycle.to_string(),
        basefee_cell: block.basefee_cell.to_string(),
        finalization,
    }
}
