//! Issue 16, attacks 4 and 5, against a real server and client over loopback.
//!
//! * Attack 4 (offline guessing): the server sends nothing keyed before the client proved the
//!   key, so a peer without it learns nothing to test guesses against; a version-2 client is
//!   refused.
//! * Attack 5 (tampering, injection): a relay on the path flips one byte of one pool
//!   connection, or injects bytes into one; that connection is closed as a protocol error and
//!   counted in `schedtcp_integrity_failures_total`, and the downloads alongside (including
//!   the one whose connection was closed, which goes on over a replacement) complete intact
//!   within `LEGIT_WITHIN`. Figures: `docs/RELIABILITY.md`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{BufMut, BytesMut};
use gtcp::wire::handshake::{ClientAuth, ClientHello, ServerHello};
use gtcp::{ConnId, FlowId};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tunnel::loadgen::{self, FlowSpec};
use tunnel::{client, server, ClientConfig, ServerConfig};

mod common;

use common::*;

/// Reads what the server sends until it closes (at most `cap` bytes, within 10 s).
async fn read_to_close(s: &mut TcpStream, cap: usize) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let r = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    got.extend_from_slice(&buf[..n]);
                    if got.len() > cap {
                        return;
                    }
                }
            }
        }
    })
    .await;
    assert!(r.is_ok(), "the server closes the connection");
    got
}

/// Attack 4: a peer without the key gets the server's nonce and nothing keyed; its guess at a
/// proof is answered by the connection closing without a byte, and counted. Before issue 16
/// the server's first answer carried its MAC over the client's chosen nonce.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_sends_nothing_keyed_before_the_client_proved_the_key() {
    let (srv, cli, route) = start("").await;
    let legit_flow = tokio::spawn(legit(route));
    let mut nonces = Vec::new();
    for guess in 0..20u8 {
        let mut s = TcpStream::connect(srv.addr).await.unwrap();
        let mut out = BytesMut::new();
        ClientHello::new(true).encode(&mut out);
        s.write_all(&out).await.unwrap();
        let mut answer = vec![0u8; ServerHello::LEN];
        s.read_exact(&mut answer).await.unwrap();
        let sh = ServerHello::decode(&mut BytesMut::from(&answer[..]))
            .unwrap()
            .unwrap();
        // The whole answer is the header, the nonce and the key share: nothing that depends
        // on the key.
        let mut again = BytesMut::new();
        ServerHello::new(sh.nonce, sh.share).encode(&mut again);
        assert_eq!(&again[..], &answer[..]);
        nonces.push(sh.nonce);
        // A guessed key's proof.
        let session = tunnel::auth::SessionKey::from_bytes([guess; 32]);
        let wrong = tunnel::auth::PreSharedKey::new(&[guess; 32])
            .client_connection(&session, &sh, &[guess; 32])
            .unwrap();
        out.clear();
        ClientAuth::new(&wrong, &sh, [guess; 32], session.id(), ConnId(1), None).encode(&mut out);
        s.write_all(&out).await.unwrap();
        let after = read_to_close(&mut s, 1 << 16).await;
        assert!(
            after.is_empty(),
            "after a wrong proof the server sends nothing ({} bytes came)",
            after.len()
        );
    }
    nonces.sort();
    nonces.dedup();
    assert_eq!(nonces.len(), 20, "a fresh server nonce per connection");
    // A client of wire version 2 (its hello: version 2 and its nonce) is refused at once.
    let mut s = TcpStream::connect(srv.addr).await.unwrap();
    let mut v2 = BytesMut::new();
    v2.put_u8(0xF1);
    v2.put_slice(b"GTCP");
    v2.put_u16(2);
    v2.put_bytes(7, 32);
    s.write_all(&v2).await.unwrap();
    assert!(read_to_close(&mut s, 1 << 16).await.is_empty());
    let took = legit_flow.await.unwrap();
    let page = scrape(srv.metrics.unwrap()).await;
    let refused = metric(&page, "schedtcp_rejected_total{reason=\"handshake\"}");
    eprintln!("guessing: 20 wrong proofs and a v2 hello refused ({refused} counted); legitimate transfer {took:?}");
    assert!(refused >= 21.0, "{refused} handshakes refused");
    cli.shutdown().await;
    srv.shutdown().await;
}

/// What the relay does to one pool connection.
#[derive(Clone, Copy)]
enum Attack {
    /// Flip a bit of the byte at this offset of the server-to-client stream.
    Flip(usize),
    /// Insert these bytes into the client-to-server stream after this offset.
    Inject(usize),
}

/// A relay on the path between the client and the server: forwards every connection, and
/// applies `attack` to the `victim`-th (0-based). Reports each accepted connection's index.
async fn relay(
    server: SocketAddr,
    victim: usize,
    attack: Attack,
) -> (SocketAddr, mpsc::UnboundedReceiver<usize>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut n = 0;
        while let Ok((down, _)) = l.accept().await {
            let Ok(up) = TcpStream::connect(server).await else {
                return;
            };
            let _ = tx.send(n);
            let attack = (n == victim).then_some(attack);
            tokio::spawn(pipe(down, up, attack));
            n += 1;
        }
    });
    (addr, rx)
}

async fn pipe(client: TcpStream, server: TcpStream, attack: Option<Attack>) {
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let flip = match attack {
        Some(Attack::Flip(at)) => Some(at),
        _ => None,
    };
    let inject = match attack {
        Some(Attack::Inject(at)) => Some(at),
        _ => None,
    };
    let up = async move {
        copy(&mut cr, &mut sw, None, inject).await;
        let _ = sw.shutdown().await;
    };
    let down = async move {
        copy(&mut sr, &mut cw, flip, None).await;
        let _ = cw.shutdown().await;
    };
    tokio::join!(up, down);
}

async fn copy(
    r: &mut tokio::net::tcp::OwnedReadHalf,
    w: &mut tokio::net::tcp::OwnedWriteHalf,
    mut flip: Option<usize>,
    mut inject: Option<usize>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut passed = 0usize;
    loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if let Some(at) = flip.filter(|at| (passed..passed + n).contains(at)) {
            buf[at - passed] ^= 0x20;
            flip = None;
        }
        if let Some(at) = inject.filter(|at| *at <= passed + n) {
            let k = at.saturating_sub(passed).min(n);
            if w.write_all(&buf[..k]).await.is_err() {
                return;
            }
            // A well-formed frame (a Reset of flow 1), in the clear.
            let mut f = BytesMut::new();
            gtcp::wire::Frame::Reset {
                flow: FlowId(1),
                code: 1,
            }
            .encode(&mut f);
            if w.write_all(&f).await.is_err() || w.write_all(&buf[k..n]).await.is_err() {
                return;
            }
            inject = None;
        } else if w.write_all(&buf[..n]).await.is_err() {
            return;
        }
        passed += n;
    }
}

/// Two downloads of this size each; the attack hits the first one's pool connection.
const DOWNLOAD: FlowSpec = FlowSpec {
    download: 8_000_000,
    upload: 100_000,
};

/// Runs two downloads through a client whose path to the server goes through `relay` applying
/// `attack` to the first flow's connection; returns (server page, client page, times).
async fn attacked(attack: Attack) -> (String, String, Vec<Duration>) {
    let (target, _t) = loadgen::start_target("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let srv = server::start(
        ServerConfig::from_toml(&format!(
            "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\nmetrics = \"127.0.0.1:0\"\n[tuning]\nshutdown_grace_secs = 1\n[[route]]\nname = \"t\"\ntarget = \"{target}\"\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let (path, mut accepted) = relay(srv.addr, 0, attack).await;
    let cli = client::start(
        ClientConfig::from_toml(&format!(
            "server = \"{path}\"\nkey = \"{KEY}\"\nmetrics = \"127.0.0.1:0\"\n[tuning]\nshutdown_grace_secs = 1\n[[route]]\nname = \"t\"\nlisten = \"127.0.0.1:0\"\n"
        ))
        .unwrap(),
        KEY.as_bytes(),
    )
    .await
    .unwrap();
    let route = cli.routes[0].1;
    let run = |spec| async move {
        let t = Instant::now();
        tokio::time::timeout(LEGIT_WITHIN, loadgen::run_flow(route, spec))
            .await
            .expect("the download completes in time")
            .expect("the download is intact");
        t.elapsed()
    };
    // The victim's flow takes connection 0 of the relay; the other flow starts after it.
    let first = tokio::spawn(run(DOWNLOAD));
    assert_eq!(accepted.recv().await, Some(0));
    let second = tokio::spawn(run(DOWNLOAD));
    let times = vec![first.await.unwrap(), second.await.unwrap()];
    let pages = (
        scrape(srv.metrics.unwrap()).await,
        scrape(cli.metrics.unwrap()).await,
    );
    cli.shutdown().await;
    srv.shutdown().await;
    (pages.0, pages.1, times)
}

const FAILURES: &str = "schedtcp_integrity_failures_total";

/// Attack 5: one bit flipped in a pool connection's server-to-client stream, 1 MB into it.
/// Before issue 16 the altered bytes reached the core (or the application). Now the client's
/// record layer refuses the record, closes that connection and counts it; both downloads,
/// the victim's over a replacement connection, complete intact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_closes_its_connection_and_every_download_stays_intact() {
    let (srv, cli, times) = attacked(Attack::Flip(1_000_000)).await;
    eprintln!("flip: downloads took {times:?}");
    assert_eq!(metric(&cli, FAILURES), 1.0, "the client counts one failure");
    assert_eq!(metric(&srv, FAILURES), 0.0);
}

/// Attack 5: a well-formed frame (a Reset) injected into a pool connection's client-to-server
/// stream. Before issue 16 the server acted on it; now its record layer refuses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_injected_frame_closes_its_connection_and_every_download_stays_intact() {
    let (srv, cli, times) = attacked(Attack::Inject(50_000)).await;
    eprintln!("inject: downloads took {times:?}");
    assert_eq!(metric(&srv, FAILURES), 1.0, "the server counts one failure");
    assert_eq!(metric(&cli, FAILURES), 0.0);
}
