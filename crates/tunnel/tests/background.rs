//! Background routes under access control (paper 004): at most M flows active, the rest wait
//! with nothing read from their applications, a full waiting queue resets newcomers, and a
//! slot passes to the first waiting flow when an active one ends.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tunnel::engine::AdmissionStatus;
use tunnel::loadgen::{self, FlowSpec};
use tunnel::{client, server, ClientConfig, ServerConfig};

const KEY: &str = "background-test-key-0123456789ab";

async fn start() -> (server::ServerHandle, client::ClientHandle) {
    let (target, _t) = loadgen::start_target("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    std::mem::forget(_t);
    let srv = server::start(
        ServerConfig::from_toml(&format!(
            "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\n[[route]]\nname = \"bg\"\ntarget = \"{target}\"\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let server = srv.addr;
    let cli = client::start(
        ClientConfig::from_toml(&format!(
            "server = \"{server}\"\nkey = \"{KEY}\"\n[admission]\nfixed = 1\nmax_waiting = 2\n[[route]]\nname = \"bg\"\nlisten = \"127.0.0.1:0\"\nbackground = true\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    (srv, cli)
}

/// Polls the client's access controller until `ok` holds (at most 10 s).
async fn until(
    cli: &client::ClientHandle,
    ok: impl Fn(&AdmissionStatus) -> bool,
) -> AdmissionStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let a = cli.engine.admission().expect("access control is on");
        if ok(&a) {
            return a;
        }
        assert!(Instant::now() < deadline, "never reached: {a:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_m_active_waiting_in_order_and_refused_beyond_the_queue() {
    let (_srv, cli) = start().await;
    let route: SocketAddr = cli.routes[0].1;
    // Applications that connect and wait: each holds its flow open.
    let a = TcpStream::connect(route).await.unwrap();
    until(&cli, |s| s.active == 1).await;
    let b = TcpStream::connect(route).await.unwrap();
    let c = TcpStream::connect(route).await.unwrap();
    let s = until(&cli, |s| s.waiting == 2).await;
    assert_eq!((s.limit, s.active), (1, 1));
    // The queue is full: a newcomer is reset.
    let refused = tokio::time::timeout(Duration::from_secs(10), async {
        // The reset may come before `connect` returns, or on the first read.
        let mut d = TcpStream::connect(route).await?;
        let mut buf = [0u8; 16];
        d.read(&mut buf).await
    })
    .await
    .expect("the refused application hears within 10 s");
    assert!(
        matches!(&refused, Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset),
        "refused with a reset, got {refused:?}"
    );
    assert_eq!(cli.engine.admission().unwrap().refused, 1);
    // The active application leaves: its slot passes to a waiting flow.
    drop(a);
    until(&cli, |s| s.active == 1 && s.waiting == 1).await;
    drop(b);
    until(&cli, |s| s.active == 1 && s.waiting == 0).await;
    drop(c);
    until(&cli, |s| s.active == 0 && s.waiting == 0).await;
    // A transfer through the background route arrives intact.
    let spec = FlowSpec {
        download: 1_000_000,
        upload: 10_000,
    };
    loadgen::run_flow(route, spec).await.expect("intact");
}
