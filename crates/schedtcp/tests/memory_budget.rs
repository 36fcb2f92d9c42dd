//! The keyed one-byte-segment attack against the real server: holders of the pre-shared key
//! open sessions of their own and send, for [`FLOWS`] flows they never open, one-byte data
//! segments one byte apart (none contiguous, so each is held out of order), as many as the
//! server lets them. What bounds it: each session's caps (`gtcp::session::caps`: 256 flows
//! never opened, 4 096 segments per flow, 65 536 per session) and the server's
//! `memory_budget_bytes`, which counts the segments' bookkeeping (`Session::held_bytes`) and is
//! enforced on the input path (a session above its share has each connection that brings more
//! closed) as well as at admission (no new session while it is spent).
//!
//! Not run by default (about a minute, a measurement):
//! `SCHEDTCP_EXE=target/release/schedtcp cargo test -p schedtcp --test memory_budget -- --ignored --nocapture`.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use common::{free_port, rss_kib, scrape, series, Dir, Proc};
use gtcp::wire::{DataFrame, Frame};
use gtcp::{ConnId, FlowId};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tunnel::auth::{PreSharedKey, SessionKey};

/// The server's `memory_budget_bytes` here.
const BUDGET: u64 = 16 << 20;
/// Attacking sessions (each may hold about 8.6 MB by its own caps: together far above the
/// budget, so the budget is what binds).
const SESSIONS: usize = 8;
/// Flows each session names and never opens (`MAX_UNOPENED_FLOWS`).
const FLOWS: u64 = 256;
/// One-byte segments each session tries per flow (`MAX_OOO_SEGMENTS`).
const SEGMENTS_PER_FLOW: u64 = 4096;
/// Pool connections each session tries in turn (the server closes them one after another).
const CONNECTIONS: u64 = 16;
/// Resident bytes the server may hold beyond its budget under the attack (its baseline is
/// subtracted), and `schedtcp_memory_bytes` beyond the budget: what `held_bytes` sees only
/// after the read that brought it. A session is checked after each read of a pool connection
/// and gets no new connection while above its share, so each attacking session's last read
/// comes on top: at most 512 KiB of one-byte frames (a read buffer of 256 KiB with a partial
/// record before it), about 24 000 segments, 3 MiB of bookkeeping. The rest, 8 MiB: the
/// read buffers and tasks of the connections, and the allocator's free chunks between live
/// ones. Measured: see docs/RELIABILITY.md, *Memory*.
const BEYOND_BUDGET: u64 = SESSIONS as u64 * (3 << 20) + (8 << 20);
/// First flow id the attackers name.
const FIRST_FLOW: u64 = 1 << 20;

/// The server, with a budget of [`BUDGET`] and a session forgotten 2 s after its last
/// connection.
async fn server(dir: &Dir, target: SocketAddr) -> (Proc, SocketAddr, SocketAddr) {
    let (listen, metrics) = (free_port(), free_port());
    let toml = format!(
        "listen = \"{listen}\"\nkey_file = \"psk.txt\"\nmetrics = \"{metrics}\"\n\
         session_timeout_secs = 2\nmemory_budget_bytes = {BUDGET}\n\
         [[route]]\nname = \"t\"\ntarget = \"{target}\"\n"
    );
    let path = dir.config("server", &toml);
    let p = Proc::spawn(
        "server",
        &path,
        metrics,
        "MEMORY_LOG",
        Duration::from_secs(20),
    )
    .await;
    (p, listen, metrics)
}

/// The `n`-th segment of an attacking session: flows in turn, each one byte further up.
fn segment(n: u64) -> Frame {
    let (round, flow) = (n / FLOWS, n % FLOWS);
    Frame::Data(DataFrame {
        flow: FlowId(FIRST_FLOW + flow),
        offset: 2 * (round + 1),
        payload: Bytes::from_static(b"x"),
    })
}

/// What one attacking session did.
#[derive(Debug, Default, Clone, Copy)]
struct Attack {
    /// Segments written to a connection the server had accepted.
    segments: u64,
    /// Connections the server accepted.
    accepted: u64,
}

/// One attacking session: connections one after another, each sending segments (sealed
/// records, as every keyed connection) until the server closes it; returns with the last
/// connection open (held until `release`), or when the server refuses the session or
/// [`CONNECTIONS`] were used.
async fn attack(
    server: SocketAddr,
    key: PreSharedKey,
    release: Arc<AtomicBool>,
    wrote: Arc<AtomicU64>,
) -> Attack {
    let session = SessionKey::generate();
    let total = FLOWS * SEGMENTS_PER_FLOW;
    let mut done = Attack::default();
    let mut next = 0u64;
    let mut held = None;
    for conn in 1..=CONNECTIONS {
        let Ok(mut s) = TcpStream::connect(server).await else {
            break;
        };
        let shake = tunnel::net::client_handshake(
            &mut s,
            &key,
            &session,
            ConnId(conn),
            None,
            Duration::from_secs(10),
        )
        .await;
        let Ok((Some(mut layer), _)) = shake else {
            // Refused (no session while the budget is spent), or integrity off (not here).
            break;
        };
        done.accepted += 1;
        let (mut rd, mut wr) = s.into_split();
        // What the server sends (keepalives) is read and dropped.
        let reader = tokio::spawn(async move {
            let mut b = vec![0u8; 16 * 1024];
            while matches!(rd.read(&mut b).await, Ok(n) if n > 0) {}
        });
        let mut closed = false;
        while next < total {
            let mut plain = BytesMut::new();
            while plain.len() < 64 * 1024 && next < total {
                segment(next).encode(&mut plain);
                next += 1;
                done.segments += 1;
            }
            let mut out = BytesMut::new();
            layer.sealer.seal(&plain, &mut out).expect("sealed");
            if wr.write_all(&out).await.is_err() {
                closed = true;
                break;
            }
            wrote.fetch_add(plain.len() as u64, Ordering::Relaxed);
        }
        if !closed {
            held = Some((wr, reader));
            break;
        }
        reader.abort();
    }
    // Hold the session open (its last connection) until the measurement is over.
    while !release.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if let Some((mut wr, reader)) = held {
        let _ = wr.shutdown().await;
        reader.abort();
    }
    done
}

/// The attack: [`SESSIONS`] key holders at once, each with [`FLOWS`] flows never opened and
/// up to [`SEGMENTS_PER_FLOW`] one-byte out-of-order segments each, against a server with a
/// budget of [`BUDGET`] bytes. While it runs, the server's resident size stays within its
/// baseline + [`BUDGET`] + [`BEYOND_BUDGET`], and `schedtcp_memory_bytes` within the budget
/// and one read per connection; connections were closed for the budget. After the attackers
/// close and their sessions expire, the resident size is back within 10% (+2 MiB) of the
/// baseline within 60 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn one_byte_segments_of_key_holders_stay_within_the_memory_budget() {
    let (target, _t) = tunnel::loadgen::start_target("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let dir = Dir::with_key("memory-budget");
    let key = PreSharedKey::new(&tunnel::psk::read_file(&dir.0.join("psk.txt")).unwrap());
    let (proc_, listen, metrics) = server(&dir, target).await;
    let pid = proc_.pid();
    let sessions = |text: &str| series(text, "schedtcp_sessions");
    let forgotten = || async {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = scrape(metrics).await.expect("metrics");
            if sessions(&text) == 0.0 {
                return;
            }
            assert!(Instant::now() < deadline, "sessions never forgotten");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    // Warm-up: one small attacking session, so that what any first session sets up is in
    // the baseline; then a trim interval for the allocator to hand back what it freed.
    {
        let release = Arc::new(AtomicBool::new(true));
        let warm = tokio::spawn(attack(listen, key.clone(), release, Arc::default()));
        warm.await.unwrap();
    }
    forgotten().await;
    tokio::time::sleep(Duration::from_secs(11)).await;
    let base = rss_kib(pid);
    // The attack, the server's resident size and `schedtcp_memory_bytes` sampled meanwhile.
    let release = Arc::new(AtomicBool::new(false));
    let wrote = Arc::new(AtomicU64::new(0));
    let began = Instant::now();
    let attackers: Vec<_> = (0..SESSIONS)
        .map(|_| tokio::spawn(attack(listen, key.clone(), release.clone(), wrote.clone())))
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let (mut rss, mut held) = (0u64, 0f64);
            while !stop.load(Ordering::Relaxed) {
                rss = rss.max(rss_kib(pid));
                if let Some(text) = scrape(metrics).await {
                    held = held.max(series(&text, "schedtcp_memory_bytes"));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            (rss, held)
        })
    };
    // The attackers write until every session's connections are closed or all sent; then
    // the segments held stay while the sessions are held open.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last = (u64::MAX, Instant::now());
    loop {
        let w = wrote.load(Ordering::Relaxed);
        if w != last.0 {
            last = (w, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(3) {
            break;
        }
        assert!(Instant::now() < deadline, "the attack never settled");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let attacked = began.elapsed();
    let text = scrape(metrics).await.expect("metrics");
    let during = rss_kib(pid);
    let closed_for_budget = series(&text, "schedtcp_rejected_total{reason=\"memory_budget\"}");
    let protocol = series(&text, "schedtcp_rejected_total{reason=\"protocol\"}");
    let live_sessions = sessions(&text);
    release.store(true, Ordering::Relaxed);
    let mut done = Vec::new();
    for a in attackers {
        done.push(a.await.unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    let (peak_rss, peak_held) = sampler.await.unwrap();
    let segments: u64 = done.iter().map(|a| a.segments).sum();
    let accepted: u64 = done.iter().map(|a| a.accepted).sum();
    let refused = done.iter().filter(|a| a.accepted == 0).count();
    println!(
        "memory budget {BUDGET} B: {SESSIONS} key holders ({refused} refused a session), \
         {accepted} connections accepted, {segments} one-byte segments written in {:.1} s; \
         {live_sessions} sessions held; {closed_for_budget} connections closed for the \
         budget, {protocol} for a protocol error (a cap); schedtcp_memory_bytes peak {peak_held}; \
         server RSS KiB baseline {base}, peak {peak_rss} (+{} KiB), settled {during}",
        attacked.as_secs_f64(),
        peak_rss.saturating_sub(base)
    );
    // Given back: the sessions expire (2 s without a connection), the allocator trims.
    forgotten().await;
    let ended = Instant::now();
    let near = base + base / 10 + 2048;
    let mut after = rss_kib(pid);
    while after > near && ended.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(250)).await;
        after = rss_kib(pid);
    }
    println!(
        "sessions expired: server RSS KiB {after} after {:.1} s (baseline {base}, bound {near})",
        ended.elapsed().as_secs_f64()
    );
    assert!(
        closed_for_budget > 0.0,
        "no connection closed for the budget: the attack did not reach it"
    );
    assert!(
        peak_held <= (BUDGET + BEYOND_BUDGET) as f64,
        "schedtcp_memory_bytes reached {peak_held}, budget {BUDGET}"
    );
    assert!(
        (peak_rss.saturating_sub(base)) * 1024 <= BUDGET + BEYOND_BUDGET,
        "server RSS rose by {} KiB, bound {} KiB",
        peak_rss.saturating_sub(base),
        (BUDGET + BEYOND_BUDGET) / 1024
    );
    assert!(
        after <= near,
        "server RSS {after} KiB 60 s after the sessions expired, baseline {base} KiB"
    );
}
