//! `docs/protocol.md` ("System actors") must list exactly the system actors of the registry
//! (`drover_types::system_actors`), each with its address, name and handlers.

use drover_types::system_actors;

/// The rows of the table under `## System actors`: address, actor, handlers.
fn documented() -> Vec<(String, String, Vec<String>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/protocol.md");
    let doc = std::fs::read_to_string(path).expect("docs/protocol.md is readable");
    let section = doc.split("\n## System actors\n").nth(1).expect("docs/protocol.md has a \"System actors\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|line| line.starts_with("| `0x"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 4, "a row is address | actor | handlers | page: {line}");
            let handlers = cells[2].split(", ").map(|handler| handler.trim_matches('`').to_owned()).collect();
            (cells[0].trim_matches('`').to_owned(), cells[1].to_owned(), handlers)
        })
        .collect()
}

#[test]
fn the_docs_list_every_system_actor_of_the_registry() {
    let registry: Vec<(String, String, Vec<String>)> = system_actors::all()
        .into_iter()
        .map(|actor| {
            let short = format!("0x00…{:02x}", actor.address.0[19]);
            (short, actor.name.to_owned(), actor.handlers.iter().map(|h| (*h).to_owned()).collect())
        })
        .collect();
    assert_eq!(documented(), registry);
}
