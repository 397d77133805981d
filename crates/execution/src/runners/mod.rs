//! The runner registry: the native system actor at [`RUNNER_REGISTRY_ADDRESS`].
//!
//! Reached like the tokens actor (a transaction's Message or an actor's `call`, through
//! `native::run`); the sender is the runner or the delegator. Value sent with
//! `register`, `update` or `delegate` moves into the registry's own account, which holds every
//! stake, delegation and pending unbonding; `withdraw` pays matured unbondings back from it.
//!
//! # Rules
//!
//! - `register`: stake (the value) at least the `min_runner_stake` chain parameter (E1601), capabilities within
//!   the rules (E1603), not already a registered runner (E1602). A deregistered runner may
//!   register again; its unbonding stake keeps unbonding. Registration counts as a heartbeat
//!   and takes the next slot of the registered runners; deregistration gives it up.
//! - `update`, `heartbeat`, `deregister`: the sender is a registered runner (E1604). `update`
//!   adds its value to the stake. `deregister` needs no job in progress (E1605) and moves the
//!   whole stake to unbonding, withdrawable `unbonding_blocks` (a chain parameter) later.
//! - `delegate`: a non-zero value (E1606) to a registered runner (E1604); `undelegate`: a
//!   non-zero amount at most what is delegated (E1606), unbonding like a stake.
//! - `withdraw {runner}`: pays the sender every matured unbonding with `runner` (its own stake
//!   when it is `runner`, and its delegation); nothing matured is E1607. At most
//!   [`MAX_PENDING_UNBONDINGS`] unbondings wait per record (E1608), so a call's work is bounded.
//!
//! Listings: a delegator's listing names the runners it has a stored delegation to
//! (`drover_state::runner::delegations_listing`), kept by `delegate` (a new delegation) and
//! `withdraw` (one emptied), each paying for that change, so `/account/{address}/delegations`
//! pages by point lookups.
//!
//! Conservation: every base unit that enters the registry's account is in exactly one of a
//! runner's `stake`, a delegation's `amount` or a pending unbonding, and leaves only by
//! `withdraw`; a test sums them against the account after random sequences.

pub(crate) mod index;
pub mod rewards;
#[cfg(test)]
mod tests;

use crate::listing;
use crate::native::{Meter, NativeHost, SystemActor};
use drover_state::{
    decode_address, decode_count, encode_address, encode_count,
    runner::{
        Delegation, RunnerRecord, Unbonding, delegation_key, delegations_listing, runner_count_key, runner_key,
        runner_slot_key, state_key,
    },
};
use drover_types::{
    Address, Event,
    cbor::Writer,
    exec_error::ExecCode,
    runner::{Capabilities, INITIAL_REPUTATION, MAX_PENDING_UNBONDINGS, RUNNER_REGISTRY_ADDRESS, RegistryCall},
};
use drover_vm::{CallContext, HostError};

/// Topic of the event a registration emits.
pub const EVENT_REGISTERED: &str = "runner.registered";
/// Topic of the event an update emits.
pub const EVENT_UPDATED: &str = "runner.updated";
/// Topic of the event a deregistration emits.
pub const EVENT_DEREGISTERED: &str = "runner.deregistered";
/// Topic of the event a delegation emits.
pub const EVENT_DELEGATED: &str = "runner.delegated";
/// Topic of the event an undelegation emits.
pub const EVENT_UNDELEGATED: &str = "runner.undelegated";
/// Topic of the event a withdrawal emits.
pub const EVENT_WITHDRAWN: &str = "runner.withdrawn";

impl SystemActor for RegistryCall {
    fn prefetch_keys(&self, sender: &Address) -> Vec<Vec<u8>> {
        let user_keys = match self {
            RegistryCall::Register { .. } => vec![runner_key(sender), runner_count_key()],
            RegistryCall::Update { .. } | RegistryCall::Heartbeat | RegistryCall::Deregister => {
                vec![runner_key(sender)]
            }
            RegistryCall::Delegate { runner }
            | RegistryCall::Undelegate { runner, .. }
            | RegistryCall::Withdraw { runner } => {
                vec![runner_key(runner), delegation_key(runner, sender)]
            }
        };
        user_keys.iter().map(|key| state_key(key)).collect()
    }

    fn apply<H: NativeHost>(
        self,
        host: &mut H,
        context: &CallContext,
        meter: &mut Meter,
    ) -> Result<Vec<u8>, HostError> {
        let mut registry = Registry { host, meter, sender: context.caller, height: context.block_height };
        registry.apply(self, context.value).map(|()| Vec::new())
    }
}

/// One call's view of the registry, as `sender`.
struct Registry<'x, H> {
    host: &'x mut H,
    meter: &'x mut Meter,
    sender: Address,
    height: u64,
}

fn refuse(code: ExecCode, message: impl Into<String>) -> HostError {
    HostError::new(code, message)
}

fn check_capabilities(capabilities: &Capabilities) -> Result<(), HostError> {
    capabilities.check().map_err(|reason| refuse(ExecCode::RunnerCapabilities, reason))
}

/// Adds an unbonding entry to `entries`, within [`MAX_PENDING_UNBONDINGS`].
fn unbond(entries: &mut Vec<Unbonding>, amount: u128, release_height: u64) -> Result<(), HostError> {
    if entries.len() >= MAX_PENDING_UNBONDINGS {
        return Err(refuse(
            ExecCode::TooManyUnbondings,
            format!("{MAX_PENDING_UNBONDINGS} unbondings are already waiting; withdraw the matured ones first"),
        ));
    }
    entries.push(Unbonding { amount, release_height });
    Ok(())
}

/// Takes the matured entries out of `entries`; answers their sum.
fn matured(entries: &mut Vec<Unbonding>, height: u64) -> Result<u128, HostError> {
    let mut total = 0u128;
    let mut kept = Vec::with_capacity(entries.len());
    for entry in entries.drain(..) {
        if entry.release_height <= height {
            total = total.checked_add(entry.amount).ok_or_else(|| HostError::internal("unbonded stake overflows"))?;
        } else {
            kept.push(entry);
        }
    }
    *entries = kept;
    Ok(total)
}

impl<H: NativeHost> Registry<'_, H> {
    fn apply(&mut self, call: RegistryCall, value: u128) -> Result<(), HostError> {
        let sender = self.sender;
        match call {
            RegistryCall::Register { rate_card, capabilities } => {
                let floor = self.host.params().min_runner_stake;
                if value < floor {
                    return Err(refuse(
                        ExecCode::RunnerStake,
                        format!("a runner stakes at least {floor} base units; {value} sent"),
                    ));
                }
                check_capabilities(&capabilities)?;
                let previous = self.runner(&sender)?;
                if previous.as_ref().is_some_and(|r| !r.deregistered) {
                    return Err(refuse(ExecCode::RunnerRegistered, format!("{sender} is already a registered runner")));
                }
                let (unbonding, delegated_stake, reputation, reward_per_share, delegator_rewards) = match previous {
                    Some(old) => (
                        old.unbonding,
                        old.delegated_stake,
                        old.reputation,
                        old.reward_per_share,
                        old.delegator_rewards,
                    ),
                    None => (Vec::new(), 0, INITIAL_REPUTATION, 0, 0),
                };
                let slot = self.read(&runner_count_key(), decode_count)?.unwrap_or(0);
                self.write(runner_slot_key(slot), Some(encode_address(&sender)));
                self.write(runner_count_key(), Some(encode_count(slot.saturating_add(1))));
                let type_slots = vec![None; capabilities.job_types.len()];
                let mut record = RunnerRecord {
                    stake: value,
                    delegated_stake,
                    price_per_job: rate_card.price_per_job,
                    job_types: capabilities.job_types,
                    max_concurrent_jobs: capabilities.max_concurrent_jobs,
                    paused: false,
                    deregistered: false,
                    registered_height: self.height,
                    last_heartbeat_height: self.height,
                    reputation,
                    active_jobs: 0,
                    unbonding,
                    slot: Some(slot),
                    type_slots,
                    reward_per_share,
                    delegator_rewards,
                };
                self.join_indexes(&sender, &mut record)?;
                self.save(&sender, &record);
                self.emit(EVENT_REGISTERED, |w| {
                    w.array(2).bytes(&sender.0).u128(value);
                });
            }
            RegistryCall::Update { rate_card, capabilities, paused } => {
                let mut record = self.registered(&sender)?;
                let old_weight = index::weight(&record);
                // A runner sits in its indexes at its price: a new price moves it.
                let new_price = rate_card.as_ref().is_some_and(|card| card.price_per_job != record.price_per_job);
                let replace = capabilities.is_some() || paused.is_some() || new_price;
                if replace {
                    self.leave_indexes(&mut record)?;
                }
                if let Some(capabilities) = capabilities {
                    check_capabilities(&capabilities)?;
                    record.type_slots = vec![None; capabilities.job_types.len()];
                    record.job_types = capabilities.job_types;
                    record.max_concurrent_jobs = capabilities.max_concurrent_jobs;
                }
                if let Some(card) = rate_card {
                    record.price_per_job = card.price_per_job;
                }
                if let Some(paused) = paused {
                    record.paused = paused;
                }
                record.stake = record.stake.checked_add(value).ok_or_else(|| HostError::internal("stake overflows"))?;
                if replace {
                    self.join_indexes(&sender, &mut record)?;
                } else {
                    index::reweigh(self.host, self.meter, &record, old_weight)?;
                }
                self.save(&sender, &record);
                self.emit(EVENT_UPDATED, |w| {
                    w.array(2).bytes(&sender.0).u128(record.stake);
                });
            }
            RegistryCall::Heartbeat => {
                let mut record = self.registered(&sender)?;
                record.last_heartbeat_height = self.height;
                // A draw that found it unhealthy took it out of its indexes; alive again, it
                // goes back in.
                self.join_indexes(&sender, &mut record)?;
                self.save(&sender, &record);
            }
            RegistryCall::Deregister => {
                let mut record = self.registered(&sender)?;
                if record.active_jobs > 0 {
                    return Err(refuse(
                        ExecCode::RunnerBusy,
                        format!("{sender} has {} jobs in progress; finish them first", record.active_jobs),
                    ));
                }
                self.leave_indexes(&mut record)?;
                let stake = std::mem::take(&mut record.stake);
                unbond(&mut record.unbonding, stake, self.release_height())?;
                record.deregistered = true;
                self.leave_slot(record.slot.take())?;
                self.save(&sender, &record);
                self.emit(EVENT_DEREGISTERED, |w| {
                    w.array(2).bytes(&sender.0).u128(stake);
                });
            }
            RegistryCall::Delegate { runner } => {
                if value == 0 {
                    return Err(refuse(ExecCode::DelegationAmount, "a delegation carries a non-zero value"));
                }
                let mut record = self.registered(&runner)?;
                let old_weight = index::weight(&record);
                let mut delegation = self.delegation(&runner, &sender)?;
                let stored = !delegation.is_empty();
                rewards::settle(&mut delegation, &record);
                if delegation.amount == 0 {
                    delegation.since_height = self.height;
                }
                delegation.amount =
                    delegation.amount.checked_add(value).ok_or_else(|| HostError::internal("delegation overflows"))?;
                rewards::reset_debt(&mut delegation, &record);
                record.delegated_stake = record
                    .delegated_stake
                    .checked_add(value)
                    .ok_or_else(|| HostError::internal("delegated stake overflows"))?;
                index::reweigh(self.host, self.meter, &record, old_weight)?;
                self.save(&runner, &record);
                self.save_delegation(&runner, &sender, stored, &delegation)?;
                self.emit(EVENT_DELEGATED, |w| {
                    w.array(3).bytes(&sender.0).bytes(&runner.0).u128(value);
                });
            }
            RegistryCall::Undelegate { runner, amount } => {
                let mut delegation = self.delegation(&runner, &sender)?;
                let stored = !delegation.is_empty();
                // The runner's record exists while a delegation to it does (it is never removed).
                let mut record =
                    self.runner(&runner)?.ok_or_else(|| HostError::internal("a delegated runner has no record"))?;
                rewards::settle(&mut delegation, &record);
                let left = delegation.amount.checked_sub(amount).filter(|_| amount > 0).ok_or_else(|| {
                    refuse(
                        ExecCode::DelegationAmount,
                        format!("{sender} delegates {} to {runner}; cannot undelegate {amount}", delegation.amount),
                    )
                })?;
                unbond(&mut delegation.pending, amount, self.release_height())?;
                delegation.amount = left;
                rewards::reset_debt(&mut delegation, &record);
                let old_weight = index::weight(&record);
                record.delegated_stake = record.delegated_stake.saturating_sub(amount);
                index::reweigh(self.host, self.meter, &record, old_weight)?;
                self.save(&runner, &record);
                self.save_delegation(&runner, &sender, stored, &delegation)?;
                self.emit(EVENT_UNDELEGATED, |w| {
                    w.array(3).bytes(&sender.0).bytes(&runner.0).u128(amount);
                });
            }
            RegistryCall::Withdraw { runner } => {
                let mut total = 0u128;
                let mut delegation = self.delegation(&runner, &sender)?;
                let stored = !delegation.is_empty();
                let mut from_delegation = matured(&mut delegation.pending, self.height)?;
                if let Some(mut record) = self.runner(&runner)? {
                    if runner == sender {
                        total = matured(&mut record.unbonding, self.height)?;
                    }
                    // Rewards earned by the delegation, capped at what the pool holds (floors
                    // never let the claims add up to more, see `rewards`).
                    rewards::settle(&mut delegation, &record);
                    let earned = std::mem::take(&mut delegation.rewards).min(record.delegator_rewards);
                    record.delegator_rewards -= earned;
                    from_delegation = from_delegation
                        .checked_add(earned)
                        .ok_or_else(|| HostError::internal("withdrawal overflows"))?;
                    self.save(&runner, &record);
                }
                self.save_delegation(&runner, &sender, stored, &delegation)?;
                let total =
                    total.checked_add(from_delegation).ok_or_else(|| HostError::internal("withdrawal overflows"))?;
                if total == 0 {
                    return Err(refuse(
                        ExecCode::NothingToWithdraw,
                        format!("nothing has finished unbonding with {runner}"),
                    ));
                }
                self.host.move_value(&RUNNER_REGISTRY_ADDRESS, &sender, total)?;
                self.emit(EVENT_WITHDRAWN, |w| {
                    w.array(3).bytes(&sender.0).bytes(&runner.0).u128(total);
                });
            }
        }
        Ok(())
    }

    /// Puts a registered runner that may take jobs (not paused, reputation at least
    /// the `min_selection_reputation` chain parameter, a free job slot) in the index of each of
    /// its job types it is not in yet.
    fn join_indexes(&mut self, runner: &Address, record: &mut RunnerRecord) -> Result<(), HostError> {
        let busy = record.active_jobs >= record.max_concurrent_jobs;
        if record.paused
            || record.deregistered
            || busy
            || record.reputation < self.host.params().min_selection_reputation
        {
            return Ok(());
        }
        for i in 0..record.job_types.len() {
            index::insert(self.host, self.meter, runner, record, i)?;
        }
        Ok(())
    }

    /// Takes a runner out of every index it is in.
    fn leave_indexes(&mut self, record: &mut RunnerRecord) -> Result<(), HostError> {
        for i in 0..record.job_types.len() {
            index::remove(self.host, self.meter, record, i)?;
        }
        Ok(())
    }

    /// Gives up a deregistered runner's slot: the last registered runner moves into it.
    fn leave_slot(&mut self, slot: Option<u64>) -> Result<(), HostError> {
        let corrupt = |what: &str| HostError::internal(format!("runner registry: {what}"));
        let slot = slot.ok_or_else(|| corrupt("a registered runner without a slot"))?;
        let count = self.read(&runner_count_key(), decode_count)?.unwrap_or(0);
        let last = count.checked_sub(1).filter(|last| slot <= *last).ok_or_else(|| corrupt("a slot past the count"))?;
        if slot != last {
            let moved = self.read(&runner_slot_key(last), decode_address)?.ok_or_else(|| corrupt("an empty slot"))?;
            let mut record = self.runner(&moved)?.ok_or_else(|| corrupt("a listed runner without a record"))?;
            record.slot = Some(slot);
            self.save(&moved, &record);
            self.write(runner_slot_key(slot), Some(encode_address(&moved)));
        }
        self.write(runner_slot_key(last), None);
        self.write(runner_count_key(), (last > 0).then(|| encode_count(last)));
        Ok(())
    }

    fn release_height(&self) -> u64 {
        self.height.saturating_add(self.host.params().unbonding_blocks)
    }

    fn runner(&mut self, runner: &Address) -> Result<Option<RunnerRecord>, HostError> {
        self.read(&runner_key(runner), RunnerRecord::decode)
    }

    /// The runner's record, if it is registered and not deregistered (E1604 otherwise).
    fn registered(&mut self, runner: &Address) -> Result<RunnerRecord, HostError> {
        self.runner(runner)?
            .filter(|record| !record.deregistered)
            .ok_or_else(|| refuse(ExecCode::UnknownRunner, format!("{runner} is not a registered runner")))
    }

    fn delegation(&mut self, runner: &Address, delegator: &Address) -> Result<Delegation, HostError> {
        Ok(self.read(&delegation_key(runner, delegator), Delegation::decode)?.unwrap_or_default())
    }

    fn save(&mut self, runner: &Address, record: &RunnerRecord) {
        self.write(runner_key(runner), Some(record.encode()));
    }

    /// Writes `delegator`'s delegation to `runner` (an empty one is removed) and, when it appears
    /// or goes (`stored` says whether it was), lists or unlists the runner for the delegator.
    fn save_delegation(
        &mut self,
        runner: &Address,
        delegator: &Address,
        stored: bool,
        delegation: &Delegation,
    ) -> Result<(), HostError> {
        let keep = !delegation.is_empty();
        self.write(delegation_key(runner, delegator), keep.then(|| delegation.encode()));
        if keep != stored {
            listing::set(self.host, &delegations_listing(delegator), &runner.0, keep)?;
        }
        Ok(())
    }

    fn read<T>(
        &mut self,
        user_key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
    ) -> Result<Option<T>, HostError> {
        self.host.read_storage(&RUNNER_REGISTRY_ADDRESS, user_key, decode)
    }

    fn write(&mut self, user_key: Vec<u8>, value: Option<Vec<u8>>) {
        self.host.write_storage(&RUNNER_REGISTRY_ADDRESS, &user_key, value);
    }

    fn emit(&mut self, topic: &str, data: impl FnOnce(&mut Writer<Vec<u8>>)) {
        let mut w = Writer::with_capacity(64);
        data(&mut w);
        self.host.emit_event(Event { address: RUNNER_REGISTRY_ADDRESS, topic: topic.to_owned(), data: w.into_inner() });
    }
}
