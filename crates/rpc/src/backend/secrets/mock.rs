//! The secrets' mock: envelopes a test sets; a secret lists the readers of its envelopes.

use super::*;
use crate::mock::MockBackend;

#[derive(Default)]
pub(crate) struct SecretsMock {
    /// Secrets' envelopes.
    pub envelopes: Vec<SecretEnvelope>,
}

impl SecretBackend for MockBackend {
    async fn secrets(&self, owner: Address, page: Page) -> Result<SecretList, ApiError> {
        let part = self.part::<SecretsMock>();
        let data = part.lock();
        let mut secrets: Vec<drover_types::api::SecretInfo> = Vec::new();
        for envelope in data.envelopes.iter().filter(|e| e.owner == owner) {
            match secrets.iter_mut().find(|s| s.name == envelope.name) {
                Some(secret) => secret.readers.push(envelope.reader),
                None => secrets.push(drover_types::api::SecretInfo {
                    name: envelope.name.clone(),
                    version: envelope.version,
                    readers: vec![envelope.reader],
                    updated_height: 1,
                }),
            }
        }
        let total_count = secrets.len() as u64;
        let secrets = secrets.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(SecretList { owner, secrets, total_count, offset: page.offset, limit: page.limit })
    }

    async fn secret_envelope(
        &self,
        owner: Address,
        name: String,
        reader: Address,
    ) -> Result<Option<SecretEnvelope>, ApiError> {
        let part = self.part::<SecretsMock>();
        let data = part.lock();
        Ok(data.envelopes.iter().find(|e| e.owner == owner && e.name == name && e.reader == reader).cloned())
    }
}
