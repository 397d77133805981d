//! What `POST /simulate` asks of the node: run one transaction at the tip without committing
//! anything. The route decodes and checks the request (a signed transaction's form and
//! signature); the node fills in what an unsigned one leaves open and runs it off the commit
//! path, bounded like a read-only call (`routes::simulate`).

use drover_types::{Address, VerifiedTransaction, api::SimulationInfo, error::ApiError};
use std::future::Future;

/// A transaction to simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Simulated {
    /// Signed: run exactly as sent.
    Signed(VerifiedTransaction),
    /// Unsigned, from `from`: the fields left `None` are filled in by the node.
    Unsigned(UnsignedTx),
}

/// The fields of an unsigned transaction to simulate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnsignedTx {
    /// The sender.
    pub from: Address,
    /// Destination; `None` for a deploy.
    pub to: Option<Address>,
    /// Base units.
    pub value: u128,
    /// The payload.
    pub payload: Vec<u8>,
    /// Default: the sender's next nonce.
    pub nonce: Option<u64>,
    /// Default: the block limit, capped by what the sender's balance pays.
    pub cycles_limit: Option<u64>,
    /// Default: the block limit, capped by what the sender's balance pays.
    pub cells_limit: Option<u64>,
    /// Default: the basefee per cycle.
    pub max_fee_per_cycle: Option<u128>,
    /// Default: the basefee per cell.
    pub max_fee_per_cell: Option<u128>,
    /// Default 0.
    pub tip_per_cycle: Option<u128>,
    /// Default 0.
    pub tip_per_cell: Option<u128>,
}

/// What the HTTP API hands to the node for this family (see [`super`]): transactions to run at
/// the tip without committing them.
pub trait SimulationBackend: Send + Sync {
    /// What `tx` would do as the next block's transaction, over the latest finalized state, with
    /// the trace of the handlers it runs when `trace` is set; a transaction the validity rule
    /// refuses is an admission error (2xxx), as `/submit` answers.
    fn simulate(&self, tx: Simulated, trace: bool) -> impl Future<Output = Result<SimulationInfo, ApiError>> + Send;
}

#[cfg(test)]
pub(crate) mod mock;
