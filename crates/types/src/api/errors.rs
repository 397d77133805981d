//! The error body every refusal carries.

use crate::error::ApiError;
use serde::{Deserialize, Serialize};

/// Body of every error response: `{"code": <int>, "error": "<snake_case_name>", "message": "<text>"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// Numeric API error code (1000–9000).
    #[cfg_attr(feature = "openapi", schema(example = 3001))]
    pub code: u16,
    /// Snake-case name of the code.
    #[cfg_attr(feature = "openapi", schema(example = "invalid_address"))]
    pub error: String,
    /// Human-readable explanation of this refusal.
    pub message: String,
}

impl From<&ApiError> for ErrorBody {
    fn from(err: &ApiError) -> Self {
        Self { code: err.code.code(), error: err.code.name().to_owned(), message: err.message.clone() }
    }
}
