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
//! The limits in [`ExecutorConfig`] are the runner's own, but a failure they cause (an output
//! above `max_output_bytes`, fuel above `wasm_max_fuel`) is posted as deterministic: runners that
//! are meant to agree keep the defaults ([`DEFAULT_MAX_OUTPUT_BYTES`],
//! [`DEFAULT_WASM_MAX_FUEL`]).
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
//! ## `wasm`
//!
//! A canonical CBOR map (as `drover_types::args` writes it: definite lengths, shortest integer
//! forms, keys sorted shorter first then bytewise) with exactly these three keys, in this order:
//!
//! | key | CBOR value |
//! | --- | --- |
//! | `"fuel"` | unsigned integer (major type 0) ≤ the runner's `wasm_max_fuel`: the wasmi fuel budget |
//! | `"input"` | byte string (major type 2): the bytes handed to the module |
//! | `"module"` | byte string: a WebAssembly binary of at most [`wasm::WASM_MAX_MODULE_BYTES`] |
//!
//! so the bytes are `a3 64 "fuel" <uint> 65 "input" <bytes> 66 "module" <bytes>`; with fuel
//! 1000, input `I` and module `M` (the layout only: `M` is no module) they are
//! `a3 64 6675656c 1903e8 65 696e707574 41 49 66 6d6f64756c65 41 4d`. The module
//! imports nothing, uses no floats, and exports `memory`, `alloc(len: i32) -> i32` and
//! `run(ptr: i32, len: i32) -> i64`. The runner calls `alloc(input length)`, writes the input at
//! the offset it returns, calls `run(that offset, input length)`, and takes as the result the
//! bytes of memory at offset `ret >> 32` (unsigned), length `ret & 0xffff_ffff`, which must lie
//! inside memory and be at most `max_output_bytes` long. Limits and determinism: [`wasm`].
//!
//! ## `http`
//!
//! A canonical CBOR map with exactly one key: `a1 63 "url" <text>`, the text (major type 3) an
//! absolute `http://` or `https://` URL; `http://h/` is `a1 63 75726c 69 687474703a2f2f682f`. The runner GETs it without following redirects, within
//! `http_timeout_ms` in all, and the result is the response body (at most `max_output_bytes`)
//! when the status is 2xx. A URL that does not parse or has another scheme, and a body over the
//! limit, are deterministic failures; a host not on this runner's `http_allow` list, a network
//! failure, the timeout and a non-2xx status are transient. Details: [`http`].
//!
//! # Secrets
//!
//! A runner opens the secrets a job names (`docs/secrets.md`) only for jobs whose executor keeps
//! them out of the result ([`Executors::takes_secrets`]). That is `wasm` alone: its module gets
//! them and decides what its output shows. With secrets, the module's input is no longer the
//! job's `input` but the canonical CBOR map `{"input": bytes, "secrets": {name: value}}` (the
//! job's `input`, then each secret's name as a text key and its value as a byte string), so
//! `a2 65 "input" <bytes> 67 "secrets" a1 <name> <value>` for one secret. `echo` returns its
//! input and `http` sends it to a server, so both refuse to be given secrets, a deterministic
//! failure: whatever they were handed would end up on chain, or at a host the job chose.
//!
//! # Result of a deterministic failure
//!
//! The canonical CBOR map `{"error": text}`: `a1` (a map of one entry), `65 "error"` (the text
//! key), then the text of the failure as a CBOR text string (major type 3, shortest length).
//! For example the failure `out of fuel` is posted as
//! `a1 65 6572726f72 6b 6f7574206f66206675656c`.

pub mod echo;
mod error;
pub mod http;
pub mod wasm;

pub use error::{ConfigError, ExecutorError};

use drover_types::job::MAX_JOB_RESULT_BYTES;

/// The job types this crate implements, in the order [`Executors::offers`] would list them all.
pub const KNOWN_JOB_TYPES: &[&str] = &["echo", "wasm", "http"];

/// Secrets a runner opened for a job: each name with its value, in name order.
pub type Secrets = std::collections::BTreeMap<String, Vec<u8>>;

/// Default `max_output_bytes`: the largest result the dispatcher accepts in a `submit_result`
/// ([`MAX_JOB_RESULT_BYTES`], 16 KiB), which is also the most a runner may configure.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = MAX_JOB_RESULT_BYTES;

/// Default `wasm_max_fuel`: 10^9 units of wasmi fuel (about one per instruction), a few seconds
/// of compute.
pub const DEFAULT_WASM_MAX_FUEL: u64 = 1_000_000_000;

/// Default `http_timeout_ms`: 10 s for a whole fetch (connect, headers and body).
pub const DEFAULT_HTTP_TIMEOUT_MS: u64 = 10_000;

/// A job type this crate implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JobType {
    Echo,
    Wasm,
    Http,
}

impl JobType {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "echo" => Some(JobType::Echo),
            "wasm" => Some(JobType::Wasm),
            "http" => Some(JobType::Http),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            JobType::Echo => "echo",
            JobType::Wasm => "wasm",
            JobType::Http => "http",
        }
    }

    /// Why this job type is not given secrets, or `None` when it is (see the crate
    /// documentation).
    fn refuses_secrets(self) -> Option<&'static str> {
        match self {
            JobType::Echo => Some("an echo job's result is its input"),
            JobType::Http => Some("an http job sends its input to the server it names"),
            JobType::Wasm => None,
        }
    }
}

/// What a runner enables and the limits its executors run under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorConfig {
    /// The job types this runner runs, e.g. `["echo"]`; each a name from [`KNOWN_JOB_TYPES`],
    /// once.
    pub enabled: Vec<String>,
    /// Most fuel a `wasm` job may ask for; a job asking for more is a deterministic failure.
    pub wasm_max_fuel: u64,
    /// Where `http` jobs may fetch from: entries `"host"` (any port) or `"host:port"`, IPv6
    /// addresses in brackets. A URL elsewhere is a transient failure.
    pub http_allow: Vec<String>,
    /// Deadline of a whole `http` fetch, in milliseconds; at least 1 when `http` is enabled.
    pub http_timeout_ms: u64,
    /// Largest result of any job, in bytes (at most [`MAX_JOB_RESULT_BYTES`], which the
    /// dispatcher would refuse to record); a larger one is a deterministic failure.
    pub max_output_bytes: usize,
}

impl Default for ExecutorConfig {
    /// No job type enabled, every limit at its default.
    fn default() -> Self {
        ExecutorConfig {
            enabled: Vec::new(),
            wasm_max_fuel: DEFAULT_WASM_MAX_FUEL,
            http_allow: Vec::new(),
            http_timeout_ms: DEFAULT_HTTP_TIMEOUT_MS,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

/// The executors of the job types a runner enabled.
#[derive(Debug)]
pub struct Executors {
    /// In the configuration's order, so that [`Executors::offers`] is stable.
    enabled: Vec<JobType>,
    max_output_bytes: usize,
    /// Present when `wasm` is enabled.
    wasm: Option<wasm::WasmExecutor>,
    /// Present when `http` is enabled.
    http: Option<http::HttpExecutor>,
}

impl Executors {
    /// Builds the executors `config` enables, refusing a name no executor implements, a name
    /// given twice, or an output limit above what the chain records. The `http` settings are
    /// checked only when `http` is enabled.
    pub fn new(config: ExecutorConfig) -> Result<Self, ConfigError> {
        if config.max_output_bytes > MAX_JOB_RESULT_BYTES {
            return Err(ConfigError::OutputLimitAboveChain(config.max_output_bytes));
        }
        let mut enabled = Vec::with_capacity(config.enabled.len());
        for name in &config.enabled {
            let job_type = JobType::parse(name).ok_or_else(|| ConfigError::UnknownExecutor(name.clone()))?;
            if enabled.contains(&job_type) {
                return Err(ConfigError::DuplicateExecutor(name.clone()));
            }
            enabled.push(job_type);
        }
        let wasm = enabled
            .contains(&JobType::Wasm)
            .then(|| wasm::WasmExecutor::new(config.wasm_max_fuel, config.max_output_bytes));
        let http = if enabled.contains(&JobType::Http) {
            Some(http::HttpExecutor::new(&config.http_allow, config.http_timeout_ms, config.max_output_bytes)?)
        } else {
            None
        };
        Ok(Executors { enabled, max_output_bytes: config.max_output_bytes, wasm, http })
    }

    /// The job types this runner runs, in the configuration's order: what it registers as its
    /// capabilities' `job_types`.
    pub fn offers(&self) -> Vec<String> {
        self.enabled.iter().map(|job_type| job_type.name().to_owned()).collect()
    }

    /// Whether jobs of `job_type` may be given secrets: `wasm` only (see the crate
    /// documentation). A runner checks it before opening any secret a job names.
    pub fn takes_secrets(job_type: &str) -> bool {
        JobType::parse(job_type).is_some_and(|kind| kind.refuses_secrets().is_none())
    }

    /// Runs one job of type `job_type` on `input`.
    ///
    /// A job type no executor implements is a deterministic failure (no honest runner can run
    /// it); one this runner merely does not enable is transient (another runner may). Call it
    /// within a tokio runtime: `wasm` jobs run on its blocking pool, `http` jobs on its reactor.
    pub async fn run(&self, job_type: &str, input: &[u8]) -> Result<Vec<u8>, ExecutorError> {
        self.run_with_secrets(job_type, input, &Secrets::new()).await
    }

    /// Runs one job of type `job_type` on `input` with the `secrets` its runner opened for it:
    /// like [`Executors::run`], except that a job type that is not given secrets
    /// ([`Executors::takes_secrets`]) refuses any (a deterministic failure).
    pub async fn run_with_secrets(
        &self,
        job_type: &str,
        input: &[u8],
        secrets: &Secrets,
    ) -> Result<Vec<u8>, ExecutorError> {
        let Some(kind) = JobType::parse(job_type) else {
            return Err(ExecutorError::Deterministic(format!("unknown job type {}", quoted(job_type))));
        };
        if let Some(why) = kind.refuses_secrets().filter(|_| !secrets.is_empty()) {
            return Err(ExecutorError::Deterministic(format!("a {job_type} job is not given secrets: {why}")));
        }
        let not_enabled = || ExecutorError::Transient(format!("job type {job_type:?} is not enabled on this runner"));
        if !self.enabled.contains(&kind) {
            return Err(not_enabled());
        }
        match kind {
            JobType::Echo => echo::run(input, self.max_output_bytes),
            JobType::Wasm => self.wasm.as_ref().ok_or_else(not_enabled)?.run(input, secrets).await,
            JobType::Http => self.http.as_ref().ok_or_else(not_enabled)?.run(input).await,
        }
    }
}

/// Longest piece of job-controlled text quoted in a deterministic failure, in bytes: the failure
/// is posted on chain, so it must not grow with whatever the job put there.
const MAX_QUOTED_BYTES: usize = 64;

/// `text` in double quotes (escaped as Rust's `Debug` does), cut after [`MAX_QUOTED_BYTES`] bytes
/// with a `...` that says so.
pub(crate) fn quoted(text: &str) -> String {
    if text.len() <= MAX_QUOTED_BYTES {
        return format!("{text:?}");
    }
    let mut end = MAX_QUOTED_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}...", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::args::ArgsBuilder;

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
    fn refuses_an_output_limit_the_chain_would_not_record() {
        let config = |max_output_bytes| ExecutorConfig { max_output_bytes, ..ExecutorConfig::default() };
        Executors::new(config(MAX_JOB_RESULT_BYTES)).unwrap();
        assert_eq!(
            Executors::new(config(MAX_JOB_RESULT_BYTES + 1)).unwrap_err(),
            ConfigError::OutputLimitAboveChain(MAX_JOB_RESULT_BYTES + 1)
        );
    }

    #[test]
    fn checks_http_settings_only_when_http_is_enabled() {
        let config = |enabled: &str| ExecutorConfig {
            enabled: vec![enabled.to_owned()],
            http_allow: vec!["no/such host".into()],
            http_timeout_ms: 0,
            ..ExecutorConfig::default()
        };
        Executors::new(config("echo")).unwrap();
        assert_eq!(Executors::new(config("http")).unwrap_err(), ConfigError::ZeroHttpTimeout);
        let bad_entry = ExecutorConfig { http_timeout_ms: 1, ..config("http") };
        assert!(matches!(Executors::new(bad_entry), Err(ConfigError::InvalidAllowEntry { .. })));
    }

    #[test]
    fn offers_the_enabled_job_types() {
        assert_eq!(executors(&["echo"]).unwrap().offers(), ["echo"]);
        assert_eq!(executors(&["wasm", "echo"]).unwrap().offers(), ["wasm", "echo"]);
        assert_eq!(executors(&["http", "wasm", "echo"]).unwrap().offers(), ["http", "wasm", "echo"]);
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
        assert!(matches!(none.run("wasm", b"abc").await, Err(ExecutorError::Transient(_))));
        let long = "x".repeat(100);
        assert_eq!(
            all.run(&long, b"").await.unwrap_err(),
            ExecutorError::Deterministic(format!("unknown job type \"{}\"...", "x".repeat(64)))
        );
    }

    #[test]
    fn input_formats_are_as_documented() {
        let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let wasm = ArgsBuilder::new().bytes("module", b"M").bytes("input", b"I").uint("fuel", 1000).encode();
        assert_eq!(hex(&wasm), "a3646675656c1903e865696e7075744149666d6f64756c65414d");
        let http = ArgsBuilder::new().text("url", "http://h/").encode();
        assert_eq!(hex(&http), "a16375726c69687474703a2f2f682f");
        let error = ExecutorError::Deterministic("out of fuel".into()).result_bytes().unwrap();
        assert_eq!(hex(&error), "a1656572726f726b6f7574206f66206675656c");
    }

    #[test]
    fn executors_can_be_shared_between_tasks() {
        fn shared<T: Send + Sync>(_: &T) {}
        fn spawnable<F: std::future::Future + Send>(_: F) {}
        let executors = executors(&["echo", "wasm", "http"]).unwrap();
        shared(&executors);
        spawnable(executors.run("echo", b""));
    }

    #[test]
    fn quotes_at_most_the_limit_on_a_char_boundary() {
        assert_eq!(quoted("ab"), "\"ab\"");
        let text = format!("{}é", "a".repeat(63));
        assert_eq!(quoted(&text), format!("\"{}\"...", "a".repeat(63)));
    }

    #[tokio::test]
    async fn only_wasm_is_given_secrets() {
        let secrets = Secrets::from([("db-url".to_owned(), b"postgres://s3cret".to_vec())]);
        let all = executors(&["echo", "http", "wasm"]).unwrap();
        for job_type in ["echo", "http"] {
            assert!(!Executors::takes_secrets(job_type));
            let refused = all.run_with_secrets(job_type, b"hi", &secrets).await.unwrap_err();
            assert!(matches!(&refused, ExecutorError::Deterministic(text) if text.contains("not given secrets")));
            assert!(!String::from_utf8_lossy(&refused.result_bytes().unwrap()).contains("s3cret"));
        }
        assert!(!Executors::takes_secrets("gpu"));
        // Refused even by a runner that does not enable the type: every runner posts the same.
        let none = executors(&[]).unwrap();
        assert!(none.run_with_secrets("echo", b"hi", &secrets).await.unwrap_err().is_deterministic());

        // A wasm module gets {"input", "secrets": {name: value}}; this one returns its input
        // whole, which shows the layout of the crate documentation.
        assert!(Executors::takes_secrets("wasm"));
        let module = wat::parse_str(
            r#"(module (memory (export "memory") 1)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.extend_i32_u (local.get 1))))"#,
        )
        .unwrap();
        let input = ArgsBuilder::new().bytes("module", &module).bytes("input", b"hi").uint("fuel", 100).encode();
        let seen = all.run_with_secrets("wasm", &input, &secrets).await.unwrap();
        let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(&seen),
            format!(
                "a265{}42686967{}a166{}51{}",
                hex(b"input"),
                hex(b"secrets"),
                hex(b"db-url"),
                hex(b"postgres://s3cret")
            )
        );
        assert_eq!(all.run_with_secrets("wasm", &input, &Secrets::new()).await.unwrap(), b"hi");
    }

    #[tokio::test]
    async fn runs_wasm_jobs() {
        let module = wat::parse_str(
            r#"(module (memory (export "memory") 1)
                 (func (export "alloc") (param i32) (result i32) (i32.const 0))
                 (func (export "run") (param i32 i32) (result i64) (i64.extend_i32_u (local.get 1))))"#,
        )
        .unwrap();
        let input = ArgsBuilder::new().bytes("module", &module).bytes("input", b"hi").uint("fuel", 100).encode();
        assert_eq!(executors(&["wasm"]).unwrap().run("wasm", &input).await.unwrap(), b"hi");
    }
}
