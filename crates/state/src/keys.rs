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
/// Actors: `0x02 ‖ address ‖ 0x00` → [`ActorRecord`](crate::ActorRecord), `0x02 ‖ address ‖
/// 0x01` → the code (raw WebAssembly bytes), `0x02 ‖ address ‖ 0x02` → the number of its storage
/// entries (absent: none).
pub const PREFIX_ACTOR: u8 = 0x02;
/// Actor key-value storage: `0x03 ‖ address ‖ key` → the value (raw bytes).
pub const PREFIX_ACTOR_STORAGE: u8 = 0x03;
/// Mailbox: the global queue, messages, per-recipient index and usage (see [`crate::mailbox`]).
pub const PREFIX_MAILBOX: u8 = 0x04;
/// Timers: per-height slots, the firing cursor, per-owner counts and index (see
/// [`crate::timer`]).
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
/// Actor upgrade history: `0x0d ‖ address ‖ seq(4, BE)` → [`UpgradeRecord`](crate::UpgradeRecord).
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

fn key(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// Key of the actor record at `address`.
pub fn actor_key(address: &Address) -> Vec<u8> {
    key(&[&[PREFIX_ACTOR], &address.0, &[0x00]])
}

/// Key of the code of the actor at `address`.
pub fn actor_code_key(address: &Address) -> Vec<u8> {
    key(&[&[PREFIX_ACTOR], &address.0, &[0x01]])
}

/// Key of the number of storage entries the actor at `address` holds.
pub fn actor_storage_count_key(address: &Address) -> Vec<u8> {
    key(&[&[PREFIX_ACTOR], &address.0, &[0x02]])
}

/// Length of the part of a storage key before the actor's own key: prefix and address.
pub const STORAGE_KEY_HEADER_LEN: usize = 1 + Address::LEN;

/// Key of `actor`'s storage entry `user_key` (also: the key prefix of entries starting with it).
pub fn storage_key(actor: &Address, user_key: &[u8]) -> Vec<u8> {
    key(&[&[PREFIX_ACTOR_STORAGE], &actor.0, user_key])
}

/// Key of the global mail queue record.
pub fn mail_queue_key() -> Vec<u8> {
    vec![PREFIX_MAILBOX, 0x00]
}

/// Key of message `seq` of the global queue.
pub fn message_key(seq: u64) -> Vec<u8> {
    key(&[&[PREFIX_MAILBOX, 0x01], &seq.to_be_bytes()])
}

/// Key of the index marker of message `seq` in `recipient`'s mailbox listing.
pub fn mailbox_entry_key(recipient: &Address, seq: u64) -> Vec<u8> {
    key(&[&[PREFIX_MAILBOX, 0x02], &recipient.0, &seq.to_be_bytes()])
}

/// Key of `recipient`'s mailbox usage record.
pub fn mailbox_usage_key(recipient: &Address) -> Vec<u8> {
    key(&[&[PREFIX_MAILBOX, 0x03], &recipient.0])
}

/// Key of the timer firing cursor.
pub fn timer_cursor_key() -> Vec<u8> {
    vec![PREFIX_TIMER, 0x00]
}

/// Key of the count of timers ever scheduled at `height`.
pub fn timer_slot_key(height: u64) -> Vec<u8> {
    key(&[&[PREFIX_TIMER, 0x01], &height.to_be_bytes()])
}

/// Key of the `seq`-th timer at `height`.
pub fn timer_key(height: u64, seq: u32) -> Vec<u8> {
    key(&[&[PREFIX_TIMER, 0x02], &height.to_be_bytes(), &seq.to_be_bytes()])
}

/// Key of `owner`'s count of pending timers.
pub fn timer_pending_key(owner: &Address) -> Vec<u8> {
    key(&[&[PREFIX_TIMER, 0x03], &owner.0])
}

/// Key of the index marker of timer `id` in `owner`'s listing.
pub fn timer_index_key(owner: &Address, id: u64) -> Vec<u8> {
    key(&[&[PREFIX_TIMER, 0x04], &owner.0, &id.to_be_bytes()])
}

/// Key of the `seq`-th upgrade of the actor at `address`.
pub fn upgrade_key(address: &Address, seq: u32) -> Vec<u8> {
    key(&[&[PREFIX_UPGRADE], &address.0, &seq.to_be_bytes()])
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
    fn actor_family_keys_are_distinct_and_grouped_by_owner() {
        let a = Address([0x11; 20]);
        let keys = [
            actor_key(&a),
            actor_code_key(&a),
            storage_key(&a, b"k"),
            mail_queue_key(),
            message_key(1),
            mailbox_entry_key(&a, 1),
            mailbox_usage_key(&a),
            timer_cursor_key(),
            timer_slot_key(5),
            timer_key(5, 0),
            timer_pending_key(&a),
            timer_index_key(&a, 1),
            upgrade_key(&a, 0),
        ];
        let mut sorted = keys.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), keys.len());
        assert_eq!(storage_key(&a, b"").len(), STORAGE_KEY_HEADER_LEN);
        // Timers sort by height, then by sequence number: FIFO is key order.
        assert!(timer_key(5, 9) < timer_key(6, 0));
        assert!(timer_key(5, 1) < timer_key(5, 2));
        assert!(message_key(255) < message_key(256));
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
