//! What keeps a hostile peer from exhausting the process: the cap on connections that have not
//! authenticated yet (in all and per source address), rejections counted and logged at a
//! bounded rate, accept loops that pause instead of spinning when the process is out of file
//! descriptors, the soft descriptor limit raised to the hard one at start, and the memory
//! budget's tally. Bounds and defaults: README, *Limits and bounds*; attacks and measurements:
//! `docs/RELIABILITY.md`.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tracing::warn;

/// Why something a peer asked for was refused (a label of `schedtcp_rejected_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reject {
    /// A pool connection failed its handshake (wrong key, garbage, too slow).
    Handshake,
    /// `max_unauthenticated` connections were already in their handshake.
    Unauthenticated,
    /// `max_unauthenticated_per_address` connections from this address were.
    UnauthenticatedPerAddress,
    /// The handshake's verdict was a refusal (sessions, connections per session, shutdown).
    Refused,
    /// A peer opened a flow on a route this server does not have.
    UnknownRoute,
    /// A new flow or session while the memory budget was spent.
    MemoryBudget,
    /// A pool connection broke the protocol.
    Protocol,
    /// `accept` failed (out of file descriptors, ...).
    Accept,
    /// The metrics endpoint already served `METRICS_CONNECTIONS` requests.
    MetricsConnections,
    /// A record of a pool connection failed authentication (altered or injected on the path;
    /// also `schedtcp_integrity_failures_total`).
    Integrity,
}

impl Reject {
    const ALL: [Reject; 10] = [
        Reject::Handshake,
        Reject::Unauthenticated,
        Reject::UnauthenticatedPerAddress,
        Reject::Refused,
        Reject::UnknownRoute,
        Reject::MemoryBudget,
        Reject::Protocol,
        Reject::Accept,
        Reject::MetricsConnections,
        Reject::Integrity,
    ];

    fn label(self) -> &'static str {
        match self {
            Reject::Handshake => "handshake",
            Reject::Unauthenticated => "unauthenticated",
            Reject::UnauthenticatedPerAddress => "unauthenticated_per_address",
            Reject::Refused => "refused",
            Reject::UnknownRoute => "unknown_route",
            Reject::MemoryBudget => "memory_budget",
            Reject::Protocol => "protocol",
            Reject::Accept => "accept",
            Reject::MetricsConnections => "metrics_connections",
            Reject::Integrity => "integrity",
        }
    }
}

/// At most one log line per reason in this interval; the lines in between are counted, and
/// the next line says how many were left out.
pub const LOG_INTERVAL: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Counter {
    total: AtomicU64,
    /// Occurrences not logged since the last line.
    suppressed: AtomicU64,
    last_log: Mutex<Option<Instant>>,
}

/// Rejections by reason: counted for the metrics endpoint, logged at most once per
/// [`LOG_INTERVAL`] per reason, so a flood of garbage connections cannot flood the log.
#[derive(Default)]
pub struct Rejections {
    counters: [Counter; Reject::ALL.len()],
}

impl Rejections {
    /// Counts one rejection and logs `detail()` unless a line for this reason was written less
    /// than [`LOG_INTERVAL`] ago. `detail` must show peer-supplied strings escaped (`{:?}`).
    pub fn record(&self, why: Reject, detail: impl FnOnce() -> String) {
        let c = &self.counters[why as usize];
        c.total.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut last = c.last_log.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|t| now.duration_since(t) < LOG_INTERVAL) {
            c.suppressed.fetch_add(1, Ordering::Relaxed);
            return;
        }
        *last = Some(now);
        drop(last);
        let left_out = c.suppressed.swap(0, Ordering::Relaxed);
        let text = detail();
        if left_out > 0 {
            warn!(reason = why.label(), left_out, "{text}");
        } else {
            warn!(reason = why.label(), "{text}");
        }
    }

    /// Rejections for this reason so far.
    pub fn count(&self, why: Reject) -> u64 {
        self.counters[why as usize].total.load(Ordering::Relaxed)
    }

    /// `schedtcp_rejected_total` in Prometheus text format.
    pub fn render(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "# HELP schedtcp_rejected_total Connections, flows and requests refused, by reason (logged at most once a second per reason).\n# TYPE schedtcp_rejected_total counter"
        );
        for r in Reject::ALL {
            let _ = writeln!(
                out,
                "schedtcp_rejected_total{{reason=\"{}\"}} {}",
                r.label(),
                self.count(r)
            );
        }
        let _ = writeln!(
            out,
            "# HELP schedtcp_integrity_failures_total Pool connections closed because a record failed authentication (bytes altered or injected on the path).\n# TYPE schedtcp_integrity_failures_total counter\nschedtcp_integrity_failures_total {}",
            self.count(Reject::Integrity)
        );
    }
}

/// The cap on pool connections still in their handshake: `max_total` at once, and
/// `max_per_address` from one source address, so that neither a flood nor a few slow peers
/// hold every file descriptor (each such connection lives at most `auth_timeout_secs`).
///
/// When the gate is full, a newcomer from an address holding at least two places fewer than
/// the address holding most takes the oldest place of that address (which is told to go,
/// [`Ticket::evicted`]); a newcomer from one of the heaviest addresses is refused. So a flood
/// from a few addresses only ever evicts its own connections, and an honest client, which
/// holds one place at a time, gets in and stays in; refusing every newcomer instead would let
/// a few slow peers lock everyone out. Only a flood from more than `max_total` addresses at
/// once can still crowd it out. Descriptors held: at most `2 × max_total` (evicted
/// connections are closed as soon as their task runs; while that many wait, newcomers are
/// closed at once).
pub struct Gate {
    max_total: usize,
    max_per_address: usize,
    inner: Mutex<GateState>,
}

#[derive(Default)]
struct GateState {
    /// Places held (evicted ones included until their connection is closed).
    total: usize,
    /// Places not evicted.
    waiting: usize,
    per_address: HashMap<IpAddr, Address>,
    next_id: u64,
}

#[derive(Default)]
struct Address {
    held: usize,
    /// Places not evicted, oldest first: (ticket id, its eviction signal).
    queue: VecDeque<(u64, Arc<Notify>)>,
}

/// A place in the [`Gate`], released when dropped (the handshake ended, either way).
pub struct Ticket {
    gate: Arc<Gate>,
    addr: IpAddr,
    id: u64,
    evict: Arc<Notify>,
}

impl Ticket {
    /// Completes when a newcomer took this place: the handshake should be abandoned.
    pub async fn evicted(&self) {
        self.evict.notified().await;
    }
}

impl Gate {
    pub fn new(max_total: usize, max_per_address: usize) -> Arc<Self> {
        Arc::new(Self {
            max_total,
            max_per_address,
            inner: Mutex::new(GateState::default()),
        })
    }

    /// A place for a new connection from `addr`, or why there is none.
    pub fn enter(self: &Arc<Self>, addr: IpAddr) -> Result<Ticket, Reject> {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mine = g.per_address.get(&addr).map_or(0, |a| a.held);
        if mine >= self.max_per_address {
            return Err(Reject::UnauthenticatedPerAddress);
        }
        // Evicted connections close as soon as their task runs; until then they count, and
        // never more than `max_total` of them.
        if g.total >= 2 * self.max_total {
            return Err(Reject::Unauthenticated);
        }
        if g.waiting >= self.max_total {
            let heaviest = g
                .per_address
                .iter_mut()
                .filter(|(_, a)| !a.queue.is_empty())
                .max_by_key(|(_, a)| a.queue.len())
                .map(|(_, a)| a);
            // Only if the newcomer's address stays lighter than the one it takes from.
            let Some(heaviest) = heaviest.filter(|a| a.queue.len() > mine + 1) else {
                return Err(Reject::Unauthenticated);
            };
            if let Some((_, evict)) = heaviest.queue.pop_front() {
                evict.notify_one();
                g.waiting -= 1;
            }
        }
        let id = g.next_id;
        g.next_id += 1;
        g.total += 1;
        g.waiting += 1;
        let evict = Arc::new(Notify::new());
        let a = g.per_address.entry(addr).or_default();
        a.held += 1;
        a.queue.push_back((id, evict.clone()));
        Ok(Ticket {
            gate: self.clone(),
            addr,
            id,
            evict,
        })
    }

    /// Connections in their handshake now (evicted ones included until they are closed).
    pub fn occupied(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).total
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut g = self.gate.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.total -= 1;
        let Some(a) = g.per_address.get_mut(&self.addr) else {
            return;
        };
        a.held -= 1;
        let was_waiting = match a.queue.iter().position(|(id, _)| *id == self.id) {
            Some(i) => a.queue.remove(i).is_some(),
            None => false,
        };
        if a.held == 0 {
            g.per_address.remove(&self.addr);
        }
        if was_waiting {
            g.waiting -= 1;
        }
    }
}

/// How long an accept loop waits after `accept` failed: out of descriptors or memory, the
/// condition lasts until connections close, and retrying at once only spins (100 ms); any
/// other error concerns one connection (5 ms, so even a stream of them cannot spin).
pub fn accept_pause(e: &std::io::Error) -> Duration {
    const EMFILE: i32 = 24;
    const ENFILE: i32 = 23;
    const ENOBUFS: i32 = 105;
    const ENOMEM: i32 = 12;
    match e.raw_os_error() {
        Some(EMFILE | ENFILE | ENOBUFS | ENOMEM) => Duration::from_millis(100),
        _ => Duration::from_millis(5),
    }
}

/// Counts and logs (rate-limited) a failed `accept` on `what`, then pauses
/// ([`accept_pause`]). An accept loop survives every error.
pub async fn accept_failed(rejections: &Rejections, what: &str, e: std::io::Error) {
    let pause = accept_pause(&e);
    rejections.record(Reject::Accept, || {
        format!(
            "{what}: accept failed: {e}; pausing {} ms",
            pause.as_millis()
        )
    });
    tokio::time::sleep(pause).await;
}

/// Raises the soft limit on open file descriptors to the hard limit (once, at start), so the
/// caps above, not the distribution's default of 1024, decide how many connections fit.
/// Returns the soft limit in force.
pub fn raise_fd_limit() -> std::io::Result<u64> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE)?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard)?;
        return Ok(hard);
    }
    Ok(soft)
}

/// Memory the sessions hold (send buffers and received bytes), refreshed at most every
/// [`MEMORY_REFRESH`] so checking it on every new flow stays cheap.
pub const MEMORY_REFRESH: Duration = Duration::from_millis(100);

/// The process-wide memory budget: new sessions and flows are refused while the sessions'
/// buffers hold more than `budget` bytes.
pub struct Budget {
    pub budget: u64,
    cached: Mutex<Option<(Instant, u64)>>,
}

impl Budget {
    pub fn new(budget: u64) -> Self {
        Self {
            budget,
            cached: Mutex::new(None),
        }
    }

    /// Bytes held, from `measure` if the last measurement is older than [`MEMORY_REFRESH`].
    pub fn held(&self, measure: impl FnOnce() -> u64) -> u64 {
        let mut c = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        match *c {
            Some((at, v)) if at.elapsed() < MEMORY_REFRESH => v,
            _ => {
                let v = measure();
                *c = Some((Instant::now(), v));
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_gate_caps_per_address_and_evicts_from_the_heaviest_address() {
        use futures_poll::ready_now;
        let g = Gate::new(4, 3);
        let ip = |i: u8| IpAddr::from([10, 0, 0, i]);
        let a1 = g.enter(ip(1)).unwrap();
        let a2 = g.enter(ip(1)).unwrap();
        let a3 = g.enter(ip(1)).unwrap();
        assert_eq!(
            g.enter(ip(1)).err(),
            Some(Reject::UnauthenticatedPerAddress)
        );
        let b1 = g.enter(ip(2)).unwrap();
        // Full: a newcomer from a light address takes the heaviest address's oldest place.
        let c1 = g.enter(ip(3)).unwrap();
        assert!(ready_now(a1.evicted()).await);
        assert!(!ready_now(b1.evicted()).await);
        let d1 = g.enter(ip(4)).unwrap();
        assert!(ready_now(a2.evicted()).await);
        // Now every address holds one place: a newcomer from a fifth is refused, and no
        // one-place address is evicted for one from an address that already has one.
        assert_eq!(g.enter(ip(5)).err(), Some(Reject::Unauthenticated));
        assert_eq!(g.enter(ip(2)).err(), Some(Reject::Unauthenticated));
        for t in [&a3, &b1, &c1, &d1] {
            assert!(!ready_now(t.evicted()).await);
        }
        drop((a1, a2));
        assert_eq!(g.occupied(), 4);
        drop(b1);
        assert!(g.enter(ip(5)).is_ok(), "a freed place is taken");
    }

    /// Whether a future is ready at its first poll.
    mod futures_poll {
        pub async fn ready_now(f: impl std::future::Future<Output = ()>) -> bool {
            tokio::time::timeout(std::time::Duration::ZERO, f)
                .await
                .is_ok()
        }
    }

    #[test]
    fn rejections_are_counted_even_when_not_logged() {
        let r = Rejections::default();
        let mut logged = 0;
        for _ in 0..1000 {
            r.record(Reject::Handshake, || {
                logged += 1;
                String::new()
            });
        }
        assert_eq!(r.count(Reject::Handshake), 1000);
        assert_eq!(logged, 1, "one line per second per reason");
        let mut out = String::new();
        r.render(&mut out);
        assert!(out.contains("schedtcp_rejected_total{reason=\"handshake\"} 1000"));
    }

    #[test]
    fn out_of_descriptors_pauses_longer_than_a_lost_connection() {
        let emfile = std::io::Error::from_raw_os_error(24);
        let aborted = std::io::Error::from_raw_os_error(103);
        assert_eq!(accept_pause(&emfile), Duration::from_millis(100));
        assert!(accept_pause(&aborted) > Duration::ZERO);
    }
}
