//! The relay's HTTP wire types, shared by [`crate::server`] and [`crate::client`], and its error
//! codes.
//!
//! Every refusal has the node's error body, `{"code": <int>, "error": "<snake_case_name>",
//! "message": "<text>"}` ([`drover_types::api::ErrorBody`]). Codes the node registers
//! (`docs/errors.md`) keep their number, name and status here; the four relay-only codes (9150 to
//! 9153) are listed in `docs/relay.md`.

use crate::manifest::ListEntry;
use drover_types::{Address, ErrorCode, H256};
use serde::{Deserialize, Serialize};

/// A code a relay answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelayErrorCode {
    /// 1000 `internal`, 500: the relay failed (its log says why).
    Internal,
    /// 1001 `bad_request`, 400: a malformed volume id, object key or query.
    BadRequest,
    /// 1002 `not_found`, 404: no such volume on this relay (or a private one the request may not
    /// see), or no such object.
    NotFound,
    /// 9100 `ras_token_invalid`, 401.
    RasTokenInvalid,
    /// 9101 `ras_request_invalid`, 401.
    RasRequestInvalid,
    /// 9102 `ras_replayed`, 401.
    RasReplayed,
    /// 9150 `relay_forbidden`, 403: the wallet is not the volume's owner, or the volume takes no
    /// writes (grace period, deleted).
    Forbidden,
    /// 9151 `relay_object_too_large`, 413: the body exceeds the relay's object limit.
    ObjectTooLarge,
    /// 9152 `relay_capacity_exceeded`, 507: the relay is full, or the volume (its object count,
    /// or the size its owner pays for).
    CapacityExceeded,
    /// 9153 `relay_unavailable`, 503: the relay cannot reach the chain to look the volume up;
    /// retry after `Retry-After`.
    Unavailable,
}

impl RelayErrorCode {
    /// Every code, in numeric order.
    pub const ALL: [RelayErrorCode; 10] = [
        RelayErrorCode::Internal,
        RelayErrorCode::BadRequest,
        RelayErrorCode::NotFound,
        RelayErrorCode::RasTokenInvalid,
        RelayErrorCode::RasRequestInvalid,
        RelayErrorCode::RasReplayed,
        RelayErrorCode::Forbidden,
        RelayErrorCode::ObjectTooLarge,
        RelayErrorCode::CapacityExceeded,
        RelayErrorCode::Unavailable,
    ];

    /// The node's code of the same meaning, for those the node registers.
    pub const fn node_code(self) -> Option<ErrorCode> {
        match self {
            RelayErrorCode::Internal => Some(ErrorCode::Internal),
            RelayErrorCode::BadRequest => Some(ErrorCode::BadRequest),
            RelayErrorCode::NotFound => Some(ErrorCode::NotFound),
            RelayErrorCode::RasTokenInvalid => Some(ErrorCode::RasTokenInvalid),
            RelayErrorCode::RasRequestInvalid => Some(ErrorCode::RasRequestInvalid),
            RelayErrorCode::RasReplayed => Some(ErrorCode::RasReplayed),
            _ => None,
        }
    }

    /// The numeric code.
    pub const fn code(self) -> u16 {
        match self.node_code() {
            Some(code) => code.code(),
            None => match self {
                RelayErrorCode::Forbidden => 9150,
                RelayErrorCode::ObjectTooLarge => 9151,
                RelayErrorCode::CapacityExceeded => 9152,
                _ => 9153,
            },
        }
    }

    /// The snake_case name carried in the `error` field.
    pub const fn name(self) -> &'static str {
        match self.node_code() {
            Some(code) => code.name(),
            None => match self {
                RelayErrorCode::Forbidden => "relay_forbidden",
                RelayErrorCode::ObjectTooLarge => "relay_object_too_large",
                RelayErrorCode::CapacityExceeded => "relay_capacity_exceeded",
                _ => "relay_unavailable",
            },
        }
    }

    /// The HTTP status it is served with.
    pub const fn http_status(self) -> u16 {
        match self.node_code() {
            Some(code) => code.http_status(),
            None => match self {
                RelayErrorCode::Forbidden => 403,
                RelayErrorCode::ObjectTooLarge => 413,
                RelayErrorCode::CapacityExceeded => 507,
                _ => 503,
            },
        }
    }

    /// Looks a numeric code up.
    pub fn from_code(code: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.code() == code)
    }
}

/// `GET /v1/health`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthResponse {
    /// The relay's address (its registration on chain).
    pub relay: Address,
    /// Volumes it holds.
    pub volumes: u64,
    /// Bytes it holds over all volumes.
    pub bytes: u64,
}

/// `GET /v1/volumes/{volume}`: what the relay commits on chain for the volume.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeResponse {
    /// The volume.
    pub volume_id: H256,
    /// Its manifest root ([`crate::manifest`]).
    pub root: H256,
    /// Sum of its objects' sizes.
    pub size_bytes: u64,
    /// Number of objects.
    pub objects: u64,
}

/// `PUT /v1/volumes/{volume}/objects/{key}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PutResponse {
    /// The object's key.
    pub key: String,
    /// Its size.
    pub size: u64,
    /// keccak256 of its bytes.
    pub content_hash: H256,
    /// The volume's root after the put.
    pub root: H256,
}

/// `DELETE /v1/volumes/{volume}/objects/{key}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeleteResponse {
    /// The deleted object's key.
    pub key: String,
    /// The volume's root after the delete.
    pub root: H256,
}

/// `GET /v1/volumes/{volume}/objects?prefix=&after=&limit=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListResponse {
    /// The objects, in key order.
    pub entries: Vec<ListEntry>,
    /// When more objects match: the `after` of the next page.
    pub next_after: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_agree_with_the_node() {
        for pair in RelayErrorCode::ALL.windows(2) {
            assert!(pair[0].code() < pair[1].code());
        }
        for code in RelayErrorCode::ALL {
            assert_eq!(RelayErrorCode::from_code(code.code()), Some(code));
            if let Some(node) = code.node_code() {
                assert_eq!(
                    (code.code(), code.name(), code.http_status()),
                    (node.code(), node.name(), node.http_status())
                );
            } else {
                assert_eq!(ErrorCode::from_code(code.code()), None, "{code:?} must not take a node code");
            }
        }
    }
}
