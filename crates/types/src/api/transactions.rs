//! Transactions: submissions and their per-item results (`POST /submit`, `/submit_wait`),
//! transactions and receipts (`GET /transaction/{hash}`, `.../receipt`, `/mempool/...`).

use super::encoding::base64_bytes;
use crate::{Address, Event, ExecError, H256, Receipt, Signature, TxStatus, VerifiedTransaction, error::ApiError};
use serde::{Deserialize, Serialize};

/// Admission outcome of one submitted transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SubmitStatus {
    Accepted,
    Rejected,
}

/// One entry of `results` of `POST /submit`, in submission order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitResult {
    /// Transaction hash; keccak256 of the element's raw bytes when it did not decode.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    pub status: SubmitStatus,
    /// API error code, when rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// Snake-case name of the code, when rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl SubmitResult {
    pub fn accepted(hash: H256) -> Self {
        Self { hash, status: SubmitStatus::Accepted, code: None, error: None, message: None }
    }

    pub fn rejected(hash: H256, err: &ApiError) -> Self {
        Self {
            hash,
            status: SubmitStatus::Rejected,
            code: Some(err.code.code()),
            error: Some(err.code.name().to_owned()),
            message: Some(err.message.clone()),
        }
    }
}

/// `POST /submit` response. When no transaction was accepted, the first refusal's
/// `code`/`error`/`message` are repeated at the top level and the HTTP status is its status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitResponse {
    pub results: Vec<SubmitResult>,
    pub accepted: u64,
    pub rejected: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Outcome of one transaction of `POST /submit_wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum WaitStatus {
    /// Included and executed.
    Success,
    /// Included; execution reverted.
    Reverted,
    /// Included; a pre-check failed at execution time.
    Failed,
    /// Admitted, but no receipt before the timeout.
    Pending,
    /// Refused at admission.
    Rejected,
}

/// The `error` field of a `/submit_wait` result: the API error name for a transaction refused at
/// admission, or the execution error (E-code) of an included one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum WaitError {
    Admission(String),
    Execution(ExecErrorInfo),
}

/// One entry of `results` of `POST /submit_wait`, in submission order. Fields that do not apply
/// to the status are left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitWaitResult {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    pub status: WaitStatus,
    /// API error code, when rejected at admission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WaitError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_height: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells_used: Option<u64>,
    /// Total fee paid, in base units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee: Option<u128>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revert_reason: Option<String>,
}

impl SubmitWaitResult {
    /// A transaction refused at admission.
    pub fn rejected(hash: H256, err: &ApiError) -> Self {
        Self {
            status: WaitStatus::Rejected,
            code: Some(err.code.code()),
            error: Some(WaitError::Admission(err.code.name().to_owned())),
            message: Some(err.message.clone()),
            ..Self::pending(hash)
        }
    }

    /// An admitted transaction without a receipt yet.
    pub fn pending(hash: H256) -> Self {
        Self {
            hash,
            status: WaitStatus::Pending,
            code: None,
            error: None,
            message: None,
            block_height: None,
            cycles_used: None,
            cells_used: None,
            fee: None,
            revert_reason: None,
        }
    }

    /// An included transaction, from its receipt.
    pub fn executed(receipt: &Receipt) -> Self {
        Self {
            hash: receipt.tx_hash,
            status: match receipt.status {
                TxStatus::Success => WaitStatus::Success,
                TxStatus::Reverted => WaitStatus::Reverted,
                TxStatus::Failed => WaitStatus::Failed,
            },
            code: None,
            error: receipt.error.as_ref().map(|err| WaitError::Execution(ExecErrorInfo::from(err))),
            message: None,
            block_height: Some(receipt.block_height),
            cycles_used: Some(receipt.cycles_used),
            cells_used: Some(receipt.cells_used),
            fee: Some(receipt.fee.total()),
            revert_reason: receipt.revert_reason.clone(),
        }
    }
}

/// `POST /submit_wait` response; top-level error fields as in [`SubmitResponse`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitWaitResponse {
    pub results: Vec<SubmitWaitResult>,
    pub accepted: u64,
    pub rejected: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Whether a transaction record comes from the mempool or from a finalized block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TransactionState {
    Pending,
    Included,
}

/// A transaction signature in JSON: parity and `0x` hex of the 32-byte `r` and `s`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignatureInfo {
    pub y_parity: u8,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub r: H256,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub s: H256,
}

impl From<&Signature> for SignatureInfo {
    fn from(sig: &Signature) -> Self {
        Self { y_parity: sig.y_parity, r: H256(sig.r), s: H256(sig.s) }
    }
}

/// `GET /transaction/{hash}` and `GET /mempool/transaction/{hash}`: the transaction-array fields
/// by name, plus the hash, the recovered sender and, once included, where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransactionInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// Sender recovered from the signature.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    pub chain_id: u64,
    pub nonce: u64,
    /// `null` for a deploy.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    /// Base units.
    pub value: u128,
    pub cycles_limit: u64,
    pub cells_limit: u64,
    pub max_fee_per_cycle: u128,
    pub max_fee_per_cell: u128,
    pub tip_per_cycle: u128,
    pub tip_per_cell: u128,
    /// Standard padded base64.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub payload: Vec<u8>,
    pub signature: SignatureInfo,
    pub status: TransactionState,
    /// Height of the including block; `null` while pending.
    pub block_height: Option<u64>,
    /// Position in the including block; `null` while pending.
    pub index: Option<u32>,
}

impl TransactionInfo {
    /// A transaction still in the mempool.
    pub fn pending(tx: &VerifiedTransaction) -> Self {
        Self::new(tx, TransactionState::Pending, None, None)
    }

    /// A transaction included at `index` of the block at `block_height`.
    pub fn included(tx: &VerifiedTransaction, block_height: u64, index: u32) -> Self {
        Self::new(tx, TransactionState::Included, Some(block_height), Some(index))
    }

    fn new(
        verified: &VerifiedTransaction,
        status: TransactionState,
        block_height: Option<u64>,
        index: Option<u32>,
    ) -> Self {
        let tx = &verified.tx;
        // A verified transaction always carries its signature; the default only keeps this
        // conversion total.
        let signature = tx.signature.as_ref().map(SignatureInfo::from).unwrap_or(SignatureInfo {
            y_parity: 0,
            r: H256::ZERO,
            s: H256::ZERO,
        });
        Self {
            hash: verified.hash,
            from: verified.sender,
            chain_id: tx.chain_id,
            nonce: tx.nonce,
            to: tx.to,
            value: tx.value,
            cycles_limit: tx.cycles_limit,
            cells_limit: tx.cells_limit,
            max_fee_per_cycle: tx.max_fee_per_cycle,
            max_fee_per_cell: tx.max_fee_per_cell,
            tip_per_cycle: tx.tip_per_cycle,
            tip_per_cell: tx.tip_per_cell,
            payload: tx.payload.clone(),
            signature,
            status,
            block_height,
            index,
        }
    }
}

/// An event in a receipt: emitter, topic and base64 data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    pub topic: String,
    /// Standard padded base64.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub data: Vec<u8>,
}

impl From<&Event> for EventInfo {
    fn from(event: &Event) -> Self {
        Self { address: event.address, topic: event.topic.clone(), data: event.data.clone() }
    }
}

/// An execution error (E-code) of a failed or reverted transaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExecErrorInfo {
    #[cfg_attr(feature = "openapi", schema(example = "E1005"))]
    pub code: String,
    #[cfg_attr(feature = "openapi", schema(example = "precheck"))]
    pub category: String,
    pub message: String,
    /// Advice for the sender.
    pub fix: String,
}

impl From<&ExecError> for ExecErrorInfo {
    fn from(err: &ExecError) -> Self {
        Self {
            code: err.code.as_str().to_owned(),
            category: err.code.category().to_owned(),
            message: err.message.clone(),
            fix: err.code.fix().to_owned(),
        }
    }
}

/// Outcome of an included transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReceiptStatus {
    Success,
    Reverted,
    Failed,
}

impl From<TxStatus> for ReceiptStatus {
    fn from(status: TxStatus) -> Self {
        match status {
            TxStatus::Success => ReceiptStatus::Success,
            TxStatus::Reverted => ReceiptStatus::Reverted,
            TxStatus::Failed => ReceiptStatus::Failed,
        }
    }
}

/// `GET /transaction/{hash}/receipt`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReceiptInfo {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    pub block_height: u64,
    pub index: u32,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    pub status: ReceiptStatus,
    pub cycles_used: u64,
    pub cells_used: u64,
    /// Total fee paid (`fee_burned + fee_tip`), base units.
    pub fee: u128,
    /// Basefee part, burned.
    pub fee_burned: u128,
    /// Tip part, paid to the proposer.
    pub fee_tip: u128,
    pub events: Vec<EventInfo>,
    pub revert_reason: Option<String>,
    pub error: Option<ExecErrorInfo>,
}

impl From<&Receipt> for ReceiptInfo {
    fn from(r: &Receipt) -> Self {
        Self {
            tx_hash: r.tx_hash,
            block_height: r.block_height,
            index: r.index,
            from: r.from,
            to: r.to,
            status: r.status.into(),
            cycles_used: r.cycles_used,
            cells_used: r.cells_used,
            fee: r.fee.total(),
            fee_burned: r.fee.burned,
            fee_tip: r.fee.tip,
            events: r.events.iter().map(EventInfo::from).collect(),
            revert_reason: r.revert_reason.clone(),
            error: r.error.as_ref().map(ExecErrorInfo::from),
        }
    }
}
