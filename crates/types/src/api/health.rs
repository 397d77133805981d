//! Health: `GET /health/detailed` and `GET /health/ready`.

use serde::{Deserialize, Serialize};

/// Status of the node or of one of its components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    /// Working normally.
    Ok,
    /// Serving, but a component is impaired (see `ComponentsHealth`).
    Degraded,
}

/// `GET /health`: liveness only; the node reads no state to answer it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Liveness {
    /// Always `ok`: the node answers HTTP.
    pub status: HealthStatus,
}

/// Per-component status in the detailed health record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ComponentsHealth {
    /// `degraded` when the state database does not answer.
    pub storage: HealthStatus,
    /// `degraded` at 30,000 pending transactions or more.
    pub mempool: HealthStatus,
    /// Always `ok` while the HTTP server answers.
    pub rpc: HealthStatus,
}

/// `GET /health/detailed` (alias `/health/ready`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthDetailed {
    /// `degraded` when any component is.
    pub status: HealthStatus,
    /// Version of the node software.
    pub version: String,
    /// Seconds since the HTTP server started.
    pub uptime_seconds: u64,
    /// Latest finalized height.
    pub block_height: u64,
    /// Unix seconds of the latest finalized block (0 before the first).
    pub last_block_timestamp: u64,
    /// Transactions waiting in the mempool.
    pub mempool_transaction_count: u64,
    /// Distinct senders with transactions waiting in the mempool.
    pub mempool_account_count: u64,
    /// Status of each component; the node's `status` is `degraded` when any of them is.
    pub components: ComponentsHealth,
    /// Always `true`: judge sync from `block_height` against a peer and the age of
    /// `last_block_timestamp`.
    pub synced: bool,
}
