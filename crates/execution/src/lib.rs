//! Drover's block executor and its dual fee market (cycles and cells).
//!
//! The executor is a pure function of a state snapshot and a block: it reads plain bytes through
//! [`StateRead`] and returns the key→value changes, so it knows nothing of the database, the
//! network or the clock, and every node derives the same outcome from the same inputs. No float,
//! no hash-map iteration order and no wall time reaches an output.
//!
//! # How the node drives it
//!
//! ```text
//! genesis:   genesis_writes(allocations, params)          → apply before block 1
//! propose:   keys = prefetch_keys(env, candidates); snapshot = get_many(keys)
//!            select_valid(env, params, &snapshot, candidates) → the block's transactions
//! execute:   keys = prefetch_keys(env, txs);  snapshot = get_many(keys)
//!            outcome = execute_block(env, params, &snapshot, txs)
//!            validate_block_limits(params, outcome.cycles_used, outcome.cells_used)?
//!            apply outcome.writes to the block's speculative batch
//! ```
//!
//! [`execute_block`] reads only keys [`prefetch_keys`] returned; a snapshot holding exactly those
//! (absent keys answering `None`) is enough. It fails only on a corrupt stored record
//! ([`StateError`]), which is fatal for the node: a transaction can never make a block invalid.
//! [`validate_block_limits`] is the only block-level rule.
//!
//! # What a transaction does
//!
//! Only plain value transfers execute for now (`to` set, empty payload): they cost
//! [`TRANSFER_CYCLES`] cycles and [`TRANSFER_CELLS`] cells and emit one event (address = the
//! recipient, topic [`TRANSFER_EVENT_TOPIC`], data = canonical CBOR `[from, to, value]`). Deploys
//! and non-empty payloads fail with E1009 "actors are not enabled" until the actor engine lands.
//!
//! Each transaction passes the [`precheck`]s in this order against the state left by the ones
//! before it: chain id (E1007), nonce equal to the sender's next nonce (E1002), each max fee at
//! least its basefee (E1008), each tip at most its max fee (E1008), balance covering the value
//! (E1003) and then value + `cycles_limit × max_fee_per_cycle + cells_limit × max_fee_per_cell`
//! (E1004), cycles and cells limits covering the intrinsic cost (E1005/E1006), payload. A
//! transaction that fails gets a `Failed` receipt carrying the E-code, uses nothing, pays nothing
//! and changes nothing — its nonce is not consumed. One that passes has its nonce incremented,
//! its value moved, and pays for what it used (see below); its receipt is `Success`.
//!
//! Accounts are created by receiving a non-zero amount; an account with nonce 0 and balance 0 is
//! never stored, so a zero-value transfer to a fresh address creates nothing. A transfer to self,
//! a sender that is the proposer, and any mix of these work, since the (at most three) touched
//! accounts are staged together before any is written. All arithmetic is checked.
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
//! balances falls by exactly [`BlockOutcome::burned`]); the tip part is credited to the block's
//! proposer. Each meter has a target `T` ([`FeeParams`]; genesis 10,000,000 cycles and 500,000
//! cells) and a block limit of `2T`. The basefees in force for a block are the stored
//! [`Basefees`] record (the initial ones at genesis); after the block each moves by
//! `clamp((U − T)/(8T), −1/8, +1/8)` of itself, never below its minimum, with the integer
//! rounding described in [`next_basefee`], and the result is written for the next block.
//!
//! # Performance
//!
//! Each touched account is decoded once into an ordered in-memory overlay and encoded once at the
//! end of the block; each transaction does constant work besides. In an optimised build a block
//! of 1,000 transfers among 256 accounts executes in about 1.5 ms, and `select_valid` over the
//! same candidates takes about as long.

mod basefee;
mod block;
mod genesis;
mod overlay;
mod params;
mod rejection;
#[cfg(test)]
mod testing;
mod transfer;

pub use basefee::{BASEFEE_MAX_CHANGE_DENOMINATOR, next_basefee, next_basefees};
pub use block::{
    BlockEnv, BlockLimitError, BlockOutcome, Selection, execute_block, prefetch_keys, select_valid,
    validate_block_limits,
};
pub use drover_state::Basefees;
pub use genesis::{GenesisError, genesis_writes};
pub use overlay::{StateError, StateRead};
pub use params::{
    BLOCK_LIMIT_TARGET_MULTIPLE, FeeParams, FeeParamsError, GENESIS_INITIAL_BASEFEE_CELL,
    GENESIS_INITIAL_BASEFEE_CYCLE, GENESIS_MIN_BASEFEE_CELL, GENESIS_MIN_BASEFEE_CYCLE,
    GENESIS_TARGET_CELLS, GENESIS_TARGET_CYCLES, Meter,
};
pub use rejection::{RejectReason, Rejection};

/// Key-value changes to the state: the final value of each key (`None` deletes it), sorted by
/// key, each key once.
pub type Writes = Vec<(Vec<u8>, Option<Vec<u8>>)>;
pub use transfer::{
    Intrinsic, TRANSFER_CELLS, TRANSFER_CYCLES, TRANSFER_EVENT_TOPIC, check_payload, intrinsic_cost,
    precheck, price, transfer_event_data,
};
