//! A flow's opening carries its application's addresses when the opener gives them, and the
//! acceptor reports them with the flow.

use std::time::Duration;

use bytes::BytesMut;
use gtcp::wire::Origin;
use gtcp::{Config, ConnId, Event, Role, Session};

const T0: Duration = Duration::ZERO;

fn opened(origin: Option<Origin>) -> Option<Option<Origin>> {
    let mut o = Session::new(Role::Opener, Config::default()).unwrap();
    let mut a = Session::new(Role::Acceptor, Config::default()).unwrap();
    let f = o.open_flow(T0, None, "web", 0, None).unwrap();
    if let Some(g) = origin {
        o.set_origin(f, g).unwrap();
    }
    o.add_connection(ConnId(1), Some(f)).unwrap();
    a.add_connection(ConnId(1), Some(f)).unwrap();
    let mut b = BytesMut::new();
    assert!(o.poll_transmit(T0, ConnId(1), &mut b, 1 << 20) > 0);
    a.handle_input(T0, ConnId(1), &mut b).unwrap();
    std::iter::from_fn(|| a.poll_event()).find_map(|e| match e {
        Event::FlowOpened { origin, .. } => Some(origin),
        _ => None,
    })
}

#[test]
fn the_acceptor_sees_the_origin_the_opener_set_and_none_otherwise() {
    let g = Origin {
        source: "[2001:db8::5]:40000".parse().unwrap(),
        destination: "127.0.0.1:8080".parse().unwrap(),
    };
    assert_eq!(opened(Some(g)), Some(Some(g)));
    assert_eq!(opened(None), Some(None));
}

#[test]
fn setting_the_origin_of_an_unknown_flow_is_an_error() {
    let mut o = Session::new(Role::Opener, Config::default()).unwrap();
    let g = Origin {
        source: "192.0.2.1:1".parse().unwrap(),
        destination: "192.0.2.2:2".parse().unwrap(),
    };
    assert!(o.set_origin(gtcp::FlowId(9), g).is_err());
}
