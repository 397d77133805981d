//! `bench proofs`: proof latency over HTTP and client verification time.

use super::*;

#[derive(Args)]
pub(crate) struct ProofArgs {
    /// Proofs asked for of each kind.
    #[arg(long, default_value_t = 500)]
    pub requests: usize,
    /// Validators of the spawned network.
    #[arg(long, default_value_t = 1)]
    pub validators: u32,
    /// Block interval of the spawned network, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

/// One proof kind of `bench proofs`: fetches a proof and verifies it, timing both.
pub(super) async fn time_proof(
    client: &Client,
    identity: &drover_client::verify::Identity,
    kind: &str,
    target: (Address, H256),
) -> anyhow::Result<(Duration, Duration)> {
    use drover_client::verify;
    let (address, hash) = target;
    let start = Instant::now();
    let check: Box<dyn FnOnce() -> Result<(), verify::VerifyError>> = match kind {
        "account" | "account (absent)" => {
            let proof = client.proof_account(&address, None).await?;
            Box::new(move || verify::verify_account(&proof, identity, &address).map(|_| ()))
        }
        "storage (absent)" => {
            let proof = client.proof_storage(&address, b"slot", None).await?;
            Box::new(move || verify::verify_storage(&proof, identity, &address, b"slot").map(|_| ()))
        }
        "tx" => {
            let proof = client.proof_tx(&hash).await?.context("transaction not included")?;
            Box::new(move || verify::verify_tx(&proof, identity, &hash).map(|_| ()))
        }
        _ => {
            let proof = client.proof_receipt(&hash).await?.context("transaction not included")?;
            Box::new(move || verify::verify_receipt(&proof, identity, &hash).map(|_| ()))
        }
    };
    let fetched = start.elapsed();
    let start = Instant::now();
    check().with_context(|| format!("a {kind} proof did not verify"))?;
    Ok((fetched, start.elapsed()))
}

pub(super) async fn proofs(args: ProofArgs) -> anyhow::Result<()> {
    ensure!(args.requests > 0, "--requests must be positive");
    let network = SpawnedNetwork::start(args.validators, args.block_interval_ms).await?;
    let genesis = drover_node::genesis::Genesis::load(&network.dir.path().join(drover_node::devnet::GENESIS_FILE))?;
    let client = Client::new(&network.urls[0])?;
    let sender = SecretKey::dev(FAUCET_KEY_INDEX);
    let nonce = client.account(&sender.address()).await?.context("the faucet account is not funded")?.nonce;
    let to = SecretKey::random().address();
    let tx = bench_transfer(&sender, client.chain_info().await?.chain_id, nonce, to, 1);
    let waited = client.submit_wait(std::slice::from_ref(&tx), 10_000).await?;
    ensure!(
        waited.results.first().is_some_and(|r| r.block_height.is_some()),
        "the transfer was not included: {waited:?}"
    );

    let absent = SecretKey::random().address();
    println!(
        "proofs ({} per kind, {} validator(s), block interval {} ms)",
        args.requests, args.validators, args.block_interval_ms
    );
    println!(
        "  {:<18} {:>12} {:>12} {:>14} {:>14}",
        "kind", "http p50 ms", "http p99 ms", "verify p50 ms", "verify p99 ms"
    );
    let kinds = [("account", to), ("account (absent)", absent), ("storage (absent)", to), ("tx", to), ("receipt", to)];
    for (kind, address) in kinds {
        let mut http = Vec::with_capacity(args.requests);
        let mut check = Vec::with_capacity(args.requests);
        for _ in 0..args.requests {
            let (fetched, verified) = time_proof(&client, &genesis.identity, kind, (address, tx.hash())).await?;
            http.push(fetched);
            check.push(verified);
        }
        http.sort();
        check.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "  {kind:<18} {:>12.2} {:>12.2} {:>14.2} {:>14.2}",
            ms(percentile(&http, 0.50)),
            ms(percentile(&http, 0.99)),
            ms(percentile(&check, 0.50)),
            ms(percentile(&check, 0.99)),
        );
    }
    Ok(())
}
