//! The orchestrator: one testbed, the target, and one run per variant (plain TCP, or the
//! tunnel under a policy) of the same flows.
//!
//! For a tunnel variant it writes the configuration files, starts the real `schedtcp server`
//! (destination) and `schedtcp client` (origin) and waits until they listen; then it starts
//! the workload generator (origin) and waits for it; then it stops the client and the server
//! with SIGTERM, as an operator would, and reads the per-connection invariant each of them
//! logs when it stops.

use std::net::{SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use tunnel::config::{
    AdmissionConfig, ClientConfig, ClientRoute, KeySource, ServerConfig, ServerRoute, Tuning,
};
use tunnel::Policy;

use crate::bed::{BedConfig, Testbed, DEST};
use crate::interrupt;
use crate::proc::{wait_listening, Proc};
use crate::workload::{FlowResult, Plan, PlannedFlow};

/// Port of the target (destination namespace).
pub const TARGET_PORT: u16 = 9000;
/// Port of `schedtcp server` (destination namespace).
pub const SERVER_PORT: u16 = 7000;
/// Port of the client's route (origin namespace, loopback).
pub const ROUTE_PORT: u16 = 8000;
/// Port of the first multiplexer's server (destination namespace; lane `i` on `+ i`).
pub const MUX_SERVER_PORT: u16 = 7100;
/// Port of the first multiplexer's client (origin namespace, loopback; lane `i` on `+ i`).
pub const MUX_ROUTE_PORT: u16 = 8100;

/// The route of multiplexer lane `lane` (origin namespace).
fn mux_route(lane: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], MUX_ROUTE_PORT + lane))
}

/// What the workload measured in one run, before the relays stopped.
struct Measured {
    results: Vec<FlowResult>,
    wall_s: f64,
    bottleneck_bytes: u64,
    bottleneck_drops: u64,
}

impl Measured {
    fn into_run(
        self,
        variant: &str,
        server: Option<Invariant>,
        client: Option<Invariant>,
    ) -> VariantRun {
        VariantRun {
            variant: variant.into(),
            results: self.results,
            server,
            client,
            wall_s: self.wall_s,
            bottleneck_bytes: self.bottleneck_bytes,
            bottleneck_drops: self.bottleneck_drops,
        }
    }
}

/// The `schedtcp` binary the testbed starts: `$SCHEDTCP_BIN`, else this program when it is
/// `schedtcp` (tests pass `env!("CARGO_BIN_EXE_schedtcp")` instead).
pub fn find_binary() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("SCHEDTCP_BIN") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("SCHEDTCP_BIN={} is not a file", p.display());
        }
        return Ok(p);
    }
    let me = std::env::current_exe().context("locating this program")?;
    if me.file_stem().is_some_and(|s| s == "schedtcp") {
        return Ok(me);
    }
    bail!(
        "the testbed starts the `schedtcp` binary: run this through `schedtcp` (e.g. \
         `schedtcp experiment run testbed-table2`) or set SCHEDTCP_BIN to its path"
    )
}

/// The per-connection invariant as a `schedtcp server`/`client` process reported it when it
/// stopped (the tally of `tunnel::engine::InvariantTally`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Invariant {
    /// Pool connections checked (closed cleanly).
    pub checked: u64,
    /// Connections whose payload differed from their flow's bytes.
    pub violated: u64,
    /// Payload bytes they carried.
    pub payload_bytes: u64,
    /// Framing bytes they carried.
    pub header_bytes: u64,
    /// Payload adopted from dead connections.
    pub adopted_bytes: u64,
    /// Connection-seconds connections owed bytes and had none to send (0 from a build that
    /// did not report it).
    pub starved_s: f64,
    /// Of those, periods that began with bytes held back by the receiver's credit.
    pub starved_by_credit_s: f64,
}

impl Invariant {
    /// Adds another tally.
    pub fn merge(&mut self, o: Invariant) {
        self.checked += o.checked;
        self.violated += o.violated;
        self.payload_bytes += o.payload_bytes;
        self.header_bytes += o.header_bytes;
        self.adopted_bytes += o.adopted_bytes;
        self.starved_s += o.starved_s;
        self.starved_by_credit_s += o.starved_by_credit_s;
    }

    /// Parses the line `schedtcp server`/`client` log at shutdown
    /// (`... invariant at shutdown: checked=N violated=N payload_bytes=N header_bytes=N adopted_bytes=N
    /// starved_us=N starved_by_credit_us=N`).
    pub fn from_log(text: &str) -> Option<Self> {
        let line = text
            .lines()
            .rev()
            .find(|l| l.contains("invariant at shutdown"))?;
        let get = |k: &str| -> Option<u64> {
            let pat = format!("{k}=");
            let i = line.find(&pat)? + pat.len();
            let digits: String = line[i..].chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        };
        Some(Self {
            checked: get("checked")?,
            violated: get("violated")?,
            payload_bytes: get("payload_bytes")?,
            header_bytes: get("header_bytes")?,
            adopted_bytes: get("adopted_bytes")?,
            starved_s: get("starved_us").unwrap_or(0) as f64 / 1e6,
            starved_by_credit_s: get("starved_by_credit_us").unwrap_or(0) as f64 / 1e6,
        })
    }
}

/// One variant's run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VariantRun {
    /// `plain` or the policy.
    pub variant: String,
    /// Per flow, in plan order.
    pub results: Vec<FlowResult>,
    /// The server's invariant (downloads), if a tunnel ran.
    pub server: Option<Invariant>,
    /// The client's invariant (uploads), if a tunnel ran.
    pub client: Option<Invariant>,
    /// Wall time of the workload, seconds.
    pub wall_s: f64,
    /// Bytes the downlink bottleneck sent during the run.
    pub bottleneck_bytes: u64,
    /// Packets it dropped during the run.
    pub bottleneck_drops: u64,
}

impl VariantRun {
    /// Flows that failed.
    pub fn failed(&self) -> usize {
        self.results.iter().filter(|r| r.error.is_some()).count()
    }
}

/// Where a session of the testbed run by process `pid` with namespace prefix `prefix` keeps
/// its configuration files and logs (removed when it ends, kept after a failure; a run that
/// was killed leaves it, and the next run on the same prefix removes it with the namespaces).
pub(crate) fn session_dir(prefix: &str, pid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("schedtcp-testbed-{prefix}-{pid}"))
}

/// A running testbed with its target.
pub struct Session {
    // Field order is drop order: processes go before the namespaces.
    pub(crate) target: Proc,
    pub(crate) bed: Testbed,
    pub(crate) bin: PathBuf,
    pub(crate) dir: PathBuf,
    pub(crate) runs: usize,
    /// What the tunnel's configuration files say beyond the bed's addresses.
    pub tunnel: TunnelSettings,
    /// Pause between runs, so the queue drains and sockets settle.
    pub settle: Duration,
}

/// The settings of a session's tunnel processes that experiments choose; the rest of their
/// configuration is the bed's addresses and the tunnel's defaults.
#[derive(Debug, Clone)]
pub struct TunnelSettings {
    /// Warm pool of the client (`warm_pool`, default 0).
    pub warm_pool: usize,
    /// Both processes' `[tuning]` (default: the tunnel's defaults with a 5-s shutdown grace).
    pub tuning: Tuning,
    /// The client's metrics endpoint (default none).
    pub client_metrics: Option<SocketAddr>,
    /// `Some`: the client's route is a background route under this access control
    /// (`[admission]`); `None` (default): a plain route.
    pub admission: Option<AdmissionConfig>,
}

impl Default for TunnelSettings {
    fn default() -> Self {
        TunnelSettings {
            warm_pool: 0,
            tuning: Tuning {
                shutdown_grace_secs: 5,
                ..Tuning::default()
            },
            client_metrics: None,
            admission: None,
        }
    }
}

impl TunnelSettings {
    /// The server's and the client's configurations under `policy` (both ways), as
    /// `Session::start_tunnel` writes them beside the session's key file `psk.txt`.
    pub fn configs(&self, policy: &str) -> Result<(ServerConfig, ClientConfig)> {
        let policy = parse_policy(policy)?;
        let server_addr = SocketAddr::V4(SocketAddrV4::new(DEST, SERVER_PORT));
        let key = || KeySource {
            key: None,
            key_file: Some("psk.txt".into()),
        };
        let mut server = ServerConfig::new(
            server_addr,
            key(),
            vec![ServerRoute {
                name: "testbed".into(),
                target: SocketAddrV4::new(DEST, TARGET_PORT).to_string(),
                http_content_length: false,
                proxy_protocol: false,
            }],
        );
        server.policy = policy;
        server.tuning = self.tuning.clone();
        let mut client = ClientConfig::new(
            server_addr,
            key(),
            vec![ClientRoute {
                name: "testbed".into(),
                listen: SocketAddr::from(([127, 0, 0, 1], ROUTE_PORT)),
                class: 0,
                background: self.admission.is_some(),
            }],
        );
        client.policy = policy;
        client.warm_pool = self.warm_pool;
        client.metrics = self.client_metrics;
        client.tuning = self.tuning.clone();
        client.admission = self.admission.unwrap_or_default();
        Ok((server, client))
    }
}

impl Session {
    /// Builds the testbed and starts the target.
    pub fn start(cfg: BedConfig, bin: &Path) -> Result<Self> {
        if !bin.is_file() {
            bail!("schedtcp binary {} not found", bin.display());
        }
        let mut bed = Testbed::create(cfg)?;
        let dir = session_dir(&bed.config().prefix, std::process::id());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        // A fresh key per run, owner-only (the tunnel refuses a key file others may read).
        tunnel::psk::write_new(&dir.join("psk.txt")).context("writing the key")?;
        if bed.config().uses_router() {
            bed.start_router(bin, &dir.join("router.log"))?;
        }
        let target = spawn_target(&bed, bin, &dir.join("target.log"))?;
        Ok(Self {
            target,
            bed,
            bin: bin.into(),
            dir,
            runs: 0,
            tunnel: TunnelSettings::default(),
            settle: Duration::from_millis(500),
        })
    }

    /// The testbed.
    pub fn bed(&self) -> &Testbed {
        &self.bed
    }

    /// Stops the TUN router (if the bed runs one) and returns its counters.
    pub fn stop_router(&mut self) -> Result<Option<crate::bed::RouterCounters>> {
        self.bed.stop_router()
    }

    /// Where configuration files, plans, results and logs go.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs `flows` once: plain TCP when `policy` is None (every flow direct), else through
    /// the tunnel under `policy` (flows marked `Direct` still go direct). `bin_s`: width of
    /// the throughput bins (0: none); `flow_timeout_s`: bound on each flow.
    pub fn run(
        &mut self,
        policy: Option<&str>,
        flows: &[PlannedFlow],
        bin_s: f64,
        flow_timeout_s: f64,
    ) -> Result<VariantRun> {
        let tag = self.next_tag(policy.unwrap_or("plain"))?;
        let mut tunnel = match policy {
            Some(p) => Some(self.start_tunnel(p, &tag)?),
            None => None,
        };
        let route = tunnel
            .as_ref()
            .map(|_| SocketAddr::from(([127, 0, 0, 1], ROUTE_PORT)));
        let m = self.measure(&tag, flows, route, None, bin_s, flow_timeout_s)?;
        let (mut server, mut client) = (None, None);
        if let Some((mut srv, mut cli)) = tunnel.take() {
            for (p, slot) in [(&mut cli, &mut client), (&mut srv, &mut server)] {
                let s = p.terminate(Duration::from_secs(20))?;
                let log = std::fs::read_to_string(p.log()).unwrap_or_default();
                *slot = Invariant::from_log(&log);
                if !s.success() || slot.is_none() {
                    bail!(
                        "a tunnel process did not stop cleanly ({s}):\n{}",
                        p.log_tail(20)
                    );
                }
            }
        }
        Ok(m.into_run(policy.unwrap_or("plain"), server, client))
    }

    /// Runs `flows` once over `lanes` multiplexers ([`crate::mux`]: `schedtcp testbed helper
    /// mux-client` in the origin, `mux-server` in the destination, one long-lived TCP
    /// connection each): tunnel flows on the first, bulk flows on the second when `lanes` is
    /// 2 (else on the first too), direct flows direct. The variant is named `mux` (one lane)
    /// or `lanes` (two).
    pub fn run_mux(
        &mut self,
        lanes: u16,
        flows: &[PlannedFlow],
        bin_s: f64,
        flow_timeout_s: f64,
    ) -> Result<VariantRun> {
        if !(1..=2).contains(&lanes) {
            bail!("the multiplexed variants have 1 or 2 lanes, not {lanes}");
        }
        let variant = if lanes == 1 { "mux" } else { "lanes" };
        let tag = self.next_tag(variant)?;
        let mut procs = Vec::new();
        for lane in 0..lanes {
            let listen = SocketAddr::V4(SocketAddrV4::new(DEST, MUX_SERVER_PORT + lane));
            let mut srv = Proc::spawn(
                "mux server",
                self.bed.dest(),
                &self.bin,
                &[
                    "testbed".into(),
                    "helper".into(),
                    "mux-server".into(),
                    "--listen".into(),
                    listen.to_string(),
                    "--target".into(),
                    SocketAddrV4::new(DEST, TARGET_PORT).to_string(),
                ],
                &self.dir.join(format!("{tag}-mux-server-{lane}.log")),
            )?;
            let deadline = Instant::now() + Duration::from_secs(20);
            wait_listening(self.bed.dest(), MUX_SERVER_PORT + lane, deadline, &mut srv)?;
            procs.push(srv);
            let mut cli = Proc::spawn(
                "mux client",
                self.bed.origin(),
                &self.bin,
                &[
                    "testbed".into(),
                    "helper".into(),
                    "mux-client".into(),
                    "--listen".into(),
                    mux_route(lane).to_string(),
                    "--server".into(),
                    listen.to_string(),
                ],
                &self.dir.join(format!("{tag}-mux-client-{lane}.log")),
            )?;
            wait_listening(self.bed.origin(), MUX_ROUTE_PORT + lane, deadline, &mut cli)?;
            procs.push(cli);
        }
        let bulk = (lanes == 2).then(|| mux_route(1));
        let m = self.measure(&tag, flows, Some(mux_route(0)), bulk, bin_s, flow_timeout_s)?;
        // Clients first: each closes its connection in order before its server stops.
        let n = procs.len();
        for i in [1, 0, 3, 2].into_iter().filter(|&i| i < n) {
            let p = &mut procs[i];
            let s = p.terminate(Duration::from_secs(20))?;
            if !s.success() {
                bail!(
                    "a multiplexer did not stop cleanly ({s}):\n{}",
                    p.log_tail(20)
                );
            }
        }
        Ok(m.into_run(variant, None, None))
    }

    /// Counts a run and names its files; an error if the target died.
    fn next_tag(&mut self, variant: &str) -> Result<String> {
        interrupt::check()?;
        self.runs += 1;
        if let Some(s) = self.target.try_wait()? {
            bail!("the target exited ({s}):\n{}", self.target.log_tail(20));
        }
        Ok(format!("{:02}-{variant}", self.runs).replace([':', '/'], "_"))
    }

    /// Runs the workload generator on `flows` (tunnel flows to `route`, bulk flows to `bulk`)
    /// and waits for it, then lets the last connections close.
    fn measure(
        &mut self,
        tag: &str,
        flows: &[PlannedFlow],
        route: Option<SocketAddr>,
        bulk: Option<SocketAddr>,
        bin_s: f64,
        flow_timeout_s: f64,
    ) -> Result<Measured> {
        let plan = Plan {
            flows: flows.to_vec(),
            tunnel: route,
            bulk,
            direct: SocketAddr::V4(SocketAddrV4::new(DEST, TARGET_PORT)),
            bin_s,
            flow_timeout_s,
        };
        let before = self.bed.downlink_counters().unwrap_or((0, 0));
        let t = Instant::now();
        let (mut gen, out_file) = self.start_workload(tag, &plan)?;
        let last = flows.iter().map(|f| f.at_s).fold(0.0, f64::max);
        let deadline = t + Duration::from_secs_f64(last + flow_timeout_s + 30.0);
        let status = gen.wait_until(deadline)?;
        let wall_s = t.elapsed().as_secs_f64();
        let results = workload_results(&gen, status, &out_file)?;
        if results.len() != flows.len() {
            bail!(
                "the workload returned {} results for {} flows",
                results.len(),
                flows.len()
            );
        }
        let after = self.bed.downlink_counters().unwrap_or(before);
        // Let the last connections finish their close before the relays stop.
        std::thread::sleep(self.settle);
        Ok(Measured {
            results,
            wall_s,
            bottleneck_bytes: after.0.saturating_sub(before.0),
            bottleneck_drops: after.1.saturating_sub(before.1),
        })
    }

    pub(crate) fn start_tunnel(&mut self, policy: &str, tag: &str) -> Result<(Proc, Proc)> {
        let (scfg, ccfg) = self.tunnel.configs(policy)?;
        let sfile = self.dir.join(format!("{tag}-server.toml"));
        let cfile = self.dir.join(format!("{tag}-client.toml"));
        std::fs::write(&sfile, toml::to_string(&scfg)?).context("writing server.toml")?;
        std::fs::write(&cfile, toml::to_string(&ccfg)?).context("writing client.toml")?;
        let deadline = Instant::now() + Duration::from_secs(20);
        let srv = self.spawn_server(tag, &format!("{tag}-server"))?;
        let mut cli = Proc::spawn(
            "schedtcp client",
            self.bed.origin(),
            &self.bin,
            &[
                "client".into(),
                "--config".into(),
                cfile.display().to_string(),
            ],
            &self.dir.join(format!("{tag}-client.log")),
        )?;
        wait_listening(self.bed.origin(), ROUTE_PORT, deadline, &mut cli)?;
        Ok((srv, cli))
    }

    /// Writes `plan` and starts the workload generator on it (origin namespace); returns it
    /// and the file it writes its results to.
    pub(crate) fn start_workload(&self, tag: &str, plan: &Plan) -> Result<(Proc, PathBuf)> {
        let plan_file = self.dir.join(format!("{tag}-plan.json"));
        let out_file = self.dir.join(format!("{tag}-results.json"));
        std::fs::write(&plan_file, serde_json::to_string(plan)?)
            .with_context(|| format!("writing {}", plan_file.display()))?;
        let gen = Proc::spawn(
            "workload",
            self.bed.origin(),
            &self.bin,
            &[
                "testbed".into(),
                "helper".into(),
                "workload".into(),
                "--plan".into(),
                plan_file.display().to_string(),
                "--out".into(),
                out_file.display().to_string(),
            ],
            &self.dir.join(format!("{tag}-workload.log")),
        )?;
        Ok((gen, out_file))
    }

    /// Starts `schedtcp server` with the configuration `start_tunnel` wrote for `tag`, logging
    /// to `<log>.log`, and waits until it listens.
    pub(crate) fn spawn_server(&self, tag: &str, log: &str) -> Result<Proc> {
        let sfile = self.dir.join(format!("{tag}-server.toml"));
        let mut srv = Proc::spawn(
            "schedtcp server",
            self.bed.dest(),
            &self.bin,
            &[
                "server".into(),
                "--config".into(),
                sfile.display().to_string(),
            ],
            &self.dir.join(format!("{log}.log")),
        )?;
        let deadline = Instant::now() + Duration::from_secs(20);
        wait_listening(self.bed.dest(), SERVER_PORT, deadline, &mut srv)?;
        Ok(srv)
    }

    /// Stops the target, removes the namespaces and (when `keep_logs` is false) the files.
    /// Ends the session after `outcome`: on error the logs are kept and the error says where;
    /// after Ctrl-C or SIGTERM (asked for, not a failure) nothing is kept.
    pub fn conclude(self, outcome: Result<()>) -> Result<()> {
        let dir = self.dir.clone();
        let keep = outcome.is_err() && !interrupt::interrupted();
        let finished = self.finish(keep);
        if let Err(e) = outcome {
            if keep {
                anyhow::bail!("{e:#}\n(testbed logs kept in {})", dir.display());
            }
            return Err(e);
        }
        finished
    }

    pub fn finish(mut self, keep_logs: bool) -> Result<()> {
        let _ = self.target.terminate(Duration::from_secs(5));
        self.bed.teardown()?;
        if !keep_logs {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        Ok(())
    }
}

/// The results the workload generator `gen` wrote to `out_file`, once it exited with `status`.
pub(crate) fn workload_results(
    gen: &Proc,
    status: std::process::ExitStatus,
    out_file: &Path,
) -> Result<Vec<FlowResult>> {
    if !status.success() {
        bail!(
            "the workload generator failed ({status}):\n{}",
            gen.log_tail(20)
        );
    }
    let text = std::fs::read_to_string(out_file)
        .with_context(|| format!("reading {}", out_file.display()))?;
    serde_json::from_str(&text).context("parsing the workload's results")
}

/// Starts the target in the destination namespace and waits until it listens.
pub(crate) fn spawn_target(bed: &Testbed, bin: &Path, log: &Path) -> Result<Proc> {
    let target_addr = SocketAddrV4::new(DEST, TARGET_PORT).to_string();
    let mut target = Proc::spawn(
        "target",
        bed.dest(),
        bin,
        &[
            "testbed".into(),
            "helper".into(),
            "target".into(),
            "--listen".into(),
            target_addr,
        ],
        log,
    )?;
    wait_listening(
        bed.dest(),
        TARGET_PORT,
        Instant::now() + Duration::from_secs(20),
        &mut target,
    )?;
    Ok(target)
}

/// An error unless `policy` names a policy of the tunnel (`tcp`, `srpt`, `fair`, `las`,
/// `psps[:BYTES]`, `priority:INNER`).
pub fn check_policy(policy: &str) -> Result<()> {
    parse_policy(policy).map(|_| ())
}

fn parse_policy(policy: &str) -> Result<Policy> {
    policy
        .parse()
        .map_err(|e| anyhow::anyhow!("policy {policy:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files `start_tunnel` writes read back, with the tunnel's own parsers, as the
    /// configurations the settings describe.
    #[test]
    fn the_written_configurations_read_back_as_the_settings() {
        let mut s = TunnelSettings {
            warm_pool: 4,
            client_metrics: Some("127.0.0.1:9187".parse().unwrap()),
            ..TunnelSettings::default()
        };
        s.tuning.core.keepalive = Duration::from_secs(7);
        let (server, client) = s.configs("psps:4096").unwrap();
        let server = ServerConfig::from_toml(&toml::to_string(&server).unwrap()).unwrap();
        let client = ClientConfig::from_toml(&toml::to_string(&client).unwrap()).unwrap();
        for (policy, tuning) in [
            (server.policy, &server.tuning),
            (client.policy, &client.tuning),
        ] {
            assert_eq!(policy.to_string(), "psps:4096");
            assert_eq!(tuning.shutdown_grace_secs, 5);
            assert_eq!(tuning.core.keepalive, Duration::from_secs(7));
        }
        assert_eq!(server.key.key_file.as_deref(), Some(Path::new("psk.txt")));
        assert_eq!(server.routes[0].target, "198.18.2.1:9000");
        assert_eq!(client.server.to_string(), "198.18.2.1:7000");
        assert_eq!(client.warm_pool, 4);
        assert_eq!(client.metrics, s.client_metrics);
        assert!(!client.routes[0].background);
        assert_eq!(client.routes[0].listen.to_string(), "127.0.0.1:8000");

        // Access control makes the route a background route under that `[admission]`.
        let fixed: AdmissionConfig = toml::from_str("fixed = 4").unwrap();
        s.admission = Some(fixed);
        let (_, client) = s.configs("tcp").unwrap();
        let client = ClientConfig::from_toml(&toml::to_string(&client).unwrap()).unwrap();
        assert!(client.routes[0].background);
        assert_eq!(client.admission, fixed);
        assert!(s.configs("fastest").is_err());
    }
}
