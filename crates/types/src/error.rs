//! The registry of API error codes (1000–9104).
//!
//! Every error body the node serves is `{"code": <int>, "error": "<snake_case_name>",
//! "message": "<text>"}` with the HTTP status registered here. Codes the spec names keep the
//! spec's meaning; codes it leaves open inside its ranges are chosen here once and listed in
//! `docs/errors.md`. This table is the single mapping from code to name and HTTP status.

macro_rules! error_codes {
    ($($variant:ident = $code:literal, $name:literal, $status:literal, $doc:literal;)*) => {
        /// An API error code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $(#[doc = $doc] $variant = $code,)*
        }

        impl ErrorCode {
            /// Every registered code, in numeric order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The numeric code.
            pub const fn code(self) -> u16 {
                self as u16
            }

            /// The snake_case name carried in the `error` field.
            pub const fn name(self) -> &'static str {
                match self { $(ErrorCode::$variant => $name,)* }
            }

            /// The HTTP status the code is served with.
            pub const fn http_status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)* }
            }

            /// One-line description (used in docs and the OpenAPI document).
            pub const fn description(self) -> &'static str {
                match self { $(ErrorCode::$variant => $doc,)* }
            }

            /// Looks a numeric code up.
            pub fn from_code(code: u16) -> Option<Self> {
                match code { $($code => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

error_codes! {
    Internal = 1000, "internal", 500, "Internal error; the request may be retried.";
    BadRequest = 1001, "bad_request", 400, "Malformed request: bad JSON, query parameter or path segment.";
    NotFound = 1002, "not_found", 404, "No such resource.";
    Timeout = 1003, "timeout", 503, "The request was not answered in time; retry after the Retry-After header (a request head that does not arrive in time is answered 408 with this code).";
    RateLimited = 1004, "rate_limited", 429, "Rate limit exceeded; retry after the Retry-After header.";
    MalformedTransaction = 2000, "malformed_transaction", 400, "The transaction does not decode as the 13-element transaction array.";
    InvalidSignature = 2001, "invalid_signature", 400, "The signature is missing, malformed, or does not recover a sender.";
    WrongChainId = 2002, "wrong_chain_id", 400, "The transaction's chain id is not this network's.";
    NonceTooLow = 2003, "nonce_too_low", 400, "The nonce was already used by this sender.";
    NonceTooHigh = 2004, "nonce_too_high", 400, "The nonce is too far ahead of the sender's next nonce.";
    OutOfGas = 2005, "out_of_gas", 400, "The cycles or cells limit cannot cover the transaction's intrinsic cost.";
    InsufficientBalance = 2006, "insufficient_balance", 400, "The sender cannot cover value plus the maximum fees.";
    AlreadyKnown = 2007, "already_known", 400, "The same transaction is already pending.";
    ReplacementUnderpriced = 2008, "replacement_underpriced", 400, "A pending transaction with this nonce has an equal or higher tip.";
    DeferredRejected = 2009, "deferred_rejected", 400, "A deferred transaction was rejected.";
    InvalidFees = 2010, "invalid_fees", 400, "Fee fields are inconsistent (tip above max fee, limits above the block limit, or overflow).";
    BasefeeTooLow = 2011, "basefee_too_low", 400, "A max fee is below the current basefee.";
    InvalidPayload = 2012, "invalid_payload", 400, "The payload is not valid for the destination: not a Deploy for a deploy, not a Message to an address, a Message to an address that holds no actor (and gets none from a pending deploy of the sender), or to a system actor that is not enabled.";
    SubmissionTooLarge = 2013, "submission_too_large", 413, "The submission body exceeds 512 KB.";
    InvalidBatch = 2014, "invalid_batch", 400, "The submission holds no transaction or more than 50.";
    InvalidWaitTimeout = 2015, "invalid_wait_timeout", 400, "timeout_ms is outside 100..=10000.";
    AdmissionBusy = 2016, "admission_busy", 429, "The mempool is full (globally or for this sender); retry later.";
    AdmissionRetry = 2017, "admission_retry", 500, "Transient refusal; retry the submission.";
    AccountNotFound = 3000, "account_not_found", 404, "The address holds no state.";
    InvalidAddress = 3001, "invalid_address", 400, "The address is not 20 bytes of hex.";
    BlockNotFound = 4000, "block_not_found", 404, "No finalized block with that hash or height.";
    InvalidBlockSelector = 4001, "invalid_block_selector", 400, "Block selector is not a hash, a height or `latest`.";
    NotIndexed = 4002, "not_indexed", 404, "The query reaches below the first height this node holds history, blocks and events for (it fast-synced from there): GET /indexed says which; a node that synced from genesis holds the rest.";
    ActorNotFound = 5000, "actor_not_found", 404, "The address holds no actor.";
    InvalidActorRequest = 5001, "invalid_actor_request", 400, "The actor request is malformed (payload forms, limits).";
    HandlerNotFound = 5002, "handler_not_found", 404, "The actor exports no such handler.";
    ReadOnlyViolation = 5003, "read_only_violation", 400, "A read-only execution attempted a state write.";
    ReadLimitsExceeded = 5004, "read_limits_exceeded", 400, "A read-only execution exceeded its cycles or cells bound, or its time budget.";
    PayloadTooLarge = 6000, "payload_too_large", 413, "The request body exceeds 1 MB.";
    MalformedCbor = 6001, "malformed_cbor", 400, "The body is not well-formed CBOR of the expected shape.";
    NonCanonicalCbor = 6002, "non_canonical_cbor", 400, "The body is CBOR but not its canonical encoding.";
    RunnerNotFound = 7000, "runner_not_found", 404, "No such runner.";
    JobNotVerified = 7001, "job_not_verified", 404, "The job has no verified result yet (GET /job/{job_id}/status): it is pending, assigned, failed or cancelled.";
    JobNotFound = 7002, "job_not_found", 404, "No such job.";
    RunnerNotAssigned = 7003, "runner_not_assigned", 409, "The runner is not assigned to this job, has already answered it, or the job no longer takes results: GET /runner/{address}/jobs lists what it may answer.";
    FlowTransactionMismatch = 7004, "flow_transaction_mismatch", 400, "The unsigned transaction is not the one this signed flow builds for this runner: fetch the flow's payload again and sign its message.";
    FlowSignatureMismatch = 7005, "flow_signature_mismatch", 400, "The signature does not recover the runner of the path: sign message_to_sign_base64 with the runner's key (r ‖ s ‖ v, v 0/1 or 27/28).";
    FaucetDisabled = 8000, "faucet_disabled", 404, "The faucet is not enabled on this node.";
    FaucetForbidden = 8001, "faucet_forbidden", 403, "The faucet serves only chain ids 1 and 100.";
    LibraryNotFound = 9000, "library_not_found", 404, "No such account library.";
    RasTokenInvalid = 9100, "ras_token_invalid", 401, "The X-DRFS-Delegation token is missing, malformed, for another scope, audience or chain, expired, valid for more than 30 days, not signed by its wallet, or for a session key its wallet revoked.";
    RasRequestInvalid = 9101, "ras_request_invalid", 401, "The request's X-DRFS-Timestamp (within 30 s), X-DRFS-Nonce (16 to 64 bytes of hex) or X-DRFS-Signature (the session key's, over the request) is wrong.";
    RasReplayed = 9102, "ras_replayed", 401, "This X-DRFS-Nonce was already used: sign every request with a fresh one.";
    RasVolumeNotFound = 9103, "ras_volume_not_found", 404, "No volume with this id that the authenticated wallet owns or holds as its relay (the same answer whether or not someone else's volume has this id).";
    RasTransactionMismatch = 9104, "ras_transaction_mismatch", 400, "The transaction is not this route's storage-manager call (another destination, handler, volume, or a value on a call that takes none), is unsigned, or is not signed by the authenticated wallet.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_round_trip() {
        for pair in ErrorCode::ALL.windows(2) {
            assert!(pair[0].code() < pair[1].code());
        }
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code(code.code()), Some(*code));
            assert!(code.name().chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        }
    }

    #[test]
    fn spec_named_codes_keep_their_meaning() {
        assert_eq!(ErrorCode::AdmissionBusy.http_status(), 429);
        assert_eq!(ErrorCode::AdmissionRetry.http_status(), 500);
        assert_eq!(ErrorCode::InvalidAddress.http_status(), 400);
        assert_eq!(ErrorCode::FaucetDisabled.http_status(), 404);
        assert_eq!(ErrorCode::InvalidSignature.code(), 2001);
    }
}

/// An API error: a registered code and a human-readable message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// Which registered error it is; decides the name and the HTTP status.
    pub code: ErrorCode,
    /// What went wrong in this instance, for a human reader.
    pub message: String,
}

impl ApiError {
    /// An error with `code` and this instance's `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}
