//! The volume manifest and its **root**: the 32-byte commitment to a volume's contents that the
//! relay reports on chain and that anyone holding the object list can recompute.
//!
//! # The root
//!
//! ```text
//! root = keccak256( canonical CBOR array, sorted by key bytes (UTF-8, bytewise), of
//!                   [ key: text, size: uint, content_hash: bytes(32) ] )
//! content_hash = keccak256(the object's bytes)
//! ```
//!
//! Each element is a 3-element array; integers and lengths are in their shortest form (RFC 8949
//! §4.2.1), so one object list has exactly one encoding and one root. The empty volume's root is
//! `keccak256(0x80)` ([`EMPTY_ROOT`], `0x56e81f17…b421`). The root commits to what a reader can
//! check (keys, sizes, content hashes); how a relay cuts objects into chunks is its own business
//! and stays out of it. Example (pinned by a test below, every byte in `docs/relay.md`): the
//! volume holding only `"a.txt"` = `hello` encodes as `81 83 65 612e747874 05 5820 1c8aff95…36deac8`
//! and has root `0xaf33cbe5096a3bdf27e2bf452b6aec723470058827123cf33a7fef5b8db305c1`.
//!
//! # The manifest file
//!
//! What the relay stores per volume (`DIR/volumes/<volume id hex>/manifest`): the canonical CBOR
//! map
//!
//! ```text
//! {"volume": bytes(32), "objects": [[key, size, content_hash, [chunk hash bytes(32), ...]], ...],
//!  "version": 1}
//! ```
//!
//! (keys in canonical order: `volume`, `objects`, `version`), objects sorted by key with no
//! duplicate, each object's chunks in order: `ceil(size / CHUNK_BYTES)` hashes, the keccak256 of
//! each [`CHUNK_BYTES`] slice. Decoding refuses anything else (another
//! version or volume, unsorted or invalid keys, a chunk count that does not fit the size), so a
//! manifest that loads is one the store wrote.

use crate::limits::{CHUNK_BYTES, KeyError, MAX_OBJECT_BYTES, MAX_OBJECTS_PER_VOLUME, validate_key};
use drover_types::H256;
use drover_types::cbor::{self, CborError, Writer};
use minicbor::decode::Decoder;
use serde::{Deserialize, Serialize};
use sha3::{Digest, Keccak256};
use std::collections::BTreeMap;

/// The manifest format's version, stored in every manifest.
pub const MANIFEST_VERSION: u64 = 1;

/// The root of a volume without objects: keccak256 of the empty CBOR array (`0x80`).
pub const EMPTY_ROOT: H256 = H256([
    0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e, 0x5b, 0x48, 0xe0,
    0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
]);

/// Why manifest bytes are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// Not the canonical CBOR of a manifest.
    #[error("not a manifest: {0}")]
    Cbor(#[from] CborError),
    /// Another format version than [`MANIFEST_VERSION`].
    #[error("manifest version {0} is not supported (this relay reads version {MANIFEST_VERSION})")]
    Version(u64),
    /// The manifest names another volume than the one it was read for.
    #[error("the manifest is volume {found}'s, not {expected}'s")]
    Volume {
        /// The volume it was read for.
        expected: H256,
        /// The volume it names.
        found: H256,
    },
    /// A key is not a valid object key.
    #[error("object key {key:?}: {error}")]
    Key {
        /// The key.
        key: String,
        /// What is wrong with it.
        error: KeyError,
    },
    /// The objects are not sorted by key, or a key appears twice.
    #[error("object keys are not strictly ascending at {0:?}")]
    Order(String),
    /// An object's chunks do not cover its size, or it is larger than any object may be.
    #[error("object {0:?}: its size and chunk list disagree, or it exceeds the object size limit")]
    Chunks(String),
    /// More objects than a volume may hold.
    #[error("more than {MAX_OBJECTS_PER_VOLUME} objects")]
    TooManyObjects,
}

/// One object of a volume, as its manifest records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectEntry {
    /// Bytes of the object.
    pub size: u64,
    /// keccak256 of the object's bytes.
    pub content_hash: H256,
    /// keccak256 of each [`CHUNK_BYTES`] slice of the object, in order.
    pub chunks: Vec<H256>,
}

impl ObjectEntry {
    /// The entry of `bytes`: its size, content hash and chunk hashes.
    pub fn of(bytes: &[u8]) -> Self {
        ObjectEntry {
            size: bytes.len() as u64,
            content_hash: drover_types::keccak256(bytes),
            chunks: bytes.chunks(CHUNK_BYTES).map(drover_types::keccak256).collect(),
        }
    }

    /// Whether the chunk list fits the size (and the size the object limit).
    fn is_consistent(&self) -> bool {
        self.size <= MAX_OBJECT_BYTES as u64 && self.chunks.len() as u64 == self.size.div_ceil(CHUNK_BYTES as u64)
    }
}

/// A listed object: what a reader needs to check it, and what the root commits to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListEntry {
    /// The object's key.
    pub key: String,
    /// Bytes of the object.
    pub size: u64,
    /// keccak256 of the object's bytes.
    pub content_hash: H256,
}

/// A volume's objects, sorted by key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    volume: H256,
    objects: BTreeMap<String, ObjectEntry>,
    size_bytes: u64,
}

impl Manifest {
    /// The manifest of an empty `volume`.
    pub fn new(volume: H256) -> Self {
        Manifest { volume, objects: BTreeMap::new(), size_bytes: 0 }
    }

    /// The volume it describes.
    pub fn volume(&self) -> H256 {
        self.volume
    }

    /// The objects, sorted by key (`String` orders bytewise, as the root requires).
    pub fn objects(&self) -> &BTreeMap<String, ObjectEntry> {
        &self.objects
    }

    /// The entry of `key`.
    pub fn get(&self, key: &str) -> Option<&ObjectEntry> {
        self.objects.get(key)
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether it holds no object.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Sum of the objects' sizes.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// Sets `key` to `entry`, returning the entry it replaces. The caller has validated the key.
    pub fn insert(&mut self, key: String, entry: ObjectEntry) -> Option<ObjectEntry> {
        self.size_bytes = self.size_bytes.saturating_add(entry.size);
        let old = self.objects.insert(key, entry);
        if let Some(old) = &old {
            self.size_bytes = self.size_bytes.saturating_sub(old.size);
        }
        old
    }

    /// Removes `key`, returning its entry.
    pub fn remove(&mut self, key: &str) -> Option<ObjectEntry> {
        let old = self.objects.remove(key)?;
        self.size_bytes = self.size_bytes.saturating_sub(old.size);
        Some(old)
    }

    /// The root (see the module documentation).
    pub fn root(&self) -> H256 {
        root_of(self.objects.iter().map(|(key, entry)| (key.as_str(), entry.size, &entry.content_hash)))
    }

    /// The canonical CBOR manifest file (see the module documentation).
    pub fn encode(&self) -> Vec<u8> {
        // A key, its size, hash and chunk list take about 40 bytes besides the key and chunks.
        let capacity = self.objects.iter().map(|(key, e)| key.len() + 48 + 33 * e.chunks.len()).sum::<usize>() + 64;
        let mut w = Writer::with_capacity(capacity);
        w.map(3).text("volume").bytes(&self.volume.0).text("objects").array(self.objects.len() as u64);
        for (key, entry) in &self.objects {
            w.array(4).text(key).uint(entry.size).bytes(&entry.content_hash.0).array(entry.chunks.len() as u64);
            for chunk in &entry.chunks {
                w.bytes(&chunk.0);
            }
        }
        w.text("version").uint(MANIFEST_VERSION);
        w.into_inner()
    }

    /// Reads a manifest file written for `volume`, refusing anything [`Manifest::encode`] would
    /// not have written.
    pub fn decode(volume: H256, bytes: &[u8]) -> Result<Self, ManifestError> {
        let (found, objects, version) = cbor::decode_strict(bytes, |d| {
            if cbor::expect_map(d)? != 3 {
                return Err(CborError::malformed("a manifest is a map of 3 entries"));
            }
            expect_key(d, "volume")?;
            let found = H256(cbor::decode_fixed::<32>(d)?);
            expect_key(d, "objects")?;
            let count = definite(d.array()?)?;
            let mut objects = Vec::new();
            for _ in 0..count {
                cbor::expect_array(d, 4)?;
                let key = d.str()?.to_owned();
                let size = d.u64()?;
                let content_hash = H256(cbor::decode_fixed::<32>(d)?);
                let chunk_count = definite(d.array()?)?;
                let mut chunks = Vec::new();
                for _ in 0..chunk_count {
                    chunks.push(H256(cbor::decode_fixed::<32>(d)?));
                }
                objects.push((key, ObjectEntry { size, content_hash, chunks }));
            }
            expect_key(d, "version")?;
            let version = d.u64()?;
            Ok((found, objects, version))
        })?;
        if version != MANIFEST_VERSION {
            return Err(ManifestError::Version(version));
        }
        if found != volume {
            return Err(ManifestError::Volume { expected: volume, found });
        }
        if objects.len() > MAX_OBJECTS_PER_VOLUME {
            return Err(ManifestError::TooManyObjects);
        }
        let mut manifest = Manifest::new(volume);
        for (key, entry) in objects {
            validate_key(&key).map_err(|error| ManifestError::Key { key: key.clone(), error })?;
            if manifest.objects.last_key_value().is_some_and(|(last, _)| *last >= key) {
                return Err(ManifestError::Order(key));
            }
            if !entry.is_consistent() {
                return Err(ManifestError::Chunks(key));
            }
            manifest.insert(key, entry);
        }
        Ok(manifest)
    }
}

fn expect_key(d: &mut Decoder<'_>, key: &str) -> Result<(), CborError> {
    let at = d.position();
    let found = d.str()?;
    if found != key {
        return Err(CborError::malformed(format!("expected key {key:?}, found {found:?} at byte {at}")));
    }
    Ok(())
}

fn definite(len: Option<u64>) -> Result<u64, CborError> {
    len.ok_or_else(|| CborError::malformed("an indefinite-length array"))
}

/// The root of an object list given as `(key, size, content_hash)` **sorted by key bytes with no
/// duplicate** (the caller's promise; a [`Manifest`] keeps its objects so).
pub fn root_of<'a>(objects: impl ExactSizeIterator<Item = (&'a str, u64, &'a H256)>) -> H256 {
    let mut w = Writer::new(Keccak256::new());
    w.array(objects.len() as u64);
    for (key, size, content_hash) in objects {
        w.array(3).text(key).uint(size).bytes(&content_hash.0);
    }
    H256(w.into_inner().finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::keccak256;

    fn volume() -> H256 {
        keccak256(b"volume")
    }

    #[test]
    fn the_empty_root_is_keccak_of_the_empty_array() {
        assert_eq!(EMPTY_ROOT, keccak256(&[0x80]));
        assert_eq!(Manifest::new(volume()).root(), EMPTY_ROOT);
        assert_eq!(EMPTY_ROOT.to_string(), "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
    }

    #[test]
    fn a_known_volume_has_a_pinned_root() {
        let mut manifest = Manifest::new(volume());
        manifest.insert("a.txt".into(), ObjectEntry::of(b"hello"));
        let hello = "1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8";
        assert_eq!(keccak256(b"hello").to_string(), format!("0x{hello}"));
        // [["a.txt", 5, keccak256("hello")]]
        let encoded = format!("81 83 65 612e747874 05 5820 {hello}").replace(' ', "");
        assert_eq!(manifest.root(), keccak256(&hex::decode(&encoded).unwrap()));
        assert_eq!(
            manifest.root().to_string(),
            "0xaf33cbe5096a3bdf27e2bf452b6aec723470058827123cf33a7fef5b8db305c1",
            "pinned in docs/relay.md"
        );
    }

    #[test]
    fn the_root_sorts_by_key_bytes_and_ignores_chunking() {
        let mut a = Manifest::new(volume());
        a.insert("b".into(), ObjectEntry::of(b"2"));
        a.insert("B".into(), ObjectEntry::of(b"1"));
        a.insert("a/é".into(), ObjectEntry::of(b"3"));
        let listed: Vec<_> = a.objects().keys().cloned().collect();
        assert_eq!(listed, ["B", "a/é", "b"]);
        let by_hand =
            root_of([("B", 1, &keccak256(b"1")), ("a/é", 1, &keccak256(b"3")), ("b", 1, &keccak256(b"2"))].into_iter());
        assert_eq!(a.root(), by_hand);
        let mut b = a.clone();
        b.objects.get_mut("b").unwrap().chunks = vec![H256([7; 32])];
        assert_eq!(a.root(), b.root(), "chunk hashes are not part of the root");
    }

    #[test]
    fn a_manifest_round_trips_and_refuses_what_it_would_not_write() {
        let mut manifest = Manifest::new(volume());
        manifest.insert("x/1".into(), ObjectEntry::of(&vec![1u8; CHUNK_BYTES + 1]));
        manifest.insert("empty".into(), ObjectEntry::of(b""));
        let bytes = manifest.encode();
        let decoded = Manifest::decode(volume(), &bytes).unwrap();
        assert_eq!(decoded, manifest);
        assert_eq!(decoded.size_bytes(), CHUNK_BYTES as u64 + 1);
        assert_eq!(decoded.get("x/1").unwrap().chunks.len(), 2);

        assert!(matches!(Manifest::decode(H256([1; 32]), &bytes), Err(ManifestError::Volume { .. })));
        assert!(matches!(Manifest::decode(volume(), &bytes[..bytes.len() - 1]), Err(ManifestError::Cbor(_))));
        let mut torn = manifest.clone();
        torn.objects.get_mut("x/1").unwrap().chunks.pop();
        assert_eq!(Manifest::decode(volume(), &torn.encode()), Err(ManifestError::Chunks("x/1".into())));
        let mut bad_key = Manifest::new(volume());
        bad_key.insert("../up".into(), ObjectEntry::of(b""));
        assert!(matches!(Manifest::decode(volume(), &bad_key.encode()), Err(ManifestError::Key { .. })));
    }
}
