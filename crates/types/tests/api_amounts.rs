//! Amounts in the API's JSON follow one rule (`drover_types::api::encoding`, after DESIGN's
//! "JSON"): a native amount is a JSON integer, a token amount, a basefee value or a governance
//! parameter's value a decimal string. The records are read from their sources, so a new field
//! written as a decimal string fails here unless it is one of those; and a native amount above
//! 2^64 goes through JSON intact.

use drover_types::Address;
use drover_types::api::{DelegationInfo, RunnerInfo, UnbondingInfo, VoteInfo};
use std::collections::BTreeSet;
use std::path::Path;

/// The `(record, field)`s that are decimal strings: token amounts and governance parameters.
const DECIMAL_FIELDS: &[(&str, &str)] = &[
    ("ParamInfo", "default"),
    ("ParamInfo", "max"),
    ("ParamInfo", "min"),
    ("ParamInfo", "value"),
    ("TokenAllowance", "allowance"),
    ("TokenAmount", "amount"),
    ("TokenBalance", "balance"),
    ("TokenHolding", "balance"),
    ("TokenInfo", "max_supply"),
    ("TokenInfo", "supply"),
];

/// Every `u128` field of the API records, by record, and whether it is written as a decimal
/// string (`decimal_u128` or `opt_decimal_u128`, or documented as `String`).
fn u128_fields() -> Vec<(String, String, bool)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api");
    let mut fields = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("src/api") {
        let path = entry.expect("an entry").path();
        let source = std::fs::read_to_string(&path).expect("a source file");
        let (mut record, mut attributes) = (String::new(), String::new());
        for line in source.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("pub struct ") {
                record = rest.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("").to_owned();
            }
            if line.starts_with("#[") {
                attributes.push_str(line);
                continue;
            }
            if let Some(field) = line.strip_prefix("pub ")
                && let Some((name, kind)) = field.split_once(": ")
                && (kind.starts_with("u128") || kind.starts_with("Option<u128>"))
            {
                let decimal = attributes.contains("decimal_u128") || attributes.contains("value_type = String");
                fields.push((record.clone(), name.to_owned(), decimal));
            }
            if !line.starts_with("///") {
                attributes.clear();
            }
        }
    }
    fields
}

#[test]
fn only_token_amounts_and_parameters_are_decimal_strings() {
    let fields = u128_fields();
    assert!(fields.len() > 40, "the scan found the records' amounts ({})", fields.len());
    let decimal: BTreeSet<(&str, &str)> =
        fields.iter().filter(|(_, _, decimal)| *decimal).map(|(r, f, _)| (r.as_str(), f.as_str())).collect();
    let expected: BTreeSet<(&str, &str)> = DECIMAL_FIELDS.iter().copied().collect();
    assert_eq!(decimal, expected, "a native amount is a bare u128 (a JSON integer); see api/encoding.rs");
    for native in ["stake", "delegated_stake", "amount", "escrow", "max_price", "votes_for", "deposit", "weight"] {
        assert!(fields.iter().any(|(_, f, decimal)| f == native && !decimal), "{native} is scanned as native");
    }
}

#[test]
fn native_amounts_above_2_pow_64_are_json_integers_both_ways() {
    let big = u128::MAX;
    let runner: RunnerInfo = serde_json::from_value(serde_json::json!({
        "address": Address([1; 20]).to_hex(), "stake": 5, "delegated_stake": 0,
        "rate_card": {"price_per_job": 7}, "capabilities": {"job_types": [], "max_concurrent_jobs": 1},
        "health": "healthy", "registered_height": 1, "last_heartbeat_height": 1, "reputation": 50,
        "active_jobs": 0, "unbonding": [],
    }))
    .expect("integers are read");
    let runner = RunnerInfo { stake: big, delegated_stake: big - 1, ..runner };
    let text = serde_json::to_string(&runner).unwrap();
    assert!(text.contains(&format!("\"stake\":{big},\"delegated_stake\":{}", big - 1)), "{text}");
    assert_eq!(serde_json::from_str::<RunnerInfo>(&text).unwrap(), runner);

    let delegation = DelegationInfo {
        runner: Address([2; 20]),
        amount: big,
        since_height: 3,
        pending: vec![UnbondingInfo { amount: 1 << 70, release_height: 9 }],
        rewards: 0,
    };
    // Text, not `serde_json::Value`, whose numbers stop at 2^64.
    let text = serde_json::to_string(&delegation).unwrap();
    assert!(text.contains(&format!("\"amount\":{big},")) && text.contains(&format!("\"amount\":{},", 1u128 << 70)));
    assert_eq!(serde_json::from_str::<DelegationInfo>(&text).unwrap(), delegation);
    let vote = VoteInfo { voter: Address([3; 20]), support: true, weight: 5, height: 4 };
    let mut json = serde_json::to_value(&vote).unwrap();
    assert_eq!(json["weight"], serde_json::json!(5));
    // A decimal string is no longer a native amount.
    json["weight"] = serde_json::json!("5");
    assert!(serde_json::from_value::<VoteInfo>(json).is_err());
}
