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
//! The driving and the checks are the shared two-endpoint harness, [`gtcp::pair::Pair`]: it
//! acts on events as the driver contract says (`ConnDone` half-closes, the end closes after the
//! peer's end of stream; `ConnNeeded` opens a replacement). A protocol error is fine: the pair
//! closes that connection on both ends, as the tunnel would, and goes on. A panic anywhere is a
//! bug. After every op, every live connection keeps the ledger identity
//! `payload + virtual_queue + forgiven = owner + adopted`; while no raw bytes were injected (and
//! no connection was added on one side only), every byte an application reads is the byte the
//! other application wrote at that offset, nothing is written on a connection after both of its
//! sides said `Done`, and every connection that closes cleanly owes nothing.
//!
//! Liveness at the end (issue 16), while nothing was injected: from whatever state the ops
//! left, a connection dead on one side only dies on the other too (its TCP notices), the
//! applications finish every flow (and every flow opened meanwhile) and read all, and the ends
//! talk, a connection opened for every flow that has none and replacements as asked; once quiet, the driver closes the warm
//! spares no flow took. Then both must be left with nothing:
//! no flow, no connection, every direction that was not reset read to its end with exactly
//! the bytes written, no protocol error (`Pair::check_end`). The one leftover allowed: an
//! acceptor flow holding no bytes, with no connection, whose own reset the opener never
//! confirmed (the acceptor's session expires; `gtcp::session::liveness`).

#![no_main]

use arbitrary::Arbitrary;
use gtcp::pair::{Pair, Source};
use gtcp::{Config, ConnId, FlowId, Policy};
use libfuzzer_sys::fuzz_target;

/// Connection ids the fuzzer can name (a few more than ever get added, so unknown ids occur).
const CONN_IDS: u64 = 6;
/// Bound on pump rounds per op, so every input runs in bounded time.
const PUMP_ROUNDS: usize = 64;
/// Rounds of "finish every flow, then pump" the settling at the end may take (each opens
/// the flows admitted during the one before).
const SETTLE_ROUNDS: usize = 32;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Side {
    Opener,
    Acceptor,
}

impl From<Side> for gtcp::pair::Side {
    fn from(s: Side) -> Self {
        match s {
            Side::Opener => gtcp::pair::Side::Opener,
            Side::Acceptor => gtcp::pair::Side::Acceptor,
        }
    }
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

/// The connection id the fuzzer names with `c` (a few more than ever get added).
fn conn(c: u8) -> ConnId {
    ConnId(u64::from(c) % CONN_IDS + 1)
}

/// One of the flows `side` tracks, or (one time in `len + 1`) a flow id it may not know.
fn flow(p: &Pair, side: Side, f: u8) -> FlowId {
    let ids: Vec<FlowId> = p.session(side.into()).flow_ids().collect();
    ids.get(usize::from(f) % (ids.len() + 1))
        .copied()
        .unwrap_or(FlowId(u64::from(f % 8) + 1))
}

/// The pair's checks that hold whatever the fuzzer did, and the others while nothing was
/// injected.
fn check(p: &Pair) {
    if let Err(e) = p.check_invariant() {
        panic!("{e}");
    }
    // Bounded state whatever the input (issue 16): flows within `max_flows`, bytes held for
    // the applications within the credit either side may grant, unsent bytes within their bound.
    for side in [gtcp::pair::Side::Opener, gtcp::pair::Side::Acceptor] {
        let s = p.session(side);
        let config = s.config();
        let flows = s.flow_ids().count();
        assert!(flows <= config.max_flows, "{side:?}: {flows} flows");
        let conns = s.connections().count().max(1) as u64;
        let held = s.recv_buffered_bytes();
        let bound = config.flow_window * (flows as u64 + conns);
        assert!(held <= bound, "{side:?}: {held} bytes held, bound {bound}");
        let c = s.counters();
        assert!(c.unsent_bytes <= c.unsent_bound, "{side:?}: {c:?}");
    }
    if !p.tainted {
        assert!(p.violations.is_empty(), "{:?}", p.violations);
    }
}

fn run(input: Input) {
    let Some(config) = config(&input) else {
        return;
    };
    let mut p = Pair::new(config).expect("valid config");
    p.strict = false;
    p.auto_apps = false;
    p.acceptor_source = Source::Pattern;
    p.conn_limit = CONN_IDS;
    // Up to two flows with their connections and a warm spare, as a client starts.
    for _ in 0..input.setup % 3 {
        // (max_flows may be 1.)
        if let Ok(f) = p.open_flow(None, "web", 0, None, Source::Pattern) {
            p.add_connection(Some(f));
        }
    }
    p.add_connection(None);
    p.handle_events();

    for op in input.ops {
        p.now += 1;
        match op {
            Op::Inject {
                side,
                conn: c,
                bytes,
            } => p.inject(side.into(), conn(c), &bytes),
            Op::Transmit { side, conn: c, max } => {
                p.transmit(side.into(), conn(c), usize::from(max));
            }
            Op::Deliver { from, conn: c, max } => {
                p.deliver(from.into(), conn(c), usize::from(max));
            }
            Op::Pump { rounds, chunk } => {
                p.pump(
                    usize::from(rounds) % PUMP_ROUNDS + 1,
                    usize::from(chunk) + 1,
                );
            }
            Op::OpenFlow {
                conn: c,
                class,
                hint,
            } => {
                let _ = p.open_flow(
                    c.map(conn),
                    "web",
                    class % 4,
                    hint.map(u64::from),
                    Source::Pattern,
                );
            }
            Op::Write { side, flow: f, len } => {
                let f = flow(&p, side, f);
                p.app_write(side.into(), f, usize::from(len));
            }
            Op::Read { side, flow: f, max } => {
                let f = flow(&p, side, f);
                p.app_read(side.into(), f, usize::from(max));
            }
            Op::Finish { side, flow: f } => {
                let f = flow(&p, side, f);
                let _ = p.app_finish(side.into(), f);
            }
            Op::Reset {
                side,
                flow: f,
                code,
            } => {
                let f = flow(&p, side, f);
                let _ = p.app_reset(side.into(), f, code);
            }
            Op::KnownEnd { flow: f, end } => {
                let f = flow(&p, Side::Opener, f);
                let _ = p
                    .session_mut(gtcp::pair::Side::Opener)
                    .set_known_end(f, end.map(u64::from));
            }
            Op::AddConn { owner } => {
                let owner = owner.map(|o| flow(&p, Side::Opener, o));
                p.add_connection(owner);
            }
            Op::AcceptConn { conn: c, owner } => {
                let _ = p.add_connection_on(gtcp::pair::Side::Acceptor, conn(c), owner.map(FlowId));
            }
            Op::Kill { conn: c, only } => p.kill(conn(c), only.map(Into::into)),
            Op::GoAway { side } => p.session_mut(side.into()).go_away(),
        }
        p.handle_events();
        check(&p);
    }
    // Whatever happened, letting the ends talk must not panic either.
    p.pump(PUMP_ROUNDS, 16 * 1024 + 64);
    check(&p);
    if !p.tainted {
        settle(&mut p);
    }
}

/// Liveness: honest ends whose applications finish and read everything reach the end, from
/// any state the ops left (see the module's doc).
fn settle(p: &mut Pair) {
    use gtcp::pair::{EndState, Side as S};
    // Replacement connections may always be opened.
    p.conn_limit = u64::MAX;
    for c in p.conn_ids() {
        let dead_on_one = [S::Opener, S::Acceptor]
            .iter()
            .any(|side| p.end_state(*side, c) == Some(EndState::Closed));
        if dead_on_one {
            p.kill(c, None);
        }
    }
    p.handle_events();
    for _ in 0..SETTLE_ROUNDS {
        let mut finished = 0;
        for side in [S::Opener, S::Acceptor] {
            let flows: Vec<FlowId> = p.session(side).flow_ids().collect();
            for f in flows {
                let done = p.apps[side as usize]
                    .get(&f)
                    .is_some_and(|a| a.finished || a.reset);
                if !done && p.app_finish(side, f).is_ok() {
                    finished += 1;
                }
            }
        }
        // The driver opens a connection for every flow that has none (the ops may have opened
        // flows without one, or lost a replacement's request while the ids were used up).
        let owned: Vec<FlowId> = p
            .session(S::Opener)
            .connections()
            .filter_map(|(_, owner)| owner)
            .collect();
        let orphans: Vec<FlowId> = p
            .session(S::Opener)
            .flow_ids()
            .filter(|f| !owned.contains(f))
            .collect();
        for f in orphans {
            p.add_connection(Some(f));
        }
        p.handle_events();
        let quiet = p.pump(4 * PUMP_ROUNDS, 64 * 1024 + 64);
        check(p);
        if quiet && finished == 0 {
            // A warm spare no flow took never says `Done`: the driver closes it once idle.
            let spares: Vec<ConnId> = p
                .session(S::Opener)
                .connections()
                .filter(|(_, owner)| owner.is_none())
                .map(|(c, _)| c)
                .collect();
            for c in spares {
                p.kill(c, None);
            }
            p.handle_events();
            p.pump(4 * PUMP_ROUNDS, 64 * 1024 + 64);
            if let Err(e) = p.check_end() {
                // One leftover is by design: an acceptor flow whose own reset the opener never
                // confirmed stays, with no connection left to carry it, until the acceptor's
                // session expires (`liveness::own_reset_unconfirmed`); it holds no bytes.
                let a = p.session(S::Acceptor);
                let expiring = p.session(S::Opener).is_idle()
                    && a.connections().count() == 0
                    && a.recv_buffered_bytes() == 0
                    && a.counters().send_buffered_bytes == 0
                    && a.counters().flows_reset > 0;
                let rest = p.check_transfers().and_then(|()| match p.errors.first() {
                    Some(e) => Err(format!("protocol error {e:?}")),
                    None => match p.violations.first() {
                        Some(v) => Err(v.clone()),
                        None => Ok(()),
                    },
                });
                assert!(expiring && rest.is_ok(), "not settled: {e} ({rest:?})");
            }
            return;
        }
    }
    panic!(
        "still talking after {SETTLE_ROUNDS} settling rounds: {:?} / {:?}",
        p.session(S::Opener).counters(),
        p.session(S::Acceptor).counters()
    );
}

fuzz_target!(|input: Input| run(input));
