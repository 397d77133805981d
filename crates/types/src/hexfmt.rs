//! Hex text: the one rule every crate parses hex input by, and the text form (display and serde)
//! of fixed-length byte strings such as [`Address`](crate::Address) and [`H256`](crate::H256).
//!
//! The rule: an optional `0x` or `0X` prefix, then pairs of hex digits in any case. Input is
//! taken as it stands (callers reading files or command lines trim it first); errors are the
//! `hex` crate's, whose messages say what is wrong and where.

/// The digits after an optional `0x` or `0X` prefix.
fn digits(s: &str) -> &str {
    s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s)
}

/// Bytes written as hex (`0x` or `0X` alone, or nothing, is no bytes).
pub fn decode(s: &str) -> Result<Vec<u8>, hex::FromHexError> {
    hex::decode(digits(s))
}

/// Exactly `N` bytes written as hex.
pub fn decode_array<const N: usize>(s: &str) -> Result<[u8; N], hex::FromHexError> {
    let mut out = [0u8; N];
    hex::decode_to_slice(digits(s), &mut out)?;
    Ok(out)
}

/// Implements `FromStr`, `Display`, `Debug`, `AsRef<[u8]>` and string serde for a
/// `struct Name(pub [u8; N])` with the given parse error type.
macro_rules! fixed_bytes_text {
    ($name:ident, $len:expr, $err:ident) => {
        impl $name {
            /// The value of a slice of exactly the type's length; `None` for any other length.
            pub fn from_slice(bytes: &[u8]) -> Option<Self> {
                <[u8; $len]>::try_from(bytes).ok().map($name)
            }

            /// `0x`-prefixed lowercase hex.
            pub fn to_hex(&self) -> String {
                format!("0x{}", hex::encode(self.0))
            }
        }

        impl std::str::FromStr for $name {
            type Err = $err;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $crate::hexfmt::decode_array::<$len>(s).map($name).map_err(|_| $err)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.to_hex())
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.to_hex())
            }
        }

        impl AsRef<[u8]> for $name {
            fn as_ref(&self) -> &[u8] {
                &self.0
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_hex())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use fixed_bytes_text;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_for_prefixes_and_case() {
        for text in ["0aFf", "0x0aFf", "0X0aFf"] {
            assert_eq!(decode(text), Ok(vec![0x0a, 0xff]), "{text}");
            assert_eq!(decode_array::<2>(text), Ok([0x0a, 0xff]), "{text}");
        }
        for empty in ["", "0x", "0X"] {
            assert_eq!(decode(empty), Ok(Vec::new()), "{empty:?}");
        }
        for bad in ["x0a", "0x0x0a", "00x0a", " 0a", "0a ", "0xa", "0xzz"] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
        assert!(decode_array::<2>("0x0a").is_err());
        assert!(decode_array::<2>("0x0a0b0c").is_err());
    }
}
