//! Library reads for the API: the library actor's records in the latest applied state.
//!
//! A library is one lookup (two for a pinned version); a publisher's libraries are one key
//! range (laid out by publisher, see `drover_state::library::libraries_range`).

use super::{handle::NodeHandle, pages::scan};
use crate::error::NodeError;
use drover_rpc::pagination::Page;
use drover_state::library::{
    LibraryRecord, LibraryVersion, libraries_range, library_entry, library_key, state_key, version_key,
};
use drover_types::{
    Address,
    api::{LibraryInfo, LibraryList},
    error::ApiError,
};

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
        removed: record.removed,
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
        let own = |key: &[u8], value: Vec<u8>| (library_entry(key)? == publisher).then_some(value);
        let (records, _) =
            scan(&db, &libraries_range(&publisher), None, u64::MAX, own).await.map_err(NodeError::from)?;
        let total_count = records.len() as u64;
        let mut libraries = Vec::new();
        for value in records.into_iter().skip(usize::try_from(page.offset).unwrap_or(usize::MAX)) {
            if libraries.len() as u64 >= page.limit {
                break;
            }
            let record = LibraryRecord::decode(&value).map_err(NodeError::from)?;
            let latest = record.latest.clone();
            libraries.push(info(publisher, &record, record.version, latest));
        }
        Ok(LibraryList { publisher, libraries, total_count, offset: page.offset, limit: page.limit })
    }
}
