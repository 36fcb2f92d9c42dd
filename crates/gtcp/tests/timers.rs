//! The session keeps its own clocks (`Session::poll_timeout` / `handle_timeout`): a
//! connection that sent nothing for `keepalive` carries a keepalive frame, one that received
//! nothing for `dead_peer` is reported dead, once.

use std::time::Duration;

use bytes::BytesMut;
use gtcp::{Config, ConnId, Event, Role, Session};

const S: Duration = Duration::from_secs(1);

fn events(s: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

#[test]
fn keepalive_and_dead_peer_come_at_the_configured_times() {
    let config = Config {
        keepalive: 2 * S,
        dead_peer: 7 * S,
        ..Config::default()
    };
    let mut s = Session::new(Role::Opener, config).unwrap();
    assert_eq!(s.poll_timeout(), None, "no connection, no timer");
    let c = ConnId(1);
    s.add_connection(c, None).unwrap();
    assert_eq!(
        s.poll_timeout(),
        Some(Duration::ZERO),
        "a new connection's clocks start"
    );
    s.handle_timeout(10 * S);
    events(&mut s);
    let mut out = BytesMut::new();
    assert_eq!(
        s.poll_transmit(10 * S, c, &mut out, 1 << 16),
        0,
        "nothing to send yet"
    );
    assert_eq!(
        s.poll_timeout(),
        Some(12 * S),
        "keepalive due two seconds after the start"
    );
    s.handle_timeout(11 * S);
    assert!(events(&mut s).is_empty(), "nothing due before the deadline");
    s.handle_timeout(12 * S);
    assert_eq!(events(&mut s), vec![Event::ConnReady(c)]);
    assert_eq!(
        s.poll_transmit(12 * S, c, &mut out, 1 << 16),
        1,
        "the keepalive frame"
    );
    assert_eq!(
        s.poll_transmit(12 * S, c, &mut out, 1 << 16),
        0,
        "and only one"
    );
    assert_eq!(s.poll_timeout(), Some(14 * S));
    // Bytes from the peer restart the dead-peer clock.
    let mut keepalive = BytesMut::from(&out[..]);
    s.handle_input(13 * S, c, &mut keepalive).unwrap();
    s.handle_timeout(14 * S);
    assert_eq!(events(&mut s), vec![Event::ConnReady(c)]);
    assert_eq!(s.poll_transmit(14 * S, c, &mut out, 1 << 16), 1);
    assert_eq!(s.poll_timeout(), Some(16 * S));
    for t in [16, 18] {
        s.handle_timeout(t * S);
        events(&mut s);
        assert_eq!(s.poll_transmit(t * S, c, &mut out, 1 << 16), 1);
    }
    // Last byte received at 13 s: dead at 20 s, not before, and reported once.
    assert_eq!(s.poll_timeout(), Some(20 * S));
    s.handle_timeout(20 * S - Duration::from_nanos(1));
    assert!(!events(&mut s).contains(&Event::ConnDead(c)));
    s.handle_timeout(20 * S);
    assert!(events(&mut s).contains(&Event::ConnDead(c)));
    s.handle_timeout(30 * S);
    assert!(!events(&mut s).contains(&Event::ConnDead(c)));
}

#[test]
fn the_timers_are_validated() {
    let bad = Config {
        keepalive: 5 * S,
        dead_peer: 9 * S,
        ..Config::default()
    };
    let e = bad.validate().unwrap_err().to_string();
    assert!(
        e.contains("dead_peer_secs must be at least twice keepalive_secs (10)"),
        "{e}"
    );
    let e = Config {
        keepalive: Duration::ZERO,
        ..Config::default()
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(e.contains("keepalive_secs"), "{e}");
}
