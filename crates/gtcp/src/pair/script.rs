//! The `session_input` fuzz target's script (fuzz/fuzz_targets/session_input.rs), owned here
//! once: the fuzz target and the core's pinned regressions (crates/gtcp/tests/
//! fuzz_regressions.rs) both run [`run`], so a failing input's `cargo fuzz fmt` output pastes
//! into a test as it is printed and replays exactly as the target ran it.
//!
//! An opener and an acceptor share a few pool connections. Each connection has a pipe in each
//! direction: what one side's `poll_transmit` writes waits there until a [`Op::Deliver`] hands
//! an arbitrary amount of it to the peer's `handle_input`. Interleaved with that: arbitrary
//! bytes injected on arbitrary connections (a hostile or broken peer), application writes,
//! reads, finishes, resets, new flows, connections added, dying or closing, and bounded pump
//! rounds that let the two ends talk until they are quiet. A protocol error is fine: the pair
//! closes that connection on both ends, as the tunnel would, and goes on. A panic is a bug.
//!
//! After every op ([`check`]): every live connection keeps the ledger identity; state stays
//! bounded whatever the input (open flows within `max_flows` and closed ones within
//! as many more, bytes held for the applications within the credit either side may grant,
//! unsent bytes within their bound); while no raw bytes were injected, the pair saw no
//! violation of the contract.
//!
//! Liveness at the end ([`settle`]), while nothing was injected: from whatever state the ops
//! left, a connection dead on one side only dies on the other too (its TCP notices), the
//! applications finish every flow (and every flow opened meanwhile) and read all, the driver
//! opens a connection for every flow that has none and replacements as asked, and once quiet
//! closes the warm spares no flow took. Then both ends must be left with nothing
//! ([`Pair::check_end`]). The one leftover allowed: acceptor flows holding no byte, with no
//! connection left, after resets, whose own reset the opener never confirmed (the acceptor's
//! session expires them; `gtcp::session::liveness`).
//!
//! With the cargo feature `arbitrary` the script's types derive `arbitrary::Arbitrary`.

use super::{EndState, Pair, Side, Source};
use crate::{Config, ConnId, FlowId, Policy};

/// Connection ids a script can name (a few more than ever get added, so unknown ids occur).
pub const CONN_IDS: u64 = 6;
/// Bound on pump rounds per op, so every input runs in bounded time.
pub const PUMP_ROUNDS: usize = 64;
/// Rounds of "finish every flow, then pump" [`settle`] may take (each opens the flows
/// admitted during the one before).
pub const SETTLE_ROUNDS: usize = 32;

/// Chunk sizes (tiny ones make many frames, so they are few; 64 KiB is the cap).
const CHUNKS: [u32; 5] = [37, 1000, 4096, 16 * 1024, 64 * 1024];

/// Every order, with and without classes (the learning ones, `gittins`, `auto` and `mu`,
/// learn from the flows the script completes).
const POLICIES: [&str; 14] = [
    "tcp",
    "srpt",
    "las",
    "fair",
    "psps",
    "psps:3000",
    "priority:srpt",
    "priority:fair",
    "priority:psps:100",
    "gittins",
    "auto",
    "auto:fair",
    "mu:las",
    "mu:gittins",
];

/// One step of a script.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Op {
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

/// Configuration bytes, then the ops.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Input {
    /// Flows (with their connections) the opener starts with: 0, 1 or 2.
    pub setup: u8,
    pub policy: u8,
    pub chunk: u8,
    pub window_extra: u16,
    pub max_flows: u8,
    pub ops: Vec<Op>,
}

impl Input {
    /// The configuration the input's bytes name, if valid.
    pub fn config(&self) -> Option<Config> {
        let policy: Policy = POLICIES[usize::from(self.policy) % POLICIES.len()]
            .parse()
            .ok()?;
        let config = Config {
            policy,
            chunk: CHUNKS[usize::from(self.chunk) % CHUNKS.len()],
            flow_window: crate::INITIAL_CREDIT + u64::from(self.window_extra) * 16,
            send_buffer: 256 * 1024,
            max_flows: usize::from(self.max_flows % 16) + 1,
            ..Config::default()
        };
        config.validate().ok()?;
        Some(config)
    }
}

/// Runs `input` as the fuzz target does: [`replay`], then [`settle`] if nothing was injected.
/// An input whose configuration is invalid does nothing.
pub fn run(input: Input) {
    if let Some(mut p) = replay(input) {
        if !p.tainted {
            settle(&mut p);
        }
    }
}

/// Runs the ops and the final pump, checking after each; returns the pair (`None`: the
/// configuration is invalid).
pub fn replay(input: Input) -> Option<Pair> {
    let config = input.config()?;
    let mut p = Pair::new(config).ok()?;
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
    for op in &input.ops {
        p.now += 1;
        apply(&mut p, op);
        p.handle_events();
        check(&p, || format!("{op:?}"));
    }
    // Whatever happened, letting the ends talk must not panic either.
    p.pump(PUMP_ROUNDS, 16 * 1024 + 64);
    check(&p, || "the final pump".into());
    Some(p)
}

/// The connection id a script names with `c`.
fn conn(c: u8) -> ConnId {
    ConnId(u64::from(c) % CONN_IDS + 1)
}

/// One of the flows `side` tracks, or (one time in `len + 1`) a flow id it may not know.
fn flow(p: &Pair, side: Side, f: u8) -> FlowId {
    let ids: Vec<FlowId> = p.session(side).flow_ids().collect();
    ids.get(usize::from(f) % (ids.len() + 1))
        .copied()
        .unwrap_or(FlowId(u64::from(f % 8) + 1))
}

fn apply(p: &mut Pair, op: &Op) {
    match *op {
        Op::Inject {
            side,
            conn: c,
            ref bytes,
        } => p.inject(side, conn(c), bytes),
        Op::Transmit { side, conn: c, max } => {
            p.transmit(side, conn(c), usize::from(max));
        }
        Op::Deliver { from, conn: c, max } => {
            p.deliver(from, conn(c), usize::from(max));
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
            let f = flow(p, side, f);
            p.app_write(side, f, usize::from(len));
        }
        Op::Read { side, flow: f, max } => {
            let f = flow(p, side, f);
            p.app_read(side, f, usize::from(max));
        }
        Op::Finish { side, flow: f } => {
            let f = flow(p, side, f);
            let _ = p.app_finish(side, f);
        }
        Op::Reset {
            side,
            flow: f,
            code,
        } => {
            let f = flow(p, side, f);
            let _ = p.app_reset(side, f, code);
        }
        Op::KnownEnd { flow: f, end } => {
            let f = flow(p, Side::Opener, f);
            let _ = p
                .session_mut(Side::Opener)
                .set_known_end(f, end.map(u64::from));
        }
        Op::AddConn { owner } => {
            let owner = owner.map(|o| flow(p, Side::Opener, o));
            p.add_connection(owner);
        }
        Op::AcceptConn { conn: c, owner } => {
            let _ = p.add_connection_on(Side::Acceptor, conn(c), owner.map(FlowId));
        }
        Op::Kill { conn: c, only } => p.kill(conn(c), only),
        Op::GoAway { side } => p.session_mut(side).go_away(),
    }
}

/// The checks that hold whatever the script did, and the others while nothing was injected.
/// `step` names what came last (formatted only on a failure).
pub fn check(p: &Pair, step: impl Fn() -> String) {
    if let Err(e) = p.check_invariant() {
        panic!("after {}: {e}", step());
    }
    for side in Side::BOTH {
        let s = p.session(side);
        let config = s.config();
        let flows = s.flow_ids().count();
        let open = s.open_flows();
        assert!(
            open <= config.max_flows && flows <= 2 * config.max_flows,
            "after {}: {side:?}: {open} open flows, {flows} in all",
            step()
        );
        let conns = s.connections().count().max(1) as u64;
        let held = s.recv_buffered_bytes();
        let bound = config.flow_window * (flows as u64 + conns);
        assert!(
            held <= bound,
            "after {}: {side:?}: {held} bytes held, bound {bound}",
            step()
        );
        let c = s.counters();
        assert!(
            c.unsent_bytes <= c.unsent_bound,
            "after {}: {side:?}: {c:?}",
            step()
        );
    }
    if !p.tainted {
        assert!(
            p.violations.is_empty(),
            "after {}: {:?}",
            step(),
            p.violations
        );
    }
}

/// Every flow's application on either side finishes it, unless it already finished or reset
/// it; returns how many did (an acceptor's application cannot finish a flow whose opening
/// has not arrived).
fn finish_all(p: &mut Pair) -> usize {
    let mut finished = 0;
    for side in Side::BOTH {
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
    finished
}

/// Liveness: honest ends whose applications finish and read everything reach the end, from
/// any state the ops left (see the module's doc).
pub fn settle(p: &mut Pair) {
    // Replacement connections may always be opened.
    p.conn_limit = u64::MAX;
    for c in p.conn_ids() {
        let dead_on_one = Side::BOTH
            .iter()
            .any(|side| p.end_state(*side, c) == Some(EndState::Closed));
        if dead_on_one {
            p.kill(c, None);
        }
    }
    p.handle_events();
    for _ in 0..SETTLE_ROUNDS {
        let finished = finish_all(p);
        // The driver opens a connection for every flow that has none (the ops may have opened
        // flows without one, or lost a replacement's request while the ids were used up).
        let opener = p.session(Side::Opener);
        let owned: Vec<FlowId> = opener.connections().filter_map(|(_, o)| o).collect();
        let orphans: Vec<FlowId> = opener.flow_ids().filter(|f| !owned.contains(f)).collect();
        for f in orphans {
            p.add_connection(Some(f));
        }
        p.handle_events();
        let quiet = p.pump(4 * PUMP_ROUNDS, 64 * 1024 + 64);
        check(p, || "a settling round".into());
        // An acceptor flow whose opening arrived during the pump could not be finished before
        // it (its application did not know it yet): quiet is not the end while one can now.
        if quiet && finished == 0 && finish_all(p) == 0 {
            // A warm spare no flow took never says `Done`: the driver closes it once idle.
            let spares: Vec<ConnId> = p
                .session(Side::Opener)
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
                let a = p.session(Side::Acceptor);
                let expiring = p.session(Side::Opener).is_idle()
                    && a.connections().count() == 0
                    && a.recv_buffered_bytes() == 0
                    && a.counters().send_buffered_bytes == 0
                    && a.counters().flows_reset > 0;
                let rest = p.check_transfers().and_then(|()| match p.errors.first() {
                    Some(e) => Err(format!("protocol error {e:?}")),
                    None => p.violations.first().map_or(Ok(()), |v| Err(v.clone())),
                });
                assert!(expiring && rest.is_ok(), "not settled: {e} ({rest:?})");
            }
            return;
        }
    }
    panic!(
        "still talking after {SETTLE_ROUNDS} settling rounds: {:?} / {:?}",
        p.session(Side::Opener).counters(),
        p.session(Side::Acceptor).counters()
    );
}
