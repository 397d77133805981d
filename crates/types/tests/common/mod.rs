//! Reading the docs pages the doc tests hold the code to: a page, one of its `## ` sections, and
//! the rows of that section's table.

use std::path::Path;

/// `docs/{name}`, whole.
pub(crate) fn page(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rows of the table under `## {heading}` in `docs/{name}` whose first cell starts with
/// `first`, each split into its `cells` trimmed cells (a row of another length fails).
pub(crate) fn table_rows(name: &str, heading: &str, first: &str, cells: usize) -> Vec<Vec<String>> {
    let doc = page(name);
    let section = doc
        .split(&format!("\n## {heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("docs/{name} has a {heading:?} section"));
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|line| line.starts_with(&format!("| {first}")))
        .map(|line| {
            let row: Vec<String> = line.trim_matches('|').split(" | ").map(|cell| cell.trim().to_owned()).collect();
            assert_eq!(row.len(), cells, "a row of docs/{name} ({heading}) has {cells} cells: {line}");
            row
        })
        .collect()
}
