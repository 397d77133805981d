//! The account record: `[nonce, balance]` at `0x01 ‖ address`.

use crate::RecordError;
use drover_types::cbor::{Writer, decode_strict, decode_u128, expect_array};

/// An account's nonce (number of transactions it has sent) and balance in base units.
///
/// An account with nonce 0 and balance 0 is indistinguishable from one that does not exist and is
/// never stored: writers delete the key instead, so "absent" is the only encoding of "empty".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Account {
    /// Transactions the account has sent; the nonce its next transaction must carry.
    pub nonce: u64,
    /// Balance in base units (1 DRV = 10^9).
    pub balance: u128,
}

/// Longest encoding: array head, a 9-byte u64, a tag-2 bignum of 16 bytes.
const ENCODED_BYTES_MAX: usize = 1 + 9 + 18;

impl Account {
    /// Whether this account holds nothing (and so must not be stored).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Canonical CBOR `[nonce, balance]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut writer = Writer::with_capacity(ENCODED_BYTES_MAX);
        writer.array(2).uint(self.nonce).u128(self.balance);
        writer.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one account.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        let account = decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            let nonce = d.u64()?;
            let balance = decode_u128(d)?;
            Ok(Self { nonce, balance })
        })?;
        Ok(account)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::cbor::CborError;

    #[test]
    fn round_trips_across_the_value_range() {
        for account in [
            Account { nonce: 0, balance: 1 },
            Account { nonce: 1, balance: 0 },
            Account { nonce: 23, balance: 24 },
            Account { nonce: u64::MAX, balance: u64::MAX as u128 },
            Account { nonce: 7, balance: u64::MAX as u128 + 1 },
            Account { nonce: u64::MAX, balance: u128::MAX },
        ] {
            let bytes = account.encode();
            assert!(bytes.len() <= ENCODED_BYTES_MAX);
            assert_eq!(Account::decode(&bytes), Ok(account));
        }
    }

    #[test]
    fn encoding_is_the_canonical_two_element_array() {
        assert_eq!(Account { nonce: 1, balance: 1_000 }.encode(), [0x82, 0x01, 0x19, 0x03, 0xe8]);
        assert_eq!(
            Account { nonce: 0, balance: 1 << 64 }.encode(),
            [0x82, 0x00, 0xc2, 0x49, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn empty_means_zero_nonce_and_balance() {
        assert!(Account::default().is_empty());
        assert!(!Account { nonce: 1, balance: 0 }.is_empty());
        assert!(!Account { nonce: 0, balance: 1 }.is_empty());
    }

    #[test]
    fn rejects_malformed_bytes() {
        let malformed = |bytes: &[u8]| matches!(Account::decode(bytes), Err(RecordError(CborError::Malformed(_))));
        assert!(malformed(&[]));
        assert!(malformed(&[0x82, 0x01])); // truncated
        assert!(malformed(&[0x81, 0x00])); // one element
        assert!(malformed(&[0x83, 0x00, 0x00, 0x00])); // three elements
        assert!(malformed(&[0x82, 0x01, 0x61, 0x41])); // text balance
        assert!(malformed(&[0x82, 0x20, 0x00])); // negative nonce
        assert!(malformed(&[0x00])); // not an array
        // A nonce beyond u64 (a bignum) is not a nonce.
        assert!(malformed(&[0x82, 0xc2, 0x49, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x00]));
    }

    #[test]
    fn rejects_non_canonical_bytes() {
        let non_canonical =
            |bytes: &[u8]| matches!(Account::decode(bytes), Err(RecordError(CborError::NonCanonical(_))));
        assert!(non_canonical(&[0x82, 0x01, 0x18, 0x01])); // 1 in a one-byte head
        assert!(non_canonical(&[0x98, 0x02, 0x01, 0x01])); // length in a one-byte head
        assert!(non_canonical(&[0x9f, 0x01, 0x01, 0xff])); // indefinite length
        assert!(non_canonical(&[0x82, 0x01, 0xc2, 0x41, 0x01])); // bignum for a small value
        assert!(non_canonical(&[0x82, 0x01, 0xc2, 0x4a, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])); // leading zero
    }

    #[test]
    fn rejects_trailing_bytes() {
        assert_eq!(Account::decode(&[0x82, 0x01, 0x01, 0x00]), Err(RecordError(CborError::Trailing)));
    }
}
