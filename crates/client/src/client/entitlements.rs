//! Entitlements: the client's methods for the routes of `drover-rpc`'s `routes::entitlements`.

use super::Client;
use crate::error::ClientError;
use drover_types::api::{EntitlementList, ManifestValidation, paths};

impl Client {
    /// `GET /entitlements/registry`: the whole entitlement registry.
    pub async fn entitlements(&self) -> Result<EntitlementList, ClientError> {
        self.get(&format!("{}?limit=1000", paths::ENTITLEMENTS_REGISTRY)).await
    }

    /// `POST /entitlements/validate-manifest`: every problem of `manifest` (a JSON manifest).
    pub async fn validate_manifest(&self, manifest: &serde_json::Value) -> Result<ManifestValidation, ClientError> {
        let url = self.url(paths::ENTITLEMENTS_VALIDATE_MANIFEST);
        self.send_json(&url, self.http.post(&url).json(manifest)).await
    }
}
