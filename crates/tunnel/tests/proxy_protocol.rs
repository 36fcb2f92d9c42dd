//! A server route with `proxy_protocol = true` tells its target where the application connected
//! from: HAProxy, with `accept-proxy` on its listener, logs the application's address (a source
//! address of its own in 127.0.0.0/8), not the server's. Skipped, saying so, where `haproxy`
//! is not installed (`.ci/run` installs Debian's package when run as root).

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpSocket};
use tokio::process::Command;
use tunnel::{client, server, ClientConfig, ServerConfig};

const KEY: &str = "proxy-protocol-test-key-0123456789";

/// A free port on 127.0.0.1 (bound and released; HAProxy binds it next).
async fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    l.local_addr().unwrap().port()
}

/// An echo server: what HAProxy forwards to.
async fn echo() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            tokio::spawn(async move {
                let (mut r, mut w) = s.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn haproxy_logs_the_applications_address() {
    if std::process::Command::new("haproxy")
        .arg("-v")
        .output()
        .is_err()
    {
        eprintln!("skipped: haproxy is not installed (apt-get install haproxy)");
        return;
    }
    let backend = echo().await;
    let port = free_port().await;
    let dir = std::env::temp_dir().join(format!("schedtcp-haproxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("haproxy.cfg");
    std::fs::write(
        &cfg,
        format!(
            "global\n  log stdout format raw local0\ndefaults\n  mode tcp\n  log global\n  \
             log-format \"client=%ci:%cp\"\n  timeout connect 5s\n  timeout client 10s\n  \
             timeout server 10s\nfrontend f\n  bind 127.0.0.1:{port} accept-proxy\n  \
             default_backend b\nbackend b\n  server s {backend}\n"
        ),
    )
    .unwrap();
    let mut haproxy = Command::new("haproxy")
        .arg("-db")
        .arg("-f")
        .arg(&cfg)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(haproxy.stdout.take().unwrap()).lines();

    let srv = server::start(
        ServerConfig::from_toml(&format!(
            "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\n[[route]]\nname = \"web\"\n\
             target = \"127.0.0.1:{port}\"\nproxy_protocol = true\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let cli = client::start(
        ClientConfig::from_toml(&format!(
            "server = \"{}\"\nkey = \"{KEY}\"\n[[route]]\nname = \"web\"\nlisten = \"127.0.0.1:0\"\n",
            srv.addr
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let route = cli.routes[0].1;

    // The application connects from an address of its own; HAProxy may still be starting, so
    // a flow that it reset is tried again (at most 50 times, 100 ms apart).
    let mut app_addr = None;
    for _ in 0..50 {
        let sock = TcpSocket::new_v4().unwrap();
        sock.bind("127.0.0.77:0".parse().unwrap()).unwrap();
        let mut app = sock.connect(route).await.unwrap();
        let from = app.local_addr().unwrap();
        app.write_all(b"hello through the tunnel").await.unwrap();
        let mut back = [0u8; 24];
        let echoed = tokio::time::timeout(Duration::from_secs(5), app.read_exact(&mut back)).await;
        if matches!(echoed, Ok(Ok(_))) {
            assert_eq!(&back, b"hello through the tunnel");
            app_addr = Some(from);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let from = app_addr.expect("a flow through HAProxy echoed its bytes");
    // HAProxy logs a TCP session when it ends: close it, then read its log line.
    let want = format!("client={}:{}", from.ip(), from.port());
    let logged = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(&want) {
                return Some(line);
            }
        }
        None
    })
    .await;
    cli.shutdown().await;
    srv.shutdown().await;
    let _ = haproxy.kill().await;
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        matches!(logged, Ok(Some(_))),
        "HAProxy did not log {want}: {logged:?}"
    );
}
