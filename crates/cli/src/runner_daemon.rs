//! `drover runner`: the reference runner daemon — registration, heartbeats and jobs.
//!
//! On start it reads its record (`GET /runner/{address}`) and registers with `--stake` when it
//! is not a registered runner, offering the job types of its `--executors`. Then it keeps itself
//! healthy: whenever its last heartbeat is `--heartbeat-blocks` old it sends one through the
//! signed flow (`heartbeat_payload`, sign the message, `POST heartbeat`). And it works: it lists
//! `GET /runner/{address}/jobs` (assigned jobs it has not answered), runs each on the executor
//! of its type (`drover_job_executors`: echo, wasm, http) at most `--max-concurrent-jobs` at once,
//! and posts each result through the job-result flow as soon as it is ready. A deterministic
//! failure (a bad job) is posted as the result `{"error": text}`, so that redundancy compares it
//! like any result; a transient one (network, a host not allowed) posts nothing and the job is
//! tried again.
//!
//! It looks at the chain when a block is finalized (`GET /stream/blocks`: a job is assigned by
//! a block, so it waits no poll interval to be seen) and at least every `--poll-interval-ms`
//! (the stream may be refused or cut; it is then opened again after [`RETRY_DELAY_MS`]). Looks
//! and posts happen in one loop, one after the other: the node gives each result transaction
//! the runner's next nonce, pending ones included, so two payloads fetched at once would share
//! a nonce.
//!
//! The node builds every transaction the daemon signs; the daemon checks that each is the one
//! it asked for (destination, call, no value) and that the message is its signing hash before
//! signing, so a node cannot make it sign anything else.
//!
//! No double submission: the daemon remembers the jobs it answered until the chain no longer
//! lists them, and a restarted daemon first waits until its earlier transactions have left the
//! mempool (its account's nonce equals the next nonce the node would give it), so the jobs
//! still listed are exactly those not answered. Every request that fails (the node restarting,
//! a refusal) is logged and retried after [`RETRY_DELAY_MS`]; the daemon itself stops only on
//! SIGINT or SIGTERM. `--faulty` (for tests) posts a wrong result for every job, and
//! `--answer-delay-ms` (for tests) holds each result before posting it.

use crate::heartbeat::HeartbeatPace;
use crate::report::Text;
use crate::submission::sign_and_submit;
use anyhow::{Context, Result, bail};
use clap::Args;
use drover_client::amount::parse_amount;
use drover_client::{Client, TxBuilder, Wallet};
use drover_job_executors::{ExecutorConfig, Executors};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, ErrorCode, H256, Transaction,
    api::{JobInfo, SignedFlowPayload, SignedFlowRequest},
    job::{JOB_DISPATCHER_ADDRESS, JobCall, MAX_JOB_RESULT_BYTES},
    runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall},
};
use std::collections::{HashMap, HashSet};
use std::{path::PathBuf, sync::Arc, time::Duration};
use tokio::sync::Notify;
use tokio::task::{JoinError, JoinSet};
use tokio::time::{Instant, sleep_until};

/// Default longest wait between two looks at the chain, in milliseconds (a finalized block
/// brings the next look sooner).
const POLL_INTERVAL_MS: u64 = 250;
/// Wait after a failed request before trying again, in milliseconds.
const RETRY_DELAY_MS: u64 = 2_000;
/// Largest page of `/runner/{address}/jobs` (the API's page cap).
const RUNNER_JOBS_PAGE_MAX: u64 = 1_000;

#[derive(Debug, Args)]
pub(crate) struct RunnerArgs {
    /// Key file of the runner's account (default: `DROVER_KEY`, then the project's
    /// `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Stake to register with when not registered: base units or DRV (`1.5drv`).
    #[arg(long, value_parser = parse_amount, default_value_t = MIN_RUNNER_STAKE)]
    stake: u128,
    /// Price per job, in base units or DRV.
    #[arg(long, value_parser = parse_amount, default_value_t = 0)]
    price: u128,
    /// Executors to run, comma-separated (echo, wasm, http): the job types offered.
    #[arg(long, value_delimiter = ',', default_value = "echo")]
    executors: Vec<String>,
    /// Jobs run at once.
    #[arg(long, default_value_t = 4)]
    max_concurrent_jobs: u64,
    /// Longest wait between two looks at the chain, in milliseconds: the daemon looks at every
    /// finalized block it is told of (`/stream/blocks`), and at this pace when no block comes.
    #[arg(long, default_value_t = POLL_INTERVAL_MS, value_parser = clap::value_parser!(u64).range(1..))]
    poll_interval_ms: u64,
    /// Send a heartbeat when the last one is this many blocks old (default a fifth of the
    /// chain's live `heartbeat_gap_blocks`; at most half of it, so the runner never turns
    /// unhealthy).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    heartbeat_blocks: Option<u64>,
    /// Most fuel a wasm job may ask for.
    #[arg(long, default_value_t = drover_job_executors::DEFAULT_WASM_MAX_FUEL)]
    wasm_max_fuel: u64,
    /// Hosts (`host` or `host:port`) http jobs may fetch from, comma-separated.
    #[arg(long, value_delimiter = ',')]
    http_allow: Vec<String>,
    /// Time an http job may take, in milliseconds.
    #[arg(long, default_value_t = drover_job_executors::DEFAULT_HTTP_TIMEOUT_MS)]
    http_timeout_ms: u64,
    /// Test switch: post a wrong result for every job (it loses reputation and is not paid).
    #[arg(long)]
    faulty: bool,
    /// Test switch: hold each result this long before posting it, in milliseconds (so that
    /// another runner's answer lands first).
    #[arg(long, default_value_t = 0)]
    answer_delay_ms: u64,
}

/// The daemon's memory between two looks at the chain.
struct Daemon {
    client: Client,
    wallet: Wallet,
    args: RunnerArgs,
    capabilities: Capabilities,
    executors: Arc<Executors>,
    /// Height at which this process last sent a heartbeat: not another one until it is due
    /// again, even while the first waits for its block.
    sent_at: Option<u64>,
    /// How many blocks old the last heartbeat may grow (below the chain's live gap).
    pace: HeartbeatPace,
    /// Whether the registered record was brought to this run's flags.
    record_checked: bool,
    /// Whether transactions of an earlier run have left the mempool (see the module docs).
    settled: bool,
    /// Jobs being run, each task answering its result (`None`: a transient failure).
    running: JoinSet<Option<Vec<u8>>>,
    /// The job each task of `running` runs.
    tasks: HashMap<tokio::task::Id, H256>,
    /// Results run but not posted yet (the post failed: the node was away): posted again at the
    /// next look rather than run again.
    unposted: HashMap<H256, Vec<u8>>,
    /// Jobs answered and still listed by the chain (the answer not included yet).
    answered: HashSet<H256>,
}

/// Runs the daemon until SIGINT or SIGTERM.
pub(crate) async fn run(args: RunnerArgs, rpc_url: &str) -> Result<()> {
    let executors = Executors::new(ExecutorConfig {
        enabled: args.executors.clone(),
        wasm_max_fuel: args.wasm_max_fuel,
        http_allow: args.http_allow.clone(),
        http_timeout_ms: args.http_timeout_ms,
        max_output_bytes: MAX_JOB_RESULT_BYTES,
    })
    .context("invalid --executors")?;
    let capabilities = Capabilities { job_types: executors.offers(), max_concurrent_jobs: args.max_concurrent_jobs };
    capabilities.check().map_err(anyhow::Error::msg).context("invalid --executors or --max-concurrent-jobs")?;
    let wallet = crate::project::wallet(args.key.as_deref())?;
    let client = Client::new(rpc_url).context("check --rpc-url or DROVER_RPC_URL")?;
    println!("runner {} on {} running {}", wallet.address(), client.base_url(), capabilities.job_types.join(", "));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let pace = HeartbeatPace::new(args.heartbeat_blocks);
    let mut daemon = Daemon {
        client,
        wallet,
        args,
        capabilities,
        executors: Arc::new(executors),
        sent_at: None,
        pace,
        record_checked: false,
        settled: false,
        running: JoinSet::new(),
        tasks: HashMap::new(),
        unposted: HashMap::new(),
        answered: HashSet::new(),
    };
    let finalized = Arc::new(Notify::new());
    let poll_interval_ms = daemon.args.poll_interval_ms;
    let watcher = tokio::spawn(watch_blocks(daemon.client.clone(), Arc::clone(&finalized), poll_interval_ms));
    // When the next look is due; a finalized block brings it forward, and a finished job is
    // posted at once, unless a failure holds the daemon back until then.
    let mut next_look = Instant::now();
    let mut backing_off = false;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
            Some(done) = daemon.running.join_next_with_id(), if !backing_off => {
                daemon.answer(done).await;
                continue;
            }
            () = sleep_until(next_look) => {}
            () = finalized.notified(), if !backing_off => {}
        }
        (next_look, backing_off) = match daemon.step().await {
            Ok(()) => (Instant::now() + Duration::from_millis(daemon.args.poll_interval_ms), false),
            Err(error) => {
                eprintln!("runner: {error:#}; trying again in {RETRY_DELAY_MS} ms");
                (Instant::now() + Duration::from_millis(RETRY_DELAY_MS), true)
            }
        };
    }
    watcher.abort();
    daemon.running.shutdown().await;
    println!("runner {} stopped", daemon.wallet.address());
    Ok(())
}

/// Wakes the daemon at every finalized block, for as long as it runs: the stream of blocks,
/// opened again [`RETRY_DELAY_MS`] after it fails or ends, from the next block (a missed block
/// needs no wake: the next look lists every open job). A failure is logged once until the
/// stream works again: a node that refuses streams leaves the daemon on its poll interval, not
/// a log line every retry.
async fn watch_blocks(client: Client, finalized: Arc<Notify>, poll_interval_ms: u64) {
    let mut failing = false;
    loop {
        let outcome = match client.stream_blocks(None, None).await {
            Ok(mut stream) => loop {
                match stream.next().await {
                    Ok(Some(_)) => {
                        failing = false;
                        finalized.notify_one();
                    }
                    Ok(None) => break Ok(()),
                    Err(error) => break Err(error),
                }
            },
            Err(error) => Err(error),
        };
        if let Err(error) = outcome {
            if !failing {
                eprintln!(
                    "runner: the stream of blocks failed ({error}); polling every {poll_interval_ms} ms meanwhile"
                );
            }
            failing = true;
        }
        tokio::time::sleep(Duration::from_millis(RETRY_DELAY_MS)).await;
    }
}

/// Signs the node's transaction in `payload` after checking that it is a call of `to` with
/// `message_payload`, without value, and that the message is its signing hash.
fn sign_flow(
    wallet: &Wallet,
    payload: &SignedFlowPayload,
    to: Address,
    message_payload: &[u8],
) -> Result<SignedFlowRequest> {
    let tx =
        Transaction::decode(&payload.unsigned_transaction_base64).context("the node's transaction does not decode")?;
    if tx.to != Some(to) || tx.value != 0 || tx.payload != message_payload || tx.signature.is_some() {
        bail!("the node built another transaction than the one asked for; not signing it");
    }
    if payload.message_to_sign_base64 != tx.signing_hash().0 {
        bail!("the node's message to sign is not the transaction's signing hash; not signing it");
    }
    let signature = wallet.secret_key().sign_prehash(&tx.signing_hash()).to_rsv();
    Ok(SignedFlowRequest {
        unsigned_transaction_base64: payload.unsigned_transaction_base64.clone(),
        signature: format!("0x{}", hex::encode(signature)),
    })
}

impl Daemon {
    /// One look at the chain: register if needed, heartbeat if due, then the jobs.
    async fn step(&mut self) -> Result<()> {
        let runner = self.wallet.address();
        let record = self.client.runner(&runner).await.context("cannot read the runner's record")?;
        let Some(record) = record.filter(|r| r.health != "deregistered") else {
            let register = RegistryCall::Register {
                rate_card: RateCard { price_per_job: self.args.price },
                capabilities: self.capabilities.clone(),
            };
            let builder = TxBuilder::registry(&register, self.args.stake);
            let report = sign_and_submit(&self.client, &self.wallet, builder, Text::default(), true).await?;
            if let Some(failure) = report.failure {
                bail!("registration failed: {failure}");
            }
            println!("runner {runner} registered with a stake of {} base units", self.args.stake);
            return Ok(());
        };
        if !self.record_checked {
            // Tried once per run: a refused update must not cost a fee every look, nor hold up
            // the heartbeats.
            self.record_checked = true;
            if let Err(error) = self.update_record(&record).await {
                eprintln!("runner {runner}: the record keeps its registered price and capabilities: {error:#}");
            }
        }
        let height = self.client.height().await.context("cannot read the chain height")?;
        let last = record.last_heartbeat_height.max(self.sent_at.unwrap_or(0));
        if height.saturating_sub(last) >= self.pace.blocks(&self.client).await {
            self.heartbeat(height).await?;
        }
        if !self.settled {
            // Transactions of an earlier run still pending would answer jobs still listed.
            let account = self.client.account(&runner).await.context("cannot read the runner's account")?;
            let confirmed = account.map_or(0, |a| a.nonce);
            let next = self.client.heartbeat_payload(&runner).await.context("cannot read the next nonce")?.nonce;
            if confirmed != next {
                return Ok(());
            }
            self.settled = true;
        }
        // A result that cannot be posted now must not keep the runner from its other jobs.
        for job in self.unposted.keys().copied().collect::<Vec<_>>() {
            self.post_result(job).await;
        }
        self.jobs().await
    }

    /// Brings the registered price and capabilities to this run's flags (a restart with other
    /// `--price`, `--executors` or `--max-concurrent-jobs`).
    async fn update_record(&mut self, record: &drover_types::api::RunnerInfo) -> Result<()> {
        let price =
            (record.rate_card.price_per_job != self.args.price).then_some(RateCard { price_per_job: self.args.price });
        // Job types compare as sets: the order they were given in changes nothing on chain.
        let sorted = |types: &[String]| {
            let mut types = types.to_vec();
            types.sort();
            types
        };
        let registered = (sorted(&record.capabilities.job_types), record.capabilities.max_concurrent_jobs);
        let wanted = (sorted(&self.capabilities.job_types), self.capabilities.max_concurrent_jobs);
        let capabilities = (registered != wanted).then(|| self.capabilities.clone());
        if price.is_none() && capabilities.is_none() {
            return Ok(());
        }
        let update = RegistryCall::Update { rate_card: price, capabilities, paused: None };
        let builder = TxBuilder::registry(&update, 0);
        let report = sign_and_submit(&self.client, &self.wallet, builder, Text::default(), true).await?;
        if let Some(failure) = report.failure {
            bail!("updating the runner's record failed: {failure}");
        }
        println!("runner {}: record updated to this run's price and capabilities", self.wallet.address());
        Ok(())
    }

    async fn heartbeat(&mut self, height: u64) -> Result<()> {
        let runner = self.wallet.address();
        let payload = self.client.heartbeat_payload(&runner).await.context("cannot fetch the heartbeat payload")?;
        let request =
            sign_flow(&self.wallet, &payload, RUNNER_REGISTRY_ADDRESS, &RegistryCall::Heartbeat.message().encode())?;
        let answer = self.client.post_heartbeat(&runner, &request).await.context("the heartbeat was not admitted")?;
        if answer.accepted == 0 {
            bail!("the heartbeat was refused: {}", answer.message.unwrap_or_default());
        }
        self.sent_at = Some(height);
        println!("runner {runner}: heartbeat at height {height} (nonce {})", payload.nonce);
        Ok(())
    }

    /// Starts the listed jobs not running or answered yet (each is posted by [`Self::answer`]
    /// when its task ends).
    async fn jobs(&mut self) -> Result<()> {
        let runner = self.wallet.address();
        let limit = self.args.max_concurrent_jobs.max(1);
        // Answered jobs and results not posted yet stay listed until their job moves on: list past
        // them, so none falls off the page and is run twice.
        let held = self.answered.len().saturating_add(self.unposted.len()) as u64;
        let page = limit.saturating_add(held).min(RUNNER_JOBS_PAGE_MAX);
        let listed = self.client.runner_jobs(&runner, 0, page).await.context("cannot list the runner's jobs")?;
        // Only a page that is not full lists every job of the runner: then an answer whose job
        // left it was included, and a result not posted yet whose job left it was decided without
        // it (or its job ended), and neither is kept.
        if (listed.jobs.len() as u64) < page {
            let ids: HashSet<H256> = listed.jobs.iter().map(|job| job.job_id).collect();
            self.answered.retain(|job| ids.contains(job));
            self.unposted.retain(|job, _| ids.contains(job));
        }
        for job in listed.jobs {
            if self.tasks.len() as u64 >= limit {
                break;
            }
            let id = job.job_id;
            let running = self.tasks.values().any(|running| *running == id);
            if !running && !self.unposted.contains_key(&id) && !self.answered.contains(&id) {
                let task = self.start(job);
                self.tasks.insert(task, id);
            }
        }
        Ok(())
    }

    /// Posts the result of a job's task that ended (nothing for a transient failure or a task
    /// that panicked: the job is run again at a later look).
    async fn answer(&mut self, done: Result<(tokio::task::Id, Option<Vec<u8>>), JoinError>) {
        let (task, result) = match done {
            Ok((task, result)) => (task, result),
            Err(error) => (error.id(), None),
        };
        let Some(job) = self.tasks.remove(&task) else { return };
        let Some(result) = result else { return };
        let result = if self.args.faulty { [&b"faulty:"[..], &result].concat() } else { result };
        self.unposted.insert(job, result);
        // Only this job's: the older results that failed are posted again at each look.
        self.post_result(job).await;
    }

    /// Posts the result of `job` run and not posted yet; one whose post fails stays for the next
    /// look (until the chain no longer lists its job).
    async fn post_result(&mut self, job: H256) {
        let Some(result) = self.unposted.get(&job) else { return };
        match self.post(job, result).await {
            Ok(()) => {
                self.unposted.remove(&job);
                self.answered.insert(job);
            }
            Err(error) => eprintln!("runner {}: {error:#}; posted again at the next look", self.wallet.address()),
        }
    }

    /// Runs `job` on its executor in the background (with the secrets its input names, when
    /// `job_secrets` allows them): its result, the bytes of a deterministic failure, or nothing
    /// (transient: tried again at a later look).
    fn start(&mut self, job: JobInfo) -> tokio::task::Id {
        println!("runner {}: running job {}", self.wallet.address(), job.job_id);
        let executors = Arc::clone(&self.executors);
        let delay = Duration::from_millis(self.args.answer_delay_ms);
        let (client, key) = (self.client.clone(), self.wallet.secret_key().clone());
        let task = self.running.spawn(async move {
            tokio::time::sleep(delay).await;
            match crate::job_secrets::run(&client, &key, &executors, &job).await {
                Ok(result) => Some(result),
                Err(error) => {
                    eprintln!("runner: job {}: {error}", job.job_id);
                    error.result_bytes()
                }
            }
        });
        task.id()
    }

    async fn post(&self, job: H256, result: &[u8]) -> Result<()> {
        let runner = self.wallet.address();
        let payload = match self.client.job_result_payload(&runner, &job, result).await {
            Ok(payload) => payload,
            // Decided (or ended) before this answer: nothing to post.
            Err(e) if matches!(e.error_code(), Some(ErrorCode::RunnerNotAssigned | ErrorCode::JobNotFound)) => {
                println!("runner {runner}: job {job} no longer takes results");
                return Ok(());
            }
            Err(e) => return Err(e).with_context(|| format!("cannot fetch the result payload of job {job}")),
        };
        let call = JobCall::SubmitResult { job, result: result.to_vec() };
        let request = sign_flow(&self.wallet, &payload, JOB_DISPATCHER_ADDRESS, &call.message().encode())?;
        let answer = self
            .client
            .post_job_result(&runner, &request)
            .await
            .with_context(|| format!("the result of job {job} was not admitted"))?;
        if answer.accepted == 0 {
            bail!("the result of job {job} was refused: {}", answer.message.unwrap_or_default());
        }
        println!("runner {runner}: answered job {job} (nonce {})", payload.nonce);
        Ok(())
    }
}
