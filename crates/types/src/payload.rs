//! What a transaction payload means.
//!
//! Everything a transaction does is a message to an address, and the payload's form follows
//! from `to`:
//! - an account without code: a value transfer, the payload is empty;
//! - `null`: a deploy, the payload is a [`Deploy`]
//!   `{"code": bytes, "init"?: Message, "salt": bytes(≤32), "manifest": Manifest}`;
//! - an actor or a system actor (`0x00…01`–`0x00…0f`): a [`Message`]
//!   `{"handler": text, "payload": bytes}`; an empty transaction payload (no Message at all)
//!   only deposits value. An upgrade is a Message to [`ACTOR_UPGRADES_ADDRESS`] with handler
//!   [`UPGRADE_HANDLER`] whose payload is an [`Upgrade`]
//!   `{"code": bytes, "actor": bytes(20), "manifest": Manifest}`.
//!
//! Each form is a canonical CBOR map written with its keys in canonical order (sorted by
//! encoded bytes, so shorter keys first); `init` is left out when there is none. Decoders are
//! strict: canonical bytes, no unknown or missing keys, and what decodes re-encodes to the same
//! bytes. Whether an entitlement id exists is the executor's call.
//!
//! [`Manifest`] is the one declaration of a manifest, `{"entitlements": [text, ...]}`, in every
//! place one travels: a deploy's and an upgrade's payload, a library `publish`'s argument map
//! (`crate::library`), the JSON of `/entitlements/validate-manifest`, of an actor's and a
//! library's records and of a crate's `manifest.json`. The list may be empty. A manifest that
//! grants nothing may also leave the key out (`{}`, as the transaction vectors write it); it keeps
//! the form it was written in, so each form re-encodes to its own bytes.
//!
//! A deployed actor's address is `last20(keccak256(sender ‖ salt ‖ keccak256(code)))`, so a
//! deployer can predict it and redeploying the same code needs another salt.

use crate::cbor::{self, CborError, Sink, Writer};
use crate::{Address, keccak256};
use minicbor::decode::Decoder;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha3::{Digest, Keccak256};
use std::fmt;

/// The actor-upgrades system actor.
pub const ACTOR_UPGRADES_ADDRESS: Address = Address::system(0x0e);
/// The handler of the actor-upgrades system actor.
pub const UPGRADE_HANDLER: &str = "upgrade";

/// Longest deploy salt, in bytes.
pub const MAX_SALT_BYTES: usize = 32;

const KEY_HANDLER: &str = "handler";
const KEY_PAYLOAD: &str = "payload";
const KEY_CODE: &str = "code";
const KEY_INIT: &str = "init";
const KEY_SALT: &str = "salt";
const KEY_MANIFEST: &str = "manifest";
const KEY_ENTITLEMENTS: &str = "entitlements";
const KEY_ACTOR: &str = "actor";

/// A call of `handler` with its argument bytes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Message {
    /// Name of the handler to run (an export of the actor, or a system actor's handler).
    pub handler: String,
    /// Argument bytes for the handler; their format is the handler's.
    pub payload: Vec<u8>,
}

/// An entitlements manifest, `{"entitlements": [id, ...]}`: what an actor or a library may do,
/// by entitlement id (`storage.kv`, `econ.transfer`, ...; `/entitlements/registry` lists them).
/// An empty list grants nothing, and so does `{}`.
// `Manifest::new` writes DESIGN's form; `{}` (the `Default`) is read and kept as written, so
// each form re-encodes to its own bytes (module doc). JSON output always names the key.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Manifest {
    /// Entitlement ids the host calls are gated by, each listed once; empty grants nothing.
    // `None`: the key was left out (`{}`).
    #[serde(serialize_with = "write_ids")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>, required = true))]
    entitlements: Option<Vec<String>>,
}

/// JSON: the ids, `[]` for a key-less manifest (readers see one shape).
fn write_ids<S: Serializer>(ids: &Option<Vec<String>>, s: S) -> Result<S::Ok, S::Error> {
    ids.as_deref().unwrap_or_default().serialize(s)
}

/// JSON input: an object whose only key, `entitlements`, may be left out and is otherwise a
/// list of strings (serde's derive would also take a JSON array for a struct, and `null`).
impl<'de> Deserialize<'de> for Manifest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Form;
        impl<'de> Visitor<'de> for Form {
            type Value = Manifest;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(Manifest::FORM)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Manifest, A::Error> {
                let mut entitlements = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != KEY_ENTITLEMENTS {
                        return Err(de::Error::unknown_field(&key, &[KEY_ENTITLEMENTS]));
                    }
                    if entitlements.is_some() {
                        return Err(de::Error::duplicate_field(KEY_ENTITLEMENTS));
                    }
                    entitlements = Some(map.next_value::<Vec<String>>()?);
                }
                Ok(Manifest { entitlements })
            }
        }
        d.deserialize_map(Form)
    }
}

/// The payload of a deploy (`to` = null).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Deploy {
    /// WebAssembly module.
    pub code: Vec<u8>,
    /// The entitlements the actor is granted.
    pub manifest: Manifest,
    /// At most [`MAX_SALT_BYTES`] bytes, used as given (not padded).
    pub salt: Vec<u8>,
    /// Handler run once right after the deploy.
    pub init: Option<Message>,
}

/// The payload of an upgrade message: the actor, its new code and its new manifest (which may
/// only narrow the current one).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Upgrade {
    /// The actor to upgrade.
    pub actor: Address,
    /// WebAssembly module.
    pub code: Vec<u8>,
    /// The new manifest: a subset of the actor's current entitlements.
    pub manifest: Manifest,
}

impl Message {
    /// Canonical CBOR `{"handler": text, "payload": bytes}`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.handler.len() + self.payload.len() + 32);
        self.write(&mut w);
        w.into_inner()
    }

    /// Strict decode of `{"handler": text, "payload": bytes}`.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, Self::read)
    }

    fn write<S: Sink>(&self, w: &mut Writer<S>) {
        w.map(2).text(KEY_HANDLER).text(&self.handler).text(KEY_PAYLOAD).bytes(&self.payload);
    }

    fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        expect_entries(d, 2, "message")?;
        expect_key(d, KEY_HANDLER)?;
        let handler = d.str()?.to_owned();
        expect_key(d, KEY_PAYLOAD)?;
        let payload = d.bytes()?.to_vec();
        Ok(Message { handler, payload })
    }
}

impl Manifest {
    /// What a manifest is, for refusals: `{"entitlements": [text, ...]}`.
    pub const FORM: &'static str = "a manifest {\"entitlements\": [text, ...]}";

    /// `{"entitlements": ids}`, the form DESIGN gives (also when `ids` is empty).
    pub fn new(ids: Vec<String>) -> Self {
        Manifest { entitlements: Some(ids) }
    }

    /// The entitlement ids, in the order written.
    pub fn entitlements(&self) -> &[String] {
        self.entitlements.as_deref().unwrap_or_default()
    }

    /// The entitlement ids, owned.
    pub fn into_entitlements(self) -> Vec<String> {
        self.entitlements.unwrap_or_default()
    }

    /// Canonical CBOR: `{"entitlements": [text, ...]}`, or `{}` for a key-less manifest.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(32 + self.entitlements().iter().map(|id| id.len() + 9).sum::<usize>());
        self.write(&mut w);
        w.into_inner()
    }

    /// Strict decode of `{"entitlements": [text, ...]}` (the list may be empty) or `{}`.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, Self::read)
    }

    fn write<S: Sink>(&self, w: &mut Writer<S>) {
        let Some(ids) = &self.entitlements else {
            w.map(0);
            return;
        };
        w.map(1).text(KEY_ENTITLEMENTS).array(ids.len() as u64);
        for id in ids {
            w.text(id);
        }
    }

    fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        let at = d.position();
        match cbor::expect_map(d)? {
            0 => return Ok(Manifest { entitlements: None }),
            1 => {}
            n => {
                return Err(CborError::malformed(format!("manifest has {n} keys at byte {at}")));
            }
        }
        expect_key(d, KEY_ENTITLEMENTS)?;
        let at = d.position();
        let len = d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
        // Each id takes at least one byte, so a length above the input size is a lie; the
        // bound keeps a hostile length from reserving memory.
        let capacity = usize::try_from(len).unwrap_or(usize::MAX).min(d.input().len());
        let mut entitlements = Vec::with_capacity(capacity);
        for _ in 0..len {
            entitlements.push(d.str()?.to_owned());
        }
        Ok(Manifest::new(entitlements))
    }
}

impl Deploy {
    /// Canonical CBOR `{"code": bytes, "init"?: Message, "salt": bytes, "manifest": Manifest}`.
    pub fn encode(&self) -> Vec<u8> {
        let init_len = self.init.as_ref().map_or(0, |m| m.handler.len() + m.payload.len() + 32);
        let mut w = Writer::with_capacity(self.code.len() + self.salt.len() + init_len + 64);
        // Canonical key order: "code", "init", "salt" (4 letters) before "manifest" (8).
        w.map(if self.init.is_some() { 4 } else { 3 }).text(KEY_CODE).bytes(&self.code);
        if let Some(init) = &self.init {
            w.text(KEY_INIT);
            init.write(&mut w);
        }
        w.text(KEY_SALT).bytes(&self.salt).text(KEY_MANIFEST);
        self.manifest.write(&mut w);
        w.into_inner()
    }

    /// Strict decode of `{"code": bytes, "init"?: Message, "salt": bytes(≤32), "manifest":
    /// Manifest}`.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, Self::read)
    }

    /// The address the deployed actor will have when `sender` deploys this payload.
    pub fn actor_address(&self, sender: &Address) -> Address {
        actor_address(sender, &self.salt, &self.code)
    }

    fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        let at = d.position();
        let has_init = match cbor::expect_map(d)? {
            3 => false,
            4 => true,
            n => {
                return Err(CborError::malformed(format!("deploy payload has {n} keys at byte {at}")));
            }
        };
        expect_key(d, KEY_CODE)?;
        let code = d.bytes()?.to_vec();
        let init = if has_init {
            expect_key(d, KEY_INIT)?;
            Some(Message::read(d)?)
        } else {
            None
        };
        expect_key(d, KEY_SALT)?;
        let at = d.position();
        let salt = d.bytes()?;
        if salt.len() > MAX_SALT_BYTES {
            return Err(CborError::malformed(format!(
                "salt of {} bytes exceeds {MAX_SALT_BYTES} at byte {at}",
                salt.len()
            )));
        }
        let salt = salt.to_vec();
        expect_key(d, KEY_MANIFEST)?;
        let manifest = Manifest::read(d)?;
        Ok(Deploy { code, manifest, salt, init })
    }
}

impl Upgrade {
    /// Canonical CBOR `{"code": bytes, "actor": bytes(20), "manifest": Manifest}`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.code.len() + 96);
        // Canonical key order: "code" (4 letters), "actor" (5), "manifest" (8).
        w.map(3).text(KEY_CODE).bytes(&self.code).text(KEY_ACTOR).bytes(&self.actor.0).text(KEY_MANIFEST);
        self.manifest.write(&mut w);
        w.into_inner()
    }

    /// The transaction payload: this upgrade as a [`Message`] to [`UPGRADE_HANDLER`] (send it
    /// to [`ACTOR_UPGRADES_ADDRESS`]).
    pub fn message(&self) -> Vec<u8> {
        Message { handler: UPGRADE_HANDLER.to_owned(), payload: self.encode() }.encode()
    }

    /// Strict decode of `{"code": bytes, "actor": bytes(20), "manifest": Manifest}`.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, |d| {
            expect_entries(d, 3, "upgrade payload")?;
            expect_key(d, KEY_CODE)?;
            let code = d.bytes()?.to_vec();
            expect_key(d, KEY_ACTOR)?;
            let at = d.position();
            let actor = Address::from_slice(d.bytes()?)
                .ok_or_else(|| CborError::malformed(format!("actor is not 20 bytes at byte {at}")))?;
            expect_key(d, KEY_MANIFEST)?;
            let manifest = Manifest::read(d)?;
            Ok(Upgrade { actor, code, manifest })
        })
    }
}

/// `last20(keccak256(sender ‖ salt ‖ keccak256(code)))`.
pub fn actor_address(sender: &Address, salt: &[u8], code: &[u8]) -> Address {
    let digest: [u8; 32] =
        Keccak256::new().chain_update(sender.0).chain_update(salt).chain_update(keccak256(code).0).finalize().into();
    // Keep the last 20 of the 32 digest bytes.
    let [_, _, _, _, _, _, _, _, _, _, _, _, address @ ..] = digest;
    Address(address)
}

/// Reads a map head and checks its entry count (the bytes are known to be canonical).
fn expect_entries(d: &mut Decoder<'_>, entries: u64, what: &str) -> Result<(), CborError> {
    let at = d.position();
    let found = cbor::expect_map(d)?;
    if found != entries {
        return Err(CborError::malformed(format!("{what} must have {entries} keys, found {found} at byte {at}")));
    }
    Ok(())
}

/// Reads a text key and checks it is `key`. Canonical bytes have their keys sorted, so a
/// reader that expects them in that order sees any unknown or missing key here.
fn expect_key(d: &mut Decoder<'_>, key: &str) -> Result<(), CborError> {
    let at = d.position();
    match d.str() {
        Ok(found) if found == key => Ok(()),
        _ => Err(CborError::malformed(format!("expected key \"{key}\" at byte {at}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message() -> Message {
        Message { handler: "ping".into(), payload: b"hello".to_vec() }
    }

    fn deploy(init: Option<Message>) -> Deploy {
        Deploy {
            code: hex::decode("0061736d01000000").unwrap(),
            manifest: Manifest::new(vec!["storage.kv".into(), "mailbox.send".into()]),
            salt: vec![1; 32],
            init,
        }
    }

    #[test]
    fn message_encoding() {
        let bytes = message().encode();
        assert_eq!(hex::encode(&bytes), "a26768616e646c65726470696e67677061796c6f61644568656c6c6f");
        assert_eq!(Message::decode(&bytes), Ok(message()));
        let empty = Message { handler: String::new(), payload: Vec::new() };
        assert_eq!(Message::decode(&empty.encode()), Ok(empty));
    }

    #[test]
    fn deploy_round_trips_with_and_without_init() {
        for manifest in [Manifest::default(), Manifest::new(Vec::new())] {
            let value = Deploy { manifest, ..deploy(None) };
            let bytes = value.encode();
            assert_eq!(Deploy::decode(&bytes), Ok(value));
        }
        for value in [deploy(None), deploy(Some(message()))] {
            let bytes = value.encode();
            assert_eq!(cbor::check_canonical(&bytes), Ok(()));
            assert_eq!(Deploy::decode(&bytes), Ok(value));
        }
    }

    #[test]
    fn upgrade_round_trips_and_rejects_other_forms() {
        let upgrade = Upgrade { actor: Address([7; 20]), code: vec![0, 0x61], manifest: deploy(None).manifest };
        let bytes = upgrade.encode();
        assert_eq!(cbor::check_canonical(&bytes), Ok(()));
        assert_eq!(Upgrade::decode(&bytes), Ok(upgrade.clone()));
        let message = Message::decode(&upgrade.message()).unwrap();
        assert_eq!((message.handler.as_str(), message.payload), (UPGRADE_HANDLER, bytes));
        // A 19-byte actor, and a deploy payload, are not upgrades.
        let mut short = Writer::with_capacity(64);
        short.map(3).text(KEY_CODE).bytes(&[0]).text(KEY_ACTOR).bytes(&[7; 19]).text(KEY_MANIFEST).map(0);
        assert!(matches!(Upgrade::decode(&short.into_inner()), Err(CborError::Malformed(_))));
        assert!(Upgrade::decode(&deploy(None).encode()).is_err());
    }

    #[test]
    fn manifest_encoding() {
        assert_eq!(hex::encode(Manifest::default().encode()), "a0");
        let manifest = Manifest::new(vec!["storage.kv".into()]);
        let bytes = manifest.encode();
        assert_eq!(hex::encode(&bytes), "a16c656e7469746c656d656e7473816a73746f726167652e6b76");
        assert_eq!(Manifest::decode(&bytes), Ok(manifest));
    }

    #[test]
    fn an_empty_list_and_a_missing_key_both_grant_nothing_and_keep_their_form() {
        // DESIGN's form with no id, and the vectors' `{}`.
        for (hex_bytes, manifest) in
            [("a16c656e7469746c656d656e747380", Manifest::new(Vec::new())), ("a0", Manifest::default())]
        {
            let bytes = hex::decode(hex_bytes).unwrap();
            assert_eq!(Manifest::decode(&bytes), Ok(manifest.clone()), "{hex_bytes}");
            assert!(manifest.entitlements().is_empty());
            assert_eq!(manifest.encode(), bytes);
        }
    }

    #[test]
    fn manifest_json_is_the_same_declaration() {
        let read = |text: &str| serde_json::from_str::<Manifest>(text).map_err(|e| e.to_string());
        assert_eq!(read(r#"{"entitlements": ["storage.kv"]}"#), Ok(Manifest::new(vec!["storage.kv".into()])));
        assert_eq!(read(r#"{"entitlements": []}"#), Ok(Manifest::new(Vec::new())));
        assert_eq!(read("{}"), Ok(Manifest::default()));
        for bad in [r#"{"entitlements": null}"#, r#"{"entitlements": [7]}"#, r#"{"entitlement": []}"#, "[]", r#""x""#] {
            assert!(read(bad).is_err(), "{bad}");
        }
        // Every JSON manifest is a CBOR one a deploy decodes; JSON output names the key.
        for manifest in [Manifest::default(), Manifest::new(Vec::new()), Manifest::new(vec!["timer.schedule".into()])] {
            assert_eq!(Manifest::decode(&manifest.encode()), Ok(manifest.clone()));
            let json = serde_json::to_value(&manifest).unwrap();
            assert_eq!(json["entitlements"].as_array().map(Vec::len), Some(manifest.entitlements().len()));
        }
    }

    #[test]
    fn manifest_rejects_other_forms() {
        for bad in [
            "a16c656e7469746c656d656e747381 01", // id not text
            "a16b656e7469746c656d656e7473 80",   // another key
            "80",                                // not a map
            "a16c656e7469746c656d656e7473 f6",   // null list
        ] {
            let bytes = hex::decode(bad.replace(' ', "")).unwrap();
            assert!(matches!(Manifest::decode(&bytes), Err(CborError::Malformed(_))), "{bad}");
        }
    }

    #[test]
    fn deploy_rejects_other_forms() {
        let long_salt = Deploy { salt: vec![1; MAX_SALT_BYTES + 1], ..deploy(None) };
        assert!(matches!(Deploy::decode(&long_salt.encode()), Err(CborError::Malformed(_))));
        let max_salt = Deploy { salt: vec![1; MAX_SALT_BYTES], ..deploy(None) };
        assert!(Deploy::decode(&max_salt.encode()).is_ok());
        let mut w = Writer::with_capacity(64);
        w.map(3).text("code").bytes(&[0]).text("salt").bytes(&[]).text("extra").null();
        assert!(matches!(Deploy::decode(&w.into_inner()), Err(CborError::Malformed(_))));
        let mut w = Writer::with_capacity(64);
        w.map(2).text("code").bytes(&[0]).text("salt").bytes(&[]);
        assert!(matches!(Deploy::decode(&w.into_inner()), Err(CborError::Malformed(_))));
        // A message is not a deploy, and a deploy is not a message.
        assert!(Deploy::decode(&message().encode()).is_err());
        assert!(Message::decode(&deploy(None).encode()).is_err());
    }

    #[test]
    fn message_rejects_other_forms() {
        let mut w = Writer::with_capacity(64);
        w.map(2).text("handler").bytes(b"ping").text("payload").bytes(&[]);
        assert!(matches!(Message::decode(&w.into_inner()), Err(CborError::Malformed(_))));
        let mut w = Writer::with_capacity(64);
        w.map(1).text("handler").text("ping");
        assert!(matches!(Message::decode(&w.into_inner()), Err(CborError::Malformed(_))));
        // Keys in the wrong order are not canonical.
        let mut w = Writer::with_capacity(64);
        w.map(2).text("payload").bytes(&[]).text("handler").text("ping");
        assert!(matches!(Message::decode(&w.into_inner()), Err(CborError::NonCanonical(_))));
        let mut bytes = message().encode();
        bytes.push(0);
        assert_eq!(Message::decode(&bytes), Err(CborError::Trailing));
    }

    #[test]
    fn actor_address_hashes_sender_salt_and_code_hash() {
        let sender = Address([0xaa; 20]);
        let code = b"\0asm\x01\0\0\0";
        let preimage = [&sender.0[..], &[7, 7], &keccak256(code).0].concat();
        let expected = Address::from_slice(&keccak256(&preimage).0[12..]).unwrap();
        assert_eq!(actor_address(&sender, &[7, 7], code), expected);
        assert_ne!(actor_address(&sender, &[7], code), expected);
    }
}
