//! Mempool admission shared by the API (`/submit`, the faucet) and transaction gossip.
//!
//! Each transaction's payload is checked, and its limits against its intrinsic cost (a deploy
//! pays for its code, a call for its payload: more than a transfer's flat cost, which is all the
//! mempool knows), then its sender's account is read from the latest
//! applied state (once per distinct sender in a batch: batches often carry one sender's nonce
//! run) and the mempool decides. A failed state read is a transient refusal (2017).

use crate::{application::Databases, chain::ChainShared};
use drover_mempool::SenderState;
use drover_state::Account;
use drover_types::{Address, ErrorCode, VerifiedTransaction, error::ApiError};
use std::{collections::HashMap, time::Instant};

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Internal, e.to_string())
}

/// An account in the latest applied state.
pub async fn read_account<E>(
    chain: &ChainShared,
    databases: &Databases<E>,
    address: &Address,
) -> Result<Option<Account>, ApiError>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    let key = drover_state::keys::account_key(address);
    let db = databases.read().await;
    let read = db.get(&key).await;
    chain.record_storage(read.is_ok());
    match read.map_err(internal)? {
        Some(bytes) => Account::decode(&bytes).map(Some).map_err(internal),
        None => Ok(None),
    }
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
    let fees = chain.tip().next_basefees;
    let basefees = drover_mempool::Basefees { cycle: fees.cycle, cell: fees.cell };
    let mut results = Vec::with_capacity(txs.len());
    let mut accounts: HashMap<Address, Account> = HashMap::new();
    for tx in txs {
        if let Err(rejection) = drover_execution::check_payload(&tx.tx) {
            results.push(Err(ApiError::new(rejection.api_code(), rejection.message)));
            continue;
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
