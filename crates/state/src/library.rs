//! Library records: the storage of the library system actor (`0x00…0d`), proven with
//! `/proof/storage/0x…0d/{key}` like any actor's storage.
//!
//! | user key | record |
//! | --- | --- |
//! | `"l" ‖ keccak256(name) ‖ publisher(20)` | [`LibraryRecord`]: the latest version, stored by publisher (see [`libraries_range`]) |
//! | `"v" ‖ keccak256(name) ‖ publisher(20) ‖ version(4, BE)` | [`LibraryVersion`]: every version, kept |
//! | `"k" ‖ code_hash(32)` | the code, raw bytes like an actor's (content-addressed: versions with the same code share it) |
//! | `"n" ‖ publisher(20)` | the number of libraries the publisher has (removed ones included): the count of its listing |
//! | `"L" ‖ …` | the publisher's listing of its libraries' name hashes, in publication order ([`libraries_listing`]) |
//!
//! Invariants: every version `1..=version` of a library has its record and its code; a removed
//! library keeps its records (for history) but is never run; once published again, only the
//! versions from `live_from` on run (a removal is never undone for callers pinned to older
//! versions).

use crate::RecordError;
use crate::keys::{PREFIX_LIBRARY, owned_entry, owned_range, storage_key};
use crate::listing::Listing;
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
    hashed_library_key(publisher, &name_hash(name))
}

/// The hash a library's keys use for its name.
pub fn name_hash(name: &str) -> H256 {
    keccak256(name.as_bytes())
}

/// User key of `publisher`'s library whose name hashes to `name_hash` (what its listing names).
pub fn hashed_library_key(publisher: &Address, name_hash: &H256) -> Vec<u8> {
    [&b"l"[..], &name_hash.0, &publisher.0].concat()
}

/// User key of version `version` of `publisher`'s library `name`.
pub fn version_key(publisher: &Address, name: &str, version: u32) -> Vec<u8> {
    [&b"v"[..], &keccak256(name.as_bytes()).0, &publisher.0, &version.to_be_bytes()].concat()
}

/// User key of the code with hash `code_hash`.
pub fn code_key(code_hash: &H256) -> Vec<u8> {
    [&b"k"[..], &code_hash.0].concat()
}

/// User key of the number of `publisher`'s libraries.
pub fn count_key(publisher: &Address) -> Vec<u8> {
    [&b"n"[..], &publisher.0].concat()
}

/// The listing of `publisher`'s libraries (items: name hashes), counted by [`count_key`]: a
/// library is listed at its first `publish` and never leaves (a removed one keeps its records),
/// so `/library/{publisher}` pages by point lookups in publication order (see
/// [`crate::listing`]).
pub fn libraries_listing(publisher: &Address) -> Listing {
    Listing::new(state_key, state_key(&count_key(publisher)), b'L', &publisher.0)
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

/// A library: `[name, version, removed, latest]`, or `[name, version, removed, latest,
/// live_from]` once it was published again after a removal — its latest version, whether it was
/// removed, that version's record, and the first version that runs.
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
    /// The first version that runs: 1, or the first version published after a removal.
    pub live_from: u32,
}

impl LibraryRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(128 + self.name.len());
        // The fifth element only when it says something: a record never removed and published
        // again encodes as before it existed.
        let live_from = (self.live_from > 1).then_some(self.live_from);
        w.array(4 + u64::from(live_from.is_some())).text(&self.name).uint(u64::from(self.version)).bool(self.removed);
        let mut out = w.into_inner();
        out.extend_from_slice(&self.latest.encode());
        if let Some(live_from) = live_from {
            let mut w = Writer::with_capacity(8);
            w.uint(u64::from(live_from));
            out.extend_from_slice(&w.into_inner());
        }
        out
    }

    /// Whether version `version` runs: not removed, and published since the last removal.
    pub fn runs(&self, version: u32) -> bool {
        !self.removed && version >= self.live_from && version <= self.version
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            let at = d.position();
            let len = match d.array()? {
                Some(len @ (4 | 5)) => len,
                Some(other) => {
                    return Err(CborError::malformed(format!("expected an array of 4 or 5 elements, found {other}")));
                }
                None => return Err(CborError::NonCanonical(format!("indefinite-length array at byte {at}"))),
            };
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
            let live_from = if len == 5 {
                let live_from = d.u32()?;
                if live_from <= 1 {
                    return Err(CborError::NonCanonical("live_from of 1 is left out".into()));
                }
                live_from
            } else {
                1
            };
            Ok(LibraryRecord { name, version, removed, latest, live_from })
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
        let record = LibraryRecord { name: "fixed".into(), version: 2, removed: false, latest: version, live_from: 1 };
        assert_eq!(LibraryRecord::decode(&record.encode()), Ok(record.clone()));
        let again = LibraryRecord { live_from: 2, ..record.clone() };
        assert_eq!(LibraryRecord::decode(&again.encode()), Ok(again.clone()));
        assert_eq!(again.encode().len(), record.encode().len() + 1, "the fifth element only when above 1");
        assert!(again.runs(2) && !again.runs(1) && !again.runs(3));
        let mut explicit_one = record.encode();
        explicit_one[0] = 0x85;
        explicit_one.push(0x01);
        assert!(LibraryRecord::decode(&explicit_one).is_err(), "one encoding per record");
        let publisher = Address([5; 20]);
        let key = state_key(&library_key(&publisher, "fixed"));
        assert!(key.starts_with(&libraries_range(&publisher)));
        assert_eq!(library_entry(&key), Some(publisher));
    }
}
