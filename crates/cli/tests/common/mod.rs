//! End-to-end harness: runs the real `drover` binary as a child process over real HTTP and real
//! storage in a temporary directory. Every node is stopped by its PID when the harness drops.

#![allow(dead_code)]

use drover_client::Client;
use drover_types::{Address, SecretKey, Transaction, submission::encode_submission};
use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_drover");
/// How long a node may take to come up (debug build, cold disk).
pub(crate) const STARTUP_TIMEOUT: Duration = Duration::from_secs(90);
/// Plenty for tests that must not hit the global limit.
pub(crate) const TEST_RATE_LIMIT_PER_SEC: u32 = 1_000_000;

/// Options of a test network.
#[derive(Clone, Debug)]
pub(crate) struct NodeOptions {
    pub chain_id: u64,
    pub dev_accounts: bool,
    pub rate_limit_per_sec: u32,
    pub persist_height: bool,
    /// Extra YAML appended to the validator config (e.g. a `mempool:` section).
    pub extra_config: String,
    pub block_interval_ms: u64,
}

impl Default for NodeOptions {
    fn default() -> Self {
        Self {
            chain_id: 100,
            dev_accounts: true,
            rate_limit_per_sec: TEST_RATE_LIMIT_PER_SEC,
            persist_height: false,
            extra_config: String::new(),
            block_interval_ms: 100,
        }
    }
}

/// First port `free_port_block` hands out: below the kernel's ephemeral range (32768 and up on
/// Linux), so a port a stopped node gives up is not taken by an outgoing connection before the
/// node restarts on it.
const TEST_PORTS_LOW: u32 = 20_000;
/// End (exclusive) of the ports `free_port_block` hands out.
const TEST_PORTS_HIGH: u32 = 32_000;
/// Blocks handed out so far by this test process (each test gets its own).
static PORT_BLOCKS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// `count` consecutive free loopback ports (each bound then released: good enough for tests),
/// distinct from the blocks other tests of this process got, outside the ephemeral range.
pub(crate) fn free_port_block(count: u16) -> u16 {
    let span = TEST_PORTS_HIGH - TEST_PORTS_LOW - u32::from(count);
    // Test binaries run one after another; the process id spreads them anyway.
    let spread = (std::process::id() % 89) * 131;
    loop {
        let block = PORT_BLOCKS.fetch_add(u32::from(count.max(1)), std::sync::atomic::Ordering::SeqCst);
        let base = (TEST_PORTS_LOW + (spread + block) % span) as u16;
        let all: Result<Vec<_>, _> = (0..count).map(|i| TcpListener::bind(("127.0.0.1", base + i))).collect();
        if all.is_ok() {
            return base;
        }
    }
}

/// A validator of a test network in a temporary directory (shared by the network's validators).
pub(crate) struct TestNode {
    pub dir: Arc<tempfile::TempDir>,
    pub index: u32,
    pub url: String,
    pub options: NodeOptions,
    child: Option<Child>,
    runs: u32,
}

impl TestNode {
    /// Generates a single-validator network and starts it; waits until it finalizes a block.
    pub(crate) async fn start(options: NodeOptions) -> Self {
        let mut nodes = start_network(1, options).await;
        nodes.pop().unwrap()
    }

    pub(crate) fn config_path(&self) -> PathBuf {
        self.dir.path().join(format!("validator-{}.yaml", self.index))
    }

    pub(crate) fn state_dir(&self) -> PathBuf {
        self.dir.path().join(format!("validator-{}/state", self.index))
    }

    pub(crate) fn log_path(&self, run: u32) -> PathBuf {
        self.dir.path().join(format!("node-{}-{run}.log", self.index))
    }

    /// Starts the validator process (again).
    pub(crate) fn spawn(&mut self) {
        self.spawn_with(&[]);
    }

    /// Starts the validator process (again) with extra `drover node` arguments.
    pub(crate) fn spawn_with(&mut self, args: &[&str]) {
        assert!(self.child.is_none(), "node already running");
        self.runs += 1;
        let log = std::fs::File::create(self.log_path(self.runs)).unwrap();
        let child = Command::new(BIN)
            .args(["node", "--config"])
            .arg(self.config_path())
            .args(args)
            .env("RPC_GLOBAL_RATE_LIMIT_PER_SEC", self.options.rate_limit_per_sec.to_string())
            .env("STATE_SYNC_RATE_PER_SEC", "1000")
            .env("DROVER_DEV_MODE", "1")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
    }

    /// Waits for the process to exit on its own; its status, or `None` if it runs past `within`.
    pub(crate) fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().unwrap()) {
                self.child = None;
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub(crate) fn client(&self) -> Client {
        Client::new(&self.url).unwrap()
    }

    /// Waits until the API answers and the chain is at `height` or above.
    pub(crate) async fn wait_ready(&mut self, height: u64) {
        let client = self.client();
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("node exited early with {status}; log:\n{}", self.log());
            }
            if let Ok(h) = client.height().await
                && h >= height
            {
                return;
            }
            assert!(Instant::now() < deadline, "node not ready in time; log:\n{}", self.log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the chain passes `height`.
    pub(crate) async fn wait_height(&self, height: u64) {
        let client = self.client();
        let deadline = Instant::now() + Duration::from_secs(60);
        while client.height().await.unwrap_or(0) < height {
            assert!(Instant::now() < deadline, "chain stuck below {height}; log:\n{}", self.log());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The current run's log.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.log_path(self.runs)).unwrap_or_default()
    }

    /// Graceful stop: SIGTERM, then wait for the exit.
    pub(crate) fn stop(&mut self) -> std::process::ExitStatus {
        terminate(self.child.take().expect("node running"))
    }

    /// Hard kill: SIGKILL.
    pub(crate) fn kill9(&mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

impl Drop for TestNode {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Stops a `drover` process gracefully: SIGTERM, then its exit status (within 30 s).
pub(crate) fn terminate(mut child: Child) -> std::process::ExitStatus {
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "drover did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Generates an `n`-validator network (ports on 127.0.0.1) and starts every validator; waits
/// until each one has finalized a block.
pub(crate) async fn start_network(n: u32, options: NodeOptions) -> Vec<TestNode> {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let block = u16::try_from(n).unwrap();
    // One block for both, so the HTTP and p2p ports can never overlap.
    let rpc_port = free_port_block(2 * block);
    let p2p_port = rpc_port + block;
    let mut init = Command::new(BIN);
    init.args(["init", "--validators", &n.to_string(), "--out"])
        .arg(dir.path())
        .args(["--rpc-port", &rpc_port.to_string(), "--p2p-port", &p2p_port.to_string()])
        .args(["--chain-id", &options.chain_id.to_string()])
        .args(["--block-interval-ms", &options.block_interval_ms.to_string()]);
    if !options.dev_accounts {
        init.arg("--no-dev-accounts");
    }
    if options.persist_height {
        init.arg("--persist-height");
    }
    let out = init.output().unwrap();
    assert!(out.status.success(), "init failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut nodes: Vec<_> = (0..n)
        .map(|index| TestNode {
            dir: dir.clone(),
            index,
            url: format!("http://127.0.0.1:{}", rpc_port + index as u16),
            options: options.clone(),
            child: None,
            runs: 0,
        })
        .collect();
    for node in &mut nodes {
        if !options.extra_config.is_empty() {
            let path = node.config_path();
            let mut text = std::fs::read_to_string(&path).unwrap();
            text.push_str(&options.extra_config);
            std::fs::write(&path, text).unwrap();
        }
        node.spawn();
    }
    for node in &mut nodes {
        node.wait_ready(1).await;
    }
    nodes
}

/// A development account key.
pub(crate) fn dev_key(i: u32) -> SecretKey {
    SecretKey::dev(i)
}

/// A signed transfer with generous fees.
pub(crate) fn transfer(key: &SecretKey, chain_id: u64, nonce: u64, to: Address, value: u128) -> Transaction {
    Transaction {
        chain_id,
        nonce,
        to: Some(to),
        value,
        cycles_limit: 21_000,
        cells_limit: 0,
        max_fee_per_cycle: 1_000,
        max_fee_per_cell: 1_000,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload: Vec::new(),
        signature: None,
    }
    .sign(key)
}

/// Posts raw bytes to a path and returns status, headers and JSON body.
pub(crate) async fn post_raw(
    url: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(format!("{url}{path}"))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text));
    (status, headers, json)
}

/// GET returning status and JSON (or text) body.
pub(crate) async fn get_raw(url: &str, path: &str) -> (u16, serde_json::Value) {
    let response = reqwest::get(format!("{url}{path}")).await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)))
}

/// Submits transactions as a CBOR envelope.
pub(crate) async fn submit_raw(url: &str, txs: &[Transaction]) -> (u16, serde_json::Value) {
    let (status, _, body) = post_raw(url, "/submit", "application/cbor", encode_submission(txs)).await;
    (status, body)
}

pub(crate) fn assert_error(status: u16, body: &serde_json::Value, expected_status: u16, code: u16) {
    assert_eq!(status, expected_status, "body: {body}");
    assert_eq!(body["code"], code, "body: {body}");
    assert!(body["error"].is_string() && body["message"].is_string(), "body: {body}");
}

pub(crate) fn file_exists(path: &Path) -> bool {
    path.exists()
}

/// Runs the CLI against the node at `url`.
pub(crate) fn drover(url: &str, args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(["--rpc-url", url]).args(args).output().unwrap()
}

/// The stdout of a CLI run that must succeed (its output in the failure message otherwise).
pub(crate) fn ok(out: std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// Polls `probe` every 100 ms until it answers `Some`, for at most 90 s.
pub(crate) async fn until<T, F: std::future::Future<Output = Option<T>>>(
    what: &str,
    mut probe: impl FnMut() -> F,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
