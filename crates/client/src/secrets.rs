//! Secret envelopes: ECIES over secp256k1 with HKDF-SHA256 and AES-256-GCM, sealed and opened
//! on the client — the chain only ever stores the envelopes.
//!
//! Sealing `plaintext` for `reader` (its 33-byte compressed public key) as `owner`'s secret
//! `name`:
//!
//! 1. a fresh ephemeral key `e` (random scalar) and a fresh 12-byte `nonce`;
//! 2. `shared` = the x-coordinate of `e × reader` (32 bytes, ECDH);
//! 3. `key` = HKDF-SHA256(salt = `E` (the ephemeral public key, 33 bytes compressed),
//!    ikm = `shared`, info = `"drover-secret-v1" ‖ owner(20) ‖ reader address(20) ‖ name`), 32 bytes;
//! 4. `ciphertext ‖ tag` = AES-256-GCM(`key`, `nonce`, `plaintext`, aad = `0x01 ‖ owner ‖ reader
//!    address ‖ name`);
//! 5. envelope = `0x01 ‖ E(33) ‖ nonce(12) ‖ ciphertext ‖ tag(16)`.
//!
//! The key and the authenticated data bind the envelope to its owner, reader and name: moved to
//! another secret or reader it does not open. A tampered envelope fails with
//! [`SecretError::Tampered`]. Test vectors: `docs/secrets.md` and the tests below.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use drover_types::{Address, SecretKey, address::address_of_uncompressed};
use hkdf::Hkdf;
use k256::elliptic_curve::sec1::ToEncodedPoint;
use sha2::Sha256;

/// First byte of every envelope: the scheme's version.
pub const ENVELOPE_VERSION: u8 = 1;
/// Bytes an envelope adds to its plaintext: version, ephemeral key, nonce, tag.
pub const ENVELOPE_OVERHEAD_BYTES: usize = 1 + 33 + 12 + 16;
/// HKDF info prefix, so keys of this scheme are never keys of another.
const INFO_PREFIX: &[u8] = b"drover-secret-v1";

/// Why an envelope cannot be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The reader's public key is not a point of secp256k1 (33 bytes compressed, or 65).
    #[error("not a secp256k1 public key (33 bytes compressed or 65 uncompressed)")]
    PublicKey,
    /// The envelope is shorter than its fixed parts or of another version.
    #[error("not a version-1 envelope of at least {ENVELOPE_OVERHEAD_BYTES} bytes")]
    Malformed,
    /// Authentication failed: the envelope was altered, or is not this reader's for this
    /// owner's secret of this name.
    #[error("the envelope does not open: altered, or sealed for another reader, owner or name")]
    Tampered,
}

/// A reader's public key, as owners seal to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderKey(k256::PublicKey);

impl ReaderKey {
    /// Parses a SEC1 public key (33 bytes compressed or 65 uncompressed).
    pub fn from_sec1(bytes: &[u8]) -> Result<Self, SecretError> {
        k256::PublicKey::from_sec1_bytes(bytes).map(ReaderKey).map_err(|_| SecretError::PublicKey)
    }

    /// The public key of `secret`.
    pub fn of(secret: &SecretKey) -> Self {
        let scalar = k256::SecretKey::from_slice(&secret.to_bytes()).map(|s| s.public_key());
        // A SecretKey is always a valid scalar.
        ReaderKey(scalar.unwrap_or_else(|_| unreachable!("a secret key is a non-zero scalar")))
    }

    /// 33 bytes, compressed: what a reader hands an owner.
    pub fn to_compressed(&self) -> [u8; 33] {
        let point = self.0.to_encoded_point(true);
        let mut out = [0u8; 33];
        out.copy_from_slice(point.as_bytes());
        out
    }

    /// The reader's account address.
    pub fn address(&self) -> Address {
        address_of_uncompressed(self.0.to_encoded_point(false).as_bytes())
    }
}

fn info(owner: &Address, reader: &Address, name: &str) -> Vec<u8> {
    [INFO_PREFIX, &owner.0, &reader.0, name.as_bytes()].concat()
}

fn aad(owner: &Address, reader: &Address, name: &str) -> Vec<u8> {
    [&[ENVELOPE_VERSION][..], &owner.0, &reader.0, name.as_bytes()].concat()
}

fn cipher(shared_x: &[u8], ephemeral: &[u8; 33], info: &[u8]) -> Aes256Gcm {
    let mut key = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's output limit.
    Hkdf::<Sha256>::new(Some(ephemeral), shared_x)
        .expand(info, &mut key)
        .unwrap_or_else(|_| unreachable!("32 bytes of HKDF-SHA256 output"));
    Aes256Gcm::new(&key.into())
}

/// Seals `plaintext` for `reader` as `owner`'s secret `name`, with a fresh ephemeral key and
/// nonce.
pub fn seal(owner: &Address, name: &str, reader: &ReaderKey, plaintext: &[u8]) -> Vec<u8> {
    let ephemeral = SecretKey::random();
    let nonce: [u8; 12] = rand::random();
    seal_with(owner, name, reader, plaintext, &ephemeral, nonce)
}

/// [`seal`] with a given ephemeral key and nonce: for test vectors only — reusing either
/// breaks the encryption.
pub fn seal_with(
    owner: &Address,
    name: &str,
    reader: &ReaderKey,
    plaintext: &[u8],
    ephemeral: &SecretKey,
    nonce: [u8; 12],
) -> Vec<u8> {
    let ephemeral_secret = k256::SecretKey::from_slice(&ephemeral.to_bytes())
        .unwrap_or_else(|_| unreachable!("a secret key is a non-zero scalar"));
    let ephemeral_public = ReaderKey(ephemeral_secret.public_key()).to_compressed();
    let shared = k256::ecdh::diffie_hellman(ephemeral_secret.to_nonzero_scalar(), reader.0.as_affine());
    let reader_address = reader.address();
    let cipher = cipher(shared.raw_secret_bytes(), &ephemeral_public, &info(owner, &reader_address, name));
    let aad = aad(owner, &reader_address, name);
    let sealed = cipher
        .encrypt(&Nonce::from(nonce), Payload { msg: plaintext, aad: &aad })
        .unwrap_or_else(|_| unreachable!("AES-GCM seals any plaintext below 64 GiB"));
    [&[ENVELOPE_VERSION][..], &ephemeral_public, &nonce, &sealed].concat()
}

/// Opens `envelope` of `owner`'s secret `name` with the reader's key.
pub fn open(owner: &Address, name: &str, reader: &SecretKey, envelope: &[u8]) -> Result<Vec<u8>, SecretError> {
    if envelope.len() < ENVELOPE_OVERHEAD_BYTES || envelope[0] != ENVELOPE_VERSION {
        return Err(SecretError::Malformed);
    }
    let mut ephemeral = [0u8; 33];
    ephemeral.copy_from_slice(&envelope[1..34]);
    let mut nonce = [0u8; 12];
    nonce.copy_from_slice(&envelope[34..46]);
    let ephemeral_public = ReaderKey::from_sec1(&ephemeral).map_err(|_| SecretError::Tampered)?;
    let reader_secret =
        k256::SecretKey::from_slice(&reader.to_bytes()).unwrap_or_else(|_| unreachable!("a non-zero scalar"));
    let shared = k256::ecdh::diffie_hellman(reader_secret.to_nonzero_scalar(), ephemeral_public.0.as_affine());
    let reader_address = reader.address();
    let cipher = cipher(shared.raw_secret_bytes(), &ephemeral, &info(owner, &reader_address, name));
    let aad = aad(owner, &reader_address, name);
    cipher.decrypt(&Nonce::from(nonce), Payload { msg: &envelope[46..], aad: &aad }).map_err(|_| SecretError::Tampered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed() -> (Address, SecretKey, SecretKey) {
        (SecretKey::dev(0).address(), SecretKey::dev(1), SecretKey::from_bytes(&[7; 32]).unwrap())
    }

    #[test]
    fn sealed_envelopes_open_only_for_their_reader_owner_and_name() {
        let (owner, reader, _) = fixed();
        let key = ReaderKey::of(&reader);
        assert_eq!(key.address(), reader.address());
        let envelope = seal(&owner, "db-password", &key, b"hunter2");
        assert_eq!(envelope.len(), ENVELOPE_OVERHEAD_BYTES + 7);
        assert_eq!(open(&owner, "db-password", &reader, &envelope), Ok(b"hunter2".to_vec()));
        assert_eq!(open(&owner, "db-password", &SecretKey::dev(2), &envelope), Err(SecretError::Tampered));
        assert_eq!(open(&owner, "other", &reader, &envelope), Err(SecretError::Tampered));
        assert_eq!(open(&Address([9; 20]), "db-password", &reader, &envelope), Err(SecretError::Tampered));
        for at in [0, 1, 40, envelope.len() - 1] {
            let mut tampered = envelope.clone();
            tampered[at] ^= 1;
            assert!(open(&owner, "db-password", &reader, &tampered).is_err(), "byte {at}");
        }
        assert_eq!(open(&owner, "db-password", &reader, &envelope[..20]), Err(SecretError::Malformed));
        assert_ne!(seal(&owner, "db-password", &key, b"hunter2"), envelope, "fresh ephemeral key and nonce");
    }

    /// The vector published in `docs/secrets.md`.
    #[test]
    fn test_vector() {
        let (owner, reader, ephemeral) = fixed();
        let key = ReaderKey::of(&reader);
        let envelope = seal_with(&owner, "db-password", &key, b"hunter2", &ephemeral, [1; 12]);
        assert_eq!(hex::encode(key.to_compressed()), TEST_VECTOR_READER_KEY);
        assert_eq!(hex::encode(&envelope), TEST_VECTOR_ENVELOPE);
        assert_eq!(open(&owner, "db-password", &reader, &envelope), Ok(b"hunter2".to_vec()));
    }

    /// Dev key 1's public key.
    const TEST_VECTOR_READER_KEY: &str = "0269409005768c46617bc1e0862d936a22d27e1aabc30ecfe868571f1dac856dd3";
    /// `hunter2` sealed as dev key 0's `db-password` for dev key 1, with the ephemeral key
    /// `0x07 × 32` and the nonce `0x01 × 12` (reproduced by an independent implementation, see
    /// `docs/secrets.md`).
    const TEST_VECTOR_ENVELOPE: &str = "0102989c0b76cb563971fdc9bef31ec06c3560f3249d6ee9e5d83c57625596e05f6f010101010101010101010101267302374efd84c10c670c9fe94fe1bde13bb5a35b9574";
}
