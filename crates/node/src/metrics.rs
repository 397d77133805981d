//! Chain metrics (Prometheus, through the runtime's registry): finalized height, finalization
//! latency, transactions finalized, mempool size, the two basefees, transaction gossip, what
//! executing blocks costs (time per block, state lookups), and how many account reads the
//! account view answered.
//! Consensus (views, peers), p2p and state-sync progress come from the Commonware crates'
//! own metrics in the same registry.
//!
//! Registered under the runtime context labelled `chain`, so names read `chain_height`,
//! `chain_finalization_latency_seconds`, ... and appear in `/metrics` next to the consensus,
//! p2p and storage metrics the Commonware crates register themselves.

use commonware_runtime::{
    Metrics,
    telemetry::metrics::{Counter, Gauge, Histogram, MetricsExt as _},
};
use drover_state::Basefees;

/// Buckets of the submit-to-finalized and propose-to-finalized latency histograms, in seconds.
const LATENCY_BUCKETS_SECONDS: [f64; 12] = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0, 10.0];

/// Buckets of the block execution time histogram, in seconds.
const EXECUTION_BUCKETS_SECONDS: [f64; 11] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5];

pub struct ChainMetrics {
    execution: Histogram,
    capture: Histogram,
    lookups: Counter,
    account_reads: Counter,
    account_misses: Counter,
    height: Gauge,
    finalization_latency: Histogram,
    transactions: Counter,
    mempool_size: Gauge,
    basefee_cycle: Gauge,
    basefee_cell: Gauge,
    gossip_received: Counter,
    gossip_admitted: Counter,
    gossip_invalid: Counter,
    gossip_known: Counter,
}

fn clamp(v: u128) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl ChainMetrics {
    pub fn new(context: &impl Metrics) -> Self {
        Self {
            execution: context.histogram(
                "block_execution_seconds",
                "Time to execute a block, proposed or verified, its state reads included",
                EXECUTION_BUCKETS_SECONDS,
            ),
            capture: context.histogram(
                "block_capture_seconds",
                "Time to record a finalized block in the indexes and the account view",
                EXECUTION_BUCKETS_SECONDS,
            ),
            lookups: context.counter("state_lookups", "State database lookups made by block execution"),
            account_reads: context.counter("account_reads", "Account reads of the API and admission"),
            account_misses: context.counter(
                "account_read_misses",
                "Account reads the account view did not hold, each a state database lookup",
            ),
            height: context.gauge("height", "Latest finalized block height"),
            finalization_latency: context.histogram(
                "finalization_latency_seconds",
                "Time from a block's timestamp (its proposal) to its finalization on this node",
                LATENCY_BUCKETS_SECONDS,
            ),
            transactions: context.counter("transactions_finalized", "Transactions in finalized blocks"),
            mempool_size: context.gauge("mempool_transactions", "Pending transactions in the mempool"),
            basefee_cycle: context.gauge("basefee_cycle", "Basefee per cycle for the next block (base units)"),
            basefee_cell: context.gauge("basefee_cell", "Basefee per cell for the next block (base units)"),
            gossip_received: context.counter("gossip_received", "Validly signed transactions received from peers"),
            gossip_admitted: context
                .counter("gossip_admitted", "Transactions received from peers that entered the mempool"),
            gossip_invalid: context.counter(
                "gossip_invalid",
                "Transactions received from peers that break the validity rule (or do not decode); an honest peer's \
                 only when the state moved under it (a basefee that rose)",
            ),
            gossip_known: context.counter(
                "gossip_known",
                "Transactions received from peers and skipped unchecked: already pending, repeated, or decided recently",
            ),
        }
    }

    pub fn observe_finalized(
        &self,
        height: u64,
        latency_ms: u64,
        transactions: usize,
        mempool: usize,
        next_basefees: Basefees,
    ) {
        self.height.metric().set(i64::try_from(height).unwrap_or(i64::MAX));
        self.finalization_latency.metric().observe(latency_ms as f64 / 1000.0);
        self.transactions.metric().inc_by(transactions as u64);
        self.mempool_size.metric().set(mempool as i64);
        self.basefee_cycle.metric().set(clamp(next_basefees.cycle));
        self.basefee_cell.metric().set(clamp(next_basefees.cell));
    }

    pub fn observe_gossip(&self, received: usize, admitted: usize, invalid: usize, known: usize) {
        self.gossip_received.metric().inc_by(received as u64);
        self.gossip_admitted.metric().inc_by(admitted as u64);
        self.gossip_invalid.metric().inc_by(invalid as u64);
        self.gossip_known.metric().inc_by(known as u64);
    }

    /// Records one block's execution: how long it took and how many keys it read.
    pub fn observe_execution(&self, seconds: f64, lookups: u64) {
        self.execution.metric().observe(seconds);
        self.lookups.metric().inc_by(lookups);
    }

    /// Records one account read, and whether the account view missed it.
    pub fn observe_account_read(&self, missed: bool) {
        self.account_reads.metric().inc();
        if missed {
            self.account_misses.metric().inc();
        }
    }

    /// Records how long recording a finalized block (indexes, account view) took.
    pub fn observe_capture(&self, seconds: f64) {
        self.capture.metric().observe(seconds);
    }

    /// Refreshes the mempool gauge between blocks.
    pub fn set_mempool(&self, size: usize) {
        self.mempool_size.metric().set(size as i64);
    }
}
