//! Native amounts as people type and read them.
//!
//! The API counts in base units (1 DRV = 10^9 base units). Input is either a plain integer of
//! base units (`1500`) or a decimal number of whole DRV with a `drv` suffix (`1.5drv`,
//! `2 DRV`). Parsing is exact integer arithmetic: a DRV amount with more than nine decimal
//! places, or one that does not fit a `u128`, is refused rather than rounded.

use drover_types::params::{BASE_UNITS_PER_DRV, DRV_DECIMALS};

/// Suffix marking an amount in whole DRV (matched case-insensitively).
const DRV_SUFFIX: &str = "drv";

/// Why a string is not an amount.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    /// The input is empty or only whitespace.
    #[error("empty amount")]
    Empty,
    /// Neither base units nor a DRV amount; the input.
    #[error("invalid amount {0:?}: expected base units (e.g. 1500) or DRV with a suffix (e.g. 1.5drv)")]
    Malformed(String),
    /// A DRV amount with more than nine decimal places; the input.
    #[error("invalid amount {0:?}: DRV amounts have at most 9 decimal places")]
    TooPrecise(String),
    /// The amount does not fit a `u128` of base units; the input.
    #[error("amount {0:?} is too large")]
    Overflow(String),
}

/// Parses base units (`"1500"`) or DRV (`"1.5drv"`, `"2 DRV"`, `".25drv"`) into base units.
pub fn parse_amount(input: &str) -> Result<u128, AmountError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(AmountError::Empty);
    }
    let malformed = || AmountError::Malformed(input.to_owned());
    let Some(number) = strip_suffix_ignore_case(trimmed, DRV_SUFFIX) else {
        return parse_digits(trimmed).ok_or_else(|| overflow_or(trimmed, input, malformed()));
    };
    scaled(number.trim_end(), DRV_DECIMALS, input)
}

/// `number` (`"1.5"`, `".25"`, `"3."`, `"7"`) of whole units with `decimals` decimal places, in
/// base units: exact, or an error naming `input`.
fn scaled(number: &str, decimals: usize, input: &str) -> Result<u128, AmountError> {
    let malformed = || AmountError::Malformed(input.to_owned());
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(malformed());
    }
    if fraction.len() > decimals {
        if all_digits(fraction) {
            return Err(AmountError::TooPrecise(input.to_owned()));
        }
        return Err(malformed());
    }
    let whole_units =
        if whole.is_empty() { 0 } else { parse_digits(whole).ok_or_else(|| overflow_or(whole, input, malformed()))? };
    let overflow = || AmountError::Overflow(input.to_owned());
    let unit = u32::try_from(decimals).ok().and_then(|d| 10u128.checked_pow(d)).ok_or_else(overflow)?;
    let fraction_units = if fraction.is_empty() {
        0
    } else {
        // Right-pad to `decimals` digits: "5" after the point of a 9-decimal unit is 500_000_000.
        let scale = 10u128.pow(u32::try_from(decimals - fraction.len()).map_err(|_| malformed())?);
        parse_digits(fraction).ok_or_else(malformed)?.checked_mul(scale).ok_or_else(malformed)?
    };
    whole_units.checked_mul(unit).and_then(|units| units.checked_add(fraction_units)).ok_or_else(overflow)
}

/// Parses a token amount: base units (`"1500"`), or whole tokens with the token's `decimals`
/// when written with a decimal point (`"1.5"`) or the token's symbol as a suffix (`"2GLD"`,
/// `"0.5 gld"`).
pub fn parse_token_amount(input: &str, symbol: &str, decimals: u8) -> Result<u128, AmountError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(AmountError::Empty);
    }
    let whole_tokens = strip_suffix_ignore_case(trimmed, symbol).filter(|_| !symbol.is_empty());
    match whole_tokens {
        Some(number) => scaled(number.trim_end(), usize::from(decimals), input),
        None if trimmed.contains('.') => scaled(trimmed, usize::from(decimals), input),
        None => {
            parse_digits(trimmed).ok_or_else(|| overflow_or(trimmed, input, AmountError::Malformed(input.to_owned())))
        }
    }
}

/// Formats base units of a token with `decimals` places and only the significant decimals:
/// `1.5 GLD`.
pub fn format_token(base_units: u128, decimals: u8, symbol: &str) -> String {
    let unit = 10u128.pow(u32::from(decimals));
    let (whole, fraction) = (base_units / unit, base_units % unit);
    if fraction == 0 {
        return format!("{whole} {symbol}");
    }
    let digits = format!("{fraction:0width$}", width = usize::from(decimals));
    format!("{whole}.{} {symbol}", digits.trim_end_matches('0'))
}

/// Formats base units as DRV with only the significant decimals: `1.5 DRV`, `0.000000001 DRV`.
pub fn format_drv(base_units: u128) -> String {
    let whole = base_units / BASE_UNITS_PER_DRV;
    let fraction = base_units % BASE_UNITS_PER_DRV;
    if fraction == 0 {
        return format!("{whole} DRV");
    }
    let digits = format!("{fraction:0width$}", width = DRV_DECIMALS);
    format!("{whole}.{} DRV", digits.trim_end_matches('0'))
}

fn strip_suffix_ignore_case<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let at = s.len().checked_sub(suffix.len())?;
    s.get(at..).filter(|tail| tail.eq_ignore_ascii_case(suffix))?;
    s.get(..at)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// ASCII digits only (no sign, no separators) into a `u128`.
fn parse_digits(s: &str) -> Option<u128> {
    if !all_digits(s) {
        return None;
    }
    s.parse().ok()
}

/// Distinguishes "too many digits" from "not a number" once [`parse_digits`] has failed.
fn overflow_or(digits: &str, input: &str, otherwise: AmountError) -> AmountError {
    if all_digits(digits) { AmountError::Overflow(input.to_owned()) } else { otherwise }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_base_units() {
        assert_eq!(parse_amount("0"), Ok(0));
        assert_eq!(parse_amount("1500"), Ok(1500));
        assert_eq!(parse_amount(" 42\n"), Ok(42));
        assert_eq!(parse_amount(&u128::MAX.to_string()), Ok(u128::MAX));
    }

    #[test]
    fn parses_drv_exactly() {
        assert_eq!(parse_amount("1drv"), Ok(1_000_000_000));
        assert_eq!(parse_amount("1.5drv"), Ok(1_500_000_000));
        assert_eq!(parse_amount("1.5 DRV"), Ok(1_500_000_000));
        assert_eq!(parse_amount("0.000000001drv"), Ok(1));
        assert_eq!(parse_amount(".25Drv"), Ok(250_000_000));
        assert_eq!(parse_amount("3.drv"), Ok(3_000_000_000));
        assert_eq!(parse_amount("007.100drv"), Ok(7_100_000_000));
        assert_eq!(parse_amount("123456789.987654321drv"), Ok(123_456_789_987_654_321));
    }

    #[test]
    fn refuses_bad_amounts() {
        assert_eq!(parse_amount(""), Err(AmountError::Empty));
        assert_eq!(parse_amount("   "), Err(AmountError::Empty));
        for bad in [
            "drv", ".drv", "-1", "+1", "1.5", "1e9", "1_000", "0x10", "1.5eth", "1.2.3drv", "1,5drv", "1.-5drv", "abc",
            "1 000", "drv1", "1.5drvx", "１drv", "1.+5drv",
        ] {
            assert!(matches!(parse_amount(bad), Err(AmountError::Malformed(_))), "{bad:?}: {:?}", parse_amount(bad));
        }
        assert_eq!(parse_amount("0.0000000001drv"), Err(AmountError::TooPrecise("0.0000000001drv".into())));
        assert_eq!(parse_amount("1.1234567890drv"), Err(AmountError::TooPrecise("1.1234567890drv".into())));
    }

    #[test]
    fn token_amounts_in_base_units_or_whole_tokens() {
        assert_eq!(parse_token_amount("1500", "GLD", 18), Ok(1500));
        assert_eq!(parse_token_amount("1.5", "GLD", 18), Ok(1_500_000_000_000_000_000));
        assert_eq!(parse_token_amount("2GLD", "GLD", 2), Ok(200));
        assert_eq!(parse_token_amount("0.5 gld", "GLD", 2), Ok(50));
        assert_eq!(parse_token_amount("7", "GLD", 0), Ok(7));
        assert_eq!(parse_token_amount("3GLD", "GLD", 36), Ok(3 * 10u128.pow(36)));
        assert_eq!(parse_token_amount("1.25", "GLD", 1), Err(AmountError::TooPrecise("1.25".into())));
        assert_eq!(parse_token_amount("1.5", "GLD", 0), Err(AmountError::TooPrecise("1.5".into())));
        assert!(matches!(parse_token_amount("400GLD", "GLD", 36), Err(AmountError::Overflow(_))));
        for bad in ["", "GLD", "-1", "1.5SLV", "1e3", "0x10"] {
            assert!(parse_token_amount(bad, "GLD", 18).is_err(), "{bad:?}");
        }
        assert_eq!(format_token(1_500, 3, "GLD"), "1.5 GLD");
        assert_eq!(format_token(2_000, 3, "GLD"), "2 GLD");
        assert_eq!(format_token(7, 0, "GLD"), "7 GLD");
    }

    #[test]
    fn refuses_overflow() {
        let too_big = format!("{}0", u128::MAX);
        assert_eq!(parse_amount(&too_big), Err(AmountError::Overflow(too_big.clone())));
        let max_drv = u128::MAX / BASE_UNITS_PER_DRV;
        assert_eq!(parse_amount(&format!("{max_drv}drv")), Ok(max_drv * BASE_UNITS_PER_DRV));
        let over = format!("{}drv", max_drv + 1);
        assert_eq!(parse_amount(&over), Err(AmountError::Overflow(over.clone())));
        let over_by_fraction = format!("{max_drv}.999999999drv");
        assert_eq!(parse_amount(&over_by_fraction), Err(AmountError::Overflow(over_by_fraction.clone())));
    }

    #[test]
    fn formats_drv() {
        assert_eq!(format_drv(0), "0 DRV");
        assert_eq!(format_drv(1), "0.000000001 DRV");
        assert_eq!(format_drv(1_500_000_000), "1.5 DRV");
        assert_eq!(format_drv(2_000_000_000), "2 DRV");
        for units in [0, 1, 10, 999_999_999, 1_000_000_001, 123_456_789_987_654_321, u128::MAX] {
            let shown = format_drv(units);
            let typed = shown.trim_end_matches(" DRV").to_owned() + "drv";
            assert_eq!(parse_amount(&typed), Ok(units), "{shown}");
        }
    }
}
