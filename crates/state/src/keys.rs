//! The state key schema: one prefix byte per record family, then the family's own key.
//!
//! QMDB orders keys bytewise, so a prefix byte makes each family a contiguous key range: listing
//! every account, or proving that a range holds no other record, is one prefix scan. Families whose
//! records belong to an address put the 20 address bytes right after the prefix so that one
//! owner's records are contiguous as well.
//!
//! Prefixes are part of the consensus state layout: a byte, once assigned, never changes meaning.
//! Families not implemented yet have their byte reserved here so that no two features can claim
//! the same one; each feature defines its key layout after the prefix when it lands.

use drover_types::Address;

/// Chain metadata: `0x00 ‖ name` (ASCII name, e.g. [`META_BASEFEES`]).
pub const PREFIX_META: u8 = 0x00;
/// Accounts: `0x01 ‖ address(20)` → [`Account`](crate::Account).
pub const PREFIX_ACCOUNT: u8 = 0x01;
/// Actor code and metadata (code hash, manifest, owner): `0x02 ‖ address(20)` (written once the
/// actor engine lands; proofs already use this layout).
pub const PREFIX_ACTOR: u8 = 0x02;
/// Actor key-value storage: `0x03 ‖ address(20) ‖ the actor's own key` (see [`storage_key`]).
pub const PREFIX_ACTOR_STORAGE: u8 = 0x03;
/// Reserved: mailbox messages waiting for delivery, keyed by recipient actor.
pub const PREFIX_MAILBOX: u8 = 0x04;
/// Reserved: scheduled timers, keyed so that due timers sort first.
pub const PREFIX_TIMER: u8 = 0x05;
/// Reserved: token definitions and balances.
pub const PREFIX_TOKEN: u8 = 0x06;
/// Reserved: off-chain compute runners (registration, stake, delegations).
pub const PREFIX_RUNNER: u8 = 0x07;
/// Reserved: jobs submitted to runners and their results.
pub const PREFIX_JOB: u8 = 0x08;
/// Reserved: governance proposals, votes and parameters.
pub const PREFIX_GOVERNANCE: u8 = 0x09;
/// Reserved: storage relays and storage deals.
pub const PREFIX_STORAGE_RELAY: u8 = 0x0a;
/// Reserved: secrets-manager records (sealed secrets and their access lists).
pub const PREFIX_SECRET: u8 = 0x0b;
/// Reserved: account libraries, keyed by publisher then name.
pub const PREFIX_LIBRARY: u8 = 0x0c;
/// Reserved: actor upgrade history, keyed by actor address then sequence.
pub const PREFIX_UPGRADE: u8 = 0x0d;

/// Metadata name of the [`Basefees`](crate::Basefees) record in force for the next block.
pub const META_BASEFEES: &[u8] = b"basefees";

/// Length of an account key: the prefix and a 20-byte address.
pub const ACCOUNT_KEY_LEN: usize = 1 + Address::LEN;

/// Key of the chain-metadata record `name`.
pub fn meta_key(name: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + name.len());
    key.push(PREFIX_META);
    key.extend_from_slice(name);
    key
}

/// Key of the [`Basefees`](crate::Basefees) record.
pub fn basefees_key() -> Vec<u8> {
    meta_key(META_BASEFEES)
}

/// Key of the account at `address`.
pub fn account_key(address: &Address) -> Vec<u8> {
    let mut key = Vec::with_capacity(ACCOUNT_KEY_LEN);
    key.push(PREFIX_ACCOUNT);
    key.extend_from_slice(&address.0);
    key
}

/// Length of an actor record key: the prefix and a 20-byte address.
pub const ACTOR_KEY_LEN: usize = 1 + Address::LEN;

/// Longest key an actor may give a storage slot, in bytes (the VM's bound).
pub const MAX_STORAGE_KEY_BYTES: usize = 256;

/// Key of the actor record (code hash, manifest, owner) at `address`.
pub fn actor_key(address: &Address) -> Vec<u8> {
    let mut key = Vec::with_capacity(ACTOR_KEY_LEN);
    key.push(PREFIX_ACTOR);
    key.extend_from_slice(&address.0);
    key
}

/// Key of slot `storage_key` of the actor at `address`: `0x03 ‖ address ‖ storage_key`. The
/// address has a fixed length, so the layout is unambiguous and one actor's slots are one
/// contiguous range.
pub fn storage_key(address: &Address, storage_key: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + Address::LEN + storage_key.len());
    key.push(PREFIX_ACTOR_STORAGE);
    key.extend_from_slice(&address.0);
    key.extend_from_slice(storage_key);
    key
}

/// The address an account key belongs to, or `None` if `key` is not an account key (what a
/// prefix scan over [`PREFIX_ACCOUNT`] needs to turn keys back into addresses).
pub fn account_address(key: &[u8]) -> Option<Address> {
    match key.split_first() {
        Some((&PREFIX_ACCOUNT, rest)) => Address::from_slice(rest),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_PREFIXES: [u8; 14] = [
        PREFIX_META,
        PREFIX_ACCOUNT,
        PREFIX_ACTOR,
        PREFIX_ACTOR_STORAGE,
        PREFIX_MAILBOX,
        PREFIX_TIMER,
        PREFIX_TOKEN,
        PREFIX_RUNNER,
        PREFIX_JOB,
        PREFIX_GOVERNANCE,
        PREFIX_STORAGE_RELAY,
        PREFIX_SECRET,
        PREFIX_LIBRARY,
        PREFIX_UPGRADE,
    ];

    #[test]
    fn prefixes_are_distinct() {
        let mut sorted = ALL_PREFIXES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ALL_PREFIXES.len());
    }

    #[test]
    fn account_key_is_prefix_then_address() {
        let address = Address([0xab; 20]);
        let key = account_key(&address);
        assert_eq!(key.len(), ACCOUNT_KEY_LEN);
        assert_eq!(key[0], 0x01);
        assert_eq!(&key[1..], &[0xab; 20]);
        assert_eq!(account_address(&key), Some(address));
    }

    #[test]
    fn account_keys_sort_like_addresses_and_after_metadata() {
        let low = account_key(&Address::ZERO);
        let high = account_key(&Address([0xff; 20]));
        assert!(basefees_key() < low);
        assert!(low < high);
    }

    #[test]
    fn actor_and_storage_keys_follow_the_schema() {
        let address = Address([0xab; 20]);
        let actor = actor_key(&address);
        assert_eq!(actor.len(), ACTOR_KEY_LEN);
        assert_eq!((actor[0], &actor[1..]), (PREFIX_ACTOR, &[0xab; 20][..]));
        let slot = storage_key(&address, b"count");
        assert_eq!(slot[0], PREFIX_ACTOR_STORAGE);
        assert_eq!(&slot[1..21], &[0xab; 20]);
        assert_eq!(&slot[21..], b"count");
        // One actor's slots sort together, after its empty key and before the next actor's.
        let next = storage_key(&Address([0xac; 20]), b"");
        assert!(storage_key(&address, b"") < slot && slot < next);
    }

    #[test]
    fn basefees_key_is_metadata_prefix_then_name() {
        assert_eq!(basefees_key(), b"\x00basefees");
    }

    #[test]
    fn account_address_rejects_other_keys() {
        assert_eq!(account_address(&[]), None);
        assert_eq!(account_address(&[PREFIX_ACCOUNT]), None);
        assert_eq!(account_address(&[PREFIX_ACCOUNT; 20]), None);
        assert_eq!(account_address(&[PREFIX_ACCOUNT; 22]), None);
        assert_eq!(account_address(&basefees_key()), None);
        let mut other_family = account_key(&Address([1; 20]));
        other_family[0] = PREFIX_ACTOR;
        assert_eq!(account_address(&other_family), None);
    }
}
