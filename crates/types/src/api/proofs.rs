//! Proofs: state, transaction and receipt proofs (`/state/...`, `/proof/...`).

use super::encoding::{base64_bytes, hex_bytes, opt_base64_bytes, opt_hex_bytes};
use super::errors::ErrorBody;
use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// Which state record a state proof is about. Each kind is a family of the state key schema:
/// `account` → `0x01 ‖ address`, `actor` → `0x02 ‖ address`, `storage` → `0x03 ‖ address ‖ key`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StateProofKind {
    /// An account record `[nonce, balance]`.
    Account,
    /// An actor record `[code_hash, owner, entitlements, created_height, upgrades]`.
    Actor,
    /// One entry of an actor's storage.
    Storage,
}

/// `GET /proof/account|actor|storage/...` and `GET /state/{actor}/{key_hex}`: a state record (or
/// its absence) with everything needed to check it against the network's group key alone.
/// Format and verification steps: `docs/proofs.md`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StateProofInfo {
    /// Which record `key` names.
    pub kind: StateProofKind,
    /// The account or actor the record belongs to.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// The actor's own storage key (`storage` only; `0x` hex).
    #[serde(default, with = "opt_hex_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub storage_key: Option<Vec<u8>>,
    /// The state key proven (`0x` hex): family prefix, address, then the storage key.
    #[serde(with = "hex_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub key: Vec<u8>,
    /// The record's bytes (base64), `null` when the key holds none: `proof` then proves absence.
    #[serde(default, with = "opt_base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = Byte))]
    pub value: Option<Vec<u8>>,
    /// Encoded QMDB proof (base64): a key-value proof when `value` is set, else an exclusion proof.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub proof: Vec<u8>,
    /// Height of the block whose post-state is proven.
    pub height: u64,
    /// Digest of the block whose post-state is proven.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub block_hash: H256,
    /// The block's `state_root`, which `proof` verifies against.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state_root: H256,
    /// The encoded block header (base64): every field but the transactions; its SHA-256 is
    /// `block_hash`.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub header: Vec<u8>,
    /// Hex of the block's encoded finalization certificate (as in `/block/{selector}`).
    pub finalization: String,
}

/// What an inclusion proof proves: a transaction in a block's `transactions_root`, or its receipt
/// in the `receipts_root`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum InclusionProofKind {
    /// The transaction, against the block's `transactions_root`.
    Tx,
    /// The transaction's receipt, against the block's `receipts_root`.
    Receipt,
}

/// `GET /proof/tx/{tx_hash}` and `GET /proof/receipt/{tx_hash}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct InclusionProofInfo {
    /// Whether the transaction or its receipt is proven.
    pub kind: InclusionProofKind,
    /// Hash of the transaction (the receipt's `tx_hash` for a receipt proof).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tx_hash: H256,
    /// Height of the including block.
    pub height: u64,
    /// Position of the transaction in the block (the leaf index).
    pub index: u32,
    /// Canonical CBOR of the transaction (`tx`) or of the receipt (`receipt`), base64.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub encoded: Vec<u8>,
    /// Encoded binary Merkle proof (base64) of the leaf at `index`.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub proof: Vec<u8>,
    /// Digest of the including block.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub block_hash: H256,
    /// The block's `transactions_root` or `receipts_root`, which `proof` verifies against.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub root: H256,
    /// The encoded block header (base64): every field but the transactions; its SHA-256 is
    /// `block_hash`.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub header: Vec<u8>,
    /// Hex of the block's encoded finalization certificate.
    pub finalization: String,
}

/// Any proof the node serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum ProofInfo {
    /// A state record (or its absence) against a block's `state_root`.
    State(StateProofInfo),
    /// A transaction or receipt against a block's `transactions_root` or `receipts_root`.
    Inclusion(InclusionProofInfo),
}

/// One request of a `POST /proof/multi` body. `kind` is `account`, `actor`, `storage`, `tx` or
/// `receipt`; `address` goes with the first three, `key` (hex) with `storage`, `tx_hash` with the
/// last two. Fields are checked per item, so one bad item does not refuse the batch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProofRequest {
    /// `account`, `actor`, `storage`, `tx` or `receipt`.
    pub kind: String,
    /// The account or actor, 20 bytes of hex (`account`, `actor`, `storage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// The actor's storage key as hex (`storage` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The transaction hash, 32 bytes of hex (`tx`, `receipt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_hash: Option<String>,
}

/// One answer of `POST /proof/multi`: the proof, or the error that item alone met.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum MultiProofItem {
    /// The requested proof.
    Proof(ProofInfo),
    /// Why this item got no proof.
    Error(ErrorBody),
}

/// `POST /proof/multi`: one item per request, in request order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MultiProofResponse {
    /// One result per request, in request order.
    pub results: Vec<MultiProofItem>,
}
