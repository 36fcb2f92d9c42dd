//! SIGHUP reloads of the real binaries: routes come and go while a large transfer runs on a
//! third route, which finishes intact and without a reset; a bad file keeps the running
//! configuration.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{free_port, series, total, Dir, Proc};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tunnel::loadgen::{self, FlowSpec};

/// How long a process may take to start, reload, or a small flow to finish.
const BOUND: Duration = Duration::from_secs(30);

/// The running configuration's hash.
fn config_hash(text: &str) -> String {
    text.lines()
        .find_map(|l| {
            let rest = l.strip_prefix("schedtcp_config_info{hash=\"")?;
            Some(rest.split('"').next()?.to_owned())
        })
        .expect("schedtcp_config_info")
}

/// Sends SIGHUP and waits until the process counted `ok` and `error` reloads in all; returns
/// the metrics text then.
async fn reload(p: &Proc, metrics: SocketAddr, ok: f64, error: f64) -> String {
    p.signal("-HUP");
    let deadline = Instant::now() + BOUND;
    loop {
        let t = scrape(metrics).await;
        let counts = (
            series(&t, "schedtcp_config_reloads_total{result=\"ok\"}"),
            series(&t, "schedtcp_config_reloads_total{result=\"error\"}"),
        );
        if counts == (ok, error) {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "reloads {counts:?}, expected ({ok}, {error})"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn server_toml(listen: SocketAddr, metrics: SocketAddr, routes: &[(&str, SocketAddr)]) -> String {
    let mut s = format!("listen = \"{listen}\"\nkey_file = \"psk.txt\"\nmetrics = \"{metrics}\"\n");
    for (name, target) in routes {
        s += &format!("[[route]]\nname = \"{name}\"\ntarget = \"{target}\"\n");
    }
    s
}

fn client_toml(
    server: SocketAddr,
    metrics: SocketAddr,
    extra: &str,
    routes: &[(&str, SocketAddr)],
) -> String {
    let mut s = format!(
        "server = \"{server}\"\nkey_file = \"psk.txt\"\nmetrics = \"{metrics}\"\n{extra}\n"
    );
    for (name, listen) in routes {
        s += &format!("[[route]]\nname = \"{name}\"\nlisten = \"{listen}\"\n");
    }
    s
}

/// A transfer through a route: a `len`-byte download and a 1 MiB upload, started and read
/// 1 MiB in, then left waiting (flow control holds the rest of the download) until
/// [`Transfer::finish`].
struct Transfer {
    stream: TcpStream,
    len: u64,
    /// SHA-256 of the download so far.
    hash: Sha256,
    read: u64,
    upload_digest: [u8; 32],
}

impl Transfer {
    async fn start(route: SocketAddr, len: u64) -> Self {
        let upload = 1 << 20;
        let mut stream = TcpStream::connect(route).await.unwrap();
        stream.write_u64(len).await.unwrap();
        stream.write_u64(upload).await.unwrap();
        let mut up = vec![0u8; upload as usize];
        loadgen::fill(7, 0, &mut up);
        stream.write_all(&up).await.unwrap();
        stream.shutdown().await.unwrap();
        let mut t = Self {
            stream,
            len,
            hash: Sha256::new(),
            read: 0,
            upload_digest: Sha256::digest(&up).into(),
        };
        t.read_to(1 << 20).await;
        t
    }

    /// Reads the download up to offset `to`, checking every byte against the target's pattern.
    async fn read_to(&mut self, to: u64) {
        let mut want = vec![0u8; 256 * 1024];
        let mut buf = vec![0u8; 256 * 1024];
        while self.read < to {
            let k = ((to - self.read) as usize).min(buf.len());
            let n = tokio::time::timeout(BOUND, self.stream.read(&mut buf[..k]))
                .await
                .expect("the transfer stalled")
                .expect("the transfer was reset");
            assert!(
                n > 0,
                "the transfer ended at {} of {} bytes",
                self.read,
                self.len
            );
            loadgen::fill(self.len, self.read, &mut want[..n]);
            assert!(
                buf[..n] == want[..n],
                "download corrupted near offset {}",
                self.read
            );
            self.hash.update(&buf[..n]);
            self.read += n as u64;
        }
    }

    /// Reads the rest and the target's digest of the upload; checks the download's SHA-256
    /// against the pattern's, the upload's against the target's, and a clean end.
    async fn finish(mut self) {
        self.read_to(self.len).await;
        let mut digest = [0u8; 32];
        self.stream
            .read_exact(&mut digest)
            .await
            .expect("the upload's digest");
        assert_eq!(digest, self.upload_digest, "upload corrupted");
        let mut end = [0u8; 1];
        assert_eq!(
            self.stream.read(&mut end).await.expect("clean end"),
            0,
            "more than announced"
        );
        let mut sent = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut off = 0;
        while off < self.len {
            let n = ((self.len - off) as usize).min(buf.len());
            loadgen::fill(self.len, off, &mut buf[..n]);
            sent.update(&buf[..n]);
            off += n as u64;
        }
        assert_eq!(
            self.hash.finalize(),
            sent.finalize(),
            "SHA-256 of the download"
        );
    }
}

/// A `len`-byte download (and 1 MiB upload) on route "bulk" and a smaller one on route "old"
/// run while both processes reload twice: "old" removed and "new" added (to another target on
/// the server), then a bad file that changes nothing.
async fn reload_during_transfer(len: u64) {
    let (target, _t) = loadgen::start_target("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let (other_target, _t2) = loadgen::start_target("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let dir = Dir::with_key(&format!("reload-{len}"));
    let (server, server_metrics, client_metrics) = (free_port(), free_port(), free_port());
    let (bulk, old, new) = (free_port(), free_port(), free_port());
    let server_path = dir.config(
        "server",
        &server_toml(server, server_metrics, &[("bulk", target), ("old", target)]),
    );
    let client_path = dir.config(
        "client",
        &client_toml(server, client_metrics, "", &[("bulk", bulk), ("old", old)]),
    );
    let s = spawn("server", &server_path, server_metrics).await;
    let c = spawn("client", &client_path, client_metrics).await;
    let first_hash = config_hash(&scrape(client_metrics).await);
    loadgen::run_flow(
        old,
        FlowSpec {
            download: 1000,
            upload: 1000,
        },
    )
    .await
    .expect("route old before the reload");

    // The transfers, left waiting while the processes reload: the large one on "bulk", and
    // one on "old", the route the reload removes.
    let transfer = Transfer::start(bulk, len).await;
    let on_removed = Transfer::start(old, 4 << 20).await;

    // Reload: "old" removed, "new" added, on both sides (the server's "new" goes to another
    // target); the client's policy changes too, which needs a restart and is refused.
    std::fs::write(
        &server_path,
        server_toml(
            server,
            server_metrics,
            &[("bulk", target), ("new", other_target)],
        ),
    )
    .unwrap();
    std::fs::write(
        &client_path,
        client_toml(
            server,
            client_metrics,
            "policy = \"srpt\"",
            &[("bulk", bulk), ("new", new)],
        ),
    )
    .unwrap();
    reload(&s, server_metrics, 1.0, 0.0).await;
    let after = reload(&c, client_metrics, 1.0, 0.0).await;
    let second_hash = config_hash(&after);
    assert_ne!(
        first_hash, second_hash,
        "the hash follows the running configuration"
    );
    loadgen::run_flow(
        new,
        FlowSpec {
            download: 100_000,
            upload: 1000,
        },
    )
    .await
    .expect("route new after the reload");
    assert!(
        TcpStream::connect(old).await.is_err(),
        "the removed route's listener is closed"
    );

    // A bad file: refused, the running configuration stays.
    std::fs::write(&client_path, "server = \"nowhere\"\n").unwrap();
    let after_bad = reload(&c, client_metrics, 1.0, 1.0).await;
    assert_eq!(config_hash(&after_bad), second_hash);
    std::fs::write(&server_path, "listen = [").unwrap();
    reload(&s, server_metrics, 1.0, 1.0).await;
    loadgen::run_flow(
        new,
        FlowSpec {
            download: 100_000,
            upload: 1000,
        },
    )
    .await
    .expect("route new after the bad reload");

    // The transfers finish intact (the removed route's too), and no flow was reset on either
    // side.
    on_removed.finish().await;
    transfer.finish().await;
    for m in [server_metrics, client_metrics] {
        let t = scrape(m).await;
        assert_eq!(
            total(&t, "flows_reset_total"),
            0.0,
            "a flow was reset:\n{t}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_adds_and_removes_routes_while_20_mb_run_intact_on_a_third() {
    reload_during_transfer(20 << 20).await;
}

/// The same with 200 MB (about a minute in a debug build).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "200 MB through a debug build: run with --ignored"]
async fn a_reload_adds_and_removes_routes_while_200_mb_run_intact_on_a_third() {
    reload_during_transfer(200 << 20).await;
}

async fn spawn(role: &str, config: &Path, metrics: SocketAddr) -> Proc {
    Proc::spawn(role, config, metrics, "RELOAD_LOG", BOUND).await
}

async fn scrape(addr: SocketAddr) -> String {
    common::scrape(addr).await.expect("metrics endpoint")
}
