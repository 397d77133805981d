//! Finalization certificates as consensus reports them, held until their block is captured, so
//! the indexes keep each block's certificate beside its header and `/block/{selector}` and the
//! proofs never ask marshal for one.
//!
//! **Why not marshal.** Marshal's actor answers block and certificate reads in the same loop that
//! stores finalizations and hands finalized blocks to the application: every API read of the
//! archive queued in front of block commit work (`docs/performance.md`, "Explorer pages").
//!
//! **Where they come from.** [`CertificateTee`] sits between Simplex and marshal's reporter and
//! notes every finalization before passing it on, unchanged. Marshal delivers a block to the
//! application only once it holds the block's finalization, so a certificate consensus formed
//! or received is held by the time `capture` writes the block's indexes, which takes it into
//! the same atomic batch. A finalization marshal fetched from peers instead (a node replaying
//! blocks it missed) never passes the tee: that block is indexed without one, and readers fall
//! back to marshal for it.
//!
//! **Bounded.** At most [`CERTIFICATES_HELD_MAX`] are held; one whose block is never captured
//! here (below a fast-sync floor, reported twice) is dropped oldest first.

use commonware_actor::Feedback;
use commonware_codec::Encode as _;
use commonware_consensus::{Reporter, simplex::types::Activity};
use commonware_cryptography::sha256;
use drover_block::Scheme;
use parking_lot::Mutex;
use std::{collections::VecDeque, sync::Arc};

/// Certificates held while their blocks wait to be captured. Marshal delivers at most a few
/// finalized blocks ahead of the application, so this is far more than are ever waiting.
pub(crate) const CERTIFICATES_HELD_MAX: usize = 1_024;

/// Encoded finalization certificates by block digest, oldest first.
#[derive(Default)]
pub(crate) struct Certificates {
    held: Mutex<VecDeque<(sha256::Digest, Vec<u8>)>>,
}

impl Certificates {
    /// Holds the encoded certificate of the block `digest` (once: a repeated report is ignored).
    pub(crate) fn hold(&self, digest: sha256::Digest, encoded: Vec<u8>) {
        let mut held = self.held.lock();
        if held.iter().any(|(d, _)| *d == digest) {
            return;
        }
        if held.len() == CERTIFICATES_HELD_MAX {
            held.pop_front();
        }
        held.push_back((digest, encoded));
    }

    /// The certificate of the block `digest`, no longer held.
    pub(crate) fn take(&self, digest: &sha256::Digest) -> Option<Vec<u8>> {
        let mut held = self.held.lock();
        let position = held.iter().position(|(d, _)| d == digest)?;
        held.remove(position).map(|(_, encoded)| encoded)
    }
}

/// Consensus's reporter: notes each finalization in [`Certificates`], then reports everything
/// to `inner` (marshal) as it came.
#[derive(Clone)]
pub(crate) struct CertificateTee<R> {
    inner: R,
    certificates: Arc<Certificates>,
}

impl<R> CertificateTee<R> {
    pub(crate) fn new(inner: R, certificates: Arc<Certificates>) -> Self {
        Self { inner, certificates }
    }
}

impl<R> Reporter for CertificateTee<R>
where
    R: Reporter<Activity = Activity<Scheme, sha256::Digest>>,
{
    type Activity = Activity<Scheme, sha256::Digest>;

    fn report(&mut self, activity: Self::Activity) -> Feedback {
        if let Activity::Finalization(finalization) = &activity {
            self.certificates.hold(finalization.proposal.payload, finalization.encode().to_vec());
        }
        self.inner.report(activity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(n: usize) -> sha256::Digest {
        let mut bytes = [0; 32];
        bytes[..8].copy_from_slice(&(n as u64).to_be_bytes());
        sha256::Digest::from(bytes)
    }

    #[test]
    fn a_certificate_is_taken_once_and_the_oldest_go_first() {
        let certificates = Certificates::default();
        certificates.hold(digest(1), vec![1]);
        certificates.hold(digest(1), vec![9]);
        assert_eq!(certificates.take(&digest(1)), Some(vec![1]));
        assert_eq!(certificates.take(&digest(1)), None);

        for n in 0..=CERTIFICATES_HELD_MAX {
            certificates.hold(digest(n), vec![n as u8]);
        }
        assert_eq!(certificates.held.lock().len(), CERTIFICATES_HELD_MAX);
        assert_eq!(certificates.take(&digest(0)), None);
        assert_eq!(certificates.take(&digest(1)), Some(vec![1]));
        assert_eq!(certificates.take(&digest(CERTIFICATES_HELD_MAX)), Some(vec![CERTIFICATES_HELD_MAX as u8]));
    }
}
