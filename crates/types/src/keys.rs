//! secp256k1 secret keys, signing and address derivation.
//!
//! Key files are plain: 32 bytes as hex (optional `0x`), one line — an Ethereum private key
//! imports as is. Signatures are RFC 6979 deterministic, low-s, with a recovery parity, so the
//! same key and hash always give the same signature (and the published test vectors can be
//! reproduced). An address is the last 20 bytes of keccak256 of the 64-byte uncompressed public
//! key `X ‖ Y`, as in Ethereum.
//!
//! A key's `Debug` output names its address, never its secret.

use crate::{Address, H256, Signature, address::address_of_uncompressed, keccak256};
use k256::ecdsa::hazmat::{DigestPrimitive, SignPrimitive};
use k256::ecdsa::{SigningKey, VerifyingKey};
use std::fmt;

/// A secp256k1 secret key.
#[derive(Clone)]
pub struct SecretKey(k256::ecdsa::SigningKey);

/// Why bytes or text are not a secret key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not 32 bytes of hex.
    #[error("invalid secret key: expected 32 bytes of hex")]
    Malformed,
    /// Zero, or not below the secp256k1 group order.
    #[error("invalid secret key: not a valid secp256k1 scalar")]
    OutOfRange,
}

/// Public seed of the development keys. Anyone can derive them: they only fund dev chains.
const DEV_SEED: &[u8] = b"drover-dev-seed";

/// The RFC 6979 hash of secp256k1 (SHA-256).
type NonceDigest = <k256::Secp256k1 as DigestPrimitive>::Digest;

impl SecretKey {
    /// The key with these 32 big-endian secret bytes; refused if zero or not below the group order.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> {
        SigningKey::from_bytes(&(*bytes).into()).map(SecretKey).map_err(|_| KeyError::OutOfRange)
    }

    /// Parses 64 hex digits, optional `0x`, surrounding whitespace ignored.
    pub fn from_hex(s: &str) -> Result<Self, KeyError> {
        let bytes = crate::hexfmt::decode_array(s.trim()).map_err(|_| KeyError::Malformed)?;
        Self::from_bytes(&bytes)
    }

    /// A fresh key from the operating system's RNG.
    pub fn random() -> Self {
        SecretKey(SigningKey::random(&mut rand::rngs::OsRng))
    }

    /// The 32 big-endian secret bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes().into()
    }

    /// `0x`-prefixed lowercase hex of the 32 secret bytes.
    pub fn to_hex(&self) -> String {
        format!("0x{}", hex::encode(self.to_bytes()))
    }

    /// Address of this key's public key.
    pub fn address(&self) -> Address {
        address_of(self.0.verifying_key())
    }

    /// Signs a 32-byte prehash (RFC 6979, low-s).
    pub fn sign_prehash(&self, hash: &H256) -> Signature {
        let z = k256::FieldBytes::from(hash.0);
        let scalar = self.0.as_nonzero_scalar();
        // The first attempt is plain RFC 6979 (what `SigningKey::sign_prehash_recoverable`
        // computes). It fails only if r or s is zero, or r overflowed the group order (recovery
        // ids 2 and 3, which the signature format cannot carry): odds near 2^-128. Retries feed
        // a counter as RFC 6979 §3.6 additional data, so signing stays deterministic and total.
        let mut retry = 0u64;
        loop {
            let counter = retry.to_be_bytes();
            let extra: &[u8] = if retry == 0 { &[] } else { &counter };
            if let Ok((signature, Some(id))) = scalar.try_sign_prehashed_rfc6979::<NonceDigest>(&z, extra)
                && !id.is_x_reduced()
            {
                // k256 already returns low s with the matching parity; normalising here keeps
                // the guarantee local to this crate.
                let (signature, y_odd) = match signature.normalize_s() {
                    Some(low) => (low, !id.is_y_odd()),
                    None => (signature, id.is_y_odd()),
                };
                let (r, s) = signature.split_bytes();
                return Signature { y_parity: u8::from(y_odd), r: r.into(), s: s.into() };
            }
            retry = retry.wrapping_add(1);
        }
    }

    /// The deterministic development key number `index` (derived from a fixed, public dev seed:
    /// keccak256("drover-dev-seed" ‖ index as u32 big-endian)). Never use on a real network.
    ///
    /// Should the hash not be a valid scalar (zero or not below the group order, odds near
    /// 2^-128), the next candidate is keccak256("drover-dev-seed" ‖ index ‖ counter as u32
    /// big-endian) for counter = 1, 2, ...
    pub fn dev(index: u32) -> Self {
        let mut candidate = keccak256(&[DEV_SEED, &index.to_be_bytes()].concat());
        let mut counter = 0u32;
        loop {
            if let Ok(key) = Self::from_bytes(&candidate.0) {
                return key;
            }
            counter = counter.wrapping_add(1);
            candidate = keccak256(&[DEV_SEED, &index.to_be_bytes(), &counter.to_be_bytes()].concat());
        }
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey").field("address", &self.address()).finish_non_exhaustive()
    }
}

/// Address of an uncompressed public key (last 20 bytes of keccak256 of the 64-byte X‖Y).
pub fn address_of(key: &VerifyingKey) -> Address {
    let point = key.to_encoded_point(false);
    address_of_uncompressed(point.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_one_has_the_well_known_address() {
        let one = format!("{:064x}", 1);
        let key = SecretKey::from_hex(&one).unwrap();
        assert_eq!(key.address().to_string(), "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf");
        assert_eq!(key.to_hex(), format!("0x{one}"));
        assert_eq!(SecretKey::from_bytes(&key.to_bytes()).unwrap().address(), key.address());
    }

    #[test]
    fn parses_hex_leniently_and_checks_range() {
        let one = format!("{:064x}", 1);
        for ok in [one.clone(), format!("0x{one}"), format!("  0X{}\n", one.to_uppercase())] {
            assert!(SecretKey::from_hex(&ok).is_ok(), "{ok:?}");
        }
        for bad in ["", "0x", "01", &format!("{one}00"), &format!("zz{}", &one[2..])] {
            assert_eq!(SecretKey::from_hex(bad).err(), Some(KeyError::Malformed), "{bad:?}");
        }
        assert_eq!(SecretKey::from_bytes(&[0; 32]).err(), Some(KeyError::OutOfRange));
        assert_eq!(SecretKey::from_bytes(&[0xff; 32]).err(), Some(KeyError::OutOfRange));
    }

    #[test]
    fn dev_keys_are_the_published_derivation() {
        let mut preimage = b"drover-dev-seed".to_vec();
        preimage.extend_from_slice(&7u32.to_be_bytes());
        let expected = SecretKey::from_bytes(&keccak256(&preimage).0).unwrap();
        assert_eq!(SecretKey::dev(7).to_bytes(), expected.to_bytes());
        assert_ne!(SecretKey::dev(0).address(), SecretKey::dev(1).address());
        assert_eq!(SecretKey::dev(3).address(), SecretKey::dev(3).address());
    }

    #[test]
    fn dev_keys_match_the_published_values() {
        // Published in docs/protocol.md.
        for (index, secret, address) in [
            (
                0,
                "0x059c4686eeedd18ebe2b813293558ca541745591b4327b8eb074fb17a4c93bf6",
                "0xd0def2131c85136a1c65d8692cf6c523b76f06a1",
            ),
            (
                1,
                "0x12ed24383aa286e10ba408e8fe6503c29928c0aac3852f41a06f32f7dce69b21",
                "0x8d4b910f4b4d5e2d76b6fd2a8db84cc6bb954ece",
            ),
        ] {
            let key = SecretKey::dev(index);
            assert_eq!(key.to_hex(), secret);
            assert_eq!(key.address().to_string(), address);
        }
    }

    #[test]
    fn random_keys_differ() {
        assert_ne!(SecretKey::random().to_bytes(), SecretKey::random().to_bytes());
    }

    #[test]
    fn debug_does_not_leak_the_secret() {
        let key = SecretKey::dev(0);
        let shown = format!("{key:?}");
        assert!(shown.contains(&key.address().to_string()));
        assert!(!shown.contains(&hex::encode(key.to_bytes())));
    }

    #[test]
    fn signing_is_deterministic_and_low_s() {
        let key = SecretKey::dev(5);
        for i in 0u8..32 {
            let hash = keccak256(&[i]);
            let signature = key.sign_prehash(&hash);
            assert_eq!(signature, key.sign_prehash(&hash));
            assert!(signature.s[0] < 0x80, "high s");
            assert_eq!(signature.recover(&hash), Ok(key.address()));
            // Same result as k256's own recoverable signing.
            let (reference, id) = key.0.sign_prehash_recoverable(&hash.0).unwrap();
            assert_eq!(reference.to_bytes()[..], [signature.r, signature.s].concat());
            assert_eq!(id.to_byte(), signature.y_parity);
        }
    }
}
