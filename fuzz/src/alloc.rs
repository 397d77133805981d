//! An allocator that refuses any single allocation larger than a bound set per input, so a
//! decoder that reserves memory on a hostile length prefix (a CBOR length of 2^60, a codec
//! count of a billion) fails the run even when the reservation would succeed untouched.
//!
//! Without AddressSanitizer (the targets run with `-s none` on a stable toolchain) libFuzzer's
//! `-malloc_limit_mb` cannot see allocations, and `-rss_limit_mb` only sees memory that is
//! written, so a large but lazily committed `Vec::with_capacity` would pass unnoticed. A refused
//! allocation aborts through `handle_alloc_error` with the size in the message.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Allowance that does not depend on the input: fixed-size tables, engine set-up, buffers.
pub const FIXED_BYTES: usize = 16 << 20;
/// Allowance per input byte: decoded structures may be several times larger than their
/// encoding (a one-byte operation tag becomes an 80-byte enum).
pub const PER_INPUT_BYTE: usize = 256;

static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Bounds every allocation that follows to `FIXED_BYTES + PER_INPUT_BYTE × input_len`.
pub fn bound_to_input(input_len: usize) {
    LIMIT.store(
        FIXED_BYTES.saturating_add(PER_INPUT_BYTE.saturating_mul(input_len)),
        Ordering::Relaxed,
    );
}

pub struct Bounded;

// SAFETY: every call is forwarded to `System` unchanged, or refused with a null pointer, which
// the `GlobalAlloc` contract allows.
unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Bounded = Bounded;
