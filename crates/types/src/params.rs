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
