//! Issue 16: hostile peers against a real server and client over loopback (tokio tasks, real
//! TCP). Each test runs one attack and, alongside it, a legitimate download through the tunnel
//! that must complete intact (every byte checked by `loadgen`) within a stated time, and checks
//! the bound the attack used to break through the metrics endpoint.
//!
//! Attacks 1 (file descriptors), 2 (per-flow memory), 3 (control queue) and 7 (metrics
//! endpoint); attack 6 (log forging) is in `log_forging.rs`, the out-of-descriptors accept loop
//! in `fd_exhaustion.rs`. Figures: `docs/RELIABILITY.md`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use gtcp::wire::Frame;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

mod common;

use common::*;

/// Polls the server's metrics until `stop`, keeping the largest value of `name` (pages the
/// endpoint refused are skipped).
fn watch_max(
    addr: SocketAddr,
    name: &'static str,
    stop: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<f64> {
    tokio::spawn(async move {
        let mut max = 0f64;
        while !stop.load(Ordering::Relaxed) {
            let page = scrape(addr).await;
            if !page.is_empty() {
                max = max.max(metric(&page, name));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        max
    })
}

/// Writes `frames` (in 256 KiB batches) and reads whatever comes back, until the server closes
/// the connection or `frames` ran out; returns whether the server closed it, and when.
async fn flood(
    (mut s, mut sealer): (TcpStream, tunnel::record::Sealer),
    frames: impl Iterator<Item = Frame>,
) -> Option<Duration> {
    let t = Instant::now();
    let (mut rd, mut wr) = s.split();
    let read = async {
        let mut sink = vec![0u8; 64 * 1024];
        loop {
            match rd.read(&mut sink).await {
                Ok(0) | Err(_) => return t.elapsed(),
                Ok(_) => {}
            }
        }
    };
    // A write that fails also means the server closed (reset) the connection.
    let write = async {
        let mut buf = BytesMut::new();
        let mut sealed = BytesMut::new();
        for f in frames {
            f.encode(&mut buf);
            if buf.len() >= 256 * 1024 {
                sealer.seal(&buf, &mut sealed).unwrap();
                if wr.write_all(&sealed).await.is_err() {
                    return t.elapsed();
                }
                buf.clear();
                sealed.clear();
            }
        }
        sealer.seal(&buf, &mut sealed).unwrap();
        if wr.write_all(&sealed).await.is_err() {
            return t.elapsed();
        }
        std::future::pending().await
    };
    tokio::select! {
        closed = read => Some(closed),
        closed = write => Some(closed),
        _ = tokio::time::sleep(Duration::from_secs(20)) => None,
    }
}

/// Attack 1: many connections that never authenticate, 4 at a time from each of 24 source
/// addresses (127.0.1.x, a network other than the client's), each reconnecting as soon as it
/// is closed. Before issue 16 each held a
/// descriptor for the whole 10 s handshake timeout, without any cap. Now at most
/// `max_unauthenticated` (32 here) are in their handshake at once, and at most
/// `max_unauthenticated_per_address` (8) from one network (all of 127.0.1.x is one /24);
/// newcomers evict the oldest of their network, so the flood only evicts its own connections
/// and a client's connection gets through. (A flood from many networks: `schedtcp`'s
/// `a_flood_from_many_addresses_does_not_keep_a_keyed_client_out`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthenticated_flood_is_capped_and_a_client_still_gets_through() {
    let (srv, cli, route) = start(
        "max_unauthenticated = 32\nmax_unauthenticated_per_address = 8\nauth_timeout_secs = 2",
    )
    .await;
    let metrics = srv.metrics.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let mut flooders = Vec::new();
    for a in 2..26u8 {
        for _ in 0..4 {
            let stop = stop.clone();
            let server = srv.addr;
            flooders.push(tokio::spawn(async move {
                let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 1, a));
                let mut opened = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    let sock = TcpSocket::new_v4().unwrap();
                    sock.bind(SocketAddr::new(ip, 0)).unwrap();
                    let Ok(mut s) = sock.connect(server).await else {
                        continue;
                    };
                    opened += 1;
                    // Hold it, sending nothing, until the server closes it.
                    let mut b = [0u8; 64];
                    let _ = tokio::time::timeout(Duration::from_secs(3), s.read(&mut b)).await;
                }
                opened
            }));
        }
    }
    let peak = watch_max(
        metrics,
        "schedtcp_unauthenticated_connections",
        stop.clone(),
    );
    // Let the flood fill the gate first.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let took = legit(route).await;
    let took2 = legit(route).await;
    stop.store(true, Ordering::Relaxed);
    let mut attempts = 0;
    for f in flooders {
        attempts += f.await.unwrap();
    }
    let peak = peak.await.unwrap();
    let page = scrape(metrics).await;
    let evicted_all = metric(&page, "schedtcp_rejected_total{reason=\"unauthenticated\"}");
    let per_network = metric(
        &page,
        "schedtcp_rejected_total{reason=\"unauthenticated_per_address\"}",
    );
    let evicted = evicted_all + per_network;
    eprintln!(
        "flood: {attempts} connections; legitimate transfers {took:?}, {took2:?}; peak unauthenticated {peak}; evicted {evicted_all} for the gate, {per_network} for their network"
    );
    // Evicted connections hold their place until their task runs (at most as many again).
    assert!(
        peak <= 2.0 * 32.0,
        "peak {peak} connections in their handshake"
    );
    assert!(evicted > 0.0, "the flood filled the gate");
    cli.shutdown().await;
    srv.shutdown().await;
}

/// Attack 2: 131 072 one-byte out-of-order segments on one flow. Before issue 16 they cost
/// ~12.7 MB (each pinned a slice of a 256 KiB read buffer); now the connection is closed at the
/// 4097th (`MAX_OOO_SEGMENTS`), and what the server holds stays within the window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_byte_out_of_order_segments_close_the_connection_within_the_window() {
    let (srv, cli, route) = start("").await;
    let metrics = srv.metrics.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let peak = watch_max(metrics, "schedtcp_memory_bytes", stop.clone());
    let s = hostile(srv.addr, 1).await;
    let attack = tokio::spawn(flood(
        s,
        std::iter::once(open(1)).chain((0..131_072u64).map(|i| data(1, 2 * i + 1, 1))),
    ));
    let took = legit(route).await;
    let closed = attack.await.unwrap();
    stop.store(true, Ordering::Relaxed);
    let peak = peak.await.unwrap();
    eprintln!("ooo: closed after {closed:?}; legitimate transfer {took:?}; peak memory {peak}");
    assert!(closed.is_some(), "the server closes the connection");
    // The legitimate flow's documented bounds plus the attack's 4096 bytes: its download's
    // unsent bytes (its own 1 MiB send buffer and up to `LEND_PER_CONNECTION` more lent for its
    // one connection: receive credit may run several windows ahead), its upload's 1 MiB window.
    let mib = 1024.0 * 1024.0;
    let lend = gtcp::session::LEND_PER_CONNECTION as f64;
    let bound = (1.0 + lend) * mib + mib + 4096.0;
    assert!(peak <= bound, "peak {peak} bytes, bound {bound}");
    cli.shutdown().await;
    srv.shutdown().await;
}

/// Attack 2, second half: data for thousands of flows that are never opened. Before issue 16
/// each became a flow that was never read nor forgotten; now the 257th is a protocol error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_without_an_opening_is_capped() {
    let (srv, cli, route) = start("").await;
    let s = hostile(srv.addr, 2).await;
    let attack = tokio::spawn(flood(s, (2..4098u64).map(|f| data(f, 0, 1000))));
    let took = legit(route).await;
    let closed = attack.await.unwrap();
    eprintln!("unopened: closed after {closed:?}; legitimate transfer {took:?}");
    assert!(closed.is_some(), "the server closes the connection");
    let held: usize = srv.sessions().iter().map(|e| e.active_flows()).sum();
    assert!(
        held <= gtcp::session::caps::MAX_UNOPENED_FLOWS + 2,
        "{held} flows held"
    );
    cli.shutdown().await;
    srv.shutdown().await;
}

/// Attack 3: the same opening two million times, the answers never read. Before issue 16
/// each queued another control frame (6 M openings: +47 MB, kept after close); now a repeated
/// opening is a no-op and the session's control backlog stays at one frame.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_openings_queue_nothing() {
    let (srv, cli, route) = start("").await;
    let (mut s, mut sealer) = hostile(srv.addr, 3).await;
    let mut buf = BytesMut::new();
    open(7).encode(&mut buf);
    let one = buf.split().freeze();
    let batch: Vec<u8> = one
        .iter()
        .copied()
        .cycle()
        .take(one.len() * 20_000)
        .collect();
    let attack = tokio::spawn(async move {
        // Written, never read: only the kernel's buffers stop the writer.
        for _ in 0..100 {
            let mut sealed = BytesMut::new();
            sealer.seal(&batch, &mut sealed).unwrap();
            if tokio::time::timeout(Duration::from_secs(5), s.write_all(&sealed))
                .await
                .is_err()
            {
                break;
            }
        }
        s
    });
    let took = legit(route).await;
    let s = attack.await.unwrap();
    let backlog: Vec<usize> = srv
        .sessions()
        .iter()
        .map(|e| e.inspect(|s| s.control_backlog()))
        .collect();
    eprintln!("opens: legitimate transfer {took:?}; control backlogs {backlog:?}");
    assert!(
        backlog.iter().all(|b| *b <= 2),
        "control backlogs {backlog:?}"
    );
    drop(s);
    cli.shutdown().await;
    srv.shutdown().await;
}

/// Attack 7: 400 connections to the metrics endpoint that never send a request or read the
/// answer. Before issue 16 each got a task and an answer buffer, without a cap or a write
/// timeout, and one failed `accept` ended the endpoint for good. Now at most 16 wait for their
/// request at once (each newcomer evicts the one silent longest; evictions counted), each
/// within 2 s to ask and 2 s to take the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_endpoint_survives_a_flood() {
    let (srv, cli, route) = start("").await;
    let metrics = srv.metrics.unwrap();
    let mut idle = Vec::new();
    for _ in 0..400 {
        if let Ok(s) = TcpStream::connect(metrics).await {
            idle.push(s);
        }
    }
    let took = legit(route).await;
    // Within the request timeout, the slots are free again.
    let t = Instant::now();
    let page = loop {
        let page = scrape(metrics).await;
        if !page.is_empty() {
            break page;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the endpoint answers again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let refused = metric(
        &page,
        "schedtcp_rejected_total{reason=\"metrics_connections\"}",
    );
    eprintln!(
        "metrics flood: {} connections; legitimate transfer {took:?}; answered again after {:?}; refused {refused}",
        idle.len(),
        t.elapsed()
    );
    assert!(refused >= 300.0, "{refused} refused");
    drop(idle);
    cli.shutdown().await;
    srv.shutdown().await;
}

/// Attack 7 (idle sockets): 32 connections to the metrics endpoint from another network
/// (127.0.1.x) that send nothing, each opened again as soon as it is closed, while a scraper
/// asks every 200 ms for 10 s. The endpoint answers a connection whose request is there when
/// it is accepted at once, and waits on at most 16 silent ones (8 from one network; a newcomer
/// evicts the one silent longest), so the idle sockets only evict each other. At least 90% of
/// the scrapes are answered (16 idle sockets used to take every place for 2 s each).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_endpoint_answers_scrapes_while_idle_sockets_are_open() {
    const IDLE: usize = 32;
    const SCRAPES: usize = 49;
    let (srv, cli, _route) = start("").await;
    let metrics = srv.metrics.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let hostile: Vec<_> = (0..IDLE)
        .map(|i| {
            let stop = stop.clone();
            let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 1, 1 + (i % 8) as u8));
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let sock = TcpSocket::new_v4().unwrap();
                    sock.bind(SocketAddr::new(ip, 0)).unwrap();
                    let Ok(mut s) = sock.connect(metrics).await else {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    };
                    // Silent until the endpoint closes it.
                    let mut b = [0u8; 64];
                    let _ = tokio::time::timeout(Duration::from_secs(5), s.read(&mut b)).await;
                }
            })
        })
        .collect();
    let mut served = 0;
    for _ in 0..SCRAPES {
        let page = tokio::time::timeout(Duration::from_secs(5), scrape(metrics))
            .await
            .unwrap_or_default();
        if page.contains("schedtcp_rejected_total") {
            served += 1;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for h in hostile {
        h.abort();
    }
    eprintln!("metrics endpoint with {IDLE} idle sockets: {served} of {SCRAPES} scrapes answered");
    assert!(
        served * 100 >= SCRAPES * 90,
        "{served} of {SCRAPES} scrapes answered"
    );
    cli.shutdown().await;
    srv.shutdown().await;
}

/// Attack 7 (sizer): a target answers with a `Content-Length` near u64::MAX on a route whose
/// sizes are learnt from HTTP. Before issue 16, `start + head_len + len` overflowed (a panic of
/// the relay in a debug build, a wrong size in a release one); now the size is unknown and the
/// bytes go through intact. A legitimate transfer on another route runs alongside.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_content_length_near_u64_max_leaves_the_size_unknown() {
    use tokio::net::TcpListener;
    let (target, _t) = tunnel::loadgen::start_target("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\nbody bytes",
        u64::MAX - 60
    );
    let evil = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let evil_addr = evil.local_addr().unwrap();
    let sent = answer.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = evil.accept().await {
            let a = sent.clone();
            tokio::spawn(async move {
                let _ = s.write_all(a.as_bytes()).await;
                let _ = s.shutdown().await;
                let mut sink = [0u8; 1024];
                while matches!(s.read(&mut sink).await, Ok(n) if n > 0) {}
            });
        }
    });
    let srv = tunnel::server::start(
        tunnel::ServerConfig::from_toml(&format!(
            "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\n[[route]]\nname = \"t\"\ntarget = \"{target}\"\n[[route]]\nname = \"h\"\ntarget = \"{evil_addr}\"\nhttp_content_length = true\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let cli = tunnel::client::start(
        tunnel::ClientConfig::from_toml(&format!(
            "server = \"{}\"\nkey = \"{KEY}\"\n[[route]]\nname = \"t\"\nlisten = \"127.0.0.1:0\"\n[[route]]\nname = \"h\"\nlisten = \"127.0.0.1:0\"\n",
            srv.addr
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let legit_flow = tokio::spawn(legit(cli.routes[0].1));
    let mut app = TcpStream::connect(cli.routes[1].1).await.unwrap();
    app.shutdown().await.unwrap();
    let mut got = String::new();
    tokio::time::timeout(Duration::from_secs(10), app.read_to_string(&mut got))
        .await
        .expect("the answer arrives in time")
        .expect("the answer arrives whole");
    assert_eq!(got, answer);
    let took = legit_flow.await.unwrap();
    eprintln!("sizer: legitimate transfer {took:?}");
    cli.shutdown().await;
    srv.shutdown().await;
}
