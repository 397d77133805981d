//! Basefees of the two fee markets and their canonical CBOR `[cycle, cell]`.
//!
//! One type for every holder: the executor stores it (the state record at `0x00 ‖ "basefees"`),
//! the pool prices admission and selection with it and the API reports it.

use crate::cbor::{CborError, Writer, decode_strict, decode_u128, expect_array};

/// Basefees of the two fee markets, in base units per cycle and per cell.
///
/// Stored, it holds the basefees in force for the next block: the executor reads it before a
/// block's transactions and writes the updated value after them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Basefees {
    /// Base units per cycle.
    pub cycle: u128,
    /// Base units per cell.
    pub cell: u128,
}

/// Longest encoding: array head and two tag-2 bignums of 16 bytes.
const ENCODED_BYTES_MAX: usize = 1 + 2 * 18;

impl Basefees {
    /// Canonical CBOR `[cycle, cell]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut writer = Writer::with_capacity(ENCODED_BYTES_MAX);
        writer.array(2).u128(self.cycle).u128(self.cell);
        writer.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one basefees record.
    pub fn decode(bytes: &[u8]) -> Result<Self, CborError> {
        decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            let cycle = decode_u128(d)?;
            let cell = decode_u128(d)?;
            Ok(Self { cycle, cell })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for basefees in [
            Basefees { cycle: 1, cell: 1 },
            Basefees { cycle: 0, cell: u128::MAX },
            Basefees { cycle: u64::MAX as u128 + 1, cell: 24 },
            Basefees { cycle: u128::MAX, cell: u128::MAX },
        ] {
            let bytes = basefees.encode();
            assert!(bytes.len() <= ENCODED_BYTES_MAX);
            assert_eq!(Basefees::decode(&bytes), Ok(basefees));
        }
    }

    #[test]
    fn encoding_is_the_canonical_two_element_array() {
        assert_eq!(Basefees { cycle: 10, cell: 2 }.encode(), [0x82, 0x0a, 0x02]);
    }

    #[test]
    fn rejects_corrupt_bytes() {
        assert!(matches!(Basefees::decode(&[0x82, 0x0a]), Err(CborError::Malformed(_))));
        assert!(matches!(Basefees::decode(&[0x83, 0x0a, 0x02, 0x00]), Err(CborError::Malformed(_))));
        assert!(matches!(Basefees::decode(&[0x82, 0x0a, 0x40]), Err(CborError::Malformed(_))));
        assert!(matches!(Basefees::decode(&[0x82, 0x0a, 0xc2, 0x41, 0x02]), Err(CborError::NonCanonical(_))));
        assert_eq!(Basefees::decode(&[0x82, 0x0a, 0x02, 0xff]), Err(CborError::Trailing));
    }
}
