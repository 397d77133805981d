//! `docs/protocol.md` ("System actors") must list exactly the system actors of the registry
//! (`drover_types::system_actors`), each with its address, name and handlers.

mod common;

use drover_types::system_actors;

/// The rows of the table under `## System actors`: address, actor, handlers.
fn documented() -> Vec<(String, String, Vec<String>)> {
    common::table_rows("protocol.md", "System actors", "`0x", 4)
        .into_iter()
        .map(|row| {
            let handlers = row[2].split(", ").map(|handler| handler.trim_matches('`').to_owned()).collect();
            (row[0].trim_matches('`').to_owned(), row[1].clone(), handlers)
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
