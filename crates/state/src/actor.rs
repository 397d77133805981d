//! Actor records: the actor itself at `0x02 ‖ address ‖ 0x00`, its code at `0x02 ‖ address ‖
//! 0x01` (raw WebAssembly bytes, not CBOR: the code hash is over exactly these bytes), and its
//! upgrade history at `0x0d ‖ address ‖ seq`.
//!
//! The actor record carries the number of upgrades so far, so appending to the history needs no
//! range read: the next entry's sequence number is that count.

use crate::RecordError;
use drover_types::{
    Address, H256,
    cbor::{CborError, Writer, decode_fixed, decode_strict, expect_array},
};
use minicbor::decode::Decoder;

/// A deployed actor: `[code_hash, owner, [entitlement ids], created_height, upgrades]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActorRecord {
    /// keccak256 of the code stored under the actor's code key.
    pub code_hash: H256,
    /// The deployer; the only address that may upgrade the actor.
    pub owner: Address,
    /// The manifest's entitlement ids, as validated at deploy (or narrowed by an upgrade).
    pub entitlements: Vec<String>,
    /// Height of the block that deployed it.
    pub created_height: u64,
    /// Number of upgrades so far: the sequence number of the next history entry.
    pub upgrades: u32,
}

impl ActorRecord {
    /// Canonical CBOR `[code_hash, owner, [ids], created_height, upgrades]`.
    pub fn encode(&self) -> Vec<u8> {
        let ids: usize = self.entitlements.iter().map(|id| id.len() + 9).sum();
        let mut w = Writer::with_capacity(96 + ids);
        w.array(5).bytes(&self.code_hash.0).bytes(&self.owner.0).array(self.entitlements.len() as u64);
        for id in &self.entitlements {
            w.text(id);
        }
        w.uint(self.created_height).uint(u64::from(self.upgrades));
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one actor record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 5)?;
            let code_hash = H256(decode_fixed(d)?);
            let owner = Address(decode_fixed(d)?);
            let entitlements = read_texts(d)?;
            let created_height = d.u64()?;
            let upgrades = d.u32()?;
            Ok(ActorRecord { code_hash, owner, entitlements, created_height, upgrades })
        })?)
    }
}

/// One upgrade: `[height, old_code_hash, new_code_hash, tx_hash]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpgradeRecord {
    /// Height of the block that carried the upgrade.
    pub height: u64,
    /// keccak256 of the code the upgrade replaced.
    pub old_code_hash: H256,
    /// keccak256 of the code installed by the upgrade.
    pub new_code_hash: H256,
    /// The upgrade transaction.
    pub tx_hash: H256,
}

impl UpgradeRecord {
    /// Canonical CBOR `[height, old_code_hash, new_code_hash, tx_hash]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(1 + 9 + 3 * 34);
        w.array(4).uint(self.height).bytes(&self.old_code_hash.0).bytes(&self.new_code_hash.0).bytes(&self.tx_hash.0);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one upgrade record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 4)?;
            Ok(UpgradeRecord {
                height: d.u64()?,
                old_code_hash: H256(decode_fixed(d)?),
                new_code_hash: H256(decode_fixed(d)?),
                tx_hash: H256(decode_fixed(d)?),
            })
        })?)
    }
}

/// A definite array of text strings.
fn read_texts(d: &mut Decoder<'_>) -> Result<Vec<String>, CborError> {
    let at = d.position();
    let len = d.array()?.ok_or_else(|| CborError::NonCanonical(format!("indefinite-length array at byte {at}")))?;
    // Each element takes at least one byte: a length above the input size is a lie.
    let capacity = usize::try_from(len).unwrap_or(usize::MAX).min(d.input().len());
    let mut texts = Vec::with_capacity(capacity);
    for _ in 0..len {
        texts.push(d.str()?.to_owned());
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn actor() -> ActorRecord {
        ActorRecord {
            code_hash: H256([7; 32]),
            owner: Address([9; 20]),
            entitlements: vec!["storage.kv".into(), "events.emit".into()],
            created_height: 42,
            upgrades: 3,
        }
    }

    #[test]
    fn actor_record_round_trips() {
        for record in
            [actor(), ActorRecord { entitlements: Vec::new(), upgrades: u32::MAX, created_height: u64::MAX, ..actor() }]
        {
            assert_eq!(ActorRecord::decode(&record.encode()), Ok(record));
        }
    }

    #[test]
    fn actor_record_rejects_corrupt_bytes() {
        let mut bytes = actor().encode();
        bytes.push(0);
        assert!(ActorRecord::decode(&bytes).is_err());
        assert!(ActorRecord::decode(&[0x85, 0x00]).is_err());
        assert!(ActorRecord::decode(&[0x80]).is_err());
    }

    #[test]
    fn upgrade_record_round_trips() {
        let record = UpgradeRecord {
            height: 9,
            old_code_hash: H256([1; 32]),
            new_code_hash: H256([2; 32]),
            tx_hash: H256([3; 32]),
        };
        assert_eq!(UpgradeRecord::decode(&record.encode()), Ok(record));
        assert!(UpgradeRecord::decode(&actor().encode()).is_err());
    }
}
