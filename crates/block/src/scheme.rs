//! The consensus signing scheme and the check of a finalization certificate.
//!
//! Consensus is threshold Simplex over BLS12-381 (MinSig: 48-byte signatures, 96-byte group
//! key). A finalization certificate is one threshold signature over the proposal (round, parent
//! view, block digest); it verifies against the group public key alone, which stays the same
//! across reshares, so a light client pins that one key from the genesis file (`identity`).

use commonware_codec::{Decode as _, DecodeExt as _};
use commonware_consensus::simplex::{scheme::bls12381_threshold::standard, types};
use commonware_cryptography::{
    bls12381::primitives::variant::{MinSig, Variant},
    certificate::Verifier as _,
    ed25519, sha256,
};
use commonware_parallel::Sequential;

/// Signature variant of the threshold scheme.
pub type ThresholdVariant = MinSig;
/// The network's group public key.
pub type Identity = <MinSig as Variant>::Public;
/// The threshold signing scheme of consensus.
pub type Scheme = standard::Scheme<ed25519::PublicKey, ThresholdVariant>;
/// A finalization certificate of a block (its proposal's payload is the block digest).
pub type Finalization = types::Finalization<Scheme, sha256::Digest>;

/// Namespace of every consensus signature and of the p2p handshake of this chain family.
pub const NAMESPACE: &[u8] = b"_DROVER";

/// Why a finalization certificate was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    /// The bytes do not decode as a finalization certificate (the codec's reason).
    #[error("the finalization certificate does not decode: {0}")]
    Malformed(String),
    /// The threshold signature does not verify against the group key.
    #[error("the finalization certificate does not verify against the trusted group key")]
    BadSignature,
}

/// Parses a group public key written as hex of its codec encoding (the genesis `identity`).
pub fn parse_identity(text: &str) -> Result<Identity, String> {
    let bytes = drover_types::hexfmt::decode(text.trim()).map_err(|e| format!("not hex: {e}"))?;
    Identity::decode(bytes::Bytes::from(bytes)).map_err(|e| format!("not a group public key: {e}"))
}

/// A verifier of certificates (only) for the network with group key `identity`.
pub fn certificate_verifier(identity: Identity) -> Scheme {
    Scheme::certificate_verifier(NAMESPACE, identity)
}

/// Decodes a finalization certificate and checks its threshold signature against `identity`.
/// The caller still has to compare the certified payload with the digest of the block it holds.
pub fn verify_finalization(bytes: &[u8], identity: &Identity) -> Result<Finalization, CertificateError> {
    let verifier = certificate_verifier(*identity);
    let finalization =
        Finalization::decode_cfg(bytes::Bytes::copy_from_slice(bytes), &verifier.certificate_codec_config())
            .map_err(|e| CertificateError::Malformed(e.to_string()))?;
    if finalization.verify(&mut commonware_utils::sys_rng(), &verifier, &Sequential) {
        Ok(finalization)
    } else {
        Err(CertificateError::BadSignature)
    }
}
