//! Drover's block executor: transfers, actors (deploy, call, upgrade, mailbox, timers,
//! read-only calls) and the dual fee market (cycles and cells).
//!
//! The executor is a pure function of the parent state and a block: it reads plain bytes through
//! [`StateRead`] and returns the key→value changes, so it knows nothing of the database, the
//! network or the clock, and every node derives the same outcome from the same inputs. No float,
//! no hash-map iteration order and no wall time reaches an output.
//!
//! # How the node drives it
//!
//! ```text
//! genesis:   genesis_writes(allocations, fees, params)    → apply before block 1
//! propose:   (selection, outcome) = build_block(vm, env, params, &reader, candidates)
//! verify:    outcome = execute_block(vm, env, params, &reader, txs)?   (Invalid: refuse the block)
//!            apply outcome.writes to the block's speculative batch
//! ```
//!
//! The `reader` answers reads of the parent state on demand ([`StateRead`]): which keys an
//! actor reads is only known while it runs, and each is read when it is first asked for, once
//! per block. [`prefetch_keys`] names what is predictable, so that the node can read those keys
//! together before execution starts. A read the reader cannot answer ([`ReadFault`]) ends the
//! block without an outcome; so does a corrupt stored record ([`StateError`], fatal for the
//! node).
//!
//! # What a block does
//!
//! First the deferred work (see the `actors` module): due timers, then mailbox deliveries, then
//! the jobs' deadlines and assignment retries (`jobs`), bounded per block, reported as
//! [`SystemRun`]s. Then the block's validity, before any transaction runs: every transaction
//! must pass the one validity rule (`drover_types::validity`: chain id, fee fields, limits
//! between the intrinsic cost and the block limits, payload form for its destination, max fees
//! at least the basefees, nonce equal to the sender's next one, balance covering value plus
//! maximum fees) against the state left by the ones before it, and together their limits must
//! fit what the deferred work left of the block limits (`block_validity`). A block that breaks
//! it is [`BlockError::Invalid`]: a verifier refuses it having run none of its transactions,
//! and the proposer's [`build_block`] never makes one (it leaves out what the rule refuses).
//! Then each transaction in order.
//!
//! One that passes has its nonce incremented and pays for what it used (see below):
//! - a plain transfer or a value deposit (empty payload) moves the value and emits one event
//!   (address = the recipient, topic [`TRANSFER_EVENT_TOPIC`], data = canonical CBOR
//!   `[from, to, value]`); it costs [`TRANSFER_CYCLES`](drover_types::params::TRANSFER_CYCLES) cycles and no cells;
//! - a deploy, an actor call or an upgrade runs as described in `docs/actors.md` ("Execution")
//!   and the `actors` module: `Success`, or `Reverted` (E1201, `revert_reason`) / `Failed`
//!   (the E-code) with every effect rolled back and the fee still charged. Receipts carry the events of a
//!   successful execution.
//!
//! Accounts are created by receiving a non-zero amount; an account with nonce 0 and balance 0 is
//! never stored, so a zero-value transfer to a fresh address creates nothing. All arithmetic is
//! checked.
//!
//! # Fees
//!
//! Two independent EIP-1559 markets, one per [`Meter`]. A transaction that used `c` cycles and
//! `k` cells pays
//!
//! ```text
//! c × (basefee_cycle + min(tip_per_cycle, max_fee_per_cycle − basefee_cycle))
//! + k × (basefee_cell + min(tip_per_cell, max_fee_per_cell − basefee_cell))
//! ```
//!
//! Unused limits are not charged. The basefee part is burned (it leaves the supply: the sum of
//! balances and mailbox escrows falls by exactly [`BlockOutcome::burned`]); the tip part is
//! credited to the block's proposer. Deferred work pays basefees only, burned. Each meter has a
//! target `T` ([`FeeParams`]; genesis 10,000,000 cycles and 500,000 cells) and a block limit of
//! `2T`; deferred work uses at most `T` of each. The basefees in force for a block are the
//! stored [`Basefees`] record (the initial ones at genesis); after the block each moves by
//! `clamp((U − T)/(8T), −1/8, +1/8)` of itself, never below its minimum, with the integer
//! rounding described in [`next_basefee`], and the result is written for the next block.
//!
//! # Performance
//!
//! Each touched account is decoded once into an ordered in-memory overlay and encoded once at the
//! end of the block; each transfer does constant work besides. In an optimised build a block
//! of 1,000 transfers among 256 accounts executes in about 1.5 ms, and `build_block` over the
//! same candidates takes about as long.

pub(crate) mod actors;
#[cfg(test)]
mod audit;
mod basefee;
mod block;
mod block_env;
mod block_validity;
mod charge;
mod credits;
mod deferred;
mod genesis;
pub mod governance;
pub mod jobs;
pub mod libraries;
mod listing;
mod native;
mod overlay;
mod params;
pub mod runners;
pub mod secrets;
mod simulate;
pub mod storage;
mod system_actors;
#[cfg(test)]
mod testing;
pub mod tokens;
mod transfer;

pub use actors::{
    DEPLOY_EVENT_TOPIC,
    read::{ReadFailure, ReadRequest, read_actor, read_actor_traced},
};
pub use basefee::{BASEFEE_MAX_CHANGE_DENOMINATOR, next_basefee, next_basefees};
pub use block::{
    BlockError, BlockInvalid, BlockLimitError, BlockOutcome, Selection, build_block, execute_block, prefetch_keys,
    validate_block_limits,
};
pub use block_env::BlockEnv;
pub use credits::{Asset, Credit};
pub use deferred::{SystemRun, SystemRunKind};
pub use drover_state::Basefees;
use drover_types::validity::Intrinsic;
pub use drover_types::validity::{RejectReason, Rejection};
pub use genesis::{GenesisError, genesis_params, genesis_writes};
pub use overlay::{Entry, NextKeyQuery, ReadFault, StateError, StateRead};
pub use params::{
    BLOCK_LIMIT_TARGET_MULTIPLE, FeeParams, FeeParamsError, GENESIS_INITIAL_BASEFEE_CELL,
    GENESIS_INITIAL_BASEFEE_CYCLE, GENESIS_MIN_BASEFEE_CELL, GENESIS_MIN_BASEFEE_CYCLE, GENESIS_TARGET_CELLS,
    GENESIS_TARGET_CYCLES, Meter,
};
pub use simulate::{Simulation, SimulationError, simulate_transaction, simulate_transaction_traced};

/// Key-value changes to the state: the final value of each key (`None` deletes it), sorted by
/// key, each key once.
pub type Writes = Vec<(Vec<u8>, Option<Vec<u8>>)>;
pub use charge::price;
/// The actor engine the executor runs actors on (share one per node: it caches compiled code).
pub use drover_vm::Vm;
pub use transfer::{TRANSFER_EVENT_TOPIC, transfer_event_data};
