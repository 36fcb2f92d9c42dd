//! The driver of one gtcp [`Session`] on tokio: the pool connections' reader and writer tasks,
//! the flows' application sockets, and the dispatch of the core's events.
//!
//! The session sits behind one mutex held only for the core's short, non-blocking calls; every
//! wait (sockets, credit, data) happens outside it, woken by the core's events through
//! per-connection and per-flow [`Notify`]s (a `Notify` keeps one permit, so no wake-up is lost
//! between a check and a wait).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes, BytesMut};
use gtcp::size::HttpResponseSizer;
use gtcp::{ConnId, Event, FlowId, ReadOutcome, Session};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tracing::{debug, warn};

use crate::histogram::Histogram;

/// Reset codes this driver sends.
pub mod codes {
    /// The application aborted its connection.
    pub const APP_ABORT: u32 = 1;
    /// The target refused the connection or could not be reached.
    pub const TARGET_UNREACHABLE: u32 = 2;
    /// The route is not in the server's configuration.
    pub const UNKNOWN_ROUTE: u32 = 3;
    /// No pool connection could be established for the flow.
    pub const NO_CONNECTION: u32 = 4;
    /// The tunnel is shutting down.
    pub const SHUTDOWN: u32 = 5;
    /// The session had no live pool connection for the server's `session_timeout_secs`.
    pub const SESSION_EXPIRED: u32 = 6;
    /// The server's memory budget (`memory_budget_bytes`) was spent when the flow opened.
    pub const OVERLOADED: u32 = 8;
    /// The flow's connection reached a server instance that never saw the flow open (it
    /// restarted, or forgot the session, while the flow was under way).
    pub const UNKNOWN_FLOW: u32 = gtcp::RESET_UNKNOWN_FLOW;
}

/// How a connection closed for a protocol violation is reported.
const PROTOCOL_VIOLATION: &str = "protocol violation";

/// (Server) A pool connection brought input while the sessions held the memory budget and its
/// session at least its share ([`crate::metrics::Registry::publish`]): it is closed. What it
/// carried and the peer did not see acknowledged, an honest client sends again on its other
/// connections, or on a new one once memory is back below the budget.
#[derive(Debug, thiserror::Error)]
#[error("memory budget spent: the session holds {held} bytes, its share is {share}")]
pub struct OverBudget {
    pub held: u64,
    pub share: u64,
}

/// Bytes read from a socket at once (and the most one application write hands over): the
/// driver profile's application read.
const READ_CHUNK: usize = gtcp::driver::APP_READ;

/// A new read buffer of [`READ_CHUNK`] is started when less than this is left in the current
/// one (64 KiB): slices handed to the core keep their buffer alive until acknowledged, so at
/// most a quarter of each buffer is held unused (a flow's send buffer costs at most 4/3 of its
/// bytes, plus one read buffer).
const READ_SPARE_MIN: usize = READ_CHUNK / 4;

/// The most delivered bytes written to an application socket in one go (a few frames'
/// payloads, in one vectored write).
const WRITE_BATCH: usize = 256 * 1024;

/// Writes of a pool connection between two readings of its MSS (`TCP_MAXSEG`).
const MSS_REFRESH: u32 = 64;

/// Writes the first `len` bytes of `batch` (all of it when it holds less), several buffers per
/// system call, and takes them off `batch`, counting `len` down. Cancel safe: what was written
/// is gone from `batch` and from `len` when the future is dropped, so calling again resumes
/// where it stopped.
async fn write_vectored(
    w: &mut tokio::net::tcp::OwnedWriteHalf,
    batch: &mut Vec<Bytes>,
    len: &mut usize,
) -> std::io::Result<()> {
    while *len > 0 && !batch.is_empty() {
        let mut left = *len;
        let slices: Vec<std::io::IoSlice<'_>> = batch
            .iter()
            .take(64)
            .map_while(|b| {
                let k = b.len().min(left);
                left -= k;
                (k > 0).then(|| std::io::IoSlice::new(&b[..k]))
            })
            .collect();
        let mut n = w.write_vectored(&slices).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        *len -= n.min(*len);
        let mut done = 0;
        while n > 0 {
            let piece = batch[done].len();
            if n >= piece {
                n -= piece;
                done += 1;
            } else {
                batch[done].advance(n);
                n = 0;
            }
        }
        batch.drain(..done);
    }
    Ok(())
}

/// Resolves when the application's socket has failed (the application reset it, say). A relay
/// that waits for room is not reading that socket, so it would learn of the failure only when
/// room comes back, which behind a target that does not read is never: the flow, its socket
/// and the bytes buffered for it would stay for good.
async fn app_failed(rd: &tokio::net::tcp::OwnedReadHalf) {
    match rd.ready(tokio::io::Interest::ERROR).await {
        Ok(r) if !r.is_error() => std::future::pending().await,
        _ => {}
    }
}

/// What the role (client or server) does on the events only it can handle.
pub trait Role: Send + Sync + 'static {
    /// The peer opened a flow (server): connect to its target.
    fn flow_opened(
        &self,
        engine: &Arc<Engine>,
        flow: FlowId,
        route: String,
        origin: Option<gtcp::wire::Origin>,
    );
    /// A flow lost its pool connection (client): open a replacement.
    fn conn_needed(&self, engine: &Arc<Engine>, owner: FlowId);
    /// A pool connection ended (before the core learns it), `lived` after it was established.
    fn conn_ended(&self, _end: ConnEnd, _lived: Duration) {}
}

/// How a pool connection ended, as a role's reconnect policy reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnEnd {
    /// Both sides said `Done`.
    Clean,
    /// This side closed it on purpose while it was usable ([`Engine::retire_connection`]):
    /// its end says nothing of the path or of the peer.
    Retired,
    /// It died before both sides were done: the peer or the path ended it, it fell silent,
    /// or it broke the protocol.
    Lost,
}

struct ConnIo {
    ready: Notify,
    closing: AtomicBool,
    /// The connection's writer ended (its peer is gone, or its key sealed all it may): nothing
    /// more is sent on it, so its reader stops waiting for the control backlog to drain.
    writer_ended: AtomicBool,
    /// This side closed the connection on purpose ([`Engine::retire_connection`]).
    retired: AtomicBool,
    stream: Arc<TcpStream>,
}

#[derive(Default)]
pub(crate) struct FlowIo {
    readable: Notify,
    writable: Notify,
    abort: Notify,
}

/// The invariant, checked on every pool connection that closed cleanly: the payload it carried
/// equals the bytes its own flow handed over (plus bytes adopted from dead connections).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InvariantTally {
    /// Connections checked.
    pub checked: u64,
    /// Connections whose payload differed from their flow's bytes.
    pub violated: u64,
    /// Payload bytes those connections carried.
    pub payload_bytes: u64,
    /// Framing bytes they carried.
    pub header_bytes: u64,
    /// Payload adopted from dead connections.
    pub adopted_bytes: u64,
    /// Connection-microseconds connections owed bytes and had none to send
    /// ([`gtcp::SessionCounters::starved_micros`]): the invariant's other side, time plain
    /// TCP would have been sending.
    pub starved_micros: u64,
    /// Of those, periods that began with bytes held back by the receiver's credit.
    pub starved_by_credit_micros: u64,
}

impl InvariantTally {
    /// Adds another tally to this one.
    pub fn merge(&mut self, o: InvariantTally) {
        self.checked += o.checked;
        self.violated += o.violated;
        self.payload_bytes += o.payload_bytes;
        self.header_bytes += o.header_bytes;
        self.adopted_bytes += o.adopted_bytes;
        self.starved_micros += o.starved_micros;
        self.starved_by_credit_micros += o.starved_by_credit_micros;
    }
}

/// What the access controller of background flows reports ([`Engine::admission`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmissionStatus {
    /// M: background flows that may be active at once.
    pub limit: u32,
    pub active: usize,
    pub waiting: usize,
    /// Flows refused because the waiting queue was full.
    pub refused: u64,
    /// Background bytes per second, sent and received (moving average).
    pub rate: f64,
    /// Estimated background arrival load, bytes per second (none before a flow finished).
    pub load: Option<f64>,
    /// Raises the adaptive loop took back because they bought no rate (overload).
    pub saturations: u64,
    /// Saturations that were the sequential test's bound running out, not a decision
    /// ([`gtcp::admission::Admission::undecided`]).
    pub undecided: u64,
    /// Whether the adaptive loop's overload check is engaged (the class fell short of its
    /// arrivals over the long memory; [`gtcp::admission::Admission::check_engaged`]).
    pub engaged: bool,
    /// The bar on M the last saturation set, while it holds.
    pub ceiling: Option<u32>,
}

/// One session end and everything that drives it.
pub struct Engine {
    session: Mutex<Session>,
    epoch: Instant,
    conns: Mutex<HashMap<ConnId, Arc<ConnIo>>>,
    flows: Mutex<HashMap<FlowId, Arc<FlowIo>>>,
    role: Box<dyn Role>,
    /// Largest `poll_transmit` per wake-up of a writable socket, from the core's
    /// [`DriverProfile`](gtcp::DriverProfile) (the simulator uses the same).
    poll_max: usize,
    pub(crate) completion: Mutex<Histogram>,
    /// Per-route counters of the routes the configuration names ([`Engine::route_opened`]).
    routes: Mutex<std::collections::BTreeMap<String, crate::histogram::RouteStats>>,
    pub label: String,
    pub(crate) idle: Notify,
    /// Woken whenever a pool connection starts or ends.
    pub(crate) conns_changed: Notify,
    /// Woken when a writer took frames out of the session: readers paused on a full control
    /// backlog ([`gtcp::session::caps::CONTROL_BACKLOG_PAUSE`]) look again.
    ctrl_drained: Notify,
    /// Where refusals are counted and their logging rate-limited (server).
    rejections: std::sync::OnceLock<Arc<crate::limits::Rejections>>,
    /// (Server) The memory budget, checked after every read of a pool connection.
    budget: std::sync::OnceLock<crate::metrics::Registry>,
    /// (Server) What this session last published as held ([`crate::metrics::Registry::publish`]).
    published: std::sync::atomic::AtomicU64,
    /// (Server) The session's buffers as last measured ([`Session::buffer_bytes`], a walk over
    /// its flows), and when: measured again after [`crate::limits::MEMORY_REFRESH`].
    buffers: Mutex<Option<(Instant, u64)>>,
    invariant: Mutex<InvariantTally>,
    /// Wakes the task of the session's timers ([`Engine::start_timers`]): a connection was
    /// added (its clocks start), or the engine is dropped.
    timer_wake: Arc<Notify>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.timer_wake.notify_one();
        if let Some(r) = self.budget.get() {
            r.publish_end(self.published.load(Ordering::Relaxed));
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock is a bug already reported; keep serving.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Entries a map of live things (the engine's connections and flows, the server's sessions)
/// keeps room for at least once it shrank ([`remove_shrinking`]).
pub(crate) const MAP_ROOM_MIN: usize = 64;

/// Removes `key` from `map`, and gives back the room a burst left when the map fell below a
/// quarter of it: to twice its entries (at least [`MAP_ROOM_MIN`]). A burst of 4 000 pool
/// connections leaves each map of the engine room for 7 168 entries (about 140 KB of
/// pointers, in the heap's last pages: glibc cannot trim below it). Between two resizes come at
/// least half as many removals or as many insertions as the map has entries, so each removal
/// costs amortised constant time.
pub(crate) fn remove_shrinking<K: Eq + std::hash::Hash, V>(
    map: &mut HashMap<K, V>,
    key: &K,
) -> Option<V> {
    let removed = map.remove(key);
    if map.capacity() > MAP_ROOM_MIN && map.len() * 4 < map.capacity() {
        map.shrink_to((map.len() * 2).max(MAP_ROOM_MIN));
    }
    removed
}

impl Engine {
    /// A flow of `route`, a route the configuration names, opened: from now on the route's
    /// flows are counted in the per-route metrics. Called by the roles only for configured
    /// routes, so the routes counted stay within the configuration's (a peer naming others
    /// adds nothing).
    pub fn route_opened(&self, route: &str) {
        let mut routes = lock(&self.routes);
        match routes.get_mut(route) {
            Some(s) => s.opened += 1,
            None => {
                let s = crate::histogram::RouteStats {
                    opened: 1,
                    ..Default::default()
                };
                routes.insert(route.to_owned(), s);
            }
        }
    }

    /// The per-route counters, by route name.
    pub fn route_stats(&self) -> Vec<(String, crate::histogram::RouteStats)> {
        lock(&self.routes)
            .iter()
            .map(|(r, s)| (r.clone(), s.clone()))
            .collect()
    }

    pub fn new(session: Session, role: Box<dyn Role>, label: String) -> Arc<Self> {
        let poll_max = gtcp::DriverProfile::new(session.config()).poll_max();
        Arc::new(Self {
            session: Mutex::new(session),
            epoch: Instant::now(),
            conns: Mutex::new(HashMap::new()),
            flows: Mutex::new(HashMap::new()),
            role,
            poll_max,
            completion: Mutex::new(Histogram::default()),
            routes: Mutex::new(std::collections::BTreeMap::new()),
            label,
            idle: Notify::new(),
            conns_changed: Notify::new(),
            ctrl_drained: Notify::new(),
            rejections: std::sync::OnceLock::new(),
            budget: std::sync::OnceLock::new(),
            published: std::sync::atomic::AtomicU64::new(0),
            buffers: Mutex::new(None),
            invariant: Mutex::new(InvariantTally::default()),
            timer_wake: Arc::new(Notify::new()),
        })
    }

    /// Runs the session's protocol timers (keepalives, dead peers, the admission tick of
    /// background flows: [`Session::poll_timeout`]) on a task of their own until the engine is
    /// dropped: at each deadline, and whenever a connection is added, the core handles what
    /// is due and names the next deadline.
    pub fn start_timers(self: &Arc<Self>) {
        let engine = Arc::downgrade(self);
        let wake = self.timer_wake.clone();
        tokio::spawn(async move {
            loop {
                let Some(e) = engine.upgrade() else {
                    return;
                };
                let next = e.with(|s, now| {
                    s.handle_timeout(now);
                    s.poll_timeout()
                });
                let at = next.map(|d| tokio::time::Instant::from_std(e.epoch + d));
                drop(e);
                match at {
                    Some(at) => {
                        tokio::select! {
                            _ = tokio::time::sleep_until(at) => {}
                            _ = wake.notified() => {}
                        }
                    }
                    None => wake.notified().await,
                }
            }
        });
    }

    /// Counts protocol violations in `rejections` and logs them at its bounded rate.
    pub fn set_rejections(&self, rejections: Arc<crate::limits::Rejections>) {
        let _ = self.rejections.set(rejections);
    }

    /// Checks the memory budget of `registry` on the input path: after each read of a pool
    /// connection, a session above its share of a spent budget has that connection closed
    /// ([`OverBudget`]).
    pub fn set_budget(&self, registry: crate::metrics::Registry) {
        if self.budget.set(registry.clone()).is_ok() {
            registry.publish_start();
        }
    }

    /// (Server) Whether the session is above its share of a spent memory budget (as it last
    /// published: [`crate::metrics::Registry::over_share`]); its new pool connections are
    /// refused until it is not.
    pub fn above_budget_share(&self) -> bool {
        self.budget.get().is_some_and(|r| {
            r.over_share(self.published.load(Ordering::Relaxed))
                .is_some()
        })
    }

    /// (Server) What the session holds for the budget: its bookkeeping now (constant time)
    /// and its buffers as measured at most [`crate::limits::MEMORY_REFRESH`] ago.
    fn held_for_budget(&self, s: &Session) -> u64 {
        let mut b = lock(&self.buffers);
        let buffers = match *b {
            Some((at, v)) if at.elapsed() < crate::limits::MEMORY_REFRESH => v,
            _ => {
                let v = s.buffer_bytes();
                *b = Some((Instant::now(), v));
                v
            }
        };
        buffers + s.bookkeeping_bytes()
    }

    /// Runs `f` on the session, then acts on the events it produced.
    pub fn with<R>(self: &Arc<Self>, f: impl FnOnce(&mut Session, Duration) -> R) -> R {
        let mut events = Vec::new();
        let r = {
            let mut s = lock(&self.session);
            let now = self.epoch.elapsed();
            let r = f(&mut s, now);
            while let Some(e) = s.poll_event() {
                events.push(e);
            }
            r
        };
        for e in events {
            self.dispatch(e);
        }
        r
    }

    /// Read-only look at the session (metrics).
    pub fn inspect<R>(&self, f: impl FnOnce(&Session) -> R) -> R {
        f(&lock(&self.session))
    }

    fn dispatch(self: &Arc<Self>, e: Event) {
        match e {
            Event::ConnReady(c) => {
                if let Some(io) = lock(&self.conns).get(&c) {
                    io.ready.notify_one();
                }
            }
            Event::FlowReadable(f) => {
                if let Some(io) = lock(&self.flows).get(&f) {
                    io.readable.notify_one();
                }
            }
            Event::FlowWritable(f) => {
                if let Some(io) = lock(&self.flows).get(&f) {
                    io.writable.notify_one();
                }
            }
            Event::FlowOpened {
                flow,
                route,
                origin,
                ..
            } => self.role.flow_opened(self, flow, route, origin),
            Event::FlowClosed(summary) => {
                debug!(session = %self.label, flow = %summary.flow, ms = summary.completion_time().as_millis() as u64,
                    sent = summary.bytes_sent, received = summary.bytes_received, reset = ?summary.reset, "flow closed");
                lock(&self.completion).observe(summary.completion_time().as_secs_f64());
                if let Some(route) = &summary.route {
                    if let Some(s) = lock(&self.routes).get_mut(route) {
                        s.closed(&summary);
                    }
                }
                self.idle.notify_waiters();
            }
            Event::ConnDone(c) => {
                if let Some(io) = lock(&self.conns).get(&c) {
                    io.closing.store(true, Ordering::Release);
                    io.ready.notify_one();
                }
            }
            Event::ConnDead(c) => {
                let silent = self.inspect(|s| s.config().dead_peer);
                warn!(session = %self.label, conn = %c, "pool connection closed: peer silent for {} s", silent.as_secs_f64());
                // Its reader ends at once and reports the connection closed to the core.
                self.kill_connection(c);
            }
            Event::ConnNeeded { owner } => self.role.conn_needed(self, owner),
        }
    }

    /// The invariant checks so far, with the session's starved time.
    pub fn invariant(&self) -> InvariantTally {
        let mut t = *lock(&self.invariant);
        let c = self.inspect(|s| s.counters());
        t.starved_micros = c.starved_micros;
        t.starved_by_credit_micros = c.starved_by_credit_micros;
        t
    }

    /// Registers a flow's wake-ups before its tasks start.
    pub(crate) fn register_flow(&self, flow: FlowId) -> Arc<FlowIo> {
        lock(&self.flows).entry(flow).or_default().clone()
    }

    /// Forgets a flow's wake-ups when its tasks never started (its target was unreachable).
    pub(crate) fn forget_flow(&self, flow: FlowId) {
        remove_shrinking(&mut lock(&self.flows), &flow);
    }

    /// The access controller of background flows, when configured: (M, active, waiting,
    /// refused, background bytes per second sent, estimated arrival load in bytes per second).
    pub fn admission(&self) -> Option<AdmissionStatus> {
        let now = self.epoch.elapsed();
        self.inspect(|s| {
            s.admission().map(|a| AdmissionStatus {
                limit: a.limit(),
                active: a.active(),
                waiting: a.waiting(),
                refused: a.refused(),
                rate: a.sending_rate(now),
                load: a.arrival_load(now),
                saturations: a.saturations(),
                undecided: a.undecided(),
                engaged: a.check_engaged(now),
                ceiling: a.ceiling(now),
            })
        })
    }

    /// Flows whose application socket is still being relayed.
    pub fn relayed_flows(&self) -> usize {
        lock(&self.flows).len()
    }

    /// Live pool connections (as the core sees them).
    pub fn live_connections(&self) -> usize {
        self.inspect(|s| s.connections().count())
    }

    pub fn active_flows(&self) -> usize {
        self.inspect(|s| s.flow_ids().count())
    }

    /// Every flow id currently tracked.
    pub fn flow_ids(&self) -> Vec<FlowId> {
        self.inspect(|s| s.flow_ids().collect())
    }

    // ----- pool connections -------------------------------------------------------------

    /// Drives an authenticated pool connection until it closes or dies. The core must already
    /// know it (`add_connection`). With a `record` layer (integrity), every byte read is
    /// verified before the core sees it and every byte written is sealed.
    ///
    /// The connection is registered and its writer task started at once (within a runtime);
    /// the future returned is its reader, which ends with the connection. It holds only what
    /// it keeps for the connection's life: the record layer's sealing half goes to the writer
    /// here, not through the reader's future (an `async fn`'s arguments stay in its future
    /// after they are moved out).
    pub fn run_connection(
        self: Arc<Self>,
        conn: ConnId,
        stream: TcpStream,
        leftover: BytesMut,
        record: Option<crate::record::RecordLayer>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let (sealer, opener) = match record {
            Some(r) => (Some(r.sealer), Some(r.opener)),
            None => (None, None),
        };
        let stream = Arc::new(stream);
        let io = Arc::new(ConnIo {
            ready: Notify::new(),
            closing: AtomicBool::new(false),
            writer_ended: AtomicBool::new(false),
            retired: AtomicBool::new(false),
            stream,
        });
        lock(&self.conns).insert(conn, io.clone());
        self.conns_changed.notify_waiters();
        self.timer_wake.notify_one();
        io.ready.notify_one();
        let writer = tokio::spawn(self.clone().write_loop(conn, io.clone(), sealer));
        self.connection_life(conn, io, writer, leftover, opener)
    }

    /// The reader of [`run_connection`](Self::run_connection), then the connection's end.
    ///
    /// Not an `async fn`: an `async fn` keeps each argument twice in its future (as given, and
    /// as moved into its body) for the task's whole life. The `async move` block uses the
    /// arguments where they were captured.
    #[allow(
        clippy::manual_async_fn,
        reason = "an async fn keeps its arguments twice"
    )]
    fn connection_life(
        self: Arc<Self>,
        conn: ConnId,
        io: Arc<ConnIo>,
        mut writer: tokio::task::JoinHandle<()>,
        mut leftover: BytesMut,
        mut opener: Option<crate::record::Opener>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        async move {
            let started = Instant::now();
            let stream = &io.stream;
            let reason = self
                .read_loop(conn, &io, &mut leftover, opener.as_mut())
                .await;
            let clean = io.closing.load(Ordering::Acquire);
            let retired = io.retired.load(Ordering::Acquire);
            // Lost connections are logged at a bounded rate where refusals are counted (a peer
            // that connects and closes again and again must not flood the log).
            let churn = self.rejections.get().map(|r| &r.churn);
            match &reason {
                Ok(()) if clean => debug!(session = %self.label, %conn, "pool connection closed"),
                // Whatever its reader saw after this side shut it down.
                _ if retired => debug!(session = %self.label, %conn, "pool connection retired"),
                Ok(()) => match churn.map_or(Some(0), crate::limits::LogRate::allow) {
                    Some(0) => {
                        warn!(session = %self.label, %conn, "pool connection closed by the peer mid-session")
                    }
                    Some(left_out) => {
                        warn!(session = %self.label, %conn, left_out, "pool connection closed by the peer mid-session")
                    }
                    None => {}
                },
                Err(e) => match self.rejections.get() {
                    // (Server) the session is above its share of a spent memory budget.
                    Some(r) if e.is::<OverBudget>() => {
                        r.record(crate::limits::Reject::MemoryBudget, || {
                            format!(
                                "session {}: {conn}: pool connection closed: {e}",
                                self.label
                            )
                        })
                    }
                    // Bytes altered or injected on the path: counted apart
                    // (`schedtcp_integrity_failures_total`).
                    Some(r) if crate::record::is_integrity_failure(e) => {
                        r.record(crate::limits::Reject::Integrity, || {
                            format!(
                                "session {}: {conn}: pool connection closed: {e}",
                                self.label
                            )
                        })
                    }
                    // (Server) a peer that breaks the protocol again and again is logged at a
                    // bounded rate.
                    Some(r) if e.to_string().starts_with(PROTOCOL_VIOLATION) => {
                        r.record(crate::limits::Reject::Protocol, || {
                            format!(
                                "session {}: {conn}: pool connection closed: {e}",
                                self.label
                            )
                        })
                    }
                    _ => match churn.map_or(Some(0), crate::limits::LogRate::allow) {
                        Some(0) => {
                            warn!(session = %self.label, %conn, "pool connection closed: {e}")
                        }
                        Some(left_out) => {
                            warn!(session = %self.label, %conn, left_out, "pool connection closed: {e}")
                        }
                        None => {}
                    },
                },
            }
            io.closing.store(true, Ordering::Release);
            io.ready.notify_one();
            if !(clean && reason.is_ok()) {
                // A dead connection: the writer may wait forever for room in a socket nobody
                // reads. Shut it down so every wait ends now.
                let _ = socket2::SockRef::from(stream.as_ref()).shutdown(std::net::Shutdown::Both);
            }
            let dead_peer = self.inspect(|s| s.config().dead_peer);
            // Boxed: a task's future is as large as its largest wait for the connection's whole
            // life, and this one comes once, at its end.
            if Box::pin(tokio::time::timeout(dead_peer, &mut writer))
                .await
                .is_err()
            {
                writer.abort();
            }
            remove_shrinking(&mut lock(&self.conns), &conn);
            if clean {
                if let Some(c) = self.inspect(|s| s.connection_counters(conn)) {
                    let mut t = lock(&self.invariant);
                    t.checked += 1;
                    t.payload_bytes += c.payload_bytes;
                    t.header_bytes += c.header_bytes;
                    t.adopted_bytes += c.adopted_bytes;
                    if let Err(e) = c.check_closed() {
                        t.violated += 1;
                        tracing::error!(session = %self.label, %conn, ?c, "invariant violated: {e}");
                    }
                }
            }
            let end = match reason {
                Ok(()) if clean => ConnEnd::Clean,
                _ if retired => ConnEnd::Retired,
                _ => ConnEnd::Lost,
            };
            self.role.conn_ended(end, started.elapsed());
            self.with(|s, now| s.connection_closed(now, conn));
            self.idle.notify_waiters();
            self.conns_changed.notify_waiters();
        }
    }

    async fn read_loop(
        self: &Arc<Self>,
        conn: ConnId,
        io: &ConnIo,
        buf: &mut BytesMut,
        mut opener: Option<&mut crate::record::Opener>,
    ) -> anyhow::Result<()> {
        use gtcp::session::caps::CONTROL_BACKLOG_PAUSE;
        let stream = &*io.stream;
        let mut backlog = self.inspect(|s| s.control_backlog());
        // Under integrity `buf` holds records as read, `plain` what verified.
        let mut plain = BytesMut::new();
        loop {
            let input = match opener.as_deref_mut() {
                Some(o) => {
                    o.open(buf, &mut plain)?;
                    &mut plain
                }
                None => &mut *buf,
            };
            if !input.is_empty() {
                // The backlog (and, on a server, what the session holds for the memory
                // budget) is read under the same lock as the input is handled.
                let held;
                (backlog, held) = self
                    .with(|s, now| {
                        s.handle_input(now, conn, input).map(|()| {
                            let held = self.budget.get().map(|_| self.held_for_budget(s));
                            (s.control_backlog(), held)
                        })
                    })
                    .map_err(|e| anyhow::anyhow!("{PROTOCOL_VIOLATION}: {e}"))?;
                if let (Some(registry), Some(held)) = (self.budget.get(), held) {
                    let before = self.published.swap(held, Ordering::Relaxed);
                    // Only input that made the session hold more: what brought
                    // acknowledgements (send buffers freed) goes on.
                    let over = registry.publish(before, held);
                    if let Some((held, share)) = over.filter(|_| held > before) {
                        return Err(OverBudget { held, share }.into());
                    }
                }
            }
            if backlog >= CONTROL_BACKLOG_PAUSE {
                let dead = self.inspect(|s| s.config().dead_peer);
                Box::pin(wait_for_room(
                    &self.ctrl_drained,
                    &io.writer_ended,
                    || self.inspect(|s| s.control_backlog()),
                    CONTROL_BACKLOG_PAUSE,
                    dead,
                ))
                .await?;
                backlog = 0;
            }
            buf.reserve(READ_CHUNK);
            // Read first: the readiness wait (and its dead-peer timer) only when the socket
            // has nothing, not once per read.
            match stream.try_read_buf(buf) {
                Ok(0) => return Ok(()),
                // A peer that always has bytes must not keep this worker from other tasks.
                Ok(_) => tokio::task::consume_budget().await,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    // An idle connection holds no buffer: what the reads left is given up
                    // (a partial record or frame stays), and the next read starts a new one.
                    // Nor its opening key schedule: the next record expands it again.
                    release_if_empty(buf);
                    release_if_empty(&mut plain);
                    if let Some(o) = opener.as_deref_mut() {
                        o.release();
                    }
                    // A silent peer is the core's to tell (`Event::ConnDead`), which ends this
                    // wait by shutting the socket down.
                    stream.readable().await?;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The writer of a pool connection (a task of its own). Not an `async fn`, as
    /// [`connection_life`](Self::connection_life): its arguments are kept once.
    #[allow(
        clippy::manual_async_fn,
        reason = "an async fn keeps its arguments twice"
    )]
    fn write_loop(
        self: Arc<Self>,
        conn: ConnId,
        io: Arc<ConnIo>,
        mut sealer: Option<crate::record::Sealer>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        async move {
            let stream = &io.stream;
            let mut pending = BytesMut::new();
            // Under integrity the core writes into `staged`, sealed into `pending` at once.
            let mut staged = BytesMut::new();
            let mut idle = false;
            // The kernel cuts a write into segments of the connection's MSS and sends a short tail
            // at once (`TCP_NODELAY`). While the core has more to send (its last poll was cut by
            // the budget), only whole segments are written and the tail waits in `pending` for the
            // next poll, which comes at once: on loopback (MSS 65 483) a poll of four chunks was
            // otherwise one full segment and a tail of a few hundred bytes, twice the segments per
            // byte of a relay writing 256 KiB at a time. 0 (unknown) writes everything.
            // The MSS settles after the first segments (loopback starts at 32 768, then 65 483):
            // it is read again every `MSS_REFRESH` writes.
            let (mut mss, mut mss_age) = (0, 0u32);
            let mut more = false;
            loop {
                if idle {
                    if io.closing.load(Ordering::Acquire) {
                        break;
                    }
                    // Nothing to send: the core's events say when there is (a keepalive too,
                    // when the connection sent nothing for its period: `Session::poll_timeout`).
                    io.ready.notified().await;
                    idle = false;
                }
                if pending.is_empty() || (more && pending.len() < mss) {
                    // Decide only when the kernel can take bytes (TCP_NOTSENT_LOWAT makes this
                    // "when little is left unsent"), so the choice is made close to the wire.
                    if stream.writable().await.is_err() {
                        break;
                    }
                    let out = if sealer.is_some() {
                        &mut staged
                    } else {
                        &mut pending
                    };
                    let (n, ready) = self.with(|s, now| {
                        let n = s.poll_transmit(now, conn, out, self.poll_max);
                        (n, s.conn_ready(conn))
                    });
                    self.ctrl_drained.notify_waiters();
                    if crate::record::seal_staged(sealer.as_mut(), &mut staged, &mut pending)
                        .is_err()
                    {
                        break;
                    }
                    more = ready && n > 0;
                    if pending.is_empty() {
                        // Nothing to send: an idle connection holds no buffer, nor its sealing
                        // key schedule (the next bytes to seal expand it again).
                        release_if_empty(&mut pending);
                        release_if_empty(&mut staged);
                        if let Some(s) = sealer.as_mut() {
                            s.release();
                        }
                        idle = true;
                        continue;
                    }
                }
                if mss_age == 0 {
                    mss = crate::net::mss(stream);
                    mss_age = MSS_REFRESH;
                }
                mss_age -= 1;
                let whole = to_write(pending.len(), mss, more);
                if whole == 0 {
                    continue;
                }
                match stream.try_write(&pending[..whole]) {
                    Ok(n) => {
                        pending.advance(n);
                        // The kernel took less: it has enough unsent; the tail goes with the rest.
                        more &= n == whole;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        more = false;
                        if stream.writable().await.is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
            // Both sides said Done (or the connection died): half-close; the reader sees the end.
            let _ = socket2::SockRef::from(stream.as_ref()).shutdown(std::net::Shutdown::Write);
            // Readers paused on the control backlog look again (this writer takes no more), and
            // this connection's own reader stops waiting.
            io.writer_ended.store(true, Ordering::Release);
            self.ctrl_drained.notify_waiters();
        }
    }

    // ----- flows ---------------------------------------------------------------------------

    /// Hands `data` over to `flow`, waiting for room when the core takes less (its capacity
    /// may shrink between the check and the write, e.g. when lent buffers were taken by other
    /// flows). A write that takes less than offered registers the flow for `FlowWritable`,
    /// which the core sends once there is room again or the flow takes no more bytes (reset).
    /// Returns false when the flow is gone or aborted.
    async fn hand_over(
        self: &Arc<Self>,
        flow: FlowId,
        io: &FlowIo,
        app: &tokio::net::tcp::OwnedReadHalf,
        data: &mut Bytes,
        sized: bool,
        end: Option<u64>,
    ) -> bool {
        let mut first = true;
        while !data.is_empty() {
            let taken = self.with(|s, _| {
                if sized && first {
                    let _ = s.set_known_end(flow, end);
                }
                s.write_bytes(flow, data.clone())
            });
            first = false;
            match taken {
                Ok(0) => tokio::select! {
                    _ = io.writable.notified() => {}
                    _ = io.abort.notified() => return false,
                    _ = app_failed(app) => {
                        self.app_failed(flow);
                        return false;
                    }
                },
                Ok(n) => data.advance(n),
                Err(_) => return false,
            }
        }
        true
    }

    /// The application's socket failed while its relay waited for room: the flow is reset,
    /// which also ends the delivering half (the core announces the reset).
    fn app_failed(self: &Arc<Self>, flow: FlowId) {
        debug!(session = %self.label, %flow, "application socket failed while waiting for room");
        let _ = self.with(|s, now| s.reset(now, flow, codes::APP_ABORT));
    }

    /// Relays between an application socket (client: the accepted connection; server: the
    /// target) and its flow until both directions are over. Not an `async fn`, as
    /// `connection_life`: its arguments are kept once (an `async fn` keeps them twice).
    pub fn run_flow(
        self: Arc<Self>,
        flow: FlowId,
        app: TcpStream,
        mut sizer: Option<HttpResponseSizer>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let _ = app.set_nodelay(true);
        let (mut rd, mut wr) = app.into_split();
        async move {
            let io = self.register_flow(flow);
            let up = async {
                // Application bytes are read into `buf` and handed over as slices of it (no copy:
                // the only copy on this side is into the frames); see `READ_SPARE_MIN`.
                let mut buf = BytesMut::new();
                // A capacity of 0 registers the flow for `FlowWritable`: it comes when there is
                // room, or when the flow takes no more bytes (a reset, whichever half saw it).
                while let Ok(cap) = self.with(|s, _| s.send_capacity(flow)) {
                    if cap == 0 {
                        tokio::select! {
                            _ = io.writable.notified() => continue,
                            _ = io.abort.notified() => break,
                            _ = app_failed(&rd) => {
                                self.app_failed(flow);
                                break;
                            }
                        }
                    }
                    // An idle flow holds no read buffer: unless the application has bytes (or
                    // its end) at once, a buffer that only short reads used (they are copied, so
                    // nothing else holds it) is given up before waiting for them. One that slices
                    // were handed over from is kept: its allocation lives until they are
                    // acknowledged, and its room is used for the next reads (`READ_SPARE_MIN`).
                    let at_once = tokio::select! {
                        biased;
                        _ = rd.readable() => true,
                        _ = std::future::ready(()) => false,
                    };
                    if !at_once {
                        if buf.is_empty() && buf.capacity() == READ_CHUNK {
                            buf = BytesMut::new();
                        }
                        tokio::select! {
                            // An error shows as readiness too: the read below reports it.
                            _ = rd.readable() => {}
                            _ = io.abort.notified() => break,
                            _ = io.writable.notified() => continue,
                        }
                    }
                    if buf.capacity() - buf.len() < READ_SPARE_MIN {
                        buf = BytesMut::with_capacity(READ_CHUNK);
                    }
                    let mut limited = (&mut rd).take(cap.min(READ_CHUNK) as u64);
                    let read = tokio::select! {
                        r = limited.read_buf(&mut buf) => r,
                        _ = io.abort.notified() => break,
                        // A reset after the delivering half ended (the peer's end came first)
                        // reaches only this half: look again (`read_buf` is cancel safe).
                        _ = io.writable.notified() => continue,
                    };
                    match read {
                        Ok(0) => {
                            let _ = self.with(|s, _| s.finish(flow));
                            break;
                        }
                        Ok(n) => {
                            let end = sizer.as_mut().and_then(|z| z.feed(&buf[..n]));
                            let mut data = if n < gtcp::flow::KEEP_PIECE_MIN {
                                // A short read is copied; its room in `buf` is read into again.
                                let d = Bytes::copy_from_slice(&buf[..n]);
                                buf.clear();
                                d
                            } else {
                                buf.split_to(n).freeze()
                            };
                            // Boxed: only a flow with bytes to hand over holds its state.
                            if !Box::pin(self.hand_over(
                                flow,
                                &io,
                                &rd,
                                &mut data,
                                sizer.is_some(),
                                end,
                            ))
                            .await
                            {
                                break;
                            }
                        }
                        Err(e) => {
                            debug!(session = %self.label, %flow, "application read failed: {e}");
                            let _ = self.with(|s, now| s.reset(now, flow, codes::APP_ABORT));
                            break;
                        }
                    }
                }
            };
            let deliver = async {
                let mut batch: Vec<Bytes> = Vec::new();
                // The end was read together with the last bytes (the core may forget the flow
                // right after reporting its end, so it is not asked twice).
                let mut saw_end = false;
                loop {
                    // Take what is ready (up to WRITE_BATCH, with what a batch cut short left)
                    // under one lock, write it with as few system calls as possible.
                    let mut taken: usize = batch.iter().map(Bytes::len).sum();
                    let mut full = false;
                    let outcome = self.with(|s, now| {
                        loop {
                            if taken >= WRITE_BATCH {
                                full = true;
                                return Ok(ReadOutcome::Blocked);
                            }
                            match s.read(now, flow, WRITE_BATCH - taken) {
                                Ok(ReadOutcome::Data(b)) => {
                                    taken += b.len();
                                    batch.push(b);
                                }
                                // Deliver what was taken before acting on the end or a reset.
                                Ok(ReadOutcome::End) if taken > 0 => {
                                    saw_end = true;
                                    return Ok(ReadOutcome::Blocked);
                                }
                                other
                                    if taken > 0 && !matches!(other, Ok(ReadOutcome::Reset(_))) =>
                                {
                                    return Ok(ReadOutcome::Blocked)
                                }
                                other => return other,
                            }
                        }
                    });
                    if !batch.is_empty() {
                        // A batch cut by its limit (more is ready) goes in whole segments; the
                        // tail is written with the next batch, taken at once (as the pool's writer
                        // does: a short tail is a segment of its own).
                        let cut = full && !saw_end;
                        let mss = if cut { crate::net::mss(wr.as_ref()) } else { 0 };
                        let mut len = match to_write(taken, mss, cut) {
                            0 => taken,
                            whole => whole,
                        };
                        // An application (or target) that does not read must not hold its socket
                        // once the flow is reset: the reset comes as `FlowReadable`, so a write in
                        // progress looks at the flow on each one (the write resumes otherwise).
                        let written = loop {
                            tokio::select! {
                                r = write_vectored(&mut wr, &mut batch, &mut len) => break r,
                                _ = io.readable.notified() => {
                                    if !saw_end && self.with(|s, _| s.ended_abruptly(flow)) {
                                        debug!(session = %self.label, %flow, "flow reset while its bytes waited for the application");
                                        let _ = socket2::SockRef::from(wr.as_ref())
                                            .set_linger(Some(Duration::ZERO));
                                        io.abort.notify_one();
                                        return;
                                    }
                                }
                            }
                        };
                        if let Err(e) = written {
                            debug!(session = %self.label, %flow, "application write failed: {e}");
                            let _ = self.with(|s, now| s.reset(now, flow, codes::APP_ABORT));
                            io.abort.notify_one();
                            return;
                        }
                        if saw_end {
                            let _ = wr.shutdown().await;
                            return;
                        }
                        continue;
                    }
                    match outcome {
                        Ok(ReadOutcome::End) => {
                            let _ = wr.shutdown().await;
                            return;
                        }
                        Ok(ReadOutcome::Reset(code)) => {
                            debug!(session = %self.label, %flow, code, "flow reset");
                            // Abort the application's connection so it sees a reset, not a hang.
                            let _ = socket2::SockRef::from(wr.as_ref())
                                .set_linger(Some(Duration::ZERO));
                            io.abort.notify_one();
                            return;
                        }
                        Ok(ReadOutcome::Blocked) => {
                            // Nothing to deliver: the batch's list is given up while waiting.
                            batch = Vec::new();
                            io.readable.notified().await
                        }
                        Ok(ReadOutcome::Data(_)) => return,
                        Err(e) => {
                            // The flow ended without this side learning how (it was reset and
                            // forgotten meanwhile): the application sees a reset, never a hang.
                            debug!(session = %self.label, %flow, "flow gone: {e}");
                            let _ = socket2::SockRef::from(wr.as_ref())
                                .set_linger(Some(Duration::ZERO));
                            io.abort.notify_one();
                            return;
                        }
                    }
                }
            };
            tokio::join!(up, deliver);
            // Close as one socket: dropping the write half alone would send a FIN before the
            // reset an aborted flow must show.
            if let Ok(stream) = rd.reunite(wr) {
                drop(stream);
            }
            remove_shrinking(&mut lock(&self.flows), &flow);
        }
    }

    /// Resets every flow (end of the shutdown grace period).
    pub fn reset_all(self: &Arc<Self>, code: u32) {
        for f in self.flow_ids() {
            let _ = self.with(|s, now| s.reset(now, f, code));
        }
    }

    /// Stops taking new flows.
    pub fn go_away(self: &Arc<Self>) {
        self.with(|s, _| s.go_away());
    }

    /// Drops the pool connection now (protocol violation decided by the driver, e.g. an
    /// unknown route).
    pub fn kill_connection(&self, conn: ConnId) {
        if let Some(io) = lock(&self.conns).get(&conn) {
            let _ = socket2::SockRef::from(io.stream.as_ref()).shutdown(std::net::Shutdown::Both);
        }
    }

    /// Closes pool connection `conn` on purpose while it is usable (a warm connection past its
    /// maximum age): as [`kill_connection`](Self::kill_connection), but its end is reported to
    /// the role as [`ConnEnd::Retired`], not as a connection lost.
    pub fn retire_connection(&self, conn: ConnId) {
        if let Some(io) = lock(&self.conns).get(&conn) {
            io.retired.store(true, Ordering::Release);
            let _ = socket2::SockRef::from(io.stream.as_ref()).shutdown(std::net::Shutdown::Both);
        }
    }

    /// Whether pool connection `conn` may carry a new flow: the core still has it and its
    /// socket has seen neither an error nor the peer's end (a warm connection is checked with
    /// this before a flow takes it).
    pub fn connection_usable(&self, conn: ConnId) -> bool {
        if !self.inspect(|s| s.connections().any(|(c, _)| c == conn)) {
            return false;
        }
        let Some(io) = lock(&self.conns).get(&conn).cloned() else {
            return false;
        };
        if io.closing.load(Ordering::Acquire) {
            return false;
        }
        let sock = socket2::SockRef::from(io.stream.as_ref());
        if !matches!(sock.take_error(), Ok(None)) {
            return false;
        }
        // The socket is non-blocking: nothing to read is `WouldBlock`; 0 bytes is the end.
        let mut probe = [std::mem::MaybeUninit::<u8>::uninit(); 1];
        match sock.peek(&mut probe) {
            Ok(n) => n > 0,
            Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
        }
    }

    pub fn owner_connection(&self, flow: FlowId) -> Option<ConnId> {
        self.inspect(|s| {
            s.connections()
                .find(|(_, o)| *o == Some(flow))
                .map(|(c, _)| c)
        })
    }
}

/// Gives up `buf`'s allocation (its share of it, when slices of it live on) if it holds no
/// bytes: an idle connection or flow keeps no buffer, and the next read or poll starts a new
/// one (glibc serves it from the heap, see `schedtcp`'s allocator tuning, so no page is
/// faulted in afresh).
fn release_if_empty(buf: &mut BytesMut) {
    if buf.is_empty() && buf.capacity() > 0 {
        *buf = BytesMut::new();
    }
}

/// How much of `pending` bytes a pool connection's writer writes now: everything, unless the
/// core has `more` to send at once, when only whole segments of `mss` bytes go (the tail waits
/// for the next poll's bytes; 0 means "poll first"). An unknown MSS (0) writes everything.
fn to_write(pending: usize, mss: usize, more: bool) -> usize {
    if more && mss > 0 {
        pending / mss * mss
    } else {
        pending
    }
}

/// Why a reader paused on the control backlog gave up waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum BacklogWait {
    /// The writers took nothing for this long: their peer does not read.
    #[error("control frames not taken by the peer for {} s", .0.as_secs())]
    TimedOut(Duration),
    /// The connection's own writer ended: nothing more can be sent on it.
    #[error("the connection's writer ended while its reader waited for the control backlog")]
    WriterEnded,
}

/// Backpressure on a peer that makes this side queue control frames (acknowledgements,
/// replies) faster than the writers send them: the reader reads no more until `backlog()` is
/// below `pause` ([`CONTROL_BACKLOG_PAUSE`](gtcp::session::caps::CONTROL_BACKLOG_PAUSE)).
/// Woken by `drained` whenever a writer took frames or ended; gives up, ending the
/// connection, once the connection's own writer ended (`writer_ended`) or after `deadline`
/// (`dead_peer`).
async fn wait_for_room(
    drained: &Notify,
    writer_ended: &AtomicBool,
    backlog: impl Fn() -> usize,
    pause: usize,
    deadline: Duration,
) -> Result<(), BacklogWait> {
    let wait = async {
        loop {
            let woken = drained.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if backlog() < pause {
                return Ok(());
            }
            if writer_ended.load(Ordering::Acquire) {
                return Err(BacklogWait::WriterEnded);
            }
            woken.await;
        }
    };
    tokio::time::timeout(deadline, wait)
        .await
        .unwrap_or(Err(BacklogWait::TimedOut(deadline)))
}

#[cfg(test)]
mod tests {
    use super::{
        remove_shrinking, to_write, wait_for_room, write_vectored, BacklogWait, MAP_ROOM_MIN,
    };
    use bytes::Bytes;
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;
    use tokio::io::AsyncReadExt;
    use tokio::sync::Notify;

    /// A batch cut by its limit leaves its tail behind, in order, for the next batch.
    #[tokio::test]
    async fn a_prefix_of_the_batch_is_written_and_the_tail_stays() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (client, server) =
            tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
        let (_rd, mut wr) = client.unwrap().into_split();
        let (mut peer, _) = server.unwrap();
        let pieces: Vec<Bytes> = (0..5u8).map(|i| Bytes::from(vec![i; 1000])).collect();
        let mut batch = pieces.clone();
        // 2.5 pieces now: the third is cut inside.
        let mut len = 2500;
        write_vectored(&mut wr, &mut batch, &mut len).await.unwrap();
        assert_eq!(len, 0);
        let mut got = vec![0u8; 2500];
        peer.read_exact(&mut got).await.unwrap();
        let sent: Vec<u8> = pieces.iter().flat_map(|p| p.iter().copied()).collect();
        assert_eq!(got, sent[..2500]);
        // The tail: the rest of the third piece, then the last two, untouched.
        let left: Vec<u8> = batch.iter().flat_map(|p| p.iter().copied()).collect();
        assert_eq!(left, sent[2500..]);
        // A length beyond the batch writes all of it.
        let mut len = usize::MAX;
        write_vectored(&mut wr, &mut batch, &mut len).await.unwrap();
        assert!(batch.is_empty());
        let mut rest = vec![0u8; 2500];
        peer.read_exact(&mut rest).await.unwrap();
        assert_eq!(rest, sent[2500..]);
    }

    #[test]
    fn a_tail_shorter_than_a_segment_waits_only_while_more_is_coming() {
        let mss = 65_483;
        // A poll of four chunks with their records: one whole segment now, the tail later.
        assert_eq!(to_write(65_760, mss, true), mss);
        assert_eq!(to_write(2 * mss + 10, mss, true), 2 * mss);
        // Less than a segment while more comes: poll again first.
        assert_eq!(to_write(300, mss, true), 0);
        // Nothing more to send at once: the tail goes now, so nothing waits for a poll that
        // will not come.
        assert_eq!(to_write(65_760, mss, false), 65_760);
        assert_eq!(to_write(300, mss, false), 300);
        // An unknown MSS writes everything.
        assert_eq!(to_write(65_760, 0, true), 65_760);
    }

    const PAUSE: usize = 8;
    const DEADLINE: Duration = Duration::from_secs(15);

    /// A paused reader's wait, with the session's notifier, its connection's writer flag and
    /// a backlog of `PAUSE` frames (full).
    struct Paused {
        drained: Arc<Notify>,
        writer_ended: Arc<AtomicBool>,
        backlog: Arc<AtomicUsize>,
    }

    impl Paused {
        fn new() -> Self {
            Self {
                drained: Arc::new(Notify::new()),
                writer_ended: Arc::new(AtomicBool::new(false)),
                backlog: Arc::new(AtomicUsize::new(PAUSE)),
            }
        }

        /// Starts the wait; returns it with the (virtual) time it ended.
        fn start(&self) -> tokio::task::JoinHandle<(Result<(), BacklogWait>, Duration)> {
            let (d, w, b) = (
                self.drained.clone(),
                self.writer_ended.clone(),
                self.backlog.clone(),
            );
            tokio::spawn(async move {
                let t = tokio::time::Instant::now();
                let r = wait_for_room(&d, &w, || b.load(Ordering::SeqCst), PAUSE, DEADLINE).await;
                (r, t.elapsed())
            })
        }
    }

    /// Virtual time (`start_paused`): the clock moves only when every task waits, so each
    /// instant below is exact, not a measurement.
    #[tokio::test(start_paused = true)]
    async fn a_paused_reader_gives_up_at_its_deadline_when_no_writer_takes_anything() {
        let p = Paused::new();
        let wait = p.start();
        // A writer that takes nothing (its peer does not read) wakes the reader in vain.
        tokio::time::sleep(Duration::from_secs(1)).await;
        p.drained.notify_waiters();
        let (r, took) = wait.await.unwrap();
        assert_eq!(r, Err(BacklogWait::TimedOut(DEADLINE)));
        assert_eq!(took, DEADLINE);
    }

    #[tokio::test(start_paused = true)]
    async fn a_paused_reader_stops_waiting_when_its_writer_ends() {
        let p = Paused::new();
        let wait = p.start();
        tokio::time::sleep(Duration::from_secs(2)).await;
        // What the writer does as it ends.
        p.writer_ended.store(true, Ordering::Release);
        p.drained.notify_waiters();
        let (r, took) = wait.await.unwrap();
        assert_eq!(r, Err(BacklogWait::WriterEnded));
        assert_eq!(took, Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn a_paused_reader_resumes_once_a_writer_drained_the_backlog() {
        let p = Paused::new();
        let wait = p.start();
        tokio::time::sleep(Duration::from_secs(3)).await;
        p.backlog.store(PAUSE - 1, Ordering::SeqCst);
        p.drained.notify_waiters();
        let (r, took) = wait.await.unwrap();
        assert_eq!(r, Ok(()));
        assert_eq!(took, Duration::from_secs(3));
        // A writer that already ended does not stop a reader whose backlog has room.
        p.writer_ended.store(true, Ordering::Release);
        let (r, took) = p.start().await.unwrap();
        assert_eq!((r, took), (Ok(()), Duration::ZERO));
    }

    /// What the tasks of one flow and its pool connection keep for their whole life, the
    /// largest part of what an idle flow costs a process (docs/RELIABILITY.md, *Memory*):
    /// the relay's future (`run_flow`), the connection's (`run_connection`, its reader) and
    /// its writer's (`write_loop`, a task of its own; it holds the record layer's sealing key,
    /// as the reader holds the opening one). Printed, and held below their sizes in a debug
    /// build with a few percent of room. As `async fn`s, which keep every argument twice, with
    /// the key schedules inline, they were 1 096, 1 648 and 1 440 bytes; as plain functions
    /// with the schedules inline, 912, 1 008 and 848; with the schedules expanded on the heap
    /// only while the connection is busy (`record::DirectionKey`), 912, 488 and 344.
    #[tokio::test]
    async fn the_futures_of_a_relay_and_a_pool_connection_stay_small() {
        use super::{Engine, Role};
        use gtcp::{Config, ConnId, FlowId, Session};
        struct Nobody;
        impl Role for Nobody {
            fn flow_opened(
                &self,
                _: &Arc<Engine>,
                _: FlowId,
                _: String,
                _: Option<gtcp::wire::Origin>,
            ) {
            }
            fn conn_needed(&self, _: &Arc<Engine>, _: FlowId) {}
        }
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let a = tokio::net::TcpStream::connect(l.local_addr().unwrap())
            .await
            .unwrap();
        let (b, _) = l.accept().await.unwrap();
        let session = Session::new(gtcp::Role::Opener, Config::default()).unwrap();
        let e = Engine::new(session, Box::new(Nobody), "t".into());
        let relay = e.clone().run_flow(FlowId(1), a, None);
        let conn = e
            .clone()
            .run_connection(ConnId(1), b, bytes::BytesMut::new(), None);
        let io = Arc::new(super::ConnIo {
            ready: Notify::new(),
            closing: AtomicBool::new(false),
            writer_ended: AtomicBool::new(false),
            retired: AtomicBool::new(false),
            stream: Arc::new(
                tokio::net::TcpStream::connect(l.local_addr().unwrap())
                    .await
                    .unwrap(),
            ),
        });
        let writer = e.clone().write_loop(ConnId(1), io, None);
        let sizes = [
            ("run_flow", std::mem::size_of_val(&relay), 960),
            ("run_connection", std::mem::size_of_val(&conn), 512),
            ("write_loop", std::mem::size_of_val(&writer), 368),
        ];
        println!("futures: {sizes:?}");
        for (what, size, bound) in sizes {
            assert!(size <= bound, "{what}: {size} bytes, bound {bound}");
        }
    }

    #[test]
    fn a_map_gives_back_the_room_of_a_burst_and_does_not_resize_on_every_change() {
        let mut m: HashMap<u64, Arc<u64>> = HashMap::new();
        for k in 0..4000 {
            m.insert(k, Arc::new(k));
        }
        let burst = m.capacity();
        assert!(burst >= 4000);
        for k in 0..3990 {
            assert_eq!(remove_shrinking(&mut m, &k).as_deref(), Some(&k));
        }
        assert_eq!(m.len(), 10);
        assert!(
            m.capacity() <= 2 * MAP_ROOM_MIN,
            "room for {} entries after the burst (during it {burst})",
            m.capacity()
        );
        assert_eq!(remove_shrinking(&mut m, &0), None);
        // Hysteresis: flows coming and going around a steady count never shrink the map (its
        // `capacity` counts removed slots until they are reused, and it may grow to make room
        // for them: a shrink would halve it).
        for k in 0..1000 {
            m.insert(k + 10_000, Arc::new(k));
        }
        let room = m.capacity();
        for k in 0..2000 {
            remove_shrinking(&mut m, &(k + 10_000));
            m.insert(k + 20_000, Arc::new(k));
            let now = m.capacity();
            assert!(
                now > room / 2,
                "resized at the {k}th exchange: room for {now}, before {room}"
            );
        }
    }
}
