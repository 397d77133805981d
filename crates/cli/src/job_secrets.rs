//! Secrets named in a job's input, opened by the runner that runs it (`docs/secrets.md`).
//!
//! A job whose input is the canonical CBOR map `{"input": bytes, "secrets": [[owner bytes(20),
//! name text], ...]}` (at most [`MAX_JOB_SECRETS`]) names secrets its runners are readers of.
//! The daemon fetches its own envelope of each (`GET /secrets/{owner}/{name}/envelope/{runner}`),
//! opens it with its key, and runs the executor on the canonical map `{"input": bytes,
//! "secrets": {name: value}}` instead. Every runner that reads the same secrets sees the same
//! bytes, so redundancy still compares like with like. A secret this runner holds no envelope
//! of, or cannot open, is a transient failure: it posts nothing (the job may go to other
//! readers, or time out). Any other input is given to the executor unchanged.

use drover_client::{Client, secrets::open};
use drover_executor::ExecutorError;
use drover_types::{
    Address, SecretKey,
    args::{Args, ArgsBuilder},
};
use minicbor::decode::Decoder;

/// Most secrets one job names.
pub(crate) const MAX_JOB_SECRETS: usize = 8;

/// The `(owner, name)` pairs of a `secrets` array, or `None` when it is not one.
fn named(encoded: &[u8]) -> Option<Vec<(Address, String)>> {
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

/// The input the executor runs on: `input` unchanged, or (when it names secrets) the job's
/// input with the secrets this runner opened.
pub(crate) async fn resolve(client: &Client, runner: &SecretKey, input: &[u8]) -> Result<Vec<u8>, ExecutorError> {
    let Ok(args) = Args::decode(input) else { return Ok(input.to_vec()) };
    if args.only(&["input", "secrets"]).is_err() {
        return Ok(input.to_vec());
    }
    let (Ok(job_input), Some(secrets)) = (args.bytes("input"), args.encoded("secrets").ok().and_then(named)) else {
        return Ok(input.to_vec());
    };
    let mut opened = ArgsBuilder::new();
    for (owner, name) in secrets {
        let transient = |why: String| ExecutorError::Transient(format!("secret {name:?} of {owner}: {why}"));
        let envelope = client
            .secret_envelope(&owner, &name, &runner.address())
            .await
            .map_err(|e| transient(e.to_string()))?
            .ok_or_else(|| transient("this runner is not a reader".into()))?;
        let value = open(&owner, &name, runner, &envelope.envelope).map_err(|e| transient(e.to_string()))?;
        opened = opened.bytes(&name, &value);
    }
    Ok(ArgsBuilder::new().bytes("input", job_input).map("secrets", opened).encode())
}
