//! The submission envelope `{"Transactions": [tx, ...]}` (body of `POST /submit` and
//! `/submit_wait`).
//!
//! The envelope as a whole must be canonical CBOR with exactly one key `"Transactions"`
//! holding an array of 1 to [`MAX_TRANSACTIONS_PER_SUBMISSION`] elements; otherwise it is
//! refused whole. Each element is then sliced out byte for byte and decoded on its own, so one
//! malformed transaction is refused without refusing its neighbours. The body size limit
//! ([`MAX_SUBMISSION_BYTES`]) is the HTTP layer's to enforce, before decoding.

use crate::Transaction;
use crate::cbor::{self, CborError, Writer};
use minicbor::decode::Decoder;

/// Most transactions in one submission.
pub const MAX_TRANSACTIONS_PER_SUBMISSION: usize = 50;
/// Largest submission body, in bytes (512 KB).
pub const MAX_SUBMISSION_BYTES: usize = 524_288;

/// The envelope's only key.
pub const ENVELOPE_KEY: &str = "Transactions";

/// Largest encoding of the envelope around its elements: map head, key, array head.
const ENVELOPE_HEAD_BYTES_MAX: usize = 1 + 1 + ENVELOPE_KEY.len() + 9;

/// One element of a submission: its exact bytes and the decoded transaction (or why not).
#[derive(Clone, Debug)]
pub struct SubmissionItem {
    /// The element's bytes as they stand in the envelope.
    pub raw: Vec<u8>,
    /// The element decoded as a transaction, or why it does not.
    pub decoded: Result<Transaction, CborError>,
}

/// Why a whole submission is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// The envelope is not canonical CBOR of the expected shape (answered 6001 or 6002).
    #[error(transparent)]
    Cbor(#[from] CborError),
    /// The array holds no transaction (answered 2014).
    #[error("submission holds no transaction")]
    Empty,
    /// The array holds more than 50 transactions (answered 2014); the count.
    #[error("submission holds {0} transactions; at most 50 are allowed")]
    TooMany(usize),
}

/// Decodes an envelope (canonical check, shape check, 1..=50 elements).
pub fn decode_submission(bytes: &[u8]) -> Result<Vec<SubmissionItem>, EnvelopeError> {
    cbor::check_canonical(bytes)?;
    let mut d = Decoder::new(bytes);
    let entries = cbor::expect_map(&mut d)?;
    if entries != 1 {
        return Err(CborError::malformed(format!(
            "the envelope must be a map with the single key \"{ENVELOPE_KEY}\", found {entries} keys"
        ))
        .into());
    }
    let key_at = d.position();
    if d.str().ok() != Some(ENVELOPE_KEY) {
        return Err(CborError::malformed(format!(
            "the envelope's key must be the text \"{ENVELOPE_KEY}\" (byte {key_at})"
        ))
        .into());
    }
    let count =
        d.array().map_err(CborError::from)?.ok_or_else(|| CborError::NonCanonical("indefinite-length array".into()))?;
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    if count == 0 {
        return Err(EnvelopeError::Empty);
    }
    if count > MAX_TRANSACTIONS_PER_SUBMISSION {
        return Err(EnvelopeError::TooMany(count));
    }
    let mut items = Vec::with_capacity(count);
    for _ in 0..count {
        let start = d.position();
        d.skip().map_err(CborError::from)?;
        let raw =
            bytes.get(start..d.position()).ok_or_else(|| CborError::malformed("transaction element out of bounds"))?;
        items.push(SubmissionItem { raw: raw.to_vec(), decoded: Transaction::decode(raw) });
    }
    Ok(items)
}

/// Encodes transactions into an envelope.
pub fn encode_submission(txs: &[Transaction]) -> Vec<u8> {
    let capacity = txs.iter().fold(ENVELOPE_HEAD_BYTES_MAX, |sum, tx| sum.saturating_add(tx.encoded_len_max()));
    let mut w = Writer::with_capacity(capacity);
    w.map(1).text(ENVELOPE_KEY).array(txs.len() as u64);
    for tx in txs {
        tx.write(&mut w);
    }
    w.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Address, SecretKey};

    fn tx(nonce: u64) -> Transaction {
        Transaction {
            chain_id: 100,
            nonce,
            to: Some(Address::system(2)),
            value: 1,
            cycles_limit: 21_000,
            cells_limit: 0,
            max_fee_per_cycle: 2_000,
            max_fee_per_cell: 300,
            tip_per_cycle: 10,
            tip_per_cell: 1,
            payload: Vec::new(),
            signature: None,
        }
        .sign(&SecretKey::dev(0))
    }

    fn envelope(key: &str, elements: &[Vec<u8>]) -> Vec<u8> {
        let mut w = Writer::with_capacity(64);
        w.map(1).text(key).array(elements.len() as u64);
        let mut bytes = w.into_inner();
        for element in elements {
            bytes.extend_from_slice(element);
        }
        bytes
    }

    #[test]
    fn round_trips_a_batch() {
        let txs: Vec<_> = (0..3).map(tx).collect();
        let bytes = encode_submission(&txs);
        let items = decode_submission(&bytes).unwrap();
        assert_eq!(items.len(), 3);
        for (item, tx) in items.iter().zip(&txs) {
            assert_eq!(item.raw, tx.encode());
            assert_eq!(item.decoded.as_ref(), Ok(tx));
        }
        assert_eq!(bytes, envelope(ENVELOPE_KEY, &txs.iter().map(Transaction::encode).collect::<Vec<_>>()));
    }

    #[test]
    fn refuses_empty_and_oversized_batches() {
        assert_eq!(decode_submission(&encode_submission(&[])).unwrap_err(), EnvelopeError::Empty);
        let one = tx(0);
        let full = vec![one.clone(); MAX_TRANSACTIONS_PER_SUBMISSION];
        assert_eq!(decode_submission(&encode_submission(&full)).unwrap().len(), 50);
        let over = vec![one; MAX_TRANSACTIONS_PER_SUBMISSION + 1];
        assert_eq!(decode_submission(&encode_submission(&over)).unwrap_err(), EnvelopeError::TooMany(51));
    }

    #[test]
    fn refuses_other_envelope_shapes() {
        let element = tx(0).encode();
        let malformed =
            |bytes: &[u8]| matches!(decode_submission(bytes), Err(EnvelopeError::Cbor(CborError::Malformed(_))));
        assert!(malformed(&envelope("transactions", std::slice::from_ref(&element))));
        assert!(malformed(&envelope("Transaction", std::slice::from_ref(&element))));
        // Two keys: "Transactions" and a second one sorted after it.
        let mut two = envelope(ENVELOPE_KEY, std::slice::from_ref(&element));
        two[0] = 0xa2;
        two.extend_from_slice(&[
            0x6d, b'T', b'r', b'a', b'n', b's', b'a', b'c', b't', b'i', b'o', b'n', b's', b'x', 0xf6,
        ]);
        assert!(malformed(&two));
        // Not a map, or the value not an array, or an integer key.
        assert!(malformed(&[0x81, 0x80]));
        assert!(malformed(&hex::decode("a16c5472616e73616374696f6e73a0").unwrap()));
        assert!(malformed(&hex::decode("a10081f6").unwrap()));
        assert!(malformed(&[]));
    }

    #[test]
    fn refuses_non_canonical_or_trailing_envelopes() {
        let element = tx(0).encode();
        let mut bytes = envelope(ENVELOPE_KEY, &[element]);
        bytes.push(0x00);
        assert_eq!(decode_submission(&bytes).unwrap_err(), EnvelopeError::Cbor(CborError::Trailing));
        bytes.pop();
        // The same envelope with an indefinite-length array.
        let mut indefinite = bytes.clone();
        indefinite[14] = 0x9f;
        indefinite.push(0xff);
        assert!(matches!(decode_submission(&indefinite), Err(EnvelopeError::Cbor(CborError::NonCanonical(_)))));
        // A non-canonical element refuses the whole envelope.
        let mut padded = tx(0).encode();
        padded.splice(1..3, [0x19, 0x00, 0x64]);
        assert!(matches!(
            decode_submission(&envelope(ENVELOPE_KEY, &[padded])),
            Err(EnvelopeError::Cbor(CborError::NonCanonical(_)))
        ));
    }

    #[test]
    fn one_bad_element_does_not_refuse_its_neighbours() {
        let good = tx(0).encode();
        // Well-formed and canonical, but a 12-element array.
        let mut bad = tx(1).encode();
        bad[0] = 0x8c;
        bad.truncate(bad.len() - 70);
        let not_a_tx = vec![0x01];
        let bytes = envelope(ENVELOPE_KEY, &[good.clone(), bad.clone(), not_a_tx.clone(), good.clone()]);
        let items = decode_submission(&bytes).unwrap();
        assert_eq!(items.len(), 4);
        assert_eq!(items[0].decoded, Ok(tx(0)));
        assert_eq!(items[1].raw, bad);
        assert!(matches!(items[1].decoded, Err(CborError::Malformed(_))));
        assert_eq!(items[2].raw, not_a_tx);
        assert!(matches!(items[2].decoded, Err(CborError::Malformed(_))));
        assert_eq!(items[3].raw, good);
        assert!(items[3].decoded.is_ok());
    }
}
