//! The state-sync batch decoder: the bytes a peer answers to `GET /state/operations`, decoded
//! as `crates/node/src/fast_sync.rs` does (a QMDB `sync::Response` of the state database's
//! operations, bounded by the request's `max_ops` and the state's key and value limits). The
//! decoder must never panic, must respect the bounds, and a batch that decodes re-encodes to
//! the same bytes (the codec's varints and lengths are canonical).
//!
//! The first input byte picks `max_ops` among the values the client asks with.
#![no_main]

use bytes::Bytes;
use commonware_codec::{Decode as _, Encode as _};
use commonware_cryptography::sha256;
use commonware_storage::{
    mmr,
    qmdb::{any::ordered::variable::Operation, sync::Response},
};
use drover_fuzz::STATE_SYNC_MAX_OPS;
use libfuzzer_sys::fuzz_target;

/// `drover_node::fast_sync::StateResponse`: the state database is an ordered, variable-value
/// QMDB of `Vec<u8>` keys and values over an MMR with SHA-256.
type Batch = Response<mmr::Family, Operation<mmr::Family, Vec<u8>, Vec<u8>>, sha256::Digest>;

/// `drover_block::proof::STATE_MAX_KEY_BYTES` and `STATE_MAX_VALUE_BYTES`, the bounds
/// `drover_node::engine` decodes operations with (the fuzz crate does not build the node).
const STATE_MAX_KEY_BYTES: usize = 1024;
const STATE_MAX_VALUE_BYTES: usize = 4 * 1024 * 1024;

fuzz_target!(|data: &[u8]| {
    drover_fuzz::alloc::bound_to_input(data.len());
    let Some((&selector, body)) = data.split_first() else { return };
    let max_ops = STATE_SYNC_MAX_OPS[usize::from(selector) % STATE_SYNC_MAX_OPS.len()];
    let cfg = (
        max_ops,
        (
            ((0..=STATE_MAX_KEY_BYTES).into(), ()),
            ((0..=STATE_MAX_VALUE_BYTES).into(), ()),
        ),
    );
    let Ok(batch) = Batch::decode_cfg(Bytes::copy_from_slice(body), &cfg) else { return };
    if let Response::Operations { operations, .. } = &batch {
        assert!(operations.len() <= max_ops);
    }
    assert_eq!(batch.encode().as_ref(), body);
});
