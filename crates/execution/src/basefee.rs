//! The basefee update: an EIP-1559 controller per meter, in exact integer arithmetic.
//!
//! After a block that used `U` of a meter whose target is `T`, that meter's basefee `b` becomes
//!
//! ```text
//! b' = max(min_basefee, b + Δ)      Δ = b × clamp((U − T) / (8T), −1/8, +1/8)
//! ```
//!
//! Rounding: `|Δ|` is rounded down (towards no change), except that it is at least 1 whenever the
//! block is off target: a block above target raises the basefee by at least 1, so that a basefee
//! at its floor (or any small value, where `b/8 < 1`) can still climb under sustained demand, and
//! a block below target lowers it by at least 1 (never below `min_basefee`), so that a basefee
//! below 8, where `⌊b/8⌋ = 0`, still falls back to its floor once demand goes: from any value,
//! empty blocks bring it down to the floor. A block exactly at target leaves it unchanged. The product `b × |U − T|` can exceed 128 bits, so it is formed in 192 bits and
//! divided exactly; the result never overflows because `|Δ| ≤ b/8`, and `b + Δ` saturates at
//! `u128::MAX`. With `T = 0` (refused by [`FeeParams::validate`](crate::FeeParams::validate) but
//! still defined) any use counts as the maximal deviation.

use crate::FeeParams;
use drover_state::Basefees;
use std::cmp::Ordering;

/// Denominator of the largest per-block change: a basefee moves by at most 1/8 per block.
pub const BASEFEE_MAX_CHANGE_DENOMINATOR: u64 = 8;

/// The basefee of one meter for the block after one that used `used` against `target`.
pub fn next_basefee(basefee: u128, used: u64, target: u64, min_basefee: u128) -> u128 {
    // Clamping the ratio to ±1/8 is clamping |U − T| to T.
    let (deviation, scale) = match target {
        0 => (u64::from(used > 0), 1),
        _ => (used.abs_diff(target).min(target), target),
    };
    let change = scaled_fraction(basefee, deviation, scale);
    let next = match used.cmp(&target) {
        Ordering::Greater => basefee.saturating_add(change.max(1)),
        Ordering::Less => basefee.saturating_sub(change.max(1)),
        Ordering::Equal => basefee,
    };
    next.max(min_basefee)
}

/// Both basefees for the block after one that used `cycles_used` and `cells_used`.
pub fn next_basefees(params: &FeeParams, current: Basefees, cycles_used: u64, cells_used: u64) -> Basefees {
    Basefees {
        cycle: next_basefee(current.cycle, cycles_used, params.target_cycles, params.min_basefee_cycle),
        cell: next_basefee(current.cell, cells_used, params.target_cells, params.min_basefee_cell),
    }
}

/// `⌊value × deviation / (8 × target)⌋` for `target > 0` and `deviation ≤ target`, so the result
/// is at most `value / 8`.
fn scaled_fraction(value: u128, deviation: u64, target: u64) -> u128 {
    let divisor = u128::from(target) * u128::from(BASEFEE_MAX_CHANGE_DENOMINATOR);
    let deviation = u128::from(deviation);
    // value × deviation as a 192-bit number `high · 2^128 + low`.
    let low_product = (value & u128::from(u64::MAX)) * deviation;
    let high_product = (value >> 64) * deviation;
    let (low, carry) = low_product.overflowing_add(high_product << 64);
    let high = (high_product >> 64) + u128::from(carry);
    // Schoolbook binary division. The remainder stays below the divisor (< 2^67), so shifting it
    // left by one bit cannot overflow; the quotient fits because it is at most value / 8.
    let mut remainder = 0u128;
    let mut quotient = 0u128;
    for bit in (0..192u32).rev() {
        let next = if bit >= 128 { (high >> (bit - 128)) & 1 } else { (low >> bit) & 1 };
        remainder = (remainder << 1) | next;
        quotient <<= 1;
        if remainder >= divisor {
            remainder -= divisor;
            quotient |= 1;
        }
    }
    quotient
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u64 = 10_000_000;

    #[test]
    fn full_block_raises_by_an_eighth_and_empty_block_lowers_by_an_eighth() {
        assert_eq!(next_basefee(800, 2 * T, T, 1), 900);
        assert_eq!(next_basefee(800, 0, T, 1), 700);
    }

    #[test]
    fn partial_deviation_is_proportional_and_rounds_towards_no_change() {
        // +25% of target: Δ = 1000 × 0.25 / 8 = 31.25 → 31.
        assert_eq!(next_basefee(1_000, T + T / 4, T, 1), 1_031);
        // −25% of target: Δ = −31.25 → −31.
        assert_eq!(next_basefee(1_000, T - T / 4, T, 1), 969);
    }

    #[test]
    fn at_target_is_unchanged() {
        assert_eq!(next_basefee(12_345, T, T, 1), 12_345);
    }

    #[test]
    fn change_is_clamped_to_an_eighth() {
        assert_eq!(next_basefee(800, 5 * T, T, 1), 900);
        assert_eq!(next_basefee(800, u64::MAX, T, 1), 900);
    }

    #[test]
    fn small_basefees_still_rise() {
        assert_eq!(next_basefee(1, T + 1, T, 1), 2);
        assert_eq!(next_basefee(7, 2 * T, T, 1), 8);
        assert_eq!(next_basefee(0, T + 1, T, 0), 1);
        let mut basefee = 1;
        for _ in 0..40 {
            basefee = next_basefee(basefee, 2 * T, T, 1);
        }
        assert!(basefee > 40, "{basefee}");
    }

    #[test]
    fn empty_blocks_bring_any_basefee_back_to_its_floor() {
        // The basefees through 30 empty blocks, until one leaves it unchanged.
        let fall = |mut basefee: u128, min: u128| {
            let mut path = vec![basefee];
            for _ in 0..30 {
                basefee = next_basefee(basefee, 0, T, min);
                if path.last() == Some(&basefee) {
                    break;
                }
                path.push(basefee);
            }
            path
        };
        // Below 8 an eighth rounds to 0: each empty block still takes 1 off.
        assert_eq!(fall(7, 1), [7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(fall(8, 1), [8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(fall(20, 1), [20, 18, 16, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(fall(7, 3), [7, 6, 5, 4, 3]);
        assert_eq!(next_basefee(1, 0, T, 1), 1, "the floor holds");
        assert_eq!(next_basefee(0, 0, T, 0), 0);
        // A block a little below target lowers a small basefee by 1 too, mirroring the rise.
        assert_eq!(next_basefee(7, T - 1, T, 1), 6);
        assert_eq!(next_basefee(7, T + 1, T, 1), 8);
    }

    #[test]
    fn never_falls_below_the_minimum() {
        assert_eq!(next_basefee(1, 0, T, 1), 1);
        assert_eq!(next_basefee(100, 0, T, 95), 95);
        // A stored basefee under a raised minimum is lifted to it.
        assert_eq!(next_basefee(3, T, T, 10), 10);
    }

    #[test]
    fn extreme_values_neither_overflow_nor_lose_precision() {
        assert_eq!(next_basefee(u128::MAX, 2 * T, T, 1), u128::MAX);
        assert_eq!(next_basefee(u128::MAX, 0, T, 1), u128::MAX - u128::MAX / 8);
        assert_eq!(next_basefee(u128::MAX, 0, u64::MAX, 1), u128::MAX - u128::MAX / 8);
    }

    #[test]
    fn zero_target_treats_any_use_as_maximal() {
        assert_eq!(next_basefee(800, 1, 0, 1), 900);
        assert_eq!(next_basefee(800, 0, 0, 1), 800);
    }

    #[test]
    fn scaled_fraction_matches_direct_arithmetic() {
        let values = [0u128, 1, 7, 8, 999, u64::MAX as u128, (u64::MAX as u128) << 3];
        let targets = [1u64, 3, 8, 21_000, T, u32::MAX as u64];
        for value in values {
            for target in targets {
                for deviation in [0, 1, target / 3, target / 2, target] {
                    let expected = value * u128::from(deviation) / (8 * u128::from(target));
                    assert_eq!(scaled_fraction(value, deviation, target), expected, "{value} {deviation} {target}");
                }
            }
        }
    }

    #[test]
    fn scaled_fraction_is_exact_beyond_128_bits() {
        // (2^127 + 1) × (2^63) / (8 × 2^63) = (2^127 + 1) / 8, exactly.
        let value = (1u128 << 127) + 1;
        assert_eq!(scaled_fraction(value, 1 << 63, 1 << 63), value / 8);
        assert_eq!(scaled_fraction(u128::MAX, u64::MAX, u64::MAX), u128::MAX / 8);
        // u128::MAX × 3 / 24 = u128::MAX / 8.
        assert_eq!(scaled_fraction(u128::MAX, 3, 3), u128::MAX / 8);
        // u128::MAX × 1 / 16 with a target of 2.
        assert_eq!(scaled_fraction(u128::MAX, 1, 2), u128::MAX / 16);
    }

    #[test]
    fn both_meters_update_independently() {
        let params = FeeParams::default();
        let current = Basefees { cycle: 800, cell: 800 };
        let next = next_basefees(&params, current, params.block_limit_cycles(), 0);
        assert_eq!(next, Basefees { cycle: 900, cell: 700 });
    }
}
