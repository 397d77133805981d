//! Secrets: `GET /secrets/{owner}` and `/secrets/{owner}/{name}/envelope/{reader}`.
//!
//! The chain holds ciphertext only: a list shows names, readers and versions, never values;
//! an envelope is one reader's ciphertext, which only that reader's key opens.

use super::encoding::base64_bytes;
use crate::Address;
use serde::{Deserialize, Serialize};

/// One secret of an owner (no value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecretInfo {
    /// Its name.
    #[cfg_attr(feature = "openapi", schema(example = "db-password"))]
    pub name: String,
    /// 1 at the first `set`, one more at every change.
    pub version: u64,
    /// The accounts holding an envelope of it.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub readers: Vec<Address>,
    /// Height of its last change.
    pub updated_height: u64,
}

/// `GET /secrets/{owner}`: an owner's secrets, in name-hash order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecretList {
    /// The owner.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub owner: Address,
    /// The page's secrets.
    pub secrets: Vec<SecretInfo>,
    /// Number of secrets.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// `GET /secrets/{owner}/{name}/envelope/{reader}`: one reader's ciphertext.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecretEnvelope {
    /// The owner.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub owner: Address,
    /// The secret's name.
    pub name: String,
    /// The reader.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub reader: Address,
    /// The secret's version.
    pub version: u64,
    /// The envelope (`0x01 ‖ ephemeral key ‖ nonce ‖ ciphertext ‖ tag`, docs/secrets.md).
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub envelope: Vec<u8>,
}
