//! `schedtcp client`: a local listener per route; every accepted application connection is one
//! flow with its own pool connection to the server, as plain TCP would have it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gtcp::wire::Origin;
use gtcp::{ConnId, FlowId, Role as CoreRole, Session};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::auth::{PreSharedKey, SessionKey};
use crate::backoff::Backoff;
use crate::config::{ClientConfig, ClientRoute};
use crate::engine::{codes, ConnEnd, Engine, Role};
use crate::limits::{self, Rejections};
use crate::metrics::Registry;
use crate::net;
use crate::reload::{self, ClientReload, Live};

/// A connection that dies sooner than this after its handshake counts as a failed attempt
/// for the reconnect backoff (a path that kills connections at once must not cause a storm).
const STABLE_AFTER: Duration = Duration::from_secs(5);

/// Time left before a flow's connection deadline below which no new attempt starts.
const MIN_ATTEMPT: Duration = Duration::from_millis(50);

pub(crate) struct Params {
    /// The running configuration (a reload replaces it: `crate::reload`).
    pub(crate) cfg: Live<ClientConfig>,
    key: PreSharedKey,
    /// The session's key pair: its public half names the session, its private half proves it
    /// on every pool connection.
    session: SessionKey,
    next_conn: AtomicU64,
    /// Established, authenticated, never-used connections, with when each was established.
    warm: Mutex<Vec<(ConnId, Instant)>>,
    warm_taken: Notify,
    backoff: Backoff,
}

struct ClientRole(Arc<Params>);

impl Role for ClientRole {
    fn flow_opened(&self, _: &Arc<Engine>, _: FlowId, _: String, _: Option<Origin>) {}

    fn conn_needed(&self, engine: &Arc<Engine>, owner: FlowId) {
        tokio::spawn(open_conn(engine.clone(), self.0.clone(), Some(owner)));
    }

    fn conn_ended(&self, end: ConnEnd, lived: Duration) {
        let b = &self.0.backoff;
        tracing::debug!(
            ?end,
            ?lived,
            failures = b.failures(),
            "pool connection ended"
        );
        // A connection that lived a while says nothing of the next attempt (if the server is
        // gone, that attempt fails and counts); one that died soon after its handshake does.
        // One this client retired (a warm connection past `warm_max_age_secs`, which may be
        // shorter than `STABLE_AFTER`) counts neither way.
        match end {
            ConnEnd::Retired => {}
            ConnEnd::Clean => b.succeeded(),
            ConnEnd::Lost if lived >= STABLE_AFTER => b.succeeded(),
            ConnEnd::Lost => {
                let established = Instant::now()
                    .checked_sub(lived)
                    .unwrap_or_else(Instant::now);
                b.failed(established)
            }
        }
    }
}

/// Establishes and authenticates one pool connection and hands it to the engine. Attempts
/// follow the session's reconnect [`Backoff`] (one per backoff step for the whole client, until
/// the server accepts one); a flow that has no connection within
/// `handshake_timeout_secs` is reset, so its application sees a reset, not a hang.
async fn open_conn(engine: Arc<Engine>, p: Arc<Params>, owner: Option<FlowId>) -> Option<ConnId> {
    let cfg = p.cfg.get();
    let t = &cfg.tuning;
    let deadline = tokio::time::Instant::now() + t.handshake_timeout();
    loop {
        let Ok(turn) = tokio::time::timeout_at(deadline, p.backoff.turn()).await else {
            break;
        };
        // A step is at most half the handshake timeout, so a flow that just arrived always gets
        // an attempt: with a step as long as the timeout, every new flow would give up before
        // trying, no attempt would ever succeed again, and the client would stay cut off.
        let wait = p.backoff.delay().min(t.handshake_timeout() / 2);
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left < wait + MIN_ATTEMPT {
            break;
        }
        tracing::debug!(
            ?owner,
            ?wait,
            ?left,
            failures = p.backoff.failures(),
            turn = turn.is_some(),
            "pool connection attempt after a wait"
        );
        tokio::time::sleep(wait).await;
        // The next attempt may start a step later, while this one is under way (a slow
        // handshake does not hold the others back), except before anything is known.
        let turn = turn.filter(|_| p.backoff.untried());
        if owner.is_some_and(|f| engine.inspect(|s| s.flow_ids().all(|g| g != f))) {
            // The flow ended meanwhile (its application gave up): nothing to connect for.
            return None;
        }
        let conn = ConnId(p.next_conn.fetch_add(1, Ordering::Relaxed));
        let began = Instant::now();
        let result = tokio::time::timeout_at(deadline, async {
            let mut stream = TcpStream::connect(cfg.server)
                .await
                .with_context(|| format!("connecting to {}", cfg.server))?;
            net::tune(&stream, t.notsent_lowat, t.core.dead_peer)?;
            let (record, leftover) = net::client_handshake(
                &mut stream,
                &p.key,
                &p.session,
                conn,
                owner,
                t.handshake_timeout(),
            )
            .await?;
            anyhow::Ok((stream, record, leftover))
        })
        .await
        .unwrap_or_else(|_| {
            Err(anyhow::anyhow!(
                "no connection within the handshake timeout"
            ))
        });
        match result {
            Ok((stream, record, leftover)) => {
                tracing::debug!(%conn, ?owner, "pool connection accepted");
                p.backoff.accepted();
                drop(turn);
                if let Err(e) = engine.with(|s, _| s.add_connection(conn, owner)) {
                    warn!(%conn, "pool connection not needed any more: {e}");
                    return None;
                }
                tokio::spawn(
                    engine
                        .clone()
                        .run_connection(conn, stream, leftover, record),
                );
                return Some(conn);
            }
            Err(e) => {
                p.backoff.failed(began);
                match e.downcast_ref::<net::Refused>() {
                    Some(r) => warn!(%conn, "pool connection: {r}; retrying after a backoff"),
                    None => warn!(%conn, "pool connection failed: {e:#}"),
                }
            }
        }
    }
    if let Some(f) = owner {
        warn!(flow = %f, failures = p.backoff.failures(), "no pool connection within {} s: resetting the flow", t.handshake_timeout().as_secs());
        let _ = engine.with(|s, now| s.reset(now, f, codes::NO_CONNECTION));
    }
    None
}

/// A running client.
pub struct ClientHandle {
    /// Where each route listens (useful with port 0).
    pub routes: Vec<(String, SocketAddr)>,
    pub engine: Arc<Engine>,
    pub metrics: Option<SocketAddr>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
    pub(crate) params: Arc<Params>,
    pub(crate) reload: ClientReload,
}

impl ClientHandle {
    /// Graceful shutdown: stop accepting, let in-flight flows finish within the grace period,
    /// reset what is left.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
        self.reload.join().await;
        self.engine.go_away();
        let grace = self.params.cfg.get().tuning.grace();
        drain(&self.engine, tokio::time::Instant::now() + grace).await;
    }
}

/// Waits until the engine has no flow left or `deadline` passed; then resets the rest.
pub(crate) async fn drain(engine: &Arc<Engine>, deadline: tokio::time::Instant) {
    while engine.active_flows() > 0 {
        let idle = engine.idle.notified();
        if tokio::time::timeout_at(deadline, idle).await.is_err() {
            let left = engine.active_flows();
            if left > 0 {
                warn!(
                    session = %engine.label,
                    flows = left,
                    "shutdown grace period over: resetting the remaining flows"
                );
                engine.reset_all(codes::SHUTDOWN);
                // Let the resets reach the applications' sockets (bounded).
                let settle = tokio::time::Instant::now() + Duration::from_millis(500);
                while engine.relayed_flows() > 0 && tokio::time::Instant::now() < settle {
                    let _ = tokio::time::timeout_at(settle, engine.idle.notified()).await;
                }
            }
            break;
        }
    }
}

/// Binds every route's listener and starts the client.
pub async fn start(cfg: ClientConfig, key: &[u8]) -> Result<ClientHandle> {
    let core = cfg.tuning.core(cfg.policy)?;
    let session_key = SessionKey::generate();
    let label: String = session_key.id()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let p = Arc::new(Params {
        key: PreSharedKey::with_integrity(key, cfg.integrity),
        session: session_key,
        next_conn: AtomicU64::new(1),
        warm: Mutex::new(Vec::new()),
        warm_taken: Notify::new(),
        backoff: Backoff::default(),
        cfg: Live::new(cfg),
    });
    let cfg = p.cfg.get();
    let mut session = Session::new(CoreRole::Opener, core)?;
    if cfg.has_background() {
        session.set_admission(cfg.admission)?;
    }
    let engine = Engine::new(session, Box::new(ClientRole(p.clone())), label);
    engine.start_timers();
    let mut listeners = Vec::new();
    let mut routes = Vec::new();
    for r in &cfg.routes {
        let l = TcpListener::bind(r.listen)
            .await
            .with_context(|| format!("route {}: binding {}", r.name, r.listen))?;
        routes.push((r.name.clone(), l.local_addr()?));
        info!(route = %r.name, listen = %l.local_addr()?, server = %cfg.server, policy = %cfg.policy, "client route");
        listeners.push((l, r.clone()));
    }
    if let Err(e) = limits::raise_fd_limit() {
        warn!("could not raise the open file limit: {e}");
    }
    let registry = Registry::default();
    registry.add(&engine);
    // Integrity failures and protocol violations are counted and logged at a bounded rate.
    engine.set_rejections(registry.rejections.clone());
    registry.config.loaded(reload::hash(&*cfg)?);
    let metrics = registry.start(cfg.metrics).await?;
    let (stop, stopped) = watch::channel(false);
    let spawn_route: reload::SpawnRoute = {
        let (engine, p, rejections, stopped) = (
            engine.clone(),
            p.clone(),
            registry.rejections.clone(),
            stopped.clone(),
        );
        Box::new(move |l, r, retired| {
            tokio::spawn(accept_loop(
                engine.clone(),
                p.clone(),
                l,
                r,
                rejections.clone(),
                stopped.clone(),
                retired,
            ))
        })
    };
    let reload = ClientReload::new(
        reload::key_digest(key),
        registry.config.clone(),
        spawn_route,
    );
    for (l, r) in listeners {
        reload.serve(l, r).await;
    }
    let mut tasks = Vec::new();
    if cfg.warm_pool > 0 {
        tasks.push(tokio::spawn(keep_warm(
            engine.clone(),
            p.clone(),
            stopped.clone(),
        )));
    }
    let task = tokio::spawn(async move {
        for t in tasks {
            let _ = t.await;
        }
    });
    Ok(ClientHandle {
        routes,
        engine,
        metrics,
        stop,
        task,
        params: p,
        reload,
    })
}

/// Serves one route until the client stops or a reload retires the route (`retire` changes);
/// gives the listener back.
async fn accept_loop(
    engine: Arc<Engine>,
    p: Arc<Params>,
    l: TcpListener,
    route: ClientRoute,
    rejections: Arc<Rejections>,
    mut stop: watch::Receiver<bool>,
    mut retire: watch::Receiver<bool>,
) -> TcpListener {
    let what = format!("route {:?}", route.name);
    loop {
        let (app, peer) = tokio::select! {
            r = l.accept() => match r {
                Ok(x) => x,
                // Out of descriptors: pause (the condition lasts), never spin.
                Err(e) => tokio::select! {
                    _ = limits::accept_failed(&rejections, &what, e) => continue,
                    _ = stop.changed() => return l,
                    _ = retire.changed() => return l,
                },
            },
            _ = stop.changed() => return l,
            _ = retire.changed() => return l,
        };
        if route.background {
            open_background(&engine, &p, &route, app, peer);
            continue;
        }
        let warm = take_warm(&engine, &p);
        let origin = origin_of(&app, peer);
        let opened = engine.with(|s, now| {
            // A warm connection that died meanwhile is refused: open without one.
            let flow = s
                .open_flow(now, warm, &route.name, route.class, None)
                .or_else(|_| s.open_flow(now, None, &route.name, route.class, None))?;
            if let Some(o) = origin {
                s.set_origin(flow, o)?;
            }
            Ok::<_, gtcp::SessionError>(flow)
        });
        match opened {
            Ok(flow) => {
                let used_warm = warm.is_some() && engine.owner_connection(flow) == warm;
                tracing::debug!(route = %route.name, %peer, %flow, used_warm, "flow opened");
                engine.route_opened(&route.name);
                engine.register_flow(flow);
                tokio::spawn(engine.clone().run_flow(flow, app, None));
                if used_warm {
                    p.warm_taken.notify_one();
                } else {
                    tokio::spawn(open_conn(engine.clone(), p.clone(), Some(flow)));
                }
            }
            Err(e) => {
                warn!(route = %route.name, %peer, "refusing application connection: {e}");
                let _ = socket2::SockRef::from(&app).set_linger(Some(Duration::ZERO));
            }
        }
    }
}

/// The application connection's addresses as this side sees them (its peer, and the listener's
/// address it reached), carried in the flow's opening for a server route with
/// `proxy_protocol`.
fn origin_of(app: &TcpStream, peer: SocketAddr) -> Option<Origin> {
    app.local_addr().ok().map(|destination| Origin {
        source: peer,
        destination,
    })
}

/// An application connected on a background route: admitted, it starts as any flow (on a new
/// connection, never a warm one: the class is counted in connections); waiting, its bytes are
/// not read and no connection is opened until the core admits it (`ConnNeeded`); refused (the
/// waiting queue is full), the application sees a reset.
fn open_background(
    engine: &Arc<Engine>,
    p: &Arc<Params>,
    route: &ClientRoute,
    app: TcpStream,
    peer: SocketAddr,
) {
    use gtcp::admission::Verdict;
    let origin = origin_of(&app, peer);
    let opened = engine.with(|s, now| {
        let (flow, verdict) = s.open_background_flow(now, &route.name, route.class, None)?;
        if let Some(o) = origin {
            s.set_origin(flow, o)?;
        }
        Ok::<_, gtcp::SessionError>((flow, verdict))
    });
    match opened {
        Ok((flow, verdict)) => {
            tracing::debug!(route = %route.name, %peer, %flow, ?verdict, "background flow");
            engine.route_opened(&route.name);
            engine.register_flow(flow);
            tokio::spawn(engine.clone().run_flow(flow, app, None));
            if verdict == Verdict::Admitted {
                tokio::spawn(open_conn(engine.clone(), p.clone(), Some(flow)));
            }
        }
        Err(e) => {
            warn!(route = %route.name, %peer, "refusing background connection: {e}");
            let _ = socket2::SockRef::from(&app).set_linger(Some(Duration::ZERO));
        }
    }
}

/// A warm connection for a new flow, checked before use: established less than
/// `warm_max_age_secs` ago, still known to the core, its socket without error or end of
/// stream. Those that fail the check are closed (a replacement is opened by [`keep_warm`]):
/// retired if only their age failed it, killed if they are dead.
fn take_warm(engine: &Arc<Engine>, p: &Params) -> Option<ConnId> {
    let max_age = Duration::from_secs(p.cfg.get().warm_max_age_secs);
    loop {
        let (conn, since) = p.warm.lock().unwrap_or_else(|e| e.into_inner()).pop()?;
        let usable = engine.connection_usable(conn);
        if usable && since.elapsed() < max_age {
            return Some(conn);
        }
        tracing::debug!(%conn, usable, "warm connection past its maximum age or dead: not used");
        if usable {
            engine.retire_connection(conn);
        } else {
            engine.kill_connection(conn);
        }
        p.warm_taken.notify_one();
    }
}

/// Keeps `warm_pool` fresh, authenticated, unused connections ready: those that died are
/// forgotten, and one older than `warm_max_age_secs` is replaced (the new one first, then the
/// old one is closed).
async fn keep_warm(engine: Arc<Engine>, p: Arc<Params>, mut stop: watch::Receiver<bool>) {
    loop {
        if *stop.borrow_and_update() {
            return;
        }
        let cfg = p.cfg.get();
        let max_age = Duration::from_secs(cfg.warm_max_age_secs);
        let (have, oldest) = {
            let mut w = p.warm.lock().unwrap_or_else(|e| e.into_inner());
            let live: Vec<ConnId> = engine.inspect(|s| s.connections().map(|(c, _)| c).collect());
            w.retain(|(c, _)| live.contains(c));
            (w.len(), w.iter().map(|&(c, since)| (since, c)).min())
        };
        let expired = oldest.filter(|(since, _)| since.elapsed() >= max_age);
        if have < cfg.warm_pool || expired.is_some() {
            // Shutdown does not wait for a server that cannot be reached.
            let opened = tokio::select! {
                c = open_conn(engine.clone(), p.clone(), None) => c,
                _ = stop.changed() => return,
            };
            match opened {
                Some(c) => {
                    let mut w = p.warm.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some((_, old)) = expired {
                        if let Some(i) = w.iter().position(|&(c, _)| c == old) {
                            w.remove(i);
                            engine.retire_connection(old);
                        }
                    }
                    w.push((c, Instant::now()));
                }
                None => tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                    _ = stop.changed() => return,
                },
            }
            continue;
        }
        let next_expiry = oldest.map_or(Duration::from_secs(5), |(since, _)| {
            max_age.saturating_sub(since.elapsed())
        });
        tokio::select! {
            _ = p.warm_taken.notified() => {}
            _ = tokio::time::sleep(next_expiry.min(Duration::from_secs(5))) => {}
            _ = stop.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ServerConfig;

    /// Warm connections retired by age are this client's own doing, whatever their age: with
    /// `warm_max_age_secs` below `STABLE_AFTER`, each refresh once counted as a failed attempt,
    /// so after a few refreshes flows that found no warm connection waited up to half the
    /// handshake timeout per attempt and were reset when their deadline came first.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn warm_connections_retired_by_age_do_not_count_as_failed_attempts() {
        const KEY: &str = "warm-pool-test-key-0123456789abcdef";
        let srv = crate::server::start(
            ServerConfig::from_toml(&format!(
                "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\n[[route]]\nname = \"t\"\ntarget = \"127.0.0.1:9\"\n"
            ))
            .unwrap(),
            KEY.as_bytes(),
        )
        .await
        .unwrap();
        let cli = start(
            ClientConfig::from_toml(&format!(
                "server = \"{}\"\nkey = \"{KEY}\"\nwarm_pool = 2\nwarm_max_age_secs = 1\n[tuning]\nshutdown_grace_secs = 1\n[[route]]\nname = \"t\"\nlisten = \"127.0.0.1:0\"\n",
                srv.addr
            ))
            .unwrap(),
            KEY.as_bytes(),
        )
        .await
        .unwrap();
        // Three retired connections have ended (the core counts each as lost: it never said
        // Done) and the role has heard of each end before the core did.
        let retired = 3;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let changed = cli.engine.conns_changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if cli.engine.inspect(|s| s.counters().conns_lost) >= retired {
                break;
            }
            assert!(
                tokio::time::timeout_at(deadline, changed).await.is_ok(),
                "fewer than {retired} warm connections refreshed in 30 s"
            );
        }
        assert_eq!(
            cli.params.backoff.delay(),
            Duration::ZERO,
            "retired warm connections were counted as failed attempts"
        );
        cli.shutdown().await;
        srv.shutdown().await;
    }
}
