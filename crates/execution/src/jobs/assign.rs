//! Assigning runners to a job: stake-weighted draws from the job type's index.
//!
//! Draw `k` picks the runner whose weight interval holds `u128(keccak256(parent ‖ job ‖ k)[..16])
//! mod total` in the job type's Fenwick tree (`runners::index`), so a runner's chance is its
//! share of the type's stake and every validator draws the same runners: the parent digest
//! is fixed before the block and unknown before the parent is final, so a submitter cannot pick
//! its runners by choosing when to send. A drawn runner is kept when it is healthy, has at least
//! `min_selection_reputation` (a chain parameter), asks at most `max_price` and has a free job slot; one that is
//! unhealthy or below the reputation floor is taken out of the index (it comes back with its
//! next heartbeat), so dead weight cannot keep failing draws. A drawn runner's weight is set
//! aside until the attempt ends, so the draws are without replacement. At most `4 × runners`
//! draws and `runners` removals per attempt, each charged on the meter; a job that does not get
//! all its runners in one attempt gets none and stays pending.

use super::{EVENT_ASSIGNED, emit, write};
use crate::native::{Meter, NativeHost};
use crate::runners::index;
use drover_state::{
    MARKER,
    job::{Assignment, JobRecord, assigned_key},
    runner::{RunnerRecord, runner_key},
};
use drover_types::{
    Address, H256,
    job::{DRAWS_PER_RUNNER, JobStatus},
    keccak256,
    runner::{DRAW_CYCLES, Health, RUNNER_REGISTRY_ADDRESS},
};
use drover_vm::HostError;

fn runner_record<H: NativeHost>(host: &mut H, runner: &Address) -> Result<RunnerRecord, HostError> {
    host.read_storage(&RUNNER_REGISTRY_ADDRESS, &runner_key(runner), RunnerRecord::decode)?
        .ok_or_else(|| HostError::internal(format!("runner index: {runner} has no record")))
}

fn save_runner<H: NativeHost>(host: &mut H, runner: &Address, record: &RunnerRecord) {
    host.write_storage(&RUNNER_REGISTRY_ADDRESS, &runner_key(runner), Some(record.encode()));
}

/// The point of the `draw`-th draw for `job` in a block whose parent is `parent`, below `total`.
pub(crate) fn draw_point(parent: &H256, job: &H256, draw: u64, total: u128) -> u128 {
    let digest = keccak256(&[&parent.0[..], &job.0, &draw.to_be_bytes()].concat());
    let mut high = [0u8; 16];
    high.copy_from_slice(&digest.0[..16]);
    u128::from_be_bytes(high) % total
}

/// Tries to assign `record`'s runners; on success records them (status `assigned`, each
/// runner's active jobs and assignment marker) and answers `true`. Unhealthy runners met on the
/// way are pruned either way.
pub(crate) fn assign<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job: &H256,
    record: &mut JobRecord,
) -> Result<bool, HostError> {
    let env = *host.env();
    let wanted = usize::try_from(record.runners).unwrap_or(usize::MAX);
    let job_type = record.job_type.clone();
    let mut chosen: Vec<Address> = Vec::with_capacity(wanted);
    // Every drawn runner's weight is set aside for the rest of the attempt (so the draws are
    // without replacement, and none is wasted on a runner already seen), then put back.
    let mut set_aside: Vec<(u32, u128)> = Vec::new();
    let mut unhealthy: Vec<Address> = Vec::new();
    for draw in 0..record.runners.saturating_mul(DRAWS_PER_RUNNER) {
        if chosen.len() == wanted {
            break;
        }
        let total = index::total(host, &job_type)?;
        if total == 0 {
            break;
        }
        meter.charge(DRAW_CYCLES, 0, "a runner draw")?;
        let runner = index::find(host, &job_type, draw_point(&env.parent, job, draw, total))?;
        let candidate = runner_record(host, &runner)?;
        let slot = candidate
            .job_types
            .iter()
            .position(|t| *t == job_type)
            .and_then(|i| candidate.type_slots.get(i).copied().flatten())
            .ok_or_else(|| HostError::internal("runner index: a drawn runner without its slot"))?;
        let weight = index::weight(&candidate);
        index::adjust(host, meter, &job_type, slot, weight, false)?;
        set_aside.push((slot, weight));
        let (gap, floor) = (host.params().heartbeat_gap_blocks, host.params().min_selection_reputation);
        let health =
            Health::at(env.height, candidate.last_heartbeat_height, candidate.paused, candidate.deregistered, gap);
        if health != Health::Healthy || candidate.reputation < floor {
            unhealthy.push(runner);
        } else if candidate.price_per_job <= record.max_price && candidate.active_jobs < candidate.max_concurrent_jobs {
            chosen.push(runner);
        }
    }
    for (slot, weight) in set_aside {
        index::adjust(host, meter, &job_type, slot, weight, true)?;
    }
    // At most one runner pruned per runner asked for: what the attempt's price covers.
    for runner in unhealthy.into_iter().take(wanted) {
        let mut candidate = runner_record(host, &runner)?;
        if let Some(position) = candidate.job_types.iter().position(|t| *t == job_type) {
            index::remove(host, meter, &mut candidate, position)?;
            save_runner(host, &runner, &candidate);
        }
    }
    if chosen.len() < wanted {
        return Ok(false);
    }
    for runner in &chosen {
        let mut runner_record = runner_record(host, runner)?;
        runner_record.active_jobs = runner_record.active_jobs.saturating_add(1);
        save_runner(host, runner, &runner_record);
        write(host, &assigned_key(job, runner), Some(MARKER.to_vec()));
        record.assigned.push(Assignment { runner: *runner, price: runner_record.price_per_job, result: None });
    }
    record.status = JobStatus::Assigned;
    emit(host, EVENT_ASSIGNED, |w| {
        w.array(2).bytes(&job.0).array(chosen.len() as u64);
        for runner in &chosen {
            w.bytes(&runner.0);
        }
    });
    Ok(true)
}
