//! Fault injection: while a workload runs through the tunnel, a pool connection is
//! silently blackholed, the server is killed and started again, the target is killed and
//! started again. Every flow must then complete intact (the workload checks each byte and the
//! target's SHA-256 digest) or fail clearly (a reset, an end too early) within a bound; a flow
//! that hangs until the workload's timeout is the failure this looks for.
//!
//! The blackhole needs no firewall and no `netem`: at the origin's and the destination's
//! egress an `htb` root sends everything to a class with no limit, except the packets of one
//! connection (a `u32` filter on its ports), which go to a class whose queue is a `pfifo` of
//! length 0, dropping each of them. Neither end sees a reset or a FIN: only silence.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use serde::Serialize;

use crate::bed::Testbed;
use crate::proc::sh;
use crate::run::{spawn_target, workload_results, Session, ROUTE_PORT, SERVER_PORT};
use crate::workload::{FlowResult, Plan, PlannedFlow};

/// One fault.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Fault {
    /// The pool connection that carried the most bytes so far drops every packet, both ways,
    /// from now on (a dead path: no reset, no FIN).
    BlackholePoolConnection,
    /// `kill -9` of `schedtcp server`, started again (a new instance) after `down_s` seconds.
    KillServer { down_s: f64 },
    /// `kill -9` of the target, started again after `down_s` seconds.
    KillTarget { down_s: f64 },
}

/// A fault at a time, seconds after the workload started.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scheduled {
    pub at_s: f64,
    pub fault: Fault,
}

/// What a run with faults did.
#[derive(Debug, Clone, Serialize)]
pub struct FaultRun {
    /// Per flow, in plan order.
    pub results: Vec<FlowResult>,
    /// Each fault as applied: its time and what it hit.
    pub applied: Vec<(f64, String)>,
    /// Packets the blackholes dropped.
    pub blackholed_packets: u64,
    /// Wall time of the workload, seconds.
    pub wall_s: f64,
}

/// A silent drop of one TCP connection's packets, both ways (see the module documentation).
/// Removed when dropped.
pub struct Blackhole {
    /// (namespace, device) where an `htb` root was installed.
    installed: Vec<(String, &'static str)>,
}

impl Blackhole {
    /// Drops every packet between the origin's port `client_port` and the server's port.
    pub fn install(bed: &Testbed, client_port: u16) -> Result<Self> {
        let mut b = Self {
            installed: Vec::new(),
        };
        let (cp, sp) = (client_port.to_string(), SERVER_PORT.to_string());
        for (ns, dev, sport, dport) in
            [(bed.origin(), "o0", &cp, &sp), (bed.dest(), "d0", &sp, &cp)]
        {
            b.installed.push((ns.to_string(), dev));
            let tc = |args: &[&str]| -> Result<String> {
                let mut v = vec!["-n", ns];
                v.extend_from_slice(args);
                sh("tc", &v)
            };
            tc(&[
                "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1",
            ])?;
            for class in ["1:1", "1:2"] {
                tc(&[
                    "class", "add", "dev", dev, "parent", "1:", "classid", class, "htb", "rate",
                    "10gbit",
                ])?;
            }
            tc(&[
                "qdisc", "add", "dev", dev, "parent", "1:2", "handle", "20:", "pfifo", "limit", "0",
            ])?;
            tc(&[
                "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                "match", "ip", "protocol", "6", "0xff", "match", "ip", "sport", sport, "0xffff",
                "match", "ip", "dport", dport, "0xffff", "flowid", "1:2",
            ])?;
        }
        Ok(b)
    }

    /// Packets dropped so far.
    pub fn dropped(&self) -> u64 {
        self.installed
            .iter()
            .filter_map(|(ns, dev)| {
                let s = sh("tc", &["-s", "-n", ns, "qdisc", "show", "dev", dev]).ok()?;
                // The zero-length queue's block: "qdisc pfifo 20: ..." then "Sent ... (dropped N, ...".
                let block = s.split("qdisc ").find(|b| b.starts_with("pfifo 20:"))?;
                let w: Vec<&str> = block.split_whitespace().collect();
                let i = w.iter().position(|x| *x == "(dropped")?;
                w.get(i + 1)?.trim_end_matches(',').parse::<u64>().ok()
            })
            .sum()
    }
}

impl Drop for Blackhole {
    fn drop(&mut self) {
        for (ns, dev) in &self.installed {
            let _ = sh("tc", &["-n", ns, "qdisc", "del", "dev", dev, "root"]);
        }
    }
}

/// The origin-side ports of the client's established pool connections, busiest first (by
/// bytes acknowledged plus bytes received, from `ss -ti`).
pub fn pool_connections(bed: &Testbed) -> Result<Vec<u16>> {
    let out = sh(
        "ip",
        &[
            "netns",
            "exec",
            bed.origin(),
            "ss",
            "-Htin",
            "state",
            "established",
            &format!("( dport = :{SERVER_PORT} )"),
        ],
    )?;
    let mut conns: Vec<(u64, u16)> = Vec::new();
    let mut lines = out.lines().peekable();
    while let Some(line) = lines.next() {
        // "0 0 198.18.1.1:PORT 198.18.2.1:7000" then an indented line of TCP info.
        let Some(local) = line.split_whitespace().nth(2) else {
            continue;
        };
        let Some(port) = local.parse::<SocketAddr>().ok().map(|a| a.port()) else {
            continue;
        };
        let info = lines.next_if(|l| l.starts_with(['\t', ' '])).unwrap_or("");
        let field = |name: &str| -> u64 {
            info.split_whitespace()
                .find_map(|w| w.strip_prefix(name)?.parse().ok())
                .unwrap_or(0)
        };
        conns.push((field("bytes_acked:") + field("bytes_received:"), port));
    }
    conns.sort_by(|a, b| b.cmp(a));
    Ok(conns.into_iter().map(|(_, p)| p).collect())
}

impl Session {
    /// Runs `flows` through the tunnel under `policy` while `faults` happen, each flow bounded
    /// by `flow_timeout_s`. The processes are stopped afterwards (a server or target killed
    /// and started again is the new instance).
    pub fn run_with_faults(
        &mut self,
        policy: &str,
        flows: &[PlannedFlow],
        flow_timeout_s: f64,
        faults: &[Scheduled],
    ) -> Result<FaultRun> {
        crate::interrupt::check()?;
        self.runs += 1;
        let tag = format!("{:02}-faults-{policy}", self.runs).replace([':', '/'], "_");
        let (mut server, mut client) = self.start_tunnel(policy, &tag)?;
        let plan = Plan {
            flows: flows.to_vec(),
            tunnel: Some(SocketAddr::from(([127, 0, 0, 1], ROUTE_PORT))),
            bulk: None,
            direct: SocketAddr::from(([127, 0, 0, 1], 9)),
            bin_s: 0.0,
            flow_timeout_s,
        };
        let t = Instant::now();
        let (mut gen, out_file) = self.start_workload(&tag, &plan)?;
        let last = flows.iter().map(|f| f.at_s).fold(0.0, f64::max);
        let deadline = t + Duration::from_secs_f64(last + flow_timeout_s + 30.0);
        let mut pending: Vec<Scheduled> = faults.to_vec();
        pending.sort_by(|a, b| b.at_s.total_cmp(&a.at_s));
        // Restarts due: (time, what).
        let mut restarts: Vec<(f64, bool)> = Vec::new();
        let mut applied = Vec::new();
        let mut holes: Vec<Blackhole> = Vec::new();
        let mut restarted = 0;
        let status = loop {
            if let Some(s) = gen.try_wait()? {
                break s;
            }
            crate::interrupt::check()?;
            if Instant::now() >= deadline {
                bail!(
                    "the workload did not finish in time ({})",
                    gen.log().display()
                );
            }
            let now = t.elapsed().as_secs_f64();
            while pending.last().is_some_and(|f| f.at_s <= now) {
                let Some(f) = pending.pop() else { break };
                let what = match f.fault {
                    Fault::BlackholePoolConnection => match pool_connections(&self.bed)?.first() {
                        Some(&port) => {
                            holes.push(Blackhole::install(&self.bed, port)?);
                            format!("blackholed the pool connection from port {port}")
                        }
                        None => "no pool connection to blackhole".to_string(),
                    },
                    Fault::KillServer { down_s } => {
                        server.kill9();
                        restarts.push((now + down_s, true));
                        format!("killed the server for {down_s} s")
                    }
                    Fault::KillTarget { down_s } => {
                        self.target.kill9();
                        restarts.push((now + down_s, false));
                        format!("killed the target for {down_s} s")
                    }
                };
                applied.push((now, what));
            }
            restarts.sort_by(|a, b| b.0.total_cmp(&a.0));
            while restarts.last().is_some_and(|r| r.0 <= now) {
                let Some((_, is_server)) = restarts.pop() else {
                    break;
                };
                restarted += 1;
                if is_server {
                    server = self.spawn_server(&tag, &format!("{tag}-server-{restarted}"))?;
                } else {
                    let log = self.dir.join(format!("target-{restarted}.log"));
                    self.target = spawn_target(&self.bed, &self.bin, &log)?;
                }
                applied.push((t.elapsed().as_secs_f64(), "started it again".to_string()));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let wall_s = t.elapsed().as_secs_f64();
        let results = workload_results(&gen, status, &out_file)?;
        let blackholed_packets = holes.iter().map(Blackhole::dropped).sum();
        drop(holes);
        for p in [&mut client, &mut server] {
            p.terminate(Duration::from_secs(20))?;
        }
        Ok(FaultRun {
            results,
            applied,
            blackholed_packets,
            wall_s,
        })
    }
}
