//! Runner registry records: the storage of the registry system actor (`0x00…01`), proven with
//! `/proof/storage/0x…01/{key}` like any actor's storage.
//!
//! | user key | record |
//! | --- | --- |
//! | `"r" ‖ runner(20)` | [`RunnerRecord`] |
//! | `"n"` | number of registered runners: registered and not deregistered (count record) |
//! | `"i" ‖ slot(8, BE)` | address of the registered runner at `slot` (`0..n`) |
//! | `"d" ‖ runner(20) ‖ delegator(20)` | [`Delegation`], stored by delegator (see [`delegations_range`]) |
//! | `"g" ‖ …` | each delegator's listing of the runners it has a delegation to ([`delegations_listing`]) |
//! | `"t" ‖ len(1) ‖ job_type ‖ "n"` | number of runners in the job type's index (count record) |
//! | `"t" ‖ len(1) ‖ job_type ‖ "s" ‖ slot(4, BE)` | address of the runner at `slot` of the index |
//! | `"t" ‖ len(1) ‖ job_type ‖ "w" ‖ node(4, BE)` | node `1..=`[`MAX_RUNNERS_PER_JOB_TYPE`] of the index's weight tree (a u128) |
//!
//! Invariants: slots `0..n` each name a registered runner whose record's `slot` is that slot,
//! and a deregistered runner's record has no slot (deregistration moves the last slot into the
//! gap), so listing the registered runners costs one lookup per runner with stake bonded now,
//! never per runner that ever registered.

//!
//! Each job type has an index of the runners offering it that may take jobs (registered, not
//! paused, not found unhealthy or below the reputation floor by a draw): slots `0..n` and a
//! Fenwick tree over the slots' weights (a runner's `stake + delegated_stake`), so a
//! stake-weighted draw and a weight change each cost one walk of at most 17 nodes whatever the
//! number of runners. A runner's `type_slots` says where it sits in each of its job types'
//! indexes. A runner's `delegated_stake` is the sum of the active `amount`s of the
//! delegations to it; the registry's account balance is the sum of every runner's `stake`,
//! every delegation's `amount` and every pending unbonding (what the registry owes). A
//! delegation is stored while its amount or its pending unbondings are non-zero, and listed in
//! its delegator's listing exactly while it is stored.

use crate::RecordError;
use crate::keys::{PREFIX_RUNNER, owned_entry, owned_range, storage_key};
use crate::listing::Listing;
use drover_types::{
    Address,
    cbor::{CborError, Writer, decode_strict, decode_u128, expect_array, take_null},
    runner::RUNNER_REGISTRY_ADDRESS,
};
use minicbor::decode::Decoder;

/// The state key of the registry's storage entry `user_key`.
pub fn state_key(user_key: &[u8]) -> Vec<u8> {
    storage_key(&RUNNER_REGISTRY_ADDRESS, user_key)
}

/// User key of a runner's record.
pub fn runner_key(runner: &Address) -> Vec<u8> {
    [&b"r"[..], &runner.0].concat()
}

/// User key of the number of registered runners.
pub fn runner_count_key() -> Vec<u8> {
    b"n".to_vec()
}

/// User key of the address of the registered runner at `slot` (from 0).
pub fn runner_slot_key(slot: u64) -> Vec<u8> {
    [&b"i"[..], &slot.to_be_bytes()].concat()
}

/// Most runners one job type's index holds (the weight tree's size; a power of two).
pub const MAX_RUNNERS_PER_JOB_TYPE: u32 = 1 << 16;

fn type_prefix(job_type: &str) -> Vec<u8> {
    // Job types are at most 64 bytes, so the length fits one byte and no prefix of one type's
    // keys is another's.
    [&b"t"[..], &[job_type.len() as u8], job_type.as_bytes()].concat()
}

/// User key of the number of runners in `job_type`'s index.
pub fn type_count_key(job_type: &str) -> Vec<u8> {
    [type_prefix(job_type), b"n".to_vec()].concat()
}

/// User key of the runner at `slot` of `job_type`'s index.
pub fn type_slot_key(job_type: &str, slot: u32) -> Vec<u8> {
    [type_prefix(job_type), b"s".to_vec(), slot.to_be_bytes().to_vec()].concat()
}

/// User key of node `node` (1-based) of `job_type`'s weight tree.
pub fn type_node_key(job_type: &str, node: u32) -> Vec<u8> {
    [type_prefix(job_type), b"w".to_vec(), node.to_be_bytes().to_vec()].concat()
}

/// Canonical CBOR of a weight-tree node.
pub fn encode_weight(weight: u128) -> Vec<u8> {
    let mut w = Writer::with_capacity(20);
    w.u128(weight);
    w.into_inner()
}

/// Strict decode of [`encode_weight`].
pub fn decode_weight(bytes: &[u8]) -> Result<u128, RecordError> {
    Ok(decode_strict(bytes, decode_u128)?)
}

/// User key of `delegator`'s delegation to `runner`.
pub fn delegation_key(runner: &Address, delegator: &Address) -> Vec<u8> {
    [&b"d"[..], &runner.0, &delegator.0].concat()
}

/// The listing of the runners `delegator` has a delegation to (items: runner addresses), so that
/// `/account/{address}/delegations` pages by point lookups (see [`crate::listing`]).
pub fn delegations_listing(delegator: &Address) -> Listing {
    Listing::counted(state_key, b'g', &delegator.0)
}

/// The range of `delegator`'s delegations, in runner order.
pub fn delegations_range(delegator: &Address) -> Vec<u8> {
    owned_range(PREFIX_RUNNER, delegator)
}

/// The delegator and runner of a delegation's state key, or `None` if `key` is not one.
pub fn delegation_entry(key: &[u8]) -> Option<(Address, Address)> {
    let (delegator, runner) = owned_entry(PREFIX_RUNNER, Address::LEN, key)?;
    Some((delegator, Address::from_slice(runner)?))
}

/// Stake on its way back: `[amount, release_height]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unbonding {
    /// Base units.
    pub amount: u128,
    /// First height at which `withdraw` pays it.
    pub release_height: u64,
}

pub(crate) fn write_unbondings(w: &mut Writer<Vec<u8>>, entries: &[Unbonding]) {
    w.array(entries.len() as u64);
    for entry in entries {
        w.array(2).u128(entry.amount).uint(entry.release_height);
    }
}

pub(crate) fn read_unbondings(d: &mut Decoder<'_>) -> Result<Vec<Unbonding>, CborError> {
    let at = d.position();
    let len = d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
    let mut entries = Vec::with_capacity(usize::try_from(len).unwrap_or(usize::MAX).min(d.input().len()));
    for _ in 0..len {
        expect_array(d, 2)?;
        entries.push(Unbonding { amount: decode_u128(d)?, release_height: d.u64()? });
    }
    Ok(entries)
}

/// A runner: `[stake, delegated_stake, price_per_job, [job_types], max_concurrent_jobs, paused,
/// deregistered, registered_height, last_heartbeat_height, reputation, active_jobs,
/// [unbonding], slot | null, [type_slot | null], reward_per_share, delegator_rewards]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunnerRecord {
    /// Its own bonded stake, in base units (0 once deregistered).
    pub stake: u128,
    /// Sum of the active delegations to it.
    pub delegated_stake: u128,
    /// Base units it charges per job.
    pub price_per_job: u128,
    /// Job types it runs.
    pub job_types: Vec<String>,
    /// Jobs it runs at once.
    pub max_concurrent_jobs: u64,
    /// Paused by its own `update`: no new jobs.
    pub paused: bool,
    /// Deregistered: it takes no jobs or delegations; its stake unbonds.
    pub deregistered: bool,
    /// Height of its (latest) registration.
    pub registered_height: u64,
    /// Height of its latest heartbeat (its registration counts as one).
    pub last_heartbeat_height: u64,
    /// 0–100, moved by verified job outcomes.
    pub reputation: u8,
    /// Jobs assigned to it and not finished.
    pub active_jobs: u64,
    /// Its own stake on its way back.
    pub unbonding: Vec<Unbonding>,
    /// Its slot among the registered runners (`None` once deregistered).
    pub slot: Option<u64>,
    /// Its slot in each of its job types' indexes, in the order of `job_types` (`None`: not in
    /// that index now).
    pub type_slots: Vec<Option<u32>>,
    /// Delegators' payments per delegated base unit, scaled by [`REWARD_SCALE`], since the
    /// runner first registered (only grows).
    pub reward_per_share: u128,
    /// Base units of its payments held for its delegators (claimed by `withdraw`).
    pub delegator_rewards: u128,
}

/// Scale of [`RunnerRecord::reward_per_share`]: fractions of a base unit per delegated base
/// unit are kept to 10^-18.
pub const REWARD_SCALE: u128 = 1_000_000_000_000_000_000;

impl RunnerRecord {
    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let names: usize = self.job_types.iter().map(|t| t.len() + 9).sum();
        let mut w = Writer::with_capacity(200 + names + 32 * self.unbonding.len());
        w.array(16).u128(self.stake).u128(self.delegated_stake).u128(self.price_per_job);
        w.array(self.job_types.len() as u64);
        for name in &self.job_types {
            w.text(name);
        }
        w.uint(self.max_concurrent_jobs)
            .bool(self.paused)
            .bool(self.deregistered)
            .uint(self.registered_height)
            .uint(self.last_heartbeat_height)
            .uint(u64::from(self.reputation))
            .uint(self.active_jobs);
        write_unbondings(&mut w, &self.unbonding);
        match self.slot {
            Some(slot) => w.uint(slot),
            None => w.null(),
        };
        w.array(self.type_slots.len() as u64);
        for slot in &self.type_slots {
            match slot {
                Some(slot) => w.uint(u64::from(*slot)),
                None => w.null(),
            };
        }
        w.u128(self.reward_per_share).u128(self.delegator_rewards);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one runner record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 16)?;
            let stake = decode_u128(d)?;
            let delegated_stake = decode_u128(d)?;
            let price_per_job = decode_u128(d)?;
            let at = d.position();
            let len =
                d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
            let mut job_types = Vec::with_capacity(usize::try_from(len).unwrap_or(usize::MAX).min(d.input().len()));
            for _ in 0..len {
                job_types.push(d.str()?.to_owned());
            }
            Ok(RunnerRecord {
                stake,
                delegated_stake,
                price_per_job,
                job_types,
                max_concurrent_jobs: d.u64()?,
                paused: d.bool()?,
                deregistered: d.bool()?,
                registered_height: d.u64()?,
                last_heartbeat_height: d.u64()?,
                reputation: d.u8()?,
                active_jobs: d.u64()?,
                unbonding: read_unbondings(d)?,
                slot: if take_null(d)? { None } else { Some(d.u64()?) },
                type_slots: {
                    let at = d.position();
                    let len = d
                        .array()?
                        .ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
                    let mut slots = Vec::with_capacity(usize::try_from(len).unwrap_or(usize::MAX).min(d.input().len()));
                    for _ in 0..len {
                        slots.push(if take_null(d)? { None } else { Some(d.u32()?) });
                    }
                    slots
                },
                reward_per_share: decode_u128(d)?,
                delegator_rewards: decode_u128(d)?,
            })
        })?)
    }
}

/// One delegator's delegation to one runner: `[amount, since_height, [pending], reward_debt,
/// rewards]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delegation {
    /// Base units delegated and not undelegated.
    pub amount: u128,
    /// Height of the first delegation still part of `amount`.
    pub since_height: u64,
    /// Undelegated amounts on their way back.
    pub pending: Vec<Unbonding>,
    /// `amount × reward_per_share / REWARD_SCALE` of the runner when `amount` last changed or
    /// rewards were last settled: what of the runner's accumulated rewards is not this
    /// delegation's.
    pub reward_debt: u128,
    /// Rewards settled and not withdrawn, in base units.
    pub rewards: u128,
}

impl Delegation {
    /// Whether the record carries nothing and is not stored.
    pub fn is_empty(&self) -> bool {
        self.amount == 0 && self.pending.is_empty() && self.rewards == 0
    }

    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(80 + 32 * self.pending.len());
        w.array(5).u128(self.amount).uint(self.since_height);
        write_unbondings(&mut w, &self.pending);
        w.u128(self.reward_debt).u128(self.rewards);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one delegation.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 5)?;
            Ok(Delegation {
                amount: decode_u128(d)?,
                since_height: d.u64()?,
                pending: read_unbondings(d)?,
                reward_debt: decode_u128(d)?,
                rewards: decode_u128(d)?,
            })
        })?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_refuse_corruption() {
        let runner = RunnerRecord {
            stake: u128::MAX,
            delegated_stake: 3,
            price_per_job: 7,
            job_types: vec!["echo".into(), "wasm".into()],
            max_concurrent_jobs: 4,
            paused: true,
            deregistered: false,
            registered_height: 5,
            last_heartbeat_height: 9,
            reputation: 80,
            active_jobs: 2,
            unbonding: vec![Unbonding { amount: 1, release_height: 105 }],
            slot: Some(0),
            type_slots: vec![Some(3), None],
            reward_per_share: 5,
            delegator_rewards: 6,
        };
        assert_eq!(RunnerRecord::decode(&runner.encode()), Ok(runner.clone()));
        let delegation = Delegation {
            amount: 9,
            since_height: 4,
            pending: vec![Unbonding { amount: 2, release_height: 7 }],
            reward_debt: 1,
            rewards: 2,
        };
        assert_eq!(Delegation::decode(&delegation.encode()), Ok(delegation.clone()));
        assert!(Delegation::decode(&runner.encode()).is_err());
        let mut bytes = delegation.encode();
        bytes.push(0);
        assert!(Delegation::decode(&bytes).is_err());
    }

    #[test]
    fn delegations_are_laid_out_by_delegator() {
        let (runner, delegator) = (Address([1; 20]), Address([2; 20]));
        let key = state_key(&delegation_key(&runner, &delegator));
        assert!(key.starts_with(&delegations_range(&delegator)));
        assert_eq!(delegation_entry(&key), Some((delegator, runner)));
        assert!(crate::keys::storage_entry(&state_key(&runner_key(&runner))).is_some());
    }
}
