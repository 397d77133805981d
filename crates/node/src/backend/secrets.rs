//! Secrets reads for the API: the secrets actor's records in the latest applied state.
//!
//! An owner's secrets are its listing (`drover_state::secrets::secrets_listing`): a page is the
//! owner's count and, per secret in it, its slot and its record, whatever the owner keeps; an
//! envelope is one lookup after its secret's. Values are never stored, so never served.

use super::{
    handle::NodeHandle,
    pages::{listed, listed_hash, read_record},
};
use crate::databases::OrderedRead;
use crate::error::NodeError;
use drover_rpc::backend::SecretBackend;
use drover_rpc::pagination::Page;
use drover_state::secrets::{
    SecretRecord, decode_envelope, envelope_key, hashed_secret_key, secret_key, secrets_listing, state_key,
};
use drover_types::{
    Address,
    api::{SecretEnvelope, SecretInfo, SecretList},
    error::ApiError,
};

impl SecretBackend for NodeHandle {
    async fn secrets(&self, owner: Address, page: Page) -> Result<SecretList, ApiError> {
        let db = self.0.databases.read().await;
        secrets(&*db, owner, page).await
    }

    async fn secret_envelope(
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

/// A page of `owner`'s secrets, in its listing's order.
async fn secrets(db: &impl OrderedRead, owner: Address, page: Page) -> Result<SecretList, ApiError> {
    let (items, total_count) = listed(db, &secrets_listing(&owner), &page).await?;
    let mut secrets = Vec::with_capacity(items.len());
    for item in items {
        let key = state_key(&hashed_secret_key(&owner, &listed_hash(&item)?));
        let record = read_record(db, &key, SecretRecord::decode)
            .await?
            .ok_or_else(|| NodeError::missing("secrets: a listed secret without its record"))?;
        secrets.push(SecretInfo {
            name: record.name,
            version: record.version,
            readers: record.readers,
            updated_height: record.updated_height,
        });
    }
    Ok(SecretList { owner, secrets, total_count, offset: page.offset, limit: page.limit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::pages::tests::{Counted, LARGE, bounded_at_every_offset};
    use drover_state::secrets::name_hash;

    #[test]
    fn a_page_of_secrets_reads_the_page_whatever_the_owner_keeps() {
        let owner = Address([0x5e; 20]);
        let name = |i: u64| format!("secret-{i}");
        let mut db = Counted::default();
        db.list(
            &secrets_listing(&owner),
            LARGE,
            |i| name_hash(&name(i)).0.to_vec(),
            |i| {
                let record =
                    SecretRecord { name: name(i), version: 1, readers: vec![Address([1; 20])], updated_height: 2 };
                vec![(state_key(&secret_key(&owner, &name(i))), record.encode())]
            },
        );
        bounded_at_every_offset(&db, 2, 1, |page| {
            let db = &db;
            async move {
                let answer = secrets(db, owner, page).await.unwrap();
                assert_eq!(answer.total_count, LARGE);
                if let Some(first) = answer.secrets.first() {
                    assert_eq!(first.name, name(page.offset));
                }
                answer.secrets.len()
            }
        });
    }
}
