//! Canonical CBOR (`drover_types::cbor`): `check_canonical` must never panic and must give the
//! same verdict as an independent reading of the rules (`drover_fuzz::reference`) on every
//! input, so no non-canonical encoding is accepted and no canonical one refused. Also: a `u128`
//! that decodes re-encodes to the same bytes, and whatever `Writer` writes is canonical.
#![no_main]

use arbitrary::Unstructured;
use drover_fuzz::{generate, reference::{self, Verdict}};
use drover_types::cbor::{self, CborError, Writer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    let result = cbor::check_canonical(data);
    let verdict = match &result {
        Ok(()) => Verdict::Canonical,
        Err(CborError::NonCanonical(_)) => Verdict::NonCanonical,
        Err(CborError::Malformed(_)) => Verdict::Malformed,
        Err(CborError::Trailing) => Verdict::Trailing,
    };
    assert_eq!(verdict, reference::verdict(data), "{data:02x?}: {result:?}");

    if let Ok(value) = cbor::decode_strict(data, cbor::decode_u128) {
        let mut w = Writer::new(Vec::new());
        w.u128(value);
        assert_eq!(w.into_inner(), data);
    }

    // The encoder side: anything the writer produces passes the strict check.
    if let Ok(item) = generate::cbor_item(&mut Unstructured::new(data), 4) {
        assert_eq!(cbor::check_canonical(&item), Ok(()), "{item:02x?}");
    }
});
