//! What one operation on a session's flow and connection tables costs as the session holds
//! more flows: 100, 1 000 and 10 000, each opened, with its own connection, bytes received and
//! acknowledged on that connection (issue 8: a tunnel carrying 10 000 flows at once).
//!
//! * `accept_flow/<n>` — the acceptor registers the connection of a new flow
//!   ([`Session::add_connection`] naming a flow it has not seen yet: the flow is created and
//!   awaits its opening). The session grows by one flow per iteration and is rebuilt
//!   (untimed) once it holds 10% more than `n`.
//! * `close_spare/<n>` — a connection that carried nothing dies
//!   ([`Session::connection_closed`]). Between iterations (untimed) a new spare is added and
//!   whatever the close queued (control frames) is written out, so every close starts from the
//!   same state.
//!
//! Run: `cargo bench -p gtcp --bench flows -- --warm-up-time 1 --measurement-time 3`
//! (results in crates/gtcp/BENCH.md).

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gtcp::wire::{DataFrame, Frame, OpenFrame};
use gtcp::{Config, ConnId, FlowId, Role, Session};

const SIZES: [usize; 3] = [100, 1_000, 10_000];

/// An acceptor holding `n` opened flows, flow *i* on connection *i*, each with 1 KiB received
/// and its acknowledgement written on its own connection.
fn acceptor(n: usize) -> Session {
    let config = Config {
        max_flows: 2 * n,
        ..Config::default()
    };
    let mut s = Session::new(Role::Acceptor, config).expect("config");
    let payload = Bytes::from(vec![7u8; 1024]);
    let mut out = BytesMut::with_capacity(1 << 16);
    for i in 1..=n as u64 {
        let (f, c) = (FlowId(i), ConnId(i));
        s.add_connection(c, Some(f)).expect("connection");
        let open = Frame::Open(OpenFrame {
            flow: f,
            route: "bench".into(),
            class: 0,
            size_hint: None,
            origin: None,
        });
        s.handle_frame(Duration::ZERO, c, open).expect("open");
        let data = Frame::Data(DataFrame {
            flow: f,
            offset: 0,
            payload: payload.clone(),
        });
        s.handle_frame(Duration::ZERO, c, data).expect("data");
        out.clear();
        assert!(s.poll_transmit(Duration::ZERO, c, &mut out, 1 << 16) > 0);
    }
    while s.poll_event().is_some() {}
    s
}

fn bench_accept_flow(c: &mut Criterion) {
    let mut g = c.benchmark_group("accept_flow");
    for n in SIZES {
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut s = acceptor(n);
                let mut next = n as u64 + 1;
                for _ in 0..iters {
                    if next > (n + n / 10) as u64 {
                        s = acceptor(n);
                        next = n as u64 + 1;
                    }
                    let start = Instant::now();
                    let r = s.add_connection(ConnId(next), Some(FlowId(next)));
                    total += start.elapsed();
                    r.expect("accepted");
                    next += 1;
                }
                total
            })
        });
    }
    g.finish();
}

fn bench_close_spare(c: &mut Criterion) {
    let mut g = c.benchmark_group("close_spare");
    for n in SIZES {
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let mut s = acceptor(n);
            let spare = ConnId(n as u64 + 1);
            let mut out = BytesMut::with_capacity(1 << 20);
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    s.add_connection(spare, None).expect("spare");
                    let start = Instant::now();
                    s.connection_closed(Duration::ZERO, spare);
                    total += start.elapsed();
                    // What the close queued goes out (on flow 1's connection).
                    loop {
                        out.clear();
                        if s.poll_transmit(Duration::ZERO, ConnId(1), &mut out, 1 << 20) == 0 {
                            break;
                        }
                    }
                    while s.poll_event().is_some() {}
                    black_box(&s);
                }
                total
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_accept_flow, bench_close_spare);
criterion_main!(benches);
