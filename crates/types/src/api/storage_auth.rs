//! Storage authentication: `GET /ras/challenge` and `GET /ras/auth/me`.

use crate::Address;
use serde::{Deserialize, Serialize};

/// `GET /ras/challenge`: what a client needs to build its token and sign its requests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RasChallenge {
    /// The chain id a token must name.
    pub chain_id: u64,
    /// The audience a token must name (`drover:ras`).
    pub audience: String,
    /// The audience a request to this node must be signed for (`drover-node:` and the chain id,
    /// `drover_types::storage::auth::node_audience`).
    pub request_audience: String,
    /// The node's clock, Unix ms (requests are stamped within 30 s of it).
    pub server_time_ms: u64,
    /// A fresh random nonce (16 bytes, hex) a client may use for its next request.
    pub nonce: String,
}

/// `GET /ras/auth/me`: who a valid request authenticates as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RasMe {
    /// The wallet the session acts for.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub wallet: Address,
    /// The session's public key (compressed, `0x` hex).
    pub session_key: String,
    /// When the token expires, Unix ms.
    pub expires_at_ms: u64,
}
