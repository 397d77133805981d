//! Runners: `GET /runners/active`, `/runner/{address}` and `/account/{address}/delegations`.
//!
//! Amounts are native base units, JSON integers (`super::encoding`).

use super::encoding::base64_bytes;
use crate::Address;
use serde::{Deserialize, Serialize};

/// What a runner charges.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RateCardInfo {
    /// Base units per job.
    #[cfg_attr(feature = "openapi", schema(example = 1000000))]
    pub price_per_job: u128,
}

/// What a runner runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CapabilitiesInfo {
    /// Job types it runs.
    #[cfg_attr(feature = "openapi", schema(example = json!(["echo", "wasm"])))]
    pub job_types: Vec<String>,
    /// Jobs it runs at once.
    pub max_concurrent_jobs: u64,
}

/// Stake on its way back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnbondingInfo {
    /// Base units.
    pub amount: u128,
    /// First height at which `withdraw` pays it.
    pub release_height: u64,
}

/// `GET /runner/{address}`, and each entry of `/runners/active`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunnerInfo {
    /// The runner's account.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Its own bonded stake (0 once deregistered).
    #[cfg_attr(feature = "openapi", schema(example = 1000000000))]
    pub stake: u128,
    /// Sum of the delegations to it.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub delegated_stake: u128,
    /// Its prices.
    pub rate_card: RateCardInfo,
    /// What it runs.
    pub capabilities: CapabilitiesInfo,
    /// `healthy`, `unhealthy` (heartbeat gap passed), `paused` or `deregistered`.
    #[cfg_attr(feature = "openapi", schema(example = "healthy"))]
    pub health: String,
    /// Height of its (latest) registration.
    pub registered_height: u64,
    /// Height of its latest heartbeat.
    pub last_heartbeat_height: u64,
    /// 0–100, moved by verified job outcomes.
    pub reputation: u8,
    /// Jobs assigned to it and not finished.
    pub active_jobs: u64,
    /// Its own stake on its way back after a deregistration.
    pub unbonding: Vec<UnbondingInfo>,
}

/// `GET /runners/active`: healthy runners, in the order of the registry's list of registered runners.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunnerList {
    /// The page's runners.
    pub runners: Vec<RunnerInfo>,
    /// Number of healthy runners.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// One delegation, in `GET /account/{address}/delegations`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DelegationInfo {
    /// The runner delegated to.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub runner: Address,
    /// Base units delegated.
    #[cfg_attr(feature = "openapi", schema(example = 500))]
    pub amount: u128,
    /// Height of the first delegation still part of `amount`.
    pub since_height: u64,
    /// Undelegated amounts on their way back.
    pub pending: Vec<UnbondingInfo>,
    /// The delegation's share of the runner's payments that `withdraw` would pay now.
    #[cfg_attr(feature = "openapi", schema(example = 750))]
    pub rewards: u128,
}

/// `GET /account/{address}/delegations`: an account's delegations, in runner order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DelegationList {
    /// The delegator.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// The page's delegations.
    pub delegations: Vec<DelegationInfo>,
    /// Number of delegations (active or unbonding).
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// `GET /runner/{address}/heartbeat_payload` (and the other signed flows): the transaction the
/// node built for the runner, and exactly what it signs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignedFlowPayload {
    /// The transaction's 32-byte signing hash (keccak256 of its unsigned encoding), base64: sign
    /// exactly these bytes with the runner's key.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub message_to_sign_base64: Vec<u8>,
    /// The unsigned transaction (canonical CBOR, signature null), base64: send it back with the
    /// signature.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub unsigned_transaction_base64: Vec<u8>,
    /// The transaction's nonce: the runner's next one, pending transactions included.
    pub nonce: u64,
}

/// `POST /runner/{address}/heartbeat` (and the other signed flows): a flow's transaction and
/// the runner's signature of its `message_to_sign_base64`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignedFlowRequest {
    /// The `unsigned_transaction_base64` of the flow's payload, as received.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub unsigned_transaction_base64: Vec<u8>,
    /// 65 bytes `r ‖ s ‖ v` as `0x` hex; `v` is the y-parity 0/1 (27/28 accepted too).
    #[cfg_attr(feature = "openapi", schema(example = "0x…"))]
    pub signature: String,
}
