//! Transaction gossip between validators.
//!
//! A transaction admitted through this node's API is sent to every peer on the p2p transactions
//! channel, so whichever validator leads next can include it; a transaction received from a peer
//! is admitted locally and not forwarded again (every validator is connected to every other one,
//! so one hop reaches all). Messages use the submission envelope of `POST /submit` (canonical
//! CBOR, 1 to 50 transactions), and every received transaction is decoded and its signature
//! verified like a submission before admission: a peer is as untrusted as an HTTP client.
//!
//! Gossip is best effort. The outbound queue is bounded ([`GOSSIP_QUEUE_BATCHES`]); when it is
//! full the batch stays only in the local mempool, which still includes it when this validator
//! proposes. Refusals of received transactions (already known, nonce used, ...) are expected and
//! only counted.

use crate::chain::ChainShared;
use bytes::Bytes;
use commonware_cryptography::ed25519;
use commonware_p2p::{Receiver, Recipients, Sender};
use commonware_runtime::{Spawner, Supervisor};
use drover_types::{
    VerifiedTransaction,
    submission::{decode_submission, encode_submission},
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
/// handle the API publishes through. `admit` is the mempool admission the API uses.
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
    F: Future<Output = usize> + Send,
{
    let (outbound, mut queue) = mpsc::channel::<Vec<u8>>(GOSSIP_QUEUE_BATCHES);
    context.child("gossip_out").spawn(move |_| async move {
        while let Some(batch) = queue.recv().await {
            sender.send(Recipients::All, Bytes::from(batch), false);
        }
    });
    context.child("gossip_in").spawn(move |_| async move {
        while let Ok((peer, message)) = receiver.recv().await {
            let txs = verify_batch(message.as_ref());
            let received = txs.len();
            let admitted = admit(txs).await;
            chain.metrics.observe_gossip(received, admitted);
            debug!(?peer, received, admitted, "gossiped transactions");
        }
    });
    GossipHandle { outbound }
}

/// The transactions of a gossip message that decode and carry a valid signature.
fn verify_batch(message: &[u8]) -> Vec<VerifiedTransaction> {
    let Ok(items) = decode_submission(message) else {
        return Vec::new();
    };
    items.into_par_iter().filter_map(|item| item.decoded.ok()?.verify().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::{Address, SecretKey, Transaction};

    fn signed(nonce: u64) -> Transaction {
        Transaction {
            chain_id: 100,
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
        let verified = verify_batch(&batch);
        assert_eq!(verified.len(), 1);
        assert_eq!(verified[0].tx, good);
        assert_eq!(verified[0].sender, SecretKey::dev(3).address());

        assert!(verify_batch(b"not cbor").is_empty());
        assert!(verify_batch(&[0xa0]).is_empty());
    }
}
