//! Reproduces the published transaction vectors (`tests/vectors/transactions.json`, computed by
//! an independent wallet implementation) byte for byte: unsigned and signed encodings, signing
//! and transaction hashes, signatures in both forms, the sender, the submission envelope, and
//! for deploys and calls the payload forms and the actor address.

use drover_types::payload::{Deploy, Manifest, Message};
use drover_types::submission::{decode_submission, encode_submission};
use drover_types::{Address, H256, SecretKey, Signature, Transaction};
use serde_json::Value;

const VECTORS: &str = include_str!("vectors/transactions.json");

/// Every field a case may carry; a new field in the file must get a check here.
const CASE_FIELDS: &[&str] = &[
    "name",
    "note",
    "inputs",
    "payload_fields",
    "actor_address",
    "unsigned_tx_cbor",
    "signing_hash",
    "signature",
    "signature_rsv",
    "signed_tx_cbor",
    "tx_hash",
    "sender",
    "submission_cbor",
];

fn vectors() -> Value {
    serde_json::from_str(VECTORS).expect("vectors file is JSON")
}

fn field<'a>(value: &'a Value, name: &str) -> &'a Value {
    value.get(name).unwrap_or_else(|| panic!("missing field {name}"))
}

fn text<'a>(value: &'a Value, name: &str) -> &'a str {
    field(value, name).as_str().unwrap_or_else(|| panic!("{name} is not a string"))
}

fn bytes(value: &Value, name: &str) -> Vec<u8> {
    let text = text(value, name);
    hex::decode(text.strip_prefix("0x").expect("0x prefix")).expect("hex")
}

/// Integers above 2^53 are decimal strings in the file.
fn integer(value: &Value, name: &str) -> u128 {
    match field(value, name) {
        Value::Number(n) => u128::from(n.as_u64().expect("unsigned integer")),
        Value::String(s) => s.parse().expect("decimal integer"),
        other => panic!("{name} is not an integer: {other}"),
    }
}

fn small(value: &Value, name: &str) -> u64 {
    u64::try_from(integer(value, name)).expect("fits u64")
}

fn transaction(inputs: &Value) -> Transaction {
    assert!(field(inputs, "access_list").is_null());
    assert!(field(inputs, "signature").is_null());
    let to = match field(inputs, "to") {
        Value::Null => None,
        _ => Some(text(inputs, "to").parse::<Address>().expect("address")),
    };
    Transaction {
        chain_id: small(inputs, "chain_id"),
        nonce: small(inputs, "nonce"),
        to,
        value: integer(inputs, "value"),
        cycles_limit: small(inputs, "cycles_limit"),
        cells_limit: small(inputs, "cells_limit"),
        max_fee_per_cycle: integer(inputs, "max_fee_per_cycle"),
        max_fee_per_cell: integer(inputs, "max_fee_per_cell"),
        tip_per_cycle: integer(inputs, "tip_per_cycle"),
        tip_per_cell: integer(inputs, "tip_per_cell"),
        payload: bytes(inputs, "payload"),
        signature: None,
    }
}

fn message(fields: &Value) -> Message {
    Message { handler: text(fields, "handler").to_owned(), payload: bytes(fields, "payload") }
}

fn manifest(fields: &Value) -> Manifest {
    let object = field(fields, "manifest").as_object().expect("manifest is an object");
    assert!(object.keys().all(|key| key == "entitlements"), "unknown manifest field");
    // The node's JSON form of a manifest: `{}` keeps its form, as the vectors write it.
    serde_json::from_value(field(fields, "manifest").clone()).expect("a manifest")
}

/// Checks the payload forms: building the payload from its fields gives the transaction's
/// payload bytes, decoding those bytes gives the fields back.
fn check_payload(case: &Value, tx: &Transaction, sender: &Address) {
    let name = text(case, "name");
    let Some(fields) = case.get("payload_fields") else {
        assert!(tx.payload.is_empty(), "{name}: a transfer has an empty payload");
        assert!(case.get("actor_address").is_none(), "{name}");
        return;
    };
    if tx.to.is_none() {
        let deploy = Deploy {
            code: bytes(fields, "code"),
            manifest: manifest(fields),
            salt: bytes(fields, "salt"),
            init: fields.get("init").map(message),
        };
        assert_eq!(deploy.encode(), tx.payload, "{name}: deploy payload");
        assert_eq!(Deploy::decode(&tx.payload).as_ref(), Ok(&deploy), "{name}: deploy decode");
        let expected: Address = text(case, "actor_address").parse().expect("address");
        assert_eq!(deploy.actor_address(sender), expected, "{name}: actor address");
        assert_eq!(
            drover_types::payload::actor_address(sender, &deploy.salt, &deploy.code),
            expected,
            "{name}: actor address"
        );
    } else {
        let call = message(fields);
        assert_eq!(call.encode(), tx.payload, "{name}: message payload");
        assert_eq!(Message::decode(&tx.payload).as_ref(), Ok(&call), "{name}: message decode");
    }
}

#[test]
fn key_and_address() {
    let vectors = vectors();
    let key = SecretKey::from_hex(text(&vectors, "private_key")).expect("key");
    assert_eq!(key.address(), text(&vectors, "address").parse::<Address>().unwrap());
    assert_eq!(key.to_hex(), text(&vectors, "private_key"));
}

#[test]
fn every_case_byte_for_byte() {
    let vectors = vectors();
    let key = SecretKey::from_hex(text(&vectors, "private_key")).expect("key");
    let cases = field(&vectors, "cases").as_array().expect("cases");
    assert!(cases.len() >= 6, "the file lost cases");
    for case in cases {
        let name = text(case, "name");
        for key in case.as_object().expect("case is an object").keys() {
            assert!(CASE_FIELDS.contains(&key.as_str()), "{name}: unchecked field {key}");
        }
        let unsigned = transaction(field(case, "inputs"));

        // Unsigned encoding and signing hash.
        let unsigned_cbor = bytes(case, "unsigned_tx_cbor");
        assert_eq!(unsigned.encode_unsigned(), unsigned_cbor, "{name}: unsigned cbor");
        assert_eq!(unsigned.encode(), unsigned_cbor, "{name}: unsigned cbor");
        assert_eq!(Transaction::decode(&unsigned_cbor).as_ref(), Ok(&unsigned), "{name}: unsigned decode");
        let signing_hash: H256 = text(case, "signing_hash").parse().unwrap();
        assert_eq!(unsigned.signing_hash(), signing_hash, "{name}: signing hash");

        // Signature, in both forms.
        let signed = unsigned.clone().sign(&key);
        let signature = signed.signature.expect("signed");
        let published = field(case, "signature");
        assert_eq!(u128::from(signature.y_parity), integer(published, "y_parity"), "{name}: y_parity");
        assert_eq!(signature.r.to_vec(), bytes(published, "r"), "{name}: r");
        assert_eq!(signature.s.to_vec(), bytes(published, "s"), "{name}: s");
        let rsv = bytes(case, "signature_rsv");
        assert_eq!(signature.to_rsv().to_vec(), rsv, "{name}: rsv");
        assert_eq!(Signature::from_rsv(&rsv), Ok(signature), "{name}: rsv parse");
        assert_eq!(key.sign_prehash(&signing_hash), signature, "{name}: prehash signing");

        // Signed encoding, transaction hash, sender.
        let signed_cbor = bytes(case, "signed_tx_cbor");
        assert_eq!(signed.encode(), signed_cbor, "{name}: signed cbor");
        assert_eq!(Transaction::decode(&signed_cbor).as_ref(), Ok(&signed), "{name}: signed decode");
        let tx_hash: H256 = text(case, "tx_hash").parse().unwrap();
        assert_eq!(signed.hash(), tx_hash, "{name}: tx hash");
        assert_eq!(signed.signing_hash(), signing_hash, "{name}: signing hash ignores the signature");
        let sender: Address = text(case, "sender").parse().unwrap();
        assert_eq!(sender, key.address(), "{name}: sender is the key's address");
        assert_eq!(signed.recover_sender(), Ok(sender), "{name}: recovered sender");
        let verified = signed.clone().verify().expect("verifies");
        assert_eq!(verified.hash, tx_hash, "{name}: verified hash");
        assert_eq!(verified.sender, sender, "{name}: verified sender");
        assert_eq!(verified.encoded, signed_cbor, "{name}: verified encoding");
        assert_eq!(verified.tx, signed, "{name}: verified transaction");

        // Submission envelope.
        let submission = bytes(case, "submission_cbor");
        assert_eq!(encode_submission(std::slice::from_ref(&signed)), submission, "{name}: submission");
        let items = decode_submission(&submission).expect("envelope decodes");
        assert_eq!(items.len(), 1, "{name}");
        assert_eq!(items[0].raw, signed_cbor, "{name}: submission element bytes");
        assert_eq!(items[0].decoded.as_ref(), Ok(&signed), "{name}: submission element");

        check_payload(case, &signed, &sender);
    }
}

#[test]
fn whitepaper_case_is_the_design_vector() {
    let vectors = vectors();
    let cases = field(&vectors, "cases").as_array().unwrap();
    let whitepaper = cases.iter().find(|c| text(c, "name") == "whitepaper_transfer").expect("whitepaper case");
    assert_eq!(
        text(whitepaper, "unsigned_tx_cbor"),
        "0x8d010054111111111111111111111111111111111111111101195208000a020100f640f6"
    );
}

#[test]
fn a_batch_of_every_case() {
    let vectors = vectors();
    let key = SecretKey::from_hex(text(&vectors, "private_key")).unwrap();
    let signed: Vec<Transaction> = field(&vectors, "cases")
        .as_array()
        .unwrap()
        .iter()
        .map(|case| transaction(field(case, "inputs")).sign(&key))
        .collect();
    let envelope = encode_submission(&signed);
    let items = decode_submission(&envelope).unwrap();
    for (item, tx) in items.iter().zip(&signed) {
        assert_eq!(item.raw, tx.encode());
        assert_eq!(item.decoded.as_ref(), Ok(tx));
        assert_eq!(item.decoded.clone().unwrap().verify().unwrap().sender, key.address());
    }
}
