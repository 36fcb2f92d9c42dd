//! Shared machinery of paper 000's Section 6.2 experiments in the packet-level simulator
//! (`table2`, `fig7`, `fig8`, `fig9`): one origin–destination path, the paper's workload,
//! the three drivers of `sim` and the gtcp policies, a parallel runner over independent
//! runs, and flow-by-flow comparisons against `tcp` on the same sample path.
//!
//! The path is a dumbbell with one sender/receiver pair: access links of
//! `path.access_rate_bps` and `path.access_delay_ms` at both ends, a bottleneck of
//! `path.capacity_bytes_per_s` whose one-way delay makes the round-trip propagation delay
//! `path.rtt_ms`, and a drop-tail buffer of `path.buffer_bytes` at its head. Paper 000 does
//! not describe its path beyond the 12 MB/s capacity; the defaults (50 ms, buffer = one
//! bandwidth-delay product) are ours.

use crate::check_param;
use crate::Context;
use anyhow::{anyhow, Context as _};
use flowsim::compare::{pairwise, Pairwise, Tolerance};
use serde::{Deserialize, Serialize};
use sim::driver::GtcpStats;
use sim::queue::QueueConfig;
use sim::scenario::{DriverKind, GtcpConfig, RecordConfig, Scenario};
use sim::stats::{injection_distance, InjectionDistance};
use sim::tcp::TcpConfig;
use sim::time::as_secs;
use sim::topology::DumbbellConfig;
use sim::workload::{SizeDist, SizeUnit, SourcePick, WorkloadConfig};

/// Paper 000's workload: Poisson arrivals, Lomax sizes `P(S > x) = (1 + cx)^(−α)` in
/// bytes, offered load `λ E[S] / C`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Workload {
    pub alpha: f64,
    pub c: f64,
    pub load: f64,
    /// Sizes in bytes from this distribution instead of the Lomax (`alpha`, `c`): the other
    /// workloads of the policy sweeps (`engine::sizes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<SizeDist>,
}

impl Workload {
    /// The size distribution flows are drawn from (bytes).
    pub fn size_dist(&self) -> SizeDist {
        self.sizes.clone().unwrap_or(SizeDist::Pareto {
            alpha: self.alpha,
            c: self.c,
        })
    }
}

/// The origin–destination path.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PathCfg {
    /// Bottleneck capacity in bytes per second (paper 000: 12 MB/s).
    pub capacity_bytes_per_s: f64,
    /// Round-trip propagation delay, ms.
    pub rtt_ms: f64,
    /// Drop-tail buffer at the head of the bottleneck, bytes.
    pub buffer_bytes: u64,
    /// Rate of the access links at both ends, bits per second.
    pub access_rate_bps: u64,
    /// One-way delay of each access link, ms.
    pub access_delay_ms: f64,
}

/// A variant of the path for the sensitivity runs.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Variant {
    pub name: String,
    /// Delayed ACKs on (with `tcp.delayed_ack_ms`, or 40 ms) or off (every segment ACKed).
    pub delayed_ack: bool,
    /// Bottleneck buffer, bytes.
    pub buffer_bytes: u64,
}

/// Parameters shared by the Section 6.2 experiments (each uses the parts it needs).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Params {
    /// Seed of run 0; run `r` uses `seed + r`.
    pub seed: u64,
    /// Independent runs (sample paths).
    pub runs: usize,
    /// Repeats of every sample path under independent perturbations (`sim::scenario::
    /// Perturbation`, seeds `1..=repeats`); each flow's transfer time is averaged over
    /// them. With `repeats >= 2`, `tcp` also runs under `repeats` further perturbations
    /// (the A/A configuration `tcp (A/A)`): the noise floor of every comparison.
    #[serde(default = "one")]
    pub repeats: usize,
    /// Largest per-packet processing jitter of the hosts' access links under the repeats'
    /// perturbations, ns (0: no perturbation).
    #[serde(default)]
    pub jitter_ns: u64,
    /// Worker threads.
    pub threads: usize,
    /// Flows arrive in `[0, duration_s)`.
    pub duration_s: f64,
    /// Extra simulated time for the last flows to finish.
    pub drain_s: f64,
    /// gtcp policies compared with `tcp`.
    pub policies: Vec<String>,
    /// gtcp drivers: `gtcp-ideal`, `schedtcp`.
    pub drivers: Vec<String>,
    /// Also run `schedtcp` with the `tcp` policy (what the implementation costs by itself).
    #[serde(default)]
    pub schedtcp_tcp_policy: bool,
    /// Policies also run under `schedtcp` with the core's default per-flow window and send
    /// buffer (instead of `gtcp.flow_window` / `gtcp.send_buffer`).
    #[serde(default)]
    pub core_buffer_policies: Vec<String>,
    /// Record injections and measure the distance of each run to `tcp` (Proposition 1).
    #[serde(default)]
    pub nonintrusive: bool,
    /// Two transfer times are "equal" if they differ by at most this much, ms.
    #[serde(default)]
    pub equal_ms: f64,
    /// Also compute the fluid ideal of each policy on the same sample paths.
    #[serde(default)]
    pub fluid: bool,
    /// A diagnostic of Proposition 2: also run `gtcp-ideal` with FAIR serving the flow that
    /// `tcp` finished first on the same sample path and perturbation (read from that run, not
    /// predicted; `sim::driver::IdealDriver::fair_oracle`).
    #[serde(default)]
    pub fair_oracle: bool,
    /// Size bins for per-size summaries.
    #[serde(default)]
    pub size_bins: usize,
    /// Sensitivity: runs of each variant (0 = none).
    #[serde(default)]
    pub sensitivity_runs: usize,
    /// Sensitivity: the policy compared with tcp on each variant.
    #[serde(default)]
    pub sensitivity_policy: String,
    /// Sensitivity: variants of the path and TCP.
    #[serde(default)]
    pub sensitivity: Vec<Variant>,
    pub workload: Workload,
    pub path: PathCfg,
    /// The simulated TCP (`sim::tcp::TcpConfig`).
    pub tcp: TcpConfig,
    /// The gtcp drivers (`sim::scenario::GtcpConfig`; `policy` is set per configuration).
    pub gtcp: GtcpConfig,
}

fn one() -> usize {
    1
}

impl Params {
    /// Parses and checks the scenario.
    pub fn load(ctx: &Context) -> anyhow::Result<Self> {
        Self::checked(ctx.params()?)
    }

    /// Checks parsed parameters (for experiments that parse a scenario of their own around
    /// these).
    pub fn checked(p: Params) -> anyhow::Result<Self> {
        check_param!(p.runs >= 1, "runs must be >= 1");
        check_param!(p.repeats >= 1, "repeats must be >= 1");
        check_param!(
            p.repeats == 1 || p.jitter_ns > 0,
            "repeats = {} needs jitter_ns > 0 (otherwise every repeat is the same run)",
            p.repeats
        );
        check_param!(p.threads >= 1, "threads must be >= 1");
        check_param!(
            p.duration_s.is_finite() && p.duration_s > 0.0,
            "duration_s = {} must be > 0",
            p.duration_s
        );
        check_param!(
            p.drain_s.is_finite() && p.drain_s >= 0.0,
            "drain_s must be >= 0"
        );
        check_param!(
            p.workload.alpha > 1.0,
            "workload.alpha = {} must be > 1 (finite mean)",
            p.workload.alpha
        );
        check_param!(
            p.workload.c > 0.0 && p.workload.c.is_finite(),
            "workload.c = {} must be > 0",
            p.workload.c
        );
        if let Some(d) = &p.workload.sizes {
            d.validate()
                .map_err(|e| anyhow!("invalid scenario parameter: workload.sizes: {e}"))?;
            check_param!(
                d.mean().is_finite(),
                "workload.sizes must have a finite mean"
            );
            check_param!(
                !p.fluid,
                "the fluid ideal is of the Lomax workload only (workload.sizes is set)"
            );
        }
        check_param!(
            p.workload.load > 0.0 && p.workload.load < 1.0,
            "workload.load = {} must be in (0, 1)",
            p.workload.load
        );
        check_param!(
            p.path.capacity_bytes_per_s > 0.0 && p.path.capacity_bytes_per_s.is_finite(),
            "path.capacity_bytes_per_s must be > 0"
        );
        check_param!(
            p.path.access_delay_ms >= 0.0 && p.path.rtt_ms >= 4.0 * p.path.access_delay_ms,
            "path.rtt_ms = {} must be at least four access delays ({} ms each)",
            p.path.rtt_ms,
            p.path.access_delay_ms
        );
        check_param!(p.path.buffer_bytes > 0, "path.buffer_bytes must be > 0");
        check_param!(
            p.equal_ms >= 0.0 && p.equal_ms.is_finite(),
            "equal_ms must be >= 0"
        );
        for d in &p.drivers {
            check_param!(
                d == "gtcp-ideal" || d == "schedtcp",
                "drivers: `{d}` is not `gtcp-ideal` or `schedtcp`"
            );
        }
        for pol in p.policies.iter().chain(&p.core_buffer_policies) {
            let g = GtcpConfig {
                policy: pol.clone(),
                ..p.gtcp.clone()
            };
            g.parsed_policy().map_err(|e| anyhow!("policies: {e}"))?;
        }
        for v in &p.sensitivity {
            check_param!(
                v.buffer_bytes > 0,
                "sensitivity `{}`: buffer_bytes must be > 0",
                v.name
            );
        }
        if p.sensitivity_runs > 0 && !p.sensitivity.is_empty() {
            let g = GtcpConfig {
                policy: p.sensitivity_policy.clone(),
                ..p.gtcp.clone()
            };
            g.parsed_policy()
                .map_err(|e| anyhow!("sensitivity_policy: {e}"))?;
        }
        // Every configuration builds a valid simulator scenario.
        for cfg in p.configs() {
            p.scenario(0, &cfg)
                .validate()
                .map_err(|e| anyhow!("{}: {e}", cfg.label))?;
        }
        Ok(p)
    }

    /// Mean flow size, bytes.
    pub fn mean_size(&self) -> f64 {
        match &self.workload.sizes {
            Some(d) => d.mean(),
            None => 1.0 / (self.workload.c * (self.workload.alpha - 1.0)),
        }
    }

    /// Arrival rate, flows per second.
    pub fn lambda(&self) -> f64 {
        self.workload.load * self.path.capacity_bytes_per_s / self.mean_size()
    }

    /// One-way propagation delay of the bottleneck, ms.
    pub fn bottleneck_delay_ms(&self) -> f64 {
        self.path.rtt_ms / 2.0 - 2.0 * self.path.access_delay_ms
    }

    /// Bandwidth-delay product of the path, bytes.
    pub fn bdp_bytes(&self) -> f64 {
        self.path.capacity_bytes_per_s * self.path.rtt_ms / 1e3
    }

    /// The configurations run: `tcp` first, then each driver with each policy.
    pub fn configs(&self) -> Vec<Cfg> {
        let mut v = vec![Cfg::new(DriverKind::Tcp, "tcp", false)];
        if self.repeats >= 2 {
            v.push(Cfg::aa());
        }
        for d in &self.drivers {
            let kind = if d == "schedtcp" {
                DriverKind::Schedtcp
            } else {
                DriverKind::GtcpIdeal
            };
            if kind == DriverKind::Schedtcp && self.schedtcp_tcp_policy {
                v.push(Cfg::new(kind, "tcp", false));
            }
            for p in &self.policies {
                v.push(Cfg::new(kind, p, false));
            }
            if kind == DriverKind::GtcpIdeal && self.fair_oracle {
                v.push(Cfg::fair_oracle());
            }
            if kind == DriverKind::Schedtcp {
                for p in &self.core_buffer_policies {
                    v.push(Cfg::new(kind, p, true));
                }
            }
        }
        v
    }

    /// The parameters of a sensitivity variant: its path and TCP, `sensitivity_runs` runs,
    /// tcp and each driver with `sensitivity_policy` only.
    pub fn variant(&self, v: &Variant) -> Params {
        let mut q = self.clone();
        q.runs = self.sensitivity_runs;
        q.path.buffer_bytes = v.buffer_bytes;
        q.tcp.delayed_ack_ms = if v.delayed_ack {
            self.tcp.delayed_ack_ms.or(Some(40.0))
        } else {
            None
        };
        q.policies = vec![self.sensitivity_policy.clone()];
        q.schedtcp_tcp_policy = false;
        q.core_buffer_policies = Vec::new();
        q.nonintrusive = false;
        q.sensitivity = Vec::new();
        q
    }

    /// The simulator scenario of run `run` under `cfg` (its first repeat).
    pub fn scenario(&self, run: usize, cfg: &Cfg) -> Scenario {
        self.scenario_rep(run, 0, cfg)
    }

    /// The simulator scenario of run `run`, repeat `rep`, under `cfg`: the sample path is
    /// the run's seed; the perturbation's seed is `rep + 1` (the A/A configuration:
    /// `repeats + rep + 1`, perturbations no other configuration sees).
    pub fn scenario_rep(&self, run: usize, rep: usize, cfg: &Cfg) -> Scenario {
        let mut gtcp = GtcpConfig {
            policy: cfg.policy.clone(),
            ..self.gtcp.clone()
        };
        if cfg.core_buffers {
            let d = GtcpConfig::default();
            gtcp.core.flow_window = d.core.flow_window;
            gtcp.core.send_buffer = d.core.send_buffer;
        }
        Scenario {
            seed: self.seed.wrapping_add(run as u64),
            duration_s: self.duration_s,
            drain_s: self.drain_s,
            driver: cfg.kind,
            topology: DumbbellConfig {
                pairs: 1,
                access_rate_bps: self.path.access_rate_bps,
                access_delay_ms: self.path.access_delay_ms,
                receiver_rate_bps: self.path.access_rate_bps,
                receiver_delay_ms: self.path.access_delay_ms,
                bottleneck_rate_bps: (self.path.capacity_bytes_per_s * 8.0).round() as u64,
                bottleneck_delay_ms: self.bottleneck_delay_ms(),
                bottleneck_queue: QueueConfig::DropTailBytes {
                    limit: self.path.buffer_bytes,
                },
                other_queue: QueueConfig::DropTailPackets { limit: 100_000 },
                ecn_mark_packets: None,
            },
            tcp: self.tcp.clone(),
            workload: WorkloadConfig::Poisson {
                rate_per_s: None,
                load: Some(self.workload.load),
                size: self.workload.size_dist(),
                unit: SizeUnit::Bytes,
                sources: SourcePick::Random,
                max_flows: None,
            },
            record: RecordConfig {
                injections: self.nonintrusive,
                active_sample_period_s: None,
            },
            gtcp,
            perturb: sim::scenario::Perturbation {
                host_jitter_ns: self.jitter_ns,
                seed: (rep + 1 + if cfg.is_aa() { self.repeats } else { 0 }) as u64,
            },
            mux: Default::default(),
        }
    }

    /// The equality tolerance of transfer times.
    pub fn tolerance(&self) -> Tolerance {
        Tolerance {
            abs: self.equal_ms / 1e3,
            rel: 0.0,
        }
    }
}

/// Label of the A/A configuration.
pub(crate) const AA_LABEL: &str = "tcp (A/A)";

/// One configuration: a driver and a policy.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Cfg {
    /// `tcp`, `gtcp-ideal/srpt`, `schedtcp/srpt`, `schedtcp/srpt (1 MiB)`...
    pub label: String,
    /// Driver name.
    pub driver: &'static str,
    #[serde(skip)]
    pub kind: DriverKind,
    /// Policy name.
    pub policy: String,
    /// `schedtcp` with the core's default per-flow window and send buffer.
    pub core_buffers: bool,
    /// `gtcp-ideal/fair` told tcp's finish order (a diagnostic, [`Params::fair_oracle`]).
    pub oracle: bool,
}

impl Cfg {
    fn new(kind: DriverKind, policy: &str, core_buffers: bool) -> Self {
        let label = match (kind, core_buffers) {
            (DriverKind::Tcp, _) => "tcp".to_string(),
            (_, false) => format!("{}/{policy}", kind.name()),
            (_, true) => format!("{}/{policy} (core buffers)", kind.name()),
        };
        Cfg {
            label,
            driver: kind.name(),
            kind,
            policy: policy.to_string(),
            core_buffers,
            oracle: false,
        }
    }

    /// `gtcp-ideal/fair` serving the flow tcp finished first ([`Params::fair_oracle`]).
    pub fn fair_oracle() -> Self {
        Cfg {
            label: format!("{}/fair (tcp's finish order)", DriverKind::GtcpIdeal.name()),
            oracle: true,
            ..Self::new(DriverKind::GtcpIdeal, "fair", false)
        }
    }

    /// `tcp (A/A)`: plain TCP on the same sample paths under other perturbations.
    pub fn aa() -> Self {
        Cfg {
            label: AA_LABEL.to_string(),
            ..Self::new(DriverKind::Tcp, "tcp", false)
        }
    }

    /// The A/A configuration: `tcp` under perturbations no other configuration sees.
    pub fn is_aa(&self) -> bool {
        self.kind == DriverKind::Tcp && self.label == AA_LABEL
    }
}

/// What one flow did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct FlowOut {
    pub size: u64,
    pub arrival_s: f64,
    /// Transfer time seen by the destination application, averaged over the repeats, if
    /// it completed in every repeat.
    pub transfer_s: Option<f64>,
    /// Transfer time in each repeat (`None`: not completed in that repeat).
    pub reps: Vec<Option<f64>>,
}

/// What one run of one configuration produced (its flows are left out of its JSON form;
/// a shard's raw results carry them beside it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RunOut {
    #[serde(skip)]
    pub flows: Vec<FlowOut>,
    pub mean_active_conns: f64,
    pub max_active_conns: u32,
    pub bottleneck_data_packets: u64,
    pub drops: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub gtcp: Option<GtcpStats>,
    /// Distance to the `tcp` run of the same sample path (if measured).
    pub distance: Option<InjectionDistance>,
    pub fingerprint: u64,
    /// Repeats merged into this one (counters are summed over them).
    pub repeats: usize,
}

/// Merges the repeats of one sample path under one configuration: each flow's transfer
/// time is its mean over the repeats (if it completed in all of them), the counters are
/// summed, the distance to `tcp` is the worst repeat's.
pub(crate) fn merge(mut reps: Vec<RunOut>) -> RunOut {
    let n = reps.len();
    if n <= 1 {
        return reps.pop().unwrap_or_else(empty);
    }
    let flows_n = reps.iter().map(|r| r.flows.len()).min().unwrap_or(0);
    let flows = (0..flows_n)
        .map(|i| {
            let samples: Vec<Option<f64>> = reps.iter().map(|r| r.flows[i].transfer_s).collect();
            let done: Vec<f64> = samples.iter().flatten().copied().collect();
            FlowOut {
                size: reps[0].flows[i].size,
                arrival_s: reps[0].flows[i].arrival_s,
                transfer_s: (done.len() == n).then(|| done.iter().sum::<f64>() / n as f64),
                reps: samples,
            }
        })
        .collect();
    let mut out = reps.swap_remove(0);
    out.flows = flows;
    for r in reps {
        out.mean_active_conns += r.mean_active_conns;
        out.max_active_conns = out.max_active_conns.max(r.max_active_conns);
        out.bottleneck_data_packets += r.bottleneck_data_packets;
        out.drops += r.drops;
        out.retransmits += r.retransmits;
        out.timeouts += r.timeouts;
        if let (Some(a), Some(b)) = (&mut out.gtcp, r.gtcp) {
            *a += b;
        }
        if let (Some(a), Some(b)) = (&mut out.distance, r.distance) {
            a.identical &= b.identical;
            a.reference_bytes += b.reference_bytes;
            a.other_bytes += b.other_bytes;
            a.max_abs_diff_bytes = a.max_abs_diff_bytes.max(b.max_abs_diff_bytes);
            a.max_rel_diff = a.max_rel_diff.max(b.max_rel_diff);
            a.conn_rel_diff_mean += b.conn_rel_diff_mean;
            a.conn_rel_diff_max = a.conn_rel_diff_max.max(b.conn_rel_diff_max);
        }
        out.fingerprint ^= r.fingerprint.rotate_left(out.repeats as u32);
        out.repeats += r.repeats;
    }
    out.mean_active_conns /= n as f64;
    if let Some(d) = &mut out.distance {
        d.conn_rel_diff_mean /= n as f64;
    }
    out
}

fn empty() -> RunOut {
    RunOut {
        flows: Vec::new(),
        mean_active_conns: 0.0,
        max_active_conns: 0,
        bottleneck_data_packets: 0,
        drops: 0,
        retransmits: 0,
        timeouts: 0,
        gtcp: None,
        distance: None,
        fingerprint: 0,
        repeats: 0,
    }
}

/// Runs every configuration on every run's sample path, each `repeats` times under
/// independent perturbations, `threads` (run, repeat) pairs at a time. Returns
/// `[configuration][run]`, each flow averaged over the repeats
/// ([`merge`]). The runs go through [`Context::jobs`]: in a shard, every configuration's
/// runs are empty and the caller stops at [`Context::runs_done`] before reading them.
pub(crate) fn run_all(ctx: &Context, p: &Params, cfgs: &[Cfg]) -> anyhow::Result<Vec<Vec<RunOut>>> {
    let reps = p.repeats.max(1);
    // Each job is one (run, repeat) pair under every configuration; its flows travel beside
    // each configuration's outcome (a shard's raw results).
    let jobs = ctx.jobs(
        "runs x repeats (every configuration)",
        p.runs * reps,
        p.threads,
        |j| {
            let outs = run_one(p, j / reps, j % reps, cfgs)?;
            Ok(outs
                .into_iter()
                .map(|mut o| {
                    let flows = std::mem::take(&mut o.flows);
                    (o, flows)
                })
                .collect::<Vec<_>>())
        },
    )?;
    let jobs = jobs.into_iter().map(|outs| {
        outs.into_iter()
            .map(|(mut o, flows)| {
                o.flows = flows;
                o
            })
            .collect::<Vec<_>>()
    });
    // jobs[run * reps + rep][cfg] -> [cfg][run][rep]
    let mut by: Vec<Vec<Vec<RunOut>>> = vec![vec![Vec::with_capacity(reps); p.runs]; cfgs.len()];
    for (j, outs) in jobs.into_iter().enumerate() {
        for (k, o) in outs.into_iter().enumerate() {
            by[k][j / reps].push(o);
        }
    }
    Ok(by
        .into_iter()
        .map(|runs| runs.into_iter().map(merge).collect())
        .collect())
}

fn run_one(p: &Params, r: usize, rep: usize, cfgs: &[Cfg]) -> anyhow::Result<Vec<RunOut>> {
    let mut outs = Vec::with_capacity(cfgs.len());
    let mut reference: Option<Vec<sim::world::Injection>> = None;
    // When each flow finished under the reference tcp run (ns; u64::MAX: not finished).
    let mut tcp_finish: Option<Vec<u64>> = None;
    for cfg in cfgs {
        let mut sc = p.scenario_rep(r, rep, cfg);
        if cfg.oracle {
            sc.gtcp.fair_oracle = tcp_finish.clone();
            anyhow::ensure!(sc.gtcp.fair_oracle.is_some(), "the oracle runs after tcp");
        }
        let mut rep_out = sc
            .run()
            .with_context(|| format!("run {r}, repeat {rep}, {}", cfg.label))?;
        let log = rep_out.injections.take();
        let distance = match (&reference, &log) {
            (Some(a), Some(b)) => Some(injection_distance(a.as_slice(), b.as_slice())),
            _ => None,
        };
        if cfg.kind == DriverKind::Tcp && tcp_finish.is_none() {
            reference = log;
            tcp_finish = Some(
                rep_out
                    .flows
                    .iter()
                    .map(|f| f.delivered.unwrap_or(u64::MAX))
                    .collect(),
            );
        }
        let rep = &rep_out;
        outs.push(RunOut {
            flows: rep
                .flows
                .iter()
                .map(|f| {
                    let t = f.transfer().map(as_secs);
                    FlowOut {
                        size: f.size,
                        arrival_s: as_secs(f.arrival),
                        transfer_s: t,
                        reps: vec![t],
                    }
                })
                .collect(),
            mean_active_conns: rep.mean_active,
            max_active_conns: rep.max_active,
            bottleneck_data_packets: rep.bottleneck.tx_data_packets,
            drops: rep.bottleneck.drops,
            retransmits: rep.conns.iter().map(|c| c.retransmits).sum(),
            timeouts: rep.conns.iter().map(|c| c.timeouts).sum(),
            gtcp: rep.gtcp,
            distance,
            fingerprint: rep.fingerprint(),
            repeats: 1,
        });
    }
    Ok(outs)
}

/// Transfer times of the flows that completed under both `base` and `other`, pooled over
/// runs (same flows, same order); and the number of flows left out.
pub(crate) fn paired(base: &[RunOut], other: &[RunOut]) -> (Vec<f64>, Vec<f64>, usize) {
    let (mut a, mut b, mut left) = (Vec::new(), Vec::new(), 0);
    for (x, y) in base.iter().zip(other) {
        for (f, g) in x.flows.iter().zip(&y.flows) {
            match (f.transfer_s, g.transfer_s) {
                (Some(s), Some(t)) => {
                    a.push(s);
                    b.push(t);
                }
                _ => left += 1,
            }
        }
    }
    (a, b, left)
}

/// The paper's Table 2 statistics of `other` against `base`.
pub(crate) fn compare(p: &Params, base: &[RunOut], other: &[RunOut]) -> (Pairwise, usize) {
    let (a, b, left) = paired(base, other);
    (pairwise(&a, &b, p.tolerance()), left)
}

/// Time-weighted distribution of the number of active flows (arrived, not yet delivered)
/// over `[0, horizon_s)` of every run: `P(N = n)` for `n = 0, 1, ...`.
pub(crate) fn active_distribution(runs: &[RunOut], horizon_s: f64) -> Vec<f64> {
    let mut time_at = Vec::<f64>::new();
    let mut total = 0.0;
    for run in runs {
        let mut ev: Vec<(f64, i32)> = Vec::with_capacity(2 * run.flows.len());
        for f in &run.flows {
            if f.arrival_s >= horizon_s {
                continue;
            }
            ev.push((f.arrival_s, 1));
            let end = f.transfer_s.map_or(horizon_s, |t| f.arrival_s + t);
            if end < horizon_s {
                ev.push((end, -1));
            }
        }
        ev.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        let (mut t, mut n) = (0.0f64, 0i64);
        for (at, d) in ev {
            add(&mut time_at, n as usize, at - t);
            t = at;
            n += i64::from(d);
        }
        add(&mut time_at, n.max(0) as usize, horizon_s - t);
        total += horizon_s;
    }
    time_at
        .iter()
        .map(|x| x / total.max(f64::MIN_POSITIVE))
        .collect()
}

/// Time-average number of active flows (arrived, not yet delivered) in each of `batches`
/// equal windows of `[0, horizon_s)`, per run: `[run][batch]`. Batch means of one run are
/// the samples of a batch-means interval (they are correlated through flows that span
/// batches; with windows far longer than typical transfer times the correlation is small).
pub(crate) fn active_batch_means(runs: &[RunOut], horizon_s: f64, batches: usize) -> Vec<Vec<f64>> {
    let w = horizon_s / batches.max(1) as f64;
    runs.iter()
        .map(|run| {
            let mut area = vec![0.0; batches.max(1)];
            for f in &run.flows {
                let (a, b) = (
                    f.arrival_s,
                    f.transfer_s
                        .map_or(horizon_s, |t| f.arrival_s + t)
                        .min(horizon_s),
                );
                for (k, x) in area.iter_mut().enumerate() {
                    let (lo, hi) = (k as f64 * w, (k + 1) as f64 * w);
                    *x += (b.min(hi) - a.max(lo)).max(0.0);
                }
            }
            area.iter().map(|x| x / w).collect()
        })
        .collect()
}

fn add(v: &mut Vec<f64>, i: usize, dt: f64) {
    if v.len() <= i {
        v.resize(i + 1, 0.0);
    }
    v[i] += dt.max(0.0);
}

/// Completed transfer times of a configuration, pooled over runs.
pub(crate) fn transfers(runs: &[RunOut]) -> Vec<f64> {
    runs.iter()
        .flat_map(|r| r.flows.iter().filter_map(|f| f.transfer_s))
        .collect()
}

/// `q`-quantile (0..=1) of sorted data.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    sorted[i]
}

/// The path and workload, in words (for summaries).
pub(crate) fn describe(p: &Params) -> String {
    let sizes = match &p.workload.sizes {
        None => format!(
            "Workload of paper 000 Section 6.2: Poisson arrivals of λ = {lam:.3} flows/s, sizes \
`P(S > x) = (1 + cx)^(−α)` with α = {a}, c = {c:e} (mean {ms:.2} MB), load {load}.",
            lam = p.lambda(),
            a = p.workload.alpha,
            c = p.workload.c,
            ms = p.mean_size() / 1e6,
            load = p.workload.load,
        ),
        Some(d) => format!(
            "Workload: Poisson arrivals of λ = {lam:.3} flows/s, sizes in bytes {d} (mean \
{ms:.3} MB), load {load}.",
            d = crate::engine::run2c::model_sizes(d).map_or(format!("{d:?}"), |m| m.to_string()),
            lam = p.lambda(),
            ms = p.mean_size() / 1e6,
            load = p.workload.load,
        ),
    };
    format!(
        "One origin–destination pair over a dumbbell: a {cap:.0} MB/s ({mbps:.0} Mbit/s) \
bottleneck, {rtt:.0} ms round-trip propagation delay ({acc} ms access links at \
{arate:.0} Mbit/s on each side, {bd:.0} ms bottleneck), a {buf:.0} kB drop-tail buffer \
({bdp:.2} × the bandwidth-delay product). TCP {cc} ({sack}), MSS {mss} B, \
{hdr} B of headers, initial window {iw}, delayed ACKs {dack}, minimum RTO {rto:.0} ms. \
{sizes} {runs} independent runs (seeds {s0}–{s1}) with arrivals in [0, {dur} s) and {drain} s \
to drain; every configuration runs on the same sample paths. gtcp: chunks of {chunk} B, \
`TCP_NOTSENT_LOWAT` {lowat} B, per-flow window and send buffer {fw} MiB / {sb} MiB.",
        cap = p.path.capacity_bytes_per_s / 1e6,
        mbps = p.path.capacity_bytes_per_s * 8.0 / 1e6,
        rtt = p.path.rtt_ms,
        acc = p.path.access_delay_ms,
        arate = p.path.access_rate_bps as f64 / 1e6,
        bd = p.bottleneck_delay_ms(),
        buf = p.path.buffer_bytes as f64 / 1e3,
        bdp = p.path.buffer_bytes as f64 / p.bdp_bytes(),
        cc = match p.tcp.congestion_control {
            sim::tcp::CongestionControl::NewReno => "NewReno",
            sim::tcp::CongestionControl::Cubic => "CUBIC",
            sim::tcp::CongestionControl::Ledbat => "LEDBAT",
            sim::tcp::CongestionControl::TcpLp => "TCP-LP",
        },
        sack = if p.tcp.sack {
            "SACK, RFC 6675 recovery"
        } else {
            "no SACK"
        },
        mss = p.tcp.mss,
        hdr = p.tcp.header_bytes,
        iw = p.tcp.initial_window,
        dack = p
            .tcp
            .delayed_ack_ms
            .map_or("off".to_string(), |d| format!("on ({d} ms)")),
        rto = p.tcp.min_rto_ms,
        runs = p.runs,
        s0 = p.seed,
        s1 = p.seed + p.runs as u64 - 1,
        dur = p.duration_s,
        drain = p.drain_s,
        chunk = p.gtcp.core.chunk,
        lowat = p.gtcp.notsent_lowat,
        fw = p.gtcp.core.flow_window as f64 / 1048576.0,
        sb = p.gtcp.core.send_buffer as f64 / 1048576.0,
    )
}

/// A display name of a configuration for legends: `SRPT (schedtcp)`.
pub(crate) fn legend(cfg: &Cfg) -> String {
    let pol = cfg.policy.to_uppercase();
    match (cfg.kind, cfg.core_buffers) {
        (DriverKind::Tcp, _) if cfg.is_aa() => AA_LABEL.into(),
        (DriverKind::Tcp, _) => "tcp".into(),
        (DriverKind::Schedtcp, false) if cfg.policy == "tcp" => "schedtcp, tcp policy".into(),
        (DriverKind::Schedtcp, false) => pol,
        (DriverKind::Schedtcp, true) => format!("{pol} (core buffers)"),
        (DriverKind::GtcpIdeal, _) => format!("{pol} ideal"),
        (DriverKind::Mux, _) => "one multiplexed connection".into(),
    }
}
