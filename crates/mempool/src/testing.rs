//! Builders for tests: verified transactions with chosen senders and fields, without signing.
//!
//! The hash of a built transaction is keccak256 of its sender and fields' debug text, so two
//! transactions differing in any field have different hashes, as real ones would.

use crate::SenderState;
use drover_types::{Address, Basefees, H256, Transaction, VerifiedTransaction, keccak256};

/// A distinct hash per `n`.
pub(crate) fn hash_of(n: u64) -> H256 {
    keccak256(&n.to_be_bytes())
}

/// A distinct address per `n` (never a system address).
pub(crate) fn address(n: u32) -> Address {
    let mut bytes = [0xaa; 20];
    bytes[16..].copy_from_slice(&n.to_be_bytes());
    Address(bytes)
}

/// A plain transfer with the given nonce and tips, max fees 100 per cycle and per cell.
pub(crate) fn transaction(nonce: u64, tip_per_cycle: u128, tip_per_cell: u128) -> Transaction {
    Transaction {
        chain_id: 100,
        nonce,
        to: Some(Address([0x11; 20])),
        value: 0,
        cycles_limit: 21_000,
        cells_limit: 0,
        max_fee_per_cycle: 100,
        max_fee_per_cell: 100,
        tip_per_cycle,
        tip_per_cell,
        payload: Vec::new(),
        signature: None,
    }
}

/// Wraps `tx` as if `sender` had signed it.
pub(crate) fn seal(sender: Address, tx: Transaction) -> VerifiedTransaction {
    let hash = keccak256(format!("{sender:?}{tx:?}").as_bytes());
    VerifiedTransaction { tx, hash, sender, encoded: Vec::new() }
}

/// [`transaction`] sealed for sender `address(sender)`.
pub(crate) fn verified(sender: u32, nonce: u64, tip_per_cycle: u128, tip_per_cell: u128) -> VerifiedTransaction {
    seal(address(sender), transaction(nonce, tip_per_cycle, tip_per_cell))
}

/// A fresh account holding plenty.
pub(crate) fn rich() -> SenderState {
    SenderState { nonce: 0, balance: u128::MAX / 4 }
}

/// Basefees every built transaction can pay.
pub(crate) fn low_basefees() -> Basefees {
    Basefees { cycle: 1, cell: 1 }
}
