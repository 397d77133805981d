//! Why pending transactions left the pool without being included.
//!
//! The pool keeps the reasons of the last [`DROPPED_HISTORY_LEN`] dropped hashes in a ring so the
//! API can tell a client why its transaction disappeared. Transactions removed because they were
//! included in a finalized block are not recorded: the transaction index answers for them.

use drover_types::H256;
use std::{
    collections::{HashMap, VecDeque},
    fmt,
};

/// How many dropped hashes the pool remembers.
pub const DROPPED_HISTORY_LEN: usize = 10_000;

/// Why a pending transaction was dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// A transaction of the same sender and nonce with higher tips took its place.
    Replaced {
        /// Hash of the replacement.
        by: H256,
    },
    /// The pool was full and a transaction of another sender paying a higher tip took its room.
    Evicted {
        /// Hash of the transaction that took its room.
        by: H256,
    },
    /// It stayed pending longer than the pool's time to live.
    Expired,
    /// A finalized block used its nonce for another transaction of the same sender.
    NonceUsed,
    /// The proposer could not execute it; the text says why.
    Invalid(String),
}

impl DropReason {
    /// Short snake_case name, for JSON.
    pub fn name(&self) -> &'static str {
        match self {
            DropReason::Replaced { .. } => "replaced",
            DropReason::Evicted { .. } => "evicted",
            DropReason::Expired => "expired",
            DropReason::NonceUsed => "nonce_used",
            DropReason::Invalid(_) => "invalid",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DropReason::Replaced { by } => {
                write!(f, "replaced by transaction {by} with higher tips")
            }
            DropReason::Evicted { by } => {
                write!(f, "evicted from the full mempool by transaction {by} paying a higher tip")
            }
            DropReason::Expired => f.write_str("expired: pending longer than the mempool's time to live"),
            DropReason::NonceUsed => f.write_str("its nonce was used by another transaction of the same sender"),
            DropReason::Invalid(why) => write!(f, "invalid: {why}"),
        }
    }
}

/// Bounded history of dropped hashes: the oldest is forgotten first.
#[derive(Debug)]
pub(crate) struct DroppedLog {
    order: VecDeque<H256>,
    reasons: HashMap<H256, DropReason>,
    capacity: usize,
}

impl DroppedLog {
    pub(crate) fn new(capacity: usize) -> Self {
        Self { order: VecDeque::new(), reasons: HashMap::new(), capacity }
    }

    /// Records (or updates) why `hash` was dropped.
    pub(crate) fn record(&mut self, hash: H256, reason: DropReason) {
        if self.capacity == 0 {
            return;
        }
        // A hash dropped twice (re-admitted in between) keeps its first place in the ring so
        // `order` and `reasons` always hold the same hashes.
        if self.reasons.insert(hash, reason).is_some() {
            return;
        }
        self.order.push_back(hash);
        while self.order.len() > self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.reasons.remove(&oldest);
            }
        }
    }

    pub(crate) fn get(&self, hash: &H256) -> Option<&DropReason> {
        self.reasons.get(hash)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        debug_assert_eq!(self.order.len(), self.reasons.len());
        self.reasons.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::hash_of;

    #[test]
    fn forgets_the_oldest_beyond_capacity() {
        let mut log = DroppedLog::new(3);
        for n in 0..5 {
            log.record(hash_of(n), DropReason::Expired);
        }
        assert_eq!(log.len(), 3);
        assert!(log.get(&hash_of(0)).is_none());
        assert!(log.get(&hash_of(1)).is_none());
        assert_eq!(log.get(&hash_of(4)), Some(&DropReason::Expired));
    }

    #[test]
    fn recording_twice_updates_the_reason_without_growing() {
        let mut log = DroppedLog::new(2);
        log.record(hash_of(1), DropReason::Expired);
        log.record(hash_of(1), DropReason::NonceUsed);
        assert_eq!(log.len(), 1);
        assert_eq!(log.get(&hash_of(1)), Some(&DropReason::NonceUsed));
        log.record(hash_of(2), DropReason::Expired);
        log.record(hash_of(3), DropReason::Expired);
        assert_eq!(log.len(), 2);
        assert!(log.get(&hash_of(1)).is_none());
    }

    #[test]
    fn zero_capacity_remembers_nothing() {
        let mut log = DroppedLog::new(0);
        log.record(hash_of(1), DropReason::Expired);
        assert_eq!(log.len(), 0);
        assert!(log.get(&hash_of(1)).is_none());
    }

    #[test]
    fn reasons_have_names_and_messages() {
        let reasons = [
            DropReason::Replaced { by: hash_of(1) },
            DropReason::Evicted { by: hash_of(1) },
            DropReason::Expired,
            DropReason::NonceUsed,
            DropReason::Invalid("E1004 balance for fees".into()),
        ];
        for reason in reasons {
            assert!(reason.name().chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            assert!(!reason.to_string().is_empty());
        }
    }
}
