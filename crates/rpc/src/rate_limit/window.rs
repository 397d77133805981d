//! The limiters themselves: exact sliding windows, node-wide and per client (see the parent
//! module for where each applies).

use crate::limits::RETRY_AFTER_SECS_MIN;
use parking_lot::Mutex;
use std::{
    collections::{HashMap, VecDeque},
    net::IpAddr,
    time::{Duration, Instant},
};

/// Which limiter refused a request (the `limiter` label of the metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    Global,
    Faucet,
    StateSync,
    /// The public storage-relay reads, per client IP.
    Ras,
    /// The cap on `/submit_wait` waits in flight.
    SubmitWaits,
}

impl Limiter {
    pub const fn label(self) -> &'static str {
        match self {
            Limiter::Global => "global",
            Limiter::Faucet => "faucet",
            Limiter::StateSync => "state_sync",
            Limiter::Ras => "ras",
            Limiter::SubmitWaits => "submit_waits",
        }
    }
}

/// At most `limit` acquisitions in any `window`.
#[derive(Debug)]
pub struct SlidingWindow {
    limit: usize,
    window: Duration,
    /// Instants of the accepted acquisitions still inside the window, oldest first.
    accepted: Mutex<VecDeque<Instant>>,
}

impl SlidingWindow {
    pub fn new(limit: u32, window: Duration) -> Self {
        Self { limit: usize::try_from(limit).unwrap_or(usize::MAX), window, accepted: Mutex::new(VecDeque::new()) }
    }

    /// Takes a slot now, or says how long until one frees.
    pub fn try_acquire(&self) -> Result<(), Duration> {
        self.try_acquire_at(Instant::now())
    }

    /// Whether no acceptance still counts at `now`.
    fn is_idle_at(&self, now: Instant) -> bool {
        self.accepted.lock().back().is_none_or(|&at| now.saturating_duration_since(at) >= self.window)
    }

    fn try_acquire_at(&self, now: Instant) -> Result<(), Duration> {
        let mut accepted = self.accepted.lock();
        while accepted.front().is_some_and(|&at| now.saturating_duration_since(at) >= self.window) {
            accepted.pop_front();
        }
        if accepted.len() < self.limit {
            accepted.push_back(now);
            return Ok(());
        }
        // Full (or a limit of zero): the next slot frees when the oldest acceptance leaves.
        Err(accepted
            .front()
            .map_or(self.window, |&oldest| self.window.saturating_sub(now.saturating_duration_since(oldest))))
    }
}

/// One [`SlidingWindow`] per client IP.
///
/// At most [`MAX_TRACKED_CLIENTS`] windows are kept; when a new client would exceed that, the
/// windows of clients idle for a whole window are forgotten first (they hold no acceptance that
/// still counts), and if every tracked client is active the newcomer is refused until one goes
/// idle, so a flood of addresses cannot grow the map without bound.
#[derive(Debug)]
pub struct PerClient {
    limit: u32,
    window: Duration,
    clients: Mutex<HashMap<IpAddr, SlidingWindow>>,
}

/// Clients a [`PerClient`] limiter tracks at once.
pub(crate) const MAX_TRACKED_CLIENTS: usize = 65_536;

impl PerClient {
    pub fn new(limit: u32, window: Duration) -> Self {
        Self { limit, window, clients: Mutex::new(HashMap::new()) }
    }

    /// Takes a slot of `client`'s window now, or says how long until one frees.
    pub fn try_acquire(&self, client: IpAddr) -> Result<(), Duration> {
        self.try_acquire_at(client, Instant::now())
    }

    fn try_acquire_at(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        let mut clients = self.clients.lock();
        if !clients.contains_key(&client) && clients.len() >= MAX_TRACKED_CLIENTS {
            clients.retain(|_, window| !window.is_idle_at(now));
            if clients.len() >= MAX_TRACKED_CLIENTS {
                return Err(self.window);
            }
        }
        clients.entry(client).or_insert_with(|| SlidingWindow::new(self.limit, self.window)).try_acquire_at(now)
    }
}

/// `Retry-After` in whole seconds for a wait: rounded up, at least [`RETRY_AFTER_SECS_MIN`].
pub(crate) fn retry_after_secs(wait: Duration) -> u64 {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    secs.max(RETRY_AFTER_SECS_MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn never_more_than_the_limit_in_any_window() {
        let limiter = SlidingWindow::new(3, SECOND);
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        assert!(limiter.try_acquire_at(at(0)).is_ok());
        assert!(limiter.try_acquire_at(at(500)).is_ok());
        assert!(limiter.try_acquire_at(at(900)).is_ok());
        // Full until the first acceptance leaves the window at t0 + 1 s.
        assert_eq!(limiter.try_acquire_at(at(950)), Err(Duration::from_millis(50)));
        assert_eq!(limiter.try_acquire_at(at(999)), Err(Duration::from_millis(1)));
        assert!(limiter.try_acquire_at(at(1000)).is_ok());
        // A fixed window would reset here; the sliding one still holds 500, 900 and 1000.
        assert_eq!(limiter.try_acquire_at(at(1100)), Err(Duration::from_millis(400)));
        assert!(limiter.try_acquire_at(at(1500)).is_ok());
    }

    #[test]
    fn refusals_do_not_take_slots() {
        let limiter = SlidingWindow::new(1, SECOND);
        let t0 = Instant::now();
        assert!(limiter.try_acquire_at(t0).is_ok());
        for ms in 1..10 {
            assert!(limiter.try_acquire_at(t0 + Duration::from_millis(ms)).is_err());
        }
        assert!(limiter.try_acquire_at(t0 + SECOND).is_ok());
    }

    #[test]
    fn zero_limit_refuses_everything_for_a_window() {
        let limiter = SlidingWindow::new(0, Duration::from_secs(60));
        assert_eq!(limiter.try_acquire_at(Instant::now()), Err(Duration::from_secs(60)));
    }

    #[test]
    fn per_client_windows_are_independent_and_bounded() {
        let limiter = PerClient::new(2, SECOND);
        let t0 = Instant::now();
        let a: IpAddr = [127, 0, 0, 1].into();
        let b: IpAddr = [127, 0, 0, 2].into();
        assert!(limiter.try_acquire_at(a, t0).is_ok());
        assert!(limiter.try_acquire_at(a, t0).is_ok());
        assert_eq!(limiter.try_acquire_at(a, t0), Err(SECOND));
        // Another client is not affected by the first one's exhausted window.
        assert!(limiter.try_acquire_at(b, t0).is_ok());
        assert!(limiter.try_acquire_at(a, t0 + SECOND).is_ok());

        // Fill the map with active clients: a newcomer waits, and gets in once they idle.
        let full = PerClient::new(1, SECOND);
        for i in 0..MAX_TRACKED_CLIENTS {
            let ip: IpAddr = std::net::Ipv6Addr::from(i as u128).into();
            assert!(full.try_acquire_at(ip, t0).is_ok());
        }
        assert_eq!(full.try_acquire_at(a, t0), Err(SECOND));
        assert!(full.try_acquire_at(a, t0 + SECOND).is_ok());
        assert_eq!(full.clients.lock().len(), 1);
    }

    #[test]
    fn retry_after_rounds_up_to_whole_seconds_at_least_one() {
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1001)), 2);
        assert_eq!(retry_after_secs(Duration::from_secs(60)), 60);
    }
}
