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
    /// Admitted to the mempool.
    Accepted,
    /// Refused at admission; `code`, `error` and `message` say why.
    Rejected,
}

/// One entry of `results` of `POST /submit`, in submission order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitResult {
    /// Transaction hash; keccak256 of the element's raw bytes when it did not decode.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// Whether the transaction was admitted.
    pub status: SubmitStatus,
    /// API error code, when rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// Snake-case name of the code, when rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why it was refused, when rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl SubmitResult {
    /// An admitted transaction.
    pub fn accepted(hash: H256) -> Self {
        Self { hash, status: SubmitStatus::Accepted, code: None, error: None, message: None }
    }

    /// A transaction refused at admission with `err`.
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
    /// One result per submitted transaction, in submission order.
    pub results: Vec<SubmitResult>,
    /// Number of transactions admitted to the mempool.
    pub accepted: u64,
    /// Number of transactions refused.
    pub rejected: u64,
    /// API error code of the first refusal, when no transaction was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// Snake-case name of that code, when no transaction was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Message of that refusal, when no transaction was accepted.
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
    /// Included; execution failed (see the receipt's `error`).
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
    /// Snake-case name of the API error that refused the transaction at admission (`code` holds its
    /// number).
    Admission(String),
    /// The E-code of an included transaction that failed or reverted.
    Execution(ExecErrorInfo),
}

/// One entry of `results` of `POST /submit_wait`, in submission order. Fields that do not apply
/// to the status are left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubmitWaitResult {
    /// Transaction hash, as in the results of `POST /submit`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// What became of the transaction; decides which of the fields below are present.
    pub status: WaitStatus,
    /// API error code, when rejected at admission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// Why it was refused (`rejected`) or did not succeed (`failed`, `reverted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WaitError>,
    /// Why it was refused (`rejected` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Height of the including block (included only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_height: Option<u64>,
    /// Cycles the transaction used (included only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_used: Option<u64>,
    /// Cells the transaction used (included only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells_used: Option<u64>,
    /// Total fee paid, in base units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee: Option<u128>,
    /// Reason the actor gave when it reverted (`reverted` only).
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
    /// One result per submitted transaction, in submission order.
    pub results: Vec<SubmitWaitResult>,
    /// Number of transactions admitted to the mempool.
    pub accepted: u64,
    /// Number of transactions refused at admission.
    pub rejected: u64,
    /// API error code of the first refusal, when no transaction was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    /// Snake-case name of that code, when no transaction was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Message of that refusal, when no transaction was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Whether a transaction record comes from the mempool or from a finalized block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TransactionState {
    /// Waiting in the mempool.
    Pending,
    /// In a finalized block.
    Included,
}

/// A transaction signature in JSON: parity and `0x` hex of the 32-byte `r` and `s`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignatureInfo {
    /// Parity of the y coordinate of the signature's curve point: 0 or 1.
    pub y_parity: u8,
    /// The signature's `r` (32 bytes, `0x` hex).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub r: H256,
    /// The signature's `s` (32 bytes, `0x` hex), at most half the group order.
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
    /// Transaction hash: keccak256 of the signed transaction's canonical CBOR.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub hash: H256,
    /// Sender recovered from the signature.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    /// Chain id the transaction was signed for.
    pub chain_id: u64,
    /// The sender's nonce this transaction uses.
    pub nonce: u64,
    /// `null` for a deploy.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    /// Base units.
    pub value: u128,
    /// Most cycles (compute) the transaction may use.
    pub cycles_limit: u64,
    /// Most cells (bytes written to state) the transaction may use.
    pub cells_limit: u64,
    /// Highest total price per cycle (basefee plus tip) the sender accepts, base units.
    pub max_fee_per_cycle: u128,
    /// Highest total price per cell (basefee plus tip) the sender accepts, base units.
    pub max_fee_per_cell: u128,
    /// Tip per cycle offered to the proposer on top of the basefee, base units; capped by the room
    /// `max_fee_per_cycle` leaves.
    pub tip_per_cycle: u128,
    /// Tip per cell offered to the proposer on top of the basefee, base units; capped by the room
    /// `max_fee_per_cell` leaves.
    pub tip_per_cell: u128,
    /// Standard padded base64.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub payload: Vec<u8>,
    /// The sender's signature over the transaction's signing hash.
    pub signature: SignatureInfo,
    /// `pending` (in the mempool) or `included` (in a finalized block).
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
    /// The emitting actor; for the native `transfer` event, the recipient.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Event topic (UTF-8 text).
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
    /// The E-code, e.g. `E1005` (every code is listed in `docs/errors.md`).
    #[cfg_attr(feature = "openapi", schema(example = "E1005"))]
    pub code: String,
    /// The code's range: `precheck`, `validation`, `runtime`, `entitlement`, `token`, `timer`,
    /// `job` or `internal`.
    #[cfg_attr(feature = "openapi", schema(example = "precheck"))]
    pub category: String,
    /// What happened in this instance.
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
    /// Executed; its effects are applied.
    Success,
    /// The actor reverted (E1201, see `revert_reason`): effects rolled back, fee charged.
    Reverted,
    /// Failed with the E-code in `error` (a trap, a limit, a refused host call): effects rolled
    /// back, fee charged.
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
    /// Hash of the transaction.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    /// Height of the including block.
    pub block_height: u64,
    /// Position of the transaction in its block.
    pub index: u32,
    /// Sender recovered from the signature.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: Address,
    /// Destination; `null` for a deploy.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub to: Option<Address>,
    /// `success`, `reverted` or `failed`.
    pub status: ReceiptStatus,
    /// Cycles charged: the intrinsic cost plus what execution metered.
    pub cycles_used: u64,
    /// Cells charged: the intrinsic cost plus the bytes written.
    pub cells_used: u64,
    /// Total fee paid (`fee_burned + fee_tip`), base units.
    pub fee: u128,
    /// Basefee part, burned.
    pub fee_burned: u128,
    /// Tip part, paid to the proposer.
    pub fee_tip: u128,
    /// Events emitted, in emission order; empty unless the transaction succeeded.
    pub events: Vec<EventInfo>,
    /// Reason the actor gave when it reverted (`reverted` only).
    pub revert_reason: Option<String>,
    /// The execution error of a `failed` or `reverted` transaction.
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
