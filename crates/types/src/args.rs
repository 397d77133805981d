//! Arguments of a native system-actor handler: a canonical CBOR map with text keys.
//!
//! A Message to a system actor (any of `crate::system_actors`) carries its arguments as one
//! canonical CBOR map: text keys, `u128` amounts as CBOR unsigned integers (tag 2
//! above 2^64-1), addresses as `bytes(20)`, optional keys left out. [`Args`] decodes such a map
//! once and hands out typed values by key; [`ArgsBuilder`] writes one with its keys in canonical
//! order whatever order they were given in, so clients and the executor agree on the bytes.
//!
//! Decoding is strict like every other wire form: the bytes must be canonical (so a key appears
//! once), every key must be text, and a handler names the keys it accepts ([`Args::only`]) so a
//! misspelt optional key is an error rather than silently ignored. Values are decoded lazily:
//! a key's bytes are kept as a slice of the input and checked when the handler asks for them.

use crate::cbor::{self, CborError, Writer};
use crate::{Address, H256};
use minicbor::data::Type;
use minicbor::decode::Decoder;

/// Why a payload is not the argument map a handler expects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// The payload is not one canonical CBOR map with text keys.
    #[error("arguments are not a canonical CBOR map with text keys: {0}")]
    Encoding(#[from] CborError),
    /// A required key is absent.
    #[error("argument {0:?} is missing")]
    Missing(String),
    /// A key holds a value of another type or outside its range.
    #[error("argument {key:?} must be {expected}")]
    Invalid {
        /// The argument's key.
        key: String,
        /// What it must be, e.g. `"bytes(20) (an address)"`.
        expected: &'static str,
    },
    /// A key the handler does not take.
    #[error("unknown argument {key:?}; this handler takes {accepted}")]
    Unknown {
        /// The unexpected key.
        key: String,
        /// The keys the handler takes, comma-separated.
        accepted: String,
    },
}

/// A decoded argument map: each key with the encoded bytes of its value.
#[derive(Debug, Clone)]
pub struct Args<'b> {
    entries: Vec<(&'b str, &'b [u8])>,
}

impl<'b> Args<'b> {
    /// The encoded bytes of `key`'s value, for a value no typed getter reads (checked canonical
    /// with the whole map).
    pub fn encoded(&self, key: &str) -> Result<&'b [u8], ArgsError> {
        self.raw(key).ok_or_else(|| ArgsError::Missing(key.to_owned()))
    }

    /// The map's keys, in canonical order.
    pub fn keys(&self) -> impl Iterator<Item = &'b str> + '_ {
        self.entries.iter().map(|(key, _)| *key)
    }

    /// Decodes `bytes` as one canonical CBOR map with text keys.
    pub fn decode(bytes: &'b [u8]) -> Result<Self, ArgsError> {
        cbor::check_canonical(bytes)?;
        let mut d = Decoder::new(bytes);
        let count = cbor::expect_map(&mut d)?;
        // Each entry takes at least two bytes: a count above the input size is a lie.
        let mut entries = Vec::with_capacity(usize::try_from(count).unwrap_or(usize::MAX).min(bytes.len() / 2));
        for _ in 0..count {
            if d.datatype().map_err(CborError::from)? != Type::String {
                return Err(CborError::malformed(format!("a non-text key at byte {}", d.position())).into());
            }
            let key = d.str().map_err(CborError::from)?;
            let start = d.position();
            d.skip().map_err(CborError::from)?;
            // `skip` only advances within the (already checked) input.
            entries.push((key, &bytes[start..d.position()]));
        }
        Ok(Args { entries })
    }

    /// Refuses any key outside `accepted`.
    pub fn only(&self, accepted: &[&str]) -> Result<(), ArgsError> {
        match self.entries.iter().find(|(key, _)| !accepted.contains(key)) {
            Some((key, _)) => Err(ArgsError::Unknown { key: (*key).to_owned(), accepted: accepted.join(", ") }),
            None => Ok(()),
        }
    }

    fn raw(&self, key: &str) -> Option<&'b [u8]> {
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, value)| *value)
    }

    /// Decodes the value of `key` with `read`, if present.
    fn optional<T>(
        &self,
        key: &str,
        expected: &'static str,
        read: impl FnOnce(&mut Decoder<'b>) -> Result<T, minicbor::decode::Error>,
    ) -> Result<Option<T>, ArgsError> {
        let Some(raw) = self.raw(key) else { return Ok(None) };
        let invalid = || ArgsError::Invalid { key: key.to_owned(), expected };
        let mut d = Decoder::new(raw);
        let value = read(&mut d).map_err(|_| invalid())?;
        if d.position() != raw.len() {
            return Err(invalid());
        }
        Ok(Some(value))
    }

    fn required<T>(&self, key: &str, value: Result<Option<T>, ArgsError>) -> Result<T, ArgsError> {
        value?.ok_or_else(|| ArgsError::Missing(key.to_owned()))
    }

    /// An optional address (`bytes(20)`).
    pub fn opt_address(&self, key: &str) -> Result<Option<Address>, ArgsError> {
        let bytes = self.opt_bytes_of(key, "bytes(20) (an address)")?;
        bytes
            .map(|b| {
                Address::from_slice(b)
                    .ok_or(ArgsError::Invalid { key: key.to_owned(), expected: "bytes(20) (an address)" })
            })
            .transpose()
    }

    /// A required address (`bytes(20)`).
    pub fn address(&self, key: &str) -> Result<Address, ArgsError> {
        self.required(key, self.opt_address(key))
    }

    /// A required 32-byte id.
    pub fn id(&self, key: &str) -> Result<H256, ArgsError> {
        let bytes = self.required(key, self.opt_bytes_of(key, "bytes(32)"))?;
        let id: [u8; 32] =
            bytes.try_into().map_err(|_| ArgsError::Invalid { key: key.to_owned(), expected: "bytes(32)" })?;
        Ok(H256(id))
    }

    /// An optional unsigned integer up to 2^128-1.
    pub fn opt_u128(&self, key: &str) -> Result<Option<u128>, ArgsError> {
        let raw = self.raw(key);
        raw.map(|raw| {
            let mut d = Decoder::new(raw);
            cbor::decode_u128(&mut d)
                .ok()
                .filter(|_| d.position() == raw.len())
                .ok_or(ArgsError::Invalid { key: key.to_owned(), expected: "an unsigned integer below 2^128" })
        })
        .transpose()
    }

    /// A required unsigned integer up to 2^128-1.
    pub fn u128(&self, key: &str) -> Result<u128, ArgsError> {
        self.required(key, self.opt_u128(key))
    }

    /// An optional unsigned integer up to 2^64-1.
    pub fn opt_uint(&self, key: &str) -> Result<Option<u64>, ArgsError> {
        self.optional(key, "an unsigned integer below 2^64", |d| d.u64())
    }

    /// A required unsigned integer up to 2^64-1.
    pub fn uint(&self, key: &str) -> Result<u64, ArgsError> {
        self.required(key, self.opt_uint(key))
    }

    /// An optional text string.
    pub fn opt_text(&self, key: &str) -> Result<Option<&'b str>, ArgsError> {
        self.optional(key, "a text string", |d| d.str())
    }

    /// A required text string.
    pub fn text(&self, key: &str) -> Result<&'b str, ArgsError> {
        self.required(key, self.opt_text(key))
    }

    /// An optional boolean.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, ArgsError> {
        self.optional(key, "a boolean", |d| d.bool())
    }

    /// A required boolean.
    pub fn bool(&self, key: &str) -> Result<bool, ArgsError> {
        self.required(key, self.opt_bool(key))
    }

    /// An optional byte string.
    pub fn opt_bytes(&self, key: &str) -> Result<Option<&'b [u8]>, ArgsError> {
        self.opt_bytes_of(key, "a byte string")
    }

    /// A required byte string.
    pub fn bytes(&self, key: &str) -> Result<&'b [u8], ArgsError> {
        self.required(key, self.opt_bytes(key))
    }

    /// An optional nested argument map.
    pub fn opt_map(&self, key: &str) -> Result<Option<Args<'b>>, ArgsError> {
        let Some(raw) = self.raw(key) else { return Ok(None) };
        // The whole payload was checked canonical, so the nested item is too.
        Args::decode(raw)
            .map(Some)
            .map_err(|_| ArgsError::Invalid { key: key.to_owned(), expected: "a map with text keys" })
    }

    /// A required nested argument map.
    pub fn map(&self, key: &str) -> Result<Args<'b>, ArgsError> {
        self.required(key, self.opt_map(key))
    }

    /// A required array of text strings.
    pub fn texts(&self, key: &str) -> Result<Vec<&'b str>, ArgsError> {
        let value = self.optional(key, "an array of text strings", |d| {
            let len = d.array()?.unwrap_or(0);
            // Each element takes at least one byte: a length above the input size is a lie.
            let mut texts = Vec::with_capacity(usize::try_from(len).unwrap_or(usize::MAX).min(d.input().len()));
            for _ in 0..len {
                texts.push(d.str()?);
            }
            Ok(texts)
        });
        self.required(key, value)
    }

    fn opt_bytes_of(&self, key: &str, expected: &'static str) -> Result<Option<&'b [u8]>, ArgsError> {
        self.optional(key, expected, |d| d.bytes())
    }
}

/// Writes an argument map with its keys in canonical order.
#[derive(Debug, Clone, Default)]
pub struct ArgsBuilder {
    entries: Vec<(String, Vec<u8>)>,
}

impl ArgsBuilder {
    /// An empty map (`{}`: what a handler without arguments takes).
    pub fn new() -> Self {
        Self::default()
    }

    fn put(mut self, key: &str, write: impl FnOnce(&mut Writer<Vec<u8>>)) -> Self {
        let mut w = Writer::with_capacity(24);
        write(&mut w);
        self.entries.retain(|(k, _)| k != key);
        self.entries.push((key.to_owned(), w.into_inner()));
        self
    }

    /// Sets `key` to an address (`bytes(20)`).
    pub fn address(self, key: &str, address: &Address) -> Self {
        self.put(key, |w| {
            w.bytes(&address.0);
        })
    }

    /// Sets `key` to a 32-byte id.
    pub fn id(self, key: &str, id: &H256) -> Self {
        self.put(key, |w| {
            w.bytes(&id.0);
        })
    }

    /// Sets `key` to an unsigned integer (tag 2 above 2^64-1).
    pub fn u128(self, key: &str, value: u128) -> Self {
        self.put(key, |w| {
            w.u128(value);
        })
    }

    /// Sets `key` to an unsigned integer.
    pub fn uint(self, key: &str, value: u64) -> Self {
        self.put(key, |w| {
            w.uint(value);
        })
    }

    /// Sets `key` to a text string.
    pub fn text(self, key: &str, value: &str) -> Self {
        self.put(key, |w| {
            w.text(value);
        })
    }

    /// Sets `key` to a boolean.
    pub fn bool(self, key: &str, value: bool) -> Self {
        self.put(key, |w| {
            w.bool(value);
        })
    }

    /// Sets `key` to a byte string.
    pub fn bytes(self, key: &str, value: &[u8]) -> Self {
        self.put(key, |w| {
            w.bytes(value);
        })
    }

    /// Sets `key` to a nested argument map.
    pub fn map(mut self, key: &str, value: ArgsBuilder) -> Self {
        let encoded = value.encode();
        self.entries.retain(|(k, _)| k != key);
        self.entries.push((key.to_owned(), encoded));
        self
    }

    /// Sets `key` to an array of text strings.
    pub fn texts(self, key: &str, values: &[String]) -> Self {
        self.put(key, |w| {
            w.array(values.len() as u64);
            for value in values {
                w.text(value);
            }
        })
    }

    /// Puts `value`, already one canonical CBOR item, under `key`.
    pub fn raw(mut self, key: &str, value: Vec<u8>) -> Self {
        self.entries.retain(|(k, _)| k != key);
        self.entries.push((key.to_owned(), value));
        self
    }

    /// The canonical encoding: keys sorted by their encoded bytes (shorter keys first).
    pub fn encode(mut self) -> Vec<u8> {
        self.entries.sort_by(|(a, _), (b, _)| a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes())));
        let size: usize = self.entries.iter().map(|(k, v)| k.len() + v.len() + 9).sum();
        let mut w = Writer::with_capacity(size + 9);
        w.map(self.entries.len() as u64);
        let mut out = w.into_inner();
        for (key, value) in &self.entries {
            let mut w = Writer::with_capacity(key.len() + 9);
            w.text(key);
            out.extend_from_slice(&w.into_inner());
            out.extend_from_slice(value);
        }
        out
    }
}

/// Helpers for tests of argument maps: every variant of a valid map with one key missing or
/// one value of the wrong type.
#[cfg(test)]
pub(crate) mod mutations {
    use super::*;

    /// The `(key, encoded value)` entries of a canonical map, in order.
    fn entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
        let args = Args::decode(bytes).expect("a valid argument map");
        args.entries.iter().map(|(k, v)| ((*k).to_owned(), v.to_vec())).collect()
    }

    fn rebuild(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
        let mut w = Writer::with_capacity(64);
        w.map(entries.len() as u64);
        let mut out = w.into_inner();
        for (key, value) in entries {
            let mut w = Writer::with_capacity(key.len() + 9);
            w.text(key);
            out.extend_from_slice(&w.into_inner());
            out.extend_from_slice(value);
        }
        out
    }

    /// Every map that `valid` becomes with one key removed, or one value replaced by a value of
    /// another type, with a description.
    pub(crate) fn broken(valid: &[u8]) -> Vec<(String, Vec<u8>)> {
        let entries = entries(valid);
        let mut out = Vec::new();
        for (i, (key, value)) in entries.iter().enumerate() {
            let mut without = entries.clone();
            without.remove(i);
            out.push((format!("{key} missing"), rebuild(&without)));
            // A text where the value is not text, a negative integer where it is.
            let wrong = if value.first().is_some_and(|b| b >> 5 == 3) { vec![0x20] } else { vec![0x61, b'x'] };
            let mut retyped = entries.clone();
            retyped[i].1 = wrong;
            out.push((format!("{key} of the wrong type"), rebuild(&retyped)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        ArgsBuilder::new()
            .u128("amount", u128::MAX)
            .address("to", &Address([7; 20]))
            .text("name", "Gold")
            .bool("mintable", true)
            .uint("decimals", 9)
            .encode()
    }

    #[test]
    fn builder_output_is_canonical_and_reads_back() {
        let bytes = sample();
        cbor::check_canonical(&bytes).unwrap();
        let args = Args::decode(&bytes).unwrap();
        assert_eq!(args.u128("amount").unwrap(), u128::MAX);
        assert_eq!(args.address("to").unwrap(), Address([7; 20]));
        assert_eq!(args.text("name").unwrap(), "Gold");
        assert!(args.bool("mintable").unwrap());
        assert_eq!(args.uint("decimals").unwrap(), 9);
        assert_eq!(args.opt_u128("max_supply").unwrap(), None);
        args.only(&["amount", "to", "name", "mintable", "decimals"]).unwrap();
    }

    #[test]
    fn nested_maps_and_text_arrays() {
        let inner = ArgsBuilder::new().u128("price_per_job", 7).texts("job_types", &["echo".into(), "wasm".into()]);
        let bytes = ArgsBuilder::new().map("card", inner).bool("b", false).encode();
        cbor::check_canonical(&bytes).unwrap();
        let args = Args::decode(&bytes).unwrap();
        let card = args.map("card").unwrap();
        assert_eq!(card.u128("price_per_job").unwrap(), 7);
        assert_eq!(card.texts("job_types").unwrap(), ["echo", "wasm"]);
        assert!(matches!(args.map("b"), Err(ArgsError::Invalid { .. })));
        assert!(matches!(card.texts("price_per_job"), Err(ArgsError::Invalid { .. })));
        assert_eq!(args.opt_map("none").unwrap().map(|_| ()), None);
    }

    #[test]
    fn small_amounts_are_plain_integers() {
        let bytes = ArgsBuilder::new().u128("amount", 5).encode();
        assert_eq!(bytes, [0xa1, 0x66, b'a', b'm', b'o', b'u', b'n', b't', 0x05]);
        assert_eq!(ArgsBuilder::new().encode(), [0xa0]);
    }

    #[test]
    fn refusals_name_the_key() {
        let args_bytes = sample();
        let args = Args::decode(&args_bytes).unwrap();
        assert_eq!(args.address("from"), Err(ArgsError::Missing("from".into())));
        assert!(matches!(args.address("name"), Err(ArgsError::Invalid { key, .. }) if key == "name"));
        assert!(matches!(args.u128("to"), Err(ArgsError::Invalid { .. })));
        assert!(matches!(args.uint("amount"), Err(ArgsError::Invalid { .. })));
        assert!(matches!(args.text("decimals"), Err(ArgsError::Invalid { .. })));
        assert!(matches!(args.only(&["amount"]), Err(ArgsError::Unknown { key, .. }) if key == "to"));
        let short = ArgsBuilder::new().bytes("to", &[1; 19]).encode();
        assert!(matches!(Args::decode(&short).unwrap().address("to"), Err(ArgsError::Invalid { .. })));
    }

    #[test]
    fn non_maps_non_text_keys_and_non_canonical_bytes_are_refused() {
        assert!(matches!(Args::decode(&[0x80]), Err(ArgsError::Encoding(_))));
        assert!(matches!(Args::decode(&[0xa1, 0x01, 0x02]), Err(ArgsError::Encoding(_))));
        // Keys out of canonical order.
        assert!(matches!(Args::decode(&[0xa2, 0x61, b'b', 0x01, 0x61, b'a', 0x02]), Err(ArgsError::Encoding(_))));
        // A non-shortest integer.
        assert!(matches!(Args::decode(&[0xa1, 0x61, b'a', 0x18, 0x01]), Err(ArgsError::Encoding(_))));
        assert!(matches!(Args::decode(&[]), Err(ArgsError::Encoding(_))));
    }
}
