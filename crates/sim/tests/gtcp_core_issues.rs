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
//! tunnel does — the driver contract (`gtcp::driver`), which the shared two-endpoint harness
//! `gtcp::pair::Pair` follows and checks ("nothing after both Done" among its checks).

use bytes::Bytes;
use gtcp::pair::{Pair, Side, Source};
use gtcp::{Config, FlowId, Order, Policy};

/// The scenario that used to put acknowledgements after the acceptor's `Done`: flow A
/// (100 kB) on connection 1 finishes its reverse direction early; flow B (500 bytes) arrives
/// on connection 2 and SRPT carries its bytes on connection 1.
#[test]
fn no_frame_follows_done_and_nothing_is_refused() {
    let p = scenario();
    assert!(
        p.after_done.is_empty(),
        "frames written after both sides said Done: {:?}",
        p.after_done
    );
    assert_eq!(p.refused, 0, "input refused by a side that had closed");
    assert!(p.errors.is_empty(), "protocol errors: {:?}", p.errors);
    // Both connections closed on both sides, both flows are over everywhere.
    assert_eq!(p.conn_ids(), vec![], "connections left open");
    for s in Side::BOTH {
        for c in [1u64, 2] {
            assert!(
                p.closed.iter().any(|k| k.side == s && k.conn.0 == c),
                "{s:?} never closed conn {c}"
            );
        }
    }
    assert!(
        p.opener().is_idle() && p.acceptor().is_idle(),
        "sessions hold state"
    );
    if let Err(e) = p.check_end() {
        panic!("{e}");
    }
}

fn bytes(n: usize, b: u8) -> Source {
    Source::Bytes(Bytes::from(vec![b; n]))
}

fn scenario() -> Pair {
    let cfg = Config {
        policy: Policy::new(Order::Srpt),
        chunk: 1000,
        ..Config::default()
    };
    let mut p = Pair::new(cfg).unwrap();
    // Protocol errors are recorded and asserted on, not panics.
    p.strict = false;
    let fa = p
        .open_flow(None, "r", 0, Some(100_000), bytes(100_000, 7))
        .unwrap();
    let c1 = p.add_connection(Some(fa)).unwrap();
    assert_eq!(p.app_write(Side::Opener, fa, 100_000), 100_000);
    p.app_finish(Side::Opener, fa).unwrap();
    p.handle_events();
    // A few small polls so that A is still sending when B arrives; the acceptor answers in full.
    for _ in 0..3 {
        p.transmit(Side::Opener, c1, 3000);
        p.deliver_due();
        p.handle_events();
        p.transmit(Side::Acceptor, c1, 1 << 20);
        p.handle_events();
    }
    let fb: FlowId = p.open_flow(None, "r", 0, Some(500), bytes(500, 9)).unwrap();
    p.add_connection(Some(fb)).unwrap();
    assert_eq!(p.app_write(Side::Opener, fb, 500), 500);
    p.app_finish(Side::Opener, fb).unwrap();
    p.handle_events();
    assert!(p.pump(10_000, 3000), "the sessions never settle");
    p
}
