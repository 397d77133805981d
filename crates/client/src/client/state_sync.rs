//! State sync: the client's methods for the routes of `drover-rpc`'s `routes::state_sync`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    ErrorCode,
    api::{StateSnapshot, paths},
};

impl Client {
    /// `GET /state/snapshot`: the node's latest state-sync checkpoint; `None` before its first
    /// finalized block.
    pub async fn state_snapshot(&self) -> Result<Option<StateSnapshot>, ClientError> {
        self.get_optional(paths::STATE_SNAPSHOT, ErrorCode::NotFound).await
    }

    /// `GET /state/operations`: the encoded batch of operations `start .. start + max` proven
    /// against the ops root at `size` operations (`max = None`: the boundary operation at
    /// `start` with its pinned nodes). The bytes are untrusted until verified against a
    /// finalized ops root (`docs/state-sync.md`).
    pub async fn state_operations(&self, size: u64, start: u64, max: Option<u64>) -> Result<Vec<u8>, ClientError> {
        let query = match max {
            Some(max) => format!("size={size}&start={start}&max={max}"),
            None => format!("size={size}&start={start}&boundary=true"),
        };
        let url = self.url(&format!("{}?{query}", paths::STATE_OPERATIONS));
        self.send(&url, self.http.get(&url)).await.map(|(_, body)| body)
    }
}
