//! Work over the latest finalized state, for the API's computations that run actors without
//! keeping anything (`/actor/read`, `/simulate`): run on a read pool at the lowest CPU priority,
//! reading the state one lookup at a time through a [`CommittedReader`] (never holding the lock
//! a commit needs), started over on the new state when a block changes a value it had read, and
//! given [`READ_TIME_BUDGET_MS`] in all (see [`crate::reads`]).
//!
//! Its answers hold at the state the work ended at, which is a finalized one: the answer names
//! that state's block.

use super::handle::{Inner, NodeHandle};
use crate::{
    block::to_h256,
    error::NodeError,
    proofs::{CertifiedBlock, PAIRING_ATTEMPTS_MAX, PAIRING_RETRY_MS},
    reads::{CommittedReader, Interrupt, READ_TIME_BUDGET_MS, ReadPool, StateStamp},
};
use drover_execution::{ReadFailure, ReadFault, SimulationError};
use drover_types::{ErrorCode, H256, error::ApiError};
use std::sync::Arc;

/// A failure of work over the state: whether it is the state going away under the reader
/// (answered by the [`Interrupt`] the reader gives), rather than the work's own.
pub(super) trait StateFailure: Sized {
    /// The fault when the reader stopped answering; the failure itself otherwise.
    fn unavailable(self) -> Result<ReadFault, Self>;
}

impl StateFailure for ReadFailure {
    fn unavailable(self) -> Result<ReadFault, Self> {
        match self {
            ReadFailure::Unavailable(fault) => Ok(fault),
            other => Err(other),
        }
    }
}

impl StateFailure for SimulationError {
    fn unavailable(self) -> Result<ReadFault, Self> {
        match self {
            SimulationError::Unavailable(fault) => Ok(fault),
            other => Err(other),
        }
    }
}

/// What work over the finalized state came to.
pub(super) enum Finished<T, E> {
    /// Its answer, which holds at the state of the block at `height` whose state root is `root`.
    Answered { answer: T, height: u64, root: H256 },
    /// Its own failure (never the state going away: that is retried or timed out).
    Failed(E),
    /// The time budget ran out, after `restarts` starts over on a newer state.
    OutOfTime { restarts: u32 },
}

/// The read budget's end as an API error `code`: how many times the `what` started over, and
/// what to try (`advice`).
pub(super) fn budget_spent(restarts: u32, code: ErrorCode, what: &str, advice: &str) -> ApiError {
    ApiError::new(
        code,
        format!(
            "the {what} did not finish within {READ_TIME_BUDGET_MS} ms ({restarts} restarts after a block changed a \
             value it had read); {advice}"
        ),
    )
}

impl NodeHandle {
    /// The latest applied state and its finalized block (which may be published a moment
    /// after the state is applied).
    pub(super) async fn paired_state(&self) -> Result<(StateStamp, Arc<CertifiedBlock>), ApiError> {
        for _ in 0..PAIRING_ATTEMPTS_MAX {
            let stamp = {
                let db = self.0.databases.read().await;
                StateStamp { ops: db.bounds().end, root: db.root() }
            };
            if let Some(block) = self.0.prover.block_with_root(&stamp.root).await? {
                return Ok((stamp, block));
            }
            ::tokio::time::sleep(std::time::Duration::from_millis(PAIRING_RETRY_MS)).await;
        }
        Err(NodeError::unfinished("the state kept moving: no finalized block matched it").into())
    }

    /// Runs `work` on `pool` over the latest finalized state (given with its block), again
    /// from the newer state each time a block changes a value it had read, until it answers,
    /// fails on its own, or the read budget runs out. A full pool queue is 429.
    pub(super) async fn over_finalized_state<T, E, W>(
        &self,
        pool: &ReadPool,
        work: W,
    ) -> Result<Finished<T, E>, ApiError>
    where
        T: Send + 'static,
        E: StateFailure + Send + 'static,
        W: Fn(&Inner, &CommittedReader<'_>, &CertifiedBlock) -> Result<T, E> + Send + Sync + 'static,
    {
        let work = Arc::new(work);
        let deadline = crate::reads::read_deadline();
        let mut restarts = 0u32;
        while std::time::Instant::now() < deadline {
            let (stamp, block) = self.paired_state().await?;
            let (inner, work, runtime) = (self.0.clone(), Arc::clone(&work), ::tokio::runtime::Handle::current());
            let started_on = Arc::clone(&block);
            let (result, interrupt, answered_at) = pool
                .run(move || {
                    let reader = CommittedReader::new(&inner.databases, &runtime, stamp, deadline);
                    let result = work(&inner, &reader, &started_on);
                    (result, reader.interrupt(), reader.stamp())
                })
                .await
                .map_err(|busy| ApiError::new(ErrorCode::RateLimited, busy.to_string()))?;
            let failure = match result {
                Ok(answer) => {
                    let height = if answered_at == stamp {
                        Some(block.height)
                    } else {
                        self.0.prover.block_with_root(&answered_at.root).await?.map(|b| b.height)
                    };
                    // A state the answers hold at is a finalized one: it has a block.
                    let height = height.ok_or_else(|| {
                        NodeError::unfinished("the state the work ended at has no block near the tip")
                    })?;
                    return Ok(Finished::Answered { answer, height, root: to_h256(&answered_at.root) });
                }
                Err(failure) => failure,
            };
            match (failure.unavailable(), interrupt) {
                (Err(own), _) => return Ok(Finished::Failed(own)),
                (Ok(_), Some(Interrupt::StateMoved)) => restarts += 1,
                (Ok(_), Some(Interrupt::OutOfTime)) => break,
                (Ok(fault), _) => return Err(NodeError::unfinished(fault).into()),
            }
        }
        Ok(Finished::OutOfTime { restarts })
    }
}
