//! The state-sync mock: a snapshot a test sets; each operations request is recorded and
//! answered with its debug text.

use super::*;
use crate::mock::MockBackend;
use drover_types::{ErrorCode, H256};

#[derive(Default)]
pub(crate) struct StateSyncMock {
    /// The latest checkpoint.
    pub snapshot: Option<StateSnapshot>,
    /// Every request handed to `state_operations`; each is answered with its debug text.
    pub operations_requests: Vec<OperationsRequest>,
}

impl StateSyncBackend for MockBackend {
    fn state_snapshot(&self) -> Option<StateSnapshot> {
        self.part::<StateSyncMock>().lock().snapshot
    }

    async fn state_operations(&self, request: OperationsRequest) -> Result<Vec<u8>, ApiError> {
        let part = self.part::<StateSyncMock>();
        let mut data = part.lock();
        let Some(snapshot) = data.snapshot else {
            return Err(ApiError::new(ErrorCode::NotFound, "no snapshot"));
        };
        let size = match request {
            OperationsRequest::Operations { size, .. } | OperationsRequest::Boundary { size, .. } => size,
        };
        if size > snapshot.op_count {
            return Err(ApiError::new(ErrorCode::NotFound, "size beyond the log"));
        }
        data.operations_requests.push(request);
        Ok(format!("{request:?}").into_bytes())
    }
}

/// A checkpoint at height 9 of 100 operations from operation 4.
pub(crate) fn snapshot() -> StateSnapshot {
    StateSnapshot {
        height: 9,
        block_hash: H256([9; 32]),
        range_start: 4,
        op_count: 100,
        ops_root: H256([1; 32]),
        canonical_root: H256([2; 32]),
    }
}
