//! The two ways a job can fail, and the refusals of a runner's configuration.
//!
//! The split between [`ExecutorError::Deterministic`] and [`ExecutorError::Transient`] decides
//! what a runner does next, so it follows one rule: a failure is deterministic when every honest
//! runner given the same job fails the same way (the job is bad), and transient when it depends
//! on this runner, this moment or the network. A deterministic failure is the job's result: the
//! runner posts [`ExecutorError::result_bytes`], and redundancy verification compares those bytes
//! with the other runners' results byte for byte. Its text is therefore built only from the job
//! (its input, its sizes) and the executor's fixed limits — never pointers, timings, addresses or
//! a library's own error text, which could differ between two honest runners. A transient failure
//! posts nothing: the daemon may retry, or let the job time out.

use drover_types::args::ArgsBuilder;

/// Why a job produced no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecutorError {
    /// The job fails the same way on every honest runner (input that does not decode, an invalid
    /// module, a trap, out of fuel, a result above the limit, an unknown job type). The text is
    /// stable: it is posted as the job's result (see [`ExecutorError::result_bytes`]).
    #[error("job failed: {0}")]
    Deterministic(String),
    /// This runner could not run the job now (network failure, timeout, a host its allowlist
    /// refuses, a non-2xx answer, a job type it does not enable). Nothing is posted.
    #[error("job not run: {0}")]
    Transient(String),
}

impl ExecutorError {
    /// The bytes a runner posts as the job's result for a deterministic failure: the canonical
    /// CBOR map `{"error": text}`. `None` for a transient failure, which posts nothing.
    pub fn result_bytes(&self) -> Option<Vec<u8>> {
        match self {
            ExecutorError::Deterministic(text) => Some(ArgsBuilder::new().text("error", text).encode()),
            ExecutorError::Transient(_) => None,
        }
    }

    /// Whether this failure is the job's result (see [`ExecutorError::Deterministic`]).
    pub fn is_deterministic(&self) -> bool {
        matches!(self, ExecutorError::Deterministic(_))
    }

    /// A result of `len` bytes refused by the runner's output limit.
    pub(crate) fn output_too_large(len: usize, max_output_bytes: usize) -> Self {
        ExecutorError::Deterministic(format!("output of {len} bytes, above the limit of {max_output_bytes}"))
    }
}

/// Why an [`ExecutorConfig`](crate::ExecutorConfig) is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `enabled` names a job type no executor implements.
    #[error("unknown executor {0:?}; known executors are {known}", known = crate::KNOWN_JOB_TYPES.join(", "))]
    UnknownExecutor(String),
    /// `enabled` names a job type twice (a runner offers each job type once).
    #[error("executor {0:?} is enabled twice")]
    DuplicateExecutor(String),
    /// `max_output_bytes` is above the largest result the dispatcher records
    /// (`drover_types::job::MAX_JOB_RESULT_BYTES`): such a result could never be posted.
    #[error(
        "an output limit of {0} bytes is above the {max} bytes a job result may have",
        max = drover_types::job::MAX_JOB_RESULT_BYTES
    )]
    OutputLimitAboveChain(usize),
    /// An `http_allow` entry is not `"host"` or `"host:port"`.
    #[error("invalid http allowlist entry {entry:?}: {reason}")]
    InvalidAllowEntry {
        /// The entry as given.
        entry: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// `http` is enabled with an `http_timeout_ms` of 0, which no fetch could meet.
    #[error("the http timeout must be at least 1 ms")]
    ZeroHttpTimeout,
    /// The HTTP client could not be built (its TLS backend failed to start).
    #[error("cannot build the http client: {0}")]
    HttpClient(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::args::Args;

    #[test]
    fn a_deterministic_failure_posts_a_canonical_error_map() {
        let err = ExecutorError::Deterministic("out of fuel".into());
        let bytes = err.result_bytes().unwrap();
        // {"error": "out of fuel"}: a one-entry map, a 5-byte text key, an 11-byte text value.
        let mut expected = vec![0xa1, 0x65];
        expected.extend_from_slice(b"error");
        expected.push(0x6b);
        expected.extend_from_slice(b"out of fuel");
        assert_eq!(bytes, expected);
        let args = Args::decode(&bytes).unwrap();
        args.only(&["error"]).unwrap();
        assert_eq!(args.text("error").unwrap(), "out of fuel");
        assert!(err.is_deterministic());
    }

    #[test]
    fn a_transient_failure_posts_nothing() {
        let err = ExecutorError::Transient("connection refused".into());
        assert_eq!(err.result_bytes(), None);
        assert!(!err.is_deterministic());
    }
}
