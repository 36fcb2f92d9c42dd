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
use gtcp::Policy;
use serde::{Deserialize, Deserializer};

/// Settings both roles share.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tuning {
    /// Largest payload of one data frame, bytes (default 16384; at most 65536).
    #[serde(default = "d_chunk")]
    pub chunk: u32,
    /// `TCP_NOTSENT_LOWAT` on pool sockets, bytes (default 16384 = one chunk). The kernel then
    /// keeps at most about one chunk not yet sent per connection, so the scheduling decision is
    /// made when the connection can really send, not megabytes earlier (paper 000, Section 6.1's
    /// limit of SCHED_TCP). 0 leaves the system default.
    #[serde(default = "d_lowat")]
    pub notsent_lowat: u32,
    /// Receive window per flow, bytes (default 1 MiB, at least 256 KiB).
    #[serde(default = "d_window")]
    pub flow_window: u64,
    /// Send buffer per pool connection, bytes (default 1 MiB): a flow hands bytes over while
    /// its own connection owes less than this (its virtual queue), as plain TCP's application
    /// writes while its socket buffer has room. Also the read-ahead within which a new flow's
    /// end of stream makes its size known.
    #[serde(default = "d_send_buffer")]
    pub send_buffer: u64,
    /// Flows tracked at once per session (default 4096). Memory of a session is at most
    /// `max_flows × (send_buffer + 2 × flow_window)`.
    #[serde(default = "d_max_flows")]
    pub max_flows: usize,
    /// Seconds a pool connection may take to connect and authenticate (default 10).
    #[serde(default = "d_handshake")]
    pub handshake_timeout_secs: u64,
    /// Seconds in-flight flows get to finish after SIGINT/SIGTERM before they are reset
    /// (default 10).
    #[serde(default = "d_grace")]
    pub shutdown_grace_secs: u64,
}

// The core's defaults, never re-typed here.
fn d_chunk() -> u32 {
    gtcp::Config::default().chunk
}
fn d_lowat() -> u32 {
    gtcp::DriverProfile::default().notsent_lowat
}
fn d_window() -> u64 {
    gtcp::Config::default().flow_window
}
fn d_send_buffer() -> u64 {
    gtcp::Config::default().send_buffer
}
fn d_max_flows() -> usize {
    gtcp::Config::default().max_flows
}
fn d_handshake() -> u64 {
    10
}
fn d_grace() -> u64 {
    10
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            chunk: d_chunk(),
            notsent_lowat: d_lowat(),
            flow_window: d_window(),
            send_buffer: d_send_buffer(),
            max_flows: d_max_flows(),
            handshake_timeout_secs: d_handshake(),
            shutdown_grace_secs: d_grace(),
        }
    }
}

impl Tuning {
    pub fn core(&self, policy: Policy) -> Result<gtcp::Config> {
        let c = gtcp::Config {
            policy,
            chunk: self.chunk,
            flow_window: self.flow_window,
            send_buffer: self.send_buffer,
            max_flows: self.max_flows,
        };
        c.validate().context("invalid [tuning]")?;
        Ok(c)
    }

    pub fn handshake_timeout(&self) -> Duration {
        Duration::from_secs(self.handshake_timeout_secs.max(1))
    }

    pub fn grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_secs)
    }
}

/// The pre-shared key: given inline (`key = "..."`, at least 16 bytes) or read from a file
/// (`key_file = "path"`, its contents with surrounding white space trimmed).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeySource {
    pub key: Option<String>,
    pub key_file: Option<PathBuf>,
}

impl KeySource {
    pub fn load(&self, base: &Path) -> Result<Vec<u8>> {
        let key = match (&self.key, &self.key_file) {
            (Some(k), None) => k.as_bytes().to_vec(),
            (None, Some(f)) => {
                let path = base.join(f);
                let text = std::fs::read(&path)
                    .with_context(|| format!("reading key file {}", path.display()))?;
                text.trim_ascii().to_vec()
            }
            (Some(_), Some(_)) => bail!("give either key or key_file, not both"),
            (None, None) => {
                bail!("a pre-shared key is required: key = \"...\" or key_file = \"...\"")
            }
        };
        if key.len() < 16 {
            bail!(
                "the pre-shared key must be at least 16 bytes (got {})",
                key.len()
            );
        }
        Ok(key)
    }
}

fn policy<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Policy, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map_err(serde::de::Error::custom)
}

fn d_policy() -> Policy {
    Policy::default()
}

/// One route of the client: a local listener whose connections become flows of this route.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientRoute {
    /// Name the server maps to a target (at most 255 bytes).
    pub name: String,
    /// Where applications connect.
    pub listen: SocketAddr,
    /// Priority class of this route's flows (0 first) under the `priority` policy.
    #[serde(default)]
    pub class: u8,
}

/// `schedtcp client --config client.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientConfig {
    /// The `schedtcp server` to connect pool connections to.
    pub server: SocketAddr,
    #[serde(flatten)]
    pub key: KeySource,
    /// Policy for the bytes this side sends (uploads). Default `fair`.
    #[serde(default = "d_policy", deserialize_with = "policy")]
    pub policy: Policy,
    /// Fresh, never-used pool connections kept ready to save a handshake (default 0, at most 64).
    #[serde(default)]
    pub warm_pool: usize,
    /// Address of the Prometheus text endpoint; none by default.
    pub metrics: Option<SocketAddr>,
    #[serde(default)]
    pub tuning: Tuning,
    #[serde(rename = "route")]
    pub routes: Vec<ClientRoute>,
}

/// One route of the server: the only target flows of this route may reach.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerRoute {
    pub name: String,
    /// `host:port` the server connects to for each flow of this route.
    pub target: String,
    /// Read HTTP/1.1 `Content-Length` in the target's responses to learn flow sizes (opt-in).
    #[serde(default)]
    pub http_content_length: bool,
}

/// `schedtcp server --config server.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Where pool connections arrive.
    pub listen: SocketAddr,
    #[serde(flatten)]
    pub key: KeySource,
    /// Policy for the bytes this side sends (downloads). Default `fair`.
    #[serde(default = "d_policy", deserialize_with = "policy")]
    pub policy: Policy,
    /// Address of the Prometheus text endpoint; none by default.
    pub metrics: Option<SocketAddr>,
    /// Client sessions served at once (default 64).
    #[serde(default = "d_sessions")]
    pub max_sessions: usize,
    #[serde(default)]
    pub tuning: Tuning,
    #[serde(rename = "route")]
    pub routes: Vec<ServerRoute>,
}

fn d_sessions() -> usize {
    64
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
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let c = parse(&text).with_context(|| format!("in {}", path.display()))?;
    let k = key(&c).load(path.parent().unwrap_or(Path::new(".")))?;
    Ok((c, k))
}

impl ClientConfig {
    pub fn from_toml(text: &str) -> Result<Self> {
        let c: Self = toml::from_str(text).context("invalid client configuration")?;
        check_names(c.routes.iter().map(|r| r.name.as_str()))?;
        if c.warm_pool > 64 {
            bail!("warm_pool is at most 64");
        }
        c.tuning.core(c.policy)?;
        Ok(c)
    }

    /// Reads and checks the file, and loads its key (a `key_file` is relative to it).
    pub fn load(path: &Path) -> Result<(Self, Vec<u8>)> {
        load_file(path, Self::from_toml, |c| &c.key)
    }
}

impl ServerConfig {
    pub fn from_toml(text: &str) -> Result<Self> {
        let c: Self = toml::from_str(text).context("invalid server configuration")?;
        check_names(c.routes.iter().map(|r| r.name.as_str()))?;
        if c.max_sessions == 0 {
            bail!("max_sessions must be at least 1");
        }
        c.tuning.core(c.policy)?;
        Ok(c)
    }

    /// Reads and checks the file, and loads its key (a `key_file` is relative to it).
    pub fn load(path: &Path) -> Result<(Self, Vec<u8>)> {
        load_file(path, Self::from_toml, |c| &c.key)
    }

    pub fn route(&self, name: &str) -> Option<&ServerRoute> {
        self.routes.iter().find(|r| r.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const CLIENT: &str = r#"
server = "127.0.0.1:7000"
key = "0123456789abcdef0123"
policy = "srpt"
[[route]]
name = "web"
listen = "127.0.0.1:8080"
"#;

    #[test]
    fn a_minimal_client_config_loads_with_defaults() {
        let c = ClientConfig::from_toml(CLIENT).unwrap();
        assert_eq!(c.policy.to_string(), "srpt");
        assert_eq!(c.tuning.chunk, 16 * 1024);
        assert_eq!(c.routes[0].class, 0);
    }

    #[test]
    fn bad_configs_are_refused_with_reasons() {
        let cases = [
            (CLIENT.replace("srpt", "sjf"), "unknown policy"),
            (
                CLIENT.replace("0123456789abcdef0123", "short"),
                "at least 16 bytes",
            ),
            (format!("{CLIENT}\nbogus = 1\n"), "unknown field"),
            (
                format!("{CLIENT}[[route]]\nname = \"web\"\nlisten = \"127.0.0.1:1\"\n"),
                "twice",
            ),
            (format!("{CLIENT}[tuning]\nchunk = 100000\n"), "tuning"),
            (CLIENT.replace("127.0.0.1:8080", "nowhere"), "invalid"),
        ];
        for (text, want) in cases {
            let err =
                ClientConfig::from_toml(&text).and_then(|c| c.key.load(Path::new(".")).map(|_| c));
            let msg = format!("{:#}", err.expect_err(want));
            assert!(msg.contains(want), "{msg:?} should mention {want:?}");
        }
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
