//! Argument maps of the calls of every native system actor (the list, with each actor's address
//! and handlers, is `docs/protocol.md`, "System actors"): one canonical CBOR map with text keys,
//! `u128` amounts as unsigned integers (tag 2 above 2^64-1), addresses as `bytes(20)`
//! (`docs/protocol.md`, "Payloads").
//!
//! The chain refuses any other encoding of the same map, so [`Args::encode`] writes exactly the
//! canonical bytes: every head in its shortest form, definite lengths, keys sorted by their
//! encoded bytes (which, for text keys, puts shorter keys first). Only the item kinds those
//! argument maps use are written, which is why this is a few dozen lines rather than a CBOR
//! library in every actor's module; the SDK's tests check the bytes against the node's own
//! encoder (`drover_types::args::ArgsBuilder`).

use crate::Address;
use alloc::vec::Vec;

/// CBOR major types used by argument maps.
const UINT: u8 = 0;
const BYTES: u8 = 2;
const TEXT: u8 = 3;
const MAP: u8 = 5;
const TAG: u8 = 6;
/// Tag of a positive bignum (an amount above `u64::MAX`).
const TAG_BIGNUM: u64 = 2;
const FALSE: u8 = 0xf4;
const TRUE: u8 = 0xf5;

/// Writes a head (major type and argument) in its shortest form.
fn head(out: &mut Vec<u8>, major: u8, value: u64) {
    let major = major << 5;
    match value {
        0..=23 => out.push(major | value as u8),
        24..=0xff => out.extend([major | 24, value as u8]),
        0x100..=0xffff => {
            out.push(major | 25);
            out.extend((value as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(major | 26);
            out.extend((value as u32).to_be_bytes());
        }
        _ => {
            out.push(major | 27);
            out.extend(value.to_be_bytes());
        }
    }
}

fn bytes_item(out: &mut Vec<u8>, major: u8, bytes: &[u8]) {
    head(out, major, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Writes an unsigned integer: a plain one up to `u64::MAX`, a bignum with the shortest
/// big-endian magnitude above.
fn uint_item(out: &mut Vec<u8>, value: u128) {
    match u64::try_from(value) {
        Ok(small) => head(out, UINT, small),
        Err(_) => {
            head(out, TAG, TAG_BIGNUM);
            let be = value.to_be_bytes();
            let first = be.iter().position(|b| *b != 0).unwrap_or(be.len());
            bytes_item(out, BYTES, &be[first..]);
        }
    }
}

/// An argument map under construction; setting a key twice keeps the last value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// Encoded key, encoded value.
    entries: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Args {
    /// An empty map (`{}`).
    pub fn new() -> Self {
        Self::default()
    }

    fn put(mut self, key: &str, value: Vec<u8>) -> Self {
        let mut encoded_key = Vec::with_capacity(key.len() + 1);
        bytes_item(&mut encoded_key, TEXT, key.as_bytes());
        self.entries.retain(|(k, _)| *k != encoded_key);
        self.entries.push((encoded_key, value));
        self
    }

    /// Sets `key` to an unsigned integer (an amount, a count, a height).
    pub fn uint(self, key: &str, value: u128) -> Self {
        let mut out = Vec::new();
        uint_item(&mut out, value);
        self.put(key, out)
    }

    /// Sets `key` to a text string.
    pub fn text(self, key: &str, value: &str) -> Self {
        let mut out = Vec::new();
        bytes_item(&mut out, TEXT, value.as_bytes());
        self.put(key, out)
    }

    /// Sets `key` to a byte string.
    pub fn bytes(self, key: &str, value: &[u8]) -> Self {
        let mut out = Vec::new();
        bytes_item(&mut out, BYTES, value);
        self.put(key, out)
    }

    /// Sets `key` to an address (`bytes(20)`).
    pub fn address(self, key: &str, address: &Address) -> Self {
        self.bytes(key, &address.0)
    }

    /// Sets `key` to a boolean.
    pub fn bool(self, key: &str, value: bool) -> Self {
        self.put(key, alloc::vec![if value { TRUE } else { FALSE }])
    }

    /// Sets `key` to a nested map.
    pub fn map(self, key: &str, value: Args) -> Self {
        self.put(key, value.encode())
    }

    /// The canonical encoding.
    pub fn encode(mut self) -> Vec<u8> {
        self.entries.sort_by(|(a, _), (b, _)| a.cmp(b));
        let mut out = Vec::new();
        head(&mut out, MAP, self.entries.len() as u64);
        for (key, value) in &self.entries {
            out.extend_from_slice(key);
            out.extend_from_slice(value);
        }
        out
    }
}

/// Reads an unsigned integer as the system actors answer one (a token `balance`): a plain CBOR
/// unsigned integer, or a bignum of at most 16 bytes. `None` for anything else or trailing bytes.
pub fn decode_uint(bytes: &[u8]) -> Option<u128> {
    let (&first, rest) = bytes.split_first()?;
    let (major, info) = (first >> 5, first & 0x1f);
    let argument = |rest: &[u8]| -> Option<(u64, usize)> {
        let width = match info {
            0..=23 => return Some((u64::from(info), 0)),
            24 => 1,
            25 => 2,
            26 => 4,
            27 => 8,
            _ => return None,
        };
        let mut be = [0u8; 8];
        be[8 - width..].copy_from_slice(rest.get(..width)?);
        Some((u64::from_be_bytes(be), width))
    };
    match major {
        UINT => {
            let (value, used) = argument(rest)?;
            (rest.len() == used).then_some(u128::from(value))
        }
        TAG if first == (TAG << 5) | TAG_BIGNUM as u8 => {
            let (&bytes_head, magnitude) = rest.split_first()?;
            let len = usize::from(bytes_head.checked_sub(BYTES << 5)?);
            if len > 16 || magnitude.len() != len {
                return None;
            }
            Some(magnitude.iter().fold(0u128, |acc, b| (acc << 8) | u128::from(*b)))
        }
        _ => None,
    }
}
