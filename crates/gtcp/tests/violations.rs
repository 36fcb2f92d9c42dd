//! A peer that breaks the rules gets an error for the connection it used; nothing else breaks.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use gtcp::wire::{AckFrame, DataFrame, Frame, OpenFrame};
use gtcp::{Config, ConnId, FlowId, ProtocolError, Role, Session, INITIAL_CREDIT};

fn acceptor() -> Session {
    let mut s = Session::new(Role::Acceptor, Config::default()).unwrap();
    s.add_connection(ConnId(1), Some(FlowId(1))).unwrap();
    s.add_connection(ConnId(2), Some(FlowId(2))).unwrap();
    s
}

fn feed(s: &mut Session, conn: u64, frames: &[Frame]) -> Result<(), ProtocolError> {
    let mut b = BytesMut::new();
    for f in frames {
        f.encode(&mut b);
    }
    s.handle_input(Duration::ZERO, ConnId(conn), &mut b)
}

/// Everything readable now, in order.
fn read_all(s: &mut Session, flow: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while let Ok(gtcp::ReadOutcome::Data(b)) = s.read(Duration::ZERO, FlowId(flow), 1 << 20) {
        out.extend_from_slice(&b);
    }
    out
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

fn data(flow: u64, offset: u64, n: usize) -> Frame {
    Frame::Data(DataFrame {
        flow: FlowId(flow),
        offset,
        payload: Bytes::from(vec![1u8; n]),
    })
}

#[test]
fn data_beyond_credit_is_a_violation_and_other_flows_go_on() {
    let mut s = acceptor();
    feed(&mut s, 1, &[open(1), data(1, 0, 100)]).unwrap();
    feed(&mut s, 2, &[open(2)]).unwrap();
    let err = feed(&mut s, 2, &[data(2, INITIAL_CREDIT, 1)]).unwrap_err();
    assert!(matches!(err, ProtocolError::Flow { .. }), "{err}");
    s.connection_closed(Duration::ZERO, ConnId(2));
    // Flow 1 is untouched.
    feed(&mut s, 1, &[data(1, 100, 50)]).unwrap();
    assert_eq!(read_all(&mut s, 1).len(), 150);
}

#[test]
fn impossible_flow_ids_and_a_second_handshake_are_violations() {
    let mut s = acceptor();
    // Ids up to `MAX_FLOW_ID` are possible however far above those seen (an honest opener
    // spends ids on flows that never reach the acceptor); beyond it they are not.
    let far = 1 + 2 * Config::default().max_flows as u64 + 10;
    assert_eq!(feed(&mut s, 1, &[data(far, 0, 1)]), Ok(()));
    assert!(matches!(
        feed(&mut s, 1, &[data(gtcp::session::MAX_FLOW_ID + 1, 0, 1)]),
        Err(ProtocolError::ImpossibleFlow(_))
    ));
    let mut b = BytesMut::new();
    gtcp::wire::handshake::ClientHello::new(true).encode(&mut b);
    assert!(matches!(
        s.handle_input(Duration::ZERO, ConnId(1), &mut b),
        Err(ProtocolError::Wire(_))
    ));
    let mut junk = BytesMut::from(&[0x77u8, 1, 2, 3][..]);
    assert!(s
        .handle_input(Duration::ZERO, ConnId(2), &mut junk)
        .is_err());
}

#[test]
fn frames_may_arrive_before_the_frame_that_opens_their_flow() {
    let mut s = acceptor();
    feed(
        &mut s,
        2,
        &[
            data(1, 5, 5),
            Frame::Fin {
                flow: FlowId(1),
                final_size: 10,
            },
        ],
    )
    .unwrap();
    assert!(
        !std::iter::from_fn(|| s.poll_event()).any(|e| matches!(e, gtcp::Event::FlowOpened { .. }))
    );
    // On its own connection the opening comes first (the acceptor resets a flow whose
    // connection starts with anything else: it was opened with another instance).
    feed(&mut s, 1, &[open(1), data(1, 0, 5)]).unwrap();
    let events: Vec<_> = std::iter::from_fn(|| s.poll_event()).collect();
    assert!(events.iter().any(|e| matches!(
        e,
        gtcp::Event::FlowOpened {
            flow: FlowId(1),
            ..
        }
    )));
    assert_eq!(read_all(&mut s, 1).len(), 10);
    assert_eq!(
        s.read(Duration::ZERO, FlowId(1), 1).unwrap(),
        gtcp::ReadOutcome::End
    );
}

#[test]
fn an_opener_refuses_opens_and_acks_of_bytes_never_sent() {
    let mut s = Session::new(Role::Opener, Config::default()).unwrap();
    let f = s.open_flow(Duration::ZERO, None, "r", 0, None).unwrap();
    s.add_connection(ConnId(1), Some(f)).unwrap();
    assert!(matches!(
        feed(&mut s, 1, &[open(1)]),
        Err(ProtocolError::OpenFromAcceptor(_))
    ));
    let ack = Frame::Ack(AckFrame {
        flow: f,
        received: 10,
        credit: 10,
        fin: false,
    });
    assert!(matches!(
        feed(&mut s, 1, &[ack]),
        Err(ProtocolError::AckBeyondSent { .. })
    ));
    assert!(matches!(
        feed(&mut s, 1, &[data(9, 0, 1)]),
        Err(ProtocolError::ImpossibleFlow(_))
    ));
}

#[test]
fn go_away_is_announced_once_per_connection() {
    let mut s = acceptor();
    s.go_away();
    for conn in [1, 2] {
        let mut out = BytesMut::new();
        assert_eq!(
            s.poll_transmit(Duration::ZERO, ConnId(conn), &mut out, 1 << 16),
            1
        );
        assert_eq!(&out[..], &[0x08], "one GoAway frame");
        assert_eq!(
            s.poll_transmit(Duration::ZERO, ConnId(conn), &mut out, 1 << 16),
            0,
            "then nothing"
        );
    }
}

#[test]
fn poll_transmit_never_writes_more_than_asked() {
    let mut s = Session::new(Role::Opener, Config::default()).unwrap();
    let f = s
        .open_flow(Duration::ZERO, None, "a-route-name", 0, None)
        .unwrap();
    s.add_connection(ConnId(1), Some(f)).unwrap();
    s.write(f, &[3u8; 5000]).unwrap();
    s.finish(f).unwrap();
    let mut out = BytesMut::new();
    assert_eq!(s.poll_transmit(Duration::ZERO, ConnId(1), &mut out, 0), 0);
    assert!(out.is_empty());
    let mut total = 0;
    for _ in 0..200 {
        let before = out.len();
        let n = s.poll_transmit(Duration::ZERO, ConnId(1), &mut out, 100);
        assert!(n <= 100 && out.len() - before == n, "wrote {n}");
        total += n;
        if n == 0 {
            break;
        }
    }
    // Everything went out in small polls: the open, the end, the data and its headers.
    assert!(total > 5000, "{total}");
}
