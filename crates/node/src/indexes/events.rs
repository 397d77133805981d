//! Event queries across emitters: by emitter address(es), by topic(s), or every event, within a
//! height range, in chain order, a page at a time.
//!
//! Besides each emitter's log (`LOGS`, `address ‖ position` → origin and event), every event is
//! written twice more in the block's batch, each time as a 20-byte pointer to its emitter:
//! under its position alone (`EVENTS`, every event in chain order) and under its topic's key
//! and its position (`TOPICS`, `topic key (8) ‖ position`, the topic key being the first eight
//! bytes of the topic's keccak-256). A query walks the ranges its filter names, merged by
//! position: one per emitter when it names emitters (topics then filter what they yield), else
//! one per topic (the event is read from its emitter's log, and a topic-key collision is
//! filtered out there), else the chain-order range.
//!
//! **Bounded.** A query reads at most `scan_max` index entries, the page's events included,
//! whatever its filter matches: when the budget runs out before the page fills, it answers what
//! it found and a cursor at the last position it examined, from which the next query goes on.
//! The caller bounds the height range, the number of emitters and topics, and the page.

use super::{IndexError, Indexes, LOG_POSITION_LEN, LogEntry, err};
use drover_rpc::limits::PAGE_READ_BYTES_MAX;
use drover_types::{Address, keccak256};
use fjall::Keyspace;
use std::ops::Bound;

/// Length of a topic key.
pub(crate) const TOPIC_KEY_LEN: usize = 8;

/// The key an event's topic is indexed under.
pub(super) fn topic_key(topic: &str) -> [u8; TOPIC_KEY_LEN] {
    let digest = keccak256(topic.as_bytes());
    let mut key = [0; TOPIC_KEY_LEN];
    key.copy_from_slice(&digest.0[..TOPIC_KEY_LEN]);
    key
}

/// Which events a query selects (an empty list selects any).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Emitted by one of these addresses.
    pub emitters: Vec<Address>,
    /// With one of these topics.
    pub topics: Vec<String>,
    /// First height, inclusive.
    pub from_height: u64,
    /// Last height, inclusive.
    pub to_height: u64,
}

/// One event a query found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventEntry {
    /// Its emitter.
    pub address: Address,
    pub log: LogEntry,
}

/// What a query answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventsPage {
    pub entries: Vec<EventEntry>,
    /// Where the next query goes on (`None`: the range is exhausted): the last event of a full
    /// page, or the last position examined when the scan budget ran out.
    pub next: Option<[u8; LOG_POSITION_LEN]>,
}

/// A position in an event's key, or a corrupt-key error.
fn position_of(key: &[u8], prefix_len: usize) -> Result<[u8; LOG_POSITION_LEN], IndexError> {
    key.get(prefix_len..).and_then(|p| p.try_into().ok()).ok_or_else(|| IndexError("corrupt event key".into()))
}

fn address_of(value: &[u8]) -> Result<Address, IndexError> {
    Address::from_slice(value).ok_or_else(|| IndexError("corrupt event pointer".into()))
}

/// An event an index range yields: its position, its emitter, and its log value when the range
/// is the emitter's log itself.
type Found = (Address, [u8; LOG_POSITION_LEN], Option<Vec<u8>>);

/// One range of one index, walked in key order.
struct Source<'a> {
    items: Box<dyn Iterator<Item = Result<Found, IndexError>> + 'a>,
    head: Option<Found>,
}

impl<'a> Source<'a> {
    /// `keyspace`'s entries under `prefix` from `start` to `end` (positions), read by `read`.
    fn new(
        keyspace: &'a Keyspace,
        prefix: Vec<u8>,
        (start, end): (Bound<[u8; LOG_POSITION_LEN]>, [u8; LOG_POSITION_LEN]),
        read: impl Fn(&[u8], [u8; LOG_POSITION_LEN], &[u8]) -> Result<Found, IndexError> + 'a,
    ) -> Self {
        let key = |position: &[u8; LOG_POSITION_LEN]| [prefix.as_slice(), position].concat();
        let start = match start {
            Bound::Excluded(position) => Bound::Excluded(key(&position)),
            Bound::Included(position) => Bound::Included(key(&position)),
            Bound::Unbounded => Bound::Included(prefix.clone()),
        };
        let end = Bound::Included(key(&end));
        let prefix_len = prefix.len();
        let items = keyspace.range::<Vec<u8>, _>((start, end)).map(move |item| {
            let (key, value) = item.into_inner().map_err(err)?;
            read(&key, position_of(&key, prefix_len)?, &value)
        });
        Source { items: Box::new(items), head: None }
    }

    /// The next entry, without taking it.
    fn peek(&mut self) -> Result<Option<&Found>, IndexError> {
        if self.head.is_none() {
            self.head = self.items.next().transpose()?;
        }
        Ok(self.head.as_ref())
    }
}

impl Indexes {
    /// Up to `limit` events `filter` selects after `after` (from `filter.from_height` when
    /// `None`), in chain order, reading at most `scan_max` index entries (them included) and
    /// [`PAGE_READ_BYTES_MAX`] bytes of records (see the module documentation).
    pub fn events(
        &self,
        filter: &EventFilter,
        after: Option<[u8; LOG_POSITION_LEN]>,
        limit: usize,
        scan_max: usize,
    ) -> Result<EventsPage, IndexError> {
        let mut from = [0; LOG_POSITION_LEN];
        from[..8].copy_from_slice(&filter.from_height.to_be_bytes());
        let start = match after {
            Some(position) if position >= from => Bound::Excluded(position),
            _ => Bound::Included(from),
        };
        let mut end = [0xff; LOG_POSITION_LEN];
        end[..8].copy_from_slice(&filter.to_height.to_be_bytes());
        let range = (start, end);
        let pointer = |_: &[u8], position, value: &[u8]| Ok((address_of(value)?, position, None));
        let mut sources: Vec<Source<'_>> = if !filter.emitters.is_empty() {
            let mut emitters = filter.emitters.clone();
            emitters.sort();
            emitters.dedup();
            emitters
                .into_iter()
                .map(|address| {
                    let read = move |_: &[u8], position, value: &[u8]| Ok((address, position, Some(value.to_vec())));
                    Source::new(&self.logs, address.0.to_vec(), range, read)
                })
                .collect()
        } else if !filter.topics.is_empty() {
            let mut keys: Vec<_> = filter.topics.iter().map(|topic| topic_key(topic)).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().map(|key| Source::new(&self.topics, key.to_vec(), range, pointer)).collect()
        } else {
            vec![Source::new(&self.events, Vec::new(), range, pointer)]
        };

        let mut entries = Vec::new();
        let (mut scanned, mut read_bytes) = (0, 0usize);
        let mut last = None;
        loop {
            // The source whose next position comes first.
            let mut first: Option<(usize, [u8; LOG_POSITION_LEN])> = None;
            for (i, source) in sources.iter_mut().enumerate() {
                if let Some((_, position, _)) = source.peek()?
                    && first.is_none_or(|(_, best)| *position < best)
                {
                    first = Some((i, *position));
                }
            }
            let Some((i, _)) = first else {
                return Ok(EventsPage { entries, next: None });
            };
            if entries.len() == limit || scanned == scan_max || read_bytes >= PAGE_READ_BYTES_MAX {
                return Ok(EventsPage { entries, next: last });
            }
            let Some((address, position, value)) = sources[i].head.take() else {
                return Ok(EventsPage { entries, next: None });
            };
            scanned += 1;
            last = Some(position);
            let value = match value {
                Some(value) => value,
                None => {
                    let key = [address.0.as_slice(), &position].concat();
                    self.logs
                        .get(key)
                        .map_err(err)?
                        .ok_or_else(|| IndexError("an event without its log".into()))?
                        .to_vec()
                }
            };
            read_bytes = read_bytes.saturating_add(value.len());
            let log = super::decode_log(position, &value)?;
            if filter.topics.is_empty() || filter.topics.contains(&log.event.topic) {
                entries.push(EventEntry { address, log });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ACTOR, Block, OTHER, blocks, event, open, receipt, record_large_events, transaction};
    use super::*;

    fn query(indexes: &Indexes, filter: &EventFilter, limit: usize) -> Vec<(Address, String)> {
        let mut found = Vec::new();
        let mut after = None;
        loop {
            let page = indexes.events(filter, after, limit, usize::MAX).unwrap();
            assert!(page.entries.len() <= limit);
            found.extend(page.entries.into_iter().map(|e| (e.address, e.log.event.topic)));
            match page.next {
                Some(next) => after = Some(next),
                None => return found,
            }
        }
    }

    fn filter(emitters: &[Address], topics: &[&str], from_height: u64, to_height: u64) -> EventFilter {
        EventFilter {
            emitters: emitters.to_vec(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
            from_height,
            to_height,
        }
    }

    fn named(pairs: &[(Address, &str)]) -> Vec<(Address, String)> {
        pairs.iter().map(|(a, t)| (*a, t.to_string())).collect()
    }

    #[test]
    fn a_page_ends_once_it_has_read_its_bytes() {
        let (_dir, indexes) = open();
        record_large_events(&indexes, 400);
        for filter in [filter(&[ACTOR], &[], 0, 9), filter(&[], &[], 0, 9)] {
            let page = indexes.events(&filter, None, 1_000, usize::MAX).unwrap();
            let bytes: usize = page.entries.iter().map(|e| e.log.event.data.len()).sum();
            assert!(page.next.is_some() && page.entries.len() < 400, "{} entries", page.entries.len());
            assert!(bytes <= PAGE_READ_BYTES_MAX + 16 * 1024, "{bytes} bytes: one record past the bound at most");
        }
        // Paged to the end, nothing is lost.
        assert_eq!(query(&indexes, &filter(&[ACTOR], &[], 0, 9), 1_000).len(), 400);
    }

    #[test]
    fn queries_merge_emitters_and_topics_in_chain_order() {
        let (_dir, indexes) = open();
        for block in blocks() {
            block.record(&indexes);
        }
        let every = named(&[(ACTOR, "tx4"), (ACTOR, "timer"), (OTHER, "nested"), (ACTOR, "delivery"), (ACTOR, "tx5")]);
        for limit in [1, 2, 10] {
            assert_eq!(query(&indexes, &filter(&[], &[], 0, 9), limit), every, "page of {limit}");
            assert_eq!(query(&indexes, &filter(&[ACTOR, OTHER], &[], 0, 9), limit), every);
        }
        assert_eq!(query(&indexes, &filter(&[OTHER], &[], 0, 9), 10), named(&[(OTHER, "nested")]));
        assert_eq!(query(&indexes, &filter(&[], &["tx5", "tx4"], 0, 9), 1), named(&[(ACTOR, "tx4"), (ACTOR, "tx5")]));
        assert_eq!(query(&indexes, &filter(&[ACTOR], &["nested", "delivery"], 0, 9), 1), named(&[(ACTOR, "delivery")]));
        assert_eq!(query(&indexes, &filter(&[], &["missing"], 0, 9), 10), Vec::new());
        // The range bounds both ends.
        assert_eq!(query(&indexes, &filter(&[], &[], 5, 5), 10), every[1..]);
        assert_eq!(query(&indexes, &filter(&[ACTOR], &[], 4, 4), 10), every[..1]);
        assert_eq!(query(&indexes, &filter(&[], &[], 6, 9), 10), Vec::new());

        // Each event says where it is: the receipt it is in and its place there.
        let page = indexes.events(&filter(&[], &["tx5"], 0, 9), None, 10, 100).unwrap();
        let found = &page.entries[0].log;
        assert_eq!((found.height, found.index, found.event_index), (5, 0, 0));
        assert_eq!(found.origin, super::super::LogOrigin::Transaction { hash: blocks()[1].transactions[0].hash });
    }

    #[test]
    fn a_query_reads_at_most_its_scan_budget_and_goes_on_from_its_cursor() {
        let (_dir, indexes) = open();
        let tx = transaction(0);
        let mut events: Vec<_> = (0..1_000).map(|_| event(ACTOR, "noise")).collect();
        events.push(event(ACTOR, "needle"));
        Block { height: 3, receipts: vec![receipt(&tx, 3, 0, events)], transactions: vec![tx], ..Block::default() }
            .record(&indexes);
        let needle = filter(&[ACTOR], &["needle"], 0, 9);
        let mut after = None;
        let mut queries = 0;
        let found = loop {
            queries += 1;
            let page = indexes.events(&needle, after, 10, 100).unwrap();
            if let Some(found) = page.entries.first() {
                break found.log.event_index;
            }
            after = Some(page.next.expect("a query cut short by its budget says where to go on"));
        };
        assert_eq!((found, queries), (1_000, 11));
        // Through the topic index, the noise is never read.
        let page = indexes.events(&filter(&[], &["needle"], 0, 9), None, 10, 1).unwrap();
        assert_eq!((page.entries.len(), page.next), (1, None));
    }
}
