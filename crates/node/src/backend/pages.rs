//! Pages of an actor's entries: by key range in the state (storage, mailbox), by position in the
//! indexes (logs, system runs), and by slot in a listing (`drover_state::listing`: every list
//! with an offset, whose page is the listing's count and one lookup per slot of the page).
//!
//! Every read of a list goes through [`OrderedRead`], so a test can count the records one
//! request reads ([`tests::Counted`]); a request holds the state lock for one page, never more.

use super::handle::NodeHandle;
use crate::databases::OrderedRead;
use crate::error::NodeError;
use crate::indexes::{IndexError, Indexes};
use drover_rpc::pagination::Page;
use drover_state::{
    decode_count, keys,
    listing::{Listing, decode_item},
};
use drover_types::{Address, ErrorCode, error::ApiError};

// The HTTP layer checks cursor lengths before the indexes see them.
/// One decoded record of the latest applied state, if present.
pub(super) async fn read_record<T>(
    db: &impl OrderedRead,
    key: &Vec<u8>,
    decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
) -> Result<Option<T>, drover_types::error::ApiError> {
    let bytes = db.get(key).await.map_err(crate::error::NodeError::from)?;
    Ok(bytes.map(|bytes| decode(&bytes)).transpose().map_err(crate::error::NodeError::from)?)
}

/// The decoded record under the storage entry `user_key` of the system actor `actor`, if
/// present: how every family's records are read.
pub(super) async fn read_storage<T>(
    db: &impl OrderedRead,
    actor: &drover_types::Address,
    user_key: &[u8],
    decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
) -> Result<Option<T>, drover_types::error::ApiError> {
    read_record(db, &drover_state::keys::storage_key(actor, user_key), decode).await
}

/// The page `page` of `listing`: the items of its slots `page.offset..` (at most `page.limit`)
/// and how many it lists. One lookup for the count and one per item, whatever the count.
pub(super) async fn listed(
    db: &impl OrderedRead,
    listing: &Listing,
    page: &Page,
) -> Result<(Vec<Vec<u8>>, u64), ApiError> {
    let total = read_record(db, &listing.count_key(), decode_count).await?.unwrap_or(0);
    let end = total.min(page.offset.saturating_add(page.limit));
    let mut items = Vec::new();
    for slot in page.offset.min(end)..end {
        let item = read_record(db, &listing.slot_key(slot), decode_item)
            .await?
            .ok_or_else(|| NodeError::missing(format!("listing: slot {slot} of {total} is empty")))?;
        items.push(item);
    }
    Ok((items, total))
}

/// A listed item that should be an address (a token id, a runner, a relay).
pub(super) fn listed_address(item: &[u8]) -> Result<Address, ApiError> {
    Ok(Address::from_slice(item).ok_or_else(|| NodeError::missing("listing: an item that is not an address"))?)
}

/// A listed item that should be a 32-byte hash (a volume id, a name hash).
pub(super) fn listed_hash(item: &[u8]) -> Result<drover_types::H256, ApiError> {
    let bytes: [u8; 32] =
        item.try_into().map_err(|_| NodeError::missing("listing: an item that is not a 32-byte hash"))?;
    Ok(drover_types::H256(bytes))
}

/// Up to `limit` records of the committed state in the key range `range`, after the key
/// `after` (from the start of the range when `None`), in key order; `own` names the records of
/// the range's owner (a range can hold another owner's record whose spread collides, which is
/// skipped). Also says whether more follow. Once the records taken reach `bytes_max` bytes (keys
/// and values), the page ends there, after one record at least: records of any size then cost a
/// page what they weigh, not `limit` times the largest.
pub(super) async fn scan<E, T>(
    db: &crate::databases::StateDb<E>,
    range: &[u8],
    after: Option<Vec<u8>>,
    limit: u64,
    bytes_max: usize,
    own: impl Fn(&[u8], Vec<u8>) -> Option<T>,
) -> Result<(Vec<T>, bool), commonware_storage::qmdb::Error<commonware_storage::mmr::Family>>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    use futures::StreamExt as _;
    use std::ops::Bound;
    let start = match after {
        Some(after) => Bound::Excluded(after),
        None => Bound::Included(range.to_vec()),
    };
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut stream = Box::pin(db.stream_range((start, Bound::Unbounded)));
    let (mut records, mut bytes) = (Vec::new(), 0usize);
    while let Some(entry) = stream.next().await {
        let (key, value) = entry?;
        if !key.starts_with(range) {
            break;
        }
        let size = key.len().saturating_add(value.len());
        let Some(record) = own(&key, value) else { continue };
        // One record past the page says another page follows.
        if records.len() == limit || bytes >= bytes_max {
            return Ok((records, true));
        }
        bytes = bytes.saturating_add(size);
        records.push(record);
    }
    Ok((records, false))
}

impl NodeHandle {
    /// A page of an actor's entries in an index whose cursors are `N`-byte positions, with the
    /// next page's cursor (`None`: no actor there).
    pub(super) async fn index_page<const N: usize, T: Send + 'static>(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
        fetch: impl FnOnce(&Indexes, Option<[u8; N]>, usize) -> Result<(Vec<T>, bool), IndexError> + Send + 'static,
        position: impl Fn(&T) -> [u8; N],
    ) -> Result<Option<(Vec<T>, Option<String>)>, ApiError> {
        if self.read_keys([keys::actor_key(&address)]).await?[0].is_none() {
            return Ok(None);
        }
        let after = after
            .map(|bytes| <[u8; N]>::try_from(bytes.as_slice()))
            .transpose()
            .map_err(|_| ApiError::new(ErrorCode::BadRequest, format!("this cursor is {N} bytes")))?;
        let count = usize::try_from(limit).unwrap_or(usize::MAX);
        let (entries, more) = self.read_indexes(move |indexes| fetch(indexes, after, count)).await?;
        let next_cursor = more.then(|| entries.last().map(|e| format!("0x{}", hex::encode(position(e))))).flatten();
        Ok(Some((entries, next_cursor)))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::databases::StateError;
    use std::{
        collections::BTreeMap,
        sync::atomic::{AtomicUsize, Ordering},
    };

    /// A state in memory that counts the records read from it: what a list route reads per
    /// request, whatever the collection it pages through.
    #[derive(Default)]
    pub(crate) struct Counted {
        pub state: BTreeMap<Vec<u8>, Vec<u8>>,
        reads: AtomicUsize,
    }

    impl Counted {
        /// Writes `writes` (`None` deletes).
        pub(crate) fn apply(&mut self, writes: impl IntoIterator<Item = (Vec<u8>, Option<Vec<u8>>)>) {
            for (key, value) in writes {
                match value {
                    Some(value) => self.state.insert(key, value),
                    None => self.state.remove(&key),
                };
            }
        }

        /// Appends `count` items to `listing`, each `item(i)`, and writes `records(i)` beside.
        pub(crate) fn list(
            &mut self,
            listing: &Listing,
            count: u64,
            item: impl Fn(u64) -> Vec<u8>,
            records: impl Fn(u64) -> Vec<(Vec<u8>, Vec<u8>)>,
        ) {
            for i in 0..count {
                let writes = listing.push(i, &item(i));
                self.apply(writes);
                self.apply(records(i).into_iter().map(|(key, value)| (key, Some(value))));
            }
        }

        /// Records read since the last call.
        pub(crate) fn take_reads(&self) -> usize {
            self.reads.swap(0, Ordering::Relaxed)
        }
    }

    impl OrderedRead for Counted {
        async fn get(&self, key: &Vec<u8>) -> Result<Option<Vec<u8>>, StateError> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            Ok(self.state.get(key).cloned())
        }

        async fn next_key(&self, key: &Vec<u8>) -> Result<Option<Vec<u8>>, StateError> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            use std::ops::Bound::{Excluded, Unbounded};
            Ok(self.state.range::<Vec<u8>, _>((Excluded(key), Unbounded)).next().map(|(key, _)| key.clone()))
        }
    }

    /// A collection size no list route may read in proportion to.
    pub(crate) const LARGE: u64 = 100_000;

    /// Runs `read` at offsets 0, the middle and the end of a listing of [`LARGE`] items, with the
    /// largest page, and checks each request reads at most `per_item × limit + fixed` records.
    pub(crate) fn bounded_at_every_offset<F, T>(db: &Counted, per_item: usize, fixed: usize, read: F)
    where
        F: Fn(Page) -> T,
        T: std::future::Future<Output = usize>,
    {
        let limit = drover_rpc::limits::PAGE_LIMIT_MAX;
        for offset in [0, LARGE / 2, LARGE - 10, LARGE + 5] {
            db.take_reads();
            let listed = futures::executor::block_on(read(Page { offset, limit }));
            let reads = db.take_reads();
            let expected = usize::try_from(LARGE.saturating_sub(offset).min(limit)).unwrap();
            assert_eq!(listed, expected, "items at offset {offset}");
            let bound = per_item * usize::try_from(limit).unwrap() + fixed;
            assert!(reads <= bound, "{reads} records read at offset {offset}; the page allows {bound}");
        }
    }

    #[test]
    fn a_page_of_a_listing_reads_its_count_and_its_slots() {
        let mut db = Counted::default();
        let listing = drover_state::token::holdings_listing(&Address([7; 20]));
        db.list(&listing, LARGE, |i| i.to_be_bytes().to_vec(), |_| Vec::new());
        bounded_at_every_offset(&db, 1, 1, |page| {
            let db = &db;
            let listing = &listing;
            async move { listed(db, listing, &page).await.unwrap().0.len() }
        });
        let (items, total) = futures::executor::block_on(listed(&db, &listing, &Page { offset: 7, limit: 2 })).unwrap();
        assert_eq!((items, total), (vec![7u64.to_be_bytes().to_vec(), 8u64.to_be_bytes().to_vec()], LARGE));
        assert_eq!(db.take_reads(), 3);
    }
}
