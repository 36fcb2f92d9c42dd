//! The namespaces, the veth pairs and the bottleneck; their removal.
//!
//! Names: `<prefix>-origin`, `<prefix>-router`, `<prefix>-dest`. Before creating them the
//! testbed writes an owner file `/run/schedtcp-testbed/<prefix>` (its pid and the pid's start
//! time). A namespace of ours whose owner is dead is *stale* (a killed run): it is removed,
//! with every process still inside it. A namespace with our name but no owner file, or one
//! whose owner is alive, is *taken*: the testbed refuses and says which and how to free it.

use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use crate::proc::{sh, Proc};

/// Name of the TUN router's device in the router namespace.
pub const ROUTER_TUN: &str = "srt0";

/// Where owner files live.
pub const OWNER_DIR: &str = "/run/schedtcp-testbed";

/// Origin's address (on `o0`).
pub const ORIGIN: Ipv4Addr = Ipv4Addr::new(198, 18, 1, 1);
/// The router's address on the origin side (`r0`).
pub const ROUTER_O: Ipv4Addr = Ipv4Addr::new(198, 18, 1, 2);
/// The router's address on the destination side (`r1`).
pub const ROUTER_D: Ipv4Addr = Ipv4Addr::new(198, 18, 2, 2);
/// Destination's address (on `d0`).
pub const DEST: Ipv4Addr = Ipv4Addr::new(198, 18, 2, 1);

/// The bottleneck's queue (the child of `tbf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "limit")]
pub enum Queue {
    /// Drop-tail, `limit` bytes.
    Bfifo(u64),
    /// Drop-tail, `limit` packets.
    Pfifo(u64),
}

/// What the testbed looks like.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BedConfig {
    /// Namespace name prefix (letters, digits, `-`, `_`; at most 24 characters).
    pub prefix: String,
    /// Bottleneck rate, bytes per second (both directions).
    pub rate_bytes_per_s: u64,
    /// `tbf` burst, bytes (at least one MTU-sized packet: 1514).
    pub burst_bytes: u64,
    /// The queue behind `tbf`.
    pub queue: Queue,
    /// Largest TCP receive buffer in the origin namespace (`net.ipv4.tcp_rmem` max, bytes;
    /// 0 keeps the kernel's default). It caps every connection's receive window there, as a
    /// small host would: with the windows' sum below the queue, the bottleneck drops nothing
    /// and shares equally between connections (the conditions of FAIR's guarantee).
    #[serde(default)]
    pub origin_rmem_max: u64,
    /// One-way delay, milliseconds, that the TUN router (`schedtcp router`) adds to the
    /// origin→destination direction, so that every round trip grows by this much (the reverse
    /// direction is not delayed). 0 with no `router_queue`: no router, the kernel forwards
    /// (and `tbf` shapes) as before. The TUN router costs CPU per packet (see `schedtcp
    /// router speed`), so tbf stays the default where no delay is asked for.
    #[serde(default)]
    pub delay_ms: f64,
    /// When set, the origin→destination bottleneck is the TUN router (rate `rate_bytes_per_s`
    /// of IP bytes, this queue) instead of `tbf` on `r1`; `tbf` still shapes the other way.
    #[serde(default)]
    pub router_queue: Option<RouterQueue>,
    /// With `router_queue`: the origin→destination bottleneck is the kernel's own queue at
    /// `r1`, no code of ours in it: `tbf` at `rate_bytes_per_s` over `pfifo_fast` (three bands
    /// chosen by the packet's TOS, each holding `buffer_packets`: the device's `txqueuelen`)
    /// for a `run2c:N` queue, over a `pfifo` of `buffer_packets` for `droptail`. The TUN router
    /// only adds the delay and, for `run2c:N`, marks each packet's class into its DSCP (edge
    /// mode: the first class gets TOS 0x10, which `pfifo_fast` serves first).
    #[serde(default)]
    pub kernel_core: bool,
    /// TCP congestion control of the origin and the destination
    /// (`net.ipv4.tcp_congestion_control`, per namespace); empty: the kernel's default. A
    /// namespace may only pick one of `net.ipv4.tcp_allowed_congestion_control` (here: reno and
    /// the default, bbr); another is refused with the kernel's error.
    #[serde(default)]
    pub congestion_control: String,
}

/// The TUN router's queue on the origin→destination direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouterQueue {
    /// `droptail`, `run` or `run2c:THRESHOLD_PACKETS`.
    pub discipline: String,
    /// Buffer, packets.
    pub buffer_packets: usize,
}

impl BedConfig {
    /// A bed with the default prefix `stb`.
    pub fn new(rate_bytes_per_s: u64, queue: Queue) -> Self {
        Self {
            prefix: "stb".into(),
            rate_bytes_per_s,
            burst_bytes: 8 * 1514,
            queue,
            origin_rmem_max: 0,
            delay_ms: 0.0,
            router_queue: None,
            kernel_core: false,
            congestion_control: String::new(),
        }
    }

    /// The path in one paragraph of an experiment's summary: namespaces, bottleneck, queue,
    /// added delay, congestion control (`cc`: what the kernel reported in the bed, see
    /// [`Testbed::congestion_control`]) and receive buffers. The one place that says what a
    /// bed configuration means in words, so every testbed summary says it the same way.
    pub fn describe(&self, cc: &str) -> String {
        let rate = self.rate_bytes_per_s as f64;
        let queue = match self.queue {
            Queue::Bfifo(b) => format!("a {b} B `bfifo`"),
            Queue::Pfifo(n) => format!("a {n}-packet `pfifo`"),
        };
        let bottleneck = match &self.router_queue {
            Some(q) if self.kernel_core => format!(
                "the origin→destination bottleneck is the kernel's own queue at the router's \
                 egress: `tbf` at {:.2} MB/s ({:.0} Mbit/s; burst {} B) over {}; the TUN router \
                 (`schedtcp router`) only delays{}; `tbf` ({queue}) shapes the other direction",
                rate / 1e6,
                rate * 8.0 / 1e6,
                self.burst_bytes,
                if q.discipline.starts_with("run2c") {
                    format!(
                        "`pfifo_fast` ({} packets per band, bands by TOS)",
                        q.buffer_packets
                    )
                } else {
                    format!("a {}-packet `pfifo`", q.buffer_packets)
                },
                if q.discipline.starts_with("run2c") {
                    format!(
                        " and marks each packet's `{}` class into its DSCP (edge mode)",
                        q.discipline
                    )
                } else {
                    String::new()
                }
            ),
            None => format!(
                "the bottleneck is `tbf` at {:.2} MB/s ({:.0} Mbit/s; burst {} B) with {queue} at \
                 the router's egress",
                rate / 1e6,
                rate * 8.0 / 1e6,
                self.burst_bytes
            ),
            Some(q) => format!(
                "the origin→destination bottleneck is the TUN router (`schedtcp router`) at {:.2} MB/s \
                 ({:.0} Mbit/s of IP bytes) with a {}-packet `{}` queue; `tbf` ({queue}) shapes the \
                 other direction",
                rate / 1e6,
                rate * 8.0 / 1e6,
                q.buffer_packets,
                q.discipline
            ),
        };
        let delay = if self.delay_ms > 0.0 {
            format!(
                "the TUN router adds {} ms of one-way delay to the origin→destination direction \
                 (every round trip is {} ms longer than the queue's)",
                self.delay_ms, self.delay_ms
            )
        } else {
            "no added propagation delay (the round-trip time is the queue's)".to_owned()
        };
        let chosen = if self.congestion_control.is_empty() {
            "the kernel's default"
        } else {
            "set for the origin and destination namespaces"
        };
        let rmem = if self.origin_rmem_max > 0 {
            format!(
                "TCP receive buffers in the origin namespace capped at {} bytes \
                 (`net.ipv4.tcp_rmem`), so the receive windows' sum stays near or below the queue: \
                 few or no drops, and the bottleneck shares equally between connections (the \
                 conditions of FAIR's guarantee)",
                self.origin_rmem_max
            )
        } else {
            "the kernel's default TCP buffers (autotuned; the bottleneck queue overflows and drops)"
                .to_owned()
        };
        format!(
            "Three network namespaces (origin, router, destination) joined by veth pairs; \
             {bottleneck}; {delay}; congestion control `{cc}` ({chosen}); {rmem}."
        )
    }

    /// Whether the testbed runs the TUN router (a delay or a router queue is asked for).
    pub fn uses_router(&self) -> bool {
        self.delay_ms > 0.0 || self.router_queue.is_some()
    }

    fn check(&self) -> Result<()> {
        let p = &self.prefix;
        if p.is_empty()
            || p.len() > 24
            || !p
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            bail!("testbed prefix {p:?}: 1 to 24 letters, digits, '-' or '_'");
        }
        if self.rate_bytes_per_s < 1000 || self.rate_bytes_per_s > 1_250_000_000 {
            bail!(
                "bottleneck rate {} B/s: from 1 kB/s to 1.25 GB/s",
                self.rate_bytes_per_s
            );
        }
        if self.burst_bytes < 1514 {
            bail!(
                "tbf burst {} B must hold one full packet (1514 B)",
                self.burst_bytes
            );
        }
        if !(self.delay_ms.is_finite() && (0.0..=10_000.0).contains(&self.delay_ms)) {
            bail!("delay_ms {}: from 0 to 10000", self.delay_ms);
        }
        if !self
            .congestion_control
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            bail!(
                "congestion control {:?}: a kernel module name",
                self.congestion_control
            );
        }
        if let Some(q) = &self.router_queue {
            q.discipline
                .parse::<router::DisciplineSpec>()
                .map_err(|e| anyhow::anyhow!("router queue: {e}"))?;
            if q.buffer_packets == 0 {
                bail!("router queue buffer must be at least 1 packet");
            }
            if self.kernel_core && q.discipline == "run" {
                bail!("a kernel core has no RuN: use droptail or run2c:N");
            }
        } else if self.kernel_core {
            bail!("kernel_core needs a router queue (droptail or run2c:N)");
        }
        match self.queue {
            Queue::Bfifo(b) if b < 1514 => bail!("bfifo limit {b} B is below one packet"),
            Queue::Pfifo(0) => bail!("pfifo limit must be at least 1 packet"),
            _ => Ok(()),
        }
    }

    /// The three namespace names: origin, router, destination.
    pub fn names(&self) -> [String; 3] {
        namespaces(&self.prefix)
    }
}

/// The namespace names of `prefix`.
pub fn namespaces(prefix: &str) -> [String; 3] {
    [
        format!("{prefix}-origin"),
        format!("{prefix}-router"),
        format!("{prefix}-dest"),
    ]
}

/// Whether this process runs as root (effective uid 0).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// An error unless root.
pub fn require_root() -> Result<()> {
    if !is_root() {
        bail!(
            "the testbed needs root (it creates network namespaces, veth pairs and tc qdiscs); \
             run it as root, e.g. `sudo schedtcp testbed smoke`"
        );
    }
    Ok(())
}

/// An error unless `ip` and `tc` (iproute2) run.
pub fn require_tools() -> Result<()> {
    for tool in ["ip", "tc", "ss"] {
        let ok = Command::new(tool)
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            bail!(
                "`{tool}` (iproute2) is missing: install it, e.g. `apt-get update && apt-get install -y iproute2`"
            );
        }
    }
    Ok(())
}

/// Whether the testbed can run here (root, iproute2). Tests call it and return early, saying
/// why, where it cannot.
pub fn can_run(test: &str) -> bool {
    if !is_root() {
        eprintln!("{test}: SKIPPED — the testbed needs root (network namespaces, tc)");
        return false;
    }
    if let Err(e) = require_tools() {
        eprintln!("{test}: SKIPPED — {e:#}");
        return false;
    }
    true
}

/// Every network namespace on the machine.
pub fn list_namespaces() -> Result<Vec<String>> {
    let out = sh("ip", &["netns", "list"])?;
    Ok(out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect())
}

/// Pids of the processes inside namespace `ns`.
pub fn pids_in(ns: &str) -> Vec<i32> {
    sh("ip", &["netns", "pids", ns])
        .map(|o| o.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

fn owner_file(prefix: &str) -> PathBuf {
    PathBuf::from(OWNER_DIR).join(prefix)
}

/// Start time of a process (field 22 of /proc/PID/stat), to tell a live owner from a reused pid.
fn start_time(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; fields after the last ')' are plain.
    let rest = &s[s.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Who owns a prefix, from its owner file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// No owner file.
    None,
    /// A live process (pid).
    Alive(u32),
    /// A process that is gone (pid): the namespaces are stale.
    Dead(u32),
}

/// The owner of `prefix`'s namespaces.
pub fn owner(prefix: &str) -> Owner {
    let Ok(text) = std::fs::read_to_string(owner_file(prefix)) else {
        return Owner::None;
    };
    let mut it = text.split_whitespace();
    let pid: Option<u32> = it.next().and_then(|p| p.parse().ok());
    let started: Option<u64> = it.next().and_then(|p| p.parse().ok());
    match pid {
        Some(pid) if start_time(pid).is_some() && start_time(pid) == started => Owner::Alive(pid),
        Some(pid) => Owner::Dead(pid),
        None => Owner::Dead(0),
    }
}

/// What [`cleanup`] removed.
#[derive(Debug, Default, Clone)]
pub struct CleanupReport {
    /// Namespaces deleted.
    pub namespaces: Vec<String>,
    /// Processes killed inside them.
    pub processes: usize,
}

/// Removes `prefix`'s namespaces and every process in them. Without `force` it refuses when
/// they belong to a live run or to nobody we know of (no owner file).
pub fn cleanup(prefix: &str, force: bool) -> Result<CleanupReport> {
    let existing = list_namespaces()?;
    let ours: Vec<String> = namespaces(prefix)
        .into_iter()
        .filter(|n| existing.contains(n))
        .collect();
    let mut report = CleanupReport::default();
    if !force && !ours.is_empty() {
        match owner(prefix) {
            Owner::Alive(pid) => bail!(
                "namespaces {} belong to a running testbed (pid {pid}); stop it first, or pass --force",
                ours.join(", ")
            ),
            Owner::None => bail!(
                "namespaces {} exist but were not made by a testbed run (no {}); \
                 remove them yourself (`ip netns del NAME`) or pass --force",
                ours.join(", "),
                owner_file(prefix).display()
            ),
            Owner::Dead(_) => {}
        }
    }
    for ns in &ours {
        report.processes += kill_all_in(ns);
        sh("ip", &["netns", "del", ns])?;
        report.namespaces.push(ns.clone());
    }
    let _ = std::fs::remove_file(owner_file(prefix));
    Ok(report)
}

/// SIGKILLs every process in `ns` (bounded: a few rounds); returns how many there were.
fn kill_all_in(ns: &str) -> usize {
    let mut killed = 0;
    for _ in 0..20 {
        let pids = pids_in(ns);
        if pids.is_empty() {
            break;
        }
        for p in &pids {
            if *p > 1 && *p != std::process::id() as i32 {
                let _ = kill(Pid::from_raw(*p), Signal::SIGKILL);
            }
        }
        killed = killed.max(pids.len());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    killed
}

/// A built testbed; removed on [`Testbed::teardown`] or drop.
#[derive(Debug)]
pub struct Testbed {
    // Field order is drop order: the router process goes before the namespaces.
    router: Option<Proc>,
    cfg: BedConfig,
    names: [String; 3],
    live: bool,
}

impl Testbed {
    /// Builds the namespaces, links, addresses, routes and the bottleneck. Refuses when not
    /// root, when iproute2 is missing, or when a name it needs is taken; removes stale
    /// namespaces of a killed run first (and says so on stderr).
    pub fn create(cfg: BedConfig) -> Result<Self> {
        cfg.check()?;
        require_root()?;
        require_tools()?;
        crate::interrupt::install()?;
        let names = cfg.names();
        let existing = list_namespaces()?;
        let present: Vec<&String> = names.iter().filter(|n| existing.contains(n)).collect();
        if !present.is_empty() {
            match owner(&cfg.prefix) {
                Owner::Dead(pid) => {
                    let r = cleanup(&cfg.prefix, true)?;
                    // Its files too: nothing could remove them when it was killed.
                    let _ = std::fs::remove_dir_all(crate::run::session_dir(&cfg.prefix, pid));
                    eprintln!(
                        "testbed: removed stale namespaces {} of a run that died (pid {pid}; {} processes killed)",
                        r.namespaces.join(", "),
                        r.processes
                    );
                }
                Owner::Alive(pid) => bail!(
                    "testbed prefix {:?} is in use by a running testbed (pid {pid}): namespaces {} exist; \
                     wait for it, or use another prefix",
                    cfg.prefix,
                    present.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ),
                Owner::None => bail!(
                    "network namespace {} already exists and was not made by a testbed run; \
                     refusing to touch it (remove it with `ip netns del {}`, or use another prefix)",
                    present[0],
                    present[0]
                ),
            }
        }
        std::fs::create_dir_all(OWNER_DIR).with_context(|| format!("creating {OWNER_DIR}"))?;
        let me = std::process::id();
        let started = start_time(me).context("reading this process's start time")?;
        std::fs::write(owner_file(&cfg.prefix), format!("{me} {started}\n"))
            .context("writing the owner file")?;
        let mut bed = Self {
            router: None,
            cfg,
            names,
            live: true,
        };
        if let Err(e) = bed.build() {
            let _ = bed.teardown();
            return Err(e);
        }
        Ok(bed)
    }

    fn build(&mut self) -> Result<()> {
        let [o, r, d] = self.names.clone();
        for ns in [&o, &r, &d] {
            sh("ip", &["netns", "add", ns])?;
        }
        // Created directly inside the namespaces: nothing ever appears in the root namespace.
        sh(
            "ip",
            &[
                "link", "add", "o0", "netns", &o, "type", "veth", "peer", "name", "r0", "netns", &r,
            ],
        )?;
        sh(
            "ip",
            &[
                "link", "add", "r1", "netns", &r, "type", "veth", "peer", "name", "d0", "netns", &d,
            ],
        )?;
        let addr = |ns: &str, a: Ipv4Addr, dev: &str| {
            sh(
                "ip",
                &["-n", ns, "addr", "add", &format!("{a}/24"), "dev", dev],
            )
        };
        addr(&o, ORIGIN, "o0")?;
        addr(&r, ROUTER_O, "r0")?;
        addr(&r, ROUTER_D, "r1")?;
        addr(&d, DEST, "d0")?;
        for (ns, dev) in [
            (&o, "lo"),
            (&o, "o0"),
            (&r, "lo"),
            (&r, "r0"),
            (&r, "r1"),
            (&d, "lo"),
            (&d, "d0"),
        ] {
            sh("ip", &["-n", ns, "link", "set", dev, "up"])?;
        }
        // Only the other /24, through the router; no default route anywhere.
        sh(
            "ip",
            &[
                "-n",
                &o,
                "route",
                "add",
                "198.18.2.0/24",
                "via",
                &ROUTER_O.to_string(),
            ],
        )?;
        sh(
            "ip",
            &[
                "-n",
                &d,
                "route",
                "add",
                "198.18.1.0/24",
                "via",
                &ROUTER_D.to_string(),
            ],
        )?;
        sh(
            "ip",
            &[
                "netns",
                "exec",
                &r,
                "sh",
                "-c",
                "echo 1 > /proc/sys/net/ipv4/ip_forward",
            ],
        )?;
        self.shape(&r, "r0")?;
        match &self.cfg.router_queue {
            None => self.shape(&r, "r1")?,
            Some(q) if self.cfg.kernel_core => self.shape_kernel_core(&r, q)?,
            Some(_) => {}
        }
        if !self.cfg.congestion_control.is_empty() {
            for ns in [&o, &d] {
                sh(
                    "ip",
                    &[
                        "netns",
                        "exec",
                        ns,
                        "sysctl",
                        "-qw",
                        &format!(
                            "net.ipv4.tcp_congestion_control={}",
                            self.cfg.congestion_control
                        ),
                    ],
                )?;
            }
        }
        if self.cfg.origin_rmem_max > 0 {
            let m = self.cfg.origin_rmem_max.max(4096);
            sh(
                "ip",
                &[
                    "netns",
                    "exec",
                    &o,
                    "sh",
                    "-c",
                    &format!(
                        "echo '4096 {} {m}' > /proc/sys/net/ipv4/tcp_rmem",
                        m.min(131072)
                    ),
                ],
            )?;
        }
        Ok(())
    }

    /// The kernel-core bottleneck at `r1` (see [`BedConfig::kernel_core`]).
    fn shape_kernel_core(&self, ns: &str, q: &RouterQueue) -> Result<()> {
        let n = q.buffer_packets.to_string();
        sh(
            "ip",
            &["-n", ns, "link", "set", "dev", "r1", "txqueuelen", &n],
        )?;
        let rate = format!("{}bit", self.cfg.rate_bytes_per_s * 8);
        let burst = self.cfg.burst_bytes.to_string();
        let limit = (q.buffer_packets * 1514).to_string();
        sh(
            "tc",
            &[
                "-n", ns, "qdisc", "add", "dev", "r1", "root", "handle", "1:", "tbf", "rate",
                &rate, "burst", &burst, "limit", &limit,
            ],
        )?;
        let child: Vec<&str> = if q.discipline.starts_with("run2c") {
            vec!["pfifo_fast"]
        } else {
            vec!["pfifo", "limit", &n]
        };
        let mut args = vec![
            "-n", ns, "qdisc", "add", "dev", "r1", "parent", "1:1", "handle", "10:",
        ];
        args.extend(child);
        sh("tc", &args)?;
        Ok(())
    }

    fn shape(&self, ns: &str, dev: &str) -> Result<()> {
        let rate = format!("{}bit", self.cfg.rate_bytes_per_s * 8);
        let burst = self.cfg.burst_bytes.to_string();
        let limit = match self.cfg.queue {
            Queue::Bfifo(b) => b,
            Queue::Pfifo(p) => p * 1514,
        }
        .to_string();
        sh(
            "tc",
            &[
                "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf", "rate", &rate,
                "burst", &burst, "limit", &limit,
            ],
        )?;
        let (kind, lim) = match self.cfg.queue {
            Queue::Bfifo(b) => ("bfifo", b),
            Queue::Pfifo(p) => ("pfifo", p),
        };
        sh(
            "tc",
            &[
                "-n",
                ns,
                "qdisc",
                "add",
                "dev",
                dev,
                "parent",
                "1:1",
                "handle",
                "10:",
                kind,
                "limit",
                &lim.to_string(),
            ],
        )?;
        Ok(())
    }

    /// The configuration.
    pub fn config(&self) -> &BedConfig {
        &self.cfg
    }

    /// The origin namespace (applications, workload, `schedtcp client`).
    pub fn origin(&self) -> &str {
        &self.names[0]
    }

    /// The router namespace (the bottleneck).
    pub fn router(&self) -> &str {
        &self.names[1]
    }

    /// The destination namespace (`schedtcp server`, the target).
    pub fn dest(&self) -> &str {
        &self.names[2]
    }

    /// The TCP congestion control the origin and destination use (`net.ipv4.tcp_congestion_control`).
    pub fn congestion_control(&self) -> String {
        sh(
            "ip",
            &[
                "netns",
                "exec",
                self.dest(),
                "cat",
                "/proc/sys/net/ipv4/tcp_congestion_control",
            ],
        )
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".into())
    }

    /// `tc -s qdisc` of the router (drops, backlog), for reports.
    pub fn qdisc_stats(&self) -> String {
        sh("tc", &["-s", "-n", self.router(), "qdisc", "show"]).unwrap_or_default()
    }

    /// Bytes and drops the bottleneck towards the origin has counted (`r0`'s tbf).
    pub fn downlink_counters(&self) -> Option<(u64, u64)> {
        self.tbf_counters("r0")
    }

    /// Bytes and drops the kernel's queue towards the destination has counted (`r1`'s tbf;
    /// with [`BedConfig::kernel_core`], the bottleneck).
    pub fn uplink_counters(&self) -> Option<(u64, u64)> {
        self.tbf_counters("r1")
    }

    fn tbf_counters(&self, dev: &str) -> Option<(u64, u64)> {
        let s = sh(
            "tc",
            &["-s", "-n", self.router(), "qdisc", "show", "dev", dev],
        )
        .ok()?;
        let line = s.lines().find(|l| l.trim_start().starts_with("Sent"))?;
        let w: Vec<&str> = line.split_whitespace().collect();
        let bytes = w.get(1)?.parse().ok()?;
        let drop_pos = w.iter().position(|x| *x == "(dropped")?;
        let drops = w.get(drop_pos + 1)?.trim_end_matches(',').parse().ok()?;
        Some((bytes, drops))
    }

    /// Starts `schedtcp router run` (binary `bin`, log `log`) in the router namespace, with
    /// the origin→destination direction (what enters on `r0`) routed through its TUN device
    /// `srt0`: the configured delay, and the configured queue at the bottleneck rate if any
    /// (unshaped otherwise). Returns once the router says it is ready.
    pub fn start_router(&mut self, bin: &Path, log: &Path) -> Result<()> {
        if self.router.is_some() {
            bail!("the router is already running");
        }
        let mut args: Vec<String> = [
            "router",
            "run",
            "--tun",
            ROUTER_TUN,
            "--input",
            "r0",
            "--delay-ms",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(self.cfg.delay_ms.to_string());
        match &self.cfg.router_queue {
            Some(q) if self.cfg.kernel_core && q.discipline.starts_with("run2c") => {
                args.extend(["--mark".into(), "--queue".into(), q.discipline.clone()]);
            }
            Some(_) if self.cfg.kernel_core => {}
            Some(q) => {
                args.extend([
                    "--rate-bytes".into(),
                    self.cfg.rate_bytes_per_s.to_string(),
                    "--queue".into(),
                    q.discipline.clone(),
                    "--buffer".into(),
                    q.buffer_packets.to_string(),
                ]);
            }
            None => {}
        }
        let mut p = Proc::spawn("schedtcp router", self.router(), bin, &args, log)?;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if std::fs::read_to_string(log).is_ok_and(|t| t.contains("router ready")) {
                break;
            }
            if let Some(s) = p.try_wait()? {
                bail!(
                    "the router exited ({s}) before it was ready:\n{}",
                    p.log_tail(20)
                );
            }
            crate::interrupt::check()?;
            if Instant::now() >= deadline {
                bail!("the router was not ready in 20 s:\n{}", p.log_tail(20));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.router = Some(p);
        Ok(())
    }

    /// Stops the router (SIGTERM) and returns the counters it printed, if it ran.
    pub fn stop_router(&mut self) -> Result<Option<RouterCounters>> {
        let Some(mut p) = self.router.take() else {
            return Ok(None);
        };
        let s = p.terminate(Duration::from_secs(10))?;
        let text = std::fs::read_to_string(p.log()).unwrap_or_default();
        match RouterCounters::from_log(&text) {
            Some(c) if s.success() => Ok(Some(c)),
            _ => bail!("the router did not stop cleanly ({s}):\n{}", p.log_tail(20)),
        }
    }

    /// Kills every process in the namespaces and deletes them (idempotent).
    pub fn teardown(&mut self) -> Result<()> {
        if !self.live {
            return Ok(());
        }
        self.live = false;
        if let Some(mut p) = self.router.take() {
            let _ = p.terminate(Duration::from_secs(5));
        }
        let mut first_err = None;
        let existing = list_namespaces().unwrap_or_default();
        for ns in &self.names {
            if existing.contains(ns) {
                kill_all_in(ns);
                if let Err(e) = sh("ip", &["netns", "del", ns]) {
                    first_err.get_or_insert(e);
                }
            }
        }
        let _ = std::fs::remove_file(owner_file(&self.cfg.prefix));
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            eprintln!("testbed: cleanup failed: {e:#}");
        }
    }
}

/// The counters `schedtcp router run` logs when it stops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RouterCounters {
    /// Packets offered to the queue.
    pub offered: u64,
    /// Packets forwarded.
    pub released: u64,
    /// Packets dropped or pushed out by the queue.
    pub queue_drops: u64,
    /// Of those, packets within the first 20 segments (or the RuN2C threshold) of their flow.
    pub drops_first: u64,
}

impl RouterCounters {
    /// Parses the `router stats: offered=N released=N ... queue_drops=N ...` line.
    pub fn from_log(text: &str) -> Option<Self> {
        let line = text.lines().rev().find(|l| l.contains("router stats:"))?;
        let get = |k: &str| -> Option<u64> {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(k)?.strip_prefix('=')?.parse().ok())
        };
        Some(Self {
            offered: get("offered")?,
            released: get("released")?,
            queue_drops: get("queue_drops")?,
            drops_first: get("drops_first").unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_says_what_the_configuration_sets() {
        let mut c = BedConfig::new(3_000_000, Queue::Bfifo(600_000));
        let plain = c.describe("bbr");
        assert!(
            plain.contains("`tbf` at 3.00 MB/s (24 Mbit/s; burst 12112 B)"),
            "{plain}"
        );
        assert!(plain.contains("a 600000 B `bfifo`"), "{plain}");
        assert!(plain.contains("no added propagation delay"), "{plain}");
        assert!(plain.contains("`bbr` (the kernel's default)"), "{plain}");
        assert!(
            plain.contains("the kernel's default TCP buffers"),
            "{plain}"
        );

        c.delay_ms = 25.0;
        c.congestion_control = "reno".into();
        c.origin_rmem_max = 65536;
        let delayed = c.describe("reno");
        assert!(delayed.contains("adds 25 ms of one-way delay"), "{delayed}");
        assert!(!delayed.contains("no added propagation delay"), "{delayed}");
        assert!(delayed.contains("`reno` (set for the origin"), "{delayed}");
        assert!(delayed.contains("capped at 65536 bytes"), "{delayed}");

        c.router_queue = Some(RouterQueue {
            discipline: "run2c:20".into(),
            buffer_packets: 100,
        });
        let routed = c.describe("reno");
        assert!(routed.contains("100-packet `run2c:20` queue"), "{routed}");
        assert!(!routed.contains("at the router's egress"), "{routed}");
    }
}
