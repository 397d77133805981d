//! `docs/errors.md` must list every registered API error code and E-code.

use drover_types::{ErrorCode, exec_error::ExecCode};

#[test]
fn errors_doc_lists_every_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/errors.md");
    let doc = std::fs::read_to_string(path).expect("docs/errors.md is readable");
    for code in ErrorCode::ALL {
        let row = format!("| {} | `{}` | {} |", code.code(), code.name(), code.http_status());
        assert!(doc.contains(&row), "docs/errors.md lacks {row}");
    }
    for code in ExecCode::ALL {
        assert!(doc.contains(&format!("| {} |", code.as_str())), "docs/errors.md lacks {code}");
    }
}
