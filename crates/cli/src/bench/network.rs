//! A devnet spawned from this very binary for a benchmark, stopped when dropped.

use super::*;

/// A network started for the run; every validator is stopped (by PID) when dropped.
pub(super) struct SpawnedNetwork {
    pub(super) dir: tempfile::TempDir,
    pub(super) exe: std::path::PathBuf,
    pub(super) children: Vec<Option<Child>>,
    pub(super) urls: Vec<String>,
    /// Environment variables set for every validator.
    pub(super) env: Vec<(String, String)>,
}

impl SpawnedNetwork {
    /// Generates an `n`-validator network on free loopback ports and starts every validator;
    /// returns once each one has finalized a block.
    pub(super) async fn start(n: u32, block_interval_ms: u64) -> anyhow::Result<Self> {
        Self::start_with_env(n, block_interval_ms, &[]).await
    }

    /// Like [`SpawnedNetwork::start`], with these environment variables set for every validator.
    pub(super) async fn start_with_env(n: u32, block_interval_ms: u64, env: &[(&str, &str)]) -> anyhow::Result<Self> {
        let exe = std::env::current_exe()?;
        let dir = tempfile::tempdir()?;
        // One block for both, so the HTTP and p2p ports can never overlap.
        let rpc = free_port_block(2 * n)?;
        let p2p = rpc + n as u16;
        let status = Command::new(&exe)
            .args(["init", "--validators", &n.to_string(), "--out"])
            .arg(dir.path())
            .args(["--rpc-port", &rpc.to_string(), "--p2p-port", &p2p.to_string()])
            .args(["--block-interval-ms", &block_interval_ms.to_string()])
            .stdout(Stdio::null())
            .status()?;
        ensure!(status.success(), "drover init failed");
        let urls = (0..n).map(|i| format!("http://127.0.0.1:{}", rpc + i as u16)).collect();
        let env = env.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())).collect();
        let mut network = Self { dir, exe, children: Vec::new(), urls, env };
        for index in 0..n {
            network.children.push(None);
            network.spawn(index as usize, &[])?;
        }
        for url in network.urls.clone() {
            wait_height(&Client::new(&url)?, 1, Duration::from_secs(60)).await?;
        }
        Ok(network)
    }

    pub(super) fn spawn(&mut self, index: usize, args: &[&str]) -> anyhow::Result<()> {
        let log = std::fs::File::create(self.dir.path().join(format!("validator-{index}.log")))?;
        let child = Command::new(&self.exe)
            .args(["node", "--config"])
            .arg(self.dir.path().join(format!("validator-{index}.yaml")))
            .args(args)
            .env("RPC_GLOBAL_RATE_LIMIT_PER_SEC", BENCH_RATE_LIMIT_PER_SEC)
            .env("RUST_LOG", "warn")
            .envs(self.env.iter().map(|(name, value)| (name.as_str(), value.as_str())))
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?;
        self.children[index] = Some(child);
        Ok(())
    }

    /// Stops validator `index` gracefully and waits for it.
    pub(super) fn stop(&mut self, index: usize) {
        if let Some(mut child) = self.children[index].take() {
            let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
            let _ = child.wait();
        }
    }

    /// The process id of validator `index`, while it runs.
    pub(super) fn pid(&self, index: usize) -> Option<u32> {
        self.children[index].as_ref().map(Child::id)
    }

    /// The CPU time (user and system, every thread's) the running validators have used so far,
    /// from `/proc` (Linux); `None` where it cannot be read.
    pub(super) fn cpu_time(&self) -> Option<Duration> {
        // SAFETY: sysconf reads a constant of the system and has no preconditions.
        let ticks_per_sec = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok().filter(|t| *t > 0)?;
        let mut ticks = 0u64;
        for child in self.children.iter().flatten() {
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).ok()?;
            // The command name, in parentheses, may hold spaces: fields are counted after it,
            // from the third (the state); utime and stime are the 14th and 15th.
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            for field in fields.get(11..13)? {
                ticks += field.parse::<u64>().ok()?;
            }
        }
        Some(Duration::from_secs_f64(ticks as f64 / ticks_per_sec as f64))
    }

    pub(super) fn state_dir(&self, index: usize) -> std::path::PathBuf {
        self.dir.path().join(format!("validator-{index}/state"))
    }
}

impl Drop for SpawnedNetwork {
    fn drop(&mut self) {
        for index in 0..self.children.len() {
            self.stop(index);
        }
    }
}

/// `count` consecutive free loopback ports.
pub(super) fn free_port_block(count: u32) -> anyhow::Result<u16> {
    for _ in 0..100 {
        let base = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let fits = (1..count).all(|i| {
            u16::try_from(u32::from(base) + i)
                .is_ok_and(|port| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok())
        });
        if fits {
            return Ok(base);
        }
    }
    bail!("no block of {count} free ports")
}

/// Daemons a benchmark spawned (runners, a relay), stopped by PID when dropped.
pub(super) struct Daemons(pub(super) Vec<std::process::Child>);

impl Drop for Daemons {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits until `tx` has a receipt, at most `within`.
pub(super) async fn wait_receipt(client: &Client, tx: &Transaction, within: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + within;
    while client.receipt(&tx.hash()).await?.is_none() {
        ensure!(Instant::now() < deadline, "transaction {} was not finalized in time", tx.hash());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

pub(super) async fn wait_height(client: &Client, height: u64, within: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + within;
    while client.height().await.unwrap_or(0) < height {
        ensure!(Instant::now() < deadline, "{} did not reach height {height}", client.base_url());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}
