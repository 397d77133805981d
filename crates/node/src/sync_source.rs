//! The state-sync resolver handed to `Stateful`.
//!
//! Glue's own p2p resolver only accepts databases with fixed-size values, and our state uses
//! variable-size values, so state is fetched over HTTP instead (`--sync-from`, see
//! [`crate::fast_sync`]). The resolver has two jobs:
//!
//! * **serving**: it keeps the database `Stateful` attaches once recovered or synced, which the
//!   HTTP API reads for `/state/operations` through [`serve_within`], which keeps each answer
//!   within `MAX_OPERATIONS_RESPONSE_BYTES` by serving fewer operations (at least one). It
//!   measures the operations before serving them, a few at a time, so that one request reads a
//!   few answers' worth of operations whatever the state holds, and holds the database's read
//!   lock for one bounded read at a time;
//! * **fetching**: glue's sync engine calls [`Source::serve`]; with peers configured, each
//!   request is fetched from them. The response goes back with [`Feedback`]: when glue finds that
//!   a batch fails verification against the finalized ops root, the same request is fetched from
//!   the next peer; when none is left, the feedback ends and sync fails with an error. Without
//!   peers the resolver refuses to fetch.

use crate::databases::{Bounds, StateDatabases};
use crate::{
    databases::StateDb,
    fast_sync::{HttpPeers, StateOp, StateResponse},
};
use commonware_codec::{Encode, EncodeSize, Read};
use commonware_cryptography::sha256;
use commonware_glue::stateful::db::{AttachableResolverSet, Shared};
use commonware_storage::{
    mmr,
    qmdb::sync::{Feedback, Request, Response, Source, source},
};
use commonware_utils::channel::{mpsc, oneshot};
use drover_block::proof::{STATE_MAX_KEY_BYTES, STATE_MAX_VALUE_BYTES};
use drover_rpc::limits::MAX_OPERATIONS_RESPONSE_BYTES;
use std::{
    num::NonZeroU64,
    sync::{Arc, OnceLock},
};
use tracing::{error, warn};

/// Bytes of an operations answer besides its operations and proof: the variant tag and the
/// operation count's varint, generously.
const RESPONSE_FRAME_BYTES: usize = 16;
/// Most bytes the proof of an answer takes: its digest count bound (per element, as clients
/// decode it) in SHA-256 digests, plus its two varints.
const PROOF_BYTES_MAX: usize = commonware_storage::mmr::MAX_PROOF_DIGESTS_PER_ELEMENT * 32 + 32;
/// Encoded bytes of the largest state operation: an update's key, value and next key, with
/// their tag and length prefixes, generously.
const OPERATION_BYTES_MAX: usize = STATE_MAX_VALUE_BYTES + 2 * STATE_MAX_KEY_BYTES + 64;

// One operation (its key, value and next key) with its proof always fits in an answer, so an
// answer can always carry at least one operation within the bound...
const _: () = assert!(OPERATION_BYTES_MAX + PROOF_BYTES_MAX + RESPONSE_FRAME_BYTES <= MAX_OPERATIONS_RESPONSE_BYTES);
// ...and no answer is larger than a syncing client reads (it would halve its request and ask
// again, which a bounded answer never makes it do).
const _: () = assert!(MAX_OPERATIONS_RESPONSE_BYTES <= drover_client::RESPONSE_BYTES_MAX);

/// Most bytes of operations one measuring read ([`MeasuredSource::operation_sizes`]) may load,
/// whatever the operations hold: sixteen answers' worth. Larger, fewer reads measure an answer of
/// small operations; smaller, less memory is at stake when the operations are the largest.
const MEASURE_READ_BYTES_MAX: usize = 16 * MAX_OPERATIONS_RESPONSE_BYTES;
/// Operations one measuring read asks for: as many as fit in [`MEASURE_READ_BYTES_MAX`] at the
/// largest operation size (31). Small operations are measured in as many reads of this many, each
/// of them a proof's work besides its operations: an answer of 50,000 small ones takes some 1,600
/// reads, more work than serving it once, which a syncing peer does not wait for (its requests
/// wait on the per-IP limit, 5 a second by default).
const MEASURE_READ_OPS: u64 = (MEASURE_READ_BYTES_MAX / OPERATION_BYTES_MAX) as u64;
/// Most bytes a range proof takes, generously: the sibling paths of the range's two ends and the
/// peaks, within two single elements' bounds (should a proof still be larger, the answer is
/// trimmed after serving, see [`serve_within`]).
const RANGE_PROOF_BYTES_MAX: usize = 2 * PROOF_BYTES_MAX;

const _: () = assert!(MEASURE_READ_OPS >= 1);

/// A [`Source`] whose operations can be read without building an answer, so that an answer's
/// size is known before it is served.
pub(crate) trait MeasuredSource: Source {
    /// The encoded sizes of the operations of the log at `size` from `start`, at most `max_ops`
    /// of them (fewer where the log ends), read under one hold of the database's read lock.
    fn operation_sizes(
        &self,
        size: mmr::Location,
        start: mmr::Location,
        max_ops: NonZeroU64,
    ) -> impl Future<Output = Result<Vec<usize>, Self::Error>> + Send;
}

impl<E: Bounds> MeasuredSource for Shared<StateDb<E>> {
    async fn operation_sizes(
        &self,
        size: mmr::Location,
        start: mmr::Location,
        max_ops: NonZeroU64,
    ) -> Result<Vec<usize>, Self::Error> {
        // The public reader of a `current` database's log reads operations with their proof; the
        // proof (a few digests) is dropped, the operations only measured.
        let db = self.read().await;
        let (_, operations) = db.ops_historical_proof(size, start, max_ops).await?;
        Ok(operations.iter().map(EncodeSize::encode_size).collect())
    }
}

/// Answers `request` from `source`, encoded in at most `max_bytes` when it can be. The sync
/// engine accepts from 1 to `max_ops` operations and asks for the rest from where an answer ends.
///
/// An operations request is first measured: its operations are read [`MEASURE_READ_OPS`] at a
/// time, each read under its own hold of the read lock, until they fill `max_bytes` beside the
/// largest proof or reach `max_ops`; then exactly those are served (at least one). However large
/// the operations after `start` (each up to [`STATE_MAX_VALUE_BYTES`]), one request reads at most
/// `max_bytes` plus one measuring read ([`MEASURE_READ_BYTES_MAX`]) to measure, and at most
/// `max_bytes` (or its one operation) to serve, instead of all `max_ops` operations; each read
/// also looks up the commit operation at `size - 1`. Should the served proof still take the answer
/// over `max_bytes`, it is served again for the longest prefix that fits by its sizes, each time
/// fewer, down to one operation. A boundary request is one operation and is served as it is.
pub(crate) async fn serve_within<S>(
    source: &S,
    request: Request<S::Family>,
    max_bytes: usize,
) -> Result<Vec<u8>, S::Error>
where
    S: MeasuredSource<Family = mmr::Family>,
    S::Op: EncodeSize,
    Response<S::Family, S::Op, S::Digest>: Encode,
{
    let Request::Operations { size, start, max_ops } = request else {
        let (response, _) = source.serve(request).await?;
        return Ok(response.encode().to_vec());
    };
    let mut max_ops = fitting_count(source, size, start, max_ops, max_bytes).await?;
    loop {
        let (response, _) = source.serve(Request::Operations { size, start, max_ops }).await?;
        let encoded = response.encode();
        if encoded.len() <= max_bytes || max_ops.get() == 1 {
            return Ok(encoded.to_vec());
        }
        let fitting = match &response {
            Response::Operations { proof, operations } => fitting_prefix(
                max_bytes,
                proof.encode_size() + RESPONSE_FRAME_BYTES,
                operations.iter().map(EncodeSize::encode_size),
            ),
            Response::Boundary { .. } => 1,
        };
        // Strictly fewer than asked each time, so this ends, at one operation at the latest.
        max_ops = NonZeroU64::new(fitting.min(max_ops.get() - 1)).unwrap_or(NonZeroU64::MIN);
    }
}

/// How many of the operations of the log at `size` from `start`, at most `max_ops`, fit in
/// `max_bytes` beside the frame and the largest range proof, measured [`MEASURE_READ_OPS`] at a
/// time; at least one. Reading stops at the first operation that does not fit.
async fn fitting_count<S>(
    source: &S,
    size: mmr::Location,
    start: mmr::Location,
    max_ops: NonZeroU64,
    max_bytes: usize,
) -> Result<NonZeroU64, S::Error>
where
    S: MeasuredSource<Family = mmr::Family>,
{
    let mut used = RESPONSE_FRAME_BYTES + RANGE_PROOF_BYTES_MAX;
    let mut count = 0u64;
    while count < max_ops.get() {
        let asked = (max_ops.get() - count).min(MEASURE_READ_OPS);
        let sizes = source
            .operation_sizes(size, start.saturating_add(count), NonZeroU64::new(asked).unwrap_or(NonZeroU64::MIN))
            .await?;
        let read = sizes.len() as u64;
        for op_bytes in sizes {
            used = used.saturating_add(op_bytes);
            if used > max_bytes {
                return Ok(NonZeroU64::new(count).unwrap_or(NonZeroU64::MIN));
            }
            count += 1;
        }
        // The log at `size` ends here.
        if read < asked {
            break;
        }
    }
    Ok(NonZeroU64::new(count).unwrap_or(NonZeroU64::MIN))
}

/// How many leading operations of sizes `op_sizes` fit in `max_bytes` beside `fixed_bytes`; at
/// least one.
fn fitting_prefix(max_bytes: usize, fixed_bytes: usize, op_sizes: impl Iterator<Item = usize>) -> u64 {
    let mut used = fixed_bytes;
    let mut count = 0u64;
    for size in op_sizes {
        used = used.saturating_add(size);
        if used > max_bytes {
            break;
        }
        count += 1;
    }
    count.max(1)
}

/// [`serve_within`] at the API's bound, [`MAX_OPERATIONS_RESPONSE_BYTES`].
pub(crate) async fn serve_operations<S>(source: &S, request: Request<S::Family>) -> Result<Vec<u8>, S::Error>
where
    S: MeasuredSource<Family = mmr::Family>,
    S::Op: EncodeSize,
    Response<S::Family, S::Op, S::Digest>: Encode,
{
    serve_within(source, request, MAX_OPERATIONS_RESPONSE_BYTES).await
}

/// Why the resolver could not answer a fetch.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("this node has no state-sync peer; start it with `--sync-from URL`")]
    NoPeers,
    #[error(transparent)]
    Peers(#[from] crate::fast_sync::FastSyncError),
}

/// Holds the attached state database and, for a node that fast-syncs, its HTTP peers.
pub(crate) struct AttachedState<E: commonware_storage::Context + commonware_runtime::Spawner> {
    db: Arc<OnceLock<Shared<StateDb<E>>>>,
    peers: Option<HttpPeers>,
    op_cfg: <StateOp<E> as Read>::Cfg,
}

impl<E: commonware_storage::Context + commonware_runtime::Spawner> Clone for AttachedState<E> {
    fn clone(&self) -> Self {
        Self { db: self.db.clone(), peers: self.peers.clone(), op_cfg: self.op_cfg }
    }
}

impl<E: commonware_storage::Context + commonware_runtime::Spawner> AttachedState<E> {
    /// `op_cfg` bounds what a fetched operation may decode to (the state's key and value
    /// limits).
    pub(crate) fn new(peers: Option<HttpPeers>, op_cfg: <StateOp<E> as Read>::Cfg) -> Self {
        Self { db: Arc::new(OnceLock::new()), peers, op_cfg }
    }
}

impl<E: Bounds> AttachableResolverSet<StateDatabases<E>> for AttachedState<E> {
    async fn attach_databases(&self, databases: StateDatabases<E>) {
        let _ = self.db.set((*databases).clone());
    }
}

impl<E> Source for AttachedState<E>
where
    E: commonware_storage::Context + commonware_runtime::Spawner,
{
    type Family = mmr::Family;
    type Digest = sha256::Digest;
    type Op = StateOp<E>;
    type Error = FetchError;

    async fn serve(&self, request: Request<mmr::Family>) -> source::Result<Self> {
        let peers = self.peers.clone().ok_or(FetchError::NoPeers)?;
        let (response, peer) = peers.fetch::<E>(request, 0, &self.op_cfg).await?;

        // Glue judges the batch; on a rejection, offer the next peer's answer.
        let (candidates, candidate_rx) = mpsc::channel::<(StateResponse<E>, oneshot::Sender<bool>)>(1);
        let (verdict_tx, verdict_rx) = oneshot::channel();
        let op_cfg = self.op_cfg;
        ::tokio::spawn(async move {
            let (mut verdict, mut peer) = (verdict_rx, peer);
            // `Err`: glue dropped the feedback (request cancelled or superseded).
            while let Ok(false) = verdict.await {
                warn!(
                    peer = peers.url(peer),
                    size = request.size().as_u64(),
                    start = request.start().as_u64(),
                    "state-sync batch failed verification against the finalized ops root"
                );
                let next = match peers.fetch::<E>(request, peer + 1, &op_cfg).await {
                    Ok(next) => next,
                    Err(e) => {
                        error!(
                            error = %e,
                            "no peer served a state-sync batch that verifies: state sync stops; \
                             the local database holds only verified operations"
                        );
                        return;
                    }
                };
                let (next_verdict, next_verdict_rx) = oneshot::channel();
                if candidates.send((next.0, next_verdict)).await.is_err() {
                    return;
                }
                (verdict, peer) = (next_verdict_rx, next.1);
            }
        });
        Ok((response, Some(Feedback::new(verdict_tx, candidate_rx))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::databases::StateDatabases;
    use commonware_codec::Decode as _;
    use commonware_glue::stateful::db::DatabaseSet as _;
    use commonware_runtime::{Runner as _, Supervisor as _, buffer::paged::CacheRef, deterministic};
    use commonware_utils::{NZU16, NZUsize};

    type Ctx = deterministic::Context;

    /// Operations of an answer, decoded the way a syncing client decodes it.
    fn operations(bytes: Vec<u8>, max_ops: u64) -> usize {
        let cfg = (
            usize::try_from(max_ops).unwrap(),
            (((0..=STATE_MAX_KEY_BYTES).into(), ()), ((0..=STATE_MAX_VALUE_BYTES).into(), ())),
        );
        match crate::fast_sync::StateResponse::<Ctx>::decode_cfg(bytes::Bytes::from(bytes), &cfg) {
            Ok(Response::Operations { operations, .. }) => operations.len(),
            other => panic!("not an operations answer: {:?}", other.err()),
        }
    }

    /// The state database as a source that records the bytes of operations each read loads.
    struct Recording<'a> {
        inner: &'a Shared<StateDb<Ctx>>,
        reads: std::sync::Mutex<Vec<usize>>,
    }

    impl Recording<'_> {
        fn record(&self, bytes: usize) {
            self.reads.lock().unwrap().push(bytes);
        }
    }

    impl Source for Recording<'_> {
        type Family = mmr::Family;
        type Digest = sha256::Digest;
        type Op = StateOp<Ctx>;
        type Error = <Shared<StateDb<Ctx>> as Source>::Error;

        async fn serve(&self, request: Request<mmr::Family>) -> source::Result<Self> {
            let (response, feedback) = self.inner.serve(request).await?;
            self.record(match &response {
                Response::Operations { operations, .. } => operations.iter().map(EncodeSize::encode_size).sum(),
                Response::Boundary { op, .. } => op.encode_size(),
            });
            Ok((response, feedback))
        }
    }

    impl MeasuredSource for Recording<'_> {
        async fn operation_sizes(
            &self,
            size: mmr::Location,
            start: mmr::Location,
            max_ops: NonZeroU64,
        ) -> Result<Vec<usize>, Self::Error> {
            let sizes = self.inner.operation_sizes(size, start, max_ops).await?;
            self.record(sizes.iter().sum());
            Ok(sizes)
        }
    }

    /// Whatever the operations after `start` hold, a request reads a few answers' worth of them,
    /// not the `max` it asks for; the answer is still as long as fits.
    #[test]
    fn large_operations_after_start_are_read_no_further_than_the_budget() {
        deterministic::Runner::default().start(|context| async move {
            let config = crate::engine::qmdb_config::<Ctx>("test", CacheRef::new(NZU16!(4096), NZUsize!(64)));
            let dbs = StateDatabases::init(context.child("state"), config, None).await;
            // A few small values, then 64 of 32 KiB: about 2 MiB of operations.
            const LARGE_VALUE_BYTES: usize = 32 * 1024;
            let mut batch = dbs.new_batches().await;
            for i in 0u32..4 {
                batch = batch.write(i.to_be_bytes().to_vec(), Some(vec![1; 8]));
            }
            dbs.apply(batch.merkleize().await.unwrap()).await;
            let mut batch = dbs.new_batches().await;
            for i in 100u32..164 {
                batch = batch.write(i.to_be_bytes().to_vec(), Some(vec![2; LARGE_VALUE_BYTES]));
            }
            dbs.apply(batch.merkleize().await.unwrap()).await;
            let size = dbs.read().await.bounds().end;
            let all = size.as_u64();
            let request = |max: u64| Request::Operations {
                size,
                start: mmr::Location::new(0),
                max_ops: NonZeroU64::new(max).unwrap(),
            };

            let bound = 100_000;
            let recording = Recording { inner: &dbs, reads: Default::default() };
            let bytes = serve_within(&recording, request(all), bound).await.unwrap();
            assert!(bytes.len() <= bound, "answer of {} bytes", bytes.len());
            let served = operations(bytes, all) as u64;

            // Measuring reads up to the bound and one measuring read past it; serving reads what
            // is served. Each read is within one measuring read's worth or the bound.
            let reads = recording.reads.into_inner().unwrap();
            let largest = LARGE_VALUE_BYTES + 64;
            let measure_read = MEASURE_READ_OPS as usize * largest;
            let total: usize = reads.iter().sum();
            assert!(total <= 2 * bound + measure_read, "{total} bytes read: {reads:?}");
            assert!(reads.iter().all(|&read| read <= bound.max(measure_read)), "{reads:?}");

            // As many as fit: one more would not have fit beside the largest proof.
            let longer = serve_within(&*dbs, request(served + 1), usize::MAX).await.unwrap();
            assert!(longer.len() > bound - RANGE_PROOF_BYTES_MAX, "{served} served; {} bytes", longer.len());
            assert!(served < all);
        });
    }

    #[test]
    fn fitting_prefix_counts_what_fits_and_never_less_than_one() {
        assert_eq!(fitting_prefix(100, 10, [30, 30, 30, 30].into_iter()), 3);
        assert_eq!(fitting_prefix(100, 10, [30, 30, 31].into_iter()), 2);
        assert_eq!(fitting_prefix(100, 10, [200].into_iter()), 1);
        assert_eq!(fitting_prefix(100, 200, [1, 1].into_iter()), 1);
        assert_eq!(fitting_prefix(usize::MAX, usize::MAX, [usize::MAX].into_iter()), 1);
    }

    #[test]
    fn large_operations_are_served_in_fewer_per_answer_within_the_bound() {
        deterministic::Runner::default().start(|context| async move {
            let config = crate::engine::qmdb_config::<Ctx>("test", CacheRef::new(NZU16!(4096), NZUsize!(64)));
            let dbs = StateDatabases::init(context.child("state"), config, None).await;
            // 40 values of 4 KB: about 160 KB of operations.
            let mut batch = dbs.new_batches().await;
            for i in 0u32..40 {
                batch = batch.write(i.to_be_bytes().to_vec(), Some(vec![i as u8; 4_096]));
            }
            dbs.apply(batch.merkleize().await.unwrap()).await;
            let size = dbs.read().await.bounds().end;
            let request = |start: u64, max: u64| Request::Operations {
                size,
                start: mmr::Location::new(start),
                max_ops: NonZeroU64::new(max).unwrap(),
            };

            // Unbounded, everything asked for comes at once.
            let all = size.as_u64();
            let whole = serve_within(&*dbs, request(0, all), usize::MAX).await.unwrap();
            assert_eq!(operations(whole.clone(), all) as u64, all);
            assert!(whole.len() > 150_000, "{}", whole.len());

            // Within 20 KB: fewer per answer, each answer within the bound, and a client that
            // asks again from where each answer ends gets every operation.
            let bound = 20_000;
            let (mut start, mut answers) = (0, 0);
            while start < all {
                let bytes = serve_within(&*dbs, request(start, all), bound).await.unwrap();
                assert!(bytes.len() <= bound, "answer of {} bytes", bytes.len());
                let served = operations(bytes, all) as u64;
                assert!(served >= 1);
                start += served;
                answers += 1;
            }
            assert_eq!(start, all);
            assert!(answers >= whole.len() / bound, "{answers} answers");

            // A bound below one operation still serves one: the client always makes progress.
            let one = serve_within(&*dbs, request(0, all), 100).await.unwrap();
            assert!(one.len() > 100);
            assert_eq!(operations(one, all), 1);

            // The API's bound serves this small state whole.
            let served = serve_operations(&*dbs, request(0, all)).await.unwrap();
            assert_eq!(served, whole);
        });
    }
}
