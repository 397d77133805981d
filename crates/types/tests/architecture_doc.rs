//! `docs/architecture.md` ("Crates and what they may import") must give every crate of the
//! workspace with exactly the Drover crates its manifest depends on (tests' dependencies
//! included), and list each crate above every crate it imports.

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The table's rows, top to bottom: a crate and the crates it imports.
fn documented() -> Vec<(String, BTreeSet<String>)> {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/architecture.md")).expect("docs/architecture.md");
    let section = doc
        .split("\n## Crates and what they may import\n")
        .nth(1)
        .expect("docs/architecture.md has a \"Crates and what they may import\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let names = |cell: &str| -> Vec<String> {
        cell.split('`').skip(1).step_by(2).filter(|name| !name.contains(' ')).map(str::to_owned).collect()
    };
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 3, "a row is crate | holds | imports: {line}");
            let name = names(cells[0]).into_iter().next().expect("a crate name");
            (name, names(cells[2]).into_iter().collect())
        })
        .collect()
}

/// The Drover crates the manifest of `crates/<name>` depends on.
fn manifest_imports(name: &str) -> BTreeSet<String> {
    let path = Path::new(ROOT).join("crates").join(name).join("Cargo.toml");
    let manifest = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut section = String::new();
    let mut imports = BTreeSet::new();
    for line in manifest.lines() {
        if line.starts_with('[') {
            section = line.to_owned();
        } else if (section == "[dependencies]" || section == "[dev-dependencies]") && line.starts_with("drover-") {
            let dependency = line.split(['.', ' ', '=']).next().unwrap_or_default();
            let dependency = dependency.trim_start_matches("drover-");
            if dependency != name {
                imports.insert(dependency.to_owned());
            }
        }
    }
    imports
}

#[test]
fn the_crate_table_matches_the_manifests_and_imports_only_run_downwards() {
    let rows = documented();
    let crates_dir = Path::new(ROOT).join("crates");
    let mut members: Vec<String> = std::fs::read_dir(&crates_dir)
        .expect("crates/")
        .map(|entry| entry.expect("an entry of crates/").file_name().to_string_lossy().into_owned())
        .filter(|name| crates_dir.join(name).join("Cargo.toml").exists())
        .collect();
    members.sort();
    let mut listed: Vec<String> = rows.iter().map(|(name, _)| name.clone()).collect();
    listed.sort();
    assert_eq!(listed, members, "one row per crate of crates/");
    for (position, (name, imports)) in rows.iter().enumerate() {
        assert_eq!(imports, &manifest_imports(name), "the imports of {name}");
        for import in imports {
            let below = rows[position + 1..].iter().any(|(other, _)| other == import);
            assert!(below, "{name} imports {import}, which is not listed below it");
        }
    }
}
