//! Issue 16, attacks 2 and 3 on the core, measured on the heap: what an authenticated but
//! hostile opener can make an acceptor hold with one-byte out-of-order segments, data for flows
//! it never opens, and the same opening repeated. Frames arrive as the tunnel delivers them:
//! decoded out of 256 KiB read buffers (`gtcp::driver::APP_READ`), so a payload kept as a slice
//! would pin its buffer.
//!
//! A counting allocator measures the bytes the session holds, per thread (each test's session
//! lives on its test's thread, so the tests run in parallel).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use common::{feed, READ_BUFFER};
use gtcp::session::caps::{MAX_OOO_SEGMENTS, MAX_UNOPENED_FLOWS};
use gtcp::wire::{DataFrame, Frame, OpenFrame};
use gtcp::{Config, ConnId, FlowId, ProtocolError, Role, Session};

/// Live heap bytes of the process.
struct Counting;

thread_local! {
    /// Live heap bytes allocated (less those freed) by this thread: the test harness's own
    /// threads (results, captured output) allocate while a test runs and must not count.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

/// Adds `d` to this thread's count (nothing while the thread is being torn down).
fn count(d: isize) {
    let _ = LIVE.try_with(|c| c.set(c.get() + d));
}

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size() as isize);
        // SAFETY: same layout as asked.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(-(l.size() as isize));
        // SAFETY: `p` came from `alloc` with this layout.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

const WEB: &str = "web";

fn acceptor() -> Session {
    let mut s = Session::new(Role::Acceptor, Config::default()).unwrap();
    s.add_connection(ConnId(1), Some(FlowId(1))).unwrap();
    s
}

fn open(flow: u64) -> Frame {
    Frame::Open(OpenFrame {
        flow: FlowId(flow),
        route: WEB.into(),
        class: 0,
        size_hint: None,
        origin: None,
    })
}

fn data(flow: u64, offset: u64, len: usize) -> Frame {
    Frame::Data(DataFrame {
        flow: FlowId(flow),
        offset,
        payload: Bytes::from(vec![7u8; len]),
    })
}

/// Heap bytes the session holds after `attack` (buffers dropped, the session kept).
fn held_after(
    attack: impl FnOnce(&mut Session) -> Result<(), ProtocolError>,
) -> (isize, Result<(), ProtocolError>) {
    let mut s = acceptor();
    let before = LIVE.with(Cell::get);
    let r = attack(&mut s);
    let held = LIVE.with(Cell::get) - before;
    eprintln!("held {held} bytes; {r:?}");
    drop(s);
    (held, r)
}

/// Attack 2: 131 072 one-byte segments, each one byte above a gap (so none is contiguous).
/// Before issue 16 the session kept them all, each a slice pinning its 256 KiB read buffer:
/// 12.7 MB held for one flow against the documented 1 MiB window. Now the segment beyond
/// [`MAX_OOO_SEGMENTS`] is a protocol error, and what is held is copied: within the window plus
/// about 100 bytes per held segment.
#[test]
fn one_byte_out_of_order_segments_stay_within_the_window() {
    let (held, r) = held_after(|s| {
        feed(
            s,
            std::iter::once(open(1)).chain((0..131_072u64).map(|i| data(1, 2 * i + 1, 1))),
        )
    });
    assert!(
        matches!(
            r,
            Err(ProtocolError::Flow {
                source: gtcp::flow::RecvError::TooManySegments,
                ..
            })
        ),
        "{r:?}"
    );
    let bound = Config::default().flow_window as isize + 128 * MAX_OOO_SEGMENTS as isize;
    assert!(held < bound, "{held} bytes held, bound {bound}");
}

/// A flow's in-order bytes in one-byte frames cost their bytes, not a buffer each.
#[test]
fn one_byte_in_order_segments_cost_their_bytes() {
    let n = 200_000u64;
    let (held, r) = held_after(|s| {
        feed(
            s,
            std::iter::once(open(1)).chain((0..n).map(|i| data(1, i, 1))),
        )
    });
    r.unwrap();
    // The bytes (blocks that double in size up to 64 KiB), plus the event queue's capacity, which
    // keeps the largest burst one `handle_input` produced: one event per one-byte frame of a
    // read buffer (about 12 000 of 22 bytes), ~120 bytes each.
    let events = (READ_BUFFER / 22 * 128) as isize;
    assert!(
        held < 2 * n as isize + events,
        "{held} bytes held for {n} bytes"
    );
}

/// Attack 2, second half: data for flows never opened. Before, each created a flow that was
/// never read nor forgotten (up to `max_flows` = 4096 of them); now the flow beyond
/// [`MAX_UNOPENED_FLOWS`] is a protocol error.
#[test]
fn flows_named_without_an_opening_are_capped() {
    let (held, r) = held_after(|s| feed(s, (1..=4096u64).map(|f| data(f, 0, 16 * 1024))));
    assert_eq!(r, Err(ProtocolError::TooManyUnopened(MAX_UNOPENED_FLOWS)));
    let bound = MAX_UNOPENED_FLOWS as isize * (16 * 1024 + 4096);
    assert!(held < bound, "{held} bytes held, bound {bound}");
}

/// Issue 8: a flow whose connection was added before its opening arrived is not a flow named
/// before its opening: that connection's first frame must open it, and it is bounded by the
/// connections. Counting it refused every connection beyond the 256th of a client opening
/// more flows at once (and the two-endpoint harness retried them forever). Flows named by
/// frames alone stay capped, and a flow whose connection closed before its first frame counts
/// again.
#[test]
fn flows_awaiting_their_opening_on_their_connection_are_not_capped() {
    let now = Duration::ZERO;
    let mut s = Session::new(Role::Acceptor, Config::default()).unwrap();
    let awaiting = 2 * MAX_UNOPENED_FLOWS as u64;
    for i in 1..=awaiting {
        let r = s.add_connection(ConnId(i), Some(FlowId(i)));
        assert_eq!(r, Ok(()), "connection {i} awaiting its flow's opening");
    }
    s.handle_frame(now, ConnId(1), open(1)).unwrap();
    // Data for flows with no connection yet: all but one of the cap's worth are taken.
    let named = 1000..1000 + MAX_UNOPENED_FLOWS as u64 - 1;
    for f in named {
        s.handle_frame(now, ConnId(1), data(f, 0, 10)).unwrap();
    }
    // Flow 2's connection dies before its first frame: flow 2 counts now, the cap is reached.
    s.connection_closed(now, ConnId(2));
    assert_eq!(
        s.handle_frame(now, ConnId(1), data(5000, 0, 10)),
        Err(ProtocolError::TooManyUnopened(MAX_UNOPENED_FLOWS))
    );
    // Its opening on a spare connection frees the place of a flow named by frames alone.
    let spare = ConnId(awaiting + 1);
    s.add_connection(spare, None).unwrap();
    s.handle_frame(now, spare, open(1000)).unwrap();
    s.handle_frame(now, ConnId(1), data(5000, 0, 10)).unwrap();
    assert_eq!(
        s.handle_frame(now, ConnId(1), data(5001, 0, 10)),
        Err(ProtocolError::TooManyUnopened(MAX_UNOPENED_FLOWS))
    );
}

/// Attack 3: the same opening repeated. Before, each queued another control frame (6 M
/// openings: +47 MB, kept after the connection closed); now a repeated opening is a no-op.
#[test]
fn a_repeated_opening_queues_nothing_more() {
    let mut backlog = 0;
    let (held, r) = held_after(|s| {
        let r = feed(s, (0..1_000_000).map(|_| open(1)));
        backlog = s.control_backlog();
        r
    });
    r.unwrap();
    assert_eq!(backlog, 1, "one acknowledgement waits for the flow");
    assert!(held < 64 * 1024, "{held} bytes held");
}

/// The session's bound on out-of-order segments, between two sessions: honest flows run,
/// their frames cut small (`chunk` = 512 bytes) and the policy spreading them over every
/// connection, while a key holder's connection of the same session sends one-byte segments
/// above gaps for [`MAX_UNOPENED_FLOWS`] flows never opened, spread so that no flow reaches its
/// own cap. The acceptor never holds more than [`MAX_SESSION_OOO_SEGMENTS`], refuses the
/// segment beyond on the connection that carried it (it dies), and the honest flows deliver
/// every byte of both directions.
#[test]
fn the_session_bound_on_out_of_order_segments_spares_the_honest_flows() {
    use gtcp::flow::RecvError;
    use gtcp::pair::{FlowSpec, Pair, Side};
    use gtcp::session::caps::MAX_SESSION_OOO_SEGMENTS;
    use gtcp::{Order, Policy};
    let config = Config {
        chunk: 512,
        policy: Policy::new(Order::Fair),
        ..Config::default()
    };
    let specs = FlowSpec::from_sizes((0..6).map(|i| (i, 200_000, 300_000)).collect());
    let mut p = Pair::with_flows(config, specs.clone(), 4096, 3);
    p.strict = false;
    for _ in 0..10 {
        p.step();
    }
    let attacker = p.add_connection(None).expect("the key holder's connection");
    let flows = MAX_UNOPENED_FLOWS as u64;
    let per_flow = (MAX_SESSION_OOO_SEGMENTS / MAX_UNOPENED_FLOWS) as u64;
    let first = 1 << 20;
    let frames =
        (1..=per_flow + 1).flat_map(|i| (first..first + flows).map(move |f| data(f, 2 * i, 1)));
    let mut buf = BytesMut::new();
    let mut sent = 0u64;
    for f in frames {
        f.encode(&mut buf);
        sent += 1;
        if buf.len() >= READ_BUFFER {
            p.inject(Side::Acceptor, attacker, &buf);
            buf.clear();
            let held = p.acceptor().out_of_order_segments();
            assert!(held <= MAX_SESSION_OOO_SEGMENTS, "{held} segments held");
            if !p.errors.is_empty() {
                break;
            }
            // The honest flows go on meanwhile.
            p.step();
        }
    }
    if p.errors.is_empty() {
        p.inject(Side::Acceptor, attacker, &buf);
    }
    let errors: Vec<_> = p
        .errors
        .iter()
        .map(|(side, c, e)| (*side, *c, e.clone()))
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (side, conn, e) = &errors[0];
    assert_eq!((*side, *conn), (Side::Acceptor, attacker));
    assert!(
        matches!(
            e,
            ProtocolError::Flow {
                source: RecvError::TooManySessionSegments,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        sent > MAX_SESSION_OOO_SEGMENTS as u64,
        "{sent} segments sent"
    );
    assert_eq!(
        p.acceptor().out_of_order_segments(),
        MAX_SESSION_OOO_SEGMENTS
    );
    assert!(p.run(200_000), "the honest flows did not finish");
    for (i, spec) in specs.iter().enumerate() {
        let r = p.result(p.ids[i].expect("started"));
        assert!(!r.reset, "flow {i} was reset");
        assert!(r.up_received == spec.up, "flow {i}: upload differs");
        assert!(r.down_received == spec.down, "flow {i}: download differs");
    }
}
