//! `schedtcp`: the shipped gtcp core ([`gtcp::Session`]) driven as the tunnel drives it
//! (paper 000, Section 6.1, Algorithm 4), over the simulated TCP.
//!
//! * The origin holds an [`Role::Opener`] session, the destination an [`Role::Acceptor`]
//!   session. Flow *j* arrives: the origin application opens a gtcp flow (with its size as
//!   the hint, for the size-aware policies), the driver opens simulated connection *j* for it
//!   and registers it with the core on both sides (`add_connection(conn, Some(flow))`), and
//!   the application hands the flow's bytes to the core as [`Session::send_capacity`] allows
//!   (refilled on [`Event::FlowWritable`]), then [`Session::finish`]es it.
//! * **Algorithm 4, `On_connection_ready(i)`**: when the core reports
//!   [`Event::ConnReady`] and the connection's send buffer has room — the not-sent backlog is
//!   below `notsent_lowat`, as `TCP_NOTSENT_LOWAT` makes a real socket writable — the driver
//!   calls [`Session::poll_transmit`] (at most `poll_max` bytes, as the tunnel) and writes
//!   the frame bytes it returns into the connection's TCP byte stream. The core picks the
//!   flow (the policy) and never gives a connection more payload than its virtual queue.
//! * The destination TCP's in-order bytes are fed to [`Session::handle_input`]; the
//!   destination application reads each flow ([`Session::read`]) as it becomes readable and
//!   checks every byte against what the origin wrote. Its own direction is empty: it
//!   finishes it at once.
//! * The destination's frames (acknowledgements, credit, ends, `Done`) travel back over the
//!   reverse direction of the same connection. The simulated TCP is one-way, so they are
//!   delivered after the path's one-way delay from the destination to the origin (the
//!   latency of an ACK on the uncongested reverse path), in order and without loss; their
//!   volume is reported (`reverse_bytes`).
//! * Completion: the flow's transfer time is when the destination application reads its
//!   end (all bytes and the `Fin`), minus its arrival ([`FlowRecord::delivered`]);
//!   [`FlowRecord::finished`] is when the origin's session closes the flow.
//! * Closing, as the tunnel does it: at [`Event::ConnDone`] a side stops writing on the
//!   connection (half-close) but keeps reading until the peer's end of stream — the peer is
//!   done too and everything it wrote has arrived (for the reverse direction, an end marker
//!   sent over the same in-order channel) — and only then calls
//!   [`Session::connection_closed`]. The simulated connection closes when both sides have.
//!   When the origin closes, the invariant of the product is checked on its counters: the
//!   connection carried exactly its own flow's bytes of payload, and its virtual queue is
//!   empty.
//! * Safety net for a core bug found with this driver and since fixed in the core
//!   (3594b2d; regression test in `tests/gtcp_core_issues.rs`): a session wrote control
//!   frames on a connection after it had said `Done` there, and they reached the peer after
//!   the peer closed that connection ([`Session::handle_input`] refused them). Dropping
//!   them stalls flows (lost credit, lost end acknowledgements), so the driver decodes any
//!   frame that reaches a side after it closed the connection and hands it to that side's
//!   session through another of its live connections ([`Session::handle_frame`]), counting
//!   it ([`GtcpStats::late_frames`]; 0 with the fixed core and the closing above).
//!
//! Unlike `gtcp-ideal`, bytes are committed to a connection when they are written, not when
//! a segment leaves, and framing adds bytes to the stream: the distance to Proposition 1 is
//! measured, not zero. Flows from `plain_sources` bypass the core (plain TCP sharing the
//! path).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use bytes::{Bytes, BytesMut};
use gtcp::wire::{Frame, FrameDecoder};
use gtcp::{Config, ConnId as GConn, Event, FlowId, ReadOutcome, Role, Session};

use super::{pattern, Arrivals, Driver, FlowDriver, FlowRecord, GtcpStats, ARRIVAL_TOKEN};
use crate::packet::{ConnId, NodeId, PayloadTag};
use crate::tcp::Segment;
use crate::time::Time;
use crate::workload::FlowSource;
use crate::world::World;

/// Largest read or write an application makes at once (the driver profile's).
const APP_IO: usize = gtcp::driver::APP_READ;

/// How the `schedtcp` driver uses the core.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedtcpOptions {
    /// The core's configuration (policy, chunk, per-flow window and send buffer).
    pub config: Config,
    /// Poll the core only while the connection's not-sent backlog is below this many bytes
    /// (`TCP_NOTSENT_LOWAT`; the core's [`DriverProfile`](gtcp::DriverProfile)).
    pub notsent_lowat: u64,
    /// Largest `poll_transmit` (the core's [`DriverProfile::poll_max`](gtcp::DriverProfile::poll_max),
    /// as the tunnel).
    pub poll_max: usize,
    /// Give the core each flow's size as its hint (size-aware policies need it).
    pub size_hint: bool,
    /// Check every byte the destination reads.
    pub verify_payload: bool,
    /// Sources whose flows bypass the core (plain TCP).
    pub plain_sources: Vec<u32>,
    /// From this simulated time on, the destination's frames never reach the origin (its
    /// path back dies; default never): the origin's core then reports each connection dead
    /// one `dead_peer` after the last bytes it received on it
    /// ([`SchedtcpDriver::dead_conns`]).
    pub silent_from: Option<Time>,
}

impl SchedtcpOptions {
    /// The core's driver profile around `config` (what the tunnel uses): its low-water mark
    /// and poll size, size hints on, payload checked.
    pub fn new(config: Config) -> Self {
        let profile = gtcp::DriverProfile::new(&config);
        SchedtcpOptions {
            notsent_lowat: u64::from(profile.notsent_lowat),
            poll_max: profile.poll_max(),
            config,
            size_hint: true,
            verify_payload: true,
            plain_sources: Vec::new(),
            silent_from: None,
        }
    }
}

struct SFlow {
    size: u64,
    plain: bool,
    gflow: Option<FlowId>,
    /// Bytes the origin application handed to the core.
    written: u64,
    finished_writing: bool,
    /// Bytes the destination application read (plain flows: delivered in order).
    read: u64,
}

struct SConn {
    sim: ConnId,
    /// The opener has frames for this connection (it said `ConnReady` and `poll_transmit`
    /// has not returned 0 since).
    want: bool,
    /// Bytes written into the TCP stream and not yet delivered at the destination.
    stream: BytesMut,
    /// Delivered bytes the acceptor has not decoded yet (a partial frame).
    input: BytesMut,
    /// Reverse bytes the opener has not decoded yet.
    rev_input: BytesMut,
    acceptor_added: bool,
    /// The opener said `ConnDone` (it writes nothing more here).
    opener_done: bool,
    /// The acceptor said `ConnDone`.
    acceptor_done: bool,
    /// The acceptor's end of stream reached the opener.
    opener_eof: bool,
    /// `connection_closed` called on the opener / acceptor.
    opener_closed: bool,
    acceptor_closed: bool,
    /// The simulated connection is closed.
    closed: bool,
}

/// One end's connections the driver may hand frames to, and frames waiting for one.
#[derive(Default)]
struct Live {
    conns: BTreeSet<usize>,
    waiting: VecDeque<Frame>,
}

/// The gtcp core over the simulated TCP (see the [module docs](self)).
pub struct SchedtcpDriver<S> {
    arrivals: Arrivals<S>,
    endpoints: Vec<(NodeId, NodeId)>,
    reverse_delay: Vec<Time>,
    opts: SchedtcpOptions,
    opener: Session,
    acceptor: Session,
    records: Vec<FlowRecord>,
    flows: Vec<SFlow>,
    conns: Vec<SConn>,
    /// gtcp flow id − 1 → flow index.
    by_gflow: Vec<u64>,
    /// Reverse-direction bytes in transit: timer token → (connection, bytes, or `None` for
    /// the acceptor's end of stream).
    reverse: BTreeMap<u64, (usize, Option<Bytes>)>,
    opener_live: Live,
    acceptor_live: Live,
    next_token: u64,
    stats: GtcpStats,
    out: BytesMut,
    scratch: Vec<u8>,
    /// Flows whose source index had no endpoint (skipped).
    pub skipped: u64,
    /// Connections a core reported dead ([`Event::ConnDead`]: nothing received for
    /// `dead_peer`), with the simulated time and whether it was the origin's core. The
    /// simulated paths fail only when a scenario silences one
    /// ([`SchedtcpOptions::silent_from`]), so the connection is left as it is.
    pub dead_conns: Vec<(usize, Time, bool)>,
    /// When the cores' timers are next due ([`Session::poll_timeout`]), if a wake-up is set.
    timer_at: Option<Time>,
}

/// Timer token of the cores' clocks (keepalives, dead peers).
const CORE_TIMER_TOKEN: u64 = ARRIVAL_TOKEN - 1;

impl<S: FlowSource> SchedtcpDriver<S> {
    /// Flows from `source` (source `i` runs from `endpoints[i].0` to `endpoints[i].1`, its
    /// destination's frames take `reverse_delay[i]` back). Fails if the core refuses the
    /// configuration.
    pub fn new(
        source: S,
        endpoints: Vec<(NodeId, NodeId)>,
        reverse_delay: Vec<Time>,
        opts: SchedtcpOptions,
    ) -> Result<Self, gtcp::ConfigError> {
        Ok(SchedtcpDriver {
            arrivals: Arrivals::new(source),
            endpoints,
            reverse_delay,
            opener: Session::new(Role::Opener, opts.config)?,
            acceptor: Session::new(Role::Acceptor, opts.config)?,
            opts,
            records: Vec::new(),
            flows: Vec::new(),
            conns: Vec::new(),
            by_gflow: Vec::new(),
            reverse: BTreeMap::new(),
            opener_live: Live::default(),
            acceptor_live: Live::default(),
            next_token: 0,
            stats: GtcpStats::default(),
            out: BytesMut::new(),
            scratch: Vec::new(),
            skipped: 0,
            dead_conns: Vec::new(),
            timer_at: None,
        })
    }

    /// The origin's session (counters, for tests).
    pub fn opener(&self) -> &Session {
        &self.opener
    }

    /// The destination's session.
    pub fn acceptor(&self) -> &Session {
        &self.acceptor
    }

    fn flow_of(&self, g: FlowId) -> Option<usize> {
        let k = g.0.checked_sub(1)? as usize;
        self.by_gflow.get(k).map(|&i| i as usize)
    }

    /// Plain flows: write the whole flow as a count, as the `tcp` driver does.
    fn fill_plain(&mut self, w: &mut World, idx: usize) {
        let conn = self.conns[idx].sim;
        let size = self.flows[idx].size;
        let written = w.sender(conn).map_or(size, |s| s.written());
        if written < size {
            w.write(conn, size - written);
        }
    }

    /// The origin application hands bytes over while the core takes them.
    fn app_write(&mut self, idx: usize) {
        let Some(g) = self.flows[idx].gflow else {
            return;
        };
        loop {
            let f = &self.flows[idx];
            if f.written >= f.size {
                if !f.finished_writing {
                    self.flows[idx].finished_writing = true;
                    if self.opener.finish(g).is_err() {
                        self.stats.api_errors += 1;
                    }
                }
                return;
            }
            let cap = match self.opener.send_capacity(g) {
                Ok(c) => c,
                Err(_) => {
                    self.stats.api_errors += 1;
                    return;
                }
            };
            let n = cap.min(APP_IO).min((f.size - f.written) as usize);
            if n == 0 {
                return;
            }
            self.scratch.clear();
            pattern::fill(idx as u64, f.written, n, &mut self.scratch);
            match self.opener.write(g, &self.scratch) {
                Ok(0) => return,
                Ok(took) => self.flows[idx].written += took as u64,
                Err(_) => {
                    self.stats.api_errors += 1;
                    return;
                }
            }
        }
    }

    /// Algorithm 4: while connection `c` is writable and the core has frames for it, write
    /// them into its byte stream.
    fn try_send(&mut self, w: &mut World, c: usize) {
        let sim = self.conns[c].sim;
        if !w.is_open(sim) {
            self.conns[c].want = false;
            return;
        }
        let now = dur(w.now());
        while self.conns[c].want {
            if w.notsent(sim) >= self.opts.notsent_lowat {
                return;
            }
            let space = w.send_buffer_space(sim);
            if space == 0 {
                return;
            }
            let max = (self.opts.poll_max as u64).min(space) as usize;
            self.out.clear();
            let n = self
                .opener
                .poll_transmit(now, GConn(c as u64), &mut self.out, max);
            if n == 0 {
                // Drained, or the next frame did not fit in `space`: then the connection stays
                // ready and goes on at the next send-ready (driver contract, step 2).
                self.conns[c].want = self.opener.conn_ready(GConn(c as u64));
                return;
            }
            self.stats.decisions += 1;
            let took = w.write(sim, n as u64);
            if took != n as u64 {
                self.stats.api_errors += 1;
            }
            self.conns[c].stream.extend_from_slice(&self.out[..n]);
        }
    }

    /// The destination's frames for connection `c`, sent back.
    fn send_reverse(&mut self, w: &mut World, c: usize) {
        let now = dur(w.now());
        loop {
            self.out.clear();
            let n = self
                .acceptor
                .poll_transmit(now, GConn(c as u64), &mut self.out, 1 << 20);
            if n == 0 {
                return;
            }
            self.stats.reverse_bytes += n as u64;
            let bytes = Bytes::copy_from_slice(&self.out[..n]);
            self.send_back(w, c, Some(bytes));
        }
    }

    /// Puts `bytes` (or the end of stream) on connection `c`'s reverse channel.
    fn send_back(&mut self, w: &mut World, c: usize, bytes: Option<Bytes>) {
        if self.opts.silent_from.is_some_and(|t| w.now() >= t) {
            return;
        }
        let source = self.records[c].source as usize;
        let delay = self.reverse_delay.get(source).copied().unwrap_or(0);
        let token = self.next_token;
        self.next_token += 1;
        self.reverse.insert(token, (c, bytes));
        w.schedule(w.now() + delay, token);
    }

    /// The destination application reads flow `idx`.
    fn dest_read(&mut self, w: &World, idx: usize) {
        let Some(g) = self.flows[idx].gflow else {
            return;
        };
        if self.records[idx].delivered.is_some() {
            // The application saw the end and closed its side.
            return;
        }
        let now = w.now();
        loop {
            match self.acceptor.read(dur(now), g, APP_IO) {
                Ok(ReadOutcome::Data(b)) => {
                    let f = &mut self.flows[idx];
                    if self.opts.verify_payload {
                        self.stats.payload_mismatches += pattern::check(idx as u64, f.read, &b);
                    }
                    f.read += b.len() as u64;
                }
                Ok(ReadOutcome::End) => {
                    let r = &mut self.records[idx];
                    if r.delivered.is_none() {
                        if self.flows[idx].read != r.size {
                            self.stats.payload_mismatches += 1;
                        }
                        r.delivered = Some(now);
                    }
                    return;
                }
                Ok(ReadOutcome::Blocked) => return,
                Ok(ReadOutcome::Reset(_)) | Err(_) => {
                    self.stats.api_errors += 1;
                    return;
                }
            }
        }
    }

    /// The origin application reads the destination's (empty) direction to its end.
    fn origin_read(&mut self, w: &World, g: FlowId) {
        loop {
            match self.opener.read(dur(w.now()), g, APP_IO) {
                Ok(ReadOutcome::Data(_)) => self.stats.api_errors += 1,
                Ok(ReadOutcome::Blocked) | Ok(ReadOutcome::End) => return,
                Ok(ReadOutcome::Reset(_)) | Err(_) => {
                    self.stats.api_errors += 1;
                    return;
                }
            }
        }
    }

    /// Each side closes once it said `ConnDone` and read the peer's end of stream; the
    /// simulated connection goes when both have.
    fn maybe_close(&mut self, w: &mut World, c: usize) {
        let now = dur(w.now());
        let k = &self.conns[c];
        if k.opener_done && k.opener_eof && !k.opener_closed {
            self.check_invariant(c);
            self.opener.connection_closed(now, GConn(c as u64));
            self.opener_live.conns.remove(&c);
            self.conns[c].opener_closed = true;
        }
        let k = &self.conns[c];
        if k.acceptor_done && k.opener_done && k.stream.is_empty() && !k.acceptor_closed {
            self.acceptor.connection_closed(now, GConn(c as u64));
            self.acceptor_live.conns.remove(&c);
            self.conns[c].acceptor_closed = true;
        }
        let k = &mut self.conns[c];
        if k.opener_closed && k.acceptor_closed && !k.closed {
            k.closed = true;
            w.close(k.sim);
            k.input = BytesMut::new();
            k.rev_input = BytesMut::new();
            k.stream = BytesMut::new();
        }
    }

    /// Acts on everything both sessions asked for, until neither has anything left.
    fn pump(&mut self, w: &mut World) {
        loop {
            let mut any = false;
            while let Some(ev) = self.opener.poll_event() {
                any = true;
                self.on_opener_event(w, ev);
            }
            while let Some(ev) = self.acceptor.poll_event() {
                any = true;
                self.on_acceptor_event(w, ev);
            }
            if !any {
                break;
            }
        }
        self.arm_timer(w);
    }

    /// Sets the wake-up of the cores' clocks when none is set. A deadline only moves later
    /// once set, but for a new connection's, whose clocks start where the driver adds it
    /// ([`Session::handle_timeout`] there), so one wake-up at a time suffices: it may come
    /// early, then the next is set from there.
    fn arm_timer(&mut self, w: &mut World) {
        if self.timer_at.is_some() {
            return;
        }
        let next = [self.opener.poll_timeout(), self.acceptor.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        if let Some(d) = next {
            let at = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(w.now());
            self.timer_at = Some(at);
            w.schedule(at, CORE_TIMER_TOKEN);
        }
    }

    fn on_opener_event(&mut self, w: &mut World, ev: Event) {
        match ev {
            Event::ConnReady(c) => {
                if let Some(k) = self.conns.get_mut(c.0 as usize) {
                    k.want = true;
                    self.try_send(w, c.0 as usize);
                }
            }
            Event::ConnDone(c) => {
                // Half-close: nothing more is written; reading goes on until the end.
                let ci = c.0 as usize;
                if let Some(k) = self.conns.get_mut(ci) {
                    k.opener_done = true;
                    k.want = false;
                    self.maybe_close(w, ci);
                }
            }
            Event::FlowWritable(g) => {
                if let Some(idx) = self.flow_of(g) {
                    self.app_write(idx);
                }
            }
            Event::FlowReadable(g) => self.origin_read(w, g),
            Event::FlowClosed(s) => {
                if let Some(idx) = self.flow_of(s.flow) {
                    self.records[idx].finished = Some(w.now());
                }
            }
            Event::ConnDead(c) => self.dead_conns.push((c.0 as usize, w.now(), true)),
            Event::FlowOpened { .. } | Event::ConnNeeded { .. } => self.stats.api_errors += 1,
        }
    }

    fn on_acceptor_event(&mut self, w: &mut World, ev: Event) {
        match ev {
            Event::FlowOpened { flow, .. } => {
                // The destination application sends nothing back.
                if self.acceptor.finish(flow).is_err() {
                    self.stats.api_errors += 1;
                }
                if let Some(idx) = self.flow_of(flow) {
                    self.dest_read(w, idx);
                }
            }
            Event::FlowReadable(g) => {
                if let Some(idx) = self.flow_of(g) {
                    self.dest_read(w, idx);
                }
            }
            Event::ConnReady(c) => self.send_reverse(w, c.0 as usize),
            Event::ConnDone(c) => {
                // Half-close: the acceptor's end of stream follows its last frames back.
                let ci = c.0 as usize;
                if let Some(k) = self.conns.get_mut(ci) {
                    if !k.acceptor_done {
                        k.acceptor_done = true;
                        self.send_back(w, ci, None);
                    }
                    self.maybe_close(w, ci);
                }
            }
            Event::FlowClosed(_) | Event::FlowWritable(_) => {}
            Event::ConnDead(c) => self.dead_conns.push((c.0 as usize, w.now(), false)),
            Event::ConnNeeded { .. } => self.stats.api_errors += 1,
        }
    }

    /// The invariant of the product on connection `c`, as it closes: it carried exactly its
    /// own flow's bytes of payload and owes nothing.
    fn check_invariant(&mut self, c: usize) {
        let Some(k) = self.opener.connection_counters(GConn(c as u64)) else {
            return;
        };
        self.stats.invariant_checked += 1;
        let size = self.flows.get(c).map_or(u64::MAX, |f| f.size);
        // The core's invariant (one function for every driver), and more: in the simulator no
        // connection dies, so nothing is adopted and the owner bytes are the flow's size.
        let ok = k.check_closed().is_ok()
            && k.adopted_bytes == 0
            && k.owner_bytes == size
            && k.payload_bytes == k.owner_bytes;
        if !ok {
            self.stats.invariant_violations += 1;
        }
    }

    /// The destination's path back dies at `at` ([`SchedtcpOptions::silent_from`]).
    pub fn silence_from(&mut self, at: Time) {
        self.opts.silent_from = Some(at);
    }

    fn register_conn(&mut self, now: Time, idx: usize) {
        let Some(g) = self.flows[idx].gflow else {
            return;
        };
        if self
            .opener
            .add_connection(GConn(idx as u64), Some(g))
            .is_err()
        {
            self.stats.api_errors += 1;
            return;
        }
        self.opener_live.conns.insert(idx);
        // Its clocks start now.
        self.opener.handle_timeout(dur(now));
        feed_late(
            &mut self.opener,
            &mut self.opener_live,
            now,
            &mut self.stats,
            None,
        );
    }
}

fn dur(t: Time) -> std::time::Duration {
    std::time::Duration::from_nanos(t)
}

/// Frames that arrived on a connection `session` has already closed (see the module docs):
/// decodes the whole frames of `input` (if any) and hands them, and any still waiting, to
/// the session through one of its live connections; without one they wait.
fn feed_late(
    session: &mut Session,
    live: &mut Live,
    now: Time,
    stats: &mut GtcpStats,
    input: Option<&mut BytesMut>,
) {
    if let Some(buf) = input {
        let dec = FrameDecoder::new(gtcp::wire::MAX_PAYLOAD_CAP);
        loop {
            match dec.decode(buf) {
                Ok(Some(f)) => {
                    stats.late_frames += 1;
                    live.waiting.push_back(f);
                }
                Ok(None) => break,
                Err(_) => {
                    stats.protocol_errors += 1;
                    buf.clear();
                    break;
                }
            }
        }
    }
    let Some(&via) = live.conns.first() else {
        return;
    };
    while let Some(f) = live.waiting.pop_front() {
        if session
            .handle_frame(dur(now), GConn(via as u64), f)
            .is_err()
        {
            stats.protocol_errors += 1;
        }
    }
}

impl<S: FlowSource> Driver for SchedtcpDriver<S> {
    fn on_start(&mut self, w: &mut World) {
        self.arrivals.start(w);
    }

    fn on_timer(&mut self, w: &mut World, token: u64) {
        if token == CORE_TIMER_TOKEN {
            self.timer_at = None;
            let now = dur(w.now());
            self.opener.handle_timeout(now);
            self.acceptor.handle_timeout(now);
            self.pump(w);
            return;
        }
        if token != ARRIVAL_TOKEN {
            // Reverse-direction frames reach the origin.
            let Some((c, bytes)) = self.reverse.remove(&token) else {
                return;
            };
            let Some(bytes) = bytes else {
                // The acceptor's end of stream.
                self.conns[c].opener_eof = true;
                self.maybe_close(w, c);
                self.pump(w);
                return;
            };
            let k = &mut self.conns[c];
            k.rev_input.extend_from_slice(&bytes);
            let mut buf = std::mem::take(&mut k.rev_input);
            if self.opener_live.conns.contains(&c) {
                if self
                    .opener
                    .handle_input(dur(w.now()), GConn(c as u64), &mut buf)
                    .is_err()
                {
                    self.stats.protocol_errors += 1;
                }
            } else {
                feed_late(
                    &mut self.opener,
                    &mut self.opener_live,
                    w.now(),
                    &mut self.stats,
                    Some(&mut buf),
                );
            }
            self.conns[c].rev_input = buf;
            self.pump(w);
            return;
        }
        let Some((_, f)) = self.arrivals.on_timer(w, token) else {
            return;
        };
        let Some(&(src, dst)) = self.endpoints.get(f.source as usize) else {
            self.skipped += 1;
            return;
        };
        let idx = self.records.len();
        let plain = self.opts.plain_sources.contains(&f.source);
        let gflow = if plain {
            None
        } else {
            let hint = self.opts.size_hint.then_some(f.size);
            match self.opener.open_flow(dur(w.now()), None, "sim", 0, hint) {
                Ok(g) => {
                    let k = (g.0 as usize).saturating_sub(1);
                    if self.by_gflow.len() <= k {
                        self.by_gflow.resize(k + 1, u64::MAX);
                    }
                    self.by_gflow[k] = idx as u64;
                    Some(g)
                }
                Err(_) => {
                    self.stats.api_errors += 1;
                    None
                }
            }
        };
        let sim = w.open(src, dst, idx as u64);
        self.records.push(FlowRecord {
            id: idx as u64,
            source: f.source,
            size: f.size,
            arrival: f.arrival,
            conn: sim.serial,
            finished: None,
            delivered: None,
        });
        self.flows.push(SFlow {
            size: f.size,
            plain: gflow.is_none(),
            gflow,
            written: 0,
            finished_writing: false,
            read: 0,
        });
        self.conns.push(SConn {
            sim,
            want: false,
            stream: BytesMut::new(),
            input: BytesMut::new(),
            rev_input: BytesMut::new(),
            acceptor_added: false,
            opener_done: false,
            acceptor_done: false,
            opener_eof: false,
            opener_closed: false,
            acceptor_closed: false,
            closed: false,
        });
        if gflow.is_none() {
            self.fill_plain(w, idx);
            return;
        }
        if !w.tcp_params().handshake {
            self.register_conn(w.now(), idx);
        }
        self.app_write(idx);
        self.pump(w);
    }

    #[inline]
    fn on_segment_sent(&mut self, w: &World, conn: ConnId, _seg: &Segment) -> PayloadTag {
        // The payload was bound when it was written; the tag only names the flow.
        w.user(conn).unwrap_or(u64::MAX)
    }

    fn on_established(&mut self, w: &mut World, conn: ConnId) {
        let Some(idx) = w.user(conn) else { return };
        if !self.flows[idx as usize].plain {
            self.register_conn(w.now(), idx as usize);
            self.pump(w);
        }
    }

    fn on_send_ready(&mut self, w: &mut World, conn: ConnId) {
        let Some(idx) = w.user(conn) else { return };
        let idx = idx as usize;
        if self.flows[idx].plain {
            self.fill_plain(w, idx);
        } else if self.conns[idx].want {
            self.try_send(w, idx);
            self.pump(w);
        }
    }

    fn on_acked(&mut self, w: &mut World, conn: ConnId, snd_una: u64, _newly: u64) {
        let Some(idx) = w.user(conn) else { return };
        let idx = idx as usize;
        if self.flows[idx].plain && snd_una >= self.flows[idx].size {
            self.records[idx].finished = Some(w.now());
            w.close(conn);
        }
    }

    fn on_delivered(&mut self, w: &mut World, conn: ConnId, from: u64, to: u64) {
        let Some(idx) = w.user(conn) else { return };
        let idx = idx as usize;
        let now = w.now();
        if self.flows[idx].plain {
            let f = &mut self.flows[idx];
            f.read = to.min(f.size);
            if to >= f.size && self.records[idx].delivered.is_none() {
                self.records[idx].delivered = Some(now);
            }
            return;
        }
        let n = (to - from) as usize;
        let k = &mut self.conns[idx];
        if n > k.stream.len() {
            self.stats.api_errors += 1;
            return;
        }
        let bytes = k.stream.split_to(n);
        if k.input.is_empty() {
            k.input = bytes;
        } else {
            k.input.extend_from_slice(&bytes);
        }
        if !k.acceptor_added {
            k.acceptor_added = true;
            let g = self.flows[idx].gflow;
            if self.acceptor.add_connection(GConn(idx as u64), g).is_err() {
                self.stats.api_errors += 1;
            } else {
                self.acceptor_live.conns.insert(idx);
                self.acceptor.handle_timeout(dur(now));
                feed_late(
                    &mut self.acceptor,
                    &mut self.acceptor_live,
                    now,
                    &mut self.stats,
                    None,
                );
            }
        }
        let mut buf = std::mem::take(&mut self.conns[idx].input);
        if self.acceptor_live.conns.contains(&idx) {
            if self
                .acceptor
                .handle_input(dur(now), GConn(idx as u64), &mut buf)
                .is_err()
            {
                self.stats.protocol_errors += 1;
            }
        } else {
            feed_late(
                &mut self.acceptor,
                &mut self.acceptor_live,
                now,
                &mut self.stats,
                Some(&mut buf),
            );
        }
        self.conns[idx].input = buf;
        self.pump(w);
        self.maybe_close(w, idx);
    }
}

impl<S: FlowSource> FlowDriver for SchedtcpDriver<S> {
    fn flow_records(&self) -> &[FlowRecord] {
        &self.records
    }

    fn take_flow_records(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.records)
    }

    fn delivered_bytes(&self, flow: u64) -> u64 {
        self.flows.get(flow as usize).map_or(0, |f| f.read)
    }

    fn gtcp_stats(&self) -> Option<GtcpStats> {
        let mut s = self.stats;
        let o = self.opener.counters();
        s.payload_bytes = o.payload_sent;
        s.header_bytes = o.header_sent;
        Some(s)
    }
}
