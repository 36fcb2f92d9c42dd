//! What the receive path costs per byte (issue 16 made it copy every received byte out of the
//! read buffer): an acceptor session takes full 16 KiB data frames of one flow, packed into
//! 256 KiB read buffers as the tunnel reads them, and the application reads everything after
//! each buffer.
//!
//! `cargo run --release -p gtcp --example recv_throughput [-- GIB]` (default 4 GiB) prints the
//! receive rate in GB/s of one core: compare it with the tunnel's own throughput
//! (`schedtcp throughput`) to see what share of a transfer's CPU the receive path is.

use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use gtcp::wire::{DataFrame, Frame, OpenFrame};
use gtcp::{Config, ConnId, FlowId, ReadOutcome, Role, Session};

fn main() {
    let gib: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4);
    let total = gib << 30;
    let chunk = 16 * 1024;
    let payload = Bytes::from(vec![0x5a; chunk]);
    let mut s = Session::new(Role::Acceptor, Config::default()).expect("config");
    s.add_connection(ConnId(1), Some(FlowId(1))).expect("conn");
    let mut buf = BytesMut::with_capacity(gtcp::driver::APP_READ);
    Frame::Open(OpenFrame {
        flow: FlowId(1),
        route: "web".into(),
        class: 0,
        size_hint: None,
        origin: None,
    })
    .encode(&mut buf);
    let (mut offset, mut read) = (0u64, 0u64);
    let t = Instant::now();
    while offset < total {
        // One read buffer of frames (the tunnel's reader hands over what one read returned).
        while buf.len() + chunk + 64 <= gtcp::driver::APP_READ {
            Frame::Data(DataFrame {
                flow: FlowId(1),
                offset,
                payload: payload.clone(),
            })
            .encode(&mut buf);
            offset += chunk as u64;
        }
        s.handle_input(Duration::ZERO, ConnId(1), &mut buf)
            .expect("valid input");
        while s.poll_event().is_some() {}
        while let Ok(ReadOutcome::Data(b)) = s.read(Duration::ZERO, FlowId(1), 256 * 1024) {
            read += b.len() as u64;
        }
        buf = BytesMut::with_capacity(gtcp::driver::APP_READ);
    }
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(read, offset, "every byte delivered");
    println!(
        "{:.2} GB/s received and delivered ({} MB in {secs:.2} s; encoding the frames included)",
        read as f64 / secs / 1e9,
        read / 1_000_000
    );
}
