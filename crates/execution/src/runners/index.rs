//! The job-type indexes of the registry: per job type, the runners that may take its jobs, with
//! a Fenwick tree over their weights so that a stake-weighted draw and a weight change each
//! walk at most `log2(MAX_RUNNERS_PER_JOB_TYPE) + 1` (17) nodes, whatever the number of
//! runners (layout in `drover_state::runner`).
//!
//! Invariant: for every job type `t` and slot `s < n(t)`, the runner named at `s` lists `t` with
//! `type_slots[i] = Some(s)`, and the tree's leaf `s` holds its weight (`stake +
//! delegated_stake`); leaves from `n(t)` on are zero. Everything that changes a runner's weight
//! or its place goes through this module, and every walk is charged on the call's meter first.

use crate::native::{Meter, NativeHost};
use drover_state::{
    decode_address, decode_count, encode_address, encode_count,
    runner::{
        MAX_RUNNERS_PER_JOB_TYPE, RunnerRecord, decode_weight, encode_weight, runner_key, type_count_key,
        type_node_key, type_slot_key,
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

fn corrupt(what: &str) -> HostError {
    HostError::internal(format!("runner index: {what}"))
}

fn read_node<H: NativeHost>(host: &mut H, job_type: &str, node: u32) -> Result<u128, HostError> {
    Ok(host.read_storage(&RUNNER_REGISTRY_ADDRESS, &type_node_key(job_type, node), decode_weight)?.unwrap_or(0))
}

/// Adds `delta` to (or, with `increase` false, takes it from) leaf `slot` of `job_type`'s tree.
pub(crate) fn adjust<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job_type: &str,
    slot: u32,
    delta: u128,
    increase: bool,
) -> Result<(), HostError> {
    if delta == 0 {
        return Ok(());
    }
    meter.charge(INDEX_WALK_CYCLES, INDEX_WALK_CELLS, "a runner index update")?;
    let mut node = slot.checked_add(1).filter(|n| *n <= MAX_RUNNERS_PER_JOB_TYPE).ok_or_else(|| corrupt("slot"))?;
    loop {
        let value = read_node(host, job_type, node)?;
        let value = if increase { value.checked_add(delta) } else { value.checked_sub(delta) }
            .ok_or_else(|| corrupt("weight"))?;
        let key = type_node_key(job_type, node);
        host.write_storage(&RUNNER_REGISTRY_ADDRESS, &key, (value > 0).then(|| encode_weight(value)));
        node += node & node.wrapping_neg();
        if node > MAX_RUNNERS_PER_JOB_TYPE {
            return Ok(());
        }
    }
}

/// Moves leaf `slot` of `job_type`'s tree from `from` to `to`.
fn set_leaf<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job_type: &str,
    slot: u32,
    from: u128,
    to: u128,
) -> Result<(), HostError> {
    if to >= from {
        adjust(host, meter, job_type, slot, to - from, true)
    } else {
        adjust(host, meter, job_type, slot, from - to, false)
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
    for (job_type, slot) in record.job_types.iter().zip(&record.type_slots) {
        if let Some(slot) = slot {
            set_leaf(host, meter, job_type, *slot, old, new)?;
        }
    }
    Ok(())
}

/// Puts `runner` (its record `record`) in the index of its `i`-th job type, unless it is there.
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
    let count_key = type_count_key(&job_type);
    let count = host.read_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, decode_count)?.unwrap_or(0);
    let slot = u32::try_from(count).ok().filter(|slot| *slot < MAX_RUNNERS_PER_JOB_TYPE).ok_or_else(|| {
        HostError::new(
            ExecCode::JobTypeFull,
            format!("job type {job_type:?} already has {MAX_RUNNERS_PER_JOB_TYPE} runners"),
        )
    })?;
    adjust(host, meter, &job_type, slot, weight(record), true)?;
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &type_slot_key(&job_type, slot), Some(encode_address(runner)));
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, Some(encode_count(count + 1)));
    record.type_slots.resize(record.job_types.len(), None);
    record.type_slots[i] = Some(slot);
    Ok(())
}

/// Takes `record` out of the index of its `i`-th job type, if it is there: the last runner of
/// the index moves into its slot (its record is rewritten).
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
    let count_key = type_count_key(&job_type);
    let count = host.read_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, decode_count)?.unwrap_or(0);
    let last = u32::try_from(count).ok().and_then(|c| c.checked_sub(1)).filter(|l| slot <= *l);
    let last = last.ok_or_else(|| corrupt("a slot past the count"))?;
    let own = weight(record);
    if slot == last {
        adjust(host, meter, &job_type, slot, own, false)?;
    } else {
        let moved = host
            .read_storage(&RUNNER_REGISTRY_ADDRESS, &type_slot_key(&job_type, last), decode_address)?
            .ok_or_else(|| corrupt("an empty slot"))?;
        let mut moved_record = host
            .read_storage(&RUNNER_REGISTRY_ADDRESS, &runner_key(&moved), RunnerRecord::decode)?
            .ok_or_else(|| corrupt("an indexed runner without a record"))?;
        let moved_weight = weight(&moved_record);
        set_leaf(host, meter, &job_type, slot, own, moved_weight)?;
        adjust(host, meter, &job_type, last, moved_weight, false)?;
        let position = moved_record.job_types.iter().position(|t| *t == job_type).ok_or_else(|| corrupt("job type"))?;
        moved_record.type_slots[position] = Some(slot);
        host.write_storage(&RUNNER_REGISTRY_ADDRESS, &runner_key(&moved), Some(moved_record.encode()));
        host.write_storage(&RUNNER_REGISTRY_ADDRESS, &type_slot_key(&job_type, slot), Some(encode_address(&moved)));
    }
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &type_slot_key(&job_type, last), None);
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &count_key, (last > 0).then(|| encode_count(u64::from(last))));
    Ok(())
}

/// Total weight of `job_type`'s index (the root of its tree).
pub(crate) fn total<H: NativeHost>(host: &mut H, job_type: &str) -> Result<u128, HostError> {
    read_node(host, job_type, MAX_RUNNERS_PER_JOB_TYPE)
}

/// The runner whose weight interval holds `target` (`0 <= target < total`): the slot `s` with
/// `sum(leaves < s) <= target < sum(leaves <= s)`, found by one descent of the tree.
pub(crate) fn find<H: NativeHost>(host: &mut H, job_type: &str, target: u128) -> Result<Address, HostError> {
    let (mut position, mut left) = (0u32, target);
    let mut step = MAX_RUNNERS_PER_JOB_TYPE;
    while step > 0 {
        let next = position + step;
        if next <= MAX_RUNNERS_PER_JOB_TYPE {
            let value = read_node(host, job_type, next)?;
            if value <= left {
                position = next;
                left -= value;
            }
        }
        step >>= 1;
    }
    host.read_storage(&RUNNER_REGISTRY_ADDRESS, &type_slot_key(job_type, position), decode_address)?
        .ok_or_else(|| corrupt("a draw past the last slot"))
}
