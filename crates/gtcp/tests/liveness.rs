//! Liveness in the core: a `GoAway` concerns only the peer instance that sent it, and the
//! acceptor's retired-flow bookkeeping stays bounded whatever gaps the flow ids have.

use std::time::Duration;

use bytes::BytesMut;
use gtcp::wire::{Frame, OpenFrame};
use gtcp::{Config, ConnId, FlowId, Role, Session, SessionError, MAX_RETIRED_ABOVE};

const T0: Duration = Duration::ZERO;

fn feed(s: &mut Session, conn: u64, frames: &[Frame]) {
    let mut b = BytesMut::new();
    for f in frames {
        f.encode(&mut b);
    }
    s.handle_input(T0, ConnId(conn), &mut b).unwrap();
}

fn open(flow: u64) -> Frame {
    Frame::Open(OpenFrame {
        flow: FlowId(flow),
        route: "r".into(),
        class: 0,
        size_hint: None,
    })
}

#[test]
fn go_away_refuses_flows_only_while_the_instance_that_sent_it_is_the_only_one() {
    let mut s = Session::new(Role::Opener, Config::default()).unwrap();
    let f = s.open_flow(T0, None, "r", 0, None).unwrap();
    s.add_connection(ConnId(1), Some(f)).unwrap();
    feed(&mut s, 1, &[Frame::GoAway]);
    assert!(s.peer_going_away());
    assert_eq!(
        s.open_flow(T0, None, "r", 0, None),
        Err(SessionError::GoingAway)
    );
    // A connection the (restarted) server accepted after the GoAway: flows open again.
    s.add_connection(ConnId(2), None).unwrap();
    assert!(!s.peer_going_away());
    let g = s.open_flow(T0, Some(ConnId(2)), "r", 0, None).unwrap();
    assert_ne!(f, g);
    // The old instance's connection dies; the new one says GoAway in turn.
    s.connection_closed(T0, ConnId(1));
    feed(&mut s, 2, &[Frame::GoAway]);
    assert!(s.peer_going_away());
    // Every connection of that instance gone: the next flow asks for a new connection and the
    // server's handshake answer decides.
    s.connection_closed(T0, ConnId(2));
    assert!(!s.peer_going_away());
    assert!(s.open_flow(T0, None, "r", 0, None).is_ok());
}

/// Opens flow `id` on its own connection, resets it from the opener, and closes the connection:
/// the acceptor retires it.
fn reset_flow(s: &mut Session, id: u64) {
    s.add_connection(ConnId(id), Some(FlowId(id))).unwrap();
    feed(
        s,
        id,
        &[
            open(id),
            Frame::Reset {
                flow: FlowId(id),
                code: 1,
            },
        ],
    );
    s.connection_closed(T0, ConnId(id));
}

#[test]
fn retired_ids_stay_bounded_after_a_gap_and_the_gap_reads_as_retired() {
    let mut s = Session::new(Role::Acceptor, Config::default()).unwrap();
    // Flow 1 never reaches this side (the opener gave up on it).
    let n = MAX_RETIRED_ABOVE as u64 + 500;
    for id in 2..=n {
        reset_flow(&mut s, id);
        assert!(s.retired_tracked() <= MAX_RETIRED_ABOVE, "at flow {id}");
    }
    assert_eq!(s.flow_ids().count(), 0, "every flow retired");
    assert!(s.retired_tracked() < 10, "{}", s.retired_tracked());
    // A late connection for the lost id is taken for a finished flow, not a new one.
    s.add_connection(ConnId(1), Some(FlowId(1))).unwrap();
    feed(&mut s, 1, &[open(1)]);
    assert_eq!(s.flow_ids().count(), 0);
    // Later flows are still accepted.
    reset_flow(&mut s, n + 1);
    let mut none = Session::new(Role::Acceptor, Config::default()).unwrap();
    for id in 1..=200 {
        reset_flow(&mut none, id);
    }
    assert_eq!(none.retired_tracked(), 0, "no gap, nothing kept one by one");
}
