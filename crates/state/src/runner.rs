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
//! | `"t" ‖ len(1) ‖ job_type ‖ "c" ‖ price(16, BE)` | number of runners in the job type's index at that price (count record) |
//! | `"t" ‖ len(1) ‖ job_type ‖ "a" ‖ price(16, BE) ‖ slot(4, BE)` | address of the runner at `slot` of that price |
//! | `"t" ‖ len(1) ‖ job_type ‖ "x" ‖ depth(1) ‖ prefix` | [`IndexNode`]: a node of the index's weight trie |
//!
//! Invariants: slots `0..n` each name a registered runner whose record's `slot` is that slot,
//! and a deregistered runner's record has no slot (deregistration moves the last slot into the
//! gap), so listing the registered runners costs one lookup per runner with stake bonded now,
//! never per runner that ever registered.

//!
//! Each job type has an index of the runners offering it that may take jobs (registered, not
//! paused, not found unhealthy, below the reputation floor or without a free job slot by a
//! draw), ordered by price: the runners at one price sit in slots `0..n` of that price, and
//! every runner is the leaf [`IndexKey`] `price(128 bits) ‖ slot(16 bits)` of a trie of radix 16
//! whose nodes hold their children's total weights (a runner's `stake + delegated_stake`). The
//! runners asking at most a job's `max_price` are the leaves left of a path, so a draw among
//! them and a weight change each read or write at most [`INDEX_KEY_NIBBLES`] nodes, whatever the
//! number of runners and prices. A node at `depth` (0 is the root) is named by the key's first
//! `depth` nibbles, packed two to a byte (the last one in the high half); it exists while a
//! runner sits below it. A runner's `type_slots` says where it sits at its price in each of its
//! job types' indexes. A runner's `delegated_stake` is the sum of the active `amount`s of the
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

/// Most runners one job type's index holds at one price (the slots a leaf key has room for).
pub const MAX_RUNNERS_PER_PRICE: u32 = 1 << 16;
/// Nibbles of an index leaf's key: 32 of price and 4 of slot, so the trie's depth.
pub const INDEX_KEY_NIBBLES: usize = 36;
/// Nibbles of an index key that are the price.
pub const INDEX_PRICE_NIBBLES: usize = 32;

fn type_prefix(job_type: &str) -> Vec<u8> {
    // Job types are at most 64 bytes, so the length fits one byte and no prefix of one type's
    // keys is another's.
    [&b"t"[..], &[job_type.len() as u8], job_type.as_bytes()].concat()
}

/// User key of the number of runners at `price` in `job_type`'s index.
pub fn price_count_key(job_type: &str, price: u128) -> Vec<u8> {
    [type_prefix(job_type), b"c".to_vec(), price.to_be_bytes().to_vec()].concat()
}

/// User key of the runner at `slot` of `price` in `job_type`'s index.
pub fn price_slot_key(job_type: &str, price: u128, slot: u32) -> Vec<u8> {
    [type_prefix(job_type), b"a".to_vec(), price.to_be_bytes().to_vec(), slot.to_be_bytes().to_vec()].concat()
}

/// User key of the node of `job_type`'s index trie above `key` at `depth` (0 for the root, up
/// to [`INDEX_KEY_NIBBLES`] − 1): named by the key's first `depth` nibbles.
pub fn index_node_key(job_type: &str, depth: usize, key: &IndexKey) -> Vec<u8> {
    let prefix = key.prefix(depth);
    [type_prefix(job_type), b"x".to_vec(), vec![depth as u8], prefix.0[..depth.div_ceil(2)].to_vec()].concat()
}

/// A leaf of a job type's index: a runner's price (16 bytes, big-endian) and its slot at that
/// price (2 bytes, big-endian), read as [`INDEX_KEY_NIBBLES`] nibbles, high nibble first. Keys
/// order by price, then slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IndexKey(pub [u8; 18]);

impl IndexKey {
    /// The leaf of the runner at `slot` (below [`MAX_RUNNERS_PER_PRICE`]) of `price`.
    pub fn new(price: u128, slot: u32) -> Self {
        let mut bytes = [0u8; 18];
        bytes[..16].copy_from_slice(&price.to_be_bytes());
        // Slots are below 2^16: the two low bytes are the whole slot.
        bytes[16..].copy_from_slice(&slot.to_be_bytes()[2..]);
        IndexKey(bytes)
    }

    /// The price.
    pub fn price(&self) -> u128 {
        let mut price = [0u8; 16];
        price.copy_from_slice(&self.0[..16]);
        u128::from_be_bytes(price)
    }

    /// The slot.
    pub fn slot(&self) -> u32 {
        u32::from(u16::from_be_bytes([self.0[16], self.0[17]]))
    }

    /// Nibble `i` (from 0, high nibble first).
    pub fn nibble(&self, i: usize) -> u8 {
        let byte = self.0[i / 2];
        if i.is_multiple_of(2) { byte >> 4 } else { byte & 0x0f }
    }

    /// This key with nibble `i` set to `value` (below 16).
    pub fn with_nibble(mut self, i: usize, value: u8) -> Self {
        let byte = &mut self.0[i / 2];
        *byte = if i.is_multiple_of(2) { (*byte & 0x0f) | (value << 4) } else { (*byte & 0xf0) | (value & 0x0f) };
        self
    }

    /// This key's first `depth` nibbles, the others zero: the name of a node at `depth`.
    pub fn prefix(&self, depth: usize) -> Self {
        let mut out = IndexKey([0; 18]);
        let whole = depth / 2;
        out.0[..whole].copy_from_slice(&self.0[..whole]);
        if !depth.is_multiple_of(2) {
            out.0[whole] = self.0[whole] & 0xf0;
        }
        out
    }
}

/// A node of a job type's index trie: the total weight below each of its children (the next
/// nibble), `[[nibble, weight], ...]` in nibble order, every weight non-zero, at least one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexNode {
    /// `(nibble, weight)` in nibble order.
    pub children: Vec<(u8, u128)>,
}

impl IndexNode {
    /// The weight below `nibble` (0 when none).
    pub fn weight(&self, nibble: u8) -> u128 {
        self.children.iter().find(|(n, _)| *n == nibble).map_or(0, |(_, weight)| *weight)
    }

    /// Sets the weight below `nibble` (0 removes the child).
    pub fn set(&mut self, nibble: u8, weight: u128) {
        match self.children.binary_search_by_key(&nibble, |(n, _)| *n) {
            Ok(i) if weight == 0 => {
                self.children.remove(i);
            }
            Ok(i) => self.children[i].1 = weight,
            Err(i) if weight > 0 => self.children.insert(i, (nibble, weight)),
            Err(_) => {}
        }
    }

    /// Canonical CBOR, see the type's docs.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(2 + 20 * self.children.len());
        w.array(self.children.len() as u64);
        for (nibble, weight) in &self.children {
            w.array(2).uint(u64::from(*nibble)).u128(*weight);
        }
        w.into_inner()
    }

    /// Strict decode: refuses an empty node, a nibble past 15 or out of order, and a zero weight.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            let at = d.position();
            let len =
                d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
            if len == 0 || len > 16 {
                return Err(CborError::malformed(format!("an index node has 1 to 16 children, not {len}")));
            }
            let mut children = Vec::with_capacity(len as usize);
            for _ in 0..len {
                expect_array(d, 2)?;
                let nibble = d.u8()?;
                let weight = decode_u128(d)?;
                let ordered = children.last().is_none_or(|(last, _): &(u8, u128)| *last < nibble);
                if nibble > 15 || !ordered || weight == 0 {
                    return Err(CborError::malformed("index node children: nibbles 0-15 in order, weights above 0"));
                }
                children.push((nibble, weight));
            }
            Ok(IndexNode { children })
        })?)
    }
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
    fn index_keys_and_nodes() {
        let key = IndexKey::new(0x0102_0304, 0xabcd);
        assert_eq!((key.price(), key.slot()), (0x0102_0304, 0xabcd));
        assert_eq!((key.nibble(24), key.nibble(25), key.nibble(32), key.nibble(35)), (0, 1, 0xa, 0xd));
        assert_eq!(key.prefix(33).0[16..], [0xa0, 0]);
        assert_eq!(key.prefix(0), IndexKey([0; 18]));
        assert_eq!(IndexKey([0; 18]).with_nibble(33, 7).nibble(33), 7);
        assert!(IndexKey::new(1, 0xffff) < IndexKey::new(2, 0), "keys order by price first");
        // Nodes at different depths above the same keys have different names.
        let names: std::collections::HashSet<Vec<u8>> =
            (0..INDEX_KEY_NIBBLES).map(|depth| index_node_key("echo", depth, &key)).collect();
        assert_eq!(names.len(), INDEX_KEY_NIBBLES);
        assert_eq!(index_node_key("echo", 3, &key), index_node_key("echo", 3, &key.with_nibble(3, 9)));

        let mut node = IndexNode::default();
        node.set(9, 5);
        node.set(2, 7);
        node.set(4, 0);
        assert_eq!(node.children, vec![(2, 7), (9, 5)]);
        assert_eq!((node.weight(9), node.weight(3)), (5, 0));
        assert_eq!(IndexNode::decode(&node.encode()), Ok(node.clone()));
        node.set(2, 0);
        assert_eq!(node.children, vec![(9, 5)]);
        for bad in [vec![], vec![(3, 1), (2, 1)], vec![(16, 1)], vec![(1, 0)]] {
            assert!(IndexNode::decode(&IndexNode { children: bad.clone() }.encode()).is_err(), "{bad:?}");
        }
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
