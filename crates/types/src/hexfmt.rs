//! Fixed-length byte strings in `0x` hex: parsing (prefix optional, any case), display and
//! serde, shared by [`Address`](crate::Address) and [`H256`](crate::H256).

/// Parses `N` bytes of hex with an optional `0x`/`0X` prefix.
pub(crate) fn parse_fixed<const N: usize>(s: &str) -> Option<[u8; N]> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if digits.len() != N * 2 {
        return None;
    }
    let mut out = [0u8; N];
    hex::decode_to_slice(digits, &mut out).ok()?;
    Some(out)
}

/// Implements `FromStr`, `Display`, `Debug`, `AsRef<[u8]>` and string serde for a
/// `struct Name(pub [u8; N])` with the given parse error type.
macro_rules! fixed_bytes_text {
    ($name:ident, $len:expr, $err:ident) => {
        impl $name {
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
                $crate::hexfmt::parse_fixed::<$len>(s).map($name).ok_or($err)
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
