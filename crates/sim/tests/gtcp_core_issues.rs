//! Minimal reproductions of gtcp core issues found while driving the core in the simulator
//! (`src/driver/schedtcp.rs` works around them). Each test states the *correct* behaviour
//! and is ignored until the core is fixed: `cargo test -p sim --test gtcp_core_issues --
//! --ignored` shows the failure.

use bytes::BytesMut;
use gtcp::wire::{Frame, FrameDecoder};
use gtcp::{Config, ConnId, Event, FlowId, Order, Policy, ReadOutcome, Role, Session};
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

fn poll(s: &mut Session, c: u64, max: usize) -> BytesMut {
    let mut out = BytesMut::new();
    while s.poll_transmit(T, ConnId(c), &mut out, max) > 0 {
        if out.len() >= max {
            break;
        }
    }
    out
}

fn drain_events(s: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

/// A session says `Done` on a connection, then keeps writing control frames on it: the
/// acceptor acknowledges data of *another* flow that the opener carried on that connection
/// (any connection may carry any flow's bytes under SRPT), and `wake_ctrl` picks the
/// connection input last arrived on even though this side has said `Done` there. Once the
/// peer has seen both `Done`s it closes the connection (`ConnDone` → `connection_closed`)
/// and `handle_input` refuses what follows (`UnknownConn`): the acknowledgement — possibly
/// the only one carrying a flow's final credit or the acknowledgement of its end — is lost.
/// In the packet simulator this stalled 50 MB flows forever.
#[test]
#[ignore = "gtcp core bug: control frames written on a connection after Done"]
fn no_frame_after_done_on_the_same_connection() {
    let cfg = Config {
        policy: Policy::new(Order::Srpt),
        chunk: 1000,
        ..Config::default()
    };
    let mut o = Session::new(Role::Opener, cfg).unwrap();
    let mut a = Session::new(Role::Acceptor, cfg).unwrap();

    // Flow A (100 kB) on connection 1.
    let fa = o.open_flow(T, None, "r", 0, Some(100_000)).unwrap();
    o.add_connection(ConnId(1), Some(fa)).unwrap();
    assert_eq!(o.write(fa, &[7u8; 100_000]).unwrap(), 100_000);
    o.finish(fa).unwrap();
    a.add_connection(ConnId(1), Some(fa)).unwrap();

    // A first burst of A reaches the acceptor, whose application reads it and finishes
    // its own (empty) direction.
    let mut b = poll(&mut o, 1, 3000);
    a.handle_input(T, ConnId(1), &mut b).unwrap();
    for e in drain_events(&mut a) {
        if let Event::FlowOpened { flow, .. } = e {
            a.finish(flow).unwrap();
        }
    }
    while let Ok(ReadOutcome::Data(_)) = a.read(T, fa, 1 << 20) {}
    let mut back = poll(&mut a, 1, 1 << 20);
    o.handle_input(T, ConnId(1), &mut back).unwrap();
    while let Ok(ReadOutcome::Data(_)) = o.read(T, fa, 1 << 20) {}
    let _ = o.read(T, fa, 1 << 20); // End of the acceptor's direction.
    drain_events(&mut o);

    // The opener acknowledges the acceptor's end (and sends more of A); the acceptor's
    // side of connection 1 is now over: it says Done.
    let mut b = poll(&mut o, 1, 3000);
    a.handle_input(T, ConnId(1), &mut b).unwrap();
    while let Ok(ReadOutcome::Data(_)) = a.read(T, fa, 1 << 20) {}
    let out = poll(&mut a, 1, 1 << 20);
    assert!(
        frames(&out).contains(&Frame::Done),
        "setup: the acceptor said Done on connection 1"
    );
    drain_events(&mut a);

    // Flow B (500 bytes) arrives on connection 2; SRPT puts its bytes on connection 1,
    // which still owes A's bytes.
    let fb: FlowId = o.open_flow(T, None, "r", 0, Some(500)).unwrap();
    o.add_connection(ConnId(2), Some(fb)).unwrap();
    o.write(fb, &[9u8; 500]).unwrap();
    o.finish(fb).unwrap();
    let mut b = poll(&mut o, 1, 3000);
    assert!(
        frames(&b)
            .iter()
            .any(|f| matches!(f, Frame::Data(d) if d.flow == fb)),
        "setup: connection 1 carries B's data"
    );
    a.handle_input(T, ConnId(1), &mut b).unwrap();

    // The acceptor now writes B's acknowledgement on connection 1, after its Done.
    let ready: Vec<ConnId> = drain_events(&mut a)
        .into_iter()
        .filter_map(|e| match e {
            Event::ConnReady(c) => Some(c),
            _ => None,
        })
        .collect();
    let mut after_done = Vec::new();
    for c in ready {
        if c == ConnId(1) {
            after_done.extend(frames(&poll(&mut a, 1, 1 << 20)));
        }
    }
    assert!(
        after_done.is_empty(),
        "the acceptor wrote {after_done:?} on connection 1 after saying Done there"
    );
}
