//! Libraries: the client's methods for the routes of `drover-rpc`'s `routes::library`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode,
    api::{LibraryInfo, LibraryList, paths, paths::fill},
};

impl Client {
    /// `GET /library/{publisher}/{name}` (`?version=`); `None` when unknown (9000).
    pub async fn library(
        &self,
        publisher: &Address,
        name: &str,
        version: Option<u32>,
    ) -> Result<Option<LibraryInfo>, ClientError> {
        let version = version.map(|v| format!("?version={v}")).unwrap_or_default();
        self.get_optional(
            &format!("{}{version}", fill(paths::LIBRARY, &[publisher, &name])),
            ErrorCode::LibraryNotFound,
        )
        .await
    }

    /// `GET /library/{publisher}?offset=&limit=`: one page of a publisher's libraries (the
    /// latest version of each).
    pub async fn libraries(&self, publisher: &Address, offset: u64, limit: u64) -> Result<LibraryList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", fill(paths::LIBRARIES, &[publisher]))).await
    }
}
