//! The route table: one module per endpoint family. Handlers are thin: they extract with
//! the `extract` module, call the [`Backend`], and shape the JSON records of
//! [`drover_types::api`].

pub mod accounts;
pub mod actors;
pub mod blocks;
pub mod chain;
pub mod entitlements;
pub mod events;
pub mod faucet;
pub mod governance;
pub mod health;
pub mod history;
pub mod jobs;
pub mod library;
pub mod metrics;
pub mod proofs;
pub mod ras;
pub mod runners;
pub mod secrets;
pub mod simulate;
pub mod state_sync;
pub mod stream;
pub mod tokens;
pub mod transactions;

use crate::{backend::Backend, state::AppState};
use axum::{
    Router,
    routing::{get, post},
};

/// Every route of the API (without fallbacks and layers, which [`crate::router`] adds).
pub fn routes<B: Backend>() -> Router<AppState<B>> {
    Router::new()
        .route("/submit", post(transactions::submit::<B>))
        .route("/submit_wait", post(transactions::submit_wait::<B>))
        .route("/transaction/{hash}", get(transactions::transaction::<B>))
        .route("/transaction/{hash}/receipt", get(transactions::receipt::<B>))
        .route("/mempool/transaction/{hash}", get(transactions::mempool_transaction::<B>))
        .route("/account/{address}", get(accounts::account::<B>))
        .route("/actor/{address}", get(actors::actor::<B>))
        .route("/actor/{address}/code", get(actors::code::<B>))
        .route("/actor/{address}/manifest", get(actors::manifest::<B>))
        .route("/actor/read", post(actors::read::<B>))
        .route("/actor/{address}/upgrade-history", get(actors::upgrade_history::<B>))
        .route("/actors/{address}/storage", get(actors::storage::<B>))
        .route("/actors/{address}/storage/count", get(actors::storage_count::<B>))
        .route("/actors/{address}/mailbox", get(actors::mailbox::<B>))
        .route("/actor/{address}/timers", get(actors::timers::<B>))
        .route("/actor/{address}/logs", get(actors::logs::<B>))
        .route("/actor/{address}/runs", get(actors::runs::<B>))
        .route("/tokens", get(tokens::tokens::<B>))
        .route("/token/{token_id}", get(tokens::token::<B>))
        .route("/token/{token_id}/balance/{address}", get(tokens::balance::<B>))
        .route("/token/{token_id}/allowance/{owner}/{spender}", get(tokens::allowance::<B>))
        .route("/account/{address}/tokens", get(tokens::account_tokens::<B>))
        .route("/runners/active", get(runners::active::<B>))
        .route("/runner/{address}", get(runners::runner::<B>))
        .route("/runner/{address}/heartbeat_payload", get(runners::heartbeat_payload::<B>))
        .route("/runner/{address}/heartbeat", post(runners::heartbeat::<B>))
        .route("/account/{address}/delegations", get(runners::delegations::<B>))
        .route("/runner/{address}/jobs", get(runners::jobs::<B>))
        .route("/runner/{address}/job_result_payload", get(runners::job_result_payload::<B>))
        .route("/runner/{address}/job_result", post(runners::job_result::<B>))
        .route("/ras/challenge", get(ras::challenge::<B>))
        .route("/ras/auth/me", get(ras::me))
        .route("/ras/stats", get(ras::stats::<B>))
        .route("/ras/relays/public", get(ras::public_relays::<B>))
        .route("/ras/write-relayers", get(ras::write_relayers::<B>))
        .route("/ras/billing/summary", get(ras::billing_summary::<B>))
        .route("/ras/revocations/{wallet}/{session_key}", get(ras::revocation::<B>))
        .route("/ras/accounts/balance", get(ras::balance::<B>))
        .route("/ras/volumes", get(ras::volumes::<B>).post(ras::create::<B>))
        .route("/ras/volumes/{volume_id}", get(ras::volume::<B>))
        .route("/ras/volumes/{volume_id}/delete", post(ras::delete::<B>))
        .route("/ras/volumes/{volume_id}/undelete", post(ras::undelete::<B>))
        .route("/ras/volumes/{volume_id}/deposit", post(ras::deposit::<B>))
        .route("/ras/revoke", post(ras::revoke::<B>))
        .route("/library/{publisher}", get(library::libraries::<B>))
        .route("/library/{publisher}/{name}", get(library::library::<B>))
        .route("/secrets/{owner}", get(secrets::secrets::<B>))
        .route("/secrets/{owner}/{name}/envelope/{reader}", get(secrets::envelope::<B>))
        .route("/governance/params", get(governance::params::<B>))
        .route("/governance/proposals", get(governance::proposals::<B>))
        .route("/governance/proposal/{id}", get(governance::proposal::<B>))
        .route("/job/{job_id}", get(jobs::job::<B>))
        .route("/job/{job_id}/status", get(jobs::status::<B>))
        .route("/job/{job_id}/results", get(jobs::results::<B>))
        .route("/job/{job_id}/verified", get(jobs::verified::<B>))
        .route("/entitlements/registry", get(entitlements::registry::<B>))
        .route("/entitlements/validate-manifest", post(entitlements::validate_manifest::<B>))
        .route("/height", get(blocks::height::<B>))
        .route("/block/{selector}", get(blocks::block::<B>))
        .route("/chain-info", get(chain::chain_info::<B>))
        .route("/basefee", get(chain::basefee::<B>))
        .route("/health", get(health::health))
        .route("/health/detailed", get(health::detailed::<B>))
        .route("/health/ready", get(health::ready::<B>))
        .route("/metrics", get(metrics::metrics::<B>))
        .route("/faucet", post(faucet::faucet::<B>))
        .route("/state/snapshot", get(state_sync::snapshot::<B>))
        .route("/state/operations", get(state_sync::operations::<B>))
        .route("/state/{actor}/{key_hex}", get(proofs::state_value::<B>))
        .route("/proof/account/{address}", get(proofs::account::<B>))
        .route("/proof/actor/{address}", get(proofs::actor::<B>))
        .route("/proof/storage/{address}/{key}", get(proofs::storage::<B>))
        .route("/proof/tx/{tx_hash}", get(proofs::tx::<B>))
        .route("/proof/receipt/{tx_hash}", get(proofs::receipt::<B>))
        .route("/proof/multi", post(proofs::multi::<B>))
        .route("/account/{address}/history", get(history::history::<B>))
        .route("/blocks", get(history::blocks::<B>))
        .route("/indexed", get(history::indexed::<B>))
        .route("/events", get(events::events::<B>))
        .route("/stream/blocks", get(stream::blocks::<B>))
        .route("/stream/tx/{hash}", get(stream::transaction::<B>))
        .route("/stream/events", get(stream::events::<B>))
        .route("/simulate", post(simulate::simulate::<B>))
}
