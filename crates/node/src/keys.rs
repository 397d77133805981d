//! Validator key material: ed25519 identities and BLS12-381 threshold shares.
//!
//! A network of `n` validators shares one group public key (the identity clients pin). Each
//! validator holds an ed25519 identity (p2p authentication, leader election) and a `share` of
//! the group secret whose public `polynomial` it also stores. The generator here is a trusted
//! dealer, fine for devnets and tests; a production network would run a DKG instead.
//!
//! Encodings in config files are hex of the Commonware codec encodings.

use commonware_codec::{Decode, DecodeExt as _, Encode};
use commonware_cryptography::{
    Signer as _,
    bls12381::{
        dkg::feldman_desmedt,
        primitives::{
            group::Share,
            sharing::{Mode, ModeVersion, Sharing},
        },
    },
    ed25519,
};
use commonware_math::algebra::Random as _;
use commonware_utils::{N3f1, NZU32, ordered::Set};

pub use drover_block::scheme::{Identity, NAMESPACE, ThresholdVariant, parse_identity};

/// Most validators a polynomial may describe (bounds decoding of untrusted configs).
pub const MAX_VALIDATORS: u32 = 1024;

/// Key material of one validator.
pub struct ValidatorKeys {
    /// ed25519 identity: p2p authentication and leader election.
    pub private_key: ed25519::PrivateKey,
    /// BLS12-381 share of the group secret (secret).
    pub share: Share,
}

/// Keys for a new network of `n` validators: one identity and share each, and the public
/// polynomial they all store.
pub fn generate_network(n: u32) -> anyhow::Result<(Vec<ValidatorKeys>, Sharing<ThresholdVariant>)> {
    anyhow::ensure!((1..=MAX_VALIDATORS).contains(&n), "validator count must be 1..={MAX_VALIDATORS}");
    let mut rng = commonware_utils::sys_rng();
    let identities: Vec<ed25519::PrivateKey> = (0..n).map(|_| ed25519::PrivateKey::random(&mut rng)).collect();
    let players = Set::from_iter_dedup(identities.iter().map(|k| k.public_key()));
    anyhow::ensure!(players.len() == n as usize, "duplicate identity generated");
    let (output, shares) = feldman_desmedt::deal::<ThresholdVariant, _, N3f1>(&mut rng, Mode::NonZeroCounter, players)
        .map_err(|e| anyhow::anyhow!("dealing failed: {e:?}"))?;
    let mut keys = Vec::with_capacity(identities.len());
    for private_key in identities {
        let share = shares
            .get_value(&private_key.public_key())
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("dealer returned no share for a validator"))?;
        keys.push(ValidatorKeys { private_key, share });
    }
    Ok((keys, output.public().clone()))
}

/// Hex of the Commonware codec encoding of `value`, the form config files use.
pub fn encode_hex(value: &impl Encode) -> String {
    hex::encode(value.encode())
}

fn decode_bytes(s: &str) -> Result<Vec<u8>, String> {
    drover_types::hexfmt::decode(s.trim()).map_err(|e| format!("not hex: {e}"))
}

/// Parses an ed25519 private key (hex of its codec encoding).
pub fn parse_private_key(s: &str) -> Result<ed25519::PrivateKey, String> {
    let bytes = decode_bytes(s)?;
    ed25519::PrivateKey::decode(bytes).map_err(|e| format!("not an ed25519 private key: {e}"))
}

/// Parses an ed25519 public key (hex of its codec encoding).
pub fn parse_public_key(s: &str) -> Result<ed25519::PublicKey, String> {
    let bytes = decode_bytes(s)?;
    ed25519::PublicKey::decode(bytes).map_err(|e| format!("not an ed25519 public key: {e}"))
}

/// Parses a threshold share (hex of its codec encoding).
pub fn parse_share(s: &str) -> Result<Share, String> {
    let bytes = decode_bytes(s)?;
    Share::decode(bytes).map_err(|e| format!("not a threshold share: {e}"))
}

/// Parses a public polynomial (hex of its codec encoding) of at most [`MAX_VALIDATORS`] validators.
pub fn parse_polynomial(s: &str) -> Result<Sharing<ThresholdVariant>, String> {
    let bytes = decode_bytes(s)?;
    Sharing::<ThresholdVariant>::decode_cfg(bytes, &(NZU32!(MAX_VALIDATORS), ModeVersion::v0()))
        .map_err(|e| format!("not a public polynomial: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_round_trip_through_hex() {
        let (keys, polynomial) = generate_network(4).unwrap();
        assert_eq!(keys.len(), 4);
        let poly = parse_polynomial(&encode_hex(&polynomial)).unwrap();
        assert_eq!(poly, polynomial);
        for k in &keys {
            let pk = parse_private_key(&encode_hex(&k.private_key)).unwrap();
            assert_eq!(pk.public_key(), k.private_key.public_key());
            assert_eq!(parse_share(&encode_hex(&k.share)).unwrap(), k.share);
        }
        assert_eq!(parse_identity(&encode_hex(polynomial.public())).unwrap(), *polynomial.public());
    }

    #[test]
    fn garbage_is_rejected_with_a_reason() {
        assert!(parse_share("zz").is_err());
        assert!(parse_polynomial("00").is_err());
        assert!(parse_private_key("0x1234").is_err());
    }
}
