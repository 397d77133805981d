//! State sync for the API: the latest checkpoint and batches of operations with their proofs.

use super::NodeHandle;
use commonware_storage::{mmr::Location, qmdb::sync::Request};
use drover_rpc::backend::{OperationsRequest, StateSyncBackend};
use drover_types::{ErrorCode, api::StateSnapshot, error::ApiError};
use std::num::NonZeroU64;

impl StateSyncBackend for NodeHandle {
    fn state_snapshot(&self) -> Option<StateSnapshot> {
        self.0.chain.snapshot()
    }

    async fn state_operations(&self, request: OperationsRequest) -> Result<Vec<u8>, ApiError> {
        let (size, start, request) = match request {
            OperationsRequest::Operations { size, start, max } => {
                let max_ops = NonZeroU64::new(max)
                    .ok_or_else(|| ApiError::new(ErrorCode::BadRequest, "max must be at least 1"))?;
                let request = Request::Operations { size: Location::new(size), start: Location::new(start), max_ops };
                (size, start, request)
            }
            OperationsRequest::Boundary { size, start } => {
                (size, start, Request::Boundary { size: Location::new(size), start: Location::new(start) })
            }
        };
        let held = self.0.databases.read().await.bounds().end.as_u64();
        if size > held {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("size {size} is beyond this node's {held} operations"),
            ));
        }
        // Within MAX_OPERATIONS_RESPONSE_BYTES: fewer operations when they are large.
        match crate::sync_source::serve_operations(&*self.0.databases, request).await {
            Ok(bytes) => Ok(bytes),
            // Sizes and ranges below the retained history were pruned.
            Err(e) => Err(ApiError::new(
                ErrorCode::NotFound,
                format!("operations {start}.. at size {size} are not held (pruned or out of range): {e}"),
            )),
        }
    }
}
