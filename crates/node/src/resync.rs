//! Fast-sync of a node that already has state: a restored backup, or a validator that was down
//! long, started with `--sync-from` far behind its peers (`crate::fast_sync::catch_up` decides).
//!
//! Glue's [`SyncPlan`] runs state sync only until it records completion, which every node that
//! has ever opened its state has done, and it offers no way back. So each sync gets a plan of its
//! own: generation `g` keeps its plan in partition `{prefix}-resync-{g}-state_sync_metadata`
//! (generation 0, every node's first plan, is glue's default `{prefix}state_sync_metadata`), and
//! a small metadata partition, `{prefix}-resync`, records which generation is current. The
//! sync the new plan runs is the from-scratch one (`crate::fast_sync`, `crate::sync_source`):
//! the same certified target, the same verified batches. It reuses whatever of the old state
//! log lies inside the target's range, so only what the node lacks is fetched.
//!
//! **Crash safety.** [`Resync::begin`] first persists the verified target as the floor of the
//! next generation's plan, which nothing reads yet, then switches the current generation in one
//! durable metadata write: that write is the commit point. A crash before it leaves the node as
//! it was (the next start decides again); after it, the node is an unfinished fast-sync, which
//! every start resumes (and refuses to start without `--sync-from`) until it completes, exactly
//! as for a node that started empty. Until then the state database holds only verified
//! operations and the node neither serves nor builds on it: glue attaches it only once the
//! synced state matches the target's root.
//!
//! **Indexes.** History, receipts and events below the sync height are not replayed, so the
//! indexes of the old state would have a hole and could not say where they start. They are
//! discarded when a generation begins ([`Resync::discard_stale_indexes`], recorded in the same
//! metadata once done, and redone by the next start if interrupted), and they start again after
//! the sync height, as on a node that fast-synced from nothing (`GET /indexed`).

use crate::{application::Scheme, block::Block, indexes::Indexes};
use anyhow::Context as _;
use commonware_consensus::{marshal::standard::Standard, simplex::types::Finalization};
use commonware_cryptography::sha256;
use commonware_glue::stateful::SyncPlan;
use commonware_runtime::{Spawner, Supervisor};
use commonware_storage::metadata::{self, Metadata};
use commonware_utils::sequence::U64;
use std::path::Path;
use tracing::{info, warn};

/// The state-sync plan of a validator.
pub type Plan<E> = SyncPlan<E, Scheme, Standard<Block>>;

/// Key of the current generation.
const GENERATION: u64 = 0;
/// Key of the latest generation whose start discarded the indexes.
const INDEXES_DISCARDED: u64 = 1;
/// What glue appends to a plan's partition prefix.
const PLAN_PARTITION_SUFFIX: &str = "state_sync_metadata";

/// Which state-sync plan is current, and whether the indexes are from before it.
pub struct Resync<E: Spawner + Supervisor + commonware_storage::Context> {
    context: E,
    prefix: String,
    metadata: Metadata<E, U64, u64>,
}

impl<E: Spawner + Supervisor + commonware_storage::Context> Resync<E> {
    /// Opens the record of the node whose partitions are named after `prefix`.
    pub async fn open(context: E, prefix: &str) -> anyhow::Result<Self> {
        let metadata = Metadata::init(
            context.child("metadata"),
            metadata::Config { partition: format!("{prefix}-resync"), codec_config: () },
        )
        .await
        .context("cannot open the resync record")?;
        Ok(Self { context, prefix: prefix.to_owned(), metadata })
    }

    fn get(&self, key: u64) -> u64 {
        self.metadata.get(&U64::new(key)).copied().unwrap_or(0)
    }

    /// The current generation (0 until the node first fast-syncs over state it had).
    pub fn generation(&self) -> u64 {
        self.get(GENERATION)
    }

    /// The partition prefix of generation `generation`'s plan.
    fn plan_prefix(&self, generation: u64) -> String {
        if generation == 0 { self.prefix.clone() } else { format!("{}-resync-{generation}-", self.prefix) }
    }

    /// The current plan.
    pub async fn plan(&self) -> Plan<E> {
        let generation = self.generation();
        SyncPlan::init(
            self.context.child("plan").with_attribute("generation", generation),
            self.plan_prefix(generation),
        )
        .await
    }

    /// Makes the node fast-sync to `floor` (a verified finalization) although it has state:
    /// persists it as the floor of the next generation's plan, then makes that generation
    /// current. Takes the current plan, which is never read again, and answers the new one.
    pub async fn begin(
        mut self,
        current: Plan<E>,
        floor: Finalization<Scheme, sha256::Digest>,
    ) -> anyhow::Result<(Self, Plan<E>)> {
        drop(current);
        let (previous, next) = (self.generation(), self.generation() + 1);
        let plan =
            SyncPlan::init(self.context.child("plan").with_attribute("generation", next), self.plan_prefix(next))
                .await
                .set_floor(floor)
                .await;
        self.metadata =
            self.metadata.put_sync(U64::new(GENERATION), next).await.context("cannot record the resync generation")?;
        info!(generation = next, "fast-sync over the existing state begins");
        // The previous plan is never read again.
        let stale = format!("{}{PLAN_PARTITION_SUFFIX}", self.plan_prefix(previous));
        if let Err(e) = self.context.remove(&stale, None).await {
            warn!(partition = stale, error = %e, "cannot remove the previous state-sync plan");
        }
        Ok((self, plan))
    }

    /// Discards the index store in `directory` if it predates the current generation (see the
    /// module docs); a no-op on every other start.
    pub async fn discard_stale_indexes(mut self, directory: &Path) -> anyhow::Result<Self> {
        let generation = self.generation();
        if self.get(INDEXES_DISCARDED) >= generation {
            return Ok(self);
        }
        Indexes::discard(directory).context("cannot discard the indexes of the previous state")?;
        info!(generation, "indexes of the previous state discarded: they restart after the sync height");
        self.metadata = self
            .metadata
            .put_sync(U64::new(INDEXES_DISCARDED), generation)
            .await
            .context("cannot record the discarded indexes")?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{indexes::INDEX_DIR, keys};
    use commonware_consensus::{
        simplex::types::{Finalize, Proposal},
        types::{Epoch, Round, View},
    };
    use commonware_cryptography::{Hasher as _, Sha256, Signer as _};
    use commonware_parallel::Sequential;
    use commonware_runtime::{Runner as _, deterministic};
    use commonware_utils::ordered::Set;

    /// A finalization at `view` by a one-validator network.
    fn finalization(view: u64) -> Finalization<Scheme, sha256::Digest> {
        let (mut validators, polynomial) = keys::generate_network(1).unwrap();
        let keys::ValidatorKeys { private_key, share } = validators.remove(0);
        let participants = Set::from_iter_dedup([private_key.public_key()]);
        let scheme = Scheme::signer(keys::NAMESPACE, participants, polynomial, share).unwrap();
        let proposal = Proposal {
            round: Round::new(Epoch::zero(), View::new(view)),
            parent: View::new(view - 1),
            payload: Sha256::hash(&[&view.to_be_bytes()]),
        };
        let finalize = Finalize::sign(&scheme, proposal).unwrap();
        Finalization::from_finalizes(&scheme, commonware_utils::non_empty![&finalize], &Sequential).unwrap()
    }

    #[test]
    fn a_resync_switches_to_a_plan_with_the_floor_and_a_restart_finishes_discarding_the_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let directory = dir.path().to_owned();
        let floor = finalization(9);
        let (_, checkpoint) = deterministic::Runner::default().start_and_recover({
            let directory = directory.clone();
            |context| async move {
                let resync = Resync::open(context.child("resync"), "n").await.unwrap();
                assert_eq!(resync.generation(), 0);
                // Generation 0 is glue's default plan, the one every node starts with.
                let current = resync.plan().await;
                assert!(current.floor().is_none());
                drop(Indexes::open(&directory).unwrap());

                let (resync, plan) = resync.begin(current, floor).await.unwrap();
                assert_eq!(resync.generation(), 1);
                assert_eq!(plan.floor().map(|f| f.proposal.round.view().get()), Some(9));
                assert!(plan.should_sync(false));
                // Stopped before the indexes are discarded.
            }
        });
        deterministic::Runner::from(checkpoint).start(|context| async move {
            // The restart finds the switch, the floor, and indexes still to discard.
            let resync = Resync::open(context.child("resync"), "n").await.unwrap();
            assert_eq!(resync.generation(), 1);
            assert_eq!(resync.plan().await.floor().map(|f| f.proposal.round.view().get()), Some(9));
            assert!(directory.join(INDEX_DIR).exists());
            let resync = resync.discard_stale_indexes(&directory).await.unwrap();
            assert!(!directory.join(INDEX_DIR).exists());
            // Once done, the indexes the node writes next are left alone.
            drop(Indexes::open(&directory).unwrap());
            let resync = resync.discard_stale_indexes(&directory).await.unwrap();
            assert!(directory.join(INDEX_DIR).exists());
            assert_eq!(resync.generation(), 1);
        });
    }
}
