//! The job-type indexes of the registry: per job type, the runners that may take its jobs,
//! ordered by price in a weight trie, so that a draw among the runners a job can afford and a
//! weight change each touch at most [`INDEX_KEY_NIBBLES`] (36) nodes, whatever the number of
//! runners and prices (layout in `drover_state::runner`).
//!
//! A runner sits at the leaf `price ‖ slot` of each of its job types' tries, its slot one of
//! `0..n` among the runners of that type at that price (the last one moves into a freed slot).
//! Every node holds the total weight below each of its children, so the runners asking at most
//! `max_price` are exactly the leaves left of `max_price`'s path: [`eligible`] reads that path
//! once (at most 32 nodes) and keeps the subtrees hanging left of it, and [`draw`] picks one of
//! those by weight and descends it to a leaf (at most 36 nodes). Draws without replacement do
//! not write: the weights of the runners already drawn are taken off the nodes in memory.
//!
//! Invariant: for every job type `t`, price `p` and slot `s < n(t, p)`, the runner named at
//! `(t, p, s)` asks `p`, lists `t` with `type_slots[i] = Some(s)`, and the trie's leaf `p ‖ s`
//! weighs its weight (`stake + delegated_stake`); every node's child weights are the sums of
//! the leaves below them. Everything that changes a runner's weight, price or place goes through
//! this module, and every walk is charged on the call's meter first.

use crate::native::{Meter, NativeHost};
use drover_state::{
    decode_address, decode_count, encode_address, encode_count,
    runner::{
        INDEX_KEY_NIBBLES, INDEX_PRICE_NIBBLES, IndexKey, IndexNode, MAX_RUNNERS_PER_PRICE, RunnerRecord,
        index_node_key, price_count_key, price_slot_key, runner_key,
    },
};
use drover_types::{
    Address,
    exec_error::ExecCode,
    runner::{INDEX_WALK_CELLS, INDEX_WALK_CYCLES, RUNNER_REGISTRY_ADDRESS},
};
use drover_vm::HostError;

/// A runner's selection weight: its own stake and what is delegated to it.
pub(crate) fn weight(record: &RunnerRecord) -> u128 {
    // Both are base units held by the registry, so their sum is within the supply.
    record.stake.saturating_add(record.delegated_stake)
}

/// The leaf of `record` in the index of its `i`-th job type, while it is there.
pub(crate) fn leaf(record: &RunnerRecord, i: usize) -> Option<IndexKey> {
    record.type_slots.get(i).copied().flatten().map(|slot| IndexKey::new(record.price_per_job, slot))
}

fn corrupt(what: &str) -> HostError {
    HostError::internal(format!("runner index: {what}"))
}

fn read_node<H: NativeHost>(
    host: &mut H,
    job_type: &str,
    depth: usize,
    key: &IndexKey,
) -> Result<Option<IndexNode>, HostError> {
    host.read_storage(&RUNNER_REGISTRY_ADDRESS, &index_node_key(job_type, depth, key), IndexNode::decode)
}

/// Adds `delta` to (or, with `increase` false, takes it from) leaf `key` of `job_type`'s trie:
/// one node per depth on its path.
fn adjust<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job_type: &str,
    key: &IndexKey,
    delta: u128,
    increase: bool,
) -> Result<(), HostError> {
    if delta == 0 {
        return Ok(());
    }
    meter.charge(INDEX_WALK_CYCLES, INDEX_WALK_CELLS, "a runner index update")?;
    for depth in 0..INDEX_KEY_NIBBLES {
        let mut node = read_node(host, job_type, depth, key)?.unwrap_or_default();
        let nibble = key.nibble(depth);
        let old = node.weight(nibble);
        let new = if increase { old.checked_add(delta) } else { old.checked_sub(delta) };
        node.set(nibble, new.ok_or_else(|| corrupt("weight"))?);
        let value = (!node.children.is_empty()).then(|| node.encode());
        host.write_storage(&RUNNER_REGISTRY_ADDRESS, &index_node_key(job_type, depth, key), value);
    }
    Ok(())
}

/// Moves leaf `key` of `job_type`'s trie from `from` to `to`.
fn set_leaf<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job_type: &str,
    key: &IndexKey,
    from: u128,
    to: u128,
) -> Result<(), HostError> {
    if to >= from {
        adjust(host, meter, job_type, key, to - from, true)
    } else {
        adjust(host, meter, job_type, key, from - to, false)
    }
}

/// Changes the weight of `record` (a runner whose weight was `old`) in every index it is in.
pub(crate) fn reweigh<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    record: &RunnerRecord,
    old: u128,
) -> Result<(), HostError> {
    let new = weight(record);
    for (i, job_type) in record.job_types.iter().enumerate() {
        if let Some(key) = leaf(record, i) {
            set_leaf(host, meter, job_type, &key, old, new)?;
        }
    }
    Ok(())
}

/// Puts `runner` (its record `record`) in the index of its `i`-th job type at its price, unless
/// it is there.
pub(crate) fn insert<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    runner: &Address,
    record: &mut RunnerRecord,
    i: usize,
) -> Result<(), HostError> {
    if record.type_slots.get(i).is_some_and(Option::is_some) {
        return Ok(());
    }
    let job_type = record.job_types.get(i).ok_or_else(|| corrupt("job type"))?.clone();
    let price = record.price_per_job;
    let count_key = price_count_key(&job_type, price);
    let count = host.read_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, decode_count)?.unwrap_or(0);
    let slot = u32::try_from(count).ok().filter(|slot| *slot < MAX_RUNNERS_PER_PRICE).ok_or_else(|| {
        HostError::new(
            ExecCode::JobTypeFull,
            format!("job type {job_type:?} already has {MAX_RUNNERS_PER_PRICE} runners at a price of {price}"),
        )
    })?;
    adjust(host, meter, &job_type, &IndexKey::new(price, slot), weight(record), true)?;
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &price_slot_key(&job_type, price, slot), Some(encode_address(runner)));
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, Some(encode_count(count + 1)));
    record.type_slots.resize(record.job_types.len(), None);
    record.type_slots[i] = Some(slot);
    Ok(())
}

/// Takes `record` out of the index of its `i`-th job type, if it is there: the last runner at
/// its price moves into its slot (that runner's record is rewritten). Call it before the
/// record's price changes: the leaf is found by the price it was put in at.
pub(crate) fn remove<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    record: &mut RunnerRecord,
    i: usize,
) -> Result<(), HostError> {
    let Some(slot) = record.type_slots.get_mut(i).and_then(Option::take) else {
        return Ok(());
    };
    let job_type = record.job_types.get(i).ok_or_else(|| corrupt("job type"))?.clone();
    let price = record.price_per_job;
    let count_key = price_count_key(&job_type, price);
    let count = host.read_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, decode_count)?.unwrap_or(0);
    let last = u32::try_from(count).ok().and_then(|c| c.checked_sub(1)).filter(|l| slot <= *l);
    let last = last.ok_or_else(|| corrupt("a slot past the count"))?;
    let own = weight(record);
    if slot == last {
        adjust(host, meter, &job_type, &IndexKey::new(price, slot), own, false)?;
    } else {
        let moved = host
            .read_storage(&RUNNER_REGISTRY_ADDRESS, &price_slot_key(&job_type, price, last), decode_address)?
            .ok_or_else(|| corrupt("an empty slot"))?;
        let mut moved_record = host
            .read_storage(&RUNNER_REGISTRY_ADDRESS, &runner_key(&moved), RunnerRecord::decode)?
            .ok_or_else(|| corrupt("an indexed runner without a record"))?;
        let moved_weight = weight(&moved_record);
        set_leaf(host, meter, &job_type, &IndexKey::new(price, slot), own, moved_weight)?;
        adjust(host, meter, &job_type, &IndexKey::new(price, last), moved_weight, false)?;
        let position = moved_record.job_types.iter().position(|t| *t == job_type).ok_or_else(|| corrupt("job type"))?;
        moved_record.type_slots[position] = Some(slot);
        host.write_storage(&RUNNER_REGISTRY_ADDRESS, &runner_key(&moved), Some(moved_record.encode()));
        host.write_storage(
            &RUNNER_REGISTRY_ADDRESS,
            &price_slot_key(&job_type, price, slot),
            Some(encode_address(&moved)),
        );
    }
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &price_slot_key(&job_type, price, last), None);
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, (last > 0).then(|| encode_count(u64::from(last))));
    Ok(())
}

/// A subtree of an index: the node at `depth` above `key` (whose nibbles from `depth` on are
/// zero), weighing `weight`.
#[derive(Clone, Copy, Debug)]
struct Subtree {
    depth: usize,
    key: IndexKey,
    weight: u128,
}

/// The runners of a job type asking at most a price: the subtrees left of that price's path, in
/// key order, and their total weight.
#[derive(Debug, Default)]
pub(crate) struct Eligible {
    subtrees: Vec<Subtree>,
    /// The weight of the runners asking at most the price.
    pub(crate) total: u128,
}

/// The runners of `job_type` asking at most `max_price`: one read per node on `max_price`'s
/// path (at most [`INDEX_PRICE_NIBBLES`]).
pub(crate) fn eligible<H: NativeHost>(host: &mut H, job_type: &str, max_price: u128) -> Result<Eligible, HostError> {
    let path = IndexKey::new(max_price, 0);
    let mut eligible = Eligible::default();
    for depth in 0..INDEX_PRICE_NIBBLES {
        let Some(node) = read_node(host, job_type, depth, &path)? else {
            break;
        };
        let on_path = path.nibble(depth);
        for (nibble, weight) in node.children.iter().copied().filter(|(nibble, _)| *nibble <= on_path) {
            // Below the path's own nibble everything is cheaper; the path's child is followed
            // down, except past the price's last nibble, where it holds exactly the runners at
            // `max_price`.
            if nibble < on_path || depth + 1 == INDEX_PRICE_NIBBLES {
                let key = path.prefix(depth).with_nibble(depth, nibble);
                eligible.subtrees.push(Subtree { depth: depth + 1, key, weight });
                eligible.total = eligible.total.checked_add(weight).ok_or_else(|| corrupt("total weight"))?;
            }
        }
        if node.weight(on_path) == 0 {
            break;
        }
    }
    Ok(eligible)
}

/// Weight of the runners in `aside` below the node at `depth` above `key`.
fn aside_below(aside: &[(IndexKey, u128)], depth: usize, key: &IndexKey) -> u128 {
    aside.iter().filter(|(leaf, _)| leaf.prefix(depth) == *key).map(|(_, weight)| *weight).sum()
}

/// The runner of `eligible` whose weight interval holds `target`, the runners in `aside` (their
/// leaves and weights, all among `eligible`) taken out: `0 <= target < eligible.total − their
/// weight`. Reads one node per depth below the subtree it falls in, then the runner's address.
pub(crate) fn draw<H: NativeHost>(
    host: &mut H,
    job_type: &str,
    eligible: &Eligible,
    aside: &[(IndexKey, u128)],
    target: u128,
) -> Result<(IndexKey, Address), HostError> {
    let past = || corrupt("a draw past the eligible weight");
    let mut left = target;
    let mut found = None;
    for subtree in &eligible.subtrees {
        let weight = subtree.weight.saturating_sub(aside_below(aside, subtree.depth, &subtree.key));
        if left < weight {
            found = Some(*subtree);
            break;
        }
        left -= weight;
    }
    let Subtree { mut depth, mut key, .. } = found.ok_or_else(past)?;
    while depth < INDEX_KEY_NIBBLES {
        let node = read_node(host, job_type, depth, &key)?.ok_or_else(|| corrupt("a missing node"))?;
        let mut next = None;
        for (nibble, weight) in node.children {
            let child = key.with_nibble(depth, nibble);
            let weight = weight.saturating_sub(aside_below(aside, depth + 1, &child));
            if left < weight {
                next = Some(child);
                break;
            }
            left -= weight;
        }
        key = next.ok_or_else(past)?;
        depth += 1;
    }
    let runner = host
        .read_storage(&RUNNER_REGISTRY_ADDRESS, &price_slot_key(job_type, key.price(), key.slot()), decode_address)?
        .ok_or_else(|| corrupt("a leaf without a runner"))?;
    Ok((key, runner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::AUDIT_CYCLES_PER_LOOKUP;

    #[test]
    fn a_walk_pays_a_lookup_for_every_node_it_reads_and_every_node_it_writes() {
        // The audit counts a walk's reads only; its writes are as many operations of the state
        // database at commit, and the executor's time for the walk (the cost bench) is about
        // that of both together at the audit's price.
        let nodes_touched = 2 * INDEX_KEY_NIBBLES as u64;
        assert!(
            INDEX_WALK_CYCLES >= nodes_touched * AUDIT_CYCLES_PER_LOOKUP,
            "a walk of {nodes_touched} node reads and writes is priced {INDEX_WALK_CYCLES} cycles"
        );
    }
}
