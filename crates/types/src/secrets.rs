//! Secrets: the secrets system actor's address, its calls and their rules.
//!
//! An owner keeps a named secret on chain as one envelope per reader: the value encrypted
//! client side to that reader's secp256k1 public key (ECIES, see `drover_client::secrets`). The
//! chain stores only envelopes and the list of readers; no node ever sees a plaintext.
//! [`SecretCall`] is the wire form, shared by clients and the executor.

use crate::Address;
use crate::args::{Args, ArgsBuilder, ArgsError};
use crate::cbor::{CborError, Writer};
use crate::params::{LISTING_CELLS, LISTING_CYCLES};
use crate::system_call::{SystemCall, SystemCallError};
use minicbor::decode::Decoder;

/// The secrets system actor.
pub const SECRETS_ADDRESS: Address = Address::system(0x04);

/// Longest secret name, in bytes of `a`–`z`, `A`–`Z`, `0`–`9`, `.`, `_`, `-`.
pub const MAX_SECRET_NAME_BYTES: usize = 64;
/// Most readers of one secret.
pub const MAX_READERS: usize = 32;
/// Largest envelope, in bytes (a value of up to about 4 KiB plus the ECIES overhead).
pub const MAX_ENVELOPE_BYTES: usize = 4_096 + 128;

/// Cycles of a `set` besides its envelopes.
pub const SET_CYCLES: u64 = 10_000;
/// Cycles per envelope written or removed.
pub const ENVELOPE_CYCLES: u64 = 2_000;
/// Cells of a secret's record besides its readers, and of its owner's count of secrets.
pub const SECRET_RECORD_CELLS: u64 = 160;

/// One call of the secrets actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretCall {
    /// `set {"name", "envelopes": {reader(20 bytes): envelope}}`: (re)writes the secret with
    /// exactly these readers; its version goes up by one.
    Set {
        /// The secret's name (one namespace per owner).
        name: String,
        /// Each reader's envelope, in reader order.
        envelopes: Vec<(Address, Vec<u8>)>,
    },
    /// `grant {"name", "reader", "envelope"}`: adds (or replaces) one reader's envelope.
    Grant {
        /// The secret.
        name: String,
        /// The reader.
        reader: Address,
        /// The value encrypted to the reader.
        envelope: Vec<u8>,
    },
    /// `revoke {"name", "reader"}`: removes one reader's envelope.
    Revoke {
        /// The secret.
        name: String,
        /// The reader.
        reader: Address,
    },
    /// `delete {"name"}`: removes the secret and every envelope.
    Delete {
        /// The secret.
        name: String,
    },
}

/// Why a secret's name, readers or envelopes are refused (execution answers E1801).
pub fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_SECRET_NAME_BYTES
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!("a secret name is 1 to {MAX_SECRET_NAME_BYTES} characters of a-z A-Z 0-9 . _ -"))
    }
}

fn check_envelope(reader: &Address, envelope: &[u8]) -> Result<(), String> {
    if envelope.is_empty() || envelope.len() > MAX_ENVELOPE_BYTES {
        return Err(format!("the envelope for {reader} is {} bytes; 1 to {MAX_ENVELOPE_BYTES}", envelope.len()));
    }
    Ok(())
}

impl SecretCall {
    /// The secret the call is about.
    pub fn name(&self) -> &str {
        match self {
            SecretCall::Set { name, .. }
            | SecretCall::Grant { name, .. }
            | SecretCall::Revoke { name, .. }
            | SecretCall::Delete { name } => name,
        }
    }

    /// Why the call breaks the rules (name, readers, envelope sizes).
    pub fn check(&self) -> Result<(), String> {
        check_name(self.name())?;
        match self {
            SecretCall::Set { envelopes, .. } => {
                if envelopes.is_empty() || envelopes.len() > MAX_READERS {
                    return Err(format!("a secret has 1 to {MAX_READERS} readers; got {}", envelopes.len()));
                }
                // The stored reader list is searched by bisection: it must be sorted and unique
                // whatever built the call (the canonical decoder already guarantees it).
                if envelopes.windows(2).any(|pair| pair[0].0 >= pair[1].0) {
                    return Err("readers are listed once each, in address order".into());
                }
                envelopes.iter().try_for_each(|(reader, envelope)| check_envelope(reader, envelope))
            }
            SecretCall::Grant { reader, envelope, .. } => check_envelope(reader, envelope),
            SecretCall::Revoke { .. } | SecretCall::Delete { .. } => Ok(()),
        }
    }
}

impl SystemCall for SecretCall {
    const ADDRESS: Address = SECRETS_ADDRESS;
    const NAME: &'static str = "the secrets actor";

    /// Every handler of the secrets actor.
    const HANDLERS: &'static [&'static str] = &["set", "grant", "revoke", "delete"];

    /// The handler name.
    fn handler(&self) -> &'static str {
        match self {
            SecretCall::Set { .. } => "set",
            SecretCall::Grant { .. } => "grant",
            SecretCall::Revoke { .. } => "revoke",
            SecretCall::Delete { .. } => "delete",
        }
    }

    /// What the call costs before it runs: `(cycles, cells)` — a `delete` is priced for the
    /// most readers a secret can have.
    fn cost(&self) -> (u64, u64) {
        let bytes = |envelopes: &[(Address, Vec<u8>)]| envelopes.iter().map(|(_, e)| e.len() as u64 + 64).sum::<u64>();
        // A secret that appears (`set`) or goes (`revoke` of the last reader, `delete`) joins or
        // leaves its owner's listing.
        match self {
            SecretCall::Set { envelopes, .. } => (
                SET_CYCLES + ENVELOPE_CYCLES * (envelopes.len() + MAX_READERS) as u64 + LISTING_CYCLES,
                SECRET_RECORD_CELLS + 20 * envelopes.len() as u64 + bytes(envelopes) + LISTING_CELLS,
            ),
            SecretCall::Grant { envelope, .. } => {
                (SET_CYCLES + ENVELOPE_CYCLES, SECRET_RECORD_CELLS + 84 + envelope.len() as u64)
            }
            SecretCall::Revoke { .. } => (SET_CYCLES + ENVELOPE_CYCLES + LISTING_CYCLES, LISTING_CELLS),
            SecretCall::Delete { .. } => {
                (SET_CYCLES + ENVELOPE_CYCLES * MAX_READERS as u64 + LISTING_CYCLES, LISTING_CELLS)
            }
        }
    }

    /// The canonical argument map.
    fn encode_args(&self) -> Vec<u8> {
        let args = ArgsBuilder::new().text("name", self.name());
        match self {
            SecretCall::Set { envelopes, .. } => args.raw("envelopes", encode_envelopes(envelopes)),
            SecretCall::Grant { reader, envelope, .. } => args.address("reader", reader).bytes("envelope", envelope),
            SecretCall::Revoke { reader, .. } => args.address("reader", reader),
            SecretCall::Delete { .. } => args,
        }
        .encode()
    }

    /// Decodes a call from its handler and argument map.
    fn decode(handler: &str, payload: &[u8]) -> Result<Self, SystemCallError> {
        let args = Args::decode(payload)?;
        let name = || Ok::<_, ArgsError>(args.text("name")?.to_owned());
        let call = match handler {
            "set" => {
                args.only(&["name", "envelopes"])?;
                let envelopes = decode_envelopes(args.encoded("envelopes")?).map_err(|_| ArgsError::Invalid {
                    key: "envelopes".into(),
                    expected: "a map of bytes(20) to bytes",
                })?;
                SecretCall::Set { name: name()?, envelopes }
            }
            "grant" => {
                args.only(&["name", "reader", "envelope"])?;
                SecretCall::Grant {
                    name: name()?,
                    reader: args.address("reader")?,
                    envelope: args.bytes("envelope")?.to_vec(),
                }
            }
            "revoke" => {
                args.only(&["name", "reader"])?;
                SecretCall::Revoke { name: name()?, reader: args.address("reader")? }
            }
            "delete" => {
                args.only(&["name"])?;
                SecretCall::Delete { name: name()? }
            }
            other => return Err(SystemCallError::unknown_handler::<Self>(other)),
        };
        Ok(call)
    }

    fn takes_value(&self) -> bool {
        false
    }
}

/// The canonical CBOR map `{reader (bytes 20): envelope (bytes)}`, keys in order.
fn encode_envelopes(envelopes: &[(Address, Vec<u8>)]) -> Vec<u8> {
    let mut sorted: Vec<_> = envelopes.iter().collect();
    sorted.sort_by_key(|(reader, _)| *reader);
    let mut w = Writer::with_capacity(8 + envelopes.iter().map(|(_, e)| e.len() + 32).sum::<usize>());
    w.map(sorted.len() as u64);
    for (reader, envelope) in sorted {
        w.bytes(&reader.0).bytes(envelope);
    }
    w.into_inner()
}

/// Decodes [`encode_envelopes`] (the bytes were checked canonical with the whole map, so keys
/// are distinct and in order).
fn decode_envelopes(bytes: &[u8]) -> Result<Vec<(Address, Vec<u8>)>, CborError> {
    let mut d = Decoder::new(bytes);
    let len = d.map()?.ok_or_else(|| CborError::NonCanonical("indefinite-length map".into()))?;
    let mut envelopes = Vec::with_capacity(usize::try_from(len).unwrap_or(usize::MAX).min(MAX_READERS + 1));
    for _ in 0..len {
        let reader = Address::from_slice(d.bytes()?).ok_or_else(|| CborError::malformed("a reader of 20 bytes"))?;
        envelopes.push((reader, d.bytes()?.to_vec()));
    }
    if d.position() != bytes.len() {
        return Err(CborError::malformed("trailing bytes"));
    }
    Ok(envelopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_round_trips_through_its_message() {
        let (a, b) = (Address([2; 20]), Address([1; 20]));
        for call in [
            SecretCall::Set { name: "db-password".into(), envelopes: vec![(b, vec![1, 2]), (a, vec![3])] },
            SecretCall::Grant { name: "k".into(), reader: a, envelope: vec![9; 40] },
            SecretCall::Revoke { name: "k".into(), reader: a },
            SecretCall::Delete { name: "k".into() },
        ] {
            let message = call.message();
            assert_eq!(SecretCall::decode(&message.handler, &message.payload), Ok(call));
        }
        assert!(matches!(SecretCall::decode("read", &[0xa0]), Err(SystemCallError::Handler { .. })));
    }

    #[test]
    fn rules() {
        let reader = Address([1; 20]);
        assert!(SecretCall::Delete { name: "ok-name_1.2".into() }.check().is_ok());
        assert!(SecretCall::Delete { name: String::new() }.check().is_err());
        assert!(SecretCall::Delete { name: "sp ace".into() }.check().is_err());
        assert!(SecretCall::Set { name: "k".into(), envelopes: Vec::new() }.check().is_err());
        let many = (0..=MAX_READERS as u8).map(|i| (Address([i; 20]), vec![1])).collect();
        assert!(SecretCall::Set { name: "k".into(), envelopes: many }.check().is_err());
        let big = SecretCall::Grant { name: "k".into(), reader, envelope: vec![0; MAX_ENVELOPE_BYTES + 1] };
        assert!(big.check().is_err());
        let (a, b) = (Address([1; 20]), Address([2; 20]));
        let set = |readers: &[Address]| SecretCall::Set {
            name: "k".into(),
            envelopes: readers.iter().map(|r| (*r, vec![1])).collect(),
        };
        assert!(set(&[a, b]).check().is_ok());
        assert!(set(&[b, a]).check().is_err(), "out of order");
        assert!(set(&[a, a]).check().is_err(), "twice");
    }
}
