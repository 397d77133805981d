//! The state database's key translator: what QMDB's in-memory index keeps of each key.
//!
//! QMDB indexes keys by a fixed-size translation and reads every stored operation whose key
//! translates alike on a lookup, so the translation decides what a lookup costs. The state key
//! schema (`drover_state::keys`) guarantees that the first
//! [`INDEX_PREFIX_BYTES`](drover_state::keys::INDEX_PREFIX_BYTES) bytes of a key are a family
//! byte followed by hash bytes or chain-assigned sequence numbers, never bytes a user chose, so
//! [`StatePrefix`] keeps exactly those bytes: no user can make two keys share a translation,
//! and a lookup reads one operation however large the state grows.
//!
//! The index is ordered (actor storage iteration, listings and exclusion proofs need the next
//! key), so the translation must preserve key order: a prefix does (keys shorter than the prefix
//! are padded with zeros, which sorts them first among equals). The translation shapes only the
//! in-memory index, rebuilt from the operation log at every start: changing it needs no data
//! migration.

use commonware_storage::translator::{OrderedTranslator, Translator};
use drover_state::keys::INDEX_PREFIX_BYTES;
use std::hash::{BuildHasher, Hasher};

/// Keeps a key's first [`INDEX_PREFIX_BYTES`] bytes, big-endian in a `u128` so that integer
/// order is key order.
#[derive(Clone, Copy, Debug, Default)]
pub struct StatePrefix;

const _: () = assert!(INDEX_PREFIX_BYTES == std::mem::size_of::<u128>());

impl Translator for StatePrefix {
    type Key = u128;

    fn transform(&self, key: &[u8]) -> u128 {
        let mut prefix = [0; INDEX_PREFIX_BYTES];
        let len = key.len().min(INDEX_PREFIX_BYTES);
        prefix[..len].copy_from_slice(&key[..len]);
        u128::from_be_bytes(prefix)
    }
}

impl OrderedTranslator for StatePrefix {}

impl BuildHasher for StatePrefix {
    type Hasher = PrefixHasher;

    fn build_hasher(&self) -> PrefixHasher {
        PrefixHasher(0)
    }
}

/// Hashes a translated key for the index's collision table. The translation is already hash
/// bytes (or a sequence number), so folding its two halves and mixing is enough.
#[derive(Default)]
pub struct PrefixHasher(u64);

/// 2^64 divided by the golden ratio: multiplying by it spreads sequential inputs.
const GOLDEN_RATIO_64: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for PrefixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0 ^ u64::from_le_bytes(word)).rotate_left(29);
        }
    }

    fn write_u128(&mut self, value: u128) {
        self.0 ^= (value as u64) ^ ((value >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0.wrapping_mul(GOLDEN_RATIO_64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_translation_keeps_key_order_and_the_index_prefix() {
        let t = StatePrefix;
        let keys: [&[u8]; 6] = [b"", b"\x00", b"\x00basefees", &[0x01; 16], &[0x01; 40], b"\x01\x02"];
        for pair in keys.windows(2) {
            assert!(pair[0] <= pair[1]);
            assert!(t.transform(pair[0]) <= t.transform(pair[1]), "{pair:?}");
        }
        // Only the prefix counts: keys that differ after it share a translation.
        assert_eq!(t.transform(&[0x01; 16]), t.transform(&[0x01; 40]));
        assert_ne!(t.transform(&[[0x01; 15].as_slice(), &[2]].concat()), t.transform(&[0x01; 16]));
    }
}

#[cfg(test)]
mod index_tests {
    use crate::databases::StateDatabases;
    use commonware_glue::stateful::db::DatabaseSet as _;
    use commonware_runtime::{Metrics as _, Runner as _, Supervisor as _, buffer::paged::CacheRef, deterministic};
    use commonware_utils::{NZU16, NZUsize};
    use drover_state::keys;
    use drover_types::Address;

    /// The value of the state database's metric `name`.
    fn metric(metrics: &str, name: &str) -> u64 {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no metric {name} in:\n{metrics}"))
    }

    #[test]
    fn chosen_colliding_prefixes_leave_one_entry_per_index_slot() {
        const KEYS: u32 = 20_000;
        deterministic::Runner::default().start(|context| async move {
            let config = crate::engine::qmdb_config::<deterministic::Context>(
                "test",
                CacheRef::new(NZU16!(4096), NZUsize!(256)),
            );
            let dbs = StateDatabases::init(context.child("state"), config, None).await;
            // What an attacker picks: recipients sharing 16 of their 20 bytes, and keys of one
            // actor sharing 200 bytes — under a plain prefix translation, one chain each.
            let address = |i: u32| {
                let mut bytes = [0xbe; 20];
                bytes[16..].copy_from_slice(&i.to_be_bytes());
                Address(bytes)
            };
            let actor = address(u32::MAX);
            let mut batch = dbs.new_batches().await;
            for i in 0..KEYS {
                batch = batch.write(keys::account_key(&address(i)), Some(vec![1]));
                let user_key = [&[0x55; 200][..], &i.to_be_bytes()].concat();
                batch = batch.write(keys::storage_key(&actor, &user_key), Some(vec![2]));
            }
            dbs.apply(batch.merkleize().await.expect("merkleize")).await;
            let metrics = context.encode();
            let translated = metric(&metrics, "state_any_index_keys");
            let entries = metric(&metrics, "state_any_index_items");
            assert_eq!(entries, 2 * u64::from(KEYS));
            assert_eq!(translated, entries, "keys share an index slot");

            // So a lookup reads exactly one stored operation.
            const READ: u32 = 1_000;
            let reads = || metric(&context.encode(), "state_any_log_journal_items_read_total");
            let before = reads();
            let db = dbs.read().await;
            for i in 0..READ {
                assert_eq!(db.get(&keys::account_key(&address(i))).await.expect("read"), Some(vec![1]));
            }
            drop(db);
            assert_eq!(reads() - before, u64::from(READ));
        });
    }
}
