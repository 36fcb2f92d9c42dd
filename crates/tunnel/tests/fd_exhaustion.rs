//! Issue 16, attack 1 at the descriptor limit: a flood of connections that never authenticate
//! runs the server's process out of file descriptors. Before, the accept loop retried at once
//! (`continue`): 7 million "Too many open files" warnings (942 MB of log) in 10 s at 100% of a
//! core; and the metrics endpoint's `accept().await?` ended it for good on the first error.
//! Now a failed `accept` pauses the loop (100 ms when out of descriptors), is logged at most
//! once a second, counted, and every accept loop — server, client, metrics — goes on.
//!
//! Its own test binary: it lowers the process's descriptor limit, and installs the log
//! subscriber. The flood comes from a child process (this binary again, running the ignored
//! `flood_helper`), so the flooder's own descriptors do not count against the server's.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use common::*;
use nix::sys::resource::{getrlimit, getrusage, setrlimit, Resource, UsageWho};
use tunnel::limits::Reject;

/// How long the flood lasts.
const FLOOD: Duration = Duration::from_secs(4);

fn cpu_time() -> Duration {
    let u = getrusage(UsageWho::RUSAGE_SELF).unwrap();
    let us = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    us(u.user_time()) + us(u.system_time())
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// The flooder (run by the test below in a child process): 800 connections from 40 source
/// addresses, each held without a byte sent and opened again as soon as it is closed, for
/// `FLOOD`.
#[test]
#[ignore = "run by out_of_descriptors_the_accept_loop_pauses_and_recovers"]
fn flood_helper() {
    let Ok(addr) = std::env::var("FLOOD_ADDR") else {
        return;
    };
    let server: SocketAddr = addr.parse().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async move {
        let end = tokio::time::Instant::now() + FLOOD;
        let mut tasks = Vec::new();
        for a in 2..42u8 {
            for _ in 0..20 {
                tasks.push(tokio::spawn(async move {
                    let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 0, a));
                    while tokio::time::Instant::now() < end {
                        let sock = tokio::net::TcpSocket::new_v4().unwrap();
                        sock.bind(SocketAddr::new(ip, 0)).unwrap();
                        let Ok(Ok(mut s)) =
                            tokio::time::timeout_at(end, sock.connect(server)).await
                        else {
                            continue;
                        };
                        let mut b = [0u8; 16];
                        let _ = tokio::time::timeout_at(
                            end,
                            tokio::io::AsyncReadExt::read(&mut s, &mut b),
                        )
                        .await;
                    }
                }));
            }
        }
        for t in tasks {
            let _ = t.await;
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_descriptors_the_accept_loop_pauses_and_recovers() {
    let log = Captured::install();
    // Caps above the descriptor limit, so the limit is what the flood meets.
    let (srv, cli, route) = start(
        "max_unauthenticated = 5000\nmax_unauthenticated_per_address = 5000\nauth_timeout_secs = 2",
    )
    .await;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "flood_helper",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FLOOD_ADDR", srv.addr.to_string())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // This process may now open 150 descriptors more than it has.
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    let limit = open_fds() as u64 + 150;
    setrlimit(Resource::RLIMIT_NOFILE, limit, hard).unwrap();
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    // A legitimate transfer starts in the middle of the flood. Its application, client and
    // target live in this process too, so while the descriptors are exhausted even its own
    // connect fails: it tries again every 100 ms (as an application would) and must complete
    // within `auth_timeout_secs` (2 s, when the flood's connections are closed) + 10 s after
    // the flood.
    tokio::time::sleep(FLOOD / 2).await;
    let legit_flow = tokio::spawn(tokio::time::timeout(
        FLOOD + Duration::from_secs(12),
        async move {
            let mut tries = 0u32;
            loop {
                tries += 1;
                match tunnel::loadgen::run_flow(route, LEGIT).await {
                    Ok(_) => return tries,
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        },
    ));
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap();
    let flood_secs = t0.elapsed().as_secs_f64();
    let cpu = (cpu_time() - cpu0).as_secs_f64();
    let accept_failures = srv.rejected(Reject::Accept);
    let took = legit_flow.await.unwrap();
    let took_at = t0.elapsed();
    setrlimit(Resource::RLIMIT_NOFILE, soft, hard).unwrap();
    // Every accept loop survived: the metrics endpoint answers, a new transfer completes.
    let page = scrape(srv.metrics.unwrap()).await;
    let after = legit(route).await;
    cli.shutdown().await;
    srv.shutdown().await;
    let text = log.text();
    let accept_lines = text.lines().filter(|l| l.contains("accept failed")).count();
    eprintln!(
        "flood {flood_secs:.1} s ({status:?}): {accept_failures} failed accepts, {accept_lines} log lines about them, {cpu:.2} s of CPU in this process; legitimate transfer started mid-flood: tries {took:?} (done {took_at:?} after the flood began); after it {after:?}; {} log bytes",
        text.len()
    );
    assert!(
        accept_failures > 0,
        "the flood reached the descriptor limit"
    );
    assert!(
        accept_lines as f64 <= 3.0 * (flood_secs + 1.0),
        "{accept_lines} lines about failed accepts"
    );
    // Spinning would take a whole core for the flood's duration.
    assert!(
        cpu < 0.5 * flood_secs,
        "{cpu:.2} s of CPU in {flood_secs:.1} s"
    );
    took.expect("the legitimate transfer completes, intact, in time");
    assert!(
        metric(&page, "schedtcp_rejected_total{reason=\"accept\"}") > 0.0,
        "the metrics endpoint answers after the flood"
    );
}
