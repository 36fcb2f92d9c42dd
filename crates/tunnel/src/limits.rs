//! What keeps a hostile peer from exhausting the process: the cap on connections that have not
//! authenticated yet (in all and per source address), rejections counted and logged at a
//! bounded rate, accept loops that pause instead of spinning when the process is out of file
//! descriptors, the soft descriptor limit raised to the hard one at start, and the memory
//! budget's tally. Bounds and defaults: README, *Limits and bounds*; attacks and measurements:
//! `docs/RELIABILITY.md`.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;
use std::collections::{HashMap, VecDeque};
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
    /// `max_unauthenticated` connections were in their handshake: the oldest was evicted for a
    /// newcomer (or, while as many evicted ones were still to be closed, the newcomer was).
    Unauthenticated,
    /// A connection in its handshake was evicted: its source network (an IPv4 /24, an IPv6
    /// /64) had `max_unauthenticated_per_address` of them, and a newer one came.
    UnauthenticatedPerAddress,
    /// The handshake's verdict was a refusal (sessions, connections per session, shutdown).
    Refused,
    /// A peer opened a flow on a route this server does not have.
    UnknownRoute,
    /// A new flow or session while the memory budget was spent, or a pool connection closed
    /// for input to a session above its share of it.
    MemoryBudget,
    /// A pool connection broke the protocol.
    Protocol,
    /// `accept` failed (out of file descriptors, ...).
    Accept,
    /// A connection to the metrics endpoint was closed without an answer: it sent no request
    /// while newer connections waited (`METRICS_CONNECTIONS`).
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

/// Lines of one kind written at most once per [`LOG_INTERVAL`]; those in between are counted,
/// and the next line says how many were left out.
#[derive(Default)]
pub struct LogRate {
    /// Lines not written since the last one.
    suppressed: AtomicU64,
    last_log: Mutex<Option<Instant>>,
}

impl LogRate {
    /// Whether a line may be written now, and if so how many were left out before it.
    pub fn allow(&self) -> Option<u64> {
        let now = Instant::now();
        let mut last = self.last_log.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|t| now.duration_since(t) < LOG_INTERVAL) {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *last = Some(now);
        Some(self.suppressed.swap(0, Ordering::Relaxed))
    }
}

#[derive(Default)]
struct Counter {
    total: AtomicU64,
    rate: LogRate,
}

/// Rejections by reason: counted for the metrics endpoint, logged at most once per
/// [`LOG_INTERVAL`] per reason, so a flood of garbage connections cannot flood the log.
#[derive(Default)]
pub struct Rejections {
    counters: [Counter; Reject::ALL.len()],
    /// Churn a peer causes without being refused (sessions created and forgotten, pool
    /// connections lost): logged at the same bounded rate.
    pub churn: LogRate,
}

impl Rejections {
    /// Counts one rejection and logs `detail()` unless a line for this reason was written less
    /// than [`LOG_INTERVAL`] ago. `detail` must show peer-supplied strings escaped (`{:?}`).
    pub fn record(&self, why: Reject, detail: impl FnOnce() -> String) {
        let c = &self.counters[why as usize];
        c.total.fetch_add(1, Ordering::Relaxed);
        let Some(left_out) = c.rate.allow() else {
            return;
        };
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

    /// `schedtcp_rejected_total` and `schedtcp_integrity_failures_total` on the metrics page.
    pub fn encode(&self, enc: &mut DescriptorEncoder) -> std::fmt::Result {
        crate::metrics::family(
            enc,
            "rejected_total",
            "Connections, flows and requests refused, by reason (logged at most once a second per reason).",
            MetricType::Counter,
            Reject::ALL.map(|r| ([("reason", r.label())], self.count(r))),
        )?;
        crate::metrics::single(
            enc,
            "integrity_failures_total",
            "Pool connections closed because a record failed authentication (bytes altered or injected on the path).",
            MetricType::Counter,
            self.count(Reject::Integrity),
        )
    }
}

/// The cap on pool connections still in their handshake: `max_total` at once, and
/// `max_per_source` from one source network ([`Source`]: an IPv4 /24 or an IPv6 /64, since one
/// host may hold a whole /64), so that neither a flood nor a few slow peers hold every file
/// descriptor (each such connection lives at most `auth_timeout_secs`).
///
/// A newcomer is never refused for the others' sake: when its source network already has
/// `max_per_source` places, it takes that network's oldest place; when the gate is full, it
/// takes the oldest place of all, whatever its address (the one told to go is
/// [`Ticket::evicted`]). A handshake takes a round trip, a flood's connections stay silent, so
/// the oldest place is a flooder's, and an honest client gets in as long as fewer than
/// `max_total` newcomers (`max_per_source` from its own network) arrive during its handshake:
/// a flood from any number of addresses only evicts its own connections sooner. Descriptors
/// held: at most `2 × max_total` (evicted connections are closed as soon as their task runs;
/// while that many wait, newcomers are closed at once).
pub struct Gate {
    max_total: usize,
    max_per_source: usize,
    inner: Mutex<GateState>,
}

/// The network a connection comes from, as the [`Gate`] counts it: an IPv4 /24, an IPv6 /64
/// (an IPv4-mapped IPv6 address counts as its IPv4 address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source(IpAddr);

impl Source {
    pub fn of(addr: IpAddr) -> Self {
        match addr {
            IpAddr::V4(a) => Self::v4(a),
            IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => Self::v4(v4),
                None => Self(IpAddr::V6((u128::from(a) & !((1u128 << 64) - 1)).into())),
            },
        }
    }

    fn v4(a: std::net::Ipv4Addr) -> Self {
        Self(IpAddr::V4((u32::from(a) & 0xffff_ff00).into()))
    }
}

#[derive(Default)]
struct GateState {
    /// Places held (evicted ones included until their connection is closed).
    total: usize,
    /// Places not evicted, oldest first (ids grow with arrival).
    waiting: std::collections::BTreeMap<u64, (Source, Arc<Eviction>)>,
    /// Places not evicted per source network, oldest first.
    per_source: HashMap<Source, VecDeque<u64>>,
    next_id: u64,
}

/// A place's eviction: the signal, and why (`Unauthenticated`: the gate was full;
/// `UnauthenticatedPerAddress`: its source network was).
#[derive(Default)]
struct Eviction {
    notify: Notify,
    why: Mutex<Option<Reject>>,
}

/// A place in the [`Gate`], released when dropped (the handshake ended, either way).
pub struct Ticket {
    gate: Arc<Gate>,
    source: Source,
    id: u64,
    evict: Arc<Eviction>,
}

impl Ticket {
    /// Completes when a newcomer took this place (the handshake should be abandoned), with
    /// why: the gate or this source network was full.
    pub async fn evicted(&self) -> Reject {
        self.evict.notify.notified().await;
        self.evict
            .why
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .unwrap_or(Reject::Unauthenticated)
    }
}

impl GateState {
    /// Takes place `id` out of the waiting places and tells it why.
    fn evict(&mut self, id: u64, why: Reject) {
        if let Some((source, e)) = self.waiting.remove(&id) {
            if let Some(q) = self.per_source.get_mut(&source) {
                q.retain(|&i| i != id);
                if q.is_empty() {
                    self.per_source.remove(&source);
                }
            }
            *e.why.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
            e.notify.notify_one();
        }
    }
}

impl Gate {
    pub fn new(max_total: usize, max_per_source: usize) -> Arc<Self> {
        Arc::new(Self {
            max_total,
            max_per_source,
            inner: Mutex::new(GateState::default()),
        })
    }

    /// A place for a new connection from `addr`, or why there is none (only while as many
    /// evicted connections as `max_total` are still to be closed). O(log n +
    /// `max_per_source`).
    pub fn enter(self: &Arc<Self>, addr: IpAddr) -> Result<Ticket, Reject> {
        let source = Source::of(addr);
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // Evicted connections close as soon as their task runs; until then they count, and
        // never more than `max_total` of them.
        if g.total >= 2 * self.max_total {
            return Err(Reject::Unauthenticated);
        }
        let mine = g.per_source.get(&source).map_or(0, VecDeque::len);
        if mine >= self.max_per_source {
            if let Some(&oldest) = g.per_source.get(&source).and_then(VecDeque::front) {
                g.evict(oldest, Reject::UnauthenticatedPerAddress);
            }
        } else if g.waiting.len() >= self.max_total {
            if let Some(&oldest) = g.waiting.keys().next() {
                g.evict(oldest, Reject::Unauthenticated);
            }
        }
        let id = g.next_id;
        g.next_id += 1;
        g.total += 1;
        let evict = Arc::new(Eviction::default());
        g.waiting.insert(id, (source, evict.clone()));
        g.per_source.entry(source).or_default().push_back(id);
        Ok(Ticket {
            gate: self.clone(),
            source,
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
        if g.waiting.remove(&self.id).is_some() {
            if let Some(q) = g.per_source.get_mut(&self.source) {
                q.retain(|&i| i != self.id);
                if q.is_empty() {
                    g.per_source.remove(&self.source);
                }
            }
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
    async fn the_gate_evicts_the_oldest_of_a_full_network_then_the_oldest_of_all() {
        use futures_poll::evicted_now;
        let g = Gate::new(4, 3);
        let ip = |a: u8, b: u8| IpAddr::from([10, 0, a, b]);
        // Three places from one /24 (any host in it): the fourth takes the network's oldest.
        let a1 = g.enter(ip(1, 1)).unwrap();
        let a2 = g.enter(ip(1, 2)).unwrap();
        let a3 = g.enter(ip(1, 3)).unwrap();
        let a4 = g.enter(ip(1, 4)).unwrap();
        assert_eq!(
            evicted_now(&a1).await,
            Some(Reject::UnauthenticatedPerAddress)
        );
        assert_eq!(evicted_now(&a2).await, None);
        // Full (a2, a3, a4 and b1): a newcomer from any network takes the oldest place of
        // all, whatever its address.
        let b1 = g.enter(ip(2, 1)).unwrap();
        let c1 = g.enter(ip(3, 1)).unwrap();
        assert_eq!(evicted_now(&a2).await, Some(Reject::Unauthenticated));
        let c2 = g.enter(ip(3, 2)).unwrap();
        assert_eq!(evicted_now(&a3).await, Some(Reject::Unauthenticated));
        for t in [&a4, &b1, &c1, &c2] {
            assert_eq!(evicted_now(t).await, None);
        }
        // Evicted places count until their connection closes, at most as many as the gate.
        assert_eq!(g.occupied(), 7);
        let d1 = g.enter(ip(4, 1)).unwrap();
        assert_eq!(evicted_now(&a4).await, Some(Reject::Unauthenticated));
        assert_eq!(g.enter(ip(5, 1)).err(), Some(Reject::Unauthenticated));
        drop((a1, a2, a3, a4));
        assert_eq!(g.occupied(), 4);
        // A place freed is taken without eviction.
        drop(d1);
        let e1 = g.enter(ip(5, 1)).unwrap();
        for t in [&b1, &c1, &c2, &e1] {
            assert_eq!(evicted_now(t).await, None);
        }
    }

    #[test]
    fn sources_are_ipv4_slash_24_and_ipv6_slash_64_networks() {
        let s = |a: &str| Source::of(a.parse().unwrap());
        assert_eq!(s("192.0.2.1"), s("192.0.2.254"));
        assert_ne!(s("192.0.2.1"), s("192.0.3.1"));
        assert_eq!(s("2001:db8:1:2::1"), s("2001:db8:1:2:ffff::9"));
        assert_ne!(s("2001:db8:1:2::1"), s("2001:db8:1:3::1"));
        assert_eq!(s("::ffff:192.0.2.7"), s("192.0.2.1"));
    }

    /// Whether a future is ready at its first poll.
    mod futures_poll {
        use super::super::{Reject, Ticket};
        /// Why the ticket was evicted, if it was.
        pub async fn evicted_now(t: &Ticket) -> Option<Reject> {
            tokio::time::timeout(std::time::Duration::ZERO, t.evicted())
                .await
                .ok()
        }
    }

    #[test]
    fn rejections_are_counted_even_when_not_logged() {
        let reg = crate::metrics::Registry::default();
        let r = &reg.rejections;
        let mut logged = 0;
        for _ in 0..1000 {
            r.record(Reject::Handshake, || {
                logged += 1;
                String::new()
            });
        }
        assert_eq!(r.count(Reject::Handshake), 1000);
        assert_eq!(logged, 1, "one line per second per reason");
        assert!(reg
            .render()
            .contains("schedtcp_rejected_total{reason=\"handshake\"} 1000"));
    }

    #[test]
    fn out_of_descriptors_pauses_longer_than_a_lost_connection() {
        let emfile = std::io::Error::from_raw_os_error(24);
        let aborted = std::io::Error::from_raw_os_error(103);
        assert_eq!(accept_pause(&emfile), Duration::from_millis(100));
        assert!(accept_pause(&aborted) > Duration::ZERO);
    }
}
