//! Recoverable ECDSA secp256k1 signatures over 32-byte hashes.
//!
//! A signature is `y_parity` (0 or 1) with 32-byte `r` and `s`. Only low-s signatures
//! (s ≤ n/2) are accepted, so a signature cannot be malleated into a second valid one; an
//! x-coordinate overflow (`r` reduced mod n, recovery ids 2 and 3) is not representable and
//! never produced. In the transaction it is the array `[y_parity, r, s]`; where a flat form is
//! needed (runner flows, delegation tokens) it is the 65 bytes `r ‖ s ‖ v` with `v = y_parity`.

use crate::{Address, H256, address::address_of_uncompressed, cbor::CborError, cbor::Sink, cbor::Writer};
use minicbor::decode::Decoder;

/// An ECDSA secp256k1 signature with recovery parity, low-s.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Signature {
    /// Parity of the y coordinate of the signature's curve point: 0 or 1.
    pub y_parity: u8,
    /// `r`, 32 bytes big-endian, in 1..n.
    pub r: [u8; 32],
    /// `s`, 32 bytes big-endian, in 1..=n/2 (low s).
    pub s: [u8; 32],
}

/// Why a signature does not yield a sender.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The transaction carries no signature.
    #[error("transaction is not signed")]
    Missing,
    /// A parity other than 0 or 1, `r` or `s` zero or not below the group order, or a high `s`.
    #[error("signature is malformed (bad r/s or parity, or high s)")]
    Malformed,
    /// No public key recovers from the signature and hash.
    #[error("signature does not recover a public key")]
    Unrecoverable,
}

/// Length of the flat `r ‖ s ‖ v` form.
pub const RSV_BYTES: usize = 65;

impl Signature {
    /// Recovers the address whose key made this signature over `hash`. Rejects a parity other
    /// than 0 or 1, `r` or `s` zero or not below the group order, and high `s`.
    pub fn recover(&self, hash: &H256) -> Result<Address, SignatureError> {
        if self.y_parity > 1 {
            return Err(SignatureError::Malformed);
        }
        let signature = k256::ecdsa::Signature::from_scalars(self.r, self.s).map_err(|_| SignatureError::Malformed)?;
        if signature.normalize_s().is_some() {
            return Err(SignatureError::Malformed);
        }
        // The checks above fix the accepted encodings; recovery itself runs on libsecp256k1,
        // several times faster than a pure-Rust recovery and the hot path of admission.
        let mut compact = [0u8; 64];
        compact[..32].copy_from_slice(&self.r);
        compact[32..].copy_from_slice(&self.s);
        let id =
            secp256k1::ecdsa::RecoveryId::try_from(i32::from(self.y_parity)).map_err(|_| SignatureError::Malformed)?;
        let recoverable = secp256k1::ecdsa::RecoverableSignature::from_compact(&compact, id)
            .map_err(|_| SignatureError::Malformed)?;
        let key =
            recoverable.recover(secp256k1::Message::from_digest(hash.0)).map_err(|_| SignatureError::Unrecoverable)?;
        Ok(address_of_uncompressed(&key.serialize_uncompressed()))
    }

    /// The flat 65-byte form `r ‖ s ‖ v`.
    pub fn to_rsv(&self) -> [u8; RSV_BYTES] {
        let mut out = [0u8; RSV_BYTES];
        let (r, rest) = out.split_at_mut(32);
        let (s, v) = rest.split_at_mut(32);
        r.copy_from_slice(&self.r);
        s.copy_from_slice(&self.s);
        v.fill(self.y_parity);
        out
    }

    /// Parses the flat form `r ‖ s ‖ v` (`v` is 0 or 1). Values of `r` and `s` are checked by
    /// [`Signature::recover`].
    pub fn from_rsv(bytes: &[u8]) -> Result<Self, SignatureError> {
        let bytes: &[u8; RSV_BYTES] = bytes.try_into().map_err(|_| SignatureError::Malformed)?;
        let (r, rest) = bytes.split_at(32);
        let (s, v) = rest.split_at(32);
        let (Ok(r), Ok(s), [y_parity @ (0 | 1)]) = (r.try_into(), s.try_into(), v) else {
            return Err(SignatureError::Malformed);
        };
        Ok(Signature { y_parity: *y_parity, r, s })
    }

    /// Writes `[y_parity, r, s]`.
    pub(crate) fn write<S: Sink>(&self, w: &mut Writer<S>) {
        w.array(3).uint(u64::from(self.y_parity)).bytes(&self.r).bytes(&self.s);
    }

    /// Reads `[y_parity (0|1), bytes(32), bytes(32)]`.
    pub(crate) fn read(d: &mut Decoder<'_>) -> Result<Self, CborError> {
        crate::cbor::expect_array(d, 3)?;
        let at = d.position();
        let y_parity = d.u8()?;
        if y_parity > 1 {
            return Err(CborError::malformed(format!("y_parity must be 0 or 1 at byte {at}")));
        }
        let r = crate::cbor::decode_fixed::<32>(d)?;
        let s = crate::cbor::decode_fixed::<32>(d)?;
        Ok(Signature { y_parity, r, s })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SecretKey, keccak256};

    /// secp256k1 group order n.
    const ORDER: [u8; 32] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xba, 0xae,
        0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
    ];

    /// n - s, big-endian.
    fn negate(s: &[u8; 32]) -> [u8; 32] {
        let mut out = [0u8; 32];
        let mut borrow = 0i16;
        for i in (0..32).rev() {
            let mut digit = i16::from(ORDER[i]) - i16::from(s[i]) - borrow;
            borrow = i16::from(digit < 0);
            if digit < 0 {
                digit += 256;
            }
            out[i] = digit as u8;
        }
        out
    }

    #[test]
    fn signs_and_recovers() {
        let key = SecretKey::dev(0);
        let hash = keccak256(b"message");
        let signature = key.sign_prehash(&hash);
        assert_eq!(signature.recover(&hash), Ok(key.address()));
        assert_ne!(signature.recover(&keccak256(b"other")), Ok(key.address()));
    }

    #[test]
    fn rejects_high_s_zero_and_overflowing_scalars() {
        let key = SecretKey::dev(1);
        let hash = keccak256(b"message");
        let signature = key.sign_prehash(&hash);
        // The malleated twin (n - s, other parity) is a valid ECDSA signature, but high-s.
        let twin = Signature { y_parity: 1 - signature.y_parity, r: signature.r, s: negate(&signature.s) };
        assert_eq!(twin.recover(&hash), Err(SignatureError::Malformed));
        for bad in [
            Signature { r: [0; 32], ..signature },
            Signature { s: [0; 32], ..signature },
            Signature { r: ORDER, ..signature },
            Signature { s: [0xff; 32], ..signature },
            Signature { y_parity: 2, ..signature },
        ] {
            assert_eq!(bad.recover(&hash), Err(SignatureError::Malformed));
        }
    }

    #[test]
    fn rsv_round_trips_and_rejects_bad_forms() {
        let signature = SecretKey::dev(2).sign_prehash(&keccak256(b"x"));
        let rsv = signature.to_rsv();
        assert_eq!(rsv[64], signature.y_parity);
        assert_eq!(Signature::from_rsv(&rsv), Ok(signature));
        let mut bad_v = rsv;
        bad_v[64] = 27;
        assert_eq!(Signature::from_rsv(&bad_v), Err(SignatureError::Malformed));
        assert_eq!(Signature::from_rsv(&rsv[..64]), Err(SignatureError::Malformed));
    }
}
