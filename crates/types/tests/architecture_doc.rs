//! `docs/architecture.md` ("Crates and what they may import") must give every crate of the
//! workspace with exactly the Drover crates its manifest depends on (tests' dependencies
//! included), and list each crate above every crate it imports; and its counts of what a new
//! endpoint family or route touches ("Adding an endpoint family", "Adding a route") must be the
//! lengths of the lists they count.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The table's rows, top to bottom: a crate and the crates it imports.
fn documented() -> Vec<(String, BTreeSet<String>)> {
    let names = |cell: &str| -> Vec<String> {
        cell.split('`').skip(1).step_by(2).filter(|name| !name.contains(' ')).map(str::to_owned).collect()
    };
    common::table_rows("architecture.md", "Crates and what they may import", "`", 3)
        .iter()
        .map(|row| {
            let name = names(&row[0]).into_iter().next().expect("a crate name");
            (name, names(&row[2]).into_iter().collect())
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

/// The number a count in the docs is written as.
fn number(word: &str) -> usize {
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"];
    words
        .iter()
        .position(|w| w.eq_ignore_ascii_case(word))
        .or_else(|| word.parse().ok())
        .unwrap_or_else(|| panic!("{word:?} is not a count"))
}

/// The text of `doc` from `start` up to the first `end` after it.
fn between<'a>(doc: &'a str, start: &str, end: &str) -> &'a str {
    let from = doc.find(start).unwrap_or_else(|| panic!("docs/architecture.md says {start:?}"));
    let rest = &doc[from + start.len()..];
    &rest[..rest.find(end).unwrap_or_else(|| panic!("{end:?} follows {start:?}"))]
}

/// The files a passage names in backquotes, as paths from the repository's root.
fn files_named(passage: &str) -> Vec<std::path::PathBuf> {
    passage
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| name.contains('/') && (name.ends_with(".rs") || name.ends_with(".md")))
        .map(|name| {
            if name.starts_with("docs/") {
                Path::new(ROOT).join(name)
            } else {
                Path::new(ROOT).join("crates").join(name)
            }
        })
        .collect()
}

/// "Adding an endpoint family" and "Adding a route" count the shared files a new family touches
/// and the edits of a new route: each count is the length of the list it counts, every file
/// listed exists, and the totals add up.
#[test]
fn the_edit_counts_are_the_lengths_of_their_lists() {
    let doc = common::page("architecture.md").replace('\n', " ");
    let mut counts = Vec::new();
    for (start, end) in [
        ("Of the chain side, a new system actor touches ", "Records kept by"),
        ("Of the HTTP side, a new family touches ", "Everything else"),
    ] {
        let count = number(between(&doc, start, " shared files").trim());
        let listed = files_named(between(&doc, start, end));
        assert_eq!(listed.len(), count, "{start}{count}: {listed:?}");
        for file in &listed {
            assert!(file.exists(), "{} is listed and does not exist", file.display());
        }
        counts.push(count);
    }
    let total = between(&doc, "A whole family with SDK calls and CLI commands touches ", " shared files");
    let numbers: Vec<usize> = total
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().expect("digits"))
        .collect();
    let [chain, http, rest, sum] = numbers[..] else { panic!("a total of three parts: {total:?}") };
    assert_eq!([chain, http], [counts[0], counts[1]], "the total's parts are the counts above");
    assert_eq!(chain + http + rest, sum, "{total}");
    let route = between(&doc, "## Adding a route", "The route's own tests");
    let edits = number(between(route, "is ", " edits:").trim());
    let rows = route.split("| ").filter(|cell| cell.trim().parse::<usize>().is_ok()).count();
    assert_eq!(rows, edits, "one row per edit of a new route");
}

/// Every family with a backend trait has its own files in each tier and its module line in the
/// shared files the docs list for it.
#[test]
fn every_backend_family_has_its_own_files_and_module_lines() {
    let crates = Path::new(ROOT).join("crates");
    let backend = crates.join("rpc/src/backend");
    let shared = ["rpc/src/backend/mod.rs", "node/src/backend/mod.rs"]
        .map(|file| std::fs::read_to_string(crates.join(file)).unwrap_or_else(|e| panic!("{file}: {e}")));
    let mut families = 0;
    for entry in std::fs::read_dir(&backend).expect("rpc/src/backend") {
        let name = entry.expect("an entry").file_name().to_string_lossy().into_owned();
        let Some(family) = name.strip_suffix(".rs").filter(|family| *family != "mod") else { continue };
        for own in [format!("rpc/src/backend/{family}/mock.rs"), format!("node/src/backend/{family}.rs")] {
            assert!(crates.join(&own).exists(), "the {family} family has no {own}");
        }
        for text in &shared {
            assert!(text.contains(&format!("mod {family};")), "the {family} family's module line is missing");
        }
        families += 1;
    }
    assert!(families > 10, "{families} families");
}
