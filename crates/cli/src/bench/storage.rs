//! `bench storage`: objects per second through a real relay, as owners use one — puts and gets
//! of sealed objects of a private volume, and how long the relay takes to get its root on chain.
//!
//! One fresh single-validator devnet and one `drover relay` spawned from this binary (both
//! stopped by PID at the end). `--owners` funded accounts each create a private volume at the
//! relay through the storage manager; then `--concurrency` workers put `--objects` objects of
//! `--size` random bytes, spread over the owners' volumes, each sealed client side
//! (AES-256-GCM) and sent with a signed request (a fresh nonce and signature each); then get
//! every object back and open it, checking the bytes. Reported: objects/s and MB/s of plaintext
//! for each phase with p50/p99 request latency, and the time from the last put until the chain
//! records every volume's root as the relay has it (`--commit-interval-ms` plus a block).

use super::*;
use drover_client::TxBuilder;
use drover_client::storage_auth::StorageSigner;
use drover_relay::RelayClient;
use drover_types::storage::{StorageCall, volume_id};

/// Rent price the relay asks, per byte-block.
const RELAY_PRICE: u128 = 1;
/// Deposit of each volume: rent for far longer than a run.
const VOLUME_DEPOSIT: u128 = 1_000_000_000_000_000;

#[derive(Args)]
pub(crate) struct StorageArgs {
    /// Objects put (and then got) in all.
    #[arg(long, default_value_t = 2_000)]
    pub objects: u64,
    /// Bytes of each object (plaintext).
    #[arg(long, default_value_t = 16_384)]
    pub size: usize,
    /// Owners, each with a private volume.
    #[arg(long, default_value_t = 4)]
    pub owners: u32,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// How often the relay commits changed roots, in milliseconds.
    #[arg(long, default_value_t = 1_000)]
    pub commit_interval_ms: u64,
}

/// Runs `work(i)` for `0..count` with `concurrency` in flight; answers each one's latency,
/// sorted, and the wall time.
async fn measured<F, Fut>(count: u64, concurrency: usize, work: F) -> anyhow::Result<(Vec<Duration>, Duration)>
where
    F: Fn(u64) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    use futures::stream::{self, StreamExt, TryStreamExt};
    let started = Instant::now();
    let mut latencies: Vec<Duration> = stream::iter(0..count)
        .map(|i| {
            let call = work(i);
            async move {
                let at = Instant::now();
                call.await?;
                Ok::<_, anyhow::Error>(at.elapsed())
            }
        })
        .buffer_unordered(concurrency.max(1))
        .try_collect()
        .await?;
    latencies.sort();
    Ok((latencies, started.elapsed()))
}

fn report(phase: &str, size: usize, latencies: &[Duration], wall: Duration) {
    let per_second = latencies.len() as f64 / wall.as_secs_f64();
    println!(
        "{phase}: {} objects in {:.2} s = {per_second:.0} objects/s, {:.1} MB/s; latency p50 {:.1} ms, p99 {:.1} ms",
        latencies.len(),
        wall.as_secs_f64(),
        per_second * size as f64 / 1e6,
        percentile(latencies, 0.5).as_secs_f64() * 1e3,
        percentile(latencies, 0.99).as_secs_f64() * 1e3,
    );
}

pub(super) async fn storage(args: StorageArgs) -> anyhow::Result<()> {
    ensure!(args.objects > 0 && args.owners > 0 && args.size > 0, "--objects, --owners and --size must be positive");
    let network = SpawnedNetwork::start(1, 100).await?;
    let url = &network.urls[0];
    let client = Client::new(url)?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);
    let mut keys = fund_senders(&client, &funder, chain_id, args.owners + 1, 10 * VOLUME_DEPOSIT, 50, &retries).await?;
    let relay_key = keys.pop().context("no relay key")?;
    let owners = keys;

    let key_file = network.dir.path().join("relay.key");
    std::fs::write(&key_file, relay_key.to_hex())?;
    let listen = format!("127.0.0.1:{}", free_port_block(1)?);
    let capacity = (args.objects as usize * (args.size + 64) * 2).max(1 << 20);
    let log = std::fs::File::create(network.dir.path().join("relay.log"))?;
    let _relay = Daemons(vec![
        Command::new(&network.exe)
            .args(["--rpc-url", url, "relay", "--key"])
            .arg(&key_file)
            .arg("--dir")
            .arg(network.dir.path().join("relay-data"))
            .args(["--listen", &listen, "--capacity", &capacity.to_string(), "--price", &RELAY_PRICE.to_string()])
            .args(["--commit-interval-ms", &args.commit_interval_ms.to_string()])
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?,
    ]);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !client.storage_write_relayers(0, 10).await?.relays.iter().any(|r| r.address == relay_key.address()) {
        ensure!(Instant::now() < deadline, "the relay did not register (see relay.log)");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // One private volume per owner.
    let fee = client.governance_params().await?.value("volume_creation_fee").context("no volume_creation_fee")?;
    let mut creations = Vec::new();
    for owner in &owners {
        let call = StorageCall::Create {
            name: "bench".into(),
            relay: relay_key.address(),
            public: false,
            // Each volume may fill the relay: the bench measures the relay, not the owners' caps.
            max_size_bytes: capacity as u64,
        };
        let builder = TxBuilder::storage(&call, fee + VOLUME_DEPOSIT);
        let wallet = drover_client::Wallet::new(owner.clone());
        creations.push(builder.sign(&builder.fetch_context(&client, owner.address()).await?, &wallet)?);
    }
    submit_until_admitted(&client, &creations, &retries).await?;
    for tx in &creations {
        wait_receipt(&client, tx, Duration::from_secs(60)).await.context("the volumes were not created")?;
    }
    let relay_url = format!("http://{listen}");
    let clients: Vec<(RelayClient, H256)> = owners
        .iter()
        .map(|owner| {
            let relay = RelayClient::new(&relay_url, &relay_key.address(), chain_id, owner.clone())?;
            Ok((relay, volume_id(&owner.address(), "bench")))
        })
        .collect::<anyhow::Result<_>>()?;
    let objects: Vec<Vec<u8>> = (0..args.objects).map(|_| (0..args.size).map(|_| rand::random()).collect()).collect();
    let target = |i: u64| (&clients[i as usize % clients.len()], format!("bench/{i:08}"));

    println!(
        "putting {} objects of {} bytes into {} private volumes, {} in flight",
        args.objects, args.size, args.owners, args.concurrency
    );
    let (puts, put_wall) = measured(args.objects, args.concurrency, |i| {
        let ((relay, volume), key) = target(i);
        let bytes = &objects[i as usize];
        async move {
            relay.put_sealed(*volume, &key, bytes).await.with_context(|| format!("put {key}"))?;
            Ok(())
        }
    })
    .await?;
    let last_put = Instant::now();
    report("put", args.size, &puts, put_wall);
    let (gets, get_wall) = measured(args.objects, args.concurrency, |i| {
        let ((relay, volume), key) = target(i);
        let expected = &objects[i as usize];
        async move {
            let bytes = relay.get_sealed(*volume, &key).await.with_context(|| format!("get {key}"))?;
            ensure!(&bytes == expected, "{key} came back different");
            Ok(())
        }
    })
    .await?;
    report("get", args.size, &gets, get_wall);

    // Every volume's root on chain as the relay has it.
    let sessions: Vec<StorageSigner> =
        owners.iter().map(|owner| StorageSigner::issue(owner, SecretKey::random(), chain_id)).collect();
    for ((relay, volume), session) in clients.iter().zip(&sessions) {
        let root = relay.info(*volume).await?.root;
        while client.storage_volume(session, volume).await?.is_none_or(|v| v.root != root) {
            ensure!(last_put.elapsed() < RUN_TIMEOUT, "the relay's roots did not reach the chain");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    println!(
        "roots on chain {:.2} s after the last put (commit interval {} ms)",
        last_put.elapsed().as_secs_f64(),
        args.commit_interval_ms
    );
    Ok(())
}
