//! Library reads for the API: the library actor's records in the latest applied state.
//!
//! A library is one lookup (two for a pinned version); a publisher's libraries are its listing
//! (`drover_state::library::libraries_listing`, in publication order): a page is the count and,
//! per library in it, its slot and its record, whatever the publisher published.

use super::{
    handle::NodeHandle,
    pages::{listed, listed_hash, read_record},
};
use crate::databases::OrderedRead;
use crate::error::NodeError;
use drover_rpc::backend::LibraryBackend;
use drover_rpc::pagination::Page;
use drover_state::library::{
    LibraryRecord, LibraryVersion, hashed_library_key, libraries_listing, library_key, state_key, version_key,
};
use drover_types::{
    Address,
    api::{LibraryInfo, LibraryList},
    error::ApiError,
    payload::Manifest,
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
        manifest: Manifest::new(chosen.manifest),
        published_height: chosen.published_height,
        removed: !record.runs(version),
    }
}

impl LibraryBackend for NodeHandle {
    async fn library(
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

    async fn libraries(&self, publisher: Address, page: Page) -> Result<LibraryList, ApiError> {
        let db = self.0.databases.read().await;
        libraries(&*db, publisher, page).await
    }
}

/// A page of `publisher`'s libraries (latest versions), in publication order.
async fn libraries(db: &impl OrderedRead, publisher: Address, page: Page) -> Result<LibraryList, ApiError> {
    let (items, total_count) = listed(db, &libraries_listing(&publisher), &page).await?;
    let mut libraries = Vec::with_capacity(items.len());
    for item in items {
        let key = state_key(&hashed_library_key(&publisher, &listed_hash(&item)?));
        let record = read_record(db, &key, LibraryRecord::decode)
            .await?
            .ok_or_else(|| NodeError::missing("library: a listed library without its record"))?;
        let latest = record.latest.clone();
        libraries.push(info(publisher, &record, record.version, latest));
    }
    Ok(LibraryList { publisher, libraries, total_count, offset: page.offset, limit: page.limit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::pages::tests::{Counted, LARGE, bounded_at_every_offset};
    use drover_state::library::name_hash;
    use drover_types::H256;

    #[test]
    fn a_page_of_libraries_reads_the_page_whatever_the_publisher_published() {
        let publisher = Address([0x1b; 20]);
        let name = |i: u64| format!("lib-{i}");
        let mut db = Counted::default();
        db.list(
            &libraries_listing(&publisher),
            LARGE,
            |i| name_hash(&name(i)).0.to_vec(),
            |i| {
                let latest = LibraryVersion {
                    code_hash: H256([3; 32]),
                    code_size: 9,
                    manifest: Vec::new(),
                    published_height: 4,
                };
                let record = LibraryRecord { name: name(i), version: 1, removed: false, latest, live_from: 1 };
                vec![(state_key(&library_key(&publisher, &name(i))), record.encode())]
            },
        );
        bounded_at_every_offset(&db, 2, 1, |page| {
            let db = &db;
            async move {
                let answer = libraries(db, publisher, page).await.unwrap();
                assert_eq!(answer.total_count, LARGE);
                if let Some(first) = answer.libraries.first() {
                    assert_eq!(first.name, name(page.offset));
                }
                answer.libraries.len()
            }
        });
    }
}
