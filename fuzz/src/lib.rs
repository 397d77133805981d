//! Shared pieces of the fuzz targets: an independent canonical-CBOR oracle and generators of
//! structured values for the round-trip properties.
//!
//! The oracle ([`reference::verdict`]) reads raw bytes by hand, without `minicbor`, so a bug
//! in the decoder under test and in the library it builds on cannot hide itself by agreeing
//! with its own oracle.

pub mod generate;
pub mod reference;

/// `max_ops` values the state-sync client decodes batches with: the request size and its
/// halvings (the client halves it after an oversized body), and 1 for a boundary request.
pub const STATE_SYNC_MAX_OPS: [usize; 17] = [
    50_000, 25_000, 12_500, 6_250, 3_125, 1_562, 781, 390, 195, 97, 48, 24, 12, 6, 3, 1, 2,
];

pub mod alloc;
