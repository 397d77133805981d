//! `POST /simulate`: one transaction run as the next block's over the latest finalized state,
//! nothing kept (`drover_execution::simulate_transaction`; `simulate_transaction_traced` when the
//! request asks for the trace of the handlers it runs).
//!
//! Bounded like a read-only call: it runs over the latest finalized state as
//! `super::finalized_state` describes, on threads of its own with their own queue (a full queue
//! is 429), and its work is bounded by its limits, which the validity rule keeps within the
//! block's.
//!
//! An unsigned transaction's open fields are filled in from the finalized state and the next
//! block's fee market: the sender's nonce, the basefees as max fees, no tip, and as limits the
//! block's, capped by what the sender's balance pays beyond the value (half of it for each
//! meter when both are open). A nonce ahead of the sender's finalized one (transactions pending
//! before it) runs as the finalized one: the simulation cannot run the pending ones first.

use super::finalized_state::{Finished, budget_spent};
use super::handle::NodeHandle;
use crate::error::NodeError;
use drover_execution::{BlockEnv, Simulation, SimulationError, simulate_transaction, simulate_transaction_traced};
use drover_rpc::{
    backend::simulation::{Simulated, SimulationBackend, UnsignedTx},
    limits::SIMULATION_MARGIN_PERCENT,
};
use drover_types::{
    ErrorCode, H256, Transaction, VerifiedTransaction,
    admission::AdmissionError,
    api::{EventInfo, ExecutionTrace, SimulationInfo},
    error::ApiError,
    validity::intrinsic_cost,
};
use std::sync::Arc;

/// Limits for an unsigned transaction that leaves one or both open: the block's, capped by what
/// `available` (the balance beyond the value) pays at `fees` per cycle and per cell. When both
/// are open, each meter may use half of it.
fn default_limits(
    available: u128,
    (cycles, cells): (Option<u64>, Option<u64>),
    (fee_cycle, fee_cell): (u128, u128),
    (block_cycles, block_cells): (u64, u64),
) -> (u64, u64) {
    // What `budget` pays of a meter at `fee` per unit, at most `block`.
    let affordable = |budget: u128, fee: u128, block: u64| match budget.checked_div(fee) {
        Some(units) => u64::try_from(units).unwrap_or(u64::MAX).min(block),
        None => block,
    };
    let cost = |units: u64, fee: u128| u128::from(units).saturating_mul(fee);
    match (cycles, cells) {
        (Some(cycles), Some(cells)) => (cycles, cells),
        (Some(cycles), None) => {
            (cycles, affordable(available.saturating_sub(cost(cycles, fee_cycle)), fee_cell, block_cells))
        }
        (None, Some(cells)) => {
            (affordable(available.saturating_sub(cost(cells, fee_cell)), fee_cycle, block_cycles), cells)
        }
        (None, None) => {
            let cells = affordable(available / 2, fee_cell, block_cells);
            (affordable(available.saturating_sub(cost(cells, fee_cell)), fee_cycle, block_cycles), cells)
        }
    }
}

/// A limit to send a transaction with that used `used` of a meter, `fixed` of it intrinsic: what
/// it used, plus the margin on the part the state decides, within `block`. The intrinsic part is
/// a function of the transaction alone (a plain transfer is nothing else), so it needs none.
fn suggested(used: u64, fixed: u64, block: u64) -> u64 {
    let extra = used.saturating_sub(fixed).saturating_mul(SIMULATION_MARGIN_PERCENT).div_ceil(100);
    used.saturating_add(extra).min(block.max(used))
}

impl NodeHandle {
    /// The transaction an unsigned request describes, its open fields filled in.
    async fn fill_in(&self, unsigned: UnsignedTx) -> Result<VerifiedTransaction, ApiError> {
        let account = self.read_account(&unsigned.from).await?.unwrap_or_default();
        let tip = self.0.chain.tip();
        let fees = self.0.chain.genesis.fees.governed(&tip.next_params);
        let max_fee_per_cycle = unsigned.max_fee_per_cycle.unwrap_or(tip.next_basefees.cycle);
        let max_fee_per_cell = unsigned.max_fee_per_cell.unwrap_or(tip.next_basefees.cell);
        let (cycles_limit, cells_limit) = default_limits(
            account.balance.saturating_sub(unsigned.value),
            (unsigned.cycles_limit, unsigned.cells_limit),
            (max_fee_per_cycle, max_fee_per_cell),
            (fees.block_limit_cycles(), fees.block_limit_cells()),
        );
        let tx = Transaction {
            chain_id: self.0.chain_info.chain_id,
            nonce: unsigned.nonce.unwrap_or(account.nonce),
            to: unsigned.to,
            value: unsigned.value,
            cycles_limit,
            cells_limit,
            max_fee_per_cycle,
            max_fee_per_cell,
            tip_per_cycle: unsigned.tip_per_cycle.unwrap_or(0),
            tip_per_cell: unsigned.tip_per_cell.unwrap_or(0),
            payload: unsigned.payload,
            signature: None,
        };
        let encoded = tx.encode();
        Ok(VerifiedTransaction { hash: drover_types::keccak256(&encoded), sender: unsigned.from, encoded, tx })
    }
}

impl SimulationBackend for NodeHandle {
    async fn simulate(&self, request: Simulated, trace: bool) -> Result<SimulationInfo, ApiError> {
        let mut tx = match request {
            Simulated::Signed(tx) => tx,
            Simulated::Unsigned(unsigned) => self.fill_in(unsigned).await?,
        };
        let nonce = tx.tx.nonce;
        let finalized = self.read_account(&tx.sender).await?.map_or(0, |account| account.nonce);
        if nonce > finalized {
            tx.tx.nonce = finalized;
        }
        let tx = Arc::new(tx);
        let fees = self.0.chain.genesis.fees;
        let (chain_id, interval_ms, proposer) =
            (self.0.chain_info.chain_id, self.0.chain.block_interval_ms, self.0.chain.tips_account);
        let running = Arc::clone(&tx);
        let finished = self
            .over_finalized_state(&self.0.simulations, move |inner, reader, block| {
                let env = BlockEnv {
                    chain_id,
                    height: block.height.saturating_add(1),
                    timestamp_ms: block.timestamp_ms.saturating_add(interval_ms),
                    proposer,
                    // Seeds runner assignment, which no sender can predict for a block to come.
                    parent: H256::ZERO,
                };
                if trace {
                    simulate_transaction_traced(&inner.vm, &env, &fees, reader, &running)
                        .map(|(simulation, trace)| (simulation, Some(trace)))
                } else {
                    simulate_transaction(&inner.vm, &env, &fees, reader, &running).map(|s| (s, None))
                }
            })
            .await?;
        match finished {
            Finished::Answered { answer: (simulation, trace), height, root } => {
                Ok(info(simulation, trace, &tx, nonce, height, root))
            }
            Finished::Failed(SimulationError::Refused(rejection)) => {
                Err(drover_rpc::error::admission_error(AdmissionError::Invalid(rejection)))
            }
            Finished::Failed(SimulationError::Corrupt(e)) => Err(NodeError::unfinished(e).into()),
            Finished::Failed(SimulationError::Unavailable(fault)) => Err(NodeError::unfinished(fault).into()),
            Finished::OutOfTime { restarts } => Err(budget_spent(restarts, ErrorCode::Timeout, "simulation", "retry")),
        }
    }
}

/// The API answer for a simulation of `tx` (whose request said `nonce`), with its trace if asked.
fn info(
    simulation: Simulation,
    trace: Option<ExecutionTrace>,
    tx: &VerifiedTransaction,
    nonce: u64,
    block_height: u64,
    state_root: H256,
) -> SimulationInfo {
    let fixed = intrinsic_cost(&tx.tx);
    SimulationInfo {
        status: simulation.status.into(),
        error: simulation.error.as_ref().map(Into::into),
        revert_reason: simulation.revert_reason,
        cycles_used: simulation.cycles_used,
        cells_used: simulation.cells_used,
        fee: simulation.fee.total(),
        fee_burned: simulation.fee.burned,
        fee_tip: simulation.fee.tip,
        events: simulation.events.iter().map(EventInfo::from).collect(),
        cycles_limit: tx.tx.cycles_limit,
        cells_limit: tx.tx.cells_limit,
        suggested_cycles_limit: suggested(simulation.cycles_used, fixed.cycles, simulation.limits.cycles),
        suggested_cells_limit: suggested(simulation.cells_used, fixed.cells, simulation.limits.cells),
        margin_percent: SIMULATION_MARGIN_PERCENT,
        nonce,
        block_height,
        state_root,
        trace,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: (u64, u64) = (20_000_000, 1_000_000);

    #[test]
    fn open_limits_are_the_blocks_capped_by_the_balance() {
        // Rich: the block's limits.
        assert_eq!(default_limits(u128::MAX, (None, None), (7, 3), BLOCK), BLOCK);
        // Half the balance for each meter: 3,000 pays 150 cells at 10, the rest 1,500 cycles at 1.
        assert_eq!(default_limits(3_000, (None, None), (1, 10), BLOCK), (1_500, 150));
        // A limit given is kept, the other gets what it leaves.
        assert_eq!(default_limits(3_000, (Some(1_000), None), (1, 10), BLOCK), (1_000, 200));
        assert_eq!(default_limits(3_000, (None, Some(100)), (1, 10), BLOCK), (2_000, 100));
        assert_eq!(default_limits(0, (Some(5), Some(6)), (1, 1), BLOCK), (5, 6));
        // Free meters are bounded by the block alone; nothing to spend gives nothing.
        assert_eq!(default_limits(10, (None, None), (0, 0), BLOCK), BLOCK);
        assert_eq!(default_limits(0, (None, None), (1, 1), BLOCK), (0, 0));
    }

    #[test]
    fn suggestions_add_the_margin_within_the_block() {
        // A plain transfer is its intrinsic cost: no margin.
        assert_eq!(suggested(21_000, 21_000, 20_000_000), 21_000);
        // The margin is on what the state decides, beyond the intrinsic part.
        assert_eq!(suggested(100_000, 0, 20_000_000), 120_000);
        assert_eq!(suggested(41_000, 21_000, 20_000_000), 45_000);
        assert_eq!(suggested(1, 0, 20_000_000), 2);
        assert_eq!(suggested(0, 0, 20_000_000), 0);
        // Within the block, never below what it used.
        assert_eq!(suggested(19_000_000, 21_000, 20_000_000), 20_000_000);
        assert_eq!(suggested(25_000_000, 21_000, 20_000_000), 25_000_000);
    }
}
