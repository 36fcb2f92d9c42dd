//! Graceful shutdown drains every session at once, against one deadline (issue 15, item 7).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tunnel::{client, server, ClientConfig, ServerConfig};

const KEY: &str = "shutdown-test-key-0123456789";
const GRACE_SECS: u64 = 2;
const SESSIONS: usize = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_all_sessions_within_one_grace_period() {
    // A target that takes connections and never answers nor closes them: every flow to it
    // lasts until the shutdown resets it.
    let target = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let target_addr = target.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut socks = Vec::new();
        while let Ok((s, _)) = target.accept().await {
            socks.push(s);
        }
    });
    let srv = server::start(
        ServerConfig::from_toml(&format!(
            "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\n[tuning]\nshutdown_grace_secs = {GRACE_SECS}\n[[route]]\nname = \"t\"\ntarget = \"{target_addr}\"\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let mut clients = Vec::new();
    let mut apps = Vec::new();
    for _ in 0..SESSIONS {
        let c = client::start(
            ClientConfig::from_toml(&format!(
                "server = \"{}\"\nkey = \"{KEY}\"\n[[route]]\nname = \"t\"\nlisten = \"127.0.0.1:0\"\n",
                srv.addr
            ))
            .unwrap(),
            KEY.as_bytes(),
        )
        .await
        .unwrap();
        let route: SocketAddr = c.routes[0].1;
        let mut app = TcpStream::connect(route).await.unwrap();
        app.write_all(b"hello").await.unwrap();
        apps.push(app);
        clients.push(c);
    }
    // Every session has its flow at the server.
    let deadline = Instant::now() + Duration::from_secs(20);
    while srv.sessions().len() < SESSIONS
        || srv
            .sessions()
            .iter()
            .map(|e| e.active_flows())
            .sum::<usize>()
            < SESSIONS
    {
        assert!(Instant::now() < deadline, "sessions never opened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let began = Instant::now();
    srv.shutdown().await;
    let took = began.elapsed();
    // One grace period (2 s) plus the bounded settling, not six of them one after another.
    assert!(
        took < Duration::from_secs(2 * GRACE_SECS),
        "shutdown took {took:?} for {SESSIONS} sessions"
    );
    assert!(took >= Duration::from_secs(GRACE_SECS) - Duration::from_millis(100));
    held.abort();
}
