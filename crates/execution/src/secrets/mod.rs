//! Secrets: the native system actor at [`SECRETS_ADDRESS`], which keeps each owner's named
//! secrets as one ciphertext envelope per reader.
//!
//! Reached like the other system actors; the sender is the owner. It stores what it is given
//! and never decrypts: envelopes are sealed client side (`drover_client::secrets`, ECIES over
//! secp256k1, HKDF-SHA256, AES-256-GCM) to each reader's public key.
//!
//! # Rules
//!
//! - `set {name, envelopes}`: a name of 1–64 characters `a–z A–Z 0–9 . _ -`, 1–32 readers,
//!   envelopes of 1 B to 4,224 B (E1801). It replaces the secret whole: readers left out lose
//!   their envelope. The version goes up by one.
//! - `grant {name, reader, envelope}` adds or replaces one reader's envelope of an existing
//!   secret (E1802 unknown, E1801 beyond 32 readers); `revoke {name, reader}` removes one
//!   (E1803 when it is not a reader); revoking the last reader deletes the secret.
//! - `delete {name}` removes the secret and every envelope (E1802 unknown).
//!
//! A secret is in its owner's listing (`drover_state::secrets::secrets_listing`, which is also
//! the owner's count) exactly while it is stored, so `/secrets/{owner}` pages by point lookups.
//!
//! Revocation removes the envelope from the chain's current state, not from what a reader
//! already read or from past states: a revoked reader keeps what it decrypted (`docs/secrets.md`).

#[cfg(test)]
mod tests;

use crate::listing;
use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::secrets::{
    SecretRecord, count_key, encode_envelope, envelope_key, name_hash, secret_key, secrets_listing, state_key,
};
use drover_types::{
    Address, Event,
    cbor::Writer,
    exec_error::ExecCode,
    secrets::{MAX_READERS, SECRETS_ADDRESS, SecretCall},
};
use drover_vm::{CallContext, HostError};

/// Topic of the event a change of a secret emits: `[owner, name, version]` (never the value).
pub const EVENT_CHANGED: &str = "secrets.changed";
/// Topic of the event a deletion emits: `[owner, name]`.
pub const EVENT_DELETED: &str = "secrets.deleted";

impl SystemActor for SecretCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        vec![
            state_key(&secret_key(sender, self.name())),
            state_key(&count_key(sender)),
            secrets_listing(sender).place_key(&name_hash(self.name()).0),
        ]
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        _meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        apply(host, context.caller, context.block_height, self).map(|()| Vec::new())
    }
}

fn refuse(code: ExecCode, message: impl Into<String>) -> HostError {
    HostError::new(code, message)
}

fn apply<H: NativeHost>(host: &mut H, owner: Address, height: u64, call: SecretCall) -> Result<(), HostError> {
    call.check().map_err(|reason| refuse(ExecCode::SecretRules, reason))?;
    let name = call.name().to_owned();
    let record_key = secret_key(&owner, &name);
    let existing = host.read_storage(&SECRETS_ADDRESS, &record_key, SecretRecord::decode)?;
    let existed = existing.is_some();
    let unknown = || refuse(ExecCode::UnknownSecret, format!("{owner} has no secret {name:?}"));
    let mut record = match (&call, existing) {
        (SecretCall::Set { .. }, existing) => {
            let version = existing.as_ref().map_or(0, |r| r.version);
            // Readers left out of the new set lose their envelope.
            for reader in existing.map(|r| r.readers).unwrap_or_default() {
                host.write_storage(&SECRETS_ADDRESS, &envelope_key(&owner, &name, &reader), None);
            }
            SecretRecord { name: name.clone(), version, readers: Vec::new(), updated_height: height }
        }
        (_, Some(record)) => record,
        (_, None) => return Err(unknown()),
    };
    match call {
        SecretCall::Set { envelopes, .. } => {
            for (reader, envelope) in envelopes {
                host.write_storage(
                    &SECRETS_ADDRESS,
                    &envelope_key(&owner, &name, &reader),
                    Some(encode_envelope(&envelope)),
                );
                record.readers.push(reader);
            }
        }
        SecretCall::Grant { reader, envelope, .. } => {
            if let Err(at) = record.readers.binary_search(&reader) {
                if record.readers.len() >= MAX_READERS {
                    return Err(refuse(ExecCode::SecretRules, format!("{name:?} already has {MAX_READERS} readers")));
                }
                record.readers.insert(at, reader);
            }
            host.write_storage(
                &SECRETS_ADDRESS,
                &envelope_key(&owner, &name, &reader),
                Some(encode_envelope(&envelope)),
            );
        }
        SecretCall::Revoke { reader, .. } => {
            let at = record
                .readers
                .binary_search(&reader)
                .map_err(|_| refuse(ExecCode::NotAReader, format!("{reader} is not a reader of {name:?}")))?;
            record.readers.remove(at);
            host.write_storage(&SECRETS_ADDRESS, &envelope_key(&owner, &name, &reader), None);
        }
        SecretCall::Delete { .. } => {
            for reader in &record.readers {
                host.write_storage(&SECRETS_ADDRESS, &envelope_key(&owner, &name, reader), None);
            }
            record.readers.clear();
        }
    }
    // The owner's listing (and its count) changes only when a secret appears or goes.
    if existed == record.readers.is_empty() {
        listing::set(host, &secrets_listing(&owner), &name_hash(&name).0, !existed)?;
    }
    if record.readers.is_empty() {
        host.write_storage(&SECRETS_ADDRESS, &record_key, None);
        emit(host, EVENT_DELETED, |w| {
            w.array(2).bytes(&owner.0).text(&name);
        });
        return Ok(());
    }
    record.version = record.version.saturating_add(1);
    record.updated_height = height;
    host.write_storage(&SECRETS_ADDRESS, &record_key, Some(record.encode()));
    let version = record.version;
    emit(host, EVENT_CHANGED, |w| {
        w.array(3).bytes(&owner.0).text(&name).uint(version);
    });
    Ok(())
}

fn emit<H: NativeHost>(host: &mut H, topic: &str, data: impl FnOnce(&mut Writer<Vec<u8>>)) {
    let mut w = Writer::with_capacity(64);
    data(&mut w);
    host.emit_event(Event { address: SECRETS_ADDRESS, topic: topic.to_owned(), data: w.into_inner() });
}
