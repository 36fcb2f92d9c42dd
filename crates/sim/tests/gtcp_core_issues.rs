//! Regression tests for gtcp core issues found while driving the core in the packet
//! simulator.
//!
//! Issue (fixed in the core by 3594b2d and 73a5d4a): a session said `Done` on a connection
//! and kept writing control frames on it with no limit — the acceptor acknowledged data of
//! *another* flow that the opener carried on that connection (under SRPT any connection
//! carries any flow's bytes), because `wake_ctrl` picked the connection input last arrived
//! on, even once both sides had said `Done` and the connection was closing. Frames written
//! then were lost (the simulator's first driver closed at `ConnDone` and saw 50 MB flows
//! stall forever on lost credit). The contract now: after our `Done`, control frames may
//! still go until the peer's `Done` arrives, never after; each side stops writing at
//! `ConnDone` and reads until the peer's end of stream before `connection_closed`, as the
//! tunnel does.

use bytes::BytesMut;
use gtcp::wire::{Frame, FrameDecoder};
use gtcp::{Config, ConnId, Event, FlowId, Order, Policy, ReadOutcome, Role, Session};
use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

const T: Duration = Duration::ZERO;

fn frames(bytes: &[u8]) -> Vec<Frame> {
    let mut b = BytesMut::from(bytes);
    let d = FrameDecoder::new(gtcp::wire::MAX_PAYLOAD_CAP);
    let mut v = Vec::new();
    while let Some(f) = d.decode(&mut b).expect("valid frames") {
        v.push(f);
    }
    v
}

/// Two sessions wired back to back, connection by connection, in order, closing as the
/// tunnel does, with a checker of "nothing after both Done" and of refused input.
struct Pair {
    o: Session,
    a: Session,
    /// (side 0 = opener / 1 = acceptor, connection) that wrote Done.
    done: BTreeSet<(u8, u64)>,
    /// (side, connection) that received the peer's Done.
    got_done: BTreeSet<(u8, u64)>,
    /// Frames a side wrote on a connection after it had both sent and received Done.
    after_done: Vec<(u8, u64, Frame)>,
    /// (side, connection) that saw `ConnDone`: it writes nothing more (half-close).
    half_closed: BTreeSet<(u8, u64)>,
    /// Input refused because the receiving side had closed the connection.
    refused: usize,
    /// Bytes in transit: (to side, connection, bytes).
    wire: VecDeque<(u8, u64, BytesMut)>,
    closed: BTreeSet<(u8, u64)>,
    /// Connections told `ConnReady` whose `poll_transmit` has not returned 0 since.
    want: BTreeSet<(u8, u64)>,
    /// Close as `Event::ConnDone`'s doc says ("close it, then call `connection_closed`")
    /// instead of reading to the peer's end of stream first.
    close_at_conn_done: bool,
}

impl Pair {
    fn new(cfg: Config) -> Self {
        Pair {
            o: Session::new(Role::Opener, cfg).unwrap(),
            a: Session::new(Role::Acceptor, cfg).unwrap(),
            done: BTreeSet::new(),
            got_done: BTreeSet::new(),
            after_done: Vec::new(),
            half_closed: BTreeSet::new(),
            refused: 0,
            wire: VecDeque::new(),
            closed: BTreeSet::new(),
            want: BTreeSet::new(),
            close_at_conn_done: false,
        }
    }

    fn side(&mut self, s: u8) -> &mut Session {
        if s == 0 {
            &mut self.o
        } else {
            &mut self.a
        }
    }

    /// Side `s` writes what it has for connection `c`, at most `max` bytes (a writable
    /// socket's worth); it stays "wanting" until `poll_transmit` returns 0.
    fn poll(&mut self, s: u8, c: u64, max: usize) {
        let mut out = BytesMut::new();
        self.want.insert((s, c));
        loop {
            let room = max.saturating_sub(out.len());
            if room == 0 {
                break;
            }
            if self.side(s).poll_transmit(T, ConnId(c), &mut out, room) == 0 {
                self.want.remove(&(s, c));
                break;
            }
        }
        for f in frames(&out) {
            if self.done.contains(&(s, c)) && self.got_done.contains(&(s, c)) {
                self.after_done.push((s, c, f.clone()));
            }
            if f == Frame::Done {
                self.done.insert((s, c));
            }
        }
        if !out.is_empty() {
            self.wire.push_back((1 - s, c, out));
        }
    }

    /// Delivers everything in transit, acts on every event (applications read everything,
    /// the destination finishes its empty direction, `ConnDone` closes), until quiet.
    fn settle(&mut self, max: usize) {
        for _ in 0..10_000 {
            let mut busy = false;
            if let Some((s, c, mut b)) = self.wire.pop_front() {
                busy = true;
                if frames(&b).contains(&Frame::Done) {
                    self.got_done.insert((s, c));
                }
                if self.side(s).handle_input(T, ConnId(c), &mut b).is_err() {
                    self.refused += 1;
                }
            }
            // A side closes once it is half-closed and the peer's end of stream arrived:
            // the peer is half-closed and nothing from it is in transit.
            for s in [0u8, 1] {
                for c in self.half_closed.clone() {
                    if c.0 != s || self.closed.contains(&c) {
                        continue;
                    }
                    let peer = (1 - s, c.1);
                    let in_transit = self.wire.iter().any(|w| w.0 == s && w.1 == c.1);
                    if self.half_closed.contains(&peer) && !in_transit {
                        self.side(s).connection_closed(T, ConnId(c.1));
                        self.closed.insert(c);
                        busy = true;
                    }
                }
            }
            let wanting: Vec<(u8, u64)> = self.want.iter().copied().collect();
            for (s, c) in wanting {
                if self.half_closed.contains(&(s, c)) {
                    self.want.remove(&(s, c));
                    continue;
                }
                let before = self.wire.len();
                self.poll(s, c, max);
                busy |= self.wire.len() > before;
            }
            for s in [0u8, 1] {
                while let Some(e) = self.side(s).poll_event() {
                    busy = true;
                    match e {
                        Event::ConnReady(c) => self.poll(s, c.0, max),
                        Event::ConnDone(c) => {
                            self.half_closed.insert((s, c.0));
                            self.want.remove(&(s, c.0));
                            if self.close_at_conn_done {
                                self.side(s).connection_closed(T, c);
                                self.closed.insert((s, c.0));
                            }
                        }
                        Event::FlowOpened { flow, .. } => {
                            self.a.finish(flow).unwrap();
                            self.read_all(1, flow);
                        }
                        Event::FlowReadable(f) => self.read_all(s, f),
                        _ => {}
                    }
                }
            }
            if !busy {
                return;
            }
        }
        panic!("the sessions never settle");
    }

    fn read_all(&mut self, s: u8, f: FlowId) {
        while let Ok(ReadOutcome::Data(_)) = self.side(s).read(T, f, 1 << 20) {}
    }
}

/// The scenario that used to put acknowledgements after the acceptor's `Done`: flow A
/// (100 kB) on connection 1 finishes its reverse direction early; flow B (500 bytes) arrives
/// on connection 2 and SRPT carries its bytes on connection 1.
#[test]
fn no_frame_follows_done_and_nothing_is_refused() {
    let p = scenario(false);
    assert!(
        p.after_done.is_empty(),
        "frames written after both sides said Done: {:?}",
        p.after_done
    );
    assert_eq!(p.refused, 0, "input refused by a side that had closed");
    // Both connections closed on both sides, both flows are over everywhere.
    for s in [0u8, 1] {
        for c in [1u64, 2] {
            assert!(p.closed.contains(&(s, c)), "side {s} never closed conn {c}");
        }
    }
    assert!(p.o.is_idle() && p.a.is_idle(), "sessions hold state");
}

fn scenario(close_at_conn_done: bool) -> Pair {
    let cfg = Config {
        policy: Policy::new(Order::Srpt),
        chunk: 1000,
        ..Config::default()
    };
    let mut p = Pair::new(cfg);
    p.close_at_conn_done = close_at_conn_done;
    let fa = p.o.open_flow(T, None, "r", 0, Some(100_000)).unwrap();
    p.o.add_connection(ConnId(1), Some(fa)).unwrap();
    p.a.add_connection(ConnId(1), Some(fa)).unwrap();
    assert_eq!(p.o.write(fa, &[7u8; 100_000]).unwrap(), 100_000);
    p.o.finish(fa).unwrap();
    // A few small polls so that A is still sending when B arrives.
    for _ in 0..3 {
        p.poll(0, 1, 3000);
        while let Some((s, c, mut b)) = p.wire.pop_front() {
            p.side(s).handle_input(T, ConnId(c), &mut b).unwrap();
        }
        for s in [0u8, 1] {
            while let Some(e) = p.side(s).poll_event() {
                match e {
                    Event::FlowOpened { flow, .. } => {
                        p.a.finish(flow).unwrap();
                        p.read_all(1, flow);
                    }
                    Event::FlowReadable(f) => p.read_all(s, f),
                    Event::ConnReady(c) if s == 1 => p.poll(1, c.0, 1 << 20),
                    _ => {}
                }
            }
        }
    }
    let fb: FlowId = p.o.open_flow(T, None, "r", 0, Some(500)).unwrap();
    p.o.add_connection(ConnId(2), Some(fb)).unwrap();
    p.a.add_connection(ConnId(2), Some(fb)).unwrap();
    p.o.write(fb, &[9u8; 500]).unwrap();
    p.o.finish(fb).unwrap();
    p.poll(0, 1, 3000);
    p.poll(0, 2, 3000);
    p.settle(3000);
    p
}
