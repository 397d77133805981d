//! Secrets named in a job's input, opened by the runner that runs it (`docs/secrets.md`).
//!
//! A job whose input is the canonical CBOR map `{"input": bytes, "secrets": [[owner bytes(20),
//! name text], ...]}` (at most [`MAX_JOB_SECRETS`]) names secrets its runners are readers of.
//! The daemon runs such a job only when two rules hold, and opens nothing otherwise:
//!
//! - **The owner's own jobs only.** Every secret named belongs to the job's submitter (the
//!   account or actor the chain records as having submitted it). A reader's envelope is the
//!   owner's grant to this runner for the owner's work; anyone else naming the secret would
//!   have the runner compute on it for them (the confused deputy). Another owner's secret is a
//!   deterministic failure, posted as the result like any bad job, so every runner answers the
//!   same without fetching a single envelope.
//! - **An executor that keeps them.** Only job types whose executor is given secrets
//!   (`drover_job_executors::Executors::takes_secrets`: `wasm`, whose module decides what its output
//!   shows) run with them; `echo` would publish them and `http` send them to a host the job
//!   chose, so such a job is a deterministic failure too.
//!
//! Then the daemon fetches its own envelope of each (`GET /secrets/{owner}/{name}/envelope/
//! {runner}`), opens it with its key, and runs the executor on the job's `input` with the opened
//! values. Every runner that reads the same secrets sees the same bytes, so redundancy still
//! compares like with like. A secret this runner holds no envelope of, or cannot open, is a
//! transient failure: it posts nothing (the job may go to other readers, or time out). Any
//! other input is given to the executor unchanged.

use drover_client::{Client, secrets::open};
use drover_job_executors::{ExecutorError, Executors, Secrets};
use drover_types::{Address, SecretKey, api::JobInfo, args::Args, secrets::check_name};
use minicbor::decode::Decoder;

/// Most secrets one job names.
pub(crate) const MAX_JOB_SECRETS: usize = 8;

/// A job input that names secrets: the input proper and the `(owner, name)` pairs.
struct Named<'a> {
    input: &'a [u8],
    secrets: Vec<(Address, String)>,
}

/// The `(owner, name)` pairs of a `secrets` array, or `None` when it is not one.
fn pairs(encoded: &[u8]) -> Option<Vec<(Address, String)>> {
    let mut d = Decoder::new(encoded);
    let len = d.array().ok()??;
    if len as usize > MAX_JOB_SECRETS {
        return None;
    }
    let mut out = Vec::new();
    for _ in 0..len {
        if d.array().ok()? != Some(2) {
            return None;
        }
        let owner = Address::from_slice(d.bytes().ok()?)?;
        out.push((owner, d.str().ok()?.to_owned()));
    }
    (d.position() == encoded.len()).then_some(out)
}

/// The secrets `input` names, or `None` when it is not the map that names them.
fn named(input: &[u8]) -> Option<Named<'_>> {
    let args = Args::decode(input).ok()?;
    args.only(&["input", "secrets"]).ok()?;
    Some(Named { input: args.bytes("input").ok()?, secrets: pairs(args.encoded("secrets").ok()?)? })
}

/// Why `job`, which names `secrets`, is not run with them (a deterministic failure), or `None`
/// when it may be.
fn refusal(job: &JobInfo, secrets: &[(Address, String)]) -> Option<String> {
    if !Executors::takes_secrets(&job.job_type) {
        // The type is quoted only when it is one of the few known names: the text goes on chain.
        let known = drover_job_executors::KNOWN_JOB_TYPES.iter().find(|known| **known == job.job_type);
        return Some(match known {
            Some(job_type) => format!("{job_type} jobs are not given secrets; only wasm jobs are"),
            None => "jobs of this type are not given secrets; only wasm jobs are".to_owned(),
        });
    }
    for (owner, name) in secrets {
        if check_name(name).is_err() {
            return Some("the job names a secret whose name is not valid".to_owned());
        }
        if *owner != job.submitter {
            return Some(format!(
                "secret {name:?} belongs to {owner}, not to the job's submitter {}: a runner opens a \
                 secret only for its owner's jobs",
                job.submitter
            ));
        }
    }
    None
}

/// Runs `job` on `executors` as `runner`: with the secrets its input names when the rules allow
/// (see the module documentation), unchanged when it names none.
pub(crate) async fn run(
    client: &Client,
    runner: &SecretKey,
    executors: &Executors,
    job: &JobInfo,
) -> Result<Vec<u8>, ExecutorError> {
    let Some(named) = named(&job.input) else {
        return executors.run(&job.job_type, &job.input).await;
    };
    if let Some(why) = refusal(job, &named.secrets) {
        return Err(ExecutorError::Deterministic(why));
    }
    let mut opened = Secrets::new();
    for (owner, name) in named.secrets {
        let transient = |why: String| ExecutorError::Transient(format!("secret {name:?} of {owner}: {why}"));
        let envelope = client
            .secret_envelope(&owner, &name, &runner.address())
            .await
            .map_err(|e| transient(e.to_string()))?
            .ok_or_else(|| transient("this runner is not a reader".into()))?;
        let value = open(&owner, &name, runner, &envelope.envelope).map_err(|e| transient(e.to_string()))?;
        opened.insert(name, value);
    }
    executors.run_with_secrets(&job.job_type, named.input, &opened).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use drover_types::{api::VerificationInfo, args::ArgsBuilder, cbor::Writer};

    fn job(job_type: &str, submitter: Address, secrets: &[(Address, &str)]) -> JobInfo {
        let mut w = Writer::with_capacity(64);
        w.array(secrets.len() as u64);
        for (owner, name) in secrets {
            w.array(2).bytes(&owner.0).text(name);
        }
        let input = ArgsBuilder::new().bytes("input", b"x").raw("secrets", w.into_inner()).encode();
        JobInfo {
            job_id: drover_types::H256::ZERO,
            submitter,
            job_type: job_type.into(),
            input,
            runners: 1,
            verification: VerificationInfo { mode: "none".into(), threshold: 1 },
            max_price: 0,
            timeout_blocks: 10,
            callback: None,
            escrow: 0,
            callback_reserve: 0,
            status: "assigned".into(),
            assigned_runners: Vec::new(),
            results_count: 0,
            submitted_height: 1,
            deadline_height: 11,
            finished_height: None,
        }
    }

    #[test]
    fn a_secret_opens_only_for_its_owners_wasm_jobs() {
        let (owner, stranger) = (Address([1; 20]), Address([2; 20]));
        let check = |info: &JobInfo| refusal(info, &named(&info.input).unwrap().secrets);
        assert_eq!(check(&job("wasm", owner, &[(owner, "db-url")])), None);
        let theft = check(&job("wasm", stranger, &[(owner, "db-url")])).unwrap();
        assert!(theft.contains("not to the job's submitter"), "{theft}");
        // One foreign secret among the submitter's own is enough to refuse the job.
        assert!(check(&job("wasm", owner, &[(owner, "a"), (stranger, "b")])).is_some());
        for job_type in ["echo", "http"] {
            let why = check(&job(job_type, owner, &[(owner, "db-url")])).unwrap();
            assert!(why.contains("not given secrets"), "{why}");
        }
        let odd = check(&job(&"x".repeat(200), owner, &[(owner, "db-url")])).unwrap();
        assert!(odd.len() < 80, "a job-chosen type is not quoted into the result: {odd}");
        assert!(check(&job("wasm", owner, &[(owner, "bad name")])).is_some());
        // An input that is not the map naming secrets runs unchanged.
        assert!(named(b"plain bytes").is_none());
        assert!(named(&ArgsBuilder::new().bytes("input", b"x").encode()).is_none());
    }
}
