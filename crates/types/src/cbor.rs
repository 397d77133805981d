//! Canonical CBOR (RFC 8949 §4.2.1 core deterministic encoding), strictly enforced.
//!
//! Rules: shortest-form integers and lengths, definite lengths only, map keys sorted by their
//! encoded bytes with no duplicates, no floats and no simple values but `false`, `true` and
//! `null`, no tags except tag 2 (unsigned bignum) for integers above 2^64-1 with no leading zero
//! bytes (so 9 to 16 bytes: a `u128`).
//!
//! Decoding: [`check_canonical`] walks one item and rejects every violation, then a typed reader
//! walks the same bytes again with a plain [`Decoder`], checking only the shape ([`decode_strict`]
//! runs both). Two verdicts are kept apart because the API answers them with different codes:
//! [`CborError::Malformed`] for bytes that are not well-formed CBOR (truncated, reserved
//! initial bytes, stray breaks, invalid UTF-8, nesting deeper than [`MAX_DEPTH`]) or not the
//! expected shape, and [`CborError::NonCanonical`] for well-formed CBOR that a canonical encoder
//! would not have produced. When bytes are both, `Malformed` wins: the walker notes the first
//! canonical violation and keeps going to the end of the item.
//!
//! Encoding: [`Writer`] emits canonical heads by construction and cannot fail; it writes to any
//! [`Sink`], so hashes can be computed without materialising the encoding.

use minicbor::data::Type;
use minicbor::decode::Decoder;
use sha3::{Digest, Keccak256};
use std::cmp::Ordering;
use std::fmt;

/// Why bytes are not an acceptable CBOR encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CborError {
    /// Not well-formed CBOR, or not the expected shape (wrong type, wrong element count, ...).
    #[error("malformed CBOR: {0}")]
    Malformed(String),
    /// Well-formed but not the canonical encoding (non-shortest int, unsorted map, indefinite length, ...).
    #[error("non-canonical CBOR: {0}")]
    NonCanonical(String),
    /// Bytes left after the item.
    #[error("trailing bytes after CBOR item")]
    Trailing,
}

impl CborError {
    /// A shape error: the item is well-formed CBOR but not what the reader expects.
    pub fn malformed(what: impl Into<String>) -> Self {
        CborError::Malformed(what.into())
    }
}

impl From<minicbor::decode::Error> for CborError {
    fn from(e: minicbor::decode::Error) -> Self {
        CborError::Malformed(e.to_string())
    }
}

/// Maximum nesting depth accepted by the decoder (bounds recursion on hostile input). Arrays,
/// maps and tags each open one level; the top-level item's own container is level 1.
pub const MAX_DEPTH: usize = 32;

/// CBOR tag number of an unsigned bignum.
const TAG_UNSIGNED_BIGNUM: u64 = 2;
/// Bignums shorter than this fit a plain 8-byte integer, so a canonical encoder never emits them.
const BIGNUM_BYTES_MIN: usize = 9;
/// Widest bignum a `u128` can hold.
const BIGNUM_BYTES_MAX: usize = 16;

const MAJOR_UNSIGNED: u8 = 0;
const MAJOR_BYTES: u8 = 2;
const MAJOR_TEXT: u8 = 3;
const MAJOR_ARRAY: u8 = 4;
const MAJOR_MAP: u8 = 5;
const MAJOR_TAG: u8 = 6;
/// CBOR `null`, one byte.
pub const NULL: u8 = 0xf6;
/// CBOR `false`, one byte.
const FALSE: u8 = 0xf4;
/// CBOR `true`, one byte.
const TRUE: u8 = 0xf5;
/// Initial byte of a two-byte simple value.
const SIMPLE_TWO_BYTE: u8 = 0xf8;
/// Two-byte simple values below this are not well-formed (RFC 8949 §3.3).
const SIMPLE_TWO_BYTE_MIN: u8 = 32;

/// Checks that `bytes` hold exactly one canonical CBOR item (nesting depth bounded by
/// [`MAX_DEPTH`]), with nothing after it.
pub fn check_canonical(bytes: &[u8]) -> Result<(), CborError> {
    let mut walker = Walker { bytes, d: Decoder::new(bytes), violation: None };
    walker.item(0)?;
    if walker.d.position() != bytes.len() {
        return Err(CborError::Trailing);
    }
    match walker.violation {
        Some(violation) => Err(CborError::NonCanonical(violation.to_string())),
        None => Ok(()),
    }
}

/// Checks `bytes` with [`check_canonical`], then runs `read` over them and makes sure it
/// consumed the whole item. `read` only has to check the shape.
pub fn decode_strict<'b, T>(
    bytes: &'b [u8],
    read: impl FnOnce(&mut Decoder<'b>) -> Result<T, CborError>,
) -> Result<T, CborError> {
    check_canonical(bytes)?;
    let mut d = Decoder::new(bytes);
    let value = read(&mut d)?;
    if d.position() != bytes.len() {
        // The item spans all of `bytes` (checked above), so the reader stopped inside it.
        return Err(CborError::malformed("unexpected content at the end of the item"));
    }
    Ok(value)
}

/// The first canonical-form violation met during a walk.
struct Violation {
    what: &'static str,
    at: usize,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

/// Walks one item, failing fast on malformed input and remembering the first violation.
struct Walker<'b> {
    bytes: &'b [u8],
    d: Decoder<'b>,
    violation: Option<Violation>,
}

impl<'b> Walker<'b> {
    fn flag(&mut self, what: &'static str, at: usize) {
        if self.violation.is_none() {
            self.violation = Some(Violation { what, at });
        }
    }

    /// Flags a head (initial byte plus argument) of `used` bytes that could have been shorter.
    fn check_head(&mut self, start: usize, used: usize, arg: u64) {
        if used != head_len(arg) {
            self.flag("integer or length not in shortest form", start);
        }
    }

    fn item(&mut self, depth: usize) -> Result<(), CborError> {
        let start = self.d.position();
        match self.d.datatype()? {
            Type::U8 | Type::U16 | Type::U32 | Type::U64 => {
                let arg = self.d.u64()?;
                self.check_head(start, self.d.position() - start, arg);
            }
            Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::Int => {
                // A negative integer -1-n carries n as its argument.
                let value = i128::from(self.d.int()?);
                let arg =
                    u64::try_from(-1 - value).map_err(|_| CborError::malformed("negative integer out of range"))?;
                self.check_head(start, self.d.position() - start, arg);
            }
            Type::Bytes => {
                let len = self.d.bytes()?.len();
                self.check_head(start, self.d.position() - start - len, len as u64);
            }
            Type::String => {
                let len = self.d.str()?.len();
                self.check_head(start, self.d.position() - start - len, len as u64);
            }
            Type::BytesIndef => {
                self.flag("indefinite-length byte string", start);
                for chunk in self.d.bytes_iter()? {
                    chunk?;
                }
            }
            Type::StringIndef => {
                self.flag("indefinite-length text string", start);
                for chunk in self.d.str_iter()? {
                    chunk?;
                }
            }
            Type::Array | Type::ArrayIndef => {
                let inner = nested(depth, start)?;
                match self.d.array()? {
                    Some(len) => {
                        self.check_head(start, self.d.position() - start, len);
                        for _ in 0..len {
                            self.item(inner)?;
                        }
                    }
                    None => {
                        self.flag("indefinite-length array", start);
                        while !self.at_break()? {
                            self.item(inner)?;
                        }
                    }
                }
            }
            Type::Map | Type::MapIndef => {
                let inner = nested(depth, start)?;
                let mut previous_key = None;
                match self.d.map()? {
                    Some(len) => {
                        self.check_head(start, self.d.position() - start, len);
                        for _ in 0..len {
                            previous_key = Some(self.entry(inner, previous_key)?);
                        }
                    }
                    None => {
                        self.flag("indefinite-length map", start);
                        while !self.at_break()? {
                            previous_key = Some(self.entry(inner, previous_key)?);
                        }
                    }
                }
            }
            Type::Tag => {
                let inner = nested(depth, start)?;
                let tag = u64::from(self.d.tag()?);
                self.check_head(start, self.d.position() - start, tag);
                if tag == TAG_UNSIGNED_BIGNUM {
                    self.bignum(inner)?;
                } else {
                    self.flag("tag other than 2", start);
                    self.item(inner)?;
                }
            }
            Type::Bool => {
                self.d.bool()?;
            }
            Type::Null => {
                self.d.null()?;
            }
            Type::Undefined => {
                self.flag("undefined", start);
                self.d.undefined()?;
            }
            Type::Simple => {
                let value = self.d.simple()?;
                if self.bytes.get(start) == Some(&SIMPLE_TWO_BYTE) && value < SIMPLE_TWO_BYTE_MIN {
                    return Err(CborError::malformed(format!("two-byte simple value below 32 at byte {start}")));
                }
                self.flag("simple value other than false, true and null", start);
            }
            Type::F16 | Type::F32 | Type::F64 => {
                self.flag("floating-point number", start);
                self.d.skip()?;
            }
            Type::Break => {
                return Err(CborError::malformed(format!("unexpected break at byte {start}")));
            }
            Type::Unknown(initial) => {
                return Err(CborError::malformed(format!("reserved initial byte {initial:#04x} at byte {start}")));
            }
        }
        Ok(())
    }

    /// Walks one map entry and checks its key sorts strictly after `previous_key`; returns the
    /// key's encoded bytes.
    fn entry(&mut self, depth: usize, previous_key: Option<&'b [u8]>) -> Result<&'b [u8], CborError> {
        let key_start = self.d.position();
        self.item(depth)?;
        let key = self
            .bytes
            .get(key_start..self.d.position())
            .ok_or_else(|| CborError::malformed("map key out of bounds"))?;
        match previous_key.map(|previous| previous.cmp(key)) {
            Some(Ordering::Equal) => self.flag("duplicate map key", key_start),
            Some(Ordering::Greater) => self.flag("map keys not sorted by their encoded bytes", key_start),
            Some(Ordering::Less) | None => {}
        }
        self.item(depth)?;
        Ok(key)
    }

    /// The content of tag 2: a byte string of 9 to 16 bytes with no leading zero.
    fn bignum(&mut self, depth: usize) -> Result<(), CborError> {
        let start = self.d.position();
        if self.d.datatype()? != Type::Bytes {
            self.flag("tag 2 on something other than a definite byte string", start);
            return self.item(depth);
        }
        let magnitude = self.d.bytes()?;
        self.check_head(start, self.d.position() - start - magnitude.len(), magnitude.len() as u64);
        if magnitude.first() == Some(&0) || magnitude.len() < BIGNUM_BYTES_MIN {
            self.flag("bignum not in shortest form", start);
        } else if magnitude.len() > BIGNUM_BYTES_MAX {
            self.flag("bignum above 2^128-1", start);
        }
        Ok(())
    }

    /// Consumes a break if one is next (end of an indefinite-length container).
    fn at_break(&mut self) -> Result<bool, CborError> {
        if self.d.datatype()? == Type::Break {
            self.d.set_position(self.d.position() + 1);
            return Ok(true);
        }
        Ok(false)
    }
}

/// The depth inside a container opened at `depth`, or an error past [`MAX_DEPTH`].
fn nested(depth: usize, at: usize) -> Result<usize, CborError> {
    if depth >= MAX_DEPTH {
        return Err(CborError::malformed(format!("nesting deeper than {MAX_DEPTH} levels at byte {at}")));
    }
    Ok(depth + 1)
}

/// Length in bytes of the shortest head carrying `arg`.
const fn head_len(arg: u64) -> usize {
    match arg {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Reads a `u128`: a plain unsigned integer, or tag 2 with a 9- to 16-byte magnitude that has
/// no leading zero.
pub fn decode_u128(d: &mut Decoder<'_>) -> Result<u128, CborError> {
    match d.datatype()? {
        Type::U8 | Type::U16 | Type::U32 | Type::U64 => Ok(u128::from(d.u64()?)),
        Type::Tag => {
            let at = d.position();
            if u64::from(d.tag()?) != TAG_UNSIGNED_BIGNUM {
                return Err(CborError::malformed(format!("expected an unsigned integer at byte {at}")));
            }
            let magnitude = d.bytes()?;
            if magnitude.first() == Some(&0) || !(BIGNUM_BYTES_MIN..=BIGNUM_BYTES_MAX).contains(&magnitude.len()) {
                return Err(CborError::NonCanonical(format!(
                    "bignum not a shortest-form u128 above 2^64-1 at byte {at}"
                )));
            }
            Ok(magnitude.iter().fold(0u128, |acc, byte| (acc << 8) | u128::from(*byte)))
        }
        other => {
            Err(CborError::malformed(format!("expected an unsigned integer, found {other} at byte {}", d.position())))
        }
    }
}

/// Writes a `u128` canonically on a `minicbor` encoder: a plain integer up to `u64::MAX`, tag 2
/// with the shortest big-endian magnitude above. Same bytes as [`Writer::u128`].
pub fn encode_u128<W: minicbor::encode::Write>(
    e: &mut minicbor::Encoder<W>,
    value: u128,
) -> Result<(), minicbor::encode::Error<W::Error>> {
    // minicbor's own u128 encoding is already the canonical one (checked in the tests).
    e.u128(value).map(|_| ())
}

/// Reads the head of a definite array and checks it holds `len` elements.
pub fn expect_array(d: &mut Decoder<'_>, len: u64) -> Result<(), CborError> {
    let at = d.position();
    match d.array()? {
        Some(found) if found == len => Ok(()),
        Some(found) => {
            Err(CborError::malformed(format!("expected an array of {len} elements, found {found} at byte {at}")))
        }
        None => Err(CborError::NonCanonical(format!("indefinite-length array at byte {at}"))),
    }
}

/// Reads the head of a definite map and returns its number of entries.
pub fn expect_map(d: &mut Decoder<'_>) -> Result<u64, CborError> {
    let at = d.position();
    d.map()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length map at byte {at}")))
}

/// Reads a byte string of exactly `N` bytes.
pub fn decode_fixed<const N: usize>(d: &mut Decoder<'_>) -> Result<[u8; N], CborError> {
    let at = d.position();
    let bytes = d.bytes()?;
    <[u8; N]>::try_from(bytes).map_err(|_| {
        CborError::malformed(format!("expected a byte string of {N} bytes, found {} at byte {at}", bytes.len()))
    })
}

/// Consumes a `null` if one is next; `Ok(false)` leaves the decoder where it was.
pub fn take_null(d: &mut Decoder<'_>) -> Result<bool, CborError> {
    if d.datatype()? == Type::Null {
        d.null()?;
        return Ok(true);
    }
    Ok(false)
}

/// Where a [`Writer`] puts its bytes.
pub trait Sink {
    /// Appends `bytes` to the output.
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Hashing an encoding as it is written saves building it first.
impl Sink for Keccak256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn put(&mut self, bytes: &[u8]) {
        (**self).put(bytes);
    }
}

/// Both sinks receive every byte (e.g. a buffer and a running hash).
impl<A: Sink, B: Sink> Sink for (A, B) {
    fn put(&mut self, bytes: &[u8]) {
        self.0.put(bytes);
        self.1.put(bytes);
    }
}

/// A canonical CBOR encoder: every head is written in its shortest form, lengths are always
/// definite, and writing cannot fail. Map entries must be written in canonical key order by
/// the caller (keys sorted by their encoded bytes).
pub struct Writer<S> {
    sink: S,
}

impl<S: Sink> Writer<S> {
    /// A writer appending to `sink`.
    pub fn new(sink: S) -> Self {
        Writer { sink }
    }

    /// The sink, with everything written so far.
    pub fn into_inner(self) -> S {
        self.sink
    }

    fn head(&mut self, major: u8, arg: u64) -> &mut Self {
        let major = major << 5;
        // The casts below are lossless: each arm bounds `arg` to the target width.
        match arg {
            0..=23 => self.sink.put(&[major | arg as u8]),
            24..=0xff => self.sink.put(&[major | 24, arg as u8]),
            0x100..=0xffff => {
                let [a, b] = (arg as u16).to_be_bytes();
                self.sink.put(&[major | 25, a, b]);
            }
            0x1_0000..=0xffff_ffff => {
                let [a, b, c, d] = (arg as u32).to_be_bytes();
                self.sink.put(&[major | 26, a, b, c, d]);
            }
            _ => {
                let [a, b, c, d, e, f, g, h] = arg.to_be_bytes();
                self.sink.put(&[major | 27, a, b, c, d, e, f, g, h]);
            }
        }
        self
    }

    /// An unsigned integer in its shortest head.
    pub fn uint(&mut self, value: u64) -> &mut Self {
        self.head(MAJOR_UNSIGNED, value)
    }

    /// A plain integer up to `u64::MAX`, tag 2 with the shortest big-endian magnitude above.
    pub fn u128(&mut self, value: u128) -> &mut Self {
        match u64::try_from(value) {
            Ok(small) => self.uint(small),
            Err(_) => {
                let be = value.to_be_bytes();
                let skip = (value.leading_zeros() / 8) as usize;
                self.head(MAJOR_TAG, TAG_UNSIGNED_BIGNUM).bytes(be.get(skip..).unwrap_or_default())
            }
        }
    }

    /// A definite-length byte string.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.head(MAJOR_BYTES, bytes.len() as u64);
        self.sink.put(bytes);
        self
    }

    /// A definite-length UTF-8 text string.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.head(MAJOR_TEXT, text.len() as u64);
        self.sink.put(text.as_bytes());
        self
    }

    /// The head of a definite-length array of `len` elements; the elements follow.
    pub fn array(&mut self, len: u64) -> &mut Self {
        self.head(MAJOR_ARRAY, len)
    }

    /// The head of a definite-length map of `len` entries; the keys and values follow, keys in
    /// canonical order.
    pub fn map(&mut self, len: u64) -> &mut Self {
        self.head(MAJOR_MAP, len)
    }

    /// The simple value `null`.
    pub fn null(&mut self) -> &mut Self {
        self.sink.put(&[NULL]);
        self
    }

    /// `true` (`0xf5`) or `false` (`0xf4`).
    pub fn bool(&mut self, value: bool) -> &mut Self {
        self.sink.put(&[if value { TRUE } else { FALSE }]);
        self
    }
}

impl Writer<Vec<u8>> {
    /// A writer into a fresh buffer of `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Writer::new(Vec::with_capacity(capacity))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(hex_bytes: &str) -> Result<(), CborError> {
        check_canonical(&hex::decode(hex_bytes).unwrap())
    }

    fn assert_non_canonical(hex_bytes: &str) {
        assert!(matches!(check(hex_bytes), Err(CborError::NonCanonical(_))), "{hex_bytes}: {:?}", check(hex_bytes));
    }

    fn assert_malformed(hex_bytes: &str) {
        assert!(matches!(check(hex_bytes), Err(CborError::Malformed(_))), "{hex_bytes}: {:?}", check(hex_bytes));
    }

    fn written(f: impl FnOnce(&mut Writer<Vec<u8>>)) -> String {
        let mut w = Writer::with_capacity(16);
        f(&mut w);
        hex::encode(w.into_inner())
    }

    #[test]
    fn accepts_canonical_items() {
        for ok in [
            "00",
            "17",
            "1818",
            "18ff",
            "190100",
            "1a00010000",
            "1b0000000100000000",
            "1bffffffffffffffff",
            "20",
            "37",
            "3818",
            "390100",
            "3b0000000100000000",
            "40",
            "4401020304",
            "60",
            "6161",
            "80",
            "820102",
            "a0",
            "a2616101616202",
            "f4",
            "f5",
            "f6",
            "c249010000000000000000",
            "c250ffffffffffffffffffffffffffffffff",
            // Keys of different lengths: the shorter encoding sorts first.
            "a2616101626161f6",
            "a20a011864f6",
            "a20102026161",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rejects_non_shortest_integers_and_lengths() {
        for bad in [
            "1817",
            "190017",
            "1900ff",
            "1a0000ffff",
            "1b00000000ffffffff", // unsigned
            "3817",
            "3900ff",
            "3a0000ffff",
            "3b00000000ffffffff", // negative
            "580101",
            "59000101",
            "780161",
            "98010a",
            "b8010102",                 // lengths
            "d80249010000000000000000", // tag number
            "c25809010000000000000000", // bignum length
        ] {
            assert_non_canonical(bad);
        }
    }

    #[test]
    fn rejects_indefinite_lengths() {
        for bad in ["5f4101ff", "7f6161ff", "9f01ff", "bf6161f6ff", "5fff"] {
            assert_non_canonical(bad);
        }
    }

    #[test]
    fn rejects_unsorted_and_duplicate_keys() {
        assert_non_canonical("a2616201616101"); // "b" before "a"
        assert_non_canonical("a2616101616102"); // "a" twice
        assert_non_canonical("a2626161f66162f6"); // longer key first
        assert_non_canonical("a21864010a02"); // 100 before 10
    }

    #[test]
    fn rejects_floats_simple_values_and_other_tags() {
        for bad in [
            "f90000",
            "fa00000000",
            "fb0000000000000000", // floats
            "f7",
            "e0",
            "f3",
            "f820", // undefined and simple values
            "c001",
            "c101",
            "c301",
            "d82001",
            "d9d9f7f6", // tags other than 2
        ] {
            assert_non_canonical(bad);
        }
    }

    #[test]
    fn tag_two_holds_a_u128_above_u64_max_only() {
        assert_non_canonical("c2480100000000000000"); // 8 bytes: fits a plain integer
        assert_non_canonical("c240"); // zero as a bignum
        assert_non_canonical("c249000100000000000000"); // leading zero
        assert_non_canonical("c2510100000000000000000000000000000000"); // 17 bytes: above u128
        assert_non_canonical("c201"); // not a byte string
        assert_non_canonical("c25f4101ff"); // indefinite byte string
    }

    #[test]
    fn rejects_trailing_bytes() {
        assert_eq!(check("0000"), Err(CborError::Trailing));
        assert_eq!(check("80f6"), Err(CborError::Trailing));
        assert_eq!(check("1bffffffffffffffffff"), Err(CborError::Trailing));
    }

    #[test]
    fn rejects_malformed_input() {
        for bad in [
            "",
            "18",
            "19ff",
            "1b00",
            "41",
            "62",
            "8201",
            "a161",
            "c2", // truncated
            "1c",
            "3d",
            "5e",
            "7c",
            "9c",
            "bd",
            "dc",
            "fc",
            "fd",
            "fe", // reserved initial bytes
            "ff",
            "82ff",   // stray break
            "f81f",   // two-byte simple value below 32
            "62c328", // invalid UTF-8
            "5f6161ff",
            "5f5f41ffff", // bad chunk inside an indefinite byte string
        ] {
            assert_malformed(bad);
        }
    }

    #[test]
    fn malformed_wins_over_non_canonical() {
        // A non-shortest integer followed by a truncated element.
        assert_malformed("82180141");
        // A non-canonical item followed by garbage is reported as trailing bytes.
        assert_eq!(check("181700"), Err(CborError::Trailing));
    }

    #[test]
    fn bounds_nesting_depth() {
        let nested = |depth: usize| {
            let mut bytes = vec![0x81; depth];
            bytes.push(0x00);
            check_canonical(&bytes)
        };
        assert_eq!(nested(MAX_DEPTH), Ok(()));
        assert!(matches!(nested(MAX_DEPTH + 1), Err(CborError::Malformed(_))));
        // Tags count as levels too, and a hostile length cannot make the walk allocate.
        assert!(matches!(check_canonical(&[0xc1; 100]), Err(CborError::Malformed(_))));
        assert!(matches!(check("9bffffffffffffffff"), Err(CborError::Malformed(_))));
    }

    #[test]
    fn writer_emits_shortest_heads() {
        assert_eq!(
            written(|w| {
                w.uint(0);
            }),
            "00"
        );
        assert_eq!(
            written(|w| {
                w.uint(23);
            }),
            "17"
        );
        assert_eq!(
            written(|w| {
                w.uint(24);
            }),
            "1818"
        );
        assert_eq!(
            written(|w| {
                w.uint(255);
            }),
            "18ff"
        );
        assert_eq!(
            written(|w| {
                w.uint(256);
            }),
            "190100"
        );
        assert_eq!(
            written(|w| {
                w.uint(65_536);
            }),
            "1a00010000"
        );
        assert_eq!(
            written(|w| {
                w.uint(u64::MAX);
            }),
            "1bffffffffffffffff"
        );
        assert_eq!(
            written(|w| {
                w.text("a").bytes(&[1, 2]).null();
            }),
            "6161420102f6"
        );
        assert_eq!(
            written(|w| {
                w.array(25).map(0);
            }),
            "9819a0"
        );
    }

    #[test]
    fn u128_round_trips_at_every_boundary() {
        let cases: [(u128, &str); 6] = [
            (0, "00"),
            (u128::from(u64::MAX), "1bffffffffffffffff"),
            (u128::from(u64::MAX) + 1, "c249010000000000000000"),
            (1 << 72, "c24a01000000000000000000"),
            (u128::MAX - 1, "c250fffffffffffffffffffffffffffffffe"),
            (u128::MAX, "c250ffffffffffffffffffffffffffffffff"),
        ];
        for (value, expected) in cases {
            assert_eq!(
                written(|w| {
                    w.u128(value);
                }),
                expected
            );
            let mut e = minicbor::Encoder::new(Vec::new());
            encode_u128(&mut e, value).unwrap();
            assert_eq!(hex::encode(e.into_writer()), expected);
            let bytes = hex::decode(expected).unwrap();
            assert_eq!(decode_strict(&bytes, decode_u128), Ok(value));
        }
    }

    #[test]
    fn decode_u128_rejects_other_forms() {
        for bad in ["20", "40", "c140", "c301", "f6"] {
            let bytes = hex::decode(bad).unwrap();
            assert!(decode_u128(&mut Decoder::new(&bytes)).is_err(), "{bad}");
        }
        let short = hex::decode("c2480100000000000000").unwrap();
        assert!(matches!(decode_u128(&mut Decoder::new(&short)), Err(CborError::NonCanonical(_))));
    }

    #[test]
    fn decode_strict_requires_the_reader_to_consume_the_item() {
        let bytes = hex::decode("820102").unwrap();
        let partial = decode_strict(&bytes, |d| {
            d.array()?;
            Ok(d.u64()?)
        });
        assert!(matches!(partial, Err(CborError::Malformed(_))));
        assert_eq!(
            decode_strict(&bytes, |d| {
                expect_array(d, 2)?;
                Ok((d.u64()?, d.u64()?))
            }),
            Ok((1, 2))
        );
    }

    #[test]
    fn shape_helpers_reject_wrong_shapes() {
        let bytes = hex::decode("8301020342aabb").unwrap();
        let mut d = Decoder::new(&bytes);
        assert!(matches!(expect_array(&mut d, 2), Err(CborError::Malformed(_))));
        let bytes = hex::decode("42aabb").unwrap();
        assert!(decode_fixed::<3>(&mut Decoder::new(&bytes)).is_err());
        assert_eq!(decode_fixed::<2>(&mut Decoder::new(&bytes)), Ok([0xaa, 0xbb]));
        assert_eq!(take_null(&mut Decoder::new(&bytes)), Ok(false));
    }
}
