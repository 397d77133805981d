//! Secrets: the client's methods for the routes of `drover-rpc`'s `routes::secrets`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode,
    api::{SecretEnvelope, SecretList, paths, paths::fill},
};

impl Client {
    /// `GET /secrets/{owner}?offset=&limit=`: one page of an owner's secrets (never values).
    pub async fn secrets(&self, owner: &Address, offset: u64, limit: u64) -> Result<SecretList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", fill(paths::SECRETS, &[owner]))).await
    }

    /// `GET /secrets/{owner}/{name}/envelope/{reader}`; `None` when the reader holds no
    /// envelope of that secret.
    pub async fn secret_envelope(
        &self,
        owner: &Address,
        name: &str,
        reader: &Address,
    ) -> Result<Option<SecretEnvelope>, ClientError> {
        self.get_optional(&fill(paths::SECRET_ENVELOPE, &[owner, &name, reader]), ErrorCode::NotFound).await
    }
}
