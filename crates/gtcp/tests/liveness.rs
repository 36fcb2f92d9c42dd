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
        origin: None,
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

/// Moves bytes both ways between an opener and an acceptor joined by connection 1 until
/// neither has anything to send; returns whether both saw the connection close (`ConnDone`).
fn pump(o: &mut Session, a: &mut Session) -> (bool, bool) {
    let (mut o_done, mut a_done) = (false, false);
    for _ in 0..1000 {
        let mut moved = false;
        for opener_sends in [true, false] {
            let (from, to) = if opener_sends {
                (&mut *o, &mut *a)
            } else {
                (&mut *a, &mut *o)
            };
            let mut b = BytesMut::new();
            if from.poll_transmit(T0, ConnId(1), &mut b, 1 << 20) > 0 {
                moved = true;
                to.handle_input(T0, ConnId(1), &mut b).unwrap();
            }
        }
        for (s, done) in [(&mut *o, &mut o_done), (&mut *a, &mut a_done)] {
            while let Some(e) = s.poll_event() {
                if let gtcp::Event::FlowReadable(f) = e {
                    while let Ok(gtcp::ReadOutcome::Data(_)) = s.read(T0, f, 1 << 20) {}
                }
                *done |= matches!(e, gtcp::Event::ConnDone(_));
            }
        }
        if !moved {
            break;
        }
    }
    (o_done, a_done)
}

#[test]
fn a_flow_reset_with_data_in_flight_releases_its_connection_and_is_forgotten() {
    let mut o = Session::new(Role::Opener, Config::default()).unwrap();
    let mut a = Session::new(Role::Acceptor, Config::default()).unwrap();
    let f = o.open_flow(T0, None, "r", 0, None).unwrap();
    o.add_connection(ConnId(1), Some(f)).unwrap();
    a.add_connection(ConnId(1), Some(f)).unwrap();
    o.write(f, &[7u8; 100_000]).unwrap();
    // Data goes out but its acknowledgement never comes back before the application resets.
    let mut b = BytesMut::new();
    assert!(o.poll_transmit(T0, ConnId(1), &mut b, 1 << 20) > 0);
    a.handle_input(T0, ConnId(1), &mut b).unwrap();
    while a.poll_event().is_some() {}
    o.reset(T0, f, 1).unwrap();
    let (o_done, a_done) = pump(&mut o, &mut a);
    assert!(
        o_done && a_done,
        "the connection closes on both sides: {o_done} {a_done}"
    );
    o.connection_closed(T0, ConnId(1));
    a.connection_closed(T0, ConnId(1));
    assert_eq!(o.flow_ids().count(), 0, "opener forgot the flow");
    assert_eq!(a.flow_ids().count(), 0, "acceptor forgot the flow");
}

#[test]
fn a_half_closed_flow_the_acceptor_resets_releases_its_connection_and_is_forgotten() {
    let mut o = Session::new(Role::Opener, Config::default()).unwrap();
    let mut a = Session::new(Role::Acceptor, Config::default()).unwrap();
    let f = o.open_flow(T0, None, "r", 0, None).unwrap();
    o.add_connection(ConnId(1), Some(f)).unwrap();
    a.add_connection(ConnId(1), Some(f)).unwrap();
    o.write(f, b"request").unwrap();
    o.finish(f).unwrap();
    // Opening, data and end go out; the target refuses before anything is acknowledged.
    let mut b = BytesMut::new();
    assert!(o.poll_transmit(T0, ConnId(1), &mut b, 1 << 20) > 0);
    a.handle_input(T0, ConnId(1), &mut b).unwrap();
    while a.poll_event().is_some() {}
    a.reset(T0, f, 2).unwrap();
    let (o_done, a_done) = pump(&mut o, &mut a);
    assert!(o_done && a_done, "the connection closes on both sides");
    o.connection_closed(T0, ConnId(1));
    a.connection_closed(T0, ConnId(1));
    assert_eq!(o.flow_ids().count(), 0, "opener forgot the flow");
    assert_eq!(a.flow_ids().count(), 0, "acceptor forgot the flow");
}

#[test]
fn a_flow_that_lost_its_connection_and_was_reset_is_forgotten_once_the_reset_is_settled() {
    let mut o = Session::new(Role::Opener, Config::default()).unwrap();
    let mut a = Session::new(Role::Acceptor, Config::default()).unwrap();
    let f = o.open_flow(T0, None, "r", 0, None).unwrap();
    o.add_connection(ConnId(1), Some(f)).unwrap();
    a.add_connection(ConnId(1), Some(f)).unwrap();
    o.write(f, &[1u8; 50_000]).unwrap();
    let mut b = BytesMut::new();
    o.poll_transmit(T0, ConnId(1), &mut b, 1 << 20);
    a.handle_input(T0, ConnId(1), &mut b).unwrap();
    // The connection dies; no replacement comes, and the driver gives up on the flow.
    o.connection_closed(T0, ConnId(1));
    a.connection_closed(T0, ConnId(1));
    o.reset(T0, f, 4).unwrap();
    assert_eq!(
        o.flow_ids().count(),
        1,
        "the reset must reach the peer first"
    );
    // Another flow's connection carries the reset; the peer confirms.
    let g = o.open_flow(T0, None, "r", 0, None).unwrap();
    o.add_connection(ConnId(1), Some(g)).unwrap();
    a.add_connection(ConnId(1), Some(g)).unwrap();
    o.finish(g).unwrap();
    pump(&mut o, &mut a);
    a.finish(g).unwrap();
    let (o_done, a_done) = pump(&mut o, &mut a);
    assert!(o_done && a_done, "flow g's connection closes");
    o.connection_closed(T0, ConnId(1));
    a.connection_closed(T0, ConnId(1));
    assert!(
        !o.flow_ids().any(|x| x == f),
        "the opener forgot the reset flow"
    );
    assert!(!a.flow_ids().any(|x| x == f), "so did the acceptor");
}
