//! The libraries' mock: published versions a test sets.

use super::*;
use crate::mock::MockBackend;
use drover_types::api::LibraryInfo;

#[derive(Default)]
pub(crate) struct LibrariesMock {
    /// Library versions.
    pub libraries: Vec<LibraryInfo>,
}

impl LibraryBackend for MockBackend {
    async fn library(
        &self,
        publisher: Address,
        name: String,
        version: Option<u32>,
    ) -> Result<Option<drover_types::api::LibraryInfo>, ApiError> {
        let part = self.part::<LibrariesMock>();
        let data = part.lock();
        Ok(data
            .libraries
            .iter()
            .find(|l| l.publisher == publisher && l.name == name && version.is_none_or(|v| v == l.version))
            .cloned())
    }

    async fn libraries(&self, publisher: Address, page: Page) -> Result<drover_types::api::LibraryList, ApiError> {
        let part = self.part::<LibrariesMock>();
        let data = part.lock();
        let all: Vec<_> = data.libraries.iter().filter(|l| l.publisher == publisher).cloned().collect();
        let total_count = all.len() as u64;
        let libraries = all.into_iter().skip(page.offset as usize).take(page.limit as usize).collect();
        Ok(drover_types::api::LibraryList { publisher, libraries, total_count, offset: page.offset, limit: page.limit })
    }
}
