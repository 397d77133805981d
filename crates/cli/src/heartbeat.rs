//! How often the runner and relay daemons heartbeat.
//!
//! A runner or relay is healthy while its last heartbeat is within the chain's
//! `heartbeat_gap_blocks`, a chain parameter governance may change while a daemon runs. So the
//! daemons do not pace themselves by a compiled-in gap: [`HeartbeatPace`] re-reads the live gap
//! from `/governance/params` every [`GAP_REFRESH_MS`] and keeps the pace at most half of it, whatever
//! `--heartbeat-blocks` asks for.

use drover_client::Client;
use std::time::{Duration, Instant};

/// How long a read of the chain's heartbeat gap is trusted, in milliseconds.
pub(crate) const GAP_REFRESH_MS: u64 = 10_000;

/// The heartbeat pace of one daemon.
pub(crate) struct HeartbeatPace {
    /// `--heartbeat-blocks`, if given.
    configured: Option<u64>,
    /// The chain's gap as last read (the genesis default until then).
    gap: u64,
    read_at: Option<Instant>,
}

impl HeartbeatPace {
    /// A pace of `configured` blocks (a fifth of the chain's gap when `None`).
    pub(crate) fn new(configured: Option<u64>) -> Self {
        HeartbeatPace { configured, gap: drover_types::runner::HEARTBEAT_GAP_BLOCKS, read_at: None }
    }

    /// Blocks to let pass between heartbeats now, re-reading the chain's gap when the last read
    /// is stale (a failed read keeps the last known gap).
    pub(crate) async fn blocks(&mut self, client: &Client) -> u64 {
        let stale = self.read_at.is_none_or(|at| at.elapsed() >= Duration::from_millis(GAP_REFRESH_MS));
        if stale {
            match client.governance_params().await {
                Ok(params) => {
                    if let Some(gap) = params.value("heartbeat_gap_blocks").and_then(|v| u64::try_from(v).ok()) {
                        self.gap = gap;
                    }
                    self.read_at = Some(Instant::now());
                }
                Err(error) => eprintln!("cannot read the chain's heartbeat gap: {error}"),
            }
        }
        pace(self.configured, self.gap)
    }
}

/// `configured` (a fifth of `gap` by default), kept within 1 and half the gap: a heartbeat sent
/// when the last is `pace` blocks old lands a block or more later, and a slow block or a busy
/// node must not make that too late.
fn pace(configured: Option<u64>, gap: u64) -> u64 {
    configured.unwrap_or(gap / 5).clamp(1, (gap / 2).max(1))
}

#[cfg(test)]
mod tests {
    use super::pace;

    #[test]
    fn the_pace_stays_below_the_chains_gap() {
        assert_eq!(pace(None, 50), 10);
        assert_eq!(pace(Some(20), 50), 20);
        assert_eq!(pace(Some(49), 50), 25, "half the gap at most");
        assert_eq!(pace(Some(30), 10), 5, "a gap voted down wins over the flag");
        assert_eq!(pace(None, 5), 1);
    }
}
