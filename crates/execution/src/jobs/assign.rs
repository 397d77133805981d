//! Assigning runners to a job: stake-weighted draws among the runners that can take it.
//!
//! The job type's index (`runners::index`) holds the runners offering the type that may take
//! jobs, ordered by price: the runners asking at most the job's `max_price` are found once per
//! attempt (one path of at most 32 nodes), and every draw is among them. Draw `k` picks the
//! runner whose weight interval holds `u128(keccak256(parent ‖ job ‖ k)[..16]) mod total`, the
//! runners drawn earlier in the attempt taken out (draws without replacement, subtracted in
//! memory), so a runner's chance is its share of the eligible stake and every validator draws
//! the same runners: the parent digest is fixed before the block and unknown before the parent
//! is final, so a submitter cannot pick its runners by choosing when to send. Expensive runners
//! are never drawn, however much stake they hold.
//!
//! What the index cannot know ahead is checked on the runner drawn: healthy, at least
//! `min_selection_reputation` (a chain parameter) and a free job slot. One that fails is taken
//! out of this job type's index (its next heartbeat puts it back once it is healthy and has a
//! free slot), so dead or busy weight cannot keep absorbing draws. At most `4 × runners` draws
//! and `runners` removals per attempt, each charged on the meter; a job that does not get all
//! its runners in one attempt gets none and stays pending.

use super::{emit, write};
use crate::native::{Meter, NativeHost};
use crate::runners::index;
use drover_state::{
    MARKER,
    job::{Assignment, JobRecord, assigned_key},
    runner::{IndexKey, RunnerRecord, runner_key},
};
use drover_types::job::EVENT_ASSIGNED;
use drover_types::{
    Address, H256,
    job::{DRAWS_PER_RUNNER, JobStatus},
    keccak256,
    runner::{DRAW_CYCLES, ELIGIBLE_CYCLES, Health, RUNNER_REGISTRY_ADDRESS},
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
/// runner's active jobs and assignment marker) and answers `true`. Runners that cannot take
/// jobs now, met on the way, are pruned either way.
pub(crate) fn assign<H: NativeHost>(
    host: &mut H,
    meter: &mut Meter,
    job: &H256,
    record: &mut JobRecord,
) -> Result<bool, HostError> {
    let env = *host.env();
    let wanted = usize::try_from(record.runners).unwrap_or(usize::MAX);
    let job_type = record.job_type.clone();
    let (gap, floor) = (host.params().heartbeat_gap_blocks, host.params().min_selection_reputation);
    let mut chosen: Vec<Address> = Vec::with_capacity(wanted);
    let mut eligible: Option<index::Eligible> = None;
    // The leaves and weights of the runners drawn so far: out of the later draws.
    let mut drawn: Vec<(IndexKey, u128)> = Vec::new();
    let mut unable: Vec<Address> = Vec::new();
    for draw in 0..record.runners.saturating_mul(DRAWS_PER_RUNNER) {
        if chosen.len() == wanted {
            break;
        }
        let eligible = match &mut eligible {
            Some(eligible) => eligible,
            None => {
                meter.charge(ELIGIBLE_CYCLES, 0, "finding the runners a job can afford")?;
                eligible.insert(index::eligible(host, &job_type, record.max_price)?)
            }
        };
        let left = eligible.total.saturating_sub(drawn.iter().map(|(_, weight)| weight).sum());
        if left == 0 {
            break;
        }
        meter.charge(DRAW_CYCLES, 0, "a runner draw")?;
        let (leaf, runner) = index::draw(host, &job_type, eligible, &drawn, draw_point(&env.parent, job, draw, left))?;
        let candidate = runner_record(host, &runner)?;
        drawn.push((leaf, index::weight(&candidate)));
        let health =
            Health::at(env.height, candidate.last_heartbeat_height, candidate.paused, candidate.deregistered, gap);
        let busy = candidate.active_jobs >= candidate.max_concurrent_jobs;
        if health != Health::Healthy || candidate.reputation < floor || busy {
            unable.push(runner);
        } else {
            chosen.push(runner);
        }
    }
    // At most one runner pruned per runner asked for: what the attempt's price covers.
    for runner in unable.into_iter().take(wanted) {
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
