//! HTTP API.
pub mod backend;
