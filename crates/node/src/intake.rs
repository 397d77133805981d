//! Transaction intake: mempool admission shared by the API (`/submit`, the faucet) and
//! transaction gossip.
//!
//! Each transaction's payload is checked, then the destination of a message: it must hold an
//! actor (a system actor that is not enabled is refused by the payload check already), or get
//! one from a deploy of the same sender pending before it, in the mempool or earlier in the
//! batch. Otherwise the message is refused (2012): accepted, it could never execute, and the
//! proposer would drop it without a receipt. Then the limits are checked against the intrinsic
//! cost (a deploy pays for its code, a call for its payload: more than a transfer's flat cost,
//! which is all the mempool knows), the sender's account is read from the latest applied state
//! (once per distinct sender in a batch: batches often carry one sender's nonce run) and the
//! mempool decides. A failed state read is a transient refusal (2017).

use crate::error::NodeError;
use crate::{accounts::Lookup, chain::ChainShared, databases::Databases};
use drover_mempool::SenderState;
use drover_state::Account;
use drover_types::{Address, ErrorCode, VerifiedTransaction, error::ApiError, payload::Deploy};
use std::{collections::HashMap, time::Instant};

/// An account in the latest finalized state: from the account view (no lock) when it holds
/// it, otherwise from the database (one lookup), which the view then keeps.
pub async fn read_account<E>(
    chain: &ChainShared,
    databases: &Databases<E>,
    address: &Address,
) -> Result<Option<Account>, ApiError>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    let lookup = chain.accounts.get(address);
    chain.metrics.observe_account_read(matches!(lookup, Lookup::Miss(_)));
    let ticket = match lookup {
        Lookup::Known(account) => return Ok(account),
        Lookup::Miss(ticket) => ticket,
    };
    let read = chain.accounts.read_missed(databases, address, ticket).await;
    chain.record_storage(!matches!(read, Err(NodeError::State(_))));
    Ok(read?)
}

/// Whether `address` holds an actor in the latest applied state.
async fn holds_actor<E>(chain: &ChainShared, databases: &Databases<E>, address: &Address) -> Result<bool, ApiError>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    let key = drover_state::keys::actor_key(address);
    let db = databases.read().await;
    let read = db.get(&key).await;
    chain.record_storage(read.is_ok());
    Ok(read.map_err(NodeError::from)?.is_some())
}

/// The address a transaction sends a message to, when that address must hold an actor: a
/// non-empty payload to an address that is not a system actor's (`check_payload` has vetted
/// those).
fn message_destination(tx: &VerifiedTransaction) -> Option<Address> {
    tx.tx.to.filter(|to| !tx.tx.payload.is_empty() && !drover_execution::is_system_address(to))
}

/// Whether a deploy of `tx`'s sender with a lower nonce is pending and creates the actor at
/// `to` (a deploy and a call sent together: the deploy executes first).
fn deploy_pending_for(chain: &ChainShared, tx: &VerifiedTransaction, to: &Address) -> bool {
    chain
        .mempool
        .pending_from(&tx.sender, |pending| pending.tx.to.is_none() && pending.tx.nonce < tx.tx.nonce)
        .iter()
        .filter_map(|pending| Deploy::decode(&pending.tx.payload).ok())
        .any(|deploy| deploy.actor_address(&tx.sender) == *to)
}

/// Admits `txs` into the mempool, one verdict per transaction in order.
pub async fn admit<E>(
    chain: &ChainShared,
    databases: &Databases<E>,
    txs: Vec<VerifiedTransaction>,
) -> Vec<Result<(), ApiError>>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    let basefees = chain.tip().next_basefees;
    let mut results = Vec::with_capacity(txs.len());
    let mut accounts: HashMap<Address, Account> = HashMap::new();
    let mut actors: HashMap<Address, bool> = HashMap::new();
    for tx in txs {
        if let Err(rejection) = drover_execution::check_payload(&tx.tx) {
            results.push(Err(ApiError::new(rejection.api_code(), rejection.message)));
            continue;
        }
        if let Some(to) = message_destination(&tx) {
            let holds = match actors.get(&to) {
                Some(holds) => *holds,
                None => match holds_actor(chain, databases, &to).await {
                    Ok(holds) => *actors.entry(to).or_insert(holds),
                    Err(e) => {
                        results.push(Err(ApiError::new(ErrorCode::AdmissionRetry, e.message)));
                        continue;
                    }
                },
            };
            if !holds && !deploy_pending_for(chain, &tx, &to) {
                results.push(Err(ApiError::new(
                    ErrorCode::InvalidPayload,
                    format!(
                        "{to} holds no actor, so a message to it can never be delivered: deploy an \
                         actor there first (or send it together with this message), or send an \
                         empty payload for a plain transfer"
                    ),
                )));
                continue;
            }
        }
        let intrinsic = drover_execution::intrinsic_cost(&tx.tx);
        if tx.tx.cycles_limit < intrinsic.cycles || tx.tx.cells_limit < intrinsic.cells {
            results.push(Err(ApiError::new(
                ErrorCode::OutOfGas,
                format!(
                    "limits of {} cycles and {} cells are below this transaction's intrinsic cost of {} cycles and {} cells",
                    tx.tx.cycles_limit, tx.tx.cells_limit, intrinsic.cycles, intrinsic.cells
                ),
            )));
            continue;
        }
        let account = match accounts.get(&tx.sender) {
            Some(account) => *account,
            None => match read_account(chain, databases, &tx.sender).await {
                Ok(account) => *accounts.entry(tx.sender).or_insert(account.unwrap_or_default()),
                Err(e) => {
                    results.push(Err(ApiError::new(ErrorCode::AdmissionRetry, e.message)));
                    continue;
                }
            },
        };
        let sender = SenderState { nonce: account.nonce, balance: account.balance };
        results.push(chain.mempool.admit(tx, sender, basefees, Instant::now()).map(|_| ()));
    }
    results
}
