//! Transaction intake: mempool admission shared by every origin of a transaction that is not a
//! block — the API (`/submit`, `/submit_wait`, the signed runner and relay flows, the faucet) and
//! transaction gossip.
//!
//! Each transaction passes, in order:
//! 1. the validity rule's parts that need no sender state (`drover_types::validity::
//!    check_stateless`: chain id, fee fields, limits between the intrinsic cost and the block
//!    limits in force, payload form for its destination, max fees at least the next block's
//!    basefees);
//! 2. the destination of a message: it must hold an actor, or get one from a deploy of the same
//!    sender pending before it, in the mempool or earlier in the batch. A call to an address
//!    without an actor is valid (whether an actor lives there is the state's to say when it
//!    runs, and the call then fails and pays its intrinsic cost), but it can only burn its
//!    sender's fee, so admission refuses it as an invalid payload;
//! 3. the pool's policy (`drover_mempool::rules`): the validity rule's sender part applied to the
//!    sender's pending run, with the sender's account read from the latest applied state (once
//!    per distinct sender in a batch: batches often carry one sender's nonce run).
//!
//! Refusals are typed ([`AdmissionError`]); a failed state read is
//! [`AdmissionError::Unavailable`]. The API maps them to its codes; gossip counts them.

use crate::error::NodeError;
use crate::{accounts::Lookup, chain::ChainShared, databases::Databases};
use drover_mempool::SenderState;
use drover_state::Account;
use drover_types::{
    Address, VerifiedTransaction,
    admission::AdmissionError,
    error::ApiError,
    payload::Deploy,
    validity::{self, BlockLimits, ChainContext, RejectReason, Rejection},
};
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
/// non-empty payload to an address that is not a system actor's (the validity rule vetted
/// those).
fn message_destination(tx: &VerifiedTransaction) -> Option<Address> {
    tx.tx.to.filter(|to| !tx.tx.payload.is_empty() && !validity::is_system_address(to))
}

/// What the validity rule checks transactions against at admission: the chain and the next
/// block's basefees and limits.
pub fn admission_context(chain: &ChainShared) -> ChainContext {
    let tip = chain.tip();
    let fees = chain.genesis.fees.governed(&tip.next_params);
    ChainContext {
        chain_id: chain.genesis.chain_id(),
        basefees: tip.next_basefees,
        limits: BlockLimits { cycles: fees.block_limit_cycles(), cells: fees.block_limit_cells() },
    }
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
) -> Vec<Result<(), AdmissionError>>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    let context = admission_context(chain);
    let mut results = Vec::with_capacity(txs.len());
    let mut accounts: HashMap<Address, Account> = HashMap::new();
    let mut actors: HashMap<Address, bool> = HashMap::new();
    for tx in txs {
        if let Err(rejection) = validity::check_stateless(&tx.tx, &context) {
            results.push(Err(rejection.into()));
            continue;
        }
        if let Some(to) = message_destination(&tx) {
            let holds = match actors.get(&to) {
                Some(holds) => *holds,
                None => match holds_actor(chain, databases, &to).await {
                    Ok(holds) => *actors.entry(to).or_insert(holds),
                    Err(e) => {
                        results.push(Err(AdmissionError::Unavailable(e.message)));
                        continue;
                    }
                },
            };
            if !holds && !deploy_pending_for(chain, &tx, &to) {
                results.push(Err(Rejection::new(
                    RejectReason::InvalidPayload,
                    format!(
                        "{to} holds no actor, so a message to it can never be delivered: deploy an \
                         actor there first (or send it together with this message), or send an \
                         empty payload for a plain transfer"
                    ),
                )
                .into()));
                continue;
            }
        }
        let account = match accounts.get(&tx.sender) {
            Some(account) => *account,
            None => match read_account(chain, databases, &tx.sender).await {
                Ok(account) => *accounts.entry(tx.sender).or_insert(account.unwrap_or_default()),
                Err(e) => {
                    results.push(Err(AdmissionError::Unavailable(e.message)));
                    continue;
                }
            },
        };
        let sender = SenderState { nonce: account.nonce, balance: account.balance };
        results.push(chain.mempool.admit(tx, sender, Instant::now()).map(drop).map_err(AdmissionError::from));
    }
    results
}
