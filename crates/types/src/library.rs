//! Account libraries: the library system actor's address, its calls and their rules.
//!
//! A publisher puts actor code on chain once under a name; any actor runs its handlers in its
//! own context with the host function `library_call` — its own storage and balance, and the
//! entitlements both manifests grant. Re-publishing bumps the version and keeps every earlier
//! one, so an actor that pins a version is never changed under it. [`LibraryCall`] is the wire
//! form, shared by clients and the executor.

use crate::Address;
use crate::args::{Args, ArgsBuilder, ArgsError};
use crate::params::{LISTING_CELLS, LISTING_CYCLES};
use crate::payload::Manifest;
use crate::system_call::{SystemCall, SystemCallError};

/// The library system actor.
pub const LIBRARY_ADDRESS: Address = Address::system(0x0d);

/// Longest library name, in bytes of `a`–`z`, `0`–`9`, `.`, `_`, `-`.
pub const MAX_LIBRARY_NAME_BYTES: usize = 64;
/// Cycles of a `publish` besides its code.
pub const PUBLISH_CYCLES: u64 = 20_000;
/// Cycles per code byte of a `publish` (validating and compiling it, as a deploy).
pub const PUBLISH_CYCLES_PER_CODE_BYTE: u64 = 16;
/// Cells of a library's records besides its code and manifest.
pub const LIBRARY_RECORD_CELLS: u64 = 256;
/// Cycles of a `remove`.
pub const REMOVE_CYCLES: u64 = 5_000;

/// One call of the library actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LibraryCall {
    /// `publish {"name", "code", "manifest": Manifest}`: a new library, or its next version.
    Publish {
        /// The library's name (one namespace per publisher).
        name: String,
        /// Its WebAssembly code, validated like a deploy's.
        code: Vec<u8>,
        /// The entitlements its handlers may use (intersected with each caller's), in the
        /// manifest form of a deploy.
        manifest: Manifest,
    },
    /// `remove {"name"}`: no more calls of any version (records stay, for history).
    Remove {
        /// The library's name.
        name: String,
    },
}

/// Why `name` is not a library name (execution answers E1851).
pub fn check_library_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_LIBRARY_NAME_BYTES
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!("a library name is 1 to {MAX_LIBRARY_NAME_BYTES} characters of a-z 0-9 . _ -"))
    }
}

impl LibraryCall {
    /// The library's name.
    pub fn name(&self) -> &str {
        match self {
            LibraryCall::Publish { name, .. } | LibraryCall::Remove { name } => name,
        }
    }
}

impl SystemCall for LibraryCall {
    const ADDRESS: Address = LIBRARY_ADDRESS;
    const NAME: &'static str = "the library actor";

    /// Every handler of the library actor.
    const HANDLERS: &'static [&'static str] = &["publish", "remove"];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            LibraryCall::Publish { .. } => "publish",
            LibraryCall::Remove { .. } => "remove",
        }
    }

    /// What the call costs before it runs: `(cycles, cells)`.
    fn cost(&self) -> (u64, u64) {
        match self {
            LibraryCall::Publish { code, manifest, .. } => {
                let manifest_bytes: usize = manifest.entitlements().iter().map(|m| m.len() + 1).sum();
                // The first publish also lists the library for its publisher.
                (
                    (PUBLISH_CYCLES + LISTING_CYCLES)
                        .saturating_add((code.len() as u64).saturating_mul(PUBLISH_CYCLES_PER_CODE_BYTE)),
                    LIBRARY_RECORD_CELLS + LISTING_CELLS + (code.len() + manifest_bytes) as u64,
                )
            }
            LibraryCall::Remove { .. } => (REMOVE_CYCLES, 0),
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        match self {
            LibraryCall::Publish { name, code, manifest } => {
                ArgsBuilder::new().text("name", name).bytes("code", code).raw("manifest", manifest.encode()).encode()
            }
            LibraryCall::Remove { name } => ArgsBuilder::new().text("name", name).encode(),
        }
    }

    /// Decodes a call from its handler and argument map.
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        match handler {
            "publish" => {
                args.only(&["code", "name", "manifest"])?;
                Ok(LibraryCall::Publish {
                    name: args.text("name")?.to_owned(),
                    code: args.bytes("code")?.to_vec(),
                    // The deploy's own decoder: one manifest form everywhere.
                    manifest: Manifest::decode(args.encoded("manifest")?)
                        .map_err(|_| ArgsError::Invalid { key: "manifest".to_owned(), expected: Manifest::FORM })?,
                })
            }
            "remove" => {
                args.only(&["name"])?;
                Ok(LibraryCall::Remove { name: args.text("name")?.to_owned() })
            }
            other => Err(SystemCallError::unknown_handler::<Self>(other)),
        }
    }

    fn takes_value(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_round_trip_and_names_are_checked() {
        for call in [
            LibraryCall::Publish {
                name: "fixed".into(),
                code: b"\0asm".to_vec(),
                manifest: Manifest::new(vec!["storage.kv".into()]),
            },
            LibraryCall::Publish { name: "fixed".into(), code: b"\0asm".to_vec(), manifest: Manifest::new(Vec::new()) },
            LibraryCall::Publish { name: "fixed".into(), code: b"\0asm".to_vec(), manifest: Manifest::default() },
            LibraryCall::Remove { name: "fixed".into() },
        ] {
            let message = call.message();
            assert_eq!(LibraryCall::decode(&message.handler, &message.payload), Ok(call));
        }
        assert!(check_library_name("fixed-point.v2").is_ok());
        assert!(check_library_name("Fixed").is_err());
        assert!(check_library_name("").is_err());
    }

    #[test]
    fn publish_takes_the_deploy_manifest_form_only() {
        let publish = |manifest: Vec<u8>| {
            let args = ArgsBuilder::new().text("name", "fixed").bytes("code", b"\0asm").raw("manifest", manifest);
            LibraryCall::decode("publish", &args.encode())
        };
        let ids = Manifest::new(vec!["storage.kv".into()]);
        assert_eq!(
            publish(ids.encode()),
            Ok(LibraryCall::Publish { name: "fixed".into(), code: b"\0asm".to_vec(), manifest: ids })
        );
        // A bare list is not a manifest.
        let bare = ArgsBuilder::new().texts("x", &["storage.kv".to_owned()]).encode();
        let list = Args::decode(&bare).unwrap().encoded("x").unwrap().to_vec();
        assert_eq!(
            publish(list),
            Err(SystemCallError::Args(ArgsError::Invalid { key: "manifest".into(), expected: Manifest::FORM }))
        );
    }
}
