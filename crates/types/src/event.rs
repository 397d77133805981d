//! Events emitted by executed transactions and actor handlers: an emitter address, a topic
//! (UTF-8 text) and opaque data.
//!
//! Canonical CBOR is the array `[address: bytes(20), topic: text, data: bytes]` (receipts embed
//! it, so the receipts root commits to it). JSON is `{"address": "0x…", "topic": "…", "data":
//! "<base64>"}` with standard padded base64, per the API's convention for arbitrary bytes.

use crate::Address;
use crate::cbor::{self, CborError, Sink, Writer};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use minicbor::decode::Decoder;
use serde::{Deserialize, Serialize};

/// An event: who emitted it, a topic and opaque data.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Event {
    /// Who emitted it: an actor, or for the native `transfer` event the recipient.
    pub address: Address,
    /// Topic, UTF-8 text (an actor's is at most 64 bytes).
    pub topic: String,
    /// Opaque data (an actor's is at most 16 KiB).
    pub data: Vec<u8>,
}

impl Event {
    /// Canonical CBOR `[address, topic, data]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.topic.len() + self.data.len() + 40);
        self.write(&mut w);
        w.into_inner()
    }

    /// Strict decode of `[bytes(20), text, bytes]`.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        cbor::decode_strict(bytes, Self::read)
    }

    pub(crate) fn write<S: Sink>(&self, w: &mut Writer<S>) {
        w.array(3).bytes(&self.address.0).text(&self.topic).bytes(&self.data);
    }

    pub(crate) fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        cbor::expect_array(d, 3)?;
        let address = Address(cbor::decode_fixed(d)?);
        let topic = d.str()?.to_owned();
        let data = d.bytes()?.to_vec();
        Ok(Event { address, topic, data })
    }
}

#[derive(Serialize)]
struct EventOut<'a> {
    address: Address,
    topic: &'a str,
    data: String,
}

#[derive(Deserialize)]
struct EventIn {
    address: Address,
    topic: String,
    data: String,
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        EventOut { address: self.address, topic: &self.topic, data: BASE64.encode(&self.data) }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let EventIn { address, topic, data } = EventIn::deserialize(d)?;
        let data = BASE64.decode(data).map_err(serde::de::Error::custom)?;
        Ok(Event { address, topic, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> Event {
        Event { address: Address::system(12), topic: "transfer".into(), data: vec![0xfb, 0xff, 0x01] }
    }

    #[test]
    fn cbor_round_trip() {
        let bytes = event().encode();
        assert_eq!(hex::encode(&bytes), "8354000000000000000000000000000000000000000c687472616e7366657243fbff01");
        assert_eq!(Event::decode(&bytes), Ok(event()));
    }

    #[test]
    fn cbor_rejects_other_shapes() {
        let mut w = Writer::with_capacity(64);
        w.array(3).bytes(&[0; 19]).text("t").bytes(&[]);
        assert!(matches!(Event::decode(&w.into_inner()), Err(CborError::Malformed(_))));
        let mut w = Writer::with_capacity(64);
        w.array(3).bytes(&[0; 20]).bytes(b"t").bytes(&[]);
        assert!(matches!(Event::decode(&w.into_inner()), Err(CborError::Malformed(_))));
        let mut w = Writer::with_capacity(64);
        w.array(2).bytes(&[0; 20]).text("t");
        assert!(matches!(Event::decode(&w.into_inner()), Err(CborError::Malformed(_))));
        let mut bytes = event().encode();
        bytes.push(0xf6);
        assert_eq!(Event::decode(&bytes), Err(CborError::Trailing));
    }

    #[test]
    fn json_uses_hex_address_and_padded_base64() {
        let json = serde_json::to_value(event()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "address": "0x000000000000000000000000000000000000000c",
                "topic": "transfer",
                "data": "+/8B",
            })
        );
        assert_eq!(serde_json::from_value::<Event>(json).unwrap(), event());
        let unpadded = r#"{"address":"0x000000000000000000000000000000000000000c","topic":"t","data":"AQ"}"#;
        assert!(serde_json::from_str::<Event>(unpadded).is_err());
        let url_safe = r#"{"address":"0x000000000000000000000000000000000000000c","topic":"t","data":"-_8B"}"#;
        assert!(serde_json::from_str::<Event>(url_safe).is_err());
    }
}
