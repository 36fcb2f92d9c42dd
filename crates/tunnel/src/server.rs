//! `schedtcp server`: accepts pool connections, authenticates each, and for every flow opened
//! connects to the target its own configuration names for the route — never anywhere else.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use gtcp::size::HttpResponseSizer;
use gtcp::wire::handshake::{Refusal, SessionId, Verdict};
use gtcp::{FlowId, Role as CoreRole, Session};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::auth::PreSharedKey;
use crate::client::drain;
use crate::config::ServerConfig;
use crate::engine::{codes, Engine, InvariantTally, Role};
use crate::limits::{self, Gate, Reject, Ticket};
use crate::metrics::Registry;
use crate::net;
use crate::reload::{self, Live, ServerReload};

pub(crate) struct Params {
    /// The running configuration (a reload replaces it: `crate::reload`).
    pub(crate) cfg: Live<ServerConfig>,
    key: PreSharedKey,
    sessions: Mutex<HashMap<SessionId, Arc<Engine>>>,
    pub(crate) registry: Registry,
    /// Invariant checks of sessions already forgotten.
    retired: Mutex<InvariantTally>,
    /// Shutdown began: handshakes still under way are refused.
    stopping: AtomicBool,
}

struct ServerRole(Arc<Params>);

impl Role for ServerRole {
    fn flow_opened(
        &self,
        engine: &Arc<Engine>,
        flow: FlowId,
        route: String,
        origin: Option<gtcp::wire::Origin>,
    ) {
        let rejections = &self.0.registry.rejections;
        let cfg = self.0.cfg.get();
        let Some(r) = cfg.route(&route).cloned() else {
            // The flow is reset, and the connection that opened it closes as soon as the reset
            // is through (it owes nothing more). Cutting it at once would lose the reset, and
            // the client would open the flow again and again. The name is the peer's: logged
            // escaped, so it cannot forge a line.
            rejections.record(Reject::UnknownRoute, || {
                format!("session {}: {flow}: unknown route {route:?}: resetting the flow; its connection closes", engine.label)
            });
            let _ = engine.with(|s, now| s.reset(now, flow, codes::UNKNOWN_ROUTE));
            return;
        };
        if self.0.registry.over_budget() {
            rejections.record(Reject::MemoryBudget, || {
                format!(
                    "session {}: {flow}: memory budget of {} bytes spent: resetting the new flow",
                    engine.label, cfg.memory_budget_bytes
                )
            });
            let _ = engine.with(|s, now| s.reset(now, flow, codes::OVERLOADED));
            return;
        }
        let engine = engine.clone();
        let timeout = cfg.tuning.handshake_timeout();
        engine.route_opened(&r.name);
        engine.register_flow(flow);
        tokio::spawn(async move {
            let connect = async {
                let mut stream = TcpStream::connect(&r.target).await?;
                if r.proxy_protocol {
                    let header = crate::proxy_header::header(origin)?;
                    stream.write_all(&header).await?;
                }
                Ok::<_, std::io::Error>(stream)
            };
            // On the heap while it runs (its timer, the connect), and the relay a task of its
            // own: nothing of the connect (the route, the origin) is kept for the flow's life.
            match Box::pin(tokio::time::timeout(timeout, connect)).await {
                Ok(Ok(stream)) => {
                    debug!(session = %engine.label, %flow, target = %r.target, "target connected");
                    let sizer = r.http_content_length.then(HttpResponseSizer::new);
                    tokio::spawn(engine.run_flow(flow, stream, sizer));
                }
                Ok(Err(e)) => {
                    warn!(session = %engine.label, %flow, target = %r.target, "target unreachable: {e}");
                    engine.forget_flow(flow);
                    let _ = engine.with(|s, now| s.reset(now, flow, codes::TARGET_UNREACHABLE));
                }
                Err(_) => {
                    warn!(session = %engine.label, %flow, target = %r.target, "target connect timed out");
                    engine.forget_flow(flow);
                    let _ = engine.with(|s, now| s.reset(now, flow, codes::TARGET_UNREACHABLE));
                }
            }
        });
    }

    fn conn_needed(&self, _: &Arc<Engine>, _: FlowId) {}
}

/// A running server.
pub struct ServerHandle {
    pub addr: SocketAddr,
    pub metrics: Option<SocketAddr>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
    pub(crate) params: Arc<ParamsHandle>,
    pub(crate) reload: ServerReload,
}

/// What shutdown needs of the server's state.
pub(crate) struct ParamsHandle(pub(crate) Arc<Params>);

impl ServerHandle {
    /// Graceful shutdown: stop accepting, let every session's flows finish within one grace
    /// period shared by all sessions (they drain concurrently), reset what is left.
    pub async fn shutdown(mut self) {
        let params = self.params.clone();
        let p = &params.0;
        p.stopping.store(true, Ordering::Release);
        let _ = self.stop.send(true);
        let engines = {
            let _ = (&mut self.task).await;
            self.sessions()
        };
        for e in &engines {
            e.go_away();
        }
        let deadline = tokio::time::Instant::now() + p.cfg.get().tuning.grace();
        let mut drains = tokio::task::JoinSet::new();
        for e in engines {
            drains.spawn(async move { drain(&e, deadline).await });
        }
        while drains.join_next().await.is_some() {}
    }

    /// The invariant checks of every session served so far.
    pub fn invariant(&self) -> InvariantTally {
        let p = &self.params.0;
        let mut t = *p.retired.lock().unwrap_or_else(|e| e.into_inner());
        for e in self.sessions() {
            t.merge(e.invariant());
        }
        t
    }

    /// Refusals so far for one reason (as `schedtcp_rejected_total` shows them).
    pub fn rejected(&self, why: Reject) -> u64 {
        self.params.0.registry.rejections.count(why)
    }

    /// Sessions currently served.
    pub fn sessions(&self) -> Vec<Arc<Engine>> {
        self.params
            .0
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }
}

pub async fn start(cfg: ServerConfig, key: &[u8]) -> Result<ServerHandle> {
    cfg.tuning.core(cfg.policy)?;
    let listener = TcpListener::bind(cfg.listen)
        .await
        .with_context(|| format!("binding {}", cfg.listen))?;
    let addr = listener.local_addr()?;
    info!(listen = %addr, policy = %cfg.policy, routes = cfg.routes.len(), "server");
    match limits::raise_fd_limit() {
        Ok(n) => debug!(limit = n, "open file descriptors"),
        Err(e) => warn!("could not raise the open file limit: {e}"),
    }
    let gate = Gate::new(cfg.max_unauthenticated, cfg.max_unauthenticated_per_address);
    let p = Arc::new(Params {
        key: PreSharedKey::with_integrity(key, cfg.integrity),
        sessions: Mutex::new(HashMap::new()),
        registry: Registry::default(),
        retired: Mutex::new(InvariantTally::default()),
        stopping: AtomicBool::new(false),
        cfg: Live::new(cfg),
    });
    let cfg = p.cfg.get();
    p.registry.config.loaded(reload::hash(&*cfg)?);
    p.registry.set_gate(gate.clone());
    p.registry.set_budget(cfg.memory_budget_bytes);
    let metrics = p.registry.start(cfg.metrics).await?;
    let (stop, mut stopped) = watch::channel(false);
    let pp = p.clone();
    let task = tokio::spawn(async move {
        let rejections = pp.registry.rejections.clone();
        loop {
            let (stream, peer) = tokio::select! {
                r = listener.accept() => match r {
                    Ok(x) => x,
                    Err(e) => {
                        tokio::select! {
                            _ = limits::accept_failed(&rejections, "server", e) => continue,
                            _ = stopped.changed() => return,
                        }
                    }
                },
                _ = stopped.changed() => return,
            };
            // Over the cap, the connection is closed at once (dropped): it never holds a
            // descriptor for long.
            match gate.enter(peer.ip()) {
                Ok(ticket) => {
                    tokio::spawn(serve_conn(pp.clone(), stream, peer, ticket));
                }
                Err(why) => rejections.record(why, || {
                    format!("{peer}: too many connections in their handshake; closed")
                }),
            }
        }
    });
    Ok(ServerHandle {
        addr,
        metrics,
        stop,
        task,
        params: Arc::new(ParamsHandle(p)),
        reload: ServerReload {
            key: reload::key_digest(key),
        },
    })
}

/// One pool connection: its handshake (within `auth_timeout_secs`, holding a place in the
/// [`Gate`] until then), its admission, then its life in the session. The handshake's state
/// (its timer, messages and keys) lives on the heap while it runs, and the connection's life
/// is a task of its own: this one ends with the handshake, so what it held (its arguments,
/// the handshake's result) is not kept for as long as the connection lasts.
async fn serve_conn(p: Arc<Params>, stream: TcpStream, peer: SocketAddr, ticket: Ticket) {
    let Some((engine, conn, stream, leftover, record)) =
        Box::pin(accept_conn(p, stream, peer, ticket)).await
    else {
        return;
    };
    tokio::spawn(engine.run_connection(conn, stream, leftover, record));
}

/// A pool connection that completed its handshake and was admitted.
type Accepted = (
    Arc<Engine>,
    gtcp::ConnId,
    TcpStream,
    bytes::BytesMut,
    Option<crate::record::RecordLayer>,
);

/// The handshake and admission of [`serve_conn`]; `None` if the connection was refused or
/// lost (logged and counted here).
async fn accept_conn(
    p: Arc<Params>,
    mut stream: TcpStream,
    peer: SocketAddr,
    ticket: Ticket,
) -> Option<Accepted> {
    let cfg = p.cfg.get();
    let t = &cfg.tuning;
    let rejections = &p.registry.rejections;
    if let Err(e) = net::tune(&stream, t.notsent_lowat, t.core.dead_peer) {
        debug!(%peer, "socket options: {e:#}");
    }
    let handshake = tokio::select! {
        r = net::server_handshake(&mut stream, &p.key, cfg.auth_timeout()) => r,
        why = ticket.evicted() => {
            rejections.record(why, || {
                let (n, from) = match why {
                    Reject::UnauthenticatedPerAddress => (cfg.max_unauthenticated_per_address, " from its network"),
                    _ => (cfg.max_unauthenticated, ""),
                };
                format!("{peer}: handshake abandoned: {n} newer connections{from} in their handshake")
            });
            return None;
        }
    };
    let (proven, leftover) = match handshake {
        Ok(x) => x,
        Err(e) => {
            rejections.record(Reject::Handshake, || {
                format!("{peer}: pool connection refused: {e:#}")
            });
            return None;
        }
    };
    let auth = &proven.auth;
    let engine = match admit(&p, auth) {
        Ok(e) => e,
        Err(r) => {
            rejections.record(Reject::Refused, || {
                format!("{peer}: pool connection refused: {r}")
            });
            let _ = net::send_verdict(&mut stream, &proven, Verdict::Refused(r)).await;
            return None;
        }
    };
    drop(ticket);
    drop(cfg);
    let record = match net::send_verdict(&mut stream, &proven, Verdict::Accepted).await {
        Ok(r) => r,
        Err(e) => {
            warn!(session = %engine.label, %peer, "pool connection lost in the handshake: {e:#}");
            engine.with(|s, now| s.connection_closed(now, auth.conn));
            return None;
        }
    };
    Some((engine, auth.conn, stream, leftover, record))
}

/// Decides on an authenticated connection: the session it joins (created if new and there is
/// room among the live sessions), or why it is refused. On acceptance the core already knows
/// the connection.
fn admit(
    p: &Arc<Params>,
    auth: &gtcp::wire::handshake::ClientAuth,
) -> Result<Arc<Engine>, Refusal> {
    if p.stopping.load(Ordering::Acquire) {
        return Err(Refusal::ShuttingDown);
    }
    let cfg = p.cfg.get();
    let mut sessions = p.sessions.lock().unwrap_or_else(|e| e.into_inner());
    let engine = match sessions.get(&auth.session) {
        Some(e) => e.clone(),
        None => {
            // Every session counts until it is forgotten (`session_timeout_secs` after its last
            // live connection): sessions opened and left cannot pile up beyond the cap.
            if sessions.len() >= cfg.max_sessions || p.registry.over_budget() {
                return Err(Refusal::TooManySessions);
            }
            let core = cfg
                .tuning
                .core(cfg.policy)
                .and_then(|c| Ok(Session::new(CoreRole::Acceptor, c)?))
                .map_err(|e| {
                    warn!("session: {e:#}");
                    Refusal::Internal
                })?;
            let label: String = auth.session[..4]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            if let Some(left_out) = p.registry.rejections.churn.allow() {
                info!(session = %label, left_out, "new client session");
            }
            let e = Engine::new(core, Box::new(ServerRole(p.clone())), label);
            e.start_timers();
            e.set_rejections(p.registry.rejections.clone());
            e.set_budget(p.registry.clone());
            p.registry.add(&e);
            sessions.insert(auth.session, e.clone());
            tokio::spawn(expire_when_orphaned(p.clone(), auth.session, e.clone()));
            e
        }
    };
    drop(sessions);
    if engine.live_connections() >= cfg.max_connections_per_session {
        return Err(Refusal::Unacceptable);
    }
    // A session above its share of a spent memory budget gets no new connection: each would
    // bring one more read of input before its first check (`Engine::run_connection`).
    if engine.above_budget_share() {
        return Err(Refusal::TooManySessions);
    }
    let added = engine.with(|s, now| {
        match s.add_connection(auth.conn, auth.owner) {
            Err(gtcp::SessionError::AlreadyOwned { flow }) => {
                // A new authenticated connection for the same flow replaces the old one
                // (the client lost it, the server has not noticed yet).
                let old = s
                    .connections()
                    .find(|(_, o)| *o == Some(flow))
                    .map(|(c, _)| c);
                if let Some(old) = old {
                    s.connection_closed(now, old);
                    engine.kill_connection(old);
                }
                s.add_connection(auth.conn, auth.owner)
            }
            Err(gtcp::SessionError::DuplicateConn(c)) => {
                s.connection_closed(now, c);
                engine.kill_connection(c);
                s.add_connection(auth.conn, auth.owner)
            }
            r => r,
        }
    });
    added.map_err(|e| {
        warn!(session = %engine.label, "connection not accepted: {e}");
        Refusal::Unacceptable
    })?;
    Ok(engine)
}

/// Watches one session: once it has had no live pool connection for `session_timeout_secs`,
/// its flows are reset (their relays abort the target sockets) and it is forgotten.
async fn expire_when_orphaned(p: Arc<Params>, id: SessionId, engine: Arc<Engine>) {
    let timeout = p.cfg.get().session_timeout();
    loop {
        let changed = engine.conns_changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        if engine.live_connections() > 0 {
            changed.await;
            continue;
        }
        // No live connection: wait for one, at most `timeout`.
        if tokio::time::timeout(timeout, changed).await.is_ok() {
            continue;
        }
        if engine.live_connections() > 0 {
            continue;
        }
        let mut sessions = p.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if !sessions.get(&id).is_some_and(|e| Arc::ptr_eq(e, &engine)) {
            return;
        }
        if engine.live_connections() > 0 {
            continue;
        }
        crate::engine::remove_shrinking(&mut sessions, &id);
        drop(sessions);
        let flows = engine.active_flows();
        if flows > 0 {
            if let Some(left_out) = p.registry.rejections.churn.allow() {
                warn!(session = %engine.label, flows, left_out, "no pool connection for {} s: resetting the session's flows", timeout.as_secs());
            }
        } else {
            debug!(session = %engine.label, "idle session forgotten");
        }
        engine.reset_all(codes::SESSION_EXPIRED);
        p.retired
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .merge(engine.invariant());
        return;
    }
}
