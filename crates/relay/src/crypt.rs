//! Client-side encryption of private volumes: the relay only ever holds ciphertext.
//!
//! ```text
//! volume key = HKDF-SHA256(ikm = the wallet's 32 secret key bytes, salt = volume id (32 bytes),
//!                          info = "drover:ras:volume-key:v1"), 32 bytes
//! sealed     = 0x01 ‖ nonce (12 random bytes) ‖ AES-256-GCM(volume key, nonce, plaintext,
//!                                                       aad = volume id (32) ‖ object key (UTF-8))
//!              (ciphertext ‖ 16-byte tag)
//! ```
//!
//! Each volume has its own key, derived on the client from the wallet's key, which never leaves
//! it: anyone holding the wallet key can recompute every volume key, and no one else can. The
//! authenticated data binds a sealed object to its volume and key, so a relay that serves one
//! object's bytes under another key (or from another volume) is caught: [`VolumeKey::open`]
//! fails with [`CryptError::Tampered`], exactly as for altered bytes. What the relay still sees:
//! the keys, the sizes (plaintext + [`SEAL_OVERHEAD_BYTES`]) and the access pattern. A sealed
//! object may be served stale (an older version of the same key): the AEAD cannot tell, the
//! volume's root on chain can.
//!
//! A random 96-bit nonce per seal is safe for up to 2^32 seals under one volume key (NIST SP
//! 800-38D's bound for random nonces), far more writes than a volume sees.
//! Test vector: the tests below and `docs/relay.md`.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use drover_types::{H256, SecretKey};
use hkdf::Hkdf;
use sha2::Sha256;

/// First byte of every sealed object: the format's version.
pub const SEAL_VERSION: u8 = 1;
/// Bytes of the random AES-GCM nonce.
pub const NONCE_BYTES: usize = 12;
/// Bytes of the AES-GCM tag.
pub const TAG_BYTES: usize = 16;
/// Bytes sealing adds to a plaintext.
pub const SEAL_OVERHEAD_BYTES: usize = 1 + NONCE_BYTES + TAG_BYTES;
/// HKDF info of a volume key: names the scheme and its version, so no other key derived from
/// the wallet key coincides with it.
pub const VOLUME_KEY_INFO: &[u8] = b"drover:ras:volume-key:v1";

/// Why a sealed object does not open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptError {
    /// Shorter than the version, nonce and tag.
    #[error("a sealed object is at least {SEAL_OVERHEAD_BYTES} bytes, this one is {0}")]
    Truncated(usize),
    /// Another format version.
    #[error("sealed with format version {0}, this client opens version {SEAL_VERSION}")]
    Version(u8),
    /// Authentication failed: altered, or sealed under another wallet, volume or object key.
    #[error("the object does not open: altered, or sealed for another wallet, volume or object key")]
    Tampered,
}

/// The encryption key of one volume (see the module documentation).
#[derive(Clone)]
pub struct VolumeKey {
    volume: H256,
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for VolumeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VolumeKey").field("volume", &self.volume).finish_non_exhaustive()
    }
}

impl VolumeKey {
    /// The key `wallet` uses for `volume`.
    pub fn derive(wallet: &SecretKey, volume: H256) -> Self {
        VolumeKey { volume, cipher: Aes256Gcm::new(&key_bytes(wallet, volume).into()) }
    }

    /// The volume it is for.
    pub fn volume(&self) -> H256 {
        self.volume
    }

    /// Seals `plaintext` stored as `object_key`, with a fresh random nonce.
    pub fn seal(&self, object_key: &str, plaintext: &[u8]) -> Vec<u8> {
        self.seal_with_nonce(object_key, rand::random(), plaintext)
    }

    /// [`VolumeKey::seal`] with a given nonce: for the test vector only, a nonce used twice
    /// breaks the encryption.
    fn seal_with_nonce(&self, object_key: &str, nonce: [u8; NONCE_BYTES], plaintext: &[u8]) -> Vec<u8> {
        let aad = self.aad(object_key);
        let sealed = self
            .cipher
            .encrypt(&Nonce::from(nonce), Payload { msg: plaintext, aad: &aad })
            .unwrap_or_else(|_| unreachable!("AES-GCM seals any plaintext below 64 GiB"));
        [&[SEAL_VERSION][..], &nonce, &sealed].concat()
    }

    /// Opens `sealed`, stored as `object_key`.
    pub fn open(&self, object_key: &str, sealed: &[u8]) -> Result<Vec<u8>, CryptError> {
        if sealed.len() < SEAL_OVERHEAD_BYTES {
            return Err(CryptError::Truncated(sealed.len()));
        }
        let (version, rest) = sealed.split_at(1);
        if version[0] != SEAL_VERSION {
            return Err(CryptError::Version(version[0]));
        }
        let (nonce, ciphertext) = rest.split_at(NONCE_BYTES);
        let nonce: [u8; NONCE_BYTES] = nonce.try_into().map_err(|_| CryptError::Truncated(sealed.len()))?;
        let aad = self.aad(object_key);
        self.cipher
            .decrypt(&Nonce::from(nonce), Payload { msg: ciphertext, aad: &aad })
            .map_err(|_| CryptError::Tampered)
    }

    fn aad(&self, object_key: &str) -> Vec<u8> {
        [&self.volume.0[..], object_key.as_bytes()].concat()
    }
}

/// HKDF-SHA256(ikm = wallet key, salt = volume id, info = [`VOLUME_KEY_INFO`]), 32 bytes.
fn key_bytes(wallet: &SecretKey, volume: H256) -> [u8; 32] {
    let mut key = [0u8; 32];
    Hkdf::<Sha256>::new(Some(&volume.0), &wallet.to_bytes())
        .expand(VOLUME_KEY_INFO, &mut key)
        .unwrap_or_else(|_| unreachable!("32 bytes of HKDF-SHA256 output"));
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::keccak256;

    fn key() -> VolumeKey {
        VolumeKey::derive(&SecretKey::dev(0), keccak256(b"volume"))
    }

    #[test]
    fn the_test_vector() {
        // Wallet: development key 0; volume: keccak256("volume"); object key "notes/a.txt";
        // nonce 000102030405060708090a0b; plaintext "hello".
        assert_eq!(
            hex::encode(key_bytes(&SecretKey::dev(0), keccak256(b"volume"))),
            "3e5cb81d569bf2e4c0f9adcb484ea21bf126e17309e585b379aeee162471e5c5"
        );
        let nonce: [u8; 12] = core::array::from_fn(|i| i as u8);
        let sealed = key().seal_with_nonce("notes/a.txt", nonce, b"hello");
        assert_eq!(sealed.len(), 5 + SEAL_OVERHEAD_BYTES);
        assert_eq!(
            hex::encode(&sealed),
            "01000102030405060708090a0b8f8f19b3d5f683df1cef4d3dc223f242b7f53330fd",
            "pinned in docs/relay.md (and checked there against an independent implementation)"
        );
        assert_eq!(key().open("notes/a.txt", &sealed).unwrap(), b"hello");
    }

    #[test]
    fn sealing_round_trips_with_fresh_nonces() {
        let a = key().seal("k", b"same");
        let b = key().seal("k", b"same");
        assert_ne!(a, b, "a fresh nonce each time");
        assert_eq!(key().open("k", &a).unwrap(), b"same");
        assert_eq!(key().open("k", &key().seal("k", b"")).unwrap(), b"");
    }

    #[test]
    fn tampered_swapped_or_foreign_objects_do_not_open() {
        let sealed = key().seal("a", b"secret");
        let mut flipped = sealed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(key().open("a", &flipped), Err(CryptError::Tampered));
        assert_eq!(key().open("b", &sealed), Err(CryptError::Tampered), "served under another key");
        let other_volume = VolumeKey::derive(&SecretKey::dev(0), keccak256(b"other"));
        assert_eq!(other_volume.open("a", &sealed), Err(CryptError::Tampered), "another volume");
        let other_wallet = VolumeKey::derive(&SecretKey::dev(1), keccak256(b"volume"));
        assert_eq!(other_wallet.open("a", &sealed), Err(CryptError::Tampered), "another wallet");
        assert_eq!(key().open("a", &sealed[..SEAL_OVERHEAD_BYTES - 1]), Err(CryptError::Truncated(28)));
        let mut v2 = sealed.clone();
        v2[0] = 2;
        assert_eq!(key().open("a", &v2), Err(CryptError::Version(2)));
    }
}
