//! Bounded state after any input (issue 16): an acceptor `Session` (the server's side) fed
//! what a hostile but authenticated opener chooses — well-formed frames about a few flows
//! (openings repeated, data in any order and size, ends, resets, acknowledgements), raw bytes,
//! connections added and closed — interleaved with what the driver does (applications reading,
//! connections transmitting).
//!
//! After every step it checks what the caps promise, not only that nothing panicked:
//! * flows ≤ `max_flows`, and flows named but never opened ≤ `MAX_UNOPENED_FLOWS`;
//! * bytes held for the applications ≤ the credit the session may grant: `flow_window` per
//!   flow plus the receive budget (`flow_window` per live connection);
//! * the control backlog never grows with the frames received: at most 1024 stale replies plus
//!   a few entries per flow per connection lost (each loss re-queues every flow once);
//! * the counters' own identity: Σ q_v ≤ unsent bytes bound.

#![no_main]

use arbitrary::Arbitrary;
use bytes::{Bytes, BytesMut};
use gtcp::session::caps::MAX_UNOPENED_FLOWS;
use gtcp::wire::{AckFrame, DataFrame, Frame, OpenFrame};
use gtcp::{Config, ConnId, FlowId, Role, Session};
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

/// Replies about forgotten flows kept at most (`session::MAX_STALE_REPLIES`).
const STALE: usize = 1024;

#[derive(Arbitrary, Debug)]
enum Op {
    Open { conn: u8, flow: u16 },
    /// The same opening `times` times in one read.
    OpenRepeated { conn: u8, flow: u16, times: u16 },
    Data { conn: u8, flow: u16, offset: u32, len: u16 },
    /// `count` one-byte segments, `stride` bytes apart.
    Tiny { conn: u8, flow: u16, start: u32, stride: u8, count: u16 },
    Fin { conn: u8, flow: u16, size: u32 },
    Reset { conn: u8, flow: u16, code: u32 },
    Ack { conn: u8, flow: u16, received: u32, credit: u32, fin: bool },
    Raw { conn: u8, bytes: Vec<u8> },
    AddConn { conn: u8, owner: Option<u16> },
    Close { conn: u8 },
    Read { flow: u16, max: u16 },
    Transmit { conn: u8, max: u16 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    max_flows: u8,
    ops: Vec<Op>,
}

fn conn(c: u8) -> ConnId {
    ConnId(u64::from(c % 4) + 1)
}

fn flow(f: u16) -> FlowId {
    FlowId(u64::from(f % 600) + 1)
}

fn check(s: &Session, config: &Config, closes: usize) {
    let flows: Vec<FlowId> = s.flow_ids().collect();
    assert!(flows.len() <= config.max_flows, "{} flows", flows.len());
    let unopened = flows.iter().filter(|f| s.route(**f).is_none()).count();
    assert!(unopened <= MAX_UNOPENED_FLOWS, "{unopened} unopened flows");
    let conns = s.connections().count() as u64;
    let held = s.recv_buffered_bytes();
    let bound = config.flow_window * (flows.len() as u64 + conns.max(1));
    assert!(held <= bound, "{held} bytes held, bound {bound}");
    let backlog = s.control_backlog();
    let allowed = STALE + flows.len() * (3 + closes);
    assert!(backlog <= allowed, "control backlog {backlog} > {allowed}");
    let c = s.counters();
    assert!(c.unsent_bytes <= c.unsent_bound, "{c:?}");
}

fn run(input: Input) {
    let config = Config {
        max_flows: usize::from(input.max_flows) * 4 + 1,
        ..Config::default()
    };
    let mut s = Session::new(Role::Acceptor, config).expect("valid");
    let _ = s.add_connection(ConnId(1), Some(FlowId(1)));
    let mut closes = 0;
    let mut out = BytesMut::new();
    for op in input.ops {
        let mut buf = BytesMut::new();
        let target = match op {
            Op::Open { conn: c, flow: f } => {
                open(f).encode(&mut buf);
                Some(conn(c))
            }
            Op::OpenRepeated { conn: c, flow: f, times } => {
                for _ in 0..times.min(500) {
                    open(f).encode(&mut buf);
                }
                Some(conn(c))
            }
            Op::Data { conn: c, flow: f, offset, len } => {
                Frame::Data(DataFrame {
                    flow: flow(f),
                    offset: u64::from(offset),
                    payload: Bytes::from(vec![1u8; usize::from(len)]),
                })
                .encode(&mut buf);
                Some(conn(c))
            }
            Op::Tiny { conn: c, flow: f, start, stride, count } => {
                for i in 0..u64::from(count.min(1000)) {
                    Frame::Data(DataFrame {
                        flow: flow(f),
                        offset: u64::from(start) + i * (u64::from(stride) + 1),
                        payload: Bytes::from_static(b"z"),
                    })
                    .encode(&mut buf);
                }
                Some(conn(c))
            }
            Op::Fin { conn: c, flow: f, size } => {
                Frame::Fin { flow: flow(f), final_size: u64::from(size) }.encode(&mut buf);
                Some(conn(c))
            }
            Op::Reset { conn: c, flow: f, code } => {
                Frame::Reset { flow: flow(f), code }.encode(&mut buf);
                Some(conn(c))
            }
            Op::Ack { conn: c, flow: f, received, credit, fin } => {
                Frame::Ack(AckFrame {
                    flow: flow(f),
                    received: u64::from(received),
                    credit: u64::from(credit),
                    fin,
                })
                .encode(&mut buf);
                Some(conn(c))
            }
            Op::Raw { conn: c, bytes } => {
                buf.extend_from_slice(&bytes);
                Some(conn(c))
            }
            Op::AddConn { conn: c, owner } => {
                let _ = s.add_connection(conn(c), owner.map(flow));
                None
            }
            Op::Close { conn: c } => {
                s.connection_closed(Duration::ZERO, conn(c));
                closes += 1;
                None
            }
            Op::Read { flow: f, max } => {
                let _ = s.read(Duration::ZERO, flow(f), usize::from(max));
                None
            }
            Op::Transmit { conn: c, max } => {
                out.clear();
                let _ = s.poll_transmit(Duration::ZERO, conn(c), &mut out, usize::from(max) + 64);
                None
            }
        };
        if let Some(c) = target {
            // A protocol error closes the connection, as the tunnel does.
            if s.handle_input(Duration::ZERO, c, &mut buf).is_err() {
                s.connection_closed(Duration::ZERO, c);
                closes += 1;
            }
        }
        while s.poll_event().is_some() {}
        check(&s, &config, closes);
    }
}

fn open(f: u16) -> Frame {
    Frame::Open(OpenFrame {
        flow: flow(f),
        route: "web".into(),
        class: 0,
        size_hint: None,
    })
}

fuzz_target!(|input: Input| run(input));
