//! `docs/governance.md` ("Parameters") must list exactly the chain parameters of
//! `drover_types::chain_params::PARAMS`, in their order, each with its default and bounds.
//!
//! The page writes values for readers: `10,000,000`, `1 DRV`, `0.01 DRV`, `1 base unit`,
//! `64 KiB`, `1 MiB`; each is read back into base units or bytes and compared with the code.

mod common;

use drover_types::chain_params::PARAMS;
use drover_types::params::BASE_UNITS_PER_DRV;

/// A row of the table: name, default, min, max (as written).
type Row = (String, String, String, String);

fn documented() -> Vec<Row> {
    common::table_rows("governance.md", "Parameters", "`", 5)
        .into_iter()
        .map(|row| (row[0].trim_matches('`').to_owned(), row[1].clone(), row[2].clone(), row[3].clone()))
        .collect()
}

/// The value a cell writes, in base units or bytes.
fn value(cell: &str) -> u128 {
    let (number, unit) = cell.split_once(' ').unwrap_or((cell, ""));
    let number = number.replace(',', "");
    let (whole, fraction) = number.split_once('.').unwrap_or((&number, ""));
    let whole: u128 = whole.parse().unwrap_or_else(|e| panic!("{cell:?}: {e}"));
    let scale = match unit {
        "" | "base unit" | "base units" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "DRV" => BASE_UNITS_PER_DRV,
        other => panic!("{cell:?}: unknown unit {other:?}"),
    };
    let fraction_value = if fraction.is_empty() {
        0
    } else {
        let digits: u128 = fraction.parse().unwrap_or_else(|e| panic!("{cell:?}: {e}"));
        let denominator = 10u128.pow(u32::try_from(fraction.len()).expect("a short fraction"));
        assert_eq!(digits * scale % denominator, 0, "{cell:?} is not a whole number of base units");
        digits * scale / denominator
    };
    whole * scale + fraction_value
}

#[test]
fn the_page_lists_every_chain_parameter_with_its_default_and_bounds() {
    let rows = documented();
    let names: Vec<&str> = rows.iter().map(|(name, ..)| name.as_str()).collect();
    let params: Vec<&str> = PARAMS.iter().map(|param| param.name).collect();
    assert_eq!(names, params, "the parameters, in the order of `chain_params!`");
    for ((name, default, min, max), param) in rows.iter().zip(PARAMS) {
        assert_eq!(value(default), param.default, "the default of {name} ({default})");
        assert_eq!(value(min), param.min, "the least value of {name} ({min})");
        assert_eq!(value(max), param.max, "the greatest value of {name} ({max})");
    }
}

#[test]
fn values_are_read_as_the_page_writes_them() {
    assert_eq!(value("10,000,000"), 10_000_000);
    assert_eq!(value("1 base unit"), 1);
    assert_eq!(value("0.01 DRV"), BASE_UNITS_PER_DRV / 100);
    assert_eq!(value("1,000 DRV"), 1_000 * BASE_UNITS_PER_DRV);
    assert_eq!(value("64 KiB"), 65_536);
    assert_eq!(value("1 MiB"), 1_048_576);
}
