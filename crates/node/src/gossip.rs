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
//! known, nonce used, a full pool) are expected between honest peers; invalid transactions are
//! not, since every honest node checks the rule before it gossips.

use crate::chain::ChainShared;
use bytes::Bytes;
use commonware_cryptography::ed25519;
use commonware_p2p::{Receiver, Recipients, Sender};
use commonware_runtime::{Spawner, Supervisor};
use drover_types::{
    VerifiedTransaction,
    admission::AdmissionError,
    submission::{decode_submission, encode_submission},
    validity,
};
use rayon::prelude::*;
use std::sync::Arc;
use tokio::sync::mpsc;
use tracing::debug;

/// Batches waiting to be sent to peers before new ones are dropped.
pub(crate) const GOSSIP_QUEUE_BATCHES: usize = 1_024;

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
/// handle the API publishes through. `admit` is the node's intake, which the API uses too.
pub(crate) fn start<E, S, R, A, F>(
    context: &E,
    mut sender: S,
    mut receiver: R,
    chain: Arc<ChainShared>,
    admit: A,
) -> GossipHandle
where
    E: Spawner + Supervisor,
    S: Sender<PublicKey = ed25519::PublicKey>,
    R: Receiver<PublicKey = ed25519::PublicKey>,
    A: Fn(Vec<VerifiedTransaction>) -> F + Send + 'static,
    F: Future<Output = Vec<Result<(), AdmissionError>>> + Send,
{
    let (outbound, mut queue) = mpsc::channel::<Vec<u8>>(GOSSIP_QUEUE_BATCHES);
    context.child("gossip_out").spawn(move |_| async move {
        while let Some(batch) = queue.recv().await {
            sender.send(Recipients::All, Bytes::from(batch), false);
        }
    });
    context.child("gossip_in").spawn(move |_| async move {
        let chain_id = chain.genesis.chain_id();
        while let Ok((peer, message)) = receiver.recv().await {
            let (txs, malformed) = verify_batch(message.as_ref(), chain_id);
            let received = txs.len();
            let verdicts = admit(txs).await;
            let admitted = verdicts.iter().filter(|verdict| verdict.is_ok()).count();
            let invalid = malformed
                + verdicts.iter().filter(|verdict| matches!(verdict, Err(AdmissionError::Invalid(_)))).count();
            chain.metrics.observe_gossip(received, admitted, invalid);
            debug!(?peer, received, admitted, invalid, "gossiped transactions");
        }
    });
    GossipHandle { outbound }
}

/// The transactions of a gossip message that decode, pass the part of the validity rule they
/// decide alone for chain `chain_id`, and carry a valid signature; and how many did not.
fn verify_batch(message: &[u8], chain_id: u64) -> (Vec<VerifiedTransaction>, usize) {
    let Ok(items) = decode_submission(message) else {
        return (Vec::new(), 1);
    };
    let total = items.len();
    let verified: Vec<_> = items
        .into_par_iter()
        .filter_map(|item| {
            let tx = item.decoded.ok()?;
            validity::check_form(&tx, chain_id).ok()?;
            tx.verify().ok()
        })
        .collect();
    let refused = total - verified.len();
    (verified, refused)
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

    #[test]
    fn only_well_formed_signed_transactions_pass() {
        let good = signed(0);
        let mut forged = signed(1);
        if let Some(signature) = forged.signature.as_mut() {
            signature.r = [0; 32];
        }
        let batch = encode_submission(&[good.clone(), forged]);
        let (verified, refused) = verify_batch(&batch, CHAIN_ID);
        assert_eq!((verified.len(), refused), (1, 1));
        assert_eq!(verified[0].tx, good);
        assert_eq!(verified[0].sender, SecretKey::dev(3).address());

        assert_eq!(verify_batch(b"not cbor", CHAIN_ID), (Vec::new(), 1));
        assert_eq!(verify_batch(&[0xa0], CHAIN_ID), (Vec::new(), 1));
    }

    #[test]
    fn a_transaction_for_another_chain_never_reaches_the_pool() {
        let other_chain = Transaction { chain_id: CHAIN_ID + 1, signature: None, ..signed(0) }.sign(&SecretKey::dev(3));
        let no_cost_cover = Transaction { cycles_limit: 1, signature: None, ..signed(1) }.sign(&SecretKey::dev(3));
        let batch = encode_submission(&[other_chain, no_cost_cover, signed(2)]);
        let (verified, refused) = verify_batch(&batch, CHAIN_ID);
        assert_eq!(refused, 2);
        assert_eq!(verified.iter().map(|tx| tx.tx.nonce).collect::<Vec<_>>(), [2]);
    }
}
