//! Receipts: the outcome of one included transaction.
//!
//! A receipt's canonical CBOR is what the block's receipts root commits to, so its encoding is
//! fixed here (an array in field order) and decoding is strict.

use crate::{Address, Event, ExecError, H256};

/// Outcome of an included transaction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TxStatus {
    /// Executed and its effects applied.
    Success,
    /// Execution reverted (by the actor or a trap): effects rolled back, fee charged.
    Reverted,
    /// A pre-check failed at execution time: nothing but the fee (if payable) applied.
    Failed,
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
    pub fn total(&self) -> u128 {
        self.burned.saturating_add(self.tip)
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Receipt {
    pub tx_hash: H256,
    pub block_height: u64,
    /// Position of the transaction in its block.
    pub index: u32,
    pub from: Address,
    pub to: Option<Address>,
    pub status: TxStatus,
    pub cycles_used: u64,
    pub cells_used: u64,
    pub fee: FeeBreakdown,
    pub events: Vec<Event>,
    pub revert_reason: Option<String>,
    pub error: Option<ExecError>,
}
// TODO(types): canonical CBOR encode/decode of Receipt (strict), TxStatus as_str ("success"|"reverted"|"failed").
