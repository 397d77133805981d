//! `POST /actor/read`: a read-only call over the latest finalized state, run on the read
//! pool, moved to a newer state when a block changes a value it read, answered with the block
//! whose state its answers hold at.

use super::finalized_state::{Finished, budget_spent};
use super::handle::NodeHandle;
use super::records::read_response;
use crate::error::NodeError;
use drover_execution::{BlockEnv, ReadFailure, ReadRequest, read_actor, read_actor_traced};
use drover_rpc::backend::ActorCall;
use drover_types::{Address, ErrorCode, api::ActorReadResponse, error::ApiError};

impl NodeHandle {
    /// Runs a read-only call over the latest finalized state, within the read budget (see
    /// [`super::finalized_state`]).
    pub(super) async fn read_actor(&self, call: ActorCall) -> Result<ActorReadResponse, ApiError> {
        let request = ReadRequest {
            actor: call.actor,
            handler: call.handler,
            payload: call.payload,
            caller: call.caller,
            max_cycles: call.max_cycles,
            max_cells: call.max_cells,
        };
        let traced = call.trace;
        let basefees = self.0.chain.tip().next_basefees;
        let chain_id = self.0.chain_info.chain_id;
        let finished = self
            .over_finalized_state(&self.0.reads, move |inner, reader, block| {
                let env = BlockEnv {
                    chain_id,
                    height: block.height,
                    timestamp_ms: block.timestamp_ms,
                    proposer: Address::ZERO,
                    // Seeds only runner assignment, which writes: a read-only call never gets there.
                    parent: drover_types::H256::ZERO,
                };
                if traced {
                    read_actor_traced(&inner.vm, &env, basefees, reader, &request)
                        .map(|(outcome, trace)| (outcome, Some(trace)))
                } else {
                    read_actor(&inner.vm, &env, basefees, reader, &request).map(|outcome| (outcome, None))
                }
            })
            .await?;
        match finished {
            Finished::Answered { answer: (outcome, trace), height, root } => {
                read_response(outcome, trace, height, root)
            }
            Finished::Failed(ReadFailure::NoActor(address)) => {
                Err(ApiError::new(ErrorCode::ActorNotFound, format!("address {address} holds no actor")))
            }
            Finished::Failed(ReadFailure::Corrupt(e)) => Err(NodeError::unfinished(e).into()),
            Finished::Failed(ReadFailure::Unavailable(fault)) => Err(NodeError::unfinished(fault).into()),
            Finished::OutOfTime { restarts } => {
                Err(budget_spent(restarts, ErrorCode::ReadLimitsExceeded, "read", "lower max_cycles or retry"))
            }
        }
    }
}
