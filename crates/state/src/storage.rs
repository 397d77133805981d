//! Storage-relay records: the storage of the relay registry (`0x00…0b`) and of the storage
//! manager (`0x00…0a`), proven with `/proof/storage/{address}/{key}` like any actor's storage.
//!
//! Relay registry:
//!
//! | user key | record |
//! | --- | --- |
//! | `"r" ‖ relay(20)` | [`RelayRecord`] |
//! | `"n"` | count of registered relays |
//! | `"s" ‖ slot(8, BE)` | the relay in that listing slot (slots `0..n`, swap-removed) |
//! | `"t"` | [`RelayTotals`] |
//! | `"P" ‖ …` | the listing of the registered relays with `public` ([`public_relays_listing`]) |
//! | `"W" ‖ …` | the listing of the registered relays with `write` ([`writing_relays_listing`]) |
//!
//! Storage manager:
//!
//! | user key | record |
//! | --- | --- |
//! | `"v" ‖ volume(32)` | [`VolumeRecord`] |
//! | `"o" ‖ volume(32) ‖ owner(20)` | listing marker, stored by owner (see [`volumes_range`]) |
//! | `"k" ‖ keccak256(session_key) ‖ wallet(20)` | height the wallet revoked the session key |
//! | `"t"` | [`VolumeTotals`] |
//! | `"L" ‖ …` | each owner's listing of its volumes not yet reaped ([`volumes_listing`]) |
//!
//! Invariants: a relay is in exactly one slot while registered and in none once deregistered;
//! the totals are the sums over the records (registered relays; volumes not yet reaped); a
//! volume's `relay` record counts it in `volumes` and its size in `used_bytes`. A registered relay
//! is in the public (writing) listing exactly while its settings say `public` (`write`); a
//! volume is in its owner's listing exactly while its record exists.

use crate::RecordError;
use crate::keys::{PREFIX_STORAGE_RELAY, owned_entry, owned_range, storage_key};
use crate::listing::Listing;
use crate::runner::{Unbonding, read_unbondings, write_unbondings};
use drover_types::{
    Address, H256,
    cbor::{CborError, Writer, decode_fixed, decode_strict, decode_u128, expect_array, take_null},
    keccak256,
    storage::{Growth, RELAY_REGISTRY_ADDRESS, RelaySettings, Rent, STORAGE_MANAGER_ADDRESS},
};

/// The state key of the relay registry's storage entry `user_key`.
pub fn relay_state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&RELAY_REGISTRY_ADDRESS, user_key)
}

/// The state key of the storage manager's storage entry `user_key`.
pub fn volume_state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&STORAGE_MANAGER_ADDRESS, user_key)
}

/// User key of a relay's record.
pub fn relay_key(relay: &Address) -> Vec<u8> {
    [&b"r"[..], &relay.0].concat()
}

/// User key of the count of registered relays.
pub fn relay_count_key() -> Vec<u8> {
    b"n".to_vec()
}

/// User key of listing slot `slot`.
pub fn relay_slot_key(slot: u64) -> Vec<u8> {
    [&b"s"[..], &slot.to_be_bytes()].concat()
}

/// User key of the relay totals (in the registry) or the volume totals (in the manager).
pub fn totals_key() -> Vec<u8> {
    b"t".to_vec()
}

/// User key of a volume's record.
pub fn volume_key(volume: &H256) -> Vec<u8> {
    [&b"v"[..], &volume.0].concat()
}

/// User key of the marker listing `volume` under its `owner`.
pub fn owned_volume_key(volume: &H256, owner: &Address) -> Vec<u8> {
    [&b"o"[..], &volume.0, &owner.0].concat()
}

/// The listing of the registered relays whose settings say `public`: `/ras/relays/public` (see
/// [`crate::listing`]; items: relay addresses).
pub fn public_relays_listing() -> Listing {
    Listing::counted(relay_state_key, b'P', &[])
}

/// The listing of the registered relays whose settings say `write`: `/ras/write-relayers`
/// (items: relay addresses).
pub fn writing_relays_listing() -> Listing {
    Listing::counted(relay_state_key, b'W', &[])
}

/// The listing of `owner`'s volumes not yet reaped (items: volume ids): `/ras/volumes`.
pub fn volumes_listing(owner: &Address) -> Listing {
    Listing::counted(volume_state_key, b'L', &owner.0)
}

/// The range of `owner`'s volume markers, in volume-id order.
pub fn volumes_range(owner: &Address) -> Vec<u8> {
    owned_range(PREFIX_STORAGE_RELAY, owner)
}

/// The owner and volume of a marker's state key, or `None` if `key` is not one.
pub fn volume_entry(key: &[u8]) -> Option<(Address, H256)> {
    let (owner, item) = owned_entry(PREFIX_STORAGE_RELAY, H256::LEN, key)?;
    Some((owner, H256(item.try_into().ok()?)))
}

/// User key of `wallet`'s revocation of `session_key`.
pub fn revocation_key(wallet: &Address, session_key: &[u8; 33]) -> Vec<u8> {
    [&b"k"[..], &keccak256(session_key).0, &wallet.0].concat()
}

/// A relay: `[stake, endpoint, capacity_bytes, price_per_byte_block, write, read, public,
/// registered_height, last_heartbeat_height, deregistered, [unbonding], slot | null, volumes,
/// used_bytes, earned]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayRecord {
    /// Bonded stake, base units (0 once deregistered).
    pub stake: u128,
    /// Its declared service.
    pub settings: RelaySettings,
    /// Height of its (latest) registration.
    pub registered_height: u64,
    /// Height of its latest heartbeat (registration counts as one).
    pub last_heartbeat_height: u64,
    /// Whether it deregistered.
    pub deregistered: bool,
    /// Stake on its way back.
    pub unbonding: Vec<Unbonding>,
    /// Its listing slot while registered.
    pub slot: Option<u64>,
    /// Volumes that name it and are not reaped.
    pub volumes: u64,
    /// Bytes committed over those volumes.
    pub used_bytes: u64,
    /// Rent it was paid, all time, base units.
    pub earned: u128,
}

impl RelayRecord {
    /// Whether it is healthy at `height` with a heartbeat gap of `gap_blocks`.
    pub fn healthy(&self, height: u64, gap_blocks: u64) -> bool {
        !self.deregistered && height.saturating_sub(self.last_heartbeat_height) <= gap_blocks
    }

    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let s = &self.settings;
        let mut w = Writer::with_capacity(160 + s.endpoint.len() + 32 * self.unbonding.len());
        w.array(15)
            .u128(self.stake)
            .text(&s.endpoint)
            .uint(s.capacity_bytes)
            .u128(s.price_per_byte_block)
            .bool(s.write)
            .bool(s.read)
            .bool(s.public)
            .uint(self.registered_height)
            .uint(self.last_heartbeat_height)
            .bool(self.deregistered);
        write_unbondings(&mut w, &self.unbonding);
        match self.slot {
            Some(slot) => w.uint(slot),
            None => w.null(),
        };
        w.uint(self.volumes).uint(self.used_bytes).u128(self.earned);
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 15)?;
            let stake = decode_u128(d)?;
            let settings = RelaySettings {
                endpoint: d.str()?.to_owned(),
                capacity_bytes: d.u64()?,
                price_per_byte_block: decode_u128(d)?,
                write: d.bool()?,
                read: d.bool()?,
                public: d.bool()?,
            };
            Ok(RelayRecord {
                stake,
                settings,
                registered_height: d.u64()?,
                last_heartbeat_height: d.u64()?,
                deregistered: d.bool()?,
                unbonding: read_unbondings(d)?,
                slot: if take_null(d)? { None } else { Some(d.u64()?) },
                volumes: d.u64()?,
                used_bytes: d.u64()?,
                earned: decode_u128(d)?,
            })
        })?)
    }
}

/// Sums over the registered relays: `[relays, capacity_bytes, stake]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelayTotals {
    /// Registered relays.
    pub relays: u64,
    /// Their declared capacity, bytes.
    pub capacity_bytes: u64,
    /// Their bonded stake, base units.
    pub stake: u128,
}

impl RelayTotals {
    /// Canonical CBOR.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(48);
        w.array(3).uint(self.relays).uint(self.capacity_bytes).u128(self.stake);
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 3)?;
            Ok(RelayTotals { relays: d.u64()?, capacity_bytes: d.u64()?, stake: decode_u128(d)? })
        })?)
    }
}

/// A volume: `[owner, name, relay, public, created_height, root, committed_height, size_bytes,
/// price_per_byte_block, deposit, settled_height, deleted_height | null, rent_paid,
/// max_size_bytes, billed_bytes, [growth_bytes, growth_from_height] | null, dropped]`.
///
/// The last four came with the owner's cap; a record written before them (13 elements) decodes
/// as one whose cap and billed bytes are its committed size (the owner agreed to nothing more),
/// with no growth pending and not dropped. Records are always written with all 17.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeRecord {
    /// Its owner.
    pub owner: Address,
    /// Its name (unique per owner).
    pub name: String,
    /// The relay that holds it.
    pub relay: Address,
    /// Whether anyone may read it.
    pub public: bool,
    /// Height of its creation.
    pub created_height: u64,
    /// The manifest root its relay committed last (zero before any commit).
    pub root: H256,
    /// Height of that commit (0 before any).
    pub committed_height: u64,
    /// Bytes its relay committed last (what the relay's capacity counts).
    pub size_bytes: u64,
    /// Most bytes its rent is charged on, set by its owner.
    pub max_size_bytes: u64,
    /// Its rent account (billed bytes, price, deposit, settlement, deletion, growth).
    pub rent: Rent,
    /// Rent paid to its relay, all time, base units.
    pub rent_paid: u128,
    /// Whether its relay dropped it (deleted for good: no undelete, no commit).
    pub dropped: bool,
}

/// Elements of a volume record written before the owner's cap.
const VOLUME_FIELDS_BEFORE_CAP: u64 = 13;
/// Elements of a volume record.
const VOLUME_FIELDS: u64 = 17;

impl VolumeRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(224 + self.name.len());
        w.array(VOLUME_FIELDS)
            .bytes(&self.owner.0)
            .text(&self.name)
            .bytes(&self.relay.0)
            .bool(self.public)
            .uint(self.created_height)
            .bytes(&self.root.0)
            .uint(self.committed_height)
            .uint(self.size_bytes)
            .u128(self.rent.price_per_byte_block)
            .u128(self.rent.deposit)
            .uint(self.rent.settled_height);
        match self.rent.deleted_height {
            Some(height) => w.uint(height),
            None => w.null(),
        };
        w.u128(self.rent_paid).uint(self.max_size_bytes).uint(self.rent.size_bytes);
        match self.rent.growth {
            Some(growth) => w.array(2).uint(growth.size_bytes).uint(growth.from_height),
            None => w.null(),
        };
        w.bool(self.dropped);
        w.into_inner()
    }

    /// Strict decode (of the 17-element record, or of one written before the cap).
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            let at = d.position();
            let len = match d.array()? {
                Some(len @ (VOLUME_FIELDS_BEFORE_CAP | VOLUME_FIELDS)) => len,
                Some(other) => {
                    return Err(CborError::malformed(format!("expected an array of 13 or 17 elements, found {other}")));
                }
                None => return Err(CborError::NonCanonical(format!("indefinite-length array at byte {at}"))),
            };
            let owner = Address(decode_fixed(d)?);
            let name = d.str()?.to_owned();
            let relay = Address(decode_fixed(d)?);
            let public = d.bool()?;
            let created_height = d.u64()?;
            let root = H256(decode_fixed(d)?);
            let committed_height = d.u64()?;
            let size_bytes = d.u64()?;
            let price_per_byte_block = decode_u128(d)?;
            let deposit = decode_u128(d)?;
            let settled_height = d.u64()?;
            let deleted_height = if take_null(d)? { None } else { Some(d.u64()?) };
            let rent_paid = decode_u128(d)?;
            let (max_size_bytes, billed_bytes, growth, dropped) = if len == VOLUME_FIELDS {
                let max_size_bytes = d.u64()?;
                let billed_bytes = d.u64()?;
                let growth = if take_null(d)? {
                    None
                } else {
                    expect_array(d, 2)?;
                    Some(Growth { size_bytes: d.u64()?, from_height: d.u64()? })
                };
                (max_size_bytes, billed_bytes, growth, d.bool()?)
            } else {
                (size_bytes, size_bytes, None, false)
            };
            Ok(VolumeRecord {
                owner,
                name,
                relay,
                public,
                created_height,
                root,
                committed_height,
                size_bytes,
                max_size_bytes,
                rent: Rent {
                    size_bytes: billed_bytes,
                    price_per_byte_block,
                    deposit,
                    settled_height,
                    deleted_height,
                    growth,
                },
                rent_paid,
                dropped,
            })
        })?)
    }
}

/// Sums over the volumes not yet reaped: `[volumes, bytes, deposits, rent_paid, fees_burned]`
/// (`deposits` as of each volume's last settlement; `rent_paid` and `fees_burned` all time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VolumeTotals {
    /// Volumes not yet reaped.
    pub volumes: u64,
    /// Bytes committed over them.
    pub bytes: u64,
    /// Deposits they hold, base units.
    pub deposits: u128,
    /// Rent paid to relays, all time.
    pub rent_paid: u128,
    /// Creation fees burned, all time.
    pub fees_burned: u128,
}

impl VolumeTotals {
    /// Canonical CBOR.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(96);
        w.array(5).uint(self.volumes).uint(self.bytes).u128(self.deposits).u128(self.rent_paid).u128(self.fees_burned);
        w.into_inner()
    }

    /// Strict decode.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 5)?;
            Ok(VolumeTotals {
                volumes: d.u64()?,
                bytes: d.u64()?,
                deposits: decode_u128(d)?,
                rent_paid: decode_u128(d)?,
                fees_burned: decode_u128(d)?,
            })
        })?)
    }
}

/// Canonical CBOR of a revocation marker (the height).
pub fn encode_revocation(height: u64) -> Vec<u8> {
    let mut w = Writer::with_capacity(9);
    w.uint(height);
    w.into_inner()
}

/// Strict decode of [`encode_revocation`].
pub fn decode_revocation(bytes: &[u8]) -> Result<u64, RecordError> {
    Ok(decode_strict(bytes, |d| Ok(d.u64()?))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_volumes_are_listed_by_owner() {
        let relay = RelayRecord {
            stake: 5,
            settings: RelaySettings {
                endpoint: "http://127.0.0.1:1".into(),
                capacity_bytes: 9,
                price_per_byte_block: u128::MAX,
                write: true,
                read: false,
                public: true,
            },
            registered_height: 1,
            last_heartbeat_height: 2,
            deregistered: false,
            unbonding: vec![Unbonding { amount: 3, release_height: 4 }],
            slot: Some(0),
            volumes: 1,
            used_bytes: 7,
            earned: 8,
        };
        assert_eq!(RelayRecord::decode(&relay.encode()), Ok(relay));
        let volume = VolumeRecord {
            owner: Address([1; 20]),
            name: "v".into(),
            relay: Address([2; 20]),
            public: false,
            created_height: 3,
            root: H256([4; 32]),
            committed_height: 5,
            size_bytes: 12,
            max_size_bytes: 13,
            rent: Rent {
                size_bytes: 6,
                price_per_byte_block: 7,
                deposit: 8,
                settled_height: 9,
                deleted_height: Some(10),
                growth: Some(Growth { size_bytes: 13, from_height: 100 }),
            },
            rent_paid: 11,
            dropped: true,
        };
        assert_eq!(VolumeRecord::decode(&volume.encode()), Ok(volume.clone()));
        let plain = VolumeRecord { rent: Rent { growth: None, ..volume.rent }, dropped: false, ..volume.clone() };
        assert_eq!(VolumeRecord::decode(&plain.encode()), Ok(plain));
        // A record written before the cap: the 13 elements it had, in the same layout.
        let mut w = Writer::with_capacity(160);
        w.array(13).bytes(&[1; 20]).text("v").bytes(&[2; 20]).bool(false).uint(3).bytes(&[4; 32]).uint(5).uint(6);
        w.u128(7).u128(8).uint(9).null().u128(11);
        let old = VolumeRecord::decode(&w.into_inner()).unwrap();
        assert_eq!((old.size_bytes, old.max_size_bytes, old.rent.size_bytes, old.rent.growth), (6, 6, 6, None));
        assert!(!old.dropped);
        let mut truncated = volume.encode();
        truncated[0] = 0x80 | 14;
        assert!(VolumeRecord::decode(&truncated).is_err(), "neither 13 nor 17 elements");
        let totals = VolumeTotals { volumes: 1, bytes: 2, deposits: 3, rent_paid: 4, fees_burned: 5 };
        assert_eq!(VolumeTotals::decode(&totals.encode()), Ok(totals));
        let relays = RelayTotals { relays: 1, capacity_bytes: 2, stake: 3 };
        assert_eq!(RelayTotals::decode(&relays.encode()), Ok(relays));
        assert_eq!(decode_revocation(&encode_revocation(12)), Ok(12));
        let owner = Address([7; 20]);
        let id = H256([3; 32]);
        let key = volume_state_key(&owned_volume_key(&id, &owner));
        assert!(key.starts_with(&volumes_range(&owner)));
        assert_eq!(volume_entry(&key), Some((owner, id)));
    }
}
