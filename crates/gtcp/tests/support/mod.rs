//! A deterministic two-endpoint harness for the core: simulated time in ticks, no sockets.
//!
//! Each pool connection is a pair of in-order pipes with a fixed rate (bytes per tick, like a
//! TCP connection's share of a path) and a fixed delay. The harness is an event-driven driver
//! of both [`Session`]s, honouring the contract the tunnel honours: a connection is polled
//! after `ConnReady` until `poll_transmit` returns 0.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use bytes::BytesMut;
use gtcp::{Config, ConnId, Event, FlowId, ReadOutcome, Role, Session};

/// One direction of a connection.
#[derive(Default)]
struct Pipe {
    in_flight: VecDeque<(u64, BytesMut)>,
    inbox: BytesMut,
}

struct Link {
    c2s: Pipe,
    s2c: Pipe,
    rate: usize,
}

/// What the application on each side does with one flow.
#[derive(Clone)]
pub struct FlowSpec {
    pub start: u64,
    pub up: Vec<u8>,
    pub down: Vec<u8>,
}

impl std::fmt::Debug for FlowSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FlowSpec {{ start: {}, up: {} bytes, down: {} bytes }}",
            self.start,
            self.up.len(),
            self.down.len()
        )
    }
}

#[derive(Default, Debug, Clone)]
pub struct FlowResult {
    /// Tick at which the server application read the end of the client's bytes.
    pub up_done: Option<u64>,
    /// Tick at which the client application read the end of the server's bytes.
    pub down_done: Option<u64>,
    pub up_received: Vec<u8>,
    pub down_received: Vec<u8>,
    pub reset: bool,
}

pub struct Harness {
    pub client: Session,
    pub server: Session,
    pub now: u64,
    links: BTreeMap<ConnId, Link>,
    ready_client: BTreeSet<ConnId>,
    ready_server: BTreeSet<ConnId>,
    next_conn: u64,
    pub rate: usize,
    pub delay: u64,
    specs: Vec<FlowSpec>,
    started: usize,
    /// spec index -> flow id
    pub ids: Vec<Option<FlowId>>,
    up_written: BTreeMap<FlowId, usize>,
    down_written: BTreeMap<FlowId, usize>,
    pub results: BTreeMap<FlowId, FlowResult>,
    server_flows: BTreeSet<FlowId>,
    /// Per closed connection: its counters on the client side at close time.
    pub closed_counters: Vec<(ConnId, gtcp::ConnCounters)>,
    pub closed_server_counters: Vec<(ConnId, gtcp::ConnCounters)>,
    pub lost: usize,
    closing: BTreeSet<ConnId>,
    /// Record breaches of non-intrusiveness ([`Harness::idle_breaches`]).
    pub check_liveness: bool,
    /// Moments a connection was idle where plain TCP's would have been sending.
    pub idle_breaches: Vec<String>,
}

fn t(now: u64) -> Duration {
    Duration::from_millis(now)
}

impl Harness {
    pub fn new(config: Config, specs: Vec<FlowSpec>, rate: usize, delay: u64) -> Self {
        let mut specs = specs;
        specs.sort_by_key(|s| s.start);
        let n = specs.len();
        Self {
            client: Session::new(Role::Opener, config).expect("config"),
            server: Session::new(Role::Acceptor, config).expect("config"),
            now: 0,
            links: BTreeMap::new(),
            ready_client: BTreeSet::new(),
            ready_server: BTreeSet::new(),
            next_conn: 1,
            rate,
            delay: delay.max(1),
            specs,
            started: 0,
            ids: vec![None; n],
            up_written: BTreeMap::new(),
            down_written: BTreeMap::new(),
            results: BTreeMap::new(),
            server_flows: BTreeSet::new(),
            closed_counters: Vec::new(),
            closed_server_counters: Vec::new(),
            lost: 0,
            closing: BTreeSet::new(),
            check_liveness: false,
            idle_breaches: Vec::new(),
        }
    }

    fn connect(&mut self, owner: FlowId) {
        let id = ConnId(self.next_conn);
        self.next_conn += 1;
        self.client
            .add_connection(id, Some(owner))
            .expect("client add");
        self.server
            .add_connection(id, Some(owner))
            .expect("server add");
        self.links.insert(
            id,
            Link {
                c2s: Pipe::default(),
                s2c: Pipe::default(),
                rate: self.rate,
            },
        );
    }

    /// Kills a connection mid-transfer: both sides lose it and what was in flight.
    pub fn kill(&mut self, conn: ConnId) {
        if self.links.remove(&conn).is_some() {
            self.lost += 1;
            let now = t(self.now);
            self.client.connection_closed(now, conn);
            self.server.connection_closed(now, conn);
        }
    }

    pub fn conn_ids(&self) -> Vec<ConnId> {
        self.links.keys().copied().collect()
    }

    pub fn finished(&self) -> bool {
        self.started == self.specs.len()
            && self.results.len() == self.specs.len()
            && self
                .results
                .values()
                .all(|r| r.reset || (r.up_done.is_some() && r.down_done.is_some()))
            && self.links.is_empty()
    }

    /// Runs until every flow is done and every connection closed, or `limit` ticks.
    pub fn run(&mut self, limit: u64) -> bool {
        while self.now < limit {
            self.step();
            if self.finished() {
                return true;
            }
        }
        false
    }

    pub fn step(&mut self) {
        let now = t(self.now);
        // Arrivals.
        while self.started < self.specs.len() && self.specs[self.started].start <= self.now {
            let route = format!("r{}", self.started % 3);
            let id = self
                .client
                .open_flow(now, None, &route, 0, None)
                .expect("open");
            self.ids[self.started] = Some(id);
            self.results.insert(id, FlowResult::default());
            self.up_written.insert(id, 0);
            self.connect(id);
            self.started += 1;
        }
        self.applications();
        self.drain_events();
        if self.check_liveness {
            self.check_handed_over();
        }
        // Transmit: each ready connection sends at most `rate` bytes this tick.
        for conn in self.ready_client.clone() {
            let Some(link) = self.links.get_mut(&conn) else {
                self.ready_client.remove(&conn);
                continue;
            };
            let mut out = BytesMut::new();
            let rate = link.rate;
            let n = self.client.poll_transmit(now, conn, &mut out, rate);
            if n == 0 {
                self.ready_client.remove(&conn);
            } else {
                link.c2s.in_flight.push_back((self.now + self.delay, out));
            }
            if self.check_liveness {
                self.check_sent(conn, n, rate);
            }
        }
        for conn in self.ready_server.clone() {
            let Some(link) = self.links.get_mut(&conn) else {
                self.ready_server.remove(&conn);
                continue;
            };
            let mut out = BytesMut::new();
            let n = self.server.poll_transmit(now, conn, &mut out, link.rate);
            if n == 0 {
                self.ready_server.remove(&conn);
            } else {
                link.s2c.in_flight.push_back((self.now + self.delay, out));
            }
        }
        self.now += 1;
        let now = t(self.now);
        // Deliveries.
        let ids: Vec<ConnId> = self.links.keys().copied().collect();
        for conn in ids {
            let link = self.links.get_mut(&conn).expect("live");
            while link
                .c2s
                .in_flight
                .front()
                .is_some_and(|(at, _)| *at <= self.now)
            {
                let (_, b) = link.c2s.in_flight.pop_front().expect("front");
                link.c2s.inbox.extend_from_slice(&b);
            }
            while link
                .s2c
                .in_flight
                .front()
                .is_some_and(|(at, _)| *at <= self.now)
            {
                let (_, b) = link.s2c.in_flight.pop_front().expect("front");
                link.s2c.inbox.extend_from_slice(&b);
            }
            let r1 = self.server.handle_input(now, conn, &mut link.c2s.inbox);
            let r2 = self.client.handle_input(now, conn, &mut link.s2c.inbox);
            if let Err(e) = r1.and(r2) {
                panic!("protocol error on {conn}: {e}");
            }
        }
        self.drain_events();
        self.applications();
        self.drain_events();
        if self.check_liveness && !self.client.policy().is_tcp() {
            self.check_woken();
        }
    }

    /// Plain TCP's connection for a flow is busy while the flow's application has bytes to
    /// write: after the applications wrote what they could, the connection of every flow whose
    /// application still has bytes must owe some (q_v > 0), on both sides.
    fn check_handed_over(&mut self) {
        for (i, spec) in self.specs.iter().enumerate().take(self.started) {
            let Some(id) = self.ids[i] else { continue };
            let reset = self.results.get(&id).is_some_and(|r| r.reset);
            let up_left = self.up_written.get(&id).is_some_and(|w| *w < spec.up.len());
            let down_left = self
                .down_written
                .get(&id)
                .is_some_and(|w| *w < spec.down.len());
            for (side, left, s) in [
                ("client", up_left, &self.client),
                ("server", down_left, &self.server),
            ] {
                if reset || !left {
                    continue;
                }
                let Some(conn) = s.connections().find(|(_, o)| *o == Some(id)).map(|c| c.0) else {
                    continue;
                };
                let vq = s.connection_counters(conn).map_or(0, |c| c.virtual_queue);
                if vq == 0 {
                    self.idle_breaches.push(format!(
                        "tick {}: {side} {conn} owes nothing while {id}'s application has bytes",
                        self.now
                    ));
                }
            }
        }
    }

    /// A connection that owes bytes (q_v > 0) and was allowed `rate` bytes must use them
    /// unless no flow has bytes it may send (all held back by the receiver's credit).
    fn check_sent(&mut self, conn: ConnId, sent: usize, rate: usize) {
        let vq = self
            .client
            .connection_counters(conn)
            .map_or(0, |c| c.virtual_queue);
        let slack = gtcp::wire::DATA_HEADER_LEN + 64;
        if vq > 0 && sent + slack < rate && self.client.ready_flows() > 0 {
            self.idle_breaches.push(format!(
                "tick {}: client {conn} owes {vq} bytes, sent {sent} of {rate} while {} flows were ready",
                self.now,
                self.client.ready_flows()
            ));
        }
    }

    /// Connections that owe bytes while some flow is ready must have been woken.
    fn check_woken(&mut self) {
        if self.client.ready_flows() == 0 {
            return;
        }
        let conns: Vec<ConnId> = self.client.connections().map(|c| c.0).collect();
        for conn in conns {
            let vq = self
                .client
                .connection_counters(conn)
                .map_or(0, |c| c.virtual_queue);
            if vq > 0 && !self.ready_client.contains(&conn) && self.links.contains_key(&conn) {
                self.idle_breaches.push(format!(
                    "tick {}: client {conn} owes {vq} bytes and was not woken",
                    self.now
                ));
            }
        }
    }

    fn applications(&mut self) {
        let now = t(self.now);
        // Client applications write their upload and read the download.
        for (i, spec) in self.specs.iter().enumerate().take(self.started) {
            let Some(id) = self.ids[i] else { continue };
            let res = self.results.get_mut(&id).expect("result");
            if res.reset {
                continue;
            }
            let w = self.up_written.get_mut(&id).expect("written");
            if *w < spec.up.len() {
                if let Ok(n) = self.client.write(id, &spec.up[*w..]) {
                    *w += n;
                }
            }
            if *w == spec.up.len() {
                let _ = self.client.finish(id);
            }
            loop {
                match self.client.read(now, id, 1 << 20) {
                    Ok(ReadOutcome::Data(b)) => res.down_received.extend_from_slice(&b),
                    Ok(ReadOutcome::End) => {
                        res.down_done.get_or_insert(self.now);
                        break;
                    }
                    Ok(ReadOutcome::Reset(_)) => {
                        res.reset = true;
                        break;
                    }
                    Ok(ReadOutcome::Blocked) | Err(_) => break,
                }
            }
        }
        // Server applications (the targets) read the upload and write the download.
        for id in self.server_flows.clone() {
            let idx = self.ids.iter().position(|x| *x == Some(id)).expect("spec");
            let down = &self.specs[idx].down;
            let res = self.results.get_mut(&id).expect("result");
            let w = self.down_written.entry(id).or_insert(0);
            if *w < down.len() {
                if let Ok(n) = self.server.write(id, &down[*w..]) {
                    *w += n;
                }
            }
            if *w == down.len() {
                let _ = self.server.finish(id);
            }
            loop {
                match self.server.read(now, id, 1 << 20) {
                    Ok(ReadOutcome::Data(b)) => res.up_received.extend_from_slice(&b),
                    Ok(ReadOutcome::End) => {
                        res.up_done.get_or_insert(self.now);
                        break;
                    }
                    Ok(ReadOutcome::Reset(_)) => {
                        res.reset = true;
                        break;
                    }
                    Ok(ReadOutcome::Blocked) | Err(_) => break,
                }
            }
        }
    }

    fn drain_events(&mut self) {
        while let Some(ev) = self.client.poll_event() {
            match ev {
                Event::ConnReady(c) => {
                    self.ready_client.insert(c);
                }
                Event::ConnNeeded { owner } => self.connect(owner),
                Event::ConnDone(c) => {
                    self.closing.insert(c);
                }
                _ => {}
            }
        }
        while let Some(ev) = self.server.poll_event() {
            match ev {
                Event::ConnReady(c) => {
                    self.ready_server.insert(c);
                }
                Event::FlowOpened { flow, .. } => {
                    self.server_flows.insert(flow);
                }
                Event::ConnDone(c) => {
                    self.closing.insert(c);
                }
                _ => {}
            }
        }
        for c in self.closing.clone() {
            if self.close(c) {
                self.closing.remove(&c);
            }
        }
    }

    /// A clean close once both sides said Done (the client closes; the server sees EOF).
    fn close(&mut self, conn: ConnId) -> bool {
        let Some(link) = self.links.get(&conn) else {
            return true;
        };
        // Frames still in the pipes are delivered by TCP before the FIN.
        if !link.c2s.in_flight.is_empty() || !link.s2c.in_flight.is_empty() {
            return false;
        }
        if let Some(c) = self.client.connection_counters(conn) {
            self.closed_counters.push((conn, c));
        }
        if let Some(c) = self.server.connection_counters(conn) {
            self.closed_server_counters.push((conn, c));
        }
        self.links.remove(&conn);
        let now = t(self.now);
        self.client.connection_closed(now, conn);
        self.server.connection_closed(now, conn);
        true
    }
}
