//! A stream multiplexer between the namespaces, what a deployer would run instead of schedtcp:
//! every flow of the pair rides ONE long-lived TCP connection as a yamux stream (the `yamux`
//! crate; HTTP/2 multiplexes the same way: frames of the streams round robin on one
//! connection). [`Client`] accepts the applications' connections and opens one stream per
//! connection over its single connection to [`server`], which connects each stream to the
//! target and relays both ways, half-closes included. Static lanes are two such
//! client/server pairs, the workload sending each flow to one or the other
//! ([`crate::workload::Path::Bulk`]).
//!
//! Bounds (all fixed by [`Limits`]):
//! - at most `max_streams` streams at once on a connection (default [`MAX_STREAMS`]): the
//!   client accepts no further application connection until one ends (they wait in the
//!   kernel's listen backlog), the server's yamux refuses a stream beyond it;
//! - each stream's receive window is yamux's 256 KiB ([`yamux::DEFAULT_CREDIT`], the
//!   specification's initial window), fixed: the connection's receive window is set to
//!   `max_streams ×` it, which leaves yamux's window auto-tuning no room to grow a stream, so
//!   a connection holds at most `max_streams × 256 KiB` (64 MiB by default) of received bytes
//!   and each stream has at most 256 KiB unacknowledged in flight;
//! - frames are at most 16 KiB of payload (yamux's default split size, HTTP/2's default
//!   frame size);
//! - each relay copies through tokio's `copy_bidirectional` buffers (8 KiB per direction);
//! - the server serves at most [`MAX_CONNECTIONS`] multiplexed connections at once.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context as _, Result};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, Semaphore};
use tokio::task::JoinSet;
use tokio_util::compat::{FuturesAsyncReadCompatExt, TokioAsyncReadCompatExt};
use yamux::{Connection, Mode};

/// Streams open at once on one multiplexed connection (default of [`Limits`]).
pub const MAX_STREAMS: usize = 256;
/// Multiplexed connections the server serves at once (one per lane is what the testbed opens).
pub const MAX_CONNECTIONS: usize = 8;
/// How long the client waits for the connection's orderly close (yamux GoAway) at shutdown.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// The multiplexer's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Streams open at once on one connection (1..=4096).
    pub max_streams: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_streams: MAX_STREAMS,
        }
    }
}

impl Limits {
    /// yamux's configuration: `max_streams` streams, each with a fixed 256 KiB window.
    fn config(self) -> Result<yamux::Config> {
        anyhow::ensure!(
            (1..=4096).contains(&self.max_streams),
            "max_streams must be 1..=4096, not {}",
            self.max_streams
        );
        let mut c = yamux::Config::default();
        c.set_max_num_streams(self.max_streams);
        c.set_max_connection_receive_window(Some(
            self.max_streams * yamux::DEFAULT_CREDIT as usize,
        ));
        Ok(c)
    }
}

/// What a side carried, when it stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Multiplexed TCP connections (client: opened; server: accepted).
    pub connections: u64,
    /// Streams (one per application connection) opened or accepted.
    pub streams: u64,
    /// Streams whose relay ended in an error.
    pub failed: u64,
}

/// A request for a new outbound stream, answered by the connection's driver.
type Request = oneshot::Sender<yamux::Result<yamux::Stream>>;

/// The client side: one multiplexed connection to `server` (connected here, before the
/// caller listens, so that a listening client is a connected one), then every connection
/// `listener` accepts becomes a stream on it, until `shutdown` completes (then the
/// connection is closed in order, yamux's GoAway) or the connection fails (an error).
pub struct Client {
    conn: Connection<tokio_util::compat::Compat<TcpStream>>,
    limits: Limits,
}

impl Client {
    /// Connects to the multiplexer's server.
    pub async fn connect(server: SocketAddr, limits: Limits) -> Result<Self> {
        let cfg = limits.config()?;
        let tcp = TcpStream::connect(server)
            .await
            .with_context(|| format!("connecting to the multiplexer's server {server}"))?;
        // Frames go out as the streams write them, as HTTP/2 and yamux implementations do.
        tcp.set_nodelay(true).context("TCP_NODELAY")?;
        Ok(Client {
            conn: Connection::new(tcp.compat(), cfg, Mode::Client),
            limits,
        })
    }

    /// Serves `listener` until `shutdown` completes.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> Result<Tally> {
        let (tx, rx) = mpsc::channel::<Request>(self.limits.max_streams);
        let mut driver = tokio::spawn(drive(self.conn, rx));
        let slots = Arc::new(Semaphore::new(self.limits.max_streams));
        let mut relays: JoinSet<bool> = JoinSet::new();
        let mut tally = Tally {
            connections: 1,
            ..Tally::default()
        };
        tokio::pin!(shutdown);
        let outcome: Result<()> = loop {
            while let Some(ok) = relays.try_join_next() {
                tally.failed += u64::from(!matches!(ok, Ok(true)));
            }
            let permit = tokio::select! {
                _ = &mut shutdown => break Ok(()),
                r = &mut driver => break Err(ended(r)),
                p = slots.clone().acquire_owned() => p.context("stream slots")?,
            };
            let app = tokio::select! {
                _ = &mut shutdown => break Ok(()),
                r = &mut driver => break Err(ended(r)),
                a = listener.accept() => match a {
                    Ok((s, _)) => s,
                    Err(e) => {
                        // Out of descriptors and the like: this connection is lost, not
                        // the multiplexer.
                        tracing::warn!("accepting: {e}");
                        continue;
                    }
                },
            };
            tally.streams += 1;
            let tx = tx.clone();
            relays.spawn(async move {
                let _slot = permit;
                match relay_out(app, tx).await {
                    Ok(()) => true,
                    Err(e) => {
                        tracing::debug!("stream: {e:#}");
                        false
                    }
                }
            });
        };
        relays.abort_all();
        while let Some(ok) = relays.join_next().await {
            tally.failed += u64::from(matches!(ok, Ok(false)));
        }
        // The last request sender gone, the driver closes the connection in order.
        drop(tx);
        if outcome.is_ok() && !driver.is_finished() {
            match tokio::time::timeout(CLOSE_GRACE, &mut driver).await {
                Ok(r) => r.context("the multiplexer's driver")??,
                Err(_) => {
                    driver.abort();
                    tracing::warn!(
                        "the multiplexed connection did not close within {CLOSE_GRACE:?}"
                    );
                }
            }
        }
        outcome.map(|()| tally)
    }
}

/// Why the driver stopped while the client still served.
fn ended(r: std::result::Result<Result<()>, tokio::task::JoinError>) -> anyhow::Error {
    match r {
        Ok(Ok(())) => anyhow!("the multiplexed connection closed"),
        Ok(Err(e)) => e.context("the multiplexed connection failed"),
        Err(e) => anyhow!("the multiplexer's driver: {e}"),
    }
}

/// Owns the client's connection: keeps it moving (yamux makes progress only while polled
/// for inbound streams), opens a stream per request, and closes the connection in order once
/// every request sender is gone.
async fn drive(
    mut conn: Connection<tokio_util::compat::Compat<TcpStream>>,
    mut requests: mpsc::Receiver<Request>,
) -> Result<()> {
    let mut waiting: Option<Request> = None;
    let mut closing = false;
    std::future::poll_fn(|cx| {
        use std::task::Poll;
        loop {
            if closing {
                return conn.poll_close(cx).map_err(anyhow::Error::from);
            }
            match conn.poll_next_inbound(cx) {
                // The server opens no streams; one it tries is dropped (reset).
                Poll::Ready(Some(Ok(s))) => {
                    drop(s);
                    continue;
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e.into())),
                Poll::Ready(None) => {
                    return Poll::Ready(Err(anyhow!("the server closed the connection")))
                }
                Poll::Pending => {}
            }
            if waiting.is_none() {
                match requests.poll_recv(cx) {
                    Poll::Ready(Some(r)) => waiting = Some(r),
                    Poll::Ready(None) => {
                        closing = true;
                        continue;
                    }
                    Poll::Pending => return Poll::Pending,
                }
            }
            match conn.poll_new_outbound(cx) {
                Poll::Ready(r) => {
                    if let Some(tx) = waiting.take() {
                        // A requester that gave up drops the stream: yamux resets it.
                        let _ = tx.send(r);
                    }
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    })
    .await
}

/// One application connection over a new stream, both ways, until both sides half-closed.
async fn relay_out(mut app: TcpStream, requests: mpsc::Sender<Request>) -> Result<()> {
    let (tx, rx) = oneshot::channel();
    requests
        .send(tx)
        .await
        .map_err(|_| anyhow!("the multiplexer stopped"))?;
    drop(requests);
    let stream = rx
        .await
        .map_err(|_| anyhow!("the multiplexer stopped"))?
        .context("opening a stream")?;
    let mut stream = stream.compat();
    tokio::io::copy_bidirectional(&mut app, &mut stream)
        .await
        .context("relaying")?;
    Ok(())
}

/// The server side: accepts multiplexed connections on `listener` (at most
/// [`MAX_CONNECTIONS`] at once) and connects each of their streams to `target`, until
/// `shutdown` completes.
pub async fn server(
    listener: TcpListener,
    target: SocketAddr,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> Result<Tally> {
    let cfg = limits.config()?;
    let mut conns: JoinSet<Tally> = JoinSet::new();
    let mut tally = Tally::default();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            Some(t) = conns.join_next(), if !conns.is_empty() => add(&mut tally, t),
            a = listener.accept() => {
                let (tcp, peer) = match a {
                    Ok(x) => x,
                    Err(e) => {
                        tracing::warn!("accepting: {e}");
                        continue;
                    }
                };
                if conns.len() >= MAX_CONNECTIONS {
                    tracing::warn!("refusing {peer}: {MAX_CONNECTIONS} multiplexed connections already");
                    continue;
                }
                tally.connections += 1;
                conns.spawn(serve_connection(tcp, cfg.clone(), target));
            }
        }
    }
    conns.abort_all();
    while let Some(t) = conns.join_next().await {
        add(&mut tally, t);
    }
    Ok(tally)
}

fn add(tally: &mut Tally, t: std::result::Result<Tally, tokio::task::JoinError>) {
    if let Ok(t) = t {
        tally.streams += t.streams;
        tally.failed += t.failed;
    }
}

/// One multiplexed connection: each inbound stream relayed to `target`.
async fn serve_connection(tcp: TcpStream, cfg: yamux::Config, target: SocketAddr) -> Tally {
    let mut tally = Tally::default();
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::warn!("TCP_NODELAY: {e}");
    }
    let mut conn = Connection::new(tcp.compat(), cfg, Mode::Server);
    let mut relays: JoinSet<bool> = JoinSet::new();
    loop {
        let next = std::future::poll_fn(|cx| conn.poll_next_inbound(cx)).await;
        while let Some(ok) = relays.try_join_next() {
            tally.failed += u64::from(!matches!(ok, Ok(true)));
        }
        match next {
            Some(Ok(stream)) => {
                tally.streams += 1;
                relays.spawn(async move {
                    match relay_in(stream, target).await {
                        Ok(()) => true,
                        Err(e) => {
                            tracing::debug!("stream: {e:#}");
                            false
                        }
                    }
                });
            }
            Some(Err(e)) => {
                tracing::warn!("multiplexed connection: {e}");
                break;
            }
            None => break,
        }
    }
    while let Some(ok) = relays.join_next().await {
        tally.failed += u64::from(!matches!(ok, Ok(true)));
    }
    tally
}

/// One inbound stream to the target, both ways.
async fn relay_in(stream: yamux::Stream, target: SocketAddr) -> Result<()> {
    let mut up = TcpStream::connect(target)
        .await
        .with_context(|| format!("connecting to the target {target}"))?;
    let mut stream = stream.compat();
    tokio::io::copy_bidirectional(&mut stream, &mut up)
        .await
        .context("relaying")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{execute, flows, Path, Plan};

    /// A multiplexer on loopback between a workload and the loadgen target: `n` flows with
    /// uploads and downloads (each byte checked both ways by `tunnel::loadgen`), `starts`
    /// their offsets; returns the two sides' tallies after a shutdown.
    async fn through_mux(limits: Limits, sizes: &[(f64, u64)], upload: u64) -> (Tally, Tally) {
        let (target, target_task) = tunnel::loadgen::start_target("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let sl = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let saddr = sl.local_addr().unwrap();
        let (stop_server, stopped_server) = oneshot::channel::<()>();
        let srv = tokio::spawn(server(sl, target, limits, async move {
            let _ = stopped_server.await;
        }));
        let cl = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let caddr = cl.local_addr().unwrap();
        let (stop_client, stopped_client) = oneshot::channel::<()>();
        let client = Client::connect(saddr, limits).await.unwrap();
        let cli = tokio::spawn(client.serve(cl, async move {
            let _ = stopped_client.await;
        }));
        let plan = Plan {
            flows: flows(sizes, Path::Tunnel, upload),
            tunnel: Some(caddr),
            bulk: None,
            direct: target,
            bin_s: 0.0,
            flow_timeout_s: 60.0,
        };
        let r = execute(&plan).await.unwrap();
        for (x, f) in r.iter().zip(&plan.flows) {
            assert!(x.error.is_none(), "flow {}: {:?}", f.id, x.error);
            assert_eq!(x.received, f.download);
        }
        stop_client.send(()).unwrap();
        let ct = cli.await.unwrap().unwrap();
        stop_server.send(()).unwrap();
        let st = srv.await.unwrap().unwrap();
        target_task.abort();
        (ct, st)
    }

    #[tokio::test]
    async fn flows_ride_one_connection_both_ways_and_the_sides_stop() {
        let sizes: Vec<(f64, u64)> = (0..12)
            .map(|i| (0.0, [0, 1, 20_000, 700_000][i % 4] + i as u64))
            .collect();
        let (c, s) = through_mux(Limits::default(), &sizes, 50_000).await;
        assert_eq!(
            c,
            Tally {
                connections: 1,
                streams: 12,
                failed: 0
            }
        );
        assert_eq!(
            s,
            Tally {
                connections: 1,
                streams: 12,
                failed: 0
            }
        );
    }

    #[tokio::test]
    async fn more_flows_than_streams_wait_for_a_slot() {
        let sizes: Vec<(f64, u64)> = (0..7).map(|i| (0.0, 300_000 + i)).collect();
        let (c, s) = through_mux(Limits { max_streams: 2 }, &sizes, 10).await;
        assert_eq!((c.streams, c.failed), (7, 0));
        assert_eq!((s.connections, s.streams, s.failed), (1, 7, 0));
    }

    #[tokio::test]
    async fn a_client_without_a_server_is_an_error() {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        assert!(Client::connect(addr, Limits::default()).await.is_err());
        assert!(Limits { max_streams: 0 }.config().is_err());
    }
}
