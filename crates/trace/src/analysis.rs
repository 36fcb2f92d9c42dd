//! The streaming analysis: TCP connections (5-tuples, both directions), their data segments,
//! their end (FIN in both directions, RST, a new SYN on the same 5-tuple, or idleness), and
//! what finished connections feed: Table 1 ([`crate::routes`]), segment sizes
//! ([`crate::segments`]) and the flow list ([`crate::flowlist`]).
//!
//! Memory is bounded by the connections alive at once: a connection is dropped
//! [`Config::idle_timeout_ns`] after its last packet, or [`Config::closed_linger_ns`] after it
//! closed; routes keep only their unfinished components, and the activity periods kept for the
//! concurrency distribution are capped ([`crate::routes::PERIOD_BUDGET`]). Only three things
//! grow with the capture: the set of distinct routes of a window (about 50 bytes each, needed
//! to count them exactly), and, when asked for, the flow list (one entry per flow) and the
//! per-window tables.

use rustc_hash::FxHashMap;

use crate::decode::{self, flags, Addr, Segment, Skip};
use crate::reader::Packet;
use crate::routes::{Periods, Route, Table1};
use crate::segments::{DirectionSizes, SegmentSizes};

/// Knobs of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// A connection with no packet for this long is finished (ns). Default 60 s: longer than
    /// Linux's default RTO ceiling (120 s would be safer, 60 s bounds memory sooner).
    pub idle_timeout_ns: i64,
    /// A connection that closed (FIN both ways, or RST) is finished at once; for this long
    /// after its last packet (ns) a 44-byte tombstone keeps its last ACKs and retransmitted
    /// FINs from counting as a new connection (a SYN still opens one). Default 2 s.
    pub closed_linger_ns: i64,
    /// Cut the capture into windows of this length (ns), each analysed as a capture of its
    /// own (flows crossing a boundary are cut there). `None`: one window.
    pub window_ns: Option<i64>,
    /// Keep the flow list (one entry, 48 bytes, per flow).
    pub keep_flows: bool,
}

/// Nanoseconds in a second.
pub const NS: i64 = 1_000_000_000;

impl Default for Config {
    fn default() -> Self {
        Self {
            idle_timeout_ns: 60 * NS,
            closed_linger_ns: 2 * NS,
            window_ns: None,
            keep_flows: false,
        }
    }
}

/// A host pair, lower address first (a flow's route does not depend on its direction).
pub type RouteKey = (Addr, Addr);

/// A finished flow, as the flow list records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowRecord {
    /// First data segment (ns since the epoch).
    pub first_data_ns: i64,
    /// Last data segment (ns).
    pub last_data_ns: i64,
    /// Application bytes: the sequence span of the data of both directions (a retransmitted
    /// byte counts once).
    pub size: u64,
    /// The route.
    pub route: RouteKey,
}

/// Counters of what the decoder met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets read.
    pub packets: u64,
    /// TCP segments decoded.
    pub tcp_segments: u64,
    /// Data segments (payload > 0).
    pub data_segments: u64,
    /// Frames skipped: unknown link type.
    pub skipped_link_type: u64,
    /// Frames skipped: not IP.
    pub skipped_not_ip: u64,
    /// IP packets skipped: not TCP.
    pub skipped_not_tcp: u64,
    /// IP fragments skipped.
    pub skipped_fragments: u64,
    /// Frames whose headers are cut short or inconsistent.
    pub skipped_malformed: u64,
    /// Packets whose timestamp is before an earlier packet's (taken as that earlier time).
    pub timestamps_backwards: u64,
    /// Connections that ended by FIN/RST, by a new SYN, by idleness, at a window's end.
    pub ended_closed: u64,
    /// See `ended_closed`.
    pub ended_new_syn: u64,
    /// See `ended_closed`.
    pub ended_idle: u64,
    /// See `ended_closed`.
    pub ended_at_cut: u64,
    /// Most connections alive at once.
    pub peak_connections: u64,
    /// Packets of connections that had closed (FIN both ways, or RST), within
    /// [`Config::closed_linger_ns`]: their last ACKs; not analysed.
    pub after_close: u64,
}

/// One window's Table 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Start of the window (ns since the epoch).
    pub start_ns: i64,
    /// Its end (exclusive; for the last window: its last packet).
    pub end_ns: i64,
    /// The table.
    pub table: Table1,
}

/// Everything the analysis found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Table 1 over the whole capture (the windows' tables added up when windows are used:
    /// then a route present in two windows counts twice).
    pub total: Table1,
    /// Per window (one window when none were asked for).
    pub windows: Vec<Window>,
    /// Segment sizes.
    pub segments: SegmentSizes,
    /// The flows (when [`Config::keep_flows`]), in the order they finished.
    pub flows: Vec<FlowRecord>,
    /// First packet's time (ns), if any.
    pub first_ns: Option<i64>,
    /// Decoder and connection counters.
    pub counters: Counters,
}

/// A connection's key: lower (address, port) first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct ConnKey {
    a: Addr,
    b: Addr,
    pa: u16,
    pb: u16,
}

/// One direction of a connection.
#[derive(Debug, Clone, Copy, Default)]
struct Dir {
    /// ISN of the SYN sent in this direction, if seen.
    syn: Option<u32>,
    fin: bool,
    /// Any data yet.
    data: bool,
    /// Highest sequence end of the data, on a 64-bit line (see `extend`).
    hi: u64,
    /// `hi` modulo 2^32.
    hi_seq: u32,
    /// Lowest data sequence number on the 64-bit line.
    lo: u64,
    sizes: DirectionSizes,
}

/// Where a direction's 64-bit sequence line starts: far from 0 so that data before the first
/// seen segment (reordering) stays positive.
const SEQ_ORIGIN: u64 = 1 << 40;

impl Dir {
    fn data(&mut self, seq: u32, len: u32) {
        if !self.data {
            self.data = true;
            self.hi = SEQ_ORIGIN;
            self.hi_seq = seq;
            self.lo = SEQ_ORIGIN;
        }
        // The sequence number nearest to `hi` (RFC 1982 serial arithmetic), on the 64-bit line.
        let delta = i64::from(seq.wrapping_sub(self.hi_seq) as i32);
        let start = self.hi.saturating_add_signed(delta);
        let end = start + u64::from(len);
        if end > self.hi {
            self.hi = end;
            self.hi_seq = seq.wrapping_add(len);
        }
        self.lo = self.lo.min(start);
        self.sizes.add(len);
    }

    fn span(&self) -> u64 {
        if self.data {
            self.hi - self.lo
        } else {
            0
        }
    }
}

#[derive(Debug, Clone)]
struct Conn {
    dirs: [Dir; 2],
    last_seen: i64,
    /// RST seen, or FIN in both directions.
    closed: bool,
    first_data: i64,
    last_data: i64,
    /// Payload bytes from the IP length fields, retransmissions included.
    bytes: u64,
    /// Route slot and component id (set at the first data segment).
    comp: Option<(u32, u64)>,
}

impl Conn {
    fn new(now: i64) -> Self {
        Self {
            dirs: [Dir::default(); 2],
            last_seen: now,
            closed: false,
            first_data: 0,
            last_data: 0,
            bytes: 0,
            comp: None,
        }
    }
}

/// Why a connection ended.
#[derive(Debug, Clone, Copy)]
enum End {
    Closed,
    NewSyn,
    Idle,
    Cut,
}

/// A route of the window.
#[derive(Debug, Clone, Copy)]
struct Seen {
    /// Some finished component had competing flows.
    competing: bool,
    /// Its slot in [`WindowState::slab`] while it has unfinished components.
    slot: Option<u32>,
}

/// Per-window state.
#[derive(Debug, Default)]
struct WindowState {
    table: Table1,
    /// Every route of the window that carried data.
    seen: FxHashMap<RouteKey, Seen>,
    /// Routes with unfinished components (connections hold their slot: no lookup per packet).
    slab: Vec<Route>,
    free: Vec<u32>,
    /// Activity periods held by all routes (see [`crate::routes::PERIOD_BUDGET`]).
    held: Periods,
}

impl WindowState {
    /// The slot of `key`'s components, made if needed.
    fn slot(&mut self, key: RouteKey) -> u32 {
        let e = self.seen.entry(key).or_insert(Seen {
            competing: false,
            slot: None,
        });
        if let Some(s) = e.slot {
            return s;
        }
        let s = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slab.push(Route::default());
                (self.slab.len() - 1) as u32
            }
        };
        e.slot = Some(s);
        s
    }

    /// Settles route `key` (in `slot`) at `now` and frees its slot when nothing is pending.
    fn settle(&mut self, key: &RouteKey, slot: u32, now: i64) {
        let r = &mut self.slab[slot as usize];
        let res = r.settle(now, &mut self.table, &mut self.held);
        let empty = r.is_empty();
        if res.competing || empty {
            if let Some(e) = self.seen.get_mut(key) {
                e.competing |= res.competing;
                if empty {
                    e.slot = None;
                    self.free.push(slot);
                }
            }
        }
    }

    fn close(mut self) -> Table1 {
        let pending: Vec<(RouteKey, u32)> = self
            .seen
            .iter()
            .filter_map(|(k, e)| Some((*k, e.slot?)))
            .collect();
        for (k, slot) in pending {
            self.settle(&k, slot, i64::MAX);
        }
        self.table.routes = self.seen.len() as u64;
        self.table.routes_competing = self.seen.values().filter(|e| e.competing).count() as u64;
        self.table
    }
}

/// The streaming analysis. Feed it packets (or decoded segments) in capture order, then
/// [`Analyzer::finish`].
#[derive(Debug)]
pub struct Analyzer {
    cfg: Config,
    conns: FxHashMap<ConnKey, Conn>,
    /// Connections that closed (FIN both ways, or RST) less than `closed_linger_ns` ago, and
    /// the time of their last packet: what arrives for them is not a new connection.
    tombstones: FxHashMap<ConnKey, i64>,
    win: WindowState,
    win_start: i64,
    windows: Vec<Window>,
    segments: SegmentSizes,
    flows: Vec<FlowRecord>,
    counters: Counters,
    first: Option<i64>,
    now: i64,
    next_sweep: i64,
}

impl Analyzer {
    /// A new analysis.
    pub fn new(cfg: Config) -> Self {
        Self {
            cfg,
            conns: FxHashMap::default(),
            tombstones: FxHashMap::default(),
            win: WindowState::default(),
            win_start: 0,
            windows: Vec::new(),
            segments: SegmentSizes::default(),
            flows: Vec::new(),
            counters: Counters::default(),
            first: None,
            now: i64::MIN,
            next_sweep: i64::MIN,
        }
    }

    /// One captured packet.
    pub fn packet(&mut self, p: Packet<'_>) {
        self.counters.packets += 1;
        match decode::decode(p.linktype, p.data) {
            Ok(seg) => self.segment(p.ts_ns, &seg),
            Err(skip) => {
                let c = &mut self.counters;
                match skip {
                    Skip::LinkType => c.skipped_link_type += 1,
                    Skip::NotIp => c.skipped_not_ip += 1,
                    Skip::NotTcp => c.skipped_not_tcp += 1,
                    Skip::Fragment => c.skipped_fragments += 1,
                    Skip::Malformed => c.skipped_malformed += 1,
                }
                self.advance(p.ts_ns);
            }
        }
    }

    /// Moves the clock to `ts` (never back), cutting windows and expiring idle connections.
    fn advance(&mut self, ts: i64) -> i64 {
        if self.first.is_none() {
            self.first = Some(ts);
            self.win_start = ts;
            self.next_sweep = ts;
        }
        if ts < self.now {
            self.counters.timestamps_backwards += 1;
        } else {
            self.now = ts;
        }
        let now = self.now;
        if let Some(w) = self.cfg.window_ns.filter(|w| *w > 0) {
            if now >= self.win_start.saturating_add(w) {
                let end = self.win_start + w;
                self.cut(end);
                // Windows with no packet are skipped.
                self.win_start = end + (now - end) / w * w;
            }
        }
        if now >= self.next_sweep {
            self.sweep(now);
        }
        now
    }

    /// One decoded TCP segment captured at `ts` (ns).
    pub fn segment(&mut self, ts: i64, s: &Segment) {
        let now = self.advance(ts);
        self.counters.tcp_segments += 1;
        let (key, d) = if (s.src, s.sport) <= (s.dst, s.dport) {
            (
                ConnKey {
                    a: s.src,
                    b: s.dst,
                    pa: s.sport,
                    pb: s.dport,
                },
                0,
            )
        } else {
            (
                ConnKey {
                    a: s.dst,
                    b: s.src,
                    pa: s.dport,
                    pb: s.sport,
                },
                1,
            )
        };
        let syn_only = s.flags & (flags::SYN | flags::ACK) == flags::SYN;
        // (A live connection is the common case: its probe also warms the entry used below.)
        if !self.tombstones.is_empty() && !self.conns.contains_key(&key) {
            if let Some(t) = self.tombstones.get_mut(&key) {
                if !syn_only {
                    // The last ACKs (or a retransmitted FIN) of a closed connection.
                    *t = now;
                    self.counters.after_close += 1;
                    return;
                }
                self.tombstones.remove(&key);
            }
        }
        if syn_only {
            // A new connection on a 5-tuple still in the table: the old one is over.
            let reused = self.conns.get(&key).is_some_and(|c| {
                c.closed || (c.dirs[d].syn != Some(s.seq) && (c.dirs[0].data || c.dirs[1].data))
            });
            if reused {
                if let Some(old) = self.conns.remove(&key) {
                    self.end(&key, old, End::NewSyn);
                }
            }
        }
        let len = self.conns.len() as u64;
        let c = self.conns.entry(key).or_insert_with(|| Conn::new(now));
        if len + 1 > self.counters.peak_connections {
            self.counters.peak_connections = len + 1;
        }
        c.last_seen = now;
        if s.flags & flags::SYN != 0 && c.dirs[d].syn.is_none() {
            c.dirs[d].syn = Some(s.seq);
        }
        if s.flags & flags::FIN != 0 {
            c.dirs[d].fin = true;
        }
        if s.flags & flags::RST != 0 || (c.dirs[0].fin && c.dirs[1].fin) {
            c.closed = true;
        }
        if s.payload_len > 0 {
            self.counters.data_segments += 1;
            self.segments.add(s.payload_len);
            // A SYN carrying data (TFO) has its data one after the ISN.
            let seq = if s.flags & flags::SYN != 0 {
                s.seq.wrapping_add(1)
            } else {
                s.seq
            };
            c.dirs[d].data(seq, s.payload_len);
            c.bytes += u64::from(s.payload_len);
            let route = (key.a, key.b);
            match c.comp {
                None => {
                    c.first_data = now;
                    c.last_data = now;
                    let slot = self.win.slot(route);
                    c.comp = Some((slot, self.win.slab[slot as usize].start(now)));
                    // Components behind this one may be final now.
                    self.win.settle(&route, slot, now);
                }
                Some((slot, id)) => {
                    c.last_data = now;
                    self.win.slab[slot as usize].data(id, now, &mut self.win.held);
                }
            }
        }
        if c.closed {
            // Over: its counts are final. A small tombstone absorbs its last packets.
            if let Some(c) = self.conns.remove(&key) {
                self.end(&key, c, End::Closed);
                self.tombstones.insert(key, now);
            }
        }
    }

    /// Finishes every connection idle (or closed and lingering) for long enough.
    fn sweep(&mut self, now: i64) {
        let idle = self.cfg.idle_timeout_ns;
        let linger = self.cfg.closed_linger_ns;
        self.tombstones
            .retain(|_, t| now.saturating_sub(*t) <= linger);
        let mut done: Vec<(ConnKey, Conn)> = Vec::new();
        self.conns.retain(|k, c| {
            if now.saturating_sub(c.last_seen) > idle {
                done.push((*k, c.clone()));
                false
            } else {
                true
            }
        });
        // Deterministic order (the table's iteration order is not).
        done.sort_by_key(|(k, c)| (c.last_seen, *k));
        for (k, c) in done {
            self.end(&k, c, End::Idle);
        }
        // Sweep again after a fraction of the shortest timeout (at least every millisecond of
        // capture time, so a sweep costs little against the packets between two).
        self.next_sweep = now.saturating_add((linger.min(idle) / 4).max(1_000_000));
    }

    /// A connection is over: its directions and its flow go to the results.
    fn end(&mut self, key: &ConnKey, c: Conn, why: End) {
        match why {
            End::Closed => self.counters.ended_closed += 1,
            End::NewSyn => self.counters.ended_new_syn += 1,
            End::Idle => self.counters.ended_idle += 1,
            End::Cut => self.counters.ended_at_cut += 1,
        }
        for d in &c.dirs {
            self.segments.direction(&d.sizes);
        }
        let route = (key.a, key.b);
        let Some((slot, id)) = c.comp else {
            self.win.table.connections_without_data += 1;
            return;
        };
        self.win.slab[slot as usize].finish(
            id,
            c.first_data,
            c.last_data,
            c.bytes,
            &mut self.win.held,
        );
        self.win.settle(&route, slot, self.now);
        if self.cfg.keep_flows {
            self.flows.push(FlowRecord {
                first_data_ns: c.first_data,
                last_data_ns: c.last_data,
                size: c.dirs[0].span() + c.dirs[1].span(),
                route,
            });
        }
    }

    /// Ends every connection (at the end of a window or of the capture) and closes the window.
    fn cut(&mut self, end_ns: i64) {
        self.tombstones.clear();
        let mut all: Vec<(ConnKey, Conn)> = self.conns.drain().collect();
        all.sort_by_key(|(k, c)| (c.last_seen, *k));
        for (k, c) in all {
            self.end(&k, c, End::Cut);
        }
        let win = std::mem::take(&mut self.win);
        self.windows.push(Window {
            start_ns: self.win_start,
            end_ns,
            table: win.close(),
        });
    }

    /// Ends the analysis.
    pub fn finish(mut self) -> Report {
        if self.first.is_some() {
            let end = self.now;
            self.cut(end);
        }
        let mut total = Table1::default();
        for w in &self.windows {
            add(&mut total, &w.table);
        }
        Report {
            total,
            windows: self.windows,
            segments: self.segments,
            flows: self.flows,
            first_ns: self.first,
            counters: self.counters,
        }
    }
}

fn add(t: &mut Table1, o: &Table1) {
    t.routes += o.routes;
    t.routes_competing += o.routes_competing;
    t.flows += o.flows;
    t.flows_competing += o.flows_competing;
    t.bytes += o.bytes;
    t.bytes_competing += o.bytes_competing;
    t.connections_without_data += o.connections_without_data;
    for (a, b) in t.concurrency_ns.iter_mut().zip(&o.concurrency_ns) {
        *a += b;
    }
    t.peak_concurrency = t.peak_concurrency.max(o.peak_concurrency);
    t.concurrency_left_out += o.concurrency_left_out;
}
