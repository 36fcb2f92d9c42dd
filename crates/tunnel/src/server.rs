//! `schedtcp server`: accepts pool connections, authenticates each, and for every flow opened
//! connects to the target its own configuration names for the route — never anywhere else.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use gtcp::size::HttpResponseSizer;
use gtcp::wire::handshake::SessionId;
use gtcp::{FlowId, Role as CoreRole, Session};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::auth::HmacKey;
use crate::client::drain;
use crate::config::ServerConfig;
use crate::engine::{codes, Engine, InvariantTally, Role};
use crate::metrics::Registry;
use crate::net;

struct Params {
    cfg: ServerConfig,
    key: HmacKey,
    sessions: Mutex<HashMap<SessionId, Arc<Engine>>>,
    registry: Registry,
    /// Invariant checks of sessions already forgotten.
    retired: Mutex<InvariantTally>,
}

struct ServerRole(Arc<Params>);

impl Role for ServerRole {
    fn flow_opened(&self, engine: &Arc<Engine>, flow: FlowId, route: String) {
        let Some(r) = self.0.cfg.route(&route).cloned() else {
            // The flow is reset, and the connection that opened it closes as soon as the reset
            // is through (it owes nothing more). Cutting it at once would lose the reset, and
            // the client would open the flow again and again.
            warn!(session = %engine.label, %flow, route = %route, "unknown route: resetting the flow; its connection closes");
            let _ = engine.with(|s, now| s.reset(now, flow, codes::UNKNOWN_ROUTE));
            return;
        };
        let engine = engine.clone();
        let timeout = self.0.cfg.tuning.handshake_timeout();
        engine.register_flow(flow);
        tokio::spawn(async move {
            match tokio::time::timeout(timeout, TcpStream::connect(&r.target)).await {
                Ok(Ok(stream)) => {
                    debug!(session = %engine.label, %flow, target = %r.target, "target connected");
                    let sizer = r.http_content_length.then(HttpResponseSizer::new);
                    engine.run_flow(flow, stream, sizer).await;
                }
                Ok(Err(e)) => {
                    warn!(session = %engine.label, %flow, target = %r.target, "target unreachable: {e}");
                    let _ = engine.with(|s, now| s.reset(now, flow, codes::TARGET_UNREACHABLE));
                }
                Err(_) => {
                    warn!(session = %engine.label, %flow, target = %r.target, "target connect timed out");
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
    params: Arc<ParamsHandle>,
}

/// What shutdown needs of the server's state.
struct ParamsHandle(Arc<Params>);

impl ServerHandle {
    /// Graceful shutdown: stop accepting, let every session's flows finish within the grace
    /// period, reset what is left.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
        let p = &self.params.0;
        let engines: Vec<Arc<Engine>> = p
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for e in &engines {
            e.go_away();
        }
        for e in &engines {
            drain(e, p.cfg.tuning.grace()).await;
        }
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
    let p = Arc::new(Params {
        key: HmacKey::new(key),
        sessions: Mutex::new(HashMap::new()),
        registry: Registry::default(),
        retired: Mutex::new(InvariantTally::default()),
        cfg,
    });
    let metrics = p.registry.start(p.cfg.metrics).await?;
    let (stop, mut stopped) = watch::channel(false);
    let pp = p.clone();
    let task = tokio::spawn(async move {
        loop {
            let (stream, peer) = tokio::select! {
                r = listener.accept() => match r {
                    Ok(x) => x,
                    Err(e) => { warn!("accept failed: {e}"); continue; }
                },
                _ = stopped.changed() => return,
            };
            tokio::spawn(serve_conn(pp.clone(), stream, peer));
        }
    });
    Ok(ServerHandle {
        addr,
        metrics,
        stop,
        task,
        params: Arc::new(ParamsHandle(p)),
    })
}

async fn serve_conn(p: Arc<Params>, mut stream: TcpStream, peer: SocketAddr) {
    let t = &p.cfg.tuning;
    if let Err(e) = net::tune(&stream, t.notsent_lowat) {
        warn!(%peer, "socket options: {e:#}");
    }
    let (auth, leftover) =
        match net::server_handshake(&mut stream, &p.key, t.handshake_timeout()).await {
            Ok(x) => x,
            Err(e) => {
                warn!(%peer, "pool connection refused: {e:#}");
                return;
            }
        };
    let engine = {
        let mut sessions = p.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = sessions.get(&auth.session) {
            e.clone()
        } else {
            if sessions.len() >= p.cfg.max_sessions {
                warn!(%peer, "pool connection refused: already serving {} sessions", sessions.len());
                return;
            }
            let core = match p
                .cfg
                .tuning
                .core(p.cfg.policy)
                .and_then(|c| Ok(Session::new(CoreRole::Acceptor, c)?))
            {
                Ok(s) => s,
                Err(e) => {
                    warn!("session: {e:#}");
                    return;
                }
            };
            let label: String = auth.session[..4]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            info!(session = %label, %peer, "new client session");
            let e = Engine::new(core, Box::new(ServerRole(p.clone())), label);
            p.registry.add(&e);
            sessions.insert(auth.session, e.clone());
            e
        }
    };
    if let Err(e) = engine.with(|s, _| s.add_connection(auth.conn, auth.owner)) {
        warn!(session = %engine.label, %peer, "pool connection refused: {e}");
        return;
    }
    engine
        .clone()
        .run_connection(auth.conn, stream, leftover)
        .await;
    // Forget a session that stays idle for a while (a client between bursts keeps its state).
    if engine.inspect(|s| s.is_idle()) {
        tokio::time::sleep(SESSION_LINGER).await;
        let mut sessions = p.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let same = sessions
            .get(&auth.session)
            .is_some_and(|e| Arc::ptr_eq(e, &engine));
        if same && engine.inspect(|s| s.is_idle()) {
            sessions.remove(&auth.session);
            p.retired
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .merge(engine.invariant());
        }
    }
}

/// How long an idle client session is kept before it is forgotten.
const SESSION_LINGER: std::time::Duration = std::time::Duration::from_secs(30);
