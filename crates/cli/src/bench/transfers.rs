//! `bench transfers` and `bench calls`: finalized transactions per second and latency.

use super::*;

#[derive(Args)]
pub(crate) struct TransferArgs {
    /// Distinct sending accounts.
    #[arg(long, default_value_t = 1_000)]
    pub senders: u32,
    /// Transfers in total.
    #[arg(long, default_value_t = 100_000)]
    pub transfers: u64,
    /// Transactions per submission.
    #[arg(long, default_value_t = 50)]
    pub batch: usize,
    /// Concurrent submitting connections.
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// Use the node at `--rpc-url` (its rate limit must be lifted) instead of a fresh devnet.
    #[arg(long)]
    pub external: bool,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
    /// Offered load in transfers per second (default: as fast as the node admits them).
    #[arg(long)]
    pub rate: Option<u64>,
    /// Funder key index among the development keys (default: the faucet account).
    #[arg(long, default_value_t = FAUCET_KEY_INDEX)]
    pub funder: u32,
    /// Validators of the spawned network; submissions are spread over all of them.
    #[arg(long, default_value_t = 1)]
    pub validators: u32,
    /// Who receives the transfers (`bench transfers` only).
    #[arg(long, value_enum, default_value_t = Recipients::Fresh)]
    pub recipients: Recipients,
    /// How each call's limits are set (`bench calls` only).
    #[arg(long, value_enum, default_value_t = CallLimits::Simulated)]
    pub call_limits: CallLimits,
}

/// The limits `bench calls` signs each call with. A proposer reserves a transaction's whole
/// limit when it fills a block, so the limits, not the use, decide how many calls a block holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CallLimits {
    /// What `POST /simulate` suggests for one increment (its use plus the node's margin), as the
    /// CLI and the SDKs send a call whose limits are not given.
    Simulated,
    /// Fixed limits about twice the use, as a caller who guesses sets them.
    Fixed,
}

/// Recipients of `bench transfers`: how the load grows the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Recipients {
    /// A new address per transfer, `0xbe ‖ 19-byte counter` (the usual EVM dev-chain workload):
    /// every transfer creates an account.
    Fresh,
    /// A new random address per transfer.
    Random,
    /// A new address per transfer sharing its first 7 bytes with all the others, as an attacker
    /// choosing colliding keys would send them.
    Prefix,
    /// One existing sink account (no state growth).
    One,
}

impl Recipients {
    /// The recipient of transfer `index` of a run.
    pub(super) fn address(self, index: u64) -> Address {
        let mut bytes = [0; 20];
        match self {
            Recipients::Fresh => {
                bytes[0] = 0xbe;
                bytes[12..].copy_from_slice(&index.to_be_bytes());
            }
            Recipients::Random => bytes = SecretKey::random().address().0,
            Recipients::Prefix => {
                bytes = SecretKey::random().address().0;
                bytes[..7].copy_from_slice(b"\xbe\xbe\xbe\xbe\xbe\xbe\xbe");
            }
            Recipients::One => bytes = [0xee; 20],
        }
        Address(bytes)
    }
}

pub(super) async fn transfers(args: TransferArgs, rpc_url: &str, workload: Workload) -> anyhow::Result<()> {
    ensure!(args.senders > 0 && args.transfers > 0, "--senders and --transfers must be positive");
    ensure!((1..=50).contains(&args.batch), "--batch must be 1..=50");
    ensure!(args.validators > 0, "--validators must be positive");
    let (network, urls) = if args.external {
        (None, vec![rpc_url.to_string()])
    } else {
        let network = SpawnedNetwork::start(args.validators, args.block_interval_ms).await?;
        let urls = network.urls.clone();
        (Some(network), urls)
    };
    let client = Client::new(&urls[0])?;
    let clients = urls.iter().map(|url| Client::new(url)).collect::<Result<Vec<_>, _>>()?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = Arc::new(AtomicU64::new(0));

    // Fund the senders from the funder account.
    let funder = SecretKey::dev(args.funder);
    let per_sender = args.transfers.div_ceil(args.senders as u64);
    let senders =
        fund_senders(&client, &funder, chain_id, args.senders, workload.budget(per_sender), args.batch, &retries)
            .await?;
    let (counter, call, limits) = match workload {
        Workload::Transfers => (None, Vec::new(), (drover_types::params::TRANSFER_CYCLES, 0)),
        Workload::CounterCalls => {
            let counter = deploy_counter(&client, &funder, chain_id).await?;
            println!("counter actor deployed at {counter}");
            let call = Message { handler: "increment".to_owned(), payload: Vec::new() }.encode();
            let limits = call_limits(&client, args.call_limits, senders[0].address(), counter, &call).await?;
            println!(
                "each call signed with limits of {} cycles and {} cells ({:?})",
                limits.0, limits.1, args.call_limits
            );
            (Some(counter), call, limits)
        }
    };

    // Pre-sign, ordered in waves: every sender's nonce 0, then every sender's nonce 1, ...
    println!("pre-signing {} {}", args.transfers, workload.noun());
    let recipients = args.recipients;
    let mut txs: Vec<Transaction> = (0..per_sender)
        .into_par_iter()
        .flat_map_iter(|nonce| {
            let (senders, call) = (&senders, &call);
            let count = senders.len() as u64;
            (0..senders.len()).map(move |s| match counter {
                None => {
                    let to = recipients.address(nonce * count + s as u64);
                    bench_transfer(&senders[s], chain_id, nonce, to, 1)
                }
                Some(counter) => {
                    bench_tx(&senders[s], chain_id, nonce, Some(counter), 0, call.clone(), limits.0, limits.1)
                }
            })
        })
        .collect();
    txs.truncate(args.transfers as usize);

    let load = Load { batch: args.batch, concurrency: args.concurrency, rate: args.rate };
    let cpu_before = network.as_ref().and_then(SpawnedNetwork::cpu_time);
    let report = run_load(&client, &clients, txs, load).await?;
    let cpu_after = network.as_ref().and_then(SpawnedNetwork::cpu_time);
    println!();
    let offered = args.rate.map_or("as fast as admitted".to_string(), |r| format!("offered at {r} tx/s"));
    let recipients = match workload {
        Workload::Transfers => format!(", recipients {:?}", args.recipients).to_lowercase(),
        Workload::CounterCalls => String::new(),
    };
    println!(
        "{}: {} submitted from {} senders in batches of {}, {} workers over {} validator(s), {offered}{recipients}",
        workload.noun(),
        report.sent,
        senders.len(),
        args.batch,
        args.concurrency,
        clients.len()
    );
    report.print(workload.noun());
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        // From the first submission until the tracker saw the last block: what the load cost the
        // validators, their idle pacing included.
        let used = after.saturating_sub(before);
        println!(
            "  validators' CPU:      {:>10.0} µs per finalized {} ({:.2} s of CPU over {} validator(s))",
            used.as_secs_f64() * 1e6 / report.finalized.max(1) as f64,
            workload.noun().trim_end_matches('s'),
            used.as_secs_f64(),
            urls.len(),
        );
    }
    ensure!(report.finalized == report.sent, "{} transfers never finalized", report.sent - report.finalized);
    Ok(())
}

/// The `(cycles, cells)` limits of one counter call from `sender`: simulated at the tip, or the
/// fixed ones. Either stays within the fixed ones, which the senders were funded for.
async fn call_limits(
    client: &Client,
    how: CallLimits,
    sender: Address,
    counter: Address,
    call: &[u8],
) -> anyhow::Result<(u64, u64)> {
    let fixed = (COUNTER_CALL_CYCLES_LIMIT, COUNTER_CALL_CELLS_LIMIT);
    if how == CallLimits::Fixed {
        return Ok(fixed);
    }
    let request = drover_types::api::SimulateRequest {
        from: Some(sender),
        to: Some(counter),
        payload: Some(call.to_vec()),
        ..Default::default()
    };
    let simulation = client.simulate(&request).await.context("cannot simulate a counter call")?;
    ensure!(
        simulation.status == drover_types::api::ReceiptStatus::Success,
        "a simulated counter call does not succeed: {simulation:?}"
    );
    let simulated = (simulation.suggested_cycles_limit, simulation.suggested_cells_limit);
    ensure!(
        simulated.0 <= fixed.0 && simulated.1 <= fixed.1,
        "the simulation suggests {simulated:?}, above the fixed limits {fixed:?} the senders were funded for"
    );
    Ok(simulated)
}
