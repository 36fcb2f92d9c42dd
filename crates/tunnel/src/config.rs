//! Configuration files of `schedtcp server` and `schedtcp client` (TOML).
//!
//! Every bound has a default, documented next to it; a file that names an unknown field, a
//! malformed address or an impossible bound is refused with a clear error before anything
//! starts.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
pub use gtcp::admission::AdmissionConfig;
use gtcp::Policy;
use serde::{Deserialize, Serialize};

/// `[tuning]`: settings both roles share. The core's part is [`gtcp::Config`] itself (its keys,
/// defaults, bounds and validation: `chunk`, `flow_window`, `send_buffer`, `max_flows`,
/// `keepalive_secs`, `dead_peer_secs`), flattened beside the keys only this driver has.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Tuning {
    /// The core's limits and timers (the policy is the file's top-level `policy`).
    #[serde(flatten)]
    pub core: gtcp::Config,
    /// `TCP_NOTSENT_LOWAT` on pool sockets, bytes (default one chunk, the core's driver
    /// profile). The kernel then keeps at most about one chunk not yet sent per connection, so
    /// the scheduling decision is made when the connection can really send, not megabytes
    /// earlier (paper 000, Section 6.1's limit of SCHED_TCP). 0 leaves the system default.
    pub notsent_lowat: u32,
    /// Seconds a pool connection may take to connect and authenticate (default 10).
    pub handshake_timeout_secs: u64,
    /// Seconds in-flight flows get to finish after SIGINT/SIGTERM before they are reset
    /// (default 10).
    pub shutdown_grace_secs: u64,
    /// Worker threads of the process's runtime (default 0: one per core, at most
    /// [`MAX_THREADS`]). A session's core is one lock, taken for short calls; the sockets'
    /// system calls (most of the CPU) run on whichever worker polls them. On a machine whose
    /// cores are busy with other work, 1 saves the wake-ups between threads (docs/THROUGHPUT.md:
    /// about 10% less CPU per byte for one flow on 2 shared cores).
    pub threads: usize,
}

/// Most worker threads `tuning.threads` may ask for.
pub const MAX_THREADS: usize = 1024;

impl Default for Tuning {
    fn default() -> Self {
        let core = gtcp::Config::default();
        Self {
            notsent_lowat: gtcp::DriverProfile::new(&core).notsent_lowat,
            core,
            handshake_timeout_secs: 10,
            shutdown_grace_secs: 10,
            threads: 0,
        }
    }
}

impl Tuning {
    /// The core's configuration under `policy`, checked.
    pub fn core(&self, policy: Policy) -> Result<gtcp::Config> {
        let c = gtcp::Config {
            policy,
            ..self.core
        };
        c.validate().context("invalid [tuning]")?;
        if self.threads > MAX_THREADS {
            bail!(
                "invalid [tuning]: threads = {} (at most {MAX_THREADS}; 0 = one per core)",
                self.threads
            );
        }
        Ok(c)
    }

    pub fn handshake_timeout(&self) -> Duration {
        Duration::from_secs(self.handshake_timeout_secs.max(1))
    }

    pub fn grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_secs)
    }
}

/// The pre-shared key, at least 32 random bytes written as 64 hex characters
/// (`schedtcp keygen`; checked by [`crate::psk`]): given inline (`key = "..."`, then the
/// configuration file itself must be readable by its owner only, like a key file) or, better,
/// read from a file readable by its owner only (`key_file = "path"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeySource {
    pub key: Option<String>,
    pub key_file: Option<PathBuf>,
}

impl KeySource {
    /// The key's bytes (decoded from hex), or why it is refused.
    pub fn load(&self, base: &Path) -> Result<Vec<u8>> {
        match (&self.key, &self.key_file) {
            (Some(k), None) => crate::psk::parse(k),
            (None, Some(f)) => crate::psk::read_file(&base.join(f)),
            (Some(_), Some(_)) => bail!("give either key or key_file, not both"),
            (None, None) => bail!(
                "a pre-shared key is required: key_file = \"psk.hex\" (from `schedtcp keygen --out psk.hex`) or key = \"...\""
            ),
        }
    }
}

fn d_true() -> bool {
    true
}

fn d_policy() -> Policy {
    Policy::default()
}

/// One route of the client: a local listener whose connections become flows of this route.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientRoute {
    /// Name the server maps to a target (at most 255 bytes).
    pub name: String,
    /// Where applications connect.
    pub listen: SocketAddr,
    /// Priority class of this route's flows (0 first) under the `priority` policy.
    #[serde(default)]
    pub class: u8,
    /// Background route (paper 004): its flows are under access control — at most M active at
    /// once, each on its own pool connection, the others waiting in arrival order with their
    /// data not yet read (`[admission]`).
    #[serde(default)]
    pub background: bool,
}

/// `schedtcp client --config client.toml`.
/// Unknown keys are refused by [`tomlkeys`] (serde's `deny_unknown_fields` does not combine
/// with the flattened key source).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientConfig {
    /// The `schedtcp server` to connect pool connections to.
    pub server: SocketAddr,
    #[serde(flatten)]
    pub key: KeySource,
    /// Authenticate (and encrypt) every byte of the pool connections after the handshake
    /// (the record layer, default true). Both ends must agree; `false` only to measure the
    /// cost on a path nobody else can reach.
    #[serde(default = "d_true")]
    pub integrity: bool,
    /// Policy for the bytes this side sends (uploads). Default `fair`.
    #[serde(default = "d_policy")]
    pub policy: Policy,
    /// Fresh, never-used pool connections kept ready to save a handshake (default 0, at most 64).
    #[serde(default)]
    pub warm_pool: usize,
    /// Seconds a warm connection may wait unused before it is replaced by a fresh one
    /// (default 300, at least 1): a connection kept for long may have been accepted by a server
    /// instance that is going away, or by a path that changed.
    #[serde(default = "d_warm_max_age")]
    pub warm_max_age_secs: u64,
    /// Address of the Prometheus text endpoint; none by default.
    pub metrics: Option<SocketAddr>,
    #[serde(default)]
    pub tuning: Tuning,
    /// Access control of the background routes (defaults when absent).
    #[serde(default)]
    pub admission: gtcp::admission::AdmissionConfig,
    #[serde(rename = "route")]
    pub routes: Vec<ClientRoute>,
}

/// One route of the server: the only target flows of this route may reach.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerRoute {
    pub name: String,
    /// `host:port` the server connects to for each flow of this route.
    pub target: String,
    /// Read HTTP/1.1 `Content-Length` in the target's responses to learn flow sizes (opt-in).
    #[serde(default)]
    pub http_content_length: bool,
    /// Start every connection to the target with a PROXY protocol version 2 header naming the
    /// application's address and the client listener it connected to, as the client saw them
    /// (opt-in; the target must expect the header, e.g. HAProxy's `accept-proxy`, nginx's
    /// `proxy_protocol`). A flow whose opening carried no addresses gets a `LOCAL` header.
    #[serde(default)]
    pub proxy_protocol: bool,
}

/// `schedtcp server --config server.toml`.
/// Unknown keys are refused by [`tomlkeys`] (serde's `deny_unknown_fields` does not combine
/// with the flattened key source).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerConfig {
    /// Where pool connections arrive.
    pub listen: SocketAddr,
    #[serde(flatten)]
    pub key: KeySource,
    /// Authenticate (and encrypt) every byte of the pool connections after the handshake
    /// (the record layer, default true). Both ends must agree; `false` only to measure the
    /// cost on a path nobody else can reach.
    #[serde(default = "d_true")]
    pub integrity: bool,
    /// Policy for the bytes this side sends (downloads). Default `fair`.
    #[serde(default = "d_policy")]
    pub policy: Policy,
    /// Address of the Prometheus text endpoint; none by default.
    pub metrics: Option<SocketAddr>,
    /// Client sessions served at once (default 64), each counted until it is forgotten
    /// (`session_timeout_secs` after its last live pool connection). A client beyond it is
    /// refused in the handshake, and retries with backoff.
    #[serde(default = "d_sessions")]
    pub max_sessions: usize,
    /// Seconds a client session may have no live pool connection before its flows are reset,
    /// their target sockets closed, and the session forgotten (default 30, at least 1).
    #[serde(default = "d_session_timeout")]
    pub session_timeout_secs: u64,
    /// Pool connections in their handshake at once (default 1024); when all places are taken, a
    /// newcomer evicts the oldest, whatever its address (`limits::Gate`). Each holds a file
    /// descriptor for at most `auth_timeout_secs`.
    #[serde(default = "d_unauthenticated")]
    pub max_unauthenticated: usize,
    /// Pool connections in their handshake at once from one source network, an IPv4 /24 or an
    /// IPv6 /64 (default 128); beyond, a newcomer evicts the network's oldest (a client opening
    /// more flows than this within one handshake's time sees the excess retried after its
    /// backoff).
    #[serde(default = "d_unauthenticated_per_address")]
    pub max_unauthenticated_per_address: usize,
    /// Seconds a new pool connection has to send its first message and complete the handshake
    /// (default 5, at least 1; a client's own `handshake_timeout_secs` is separate).
    #[serde(default = "d_auth_timeout")]
    pub auth_timeout_secs: u64,
    /// Live pool connections per session (default 4160 = `max_flows` + the largest warm pool:
    /// one per active flow, as plain TCP would have); beyond, a connection is refused in the
    /// handshake.
    #[serde(default = "d_connections_per_session")]
    pub max_connections_per_session: usize,
    /// Bytes all sessions may hold for their peers (buffers: sent and not yet acknowledged,
    /// received and not yet delivered; bookkeeping: out-of-order segments, flows, connections,
    /// control queues; metric `schedtcp_memory_bytes`) before new sessions and new flows are
    /// refused, and a session above its share (the budget divided among the sessions) has each
    /// pool connection that brings it more input closed (default 1 GiB).
    #[serde(default = "d_memory_budget")]
    pub memory_budget_bytes: u64,
    #[serde(default)]
    pub tuning: Tuning,
    #[serde(rename = "route")]
    pub routes: Vec<ServerRoute>,
}

fn d_warm_max_age() -> u64 {
    300
}
fn d_sessions() -> usize {
    64
}
fn d_session_timeout() -> u64 {
    30
}
fn d_unauthenticated() -> usize {
    1024
}
fn d_unauthenticated_per_address() -> usize {
    128
}
fn d_auth_timeout() -> u64 {
    5
}
fn d_connections_per_session() -> usize {
    4096 + 64
}
fn d_memory_budget() -> u64 {
    1 << 30
}

fn check_names<'a>(names: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut seen = BTreeSet::new();
    for n in names {
        if n.is_empty() || n.len() > gtcp::wire::MAX_ROUTE_LEN {
            bail!(
                "route name {n:?} must be 1 to {} bytes",
                gtcp::wire::MAX_ROUTE_LEN
            );
        }
        if !seen.insert(n) {
            bail!("route {n:?} is defined twice");
        }
    }
    if seen.is_empty() {
        bail!("at least one [[route]] is required");
    }
    Ok(())
}

/// Reads a configuration file with `parse`, then the key it names.
fn load_file<T>(
    path: &Path,
    parse: impl Fn(&str) -> Result<T>,
    key: impl Fn(&T) -> &KeySource,
) -> Result<(T, Vec<u8>)> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut file, &mut text)
        .with_context(|| format!("reading {}", path.display()))?;
    let c = parse(&text).with_context(|| format!("in {}", path.display()))?;
    let source = key(&c);
    let k = source.load(path.parent().unwrap_or(Path::new(".")))?;
    if source.key.is_some() {
        // The key is in this file: it must be as private as a key file (a bad key is
        // reported first, above).
        crate::psk::check_private(&file, path, "configuration file holding the key inline")?;
    }
    Ok((c, k))
}

impl ClientConfig {
    pub fn from_toml(text: &str) -> Result<Self> {
        let c: Self = tomlkeys::from_str(text).context("invalid client configuration")?;
        check_names(c.routes.iter().map(|r| r.name.as_str()))?;
        if c.warm_pool > 64 {
            bail!("warm_pool is at most 64");
        }
        if c.warm_max_age_secs == 0 {
            bail!("warm_max_age_secs must be at least 1");
        }
        c.tuning.core(c.policy)?;
        Ok(c)
    }

    /// Whether some route is a background route (its flows under access control).
    pub fn has_background(&self) -> bool {
        self.routes.iter().any(|r| r.background)
    }

    /// Reads and checks the file, and loads its key (a `key_file` is relative to it).
    pub fn load(path: &Path) -> Result<(Self, Vec<u8>)> {
        load_file(path, Self::from_toml, |c| &c.key)
    }
}

impl ServerConfig {
    pub fn from_toml(text: &str) -> Result<Self> {
        let c: Self = tomlkeys::from_str(text).context("invalid server configuration")?;
        check_names(c.routes.iter().map(|r| r.name.as_str()))?;
        if c.max_sessions == 0 {
            bail!("max_sessions must be at least 1");
        }
        if c.session_timeout_secs == 0 {
            bail!("session_timeout_secs must be at least 1");
        }
        if c.max_unauthenticated == 0
            || c.max_unauthenticated_per_address == 0
            || c.max_connections_per_session == 0
        {
            bail!("max_unauthenticated, max_unauthenticated_per_address and max_connections_per_session must be at least 1");
        }
        if c.auth_timeout_secs == 0 {
            bail!("auth_timeout_secs must be at least 1");
        }
        c.tuning.core(c.policy)?;
        Ok(c)
    }

    /// Reads and checks the file, and loads its key (a `key_file` is relative to it).
    pub fn load(path: &Path) -> Result<(Self, Vec<u8>)> {
        load_file(path, Self::from_toml, |c| &c.key)
    }

    pub fn session_timeout(&self) -> Duration {
        Duration::from_secs(self.session_timeout_secs)
    }

    pub fn auth_timeout(&self) -> Duration {
        Duration::from_secs(self.auth_timeout_secs)
    }

    pub fn route(&self, name: &str) -> Option<&ServerRoute> {
        self.routes.iter().find(|r| r.name == name)
    }
}

/// Configurations built in code (a test bed writing the files its processes read): the given
/// keys, every other key at its default, as a file naming only these keys would read.
impl ClientConfig {
    pub fn new(server: SocketAddr, key: KeySource, routes: Vec<ClientRoute>) -> Self {
        ClientConfig {
            server,
            key,
            integrity: d_true(),
            policy: d_policy(),
            warm_pool: 0,
            warm_max_age_secs: d_warm_max_age(),
            metrics: None,
            tuning: Tuning::default(),
            admission: AdmissionConfig::default(),
            routes,
        }
    }
}

impl ServerConfig {
    pub fn new(listen: SocketAddr, key: KeySource, routes: Vec<ServerRoute>) -> Self {
        ServerConfig {
            listen,
            key,
            integrity: d_true(),
            policy: d_policy(),
            metrics: None,
            max_sessions: d_sessions(),
            session_timeout_secs: d_session_timeout(),
            max_unauthenticated: d_unauthenticated(),
            max_unauthenticated_per_address: d_unauthenticated_per_address(),
            auth_timeout_secs: d_auth_timeout(),
            max_connections_per_session: d_connections_per_session(),
            memory_budget_bytes: d_memory_budget(),
            tuning: Tuning::default(),
            routes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const CLIENT: &str = r#"
server = "127.0.0.1:7000"
key = "8c1f0e5a9d27b4436e10f2a8c95d7b3e41a6f0d2c8e93b5761d4a0f8e2c6b913"
policy = "srpt"
[[route]]
name = "web"
listen = "127.0.0.1:8080"
"#;

    #[test]
    fn a_minimal_client_config_loads_with_defaults() {
        let c = ClientConfig::from_toml(CLIENT).unwrap();
        assert_eq!(c.policy.to_string(), "srpt");
        assert_eq!(c.tuning.core.chunk, 16 * 1024);
        assert_eq!(c.routes[0].class, 0);
    }

    #[test]
    fn bad_configs_are_refused_with_reasons() {
        let cases = [
            (CLIENT.replace("srpt", "sjf"), "unknown policy"),
            (
                CLIENT.replace(
                    "8c1f0e5a9d27b4436e10f2a8c95d7b3e41a6f0d2c8e93b5761d4a0f8e2c6b913",
                    "0123456789abcdef0123",
                ),
                "at least 32 random bytes",
            ),
            (
                format!("{CLIENT}\nbogus = 1\n"),
                "unknown key `bogus` in [[route]]",
            ),
            (
                format!("{CLIENT}[[route]]\nname = \"web\"\nlisten = \"127.0.0.1:1\"\n"),
                "twice",
            ),
            (format!("{CLIENT}[tuning]\nchunk = 100000\n"), "tuning"),
            (
                format!("{CLIENT}[tuning]\nkeepalive_secs = 10\ndead_peer_secs = 15\n"),
                "dead_peer_secs",
            ),
            (CLIENT.replace("127.0.0.1:8080", "nowhere"), "invalid"),
            (
                format!("{CLIENT}[tuning]\nthreads = 5000\n"),
                "threads = 5000",
            ),
        ];
        for (text, want) in cases {
            let err =
                ClientConfig::from_toml(&text).and_then(|c| c.key.load(Path::new(".")).map(|_| c));
            let msg = format!("{:#}", err.expect_err(want));
            assert!(msg.contains(want), "{msg:?} should mention {want:?}");
        }
    }

    /// A misspelled key, in any table of either file, is refused naming the closest valid one
    /// (the flattened core keys of `[tuning]` included, which serde alone would let pass).
    #[test]
    fn misspelled_keys_are_refused_with_the_closest_valid_key() {
        const SERVER: &str = "listen = \"0.0.0.0:7000\"\nkey = \"0123456789abcdef\"\n\
                              [[route]]\nname = \"web\"\ntarget = \"127.0.0.1:80\"\n";
        let client = |extra: &str| {
            let (head, routes) = CLIENT.split_once("[[route]]").unwrap();
            ClientConfig::from_toml(&format!("{head}{extra}\n[[route]]{routes}")).map(|_| ())
        };
        let server = |extra: &str| {
            let (head, routes) = SERVER.split_once("[[route]]").unwrap();
            ServerConfig::from_toml(&format!("{head}{extra}\n[[route]]{routes}")).map(|_| ())
        };
        for (result, want) in [
            (
                client("[tuning]\nsend_bufer = 4096"),
                "unknown key `send_bufer` in [tuning]; did you mean `send_buffer`?",
            ),
            (
                client("[tuning]\nkeepalive_sec = 4"),
                "unknown key `keepalive_sec` in [tuning]; did you mean `keepalive_secs`?",
            ),
            (
                client("[tuning]\nthread = 1"),
                "unknown key `thread` in [tuning]; did you mean `threads`?",
            ),
            (
                client("[admission]\nwindow_sec = 60"),
                "unknown key `window_sec` in [admission]; did you mean `window_secs`?",
            ),
            (
                client("polcy = \"las\""),
                "unknown key `polcy`; did you mean `policy`?",
            ),
            (
                server("[tuning]\nmax_flow = 10"),
                "unknown key `max_flow` in [tuning]; did you mean `max_flows`?",
            ),
            (
                server("max_session = 3"),
                "unknown key `max_session`; did you mean `max_sessions`?",
            ),
        ] {
            let msg = format!("{:#}", result.expect_err(want));
            assert!(msg.contains(want), "{msg:?} should say {want:?}");
        }
    }

    /// The adaptive loop's overload check takes its probe, memory, minimum gain and engagement
    /// bar (shortfall) from `[admission]` (scaled like the window and period in the testbed),
    /// keeps the core's defaults for what is absent, and refuses a nonsense value.
    #[test]
    fn admission_overload_check_is_configurable() {
        use gtcp::admission::{Adaptive, Limit};
        let adaptive = |text: &str| match ClientConfig::from_toml(&format!("{CLIENT}{text}"))
            .unwrap()
            .admission
            .limit
        {
            Limit::Adaptive(a) => a,
            Limit::Fixed(m) => panic!("fixed {m}"),
        };
        let a = adaptive(
            "[admission]\nprobe_secs = 3\nmemory_secs = 60\nmin_gain = 0\nshortfall = 0.15\n\
             check_floor = 1\n",
        );
        assert_eq!(a.probe, Duration::from_secs(3));
        assert_eq!(a.memory, Duration::from_secs(60));
        assert_eq!(a.min_gain, 0.0);
        assert_eq!(a.shortfall, 0.15);
        assert_eq!(a.check_floor, 1);
        let d = adaptive("[admission]\n");
        assert_eq!(d.check_floor, Adaptive::default().check_floor);
        assert_eq!(d.min_gain, Adaptive::default().min_gain);
        assert_eq!(d.shortfall, Adaptive::default().shortfall);
        for (text, want) in [
            ("probe_secs = 0", "probe_secs"),
            ("min_gain = 1.5", "gain"),
            ("shortfall = 1", "shortfall"),
        ] {
            let bad = ClientConfig::from_toml(&format!("{CLIENT}[admission]\n{text}\n"));
            let msg = format!("{:#}", bad.expect_err(text));
            assert!(msg.contains(want), "{msg}");
        }
    }

    /// A configuration file holding the key inline is as secret as a key file: refused while
    /// its group or others may read it; with the key in a key file, the
    /// configuration file's mode does not matter.
    #[cfg(unix)]
    #[test]
    fn inline_keys_in_files_others_may_read_are_refused_with_the_chmod() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("config-key-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("client.toml");
        std::fs::write(&path, CLIENT).unwrap();
        for bad in [0o644, 0o640, 0o604, 0o660] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(bad)).unwrap();
            let msg = format!("{:#}", ClientConfig::load(&path).unwrap_err());
            assert!(
                msg.contains("chmod 600") && msg.contains(&format!("{bad:04o}")),
                "{msg}"
            );
            assert!(msg.contains("inline"), "{msg}");
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let (_, key) = ClientConfig::load(&path).expect("owner-only file with an inline key");
        assert_eq!(key.len(), 32);
        // A bad inline key is reported as such, whatever the mode.
        std::fs::write(&path, CLIENT.replace("8c1f0e5a", "")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let msg = format!("{:#}", ClientConfig::load(&path).unwrap_err());
        assert!(msg.contains("at least 32 random bytes"), "{msg}");
        // The key in a key file (owner-only): the configuration file may be world-readable.
        let key_path = dir.join("psk.hex");
        let _ = std::fs::remove_file(&key_path);
        crate::psk::write_new(&key_path).unwrap();
        let with_file = CLIENT.replace(
            "key = \"8c1f0e5a9d27b4436e10f2a8c95d7b3e41a6f0d2c8e93b5761d4a0f8e2c6b913\"",
            "key_file = \"psk.hex\"",
        );
        assert_ne!(with_file, CLIENT);
        std::fs::write(&path, with_file).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(ClientConfig::load(&path).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The example configuration states the defaults of the bounds against hostile peers.
    #[test]
    fn the_example_server_config_states_the_default_caps() {
        let example =
            ServerConfig::from_toml(include_str!("../../schedtcp/examples/server.toml")).unwrap();
        let d = ServerConfig::from_toml(
            "listen = \"0.0.0.0:7000\"\nkey = \"0123456789abcdef\"\n[[route]]\nname = \"web\"\ntarget = \"127.0.0.1:80\"\n",
        )
        .unwrap();
        let caps = |c: &ServerConfig| {
            (
                c.max_unauthenticated,
                c.max_unauthenticated_per_address,
                c.auth_timeout_secs,
                c.max_connections_per_session,
                c.memory_budget_bytes,
            )
        };
        assert_eq!(caps(&example), caps(&d));
        assert_eq!(example.tuning.threads, d.tuning.threads);
        assert_eq!(d.max_connections_per_session, d.tuning.core.max_flows + 64);
    }

    #[test]
    fn server_config_loads() {
        let s = ServerConfig::from_toml(
            "listen = \"0.0.0.0:7000\"\nkey = \"0123456789abcdef\"\n[[route]]\nname = \"web\"\ntarget = \"127.0.0.1:80\"\nhttp_content_length = true\n",
        )
        .unwrap();
        assert!(s.route("web").unwrap().http_content_length);
        assert!(s.route("ssh").is_none());
    }
}
