//! The submission envelope `{"Transactions": [...]}`: `decode_submission` must never panic;
//! an accepted envelope holds 1 to 50 elements whose raw bytes are the envelope's own slices,
//! each decoded exactly as `Transaction::decode` would, and an envelope of good transactions
//! re-encodes to the same bytes. Generated batches round-trip (or are refused for their
//! count).
#![no_main]

use arbitrary::Unstructured;
use drover_fuzz::generate;
use drover_types::Transaction;
use drover_types::cbor::Writer;
use drover_types::submission::{
    ENVELOPE_KEY, EnvelopeError, MAX_TRANSACTIONS_PER_SUBMISSION, decode_submission,
    encode_submission,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    if let Ok(items) = decode_submission(data) {
        assert!((1..=MAX_TRANSACTIONS_PER_SUBMISSION).contains(&items.len()));
        let mut w = Writer::new(Vec::new());
        w.map(1).text(ENVELOPE_KEY).array(items.len() as u64);
        let mut rebuilt = w.into_inner();
        for item in &items {
            rebuilt.extend_from_slice(&item.raw);
            assert_eq!(item.decoded, Transaction::decode(&item.raw));
        }
        assert_eq!(rebuilt, data);
        let txs: Result<Vec<_>, _> = items.into_iter().map(|item| item.decoded).collect();
        if let Ok(txs) = txs {
            assert_eq!(encode_submission(&txs), data);
        }
    }

    let mut u = Unstructured::new(data);
    let Ok(count) = u.int_in_range(0..=MAX_TRANSACTIONS_PER_SUBMISSION + 2) else {
        return;
    };
    let txs: Result<Vec<_>, _> = (0..count).map(|_| generate::transaction(&mut u)).collect();
    let Ok(txs) = txs else { return };
    match decode_submission(&encode_submission(&txs)) {
        Ok(items) => {
            assert_eq!(items.len(), txs.len());
            for (item, tx) in items.iter().zip(&txs) {
                assert_eq!(item.raw, tx.encode());
                assert_eq!(item.decoded.as_ref(), Ok(tx));
            }
        }
        Err(EnvelopeError::Empty) => assert!(txs.is_empty()),
        Err(EnvelopeError::TooMany(n)) => {
            assert_eq!(n, txs.len());
            assert!(n > MAX_TRANSACTIONS_PER_SUBMISSION);
        }
        Err(e) => panic!("a written envelope does not decode: {e}"),
    }
});
