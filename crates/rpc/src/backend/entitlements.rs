//! The entitlement registry and manifest checks (`routes::entitlements`).

use drover_types::api::EntitlementInfo;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait EntitlementBackend: Send + Sync {
    /// The entitlement registry, in registry order.
    fn entitlements(&self) -> Vec<EntitlementInfo>;

    /// Every problem of a manifest's entitlement ids: `(position, reason)` for each unknown or
    /// repeated id, as a deploy would refuse them.
    fn manifest_problems(&self, ids: &[String]) -> Vec<(usize, String)>;
}

#[cfg(test)]
pub(crate) mod mock;
