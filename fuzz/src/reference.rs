//! A second, hand-written reading of Drover's canonical CBOR rules (RFC 8949 §4.2.1 plus the
//! restrictions of `drover_types::cbor`), used as the oracle of the `cbor` target.
//!
//! It gives the same four verdicts as `check_canonical`, in the same precedence: malformed
//! (not well-formed, or nested deeper than `MAX_DEPTH`) wins over non-canonical, and trailing
//! bytes are only reported after a well-formed item.

use drover_types::cbor::MAX_DEPTH;

/// What the rules say about a byte string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Canonical,
    NonCanonical,
    Malformed,
    Trailing,
}

/// The verdict on `bytes` as one top-level item.
pub fn verdict(bytes: &[u8]) -> Verdict {
    let mut r = Reader {
        bytes,
        pos: 0,
        non_canonical: false,
    };
    if r.item(0).is_err() {
        return Verdict::Malformed;
    }
    if r.pos != bytes.len() {
        return Verdict::Trailing;
    }
    if r.non_canonical {
        Verdict::NonCanonical
    } else {
        Verdict::Canonical
    }
}

/// Not well-formed: the walk stops.
struct Malformed;

/// A head: major type, additional information, and the argument (`None` for 31, indefinite
/// length or break).
struct Head {
    major: u8,
    info: u8,
    arg: Option<u64>,
}

struct Reader<'b> {
    bytes: &'b [u8],
    pos: usize,
    non_canonical: bool,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, Malformed> {
        let b = *self.bytes.get(self.pos).ok_or(Malformed)?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: u64) -> Result<&[u8], Malformed> {
        let n = usize::try_from(n).map_err(|_| Malformed)?;
        let end = self.pos.checked_add(n).ok_or(Malformed)?;
        let out = self.bytes.get(self.pos..end).ok_or(Malformed)?;
        self.pos = end;
        Ok(out)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Reads a head; flags an argument that a shorter head could carry.
    fn head(&mut self) -> Result<Head, Malformed> {
        let initial = self.byte()?;
        let (major, info) = (initial >> 5, initial & 0x1f);
        let arg = match info {
            0..=23 => Some(u64::from(info)),
            24..=27 => {
                let width = 1u64 << (info - 24);
                let value = self
                    .take(width)?
                    .iter()
                    .fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
                // Major 7 uses these widths for simple values and floats, not for integers.
                let shortest_min = match info {
                    24 => 24,
                    25 => 0x100,
                    26 => 0x1_0000,
                    _ => 0x1_0000_0000,
                };
                if major != 7 && value < shortest_min {
                    self.non_canonical = true;
                }
                Some(value)
            }
            28..=30 => return Err(Malformed),
            _ => None,
        };
        Ok(Head { major, info, arg })
    }

    fn item(&mut self, depth: usize) -> Result<(), Malformed> {
        let head = self.head()?;
        match (head.major, head.arg) {
            (0 | 1, Some(_)) => Ok(()),
            (2 | 3, Some(len)) => {
                let content = self.take(len)?;
                if head.major == 3 && std::str::from_utf8(content).is_err() {
                    return Err(Malformed);
                }
                Ok(())
            }
            (2 | 3, None) => {
                self.non_canonical = true;
                loop {
                    if self.peek() == Some(0xff) {
                        self.pos += 1;
                        return Ok(());
                    }
                    // Chunks are definite strings of the same major type.
                    let chunk = self.head()?;
                    let Some(len) = chunk.arg.filter(|_| chunk.major == head.major) else {
                        return Err(Malformed);
                    };
                    let content = self.take(len)?;
                    if head.major == 3 && std::str::from_utf8(content).is_err() {
                        return Err(Malformed);
                    }
                }
            }
            (4 | 5, len) => {
                if depth >= MAX_DEPTH {
                    return Err(Malformed);
                }
                let per_entry = if head.major == 5 { 2 } else { 1 };
                let mut previous_key: Option<(usize, usize)> = None;
                let mut index = 0u64;
                loop {
                    match len {
                        Some(len) if index == len => return Ok(()),
                        Some(_) => {}
                        None => {
                            if self.peek() == Some(0xff) {
                                self.pos += 1;
                                self.non_canonical = true;
                                return Ok(());
                            }
                        }
                    }
                    for element in 0..per_entry {
                        let start = self.pos;
                        self.item(depth + 1)?;
                        if head.major == 5 && element == 0 {
                            let key = (start, self.pos);
                            // Keys must strictly increase by their encoded bytes.
                            if let Some((a, b)) = previous_key
                                && self.bytes[a..b] >= self.bytes[key.0..key.1]
                            {
                                self.non_canonical = true;
                            }
                            previous_key = Some(key);
                        }
                    }
                    index += 1;
                }
            }
            (6, Some(tag)) => {
                if depth >= MAX_DEPTH {
                    return Err(Malformed);
                }
                let start = self.pos;
                match self.peek() {
                    // Tag 2 holds a u128 above u64::MAX: 9 to 16 bytes with no leading zero.
                    Some(initial) if tag == 2 && initial >> 5 == 2 && initial & 0x1f != 31 => {
                        let len = self.head()?.arg.ok_or(Malformed)?;
                        let magnitude = self.take(len)?;
                        if !(9..=16).contains(&magnitude.len()) || magnitude[0] == 0 {
                            self.non_canonical = true;
                        }
                        Ok(())
                    }
                    _ => {
                        debug_assert_eq!(start, self.pos);
                        self.non_canonical = true;
                        self.item(depth + 1)
                    }
                }
            }
            (7, _) => match head.info {
                20..=22 => Ok(()),
                24 => {
                    // A two-byte simple value below 32 is not well-formed.
                    if head.arg.is_some_and(|v| v < 32) {
                        return Err(Malformed);
                    }
                    self.non_canonical = true;
                    Ok(())
                }
                31 => Err(Malformed), // a break where an item is expected
                _ => {
                    // Other simple values, undefined, floats.
                    self.non_canonical = true;
                    Ok(())
                }
            },
            // Indefinite-length integers and tags.
            _ => Err(Malformed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(hex: &str) -> Verdict {
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        verdict(&bytes)
    }

    #[test]
    fn agrees_with_the_documented_examples() {
        assert_eq!(v("a2616101626161f6"), Verdict::Canonical);
        assert_eq!(v("c249010000000000000000"), Verdict::Canonical);
        assert_eq!(v("1817"), Verdict::NonCanonical);
        assert_eq!(v("a2616201616101"), Verdict::NonCanonical);
        assert_eq!(v("c25809010000000000000000"), Verdict::NonCanonical);
        assert_eq!(v("f81f"), Verdict::Malformed);
        assert_eq!(v("82180141"), Verdict::Malformed);
        assert_eq!(v("181700"), Verdict::Trailing);
        assert_eq!(v("5f5f41ffff"), Verdict::Malformed);
    }
}
