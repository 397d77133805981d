//! `bench tokens`: finalized token transfers per second against plain transfers, in one run.
//!
//! One fresh devnet; `--senders` accounts are funded, a token is created by the funder and
//! every sender is given its share. Then the same load is run twice from the same senders:
//! first `--transfers` plain transfers, then `--transfers` token transfers of 1 base unit, both
//! to a fresh address per transfer (so every token transfer also starts a new holding, the
//! costlier case). The figure is the ratio of the two throughputs.

use super::*;
use drover_types::system_call::SystemCall;
use drover_types::token::{NewToken, TOKENS_ADDRESS, TokenCall};

#[derive(Args)]
pub(crate) struct TokenArgs {
    /// Distinct sending accounts.
    #[arg(long, default_value_t = 1_000)]
    pub senders: u32,
    /// Transfers of each kind (plain, then token).
    #[arg(long, default_value_t = 50_000)]
    pub transfers: u64,
    /// Transactions per submission.
    #[arg(long, default_value_t = 50)]
    pub batch: usize,
    /// Concurrent submitting connections.
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

/// A signed token call with limits that cover exactly its cost.
pub(super) fn token_tx(key: &SecretKey, chain_id: u64, nonce: u64, call: &TokenCall) -> Transaction {
    let payload = call.message().encode();
    let (cycles, cells) = drover_types::params::system_call_limits(payload.len(), call.cost());
    bench_tx(key, chain_id, nonce, Some(TOKENS_ADDRESS), 0, payload, cycles, cells)
}

/// The most a token transfer of this benchmark costs its sender.
fn token_transfer_max_cost() -> u128 {
    let tx = token_tx(
        &SecretKey::dev(0),
        0,
        0,
        &TokenCall::Transfer { token: Address([0; 20]), to: Address([0; 20]), amount: 1 },
    );
    u128::from(tx.cycles_limit) * BENCH_MAX_FEE_PER_CYCLE + u128::from(tx.cells_limit) * BENCH_MAX_FEE_PER_CELL
}

/// Submits `txs` (one sender's consecutive nonces) and waits for the last one's receipt.
pub(super) async fn settle(
    client: &Client,
    txs: &[Transaction],
    batch: usize,
    retries: &AtomicU64,
) -> anyhow::Result<()> {
    for chunk in txs.chunks(batch) {
        submit_until_admitted(client, chunk, retries).await?;
    }
    let last = txs.last().map(|t| t.hash()).context("nothing to settle")?;
    let deadline = Instant::now() + Duration::from_secs(120);
    while client.receipt(&last).await?.is_none() {
        ensure!(Instant::now() < deadline, "the setup did not finalize");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

pub(super) async fn tokens(args: TokenArgs) -> anyhow::Result<()> {
    ensure!(args.senders > 0 && args.transfers > 0, "--senders and --transfers must be positive");
    ensure!((1..=50).contains(&args.batch), "--batch must be 1..=50");
    let network = SpawnedNetwork::start(1, args.block_interval_ms).await?;
    let client = Client::new(&network.urls[0])?;
    let clients = vec![client.clone()];
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);

    let per_sender = args.transfers.div_ceil(u64::from(args.senders));
    let budget = u128::from(per_sender) * (Workload::Transfers.max_cost() + token_transfer_max_cost()) * 2;
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);
    let senders = fund_senders(&client, &funder, chain_id, args.senders, budget, args.batch, &retries).await?;

    // The token, and each sender's share of it.
    let new = NewToken {
        name: "Bench".into(),
        symbol: "BENCH".into(),
        decimals: 0,
        initial_supply: u128::from(per_sender) * u128::from(args.senders),
        max_supply: None,
        mintable: false,
    };
    let token = drover_types::token::token_id(&funder.address(), &new.symbol);
    let nonce = client.account(&funder.address()).await?.context("the funder account is empty")?.nonce;
    let mut setup = vec![token_tx(&funder, chain_id, nonce, &TokenCall::Create(new))];
    setup.extend(senders.iter().enumerate().map(|(i, sender)| {
        let share = TokenCall::Transfer { token, to: sender.address(), amount: u128::from(per_sender) };
        token_tx(&funder, chain_id, nonce + 1 + i as u64, &share)
    }));
    println!("creating token {token} and giving {} senders {per_sender} base units each", senders.len());
    settle(&client, &setup, args.batch, &retries).await?;

    let load = Load { batch: args.batch, concurrency: args.concurrency, rate: None };
    let count = senders.len() as u64;
    let sign = |first_nonce: u64, tx: &(dyn Fn(&SecretKey, u64, Address) -> Transaction + Sync)| {
        let mut txs: Vec<Transaction> = (0..per_sender)
            .into_par_iter()
            .flat_map_iter(|round| {
                let senders = &senders;
                (0..senders.len()).map(move |s| {
                    // Plain and token runs send to disjoint fresh addresses.
                    let to = Recipients::Fresh.address(first_nonce * count + round * count + s as u64);
                    tx(&senders[s], first_nonce + round, to)
                })
            })
            .collect();
        txs.truncate(args.transfers as usize);
        txs
    };
    println!("plain transfers: {} from {} senders to fresh addresses", args.transfers, senders.len());
    let plain =
        run_load(&client, &clients, sign(0, &|key, nonce, to| bench_transfer(key, chain_id, nonce, to, 1)), load)
            .await?;
    plain.print("transfers");
    println!("token transfers: {} from {} senders to fresh addresses", args.transfers, senders.len());
    let token_txs = sign(per_sender, &|key, nonce, to| {
        token_tx(key, chain_id, nonce, &TokenCall::Transfer { token, to, amount: 1 })
    });
    let tokens = run_load(&client, &clients, token_txs, load).await?;
    tokens.print("token transfers");
    println!();
    println!(
        "token transfers: {:.0}/s, plain transfers: {:.0}/s in the same run: {:.0} %",
        tokens.throughput(),
        plain.throughput(),
        100.0 * tokens.throughput() / plain.throughput().max(f64::MIN_POSITIVE)
    );
    ensure!(plain.finalized == plain.sent && tokens.finalized == tokens.sent, "some transfers never finalized");
    drop(network);
    Ok(())
}
