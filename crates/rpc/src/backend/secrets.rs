//! Secrets and their per-reader envelopes (`routes::secrets`).

use crate::pagination::Page;
use drover_types::{
    Address,
    api::{SecretEnvelope, SecretList},
    error::ApiError,
};
use std::future::Future;

/// What the HTTP API reads from (or hands to) the node for this family; see [`super`].
pub trait SecretBackend: Send + Sync {
    /// `owner`'s secrets (names, readers, versions), one page.
    fn secrets(&self, owner: Address, page: Page) -> impl Future<Output = Result<SecretList, ApiError>> + Send;

    /// `reader`'s envelope of `owner`'s secret `name`; `None` when there is none.
    fn secret_envelope(
        &self,
        owner: Address,
        name: String,
        reader: Address,
    ) -> impl Future<Output = Result<Option<SecretEnvelope>, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
