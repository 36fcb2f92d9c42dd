//! What the attack tests share: a server and a client over loopback, the legitimate transfer
//! that must complete alongside each attack, the metrics page, a hostile authenticated peer.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use gtcp::wire::{DataFrame, Frame, OpenFrame};
use gtcp::{ConnId, FlowId};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tunnel::loadgen::{self, FlowSpec};
use tunnel::{client, server, ClientConfig, ServerConfig};

pub const KEY: &str = "attack-test-key-0123456789abcdef";

/// The legitimate transfer: 4 MB down, 200 kB up, and the time it must take at most while an
/// attack runs (it takes well under a second on an idle loopback).
pub const LEGIT: FlowSpec = FlowSpec {
    download: 4_000_000,
    upload: 200_000,
};
pub const LEGIT_WITHIN: Duration = Duration::from_secs(10);

pub async fn start(extra: &str) -> (server::ServerHandle, client::ClientHandle, SocketAddr) {
    let (target, _t) = loadgen::start_target("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let srv = server::start(
        ServerConfig::from_toml(&format!(
            "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\nmetrics = \"127.0.0.1:0\"\n{extra}\n[tuning]\nshutdown_grace_secs = 1\n[[route]]\nname = \"t\"\ntarget = \"{target}\"\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let cli = client::start(
        ClientConfig::from_toml(&format!(
            "server = \"{}\"\nkey = \"{KEY}\"\n[tuning]\nshutdown_grace_secs = 1\n[[route]]\nname = \"t\"\nlisten = \"127.0.0.1:0\"\n",
            srv.addr
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let route = cli.routes[0].1;
    (srv, cli, route)
}

/// The legitimate download, timed; panics if it fails or takes longer than `LEGIT_WITHIN`.
pub async fn legit(route: SocketAddr) -> Duration {
    let t = Instant::now();
    tokio::time::timeout(LEGIT_WITHIN, loadgen::run_flow(route, LEGIT))
        .await
        .expect("the legitimate transfer completes in time")
        .expect("the legitimate transfer is intact");
    t.elapsed()
}

/// The metrics page.
/// The metrics page (empty if the endpoint closed the connection without an answer).
pub async fn scrape(addr: SocketAddr) -> String {
    let mut out = String::new();
    if let Ok(mut s) = TcpStream::connect(addr).await {
        if s.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").await.is_ok() {
            let _ = s.read_to_string(&mut out).await;
        }
    }
    out
}

/// The value of a metric line (`name` with its labels, exactly).
pub fn metric(page: &str, name: &str) -> f64 {
    page.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in the metrics"))
}

/// An authenticated pool connection of a session of its own (the key is known: a hostile
/// client, not an outsider; its session key is drawn from `session`), and the sealer its
/// frames must go through to reach the core.
pub async fn hostile(srv: SocketAddr, session: u8) -> (TcpStream, tunnel::record::Sealer) {
    let mut s = TcpStream::connect(srv).await.unwrap();
    let (record, _) = tunnel::net::client_handshake(
        &mut s,
        &tunnel::auth::PreSharedKey::new(KEY.as_bytes()),
        &tunnel::auth::SessionKey::from_bytes([session; 32]),
        ConnId(1),
        Some(FlowId(1)),
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    (s, record.expect("integrity is on by default").sealer)
}

pub fn open(flow: u64) -> Frame {
    Frame::Open(OpenFrame {
        flow: FlowId(flow),
        route: "t".into(),
        class: 0,
        size_hint: None,
        origin: None,
    })
}

pub fn data(flow: u64, offset: u64, len: usize) -> Frame {
    Frame::Data(DataFrame {
        flow: FlowId(flow),
        offset,
        payload: Bytes::from(vec![b'x'; len]),
    })
}

/// Everything the process logs at `warn` and above, from now on (installs the process-wide
/// subscriber: one test per binary may call it).
#[derive(Clone, Default)]
pub struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    pub fn install() -> Self {
        let log = Captured::default();
        let writer = log.clone();
        tracing_subscriber::fmt()
            .with_env_filter("warn")
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
        log
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}
