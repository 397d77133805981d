//! Selection of transactions for a block proposal.
//!
//! Within a sender, transactions go in nonce order without gaps from the sender's next nonce
//! (the finalized one, or the caller's override for senders whose transactions sit in
//! not-yet-finalized ancestor blocks). Across senders, the next transaction is always the
//! available one with the highest *effective* priority (see [`fees`](crate::fees)) under the given basefees. A
//! transaction that cannot pay the basefees, or does not fit the remaining cycles, cells or block
//! bytes (its encoded size against `SelectLimits::max_bytes`, the block decoder's bound), ends
//! its sender's run (a later nonce cannot go without it); other senders continue.
//!
//! Cost: the pool keeps senders' executable heads in an index ordered by *nominal* priority,
//! and an effective priority never exceeds the nominal one. Selection walks that index from the
//! top and moves heads into a binary heap keyed by effective priority only while the best
//! unvisited nominal priority beats the heap's best; the heap's best is then the global best.
//! Choosing `k` transactions visits about `k` heads whatever the pool's size; more (up to every
//! head, which is the naive scan's cost) only when many heads declare higher tips than they can
//! pay under the basefees (priced out, or capped by their max fee).
//!
//! Selection removes nothing: the proposal may be dropped.

use crate::{account::Account, fees::Priority, pool::Pool};
use drover_types::{Address, Basefees, VerifiedTransaction, params::TRANSFER_CYCLES};
use std::collections::{BinaryHeap, HashMap};

/// Bounds of one proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectLimits {
    /// Most transactions.
    pub max_count: usize,
    /// Most summed `cycles_limit`.
    pub max_cycles: u64,
    /// Most summed `cells_limit`.
    pub max_cells: u64,
    /// Most summed encoded transaction bytes.
    pub max_bytes: usize,
}

/// A sender's next transaction awaiting its turn.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    /// First field: the heap orders by it (it is unique, holding the hash).
    priority: Priority,
    sender: Address,
    nonce: u64,
}

/// What is left of the proposal's limits.
struct Budget {
    cycles: u64,
    cells: u64,
    bytes: usize,
}

impl Budget {
    /// Charges `tx`'s limits and size if they fit.
    fn charge(&mut self, tx: &VerifiedTransaction) -> bool {
        match (
            self.cycles.checked_sub(tx.tx.cycles_limit),
            self.cells.checked_sub(tx.tx.cells_limit),
            self.bytes.checked_sub(tx.encoded.len()),
        ) {
            (Some(cycles), Some(cells), Some(bytes)) => {
                self.cycles = cycles;
                self.cells = cells;
                self.bytes = bytes;
                true
            }
            _ => false,
        }
    }
}

/// Pushes `sender`'s transaction at `nonce` if it is queued and can pay `basefees`.
fn push_candidate(
    heap: &mut BinaryHeap<Candidate>,
    sender: Address,
    account: &Account,
    nonce: u64,
    basefees: Basefees,
) {
    let Some(pending) = account.txs.get(&nonce) else {
        return;
    };
    if let Some(priority) = Priority::effective(&pending.tx.tx, pending.tx.hash, basefees) {
        heap.push(Candidate { priority, sender, nonce });
    }
}

impl Pool {
    /// Chooses a proposal's transactions (see the module documentation).
    pub(crate) fn select(
        &self,
        limits: SelectLimits,
        basefees: Basefees,
        next_nonces: &HashMap<Address, u64>,
    ) -> Vec<VerifiedTransaction> {
        let mut chosen = Vec::with_capacity(limits.max_count.min(self.len()));
        let mut budget = Budget { cycles: limits.max_cycles, cells: limits.max_cells, bytes: limits.max_bytes };
        let mut heap = BinaryHeap::new();

        // Senders with transactions in unfinalized ancestors start past them, whatever the
        // ready index says.
        for (sender, &start) in next_nonces {
            if let Some(account) = self.accounts.get(sender) {
                push_candidate(&mut heap, *sender, account, start.max(account.next_nonce), basefees);
            }
        }
        let mut heads = self.ready.iter().rev().filter(|(_, head)| !next_nonces.contains_key(&head.sender)).peekable();

        // Every pending transaction reserves at least the intrinsic cycles, so below that
        // nothing more can fit.
        while chosen.len() < limits.max_count && budget.cycles >= TRANSFER_CYCLES {
            while let Some(&(nominal, head)) = heads.peek() {
                if heap.peek().is_some_and(|best: &Candidate| best.priority > *nominal) {
                    break;
                }
                heads.next();
                let capped = nominal.capped(head.max_fee_per_cycle, head.max_fee_per_cell, basefees);
                if let Some(priority) = capped {
                    heap.push(Candidate { priority, sender: head.sender, nonce: head.nonce });
                }
            }
            let Some(best) = heap.pop() else {
                break;
            };
            let Some(account) = self.accounts.get(&best.sender) else {
                continue;
            };
            let Some(pending) = account.txs.get(&best.nonce) else {
                continue;
            };
            if !budget.charge(&pending.tx) {
                continue;
            }
            chosen.push(pending.tx.clone());
            if let Some(next) = best.nonce.checked_add(1) {
                push_candidate(&mut heap, best.sender, account, next, basefees);
            }
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        SenderState,
        config::Config,
        testing::{address, low_basefees, rich, seal, transaction, verified},
    };
    use drover_types::H256;
    use std::time::Instant;

    const UNLIMITED: SelectLimits =
        SelectLimits { max_count: usize::MAX, max_cycles: u64::MAX, max_cells: u64::MAX, max_bytes: usize::MAX };

    fn pool_with(txs: impl IntoIterator<Item = VerifiedTransaction>) -> Pool {
        let mut pool = Pool::new(Config::default());
        for tx in txs {
            pool.admit(tx, rich(), Instant::now()).unwrap();
        }
        pool
    }

    fn select(pool: &Pool, limits: SelectLimits, basefees: Basefees, next: &HashMap<Address, u64>) -> Vec<H256> {
        pool.select(limits, basefees, next).into_iter().map(|tx| tx.hash).collect()
    }

    fn hashes(txs: &[VerifiedTransaction]) -> Vec<H256> {
        txs.iter().map(|tx| tx.hash).collect()
    }

    #[test]
    fn orders_by_tip_across_senders_and_by_nonce_within_one() {
        let a0 = verified(1, 0, 5, 0);
        let a1 = verified(1, 1, 50, 0);
        let a2 = verified(1, 2, 1, 0);
        let b0 = verified(2, 0, 10, 0);
        let c0 = verified(3, 0, 5, 7);
        let pool = pool_with([a2.clone(), a1.clone(), a0.clone(), b0.clone(), c0.clone()]);
        // b0 (10) first; then c0 beats a0 on the cell tip; a1's high tip only counts once a0 is
        // in, and a2 follows a1.
        let expected = hashes(&[b0, c0, a0, a1, a2]);
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &HashMap::new()), expected);
    }

    #[test]
    fn orders_by_effective_tip_under_the_basefees() {
        // Declared tip 50 but max fee 60: under basefee 55 it pays only 5.
        let mut capped = transaction(0, 50, 0);
        capped.max_fee_per_cycle = 60;
        let capped = seal(address(1), capped);
        let plain = verified(2, 0, 10, 0);
        let pool = pool_with([capped.clone(), plain.clone()]);
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &HashMap::new()), hashes(&[capped.clone(), plain.clone()]));
        let high = Basefees { cycle: 55, cell: 1 };
        assert_eq!(select(&pool, UNLIMITED, high, &HashMap::new()), hashes(&[plain.clone(), capped]));
        // Above its max fee it is skipped altogether.
        let higher = Basefees { cycle: 61, cell: 1 };
        assert_eq!(select(&pool, UNLIMITED, higher, &HashMap::new()), hashes(&[plain]));
    }

    #[test]
    fn a_transaction_that_cannot_pay_blocks_its_senders_later_nonces() {
        let mut cheap = transaction(0, 1, 0);
        cheap.max_fee_per_cycle = 10;
        let cheap = seal(address(1), cheap);
        let later = verified(1, 1, 50, 0);
        let other = verified(2, 0, 1, 0);
        let pool = pool_with([cheap, later, other.clone()]);
        let basefees = Basefees { cycle: 11, cell: 1 };
        assert_eq!(select(&pool, UNLIMITED, basefees, &HashMap::new()), hashes(&[other]));
    }

    #[test]
    fn equal_tips_are_ordered_by_hash() {
        let txs: Vec<_> = (1..=5).map(|sender| verified(sender, 0, 3, 3)).collect();
        let pool = pool_with(txs.clone());
        let mut expected = hashes(&txs);
        expected.sort();
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &HashMap::new()), expected);
    }

    #[test]
    fn gaps_stop_a_sender_and_unready_senders_are_skipped() {
        let a0 = verified(1, 0, 1, 0);
        let a2 = verified(1, 2, 9, 0);
        let b1 = verified(2, 1, 9, 0);
        let pool = pool_with([a0.clone(), a2, b1]);
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &HashMap::new()), hashes(&[a0]));
    }

    #[test]
    fn next_nonces_skip_transactions_in_ancestor_blocks() {
        let a: Vec<_> = (0..4).map(|nonce| verified(1, nonce, 5, 0)).collect();
        let b0 = verified(2, 0, 3, 0);
        let b1 = verified(2, 1, 3, 0);
        let pool = pool_with(a.iter().cloned().chain([b0, b1.clone()]));
        let next = HashMap::from([(address(1), 2), (address(2), 1), (address(9), 4)]);
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &next), hashes(&[a[2].clone(), a[3].clone(), b1]));
        // An override past everything queued leaves the sender out.
        let next = HashMap::from([(address(1), 4), (address(2), 2)]);
        assert!(select(&pool, UNLIMITED, low_basefees(), &next).is_empty());
        // An override below the finalized nonce is ignored.
        let mut pool = pool;
        pool.finalized(&[(address(1), 1)], &[]);
        let next = HashMap::from([(address(1), 0)]);
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &next).len(), 3 + 2);
    }

    #[test]
    fn respects_the_count_cycle_cell_and_byte_limits() {
        let txs: Vec<_> = (0..10).map(|sender| verified(sender, 0, (50 - sender).into(), 0)).collect();
        let pool = pool_with(txs.clone());
        let by_count = SelectLimits { max_count: 3, ..UNLIMITED };
        assert_eq!(select(&pool, by_count, low_basefees(), &HashMap::new()), hashes(&txs[..3]));
        let by_cycles = SelectLimits { max_cycles: 21_000 * 4 + 20_999, ..UNLIMITED };
        assert_eq!(select(&pool, by_cycles, low_basefees(), &HashMap::new()), hashes(&txs[..4]));
        let none = SelectLimits { max_count: 0, ..UNLIMITED };
        assert!(select(&pool, none, low_basefees(), &HashMap::new()).is_empty());
        let too_small = SelectLimits { max_cycles: 20_999, ..UNLIMITED };
        assert!(select(&pool, too_small, low_basefees(), &HashMap::new()).is_empty());

        // A transaction too big for what is left is passed over for smaller ones.
        let mut pool = Pool::new(Config::default());
        let mut big = transaction(0, 9, 0);
        big.cells_limit = 600;
        let big = seal(address(1), big);
        let big_next = verified(1, 1, 9, 0);
        let mut small = transaction(0, 1, 0);
        small.cells_limit = 300;
        let small = seal(address(2), small);
        for tx in [big.clone(), big_next, small.clone()] {
            pool.admit(tx, rich(), Instant::now()).unwrap();
        }
        let by_cells = SelectLimits { max_cells: 500, ..UNLIMITED };
        assert_eq!(select(&pool, by_cells, low_basefees(), &HashMap::new()), hashes(&[small]));
        let roomy = SelectLimits { max_cells: 900, ..UNLIMITED };
        assert_eq!(select(&pool, roomy, low_basefees(), &HashMap::new()).len(), 3);

        // Likewise for the block's byte budget: a large payload waits, a small one goes.
        let mut pool = Pool::new(Config::default());
        let mut large = seal(address(1), transaction(0, 9, 0));
        large.encoded = vec![0; 1_000];
        let mut compact = seal(address(2), transaction(0, 1, 0));
        compact.encoded = vec![0; 100];
        for tx in [large.clone(), compact.clone()] {
            pool.admit(tx, rich(), Instant::now()).unwrap();
        }
        let by_bytes = SelectLimits { max_bytes: 500, ..UNLIMITED };
        assert_eq!(select(&pool, by_bytes, low_basefees(), &HashMap::new()), hashes(&[compact.clone()]));
        let by_bytes = SelectLimits { max_bytes: 1_100, ..UNLIMITED };
        assert_eq!(select(&pool, by_bytes, low_basefees(), &HashMap::new()), hashes(&[large, compact]));
    }

    #[test]
    fn selection_removes_nothing() {
        let pool = pool_with([verified(1, 0, 1, 0), verified(1, 1, 1, 0)]);
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &HashMap::new()).len(), 2);
        assert_eq!(select(&pool, UNLIMITED, low_basefees(), &HashMap::new()).len(), 2);
        assert_eq!(pool.len(), 2);
    }

    /// The indexed walk must agree with a brute-force greedy choice over every sender.
    #[test]
    fn agrees_with_a_brute_force_reference() {
        let mut pool = Pool::new(Config::default());
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next_random = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        let now = Instant::now();
        for sender in 0..60u32 {
            let start = next_random(3);
            let state = SenderState { nonce: start, ..rich() };
            for nonce in start..start + 1 + next_random(6) {
                let mut tx = transaction(nonce, next_random(40).into(), next_random(4).into());
                tx.max_fee_per_cycle = (20 + next_random(40)).into();
                tx.tip_per_cycle = tx.tip_per_cycle.min(tx.max_fee_per_cycle);
                tx.cells_limit = next_random(50);
                let tx = seal(address(sender), tx);
                pool.admit(tx, state, now).unwrap();
            }
        }
        let next: HashMap<_, _> = (0..60).step_by(7).map(|sender| (address(sender), next_random(5))).collect();
        for (cycle_basefee, max_count, max_cells) in [(1, 500, 10_000), (30, 40, 10_000), (45, 500, 300)] {
            let basefees = Basefees { cycle: cycle_basefee, cell: 1 };
            let limits = SelectLimits { max_count, max_cells, ..UNLIMITED };
            let fast = select(&pool, limits, basefees, &next);
            assert_eq!(fast, reference(&pool, limits, basefees, &next), "basefee {cycle_basefee}");
            assert!(!fast.is_empty());
        }
    }

    /// Repeatedly takes the best effective head over every sender.
    fn reference(pool: &Pool, limits: SelectLimits, basefees: Basefees, next: &HashMap<Address, u64>) -> Vec<H256> {
        let mut cursor: HashMap<Address, Option<u64>> = pool
            .accounts
            .iter()
            .map(|(sender, account)| {
                let start = next.get(sender).map_or(account.next_nonce, |n| (*n).max(account.next_nonce));
                (*sender, Some(start))
            })
            .collect();
        let mut budget = Budget { cycles: limits.max_cycles, cells: limits.max_cells, bytes: limits.max_bytes };
        let mut out = Vec::new();
        while out.len() < limits.max_count {
            let best = cursor
                .iter()
                .filter_map(|(sender, nonce)| {
                    let pending = pool.accounts[sender].txs.get(&(*nonce)?)?;
                    Some((Priority::effective(&pending.tx.tx, pending.tx.hash, basefees)?, *sender))
                })
                .max();
            let Some((_, sender)) = best else { break };
            let nonce = cursor[&sender].unwrap();
            let pending = &pool.accounts[&sender].txs[&nonce];
            if budget.charge(&pending.tx) {
                out.push(pending.tx.hash);
                cursor.insert(sender, Some(nonce + 1));
            } else {
                cursor.insert(sender, None);
            }
        }
        out
    }
}
