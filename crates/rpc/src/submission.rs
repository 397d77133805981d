//! From a submission body to per-transaction admission outcomes (`docs/protocol.md`, "Submission
//! envelope").
//!
//! 1. Content type: `application/cbor` or `application/octet-stream` (or none); another is
//!    415 code 1001.
//! 2. Size: above [`MAX_SUBMISSION_BYTES`] is 413 code 2013 (the 1 MB request limit, code
//!    6000, applies before the body is read).
//! 3. Envelope: not canonical (6002), malformed or trailing bytes (6001), no transaction or
//!    more than 50 (2014): the whole submission is refused.
//! 4. Each element on its own: not a transaction (2000), then the part of the validity rule the
//!    transaction alone decides (`drover_types::validity::check_form`: chain id 2002, fee
//!    fields, intrinsic cost, payload form), then a signature that does not recover a sender
//!    (2001). Recovery is the CPU-heavy step and comes last, once per transaction; steps 3–4 run
//!    on a blocking thread and the elements are checked in parallel on rayon's pool, keeping the
//!    async workers free.
//! 5. The survivors go to [`Backend::submit`] in one call (which applies the whole validity rule
//!    and the pool's policy); its verdicts are merged back so the outcomes are in submission
//!    order, each refusal mapped to its API code by [`admission_error`].
//!
//! The signed runner and relay flows hand their one transaction, whose sender they recovered
//! to check it, to [`admit_verified`]: steps 4–5 without a second recovery.
//!
//! An element that did not decode is identified by keccak256 of its raw bytes; for one that did,
//! that is its transaction hash too, since the encoding is canonical.
//!
//! Internal refusals (a failed state read, a mempool fault) reach the client only as a request
//! id: the outcomes go through the submission's [`Concealer`] (see [`crate::error`]).

use crate::{
    backend::Backend,
    error::{Concealer, HttpError, admission_error},
    limits::{MAX_SUBMISSION_BYTES, MAX_TRANSACTIONS_PER_SUBMISSION},
};
use axum::http::{HeaderMap, StatusCode, header};
use bytes::Bytes;
use drover_types::{
    ErrorCode, H256, Transaction, VerifiedTransaction,
    cbor::CborError,
    error::ApiError,
    keccak256,
    submission::{EnvelopeError, SubmissionItem, decode_submission},
    validity,
};
use rayon::prelude::*;

/// Content types a submission may declare.
pub(crate) const SUBMISSION_CONTENT_TYPES: [&str; 2] = ["application/cbor", "application/octet-stream"];

/// The admission verdict on one submitted transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub hash: H256,
    pub verdict: Result<(), ApiError>,
}

/// Outcomes of a whole submission, in submission order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Admission {
    pub outcomes: Vec<Outcome>,
    /// What concealed the internal refusals among the outcomes; tags the response.
    pub concealer: Concealer,
}

impl Admission {
    pub(crate) fn accepted(&self) -> u64 {
        self.outcomes.iter().filter(|o| o.verdict.is_ok()).count() as u64
    }

    pub(crate) fn rejected(&self) -> u64 {
        self.outcomes.len() as u64 - self.accepted()
    }

    /// The first refusal when nothing was accepted: it decides the HTTP status and is repeated
    /// at the top level of the body.
    pub(crate) fn refusal(&self) -> Option<&ApiError> {
        if self.accepted() > 0 {
            return None;
        }
        self.outcomes.iter().find_map(|o| o.verdict.as_ref().err())
    }
}

/// Runs steps 1–5 on a submission.
pub(crate) async fn admit<B: Backend>(backend: &B, headers: &HeaderMap, body: Bytes) -> Result<Admission, HttpError> {
    check_content_type(headers)?;
    if body.len() > MAX_SUBMISSION_BYTES {
        return Err(HttpError::new(
            ErrorCode::SubmissionTooLarge,
            format!("submission body is {} bytes; at most {MAX_SUBMISSION_BYTES} are allowed", body.len()),
        ));
    }
    let chain_id = backend.chain_info().chain_id;
    let checked = tokio::task::spawn_blocking(move || check_submission(&body, chain_id))
        .await
        .map_err(|err| HttpError::new(ErrorCode::Internal, format!("submission check did not finish: {err}")))??;
    Ok(admit_checked(backend, checked).await)
}

/// Steps 4–5 for one transaction whose sender the caller recovered already.
pub(crate) async fn admit_verified<B: Backend>(backend: &B, tx: VerifiedTransaction) -> Admission {
    let chain_id = backend.chain_info().chain_id;
    let checked = match validity::check_form(&tx.tx, chain_id) {
        Ok(_) => Checked::Verified(Box::new(tx)),
        Err(rejection) => Checked::Refused(tx.hash, admission_error(rejection.into())),
    };
    admit_checked(backend, vec![checked]).await
}

/// Step 5.
async fn admit_checked<B: Backend>(backend: &B, checked: Vec<Checked>) -> Admission {
    let mut outcomes = Vec::with_capacity(checked.len());
    let mut admissible = Vec::new();
    for item in checked {
        match item {
            Checked::Refused(hash, err) => outcomes.push(Outcome { hash, verdict: Err(err) }),
            Checked::Verified(tx) => {
                outcomes.push(Outcome { hash: tx.hash, verdict: Ok(()) });
                admissible.push(*tx);
            }
        }
    }
    if admissible.is_empty() {
        return Admission { outcomes, concealer: Concealer::default() };
    }
    let submitted = admissible.len();
    let mut verdicts = backend.submit(admissible).await.into_iter();
    let mut concealer = Concealer::default();
    for outcome in outcomes.iter_mut().filter(|o| o.verdict.is_ok()) {
        let verdict = verdicts.next().map(|verdict| verdict.map_err(admission_error)).unwrap_or_else(|| {
            Err(ApiError::new(
                ErrorCode::Internal,
                format!("the mempool returned fewer verdicts than the {submitted} transactions submitted"),
            ))
        });
        outcome.verdict = verdict.map_err(|error| concealer.conceal(error));
    }
    Admission { outcomes, concealer }
}

fn check_content_type(headers: &HeaderMap) -> Result<(), HttpError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let essence = value.to_str().ok().and_then(|text| text.split(';').next()).map(str::trim);
    match essence {
        Some(essence) if SUBMISSION_CONTENT_TYPES.iter().any(|t| t.eq_ignore_ascii_case(essence)) => Ok(()),
        _ => Err(HttpError::new(
            ErrorCode::BadRequest,
            "submissions must be sent as application/cbor (or application/octet-stream)",
        )
        .with_status(StatusCode::UNSUPPORTED_MEDIA_TYPE)),
    }
}

enum Checked {
    Refused(H256, ApiError),
    Verified(Box<VerifiedTransaction>),
}

/// Steps 3–4; blocking (runs the elements on rayon's pool and waits for them).
fn check_submission(body: &[u8], chain_id: u64) -> Result<Vec<Checked>, HttpError> {
    let items = decode_submission(body).map_err(envelope_error)?;
    Ok(items.into_par_iter().map(|item| check_item(item, chain_id)).collect())
}

fn envelope_error(err: EnvelopeError) -> HttpError {
    let code = match &err {
        EnvelopeError::Cbor(CborError::NonCanonical(_)) => ErrorCode::NonCanonicalCbor,
        EnvelopeError::Cbor(CborError::Malformed(_) | CborError::Trailing) => ErrorCode::MalformedCbor,
        EnvelopeError::Empty | EnvelopeError::TooMany(_) => ErrorCode::InvalidBatch,
    };
    let message = match &err {
        EnvelopeError::TooMany(_) | EnvelopeError::Empty => {
            format!("{err} (a submission holds 1 to {MAX_TRANSACTIONS_PER_SUBMISSION} transactions)")
        }
        EnvelopeError::Cbor(_) => format!("submission envelope refused: {err}"),
    };
    HttpError::new(code, message)
}

fn check_item(item: SubmissionItem, chain_id: u64) -> Checked {
    let hash = keccak256(&item.raw);
    let tx: Transaction = match item.decoded {
        Ok(tx) => tx,
        Err(err) => {
            return Checked::Refused(hash, ApiError::new(ErrorCode::MalformedTransaction, err.to_string()));
        }
    };
    if let Err(rejection) = validity::check_form(&tx, chain_id) {
        return Checked::Refused(hash, admission_error(rejection.into()));
    }
    match tx.verify() {
        Ok(verified) => Checked::Verified(Box::new(verified)),
        Err(err) => Checked::Refused(hash, ApiError::new(ErrorCode::InvalidSignature, err.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(content_type: Option<&'static str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = content_type {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn content_types() {
        for ok in [None, Some("application/cbor"), Some("application/octet-stream"), Some("Application/CBOR; x=y")] {
            assert!(check_content_type(&headers(ok)).is_ok(), "{ok:?}");
        }
        for bad in ["application/json", "text/plain", "", "application/cbor-seq"] {
            let err = check_content_type(&headers(Some(bad))).unwrap_err();
            assert_eq!(
                (err.status(), err.code()),
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, ErrorCode::BadRequest),
                "{bad}"
            );
        }
    }

    #[test]
    fn envelope_errors_map_to_their_codes() {
        let code = |err| envelope_error(err).code();
        assert_eq!(code(EnvelopeError::Cbor(CborError::NonCanonical("x".into()))), ErrorCode::NonCanonicalCbor);
        assert_eq!(code(EnvelopeError::Cbor(CborError::Malformed("x".into()))), ErrorCode::MalformedCbor);
        assert_eq!(code(EnvelopeError::Cbor(CborError::Trailing)), ErrorCode::MalformedCbor);
        assert_eq!(code(EnvelopeError::Empty), ErrorCode::InvalidBatch);
        assert_eq!(code(EnvelopeError::TooMany(51)), ErrorCode::InvalidBatch);
    }

    #[test]
    fn refusal_only_when_nothing_was_accepted() {
        let refused = |code| Outcome { hash: H256::ZERO, verdict: Err(ApiError::new(code, "no")) };
        let accepted = Outcome { hash: H256::ZERO, verdict: Ok(()) };
        let all_refused = Admission {
            outcomes: vec![refused(ErrorCode::WrongChainId), refused(ErrorCode::InvalidSignature)],
            concealer: Concealer::default(),
        };
        assert_eq!(all_refused.refusal().map(|e| e.code), Some(ErrorCode::WrongChainId));
        assert_eq!((all_refused.accepted(), all_refused.rejected()), (0, 2));
        let mixed =
            Admission { outcomes: vec![refused(ErrorCode::WrongChainId), accepted], concealer: Concealer::default() };
        assert_eq!(mixed.refusal(), None);
        assert_eq!((mixed.accepted(), mixed.rejected()), (1, 1));
    }
}
