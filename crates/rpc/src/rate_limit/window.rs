//! The limiters themselves: exact sliding windows, node-wide, shared fairly between clients, and
//! per client (see the parent module for where each applies).

use crate::{client::ClientId, limits::RETRY_AFTER_SECS_MIN};
use parking_lot::Mutex;
use std::{
    collections::{HashMap, VecDeque},
    time::{Duration, Instant},
};

/// Which limiter refused a request (the `limiter` label of the metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    Global,
    /// The global window refused a client that holds its share of it (see [`SharedWindow`]).
    GlobalShare,
    Faucet,
    StateSync,
    /// The public storage-relay reads, per client IP (label `ras`, after their `/ras/...` URLs).
    Storage,
    /// The cap on `/submit_wait` waits in flight.
    SubmitWaits,
}

impl Limiter {
    pub const fn label(self) -> &'static str {
        match self {
            Limiter::Global => "global",
            Limiter::GlobalShare => "global_share",
            Limiter::Faucet => "faucet",
            Limiter::StateSync => "state_sync",
            Limiter::Storage => "ras",
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

/// A [`SlidingWindow`] shared by every client, in which no one client takes the last share.
///
/// Each acceptance is remembered with its client, so the window knows how many of its
/// acceptances each client holds (at most `limit` entries, whatever the number of clients). A
/// client holding fewer than `share` is served whenever the window has a free slot; a client
/// holding `share` or more only while more than `share` slots are free. One client alone can so
/// take `limit - share` of the window and never the rest, which stays for the clients under
/// their share: a client flooding the node meets 429s, the others do not (unless together they
/// fill the window). Requests whose client is unknown count in the window but hold no share.
#[derive(Debug)]
pub struct SharedWindow {
    limit: usize,
    share: usize,
    window: Duration,
    state: Mutex<Shares>,
}

#[derive(Debug, Default)]
struct Shares {
    /// The accepted acquisitions still inside the window and their clients, oldest first.
    accepted: VecDeque<(Instant, Option<ClientId>)>,
    /// How many of `accepted` each client holds (clients holding none are not kept).
    held: HashMap<ClientId, usize>,
}

/// Why a [`SharedWindow`] refused, and how long until a slot frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The window is full.
    Full(Duration),
    /// The client holds its share and no more than a share of the window is free.
    Share(Duration),
}

impl SharedWindow {
    /// At most `limit` acquisitions in any `window`, a client holding `share_percent` % of
    /// `limit` (rounded up, at least one) being a client at its share.
    pub fn new(limit: u32, window: Duration, share_percent: u32) -> Self {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let share = limit.saturating_mul(usize::try_from(share_percent).unwrap_or(usize::MAX)).div_ceil(100).max(1);
        Self { limit, share, window, state: Mutex::default() }
    }

    /// Acceptances one client may hold and still be served when the window is busy.
    pub fn share(&self) -> usize {
        self.share
    }

    /// Takes a slot for `client` now, or says why not and how long until one frees.
    pub fn try_acquire(&self, client: Option<ClientId>) -> Result<(), Refused> {
        self.try_acquire_at(client, Instant::now())
    }

    fn try_acquire_at(&self, client: Option<ClientId>, now: Instant) -> Result<(), Refused> {
        let mut state = self.state.lock();
        let Shares { accepted, held } = &mut *state;
        while let Some(&(at, owner)) = accepted.front() {
            if now.saturating_duration_since(at) < self.window {
                break;
            }
            accepted.pop_front();
            if let Some(owner) = owner
                && let Some(count) = held.get_mut(&owner)
            {
                *count -= 1;
                if *count == 0 {
                    held.remove(&owner);
                }
            }
        }
        // The next slot frees when the oldest acceptance leaves (or after a whole window when
        // none is held: a limit of zero).
        let wait = accepted
            .front()
            .map_or(self.window, |&(oldest, _)| self.window.saturating_sub(now.saturating_duration_since(oldest)));
        let free = self.limit.saturating_sub(accepted.len());
        if free == 0 {
            return Err(Refused::Full(wait));
        }
        if let Some(client) = client {
            if held.get(&client).copied().unwrap_or(0) >= self.share && free <= self.share {
                return Err(Refused::Share(wait));
            }
            *held.entry(client).or_default() += 1;
        }
        accepted.push_back((now, client));
        Ok(())
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
    clients: Mutex<HashMap<ClientId, SlidingWindow>>,
}

/// Clients a [`PerClient`] limiter tracks at once.
pub(crate) const MAX_TRACKED_CLIENTS: usize = 65_536;

impl PerClient {
    pub fn new(limit: u32, window: Duration) -> Self {
        Self { limit, window, clients: Mutex::new(HashMap::new()) }
    }

    /// Takes a slot of `client`'s window now, or says how long until one frees.
    pub fn try_acquire(&self, client: ClientId) -> Result<(), Duration> {
        self.try_acquire_at(client, Instant::now())
    }

    fn try_acquire_at(&self, client: ClientId, now: Instant) -> Result<(), Duration> {
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
        let a = ClientId::of([127, 0, 0, 1].into());
        let b = ClientId::of([127, 0, 0, 2].into());
        assert!(limiter.try_acquire_at(a, t0).is_ok());
        assert!(limiter.try_acquire_at(a, t0).is_ok());
        assert_eq!(limiter.try_acquire_at(a, t0), Err(SECOND));
        // Another client is not affected by the first one's exhausted window.
        assert!(limiter.try_acquire_at(b, t0).is_ok());
        assert!(limiter.try_acquire_at(a, t0 + SECOND).is_ok());

        // Fill the map with active clients: a newcomer waits, and gets in once they idle.
        let full = PerClient::new(1, SECOND);
        for i in 0..MAX_TRACKED_CLIENTS {
            let ip = ClientId::of(std::net::Ipv6Addr::from((i as u128) << 72).into());
            assert!(full.try_acquire_at(ip, t0).is_ok());
        }
        assert_eq!(full.try_acquire_at(a, t0), Err(SECOND));
        assert!(full.try_acquire_at(a, t0 + SECOND).is_ok());
        assert_eq!(full.clients.lock().len(), 1);
    }

    #[test]
    fn one_client_never_takes_the_last_share_of_the_shared_window() {
        let limiter = SharedWindow::new(10, SECOND, 20);
        assert_eq!(limiter.share(), 2);
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let [flooder, other, third] = [1, 2, 3].map(|last| ClientId::of([127, 0, 0, last].into()));
        // Alone, the flooder takes the window but its last share.
        for _ in 0..8 {
            assert_eq!(limiter.try_acquire_at(Some(flooder), at(0)), Ok(()));
        }
        assert_eq!(limiter.try_acquire_at(Some(flooder), at(100)), Err(Refused::Share(Duration::from_millis(900))));
        // The others, under their share, are served from what is left.
        assert_eq!(limiter.try_acquire_at(Some(other), at(100)), Ok(()));
        assert_eq!(limiter.try_acquire_at(Some(third), at(100)), Ok(()));
        // Full now: everyone waits for the oldest acceptance to leave.
        assert_eq!(limiter.try_acquire_at(Some(other), at(200)), Err(Refused::Full(Duration::from_millis(800))));
        assert_eq!(limiter.try_acquire_at(None, at(200)), Err(Refused::Full(Duration::from_millis(800))));
        // Once the flooder's acceptances leave the window it is served again, up to the share.
        for _ in 0..6 {
            assert_eq!(limiter.try_acquire_at(Some(flooder), at(1_000)), Ok(()));
        }
        assert!(matches!(limiter.try_acquire_at(Some(flooder), at(1_000)), Err(Refused::Share(_))));
        assert_eq!(limiter.try_acquire_at(Some(other), at(1_000)), Ok(()));
        // Clients that hold nothing are forgotten.
        assert!(limiter.try_acquire_at(None, at(3_000)).is_ok());
        assert!(limiter.state.lock().held.is_empty());
    }

    #[test]
    fn a_share_is_at_least_one_request() {
        let limiter = SharedWindow::new(3, SECOND, 10);
        assert_eq!(limiter.share(), 1);
        let t0 = Instant::now();
        let client = ClientId::of([127, 0, 0, 1].into());
        assert!(limiter.try_acquire_at(Some(client), t0).is_ok());
        assert!(limiter.try_acquire_at(Some(client), t0).is_ok());
        assert!(matches!(limiter.try_acquire_at(Some(client), t0), Err(Refused::Share(_))));
        // Requests of no known client only count.
        assert!(limiter.try_acquire_at(None, t0).is_ok());
        assert!(matches!(limiter.try_acquire_at(None, t0), Err(Refused::Full(_))));
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
