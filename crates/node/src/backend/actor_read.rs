//! `POST /actor/read`: a read-only call over the latest finalized state, run on the read
//! pool, moved to a newer state when a block changes a value it read, answered with the block
//! whose state its answers hold at.

use super::handle::NodeHandle;
use super::records::read_response;
use crate::error::NodeError;
use crate::{
    block::to_h256,
    proofs::{PAIRING_ATTEMPTS_MAX, PAIRING_RETRY_MS},
    reads::{CommittedReader, Interrupt, READ_TIME_BUDGET_MS, StateStamp},
};
use drover_execution::{BlockEnv, ReadFailure, ReadRequest, read_actor, read_actor_traced};
use drover_rpc::backend::ActorCall;
use drover_types::{Address, ErrorCode, api::ActorReadResponse, error::ApiError};
use std::sync::Arc;

impl NodeHandle {
    /// The latest applied state and its finalized block (which may be published a moment
    /// after the state is applied).
    pub(super) async fn paired_state(&self) -> Result<(StateStamp, Arc<crate::proofs::CertifiedBlock>), ApiError> {
        for _ in 0..PAIRING_ATTEMPTS_MAX {
            let stamp = {
                let db = self.0.databases.read().await;
                StateStamp { ops: db.bounds().end, root: db.root() }
            };
            if let Some(block) = self.0.prover.block_with_root(&stamp.root).await {
                return Ok((stamp, block));
            }
            ::tokio::time::sleep(std::time::Duration::from_millis(PAIRING_RETRY_MS)).await;
        }
        Err(NodeError::unfinished("the state kept moving: no finalized block matched it").into())
    }

    /// Runs a read-only call over the latest finalized state, within the read budget (see
    /// [`crate::reads`]).
    pub(super) async fn read_actor(&self, call: ActorCall) -> Result<ActorReadResponse, ApiError> {
        let request = ReadRequest {
            actor: call.actor,
            handler: call.handler,
            payload: call.payload,
            caller: call.caller,
            max_cycles: call.max_cycles,
            max_cells: call.max_cells,
        };
        let (request, traced) = (Arc::new(request), call.trace);
        let basefees = self.0.chain.tip().next_basefees;
        let deadline = crate::reads::read_deadline();
        let mut restarts = 0u32;
        while std::time::Instant::now() < deadline {
            let (stamp, block) = self.paired_state().await?;
            let env = BlockEnv {
                chain_id: self.0.chain_info.chain_id,
                height: block.height,
                timestamp_ms: block.timestamp_ms,
                proposer: Address::ZERO,
                // Seeds only runner assignment, which writes: a read-only call never gets there.
                parent: drover_types::H256::ZERO,
            };
            let (inner, request, runtime) = (self.0.clone(), request.clone(), ::tokio::runtime::Handle::current());
            let (result, interrupt, answered_at) = self
                .0
                .reads
                .run(move || {
                    let reader = CommittedReader::new(&inner.databases, &runtime, stamp, deadline);
                    let result = if traced {
                        read_actor_traced(&inner.vm, &env, basefees, &reader, &request)
                            .map(|(outcome, trace)| (outcome, Some(trace)))
                    } else {
                        read_actor(&inner.vm, &env, basefees, &reader, &request).map(|outcome| (outcome, None))
                    };
                    (result, reader.interrupt(), reader.stamp())
                })
                .await
                .map_err(|busy| ApiError::new(ErrorCode::RateLimited, busy.to_string()))?;
            match (result, interrupt) {
                (Ok((outcome, trace)), _) => {
                    // The answers hold at the state the read ended at (see `reads`).
                    let height = if answered_at == stamp {
                        Some(block.height)
                    } else {
                        self.0.prover.block_with_root(&answered_at.root).await.map(|b| b.height)
                    };
                    // A state the answers hold at is a finalized one: it has a block.
                    let height = height
                        .ok_or_else(|| NodeError::unfinished("the state a read ended at has no block near the tip"))?;
                    return read_response(outcome, trace, height, to_h256(&answered_at.root));
                }
                (Err(ReadFailure::NoActor(address)), _) => {
                    return Err(ApiError::new(ErrorCode::ActorNotFound, format!("address {address} holds no actor")));
                }
                (Err(ReadFailure::Corrupt(e)), _) => return Err(NodeError::unfinished(e).into()),
                (Err(ReadFailure::Unavailable(_)), Some(Interrupt::StateMoved)) => restarts += 1,
                (Err(ReadFailure::Unavailable(_)), Some(Interrupt::OutOfTime)) => break,
                (Err(ReadFailure::Unavailable(fault)), _) => return Err(NodeError::unfinished(fault).into()),
            }
        }
        Err(ApiError::new(
            ErrorCode::ReadLimitsExceeded,
            format!(
                "the read did not finish within {READ_TIME_BUDGET_MS} ms ({restarts} restarts after a block \
                 changed a value it had read); lower max_cycles or retry"
            ),
        ))
    }
}
