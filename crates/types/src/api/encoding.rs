//! Serde forms of byte strings and integers in the API's JSON, named in `#[serde(with)]`.
//!
//! Amounts follow DESIGN ("JSON") and the spec's conventions, one rule for every record:
//! - a **native amount** (base units of DRV: balances, values, fees, prices, stakes,
//!   delegations, escrows, deposits, rent, voting weight) is a bare `u128` field, which serde
//!   writes as a JSON integer of any size and utoipa documents as `integer` (clients read those
//!   above 2^53 losslessly: the TypeScript SDK as `bigint`);
//! - a **token amount** (`u128`) and a **basefee value** are decimal strings: [`decimal_u128`]
//!   (basefees, kept as text, are `String` fields), and so is a governance parameter's value,
//!   since some parameters are basefee values.
//!
//! `crates/types/tests/api_amounts.rs` holds the records to it: only the fields it lists may be
//! decimal strings.

/// Serde of byte strings as `0x` hex (input: prefix optional, any case).
pub(super) mod hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{}", hex::encode(bytes)))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        crate::hexfmt::decode(&text).map_err(serde::de::Error::custom)
    }
}

/// [`hex_bytes`] for an optional field (`null` when absent).
pub(super) mod opt_hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(bytes) => super::hex_bytes::serialize(bytes, s),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let text = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.map(|text| crate::hexfmt::decode(&text).map_err(serde::de::Error::custom)).transpose()
    }
}

/// [`base64_bytes`] for an optional field (`null` when absent).
pub(super) mod opt_base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD as BASE64;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(bytes) => s.serialize_str(&BASE64.encode(bytes)),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let text = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.map(|text| BASE64.decode(text.as_bytes()).map_err(serde::de::Error::custom)).transpose()
    }
}

/// An optional `u64` that may also be written as a JSON number with a zero fraction (`55.0`):
/// JSON Schema's `integer`, which the document promises, includes those, and clients that compute
/// budgets in floating point (JavaScript, Python) send them. Fractions, negatives and values above
/// `u64::MAX` are refused.
pub(super) mod opt_integral_u64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(value: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => s.serialize_u64(*value),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let Some(number) = Option::<serde_json::Number>::deserialize(d)? else {
            return Ok(None);
        };
        if let Some(value) = number.as_u64() {
            return Ok(Some(value));
        }
        // 2^64 as f64 is exact; every float below it with no fraction is a u64.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        match number.as_f64() {
            Some(value) if value.fract() == 0.0 && (0.0..LIMIT).contains(&value) => Ok(Some(value as u64)),
            _ => Err(serde::de::Error::custom(format!("expected a non-negative integer below 2^64, got {number}"))),
        }
    }
}

/// Serde of byte strings as standard padded base64 text.
pub(super) mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD as BASE64;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&BASE64.encode(bytes))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        BASE64.decode(text.as_bytes()).map_err(serde::de::Error::custom)
    }
}

/// Serde of a `u128` amount as a decimal string (`"1000000"`): JSON numbers above 2^53 lose
/// precision in most clients. Input: ASCII digits only, no sign, no exponent, at most 2^128-1.
pub(super) mod decimal_u128 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(value: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        parse(&text).map_err(serde::de::Error::custom)
    }

    pub(crate) fn parse(text: &str) -> Result<u128, String> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("expected a decimal string of digits, got {text:?}"));
        }
        text.parse().map_err(|_| format!("{text:?} is above 2^128-1"))
    }
}

/// [`decimal_u128`] for an optional field (`null` when absent).
pub(super) mod opt_decimal_u128 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(value: &Option<u128>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => s.collect_str(value),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u128>, D::Error> {
        let text = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.map(|text| super::decimal_u128::parse(&text).map_err(serde::de::Error::custom)).transpose()
    }
}
