//! Protocol numbers that more than one crate needs.
//!
//! Each is a consensus rule or a fact of the wire format: the executor, the pool, the SDK and the
//! API must agree on it, so it is defined here once and every crate uses this definition.
//! Changing one is a protocol upgrade.

/// Decimal places of one DRV in base units.
pub const DRV_DECIMALS: usize = 9;

/// Base units in one DRV.
pub const BASE_UNITS_PER_DRV: u128 = 10u128.pow(DRV_DECIMALS as u32);

/// Cycles charged for a plain value transfer, and the least any transaction costs: the executor
/// charges it, the pool refuses a `cycles_limit` below it and the SDK sets it on transfers.
pub const TRANSFER_CYCLES: u64 = 21_000;

/// Most transactions one block may hold: a validity rule of blocks (the proposer fills no more,
/// a verifier refuses more).
pub const MAX_TRANSACTIONS_PER_BLOCK: usize = 4_096;

/// Largest total of encoded transaction bytes in one block: a validity rule of blocks, and the
/// bound block decoding enforces.
pub const MAX_BLOCK_BYTES: usize = 8 * 1024 * 1024;

/// Cycles a deploy or an upgrade pays per payload byte on top of [`TRANSFER_CYCLES`]: validating
/// and compiling the code is work proportional to its size.
pub const DEPLOY_CYCLES_PER_PAYLOAD_BYTE: u64 = 16;

/// Cells a deploy or an upgrade pays on top of its payload bytes: the actor record and its keys
/// (the payload bounds the code, manifest and history bytes written).
pub const ACTOR_RECORD_CELLS: u64 = 256;

/// Longest actor storage key, in bytes: the VM refuses longer keys, so no longer key exists to be
/// read, proven or paged through.
pub const MAX_STORAGE_KEY_BYTES: usize = 256;

/// Largest WebAssembly module the VM ever accepts, in bytes: the bound on validation and
/// compilation work. The chain parameter `max_code_bytes` (256 KiB at genesis) is the live limit
/// and may be voted up to this.
pub const MAX_CODE_BYTES_CAP: u64 = 1024 * 1024;

/// Largest storage value the VM ever accepts, in bytes: what the API's pages and proofs are sized
/// for. The chain parameter `max_storage_value_bytes` is the live limit and may be voted down
/// from this.
pub const MAX_STORAGE_VALUE_BYTES_CAP: u64 = 64 * 1024;

/// Largest cycles budget an actor may ever attach to a mailbox message or a timer. The chain
/// parameter `max_attached_cycles` (2,500,000 at genesis) is the live limit and may be voted up
/// to this, as long as it stays within a quarter of `target_cycles` (`chain_params`).
pub const MAX_ATTACHED_CYCLES_CAP: u64 = 10_000_000;

/// Cells budget of one timer fire, one mailbox delivery and one job due entry: the bytes it may
/// write, held from its payer and reserved from the block's deferred budget.
pub const SYSTEM_RUN_CELLS_LIMIT: u64 = 16_384;

/// The block's deferred work (due timers, mailbox deliveries, the jobs' due entries) may use
/// each meter's target, cut in this many equal parts: each queue has its own share of them
/// ([`TIMER_SHARE_PARTS`], [`DELIVERY_SHARE_PARTS`], [`DUE_ENTRY_SHARE_PARTS`]), which the
/// others cannot take.
pub const DEFERRED_SHARE_PARTS: u64 = 4;
/// Parts of the deferred budget that due timers may use.
pub const TIMER_SHARE_PARTS: u64 = 1;
/// Parts of the deferred budget that mailbox deliveries (messages and job callbacks) may use:
/// the busiest queue, fed by every actor and every job.
pub const DELIVERY_SHARE_PARTS: u64 = 2;
/// Parts of the deferred budget that the jobs' deadlines and assignment retries may use.
pub const DUE_ENTRY_SHARE_PARTS: u64 = 1;

// The shares together are the deferred budget, each at least one part: the smallest share is a
// quarter of a target, the rule the chain parameters' bounds keep (`chain_params`).
const _: () = assert!(TIMER_SHARE_PARTS + DELIVERY_SHARE_PARTS + DUE_ENTRY_SHARE_PARTS == DEFERRED_SHARE_PARTS);
const _: () = assert!(TIMER_SHARE_PARTS >= 1 && DELIVERY_SHARE_PARTS >= 1 && DUE_ENTRY_SHARE_PARTS >= 1);

/// Cycles of adding an item to a per-owner listing or removing one (`drover_state::listing`: a
/// holder's tokens, a delegator's delegations, an owner's volumes, secrets, libraries or timers,
/// the relays listed publicly or taking writes): at most three record reads and five writes, at
/// the ~800 cycles per record access a token transfer is priced at (4,000 for five). A call that
/// can make such a change pays this for each one it can make.
pub const LISTING_CYCLES: u64 = 6_400;

/// Cells of the same: a slot and a place entry written, with the count (about 150 bytes of user
/// keys and values for an item of up to 32 bytes; a removal rewrites as much for the item it
/// moves).
pub const LISTING_CELLS: u64 = 160;

/// Limits `(cycles, cells)` that cover exactly a system-actor call whose Message encodes to
/// `payload_bytes` bytes and whose operation costs `cost`: the intrinsic cost of a message
/// ([`TRANSFER_CYCLES`] plus one cycle and one cell per payload byte) plus the operation's.
pub fn system_call_limits(payload_bytes: usize, cost: (u64, u64)) -> (u64, u64) {
    let bytes = payload_bytes as u64;
    (TRANSFER_CYCLES.saturating_add(bytes).saturating_add(cost.0), bytes.saturating_add(cost.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_drv_is_a_billion_base_units() {
        assert_eq!(BASE_UNITS_PER_DRV, 1_000_000_000);
    }
}
