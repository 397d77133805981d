//! Executing a block, choosing a block's transactions, and the block-level limit rule.

use crate::{
    FeeParams, Meter, Rejection, StateRead, Writes,
    basefee::next_basefees,
    overlay::{Overlay, StateError},
    rejection::RejectReason,
    transfer::{Executed, Failure, commit, prepare},
};
use drover_state::{
    Basefees,
    keys::{account_key, basefees_key},
};
use drover_types::{Address, FeeBreakdown, Receipt, TxStatus, VerifiedTransaction};
use std::collections::BTreeSet;

/// The block being executed, as its header gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEnv {
    /// This network's chain id; transactions for another are refused.
    pub chain_id: u64,
    pub height: u64,
    pub timestamp_ms: u64,
    /// Receives the tips of the block's transactions.
    pub proposer: Address,
}

/// Everything a block's execution produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockOutcome {
    /// Final value of every key the block changed (`None` deletes), sorted by key, each key once.
    /// Includes the basefees for the next block.
    pub writes: Writes,
    /// One receipt per transaction, in block order.
    pub receipts: Vec<Receipt>,
    /// Cycles used by the block's successful transactions (failed ones use none).
    pub cycles_used: u64,
    /// Cells used by the block's successful transactions.
    pub cells_used: u64,
    /// Sum of the fees burned by the block's transactions.
    pub burned: u128,
    /// Basefees in force for this block (what its header reports).
    pub basefees: Basefees,
    /// Basefees in force for the next block (stored by `writes`).
    pub next_basefees: Basefees,
}

/// What the proposer's filter kept and dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Indices into the candidates, in the order given: the block's transactions.
    pub included: Vec<usize>,
    /// Candidates left out, in the order given, with why.
    pub dropped: Vec<(usize, Rejection)>,
}

/// A block uses more of a meter than its limit allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("block uses {used} {meter}, above the limit of {limit}")]
pub struct BlockLimitError {
    pub meter: Meter,
    pub used: u64,
    pub limit: u64,
}

/// Every state key [`execute_block`] (and [`select_valid`]) can read for these transactions,
/// sorted and without duplicates: the basefees record and the accounts of the proposer, every
/// sender and every recipient.
pub fn prefetch_keys(env: &BlockEnv, txs: &[VerifiedTransaction]) -> Vec<Vec<u8>> {
    let mut addresses = BTreeSet::from([env.proposer]);
    for tx in txs {
        addresses.insert(tx.sender);
        addresses.extend(tx.tx.to);
    }
    // The basefees key (prefix 0x00) sorts before every account key (prefix 0x01).
    std::iter::once(basefees_key())
        .chain(addresses.iter().map(account_key))
        .collect()
}

/// Basefees in force for the block on `state`: the stored record, or the initial ones before
/// the genesis writes exist. Also returns the record as stored, to know whether it must be written.
fn basefees_in_force(
    params: &FeeParams,
    state: &impl StateRead,
) -> Result<(Basefees, Option<Basefees>), StateError> {
    let key = basefees_key();
    let stored = match state.get(&key) {
        Some(bytes) => Some(Basefees::decode(&bytes).map_err(|source| StateError { key, source })?),
        None => None,
    };
    let initial = Basefees {
        cycle: params.initial_basefee_cycle,
        cell: params.initial_basefee_cell,
    };
    Ok((stored.unwrap_or(initial), stored))
}

/// Executes `txs` in order on `state` (the parent block's post-state, with the genesis writes
/// applied before block 1).
///
/// Never fails because of a transaction: one that fails a pre-check gets a `Failed` receipt and
/// changes nothing. Fails only if the state holds a corrupt record, which the node must treat as
/// fatal. The block limits are not checked here: see [`validate_block_limits`].
pub fn execute_block(
    env: &BlockEnv,
    params: &FeeParams,
    state: &impl StateRead,
    txs: &[VerifiedTransaction],
) -> Result<BlockOutcome, StateError> {
    let (basefees, stored_basefees) = basefees_in_force(params, state)?;
    let mut overlay = Overlay::new(state);
    let mut receipts = Vec::with_capacity(txs.len());
    let (mut cycles_used, mut cells_used, mut burned) = (0u64, 0u64, 0u128);
    for (position, tx) in txs.iter().enumerate() {
        let (status, executed, error) =
            match prepare(&mut overlay, env.chain_id, &basefees, env.proposer, tx) {
                Ok(prepared) => (TxStatus::Success, commit(&mut overlay, prepared), None),
                Err(Failure::State(error)) => return Err(error),
                Err(Failure::Rejected(rejection)) => (
                    TxStatus::Failed,
                    Executed {
                        cycles_used: 0,
                        cells_used: 0,
                        fee: FeeBreakdown::default(),
                        events: Vec::new(),
                    },
                    Some(rejection.to_exec_error()),
                ),
            };
        cycles_used = cycles_used.saturating_add(executed.cycles_used);
        cells_used = cells_used.saturating_add(executed.cells_used);
        burned = burned.saturating_add(executed.fee.burned);
        receipts.push(Receipt {
            tx_hash: tx.hash,
            block_height: env.height,
            // A block cannot come near 2^32 transactions: its size is bounded far below.
            index: u32::try_from(position).unwrap_or(u32::MAX),
            from: tx.sender,
            to: tx.tx.to,
            status,
            cycles_used: executed.cycles_used,
            cells_used: executed.cells_used,
            fee: executed.fee,
            events: executed.events,
            revert_reason: None,
            error,
        });
    }

    let next_basefees = next_basefees(params, basefees, cycles_used, cells_used);
    let mut writes = Vec::new();
    if stored_basefees != Some(next_basefees) {
        writes.push((basefees_key(), Some(next_basefees.encode())));
    }
    // Account keys (prefix 0x01) sort after the basefees key (prefix 0x00).
    writes.extend(overlay.into_writes());
    Ok(BlockOutcome {
        writes,
        receipts,
        cycles_used,
        cells_used,
        burned,
        basefees,
        next_basefees,
    })
}

/// The proposer's filter: walks `candidates` in order, keeping each one that would execute
/// successfully after the ones kept before it and still fits the block limits, and dropping the
/// others with the reason. A block made of the kept transactions executes with every receipt
/// `Success` and passes [`validate_block_limits`].
///
/// Fails only on a corrupt state record, like [`execute_block`].
pub fn select_valid(
    env: &BlockEnv,
    params: &FeeParams,
    state: &impl StateRead,
    candidates: &[VerifiedTransaction],
) -> Result<Selection, StateError> {
    let (basefees, _) = basefees_in_force(params, state)?;
    let mut overlay = Overlay::new(state);
    let mut selection = Selection::default();
    let (mut cycles_left, mut cells_left) =
        (params.block_limit_cycles(), params.block_limit_cells());
    for (position, tx) in candidates.iter().enumerate() {
        let prepared = match prepare(&mut overlay, env.chain_id, &basefees, env.proposer, tx) {
            Ok(prepared) => prepared,
            Err(Failure::State(error)) => return Err(error),
            Err(Failure::Rejected(rejection)) => {
                selection.dropped.push((position, rejection));
                continue;
            }
        };
        let (cycles, cells) = (prepared.executed.cycles_used, prepared.executed.cells_used);
        let full = if cycles > cycles_left {
            Some((Meter::Cycles, cycles, cycles_left))
        } else if cells > cells_left {
            Some((Meter::Cells, cells, cells_left))
        } else {
            None
        };
        if let Some((meter, used, left)) = full {
            let message =
                format!("the block has {left} {meter} left; the transaction needs {used}");
            selection.dropped.push((
                position,
                Rejection::new(RejectReason::BlockFull(meter), message),
            ));
            continue;
        }
        cycles_left -= cycles;
        cells_left -= cells;
        commit(&mut overlay, prepared);
        selection.included.push(position);
    }
    Ok(selection)
}

/// The one block-level rule: a block may use at most twice the target of each meter.
pub fn validate_block_limits(
    params: &FeeParams,
    cycles_used: u64,
    cells_used: u64,
) -> Result<(), BlockLimitError> {
    for (meter, used, limit) in [
        (Meter::Cycles, cycles_used, params.block_limit_cycles()),
        (Meter::Cells, cells_used, params.block_limit_cells()),
    ] {
        if used > limit {
            return Err(BlockLimitError { meter, used, limit });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        TRANSFER_CYCLES, genesis_writes,
        testing::{
            State, account, address, apply, balance, env, genesis, total_supply, transfer,
            transfer_tx, verified,
        },
        transfer_event_data,
    };
    use drover_state::Account;
    use drover_types::{Event, SecretKey, Transaction, exec_error::ExecCode};

    const RICH: u128 = 1_000_000_000_000;
    /// Fee of one transfer at the genesis basefees (1 per cycle): 21,000 burned, 21,000 tipped.
    const FEE: FeeBreakdown = FeeBreakdown {
        burned: 21_000,
        tip: 21_000,
    };

    fn params() -> FeeParams {
        FeeParams::default()
    }

    fn run(state: &State, proposer: Address, txs: &[VerifiedTransaction]) -> BlockOutcome {
        execute_block(&env(proposer), &params(), state, txs).expect("state is not corrupt")
    }

    fn codes(outcome: &BlockOutcome) -> Vec<Option<ExecCode>> {
        outcome
            .receipts
            .iter()
            .map(|receipt| receipt.error.as_ref().map(|error| error.code))
            .collect()
    }

    #[test]
    fn a_transfer_moves_value_burns_the_basefee_and_tips_the_proposer() {
        let (alice, bob, proposer) = (address(1), address(2), address(9));
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, proposer, &[transfer(alice, 0, bob, 500)]);

        let receipt = &outcome.receipts[0];
        assert_eq!(receipt.status, TxStatus::Success);
        assert_eq!(
            (receipt.cycles_used, receipt.cells_used),
            (TRANSFER_CYCLES, 0)
        );
        assert_eq!(receipt.fee, FEE);
        assert_eq!((receipt.block_height, receipt.index), (7, 0));
        assert_eq!((receipt.from, receipt.to), (alice, Some(bob)));
        assert_eq!(receipt.error, None);
        assert_eq!(
            receipt.events,
            [Event {
                address: bob,
                topic: "transfer".into(),
                data: transfer_event_data(&alice, &bob, 500)
            }]
        );
        assert_eq!(
            (outcome.cycles_used, outcome.cells_used, outcome.burned),
            (TRANSFER_CYCLES, 0, 21_000)
        );

        apply(&mut state, outcome.writes);
        assert_eq!(
            account(&state, alice),
            Some(Account {
                nonce: 1,
                balance: RICH - 500 - 42_000
            })
        );
        assert_eq!(
            account(&state, bob),
            Some(Account {
                nonce: 0,
                balance: 500
            })
        );
        assert_eq!(
            account(&state, proposer),
            Some(Account {
                nonce: 0,
                balance: 21_000
            })
        );
        assert_eq!(total_supply(&state), RICH - 21_000);
    }

    #[test]
    fn supply_falls_by_exactly_the_burn_across_many_transfers() {
        let accounts: Vec<Address> = (1..=50).map(address).collect();
        let allocations: Vec<(Address, u128)> = accounts
            .iter()
            .enumerate()
            .map(|(i, a)| (*a, RICH + i as u128 * 7_919))
            .collect();
        let mut state = genesis(&allocations);
        let before = total_supply(&state);
        let mut nonces = [0u64; 50];
        let txs: Vec<VerifiedTransaction> = (0..600usize)
            .map(|i| {
                let (from, to) = ((i * 7) % 50, (i * 13 + 5) % 50);
                let tx = transfer(
                    accounts[from],
                    nonces[from],
                    accounts[to],
                    (i as u128 * 104_729) % 1_000_000,
                );
                nonces[from] += 1;
                tx
            })
            .collect();
        let outcome = run(&state, address(200), &txs);
        assert!(
            outcome
                .receipts
                .iter()
                .all(|receipt| receipt.status == TxStatus::Success)
        );
        let burned: u128 = outcome
            .receipts
            .iter()
            .map(|receipt| receipt.fee.burned)
            .sum();
        assert_eq!(burned, outcome.burned);
        assert_eq!(outcome.cycles_used, 600 * TRANSFER_CYCLES);

        // Deterministic: the same inputs give the same outcome.
        assert_eq!(run(&state, address(200), &txs), outcome);
        // Writes are sorted by key, each key once.
        assert!(outcome.writes.windows(2).all(|pair| pair[0].0 < pair[1].0));

        apply(&mut state, outcome.writes);
        assert_eq!(before, total_supply(&state) + burned);
        for (i, address) in accounts.iter().enumerate() {
            assert_eq!(account(&state, *address).map(|a| a.nonce), Some(nonces[i]));
        }
    }

    #[test]
    fn nonces_sequence_within_a_block() {
        let (alice, bob) = (address(1), address(2));
        let state = genesis(&[(alice, RICH)]);
        let txs = [
            transfer(alice, 0, bob, 1),
            transfer(alice, 1, bob, 1),
            transfer(alice, 1, bob, 1), // replay of a nonce used just before
            transfer(alice, 3, bob, 1), // gap
            transfer(alice, 2, bob, 1),
        ];
        let outcome = run(&state, address(9), &txs);
        assert_eq!(
            codes(&outcome),
            [
                None,
                None,
                Some(ExecCode::Nonce),
                Some(ExecCode::Nonce),
                None
            ]
        );
        let mut state = state;
        apply(&mut state, outcome.writes);
        assert_eq!(account(&state, alice).map(|a| a.nonce), Some(3));
    }

    #[test]
    fn failed_transactions_change_nothing_and_pay_nothing() {
        let (alice, bob, proposer) = (address(1), address(2), address(9));
        let mut state = genesis(&[(alice, 1_000_000)]);
        let before = state.clone();
        let txs = [
            verified(
                alice,
                Transaction {
                    chain_id: 1,
                    ..transfer_tx(0, bob, 1)
                },
            ),
            transfer(alice, 5, bob, 1),
            verified(
                alice,
                Transaction {
                    max_fee_per_cycle: 0,
                    tip_per_cycle: 0,
                    ..transfer_tx(0, bob, 1)
                },
            ),
            transfer(alice, 0, bob, 1_000_001),
            transfer(alice, 0, bob, 1_000_000),
            verified(
                alice,
                Transaction {
                    cycles_limit: 1,
                    ..transfer_tx(0, bob, 1)
                },
            ),
            verified(
                alice,
                Transaction {
                    to: None,
                    ..transfer_tx(0, bob, 1)
                },
            ),
            verified(
                alice,
                Transaction {
                    payload: b"hi".to_vec(),
                    ..transfer_tx(0, bob, 1)
                },
            ),
            transfer(bob, 0, alice, 0),
        ];
        let outcome = run(&state, proposer, &txs);
        use ExecCode::*;
        let expected = [
            ChainId,
            Nonce,
            BasefeeTooLow,
            BalanceForValue,
            BalanceForFees,
            OutOfCycles,
            Payload,
            Payload,
            BalanceForFees,
        ];
        assert_eq!(codes(&outcome), expected.map(Some));
        for (index, receipt) in outcome.receipts.iter().enumerate() {
            assert_eq!(receipt.status, TxStatus::Failed);
            assert_eq!(receipt.index as usize, index);
            assert_eq!(
                (receipt.cycles_used, receipt.cells_used, receipt.fee),
                (0, 0, FeeBreakdown::default())
            );
            assert!(receipt.events.is_empty());
        }
        assert_eq!(
            (outcome.cycles_used, outcome.cells_used, outcome.burned),
            (0, 0, 0)
        );
        // Only the basefee moves (down, an empty block); the floor keeps it at 1.
        assert_eq!(outcome.next_basefees, Basefees { cycle: 1, cell: 1 });
        assert!(outcome.writes.is_empty());
        apply(&mut state, outcome.writes);
        assert_eq!(state, before);
    }

    #[test]
    fn funds_received_earlier_in_the_block_can_be_spent() {
        let (alice, bob, carol) = (address(1), address(2), address(3));
        let state = genesis(&[(alice, RICH)]);
        let txs = [
            transfer(bob, 0, carol, 1),
            transfer(alice, 0, bob, 1_000_000),
            transfer(bob, 0, carol, 1),
        ];
        let outcome = run(&state, address(9), &txs);
        assert_eq!(
            codes(&outcome),
            [Some(ExecCode::BalanceForValue), None, None]
        );
    }

    #[test]
    fn the_proposer_can_send_and_earn_in_the_same_transaction() {
        let (alice, bob) = (address(1), address(2));
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, alice, &[transfer(alice, 0, bob, 10)]);
        apply(&mut state, outcome.writes);
        // Alice pays value + burn + tip and receives the tip back.
        assert_eq!(
            account(&state, alice),
            Some(Account {
                nonce: 1,
                balance: RICH - 10 - 21_000
            })
        );
        assert_eq!(balance(&state, bob), 10);
        assert_eq!(total_supply(&state), RICH - 21_000);
    }

    #[test]
    fn a_transfer_to_self_costs_only_the_fee() {
        let alice = address(1);
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, address(9), &[transfer(alice, 0, alice, RICH / 2)]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        assert_eq!(outcome.receipts[0].events.len(), 1);
        apply(&mut state, outcome.writes);
        assert_eq!(
            account(&state, alice),
            Some(Account {
                nonce: 1,
                balance: RICH - 42_000
            })
        );
        // Sender, recipient and proposer all the same account.
        let outcome = run(&state, alice, &[transfer(alice, 1, alice, 5)]);
        apply(&mut state, outcome.writes);
        assert_eq!(
            account(&state, alice),
            Some(Account {
                nonce: 2,
                balance: RICH - 42_000 - 21_000
            })
        );
    }

    #[test]
    fn a_zero_value_transfer_creates_no_account() {
        let (alice, fresh) = (address(1), address(2));
        let mut state = genesis(&[(alice, RICH)]);
        let outcome = run(&state, alice, &[transfer(alice, 0, fresh, 0)]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        apply(&mut state, outcome.writes);
        assert_eq!(account(&state, fresh), None);
    }

    #[test]
    fn overflow_attempts_fail_cleanly() {
        let (alice, whale, proposer) = (address(1), address(2), address(9));
        // A state no genesis could produce (supply above u128::MAX), to reach the credit check.
        let mut state = genesis(&[(alice, RICH)]);
        apply(
            &mut state,
            vec![(
                account_key(&whale),
                Some(
                    Account {
                        nonce: 0,
                        balance: u128::MAX,
                    }
                    .encode(),
                ),
            )],
        );
        let before = state.clone();
        let txs = [
            transfer(alice, 0, whale, 1),
            transfer(alice, 0, address(3), u128::MAX),
            verified(
                alice,
                Transaction {
                    max_fee_per_cycle: u128::MAX,
                    tip_per_cycle: u128::MAX,
                    ..transfer_tx(0, whale, 0)
                },
            ),
            verified(
                alice,
                Transaction {
                    cycles_limit: u64::MAX,
                    max_fee_per_cycle: u128::MAX,
                    ..transfer_tx(0, whale, 0)
                },
            ),
            verified(
                whale,
                Transaction {
                    max_fee_per_cycle: u128::MAX,
                    tip_per_cycle: u128::MAX,
                    ..transfer_tx(0, alice, 0)
                },
            ),
        ];
        let outcome = run(&state, proposer, &txs);
        let reasons: Vec<_> = codes(&outcome);
        assert_eq!(
            reasons,
            [
                Some(ExecCode::Internal),
                Some(ExecCode::BalanceForValue),
                Some(ExecCode::Fees),
                Some(ExecCode::Fees),
                Some(ExecCode::Fees)
            ]
        );
        apply(&mut state, outcome.writes);
        assert_eq!(state, before);
    }

    #[test]
    fn basefees_come_from_state_and_the_next_ones_are_written() {
        let alice = address(1);
        let mut state = genesis(&[(alice, RICH)]);
        apply(
            &mut state,
            vec![(
                basefees_key(),
                Some(
                    Basefees {
                        cycle: 800,
                        cell: 80,
                    }
                    .encode(),
                ),
            )],
        );
        let tx = verified(
            alice,
            Transaction {
                max_fee_per_cycle: 1_000,
                max_fee_per_cell: 100,
                ..transfer_tx(0, address(2), 1)
            },
        );
        let outcome = run(&state, address(9), &[tx]);
        assert_eq!(
            outcome.basefees,
            Basefees {
                cycle: 800,
                cell: 80
            }
        );
        assert_eq!(
            outcome.receipts[0].fee,
            FeeBreakdown {
                burned: 21_000 * 800,
                tip: 21_000
            }
        );
        // 21,000 cycles is far below target: down by almost an eighth; no cells used: down by 1/8.
        assert_eq!(
            outcome.next_basefees,
            Basefees {
                cycle: 800 - 99,
                cell: 70
            }
        );
        assert_eq!(
            outcome.writes[0],
            (basefees_key(), Some(outcome.next_basefees.encode()))
        );
        apply(&mut state, outcome.writes);
        // The next block prices with the written basefees.
        let outcome = run(&state, address(9), &[]);
        assert_eq!(
            outcome.basefees,
            Basefees {
                cycle: 701,
                cell: 70
            }
        );
    }

    #[test]
    fn absent_basefees_mean_the_initial_ones() {
        let params = FeeParams {
            initial_basefee_cycle: 50,
            initial_basefee_cell: 5,
            ..FeeParams::default()
        };
        let outcome = execute_block(&env(address(9)), &params, &State::new(), &[]).unwrap();
        assert_eq!(outcome.basefees, Basefees { cycle: 50, cell: 5 });
        assert_eq!(outcome.next_basefees, Basefees { cycle: 44, cell: 5 });
        assert_eq!(
            outcome.writes,
            [(
                basefees_key(),
                Some(Basefees { cycle: 44, cell: 5 }.encode())
            )]
        );
    }

    #[test]
    fn a_full_block_raises_the_cycle_basefee() {
        let senders: Vec<Address> = (1..=200).map(address).collect();
        let allocations: Vec<_> = senders.iter().map(|s| (*s, RICH)).collect();
        let mut state = genesis(&allocations);
        apply(
            &mut state,
            vec![(
                basefees_key(),
                Some(Basefees { cycle: 8, cell: 8 }.encode()),
            )],
        );
        // 952 transfers: 19,992,000 cycles, just under the 20,000,000 limit.
        let txs: Vec<_> = (0..952u64)
            .map(|i| {
                let sender = senders[(i % 200) as usize];
                verified(
                    sender,
                    Transaction {
                        max_fee_per_cell: 8,
                        ..transfer_tx(i / 200, address(250), 1)
                    },
                )
            })
            .collect();
        let outcome = run(&state, address(9), &txs);
        assert!(
            outcome
                .receipts
                .iter()
                .all(|receipt| receipt.status == TxStatus::Success)
        );
        assert_eq!(
            validate_block_limits(&params(), outcome.cycles_used, outcome.cells_used),
            Ok(())
        );
        // (19,992,000 − 10,000,000) / 80,000,000 of 8 is 0.999: rounds down to 0, then at least +1.
        assert_eq!(outcome.next_basefees, Basefees { cycle: 9, cell: 7 });
    }

    #[test]
    fn block_limits_are_twice_the_target() {
        let params = params();
        assert_eq!(
            validate_block_limits(&params, 20_000_000, 1_000_000),
            Ok(())
        );
        assert_eq!(
            validate_block_limits(&params, 20_000_001, 0),
            Err(BlockLimitError {
                meter: Meter::Cycles,
                used: 20_000_001,
                limit: 20_000_000
            })
        );
        assert_eq!(
            validate_block_limits(&params, 0, 1_000_001),
            Err(BlockLimitError {
                meter: Meter::Cells,
                used: 1_000_001,
                limit: 1_000_000
            })
        );
        assert_eq!(
            validate_block_limits(&params, u64::MAX, 0)
                .unwrap_err()
                .to_string(),
            format!(
                "block uses {} cycles, above the limit of 20000000",
                u64::MAX
            )
        );
    }

    #[test]
    fn select_valid_drops_exactly_the_invalid_ones_and_its_block_fully_succeeds() {
        let (alice, bob, carol, proposer) = (address(1), address(2), address(3), address(9));
        let state = genesis(&[(alice, RICH), (bob, 1_000_000)]);
        let candidates = [
            transfer(alice, 1, carol, 1), // 0: nonce gap
            transfer(alice, 0, carol, 1), // 1: ok
            transfer(alice, 1, carol, 1), // 2: ok now
            verified(
                alice,
                Transaction {
                    chain_id: 1,
                    ..transfer_tx(2, carol, 1)
                },
            ), // 3: wrong chain
            transfer(bob, 0, carol, 300_000), // 4: ok
            transfer(bob, 1, carol, 500_000), // 5: bob is short now
            transfer(carol, 0, bob, 10),  // 6: carol got 300,002: ok
            transfer(alice, 2, carol, 1), // 7: ok
            transfer(alice, 2, carol, 1), // 8: nonce reused
        ];
        let selection = select_valid(&env(proposer), &params(), &state, &candidates).unwrap();
        assert_eq!(selection.included, [1, 2, 4, 6, 7]);
        let dropped: Vec<(usize, RejectReason)> = selection
            .dropped
            .iter()
            .map(|(index, rejection)| (*index, rejection.reason))
            .collect();
        assert_eq!(
            dropped,
            [
                (0, RejectReason::NonceTooHigh),
                (3, RejectReason::WrongChainId),
                (5, RejectReason::InsufficientBalanceForFees),
                (8, RejectReason::NonceTooLow),
            ]
        );
        let block: Vec<_> = selection
            .included
            .iter()
            .map(|&i| candidates[i].clone())
            .collect();
        let outcome = run(&state, proposer, &block);
        assert!(
            outcome
                .receipts
                .iter()
                .all(|receipt| receipt.status == TxStatus::Success)
        );
    }

    #[test]
    fn select_valid_stops_at_the_block_limit_and_executing_past_it_is_invalid() {
        let senders: Vec<Address> = (1..=100).map(address).collect();
        let state = genesis(&senders.iter().map(|s| (*s, RICH)).collect::<Vec<_>>());
        let candidates: Vec<_> = (0..960u64)
            .map(|i| transfer(senders[(i % 100) as usize], i / 100, address(250), 1))
            .collect();
        let selection = select_valid(&env(address(9)), &params(), &state, &candidates).unwrap();
        assert_eq!(selection.included, (0..952).collect::<Vec<_>>());
        assert_eq!(selection.dropped.len(), 8);
        let (index, rejection) = &selection.dropped[0];
        assert_eq!(
            (*index, rejection.reason),
            (952, RejectReason::BlockFull(Meter::Cycles))
        );
        assert!(!rejection.reason.is_permanent());
        // The same candidates as a block execute but break the limit.
        let outcome = run(&state, address(9), &candidates);
        assert_eq!(outcome.cycles_used, 960 * TRANSFER_CYCLES);
        assert!(validate_block_limits(&params(), outcome.cycles_used, outcome.cells_used).is_err());
    }

    #[test]
    fn prefetched_keys_are_all_execution_reads() {
        let (alice, bob, carol, proposer) = (address(1), address(2), address(3), address(9));
        let full = genesis(&[(alice, RICH), (bob, RICH), (address(100), 5)]);
        let txs = [
            transfer(alice, 0, bob, 1),
            transfer(bob, 0, carol, 1),
            transfer(alice, 1, carol, 1),
            verified(
                bob,
                Transaction {
                    to: None,
                    ..transfer_tx(1, carol, 1)
                },
            ),
        ];
        let keys = prefetch_keys(&env(proposer), &txs);
        let expected = vec![
            basefees_key(),
            account_key(&alice),
            account_key(&bob),
            account_key(&carol),
            account_key(&proposer),
        ];
        assert_eq!(keys, expected);
        // A snapshot of exactly those keys executes the same as the whole state.
        let snapshot: State = keys
            .iter()
            .filter_map(|key| full.get(key).map(|value| (key.clone(), value.clone())))
            .collect();
        assert_eq!(run(&snapshot, proposer, &txs), run(&full, proposer, &txs));
    }

    #[test]
    fn corrupt_records_abort_the_block() {
        let alice = address(1);
        let mut state = genesis(&[(alice, RICH)]);
        state.insert(account_key(&alice), vec![0x82, 0x00]);
        let error = execute_block(
            &env(address(9)),
            &params(),
            &state,
            &[transfer(alice, 0, address(2), 1)],
        )
        .unwrap_err();
        assert_eq!(error.key, account_key(&alice));
        let error = select_valid(
            &env(address(9)),
            &params(),
            &state,
            &[transfer(alice, 0, address(2), 1)],
        )
        .unwrap_err();
        assert_eq!(error.key, account_key(&alice));

        let mut state = genesis(&[(alice, RICH)]);
        state.insert(basefees_key(), vec![0xff]);
        let error = execute_block(&env(address(9)), &params(), &state, &[]).unwrap_err();
        assert_eq!(error.key, basefees_key());
    }

    #[test]
    fn signed_transactions_execute_from_their_recovered_sender() {
        let key = SecretKey::dev(0);
        let sender = key.address();
        let mut state = State::new();
        apply(
            &mut state,
            genesis_writes(&[(sender, RICH)], &params()).unwrap(),
        );
        let tx = transfer_tx(0, address(2), 77).sign(&key).verify().unwrap();
        let hash = tx.hash;
        let outcome = run(&state, address(9), &[tx]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        assert_eq!(outcome.receipts[0].tx_hash, hash);
        apply(&mut state, outcome.writes);
        assert_eq!(balance(&state, address(2)), 77);
        assert_eq!(account(&state, sender).map(|a| a.nonce), Some(1));
    }
}
