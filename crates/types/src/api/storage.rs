//! Storage: the volume, relay, aggregate and account records of `/ras/...` (the authentication
//! records are in `storage_auth`).
//!
//! Amounts are native base units, JSON integers (`super::encoding`); addresses, hashes and keys are `0x` hex. Every
//! figure is as of the latest finalized height, rent settled virtually up to it (see
//! [`VolumeInfo::deposit`]).

use super::encoding::base64_bytes;
use crate::{Address, H256, storage::VolumeStatus};
use serde::{Deserialize, Serialize};

/// A volume: `GET /ras/volumes/{volume_id}` and each entry of `GET /ras/volumes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VolumeInfo {
    /// keccak256(owner ‖ name).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub volume_id: H256,
    /// Its owner.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub owner: Address,
    /// Its name (unique per owner).
    #[cfg_attr(feature = "openapi", schema(example = "photos"))]
    pub name: String,
    /// The relay that holds it.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub relay: Address,
    /// The relay's endpoint; `null` when the relay has no record any more.
    #[cfg_attr(feature = "openapi", schema(example = "https://relay.example"))]
    pub relay_endpoint: Option<String>,
    /// Whether anyone may read it through its relay.
    pub public: bool,
    /// `active`, `grace`, `deleted` or `purged` at the latest finalized height.
    pub status: VolumeStatus,
    /// Height of its creation.
    pub created_height: u64,
    /// The manifest root its relay committed last (zero before any commit).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub root: H256,
    /// Height of that commit (0 before any).
    pub committed_height: u64,
    /// Bytes its relay committed.
    pub size_bytes: u64,
    /// Most bytes its rent is charged on, set by its owner (`create`, `resize`).
    pub max_size_bytes: u64,
    /// Bytes its rent is charged on at the latest finalized height: the committed size within
    /// `max_size_bytes`, once in force.
    pub billed_bytes: u64,
    /// Billed bytes that grew and are charged from `billed_bytes_from_height` on (the next rent
    /// window); `null` when none is pending.
    pub next_billed_bytes: Option<u64>,
    /// The first block charged at `next_billed_bytes`; `null` when none is pending.
    pub billed_bytes_from_height: Option<u64>,
    /// Whether its relay dropped it (deleted for good, rent stopped).
    pub dropped: bool,
    /// Rent per byte per block, fixed at creation.
    #[cfg_attr(feature = "openapi", schema(example = 1))]
    pub price_per_byte_block: u128,
    /// What is left of its deposit once the rent of every block up to the latest finalized one
    /// is paid (the chain settles lazily, so its record may still hold more).
    #[cfg_attr(feature = "openapi", schema(example = 10000000))]
    pub deposit: u128,
    /// Rent per block at the latest finalized height: `billed_bytes × price_per_byte_block`.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub rent_per_block: u128,
    /// The first height its deposit does not pay for (a pending growth counted from its
    /// height); `null` while its rent is free (nothing billed, price 0, or dropped).
    pub paid_until_height: Option<u64>,
    /// Rent paid to its relay, all time, the virtual settlement of `deposit` included.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub rent_paid: u128,
    /// Height of its owner's deletion (or its relay's drop), if deleted.
    pub deleted_height: Option<u64>,
    /// Height from which it is purged (its relay may drop the bytes): the deletion's or the
    /// deposit's end plus the grace; `null` while neither is ahead.
    pub purge_height: Option<u64>,
}

/// `GET /ras/volumes`: the authenticated wallet's volumes, in volume-id order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VolumeList {
    /// The page's volumes.
    pub volumes: Vec<VolumeInfo>,
    /// Number of the wallet's volumes (not yet reaped).
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// A relay's health at the latest finalized height.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum RelayHealth {
    /// Registered, its last heartbeat within the heartbeat gap.
    Healthy,
    /// Registered, its heartbeat late.
    Unhealthy,
    /// Deregistered (its stake unbonding or withdrawn).
    Deregistered,
}

impl RelayHealth {
    /// The text form.
    pub fn as_str(self) -> &'static str {
        match self {
            RelayHealth::Healthy => "healthy",
            RelayHealth::Unhealthy => "unhealthy",
            RelayHealth::Deregistered => "deregistered",
        }
    }
}

/// A relay, in `GET /ras/relays/public` and `GET /ras/write-relayers`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RelayInfo {
    /// The relay's account.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub address: Address,
    /// Where clients reach it.
    #[cfg_attr(feature = "openapi", schema(example = "https://relay.example"))]
    pub endpoint: String,
    /// Bytes it offers over all its volumes.
    pub capacity_bytes: u64,
    /// Bytes committed over its volumes.
    pub used_bytes: u64,
    /// `capacity_bytes - used_bytes` (0 when over).
    pub free_bytes: u64,
    /// Rent per byte per block a new volume pays.
    #[cfg_attr(feature = "openapi", schema(example = 1))]
    pub price_per_byte_block: u128,
    /// Whether it takes new volumes and writes.
    pub write: bool,
    /// Whether it serves reads.
    pub read: bool,
    /// Whether it is listed publicly.
    pub public: bool,
    /// `healthy`, `unhealthy` or `deregistered`.
    pub health: RelayHealth,
    /// Its bonded stake (0 once deregistered).
    #[cfg_attr(feature = "openapi", schema(example = 1000000000))]
    pub stake: u128,
    /// Volumes that name it and are not reaped.
    pub volumes: u64,
    /// Rent it was paid, all time, as of each volume's last settlement.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub earned: u128,
    /// Height of its (latest) registration.
    pub registered_height: u64,
    /// Height of its latest heartbeat.
    pub last_heartbeat_height: u64,
}

/// `GET /ras/relays/public` and `GET /ras/write-relayers`: registered relays in listing-slot order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RelayList {
    /// The page's relays.
    pub relays: Vec<RelayInfo>,
    /// Number of relays the list holds.
    pub total_count: u64,
    /// The request's offset, echoed.
    pub offset: u64,
    /// The request's limit after capping, echoed.
    pub limit: u64,
}

/// `GET /ras/stats`: the family's totals (the chain keeps them, so this is two lookups).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RasStats {
    /// The finalized height they are read at.
    pub height: u64,
    /// Registered relays.
    pub relays: u64,
    /// Their declared capacity, bytes.
    pub capacity_bytes: u64,
    /// Their bonded stake.
    #[cfg_attr(feature = "openapi", schema(example = 1000000000))]
    pub relay_stake: u128,
    /// Volumes not yet reaped.
    pub volumes: u64,
    /// Bytes committed over them.
    pub bytes: u64,
    /// Deposits they hold, as of each volume's last settlement.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub deposits: u128,
    /// Rent paid to relays, all time.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub rent_paid: u128,
    /// Volume creation fees burned, all time.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub fees_burned: u128,
}

/// `GET /ras/billing/summary`: the volumes' side of [`RasStats`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BillingSummary {
    /// The finalized height they are read at.
    pub height: u64,
    /// Volumes not yet reaped.
    pub volumes: u64,
    /// Bytes committed over them.
    pub bytes: u64,
    /// Deposits they hold, as of each volume's last settlement.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub deposits: u128,
    /// Rent paid to relays, all time.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub rent_paid: u128,
    /// Volume creation fees burned, all time.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub fees_burned: u128,
}

impl From<&RasStats> for BillingSummary {
    fn from(stats: &RasStats) -> Self {
        BillingSummary {
            height: stats.height,
            volumes: stats.volumes,
            bytes: stats.bytes,
            deposits: stats.deposits,
            rent_paid: stats.rent_paid,
            fees_burned: stats.fees_burned,
        }
    }
}

/// `GET /ras/revocations/{wallet}/{session_key}`: whether the wallet revoked the session key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RevocationInfo {
    /// The wallet.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub wallet: Address,
    /// The session key, compressed, `0x` hex.
    pub session_key: String,
    /// Whether its tokens are refused.
    pub revoked: bool,
    /// Height of the revocation; `null` when not revoked.
    pub height: Option<u64>,
}

/// `GET /ras/accounts/balance`: what the authenticated wallet holds and pays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RasAccountBalance {
    /// The wallet.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub wallet: Address,
    /// Its DRV balance, base units.
    #[cfg_attr(feature = "openapi", schema(example = 1000000000))]
    pub balance: u128,
    /// Its volumes (not yet reaped) counted below.
    pub volumes: u64,
    /// The sum of their deposits, rent settled up to the latest finalized height.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub deposits: u128,
    /// The rent its active volumes cost per block.
    #[cfg_attr(feature = "openapi", schema(example = 0))]
    pub rent_per_block: u128,
    /// Whether the wallet has more volumes than the node sums for one request (the figures then
    /// cover the first ones in volume-id order only).
    pub truncated: bool,
}

/// Body of `POST /ras/volumes`, `/ras/volumes/{volume_id}/delete|undelete|deposit` and
/// `/ras/revoke`: one signed transaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RasTransactionRequest {
    /// The signed transaction (canonical CBOR, the bytes `/submit` takes for one transaction),
    /// base64: a call of the storage manager signed by the authenticated wallet.
    #[serde(with = "base64_bytes")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Byte))]
    pub transaction_base64: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn amounts_are_integers_and_enums_snake_case() {
        let relay = RelayInfo {
            address: Address([1; 20]),
            endpoint: "http://127.0.0.1:7000".into(),
            capacity_bytes: 10,
            used_bytes: 4,
            free_bytes: 6,
            price_per_byte_block: u128::MAX,
            write: true,
            read: true,
            public: false,
            health: RelayHealth::Unhealthy,
            stake: 5,
            volumes: 1,
            earned: 0,
            registered_height: 2,
            last_heartbeat_height: 3,
        };
        // As text: `serde_json::Value` holds no integer above 2^64.
        let text = serde_json::to_string(&relay).unwrap();
        assert!(text.contains(&format!("\"price_per_byte_block\":{},", u128::MAX)), "{text}");
        assert_eq!(serde_json::from_str::<RelayInfo>(&text).unwrap(), relay);
        let value = serde_json::to_value(RelayInfo { price_per_byte_block: 1, ..relay }).unwrap();
        assert_eq!(value["price_per_byte_block"], json!(1));
        assert_eq!(value["health"], json!("unhealthy"));
        assert_eq!(value["address"], json!(Address([1; 20]).to_hex()));
        let request = RasTransactionRequest { transaction_base64: vec![0xfb, 0xff] };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(value, json!({"transaction_base64": "+/8="}));
        assert_eq!(serde_json::from_value::<RasTransactionRequest>(value).unwrap(), request);
    }
}
