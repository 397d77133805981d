//! The job executors of the reference runner daemon (`drover runner`): given a job's type and
//! input bytes, produce the result bytes the runner posts with `submit_result`.
//!
//! [`Executors`] is built once from an [`ExecutorConfig`] naming the job types this runner
//! enables; [`Executors::offers`] is what the runner registers as its `job_types`, and
//! [`Executors::run`] runs one job. A job either yields result bytes or an [`ExecutorError`]:
//! a [`Deterministic`](ExecutorError::Deterministic) failure is itself the job's result (the
//! runner posts [`ExecutorError::result_bytes`]), a [`Transient`](ExecutorError::Transient) one
//! posts nothing. Jobs are verified by redundancy — several runners' results compared byte for
//! byte — so every executor's result and every deterministic failure depends only on the job's
//! input and the executor's limits, never on the runner's clock, memory layout or network luck.
//!
//! The limits in [`ExecutorConfig`] are the runner's own, but a failure they cause
//! (an output above `max_output_bytes`) is posted as deterministic: runners that are meant to
//! agree keep the defaults ([`DEFAULT_MAX_OUTPUT_BYTES`], ...).
//!
//! # Input formats
//!
//! Each job type reads its input bytes as follows; every failure to do so is deterministic.
//!
//! ## `echo`
//!
//! Any bytes. The result is the input itself (at most `max_output_bytes` of it). For tests of
//! the job path.
//!
//! # Result of a deterministic failure
//!
//! The canonical CBOR map `{"error": text}`: `a1` (a map of one entry), `65 "error"` (the text
//! key), then the text of the failure as a CBOR text string (major type 3, shortest length).
//! For example the failure `out of fuel` is posted as
//! `a1 65 6572726f72 6b 6f7574206f66206675656c`.

mod echo;
mod error;

pub use error::{ConfigError, ExecutorError};

/// The job types this crate implements, in the order [`Executors::offers`] would list them all.
pub const KNOWN_JOB_TYPES: &[&str] = &["echo"];

/// Default `max_output_bytes`: 64 KiB, far enough under a transaction's size limit
/// (`drover_types::submission::MAX_SUBMISSION_BYTES`) that the result and the transaction
/// around it always fit.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 * 1024;

/// A job type this crate implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JobType {
    Echo,
}

impl JobType {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "echo" => Some(JobType::Echo),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            JobType::Echo => "echo",
        }
    }
}

/// What a runner enables and the limits its executors run under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorConfig {
    /// The job types this runner runs, e.g. `["echo"]`; each a name from [`KNOWN_JOB_TYPES`],
    /// once.
    pub enabled: Vec<String>,
    /// Largest result of any job, in bytes; a larger one is a deterministic failure.
    pub max_output_bytes: usize,
}

impl Default for ExecutorConfig {
    /// No job type enabled, every limit at its default.
    fn default() -> Self {
        ExecutorConfig { enabled: Vec::new(), max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES }
    }
}

/// The executors of the job types a runner enabled.
#[derive(Debug)]
pub struct Executors {
    /// In the configuration's order, so that [`Executors::offers`] is stable.
    enabled: Vec<JobType>,
    max_output_bytes: usize,
}

impl Executors {
    /// Builds the executors `config` enables, refusing a name no executor implements or a name
    /// given twice.
    pub fn new(config: ExecutorConfig) -> Result<Self, ConfigError> {
        let mut enabled = Vec::with_capacity(config.enabled.len());
        for name in &config.enabled {
            let job_type = JobType::parse(name).ok_or_else(|| ConfigError::UnknownExecutor(name.clone()))?;
            if enabled.contains(&job_type) {
                return Err(ConfigError::DuplicateExecutor(name.clone()));
            }
            enabled.push(job_type);
        }
        Ok(Executors { enabled, max_output_bytes: config.max_output_bytes })
    }

    /// The job types this runner runs, in the configuration's order: what it registers as its
    /// capabilities' `job_types`.
    pub fn offers(&self) -> Vec<String> {
        self.enabled.iter().map(|job_type| job_type.name().to_owned()).collect()
    }

    /// Runs one job of type `job_type` on `input`.
    ///
    /// A job type no executor implements is a deterministic failure (no honest runner can run
    /// it); one this runner merely does not enable is transient (another runner may).
    pub async fn run(&self, job_type: &str, input: &[u8]) -> Result<Vec<u8>, ExecutorError> {
        let Some(kind) = JobType::parse(job_type) else {
            return Err(ExecutorError::Deterministic(format!("unknown job type {job_type:?}")));
        };
        if !self.enabled.contains(&kind) {
            return Err(ExecutorError::Transient(format!("job type {job_type:?} is not enabled on this runner")));
        }
        match kind {
            JobType::Echo => echo::run(input, self.max_output_bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executors(enabled: &[&str]) -> Result<Executors, ConfigError> {
        Executors::new(ExecutorConfig {
            enabled: enabled.iter().map(|name| (*name).to_owned()).collect(),
            ..ExecutorConfig::default()
        })
    }

    #[test]
    fn refuses_unknown_and_repeated_executors() {
        assert_eq!(executors(&["echo", "gpu"]).unwrap_err(), ConfigError::UnknownExecutor("gpu".into()));
        assert_eq!(executors(&["echo", "echo"]).unwrap_err(), ConfigError::DuplicateExecutor("echo".into()));
        // Names are exact: job types on chain are lower case.
        assert_eq!(executors(&["Echo"]).unwrap_err(), ConfigError::UnknownExecutor("Echo".into()));
    }

    #[test]
    fn offers_the_enabled_job_types() {
        assert_eq!(executors(&["echo"]).unwrap().offers(), ["echo"]);
        assert!(executors(&[]).unwrap().offers().is_empty());
    }

    #[tokio::test]
    async fn runs_echo_and_classifies_other_job_types() {
        let all = executors(&["echo"]).unwrap();
        assert_eq!(all.run("echo", b"abc").await.unwrap(), b"abc");
        assert_eq!(
            all.run("gpu", b"abc").await.unwrap_err(),
            ExecutorError::Deterministic("unknown job type \"gpu\"".into())
        );
        let none = executors(&[]).unwrap();
        assert!(matches!(none.run("echo", b"abc").await, Err(ExecutorError::Transient(_))));
    }
}
