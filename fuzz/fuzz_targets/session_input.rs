//! The session's whole input path, driven by the fuzzer.
//!
//! An opener and an acceptor [`Session`] share a few pool connections (added to both, as the
//! tunnel does after a handshake). Each connection has a pipe in each direction: what one side's
//! `poll_transmit` writes waits there until a `Deliver` op hands an arbitrary amount of it to the
//! peer's `handle_input`. Interleaved with that: arbitrary bytes injected on arbitrary
//! connections (a hostile or broken peer), application writes, reads, finishes, resets, new
//! flows, connections added, dying or closing, and bounded "pump" rounds that let the two ends
//! talk until they are quiet.
//!
//! A protocol error is fine: the driver closes that connection on both ends, as the tunnel
//! would, and goes on. A panic anywhere is a bug. While no raw bytes were injected, it also
//! checks that every byte an application reads is the byte the other application wrote at that
//! offset, and while nothing was reset or lost, the per-connection invariant
//! `payload = owner − virtual_queue + adopted`.

#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::Arbitrary;
use bytes::BytesMut;
use gtcp::{Config, ConnId, Event, FlowId, Policy, ReadOutcome, Role, Session};
use libfuzzer_sys::fuzz_target;

/// Connection ids the fuzzer can name (a few more than ever get added, so unknown ids occur).
const CONN_IDS: u64 = 6;
/// Bound on pump rounds per op, so every input runs in bounded time.
const PUMP_ROUNDS: usize = 64;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Side {
    Opener,
    Acceptor,
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// Raw bytes arrive on a connection of one side.
    Inject {
        side: Side,
        conn: u8,
        bytes: Vec<u8>,
    },
    /// One side's connection may send up to `max` bytes (into its pipe).
    Transmit {
        side: Side,
        conn: u8,
        max: u16,
    },
    /// Up to `max` bytes of a pipe reach the other side's `handle_input`.
    Deliver {
        from: Side,
        conn: u8,
        max: u16,
    },
    /// Let both ends talk over every connection for a few rounds.
    Pump {
        rounds: u8,
        chunk: u16,
    },
    /// (Opener) an application connects; with `conn`, onto a warm spare.
    OpenFlow {
        conn: Option<u8>,
        class: u8,
        hint: Option<u32>,
    },
    Write {
        side: Side,
        flow: u8,
        len: u16,
    },
    Read {
        side: Side,
        flow: u8,
        max: u16,
    },
    Finish {
        side: Side,
        flow: u8,
    },
    Reset {
        side: Side,
        flow: u8,
        code: u32,
    },
    KnownEnd {
        flow: u8,
        end: Option<u32>,
    },
    /// A pool connection is established, owned by a flow (or a warm spare).
    AddConn {
        owner: Option<u8>,
    },
    /// A hostile opener authenticates a connection on the acceptor only, naming any owner.
    AcceptConn {
        conn: u8,
        owner: Option<u64>,
    },
    /// A connection dies; on one side only, or on both.
    Kill {
        conn: u8,
        only: Option<Side>,
    },
    GoAway {
        side: Side,
    },
}

/// Configuration bytes, then the ops (the rest of the input).
#[derive(Arbitrary, Debug)]
struct Input {
    /// Flows (with their connections) the opener starts with: 0, 1 or 2.
    setup: u8,
    policy: u8,
    chunk: u8,
    window_extra: u16,
    max_flows: u8,
    ops: Vec<Op>,
}

/// Chunk sizes (tiny ones make many frames, so they are few; 64 KiB is the cap).
const CHUNKS: [u32; 5] = [37, 1000, 4096, 16 * 1024, 64 * 1024];

const POLICIES: [&str; 9] = [
    "tcp",
    "srpt",
    "las",
    "fair",
    "psps",
    "psps:3000",
    "priority:srpt",
    "priority:fair",
    "priority:psps:100",
];

/// Longest write or checked read.
const MAX_LEN: usize = 1 << 16;
/// Period of the bytes an application writes.
const PERIOD: u64 = 251;

/// What the application on `side` writes to `flow` from `offset` on: bytes counting modulo
/// [`PERIOD`] from a start that depends on the side, the flow and the offset.
fn pattern(side: usize, flow: FlowId, offset: u64, len: usize) -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    let bytes = BYTES.get_or_init(|| {
        (0..PERIOD as u8)
            .cycle()
            .take(PERIOD as usize + MAX_LEN)
            .collect()
    });
    let start = offset
        .wrapping_add(flow.0.wrapping_mul(7))
        .wrapping_add(side as u64 * 100)
        % PERIOD;
    &bytes[start as usize..start as usize + len.min(MAX_LEN)]
}

#[derive(Default)]
struct FlowApp {
    written: u64,
    read: u64,
    finished: bool,
    ended: bool,
    reset: bool,
}

struct End {
    s: Session,
    /// Bytes received on each connection, not yet decoded.
    inbox: BTreeMap<ConnId, BytesMut>,
    /// Bytes sent on each connection, not yet delivered to the peer.
    pipe: BTreeMap<ConnId, BytesMut>,
    apps: BTreeMap<FlowId, FlowApp>,
}

struct World {
    ends: [End; 2],
    now: u64,
    next_conn: u64,
    /// Raw bytes were injected: the data check no longer applies.
    tainted: bool,
}

fn idx(s: Side) -> usize {
    match s {
        Side::Opener => 0,
        Side::Acceptor => 1,
    }
}

impl World {
    fn now(&self) -> Duration {
        Duration::from_millis(self.now)
    }

    fn conn(&self, c: u8) -> ConnId {
        ConnId(u64::from(c) % CONN_IDS + 1)
    }

    /// One of the flows `side` tracks, or (one time in `len + 1`) a flow id it may not know.
    fn flow(&self, side: usize, f: u8) -> FlowId {
        let ids: Vec<FlowId> = self.ends[side].s.flow_ids().collect();
        ids.get(usize::from(f) % (ids.len() + 1))
            .copied()
            .unwrap_or(FlowId(u64::from(f % 8) + 1))
    }

    /// The connection is gone on `side` (closed by the driver, or dead).
    fn close(&mut self, side: usize, c: ConnId) {
        let now = self.now();
        let e = &mut self.ends[side];
        e.inbox.remove(&c);
        e.pipe.remove(&c);
        e.s.connection_closed(now, c);
    }

    fn kill_both(&mut self, c: ConnId) {
        self.close(0, c);
        self.close(1, c);
    }

    /// Bytes arrive at `side` on `c`.
    fn input(&mut self, side: usize, c: ConnId, bytes: &[u8]) {
        let now = self.now();
        let e = &mut self.ends[side];
        let inbox = e.inbox.entry(c).or_default();
        inbox.extend_from_slice(bytes);
        if e.s.handle_input(now, c, inbox).is_err() {
            // The tunnel closes the offending connection; the peer sees it die.
            self.kill_both(c);
        }
    }

    fn transmit(&mut self, side: usize, c: ConnId, max: usize) -> usize {
        let now = self.now();
        let e = &mut self.ends[side];
        let mut out = BytesMut::new();
        let n = e.s.poll_transmit(now, c, &mut out, max);
        assert_eq!(n, out.len(), "poll_transmit must return what it wrote");
        if n > 0 {
            e.pipe.entry(c).or_default().extend_from_slice(&out);
        }
        n
    }

    fn deliver(&mut self, from: usize, c: ConnId, max: usize) -> usize {
        let Some(pipe) = self.ends[from].pipe.get_mut(&c) else {
            return 0;
        };
        let n = pipe.len().min(max);
        if n == 0 {
            return 0;
        }
        let bytes = pipe.split_to(n);
        self.input(1 - from, c, &bytes);
        n
    }

    /// Drains both ends' events, acting on them as the tunnel would.
    fn events(&mut self) {
        loop {
            let mut any = false;
            for side in 0..2 {
                while let Some(ev) = self.ends[side].s.poll_event() {
                    any = true;
                    match ev {
                        Event::ConnDone(c) => self.shutdown(side, c),
                        Event::FlowOpened { flow, .. } => {
                            self.ends[side].apps.entry(flow).or_default();
                        }
                        Event::FlowReadable(_)
                        | Event::FlowWritable(_)
                        | Event::FlowClosed(_)
                        | Event::ConnReady(_)
                        | Event::ConnNeeded { .. } => {}
                    }
                }
            }
            if !any {
                break;
            }
        }
    }

    /// `side` closes `c` cleanly after both said Done: what it sent still arrives (TCP delivers
    /// before the FIN), then the peer reads end-of-stream and closes its end too.
    fn shutdown(&mut self, side: usize, c: ConnId) {
        if let Some(rest) = self.ends[side].pipe.remove(&c) {
            if !rest.is_empty() {
                self.input(1 - side, c, &rest);
            }
        }
        self.close(side, c);
        self.close(1 - side, c);
    }

    fn write(&mut self, side: usize, flow: FlowId, len: usize) {
        let e = &mut self.ends[side];
        let app = e.apps.entry(flow).or_default();
        let data = pattern(side, flow, app.written, len);
        let len = data.len();
        if let Ok(n) = e.s.write(flow, data) {
            assert!(n <= len);
            app.written += n as u64;
        }
    }

    /// Reads once; returns whether it got data.
    fn read(&mut self, side: usize, flow: FlowId, max: usize) -> bool {
        let now = self.now();
        let tainted = self.tainted;
        let [a, b] = &mut self.ends;
        let (e, peer) = if side == 0 { (a, b) } else { (b, a) };
        let Ok(got) = e.s.read(now, flow, max) else {
            return false;
        };
        let app = e.apps.entry(flow).or_default();
        match got {
            ReadOutcome::Data(d) => {
                assert!(!d.is_empty(), "Data is never empty");
                assert!(d.len() <= max.max(1), "read more than asked");
                if !tainted && !app.reset {
                    for (i, part) in d.chunks(MAX_LEN).enumerate() {
                        let at = app.read + (i * MAX_LEN) as u64;
                        let want = pattern(1 - side, flow, at, part.len());
                        assert!(part == want, "{flow}: wrong bytes at {at}");
                    }
                    if let Some(w) = peer.apps.get(&flow) {
                        assert!(
                            app.read + d.len() as u64 <= w.written,
                            "read beyond written"
                        );
                    }
                }
                app.read += d.len() as u64;
                return true;
            }
            ReadOutcome::End => {
                if !tainted && !app.ended {
                    let w = peer.apps.get(&flow).map_or(0, |w| w.written);
                    assert_eq!(app.read, w, "{flow} ended early or late");
                    assert!(
                        peer.apps.get(&flow).is_some_and(|w| w.finished),
                        "{flow} ended but its writer did not finish"
                    );
                }
                app.ended = true;
            }
            ReadOutcome::Reset(_) => app.reset = true,
            ReadOutcome::Blocked => {}
        }
        false
    }

    fn pump(&mut self, rounds: usize, chunk: usize) {
        for _ in 0..rounds {
            let mut moved = 0;
            for side in 0..2 {
                let conns: Vec<ConnId> = self.ends[side].s.connections().map(|(c, _)| c).collect();
                for c in conns {
                    moved += self.transmit(side, c, chunk);
                    moved += self.deliver(side, c, usize::MAX);
                    self.events();
                }
            }
            for side in 0..2 {
                let flows: Vec<FlowId> = self.ends[side].s.flow_ids().collect();
                for f in flows {
                    while self.read(side, f, usize::MAX) {}
                }
            }
            self.events();
            if moved == 0 {
                break;
            }
        }
    }

    /// The per-connection ledger identity (the core's one check), on every live connection,
    /// whatever was reset or lost.
    fn check_invariant(&self) {
        for e in &self.ends {
            for (c, _) in e.s.connections() {
                let k = e.s.connection_counters(c).expect("live connection");
                if let Err(err) = k.check_invariant() {
                    panic!("{c}: {err} ({k:?})");
                }
            }
        }
    }
}

fn config(input: &Input) -> Option<Config> {
    let policy: Policy = POLICIES[usize::from(input.policy) % POLICIES.len()]
        .parse()
        .ok()?;
    let config = Config {
        policy,
        chunk: CHUNKS[usize::from(input.chunk) % CHUNKS.len()],
        flow_window: gtcp::INITIAL_CREDIT + u64::from(input.window_extra) * 16,
        send_buffer: 256 * 1024,
        max_flows: usize::from(input.max_flows % 16) + 1,
    };
    config.validate().ok()?;
    Some(config)
}

fn run(input: Input) {
    let Some(config) = config(&input) else {
        return;
    };
    let end = |role| End {
        s: Session::new(role, config).expect("valid config"),
        inbox: BTreeMap::new(),
        pipe: BTreeMap::new(),
        apps: BTreeMap::new(),
    };
    let mut w = World {
        ends: [end(Role::Opener), end(Role::Acceptor)],
        now: 0,
        next_conn: 1,
        tainted: false,
    };
    // Two flows with their connections and a warm spare, as a client starts.
    for _ in 0..input.setup % 3 {
        // (max_flows may be 1.)
        if let Ok(f) = w.ends[0].s.open_flow(w.now(), None, "web", 0, None) {
            w.ends[0].apps.entry(f).or_default();
            add_conn(&mut w, Some(f));
        }
    }
    add_conn(&mut w, None);

    for op in input.ops {
        w.now += 1;
        let now = w.now();
        match op {
            Op::Inject { side, conn, bytes } => {
                w.tainted = true;
                let c = w.conn(conn);
                w.input(idx(side), c, &bytes);
            }
            Op::Transmit { side, conn, max } => {
                let c = w.conn(conn);
                w.transmit(idx(side), c, usize::from(max));
            }
            Op::Deliver { from, conn, max } => {
                let c = w.conn(conn);
                w.deliver(idx(from), c, usize::from(max));
            }
            Op::Pump { rounds, chunk } => {
                w.pump(
                    usize::from(rounds) % PUMP_ROUNDS + 1,
                    usize::from(chunk) + 1,
                );
            }
            Op::OpenFlow { conn, class, hint } => {
                let c = conn.map(|c| w.conn(c));
                if let Ok(f) = w.ends[0]
                    .s
                    .open_flow(now, c, "web", class % 4, hint.map(u64::from))
                {
                    w.ends[0].apps.entry(f).or_default();
                }
            }
            Op::Write { side, flow, len } => {
                let f = w.flow(idx(side), flow);
                w.write(idx(side), f, usize::from(len));
            }
            Op::Read { side, flow, max } => {
                let f = w.flow(idx(side), flow);
                w.read(idx(side), f, usize::from(max));
            }
            Op::Finish { side, flow } => {
                let f = w.flow(idx(side), flow);
                let e = &mut w.ends[idx(side)];
                if e.s.finish(f).is_ok() {
                    e.apps.entry(f).or_default().finished = true;
                }
            }
            Op::Reset { side, flow, code } => {
                let f = w.flow(idx(side), flow);
                let e = &mut w.ends[idx(side)];
                if e.s.reset(now, f, code).is_ok() {
                    e.apps.entry(f).or_default().reset = true;
                }
            }
            Op::KnownEnd { flow, end } => {
                let f = w.flow(0, flow);
                let _ = w.ends[0].s.set_known_end(f, end.map(u64::from));
            }
            Op::AddConn { owner } => {
                let owner = owner.map(|o| w.flow(0, o));
                add_conn(&mut w, owner);
            }
            Op::AcceptConn { conn, owner } => {
                w.tainted = true;
                let c = w.conn(conn);
                let _ = w.ends[1].s.add_connection(c, owner.map(FlowId));
            }
            Op::Kill { conn, only } => {
                let c = w.conn(conn);
                match only {
                    Some(side) => w.close(idx(side), c),
                    None => w.kill_both(c),
                }
            }
            Op::GoAway { side } => w.ends[idx(side)].s.go_away(),
        }
        w.events();
        w.check_invariant();
    }
    // Whatever happened, letting the ends talk must not panic either.
    w.pump(PUMP_ROUNDS, 16 * 1024 + 64);
    w.check_invariant();
}

/// A pool connection finished its handshake: both ends learn it (the opener first; the acceptor
/// may refuse it, and then the opener sees it die).
fn add_conn(w: &mut World, owner: Option<FlowId>) {
    if w.next_conn > CONN_IDS {
        return;
    }
    let c = ConnId(w.next_conn);
    w.next_conn += 1;
    if w.ends[0].s.add_connection(c, owner).is_err() {
        return;
    }
    if w.ends[1].s.add_connection(c, owner).is_err() {
        w.close(0, c);
    }
}

fuzz_target!(|input: Input| run(input));
