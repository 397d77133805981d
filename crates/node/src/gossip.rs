//! Transaction gossip between validators.
//!
//! A transaction admitted through this node's API is sent to every peer on the p2p transactions
//! channel, so whichever validator leads next can include it; a transaction received from a peer
//! is admitted locally and not forwarded again (every validator is connected to every other one,
//! so one hop reaches all). Messages use the submission envelope of `POST /submit` (canonical
//! CBOR, 1 to 50 transactions), and every received transaction goes the way of a submission: a
//! peer is as untrusted as an HTTP client. It is decoded, must pass the part of the validity
//! rule it decides alone (`drover_types::validity::check_form`: chain id, fee fields, intrinsic
//! cost, payload form) before its signature is recovered (once), and is then admitted by the
//! node's intake, which applies the rest of the rule and the pool's policy.
//!
//! Gossip is best effort. The outbound queue is bounded ([`GOSSIP_QUEUE_BATCHES`]); when it is
//! full the batch stays only in the local mempool, which still includes it when this validator
//! proposes. Refusals of received transactions are counted by kind: pool refusals (already
//! known, nonce used, a full pool) are expected between honest peers, and so are refusals by the
//! part of the rule that depends on the state (a max fee below a basefee that just rose);
//! a transaction that does not decode or breaks the form part of the rule is not, since every
//! honest node checks the rule before it gossips.
//!
//! A peer may send up to `GOSSIP_MESSAGES_PER_SEC` messages a second, and nothing stops it from
//! sending the same one again: recovering 50 signatures per message would then cost more than a
//! core. So every item is first named by its hash (keccak256 of its bytes, the transaction hash
//! of any item that decodes, since decoding is strict) and skipped, before any check, when it
//! is already pending, appears earlier in the same message, or was decided recently
//! ([`SeenTransactions`], at most [`GOSSIP_SEEN_ENTRIES`] hashes, S3-FIFO so a flood of fresh
//! hashes does not push out the replayed ones). What is remembered depends on what decided:
//! * refused by its bytes alone (it does not decode, breaks `check_form`, or its signature does
//!   not recover), or by a nonce already used on chain: for good, since no state can change it
//!   (replaying the chain's own transactions, all signed, costs no recovery either);
//! * refused otherwise by the state or the pool (basefee, a nonce ahead, balance, a destination
//!   without an actor, a full pool): only until the tip moves, since the next block may change
//!   the verdict;
//! * admitted: not remembered (pending, the pool skips it), nor a failed state read
//!   (`Unavailable`) or a pool fault.
//!
//! A signature that is malformed or does not recover is never an honest peer's (every node
//! admits only what it verified, and gossips only what it admitted): the peer that sends one
//! among the items it checks is blocked on the p2p network (every channel, for the network's
//! block duration). Other refusals do not block: a form or state refusal can come from an honest
//! peer (another software version, another view of the state). This does not make flooding
//! expensive by itself: a made-up signature that does recover (about half of random ones) names
//! some unfunded sender and is refused by the state, which is remembered only until the tip
//! moves, so such a transaction costs a recovery once per block; and a forged item already
//! remembered as refused by its bytes is skipped, not blamed again. What bounds a peer is the
//! channel's message rate and this cache.
//!
//! Decoding, hashing and recovery run on the runtime's blocking pool (recovery in parallel on
//! rayon's pool): an async worker waiting for rayon would hold up whatever else is queued on it.

use crate::{application::on_blocking_pool, chain::ChainShared};
use bytes::Bytes;
use commonware_cryptography::ed25519;
use commonware_p2p::{Blocker, Receiver, Recipients, Sender};
use commonware_runtime::{Spawner, Supervisor};
use drover_types::{
    H256, VerifiedTransaction,
    admission::{AdmissionError, PoolRefusalKind},
    keccak256,
    submission::{SubmissionItem, decode_submission, encode_submission},
    validity::{self, RejectReason},
};
use quick_cache::sync::Cache;
use rayon::prelude::*;
use std::{collections::HashSet, sync::Arc};
use tokio::sync::mpsc;
use tracing::{debug, warn};

/// Batches waiting to be sent to peers before new ones are dropped.
pub(crate) const GOSSIP_QUEUE_BATCHES: usize = 1_024;
/// Gossiped transactions whose verdict is remembered, by hash (a 32-byte hash and a 16-byte
/// verdict each): more than a second of one peer's most (`GOSSIP_MESSAGES_PER_SEC` x 50).
pub(crate) const GOSSIP_SEEN_ENTRIES: usize = 65_536;

/// What this node decided on a transaction a peer sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    /// Its bytes alone refuse it, whatever the state: for good.
    Invalid,
    /// Admitted, or refused by the state or the pool, while the tip stood at `height`.
    Decided { height: u64 },
}

/// The recent verdicts on gossiped transactions, by hash (see the module docs).
pub(crate) struct SeenTransactions {
    verdicts: Cache<H256, Seen>,
}

impl SeenTransactions {
    /// Remembers at most `entries` verdicts (at least one).
    pub(crate) fn new(entries: usize) -> Self {
        Self { verdicts: Cache::new(entries.max(1)) }
    }

    /// Whether `hash` was decided in a way that still holds with the tip at `height`.
    fn decided(&self, hash: &H256, height: u64) -> bool {
        match self.verdicts.get(hash) {
            Some(Seen::Invalid) => true,
            Some(Seen::Decided { height: at }) => at == height,
            None => false,
        }
    }

    /// Remembers that `hash`'s bytes refuse it, whatever the state.
    fn refuse_for_good(&self, hash: H256) {
        self.verdicts.insert(hash, Seen::Invalid);
    }

    /// Remembers admission's `verdict` on `hash`, reached with the tip at `height`: a refusal
    /// no state can lift (a nonce already used on chain: anyone can replay the chain's own
    /// transactions, every one signed) for good, another until the tip moves. Nothing is kept
    /// of an admitted transaction (pending, the pool skips it; included, the tip has moved), a
    /// failed read or a pool fault.
    fn record(&self, hash: H256, verdict: &Result<(), AdmissionError>, height: u64) {
        match verdict {
            Ok(()) | Err(AdmissionError::Unavailable(_)) => {}
            Err(AdmissionError::Pool(refusal)) if refusal.kind == PoolRefusalKind::Inconsistent => {}
            // Not every refusal `is_permanent` calls so: a payload refused for want of an actor
            // at its destination passes once one is deployed there.
            Err(AdmissionError::Invalid(rejection)) if rejection.reason == RejectReason::NonceTooLow => {
                self.refuse_for_good(hash)
            }
            Err(_) => self.verdicts.insert(hash, Seen::Decided { height }),
        }
    }
}

/// What screening one gossip message found.
#[derive(Debug, Default, PartialEq, Eq)]
struct Screened {
    /// New transactions that pass the form part of the rule and carry a valid signature.
    verified: Vec<VerifiedTransaction>,
    /// Items refused by their bytes (a message that is no envelope counts one).
    invalid: usize,
    /// Of those, items whose signature does not recover.
    forged: usize,
    /// Items skipped unchecked: pending, repeated in the message, or decided recently.
    known: usize,
}

/// Hands admitted transactions to the outbound gossip task.
#[derive(Clone)]
pub struct GossipHandle {
    outbound: mpsc::Sender<Vec<u8>>,
}

impl GossipHandle {
    /// Queues `txs` (admitted locally) for every peer; a full queue drops the batch.
    pub fn publish(&self, txs: &[VerifiedTransaction]) {
        if txs.is_empty() {
            return;
        }
        let plain: Vec<_> = txs.iter().map(|v| v.tx.clone()).collect();
        if self.outbound.try_send(encode_submission(&plain)).is_err() {
            debug!(count = txs.len(), "gossip queue full: transactions stay local");
        }
    }
}

/// Starts the outbound and inbound gossip loops on the transactions channel and returns the
/// handle the API publishes through. `admit` is the node's intake, which the API uses too;
/// `blocker` blocks a peer that sends a forged signature.
pub(crate) fn start<E, S, R, B, A, F>(
    context: &E,
    mut sender: S,
    mut receiver: R,
    mut blocker: B,
    chain: Arc<ChainShared>,
    admit: A,
) -> GossipHandle
where
    E: Spawner + Supervisor,
    S: Sender<PublicKey = ed25519::PublicKey>,
    R: Receiver<PublicKey = ed25519::PublicKey>,
    B: Blocker<PublicKey = ed25519::PublicKey>,
    A: Fn(Vec<VerifiedTransaction>) -> F + Send + 'static,
    F: Future<Output = Vec<Result<(), AdmissionError>>> + Send,
{
    let (outbound, mut queue) = mpsc::channel::<Vec<u8>>(GOSSIP_QUEUE_BATCHES);
    context.child("gossip_out").spawn(move |_| async move {
        while let Some(batch) = queue.recv().await {
            sender.send(Recipients::All, Bytes::from(batch), false);
        }
    });
    context.child("gossip_in").spawn(move |context| async move {
        let chain_id = chain.genesis.chain_id();
        let seen = Arc::new(SeenTransactions::new(GOSSIP_SEEN_ENTRIES));
        while let Ok((peer, message)) = receiver.recv().await {
            let height = chain.tip().height;
            let (screening_chain, screening_seen) = (chain.clone(), seen.clone());
            let screened = on_blocking_pool(&context, "gossip_verify", move || {
                screen(message.as_ref(), chain_id, &screening_seen, height, |hash| {
                    screening_chain.mempool.contains(hash)
                })
            })
            .await;
            if screened.forged > 0 {
                // Nothing more of a peer found forging: the rest of its message is not admitted.
                warn!(?peer, forged = screened.forged, "peer gossiped transactions with forged signatures: blocked");
                blocker.block(peer.clone());
                chain.metrics.observe_gossip(0, 0, screened.invalid, screened.known);
                continue;
            }
            let hashes: Vec<H256> = screened.verified.iter().map(|tx| tx.hash).collect();
            let received = hashes.len();
            let verdicts = admit(screened.verified).await;
            for (hash, verdict) in hashes.into_iter().zip(&verdicts) {
                seen.record(hash, verdict, height);
            }
            let admitted = verdicts.iter().filter(|verdict| verdict.is_ok()).count();
            let invalid = screened.invalid
                + verdicts.iter().filter(|verdict| matches!(verdict, Err(AdmissionError::Invalid(_)))).count();
            chain.metrics.observe_gossip(received, admitted, invalid, screened.known);
            debug!(?peer, received, admitted, invalid, known = screened.known, "gossiped transactions");
        }
    });
    GossipHandle { outbound }
}

/// Screens a gossip message for chain `chain_id` with the tip at `height`: skips the items
/// `pending` in the mempool, repeated, or decided recently in `seen`; checks the rest (decoding,
/// the form part of the validity rule, then the signature, in parallel) and remembers the ones
/// their bytes refuse. Blocks its thread while rayon works.
fn screen(
    message: &[u8],
    chain_id: u64,
    seen: &SeenTransactions,
    height: u64,
    pending: impl Fn(&H256) -> bool,
) -> Screened {
    let Ok(items) = decode_submission(message) else {
        return Screened { invalid: 1, ..Screened::default() };
    };
    let total = items.len();
    let mut in_message = HashSet::with_capacity(total);
    let fresh: Vec<(H256, SubmissionItem)> = items
        .into_iter()
        .map(|item| (keccak256(&item.raw), item))
        .filter(|(hash, _)| in_message.insert(*hash) && !pending(hash) && !seen.decided(hash, height))
        .collect();
    let known = total - fresh.len();
    let checked: Vec<Result<VerifiedTransaction, Fault>> = fresh
        .into_par_iter()
        .map(|(hash, item)| {
            let verdict = check_item(item, chain_id);
            if verdict.is_err() {
                seen.refuse_for_good(hash);
            }
            verdict
        })
        .collect();
    let forged = checked.iter().filter(|verdict| matches!(verdict, Err(Fault::Signature))).count();
    let verified: Vec<_> = checked.into_iter().filter_map(Result::ok).collect();
    let invalid = total - known - verified.len();
    Screened { verified, invalid, forged, known }
}

/// Why an item's bytes refuse it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// It does not decode, or breaks the form part of the validity rule.
    Form,
    /// Its form is right and its signature does not recover.
    Signature,
}

/// One item, decoded, checked against the form part of the rule, and with its signature
/// recovered.
fn check_item(item: SubmissionItem, chain_id: u64) -> Result<VerifiedTransaction, Fault> {
    let tx = item.decoded.map_err(|_| Fault::Form)?;
    validity::check_form(&tx, chain_id).map_err(|_| Fault::Form)?;
    tx.verify().map_err(|_| Fault::Signature)
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::{Address, SecretKey, Transaction};

    const CHAIN_ID: u64 = 100;

    fn signed(nonce: u64) -> Transaction {
        Transaction {
            chain_id: CHAIN_ID,
            nonce,
            to: Some(Address([7; 20])),
            value: 1,
            cycles_limit: 21_000,
            cells_limit: 0,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 2,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload: Vec::new(),
            signature: None,
        }
        .sign(&SecretKey::dev(3))
    }

    /// Screens `message` with nothing pending.
    fn screen_fresh(message: &[u8], seen: &SeenTransactions, height: u64) -> Screened {
        screen(message, CHAIN_ID, seen, height, |_| false)
    }

    fn forged(nonce: u64) -> Transaction {
        let mut tx = signed(nonce);
        if let Some(signature) = tx.signature.as_mut() {
            signature.r = [0; 32];
        }
        tx
    }

    #[test]
    fn only_well_formed_signed_transactions_pass() {
        let good = signed(0);
        let batch = encode_submission(&[good.clone(), forged(1)]);
        let seen = SeenTransactions::new(GOSSIP_SEEN_ENTRIES);
        let screened = screen_fresh(&batch, &seen, 1);
        assert_eq!((screened.verified.len(), screened.invalid, screened.forged), (1, 1, 1));
        assert_eq!(screened.verified[0].tx, good);
        assert_eq!(screened.verified[0].sender, SecretKey::dev(3).address());

        for not_an_envelope in [&b"not cbor"[..], &[0xa0]] {
            assert_eq!(screen_fresh(not_an_envelope, &seen, 1), Screened { invalid: 1, ..Screened::default() });
        }
    }

    #[test]
    fn a_transaction_for_another_chain_never_reaches_the_pool() {
        let other_chain = Transaction { chain_id: CHAIN_ID + 1, signature: None, ..signed(0) }.sign(&SecretKey::dev(3));
        let no_cost_cover = Transaction { cycles_limit: 1, signature: None, ..signed(1) }.sign(&SecretKey::dev(3));
        let batch = encode_submission(&[other_chain, no_cost_cover, signed(2)]);
        let screened = screen_fresh(&batch, &SeenTransactions::new(GOSSIP_SEEN_ENTRIES), 1);
        // Refused by their form: not a forged signature, so not a reason to block the peer.
        assert_eq!((screened.invalid, screened.forged), (2, 0));
        assert_eq!(screened.verified.iter().map(|tx| tx.tx.nonce).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn a_replayed_message_is_not_checked_again() {
        let txs: Vec<_> = (0..50).map(|nonce| if nonce % 10 == 0 { forged(nonce) } else { signed(nonce) }).collect();
        let message = encode_submission(&txs);
        let seen = SeenTransactions::new(GOSSIP_SEEN_ENTRIES);
        let first = screen_fresh(&message, &seen, 1);
        assert_eq!((first.verified.len(), first.forged, first.known), (45, 5, 0));
        // The pool refuses every one (say the sender cannot pay): a verdict of this height.
        let refusal: Result<(), AdmissionError> =
            Err(drover_types::admission::PoolRefusal::new(PoolRefusalKind::Reserved, "balance").into());
        for tx in &first.verified {
            seen.record(tx.hash, &refusal, 1);
        }

        // Replayed at the same height: no signature recovered, nothing to block the peer for.
        let replayed = screen_fresh(&message, &seen, 1);
        let recovered = replayed.verified.len() + replayed.forged;
        assert_eq!((recovered, replayed.invalid, replayed.known), (0, 0, 50));
        // After the next block the state refusals may no longer hold: those are checked again;
        // the forged signatures are refused for good.
        let next_block = screen_fresh(&message, &seen, 2);
        assert_eq!((next_block.verified.len(), next_block.forged, next_block.known), (45, 0, 5));
    }

    /// The chain's own transactions replayed (each signed, each nonce used) are refused for
    /// good: a replay does not cost a recovery at every block.
    #[test]
    fn a_used_nonce_is_remembered_for_good() {
        let message = encode_submission(&[signed(0), signed(1)]);
        let seen = SeenTransactions::new(GOSSIP_SEEN_ENTRIES);
        let screened = screen_fresh(&message, &seen, 1);
        let used: Result<(), AdmissionError> =
            Err(drover_types::validity::Rejection::new(drover_types::validity::RejectReason::NonceTooLow, "used")
                .into());
        let (first, second) = (&screened.verified[0], &screened.verified[1]);
        seen.record(first.hash, &used, 1);
        seen.record(second.hash, &Ok(()), 1);
        let later = screen_fresh(&message, &seen, 2);
        assert_eq!((later.verified.len(), later.known), (1, 1));
        assert_eq!(later.verified[0].hash, second.hash, "an admitted transaction is not remembered");
    }

    #[test]
    fn pending_and_repeated_transactions_are_skipped_and_failed_reads_are_not_remembered() {
        let pending = signed(0);
        let message = encode_submission(&[pending.clone(), signed(1), signed(1), signed(2)]);
        let pending_hash = pending.hash();
        let seen = SeenTransactions::new(GOSSIP_SEEN_ENTRIES);
        let screened = screen(&message, CHAIN_ID, &seen, 1, |hash| *hash == pending_hash);
        assert_eq!(screened.verified.iter().map(|tx| tx.tx.nonce).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(screened.known, 2);

        let unavailable = Err(AdmissionError::Unavailable("state read failed".into()));
        for tx in &screened.verified {
            seen.record(tx.hash, &unavailable, 1);
        }
        assert_eq!(screen(&message, CHAIN_ID, &seen, 1, |hash| *hash == pending_hash).verified.len(), 2);
    }
}
