//! Listings: an owner's items kept in numbered slots `0..n`, so that a page at any offset is
//! point lookups, whatever the owner holds.
//!
//! Records laid out by owner (a holder's token holdings, a delegator's delegations, an owner's
//! volumes or secrets, …) form one key range, in key order. A range answers "the next records
//! after this key" cheaply, but not "the records from the 900,000th on" nor "how many": both
//! read every record before. Anyone can add records to someone else's range (a token transfer
//! of one base unit makes a holding), so a list route that paged or counted by range read as many
//! records as the owner had been sent. A listing keeps, beside the records, three kinds of
//! entries in the family's key space:
//!
//! | entry | user key | value |
//! | --- | --- | --- |
//! | count | `tag ‖ "n" ‖ scope`, or a count the family keeps anyway | `n`, a count record; absent when 0 |
//! | slot | `tag ‖ "s" ‖ scope ‖ i(8, BE)` | the item in slot `i` (CBOR bytes) |
//! | place | `tag ‖ "p" ‖ scope ‖ item` | `i`, the item's slot (a count record) |
//!
//! `tag` is a byte the family's other user keys do not start with, `scope` the owner's address
//! (empty for a listing the family keeps once, such as its public relays), `item` what the
//! family lists (a token id, a runner, a volume id, a name hash, a timer id). Adding an item
//! appends it at slot `n`; removing one moves the last item into its slot (swap-remove), so the
//! slots stay dense: a page at offset `o` of size `l` is the count and slots `o..o + l`, at most
//! `l + 1` lookups. The order is the order items were added in, until a removal moves the last
//! item forward.
//!
//! Each change is a bounded number of reads and writes ([`Listing::push`],
//! [`Listing::swap_remove`]: at most three reads and five writes), paid by the call that makes
//! it (`drover_types::params::LISTING_CYCLES` and `LISTING_CELLS`).
//!
//! Keys go through the family's key function (its system actor's `state_key`, or a spread for a
//! family outside system-actor storage), so no user chooses where a listing entry lands in the
//! node's index.
//!
//! Invariants: slots `0..n` each hold an item whose place is that slot, no slot from `n` on is
//! stored, and an item has a place exactly while it is listed.

use crate::{RecordError, decode_count, encode_count};
use drover_types::cbor::{Writer, decode_strict};

/// One write of a listing change: the state key and its new value (`None` deletes).
pub type Write = (Vec<u8>, Option<Vec<u8>>);

/// Where one owner's listing lives (see the module docs).
#[derive(Clone, Debug)]
pub struct Listing {
    /// Maps a user key of the family to its state key.
    key: fn(&[u8]) -> Vec<u8>,
    /// The state key of the count.
    count: Vec<u8>,
    /// The user-key prefix of the slots: `tag ‖ "s" ‖ scope`.
    slots: Vec<u8>,
    /// The user-key prefix of the places: `tag ‖ "p" ‖ scope`.
    places: Vec<u8>,
}

impl Listing {
    /// The listing `tag` of `scope` in the key space `key`, counted under the state key `count`
    /// (a count the family already keeps, such as an owner's number of secrets).
    pub fn new(key: fn(&[u8]) -> Vec<u8>, count: Vec<u8>, tag: u8, scope: &[u8]) -> Self {
        Self { key, count, slots: [&[tag, b's'][..], scope].concat(), places: [&[tag, b'p'][..], scope].concat() }
    }

    /// The listing `tag` of `scope` in the key space `key`, counted under the user key
    /// `tag ‖ "n" ‖ scope`.
    pub fn counted(key: fn(&[u8]) -> Vec<u8>, tag: u8, scope: &[u8]) -> Self {
        Self::new(key, key(&[&[tag, b'n'][..], scope].concat()), tag, scope)
    }

    /// State key of the number of items listed.
    pub fn count_key(&self) -> Vec<u8> {
        self.count.clone()
    }

    /// State key of slot `slot`.
    pub fn slot_key(&self, slot: u64) -> Vec<u8> {
        (self.key)(&[&self.slots[..], &slot.to_be_bytes()].concat())
    }

    /// State key of `item`'s place.
    pub fn place_key(&self, item: &[u8]) -> Vec<u8> {
        (self.key)(&[&self.places[..], item].concat())
    }

    /// The writes that append `item` to the listing, which holds `count` items (and not `item`).
    pub fn push(&self, count: u64, item: &[u8]) -> [Write; 3] {
        [
            (self.slot_key(count), Some(encode_item(item))),
            (self.place_key(item), Some(encode_count(count))),
            (self.count_key(), Some(encode_count(count.saturating_add(1)))),
        ]
    }

    /// The writes that remove `item`, in slot `slot`, from the listing, which holds `count` items
    /// (so `slot < count`), the last of which is `last` (`item` itself when `slot` is the last):
    /// the last item moves into the freed slot.
    pub fn swap_remove(&self, count: u64, slot: u64, item: &[u8], last: &[u8]) -> Vec<Write> {
        let end = count.saturating_sub(1);
        let mut writes = Vec::with_capacity(5);
        if slot != end {
            writes.push((self.slot_key(slot), Some(encode_item(last))));
            writes.push((self.place_key(last), Some(encode_count(slot))));
        }
        writes.push((self.slot_key(end), None));
        writes.push((self.place_key(item), None));
        writes.push((self.count_key(), (end > 0).then(|| encode_count(end))));
        writes
    }
}

/// Canonical CBOR of a slot's item: a byte string.
pub fn encode_item(item: &[u8]) -> Vec<u8> {
    let mut w = Writer::with_capacity(item.len() + 9);
    w.bytes(item);
    w.into_inner()
}

/// Strict decode of [`encode_item`].
pub fn decode_item(bytes: &[u8]) -> Result<Vec<u8>, RecordError> {
    Ok(decode_strict(bytes, |d| Ok(d.bytes()?.to_vec()))?)
}

/// Strict decode of a place (a count record: the item's slot).
pub fn decode_place(bytes: &[u8]) -> Result<u64, RecordError> {
    decode_count(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn key(user_key: &[u8]) -> Vec<u8> {
        [&b"K"[..], user_key].concat()
    }

    /// A listing in a map, changed only through `push` and `swap_remove`.
    struct Kept {
        listing: Listing,
        state: BTreeMap<Vec<u8>, Vec<u8>>,
    }

    impl Kept {
        fn apply(&mut self, writes: impl IntoIterator<Item = Write>) {
            for (key, value) in writes {
                match value {
                    Some(value) => self.state.insert(key, value),
                    None => self.state.remove(&key),
                };
            }
        }

        fn count(&self) -> u64 {
            self.state.get(&self.listing.count_key()).map_or(0, |b| decode_count(b).unwrap())
        }

        fn add(&mut self, item: &[u8]) {
            let writes = self.listing.push(self.count(), item);
            self.apply(writes);
        }

        fn remove(&mut self, item: &[u8]) {
            let count = self.count();
            let slot = decode_place(&self.state[&self.listing.place_key(item)]).unwrap();
            let last = decode_item(&self.state[&self.listing.slot_key(count - 1)]).unwrap();
            let writes = self.listing.swap_remove(count, slot, item, &last);
            self.apply(writes);
        }

        /// The items in slot order, checking every invariant of the module docs.
        fn items(&self) -> Vec<Vec<u8>> {
            let count = self.count();
            let items: Vec<_> = (0..count)
                .map(|slot| {
                    let item = decode_item(&self.state[&self.listing.slot_key(slot)]).unwrap();
                    assert_eq!(decode_place(&self.state[&self.listing.place_key(&item)]), Ok(slot));
                    item
                })
                .collect();
            // Exactly one count (or none), `count` slots and `count` places.
            assert_eq!(self.state.len() as u64, 2 * count + u64::from(count > 0));
            items
        }
    }

    #[test]
    fn slots_stay_dense_through_adds_and_removals() {
        let mut kept = Kept { listing: Listing::counted(key, b'h', b"owner"), state: BTreeMap::new() };
        for item in [b"a", b"b", b"c", b"d"] {
            kept.add(item);
        }
        assert_eq!(kept.items(), [b"a", b"b", b"c", b"d"]);
        // The last item moves into a freed slot.
        kept.remove(b"b");
        assert_eq!(kept.items(), [b"a", b"d", b"c"]);
        // Removing the last one moves nothing.
        kept.remove(b"c");
        assert_eq!(kept.items(), [b"a", b"d"]);
        kept.add(b"e");
        kept.remove(b"a");
        kept.remove(b"e");
        assert_eq!(kept.items(), [b"d"]);
        // An empty listing stores nothing, not even its count.
        kept.remove(b"d");
        assert!(kept.items().is_empty() && kept.state.is_empty());
    }

    #[test]
    fn scopes_and_tags_keep_listings_apart() {
        let a = Listing::counted(key, b'h', &[1; 20]);
        let b = Listing::counted(key, b'h', &[2; 20]);
        let c = Listing::counted(key, b'g', &[1; 20]);
        assert_ne!(a.count_key(), b.count_key());
        assert_ne!(a.count_key(), c.count_key());
        assert_ne!(a.slot_key(0), b.slot_key(0));
        assert_ne!(a.slot_key(0), c.slot_key(0));
        assert_ne!(a.place_key(b"x"), b.place_key(b"x"));
        assert_ne!(a.slot_key(0), a.place_key(&0u64.to_be_bytes()));
        assert_eq!(decode_item(&encode_item(&[7; 32])), Ok(vec![7; 32]));
        assert!(decode_item(&encode_count(3)).is_err());
    }
}
