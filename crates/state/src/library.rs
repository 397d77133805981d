//! Library records: the storage of the library system actor (`0x00…0d`), proven with
//! `/proof/storage/0x…0d/{key}` like any actor's storage.
//!
//! | user key | record |
//! | --- | --- |
//! | `"l" ‖ keccak256(name) ‖ publisher(20)` | [`LibraryRecord`]: the latest version, stored by publisher (see [`libraries_range`]) |
//! | `"v" ‖ keccak256(name) ‖ publisher(20) ‖ version(4, BE)` | [`LibraryVersion`]: every version, kept |
//! | `"k" ‖ code_hash(32)` | the code, raw bytes like an actor's (content-addressed: versions with the same code share it) |
//!
//! Invariants: every version `1..=version` of a library has its record and its code; a removed
//! library keeps its records (for history) but is never run.

use crate::RecordError;
use crate::keys::{PREFIX_LIBRARY, owned_entry, owned_range, storage_key};
use drover_types::{
    Address, H256,
    cbor::{CborError, Writer, decode_fixed, decode_strict, expect_array},
    keccak256,
    library::LIBRARY_ADDRESS,
};
use minicbor::decode::Decoder;

/// The state key of the library actor's storage entry `user_key`.
pub fn state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&LIBRARY_ADDRESS, user_key)
}

/// User key of `publisher`'s library `name`.
pub fn library_key(publisher: &Address, name: &str) -> Vec<u8> {
    [&b"l"[..], &keccak256(name.as_bytes()).0, &publisher.0].concat()
}

/// User key of version `version` of `publisher`'s library `name`.
pub fn version_key(publisher: &Address, name: &str, version: u32) -> Vec<u8> {
    [&b"v"[..], &keccak256(name.as_bytes()).0, &publisher.0, &version.to_be_bytes()].concat()
}

/// User key of the code with hash `code_hash`.
pub fn code_key(code_hash: &H256) -> Vec<u8> {
    [&b"k"[..], &code_hash.0].concat()
}

/// The range of `publisher`'s libraries, in name-hash order.
pub fn libraries_range(publisher: &Address) -> Vec<u8> {
    owned_range(PREFIX_LIBRARY, publisher)
}

/// The publisher of a library's state key, or `None` if `key` is not one.
pub fn library_entry(key: &[u8]) -> Option<Address> {
    owned_entry(PREFIX_LIBRARY, H256::LEN, key).map(|(publisher, _)| publisher)
}

fn write_texts(w: &mut Writer<Vec<u8>>, texts: &[String]) {
    w.array(texts.len() as u64);
    for text in texts {
        w.text(text);
    }
}

fn read_texts(d: &mut Decoder<'_>) -> Result<Vec<String>, CborError> {
    let at = d.position();
    let len = d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
    let mut texts = Vec::with_capacity(usize::try_from(len).unwrap_or(usize::MAX).min(64));
    for _ in 0..len {
        texts.push(d.str()?.to_owned());
    }
    Ok(texts)
}

/// One version of a library: `[code_hash, code_size, [manifest], published_height]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryVersion {
    /// keccak256 of its code.
    pub code_hash: H256,
    /// Bytes of its code.
    pub code_size: u64,
    /// Its entitlements.
    pub manifest: Vec<String>,
    /// Height it was published at.
    pub published_height: u64,
}

impl LibraryVersion {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(96);
        w.array(4).bytes(&self.code_hash.0).uint(self.code_size);
        write_texts(&mut w, &self.manifest);
        w.uint(self.published_height);
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 4)?;
            Ok(LibraryVersion {
                code_hash: H256(decode_fixed(d)?),
                code_size: d.u64()?,
                manifest: read_texts(d)?,
                published_height: d.u64()?,
            })
        })?)
    }
}

/// A library: `[name, version, removed, latest]` — its latest version, whether it was removed,
/// and that version's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryRecord {
    /// Its name.
    pub name: String,
    /// Its latest version (from 1).
    pub version: u32,
    /// Whether `remove` was called (no version runs any more).
    pub removed: bool,
    /// The latest version.
    pub latest: LibraryVersion,
}

impl LibraryRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(128 + self.name.len());
        w.array(4).text(&self.name).uint(u64::from(self.version)).bool(self.removed);
        let mut out = w.into_inner();
        out.extend_from_slice(&self.latest.encode());
        out
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 4)?;
            let name = d.str()?.to_owned();
            let version = d.u32()?;
            let removed = d.bool()?;
            expect_array(d, 4)?;
            let latest = LibraryVersion {
                code_hash: H256(decode_fixed(d)?),
                code_size: d.u64()?,
                manifest: read_texts(d)?,
                published_height: d.u64()?,
            };
            Ok(LibraryRecord { name, version, removed, latest })
        })?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_libraries_are_laid_out_by_publisher() {
        let version = LibraryVersion {
            code_hash: H256([3; 32]),
            code_size: 9,
            manifest: vec!["storage.kv".into()],
            published_height: 4,
        };
        assert_eq!(LibraryVersion::decode(&version.encode()), Ok(version.clone()));
        let record = LibraryRecord { name: "fixed".into(), version: 2, removed: false, latest: version };
        assert_eq!(LibraryRecord::decode(&record.encode()), Ok(record));
        let publisher = Address([5; 20]);
        let key = state_key(&library_key(&publisher, "fixed"));
        assert!(key.starts_with(&libraries_range(&publisher)));
        assert_eq!(library_entry(&key), Some(publisher));
    }
}
