//! Secrets reads for the API: the secrets actor's records in the latest applied state.
//!
//! An owner's secrets are one key range (laid out by owner, see
//! `drover_state::secrets::secrets_range`), of which a page reads only up to its end, the total
//! coming from the owner's count; an envelope is one lookup after its secret's.
//! Values are never stored, so never served.

use super::{
    handle::NodeHandle,
    pages::{read_storage, scan},
};
use crate::error::NodeError;
use drover_rpc::pagination::Page;
use drover_state::{
    decode_count,
    secrets::{
        SecretRecord, count_key, decode_envelope, envelope_key, secret_entry, secret_key, secrets_range, state_key,
    },
};
use drover_types::{
    Address,
    api::{SecretEnvelope, SecretInfo, SecretList},
    error::ApiError,
    secrets::SECRETS_ADDRESS,
};

impl NodeHandle {
    pub(super) async fn read_secrets(&self, owner: Address, page: Page) -> Result<SecretList, ApiError> {
        let db = self.0.databases.read().await;
        let total_count = read_storage(&db, &SECRETS_ADDRESS, &count_key(&owner), decode_count).await?.unwrap_or(0);
        // A page past the end reads nothing, however many secrets the owner has.
        if page.offset >= total_count {
            return Ok(SecretList { owner, secrets: Vec::new(), total_count, offset: page.offset, limit: page.limit });
        }
        let own = |key: &[u8], value: Vec<u8>| (secret_entry(key)? == owner).then_some(value);
        let end = page.offset.saturating_add(page.limit);
        let (records, _) = scan(&db, &secrets_range(&owner), None, end, own).await.map_err(NodeError::from)?;
        let mut secrets = Vec::new();
        for value in records.into_iter().skip(usize::try_from(page.offset).unwrap_or(usize::MAX)) {
            let record = SecretRecord::decode(&value).map_err(NodeError::from)?;
            secrets.push(SecretInfo {
                name: record.name,
                version: record.version,
                readers: record.readers,
                updated_height: record.updated_height,
            });
        }
        Ok(SecretList { owner, secrets, total_count, offset: page.offset, limit: page.limit })
    }

    pub(super) async fn read_secret_envelope(
        &self,
        owner: Address,
        name: String,
        reader: Address,
    ) -> Result<Option<SecretEnvelope>, ApiError> {
        let [record, envelope] = self
            .read_keys([state_key(&secret_key(&owner, &name)), state_key(&envelope_key(&owner, &name, &reader))])
            .await?;
        let (Some(record), Some(envelope)) = (record, envelope) else {
            return Ok(None);
        };
        let record = SecretRecord::decode(&record).map_err(NodeError::from)?;
        let envelope = decode_envelope(&envelope).map_err(NodeError::from)?;
        Ok(Some(SecretEnvelope { owner, name, reader, version: record.version, envelope }))
    }
}
