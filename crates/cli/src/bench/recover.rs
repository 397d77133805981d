//! `bench recover`: signature recoveries per second, one thread and all cores.

use super::*;

#[derive(Args)]
pub(crate) struct RecoverArgs {
    /// Signatures to recover.
    #[arg(long, default_value_t = 20_000)]
    pub count: usize,
}

pub(super) fn signed_batch(count: usize) -> Vec<Transaction> {
    (0..count)
        .into_par_iter()
        .map(|i| {
            let key = SecretKey::dev(i as u32 % 1024);
            Transaction {
                chain_id: 100,
                nonce: i as u64,
                to: Some(Address([1; 20])),
                value: 1,
                cycles_limit: drover_types::params::TRANSFER_CYCLES,
                cells_limit: 0,
                max_fee_per_cycle: 10,
                max_fee_per_cell: 1,
                tip_per_cycle: 1,
                tip_per_cell: 0,
                payload: Vec::new(),
                signature: None,
            }
            .sign(&key)
        })
        .collect()
}

pub(super) fn recover(args: RecoverArgs) -> anyhow::Result<()> {
    ensure!(args.count > 0, "--count must be positive");
    let txs = signed_batch(args.count);
    let start = Instant::now();
    for tx in &txs {
        tx.recover_sender().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let single = args.count as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let verified: Vec<VerifiedTransaction> =
        txs.into_par_iter().map(|t| t.verify()).collect::<Result<_, _>>().map_err(|e| anyhow::anyhow!("{e}"))?;
    let parallel = verified.len() as f64 / start.elapsed().as_secs_f64();
    println!("signature recovery ({} signatures, {} threads)", args.count, rayon::current_num_threads());
    println!("  single thread:          {single:>10.0} recoveries/s");
    println!("  all threads (verify()): {parallel:>10.0} transactions/s (recovery + hashing + encoding)");
    Ok(())
}
