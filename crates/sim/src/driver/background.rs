//! The `background` driver: short TCP flows, long TCP flows and a background class of
//! micro-flows under one of paper 004's server policies (Sections III-B and IV).
//!
//! - [`BgPolicy::Vanilla`]: every background micro-flow starts at once on its own TCP
//!   connection;
//! - [`BgPolicy::Access`]: the shipped access controller, [`gtcp::admission::Admission`],
//!   decides: an arriving micro-flow is admitted (its connection opens) or waits *outside
//!   the network* (no connection, no packet) until a slot frees; each admitted flow is a
//!   plain TCP flow. The driver feeds the core the simulator's time: `arrive` on arrival,
//!   `sent` for every background byte acknowledged, `release` at completion, and its clock
//!   (`handle_timeout` at `poll_timeout`, every [`gtcp::admission::TICK`]) — what is
//!   simulated is what ships;
//! - [`BgPolicy::Lbe`]: every micro-flow starts at once over a less-than-best-effort sender
//!   (LEDBAT or TCP-LP, simulator only).
//!
//! Short flows and long flows always use the world's TCP. Each stream (short or background)
//! has its own route and its own arrival process; each background stream is its own class
//! with its own controller (paper 004's Figure 8 has three).

use super::{Driver, FlowRecord};
use crate::packet::{ConnId, NodeId, PayloadTag};
use crate::tcp::{CongestionControl, Segment};
use crate::time::Time;
use crate::workload::FlowSource;
use crate::world::World;
use gtcp::admission::{Admission, AdmissionConfig, AdmissionError, Verdict};
use gtcp::FlowId;
use std::time::Duration;

/// What a background class does with its micro-flows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BgPolicy {
    /// Each micro-flow starts at once with TCP.
    Vanilla,
    /// At most M active, the rest wait outside the network (the core's controller).
    Access(AdmissionConfig),
    /// Each micro-flow starts at once with a less-than-best-effort sender.
    Lbe {
        /// [`CongestionControl::Ledbat`] or [`CongestionControl::TcpLp`].
        cc: CongestionControl,
        /// LEDBAT's target delay.
        ledbat_target: Time,
    },
}

/// Short or background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// Delay-sensitive TCP flows (the flows whose delay is measured).
    Short,
    /// Background micro-flows under the run's [`BgPolicy`].
    Background,
}

/// One stream of flows on one route.
pub struct Stream {
    /// Short or background.
    pub kind: StreamKind,
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Arrivals and sizes.
    pub source: Box<dyn FlowSource>,
}

/// A persistent flow (always has data) from `start` on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LongFlow {
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// When it opens.
    pub start: Time,
    /// Its congestion control.
    pub cc: CongestionControl,
    /// LEDBAT target (if `cc` is LEDBAT).
    pub ledbat_target: Time,
}

/// A background micro-flow's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BgRecord {
    /// Stream index.
    pub stream: u32,
    /// Size in bytes.
    pub size: u64,
    /// Arrival at the server.
    pub arrival: Time,
    /// Its connection opened (admission), if it did.
    pub admitted: Option<Time>,
    /// Its last byte was acknowledged, if it was.
    pub finished: Option<Time>,
    /// Refused by a full waiting queue.
    pub refused: bool,
}

/// Per-stream time integrals and counters of the background class.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BgStreamStats {
    /// Micro-flows with an open connection now.
    pub active: u32,
    /// Micro-flows arrived and not finished (active + waiting).
    pub present: u32,
    /// ∫ active dt (flow·seconds).
    pub active_area: f64,
    /// ∫ present dt (flow·seconds).
    pub present_area: f64,
    /// Payload bytes acknowledged (of the stream's flows, short or background).
    pub acked_bytes: u64,
    last: Time,
}

impl BgStreamStats {
    fn settle(&mut self, now: Time) {
        let dt = crate::time::as_secs(now.saturating_sub(self.last));
        self.active_area += dt * self.active as f64;
        self.present_area += dt * self.present as f64;
        self.last = now;
    }
}

#[derive(Debug, Clone, Copy)]
enum Owner {
    Short(usize),
    Bg(usize),
    Long(usize),
}

/// Bytes a long flow keeps written ahead (its send buffer is the world's).
const LONG_FLOW_BYTES: u64 = 1 << 50;
/// Timer tokens: arrivals of stream `i` use `i`; long flow `j` starts with `LONG_BASE + j`.
const TICK_TOKEN: u64 = u64::MAX - 1;
const LONG_BASE: u64 = 1 << 32;

/// Short, long and background flows; see the [module documentation](self).
pub struct BackgroundDriver {
    policy: BgPolicy,
    streams: Vec<Stream>,
    next: Vec<Option<crate::workload::FlowSpec>>,
    long: Vec<LongFlow>,
    owners: Vec<Owner>,
    /// Short flows, in arrival order (`source` = stream index).
    pub short: Vec<FlowRecord>,
    /// Background micro-flows, in arrival order.
    pub background: Vec<BgRecord>,
    /// Bytes acknowledged of each long flow.
    pub long_acked: Vec<u64>,
    /// Statistics per stream (short streams: only `acked_bytes`).
    pub bg_stats: Vec<BgStreamStats>,
    /// One controller per background stream (access control only).
    admission: Vec<Option<Admission>>,
    /// The state of every access controller after each of its ticks.
    pub limit_samples: Vec<LimitSample>,
}

/// An access controller's state after a tick (see [`BackgroundDriver::limit_samples`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LimitSample {
    /// When.
    pub at: Time,
    /// Stream index.
    pub stream: u32,
    /// The current M.
    pub m: u32,
    /// Flows active.
    pub active: usize,
    /// Flows waiting.
    pub waiting: usize,
    /// The controller's estimate of the arrival load, bytes per second (`None` before a
    /// flow has finished).
    pub load_estimate: Option<f64>,
    /// Saturations so far (the overload check took a raise back; `Admission::saturations`).
    pub saturations: u64,
    /// Whether the overload check was engaged: the class sent less than `1 − shortfall` of
    /// what arrived over the long memory (`Admission::check_engaged`).
    pub engaged: bool,
}

impl BackgroundDriver {
    /// A driver for `streams` and `long` flows under `policy`. Fails if the access
    /// control's configuration is invalid.
    pub fn new(
        policy: BgPolicy,
        streams: Vec<Stream>,
        long: Vec<LongFlow>,
    ) -> Result<Self, AdmissionError> {
        let mut admission = Vec::new();
        for s in &streams {
            admission.push(match (policy, s.kind) {
                (BgPolicy::Access(cfg), StreamKind::Background) => Some(Admission::new(cfg)?),
                _ => None,
            });
        }
        Ok(BackgroundDriver {
            policy,
            next: vec![None; streams.len()],
            bg_stats: vec![BgStreamStats::default(); streams.len()],
            long_acked: vec![0; long.len()],
            streams,
            long,
            owners: Vec::new(),
            short: Vec::new(),
            background: Vec::new(),
            admission,
            limit_samples: Vec::new(),
        })
    }

    /// Closes the books of the time integrals at `now` (call after the run).
    pub fn settle(&mut self, now: Time) {
        for s in &mut self.bg_stats {
            s.settle(now);
        }
    }

    /// The access controller of stream `i`, if any.
    pub fn admission(&self, i: usize) -> Option<&Admission> {
        self.admission.get(i)?.as_ref()
    }

    fn pull(&mut self, w: &mut World, i: usize) {
        self.next[i] = self.streams[i].source.next_flow();
        if let Some(f) = self.next[i] {
            w.schedule(f.arrival, i as u64);
        }
    }

    fn open(&mut self, w: &mut World, owner: Owner) -> ConnId {
        let (src, dst, cc, target) = match owner {
            Owner::Short(i) => {
                let s = &self.streams[self.short[i].source as usize];
                (
                    s.src,
                    s.dst,
                    w.tcp_params().cc,
                    w.tcp_params().ledbat_target,
                )
            }
            Owner::Bg(i) => {
                let s = &self.streams[self.background[i].stream as usize];
                match self.policy {
                    BgPolicy::Lbe { cc, ledbat_target } => (s.src, s.dst, cc, ledbat_target),
                    _ => (
                        s.src,
                        s.dst,
                        w.tcp_params().cc,
                        w.tcp_params().ledbat_target,
                    ),
                }
            }
            Owner::Long(j) => {
                let l = &self.long[j];
                (l.src, l.dst, l.cc, l.ledbat_target)
            }
        };
        let conn = w.open_with(src, dst, self.owners.len() as u64, cc, target);
        self.owners.push(owner);
        let size = match owner {
            Owner::Short(i) => {
                self.short[i].conn = conn.serial;
                self.short[i].size
            }
            Owner::Bg(i) => {
                let now = w.now();
                self.background[i].admitted = Some(now);
                let st = &mut self.bg_stats[self.background[i].stream as usize];
                st.settle(now);
                st.active += 1;
                self.background[i].size
            }
            Owner::Long(_) => LONG_FLOW_BYTES,
        };
        w.write(conn, size);
        conn
    }

    fn size_of(&self, owner: Owner) -> u64 {
        match owner {
            Owner::Short(i) => self.short[i].size,
            Owner::Bg(i) => self.background[i].size,
            Owner::Long(_) => LONG_FLOW_BYTES,
        }
    }

    fn bg_arrival(&mut self, w: &mut World, stream: usize, size: u64, arrival: Time) {
        let id = self.background.len();
        self.background.push(BgRecord {
            stream: stream as u32,
            size,
            arrival,
            admitted: None,
            finished: None,
            refused: false,
        });
        let now = w.now();
        let st = &mut self.bg_stats[stream];
        st.settle(now);
        st.present += 1;
        let verdict = match &mut self.admission[stream] {
            Some(a) => a.arrive(Duration::from_nanos(now), FlowId(id as u64)),
            None => Verdict::Admitted,
        };
        match verdict {
            Verdict::Admitted => {
                self.open(w, Owner::Bg(id));
            }
            Verdict::Waiting(_) => {}
            Verdict::Refused => {
                self.background[id].refused = true;
                st.present -= 1;
            }
        }
    }

    fn admit(&mut self, w: &mut World, flows: Vec<FlowId>) {
        for f in flows {
            self.open(w, Owner::Bg(f.0 as usize));
        }
    }
}

impl BackgroundDriver {
    /// Wakes the controllers at the earliest of their clocks ([`Admission::poll_timeout`]).
    fn schedule_tick(&self, w: &mut World) {
        let next = self
            .admission
            .iter()
            .flatten()
            .map(Admission::poll_timeout)
            .min();
        if let Some(d) = next {
            let at = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(w.now());
            w.schedule(at, TICK_TOKEN);
        }
    }
}

impl Driver for BackgroundDriver {
    fn on_start(&mut self, w: &mut World) {
        for i in 0..self.streams.len() {
            self.pull(w, i);
        }
        for (j, l) in self.long.iter().enumerate() {
            w.schedule(l.start, LONG_BASE + j as u64);
        }
        if self.admission.iter().any(Option::is_some) {
            self.schedule_tick(w);
        }
    }

    fn on_timer(&mut self, w: &mut World, token: u64) {
        if token == TICK_TOKEN {
            let now = w.now();
            for i in 0..self.admission.len() {
                let Some(a) = &mut self.admission[i] else {
                    continue;
                };
                let admitted = a.handle_timeout(Duration::from_nanos(now));
                let t = Duration::from_nanos(now);
                self.limit_samples.push(LimitSample {
                    at: now,
                    stream: i as u32,
                    m: a.limit(),
                    active: a.active(),
                    waiting: a.waiting(),
                    load_estimate: a.arrival_load(t),
                    saturations: a.saturations(),
                    engaged: a.check_engaged(t),
                });
                self.admit(w, admitted);
            }
            self.schedule_tick(w);
            return;
        }
        if token >= LONG_BASE {
            self.open(w, Owner::Long((token - LONG_BASE) as usize));
            return;
        }
        let i = token as usize;
        let Some(f) = self.next.get_mut(i).and_then(Option::take) else {
            return;
        };
        self.pull(w, i);
        match self.streams[i].kind {
            StreamKind::Short => {
                let id = self.short.len();
                self.short.push(FlowRecord {
                    id: id as u64,
                    source: i as u32,
                    size: f.size,
                    arrival: f.arrival,
                    conn: 0,
                    finished: None,
                    delivered: None,
                });
                self.open(w, Owner::Short(id));
            }
            StreamKind::Background => self.bg_arrival(w, i, f.size, f.arrival),
        }
    }

    #[inline]
    fn on_segment_sent(&mut self, w: &World, conn: ConnId, _seg: &Segment) -> PayloadTag {
        w.user(conn).unwrap_or(u64::MAX)
    }

    fn on_send_ready(&mut self, w: &mut World, conn: ConnId) {
        let Some(owner) = w
            .user(conn)
            .and_then(|u| self.owners.get(u as usize).copied())
        else {
            return;
        };
        let size = self.size_of(owner);
        let written = w.sender(conn).map_or(size, |s| s.written());
        if written < size {
            w.write(conn, size - written);
        }
    }

    fn on_acked(&mut self, w: &mut World, conn: ConnId, snd_una: u64, newly: u64) {
        let Some(owner) = w
            .user(conn)
            .and_then(|u| self.owners.get(u as usize).copied())
        else {
            return;
        };
        let now = w.now();
        match owner {
            Owner::Short(i) => {
                self.bg_stats[self.short[i].source as usize].acked_bytes += newly;
                if snd_una >= self.short[i].size {
                    self.short[i].finished = Some(now);
                    self.short[i].delivered = Some(now);
                    w.close(conn);
                }
            }
            Owner::Long(j) => self.long_acked[j] += newly,
            Owner::Bg(i) => {
                let b = self.background[i];
                let stream = b.stream as usize;
                self.bg_stats[stream].acked_bytes += newly;
                let t = Duration::from_nanos(now);
                if let Some(a) = &mut self.admission[stream] {
                    a.sent(t, newly);
                }
                if snd_una >= b.size {
                    self.background[i].finished = Some(now);
                    let st = &mut self.bg_stats[stream];
                    st.settle(now);
                    st.active -= 1;
                    st.present -= 1;
                    w.close(conn);
                    let admitted = match &mut self.admission[stream] {
                        Some(a) => a.release(t, FlowId(i as u64), Some(b.size)),
                        None => Vec::new(),
                    };
                    self.admit(w, admitted);
                }
            }
        }
    }
}
