//! Receipts: the outcome of one included transaction.
//!
//! A receipt's canonical CBOR is what the block's receipts root commits to, so its encoding is
//! fixed here and decoding is strict. It is an array in field order:
//!
//! ```text
//! [ tx_hash: bytes(32), block_height, index, from: bytes(20), to: bytes(20) | null,
//!   status: 0 success | 1 reverted | 2 failed, cycles_used, cells_used,
//!   fee: [burned, tip], events: [event, ...], revert_reason: text | null,
//!   error: [code, message] | null ]
//! ```
//! Amounts are `u128` (tag 2 above 2^64-1). The receipt's JSON is the HTTP layer's to shape.

use crate::cbor::{self, CborError, Writer};
use crate::{Address, Event, ExecError, H256};
use minicbor::decode::Decoder;
use std::{fmt, str::FromStr};

/// Outcome of an included transaction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TxStatus {
    /// Executed and its effects applied.
    Success,
    /// The actor reverted (its `revert` host call): effects rolled back, fee charged.
    Reverted,
    /// Execution failed — a trap, a refusal of a system actor, limits run out, a call to an
    /// address without an actor (effects rolled back, fee charged). The receipt's `error` says
    /// which. (A transaction that breaks the validity rule never gets a receipt.)
    Failed,
}

impl TxStatus {
    /// `"success"`, `"reverted"` or `"failed"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TxStatus::Success => "success",
            TxStatus::Reverted => "reverted",
            TxStatus::Failed => "failed",
        }
    }

    /// The number stored in the receipt's CBOR.
    const fn to_wire(self) -> u64 {
        match self {
            TxStatus::Success => 0,
            TxStatus::Reverted => 1,
            TxStatus::Failed => 2,
        }
    }

    const fn from_wire(value: u64) -> Option<Self> {
        match value {
            0 => Some(TxStatus::Success),
            1 => Some(TxStatus::Reverted),
            2 => Some(TxStatus::Failed),
            _ => None,
        }
    }
}

impl fmt::Display for TxStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not a transaction status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown transaction status {0:?}: expected success, reverted or failed")]
pub struct UnknownTxStatus(pub String);

impl FromStr for TxStatus {
    type Err = UnknownTxStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "success" => Ok(TxStatus::Success),
            "reverted" => Ok(TxStatus::Reverted),
            "failed" => Ok(TxStatus::Failed),
            _ => Err(UnknownTxStatus(s.to_owned())),
        }
    }
}

/// What the transaction paid, in base units.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct FeeBreakdown {
    /// Burned: cycles_used × basefee_cycle + cells_used × basefee_cell.
    pub burned: u128,
    /// Paid to the block's proposer.
    pub tip: u128,
}

impl FeeBreakdown {
    /// The whole fee: burned plus tip (saturating).
    pub fn total(&self) -> u128 {
        self.burned.saturating_add(self.tip)
    }
}

/// The outcome of one included transaction, as the block's receipts root commits to it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Receipt {
    /// Hash of the transaction.
    pub tx_hash: H256,
    /// Height of the including block.
    pub block_height: u64,
    /// Position of the transaction in its block.
    pub index: u32,
    /// Sender recovered from the signature.
    pub from: Address,
    /// Destination; `None` for a deploy.
    pub to: Option<Address>,
    /// Whether it succeeded, reverted or failed.
    pub status: TxStatus,
    /// Cycles charged: the intrinsic cost plus what execution metered.
    pub cycles_used: u64,
    /// Cells charged: the intrinsic cost plus the bytes written.
    pub cells_used: u64,
    /// What the transaction paid.
    pub fee: FeeBreakdown,
    /// Events emitted, in emission order; empty unless the transaction succeeded.
    pub events: Vec<Event>,
    /// Reason the actor gave when it reverted.
    pub revert_reason: Option<String>,
    /// The execution error of a failed or reverted transaction.
    pub error: Option<ExecError>,
}

/// Elements in the receipt array.
const RECEIPT_FIELDS: u64 = 12;

/// Largest encoding of a receipt's fixed-size part, in bytes (array head, hash, two u64, index,
/// two addresses, status, two u64, fee, list and option heads).
const ENCODED_FIXED_BYTES_MAX: usize = 1 + 34 + 9 + 5 + 21 + 21 + 1 + 9 + 9 + 39 + 9 + 9 + 9;

impl Receipt {
    /// Canonical CBOR (see the module documentation).
    pub fn encode(&self) -> Vec<u8> {
        let variable = self
            .events
            .iter()
            .map(|e| e.topic.len() + e.data.len() + 40)
            .chain(self.revert_reason.as_ref().map(String::len))
            .chain(self.error.as_ref().map(|e| e.message.len() + 16))
            .fold(ENCODED_FIXED_BYTES_MAX, usize::saturating_add);
        let mut w = Writer::with_capacity(variable);
        w.array(RECEIPT_FIELDS)
            .bytes(&self.tx_hash.0)
            .uint(self.block_height)
            .uint(u64::from(self.index))
            .bytes(&self.from.0);
        match &self.to {
            Some(to) => w.bytes(&to.0),
            None => w.null(),
        };
        w.uint(self.status.to_wire())
            .uint(self.cycles_used)
            .uint(self.cells_used)
            .array(2)
            .u128(self.fee.burned)
            .u128(self.fee.tip)
            .array(self.events.len() as u64);
        for event in &self.events {
            event.write(&mut w);
        }
        match &self.revert_reason {
            Some(reason) => w.text(reason),
            None => w.null(),
        };
        match &self.error {
            Some(error) => error.write(&mut w),
            None => {
                w.null();
            }
        }
        w.into_inner()
    }

    /// Strict decode: canonical bytes of exactly the array above.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, Self::read)
    }

    fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        cbor::expect_array(d, RECEIPT_FIELDS)?;
        let tx_hash = H256(cbor::decode_fixed(d)?);
        let block_height = d.u64()?;
        let index = d.u32()?;
        let from = Address(cbor::decode_fixed(d)?);
        let to = if cbor::take_null(d)? { None } else { Some(Address(cbor::decode_fixed(d)?)) };
        let at = d.position();
        let status = TxStatus::from_wire(d.u64()?)
            .ok_or_else(|| CborError::malformed(format!("status must be 0, 1 or 2 at byte {at}")))?;
        let cycles_used = d.u64()?;
        let cells_used = d.u64()?;
        cbor::expect_array(d, 2)?;
        let fee = FeeBreakdown { burned: cbor::decode_u128(d)?, tip: cbor::decode_u128(d)? };
        let at = d.position();
        let count =
            d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
        // Each event takes at least 23 bytes, so the input bounds how many there can be.
        let capacity = usize::try_from(count).unwrap_or(usize::MAX).min(d.input().len() / 23);
        let mut events = Vec::with_capacity(capacity);
        for _ in 0..count {
            events.push(Event::read(d)?);
        }
        let revert_reason = if cbor::take_null(d)? { None } else { Some(d.str()?.to_owned()) };
        let error = if cbor::take_null(d)? { None } else { Some(ExecError::read(d)?) };
        Ok(Receipt {
            tx_hash,
            block_height,
            index,
            from,
            to,
            status,
            cycles_used,
            cells_used,
            fee,
            events,
            revert_reason,
            error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec_error::ExecCode;

    fn receipt() -> Receipt {
        Receipt {
            tx_hash: H256([0xab; 32]),
            block_height: 1_000_000,
            index: 3,
            from: Address([0x7e; 20]),
            to: Some(Address::system(2)),
            status: TxStatus::Reverted,
            cycles_used: 21_000,
            cells_used: 0,
            fee: FeeBreakdown { burned: u128::from(u64::MAX) + 1, tip: 21_000 },
            events: vec![
                Event { address: Address::system(12), topic: "transfer".into(), data: vec![1, 2] },
                Event { address: Address([9; 20]), topic: String::new(), data: Vec::new() },
            ],
            revert_reason: Some("insufficient funds".into()),
            error: Some(ExecError::new(ExecCode::OutOfCycles, "ran out")),
        }
    }

    #[test]
    fn round_trips() {
        let full = receipt();
        let minimal = Receipt {
            to: None,
            status: TxStatus::Success,
            fee: FeeBreakdown::default(),
            events: Vec::new(),
            revert_reason: None,
            error: None,
            ..receipt()
        };
        for value in [full, minimal] {
            let bytes = value.encode();
            assert_eq!(cbor::check_canonical(&bytes), Ok(()));
            assert_eq!(Receipt::decode(&bytes), Ok(value.clone()));
            assert_eq!(value.encode(), bytes);
        }
    }

    #[test]
    fn minimal_receipt_bytes() {
        let value = Receipt {
            tx_hash: H256::ZERO,
            block_height: 1,
            index: 0,
            from: Address::ZERO,
            to: None,
            status: TxStatus::Failed,
            cycles_used: 0,
            cells_used: 0,
            fee: FeeBreakdown::default(),
            events: Vec::new(),
            revert_reason: None,
            error: None,
        };
        let expected =
            format!("8c5820{}0100{}{}f6020000820000 80f6f6", "00".repeat(32), "54", "00".repeat(20)).replace(' ', "");
        assert_eq!(hex::encode(value.encode()), expected);
    }

    #[test]
    fn rejects_bad_receipts() {
        let bytes = receipt().encode();
        // Status 3: the status sits after the array head, hash, height, index, from and to.
        let status_at = 1 + 34 + 5 + 1 + 21 + 21;
        assert_eq!(bytes[status_at], 0x01);
        let mut bad_status = bytes.clone();
        bad_status[status_at] = 0x03;
        assert!(matches!(Receipt::decode(&bad_status), Err(CborError::Malformed(_))));
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert_eq!(Receipt::decode(&trailing), Err(CborError::Trailing));
        let mut short = bytes;
        short[0] = 0x8b;
        assert!(Receipt::decode(&short).is_err());
        // An index above u32::MAX.
        let mut w = Writer::with_capacity(64);
        w.array(RECEIPT_FIELDS).bytes(&[0; 32]).uint(1).uint(u64::from(u32::MAX) + 1);
        let mut big_index = w.into_inner();
        big_index.extend_from_slice(&receipt().encode()[1 + 34 + 5 + 1..]);
        assert!(matches!(Receipt::decode(&big_index), Err(CborError::Malformed(_))));
    }

    #[test]
    fn status_text_forms() {
        for status in [TxStatus::Success, TxStatus::Reverted, TxStatus::Failed] {
            assert_eq!(status.as_str().parse::<TxStatus>(), Ok(status));
            assert_eq!(status.to_string(), status.as_str());
            assert_eq!(TxStatus::from_wire(status.to_wire()), Some(status));
        }
        assert!("Success".parse::<TxStatus>().is_err());
        assert!("pending".parse::<TxStatus>().is_err());
        assert_eq!(TxStatus::from_wire(3), None);
    }
}
