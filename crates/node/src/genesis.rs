//! The genesis document (YAML): network identity, validator set, fee market and allocations.
//!
//! Every node of a network must load the same document: its SHA-256 commitment is carried by
//! the genesis block, so a node with another genesis computes another genesis digest and cannot
//! take part in consensus. Allocations are applied by the first block's execution (the genesis
//! block itself is never executed).

use crate::keys::{self, Identity};
use commonware_cryptography::{Hasher, Sha256, ed25519, sha256};
use drover_types::Address;
use serde::{Deserialize, Serialize};
use std::{collections::BTreeMap, path::Path};

/// Genesis timestamp used when the document gives none (2026-01-01T00:00:00Z).
pub const GENESIS_TIMESTAMP_MS_DEFAULT: u64 = 1_767_225_600_000;

/// The genesis document as written on disk.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GenesisFile {
    /// Chain id every transaction of the network must carry.
    pub chain_id: u64,
    /// Network name, reported by `/chain-info`.
    pub network: String,
    /// Timestamp of the genesis block, Unix milliseconds (default 2026-01-01T00:00:00Z).
    #[serde(default = "default_timestamp")]
    pub timestamp_ms: u64,
    /// ed25519 identities (hex) of the validators.
    pub validators: Vec<String>,
    /// Group public key (hex) that finalization certificates verify against.
    pub identity: String,
    /// Fee-market parameters (`docs/operations.md`, "Genesis"; defaults: `drover_execution::FeeParams::default`).
    #[serde(default)]
    pub fees: drover_execution::FeeParams,
    /// Other chain parameters by name (`GET /governance/params` lists them), each starting at
    /// its default when absent. Left out of the document's JSON form when empty, so documents
    /// written before it keep their commitment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, u128>,
    /// Initial balances (default none).
    #[serde(default)]
    pub allocations: Vec<AllocationFile>,
}

/// An initial balance.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AllocationFile {
    /// The funded account (hex).
    pub address: String,
    /// Base units.
    pub balance: u128,
}

fn default_timestamp() -> u64 {
    GENESIS_TIMESTAMP_MS_DEFAULT
}

/// A validated genesis.
#[derive(Clone, Debug)]
pub struct Genesis {
    /// The document as loaded; its JSON form is what `commitment` hashes.
    pub file: GenesisFile,
    /// The validators' ed25519 identities, in document order.
    pub validators: Vec<ed25519::PublicKey>,
    /// Group public key that finalization certificates verify against.
    pub identity: Identity,
    /// Fee-market parameters, validated.
    pub fees: drover_execution::FeeParams,
    /// The chain parameters block 1 starts with.
    pub params: drover_types::chain_params::ChainParams,
    /// Initial balances in base units, by address.
    pub allocations: Vec<(Address, u128)>,
    /// The state writes of the allocations and fee parameters, applied with block 1.
    pub state: drover_execution::Writes,
    /// SHA-256 of the document's canonical JSON form.
    pub commitment: sha256::Digest,
}

/// Why a genesis document cannot be used; each variant names the file or field at fault.
#[derive(Debug, thiserror::Error)]
pub enum GenesisError {
    /// The file could not be read (path, I/O error).
    #[error("cannot read genesis file {0}: {1}")]
    Read(String, std::io::Error),
    /// The file is not YAML of the expected shape (path, parser message).
    #[error("genesis file {0}: {1}")]
    Parse(String, String),
    /// A field holds a value that is not valid (field name, message).
    #[error("genesis field `{0}`: {1}")]
    Field(&'static str, String),
}

impl Genesis {
    /// Reads and validates a genesis file.
    pub fn load(path: &Path) -> Result<Self, GenesisError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| GenesisError::Read(shown.clone(), e))?;
        let file: GenesisFile =
            serde_yaml_ng::from_str(&text).map_err(|e| GenesisError::Parse(shown, e.to_string()))?;
        Self::from_file(file)
    }

    /// Validates a parsed document and derives the genesis state and commitment.
    pub fn from_file(file: GenesisFile) -> Result<Self, GenesisError> {
        let field = |name: &'static str, m: String| GenesisError::Field(name, m);
        if file.network.is_empty() {
            return Err(field("network", "must not be empty".into()));
        }
        let mut validators = Vec::with_capacity(file.validators.len());
        for v in &file.validators {
            validators.push(keys::parse_public_key(v).map_err(|m| field("validators", m))?);
        }
        if validators.is_empty() {
            return Err(field("validators", "must list at least one validator".into()));
        }
        let identity = keys::parse_identity(&file.identity).map_err(|m| field("identity", m))?;
        let fees = file.fees;
        let mut allocations = Vec::with_capacity(file.allocations.len());
        for a in &file.allocations {
            let address: Address = a
                .address
                .parse()
                .map_err(|_| field("allocations.address", format!("invalid address {}", a.address)))?;
            allocations.push((address, a.balance));
        }
        let params =
            drover_execution::genesis_params(&fees, &file.params).map_err(|e| field("params", e.to_string()))?;
        let state = drover_execution::genesis_writes(&allocations, &fees, &params).map_err(|e| match e {
            drover_execution::GenesisError::Params(e) => field("fees", e.to_string()),
            other => field("allocations", other.to_string()),
        })?;
        let canonical = serde_json::to_vec(&file).map_err(|e| field("genesis", e.to_string()))?;
        let commitment = Sha256::hash(&[&canonical]);
        Ok(Self { file, validators, identity, fees, params, allocations, state, commitment })
    }

    /// Chain id of the network.
    pub fn chain_id(&self) -> u64 {
        self.file.chain_id
    }

    /// Network name.
    pub fn network(&self) -> &str {
        &self.file.network
    }
}
