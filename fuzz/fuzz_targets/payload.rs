//! Payload maps: the Deploy, Message, Upgrade and Manifest decoders must never panic, and what
//! decodes re-encodes to the same bytes; a decoded manifest goes through the deploy path's
//! `validate_manifest`. Generated payloads round-trip.
#![no_main]

use arbitrary::Unstructured;
use drover_fuzz::generate;
use drover_types::payload::{Deploy, Manifest, Message, Upgrade};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    if let Ok(message) = Message::decode(data) {
        assert_eq!(message.encode(), data);
    }
    if let Ok(manifest) = Manifest::decode(data) {
        assert_eq!(manifest.encode(), data);
        let _ = drover_vm::validate_manifest(manifest.entitlements());
    }
    if let Ok(deploy) = Deploy::decode(data) {
        assert_eq!(deploy.encode(), data);
        let _ = drover_vm::validate_manifest(deploy.manifest.entitlements());
    }
    if let Ok(upgrade) = Upgrade::decode(data) {
        assert_eq!(upgrade.encode(), data);
        assert_eq!(Message::decode(&upgrade.message()).map(|m| m.payload), Ok(data.to_vec()));
    }

    let mut u = Unstructured::new(data);
    let Ok(kind) = u.int_in_range(0..=3u8) else { return };
    match kind {
        0 => {
            if let Ok(value) = generate::message(&mut u) {
                assert_eq!(Message::decode(&value.encode()), Ok(value));
            }
        }
        1 => {
            if let Ok(value) = generate::manifest(&mut u) {
                assert_eq!(Manifest::decode(&value.encode()), Ok(value));
            }
        }
        2 => {
            if let Ok(value) = generate::deploy(&mut u) {
                assert_eq!(Deploy::decode(&value.encode()), Ok(value));
            }
        }
        _ => {
            if let Ok(value) = generate::upgrade(&mut u) {
                assert_eq!(Upgrade::decode(&value.encode()), Ok(value));
            }
        }
    }
});
