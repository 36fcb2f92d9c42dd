//! The world: network, connections and the event loop glue.
//!
//! [`World`] owns everything but the driver: the event queue, the network, the packet pool
//! and the connection table. [`Sim`] pairs a world with a [`Driver`] and runs the loop.
//! After every event the world *flushes* the connections marked as having something to send
//! (the output of an ACK, a timeout, a driver write): it asks each connection's
//! [`crate::tcp::Sender`] for segments, asks the driver what they carry
//! ([`Driver::on_segment_sent`]), injects the packets, then lets the driver refill the send
//! buffer ([`Driver::on_send_ready`]). Deferring output to the flush is what lets driver
//! hooks call back into the world without re-entrancy.

mod conn;
mod net;

pub use conn::{ConnRecord, Injection};

mod driver;
use crate::engine::{Event, EventQueue};
use crate::packet::{ConnId, NodeId, Packet, PacketKind, PacketPool, PayloadTag};
use crate::tcp::{AckEvent, CongestionControl, Sender, TcpParams};
use crate::time::Time;
use crate::topology::Network;
use conn::Conn;
pub use driver::Driver;

/// Counters of the whole run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorldStats {
    /// Events processed.
    pub events: u64,
    /// Packets that reached a connection already closed.
    pub stale_packets: u64,
    /// Packets with no route to their destination.
    pub unroutable: u64,
    /// Connections opened.
    pub opened: u64,
    /// Largest number of simultaneously open connections.
    pub max_active: u32,
    /// ∫ active connections dt, in connection·nanoseconds.
    pub active_area: u128,
    /// Samples `(time, open connections)` if sampling is on.
    pub active_samples: Vec<(Time, u32)>,
}

/// Network, connections, packets and pending events.
pub struct World {
    now: Time,
    events: EventQueue,
    /// The network (links are public for counters).
    pub net: Network,
    pkts: PacketPool,
    conns: Vec<Conn>,
    free_slots: Vec<u32>,
    next_serial: u32,
    active: u32,
    last_active_change: Time,
    params: TcpParams,
    pending: Vec<ConnId>,
    drop_buf: Vec<crate::packet::PacketId>,
    sample_period: Option<Time>,
    injections: Option<Vec<Injection>>,
    drop_log: Option<Vec<(u32, PayloadTag)>>,
    conn_records: Vec<ConnRecord>,
    /// Run counters.
    pub stats: WorldStats,
}

impl World {
    /// A world over `net` whose connections all use `params`.
    pub fn new(net: Network, params: TcpParams) -> Self {
        World {
            now: 0,
            events: EventQueue::with_capacity(1 << 12),
            net,
            pkts: PacketPool::with_capacity(1 << 12),
            conns: Vec::new(),
            free_slots: Vec::new(),
            next_serial: 0,
            active: 0,
            last_active_change: 0,
            params,
            pending: Vec::with_capacity(64),
            drop_buf: Vec::with_capacity(8),
            sample_period: None,
            injections: None,
            drop_log: None,
            conn_records: Vec::new(),
            stats: WorldStats::default(),
        }
    }

    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// TCP parameters of the connections.
    pub fn tcp_params(&self) -> &TcpParams {
        &self.params
    }

    /// Records every data segment injected (for the Proposition-1 check); see
    /// [`World::injections`].
    pub fn record_injections(&mut self, on: bool) {
        self.injections = on.then(Vec::new);
    }

    /// Logs every data packet a queue drops, as `(connection serial, payload tag)`, for
    /// drivers that must know what was lost ([`World::dropped_data`]).
    pub fn record_drops(&mut self, on: bool) {
        self.drop_log = on.then(Vec::new);
    }

    /// Data packets dropped so far, in order, if [`World::record_drops`] is on (empty
    /// otherwise). A driver keeps its own cursor into it.
    pub fn dropped_data(&self) -> &[(u32, PayloadTag)] {
        self.drop_log.as_deref().unwrap_or(&[])
    }

    /// Samples the number of open connections every `period`, starting at `now + period`.
    pub fn sample_active_every(&mut self, period: Time) {
        if period > 0 && self.sample_period.is_none() {
            self.events.push(self.now + period, Event::Sample);
        }
        self.sample_period = (period > 0).then_some(period);
    }

    /// The injection log, if recording.
    pub fn injections(&self) -> Option<&[Injection]> {
        self.injections.as_deref()
    }

    /// Takes the injection log out.
    pub fn take_injections(&mut self) -> Option<Vec<Injection>> {
        self.injections.take()
    }

    /// Records of the connections closed so far, in closing order.
    pub fn conn_records(&self) -> &[ConnRecord] {
        &self.conn_records
    }

    /// Number of packets alive (in queues, on links); for leak checks.
    pub fn packets_alive(&self) -> usize {
        self.pkts.live()
    }

    /// Number of pending events.
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Schedules the driver timer `token` at `at` (not before now).
    pub fn schedule(&mut self, at: Time, token: u64) {
        self.events.push(at.max(self.now), Event::Driver { token });
    }

    // ----- connections -----

    /// Opens a connection from host `src` to host `dst`, tagged with the driver's `user`
    /// value. With the handshake on, the SYN leaves at the next flush.
    pub fn open(&mut self, src: NodeId, dst: NodeId, user: u64) -> ConnId {
        self.open_with(src, dst, user, self.params.cc, self.params.ledbat_target)
    }

    /// [`World::open`] with its own congestion control `cc` (and LEDBAT target delay, used
    /// only by [`CongestionControl::Ledbat`]): mixes of senders, as background transfers
    /// over LEDBAT or TCP-LP beside TCP flows. Every other parameter is the world's.
    pub fn open_with(
        &mut self,
        src: NodeId,
        dst: NodeId,
        user: u64,
        cc: CongestionControl,
        ledbat_target: Time,
    ) -> ConnId {
        let params = TcpParams {
            cc,
            ledbat_target,
            ..self.params
        };
        let serial = self.next_serial;
        self.next_serial = self
            .next_serial
            .checked_add(1)
            .expect("more than 2^32 connections");
        let sender = Sender::new(params, self.now);
        let delack = self.params.delayed_ack.is_some();
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.conns[s as usize].reuse(serial, src, dst, user, sender, delack, self.now);
                s
            }
            None => {
                self.conns.push(Conn::new(
                    serial,
                    (self.conns.len()) as u32,
                    src,
                    dst,
                    user,
                    sender,
                    delack,
                    self.now,
                ));
                (self.conns.len() - 1) as u32
            }
        };
        self.set_active(self.active + 1);
        self.stats.opened += 1;
        let id = ConnId { slot, serial };
        if self.params.handshake {
            self.mark_pending(id);
        }
        id
    }

    /// Closes `conn` (it vanishes at once: packets still in flight for it are discarded on
    /// arrival) and records it in [`World::conn_records`].
    pub fn close(&mut self, conn: ConnId) {
        let Some(slot) = self.lookup(conn) else {
            return;
        };
        let c = &mut self.conns[slot];
        c.alive = false;
        self.conn_records.push(c.record(self.now));
        self.free_slots.push(slot as u32);
        self.set_active(self.active - 1);
    }

    /// Whether `conn` is open.
    pub fn is_open(&self, conn: ConnId) -> bool {
        self.lookup(conn).is_some()
    }

    /// Number of open connections.
    pub fn active_connections(&self) -> u32 {
        self.active
    }

    /// The sender state of `conn` (cwnd, snd_una, ...), if open.
    pub fn sender(&self, conn: ConnId) -> Option<&Sender> {
        self.lookup(conn).map(|s| &self.conns[s].sender)
    }

    /// The driver's `user` value of `conn`, if open.
    pub fn user(&self, conn: ConnId) -> Option<u64> {
        self.lookup(conn).map(|s| self.conns[s].user)
    }

    /// Free room in `conn`'s send buffer (0 if closed; `u64::MAX`-ish if unbounded).
    pub fn send_buffer_space(&self, conn: ConnId) -> u64 {
        self.sender(conn).map_or(0, |s| s.send_buffer_space())
    }

    /// Bytes written to `conn` and never transmitted.
    pub fn notsent(&self, conn: ConnId) -> u64 {
        self.sender(conn).map_or(0, |s| s.notsent())
    }

    /// Writes up to `bytes` into `conn`'s send buffer; returns the bytes accepted. The
    /// connection sends at the next flush.
    pub fn write(&mut self, conn: ConnId, bytes: u64) -> u64 {
        let Some(slot) = self.lookup(conn) else {
            return 0;
        };
        let n = self.conns[slot].sender.write(bytes);
        if n > 0 {
            self.mark_pending(conn);
        }
        n
    }

    #[inline]
    fn lookup(&self, id: ConnId) -> Option<usize> {
        let c = self.conns.get(id.slot as usize)?;
        (c.alive && c.id.serial == id.serial).then_some(id.slot as usize)
    }

    #[inline]
    fn mark_pending(&mut self, id: ConnId) {
        let c = &mut self.conns[id.slot as usize];
        if !c.pending {
            c.pending = true;
            self.pending.push(id);
        }
    }

    fn set_active(&mut self, n: u32) {
        let dt = (self.now - self.last_active_change) as u128;
        self.stats.active_area += dt * self.active as u128;
        self.last_active_change = self.now;
        self.active = n;
        self.stats.max_active = self.stats.max_active.max(n);
    }

    /// Closes the books on the active-connection integral at the current time.
    pub fn settle_active_area(&mut self) {
        self.set_active(self.active);
    }

    // ----- the event loop -----

    /// Processes one event (and the flush after it). Returns false if no event is left or
    /// the next one is after `end`.
    fn step<D: Driver>(&mut self, d: &mut D, end: Time) -> bool {
        match self.events.peek_time() {
            Some(t) if t <= end => {}
            _ => return false,
        }
        let Some((t, ev)) = self.events.pop() else {
            return false;
        };
        self.now = t;
        self.stats.events += 1;
        match ev {
            Event::TxDone { link } => self.on_tx_done(link),
            Event::Arrive { link, pkt } => self.on_arrive(link, crate::packet::PacketId(pkt), d),
            Event::Rto { slot, gen } => self.on_rto(slot, gen),
            Event::DelAck { slot, gen } => self.on_delack(slot, gen),
            Event::Sample => {
                self.stats.active_samples.push((self.now, self.active));
                if let Some(p) = self.sample_period {
                    self.events.push(self.now + p, Event::Sample);
                }
            }
            Event::Driver { token } => d.on_timer(self, token),
        }
        self.flush(d);
        true
    }

    /// Runs the output of every connection marked pending, then lets the driver refill.
    fn flush<D: Driver>(&mut self, d: &mut D) {
        let mut i = 0;
        while i < self.pending.len() {
            let id = self.pending[i];
            i += 1;
            let Some(slot) = self.lookup(id) else {
                continue;
            };
            if !self.conns[slot].pending {
                continue;
            }
            self.conns[slot].pending = false;
            self.output(slot, id, d);
            d.on_send_ready(self, id);
        }
        self.pending.clear();
    }

    /// Sends whatever connection `slot` may send now.
    fn output<D: Driver>(&mut self, slot: usize, id: ConnId, d: &mut D) {
        let now = self.now;
        let hdr = self.params.header_bytes;
        let c = &mut self.conns[slot];
        if c.sender.take_syn(now) {
            let p = Packet {
                kind: PacketKind::Syn,
                src: c.src,
                dst: c.dst,
                conn: id,
                size: hdr + self.syn_option_bytes(),
                sent_at: now,
                ..Packet::EMPTY
            };
            self.inject(p);
        }
        while let Some(seg) = self.conns[slot].sender.next_segment(now) {
            let tag = d.on_segment_sent(self, id, &seg);
            let c = &mut self.conns[slot];
            let p = Packet {
                kind: PacketKind::Data,
                retx: seg.retx,
                class: 0,
                src: c.src,
                dst: c.dst,
                conn: id,
                seq: seg.seq,
                wire_seq: crate::tcp::pin_isn(self.params.pin_isn, id.serial)
                    .wrapping_add(seg.seq as u32),
                ack: 0,
                len: seg.len,
                size: seg.len + hdr,
                pkt_no: c.pkt_no,
                tag,
                sent_at: now,
                sack: [(0, 0); 3],
                echo_owd: 0,
                ce: false,
                ece: false,
            };
            c.pkt_no = c.pkt_no.wrapping_add(1);
            c.injected_bytes += seg.len as u64;
            c.injected_packets += 1;
            if let Some(log) = &mut self.injections {
                log.push(Injection {
                    time: now,
                    conn: id.serial,
                    seq: seg.seq,
                    len: seg.len,
                    retx: seg.retx,
                });
            }
            self.inject(p);
        }
        self.sync_rto(slot);
    }

    /// Makes sure an RTO event is pending no later than the sender's timer deadline.
    /// Timer restarts usually move the deadline later, which costs nothing: the pending
    /// event fires, sees the later deadline and re-arms itself once.
    fn sync_rto(&mut self, slot: usize) {
        let c = &mut self.conns[slot];
        if let Some(deadline) = c.sender.timer() {
            if c.rto_at.is_none_or(|at| at > deadline) {
                c.rto_gen = c.rto_gen.wrapping_add(1);
                c.rto_at = Some(deadline);
                self.events.push(
                    deadline,
                    Event::Rto {
                        slot: slot as u32,
                        gen: c.rto_gen,
                    },
                );
            }
        }
    }

    fn on_rto(&mut self, slot: u32, gen: u32) {
        let s = slot as usize;
        let c = &mut self.conns[s];
        if !c.alive || c.rto_gen != gen {
            return;
        }
        c.rto_at = None;
        match c.sender.timer() {
            None => return,
            Some(deadline) if deadline > self.now => {
                self.sync_rto(s);
                return;
            }
            Some(_) => {}
        }
        let id = c.id;
        if c.sender.on_timeout(self.now) {
            self.mark_pending(id);
        }
        self.sync_rto(s);
    }

    fn on_delack(&mut self, slot: u32, gen: u32) {
        let s = slot as usize;
        let c = &mut self.conns[s];
        if !c.alive || c.delack_gen != gen || !c.delack_armed {
            return;
        }
        c.delack_armed = false;
        self.send_ack(s);
    }

    /// Option bytes of a SYN or SYN-ACK: SACK-permitted, 2 bytes padded to 4, if counted.
    fn syn_option_bytes(&self) -> u32 {
        if self.params.sack_option_bytes {
            4
        } else {
            0
        }
    }

    /// Sends a cumulative ACK from `slot`'s receiver.
    fn send_ack(&mut self, slot: usize) {
        let c = &mut self.conns[slot];
        c.receiver.ack_sent();
        if c.delack_armed {
            c.delack_armed = false;
            c.delack_gen = c.delack_gen.wrapping_add(1);
        }
        let ack = c.receiver.rcv_nxt();
        let mut sack = [(0u32, 0u32); 3];
        let mut blocks = 0;
        if self.params.sack {
            for (o, (s, e)) in sack.iter_mut().zip(c.receiver.sack_blocks()) {
                if e > s {
                    *o = ((s - ack) as u32, (e - ack) as u32);
                    blocks += 1;
                }
            }
        }
        // RFC 2018 §3: the SACK option is 2 + 8n bytes, padded to a multiple of 4.
        let options = if self.params.sack_option_bytes && blocks > 0 {
            (2 + 8 * blocks as u32).next_multiple_of(4)
        } else {
            0
        };
        let p = Packet {
            kind: PacketKind::Ack,
            src: c.dst,
            dst: c.src,
            conn: c.id,
            sack,
            ack,
            size: self.params.header_bytes + options,
            sent_at: self.now,
            echo_owd: c.last_owd,
            ece: std::mem::take(&mut c.ce_pending),
            ..Packet::EMPTY
        };
        self.inject(p);
    }

    /// A packet for a host reached it.
    fn deliver<D: Driver>(&mut self, p: Packet, d: &mut D) {
        let Some(slot) = self.lookup(p.conn) else {
            self.stats.stale_packets += 1;
            return;
        };
        let id = p.conn;
        match p.kind {
            PacketKind::Syn => {
                let c = &self.conns[slot];
                let reply = Packet {
                    kind: PacketKind::SynAck,
                    src: c.dst,
                    dst: c.src,
                    conn: id,
                    size: self.params.header_bytes + self.syn_option_bytes(),
                    sent_at: self.now,
                    ..Packet::EMPTY
                };
                self.inject(reply);
            }
            PacketKind::SynAck => {
                let c = &mut self.conns[slot];
                if c.sender.state() == crate::tcp::SenderState::SynSent {
                    c.sender.on_syn_ack(self.now);
                    let ack = Packet {
                        kind: PacketKind::HandshakeAck,
                        src: c.src,
                        dst: c.dst,
                        conn: id,
                        size: self.params.header_bytes,
                        sent_at: self.now,
                        ..Packet::EMPTY
                    };
                    self.inject(ack);
                    self.mark_pending(id);
                    d.on_established(self, id);
                }
            }
            PacketKind::HandshakeAck => {}
            PacketKind::Data => {
                self.conns[slot].last_owd = self.now - p.sent_at;
                if p.ce && self.params.ecn {
                    self.conns[slot].ce_pending = true;
                }
                let out = self.conns[slot].receiver.on_data(p.seq, p.len);
                d.on_segment_received(self, id, &p);
                if out.delivered.1 > out.delivered.0 {
                    d.on_delivered(self, id, out.delivered.0, out.delivered.1);
                }
                let Some(slot) = self.lookup(id) else { return };
                if out.ack_now {
                    self.send_ack(slot);
                } else if out.ack_delayed {
                    let delay = self.params.delayed_ack.unwrap_or(0);
                    let c = &mut self.conns[slot];
                    if !c.delack_armed {
                        c.delack_armed = true;
                        c.delack_gen = c.delack_gen.wrapping_add(1);
                        self.events.push(
                            self.now + delay,
                            Event::DelAck {
                                slot: slot as u32,
                                gen: c.delack_gen,
                            },
                        );
                    }
                }
            }
            PacketKind::Ack => {
                if p.ece {
                    self.conns[slot].sender.on_ece();
                }
                if p.echo_owd > 0 {
                    self.conns[slot]
                        .sender
                        .on_delay_sample(p.echo_owd, self.now);
                }
                let ev = if self.params.sack {
                    let mut blocks = [(0u64, 0u64); 3];
                    for (b, &(s, e)) in blocks.iter_mut().zip(&p.sack) {
                        if e > s {
                            *b = (p.ack + s as u64, p.ack + e as u64);
                        }
                    }
                    self.conns[slot]
                        .sender
                        .on_ack_sack(p.ack, &blocks, self.now)
                } else {
                    self.conns[slot].sender.on_ack(p.ack, self.now)
                };
                if let AckEvent::NewData { bytes } = ev {
                    let una = self.conns[slot].sender.snd_una();
                    d.on_acked(self, id, una, bytes);
                }
                if let Some(slot) = self.lookup(id) {
                    if ev != AckEvent::Ignored {
                        self.mark_pending(id);
                    }
                    self.sync_rto(slot);
                }
            }
        }
    }
}

/// A world and a driver: the simulation.
pub struct Sim<D> {
    /// Network, connections, events.
    pub world: World,
    /// The payload side.
    pub driver: D,
    started: bool,
}

impl<D: Driver> Sim<D> {
    /// Pairs `world` with `driver`.
    pub fn new(world: World, driver: D) -> Self {
        Sim {
            world,
            driver,
            started: false,
        }
    }

    fn start(&mut self) {
        if !self.started {
            self.started = true;
            self.driver.on_start(&mut self.world);
            self.world.flush(&mut self.driver);
        }
    }

    /// Runs every event up to and including time `end`, then sets the clock to `end`.
    pub fn run_until(&mut self, end: Time) {
        self.start();
        while self.world.step(&mut self.driver, end) {}
        if self.world.now < end {
            self.world.now = end;
        }
        self.world.settle_active_area();
    }

    /// Runs until no event is left (never returns if sampling is on: use `run_until`).
    pub fn run(&mut self) {
        self.start();
        while self.world.step(&mut self.driver, Time::MAX) {}
        self.world.settle_active_area();
    }

    /// Processes a single event; false if none is left.
    pub fn step(&mut self) -> bool {
        self.start();
        self.world.step(&mut self.driver, Time::MAX)
    }
}
