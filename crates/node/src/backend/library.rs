//! Library reads for the API: the library actor's records in the latest applied state.
//!
//! A library is one lookup (two for a pinned version); a publisher's libraries are one key
//! range (laid out by publisher, see `drover_state::library::libraries_range`), of which a page
//! reads only up to its end, the total coming from the publisher's count.

use super::{
    handle::NodeHandle,
    pages::{read_storage, scan},
};
use crate::error::NodeError;
use drover_rpc::pagination::Page;
use drover_state::{
    decode_count,
    library::{
        LibraryRecord, LibraryVersion, count_key, libraries_range, library_entry, library_key, state_key, version_key,
    },
};
use drover_types::{
    Address,
    api::{LibraryInfo, LibraryList},
    error::ApiError,
    library::LIBRARY_ADDRESS,
};

/// The library as the API shows it, at `version`: removed when that version no longer runs.
fn info(publisher: Address, record: &LibraryRecord, version: u32, chosen: LibraryVersion) -> LibraryInfo {
    LibraryInfo {
        publisher,
        name: record.name.clone(),
        version,
        latest_version: record.version,
        code_hash: chosen.code_hash,
        code_size: chosen.code_size,
        manifest: chosen.manifest,
        published_height: chosen.published_height,
        removed: !record.runs(version),
    }
}

impl NodeHandle {
    pub(super) async fn read_library(
        &self,
        publisher: Address,
        name: String,
        version: Option<u32>,
    ) -> Result<Option<LibraryInfo>, ApiError> {
        let [record] = self.read_keys([state_key(&library_key(&publisher, &name))]).await?;
        let Some(record) = record.map(|b| LibraryRecord::decode(&b)).transpose().map_err(NodeError::from)? else {
            return Ok(None);
        };
        match version {
            None => {
                let latest = record.latest.clone();
                Ok(Some(info(publisher, &record, record.version, latest)))
            }
            Some(v) => {
                let [bytes] = self.read_keys([state_key(&version_key(&publisher, &name, v))]).await?;
                let chosen = bytes.map(|b| LibraryVersion::decode(&b)).transpose().map_err(NodeError::from)?;
                Ok(chosen.map(|chosen| info(publisher, &record, v, chosen)))
            }
        }
    }

    pub(super) async fn read_libraries(&self, publisher: Address, page: Page) -> Result<LibraryList, ApiError> {
        let db = self.0.databases.read().await;
        let total_count = read_storage(&db, &LIBRARY_ADDRESS, &count_key(&publisher), decode_count).await?.unwrap_or(0);
        // A page past the end reads nothing, however many libraries the publisher has.
        if page.offset >= total_count {
            return Ok(LibraryList {
                publisher,
                libraries: Vec::new(),
                total_count,
                offset: page.offset,
                limit: page.limit,
            });
        }
        let own = |key: &[u8], value: Vec<u8>| (library_entry(key)? == publisher).then_some(value);
        let end = page.offset.saturating_add(page.limit);
        let (records, _) = scan(&db, &libraries_range(&publisher), None, end, own).await.map_err(NodeError::from)?;
        let mut libraries = Vec::new();
        for value in records.into_iter().skip(usize::try_from(page.offset).unwrap_or(usize::MAX)) {
            let record = LibraryRecord::decode(&value).map_err(NodeError::from)?;
            let latest = record.latest.clone();
            libraries.push(info(publisher, &record, record.version, latest));
        }
        Ok(LibraryList { publisher, libraries, total_count, offset: page.offset, limit: page.limit })
    }
}
