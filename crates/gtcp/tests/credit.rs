//! The receive side of the hand-over rule (issue 8), pinned: credit granted beyond a flow's own
//! window must follow what the flow actually holds (at most `RECEIVE_AHEAD_WINDOWS` windows
//! beyond its highest byte received), or a flow served first and then preempted
//! keeps the session's receive budget and the next flow the policy serves is held to one window
//! (found with `table2-buffers`: SRPT with the default buffers 1.13-1.22 x the unbounded
//! variant's mean completion time).

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use gtcp::wire::{DataFrame, Frame, FrameDecoder, OpenFrame, MAX_PAYLOAD_CAP};
use gtcp::{Config, ConnId, FlowId, ReadOutcome, Role, Session};

const CHUNK: u64 = 16 * 1024;
const T: Duration = Duration::ZERO;

/// An acceptor with `conns` live connections, flow k owning connection k, flows opened.
fn acceptor(conns: u64) -> Session {
    let mut s = Session::new(Role::Acceptor, Config::default()).expect("config");
    for k in 1..=conns {
        s.add_connection(ConnId(k), Some(FlowId(k))).expect("add");
        s.handle_frame(
            T,
            ConnId(k),
            Frame::Open(OpenFrame {
                flow: FlowId(k),
                route: "r".into(),
                class: 0,
                size_hint: None,
                origin: None,
            }),
        )
        .expect("open");
    }
    s
}

/// The credit the acceptor's acknowledgements grant `flow`, the largest seen so far (`known`).
fn credit(s: &mut Session, flow: FlowId, known: u64) -> u64 {
    let mut best = known;
    let conns: Vec<ConnId> = s.connections().map(|(c, _)| c).collect();
    for c in conns {
        loop {
            let mut out = BytesMut::new();
            if s.poll_transmit(T, c, &mut out, 1 << 20) == 0 {
                break;
            }
            let dec = FrameDecoder::new(MAX_PAYLOAD_CAP);
            while let Some(f) = dec.decode(&mut out).expect("frames") {
                if let Frame::Ack(a) = f {
                    if a.flow == flow {
                        best = best.max(a.credit);
                    }
                }
            }
        }
    }
    while s.poll_event().is_some() {}
    best
}

/// Delivers `flow`'s bytes `[from, to)` in chunks on its own connection.
fn deliver(s: &mut Session, flow: FlowId, from: u64, to: u64) {
    let mut at = from;
    while at < to {
        let n = CHUNK.min(to - at);
        s.handle_frame(
            T,
            ConnId(flow.0),
            Frame::Data(DataFrame {
                flow,
                offset: at,
                payload: Bytes::from(vec![0u8; n as usize]),
            }),
        )
        .expect("data within credit");
        at += n;
    }
}

fn read_all(s: &mut Session, flow: FlowId) {
    while let Ok(ReadOutcome::Data(_)) = s.read(T, flow, usize::MAX) {}
}

#[test]
fn a_preempted_flow_does_not_keep_the_receive_budget_from_the_next_one() {
    let w = Config::default().flow_window;
    let mut s = acceptor(4);
    let (first, next) = (FlowId(1), FlowId(2));
    // The first flow is served by every connection and read as it arrives: 8 MiB in order.
    let mut c1 = credit(&mut s, first, gtcp::INITIAL_CREDIT);
    let mut at = 0;
    while at < 8 * w {
        let to = c1.min(8 * w);
        deliver(&mut s, first, at, to);
        read_all(&mut s, first);
        at = to;
        c1 = credit(&mut s, first, c1);
    }
    // Then the policy serves the next flow instead: the first holds nothing unread, and its
    // credit is at most RECEIVE_AHEAD_WINDOWS windows ahead of what it read (what it needs in
    // flight when every connection carries it), so it keeps at most that less its own window
    // of the budget.
    let ahead = gtcp::session::RECEIVE_AHEAD_WINDOWS * w;
    assert!(
        c1 <= 8 * w + ahead,
        "first flow's credit {c1} beyond read + {ahead}"
    );
    let kept = (c1 - 8 * w).saturating_sub(w);
    // The next flow's first chunk is late (a connection in loss recovery): everything behind
    // it waits, and its credit must grow past one window, up to the session's budget
    // (RECEIVE_BUDGET_PER_CONNECTION windows per live connection).
    let budget = gtcp::session::RECEIVE_BUDGET_PER_CONNECTION * 4 * w;
    let mut c2 = credit(&mut s, next, gtcp::INITIAL_CREDIT);
    let mut at = CHUNK;
    for _ in 0..1000 {
        if at >= c2 {
            break;
        }
        deliver(&mut s, next, at, c2);
        at = c2;
        c2 = credit(&mut s, next, c2);
    }
    assert!(
        c2 >= budget - kept - w,
        "next flow held to {c2} bytes of credit behind a hole (budget {budget}, {kept} kept by the first)"
    );
    assert!(
        c2 <= budget,
        "credit {c2} beyond the receive budget {budget}"
    );
}
