//! Proof formats: state proofs against a block's `state_root`, and transaction and receipt
//! inclusion proofs against its `transactions_root` and `receipts_root`.
//!
//! **State.** The state is one QMDB `current::ordered` database (`Vec<u8>` keys and values, SHA-256,
//! MMR, 32-byte activity-bitmap chunks). Its canonical root is the block's `state_root`, and it
//! proves the *current* value of a key: a present key by a [`StateValueProof`] (the key's active
//! update operation, its activity bit and the next active key), an absent key by a
//! [`StateExclusionProof`] (the active span of adjacent keys that strictly contains it, or, for an
//! empty database, its last commit). Both are serialized with the Commonware codec; which of the
//! two a proof is follows from whether a value is claimed.
//!
//! **Transactions and receipts.** Both roots are binary Merkle trees (`commonware_storage::bmt`,
//! SHA-256, position-hashed leaves, leaf count bound into the root) over one 32-byte leaf per
//! transaction in block order: the transaction hash (keccak256 of its canonical CBOR), resp.
//! SHA-256 of the receipt's canonical CBOR. An inclusion proof is a `bmt::Proof` (leaf count and
//! sibling digests) for the leaf at the transaction's index.
//!
//! Decoding is bounded by the named limits below, so a hostile node cannot make a verifier
//! allocate without limit.

use commonware_codec::{Decode as _, Encode as _};
use commonware_cryptography::{Hasher as _, Sha256, sha256};
use commonware_storage::{
    bmt, mmr,
    qmdb::{
        any::value::VariableEncoding,
        current::ordered::proof::{ExclusionProof, KeyValueProof},
    },
};

/// Longest state key (prefix byte and family key) the state database accepts, in bytes.
pub const STATE_MAX_KEY_BYTES: usize = 1024;
/// Largest state value the state database accepts, in bytes.
pub const STATE_MAX_VALUE_BYTES: usize = 4 * 1024 * 1024;
/// Most digests a decoded state proof may carry. A proof of one operation needs one digest per
/// tree level plus the peaks (at most 2 × 64 for a 64-bit operation count) and the grafting
/// path; this leaves headroom without letting a proof allocate without bound.
pub const STATE_PROOF_DIGESTS_MAX: usize = 256;
/// Bitmap chunk size of the state database, in bytes (its `N` parameter).
pub const STATE_CHUNK_BYTES: usize = 32;

/// Proof that a key holds a value in the current state.
pub type StateValueProof = KeyValueProof<mmr::Family, Vec<u8>, sha256::Digest, [u8; STATE_CHUNK_BYTES]>;
/// Proof that a key holds no value in the current state.
pub type StateExclusionProof =
    ExclusionProof<mmr::Family, Vec<u8>, VariableEncoding<Vec<u8>>, sha256::Digest, [u8; STATE_CHUNK_BYTES]>;

/// Why a proof was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// The proof bytes do not decode (the codec's reason).
    #[error("the proof does not decode: {0}")]
    Malformed(String),
    /// The proof decodes but does not verify against the root.
    #[error("the proof does not verify against the root")]
    Mismatch,
}

fn key_cfg() -> (commonware_codec::RangeCfg<usize>, ()) {
    ((0..=STATE_MAX_KEY_BYTES).into(), ())
}

fn value_cfg() -> (commonware_codec::RangeCfg<usize>, ()) {
    ((0..=STATE_MAX_VALUE_BYTES).into(), ())
}

/// Checks `proof` (the encoding of a [`StateValueProof`] when `value` is `Some`, of a
/// [`StateExclusionProof`] when it is `None`) for `key` against the state root `root`.
pub fn verify_state(key: &[u8], value: Option<&[u8]>, proof: &[u8], root: &sha256::Digest) -> Result<(), ProofError> {
    let malformed = |e: commonware_codec::Error| ProofError::Malformed(e.to_string());
    let verified = match value {
        Some(value) => {
            StateValueProof::decode_cfg(bytes::Bytes::copy_from_slice(proof), &(STATE_PROOF_DIGESTS_MAX, key_cfg()))
                .map_err(malformed)?
                .verify::<Sha256, VariableEncoding<Vec<u8>>>(key.to_vec(), value.to_vec(), root)
        }
        None => StateExclusionProof::decode_cfg(
            bytes::Bytes::copy_from_slice(proof),
            &(STATE_PROOF_DIGESTS_MAX, (key_cfg(), value_cfg()), value_cfg()),
        )
        .map_err(malformed)?
        .verify::<Sha256>(&key.to_vec(), root),
    };
    if verified { Ok(()) } else { Err(ProofError::Mismatch) }
}

/// The encoded inclusion proof of the leaf at `index` among `leaves` (block order).
pub fn inclusion_proof(leaves: &[[u8; 32]], index: u32) -> Result<Vec<u8>, ProofError> {
    let mut builder = bmt::Builder::<Sha256>::new(leaves.len());
    for leaf in leaves {
        builder.add(&sha256::Digest::from(*leaf));
    }
    let proof = builder.build().proof(index).map_err(|e| ProofError::Malformed(e.to_string()))?;
    Ok(proof.encode().to_vec())
}

/// Checks an encoded inclusion proof of `leaf` at `index` against `root`.
pub fn verify_inclusion(leaf: [u8; 32], index: u32, proof: &[u8], root: &sha256::Digest) -> Result<(), ProofError> {
    // One proven item: the codec bounds the siblings by the tree's maximum depth.
    let proof = bmt::Proof::<sha256::Digest>::decode_cfg(bytes::Bytes::copy_from_slice(proof), &1)
        .map_err(|e| ProofError::Malformed(e.to_string()))?;
    proof.verify_element_inclusion::<Sha256>(&sha256::Digest::from(leaf), index, root).map_err(|_| ProofError::Mismatch)
}

/// Leaf of a receipt in the receipts tree: SHA-256 of its canonical encoding.
pub fn receipt_leaf(encoded_receipt: &[u8]) -> [u8; 32] {
    Sha256::hash(&[encoded_receipt]).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: u8) -> Vec<[u8; 32]> {
        (0..n).map(|i| [i; 32]).collect()
    }

    #[test]
    fn inclusion_round_trip_and_tampering() {
        let leaves = leaves(5);
        let root = crate::block::merkle_root(leaves.iter().copied());
        for index in 0..5u32 {
            let proof = inclusion_proof(&leaves, index).unwrap();
            assert_eq!(verify_inclusion(leaves[index as usize], index, &proof, &root), Ok(()));
            // Another leaf, another position, or another root do not verify.
            assert_eq!(verify_inclusion([9; 32], index, &proof, &root), Err(ProofError::Mismatch));
            assert_eq!(
                verify_inclusion(leaves[index as usize], (index + 1) % 5, &proof, &root),
                Err(ProofError::Mismatch)
            );
            let other_root = crate::block::merkle_root(leaves[..4].iter().copied());
            assert_eq!(verify_inclusion(leaves[index as usize], index, &proof, &other_root), Err(ProofError::Mismatch));
            // A flipped sibling byte does not verify; a truncated proof does not decode.
            let mut bad = proof.clone();
            let last = bad.len() - 1;
            bad[last] ^= 1;
            assert_eq!(verify_inclusion(leaves[index as usize], index, &bad, &root), Err(ProofError::Mismatch));
            assert!(matches!(
                verify_inclusion(leaves[index as usize], index, &proof[..proof.len() - 1], &root),
                Err(ProofError::Malformed(_))
            ));
        }
        assert!(inclusion_proof(&leaves, 5).is_err());
    }

    #[test]
    fn garbage_state_proofs_are_malformed() {
        let root = sha256::Digest::from([0; 32]);
        assert!(matches!(verify_state(b"k", Some(b"v"), b"", &root), Err(ProofError::Malformed(_))));
        assert!(matches!(verify_state(b"k", None, &[7, 7, 7], &root), Err(ProofError::Malformed(_))));
    }
}
