//! Libraries: `GET /library/{publisher}/{name}` (`?version=`) and `/library/{publisher}`.

use crate::payload::Manifest;
use crate::{Address, H256};
use serde::{Deserialize, Serialize};

/// One library version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LibraryInfo {
    /// Who published it.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub publisher: Address,
    /// Its name.
    #[cfg_attr(feature = "openapi", schema(example = "fixed"))]
    pub name: String,
    /// This version (from 1).
    pub version: u32,
    /// The latest version.
    pub latest_version: u32,
    /// keccak256 of its code.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub code_hash: H256,
    /// Bytes of its code.
    pub code_size: u64,
    /// Its entitlements (a caller's are intersected with these).
    pub manifest: Manifest,
    /// Height this version was published at.
    pub published_height: u64,
    /// Whether the publisher removed the library (no version runs).
    pub removed: bool,
}

/// `GET /library/{publisher}`: a publisher's libraries (latest versions), in name-hash order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LibraryList {
    /// The publisher.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub publisher: Address,
    /// The page's libraries.
    pub libraries: Vec<LibraryInfo>,
    /// Number of libraries.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}
