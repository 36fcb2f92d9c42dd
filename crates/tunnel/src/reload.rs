//! Reloading a running daemon's configuration (SIGHUP) without touching in-flight flows.
//!
//! A reload reads the file again and checks it as at start (a bad file changes nothing: the
//! running configuration stays and the reason is logged). It then compares the running and the
//! new configuration key by key ([`plan`]) and applies what can change live:
//!
//! * **Routes** (both roles). A route added serves new flows at once; a route removed takes no
//!   new flow (the client closes its listener, the server resets new flows naming it) while
//!   its flows already open run to their end; a changed target, class or listener applies to
//!   new flows only. Every flow already open keeps the sockets it has.
//! * **Server**: `policy` and the core's `[tuning]` (`chunk`, `flow_window`, `send_buffer`,
//!   `max_flows`, `keepalive_secs`, `dead_peer_secs`) apply to client sessions created after
//!   the reload (each session keeps the configuration it was created with, as if the server had
//!   been restarted for the new ones); the per-event caps and timeouts (`max_sessions`,
//!   `max_connections_per_session`, `auth_timeout_secs`, `session_timeout_secs`,
//!   `notsent_lowat`, `handshake_timeout_secs`, `shutdown_grace_secs`) from the next time
//!   they are read.
//! * **Client**: `warm_pool` and `warm_max_age_secs` (while the pool is not switched on or off),
//!   `notsent_lowat`, `handshake_timeout_secs` and `shutdown_grace_secs`.
//!
//! Every other key needs a restart, and a reload refuses a change to it — logging the key and
//! why, and keeping its running value — while applying the rest. The client has one session
//! for its whole life, built with its `policy` and core `[tuning]`: the session's scheduling
//! queue holds keys computed by the policy and its send ledger the virtual queues under that
//! policy and those buffer sizes, and in-flight flows use both, so these are not changed under
//! them; nor `[admission]` (the access controller holds the waiting flows). Addresses
//! (`listen`, `server`, `metrics`), the key, `integrity`, `threads`, the handshake gate's sizes
//! and the memory budget are set up once at start. A key this module does not know is refused
//! too: nothing is changed live that has not been reasoned about.
//!
//! Metrics: `schedtcp_config_reloads_total{result="ok|error"}` and `schedtcp_config_info{hash}`,
//! the hash of the running configuration as `schedtcp check` prints it ([`hash`]).

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use toml::{Table, Value};
use tracing::{info, warn};

use crate::config::{ClientConfig, ClientRoute, ServerConfig};

/// A value read often and replaced now and then: readers take the current one (an `Arc`, kept
/// as long as they need it), a reload puts a new one.
#[derive(Debug)]
pub struct Live<T>(RwLock<Arc<T>>);

impl<T> Live<T> {
    pub fn new(v: T) -> Self {
        Self(RwLock::new(Arc::new(v)))
    }

    /// The current value.
    pub fn get(&self) -> Arc<T> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set(&self, v: T) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(v);
    }
}

/// What the metrics endpoint says about the configuration.
#[derive(Debug, Default)]
pub struct ConfigStatus {
    ok: AtomicU64,
    error: AtomicU64,
    hash: Mutex<String>,
}

impl ConfigStatus {
    /// The configuration now running has this [`hash`].
    pub fn loaded(&self, hash: String) {
        *self.hash.lock().unwrap_or_else(|e| e.into_inner()) = hash;
    }

    /// Reloads so far that applied a file (`ok`) and that kept the running configuration.
    pub fn reloads(&self) -> (u64, u64) {
        (
            self.ok.load(Ordering::Relaxed),
            self.error.load(Ordering::Relaxed),
        )
    }

    /// `schedtcp_config_reloads_total` and `schedtcp_config_info` on the metrics page.
    pub fn encode(&self, enc: &mut DescriptorEncoder) -> std::fmt::Result {
        let (ok, error) = self.reloads();
        crate::metrics::family(
            enc,
            "config_reloads_total",
            "Configuration reloads (SIGHUP): ok = the file was applied (keys that need a restart keep their running values), error = the file was refused and the running configuration kept.",
            MetricType::Counter,
            [([("result", "ok")], ok), ([("result", "error")], error)],
        )?;
        let hash = self.hash.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if hash.is_empty() {
            return Ok(());
        }
        crate::metrics::family(
            enc,
            "config_info",
            "The running configuration: hash = its SHA-256 as `schedtcp check` prints it (first 16 hex digits).",
            MetricType::Gauge,
            [([("hash", hash.as_str())], 1u64)],
        )
    }
}

/// The configuration as a TOML table, every default filled in (what `schedtcp check` prints,
/// before [`redact`]).
pub fn effective(cfg: &impl Serialize) -> Result<Table> {
    Table::try_from(cfg).context("writing the configuration out")
}

/// The table with an inline key replaced by a placeholder: safe to print or log.
pub fn redact(mut t: Table) -> Table {
    if let Some(k) = t.get_mut("key") {
        *k = Value::String("(redacted)".into());
    }
    t
}

/// The configuration's identity: the first 16 hex digits of the SHA-256 of its [`effective`]
/// and [`redact`]ed form (so a key given inline is not hashed, and a file that differs only
/// in comments, order or defaults written out has the same hash).
pub fn hash(cfg: &impl Serialize) -> Result<String> {
    let text = toml::to_string(&redact(effective(cfg)?)).context("writing the configuration")?;
    let digest = Sha256::digest(text.as_bytes());
    Ok(digest[..8].iter().map(|b| format!("{b:02x}")).collect())
}

/// Which daemon a configuration is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

/// Why a key cannot change while the daemon runs (`None`: it can). `old` and `new` are the
/// running and the new value (absent: not set).
fn restart_reason(
    side: Side,
    key: &str,
    old: Option<&Value>,
    new: Option<&Value>,
) -> Option<&'static str> {
    const SESSION: &str = "the client's one session is built with it, and in-flight flows use its scheduling queue and send ledger";
    let live = match (side, key) {
        (_, "listen" | "server" | "metrics") => return Some("its socket is set up at start"),
        (_, "key" | "key_file") => return Some("the key is loaded at start"),
        (_, "integrity") => {
            return Some("both ends must agree; pool connections are set up with it")
        }
        (_, "tuning.threads") => {
            return Some("the runtime's worker threads start with the process")
        }
        (Side::Server, "max_unauthenticated" | "max_unauthenticated_per_address") => {
            return Some("the handshake gate is sized at start")
        }
        (Side::Server, "memory_budget_bytes") => return Some("the memory budget is set at start"),
        (
            Side::Server,
            "policy"
            | "max_sessions"
            | "session_timeout_secs"
            | "auth_timeout_secs"
            | "max_connections_per_session"
            | "tuning.chunk"
            | "tuning.flow_window"
            | "tuning.send_buffer"
            | "tuning.max_flows"
            | "tuning.keepalive_secs"
            | "tuning.dead_peer_secs"
            | "tuning.notsent_lowat"
            | "tuning.handshake_timeout_secs"
            | "tuning.shutdown_grace_secs",
        ) => true,
        (
            Side::Client,
            "policy" | "tuning.chunk" | "tuning.flow_window" | "tuning.send_buffer"
            | "tuning.max_flows",
        ) => return Some(SESSION),
        (Side::Client, "tuning.keepalive_secs" | "tuning.dead_peer_secs") => {
            return Some("the client's one session keeps its liveness timers from start")
        }
        (Side::Client, k) if k.starts_with("admission.") => return Some(
            "the access controller holds the waiting background flows; a new one would lose them",
        ),
        (Side::Client, "warm_pool") => {
            let on = |v: Option<&Value>| v.and_then(Value::as_integer).unwrap_or(0) > 0;
            if on(old) != on(new) {
                return Some("the warm pool's keeper is started (or not) with the process; only its size can change live");
            }
            true
        }
        (
            Side::Client,
            "warm_max_age_secs"
            | "tuning.notsent_lowat"
            | "tuning.handshake_timeout_secs"
            | "tuning.shutdown_grace_secs",
        ) => true,
        _ => false,
    };
    (!live).then_some("not known to be safe to change while flows run")
}

/// The leaves of a table under dotted names ("tuning.chunk"), routes left out.
fn leaves<'a>(prefix: &str, t: &'a Table, out: &mut BTreeMap<String, &'a Value>) {
    for (k, v) in t {
        if prefix.is_empty() && k == "route" {
            continue;
        }
        let name = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Table(inner) => leaves(&name, inner, out),
            v => {
                out.insert(name, v);
            }
        }
    }
}

/// Sets (or, with `None`, removes) a dotted key in a table.
fn put(t: &mut Table, key: &str, v: Option<&Value>) {
    match key.split_once('.') {
        Some((head, rest)) => {
            let inner = t
                .entry(head.to_owned())
                .or_insert_with(|| Value::Table(Table::new()));
            if let Value::Table(inner) = inner {
                put(inner, rest, v);
            }
        }
        None => match v {
            Some(v) => {
                t.insert(key.to_owned(), v.clone());
            }
            None => {
                t.remove(key);
            }
        },
    }
}

/// What a reload does: the configuration to run (the new one, with every refused change
/// taken back), and what changed and what was refused.
#[derive(Debug, Default)]
pub struct Plan {
    pub merged: Table,
    /// Keys whose new value applies.
    pub changed: Vec<String>,
    /// Keys whose change needs a restart, with why; they keep their running values.
    pub refused: Vec<(String, &'static str)>,
    pub routes_added: Vec<String>,
    pub routes_removed: Vec<String>,
    pub routes_changed: Vec<String>,
}

fn routes(t: &Table) -> Vec<(String, Value)> {
    t.get("route")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|r| {
                    let name = r.get("name").and_then(Value::as_str).unwrap_or("");
                    (name.to_owned(), r.clone())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Compares the running configuration `old` with `new` (both [`effective`]) for `side`.
/// `background_ok`: (client) background routes may be added (its session has an access
/// controller, which it has only if it started with a background route).
pub fn plan(side: Side, old: &Table, new: &Table, background_ok: bool) -> Plan {
    let mut p = Plan {
        merged: new.clone(),
        ..Plan::default()
    };
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves("", old, &mut a);
    leaves("", new, &mut b);
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for k in keys {
        let (o, n) = (a.get(k).copied(), b.get(k).copied());
        if o == n {
            continue;
        }
        match restart_reason(side, k, o, n) {
            None => p.changed.push(k.clone()),
            Some(why) => {
                put(&mut p.merged, k, o);
                p.refused.push((k.clone(), why));
            }
        }
    }
    let (old_routes, new_routes) = (routes(old), routes(new));
    let mut kept = Vec::new();
    for (name, r) in &new_routes {
        let before = old_routes.iter().find(|(n, _)| n == name).map(|(_, r)| r);
        let background = |r: &Value| r.get("background").and_then(Value::as_bool) == Some(true);
        if side == Side::Client
            && background(r)
            && !background_ok
            && before.is_none_or(|b| !background(b))
        {
            p.refused.push((
                format!("route {name:?}: background"),
                "the access controller of background routes starts with the process (when it starts with one)",
            ));
            if let Some(b) = before {
                kept.push(b.clone());
            }
            continue;
        }
        match before {
            None => p.routes_added.push(name.clone()),
            Some(b) if b != r => p.routes_changed.push(name.clone()),
            Some(_) => {}
        }
        kept.push(r.clone());
    }
    for (name, _) in &old_routes {
        if !kept
            .iter()
            .any(|r| r.get("name").and_then(Value::as_str) == Some(name))
        {
            p.routes_removed.push(name.clone());
        }
    }
    p.merged.insert("route".into(), Value::Array(kept));
    p
}

impl Plan {
    /// Logs what the reload changes and refuses.
    fn log(&self, hash: &str) {
        for (key, why) in &self.refused {
            warn!("reload: {key} not changed (needs a restart: {why}); it keeps its running value");
        }
        info!(
            hash,
            changed = ?self.changed,
            routes_added = ?self.routes_added,
            routes_removed = ?self.routes_removed,
            routes_changed = ?self.routes_changed,
            "configuration reloaded"
        );
    }

    fn nothing_applies(&self) -> bool {
        self.changed.is_empty()
            && self.routes_added.is_empty()
            && self.routes_removed.is_empty()
            && self.routes_changed.is_empty()
    }
}

/// The running key's digest, to tell a changed key (same file, new content) without keeping
/// another copy of the key.
pub(crate) fn key_digest(key: &[u8]) -> [u8; 32] {
    Sha256::digest(key).into()
}

/// Reads and checks a new configuration file, plans it against the running one and returns
/// the configuration to run with its plan; the key must be the running one.
fn prepare<T: Serialize>(
    side: Side,
    running: &T,
    key: &[u8; 32],
    loaded: Result<(T, Vec<u8>)>,
    reparse: impl Fn(&str) -> Result<T>,
    background_ok: bool,
) -> Result<(T, Plan)> {
    let (new, new_key) = loaded?;
    let mut p = plan(side, &effective(running)?, &effective(&new)?, background_ok);
    if key_digest(&new_key) != *key && !p.refused.iter().any(|(k, _)| k.starts_with("key")) {
        p.refused.push(("key".into(), "the key is loaded at start"));
    }
    let text = toml::to_string(&p.merged).context("writing the configuration")?;
    let merged = reparse(&text).context(
        "the new file with the keys that need a restart kept at their running values is not valid",
    )?;
    Ok((merged, p))
}

/// Counts the outcome of a reload and logs a failure.
fn outcome<T>(status: &ConfigStatus, r: Result<T>) -> Result<T> {
    match &r {
        Ok(_) => status.ok.fetch_add(1, Ordering::Relaxed),
        Err(e) => {
            warn!("reload failed, the running configuration stays: {e:#}");
            status.error.fetch_add(1, Ordering::Relaxed)
        }
    };
    r
}

/// Running state a server reload needs.
pub(crate) struct ServerReload {
    pub(crate) key: [u8; 32],
}

impl crate::server::ServerHandle {
    /// Reads `path` again and applies what can change live (module documentation); a bad file
    /// changes nothing. Returns the running configuration's hash.
    pub fn reload(&self, path: &Path) -> Result<String> {
        let p = &self.params.0;
        let r = (|| {
            let running = p.cfg.get();
            let (cfg, plan) = prepare(
                Side::Server,
                &*running,
                &self.reload.key,
                ServerConfig::load(path),
                ServerConfig::from_toml,
                false,
            )?;
            let h = hash(&cfg)?;
            if !plan.nothing_applies() {
                p.cfg.set(cfg);
            }
            plan.log(&h);
            p.registry.config.loaded(h.clone());
            Ok(h)
        })();
        outcome(&p.registry.config, r)
    }
}

/// Starts a route's accept loop on a listener: the loop ends when the receiver changes (the
/// route is retired) or the client stops, and gives its listener back.
pub(crate) type SpawnRoute = Box<
    dyn Fn(TcpListener, ClientRoute, watch::Receiver<bool>) -> JoinHandle<TcpListener>
        + Send
        + Sync,
>;

struct RouteLoop {
    retire: watch::Sender<bool>,
    task: JoinHandle<TcpListener>,
}

/// The client's route listeners, which a reload adds, retires and restarts.
pub(crate) struct ClientReload {
    pub(crate) key: [u8; 32],
    pub(crate) status: Arc<ConfigStatus>,
    spawn: SpawnRoute,
    loops: tokio::sync::Mutex<BTreeMap<String, RouteLoop>>,
}

impl ClientReload {
    pub(crate) fn new(key: [u8; 32], status: Arc<ConfigStatus>, spawn: SpawnRoute) -> Self {
        Self {
            key,
            status,
            spawn,
            loops: tokio::sync::Mutex::new(BTreeMap::new()),
        }
    }

    /// Starts serving `route` on `listener`.
    pub(crate) async fn serve(&self, listener: TcpListener, route: ClientRoute) {
        let (retire, retired) = watch::channel(false);
        let name = route.name.clone();
        let task = (self.spawn)(listener, route, retired);
        self.loops
            .lock()
            .await
            .insert(name, RouteLoop { retire, task });
    }

    /// Waits for every route's loop to end (after the client's stop signal).
    pub(crate) async fn join(&self) {
        let loops = std::mem::take(&mut *self.loops.lock().await);
        for (_, l) in loops {
            let _ = l.task.await;
        }
    }

    /// Ends a route's loop; its listener, given back.
    async fn retire(&self, name: &str) -> Option<TcpListener> {
        let l = self.loops.lock().await.remove(name)?;
        let _ = l.retire.send(true);
        l.task.await.ok()
    }
}

impl crate::client::ClientHandle {
    /// Reads `path` again and applies what can change live (module documentation): listeners
    /// of new routes are bound (all of them before anything changes: one that cannot be bound
    /// fails the reload), those of removed routes closed, flows already open untouched. A bad
    /// file changes nothing. Returns the running configuration's hash.
    pub async fn reload(&self, path: &Path) -> Result<String> {
        let r = self.reload_inner(path).await;
        outcome(&self.reload.status, r)
    }

    async fn reload_inner(&self, path: &Path) -> Result<String> {
        let state = &self.reload;
        let running = self.params.cfg.get();
        let (cfg, plan) = prepare(
            Side::Client,
            &*running,
            &state.key,
            ClientConfig::load(path),
            ClientConfig::from_toml,
            self.engine.admission().is_some(),
        )?;
        let h = hash(&cfg)?;
        let before = |name: &str| running.routes.iter().find(|r| r.name == name);
        // Bind first: a listener that cannot be bound leaves everything as it was.
        let mut bound = Vec::new();
        for r in &cfg.routes {
            let moved = before(&r.name).is_none_or(|b| b.listen != r.listen);
            if moved {
                let l = TcpListener::bind(r.listen)
                    .await
                    .with_context(|| format!("route {}: binding {}", r.name, r.listen))?;
                bound.push((r.name.clone(), l));
            }
        }
        for name in plan.routes_removed.iter().chain(&plan.routes_changed) {
            let listener = state.retire(name).await;
            let Some(r) = cfg.routes.iter().find(|r| &r.name == name) else {
                continue;
            };
            let reuse = listener.filter(|_| before(name).is_some_and(|b| b.listen == r.listen));
            if let Some(l) = reuse {
                state.serve(l, r.clone()).await;
            }
        }
        for (name, l) in bound {
            if let Some(r) = cfg.routes.iter().find(|r| r.name == name) {
                info!(route = %name, listen = %l.local_addr().map_or_else(|e| e.to_string(), |a| a.to_string()), "client route");
                state.serve(l, r.clone()).await;
            }
        }
        if !plan.nothing_applies() {
            self.params.cfg.set(cfg);
        }
        plan.log(&h);
        state.status.loaded(h.clone());
        Ok(h)
    }
}

/// A server's or client's configuration file, either.
pub fn side_of(text: &str) -> Result<Side> {
    let t: Table = text.parse().context("not a TOML file")?;
    match (t.contains_key("server"), t.contains_key("listen")) {
        (true, _) => Ok(Side::Client),
        (false, true) => Ok(Side::Server),
        (false, false) => {
            bail!("neither a client (`server = ...`) nor a server (`listen = ...`) configuration")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER: &str = "listen = \"127.0.0.1:7000\"\nkey = \"0123456789abcdef\"\n[[route]]\nname = \"a\"\ntarget = \"127.0.0.1:80\"\n[[route]]\nname = \"b\"\ntarget = \"127.0.0.1:81\"\n";
    const CLIENT: &str = "server = \"127.0.0.1:7000\"\nkey = \"0123456789abcdef\"\nwarm_pool = 2\n[[route]]\nname = \"a\"\nlisten = \"127.0.0.1:8080\"\n";

    fn server_plan(new: &str) -> (Plan, ServerConfig) {
        let old = ServerConfig::from_toml(SERVER).unwrap();
        let new = ServerConfig::from_toml(new).unwrap();
        let p = plan(
            Side::Server,
            &effective(&old).unwrap(),
            &effective(&new).unwrap(),
            false,
        );
        let merged = ServerConfig::from_toml(&toml::to_string(&p.merged).unwrap()).unwrap();
        (p, merged)
    }

    fn client_plan(new: &str, background_ok: bool) -> (Plan, ClientConfig) {
        let old = ClientConfig::from_toml(CLIENT).unwrap();
        let new = ClientConfig::from_toml(new).unwrap();
        let p = plan(
            Side::Client,
            &effective(&old).unwrap(),
            &effective(&new).unwrap(),
            background_ok,
        );
        let merged = ClientConfig::from_toml(&toml::to_string(&p.merged).unwrap()).unwrap();
        (p, merged)
    }

    #[test]
    fn the_same_file_changes_nothing_and_hashes_alike() {
        let (p, merged) = server_plan(SERVER);
        assert!(p.nothing_applies() && p.refused.is_empty(), "{p:?}");
        let old = ServerConfig::from_toml(SERVER).unwrap();
        assert_eq!(hash(&merged).unwrap(), hash(&old).unwrap());
        // Defaults written out or comments make no difference; a changed value does.
        let spelled = format!("# comment\npolicy = \"fair\"\n{SERVER}");
        assert_eq!(
            hash(&ServerConfig::from_toml(&spelled).unwrap()).unwrap(),
            hash(&old).unwrap()
        );
        let other = SERVER.replace(":81", ":82");
        assert_ne!(
            hash(&ServerConfig::from_toml(&other).unwrap()).unwrap(),
            hash(&old).unwrap()
        );
    }

    #[test]
    fn server_routes_and_new_session_parameters_change_live_addresses_do_not() {
        let new = SERVER
            .replace(
                "name = \"b\"\ntarget = \"127.0.0.1:81\"",
                "name = \"c\"\ntarget = \"127.0.0.1:82\"",
            )
            .replace("127.0.0.1:80", "127.0.0.1:90")
            .replace(
                "listen = \"127.0.0.1:7000\"",
                "listen = \"127.0.0.1:7001\"\npolicy = \"srpt\"\nmemory_budget_bytes = 1000",
            )
            + "[tuning]\nchunk = 8192\nthreads = 3\n";
        let (p, merged) = server_plan(&new);
        assert_eq!(p.routes_added, ["c"]);
        assert_eq!(p.routes_removed, ["b"]);
        assert_eq!(p.routes_changed, ["a"]);
        assert_eq!(p.changed, ["policy", "tuning.chunk"]);
        let refused: Vec<&str> = p.refused.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(refused, ["listen", "memory_budget_bytes", "tuning.threads"]);
        // The refused keys keep their running values; the rest is the new file's.
        assert_eq!(merged.listen.to_string(), "127.0.0.1:7000");
        assert_eq!(
            merged.memory_budget_bytes,
            ServerConfig::from_toml(SERVER).unwrap().memory_budget_bytes
        );
        assert_eq!(merged.tuning.threads, 0);
        assert_eq!(merged.tuning.core.chunk, 8192);
        assert_eq!(merged.policy.to_string(), "srpt");
        assert_eq!(merged.route("a").unwrap().target, "127.0.0.1:90");
        assert!(merged.route("b").is_none() && merged.route("c").is_some());
    }

    #[test]
    fn the_client_keeps_its_session_parameters_and_admission() {
        let new = CLIENT.replace(
            "warm_pool = 2",
            "warm_pool = 4\npolicy = \"srpt\"\nmetrics = \"127.0.0.1:9\"",
        ) + "[tuning]\nflow_window = 524288\nhandshake_timeout_secs = 3\n[admission]\nfixed = 2\n";
        let (p, merged) = client_plan(&new, false);
        assert_eq!(p.changed, ["tuning.handshake_timeout_secs", "warm_pool"]);
        let refused: Vec<&str> = p.refused.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            refused,
            ["admission.fixed", "metrics", "policy", "tuning.flow_window"]
        );
        assert_eq!(
            merged.policy.to_string(),
            ClientConfig::from_toml(CLIENT).unwrap().policy.to_string()
        );
        assert!(!matches!(
            merged.admission.limit,
            gtcp::admission::Limit::Fixed(_)
        ));
        assert!(merged.metrics.is_none());
        assert_eq!(merged.warm_pool, 4);
        // Switching the warm pool off (or on) needs a restart.
        let (p, merged) = client_plan(&CLIENT.replace("warm_pool = 2", "warm_pool = 0"), false);
        assert_eq!(p.refused.len(), 1, "{p:?}");
        assert_eq!(merged.warm_pool, 2);
    }

    #[test]
    fn background_routes_are_added_only_to_a_client_with_an_access_controller() {
        let new = format!(
            "{CLIENT}[[route]]\nname = \"bg\"\nlisten = \"127.0.0.1:8081\"\nbackground = true\n"
        );
        let (p, merged) = client_plan(&new, false);
        assert!(p.routes_added.is_empty() && p.refused.len() == 1, "{p:?}");
        assert_eq!(merged.routes.len(), 1);
        let (p, merged) = client_plan(&new, true);
        assert_eq!(p.routes_added, ["bg"]);
        assert!(merged.routes[1].background);
    }

    #[test]
    fn an_inline_key_is_neither_printed_nor_hashed() {
        let c = ServerConfig::from_toml(SERVER).unwrap();
        let t = redact(effective(&c).unwrap());
        assert!(!toml::to_string(&t).unwrap().contains("0123456789abcdef"));
        let other =
            ServerConfig::from_toml(&SERVER.replace("0123456789abcdef", "fedcba9876543210"))
                .unwrap();
        assert_eq!(hash(&c).unwrap(), hash(&other).unwrap());
    }

    #[test]
    fn the_side_of_a_file_is_told_by_its_keys() {
        assert_eq!(side_of(SERVER).unwrap(), Side::Server);
        assert_eq!(side_of(CLIENT).unwrap(), Side::Client);
        assert!(side_of("policy = \"srpt\"\n").is_err());
        assert!(side_of("[[").is_err());
    }
}
