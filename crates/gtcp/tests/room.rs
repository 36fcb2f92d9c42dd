//! A burst's room is given back: the session's queues that a burst fills (events, control
//! frames, replies about forgotten flows, background flows waiting for admission) shrink back
//! to `gtcp::room::ROOM_FLOOR` slots once drained, instead of keeping the capacity of their
//! largest content for the session's life.

use std::time::Duration;

use gtcp::admission::{AdmissionConfig, Limit};
use gtcp::pair::{FlowSpec, Pair, Side};
use gtcp::room::ROOM_FLOOR;
use gtcp::wire::Frame;
use gtcp::{Config, FlowId, Role, Session};

const S: Duration = Duration::from_secs(1);

/// Room of `name` in `s`'s queues.
fn room(s: &Session, name: &str) -> usize {
    s.queue_room()
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, r)| r)
        .expect("a queue of that name")
}

/// Every queue of `s` is back within the floor (all those that are not, named).
fn assert_given_back(s: &Session, what: &str) {
    let kept: Vec<_> = s
        .queue_room()
        .into_iter()
        .filter(|&(_, r)| r > ROOM_FLOOR)
        .collect();
    assert!(
        kept.is_empty(),
        "{what}: {:?}'s queues keep room (floor {ROOM_FLOOR}): {kept:?}",
        s.role()
    );
}

#[test]
fn keepalives_of_thousands_of_connections_due_at_once_leave_no_room_behind() {
    const N: usize = 4000;
    let config = Config {
        keepalive: 2 * S,
        dead_peer: 60 * S,
        ..Config::default()
    };
    let mut p = Pair::new(config).unwrap();
    for _ in 0..N {
        p.add_connection(None).expect("a spare");
    }
    let max = p.profile.poll_max();
    assert!(p.pump(100, max), "quiet after the connections came");
    for side in Side::BOTH {
        p.session_mut(side).handle_timeout(Duration::ZERO);
    }
    assert!(p.pump(100, max));
    for side in Side::BOTH {
        let s = p.session_mut(side);
        s.handle_timeout(2 * S);
        assert!(
            room(s, "events") >= N,
            "the burst: every connection's keepalive due at once"
        );
    }
    assert!(p.pump(100, max), "the keepalives went out");
    for side in Side::BOTH {
        assert_given_back(p.session(side), "after the keepalives");
    }
}

#[test]
fn thousands_of_flows_acknowledged_at_once_leave_no_room_behind() {
    const N: usize = 1500;
    let config = Config {
        max_flows: N,
        ..Config::default()
    };
    let specs = (0..N)
        .map(|i| FlowSpec {
            start: 0,
            up: vec![i as u8; 100],
            down: vec![i as u8; 100],
        })
        .collect();
    let mut p = Pair::with_flows(config, specs, 1 << 20, 2);
    p.keep_received = false;
    let mut peak = [0usize; 2];
    for _ in 0..10_000 {
        p.step();
        for side in Side::BOTH {
            peak[side as usize] = peak[side as usize].max(room(p.session(side), "control"));
        }
        if p.finished() {
            break;
        }
    }
    assert!(p.finished(), "every transfer ended");
    assert!(
        peak[Side::Acceptor as usize] >= N,
        "the burst: every flow's acknowledgement waited at once (peak {peak:?})"
    );
    for side in Side::BOTH {
        assert_given_back(p.session(side), "after the flows");
    }

    // Frames about the flows the acceptor forgot: a reply each, as many as it keeps.
    let conn = p.add_connection(None).expect("a spare");
    let mut bytes = bytes::BytesMut::new();
    for i in 1..=N as u64 {
        Frame::Reset {
            flow: FlowId(i),
            code: 1,
        }
        .encode(&mut bytes);
    }
    p.inject(Side::Acceptor, conn, &bytes);
    assert!(
        room(p.acceptor(), "stale") >= 1024,
        "the burst: the replies waiting (room {})",
        room(p.acceptor(), "stale")
    );
    assert!(p.pump(100, p.profile.poll_max()), "the replies went out");
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_given_back(p.acceptor(), "after the replies");
}

#[test]
fn a_burst_of_background_flows_waiting_for_admission_leaves_no_room_behind() {
    const N: usize = 1000;
    let config = Config {
        max_flows: N + 1,
        ..Config::default()
    };
    let mut s = Session::new(Role::Opener, config).unwrap();
    s.set_admission(AdmissionConfig {
        limit: Limit::Fixed(1),
        max_waiting: N,
    })
    .unwrap();
    let flows: Vec<FlowId> = (0..=N)
        .map(|_| {
            s.open_background_flow(Duration::ZERO, "bg", 0, None)
                .unwrap()
                .0
        })
        .collect();
    assert_eq!(s.admission().map(|a| a.waiting()), Some(N));
    assert!(room(&s, "admission") >= N, "the burst: all waiting");
    // Half leave while waiting, then each admitted flow ends in turn and the next comes in.
    for &f in flows.iter().skip(1).step_by(2) {
        s.reset(Duration::ZERO, f, 1).unwrap();
    }
    for &f in flows.iter().step_by(2) {
        s.reset(Duration::ZERO, f, 1).unwrap();
    }
    while s.poll_event().is_some() {}
    assert_eq!(
        s.admission().map(|a| (a.active(), a.waiting())),
        Some((0, 0))
    );
    // (Their resets wait in the control queue for a connection: only the admission's queue
    // is drained here.)
    assert!(
        room(&s, "admission") <= ROOM_FLOOR,
        "the waiting queue keeps room for {} (floor {ROOM_FLOOR}); control backlog {}",
        room(&s, "admission"),
        s.control_backlog()
    );
}
