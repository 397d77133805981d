//! Secrets records: the storage of the secrets system actor (`0x00…04`), proven with
//! `/proof/storage/0x…04/{key}` like any actor's storage.
//!
//! | user key | record |
//! | --- | --- |
//! | `"s" ‖ keccak256(name) ‖ owner(20)` | [`SecretRecord`], stored by owner (see [`secrets_range`]) |
//! | `"e" ‖ keccak256(name) ‖ owner(20) ‖ reader(20)` | the reader's envelope (CBOR bytes) |
//! | `"n" ‖ owner(20)` | the number of secrets the owner has: the count of its listing |
//! | `"L" ‖ …` | the owner's listing of its secrets' name hashes ([`secrets_listing`]) |
//!
//! Invariants: a secret's `readers` are exactly the readers with an envelope; a secret without
//! readers is not stored (revoking the last reader deletes it), and a secret is in its owner's
//! listing exactly while it is stored. Only ciphertext is stored.

use crate::RecordError;
use crate::keys::{PREFIX_SECRET, owned_entry, owned_range, storage_key};
use crate::listing::Listing;
use drover_types::{
    Address, H256,
    cbor::{CborError, Writer, decode_fixed, decode_strict, expect_array},
    keccak256,
    secrets::SECRETS_ADDRESS,
};

/// The state key of the secrets actor's storage entry `user_key`.
pub fn state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&SECRETS_ADDRESS, user_key)
}

/// The hash a secret's keys use for its name.
pub fn name_hash(name: &str) -> H256 {
    keccak256(name.as_bytes())
}

/// User key of `owner`'s secret `name`.
pub fn secret_key(owner: &Address, name: &str) -> Vec<u8> {
    hashed_secret_key(owner, &name_hash(name))
}

/// User key of `owner`'s secret whose name hashes to `name_hash` (what its listing names).
pub fn hashed_secret_key(owner: &Address, name_hash: &H256) -> Vec<u8> {
    [&b"s"[..], &name_hash.0, &owner.0].concat()
}

/// User key of the number of `owner`'s secrets.
pub fn count_key(owner: &Address) -> Vec<u8> {
    [&b"n"[..], &owner.0].concat()
}

/// User key of `reader`'s envelope of `owner`'s secret `name`.
pub fn envelope_key(owner: &Address, name: &str, reader: &Address) -> Vec<u8> {
    [&b"e"[..], &name_hash(name).0, &owner.0, &reader.0].concat()
}

/// The listing of `owner`'s secrets (items: name hashes), counted by [`count_key`], so that
/// `/secrets/{owner}` pages by point lookups (see [`crate::listing`]).
pub fn secrets_listing(owner: &Address) -> Listing {
    Listing::new(state_key, state_key(&count_key(owner)), b'L', &owner.0)
}

/// The range of `owner`'s secrets, in name-hash order.
pub fn secrets_range(owner: &Address) -> Vec<u8> {
    owned_range(PREFIX_SECRET, owner)
}

/// The owner of a secret's state key, or `None` if `key` is not one.
pub fn secret_entry(key: &[u8]) -> Option<Address> {
    owned_entry(PREFIX_SECRET, H256::LEN, key).map(|(owner, _)| owner)
}

/// Canonical CBOR of an envelope record.
pub fn encode_envelope(envelope: &[u8]) -> Vec<u8> {
    let mut w = Writer::with_capacity(envelope.len() + 9);
    w.bytes(envelope);
    w.into_inner()
}

/// Strict decode of [`encode_envelope`].
pub fn decode_envelope(bytes: &[u8]) -> Result<Vec<u8>, RecordError> {
    Ok(decode_strict(bytes, |d| Ok(d.bytes()?.to_vec()))?)
}

/// A secret: `[name, version, [reader], updated_height]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretRecord {
    /// Its name.
    pub name: String,
    /// 1 at the first `set`, one more at every `set`, `grant` and `revoke`.
    pub version: u64,
    /// The readers with an envelope, in address order.
    pub readers: Vec<Address>,
    /// Height of its last change.
    pub updated_height: u64,
}

impl SecretRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(64 + 21 * self.readers.len() + self.name.len());
        w.array(4).text(&self.name).uint(self.version).array(self.readers.len() as u64);
        for reader in &self.readers {
            w.bytes(&reader.0);
        }
        w.uint(self.updated_height);
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 4)?;
            let name = d.str()?.to_owned();
            let version = d.u64()?;
            let at = d.position();
            let len =
                d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
            let mut readers = Vec::with_capacity(usize::try_from(len).unwrap_or(usize::MAX).min(64));
            for _ in 0..len {
                readers.push(Address(decode_fixed(d)?));
            }
            Ok(SecretRecord { name, version, readers, updated_height: d.u64()? })
        })?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_secrets_are_laid_out_by_owner() {
        let record = SecretRecord { name: "db".into(), version: 2, readers: vec![Address([1; 20])], updated_height: 5 };
        assert_eq!(SecretRecord::decode(&record.encode()), Ok(record));
        assert_eq!(decode_envelope(&encode_envelope(&[1, 2, 3])), Ok(vec![1, 2, 3]));
        let owner = Address([7; 20]);
        let key = state_key(&secret_key(&owner, "db"));
        assert!(key.starts_with(&secrets_range(&owner)));
        assert_eq!(secret_entry(&key), Some(owner));
    }
}
