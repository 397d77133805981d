//! Block validity: the transaction validity rule (`drover_types::validity`) applied to a whole
//! block, before any of its transactions runs.
//!
//! A verifier calls [`BlockValidator::admit`] on each transaction of a proposed block in block
//! order, after the block's deferred work and before the first transaction executes; the first
//! refusal makes the block invalid, and nothing of it is executed. The proposer calls the same
//! function on each candidate and leaves out the ones it refuses, so it only builds blocks that
//! every verifier accepts. Refusal reads each distinct sender's account once and does constant
//! work per transaction: its cost follows the block's bytes, never what the transactions would
//! run.
//!
//! A block is valid when, in order, every transaction passes the rule against the state left by
//! the ones before it, and together they fit the block:
//! - at most [`MAX_TRANSACTIONS_PER_BLOCK`] transactions and [`MAX_BLOCK_BYTES`] encoded bytes;
//! - the sum of their `cycles_limit` (and of their `cells_limit`) at most the block limit of
//!   the meter minus what the deferred work used: execution can then never pass the limit,
//!   whatever the transactions do;
//! - each sender's nonces consecutive from its next nonce (a transaction already finalized has
//!   a used nonce, so it can never be included again);
//! - each sender's balance covering the value plus maximum fees of all its transactions in the
//!   block so far.
//!
//! The balance a transaction is checked against is a floor: the sender's balance after the
//! deferred work, less the value and maximum fees of its earlier transactions in the block.
//! Within a block's transactions only a sender's own transactions take from its balance (an
//! actor moves only its own funds, a system actor only what it holds, and deferred work ran
//! before), so the real balance when the transaction runs is at least the floor, and execution
//! never meets a transaction it cannot charge. The floor ignores what a sender receives in the
//! block: a transaction that needs those funds waits for the next block.

use crate::{
    StateRead,
    overlay::{Overlay, ReadError},
};
use drover_types::{
    Address, VerifiedTransaction,
    params::{MAX_BLOCK_BYTES, MAX_TRANSACTIONS_PER_BLOCK},
    validity::{self, ActorWork, ChainContext, Intrinsic, Meter, RejectReason, Rejection},
};
use std::collections::HashMap;

/// The next nonce and balance floor of a sender, after its transactions admitted so far.
#[derive(Clone, Copy)]
struct Projected {
    nonce: u64,
    balance: u128,
}

/// The validity of one block's transactions, admitted in block order (see the module
/// documentation).
pub(crate) struct BlockValidator {
    chain: ChainContext,
    cycles_left: u64,
    cells_left: u64,
    transactions_left: usize,
    bytes_left: usize,
    senders: HashMap<Address, Projected>,
}

impl BlockValidator {
    /// A validator for a block of (or chosen from) `txs` under `chain`, whose deferred work
    /// used `deferred_cycles` and `deferred_cells`. Reads the account of each distinct sender of
    /// `txs` through `overlay`, which must hold the state the deferred work left, before any
    /// transaction ran.
    pub(crate) fn new<S: StateRead>(
        chain: ChainContext,
        (deferred_cycles, deferred_cells): (u64, u64),
        overlay: &mut Overlay<'_, S>,
        txs: &[VerifiedTransaction],
    ) -> Result<Self, ReadError> {
        let mut senders = HashMap::new();
        for tx in txs {
            if let std::collections::hash_map::Entry::Vacant(entry) = senders.entry(tx.sender) {
                let account = overlay.account(tx.sender)?;
                entry.insert(Projected { nonce: account.nonce, balance: account.balance });
            }
        }
        Ok(BlockValidator {
            cycles_left: chain.limits.cycles.saturating_sub(deferred_cycles),
            cells_left: chain.limits.cells.saturating_sub(deferred_cells),
            chain,
            transactions_left: MAX_TRANSACTIONS_PER_BLOCK,
            bytes_left: MAX_BLOCK_BYTES,
            senders,
        })
    }

    /// Admits `tx`, one of the transactions the validator was made for, as the block's next
    /// transaction, or refuses it and changes nothing. Answers its intrinsic cost and the actor
    /// work the rule decoded from its payload, for the block to run.
    pub(crate) fn admit(&mut self, tx: &VerifiedTransaction) -> Result<(Intrinsic, Option<ActorWork>), Rejection> {
        // A sender the validator was not made for holds nothing: refused on its balance.
        let projected = self.senders.get(&tx.sender).copied().unwrap_or(Projected { nonce: 0, balance: 0 });
        let admitted = validity::check(&tx.tx, &self.chain, projected.nonce, projected.balance)?;
        let full = |meter: Meter, message: String| Rejection::new(RejectReason::BlockFull(meter), message);
        if self.transactions_left == 0 {
            return Err(full(Meter::Cycles, format!("the block holds {MAX_TRANSACTIONS_PER_BLOCK} transactions")));
        }
        if tx.encoded.len() > self.bytes_left {
            return Err(full(
                Meter::Cells,
                format!(
                    "the block has {} transaction bytes left; the transaction is {}",
                    self.bytes_left,
                    tx.encoded.len()
                ),
            ));
        }
        for (meter, asked, left) in
            [(Meter::Cycles, tx.tx.cycles_limit, self.cycles_left), (Meter::Cells, tx.tx.cells_limit, self.cells_left)]
        {
            if asked > left {
                return Err(full(
                    meter,
                    format!("the block has {left} {meter} left; the transaction's limit is {asked}"),
                ));
            }
        }
        self.transactions_left -= 1;
        self.bytes_left -= tx.encoded.len();
        self.cycles_left -= tx.tx.cycles_limit;
        self.cells_left -= tx.tx.cells_limit;
        // The rule refused an overflowing cost and a cost above the balance.
        let cost = tx.tx.max_cost().unwrap_or(projected.balance);
        self.senders.insert(
            tx.sender,
            Projected { nonce: projected.nonce.saturating_add(1), balance: projected.balance.saturating_sub(cost) },
        );
        Ok(admitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{CHAIN_ID, address, transfer_tx, verified};
    use drover_state::{Account, keys::account_key};
    use drover_types::{Basefees, Transaction, validity::BlockLimits};
    use std::collections::BTreeMap;

    const CHAIN: ChainContext = ChainContext {
        chain_id: CHAIN_ID,
        basefees: Basefees { cycle: 1, cell: 1 },
        limits: BlockLimits { cycles: 20_000_000, cells: 1_000_000 },
    };

    fn state(accounts: &[(Address, Account)]) -> BTreeMap<Vec<u8>, Vec<u8>> {
        accounts.iter().map(|(address, account)| (account_key(address), account.encode())).collect()
    }

    fn reasons(
        state: &BTreeMap<Vec<u8>, Vec<u8>>,
        deferred: u64,
        txs: &[VerifiedTransaction],
    ) -> Vec<Option<RejectReason>> {
        let mut overlay = Overlay::new(state);
        let mut validator = BlockValidator::new(CHAIN, (deferred, 0), &mut overlay, txs).unwrap();
        txs.iter().map(|tx| validator.admit(tx).err().map(|rejection| rejection.reason)).collect()
    }

    #[test]
    fn nonces_follow_each_other_and_a_used_one_never_returns() {
        let alice = address(1);
        let state = state(&[(alice, Account { nonce: 5, balance: 1 << 60 })]);
        let txs = [
            verified(alice, transfer_tx(4, address(2), 1)),
            verified(alice, transfer_tx(6, address(2), 1)),
            verified(alice, transfer_tx(5, address(2), 1)),
            verified(alice, transfer_tx(5, address(2), 2)),
            verified(alice, transfer_tx(6, address(2), 1)),
        ];
        assert_eq!(
            reasons(&state, 0, &txs),
            [
                Some(RejectReason::NonceTooLow),
                Some(RejectReason::NonceTooHigh),
                None,
                Some(RejectReason::NonceTooLow),
                None
            ]
        );
    }

    #[test]
    fn the_balance_floor_counts_every_earlier_transaction_of_the_sender() {
        let (alice, bob) = (address(1), address(2));
        // Each transfer may cost 21,000 × 10 + 1 = 210,001.
        let state = state(&[(alice, Account { nonce: 0, balance: 420_002 })]);
        let txs = [
            verified(alice, transfer_tx(0, bob, 1)),
            verified(alice, transfer_tx(1, bob, 1)),
            verified(alice, transfer_tx(2, bob, 0)),
            // Funds bob receives in the block do not count for him.
            verified(bob, transfer_tx(0, alice, 1)),
        ];
        assert_eq!(
            reasons(&state, 0, &txs),
            [
                None,
                None,
                Some(RejectReason::InsufficientBalanceForFees),
                Some(RejectReason::InsufficientBalanceForValue)
            ]
        );
    }

    #[test]
    fn the_limits_of_the_transactions_fit_what_the_deferred_work_left() {
        let senders: Vec<_> = (1..=3).map(address).collect();
        let state = state(&senders.iter().map(|s| (*s, Account { nonce: 0, balance: 1 << 100 })).collect::<Vec<_>>());
        let big =
            |sender, cycles_limit| verified(sender, Transaction { cycles_limit, ..transfer_tx(0, address(9), 1) });
        let txs = [big(senders[0], 8_000_000), big(senders[1], 8_000_000), big(senders[2], 3_000_001)];
        assert_eq!(reasons(&state, 1_000_000, &txs), [None, None, Some(RejectReason::BlockFull(Meter::Cycles))]);
        let txs = [big(senders[0], 8_000_000), big(senders[1], 8_000_000), big(senders[2], 3_000_000)];
        assert_eq!(reasons(&state, 1_000_000, &txs), [None, None, None]);
        // A transaction above the whole block limit is refused as such, not as a full block.
        assert_eq!(
            reasons(&state, 0, &[big(senders[0], 20_000_001)]),
            [Some(RejectReason::AboveBlockLimit(Meter::Cycles))]
        );
    }

    #[test]
    fn a_refused_transaction_changes_nothing() {
        let alice = address(1);
        let state = state(&[(alice, Account { nonce: 0, balance: 1 << 60 })]);
        let txs = [
            verified(alice, Transaction { chain_id: 1, ..transfer_tx(0, address(2), 1) }),
            verified(alice, Transaction { cycles_limit: 30_000_000, ..transfer_tx(0, address(2), 1) }),
            verified(alice, transfer_tx(0, address(2), 1)),
        ];
        assert_eq!(
            reasons(&state, 0, &txs),
            [Some(RejectReason::WrongChainId), Some(RejectReason::AboveBlockLimit(Meter::Cycles)), None]
        );
    }

    #[test]
    fn the_transaction_count_is_bounded() {
        let sender = |i: u64| {
            let mut bytes = [0xb0; 20];
            bytes[12..].copy_from_slice(&i.to_be_bytes());
            Address(bytes)
        };
        let senders: Vec<_> = (0..=MAX_TRANSACTIONS_PER_BLOCK as u64).map(sender).collect();
        let state = state(&senders.iter().map(|s| (*s, Account { nonce: 0, balance: 1 << 60 })).collect::<Vec<_>>());
        let chain = ChainContext { limits: BlockLimits { cycles: u64::MAX, cells: u64::MAX }, ..CHAIN };
        let txs: Vec<_> = senders.iter().map(|sender| verified(*sender, transfer_tx(0, address(2), 1))).collect();
        let mut overlay = Overlay::new(&state);
        let mut validator = BlockValidator::new(chain, (0, 0), &mut overlay, &txs).unwrap();
        for tx in &txs[..MAX_TRANSACTIONS_PER_BLOCK] {
            assert!(validator.admit(tx).is_ok());
        }
        let refused = validator.admit(&txs[MAX_TRANSACTIONS_PER_BLOCK]).unwrap_err();
        assert_eq!(refused.reason, RejectReason::BlockFull(Meter::Cycles));
    }
}
