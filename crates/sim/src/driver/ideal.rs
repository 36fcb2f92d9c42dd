//! `gtcp-ideal`: paper 000's Algorithms 1–3 with zero buffer.
//!
//! Connections are opened, written and closed exactly as the [`TcpDriver`](super::TcpDriver)
//! does: connection *i* opens when flow *i* arrives and `size_i` bytes are written into it at
//! once. Those bytes are only a *count* — the virtual queue q_i^v of Algorithm 1 (`on_wri`:
//! q_i^v ← q_i^v + l). Whose payload a segment carries is decided when the segment leaves:
//!
//! * **Algorithm 2, `serve(i, s)`** = [`Driver::on_segment_sent`]: the gtcp core's policy
//!   ([`gtcp::policy::Policy::key`] over [`FlowState`], ordered by [`SchedQueue`], the very
//!   types the shipped core uses) names the flow *j* whose unmarked bytes go next; the
//!   segment `(i, s)` is associated with `(j, s')` and the bytes are marked. A segment may
//!   carry pieces of several flows (Remark 1: sizes are not multiples of the MSS), so the
//!   association is a list of extents `(seq, len, flow, offset)`; the packet's tag names the transmission.
//! * **Algorithm 3, third duplicate ACK / RTO** = a retransmission (`seg.retx`): the service
//!   is pre-empted. The bytes of the segment that were lost are unmarked and `schedule()` is
//!   called again, so a retransmission may carry other data than the original. Bytes that
//!   were *not* lost keep their association — those the receiver already holds (out of
//!   order, after a go-back-N) and those still in flight (a spurious timeout): the receiving
//!   TCP keeps the first copy of a sequence range, so re-binding them would deliver their
//!   payload twice and leave other payload without a slot. The driver knows which is which
//!   because the world logs dropped packets ([`World::record_drops`]); a real gtcp would
//!   learn it from SACK blocks and the associations echoed in ACKs.
//! * **Algorithm 3, cumulative ACK** = [`Driver::on_acked`]: the ACK carries the association
//!   the receiver actually got (`ack_{i,j}^{s,s'}`); that payload is freed
//!   (`free_tx_buf`), every other association of the acknowledged services is unmarked and
//!   goes back to the schedule. When `snd_una` reaches `size_i` the virtual queue of *i* is
//!   empty and the connection closes, exactly when `tcp` closes it.
//!
//! Nothing here changes how many bytes any connection writes or when it may send, so for
//! the same sample path every connection injects exactly the bytes `tcp` injects at exactly
//! the same times (Proposition 1). The scheduling header is modelled in the tag only, so the
//! segments are as long as `tcp`'s.
//!
//! Policies see, for each flow: `sent` = bytes currently marked or freed (attained service;
//! pre-empted bytes count again as unsent), `known_end` = the size (unless
//! [`IdealDriver::size_unaware`]), `virtual_sent` = bytes the flow's own connection has sent
//! (what `tcp` would have sent of it, for FAIR), `turn` = round-robin ticket (for PS+PS,
//! one ticket per piece). Under the `tcp` policy every connection carries its own flow, which
//! reproduces the `tcp` driver's flows exactly.
//!
//! The destination places every piece by its flow offset as soon as the receiving TCP holds
//! it, in or out of the connection's order (the core reassembles flows from chunks tagged
//! with `(flow, offset)`); a flow is delivered when it has all its bytes. Only the freeing
//! of Algorithm 3 follows the connection's cumulative order.
//!
//! Flows from the sources in `plain_sources` are not scheduled: their connection carries
//! only their own bytes (a plain TCP flow sharing the path, as paper 000's Figure 6 sample).

use std::collections::{BTreeMap, VecDeque};

use gtcp::policy::{FlowState, Policy, SchedQueue, SortKey};
use gtcp::FlowId;

use super::ranges::RangeSet;
use super::{Arrivals, Driver, FlowDriver, FlowRecord, GtcpStats};
use crate::packet::{ConnId, NodeId, Packet, PayloadTag};
use crate::tcp::Segment;
use crate::workload::FlowSource;
use crate::world::World;

/// Flow index of padding: segment bytes that found nothing to carry.
const PAD: u64 = u64::MAX;

/// A contiguous piece of one flow carried by a contiguous range of a connection's sequence
/// space: bytes `[seq, seq + len)` of the connection carry bytes `[off, off + len)` of flow
/// `flow` (the association `(i, s) ↔ (j, s')` of Algorithm 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Extent {
    seq: u64,
    len: u64,
    flow: u64,
    off: u64,
}

impl Extent {
    fn end(&self) -> u64 {
        self.seq + self.len
    }

    /// The part of the extent inside `[a, b)` (which must overlap it).
    fn clip(&self, a: u64, b: u64) -> Extent {
        let s = self.seq.max(a);
        let e = self.end().min(b);
        Extent {
            seq: s,
            len: e - s,
            flow: self.flow,
            off: if self.flow == PAD {
                0
            } else {
                self.off + (s - self.seq)
            },
        }
    }
}

struct FlowSt {
    size: u64,
    plain: bool,
    /// First byte never bound to a segment.
    next_new: u64,
    /// Bytes below `next_new` whose binding was undone (pre-empted, or not what the receiver
    /// got): unmarked, waiting to be scheduled again.
    pool: RangeSet,
    /// Bytes freed at the sender: acknowledged as received (Algorithm 3, `free_tx_buf`).
    acked: RangeSet,
    /// Bytes the destination application has received.
    got: RangeSet,
    /// Bytes the flow's own connection has sent (FAIR's virtual service).
    virtual_sent: u64,
    turn: u64,
    key: Option<SortKey>,
}

impl FlowSt {
    fn unbound(&self) -> u64 {
        (self.size - self.next_new) + self.pool.total()
    }
}

#[derive(Default)]
struct ConnSt {
    /// Sender: the current association of every byte in `[snd_una, snd_max)`, by sequence.
    bound: VecDeque<Extent>,
    /// Sender: what each transmission carried, `(tag, extent)` in tag order (for the receiver;
    /// entries wholly below `snd_una` are dropped).
    tx: VecDeque<(u64, Extent)>,
    /// Receiver: what it accepted and has not yet delivered to the application, by sequence.
    accepted: BTreeMap<u64, Extent>,
    /// Receiver: next byte expected (mirror of the simulated receiver's `rcv_nxt`).
    rcv_nxt: u64,
    /// Receiver: what was delivered, waiting for the sender's cumulative ACK.
    delivered: VecDeque<Extent>,
    /// Sender: `snd_una` last seen.
    una: u64,
}

/// Algorithms 1–3 of paper 000 with zero buffer (see the [module docs](self)).
pub struct IdealDriver<S> {
    arrivals: Arrivals<S>,
    endpoints: Vec<(NodeId, NodeId)>,
    policy: Policy,
    plain_sources: Vec<u32>,
    size_aware: bool,
    records: Vec<FlowRecord>,
    flows: Vec<FlowSt>,
    conns: Vec<ConnSt>,
    sched: SchedQueue,
    turn: u64,
    next_tag: u64,
    stats: GtcpStats,
    scratch: Vec<Extent>,
    /// Per transmission (tag): still in the network (neither arrived nor dropped).
    live: Vec<bool>,
    /// How much of the world's drop log has been read.
    drop_cursor: usize,
    /// Flows whose source index had no endpoint (skipped).
    pub skipped: u64,
    /// See [`IdealDriver::fair_oracle`].
    tcp_finish: Option<Vec<u64>>,
}

impl<S: FlowSource> IdealDriver<S> {
    /// Flows from `source` (source index `i` runs from `endpoints[i].0` to
    /// `endpoints[i].1`), scheduled by `policy`; flows of `plain_sources` are plain TCP.
    pub fn new(
        source: S,
        endpoints: Vec<(NodeId, NodeId)>,
        policy: Policy,
        plain_sources: Vec<u32>,
    ) -> Self {
        IdealDriver {
            arrivals: Arrivals::new(source),
            endpoints,
            policy,
            plain_sources,
            size_aware: true,
            records: Vec::new(),
            flows: Vec::new(),
            conns: Vec::new(),
            sched: SchedQueue::default(),
            turn: 0,
            next_tag: 0,
            stats: GtcpStats::default(),
            scratch: Vec::new(),
            live: Vec::new(),
            drop_cursor: 0,
            skipped: 0,
            tcp_finish: None,
        }
    }

    /// A diagnostic, not a policy anyone can run: FAIR exactly as the proof of Proposition 2
    /// (paper 000, Appendix A) uses it, serving the flow that plain TCP *finishes* first, read
    /// from the `tcp` run of the same sample path (`finish_ns[j]`: the instant flow `j`, in
    /// arrival order, completed there; `u64::MAX` if it did not) instead of predicted as the
    /// least virtual remaining `size − virtual_sent`, which is that flow only when every
    /// connection sends at the same rate. Set with the `fair` policy; other policies ignore it.
    pub fn fair_oracle(mut self, finish_ns: Vec<u64>) -> Self {
        self.tcp_finish = Some(finish_ns);
        self
    }

    /// Hides flow sizes from the policy (`known_end = None`).
    pub fn size_unaware(mut self) -> Self {
        self.size_aware = false;
        self
    }

    /// Counters (pre-emptions, duplicates, padding...).
    pub fn stats(&self) -> GtcpStats {
        self.stats
    }

    fn fill(&mut self, w: &mut World, conn: ConnId, flow: usize) {
        let size = self.records[flow].size;
        let written = w.sender(conn).map_or(size, |s| s.written());
        if written < size {
            w.write(conn, size - written);
        }
    }

    /// Puts flow `j` in the schedule under its current key, or takes it out.
    fn refresh(&mut self, j: u64) {
        let f = &mut self.flows[j as usize];
        let ready = !f.plain && f.unbound() > 0;
        let oracle = self
            .tcp_finish
            .as_ref()
            .filter(|_| self.policy.uses_virtual());
        let key = ready.then(|| {
            // The oracle's key: tcp's finish instant as the "remaining" FAIR orders by.
            let (known_end, virtual_sent) = match oracle {
                Some(fin) => (Some(fin.get(j as usize).copied().unwrap_or(u64::MAX)), 0),
                None => (self.size_aware.then_some(f.size), f.virtual_sent),
            };
            self.policy.key(&FlowState {
                arrival: j + 1,
                class: 0,
                sent: f.size - f.unbound(),
                known_end,
                virtual_sent,
                turn: f.turn,
            })
        });
        if key == f.key {
            return;
        }
        if let Some(old) = f.key.take() {
            self.sched.remove(old, FlowId(j));
        }
        if let Some(k) = key {
            self.sched.insert(k, FlowId(j));
            f.key = Some(k);
        }
    }

    /// Unmarks bytes `[off, off + len)` of flow `j`: what is not freed yet goes back to the
    /// schedule.
    fn unmark(&mut self, j: u64, off: u64, len: u64) {
        if j == PAD || self.flows[j as usize].plain {
            return;
        }
        let f = &mut self.flows[j as usize];
        let FlowSt { acked, pool, .. } = f;
        acked.gaps(off, off + len, |a, b| {
            pool.insert(a, b);
        });
        self.refresh(j);
    }

    /// Algorithm 2's `schedule()` for the sequence range `[a, b)` of a scheduled connection:
    /// the policy's first ready flow gives its lowest unmarked bytes, repeatedly. Returns
    /// the extents in sequence order.
    fn schedule(&mut self, a: u64, b: u64, out: &mut Vec<Extent>) {
        let mut at = a;
        while at < b {
            let Some(FlowId(j)) = self.sched.first() else {
                // Nothing unmarked anywhere (only after duplicates): padding.
                self.stats.padding_bytes += b - at;
                out.push(Extent {
                    seq: at,
                    len: b - at,
                    flow: PAD,
                    off: 0,
                });
                return;
            };
            let f = &mut self.flows[j as usize];
            let (s, e) = match f.pool.take_first(b - at) {
                Some(r) => r,
                None => {
                    let s = f.next_new;
                    let e = f.size.min(s + (b - at));
                    f.next_new = e;
                    (s, e)
                }
            };
            self.turn += 1;
            f.turn = self.turn;
            out.push(Extent {
                seq: at,
                len: e - s,
                flow: j,
                off: s,
            });
            self.stats.decisions += 1;
            self.stats.payload_bytes += e - s;
            at += e - s;
            self.refresh(j);
        }
    }

    /// Reads the world's drop log: those transmissions are no longer in flight.
    fn sync_drops(&mut self, w: &World) {
        let log = w.dropped_data();
        for &(_, tag) in &log[self.drop_cursor.min(log.len())..] {
            if let Some(l) = self.live.get_mut(tag as usize) {
                *l = false;
            }
        }
        self.drop_cursor = log.len();
    }

    /// The parts of `[a, b)` of connection `i` that are lost: neither held by the receiver
    /// nor carried by a transmission still in flight.
    fn lost(&self, i: usize, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut set = RangeSet::new();
        for (p, q) in self.unheld(i, a, b) {
            set.insert(p, q);
        }
        if set.is_empty() {
            return Vec::new();
        }
        for (tag, x) in &self.conns[i].tx {
            if x.seq < b && x.end() > a && self.live.get(*tag as usize).copied().unwrap_or(false) {
                set.remove(x.seq, x.end());
            }
        }
        let mut out = Vec::new();
        while let Some(r) = set.take_first(u64::MAX) {
            out.push(r);
        }
        out
    }

    /// Receiver side: the parts of `[a, b)` connection `i` does not hold.
    fn unheld(&self, i: usize, a: u64, b: u64) -> Vec<(u64, u64)> {
        let c = &self.conns[i];
        let mut out = Vec::new();
        let mut at = a.max(c.rcv_nxt);
        if let Some((_, x)) = c.accepted.range(..=at).next_back() {
            at = at.max(x.end());
        }
        if at >= b {
            return out;
        }
        for (&s, x) in c.accepted.range(at..b) {
            if s > at {
                out.push((at, s));
            }
            at = at.max(x.end());
        }
        if at < b {
            out.push((at, b));
        }
        out
    }
}

/// Removes the associations of `[a, b)` from `bound` (splitting at the edges) and appends
/// them, clipped, in order, to `out`.
fn take_bound(bound: &mut VecDeque<Extent>, a: u64, b: u64, out: &mut Vec<Extent>) {
    let mut idx = bound.partition_point(|x| x.end() <= a);
    while idx < bound.len() && bound[idx].seq < b {
        let x = bound[idx];
        out.push(x.clip(a, b));
        match (x.seq < a, x.end() > b) {
            (false, false) => {
                bound.remove(idx);
            }
            (true, false) => {
                bound[idx] = x.clip(x.seq, a);
                idx += 1;
            }
            (false, true) => {
                bound[idx] = x.clip(b, x.end());
                break;
            }
            (true, true) => {
                bound[idx] = x.clip(x.seq, a);
                bound.insert(idx + 1, x.clip(b, x.end()));
                break;
            }
        }
    }
}

/// Inserts extents (sorted, disjoint from what `bound` holds) at their place.
fn put_bound(bound: &mut VecDeque<Extent>, xs: &[Extent]) {
    for x in xs {
        if bound.back().is_none_or(|l| l.end() <= x.seq) {
            bound.push_back(*x);
        } else {
            let idx = bound.partition_point(|y| y.seq < x.seq);
            bound.insert(idx, *x);
        }
    }
}

impl<S: FlowSource> IdealDriver<S> {
    /// The destination application has the bytes of `x` (a piece of one flow) at `now`.
    fn credit(&mut self, x: Extent, now: crate::time::Time) {
        let f = &mut self.flows[x.flow as usize];
        let new = f.got.insert(x.off, x.off + x.len);
        self.stats.duplicate_bytes += x.len - new;
        if new > 0 && f.got.covers_prefix(f.size) {
            let r = &mut self.records[x.flow as usize];
            if r.delivered.is_none() {
                r.delivered = Some(now);
            }
        }
    }
}

impl<S: FlowSource> Driver for IdealDriver<S> {
    fn on_start(&mut self, w: &mut World) {
        w.record_drops(true);
        self.arrivals.start(w);
    }

    /// Algorithm 1, `on_wri(i, l)`: open connection *i* and write `l` bytes into it — a count,
    /// the virtual queue q_i^v.
    fn on_timer(&mut self, w: &mut World, token: u64) {
        let Some((_, f)) = self.arrivals.on_timer(w, token) else {
            return;
        };
        let Some(&(src, dst)) = self.endpoints.get(f.source as usize) else {
            self.skipped += 1;
            return;
        };
        let id = self.records.len() as u64;
        let conn = w.open(src, dst, id);
        let plain = self.policy.is_tcp() || self.plain_sources.contains(&f.source);
        self.records.push(FlowRecord {
            id,
            source: f.source,
            size: f.size,
            arrival: f.arrival,
            conn: conn.serial,
            finished: None,
            delivered: None,
        });
        self.flows.push(FlowSt {
            size: f.size,
            plain,
            next_new: 0,
            pool: RangeSet::new(),
            acked: RangeSet::new(),
            got: RangeSet::new(),
            virtual_sent: 0,
            turn: 0,
            key: None,
        });
        self.conns.push(ConnSt::default());
        self.refresh(id);
        self.fill(w, conn, id as usize);
    }

    /// Algorithm 2, `serve(i, s)` (and Algorithm 3's pre-emption for a retransmission).
    fn on_segment_sent(&mut self, w: &World, conn: ConnId, seg: &Segment) -> PayloadTag {
        let Some(i) = w.user(conn) else {
            return PayloadTag::MAX;
        };
        let iu = i as usize;
        let (a, b) = (seg.seq, seg.seq + seg.len as u64);
        let tag = self.next_tag;
        self.next_tag += 1;
        self.live.push(true);
        if self.flows[iu].plain {
            // Plain TCP: segment (i, s) carries (i, s).
            let c = &mut self.conns[iu];
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            take_bound(&mut c.bound, a, b, &mut scratch);
            self.scratch = scratch;
            let x = Extent {
                seq: a,
                len: b - a,
                flow: i,
                off: a,
            };
            put_bound(&mut c.bound, &[x]);
            c.tx.push_back((tag, x));
            let f = &mut self.flows[iu];
            f.next_new = f.next_new.max(b);
            f.virtual_sent = f.virtual_sent.max(b);
            self.stats.payload_bytes += b - a;
            return tag;
        }
        // The parts to (re)bind: all of a new segment; what was lost of a retransmission.
        let parts = if seg.retx {
            self.sync_drops(w);
            self.lost(iu, a, b)
        } else {
            vec![(a, b)]
        };
        let mut old = std::mem::take(&mut self.scratch);
        old.clear();
        for &(pa, pb) in &parts {
            take_bound(&mut self.conns[iu].bound, pa, pb, &mut old);
        }
        for x in &old {
            if x.flow != PAD {
                self.stats.preempted_bytes += x.len;
            }
            self.unmark(x.flow, x.off, x.len);
        }
        let mut fresh = old;
        fresh.clear();
        for &(pa, pb) in &parts {
            self.schedule(pa, pb, &mut fresh);
        }
        let c = &mut self.conns[iu];
        put_bound(&mut c.bound, &fresh);
        self.scratch = fresh;
        // What this transmission carries: the current associations of [a, b).
        let lo = c.bound.partition_point(|x| x.end() <= a);
        for x in c.bound.iter().skip(lo) {
            if x.seq >= b {
                break;
            }
            c.tx.push_back((tag, x.clip(a, b)));
        }
        // The flow's own connection sent up to b: what tcp would have sent of it (FAIR).
        let f = &mut self.flows[iu];
        if b > f.virtual_sent {
            f.virtual_sent = b;
            if self.policy.uses_virtual() {
                self.refresh(i);
            }
        }
        tag
    }

    fn on_send_ready(&mut self, w: &mut World, conn: ConnId) {
        if let Some(flow) = w.user(conn) {
            self.fill(w, conn, flow as usize);
        }
    }

    /// Algorithm 3, cumulative ACK: free what the receiver got, unmark every other
    /// association of the acknowledged services, close the connection when its virtual
    /// queue is empty.
    fn on_acked(&mut self, w: &mut World, conn: ConnId, snd_una: u64, _newly: u64) {
        let Some(i) = w.user(conn) else { return };
        let iu = i as usize;
        let now = w.now();
        // What the receiver got for [una, snd_una): freed.
        let mut got = Vec::new();
        {
            let c = &mut self.conns[iu];
            c.una = snd_una;
            while let Some(x) = c.delivered.pop_front() {
                if x.end() <= snd_una {
                    got.push(x);
                } else {
                    if x.seq < snd_una {
                        got.push(x.clip(x.seq, snd_una));
                        c.delivered.push_front(x.clip(snd_una, x.end()));
                    } else {
                        c.delivered.push_front(x);
                    }
                    break;
                }
            }
        }
        for x in got {
            if x.flow == PAD {
                continue;
            }
            let f = &mut self.flows[x.flow as usize];
            if f.acked.insert(x.off, x.off + x.len) > 0 && f.acked.total() == f.size {
                self.records[x.flow as usize].finished = Some(now);
            }
        }
        // Every association of the acknowledged range that the receiver did not get.
        let first = self.conns[iu].bound.front().map_or(snd_una, |x| x.seq);
        let mut old = std::mem::take(&mut self.scratch);
        old.clear();
        take_bound(&mut self.conns[iu].bound, first, snd_una, &mut old);
        for x in &old {
            self.unmark(x.flow, x.off, x.len);
        }
        self.scratch = old;
        let c = &mut self.conns[iu];
        while c.tx.front().is_some_and(|(_, x)| x.end() <= snd_una) {
            c.tx.pop_front();
        }
        if snd_una >= self.records[iu].size {
            w.close(conn);
            let c = &mut self.conns[iu];
            *c = ConnSt::default();
        }
    }

    /// Receiver: which association of this transmission is new to the receiving TCP.
    fn on_segment_received(&mut self, w: &mut World, conn: ConnId, pkt: &Packet) {
        let Some(i) = w.user(conn) else { return };
        let iu = i as usize;
        if let Some(l) = self.live.get_mut(pkt.tag as usize) {
            *l = false;
        }
        let (a, b) = (pkt.seq, pkt.seq + pkt.len as u64);
        let parts = self.unheld(iu, a, b);
        if parts.is_empty() {
            return;
        }
        let c = &mut self.conns[iu];
        let lo = c.tx.partition_point(|(t, _)| *t < pkt.tag);
        let mut added = 0;
        let mut got = Vec::new();
        for (t, x) in c.tx.iter().skip(lo) {
            if *t != pkt.tag {
                break;
            }
            for &(pa, pb) in &parts {
                if x.seq < pb && x.end() > pa {
                    let y = x.clip(pa, pb);
                    added += y.len;
                    c.accepted.insert(y.seq, y);
                    got.push(y);
                }
            }
        }
        let want: u64 = parts.iter().map(|(p, q)| q - p).sum();
        if added != want {
            // The transmission's record is gone (cannot happen: records live until ACKed).
            self.stats.api_errors += 1;
        }
        // The destination places each piece by its flow offset as soon as the receiving TCP
        // holds it, whatever holes its connection still has (as the core reassembles flows
        // from (flow, offset)-tagged chunks): a flow spread over many connections does not
        // wait behind another flow's loss.
        // Plain flows (not scheduled) are read from their own socket, in its order
        // (`on_delivered`).
        let now = w.now();
        for y in got {
            if y.flow != PAD && !self.flows[y.flow as usize].plain {
                self.credit(y, now);
            }
        }
    }

    /// Receiver: in-order bytes leave the receiving TCP; what they carried waits for the
    /// sender's cumulative ACK (Algorithm 3). Scheduled flows already have their bytes
    /// (`on_segment_received`: delivery by flow offset); plain flows get them now, in their
    /// socket's order.
    fn on_delivered(&mut self, w: &mut World, conn: ConnId, from: u64, to: u64) {
        let Some(i) = w.user(conn) else { return };
        let now = w.now();
        let c = &mut self.conns[i as usize];
        if from != c.rcv_nxt {
            self.stats.api_errors += 1;
        }
        let mut plain = Vec::new();
        while let Some(entry) = c.accepted.first_entry() {
            if *entry.key() >= to {
                break;
            }
            let x = entry.remove();
            c.delivered.push_back(x);
            if x.flow != PAD && self.flows[x.flow as usize].plain {
                plain.push(x);
            }
        }
        c.rcv_nxt = to;
        for x in plain {
            self.credit(x, now);
        }
    }
}

impl<S: FlowSource> FlowDriver for IdealDriver<S> {
    fn flow_records(&self) -> &[FlowRecord] {
        &self.records
    }

    fn take_flow_records(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.records)
    }

    fn delivered_bytes(&self, flow: u64) -> u64 {
        self.flows.get(flow as usize).map_or(0, |f| f.got.total())
    }

    fn gtcp_stats(&self) -> Option<GtcpStats> {
        Some(self.stats)
    }
}
