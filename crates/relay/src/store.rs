//! The relay's on-disk object store: content-addressed chunks shared by every volume, and one
//! manifest per volume naming its objects.
//!
//! # Layout under `DIR`
//!
//! ```text
//! DIR/lock                                  held (flock) while a Store is open: one relay per DIR
//! DIR/tmp/                                  files being written; emptied on open
//! DIR/chunks/<2 hex>/<keccak256 hex>        one chunk (at most CHUNK_BYTES), named by its hash
//! DIR/volumes/<volume id hex>/manifest      the volume's manifest (crate::manifest)
//! DIR/volumes/<volume id hex>/committed     the last root committed on chain (crate::commit)
//! ```
//!
//! An object is cut into [`CHUNK_BYTES`] slices; each slice is stored once whatever number of
//! objects and volumes hold it. Object keys never become file names: they live only inside
//! manifests, so a key cannot escape `DIR` whatever it holds ([`validate_key`] still refuses the
//! keys a URL would rewrite).
//!
//! # Crash safety
//!
//! Every file is written whole to `DIR/tmp`, fsynced, renamed to its place and its directory
//! fsynced: a name only ever points at complete, durable bytes. A put writes (or finds) all its
//! chunks and fsyncs their directories **before** it replaces the manifest, and the manifest's
//! rename is the commit point. A kill at any moment therefore leaves the old manifest (the old
//! object, plus maybe unreferenced chunks) or the new one (all of whose chunks are durable); an
//! acknowledged put or delete has been fsynced. Opening cleans up what a crash left: it empties
//! `DIR/tmp` and deletes every chunk no manifest references.
//!
//! # Reference counting
//!
//! Chunk reference counts live in memory only, rebuilt from the manifests on open, so they cannot
//! disagree with the disk. A count covers the manifests' references plus **pins**: a put pins its
//! chunks before it looks for them on disk and a get pins what it is about to read, so a
//! concurrent delete never removes a chunk in use. A chunk file is deleted when its count reaches
//! zero, under the count's lock (a crash before that only leaves an orphan, removed on the next
//! open).
//!
//! Locks, always taken in this order: a volume's manifest, then the chunk counts or the byte
//! total. Everything here blocks on the disk: async callers run it on a blocking thread.

use crate::limits::{CHUNK_BYTES, KeyError, MAX_LIST_LIMIT, MAX_OBJECT_BYTES, MAX_OBJECTS_PER_VOLUME, validate_key};
use crate::manifest::{ListEntry, Manifest, ManifestError, ObjectEntry};
use drover_types::{H256, keccak256};
use parking_lot::Mutex;
use std::collections::{BTreeSet, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Name of a volume's manifest file inside its directory.
const MANIFEST_FILE: &str = "manifest";
/// Name of a volume's last-committed record inside its directory.
pub(crate) const COMMITTED_FILE: &str = "committed";

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The object key is invalid.
    #[error("invalid object key: {0}")]
    Key(#[from] KeyError),
    /// The object is larger than [`MAX_OBJECT_BYTES`].
    #[error("an object of {size} bytes exceeds the {MAX_OBJECT_BYTES}-byte limit")]
    TooLarge {
        /// The object's size.
        size: u64,
    },
    /// Storing the object would exceed the relay's capacity.
    #[error("the relay holds {used_bytes} of its {capacity_bytes} bytes; {more_bytes} more do not fit")]
    Capacity {
        /// Bytes held now.
        used_bytes: u64,
        /// Bytes the relay offers.
        capacity_bytes: u64,
        /// Bytes the write adds.
        more_bytes: u64,
    },
    /// The volume already holds [`MAX_OBJECTS_PER_VOLUME`] objects.
    #[error("the volume already holds {MAX_OBJECTS_PER_VOLUME} objects")]
    TooManyObjects,
    /// Storing the object would take the volume past the size its owner pays for.
    #[error("the volume would hold {size_bytes} bytes; its owner pays for at most {max_size_bytes}")]
    VolumeFull {
        /// The volume's size after the write.
        size_bytes: u64,
        /// The owner's cap (`max_size_bytes` on chain).
        max_size_bytes: u64,
    },
    /// A chunk of a stored object is missing or does not hash to its name: the disk lost data.
    #[error("chunk {chunk} of object {key:?} in volume {volume} is missing or corrupt")]
    Corrupt {
        /// The volume.
        volume: H256,
        /// The object.
        key: String,
        /// The chunk.
        chunk: H256,
    },
    /// A manifest on disk does not decode: the store refuses to open rather than guess.
    #[error("manifest {path}: {source}")]
    Manifest {
        /// Its path.
        path: PathBuf,
        /// Why it does not decode.
        source: ManifestError,
    },
    /// The volume was dropped ([`Store::delete_volume`]) while the write waited for it.
    #[error("volume {0} was dropped during the write")]
    Dropped(H256),
    /// Another process holds `DIR/lock`.
    #[error("{0} is in use by another relay process")]
    Locked(PathBuf),
    /// The file system failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io { path: path.to_owned(), source }
}

/// A volume's state as the chain sees it: its root, size and object count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeSummary {
    /// The manifest's root ([`crate::manifest`]).
    pub root: H256,
    /// Sum of the objects' sizes.
    pub size_bytes: u64,
    /// Number of objects.
    pub objects: u64,
}

impl VolumeSummary {
    /// The summary of a volume without objects.
    pub const EMPTY: VolumeSummary = VolumeSummary { root: crate::manifest::EMPTY_ROOT, size_bytes: 0, objects: 0 };
}

/// What a put stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PutOutcome {
    /// The object's size.
    pub size: u64,
    /// keccak256 of the object.
    pub content_hash: H256,
    /// The volume after the put.
    pub volume: VolumeSummary,
}

/// An object read back whole (tests; the server streams with [`Store::open_object`]).
#[cfg(test)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// keccak256 of the bytes.
    pub content_hash: H256,
}

/// An object being read chunk by chunk ([`Store::open_object`]); its chunks stay on disk until
/// it is dropped.
pub struct ObjectReader {
    store: Arc<Store>,
    volume: H256,
    key: String,
    chunks: Vec<H256>,
    next: usize,
    /// The object's size in bytes.
    pub size: u64,
    /// keccak256 of the object.
    pub content_hash: H256,
}

impl ObjectReader {
    /// The next chunk's bytes (checked against its hash), or `None` after the last.
    pub fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(chunk) = self.chunks.get(self.next) else { return Ok(None) };
        let data = self.store.read_chunk(self.volume, &self.key, chunk)?;
        self.next += 1;
        Ok(Some(data))
    }
}

impl Drop for ObjectReader {
    fn drop(&mut self) {
        self.store.release(&self.chunks);
    }
}

/// One page of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListPage {
    /// The objects, in key order.
    pub entries: Vec<ListEntry>,
    /// When more objects match: the key to pass as `after` for the next page.
    pub next_after: Option<String>,
}

/// Totals over the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Volumes with a manifest on disk.
    pub volumes: u64,
    /// Sum of every volume's size (what capacity is counted against; shared chunks count once
    /// per object that holds them, as rent does).
    pub bytes: u64,
    /// The capacity the store was opened with.
    pub capacity_bytes: u64,
}

struct Volume {
    manifest: Manifest,
    root: H256,
    /// Whether its manifest has been written: a volume whose first put failed has none, and is
    /// not listed.
    on_disk: bool,
    /// Set by [`Store::delete_volume`]: a put that waited on this handle takes a fresh one.
    dropped: bool,
}

/// The object store of one relay (see the module documentation).
pub struct Store {
    dir: PathBuf,
    capacity_bytes: u64,
    volumes: Mutex<HashMap<H256, Arc<Mutex<Volume>>>>,
    chunk_refs: Mutex<HashMap<H256, u64>>,
    used_bytes: Mutex<u64>,
    temp_counter: AtomicU64,
    /// Holds the advisory lock on `DIR/lock` for the store's lifetime.
    _lock: File,
}

/// Chunks pinned by an operation in flight; unpinned (and collected if unreferenced) on drop.
struct Pins<'s> {
    store: &'s Store,
    chunks: Vec<H256>,
}

impl Drop for Pins<'_> {
    fn drop(&mut self) {
        self.store.release(&self.chunks);
    }
}

impl Store {
    /// Opens (creating it if needed) the store in `dir`, holding at most `capacity_bytes` over all
    /// volumes. Takes `DIR/lock`, empties `DIR/tmp`, loads every manifest and deletes the chunks
    /// none references. Refuses to open if a manifest does not decode (its chunks would otherwise
    /// be collected).
    pub fn open(dir: impl Into<PathBuf>, capacity_bytes: u64) -> Result<Self, StoreError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        let lock_path = dir.join("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_error(&lock_path))?;
        lock.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => StoreError::Locked(dir.clone()),
            std::fs::TryLockError::Error(source) => StoreError::Io { path: lock_path.clone(), source },
        })?;
        for sub in ["tmp", "chunks", "volumes"] {
            create_dir(&dir.join(sub))?;
        }
        sync_dir(&dir)?;
        let chunks_dir = dir.join("chunks");
        for prefix in 0..=255u8 {
            create_dir(&chunks_dir.join(hex::encode([prefix])))?;
        }
        sync_dir(&chunks_dir)?;
        let tmp = dir.join("tmp");
        for entry in read_dir(&tmp)? {
            let path = entry.path();
            let removed = if path.is_dir() { fs::remove_dir_all(&path) } else { fs::remove_file(&path) };
            removed.map_err(io_error(&path))?;
            tracing::info!(path = %path.display(), "removed a file an interrupted write left");
        }

        let store = Store {
            dir,
            capacity_bytes,
            volumes: Mutex::new(HashMap::new()),
            chunk_refs: Mutex::new(HashMap::new()),
            used_bytes: Mutex::new(0),
            temp_counter: AtomicU64::new(0),
            _lock: lock,
        };
        store.load_volumes()?;
        store.sweep_chunks()?;
        Ok(store)
    }

    fn load_volumes(&self) -> Result<(), StoreError> {
        let volumes_dir = self.dir.join("volumes");
        let mut volumes = self.volumes.lock();
        let mut refs = self.chunk_refs.lock();
        let mut used = self.used_bytes.lock();
        for entry in read_dir(&volumes_dir)? {
            let path = entry.path();
            let Some(id) = path.file_name().and_then(|n| n.to_str()).and_then(parse_volume_dir) else {
                tracing::warn!(path = %path.display(), "ignoring a directory that names no volume");
                continue;
            };
            let manifest_path = path.join(MANIFEST_FILE);
            let bytes = match fs::read(&manifest_path) {
                Ok(bytes) => bytes,
                // A crash between creating the directory and the first manifest, or during a
                // volume's drop after its manifest went: no objects, so nothing to keep.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if let Err(e) = fs::remove_dir_all(&path) {
                        tracing::warn!(path = %path.display(), error = %e, "cannot remove an empty volume directory");
                    }
                    continue;
                }
                Err(e) => return Err(io_error(&manifest_path)(e)),
            };
            let manifest = Manifest::decode(id, &bytes)
                .map_err(|source| StoreError::Manifest { path: manifest_path.clone(), source })?;
            for entry in manifest.objects().values() {
                for chunk in &entry.chunks {
                    *refs.entry(*chunk).or_default() += 1;
                }
            }
            *used = used.saturating_add(manifest.size_bytes());
            let root = manifest.root();
            volumes.insert(id, Arc::new(Mutex::new(Volume { manifest, root, on_disk: true, dropped: false })));
        }
        Ok(())
    }

    /// Deletes every chunk file no manifest references: chunks of puts a crash interrupted, and
    /// of deletes a crash interrupted after their manifest was replaced.
    fn sweep_chunks(&self) -> Result<(), StoreError> {
        let refs = self.chunk_refs.lock();
        let mut present = 0usize;
        for prefix in 0..=255u8 {
            let sub = self.dir.join("chunks").join(hex::encode([prefix]));
            for entry in read_dir(&sub)? {
                let path = entry.path();
                let referenced = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(parse_chunk_name)
                    .is_some_and(|hash| hash.0[0] == prefix && refs.contains_key(&hash));
                if referenced {
                    present += 1;
                } else {
                    fs::remove_file(&path).map_err(io_error(&path))?;
                    tracing::debug!(path = %path.display(), "removed an unreferenced chunk");
                }
            }
        }
        if present < refs.len() {
            tracing::error!(
                missing = refs.len() - present,
                "chunks referenced by manifests are missing from disk; reads of their objects will fail"
            );
        }
        Ok(())
    }

    /// The directory the store lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stores `bytes` as `key` of `volume`, replacing any object of that key, as long as the
    /// volume stays within `max_size_bytes` (its owner's cap: bytes past it would be stored
    /// unpaid). Returns once the object is durable.
    pub fn put(&self, volume: H256, key: &str, bytes: &[u8], max_size_bytes: u64) -> Result<PutOutcome, StoreError> {
        validate_key(key)?;
        if bytes.len() > MAX_OBJECT_BYTES {
            return Err(StoreError::TooLarge { size: bytes.len() as u64 });
        }
        let entry = ObjectEntry::of(bytes);
        let pins = self.pin(entry.chunks.clone());
        let mut dirs = BTreeSet::new();
        for (hash, data) in entry.chunks.iter().zip(bytes.chunks(CHUNK_BYTES)) {
            self.write_chunk(hash, data)?;
            dirs.insert(self.chunk_path(hash).parent().map(Path::to_owned).unwrap_or_default());
        }
        // Also when a chunk was already there: another put may have renamed it without having
        // fsynced its directory yet, and this manifest must not outlive it.
        for dir in &dirs {
            sync_dir(dir)?;
        }

        let handle = loop {
            let handle = self.volume_handle(volume, true).unwrap_or_else(|| unreachable!("created on demand"));
            if !handle.lock().dropped {
                break handle;
            }
        };
        let mut vol = handle.lock();
        if vol.dropped {
            // Dropped between the check and now.
            return Err(StoreError::Dropped(volume));
        }
        let old = vol.manifest.get(key).cloned();
        if old.as_ref() == Some(&entry) && vol.on_disk {
            return Ok(PutOutcome { size: entry.size, content_hash: entry.content_hash, volume: summary_of(&vol) });
        }
        if old.is_none() && vol.manifest.len() >= MAX_OBJECTS_PER_VOLUME {
            return Err(StoreError::TooManyObjects);
        }
        let old_size = old.as_ref().map_or(0, |old| old.size);
        let size_bytes = vol.manifest.size_bytes().saturating_sub(old_size).saturating_add(entry.size);
        if entry.size > old_size && size_bytes > max_size_bytes {
            return Err(StoreError::VolumeFull { size_bytes, max_size_bytes });
        }
        self.reserve(old_size, entry.size)?;
        vol.manifest.insert(key.to_owned(), entry.clone());
        if let Err(e) = self.write_manifest(&vol.manifest) {
            match &old {
                Some(old) => vol.manifest.insert(key.to_owned(), old.clone()),
                None => vol.manifest.remove(key),
            };
            self.unreserve(old_size, entry.size);
            return Err(e);
        }
        vol.on_disk = true;
        vol.root = vol.manifest.root();
        self.reference(&entry.chunks);
        if let Some(old) = &old {
            self.release(&old.chunks);
        }
        if old_size > entry.size {
            let mut used = self.used_bytes.lock();
            *used = used.saturating_sub(old_size - entry.size);
        }
        let volume_summary = summary_of(&vol);
        drop(vol);
        drop(pins);
        Ok(PutOutcome { size: entry.size, content_hash: entry.content_hash, volume: volume_summary })
    }

    /// The object `key` of `volume`, or `None`. Every chunk is checked against its hash.
    #[cfg(test)]
    pub fn get(&self, volume: H256, key: &str) -> Result<Option<Object>, StoreError> {
        validate_key(key)?;
        let Some(handle) = self.volume_handle(volume, false) else { return Ok(None) };
        let (entry, _pins) = {
            let vol = handle.lock();
            let Some(entry) = vol.manifest.get(key).cloned() else { return Ok(None) };
            // Pinned under the manifest's lock, so no delete can collect them before the read.
            let pins = self.pin(entry.chunks.clone());
            (entry, pins)
        };
        let mut bytes = Vec::with_capacity(usize::try_from(entry.size).unwrap_or(0));
        for chunk in &entry.chunks {
            bytes.extend_from_slice(&self.read_chunk(volume, key, chunk)?);
        }
        Ok(Some(Object { bytes, content_hash: entry.content_hash }))
    }

    /// Opens `key` of `volume` for reading chunk by chunk ([`ObjectReader`]), so a reader holds
    /// one chunk in memory at a time whatever the object's size.
    pub fn open_object(self: &Arc<Self>, volume: H256, key: &str) -> Result<Option<ObjectReader>, StoreError> {
        validate_key(key)?;
        let Some(handle) = self.volume_handle(volume, false) else { return Ok(None) };
        let vol = handle.lock();
        let Some(entry) = vol.manifest.get(key).cloned() else { return Ok(None) };
        // Referenced under the manifest's lock, so no delete can collect them before the reader
        // is dropped.
        self.reference(&entry.chunks);
        Ok(Some(ObjectReader {
            store: Arc::clone(self),
            volume,
            key: key.to_owned(),
            size: entry.size,
            content_hash: entry.content_hash,
            chunks: entry.chunks,
            next: 0,
        }))
    }

    /// The bytes of `chunk` of `key` in `volume`, checked against its name.
    fn read_chunk(&self, volume: H256, key: &str, chunk: &H256) -> Result<Vec<u8>, StoreError> {
        let corrupt = || StoreError::Corrupt { volume, key: key.to_owned(), chunk: *chunk };
        let data = match fs::read(self.chunk_path(chunk)) {
            Ok(data) => data,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(corrupt()),
            Err(e) => return Err(io_error(&self.chunk_path(chunk))(e)),
        };
        if keccak256(&data) != *chunk {
            return Err(corrupt());
        }
        Ok(data)
    }

    /// Deletes `key` of `volume`. Returns the volume after the delete, or `None` if there was no
    /// such object.
    pub fn delete(&self, volume: H256, key: &str) -> Result<Option<VolumeSummary>, StoreError> {
        validate_key(key)?;
        let Some(handle) = self.volume_handle(volume, false) else { return Ok(None) };
        let mut vol = handle.lock();
        let Some(old) = vol.manifest.remove(key) else { return Ok(None) };
        if let Err(e) = self.write_manifest(&vol.manifest) {
            vol.manifest.insert(key.to_owned(), old);
            return Err(e);
        }
        vol.root = vol.manifest.root();
        self.release(&old.chunks);
        let mut used = self.used_bytes.lock();
        *used = used.saturating_sub(old.size);
        Ok(Some(summary_of(&vol)))
    }

    /// Up to `limit` (at most [`MAX_LIST_LIMIT`]) objects of `volume` whose key starts with
    /// `prefix`, in key order, starting after the key `after`.
    pub fn list(&self, volume: H256, prefix: &str, after: Option<&str>, limit: usize) -> ListPage {
        let limit = limit.clamp(1, MAX_LIST_LIMIT);
        let Some(handle) = self.volume_handle(volume, false) else {
            return ListPage { entries: Vec::new(), next_after: None };
        };
        let vol = handle.lock();
        let start = match after {
            Some(after) if after >= prefix => Bound::Excluded(after),
            _ => Bound::Included(prefix),
        };
        let mut matching = vol
            .manifest
            .objects()
            .range::<str, _>((start, Bound::Unbounded))
            .take_while(|(key, _)| key.starts_with(prefix))
            .map(|(key, entry)| ListEntry { key: key.clone(), size: entry.size, content_hash: entry.content_hash });
        let entries: Vec<ListEntry> = matching.by_ref().take(limit).collect();
        let next_after = match matching.next() {
            Some(_) => entries.last().map(|last| last.key.clone()),
            None => None,
        };
        ListPage { entries, next_after }
    }

    /// `volume`'s root, size and object count ([`VolumeSummary::EMPTY`] if it holds nothing).
    pub fn summary(&self, volume: H256) -> VolumeSummary {
        match self.volume_handle(volume, false) {
            Some(handle) => summary_of(&handle.lock()),
            None => VolumeSummary::EMPTY,
        }
    }

    /// The volumes with a manifest on disk, in id order.
    pub fn volumes(&self) -> Vec<H256> {
        let handles: Vec<(H256, Arc<Mutex<Volume>>)> =
            self.volumes.lock().iter().map(|(id, handle)| (*id, handle.clone())).collect();
        let mut ids: Vec<H256> =
            handles.into_iter().filter(|(_, handle)| handle.lock().on_disk).map(|(id, _)| id).collect();
        ids.sort();
        ids
    }

    /// Totals over all volumes.
    pub fn usage(&self) -> Usage {
        Usage {
            volumes: self.volumes().len() as u64,
            bytes: *self.used_bytes.lock(),
            capacity_bytes: self.capacity_bytes,
        }
    }

    /// Drops a whole volume (once the chain has purged it): its manifest first, so a crash
    /// afterwards leaves only unreferenced chunks and an empty directory for the next open to
    /// collect. Once the manifest is gone the volume is gone, in memory too; removing its
    /// directory is then best effort. Returns whether it held anything.
    pub fn delete_volume(&self, volume: H256) -> Result<bool, StoreError> {
        let Some(handle) = self.volume_handle(volume, false) else { return Ok(false) };
        let mut vol = handle.lock();
        let dir = self.volume_dir(&volume);
        if vol.on_disk {
            let manifest = dir.join(MANIFEST_FILE);
            // Already gone (an earlier attempt got this far): the volume is as good as dropped.
            if let Err(e) = fs::remove_file(&manifest)
                && e.kind() != io::ErrorKind::NotFound
            {
                return Err(io_error(&manifest)(e));
            }
            sync_dir(&dir)?;
        }
        if let Err(e) = fs::remove_dir_all(&dir)
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(path = %dir.display(), error = %e, "a dropped volume's directory stays until the next start");
        }
        let had = !vol.manifest.is_empty();
        let emptied = std::mem::replace(&mut vol.manifest, Manifest::new(volume));
        vol.root = vol.manifest.root();
        vol.on_disk = false;
        vol.dropped = true;
        self.volumes.lock().remove(&volume);
        for entry in emptied.objects().values() {
            self.release(&entry.chunks);
        }
        let mut used = self.used_bytes.lock();
        *used = used.saturating_sub(emptied.size_bytes());
        Ok(had)
    }

    /// `DIR/volumes/<volume hex>`.
    pub(crate) fn volume_dir(&self, volume: &H256) -> PathBuf {
        self.dir.join("volumes").join(hex::encode(volume.0))
    }

    /// Writes `bytes` to `path` crash-safely: a temp file in `DIR/tmp`, fsync, rename, and (if
    /// `sync_parent`) fsync of the destination's directory.
    pub(crate) fn write_atomic(&self, path: &Path, bytes: &[u8], sync_parent: bool) -> Result<(), StoreError> {
        let n = self.temp_counter.fetch_add(1, Ordering::Relaxed);
        let tmp = self.dir.join("tmp").join(format!("{}-{n}-{:016x}", std::process::id(), rand::random::<u64>()));
        let written = (|| {
            let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(io_error(&tmp))?;
            file.write_all(bytes).map_err(io_error(&tmp))?;
            file.sync_all().map_err(io_error(&tmp))?;
            fs::rename(&tmp, path).map_err(io_error(path))
        })();
        if written.is_err() {
            // Best effort: what is left is removed on the next open anyway.
            let _ = fs::remove_file(&tmp);
        }
        written?;
        if sync_parent && let Some(parent) = path.parent() {
            sync_dir(parent)?;
        }
        Ok(())
    }

    /// Reads a small file of a volume's directory, `None` if absent.
    pub(crate) fn read_volume_file(&self, volume: &H256, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.volume_dir(volume).join(name);
        let mut file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&path)(e)),
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io_error(&path))?;
        Ok(Some(bytes))
    }

    /// Writes a small file of a volume's directory crash-safely (the volume must be on disk).
    pub(crate) fn write_volume_file(&self, volume: &H256, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        self.write_atomic(&self.volume_dir(volume).join(name), bytes, true)
    }

    fn chunk_path(&self, hash: &H256) -> PathBuf {
        let name = hex::encode(hash.0);
        self.dir.join("chunks").join(&name[..2]).join(name)
    }

    fn write_chunk(&self, hash: &H256, data: &[u8]) -> Result<(), StoreError> {
        let path = self.chunk_path(hash);
        // Content-addressed: a complete file of this name already holds these bytes (reads check
        // the hash, so a damaged one is reported rather than served).
        if fs::metadata(&path).is_ok_and(|meta| meta.len() == data.len() as u64) {
            return Ok(());
        }
        self.write_atomic(&path, data, false)
    }

    fn write_manifest(&self, manifest: &Manifest) -> Result<(), StoreError> {
        let dir = self.volume_dir(&manifest.volume());
        if !dir.is_dir() {
            create_dir(&dir)?;
            sync_dir(&self.dir.join("volumes"))?;
        }
        self.write_atomic(&dir.join(MANIFEST_FILE), &manifest.encode(), true)
    }

    fn volume_handle(&self, volume: H256, create: bool) -> Option<Arc<Mutex<Volume>>> {
        let mut volumes = self.volumes.lock();
        if let Some(handle) = volumes.get(&volume) {
            return Some(handle.clone());
        }
        if !create {
            return None;
        }
        let manifest = Manifest::new(volume);
        let handle = Arc::new(Mutex::new(Volume { root: manifest.root(), manifest, on_disk: false, dropped: false }));
        volumes.insert(volume, handle.clone());
        Some(handle)
    }

    fn pin(&self, chunks: Vec<H256>) -> Pins<'_> {
        self.reference(&chunks);
        Pins { store: self, chunks }
    }

    fn reference(&self, chunks: &[H256]) {
        let mut refs = self.chunk_refs.lock();
        for chunk in chunks {
            *refs.entry(*chunk).or_default() += 1;
        }
    }

    /// Drops one reference to each of `chunks`, deleting the files of those left unreferenced.
    fn release(&self, chunks: &[H256]) {
        let mut refs = self.chunk_refs.lock();
        for chunk in chunks {
            let Some(count) = refs.get_mut(chunk) else { continue };
            *count -= 1;
            if *count == 0 {
                refs.remove(chunk);
                // Under the lock: a put pinning this chunk from now on finds it gone and writes it.
                let path = self.chunk_path(chunk);
                if let Err(e) = fs::remove_file(&path)
                    && e.kind() != io::ErrorKind::NotFound
                {
                    tracing::warn!(path = %path.display(), error = %e, "could not delete an unreferenced chunk");
                }
            }
        }
    }

    /// Counts the growth from `old_size` to `new_size` against the capacity.
    fn reserve(&self, old_size: u64, new_size: u64) -> Result<(), StoreError> {
        let Some(more_bytes) = new_size.checked_sub(old_size).filter(|more| *more > 0) else { return Ok(()) };
        let mut used = self.used_bytes.lock();
        if used.saturating_add(more_bytes) > self.capacity_bytes {
            return Err(StoreError::Capacity { used_bytes: *used, capacity_bytes: self.capacity_bytes, more_bytes });
        }
        *used += more_bytes;
        Ok(())
    }

    fn unreserve(&self, old_size: u64, new_size: u64) {
        if let Some(more_bytes) = new_size.checked_sub(old_size) {
            let mut used = self.used_bytes.lock();
            *used = used.saturating_sub(more_bytes);
        }
    }
}

fn summary_of(vol: &Volume) -> VolumeSummary {
    VolumeSummary { root: vol.root, size_bytes: vol.manifest.size_bytes(), objects: vol.manifest.len() as u64 }
}

fn parse_volume_dir(name: &str) -> Option<H256> {
    (name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then(|| name.parse().ok())
        .flatten()
}

fn parse_chunk_name(name: &str) -> Option<H256> {
    parse_volume_dir(name)
}

fn create_dir(path: &Path) -> Result<(), StoreError> {
    match fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io_error(path)(e)),
    }
}

fn read_dir(path: &Path) -> Result<Vec<fs::DirEntry>, StoreError> {
    fs::read_dir(path).map_err(io_error(path))?.map(|entry| entry.map_err(io_error(path))).collect()
}

/// Makes the names in `dir` durable (a rename is only durable once its directory is synced).
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(io_error(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNLIMITED: u64 = u64::MAX;

    fn vol(n: u8) -> H256 {
        H256([n; 32])
    }

    fn chunk_files(dir: &Path) -> usize {
        (0..=255u8).map(|p| fs::read_dir(dir.join("chunks").join(hex::encode([p]))).unwrap().count()).sum()
    }

    #[test]
    fn an_object_reads_chunk_by_chunk_and_its_chunks_outlive_a_delete_until_the_reader_drops() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path(), UNLIMITED).unwrap());
        let big: Vec<u8> = (0..CHUNK_BYTES * 2 + 17).map(|i| (i % 253) as u8).collect();
        store.put(vol(1), "big", &big, u64::MAX).unwrap();
        let mut reader = store.open_object(vol(1), "big").unwrap().unwrap();
        assert_eq!((reader.size, reader.content_hash), (big.len() as u64, keccak256(&big)));
        let first = reader.next_chunk().unwrap().unwrap();
        assert_eq!(first.len(), CHUNK_BYTES);
        // Deleted meanwhile: the reader still reads every chunk.
        store.delete(vol(1), "big").unwrap();
        let mut read = first;
        while let Some(chunk) = reader.next_chunk().unwrap() {
            read.extend(chunk);
        }
        assert_eq!(read, big);
        let chunk_files = || {
            std::fs::read_dir(dir.path().join("chunks"))
                .unwrap()
                .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
                .count()
        };
        assert_eq!(chunk_files(), 3);
        drop(reader);
        assert_eq!(chunk_files(), 0, "collected once the reader is gone");
        assert!(store.open_object(vol(1), "big").unwrap().is_none());
    }

    #[test]
    fn put_get_list_delete_round_trip_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..CHUNK_BYTES * 2 + 17).map(|i| (i % 251) as u8).collect();
        {
            let store = Store::open(dir.path(), UNLIMITED).unwrap();
            assert_eq!(store.get(vol(1), "missing").unwrap(), None);
            assert_eq!(store.summary(vol(1)), VolumeSummary::EMPTY);
            let put = store.put(vol(1), "a.txt", b"hello", u64::MAX).unwrap();
            assert_eq!(put.content_hash, keccak256(b"hello"));
            assert_eq!((put.volume.size_bytes, put.volume.objects), (5, 1));
            store.put(vol(1), "dir/big", &big, u64::MAX).unwrap();
            store.put(vol(1), "dir/empty", b"", u64::MAX).unwrap();
            assert_eq!(store.get(vol(1), "a.txt").unwrap().unwrap().bytes, b"hello");
            assert_eq!(store.get(vol(1), "dir/big").unwrap().unwrap().bytes, big);
            assert_eq!(store.get(vol(1), "dir/empty").unwrap().unwrap().bytes, b"");
            assert_eq!(store.get(vol(2), "a.txt").unwrap(), None, "volumes are separate");

            let page = store.list(vol(1), "dir/", None, 1);
            assert_eq!(page.entries.len(), 1);
            assert_eq!(page.entries[0].key, "dir/big");
            assert_eq!(page.next_after.as_deref(), Some("dir/big"));
            let page = store.list(vol(1), "dir/", page.next_after.as_deref(), 1);
            assert_eq!(page.entries[0].key, "dir/empty");
            assert_eq!(page.next_after, None);
            let all = store.list(vol(1), "", None, MAX_LIST_LIMIT);
            assert_eq!(
                all.entries.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(),
                ["a.txt", "dir/big", "dir/empty"]
            );
            assert_eq!(all.entries[0].size, 5);

            let summary = store.delete(vol(1), "a.txt").unwrap().unwrap();
            assert_eq!(summary.objects, 2);
            assert_eq!(store.delete(vol(1), "a.txt").unwrap(), None);
            assert_eq!(store.usage().bytes, big.len() as u64);
        }
        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        assert_eq!(store.get(vol(1), "dir/big").unwrap().unwrap().bytes, big);
        assert_eq!(store.get(vol(1), "a.txt").unwrap(), None);
        assert_eq!(store.volumes(), [vol(1)]);
        assert_eq!(store.usage(), Usage { volumes: 1, bytes: big.len() as u64, capacity_bytes: UNLIMITED });
        let reopened = store.summary(vol(1));
        assert_eq!((reopened.objects, reopened.size_bytes), (2, big.len() as u64));
    }

    #[test]
    fn identical_chunks_are_stored_once_and_collected_when_unreferenced() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        let same = vec![7u8; CHUNK_BYTES * 3];
        store.put(vol(1), "a", &same, u64::MAX).unwrap();
        assert_eq!(chunk_files(dir.path()), 1, "three identical chunks, one file");
        store.put(vol(2), "b", &same, u64::MAX).unwrap();
        store.put(vol(1), "c", &same[..CHUNK_BYTES + 1], u64::MAX).unwrap();
        assert_eq!(chunk_files(dir.path()), 2, "the 1-byte tail is the only new chunk");
        store.delete(vol(1), "a").unwrap();
        store.delete(vol(2), "b").unwrap();
        assert_eq!(chunk_files(dir.path()), 2, "c still holds both");
        store.put(vol(1), "c", b"replaced", u64::MAX).unwrap();
        assert_eq!(chunk_files(dir.path()), 1, "replacing c released its chunks");
        store.delete(vol(1), "c").unwrap();
        assert_eq!(chunk_files(dir.path()), 0);
        assert_eq!(store.summary(vol(1)), VolumeSummary::EMPTY);
        assert_eq!(store.usage().bytes, 0);
    }

    #[test]
    fn leftovers_of_a_crash_are_cleaned_on_open_and_the_old_object_stays() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path(), UNLIMITED).unwrap();
            store.put(vol(1), "k", b"old", u64::MAX).unwrap();
        }
        // A put killed after writing its new chunk and half of a temp manifest, before the rename.
        let orphan = keccak256(b"new");
        let orphan_path = dir.path().join("chunks").join(&hex::encode(orphan.0)[..2]).join(hex::encode(orphan.0));
        fs::write(&orphan_path, b"new").unwrap();
        let temp = dir.path().join("tmp").join("123-0-00");
        fs::write(&temp, b"half a manifest").unwrap();

        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        assert!(!temp.exists(), "temp files are removed on open");
        assert!(!orphan_path.exists(), "unreferenced chunks are removed on open");
        assert_eq!(store.get(vol(1), "k").unwrap().unwrap().bytes, b"old");
        assert_eq!(chunk_files(dir.path()), 1);
    }

    #[test]
    fn a_damaged_manifest_stops_the_store_from_opening_and_a_damaged_chunk_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path(), UNLIMITED).unwrap();
            store.put(vol(1), "k", b"data", u64::MAX).unwrap();
            assert!(matches!(Store::open(dir.path(), UNLIMITED), Err(StoreError::Locked(_))), "one relay per dir");
        }
        let chunk = keccak256(b"data");
        let chunk_path = dir.path().join("chunks").join(&hex::encode(chunk.0)[..2]).join(hex::encode(chunk.0));
        fs::write(&chunk_path, b"DATA").unwrap();
        {
            let store = Store::open(dir.path(), UNLIMITED).unwrap();
            assert!(matches!(store.get(vol(1), "k"), Err(StoreError::Corrupt { .. })));
        }
        let manifest = dir.path().join("volumes").join(hex::encode(vol(1).0)).join(MANIFEST_FILE);
        fs::write(&manifest, b"garbage").unwrap();
        assert!(matches!(Store::open(dir.path(), UNLIMITED), Err(StoreError::Manifest { .. })));
        assert!(chunk_path.exists(), "nothing is collected from a store that did not open");
    }

    #[test]
    fn capacity_counts_every_volume_and_replacements_by_their_growth() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 10).unwrap();
        store.put(vol(1), "a", b"123456", u64::MAX).unwrap();
        assert!(matches!(
            store.put(vol(2), "b", b"12345", u64::MAX),
            Err(StoreError::Capacity { used_bytes: 6, capacity_bytes: 10, more_bytes: 5 })
        ));
        store.put(vol(1), "a", b"1234567890", u64::MAX).unwrap();
        assert!(matches!(store.put(vol(2), "b", b"1", u64::MAX), Err(StoreError::Capacity { .. })));
        store.delete(vol(1), "a").unwrap();
        store.put(vol(2), "b", b"1", u64::MAX).unwrap();
        assert_eq!(store.usage().bytes, 1);
        assert_eq!(store.volumes(), [vol(1), vol(2)], "an emptied volume keeps its (empty) manifest");
        let too_big = vec![0; MAX_OBJECT_BYTES + 1];
        assert!(matches!(store.put(vol(1), "big", &too_big, u64::MAX), Err(StoreError::TooLarge { .. })));
    }

    #[test]
    fn a_volume_holds_no_more_than_its_owner_pays_for() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        store.put(vol(1), "a", b"12345", 8).unwrap();
        assert!(matches!(
            store.put(vol(1), "b", b"1234", 8),
            Err(StoreError::VolumeFull { size_bytes: 9, max_size_bytes: 8 })
        ));
        store.put(vol(1), "b", b"123", 8).unwrap();
        // A cap lowered below what the volume holds refuses growth, not shrinking.
        store.put(vol(1), "a", b"1", 2).unwrap();
        assert!(matches!(store.put(vol(1), "a", b"12", 2), Err(StoreError::VolumeFull { .. })));
        assert_eq!(store.summary(vol(1)).size_bytes, 4);
    }

    #[test]
    fn a_dropped_volume_releases_its_chunks_and_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        store.put(vol(1), "a", b"shared", u64::MAX).unwrap();
        store.put(vol(2), "a", b"shared", u64::MAX).unwrap();
        store.put(vol(1), "b", b"own", u64::MAX).unwrap();
        assert!(store.delete_volume(vol(1)).unwrap());
        assert_eq!(store.volumes(), [vol(2)]);
        assert_eq!(chunk_files(dir.path()), 1);
        assert_eq!(store.usage().bytes, 6);
        assert_eq!(store.get(vol(2), "a").unwrap().unwrap().bytes, b"shared");
        drop(store);
        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        assert_eq!(store.volumes(), [vol(2)]);
    }

    #[test]
    fn a_drop_cut_short_after_its_manifest_went_completes_now_or_at_the_next_open() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        store.put(vol(1), "a", b"gone", u64::MAX).unwrap();
        store.put(vol(2), "a", b"also gone", u64::MAX).unwrap();
        // An earlier attempt removed the manifest, then stopped: the drop still completes.
        fs::remove_file(store.volume_dir(&vol(1)).join(MANIFEST_FILE)).unwrap();
        assert!(store.delete_volume(vol(1)).unwrap());
        assert!(!store.volume_dir(&vol(1)).exists());
        assert_eq!((store.volumes(), store.usage().bytes), (vec![vol(2)], 9));
        // A crash in the same place: the directory without a manifest goes at the next open.
        fs::remove_file(store.volume_dir(&vol(2)).join(MANIFEST_FILE)).unwrap();
        drop(store);
        let store = Store::open(dir.path(), UNLIMITED).unwrap();
        assert!(store.volumes().is_empty());
        assert!(!store.volume_dir(&vol(2)).exists());
        assert_eq!(chunk_files(dir.path()), 0, "its chunks are collected too");
    }
}
