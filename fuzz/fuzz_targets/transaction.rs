//! The transaction array: `Transaction::decode` must never panic; what decodes re-encodes to
//! the same bytes (one encoding, one hash), and `verify` on it either fails cleanly or returns
//! exactly those bytes and their hash. Generated transactions round-trip through
//! encode/decode.
#![no_main]

use arbitrary::Unstructured;
use drover_fuzz::generate;
use drover_types::{Transaction, cbor, keccak256};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    match Transaction::decode(data) {
        Ok(tx) => {
            assert_eq!(tx.encode(), data);
            assert_eq!(tx.hash(), keccak256(data));
            let unsigned = Transaction { signature: None, ..tx.clone() };
            assert_eq!(Transaction::decode(&tx.encode_unsigned()), Ok(unsigned));
            let _ = tx.max_cost();
            let recovered = tx.recover_sender();
            match tx.clone().verify() {
                Ok(verified) => {
                    assert_eq!(verified.encoded, data);
                    assert_eq!(verified.hash, keccak256(data));
                    assert_eq!(verified.tx, tx);
                    assert_eq!(recovered, Ok(verified.sender));
                }
                Err(e) => assert_eq!(recovered, Err(e)),
            }
        }
        // The strict check runs first, so its verdict is the decoder's.
        Err(e) => {
            if let Err(canonical) = cbor::check_canonical(data) {
                assert_eq!(e, canonical);
            }
        }
    }

    if let Ok(tx) = generate::transaction(&mut Unstructured::new(data)) {
        let bytes = tx.encode();
        assert_eq!(Transaction::decode(&bytes), Ok(tx));
    }
});
