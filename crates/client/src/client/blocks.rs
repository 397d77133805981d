//! Blocks: the client's methods for the routes of `drover-rpc`'s `routes::blocks`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    BlockSelector, ErrorCode,
    api::{BlockInfo, HeightInfo, paths, paths::fill},
};

impl Client {
    /// `GET /height`: the latest finalized height.
    pub async fn height(&self) -> Result<u64, ClientError> {
        self.get::<HeightInfo>(paths::HEIGHT).await.map(|info| info.height)
    }

    /// `GET /block/{selector}`; `None` when no finalized block matches.
    pub async fn block(&self, selector: BlockSelector) -> Result<Option<BlockInfo>, ClientError> {
        self.get_optional(&fill(paths::BLOCK, &[&selector]), ErrorCode::BlockNotFound).await
    }
}
