//! `docs/actors.md` must document every host function and every limit with its value.

use drover_vm::{abi::HOST_FUNCTIONS, limits::*};

fn doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/actors.md");
    std::fs::read_to_string(path).expect("docs/actors.md is readable")
}

/// `1234567` as the page writes it: `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn every_host_function_has_a_row() {
    let doc = doc();
    for f in HOST_FUNCTIONS {
        assert!(doc.contains(&format!("| `{}` |", f.name)), "docs/actors.md lacks {}", f.name);
    }
}

#[test]
fn every_limit_has_its_value() {
    let doc = doc();
    let limits: &[(&str, u64)] = &[
        ("MAX_CODE_BYTES", MAX_CODE_BYTES as u64),
        ("MAX_MEMORY_PAGES", MAX_MEMORY_PAGES),
        ("MAX_TABLES", MAX_TABLES.into()),
        ("MAX_TABLE_ELEMENTS", MAX_TABLE_ELEMENTS),
        ("MAX_FUNCTIONS", MAX_FUNCTIONS.into()),
        ("MAX_LOCALS_PER_FUNCTION", MAX_LOCALS_PER_FUNCTION.into()),
        ("MAX_GLOBALS", MAX_GLOBALS.into()),
        ("MAX_EXPORTS", MAX_EXPORTS.into()),
        ("MAX_HANDLER_NAME_BYTES", MAX_HANDLER_NAME_BYTES as u64),
        ("MAX_WASM_RECURSION_DEPTH", MAX_WASM_RECURSION_DEPTH as u64),
        ("MAX_VALUE_STACK_BYTES", MAX_VALUE_STACK_BYTES as u64),
        ("MAX_CALL_DEPTH", MAX_CALL_DEPTH.into()),
        ("MAX_PAYLOAD_BYTES", MAX_PAYLOAD_BYTES as u64),
        ("MAX_RESULT_BYTES", MAX_RESULT_BYTES as u64),
        ("MAX_REVERT_REASON_BYTES", MAX_REVERT_REASON_BYTES as u64),
        ("MAX_STORAGE_KEY_BYTES", MAX_STORAGE_KEY_BYTES as u64),
        ("MAX_STORAGE_VALUE_BYTES", MAX_STORAGE_VALUE_BYTES as u64),
        ("MAX_EVENT_TOPIC_BYTES", MAX_EVENT_TOPIC_BYTES as u64),
        ("MAX_EVENT_DATA_BYTES", MAX_EVENT_DATA_BYTES as u64),
        ("MAX_ATTACHED_CYCLES", MAX_ATTACHED_CYCLES),
        ("DEFAULT_MODULE_CACHE_ENTRIES", DEFAULT_MODULE_CACHE_ENTRIES as u64),
    ];
    for (name, value) in limits {
        let row = format!("| `{name}` | {}", grouped(*value));
        assert!(doc.contains(&row), "docs/actors.md lacks {row}");
    }
}
