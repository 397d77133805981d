//! The transaction: a 13-element canonical CBOR array.
//!
//! ```text
//! [ chain_id, nonce, to, value, cycles_limit, cells_limit,
//!   max_fee_per_cycle, max_fee_per_cell, tip_per_cycle, tip_per_cell,
//!   access_list, payload, signature ]
//! ```
//! `to` is bytes(20) or null (deploy); value and fees are u128 (tag 2 bignum above 2^64-1);
//! `access_list` must be null; `signature` is `[y_parity, r: bytes(32), s: bytes(32)]` or null.
//! signing hash = keccak256(cbor(tx with signature = null)); tx hash = keccak256(cbor(signed tx)).
//!
//! Decoding is strict (canonical bytes only), so a transaction has exactly one encoding and one
//! hash. Hashes are computed while encoding, without building the bytes; [`Transaction::verify`]
//! builds them once and derives both hashes from that single pass.

use crate::cbor::{self, CborError, NULL, Sink, Writer};
use crate::{Address, H256, SecretKey};
use minicbor::decode::Decoder;
use sha3::{Digest, Keccak256};

pub use crate::signature::{Signature, SignatureError};

/// A transaction, signed or not.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Transaction {
    /// Chain the transaction is for; a node refuses any other than its own.
    pub chain_id: u64,
    /// The sender's transaction count before this one: its next nonce.
    pub nonce: u64,
    /// `None` deploys an actor.
    pub to: Option<Address>,
    /// Base units moved from the sender to `to` (or to the deployed actor).
    pub value: u128,
    /// Most cycles (compute) the transaction may use.
    pub cycles_limit: u64,
    /// Most cells (bytes written to state) the transaction may use.
    pub cells_limit: u64,
    /// Highest total price per cycle (basefee plus tip) the sender accepts, base units.
    pub max_fee_per_cycle: u128,
    /// Highest total price per cell (basefee plus tip) the sender accepts, base units.
    pub max_fee_per_cell: u128,
    /// Tip per cycle offered to the proposer, base units; at most `max_fee_per_cycle`.
    pub tip_per_cycle: u128,
    /// Tip per cell offered to the proposer, base units; at most `max_fee_per_cell`.
    pub tip_per_cell: u128,
    /// Empty for a transfer; a `Deploy` or a `Message` otherwise (see [`crate::payload`]).
    pub payload: Vec<u8>,
    /// `[y_parity, r, s]` over the signing hash; `None` while unsigned.
    pub signature: Option<Signature>,
}

/// Elements in the transaction array.
pub const TRANSACTION_FIELDS: u64 = 13;

/// Largest encoding of everything but the payload bytes, in bytes: array head 1, two u64 at 9,
/// `to` 21, five u128 at 19, two u64 at 9, access list 1, payload head 9, signature 70.
const ENCODED_OVERHEAD_BYTES_MAX: usize = 1 + 2 * 9 + 21 + 5 * 19 + 2 * 9 + 1 + 9 + 70;

impl Transaction {
    /// Canonical CBOR of the transaction as it is (signature included, or null).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.encoded_len_max());
        self.write(&mut w);
        w.into_inner()
    }

    /// Canonical CBOR with the signature set to null.
    pub fn encode_unsigned(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.encoded_len_max());
        self.write_body(&mut w);
        w.null();
        w.into_inner()
    }

    /// Strict decode: the bytes must be exactly the canonical encoding of one transaction
    /// (no trailing bytes, shortest forms, 13 elements, null access list, signature shape
    /// `[0|1, bytes(32), bytes(32)]`). Signature values (low s, r and s in range) are checked
    /// by [`Transaction::recover_sender`].
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, Self::read)
    }

    /// keccak256 of the unsigned encoding.
    pub fn signing_hash(&self) -> H256 {
        let mut w = Writer::new(Keccak256::new());
        self.write_body(&mut w);
        w.null();
        H256(w.into_inner().finalize().into())
    }

    /// keccak256 of the encoding as it is.
    pub fn hash(&self) -> H256 {
        let mut w = Writer::new(Keccak256::new());
        self.write(&mut w);
        H256(w.into_inner().finalize().into())
    }

    /// Sets the signature over the signing hash.
    pub fn sign(mut self, key: &SecretKey) -> Self {
        self.signature = Some(key.sign_prehash(&self.signing_hash()));
        self
    }

    /// Recovers the sender address from the signature (expensive: do it once per transaction).
    pub fn recover_sender(&self) -> Result<Address, SignatureError> {
        self.signature.ok_or(SignatureError::Missing)?.recover(&self.signing_hash())
    }

    /// Checks signature and returns the transaction with its hash, sender and encoded size.
    pub fn verify(self) -> Result<VerifiedTransaction, SignatureError> {
        let signature = self.signature.ok_or(SignatureError::Missing)?;
        // The signed and unsigned encodings share everything up to the signature: encode and
        // hash that body once, then finish the signing hash with null and the tx hash with
        // the signature.
        let mut hasher = Keccak256::new();
        let mut body = Writer::new((Vec::with_capacity(self.encoded_len_max()), &mut hasher));
        self.write_body(&mut body);
        let (mut encoded, _) = body.into_inner();
        let signing_hash = H256(hasher.clone().chain_update([NULL]).finalize().into());
        let sender = signature.recover(&signing_hash)?;
        signature.write(&mut Writer::new((&mut encoded, &mut hasher)));
        let hash = H256(hasher.finalize().into());
        Ok(VerifiedTransaction { tx: self, hash, sender, encoded })
    }

    /// The most this transaction can cost its sender: value + cycles_limit × max_fee_per_cycle
    /// + cells_limit × max_fee_per_cell (None on overflow).
    pub fn max_cost(&self) -> Option<u128> {
        let cycles = u128::from(self.cycles_limit).checked_mul(self.max_fee_per_cycle)?;
        let cells = u128::from(self.cells_limit).checked_mul(self.max_fee_per_cell)?;
        self.value.checked_add(cycles)?.checked_add(cells)
    }

    /// An upper bound of the encoding's length, to size buffers once.
    pub(crate) fn encoded_len_max(&self) -> usize {
        ENCODED_OVERHEAD_BYTES_MAX.saturating_add(self.payload.len())
    }

    /// Writes the whole array.
    pub(crate) fn write<S: Sink>(&self, w: &mut Writer<S>) {
        self.write_body(w);
        match &self.signature {
            Some(signature) => signature.write(w),
            None => {
                w.null();
            }
        }
    }

    /// Writes the array head and the twelve elements before the signature.
    fn write_body<S: Sink>(&self, w: &mut Writer<S>) {
        w.array(TRANSACTION_FIELDS).uint(self.chain_id).uint(self.nonce);
        match &self.to {
            Some(to) => w.bytes(&to.0),
            None => w.null(),
        };
        w.u128(self.value)
            .uint(self.cycles_limit)
            .uint(self.cells_limit)
            .u128(self.max_fee_per_cycle)
            .u128(self.max_fee_per_cell)
            .u128(self.tip_per_cycle)
            .u128(self.tip_per_cell)
            // The access list is reserved: always null.
            .null()
            .bytes(&self.payload);
    }

    /// Reads the array (the bytes are known to be canonical).
    fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        cbor::expect_array(d, TRANSACTION_FIELDS)?;
        let chain_id = d.u64()?;
        let nonce = d.u64()?;
        let to = if cbor::take_null(d)? { None } else { Some(Address(cbor::decode_fixed(d)?)) };
        let value = cbor::decode_u128(d)?;
        let cycles_limit = d.u64()?;
        let cells_limit = d.u64()?;
        let max_fee_per_cycle = cbor::decode_u128(d)?;
        let max_fee_per_cell = cbor::decode_u128(d)?;
        let tip_per_cycle = cbor::decode_u128(d)?;
        let tip_per_cell = cbor::decode_u128(d)?;
        let at = d.position();
        if !cbor::take_null(d)? {
            return Err(CborError::malformed(format!("access_list must be null at byte {at}")));
        }
        let payload = d.bytes()?.to_vec();
        let signature = if cbor::take_null(d)? { None } else { Some(Signature::read(d)?) };
        Ok(Transaction {
            chain_id,
            nonce,
            to,
            value,
            cycles_limit,
            cells_limit,
            max_fee_per_cycle,
            max_fee_per_cell,
            tip_per_cycle,
            tip_per_cell,
            payload,
            signature,
        })
    }
}

/// A transaction whose sender has been recovered once, with its hash and encoding cached.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifiedTransaction {
    /// The transaction as decoded.
    pub tx: Transaction,
    /// Transaction hash: keccak256 of `encoded`.
    pub hash: H256,
    /// The address the signature recovers.
    pub sender: Address,
    /// Canonical encoding of the signed transaction (what `hash` is computed over).
    pub encoded: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keccak256;

    const WHITEPAPER_UNSIGNED: &str = "8d010054111111111111111111111111111111111111111101195208000a020100f640f6";

    fn whitepaper_transfer() -> Transaction {
        Transaction {
            chain_id: 1,
            nonce: 0,
            to: Some(Address([0x11; 20])),
            value: 1,
            cycles_limit: 21_000,
            cells_limit: 0,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 2,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        }
    }

    fn signed() -> Transaction {
        whitepaper_transfer().sign(&SecretKey::dev(0))
    }

    fn decode_hex(hex_bytes: &str) -> Result<Transaction, CborError> {
        Transaction::decode(&hex::decode(hex_bytes).unwrap())
    }

    /// Replaces the element at `index` of a transaction's top-level array with `element`.
    fn with_element(tx: &Transaction, index: usize, element: &[u8]) -> Vec<u8> {
        let bytes = tx.encode();
        let mut d = Decoder::new(&bytes);
        d.array().unwrap();
        for _ in 0..index {
            d.skip().unwrap();
        }
        let start = d.position();
        d.skip().unwrap();
        [&bytes[..start], element, &bytes[d.position()..]].concat()
    }

    fn assert_malformed(bytes: &[u8]) {
        assert!(matches!(Transaction::decode(bytes), Err(CborError::Malformed(_))), "{}", hex::encode(bytes));
    }

    #[test]
    fn whitepaper_vector() {
        let tx = whitepaper_transfer();
        assert_eq!(hex::encode(tx.encode_unsigned()), WHITEPAPER_UNSIGNED);
        assert_eq!(hex::encode(tx.encode()), WHITEPAPER_UNSIGNED);
        assert_eq!(tx.signing_hash(), keccak256(&hex::decode(WHITEPAPER_UNSIGNED).unwrap()));
        assert_eq!(decode_hex(WHITEPAPER_UNSIGNED), Ok(tx));
    }

    #[test]
    fn signed_round_trip_and_hashes() {
        let key = SecretKey::dev(0);
        let tx = signed();
        let bytes = tx.encode();
        assert_eq!(Transaction::decode(&bytes), Ok(tx.clone()));
        assert_eq!(tx.hash(), keccak256(&bytes));
        assert_eq!(tx.signing_hash(), whitepaper_transfer().signing_hash());
        assert_eq!(tx.recover_sender(), Ok(key.address()));
        let verified = tx.clone().verify().unwrap();
        assert_eq!(verified.encoded, bytes);
        assert_eq!(verified.hash, tx.hash());
        assert_eq!(verified.sender, key.address());
        // Deterministic: signing again gives the same bytes.
        assert_eq!(whitepaper_transfer().sign(&key).encode(), bytes);
    }

    #[test]
    fn round_trips_extreme_values_and_deploys() {
        let tx = Transaction {
            chain_id: u64::MAX,
            nonce: 24,
            to: None,
            value: u128::MAX,
            cycles_limit: 256,
            cells_limit: 65_536,
            max_fee_per_cycle: u128::from(u64::MAX) + 1,
            max_fee_per_cell: u128::from(u64::MAX),
            tip_per_cycle: 23,
            tip_per_cell: 0,
            payload: vec![7; 300],
            signature: None,
        }
        .sign(&SecretKey::dev(9));
        let bytes = tx.encode();
        assert!(bytes.len() <= tx.encoded_len_max());
        assert_eq!(Transaction::decode(&bytes), Ok(tx.clone()));
        assert_eq!(tx.verify().unwrap().encoded, bytes);
    }

    #[test]
    fn unsigned_transactions_do_not_verify() {
        let tx = whitepaper_transfer();
        assert_eq!(tx.recover_sender(), Err(SignatureError::Missing));
        assert_eq!(tx.verify(), Err(SignatureError::Missing));
    }

    #[test]
    fn signature_over_another_transaction_recovers_someone_else() {
        let key = SecretKey::dev(0);
        let mut tx = signed();
        let other = Transaction { nonce: 1, ..whitepaper_transfer() }.sign(&key);
        tx.signature = other.signature;
        assert_ne!(tx.recover_sender(), Ok(key.address()));
        if let Ok(verified) = tx.verify() {
            assert_ne!(verified.sender, key.address());
        }
    }

    #[test]
    fn high_s_and_zero_scalars_are_malformed_signatures() {
        let tx = signed();
        let signature = tx.signature.unwrap();
        for bad in [
            Signature { r: [0; 32], ..signature },
            Signature { s: [0; 32], ..signature },
            Signature { s: [0x80; 32], ..signature },
        ] {
            let tx = Transaction { signature: Some(bad), ..tx.clone() };
            assert_eq!(tx.recover_sender(), Err(SignatureError::Malformed));
            assert_eq!(tx.verify(), Err(SignatureError::Malformed));
        }
    }

    #[test]
    fn rejects_wrong_element_counts() {
        let unsigned = hex::decode(WHITEPAPER_UNSIGNED).unwrap();
        // 12 elements: drop the signature.
        let twelve = [&[0x8c][..], &unsigned[1..unsigned.len() - 1]].concat();
        assert_malformed(&twelve);
        // 14 elements: one extra null.
        let fourteen = [&[0x8e][..], &unsigned[1..], &[0xf6]].concat();
        assert_malformed(&fourteen);
        assert_malformed(&[0x80]);
        assert_malformed(&hex::decode("a0").unwrap());
    }

    #[test]
    fn rejects_non_null_access_lists() {
        let tx = whitepaper_transfer();
        for access_list in [&[0x80][..], &[0xa0], &[0x40], &[0x00], &[0xf4]] {
            assert_malformed(&with_element(&tx, 10, access_list));
        }
    }

    #[test]
    fn rejects_wrong_field_types() {
        let tx = whitepaper_transfer();
        for (index, element) in [
            (0, &[0x20][..]),                                         // negative chain id
            (0, &[0xf6]),                                             // null chain id
            (1, &[0x40]),                                             // bytes nonce
            (2, &[0x41, 0x11]),                                       // 1-byte address
            (2, &[[0x53].as_slice(), &[0x11; 19]].concat()[..]),      // 19-byte address
            (2, &[0x60]),                                             // text address
            (3, &[0x40]),                                             // bytes value
            (3, &[0x20]),                                             // negative value
            (4, &hex::decode("c249010000000000000000").unwrap()[..]), // bignum where u64 expected
            (6, &[0xf6]),                                             // null fee
            (11, &[0x60]),                                            // text payload
            (11, &[0xf6]),                                            // null payload
            (12, &[0x80]),                                            // empty signature
            (12, &[0x40]),                                            // signature as bytes
        ] {
            assert_malformed(&with_element(&tx, index, element));
        }
    }

    #[test]
    fn rejects_bad_signature_shapes() {
        let tx = signed();
        let signature = tx.signature.unwrap();
        let r = [&[0x58, 32][..], &signature.r].concat();
        let s = [&[0x58, 32][..], &signature.s].concat();
        let short = [&[0x58, 31][..], &signature.s[1..]].concat();
        for bad in [
            [&[0x83, 0x02][..], &r, &s].concat(),          // parity 2
            [&[0x83, 0x20][..], &r, &s].concat(),          // negative parity
            [&[0x83, 0xf5][..], &r, &s].concat(),          // boolean parity
            [&[0x82, 0x00][..], &r].concat(),              // two elements
            [&[0x84, 0x00][..], &r, &s, &[0xf6]].concat(), // four elements
            [&[0x83, 0x00][..], &r, &short].concat(),      // 31-byte s
            [&[0x83, 0x00][..], &r, &[0xf6]].concat(),     // null s
        ] {
            assert_malformed(&with_element(&tx, 12, &bad));
        }
    }

    #[test]
    fn rejects_non_canonical_and_trailing_encodings() {
        let unsigned = hex::decode(WHITEPAPER_UNSIGNED).unwrap();
        assert_eq!(Transaction::decode(&[&unsigned[..], &[0x00]].concat()), Err(CborError::Trailing));
        let tx = whitepaper_transfer();
        for (index, element) in [
            (0, &[0x18, 0x01][..]),                                   // non-shortest chain id
            (3, &hex::decode("c24101").unwrap()[..]),                 // small value as a bignum
            (3, &hex::decode("c249000000000000000001").unwrap()[..]), // padded bignum
            (4, &hex::decode("1a00005208").unwrap()[..]),             // non-shortest cycles limit
            (11, &[0x5f, 0xff]),                                      // indefinite payload
            (2, &hex::decode("5814").unwrap().into_iter().chain([0x11; 20]).collect::<Vec<_>>()[..]),
            (6, &hex::decode("fb4024000000000000").unwrap()[..]), // float fee
        ] {
            let bytes = with_element(&tx, index, element);
            assert!(matches!(Transaction::decode(&bytes), Err(CborError::NonCanonical(_))), "{}", hex::encode(&bytes));
        }
        // An indefinite-length transaction array.
        let indefinite = [&[0x9f][..], &unsigned[1..], &[0xff]].concat();
        assert!(matches!(Transaction::decode(&indefinite), Err(CborError::NonCanonical(_))));
    }

    #[test]
    fn max_cost_is_checked() {
        let tx = whitepaper_transfer();
        assert_eq!(tx.max_cost(), Some(1 + 21_000 * 10));
        let overflow = Transaction { max_fee_per_cycle: u128::MAX, ..tx.clone() };
        assert_eq!(overflow.max_cost(), None);
        let overflow = Transaction { value: u128::MAX, ..tx };
        assert_eq!(overflow.max_cost(), None);
    }
}
