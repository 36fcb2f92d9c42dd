//! Issue 16, attack 6: log lines forged by a peer, and logs flooded by rejected connections.
//! A route name carrying a newline used to be logged as it came, so it could write a line of
//! its own; 2 000 slow handshakes and 350 garbage connections wrote 2 350 warnings. Now
//! peer-supplied strings are logged escaped (`{:?}`) and rejections at most once a second per
//! reason, every one counted in `schedtcp_rejected_total`.
//!
//! Its own test binary: it installs the process-wide log subscriber.

mod common;

use std::time::Instant;

use bytes::BytesMut;
use common::*;
use gtcp::wire::{Frame, OpenFrame};
use gtcp::FlowId;
use tokio::io::AsyncWriteExt;
use tunnel::limits::Reject;

const FORGED: &str = "FAKE 2026-01-01T00:00:00Z  INFO tunnel::server: key rotated by admin";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_strings_cannot_forge_lines_and_rejections_do_not_flood_the_log() {
    let log = Captured::install();
    let (srv, cli, route) = start("").await;
    let legit_flow = tokio::spawn(legit(route));
    let t = Instant::now();
    // A hostile client opens a flow whose route name carries a line of its own.
    let (mut s, mut sealer) = hostile(srv.addr, 9).await;
    let mut b = BytesMut::new();
    Frame::Open(OpenFrame {
        flow: FlowId(1),
        route: format!("t\n{FORGED}"),
        class: 0,
        size_hint: None,
        origin: None,
    })
    .encode(&mut b);
    let mut sealed = BytesMut::new();
    sealer.seal(&b, &mut sealed).unwrap();
    s.write_all(&sealed).await.unwrap();
    // 400 connections that send garbage instead of a handshake.
    const GARBAGE: u64 = 400;
    for _ in 0..GARBAGE {
        let mut g = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
        let _ = g.write_all(b"GET / HTTP/1.0\r\n\r\n").await;
    }
    let took = legit_flow.await.unwrap();
    // Every garbage connection is refused (and counted) once the server read it.
    // (Some may be evicted by newer ones from the same network while in their handshake.)
    let refused =
        || srv.rejected(Reject::Handshake) + srv.rejected(Reject::UnauthenticatedPerAddress);
    while refused() < GARBAGE || srv.rejected(Reject::UnknownRoute) < 1 {
        assert!(
            t.elapsed().as_secs() < 20,
            "rejections counted: {} handshakes, {} per address, {} unknown routes",
            srv.rejected(Reject::Handshake),
            srv.rejected(Reject::UnauthenticatedPerAddress),
            srv.rejected(Reject::UnknownRoute)
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let secs = t.elapsed().as_secs_f64();
    drop(s);
    cli.shutdown().await;
    srv.shutdown().await;
    let text = log.text();
    let lines: Vec<&str> = text.lines().collect();
    let handshake_lines = lines
        .iter()
        .filter(|l| {
            l.contains("reason=\"handshake\"")
                || l.contains("reason=\"unauthenticated_per_address\"")
        })
        .count();
    eprintln!(
        "{GARBAGE} garbage connections over {secs:.1} s: {handshake_lines} log lines; {} lines in all; legitimate transfer {took:?}",
        lines.len()
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("FAKE")),
        "a peer wrote a line of its own:\n{text}"
    );
    assert!(
        lines.iter().any(|l| l.contains("\\nFAKE")),
        "the route name is logged, escaped:\n{text}"
    );
    // One line per second per reason (two reasons), plus the first.
    assert!(
        handshake_lines as f64 <= 2.0 * (secs + 1.0),
        "{handshake_lines} lines:\n{text}"
    );
}
