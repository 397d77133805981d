//! Entitlements: `GET /entitlements/registry` and `POST /entitlements/validate-manifest`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One entitlement of the registry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EntitlementInfo {
    /// The manifest id, e.g. `storage.kv`.
    #[cfg_attr(feature = "openapi", schema(example = "storage.kv"))]
    pub id: String,
    /// What it lets an actor do.
    pub description: String,
    /// The host functions (module `drover`) that need it.
    pub host_functions: Vec<String>,
    /// The limits that bound what it unlocks, by name.
    pub params: BTreeMap<String, u64>,
}

/// `GET /entitlements/registry`: every entitlement, in registry order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EntitlementList {
    /// The page's entitlements.
    pub entitlements: Vec<EntitlementInfo>,
    /// Number of entitlements in the registry.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// One problem of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ManifestProblem {
    /// The offending id as given (a non-string element as its JSON text; empty for a problem of
    /// the manifest's shape).
    pub id: String,
    /// Why it is refused.
    pub reason: String,
}

/// `POST /entitlements/validate-manifest`: whether a deploy with this manifest would pass the
/// manifest check (E1302), and every reason it would not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ManifestValidation {
    /// No problem found.
    pub valid: bool,
    /// Every problem, in the manifest's order.
    pub errors: Vec<ManifestProblem>,
}
