//! 20-byte account and actor addresses.
//!
//! An address is the last 20 bytes of keccak256 of a 64-byte uncompressed secp256k1 public key
//! (Ethereum-compatible). Text form is `0x`-prefixed lowercase hex; parsing accepts the prefix
//! or not, in any case. Serde uses the text form.

/// A 20-byte address.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Address(pub [u8; 20]);

/// Why a string is not an address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid address: expected 20 bytes of hex (40 hex digits, optional 0x prefix)")]
pub struct AddressParseError;

impl Address {
    /// Length of an address in bytes.
    pub const LEN: usize = 20;
    /// The all-zero address (`0x00…00`), owned by no key.
    pub const ZERO: Address = Address([0; 20]);

    /// The reserved system address `0x00…0n` (n in 1..=15).
    pub const fn system(n: u8) -> Self {
        let mut bytes = [0u8; 20];
        bytes[19] = n;
        Address(bytes)
    }
}

/// Address of a public key in SEC1 uncompressed form (`0x04 ‖ X ‖ Y`): the last 20 bytes of
/// keccak256(X ‖ Y).
pub fn address_of_uncompressed(sec1: &[u8]) -> Address {
    let xy = sec1.get(1..).unwrap_or_default();
    let [_, _, _, _, _, _, _, _, _, _, _, _, address @ ..] = crate::keccak256(xy).0;
    Address(address)
}

crate::hexfmt::fixed_bytes_text!(Address, 20, AddressParseError);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_or_without_prefix_in_any_case() {
        let a: Address = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf".parse().unwrap();
        let b: Address = "7e5f4552091a69125d5dfcb7b8c2659029395bdf".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf");
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"0x7e5f4552091a69125d5dfcb7b8c2659029395bdf\"");
    }

    #[test]
    fn rejects_bad_lengths_and_digits() {
        for bad in [
            "",
            "0x",
            "0x1234",
            "zz5f4552091a69125d5dfcb7b8c2659029395bdf",
            "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf00",
        ] {
            assert!(bad.parse::<Address>().is_err(), "{bad}");
        }
    }
}
