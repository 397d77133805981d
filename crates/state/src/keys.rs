//! The state key schema: one prefix byte per record family, then a fixed *index prefix*, then
//! the family's own key.
//!
//! QMDB keeps an in-memory index of every key, translated to its first [`INDEX_PREFIX_BYTES`]
//! bytes (the node's translator), and a lookup reads every stored operation whose key shares
//! those bytes. Keys that share them therefore make each other slower, and a layout in which a
//! user chooses those bytes lets an attacker build a collision chain that every lookup walks
//! (sending one base unit to many addresses with a common prefix, or writing actor keys with a
//! common prefix). So the first [`INDEX_PREFIX_BYTES`] of every key are never chosen by a user:
//! after the family byte come either bytes of keccak-256 of the user-chosen identity
//! ([`spread`]: an address, an actor's storage key), or a sequence number the chain assigns
//! (messages, timers). Making two keys share an index prefix then takes a keccak preimage
//! search of at least 2^48 work per key, so a lookup reads one operation.
//!
//! Records that are paged per owner by cursor (an actor's storage, a recipient's mailbox) keep
//! one owner's records in one key range: the range starts with the family byte and a spread of
//! the owner, and within it records sort by a second spread (storage: of the actor and the key,
//! so iteration order is fixed but not the keys' byte order) or by sequence number (mailbox:
//! FIFO). The owner's own bytes follow, so a key names its record without a hash lookup, and a
//! listing skips the rare record of another owner whose spread collides. Records paged by
//! offset (an owner's timers, and the system families' per-owner lists) are kept in a
//! [`crate::listing`] too, so that an offset is a point lookup.
//!
//! Prefixes and layouts are part of the consensus state layout: a byte, once assigned, never
//! changes meaning. Families not implemented yet have their byte reserved here so that no two
//! features can claim the same one; each defines its layout, by the rule above, when it lands.

use drover_types::{
    Address, H256, keccak256,
    library::LIBRARY_ADDRESS,
    runner::{JOB_DISPATCHER_ADDRESS, RUNNER_REGISTRY_ADDRESS},
    secrets::SECRETS_ADDRESS,
    storage::STORAGE_MANAGER_ADDRESS,
    token::TOKENS_ADDRESS,
};

/// How many leading bytes of a key the node's QMDB index keeps (its translator): never chosen
/// by a user, see the module docs.
pub const INDEX_PREFIX_BYTES: usize = 16;

/// The first `N` bytes of keccak-256 of `parts` concatenated: where a user-chosen identity
/// lands in the index.
pub fn spread<const N: usize>(parts: &[&[u8]]) -> [u8; N] {
    let digest = keccak256(&parts.concat());
    let mut out = [0; N];
    out.copy_from_slice(&digest.0[..N]);
    out
}

/// Chain metadata: `0x00 ‖ name` (ASCII name, e.g. [`META_BASEFEES`]; few fixed keys).
pub const PREFIX_META: u8 = 0x00;
/// Accounts: `0x01 ‖ spread15(address) ‖ address` → [`Account`](crate::Account).
pub const PREFIX_ACCOUNT: u8 = 0x01;
/// Actors: `0x02 ‖ spread14(address) ‖ kind ‖ address` with kind `0x00` → the
/// [`ActorRecord`](crate::ActorRecord), `0x01` → the code (raw WebAssembly bytes), `0x02` → the
/// number of its storage entries (absent: none).
pub const PREFIX_ACTOR: u8 = 0x02;
/// Actor key-value storage: `0x03 ‖ spread7(actor) ‖ spread8(actor ‖ key) ‖ actor ‖ key` → the
/// value (raw bytes). One actor's entries form the range [`storage_range`], in storage order.
pub const PREFIX_ACTOR_STORAGE: u8 = 0x03;
/// Mailbox: the global queue, messages, per-recipient index and usage (see [`crate::mailbox`]).
pub const PREFIX_MAILBOX: u8 = 0x04;
/// Timers: per-height slots, the firing cursor, per-owner counts and listings (see
/// [`crate::timer`]).
pub const PREFIX_TIMER: u8 = 0x05;
/// Token holdings, by holder: `0x06 ‖ spread15(holder) ‖ holder ‖ token` → a
/// [`Holding`](crate::token::Holding). They are the tokens system actor's storage entries
/// `"b" ‖ token ‖ holder` ([`storage_key`] maps one to the other, see [`OWNED_ENTRIES`]), laid
/// out by holder so that one holder's tokens are one key range. The other token records are
/// ordinary storage of the tokens actor (see [`crate::token`]).
pub const PREFIX_TOKEN: u8 = 0x06;
/// Delegations, by delegator: `0x07 ‖ spread15(delegator) ‖ delegator ‖ runner` → a
/// [`Delegation`](crate::runner::Delegation): the runner registry's storage entries
/// `"d" ‖ runner ‖ delegator` (see [`OWNED_ENTRIES`]). Runner records are ordinary storage of the
/// registry (see [`crate::runner`]).
pub const PREFIX_RUNNER: u8 = 0x07;
/// Jobs assigned to a runner, by runner: `0x08 ‖ spread15(runner) ‖ runner ‖ job` → a marker:
/// the job dispatcher's storage entries `"a" ‖ job ‖ runner` (see [`OWNED_ENTRIES`]). The other
/// job records are ordinary storage of the dispatcher (see [`crate::job`]).
pub const PREFIX_JOB: u8 = 0x08;
/// Reserved: governance proposals, votes and parameters.
pub const PREFIX_GOVERNANCE: u8 = 0x09;
/// Volumes, by owner: `0x0a ‖ spread15(owner) ‖ owner ‖ volume` → a marker: the storage
/// manager's storage entries `"o" ‖ volume ‖ owner` (see [`OWNED_ENTRIES`]). The other relay and
/// volume records are ordinary storage (see [`crate::storage`]).
pub const PREFIX_STORAGE_RELAY: u8 = 0x0a;
/// Reserved: secrets-manager records (sealed secrets and their access lists).
pub const PREFIX_SECRET: u8 = 0x0b;
/// Reserved: account libraries, keyed by publisher then name.
pub const PREFIX_LIBRARY: u8 = 0x0c;
/// Actor upgrade history: `0x0d ‖ spread11(address) ‖ seq(4, BE) ‖ address` →
/// [`UpgradeRecord`](crate::UpgradeRecord).
pub const PREFIX_UPGRADE: u8 = 0x0d;

/// Metadata name of the [`Basefees`](crate::Basefees) record in force for the next block.
pub const META_BASEFEES: &[u8] = b"basefees";

/// Length of an account key: the prefix, the spread and a 20-byte address.
pub const ACCOUNT_KEY_LEN: usize = INDEX_PREFIX_BYTES + Address::LEN;

fn key(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// Key of the chain-metadata record `name`.
pub fn meta_key(name: &[u8]) -> Vec<u8> {
    key(&[&[PREFIX_META], name])
}

/// Key of the [`Basefees`](crate::Basefees) record.
pub fn basefees_key() -> Vec<u8> {
    meta_key(META_BASEFEES)
}

/// Key of the account at `address`.
pub fn account_key(address: &Address) -> Vec<u8> {
    key(&[&[PREFIX_ACCOUNT], &spread::<15>(&[&address.0]), &address.0])
}

/// The address an account key belongs to, or `None` if `key` is not an account key (what a
/// scan over [`PREFIX_ACCOUNT`] needs to turn keys back into addresses).
pub fn account_address(key: &[u8]) -> Option<Address> {
    let address = Address::from_slice(key.strip_prefix(&[PREFIX_ACCOUNT])?.get(15..)?)?;
    (account_key(&address) == key).then_some(address)
}

fn actor_family_key(address: &Address, kind: u8) -> Vec<u8> {
    key(&[&[PREFIX_ACTOR], &spread::<14>(&[&address.0]), &[kind], &address.0])
}

/// Key of the actor record at `address`.
pub fn actor_key(address: &Address) -> Vec<u8> {
    actor_family_key(address, 0x00)
}

/// Key of the code of the actor at `address`.
pub fn actor_code_key(address: &Address) -> Vec<u8> {
    actor_family_key(address, 0x01)
}

/// Key of the number of storage entries the actor at `address` holds.
pub fn actor_storage_count_key(address: &Address) -> Vec<u8> {
    actor_family_key(address, 0x02)
}

/// Length of the part of a storage key before the actor's own key: the index prefix and the
/// actor's address.
pub const STORAGE_KEY_HEADER_LEN: usize = INDEX_PREFIX_BYTES + Address::LEN;

/// The prefix of every key in `actor`'s storage range (entries of an actor whose spread
/// collides may share it: [`storage_entry`] tells them apart).
pub fn storage_range(actor: &Address) -> Vec<u8> {
    key(&[&[PREFIX_ACTOR_STORAGE], &spread::<7>(&[&actor.0])])
}

/// Key of `actor`'s storage entry `user_key`.
///
/// The one place that knows an exception: system actors' entries that are listed per owner
/// ([`OWNED_ENTRIES`]: token holdings, delegations) are stored by owner under their family's
/// prefix ([`owned_key`]), so that one owner's entries are one key range, while the storage
/// proof route and its verifier, which derive keys here, still prove them as storage.
pub fn storage_key(actor: &Address, user_key: &[u8]) -> Vec<u8> {
    if let Some((prefix, owner, item)) = owned_parts(actor, user_key) {
        return owned_key(prefix, &owner, item);
    }
    key(&[&storage_range(actor), &spread::<8>(&[&actor.0, user_key]), &actor.0, user_key])
}

/// System-actor storage entries stored by owner: `(system actor, tag, family prefix, item
/// length)`. Such an entry's user key is `tag ‖ item ‖ owner (20)` and its state key
/// `prefix ‖ spread15(owner) ‖ owner ‖ item` ([`owned_key`]).
pub const OWNED_ENTRIES: [(Address, u8, u8, usize); 6] = [
    (TOKENS_ADDRESS, b'b', PREFIX_TOKEN, Address::LEN),
    (RUNNER_REGISTRY_ADDRESS, b'd', PREFIX_RUNNER, Address::LEN),
    (JOB_DISPATCHER_ADDRESS, b'a', PREFIX_JOB, H256::LEN),
    (SECRETS_ADDRESS, b's', PREFIX_SECRET, H256::LEN),
    (LIBRARY_ADDRESS, b'l', PREFIX_LIBRARY, H256::LEN),
    (STORAGE_MANAGER_ADDRESS, b'o', PREFIX_STORAGE_RELAY, H256::LEN),
];

/// The family prefix, owner and item of an entry stored by owner.
fn owned_parts<'k>(actor: &Address, user_key: &'k [u8]) -> Option<(u8, Address, &'k [u8])> {
    let (_, _, prefix, item_len) =
        OWNED_ENTRIES.iter().find(|(a, tag, _, _)| a == actor && user_key.first() == Some(tag))?;
    let rest = &user_key[1..];
    if rest.len() != item_len + Address::LEN {
        return None;
    }
    Some((*prefix, Address::from_slice(&rest[*item_len..])?, &rest[..*item_len]))
}

/// The range of `owner`'s entries under `prefix` (another owner whose spread collides may
/// share it: [`owned_entry`] tells them apart).
pub fn owned_range(prefix: u8, owner: &Address) -> Vec<u8> {
    key(&[&[prefix], &spread::<15>(&[&owner.0])])
}

/// Key of `owner`'s entry `item` under `prefix`.
pub fn owned_key(prefix: u8, owner: &Address, item: &[u8]) -> Vec<u8> {
    key(&[&owned_range(prefix, owner), &owner.0, item])
}

/// The owner and item of a key under `prefix` laid out by [`owned_key`] with items of
/// `item_len` bytes, or `None`.
pub fn owned_entry(prefix: u8, item_len: usize, key: &[u8]) -> Option<(Address, &[u8])> {
    if key.first() != Some(&prefix) || key.len() != INDEX_PREFIX_BYTES + Address::LEN + item_len {
        return None;
    }
    let owner = Address::from_slice(&key[INDEX_PREFIX_BYTES..INDEX_PREFIX_BYTES + Address::LEN])?;
    let item = &key[INDEX_PREFIX_BYTES + Address::LEN..];
    (owned_key(prefix, &owner, item) == key).then_some((owner, item))
}

/// The actor and user key of a storage key, or `None` if `key` is not one.
pub fn storage_entry(key: &[u8]) -> Option<(Address, &[u8])> {
    if key.first() != Some(&PREFIX_ACTOR_STORAGE) {
        return None;
    }
    let actor = Address::from_slice(key.get(INDEX_PREFIX_BYTES..STORAGE_KEY_HEADER_LEN)?)?;
    Some((actor, &key[STORAGE_KEY_HEADER_LEN..]))
}

/// Key of the global mail queue record.
pub fn mail_queue_key() -> Vec<u8> {
    vec![PREFIX_MAILBOX, 0x00]
}

/// Key of message `seq` of the global queue.
pub fn message_key(seq: u64) -> Vec<u8> {
    key(&[&[PREFIX_MAILBOX, 0x01], &seq.to_be_bytes()])
}

/// The prefix of `recipient`'s mailbox listing markers (FIFO by queue position).
pub fn mailbox_range(recipient: &Address) -> Vec<u8> {
    key(&[&[PREFIX_MAILBOX, 0x02], &spread::<6>(&[&recipient.0])])
}

/// Key of the index marker of message `seq` in `recipient`'s mailbox listing.
pub fn mailbox_entry_key(recipient: &Address, seq: u64) -> Vec<u8> {
    key(&[&mailbox_range(recipient), &seq.to_be_bytes(), &recipient.0])
}

/// The recipient and queue position of a mailbox marker key, or `None` if `key` is not one.
pub fn mailbox_entry(key: &[u8]) -> Option<(Address, u64)> {
    owned_sequence(key, &[PREFIX_MAILBOX, 0x02])
}

/// Key of `recipient`'s mailbox usage record.
pub fn mailbox_usage_key(recipient: &Address) -> Vec<u8> {
    key(&[&[PREFIX_MAILBOX, 0x03], &spread::<14>(&[&recipient.0]), &recipient.0])
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
    key(&[&[PREFIX_TIMER, 0x03], &spread::<14>(&[&owner.0]), &owner.0])
}

/// State key of the entry `user_key` of a timer listing: `0x05 ‖ 0x05 ‖ spread14(user key) ‖
/// user key`, so the owner's address does not choose the index prefix.
fn timer_listing_key(user_key: &[u8]) -> Vec<u8> {
    key(&[&[PREFIX_TIMER, 0x05], &spread::<14>(&[user_key]), user_key])
}

/// The listing of `owner`'s pending timers (items: timer ids, 8 bytes BE), counted by its
/// pending-timer count ([`timer_pending_key`]); see [`crate::listing`].
pub fn timers_listing(owner: &Address) -> crate::listing::Listing {
    crate::listing::Listing::new(timer_listing_key, timer_pending_key(owner), b'L', &owner.0)
}

/// Key of the `seq`-th upgrade of the actor at `address`.
pub fn upgrade_key(address: &Address, seq: u32) -> Vec<u8> {
    key(&[&[PREFIX_UPGRADE], &spread::<11>(&[&address.0]), &seq.to_be_bytes(), &address.0])
}

/// The owner and sequence number of a `tag ‖ spread6 ‖ seq(8) ‖ owner` key.
fn owned_sequence(key: &[u8], tag: &[u8; 2]) -> Option<(Address, u64)> {
    if key.len() != INDEX_PREFIX_BYTES + Address::LEN || !key.starts_with(tag) {
        return None;
    }
    let seq = u64::from_be_bytes(key[8..INDEX_PREFIX_BYTES].try_into().ok()?);
    Some((Address::from_slice(&key[INDEX_PREFIX_BYTES..])?, seq))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

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

    /// What the node's index keeps of a key.
    fn index_prefix(key: &[u8]) -> Vec<u8> {
        let mut prefix = key[..key.len().min(INDEX_PREFIX_BYTES)].to_vec();
        prefix.resize(INDEX_PREFIX_BYTES, 0);
        prefix
    }

    #[test]
    fn prefixes_are_distinct() {
        let mut sorted = ALL_PREFIXES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ALL_PREFIXES.len());
    }

    #[test]
    fn account_keys_name_their_address() {
        let address = Address([0xab; 20]);
        let key = account_key(&address);
        assert_eq!(key.len(), ACCOUNT_KEY_LEN);
        assert_eq!(key[0], 0x01);
        assert_eq!(&key[INDEX_PREFIX_BYTES..], &[0xab; 20]);
        assert_eq!(account_address(&key), Some(address));
        assert!(basefees_key() < key, "metadata sorts first");
    }

    #[test]
    fn chosen_addresses_and_keys_never_share_an_index_prefix() {
        // What an attacker would pick: addresses with a long common prefix, storage keys with a
        // long common prefix, all in one actor.
        let addresses: Vec<Address> = (0..5_000u32)
            .map(|i| {
                let mut bytes = [0xbe; 20];
                bytes[16..].copy_from_slice(&i.to_be_bytes());
                Address(bytes)
            })
            .collect();
        let actor = addresses[0];
        let mut prefixes = BTreeSet::new();
        let mut total = 0;
        for (i, address) in addresses.iter().enumerate() {
            let user_key = [&[0x55; 200][..], &(i as u32).to_be_bytes()].concat();
            for key in [
                account_key(address),
                actor_key(address),
                actor_code_key(address),
                actor_storage_count_key(address),
                storage_key(&actor, &user_key),
                storage_key(&actor, &user_key[196..]),
                mailbox_entry_key(&actor, i as u64),
                mailbox_usage_key(address),
                timer_pending_key(address),
                timers_listing(&actor).slot_key(i as u64),
                timers_listing(&actor).place_key(&((i as u64) << 32).to_be_bytes()),
                upgrade_key(&actor, i as u32),
                message_key(i as u64),
                timer_key(7, i as u32),
                timer_slot_key(i as u64),
            ] {
                prefixes.insert(index_prefix(&key));
                total += 1;
            }
        }
        assert_eq!(prefixes.len(), total, "every key has an index prefix of its own");
    }

    #[test]
    fn owned_records_stay_in_their_owners_range_and_name_their_owner() {
        let a = Address([0x11; 20]);
        let storage = storage_key(&a, b"k");
        assert!(storage.starts_with(&storage_range(&a)));
        assert_eq!(storage_entry(&storage), Some((a, &b"k"[..])));
        assert_eq!(storage_key(&a, b"").len(), STORAGE_KEY_HEADER_LEN);
        assert_eq!(storage_entry(&account_key(&a)), None);

        let marker = mailbox_entry_key(&a, 300);
        assert!(marker.starts_with(&mailbox_range(&a)));
        assert_eq!(mailbox_entry(&marker), Some((a, 300)));
        assert!(mailbox_entry_key(&a, 255) < mailbox_entry_key(&a, 256), "FIFO is key order");
    }

    #[test]
    fn family_keys_are_distinct_and_sequences_keep_their_order() {
        let a = Address([0x11; 20]);
        let keys = [
            actor_key(&a),
            actor_code_key(&a),
            actor_storage_count_key(&a),
            storage_key(&a, b"k"),
            mail_queue_key(),
            message_key(1),
            mailbox_entry_key(&a, 1),
            mailbox_usage_key(&a),
            timer_cursor_key(),
            timer_slot_key(5),
            timer_key(5, 0),
            timer_pending_key(&a),
            timers_listing(&a).slot_key(0),
            upgrade_key(&a, 0),
        ];
        let sorted: BTreeSet<_> = keys.iter().collect();
        assert_eq!(sorted.len(), keys.len());
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
        assert_eq!(account_address(&[PREFIX_ACCOUNT; 36]), None, "the spread must match");
        assert_eq!(account_address(&basefees_key()), None);
        let mut other_family = account_key(&Address([1; 20]));
        other_family[0] = PREFIX_ACTOR;
        assert_eq!(account_address(&other_family), None);
    }
}
