//! `SessionCounters::starved_micros`: time a connection owed bytes (q_v > 0) and the policy
//! had none it could send — time plain TCP's connection would have been sending. The
//! testbed's non-intrusiveness experiment reports it per run (issue 8).

use std::time::Duration;

use bytes::BytesMut;
use gtcp::flow::INITIAL_CREDIT;
use gtcp::wire::{AckFrame, Frame};
use gtcp::{Config, ConnId, Order, Policy, Role, Session};

const MIB: u64 = 1 << 20;

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// Polls `conn` at `now` until it writes nothing; returns the bytes written.
fn drain(s: &mut Session, now: Duration, conn: ConnId) -> usize {
    let mut total = 0;
    loop {
        let mut out = BytesMut::new();
        let n = s.poll_transmit(now, conn, &mut out, 1 << 20);
        if n == 0 {
            return total;
        }
        total += n;
    }
}

/// An opener whose one flow (on connection 1) handed over `bytes`, sent until the
/// credit a flow starts with (`INITIAL_CREDIT`) ran out at time 0.
fn held_by_credit(order: Order, bytes: u64) -> (Session, gtcp::FlowId) {
    let config = Config {
        policy: Policy::new(order),
        ..Config::default()
    };
    let mut s = Session::new(Role::Opener, config).expect("config");
    let f = s
        .open_flow(Duration::ZERO, None, "r", 0, None)
        .expect("open");
    s.add_connection(ConnId(1), Some(f)).expect("connection");
    let took = s.write(f, &vec![7u8; bytes as usize]).expect("write");
    assert_eq!(took as u64, bytes, "one send buffer's worth fits");
    let sent = drain(&mut s, Duration::ZERO, ConnId(1));
    assert!(sent as u64 >= INITIAL_CREDIT, "the first credit went out");
    assert!(
        s.flow_send_state(f).expect("flow").unsent > 0,
        "bytes wait for credit"
    );
    (s, f)
}

#[test]
fn a_connection_held_by_credit_counts_starved_time_until_it_sends_again() {
    for order in [Order::Tcp, Order::Srpt] {
        let (mut s, f) = held_by_credit(order, MIB);
        assert_eq!(s.counters().starved_micros, 0, "{order:?}: not counted yet");
        // 1.5 s later the receiver grants the rest; the next poll sends again.
        s.handle_frame(
            secs(1.5),
            ConnId(1),
            Frame::Ack(AckFrame {
                flow: f,
                received: INITIAL_CREDIT,
                credit: 4 * INITIAL_CREDIT,
                fin: false,
            }),
        )
        .expect("ack");
        assert!(
            drain(&mut s, secs(1.5), ConnId(1)) > 0,
            "{order:?}: sends again"
        );
        let c = s.counters();
        assert_eq!(c.starved_micros, 1_500_000, "{order:?}");
        assert_eq!(
            c.starved_by_credit_micros, 1_500_000,
            "{order:?}: credit held it"
        );
    }
}

#[test]
fn a_connection_that_owes_nothing_is_not_starved() {
    let config = Config::default();
    let mut s = Session::new(Role::Opener, config).expect("config");
    let f = s
        .open_flow(Duration::ZERO, None, "r", 0, None)
        .expect("open");
    s.add_connection(ConnId(1), Some(f)).expect("connection");
    s.write(f, &[1u8; 1000]).expect("write");
    drain(&mut s, Duration::ZERO, ConnId(1));
    // Everything went: the connection owes nothing, so idling is what plain TCP does.
    drain(&mut s, secs(3.0), ConnId(1));
    s.connection_closed(secs(5.0), ConnId(1));
    assert_eq!(s.counters().starved_micros, 0);
}

#[test]
fn a_connection_that_dies_while_starved_counts_until_it_closes() {
    let (mut s, _f) = held_by_credit(Order::Tcp, MIB);
    drain(&mut s, secs(0.25), ConnId(1));
    s.connection_closed(secs(2.0), ConnId(1));
    let c = s.counters();
    assert_eq!(c.starved_micros, 2_000_000);
    assert_eq!(c.starved_by_credit_micros, 2_000_000);
}
