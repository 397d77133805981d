//! The transaction: a 13-element canonical CBOR array.
//!
//! ```text
//! [ chain_id, nonce, to, value, cycles_limit, cells_limit,
//!   max_fee_per_cycle, max_fee_per_cell, tip_per_cycle, tip_per_cell,
//!   access_list, payload, signature ]
//! ```
//! `to` is bytes(20) or null (deploy); value and fees are u128 (tag 2 bignum above 2^64-1);
//! `access_list` must be null; `signature` is `[y_parity, r: bytes(32), s: bytes(32)]` or null.
//! signing hash = keccak256(cbor(tx with signature = null)); tx hash = keccak256(cbor(signed tx)).

use crate::{Address, H256, SecretKey, cbor::CborError};

/// An ECDSA secp256k1 signature with recovery parity, low-s.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Signature {
    pub y_parity: u8,
    pub r: [u8; 32],
    pub s: [u8; 32],
}

/// A transaction, signed or not.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Transaction {
    pub chain_id: u64,
    pub nonce: u64,
    /// `None` deploys an actor.
    pub to: Option<Address>,
    pub value: u128,
    pub cycles_limit: u64,
    pub cells_limit: u64,
    pub max_fee_per_cycle: u128,
    pub max_fee_per_cell: u128,
    pub tip_per_cycle: u128,
    pub tip_per_cell: u128,
    pub payload: Vec<u8>,
    pub signature: Option<Signature>,
}

/// Why a signature does not yield a sender.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("transaction is not signed")]
    Missing,
    #[error("signature is malformed (bad r/s or parity, or high s)")]
    Malformed,
    #[error("signature does not recover a public key")]
    Unrecoverable,
}

impl Transaction {
    /// Canonical CBOR of the transaction as it is (signature included, or null).
    pub fn encode(&self) -> Vec<u8> { todo!() }
    /// Canonical CBOR with the signature set to null.
    pub fn encode_unsigned(&self) -> Vec<u8> { todo!() }
    /// Strict decode: the bytes must be exactly the canonical encoding of one transaction
    /// (no trailing bytes, shortest forms, 13 elements, null access list, low-s signature shape).
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> { todo!() }
    /// keccak256 of the unsigned encoding.
    pub fn signing_hash(&self) -> H256 { todo!() }
    /// keccak256 of the encoding as it is.
    pub fn hash(&self) -> H256 { todo!() }
    /// Sets the signature over the signing hash.
    pub fn sign(mut self, key: &SecretKey) -> Self { todo!() }
    /// Recovers the sender address from the signature (expensive: do it once per transaction).
    pub fn recover_sender(&self) -> Result<Address, SignatureError> { todo!() }
    /// Checks signature and returns the transaction with its hash, sender and encoded size.
    pub fn verify(self) -> Result<VerifiedTransaction, SignatureError> { todo!() }
    /// The most this transaction can cost its sender: value + cycles_limit × max_fee_per_cycle
    /// + cells_limit × max_fee_per_cell (None on overflow).
    pub fn max_cost(&self) -> Option<u128> { todo!() }
}

/// A transaction whose sender has been recovered once, with its hash and encoding cached.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifiedTransaction {
    pub tx: Transaction,
    pub hash: H256,
    pub sender: Address,
    /// Canonical encoding of the signed transaction (what `hash` is computed over).
    pub encoded: Vec<u8>,
}
