//! Prices of host calls in cycles and of state writes in cells.
//!
//! Wasm instructions cost one cycle each (wasmi's default fuel schedule, fuel = cycles, bulk
//! memory operations per 64 bytes). Host calls cost a fixed price plus a per-byte price for data
//! copied across the boundary; every byte a call writes to state costs one cell. The prices are
//! consensus rules like the limits: they decide where an execution runs out of cycles.
//!
//! The cells meter lives here rather than in wasmi, which only knows fuel. Its invariant:
//! `used <= limit` at every point; a charge that would break it fails without changing `used`.

use crate::error::Abort;

/// Charged once per invocation before the handler runs (store, linking, instance set-up).
pub const CYCLES_PER_INVOKE: u64 = 2_000;
/// Charged per page of declared initial memory at each invocation: every call gets a fresh,
/// zeroed memory. Same rate as wasmi charges for `memory.grow` (1 cycle per 64 bytes).
pub const CYCLES_PER_INITIAL_MEMORY_PAGE: u64 = 1_024;
/// Charged per this many bytes of code at each invocation: instantiation copies data and
/// element segments and evaluates initialisers, work that grows with the module.
pub const CODE_BYTES_PER_CYCLE: u64 = 64;
/// Charged per byte copied between linear memory and the host (payloads, keys, values, results).
pub const CYCLES_PER_BYTE_COPIED: u64 = 1;
/// Context reads: caller, self, origin, block height, timestamp, value, lengths, cycles left.
pub const CYCLES_CONTEXT_READ: u64 = 20;
/// `set_result`, `revert`, `input_read`, `return_data_read` (plus bytes copied).
pub const CYCLES_BUFFER_OP: u64 = 50;
/// `storage_get`.
pub const CYCLES_STORAGE_READ: u64 = 2_000;
/// `storage_set`.
pub const CYCLES_STORAGE_WRITE: u64 = 5_000;
/// `storage_remove`.
pub const CYCLES_STORAGE_REMOVE: u64 = 5_000;
/// `storage_next`.
pub const CYCLES_STORAGE_NEXT: u64 = 2_500;
/// `emit`.
pub const CYCLES_EMIT: u64 = 1_000;
/// `balance_of`.
pub const CYCLES_BALANCE: u64 = 1_000;
/// `transfer`.
pub const CYCLES_TRANSFER: u64 = 9_000;
/// Charged on top of [`CYCLES_TRANSFER`] by a `transfer` that creates its recipient's account (a
/// non-zero amount to an address without one): together they cost what a plain transfer
/// transaction does, so an actor creates accounts no faster per block than transactions can.
pub const CYCLES_NEW_ACCOUNT: u64 = drover_types::params::TRANSFER_CYCLES - CYCLES_TRANSFER;
/// `send` (the attached budget is paid separately, by the delivery).
pub const CYCLES_SEND: u64 = 10_000;
/// `call`, on top of the cycles the callee uses.
pub const CYCLES_CALL: u64 = 10_000;
/// `timer_schedule`: the timer's records, and its owner's timer listing entry, added now and
/// removed when the timer fires or is cancelled (both changes are paid here).
pub const CYCLES_TIMER_SCHEDULE: u64 = 10_000 + 2 * drover_types::params::LISTING_CYCLES;
/// `timer_cancel`.
pub const CYCLES_TIMER_CANCEL: u64 = 5_000;

/// Cells charged for a mailbox message on top of its handler name and payload bytes: sender,
/// recipient, value and budget as stored.
pub const CELLS_MESSAGE_OVERHEAD: u64 = 64;
/// Cells charged by a `transfer` that creates its recipient's account: the record it adds to the
/// state for good, its 36-byte key (prefix, spread and address) and its longest value (28 bytes:
/// a nonce and a balance of any size).
pub const CELLS_NEW_ACCOUNT: u64 = 64;
/// Cells charged for a timer on top of its handler name and payload bytes: owner, height, id
/// and budget as stored, and its owner's listing entry (added, then removed when it fires or is
/// cancelled).
pub const CELLS_TIMER_OVERHEAD: u64 = 64 + 2 * drover_types::params::LISTING_CELLS;

/// Charged per code byte the first time a transaction runs a module: validating and compiling it
/// when the VM's cache does not hold it (measured at about 26 ns per byte, some 9 cycles of
/// wasm execution; `cargo bench -p drover-vm --features testing`). Charged whether or not the
/// cache holds it, since caches differ between validators and charges may not.
pub const CYCLES_PER_CODE_BYTE_LOADED: u64 = 10;

/// Cycles charged before a module's handler runs: the fixed price plus its instantiation work.
pub fn invoke_cycles(code_bytes: usize, initial_memory_pages: u64) -> u64 {
    CYCLES_PER_INVOKE
        .saturating_add((code_bytes as u64) / CODE_BYTES_PER_CYCLE)
        .saturating_add(initial_memory_pages.saturating_mul(CYCLES_PER_INITIAL_MEMORY_PAGE))
}

/// Cycles for copying `bytes` bytes.
pub fn copy_cycles(bytes: usize) -> u64 {
    (bytes as u64).saturating_mul(CYCLES_PER_BYTE_COPIED)
}

/// The cells meter of one invocation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cells {
    limit: u64,
    used: u64,
}

impl Cells {
    pub(crate) fn new(limit: u64) -> Self {
        Cells { limit, used: 0 }
    }

    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    pub(crate) fn remaining(&self) -> u64 {
        self.limit - self.used
    }

    /// Charges `cells`, or fails with E1006 leaving the meter unchanged.
    pub(crate) fn charge(&mut self, cells: u64) -> Result<(), Abort> {
        match self.used.checked_add(cells) {
            Some(total) if total <= self.limit => {
                self.used = total;
                Ok(())
            }
            _ => Err(Abort::out_of_cells(cells, self.remaining())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_meter_never_exceeds_its_limit() {
        let mut cells = Cells::new(10);
        assert!(cells.charge(4).is_ok());
        assert!(cells.charge(7).is_err());
        assert_eq!(cells.used(), 4);
        assert!(cells.charge(6).is_ok());
        assert_eq!(cells.remaining(), 0);
        assert!(cells.charge(u64::MAX).is_err());
        assert!(cells.charge(0).is_ok());
    }
}
