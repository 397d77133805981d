//! Paying runners and their delegators.
//!
//! A runner paid `p` for a job keeps `p − share` and its delegators get `share = ⌊p × D /
//! (S + D)⌋` (own stake `S`, delegated `D`), pro rata to what each delegates. Paying every
//! delegator at once would cost one write per delegator; instead the share goes into the
//! runner's `delegator_rewards` (held in the registry's account) and raises its
//! `reward_per_share` by `⌊share × REWARD_SCALE / D⌋`, and each delegation settles what it is
//! owed — `⌊amount × reward_per_share / REWARD_SCALE⌋ − reward_debt` — whenever its amount
//! changes or it withdraws. So a payment costs one record write whatever the number of
//! delegators.
//!
//! Every quantity is a whole base unit: the floors leave at most a few base units per payment
//! in `delegator_rewards` that nobody claims, and a claim is capped at what the pool holds, so
//! the registry never pays out more than it was paid.

use crate::native::NativeHost;
use crypto_bigint::{Encoding, U256};
use drover_state::runner::{Delegation, REWARD_SCALE, RunnerRecord};
use drover_types::{Address, job::JOB_DISPATCHER_ADDRESS, runner::RUNNER_REGISTRY_ADDRESS};
use drover_vm::HostError;

/// `⌊a × b / c⌋` exactly (a 256-bit product), or `None` when `c` is zero or the quotient does
/// not fit in 128 bits.
pub(crate) fn mul_div(a: u128, b: u128, c: u128) -> Option<u128> {
    if c == 0 {
        return None;
    }
    let product = U256::from_u128(a).saturating_mul(&U256::from_u128(b));
    let quotient = product.wrapping_div(&U256::from_u128(c));
    let (high, low) = quotient.split();
    (high == crypto_bigint::U128::ZERO).then(|| u128::from_be_bytes(low.to_be_bytes()))
}

/// What of a payment of `amount` to `record` goes to its delegators.
pub(crate) fn delegators_share(record: &RunnerRecord, amount: u128) -> u128 {
    let total = record.stake.saturating_add(record.delegated_stake);
    mul_div(amount, record.delegated_stake, total).unwrap_or(0)
}

/// Pays `runner` (record `record`, saved by the caller) `amount` from the dispatcher's account:
/// its delegators' share into the registry's pool, the rest to the runner.
pub(crate) fn pay<H: NativeHost>(
    host: &mut H,
    runner: &Address,
    record: &mut RunnerRecord,
    amount: u128,
) -> Result<(), HostError> {
    let share = delegators_share(record, amount);
    if share > 0 {
        let per_share = mul_div(share, REWARD_SCALE, record.delegated_stake).unwrap_or(0);
        record.reward_per_share = record.reward_per_share.saturating_add(per_share);
        record.delegator_rewards =
            record.delegator_rewards.checked_add(share).ok_or_else(|| HostError::internal("rewards overflow"))?;
        host.move_value(&JOB_DISPATCHER_ADDRESS, &RUNNER_REGISTRY_ADDRESS, share)?;
    }
    host.move_value(&JOB_DISPATCHER_ADDRESS, runner, amount - share)
}

/// Moves what `delegation` has earned since it was last settled into its `rewards`; call before
/// its amount changes, and set its debt after with [`reset_debt`].
pub(crate) fn settle(delegation: &mut Delegation, record: &RunnerRecord) {
    let accrued = mul_div(delegation.amount, record.reward_per_share, REWARD_SCALE).unwrap_or(u128::MAX);
    delegation.rewards = delegation.rewards.saturating_add(accrued.saturating_sub(delegation.reward_debt));
    reset_debt(delegation, record);
}

/// What `withdraw` would pay `delegation` in rewards now: what is settled plus what accrued
/// since, capped at what the runner's pool holds.
pub fn claimable(delegation: &Delegation, record: &RunnerRecord) -> u128 {
    let mut settled = delegation.clone();
    settle(&mut settled, record);
    settled.rewards.min(record.delegator_rewards)
}

/// Marks everything accrued to `delegation`'s current amount as settled.
pub(crate) fn reset_debt(delegation: &mut Delegation, record: &RunnerRecord) {
    delegation.reward_debt = mul_div(delegation.amount, record.reward_per_share, REWARD_SCALE).unwrap_or(u128::MAX);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_div_is_exact_where_u128_would_overflow() {
        assert_eq!(mul_div(u128::MAX, u128::MAX, u128::MAX), Some(u128::MAX));
        assert_eq!(mul_div(u128::MAX, 2, 1), None);
        assert_eq!(mul_div(7, 3, 2), Some(10));
        assert_eq!(mul_div(1, 1, 0), None);
        assert_eq!(mul_div(10u128.pow(30), REWARD_SCALE, 10u128.pow(12)), Some(10u128.pow(36)));
    }
}
