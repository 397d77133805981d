//! The path template of every route, written once: the server declares each route with its
//! template (`drover-rpc`, in the handler's `#[utoipa::path]`) and the SDK (`drover-client`)
//! fills the same template with [`fill`], so a path cannot differ between the two.
//!
//! Templates use the router's syntax: a `{name}` segment is a path parameter. They are grouped
//! by endpoint family, in the order of `drover-rpc`'s `routes/` modules.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use std::fmt::Display;

// Transactions.
/// `POST`: hand signed transactions to the mempool.
pub const SUBMIT: &str = "/submit";
/// `POST`: submit, then wait for the receipts.
pub const SUBMIT_WAIT: &str = "/submit_wait";
/// `GET`: a transaction included in a finalized block.
pub const TRANSACTION: &str = "/transaction/{hash}";
/// `GET`: the receipt of an included transaction.
pub const TRANSACTION_RECEIPT: &str = "/transaction/{hash}/receipt";
/// `GET`: a transaction pending in the mempool.
pub const MEMPOOL_TRANSACTION: &str = "/mempool/transaction/{hash}";

// Accounts.
/// `GET`: an account's nonce and balance.
pub const ACCOUNT: &str = "/account/{address}";

// Actors.
/// `GET`: an actor's record.
pub const ACTOR: &str = "/actor/{address}";
/// `GET`: an actor's code.
pub const ACTOR_CODE: &str = "/actor/{address}/code";
/// `GET`: an actor's manifest.
pub const ACTOR_MANIFEST: &str = "/actor/{address}/manifest";
/// `POST`: run a handler read-only.
pub const ACTOR_READ: &str = "/actor/read";
/// `GET`: a page of an actor's storage.
pub const ACTOR_STORAGE: &str = "/actors/{address}/storage";
/// `GET`: how many storage entries an actor holds.
pub const ACTOR_STORAGE_COUNT: &str = "/actors/{address}/storage/count";
/// `GET`: a page of the messages waiting for an actor.
pub const ACTOR_MAILBOX: &str = "/actors/{address}/mailbox";
/// `GET`: a page of an actor's pending timers.
pub const ACTOR_TIMERS: &str = "/actor/{address}/timers";
/// `GET`: a page of an actor's events.
pub const ACTOR_LOGS: &str = "/actor/{address}/logs";
/// `GET`: a page of an actor's timer fires and deliveries.
pub const ACTOR_RUNS: &str = "/actor/{address}/runs";
/// `GET`: a page of an actor's upgrades.
pub const ACTOR_UPGRADE_HISTORY: &str = "/actor/{address}/upgrade-history";

// Tokens.
/// `GET`: a page of tokens.
pub const TOKENS: &str = "/tokens";
/// `GET`: a token's record.
pub const TOKEN: &str = "/token/{token_id}";
/// `GET`: a holder's balance of a token.
pub const TOKEN_BALANCE: &str = "/token/{token_id}/balance/{address}";
/// `GET`: what a spender may move of an owner's tokens.
pub const TOKEN_ALLOWANCE: &str = "/token/{token_id}/allowance/{owner}/{spender}";
/// `GET`: a page of the tokens an address holds.
pub const ACCOUNT_TOKENS: &str = "/account/{address}/tokens";

// Runners.
/// `GET`: a page of registered runners.
pub const RUNNERS_ACTIVE: &str = "/runners/active";
/// `GET`: a runner's record.
pub const RUNNER: &str = "/runner/{address}";
/// `GET`: the heartbeat transaction the node builds for a runner.
pub const RUNNER_HEARTBEAT_PAYLOAD: &str = "/runner/{address}/heartbeat_payload";
/// `POST`: the signed heartbeat.
pub const RUNNER_HEARTBEAT: &str = "/runner/{address}/heartbeat";
/// `GET`: a page of an account's delegations.
pub const ACCOUNT_DELEGATIONS: &str = "/account/{address}/delegations";
/// `GET`: a page of the jobs a runner is assigned to.
pub const RUNNER_JOBS: &str = "/runner/{address}/jobs";
/// `GET`: the result transaction the node builds for a runner.
pub const RUNNER_JOB_RESULT_PAYLOAD: &str = "/runner/{address}/job_result_payload";
/// `POST`: the signed job result.
pub const RUNNER_JOB_RESULT: &str = "/runner/{address}/job_result";

// Storage relays.
/// `GET`: what a delegation token names, and the node's clock.
pub const RAS_CHALLENGE: &str = "/ras/challenge";
/// `GET`: whom a signed request authenticates as.
pub const RAS_AUTH_ME: &str = "/ras/auth/me";
/// `GET`: the relays' and volumes' totals.
pub const RAS_STATS: &str = "/ras/stats";
/// `GET`: a page of the publicly listed relays.
pub const RAS_RELAYS_PUBLIC: &str = "/ras/relays/public";
/// `GET`: a page of the relays taking writes.
pub const RAS_WRITE_RELAYERS: &str = "/ras/write-relayers";
/// `GET`: the volumes' totals.
pub const RAS_BILLING_SUMMARY: &str = "/ras/billing/summary";
/// `GET`: whether a wallet revoked a session key.
pub const RAS_REVOCATION: &str = "/ras/revocations/{wallet}/{session_key}";
/// `GET`: a wallet's balance and what its volumes hold and cost.
pub const RAS_ACCOUNT_BALANCE: &str = "/ras/accounts/balance";
/// `GET`: a page of a wallet's volumes; `POST`: a signed `create`.
pub const RAS_VOLUMES: &str = "/ras/volumes";
/// `GET`: a volume's record.
pub const RAS_VOLUME: &str = "/ras/volumes/{volume_id}";
/// `POST`: a signed `delete` of a volume.
pub const RAS_VOLUME_DELETE: &str = "/ras/volumes/{volume_id}/delete";
/// `POST`: a signed `undelete` of a volume.
pub const RAS_VOLUME_UNDELETE: &str = "/ras/volumes/{volume_id}/undelete";
/// `POST`: a signed `deposit` to a volume.
pub const RAS_VOLUME_DEPOSIT: &str = "/ras/volumes/{volume_id}/deposit";
/// `POST`: a signed `revoke` of a session key.
pub const RAS_REVOKE: &str = "/ras/revoke";

// Libraries.
/// `GET`: a page of a publisher's libraries.
pub const LIBRARIES: &str = "/library/{publisher}";
/// `GET`: one library.
pub const LIBRARY: &str = "/library/{publisher}/{name}";

// Secrets.
/// `GET`: a page of an owner's secrets.
pub const SECRETS: &str = "/secrets/{owner}";
/// `GET`: a reader's envelope of a secret.
pub const SECRET_ENVELOPE: &str = "/secrets/{owner}/{name}/envelope/{reader}";

// Governance.
/// `GET`: the chain parameters in force.
pub const GOVERNANCE_PARAMS: &str = "/governance/params";
/// `GET`: a page of proposals.
pub const GOVERNANCE_PROPOSALS: &str = "/governance/proposals";
/// `GET`: one proposal with a page of its votes.
pub const GOVERNANCE_PROPOSAL: &str = "/governance/proposal/{id}";

// Jobs.
/// `GET`: a job's record.
pub const JOB: &str = "/job/{job_id}";
/// `GET`: a job's status.
pub const JOB_STATUS: &str = "/job/{job_id}/status";
/// `GET`: a page of a job's results.
pub const JOB_RESULTS: &str = "/job/{job_id}/results";
/// `GET`: a job's verified result.
pub const JOB_VERIFIED: &str = "/job/{job_id}/verified";

// Entitlements.
/// `GET`: the entitlement registry.
pub const ENTITLEMENTS_REGISTRY: &str = "/entitlements/registry";
/// `POST`: the problems of a manifest.
pub const ENTITLEMENTS_VALIDATE_MANIFEST: &str = "/entitlements/validate-manifest";

// Blocks.
/// `GET`: the latest finalized height.
pub const HEIGHT: &str = "/height";
/// `GET`: a finalized block.
pub const BLOCK: &str = "/block/{selector}";

// Chain.
/// `GET`: chain id, network, genesis and version.
pub const CHAIN_INFO: &str = "/chain-info";
/// `GET`: the next block's basefees and suggested fees.
pub const BASEFEE: &str = "/basefee";

// Health and metrics.
/// `GET`: liveness.
pub const HEALTH: &str = "/health";
/// `GET`: component health.
pub const HEALTH_DETAILED: &str = "/health/detailed";
/// `GET`: the same record as [`HEALTH_DETAILED`].
pub const HEALTH_READY: &str = "/health/ready";
/// `GET`: Prometheus text.
pub const METRICS: &str = "/metrics";

// Faucet.
/// `POST`: fund an address (development networks).
pub const FAUCET: &str = "/faucet";

// State sync.
/// `GET`: the latest state-sync checkpoint.
pub const STATE_SNAPSHOT: &str = "/state/snapshot";
/// `GET`: a batch of operations with its proof.
pub const STATE_OPERATIONS: &str = "/state/operations";

// Proofs.
/// `GET`: a storage value with its proof.
pub const STATE_VALUE: &str = "/state/{actor}/{key_hex}";
/// `GET`: an account's proof.
pub const PROOF_ACCOUNT: &str = "/proof/account/{address}";
/// `GET`: an actor's proof.
pub const PROOF_ACTOR: &str = "/proof/actor/{address}";
/// `GET`: a storage slot's proof.
pub const PROOF_STORAGE: &str = "/proof/storage/{address}/{key}";
/// `GET`: a transaction's inclusion proof.
pub const PROOF_TX: &str = "/proof/tx/{tx_hash}";
/// `GET`: a receipt's inclusion proof.
pub const PROOF_RECEIPT: &str = "/proof/receipt/{tx_hash}";
/// `POST`: several proofs against one block.
pub const PROOF_MULTI: &str = "/proof/multi";

// History, block lists and events.
/// `GET`: a page of an account's transactions, sent and received, newest first.
pub const ACCOUNT_HISTORY: &str = "/account/{address}/history";
/// `GET`: a page of finalized blocks, newest first.
pub const BLOCKS: &str = "/blocks";
/// `GET`: the heights the node's history, block and event indexes cover.
pub const INDEXED: &str = "/indexed";
/// `GET`: a page of events across emitters, by emitter, topic and height range.
pub const EVENTS: &str = "/events";

// Streams.
/// What every stream's path starts with: the HTTP server runs a connection whose first request
/// opens a stream apart from the others (`drover_rpc::serve_streams_apart`).
pub const STREAMS_PREFIX: &str = "/stream/";
/// `GET`: finalized blocks as they finalize (server-sent events).
pub const STREAM_BLOCKS: &str = "/stream/blocks";
/// `GET`: a transaction's outcome, once (server-sent events).
pub const STREAM_TRANSACTION: &str = "/stream/tx/{hash}";
/// `GET`: the events a filter selects, as blocks finalize (server-sent events).
pub const STREAM_EVENTS: &str = "/stream/events";

// Simulation.
/// `POST`: what a transaction would do at the tip.
pub const SIMULATE: &str = "/simulate";

/// Bytes of a path parameter written as they are: RFC 3986's unreserved characters. Any other
/// byte (`/`, `?`, `#`, `%`, a space, non-ASCII) is percent-encoded, so a value stays inside its
/// segment and the router's path extractor reads back exactly the value filled in.
const SEGMENT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `template` with its `{name}` segments replaced, in order, by `values`, each percent-encoded
/// as one path segment (a library or secret name with a `/` or `?` cannot reach another route
/// or add a query). A template names as many parameters as its route takes, so a caller passes
/// exactly that many; a missing value leaves its segment as written (the server then refuses
/// the path), an extra one is ignored.
///
/// A value of `.` or `..` is the one a URL cannot carry, escaped or not: URL parsers (`url`
/// under reqwest, browsers) remove dot segments, so the request goes to the parent path, where
/// no route answers.
///
/// The values are `Sync` so that a future holding the array across an `.await` (a client call
/// written `self.get(&fill(..., &[id])).await`) stays `Send`.
pub fn fill(template: &str, values: &[&(dyn Display + Sync)]) -> String {
    let mut values = values.iter();
    let mut path = String::with_capacity(template.len() + 64);
    for (index, segment) in template.split('/').enumerate() {
        if index > 0 {
            path.push('/');
        }
        let parameter = segment.starts_with('{') && segment.ends_with('}');
        match if parameter { values.next() } else { None } {
            Some(value) => path.extend(utf8_percent_encode(&value.to_string(), SEGMENT_UNRESERVED)),
            None => path.push_str(segment),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_parameters_in_order() {
        assert_eq!(fill(TOKEN_ALLOWANCE, &[&"0xaa", &"0xbb", &7]), "/token/0xaa/allowance/0xbb/7");
        assert_eq!(fill(HEIGHT, &[]), "/height");
        assert_eq!(fill(SECRET_ENVELOPE, &[&"0x01", &"key"]), "/secrets/0x01/key/envelope/{reader}");
    }

    /// A value is one segment whatever it holds: no `/` starts another segment, no `?` or `#`
    /// a query or fragment, and a `%` is not read as an escape.
    #[test]
    fn escapes_each_value_into_its_segment() {
        assert_eq!(
            fill(SECRET_ENVELOPE, &[&"0x01", &"k/envelope/0x02#", &"0x03"]),
            "/secrets/0x01/k%2Fenvelope%2F0x02%23/envelope/0x03"
        );
        assert_eq!(fill(LIBRARY, &[&"0x01", &"math?version=1"]), "/library/0x01/math%3Fversion%3D1");
        assert_eq!(fill(LIBRARY, &[&"0x01", &"a%2Fb é"]), "/library/0x01/a%252Fb%20%C3%A9");
        // What names and hex values are made of is written as is.
        assert_eq!(fill(LIBRARY, &[&"0xAb", &"my-lib_1.0~x"]), "/library/0xAb/my-lib_1.0~x");
    }
}
