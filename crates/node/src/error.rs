//! What can go wrong inside the node while it serves a request, and its one mapping to the
//! API's error.
//!
//! None of these is the client's doing: a state database or index failure, a stored record that
//! does not decode, a record another one refers to that is not there, a read that could not
//! settle. Every variant answers `internal` (1000); the API logs the detail under the request's
//! id and shows the client only that id (`drover_rpc::error`).

use crate::{databases::StateError, indexes::IndexError};
use drover_state::RecordError;
use drover_types::{ErrorCode, error::ApiError};

#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("state database: {0}")]
    State(#[from] StateError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("stored record: {0}")]
    Record(#[from] RecordError),
    /// A record that another one refers to is not in the state or the indexes.
    #[error("{0} is missing")]
    Missing(String),
    /// Two of the node's records disagree (an index and the block it points into).
    #[error("inconsistent records: {0}")]
    Inconsistent(String),
    /// The node could not finish what the request needed.
    #[error("{0}")]
    Unfinished(String),
}

impl NodeError {
    pub fn missing(what: impl std::fmt::Display) -> Self {
        NodeError::Missing(what.to_string())
    }

    pub fn unfinished(why: impl std::fmt::Display) -> Self {
        NodeError::Unfinished(why.to_string())
    }
}

impl From<NodeError> for ApiError {
    fn from(error: NodeError) -> Self {
        ApiError::new(ErrorCode::Internal, error.to_string())
    }
}

/// The indexes are the node's own: their failures convert straight to the API's error.
impl From<IndexError> for ApiError {
    fn from(error: IndexError) -> Self {
        NodeError::from(error).into()
    }
}
