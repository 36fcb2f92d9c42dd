//! Paper 004, Section IV in the packet-level simulator: what the `bg-fig5` … `bg-fig9`
//! experiments share — the linear topologies, the server policies, one run, the grid of
//! runs, and the normalisation by the vanilla policy with paired confidence intervals.
//!
//! Setup (Section IV-A): every link 10 Mbit/s with an 80 ms drop-tail buffer and 25 ms
//! propagation; Poisson arrivals; exponential sizes of mean 3 MB for short and background
//! flows alike. Short and long flows use the simulator's TCP (NewReno); background
//! micro-flows follow the policy: `vanilla` (TCP at once), `access-fixed` / `access-adaptive`
//! (the core's [`gtcp::admission::Admission`], plain TCP once admitted), `ledbat`,
//! `ledbat-60`, `tcp-lp` (at once, over the simulator-only LBE senders).

pub(crate) mod frontier;
pub(crate) mod goals;
pub(crate) mod setups;

use crate::check_param;
use crate::engine::mean_ci;
use crate::engine::verdict::Word;
use crate::Context;
use anyhow::anyhow;
use serde::{Deserialize, Serialize};
use sim::driver::background::BgStreamStats;
use sim::driver::{BackgroundDriver, BgPolicy, LongFlow, Stream, StreamKind};
use sim::queue::QueueConfig;
use sim::tcp::{CongestionControl, TcpConfig};
use sim::time::{as_secs, millis, secs};
use sim::topology::NetworkBuilder;
use sim::workload::{Poisson, SizeDist, SourcePick};
use sim::{Sim, World};

/// The line each figure's summary ends with: where its mechanisms are compared at equal
/// throughput.
pub(crate) const AT_EQUAL_CARRIED: &str =
    "\nAt equal carried fraction (each mechanism read against access control's frontier over M \
     and LEDBAT's over its target delay) and against each of the paper's claims, with every \
     contradiction listed: `results/bg-frontier/summary.md`.\n";

/// The policies, in plot order.
pub(crate) const POLICIES: [&str; 6] = [
    "vanilla",
    "access-fixed",
    "access-adaptive",
    "ledbat",
    "ledbat-60",
    "tcp-lp",
];

/// Scenario parameters shared by the Section IV experiments.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Params {
    /// Seed of repeat 0; repeat `r` uses `seed + r` (the same for every policy: paired).
    pub seed: u64,
    /// Independent repeats of every configuration.
    pub repeats: usize,
    /// Worker threads.
    pub threads: usize,
    /// Simulated seconds per run.
    pub duration_s: f64,
    /// Statistics start after this.
    pub warmup_s: f64,
    /// Short flows arriving in the last `tail_s` seconds are not measured (they could not
    /// finish).
    pub tail_s: f64,
    /// Short-flow loads ρ (per link).
    pub loads: Vec<f64>,
    /// Policies to run (a subset of `POLICIES`; `vanilla` is always run, it normalises).
    pub policies: Vec<String>,
    /// Link rate, bit/s.
    pub rate_bps: f64,
    /// Buffer of every link, ms at the link rate.
    pub buffer_ms: f64,
    /// Propagation delay of every link, ms.
    pub propagation_ms: f64,
    /// Mean flow size, bytes (short and background).
    pub mean_size_bytes: f64,
    /// Background arrival load of each class, bit/s.
    pub background_bps: f64,
    /// The Ms `access-fixed` runs with, one variant each; 0 stands for equation (27)'s
    /// critical M for the run's k and loads ([`critical_m`]).
    pub fixed_ms: Vec<u32>,
    /// `[adaptive]`: the adaptive loop of `access-adaptive`, the core's own parameters and
    /// keys ([`crate::scenario::adaptive_table`]); absent keys take the core's defaults.
    #[serde(default, deserialize_with = "crate::scenario::deserialize_adaptive")]
    pub adaptive: gtcp::admission::Adaptive,
    /// The simulated TCP.
    pub tcp: TcpConfig,
}

impl Params {
    pub fn load(ctx: &Context) -> anyhow::Result<Self> {
        let mut p: Params = ctx.params()?;
        p.seed = ctx.seed(p.seed);
        p.checked()
    }

    /// The parameters if every one is in range (vanilla added to the policies if missing).
    pub fn checked(self) -> anyhow::Result<Self> {
        let mut p = self;
        check_param!(p.repeats >= 1, "repeats must be >= 1");
        check_param!(p.threads >= 1, "threads must be >= 1");
        check_param!(
            p.warmup_s >= 0.0 && p.tail_s >= 0.0 && p.duration_s > p.warmup_s + p.tail_s,
            "need duration_s > warmup_s + tail_s >= 0"
        );
        check_param!(
            p.loads.iter().all(|r| (0.0..1.0).contains(r)),
            "loads must be in [0, 1)"
        );
        for pol in &p.policies {
            check_param!(POLICIES.contains(&pol.as_str()), "unknown policy {pol}");
        }
        if !p.policies.iter().any(|x| x == "vanilla") {
            p.policies.insert(0, "vanilla".into());
        }
        check_param!(
            p.rate_bps > 0.0 && p.buffer_ms > 0.0 && p.propagation_ms >= 0.0,
            "rate_bps and buffer_ms must be > 0"
        );
        check_param!(
            p.mean_size_bytes >= 1.0 && p.background_bps > 0.0,
            "mean_size_bytes and background_bps must be positive"
        );
        check_param!(
            !p.fixed_ms.is_empty() && p.fixed_ms.iter().all(|&m| m <= 1024),
            "fixed_ms must list Ms in 0..=1024 (0: equation (27)'s critical M)"
        );
        p.tcp
            .params()
            .map_err(|e| anyhow!("invalid scenario parameter: {e}"))?;
        Ok(p)
    }
}

/// A stream of flows between two nodes of the chain (`from < to`: it crosses links
/// `from+1 ..= to`, numbered from 1 as the paper's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StreamDef {
    pub kind: StreamKind,
    pub from: u32,
    pub to: u32,
    /// Arrival load, bit/s.
    pub bps: f64,
    /// Label in outputs (the paper's route name).
    pub route: &'static str,
}

/// One configuration's network: a chain of `links` links, its streams and long flows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Setup {
    pub links: u32,
    pub streams: Vec<StreamDef>,
    /// Long flows `(from, to)`.
    pub long: Vec<(u32, u32)>,
}

/// What one run measured.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct RunOut {
    /// Short flows measured: (stream index, size bytes, delay seconds); unfinished flows
    /// count with their time in the system at the end (censored).
    pub short: Vec<(usize, u64, f64)>,
    /// Short flows still unfinished at the end (among the measured).
    pub censored: usize,
    /// Per background stream: mean number of active micro-flows (open connections).
    pub bg_active: Vec<f64>,
    /// Per background stream: mean number present (active + waiting).
    pub bg_present: Vec<f64>,
    /// Per background stream: acknowledged background bits per second.
    pub bg_rate_bps: Vec<f64>,
    /// Per background stream: bits per second of the micro-flows that arrived.
    pub bg_arrived_bps: Vec<f64>,
    /// Per background stream: time-average of M (access control), else NaN.
    pub mean_m: Vec<f64>,
    /// Per background stream (adaptive access control): saturations after the warm-up, and
    /// the fraction of ticks after it with the overload check engaged.
    pub saturations: Vec<u64>,
    pub engaged: Vec<f64>,
    /// Background flows refused by a full waiting queue.
    pub refused: u64,
    /// Per background stream: its backlog, bytes arrived and not yet acknowledged (waiting
    /// flows' whole size, active flows' rest), at the end of the warm-up and at the end of
    /// the run. The goodput falls short of the arrivals by exactly their difference.
    pub bg_backlog_warm: Vec<f64>,
    pub bg_backlog_end: Vec<f64>,
    /// Per background stream (access control): the controller's mean estimate of the
    /// arrival load after the warm-up, bits per second (NaN if none).
    pub load_estimate_bps: Vec<f64>,
    /// After the warm-up, on the forward link that most payload arrived for (the same link
    /// under every policy, the arrivals being the same): its wire utilisation (all bytes
    /// sent, headers and retransmissions included, over its capacity).
    pub link_busy: f64,
    /// On that link after the warm-up: the payload load that arrived (short and background
    /// flows crossing it) and the payload acknowledged, both over the link's rate.
    pub link_offered: f64,
    pub link_carried: f64,
    /// On that link: data packets dropped over data packets offered to it.
    pub link_loss: f64,
}

impl RunOut {
    pub fn mean_delay(&self, stream: Option<usize>) -> f64 {
        let v: Vec<f64> = self
            .short
            .iter()
            .filter(|s| stream.is_none_or(|i| s.0 == i))
            .map(|s| s.2)
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    }
}

/// The least integer M strictly above equation (27)'s critical value: ρ_b / (1 − ρ) =
/// M / (k + M), so M* = k ρ_b / (1 − ρ − ρ_b) (at M* itself the backlog is only critically
/// stable); with k = 0, M* = 0 and the least is 1.
pub(crate) fn critical_m(k: usize, rho: f64, rho_b: f64) -> u32 {
    let free = 1.0 - rho - rho_b;
    if k == 0 {
        return 1;
    }
    if free <= 0.0 {
        return 64;
    }
    // M* within rounding of an integer is that integer (1 − 0.6 − 0.3 is not 0.1 in binary).
    let m = k as f64 * rho_b / free;
    let m = if (m - m.round()).abs() < 1e-9 {
        m.round()
    } else {
        m
    };
    (m.floor() as u32 + 1).clamp(1, 64)
}

pub(crate) fn policy(p: &Params, name: &str, fixed_m: u32) -> anyhow::Result<BgPolicy> {
    use gtcp::admission::{AdmissionConfig, Limit};
    let access = |limit| {
        BgPolicy::Access(AdmissionConfig {
            limit,
            ..AdmissionConfig::default()
        })
    };
    Ok(match name {
        "vanilla" => BgPolicy::Vanilla,
        "access-fixed" => access(Limit::Fixed(fixed_m)),
        "access-adaptive" => access(Limit::Adaptive(p.adaptive)),
        "ledbat" | "ledbat-60" => BgPolicy::Lbe {
            cc: CongestionControl::Ledbat,
            ledbat_target: millis(if name == "ledbat" { 25.0 } else { 60.0 }),
        },
        "tcp-lp" => BgPolicy::Lbe {
            cc: CongestionControl::TcpLp,
            ledbat_target: millis(25.0),
        },
        other => return Err(anyhow!("unknown policy {other}")),
    })
}

/// One run of `setup` under `policy_name` with `seed`.
pub(crate) fn run_one(
    p: &Params,
    setup: &Setup,
    policy_name: &str,
    fixed_m: u32,
    seed: u64,
) -> anyhow::Result<RunOut> {
    run_policy(p, setup, policy(p, policy_name, fixed_m)?, seed)
}

/// One run of `setup` with the background under `bg` and `seed`.
pub(crate) fn run_policy(
    p: &Params,
    setup: &Setup,
    bg: BgPolicy,
    seed: u64,
) -> anyhow::Result<RunOut> {
    let stop = secs(p.duration_s);
    let mut s = build(p, setup, bg, seed)?;
    let warm = secs(p.warmup_s);
    s.run_until(warm);
    s.driver.settle(warm);
    let at_warm = s.driver.bg_stats.clone();
    // Bytes arrived per background stream by the warm-up (their acknowledged part is in
    // `at_warm`).
    let arrived_by_warm: Vec<u64> = (0..setup.streams.len())
        .map(|i| {
            s.driver
                .background
                .iter()
                .filter(|r| r.stream as usize == i && !r.refused)
                .map(|r| r.size)
                .sum()
        })
        .collect();
    let tx_warm: Vec<(u64, u64, u64)> = s
        .world
        .net
        .links
        .iter()
        .map(|l| {
            (
                l.stats.tx_bytes,
                l.stats.tx_data_packets,
                l.stats.data_drops,
            )
        })
        .collect();
    s.run_until(stop);
    s.driver.settle(stop);
    let span = p.duration_s - p.warmup_s;
    let measure_end = secs(p.duration_s - p.tail_s);
    let mut out = RunOut::default();
    let most_loaded = most_loaded_link(&s, setup, &tx_warm, &at_warm, warm, span);
    if let Some((busy, loss, offered, carried)) = most_loaded {
        out.link_busy = busy;
        out.link_loss = loss;
        out.link_offered = offered;
        out.link_carried = carried;
    }
    for f in &s.driver.short {
        if f.arrival < warm || f.arrival >= measure_end {
            continue;
        }
        let end = f.finished.unwrap_or_else(|| {
            out.censored += 1;
            stop
        });
        out.short
            .push((f.source as usize, f.size, as_secs(end - f.arrival)));
    }
    background_streams(&mut out, &s, setup, &at_warm, &arrived_by_warm, warm, span);
    out.refused = s.driver.background.iter().filter(|r| r.refused).count() as u64;
    Ok(out)
}

/// The simulation of one run: the chain of links, the streams' Poisson sources (seeded from
/// `seed`), the long flows and the background policy.
fn build(
    p: &Params,
    setup: &Setup,
    bg: BgPolicy,
    seed: u64,
) -> anyhow::Result<Sim<BackgroundDriver>> {
    let mut b = NetworkBuilder::new();
    let nodes: Vec<u32> = (0..=setup.links).map(|_| b.add_node()).collect();
    let buffer = (p.rate_bps * p.buffer_ms / 8e3).round() as u64;
    let prop = millis(p.propagation_ms);
    for w in nodes.windows(2) {
        let q = QueueConfig::DropTailBytes { limit: buffer }.build();
        b.add_link(w[0], w[1], p.rate_bps as u64, prop, q);
        // The reverse direction carries only ACKs here: the same link, a buffer that
        // never drops them.
        b.add_link(
            w[1],
            w[0],
            p.rate_bps as u64,
            prop,
            QueueConfig::Unlimited.build(),
        );
    }
    let net = b.build();
    let tcp = p
        .tcp
        .params()
        .map_err(|e| anyhow!("invalid tcp parameters: {e}"))?;
    let stop = secs(p.duration_s);
    let streams = setup
        .streams
        .iter()
        .enumerate()
        .map(|(i, s)| Stream {
            kind: s.kind,
            src: nodes[s.from as usize],
            dst: nodes[s.to as usize],
            source: Box::new(Poisson::new(
                seed.wrapping_mul(1_000_003).wrapping_add(i as u64),
                s.bps / 8.0 / p.mean_size_bytes,
                SizeDist::Exponential {
                    mean: p.mean_size_bytes,
                },
                1,
                1,
                SourcePick::Random,
                stop,
                None,
            )) as Box<dyn sim::workload::FlowSource>,
        })
        .collect();
    let long = setup
        .long
        .iter()
        .map(|&(f, t)| LongFlow {
            src: nodes[f as usize],
            dst: nodes[t as usize],
            start: 0,
            cc: tcp.cc,
            ledbat_target: tcp.ledbat_target,
        })
        .collect();
    let driver =
        BackgroundDriver::new(bg, streams, long).map_err(|e| anyhow!("access control: {e}"))?;
    Ok(Sim::new(World::new(net, tcp), driver))
}

/// After the warm-up, on the forward link that most payload arrived for: its wire
/// utilisation, data loss, and the payload offered and carried, over its rate.
/// Forward links are the even ones (each is followed by its ACK-only reverse); link `j`
/// (from 0) joins nodes j and j + 1.
fn most_loaded_link(
    s: &Sim<BackgroundDriver>,
    setup: &Setup,
    tx_warm: &[(u64, u64, u64)],
    at_warm: &[BgStreamStats],
    warm: u64,
    span: f64,
) -> Option<(f64, f64, f64, f64)> {
    (0..setup.links as usize)
        .map(|j| {
            let l = &s.world.net.links[2 * j];
            let (tx, data, drops) = tx_warm[2 * j];
            let busy = (l.stats.tx_bytes - tx) as f64 * 8.0 / (l.rate_bps as f64 * span);
            let loss = (l.stats.data_drops - drops) as f64
                / (l.stats.tx_data_packets - data + l.stats.data_drops - drops).max(1) as f64;
            let crossing = |sd: &StreamDef| sd.from as usize <= j && j < sd.to as usize;
            let mut offered = 0.0;
            let mut carried = 0.0;
            for (i, sd) in setup
                .streams
                .iter()
                .enumerate()
                .filter(|(_, sd)| crossing(sd))
            {
                carried += (s.driver.bg_stats[i].acked_bytes - at_warm[i].acked_bytes) as f64;
                offered += match sd.kind {
                    StreamKind::Short => s
                        .driver
                        .short
                        .iter()
                        .filter(|f| f.source as usize == i && f.arrival >= warm)
                        .map(|f| f.size as f64)
                        .sum::<f64>(),
                    StreamKind::Background => s
                        .driver
                        .background
                        .iter()
                        .filter(|r| r.stream as usize == i && r.arrival >= warm)
                        .map(|r| r.size as f64)
                        .sum::<f64>(),
                };
            }
            let norm = 8.0 / (l.rate_bps as f64 * span);
            (busy, loss, offered * norm, carried * norm)
        })
        .max_by(|a, b| a.2.total_cmp(&b.2))
}

/// Per background stream after the warm-up: active and present micro-flows, goodput and
/// arrivals, backlogs, the controller's load estimate, mean M, saturations, engagement.
fn background_streams(
    out: &mut RunOut,
    s: &Sim<BackgroundDriver>,
    setup: &Setup,
    at_warm: &[BgStreamStats],
    arrived_by_warm: &[u64],
    warm: u64,
    span: f64,
) {
    for (i, sd) in setup.streams.iter().enumerate() {
        if sd.kind != StreamKind::Background {
            continue;
        }
        let (a, b) = (&s.driver.bg_stats[i], &at_warm[i]);
        out.bg_active.push((a.active_area - b.active_area) / span);
        out.bg_present
            .push((a.present_area - b.present_area) / span);
        out.bg_rate_bps
            .push((a.acked_bytes - b.acked_bytes) as f64 * 8.0 / span);
        let arrived: u64 = s
            .driver
            .background
            .iter()
            .filter(|r| r.stream as usize == i && r.arrival >= warm)
            .map(|r| r.size)
            .sum();
        out.bg_arrived_bps.push(arrived as f64 * 8.0 / span);
        let arrived_all: u64 = s
            .driver
            .background
            .iter()
            .filter(|r| r.stream as usize == i && !r.refused)
            .map(|r| r.size)
            .sum();
        out.bg_backlog_warm
            .push(arrived_by_warm[i] as f64 - b.acked_bytes as f64);
        out.bg_backlog_end
            .push(arrived_all as f64 - a.acked_bytes as f64);
        let samples: Vec<_> = s
            .driver
            .limit_samples
            .iter()
            .filter(|x| x.stream as usize == i && x.at >= warm)
            .collect();
        let est: Vec<f64> = samples.iter().filter_map(|x| x.load_estimate).collect();
        out.load_estimate_bps.push(mean(&est) * 8.0);
        let ms: Vec<f64> = samples.iter().map(|x| x.m as f64).collect();
        out.mean_m.push(if ms.is_empty() {
            f64::NAN
        } else {
            ms.iter().sum::<f64>() / ms.len() as f64
        });
        let sat = |x: Option<&&sim::driver::LimitSample>| x.map_or(0, |x| x.saturations);
        out.saturations
            .push(sat(samples.last()) - sat(samples.first()));
        out.engaged.push(if samples.is_empty() {
            f64::NAN
        } else {
            samples.iter().filter(|x| x.engaged).count() as f64 / samples.len() as f64
        });
    }
}

/// A job of the grid: a setup, a policy, a repeat.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub setup: Setup,
    pub policy: String,
    pub fixed_m: u32,
    pub repeat: usize,
}

/// Runs `jobs` on `p.threads` threads; results in job order (through [`Context::jobs`]:
/// empty in a shard).
pub(crate) fn run_jobs(ctx: &Context, p: &Params, jobs: &[Job]) -> anyhow::Result<Vec<RunOut>> {
    ctx.jobs("runs", jobs.len(), p.threads, |j| {
        let job = &jobs[j];
        run_one(
            p,
            &job.setup,
            &job.policy,
            job.fixed_m,
            p.seed + job.repeat as u64,
        )
    })
}

/// A ratio to vanilla, paired by repeat: mean and 95% half-width over the repeats.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Ratio {
    pub mean: f64,
    pub ci95: f64,
}

impl Ratio {
    pub fn of(pairs: impl Iterator<Item = (f64, f64)>) -> Self {
        let v: Vec<f64> = pairs
            .filter(|(_, d)| *d > 0.0)
            .map(|(x, d)| x / d)
            .collect();
        let (mean, ci95) = mean_ci(&v);
        Ratio { mean, ci95 }
    }

    pub fn show(&self) -> String {
        if self.ci95.is_finite() {
            format!("{:.3} ± {:.3}", self.mean, self.ci95)
        } else {
            format!("{:.3}", self.mean)
        }
    }
}

/// Mean of `v` (NaN if empty).
pub(crate) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// One row of a normalised comparison: a group (e.g. k or a route), a load, a policy.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Row {
    pub group: String,
    pub rho: f64,
    pub policy: String,
    /// The policy with its fixed M, if any (`access-fixed M=4`; `(27)` marks equation
    /// (27)'s critical M).
    pub label: String,
    /// M of `access-fixed` (0 otherwise).
    pub fixed_m: u32,
    pub repeats: usize,
    /// Mean short-flow delay, seconds (mean over repeats).
    pub delay_s: f64,
    /// Delay / vanilla's delay on the same sample path.
    pub norm_delay: f64,
    pub norm_delay_ci95: f64,
    /// Mean active background micro-flows (all classes).
    pub active: f64,
    pub norm_active: f64,
    pub norm_active_ci95: f64,
    /// Mean background micro-flows present (active + waiting).
    pub present: f64,
    /// Background goodput over the classes' nominal arrival load.
    pub bg_throughput_ratio: f64,
    /// Background goodput over the load that actually arrived in the run.
    pub bg_throughput_vs_arrived: f64,
    /// The 95% interval of that ratio over the repeats (Student's t on each repeat's goodput
    /// over its arrivals), and the lowest repeat's: one run's start can hold the class back
    /// far more than the mean shows (`results/bg-fig5/start-ab-session15/`).
    pub bg_vs_arrived_ci95: f64,
    pub bg_vs_arrived_worst: f64,
    /// Whether the mean ratio is within 5% of 1: the class carries what its arrival load asks
    /// ([`bg_flag`] says whether the interval is too).
    pub bg_within_5pct: bool,
    /// Mean M (access control), summed over the background classes: the slots in total.
    pub mean_m: f64,
    /// Saturations after the warm-up per run, and the fraction of time the overload check
    /// was engaged (adaptive access control; mean over repeats and classes).
    pub saturations: f64,
    pub engaged: f64,
    /// Short flows unfinished at the end (censored), summed over repeats.
    pub censored: usize,
    /// Background flows refused, summed over repeats.
    pub refused: u64,
    /// Background backlog (bytes arrived, not yet acknowledged) at the end of the warm-up
    /// and at the end of the run, MB, summed over classes, mean over repeats: goodput =
    /// arrived − (end − warm-up).
    pub backlog_warm_mb: f64,
    pub backlog_end_mb: f64,
    /// The access controller's mean arrival-load estimate over the load that arrived (NaN
    /// without a controller).
    pub load_estimate_vs_arrived: f64,
    /// The most loaded forward link's wire utilisation after the warm-up, mean over repeats.
    pub link_busy: f64,
    /// On that link: payload load offered and carried (over its rate), data packet loss.
    pub link_offered: f64,
    pub link_carried: f64,
    pub link_loss: f64,
}

/// A group of setups sharing a label: `(label, k, [(ρ, setup)])`.
pub(crate) type Group = (String, usize, Vec<(f64, Setup)>);

/// A variant of a setup: the policy, its fixed M (0 if none), its label.
pub(crate) type Variant = (String, u32, String);

/// What [`normalised_grid`] ran: the normalised rows and, per setup (groups' setups in
/// order), its variants and their runs.
pub(crate) struct Grid {
    pub rows: Vec<Row>,
    pub variants: Vec<Vec<Variant>>,
    pub outs: Vec<RunOut>,
    pub repeats: usize,
}

impl Grid {
    /// The runs (one per repeat) of setup `setup`'s variant `variant`.
    pub fn runs(&self, setup: usize, variant: usize) -> &[RunOut] {
        let start: usize = self.variants[..setup]
            .iter()
            .map(|v| v.len() * self.repeats)
            .sum::<usize>()
            + variant * self.repeats;
        &self.outs[start..start + self.repeats]
    }
}

/// Runs every group × load × variant × repeat and normalises by vanilla (the first
/// variant). `stream` selects the short streams whose delay counts (`None`: all).
pub(crate) fn normalised_grid(
    ctx: &Context,
    p: &Params,
    groups: &[Group],
    stream: Option<usize>,
) -> anyhow::Result<Grid> {
    let mut jobs = Vec::new();
    // Per setup, in order: its variants (policy, fixed M, label).
    let mut variants_of: Vec<Vec<Variant>> = Vec::new();
    for (_, k, setups) in groups {
        for (rho, setup) in setups {
            let variants = variants(p, *k, *rho, setup);
            for (policy, fixed_m, _) in &variants {
                for repeat in 0..p.repeats {
                    jobs.push(Job {
                        setup: setup.clone(),
                        policy: policy.clone(),
                        fixed_m: (*fixed_m).max(1),
                        repeat,
                    });
                }
            }
            variants_of.push(variants);
        }
    }
    let outs = run_jobs(ctx, p, &jobs)?;
    ctx.runs_done()?;
    let mut rows = Vec::new();
    let mut i = 0;
    let mut setup_index = 0;
    for (label, _, setups) in groups {
        for (rho, setup) in setups {
            let variants = &variants_of[setup_index];
            setup_index += 1;
            let nominal: f64 = setup
                .streams
                .iter()
                .filter(|s| s.kind == StreamKind::Background)
                .map(|s| s.bps)
                .sum();
            let per_variant: Vec<&[RunOut]> = (0..variants.len())
                .map(|k| &outs[i + k * p.repeats..i + (k + 1) * p.repeats])
                .collect();
            let vanilla = per_variant[0];
            for (k, (policy, fixed_m, variant)) in variants.iter().enumerate() {
                let runs = per_variant[k];
                rows.push(row(
                    (label, *rho),
                    (policy, *fixed_m, variant),
                    runs,
                    vanilla,
                    nominal,
                    stream,
                ));
            }
            i += variants.len() * p.repeats;
        }
    }
    Ok(Grid {
        rows,
        variants: variants_of,
        outs,
        repeats: p.repeats,
    })
}

/// The variants of a setup of `k` long flows at short-flow load `rho`, in order: each
/// policy once, `access-fixed` once per fixed M (0 and the critical M of equation (27) both
/// standing for the critical M, marked).
fn variants(p: &Params, k: usize, rho: f64, setup: &Setup) -> Vec<Variant> {
    let rho_b: f64 = setup
        .streams
        .iter()
        .filter(|s| s.kind == StreamKind::Background)
        .map(|s| s.bps)
        .fold(0.0, f64::max)
        / p.rate_bps;
    let critical = critical_m(k, rho, rho_b);
    let mut variants: Vec<Variant> = Vec::new();
    for policy in &p.policies {
        if policy != "access-fixed" {
            variants.push((policy.clone(), 0, policy.clone()));
            continue;
        }
        for &m in &p.fixed_ms {
            let (m, mark) = if m == 0 || m == critical {
                (critical, " (27)")
            } else {
                (m, "")
            };
            if !variants.iter().any(|v| v.0 == *policy && v.1 == m) {
                variants.push((policy.clone(), m, format!("{policy} M={m}{mark}")));
            }
        }
    }
    variants
}

/// One row of the grid: a variant's runs, normalised by vanilla's of the same seeds.
fn row(
    (group, rho): (&String, f64),
    (policy, fixed_m, variant): (&String, u32, &String),
    runs: &[RunOut],
    vanilla: &[RunOut],
    nominal: f64,
    stream: Option<usize>,
) -> Row {
    let delay = |r: &RunOut| r.mean_delay(stream);
    let active = |r: &RunOut| r.bg_active.iter().sum::<f64>();
    let nd = Ratio::of(runs.iter().zip(vanilla).map(|(r, v)| (delay(r), delay(v))));
    let na = Ratio::of(
        runs.iter()
            .zip(vanilla)
            .map(|(r, v)| (active(r), active(v))),
    );
    let rate: Vec<f64> = runs.iter().map(|r| r.bg_rate_bps.iter().sum()).collect();
    let arrived: Vec<f64> = runs.iter().map(|r| r.bg_arrived_bps.iter().sum()).collect();
    let vs_arrived = mean(&rate) / mean(&arrived);
    let per_repeat: Vec<f64> = rate
        .iter()
        .zip(&arrived)
        .filter(|(_, a)| **a > 0.0)
        .map(|(r, a)| r / a)
        .collect();
    let (_, vs_arrived_ci95) = mean_ci(&per_repeat);
    Row {
        group: group.clone(),
        rho,
        policy: policy.clone(),
        label: variant.clone(),
        fixed_m,
        repeats: runs.len(),
        delay_s: mean(&runs.iter().map(delay).collect::<Vec<_>>()),
        norm_delay: nd.mean,
        norm_delay_ci95: nd.ci95,
        active: mean(&runs.iter().map(active).collect::<Vec<_>>()),
        norm_active: na.mean,
        norm_active_ci95: na.ci95,
        present: mean(
            &runs
                .iter()
                .map(|r| r.bg_present.iter().sum::<f64>())
                .collect::<Vec<_>>(),
        ),
        bg_throughput_ratio: mean(&rate) / nominal,
        bg_throughput_vs_arrived: vs_arrived,
        bg_vs_arrived_ci95: vs_arrived_ci95,
        bg_vs_arrived_worst: per_repeat.iter().copied().fold(f64::NAN, f64::min),
        bg_within_5pct: (0.95..=1.05).contains(&vs_arrived),
        mean_m: mean(
            &runs
                .iter()
                .map(|r| r.mean_m.iter().sum::<f64>())
                .filter(|m| m.is_finite())
                .collect::<Vec<_>>(),
        ),
        saturations: mean(
            &runs
                .iter()
                .map(|r| r.saturations.iter().sum::<u64>() as f64)
                .collect::<Vec<_>>(),
        ),
        engaged: mean(
            &runs
                .iter()
                .flat_map(|r| r.engaged.iter().copied())
                .filter(|e| e.is_finite())
                .collect::<Vec<_>>(),
        ),
        censored: runs.iter().map(|r| r.censored).sum(),
        refused: runs.iter().map(|r| r.refused).sum(),
        backlog_warm_mb: mean(
            &runs
                .iter()
                .map(|r| r.bg_backlog_warm.iter().sum::<f64>() / 1e6)
                .collect::<Vec<_>>(),
        ),
        backlog_end_mb: mean(
            &runs
                .iter()
                .map(|r| r.bg_backlog_end.iter().sum::<f64>() / 1e6)
                .collect::<Vec<_>>(),
        ),
        load_estimate_vs_arrived: mean(
            &runs
                .iter()
                .map(|r| r.load_estimate_bps.iter().sum::<f64>())
                .collect::<Vec<_>>(),
        ) / mean(&arrived),
        link_busy: mean(&runs.iter().map(|r| r.link_busy).collect::<Vec<_>>()),
        link_offered: mean(&runs.iter().map(|r| r.link_offered).collect::<Vec<_>>()),
        link_carried: mean(&runs.iter().map(|r| r.link_carried).collect::<Vec<_>>()),
        link_loss: mean(&runs.iter().map(|r| r.link_loss).collect::<Vec<_>>()),
    }
}

/// One plot per group of `rows`: `y(row)` against ρ, a line per policy.
pub(crate) fn plot_rows(
    ctx: &Context,
    rows: &[Row],
    group: &str,
    file: &str,
    title: &str,
    y_label: &str,
    y: impl Fn(&Row) -> f64,
) -> anyhow::Result<()> {
    use crate::plot::{render_svg, LinePlot, Series};
    let mut series = Vec::new();
    for label in labels(rows) {
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.group == group && series_label(r) == label)
            .map(|r| (r.rho, y(r)))
            .collect();
        if !pts.is_empty() {
            series.push(Series::line(&label, pts));
        }
    }
    render_svg(
        &LinePlot {
            title: title.into(),
            x_label: "short-flow load ρ".into(),
            y_label: y_label.into(),
            series,
            ..Default::default()
        },
        &ctx.path(file),
    )
}

/// The variants of `rows` (policy and fixed M), in order of first appearance; `access-fixed`
/// with equation (27)'s M is one label whatever that M is at each load.
pub(crate) fn labels(rows: &[Row]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rows {
        let l = series_label(r);
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// A row's line in plots: its label, except that equation (27)'s M, which varies with the
/// load, is one line.
pub(crate) fn series_label(r: &Row) -> String {
    if r.label.ends_with("(27)") {
        format!("{} M=(27)", r.policy)
    } else {
        r.label.clone()
    }
}

/// The two table cells of a ratio to a baseline: `mean ± ci95` and its verdict against 1
/// (`below` / `above` beyond the interval), or "–" for the baseline itself.
pub(crate) fn ratio_cells(
    mean: f64,
    ci95: f64,
    baseline: bool,
    below: &str,
    above: &str,
) -> [String; 2] {
    [
        Ratio { mean, ci95 }.show(),
        if baseline {
            "–".into()
        } else {
            crate::engine::verdict(mean - 1.0, ci95, below, above)
        },
    ]
}

/// [`ratio_cells`] of a delay normalised by vanilla's ("lower" / "higher than vanilla").
pub(crate) fn vs_vanilla_cells(mean: f64, ci95: f64, vanilla: bool) -> [String; 2] {
    ratio_cells(
        mean,
        ci95,
        vanilla,
        "lower than vanilla",
        "higher than vanilla",
    )
}

/// Whether the links were overloaded at a load: with every background flow admitted at once
/// (vanilla), the most loaded link carried less than 98% of the payload that arrived for it (after
/// the warm-up), so that some class's backlog grew whatever the policy.
pub(crate) fn overloaded(vanilla: &Row) -> bool {
    vanilla.link_carried < 0.98 * vanilla.link_offered
}

/// The background's goodput over its arrivals, with its interval over the repeats, the worst
/// repeat, and its verdict against the goal (within 5% of the load, [`goals::carried_verdict`]):
/// nothing added when met, the word otherwise with the mean's side.
pub(crate) fn bg_flag(r: &Row) -> String {
    let (m, ci) = (r.bg_throughput_vs_arrived, r.bg_vs_arrived_ci95);
    let spread = if ci.is_finite() {
        format!(" ± {ci:.3} (worst repeat {:.3})", r.bg_vs_arrived_worst)
    } else {
        String::new()
    };
    let verdict = match goals::carried_verdict(r).word {
        Word::Met => "",
        Word::NotMet => " **NOT within 5%**",
        _ if r.bg_within_5pct => " (**undecided**: within 5% on the mean, not beyond the interval)",
        _ => " (**undecided**: not within 5% on the mean, nor beyond the interval)",
    };
    format!("{m:.3}{spread}{verdict}")
}

/// The goal "background throughput within 5% of what the arrival load asks" for one
/// access-control variant's `rows`, split by load. Where the links are not [`overloaded`]
/// (judged on vanilla's row of the same group and load in `all`) the goal holds when every
/// such row is within 5% over its whole interval ([`bg_within_interval`]). Where they are, no
/// policy carries every class's load, and access control leaves the shortfall to the
/// background's backlog rather than to the short flows (paper 004, Section IV: it "leaves
/// flows outside of the network when congested"): those rows are listed beside vanilla's.
pub(crate) fn carried_goal(all: &[Row], rows: &[&Row]) -> String {
    let g = carried_check(all, rows);
    let mut s = match g.met() {
        None => "no load here is free of overload".to_string(),
        Some(Word::Met) => format!(
            "met: within 5%, beyond the interval, at every load that is not overloaded ({} of {})",
            g.feasible.len(),
            rows.len()
        ),
        Some(w) => format!(
            "{}: not within 5%, beyond the interval, at every load that is not overloaded: {}",
            if w == Word::NotMet {
                "NOT met"
            } else {
                "undecided"
            },
            g.short
                .iter()
                .map(|r| format!("{}, ρ = {:.2}: {}", r.group, r.rho, bg_flag(r)))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    };
    if !g.over.is_empty() {
        s.push_str(&format!(
            "; overloaded (under vanilla the most loaded link carried less than 98% of the \
             payload that arrived for it): {}",
            g.over
                .iter()
                .map(|r| format!(
                    "{}, ρ = {:.2}: {:.3} (vanilla {:.3})",
                    r.group,
                    r.rho,
                    r.bg_throughput_vs_arrived,
                    vanilla_of(all, r).map_or(f64::NAN, |v| v.bg_throughput_vs_arrived)
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    s
}

/// Vanilla's row of `r`'s group and load.
fn vanilla_of<'a>(all: &'a [Row], r: &Row) -> Option<&'a Row> {
    all.iter()
        .find(|v| v.policy == "vanilla" && v.group == r.group && (v.rho - r.rho).abs() < 1e-9)
}

/// The goal "background carried within 5%" over `rows`, split by load.
pub(crate) struct CarriedGoal<'a> {
    /// Rows whose load overloads the links under vanilla (not judged).
    pub over: Vec<&'a Row>,
    /// Rows judged.
    pub feasible: Vec<&'a Row>,
    /// Judged rows not within 5% over their interval.
    pub short: Vec<&'a Row>,
}

impl CarriedGoal<'_> {
    /// The goal over every judged row ([`Word::all_met`] of their verdicts), or nothing to
    /// judge.
    pub fn met(&self) -> Option<Word> {
        (!self.feasible.is_empty())
            .then(|| Word::all_met(self.feasible.iter().map(|r| goals::carried_verdict(r).word)))
    }
}

/// [`CarriedGoal`] of `rows` (vanilla's rows of the same group and load in `all`).
pub(crate) fn carried_check<'a>(all: &[Row], rows: &[&'a Row]) -> CarriedGoal<'a> {
    let (over, feasible): (Vec<&Row>, Vec<&Row>) = rows
        .iter()
        .partition(|r| vanilla_of(all, r).is_some_and(overloaded));
    let short = feasible
        .iter()
        .copied()
        .filter(|r| !bg_within_interval(r))
        .collect();
    CarriedGoal {
        over,
        feasible,
        short,
    }
}

/// One line of [`carried_goal`] per access-control variant of `rows`.
pub(crate) fn carried_goal_lines(rows: &[Row]) -> String {
    let mut s = String::new();
    for policy in labels(rows).iter().filter(|l| l.starts_with("access")) {
        let rs: Vec<&Row> = rows.iter().filter(|r| series_label(r) == *policy).collect();
        if !rs.is_empty() {
            s.push_str(&format!(
                "- background goodput / arrived load, {policy}: {}\n",
                carried_goal(rows, &rs)
            ));
        }
    }
    s
}

/// Whether the background's goodput over its arrivals is within 5% of 1 over its whole 95%
/// interval: its verdict ([`goals::carried_verdict`]) is met.
pub(crate) fn bg_within_interval(r: &Row) -> bool {
    goals::carried_verdict(r).word == Word::Met
}

/// The markdown table of `rows`.
pub(crate) fn rows_table(rows: &[Row]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let [ratio, verdict] =
                vs_vanilla_cells(r.norm_delay, r.norm_delay_ci95, r.policy == "vanilla");
            vec![
                r.group.clone(),
                format!("{:.2}", r.rho),
                r.label.clone(),
                format!("{:.2}", r.delay_s),
                ratio,
                verdict,
                bg_flag(r),
                format!("{:.2}", r.active),
                Ratio {
                    mean: r.norm_active,
                    ci95: r.norm_active_ci95,
                }
                .show(),
                format!("{:.2}", r.present),
                if r.mean_m.is_finite() {
                    format!("{:.1}", r.mean_m)
                } else {
                    "–".into()
                },
                if r.engaged.is_finite() {
                    format!("{:.1} / {:.0}%", r.saturations, 100.0 * r.engaged)
                } else {
                    "–".into()
                },
                format!("{}/{}", r.censored, r.refused),
                format!("{:.0} → {:.0}", r.backlog_warm_mb, r.backlog_end_mb),
                if r.load_estimate_vs_arrived.is_finite() {
                    format!("{:.3}", r.load_estimate_vs_arrived)
                } else {
                    "–".into()
                },
                format!(
                    "{:.3} / {:.3} / {:.3} / {:.1}%",
                    r.link_offered,
                    r.link_carried,
                    r.link_busy,
                    100.0 * r.link_loss
                ),
            ]
        })
        .collect();
    crate::engine::md_table(
        &[
            "group",
            "ρ",
            "policy",
            "short delay (s)",
            "delay / vanilla (95% CI)",
            "delay verdict",
            "bg goodput / arrived",
            "active bg",
            "active / vanilla",
            "bg present",
            "mean M",
            "saturations / run, check engaged",
            "censored/refused",
            "bg backlog warm-up → end (MB)",
            "load estimate / arrived",
            "most loaded link: payload offered / carried / wire busy / loss",
        ],
        &body,
    )
}

/// The row of `group`, `rho` (nearest), `policy`.
pub(crate) fn find<'a>(rows: &'a [Row], group: &str, rho: f64, policy: &str) -> Option<&'a Row> {
    rows.iter()
        .filter(|r| r.group == group && (r.policy == policy || r.label == policy))
        .min_by(|a, b| (a.rho - rho).abs().total_cmp(&(b.rho - rho).abs()))
}

/// Upper edges of the per-size delay bins, bytes (the last bin is open): finer where the
/// paper's Fig. 6 draws its lines (100 kB, 1 MB), coarser than its 50 kB bins so that each
/// bin holds enough flows per run for a paired ratio.
pub(crate) const SIZE_EDGES: [u64; 9] = [
    50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 3_000_000, 5_000_000, 8_000_000,
];

/// The bin of `size` (index into [`SIZE_EDGES`], or its length for the open last bin).
pub(crate) fn size_bin(size: u64) -> usize {
    SIZE_EDGES
        .iter()
        .position(|&e| size < e)
        .unwrap_or(SIZE_EDGES.len())
}

/// A bin's label, `[lo, hi)` in kB or MB.
pub(crate) fn bin_label(bin: usize) -> String {
    let show = |b: u64| {
        if b >= 1_000_000 {
            format!("{} MB", b as f64 / 1e6)
        } else {
            format!("{} kB", b / 1000)
        }
    };
    let lo = if bin == 0 { 0 } else { SIZE_EDGES[bin - 1] };
    match SIZE_EDGES.get(bin) {
        Some(&hi) => format!("[{}, {})", show(lo), show(hi)),
        None => format!("≥ {}", show(lo)),
    }
}

/// One per-size row: the mean delay of the short flows of `stream` (all if `None`) whose
/// size falls in `bin`, normalised by vanilla's same bin on the same sample path (the same
/// seed gives the same short flows under every policy), mean and 95% interval over repeats.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct BinRow {
    pub group: String,
    pub rho: f64,
    pub label: String,
    pub bin: usize,
    pub sizes: String,
    /// Flows in the bin, summed over repeats.
    pub flows: usize,
    pub delay_s: f64,
    pub norm_delay: f64,
    pub norm_delay_ci95: f64,
}

/// The per-size rows of setup `setup` (index into the grid) for every variant.
pub(crate) fn size_rows(
    grid: &Grid,
    setup: usize,
    group: &str,
    rho: f64,
    stream: Option<usize>,
) -> Vec<BinRow> {
    let bins = SIZE_EDGES.len() + 1;
    let per_bin = |r: &RunOut| -> Vec<(f64, usize)> {
        let mut sum = vec![(0.0, 0usize); bins];
        for &(s, size, d) in &r.short {
            if stream.is_none_or(|i| i == s) {
                let b = &mut sum[size_bin(size)];
                b.0 += d;
                b.1 += 1;
            }
        }
        sum.into_iter()
            .map(|(t, n)| (if n > 0 { t / n as f64 } else { f64::NAN }, n))
            .collect()
    };
    let vanilla: Vec<Vec<(f64, usize)>> = grid.runs(setup, 0).iter().map(per_bin).collect();
    let mut rows = Vec::new();
    for (k, v) in grid.variants[setup].iter().enumerate() {
        let runs: Vec<Vec<(f64, usize)>> = grid.runs(setup, k).iter().map(per_bin).collect();
        for bin in 0..bins {
            let pairs = runs
                .iter()
                .zip(&vanilla)
                .map(|(r, v)| (r[bin].0, v[bin].0))
                .filter(|(a, b)| a.is_finite() && b.is_finite());
            let ratio = Ratio::of(pairs);
            let delays: Vec<f64> = runs
                .iter()
                .map(|r| r[bin].0)
                .filter(|d| d.is_finite())
                .collect();
            rows.push(BinRow {
                group: group.to_string(),
                rho,
                label: v.2.clone(),
                bin,
                sizes: bin_label(bin),
                flows: runs.iter().map(|r| r[bin].1).sum(),
                delay_s: mean(&delays),
                norm_delay: ratio.mean,
                norm_delay_ci95: ratio.ci95,
            });
        }
    }
    rows
}

/// A plot of `rows` (one setup): normalised delay per size bin (x = the bin's upper edge in
/// MB, the open bin at twice the last edge), a line per variant.
pub(crate) fn plot_bins(
    ctx: &Context,
    rows: &[BinRow],
    file: &str,
    title: &str,
) -> anyhow::Result<()> {
    use crate::plot::{render_svg, LinePlot, Series};
    let x = |bin: usize| {
        SIZE_EDGES
            .get(bin)
            .map_or(2.0 * SIZE_EDGES[SIZE_EDGES.len() - 1] as f64, |&e| e as f64)
            / 1e6
    };
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.label.as_str()) {
            names.push(&r.label);
        }
    }
    let series = names
        .iter()
        .map(|n| {
            Series::line(
                *n,
                rows.iter()
                    .filter(|r| r.label == *n)
                    .map(|r| (x(r.bin), r.norm_delay))
                    .collect(),
            )
        })
        .collect();
    render_svg(
        &LinePlot {
            title: title.into(),
            x_label: "short-flow size, upper edge of the bin (MB)".into(),
            y_label: "delay / vanilla's, same bin".into(),
            log_x: true,
            series,
            ..Default::default()
        },
        &ctx.path(file),
    )
}

/// The markdown table of per-size rows.
pub(crate) fn bins_table(rows: &[BinRow]) -> String {
    crate::engine::md_table(
        &[
            "group",
            "ρ",
            "policy",
            "sizes",
            "flows",
            "delay (s)",
            "delay / vanilla (95% CI)",
            "verdict",
        ],
        &rows
            .iter()
            .map(|r| {
                let [ratio, verdict] =
                    vs_vanilla_cells(r.norm_delay, r.norm_delay_ci95, r.label == "vanilla");
                vec![
                    r.group.clone(),
                    format!("{:.2}", r.rho),
                    r.label.clone(),
                    r.sizes.clone(),
                    r.flows.to_string(),
                    format!("{:.2}", r.delay_s),
                    ratio,
                    verdict,
                ]
            })
            .collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtcp::admission::{Adaptive, Limit};
    use std::time::Duration;

    /// Fig. 7's scenario (two links), whose quick runs these tests drive.
    const BG_FIG7: &str = include_str!("../../../scenarios/bg-fig7.toml");

    /// Equation (27): the least M strictly above M* = k ρ_b / (1 − ρ − ρ_b), also when M* is
    /// an integer that floating point misses by an ulp.
    #[test]
    fn critical_m_is_the_least_m_above_equation_27() {
        assert_eq!(critical_m(1, 0.6, 0.3), 4); // M* = 3 exactly
        assert_eq!(critical_m(1, 0.65, 0.3), 7); // M* = 6
        assert_eq!(critical_m(1, 0.2, 0.3), 1); // M* = 0.6
        assert_eq!(critical_m(2, 0.5, 0.3), 4); // M* = 3
        assert_eq!(critical_m(0, 0.65, 0.3), 1);
    }

    /// The goal "background throughput within 5% of the load" is met only when the whole 95%
    /// interval over the repeats is within 5% (bg-fig5, k = 1, ρ = 0.5 over 40 repeats in ten
    /// groups: group means 0.970 ± 0.033 with the default bar, 0.984 ± 0.022 with a bar of
    /// 0.15), not met when the whole interval is outside, and undecided otherwise or without
    /// an interval (one repeat).
    #[test]
    fn within_five_per_cent_needs_the_whole_interval() {
        let word = |m: f64, ci: f64| {
            let r = Row {
                bg_throughput_vs_arrived: m,
                bg_vs_arrived_ci95: ci,
                ..Row::default()
            };
            goals::carried_verdict(&r).word
        };
        assert_eq!(word(0.970, 0.033), Word::Undecided);
        assert_eq!(word(0.984, 0.022), Word::Met);
        assert_eq!(word(1.04, 0.02), Word::Undecided);
        assert_eq!(word(0.90, 0.04), Word::NotMet);
        assert_eq!(word(0.96, f64::NAN), Word::Undecided);
        assert_eq!(word(f64::NAN, 0.01), Word::Undecided);
    }

    /// The goal's verdict by load: a load counts against "within 5%" only where the links
    /// are not overloaded under vanilla (its most loaded link carried at least 98% of what
    /// arrived for it); overloaded loads are listed with vanilla's share beside.
    #[test]
    fn the_carried_goal_is_judged_where_the_links_are_not_overloaded() {
        let row = |policy: &str, rho: f64, carried: f64, ci: f64, link_carried: f64| Row {
            group: "k=1".into(),
            policy: policy.into(),
            label: policy.into(),
            rho,
            bg_throughput_vs_arrived: carried,
            bg_within_5pct: (0.95..=1.05).contains(&carried),
            bg_vs_arrived_ci95: ci,
            bg_vs_arrived_worst: carried - ci,
            link_offered: 0.9,
            link_carried,
            ..Row::default()
        };
        let all = vec![
            row("vanilla", 0.5, 1.0, 0.01, 0.9),
            row("vanilla", 0.6, 0.97, 0.01, 0.85),
            row("access-adaptive", 0.5, 0.99, 0.02, 0.9),
            row("access-adaptive", 0.6, 0.80, 0.05, 0.8),
        ];
        let adaptive: Vec<&Row> = all.iter().filter(|r| r.policy != "vanilla").collect();
        let g = carried_check(&all, &adaptive);
        assert_eq!(g.met(), Some(Word::Met));
        assert_eq!((g.feasible.len(), g.over.len()), (1, 1));
        assert_eq!(g.over[0].rho, 0.6);
        // The same row at a load the links carry counts against the goal.
        let mut feasible = all.clone();
        feasible[1].link_carried = 0.9;
        let adaptive: Vec<&Row> = feasible.iter().filter(|r| r.policy != "vanilla").collect();
        let g = carried_check(&feasible, &adaptive);
        assert_eq!(g.met(), Some(Word::NotMet));
        assert!(g.over.is_empty());
        assert_eq!(g.short.len(), 1);
        assert_eq!(g.short[0].rho, 0.6);
        // Within on the mean but not over the interval is not met: undecided.
        let mut wide = all.clone();
        wide[2].bg_vs_arrived_ci95 = 0.05;
        let adaptive: Vec<&Row> = wide.iter().filter(|r| r.policy != "vanilla").collect();
        let g = carried_check(&wide, &adaptive);
        assert_eq!(g.met(), Some(Word::Undecided));
        assert_eq!(g.short.len(), 1);
        // Every load overloaded: nothing to judge.
        let mut over = all.clone();
        over[0].link_carried = 0.8;
        let adaptive: Vec<&Row> = over.iter().filter(|r| r.policy != "vanilla").collect();
        assert_eq!(carried_check(&over, &adaptive).met(), None);
    }

    /// A scenario's `[adaptive]` table is the core's `Adaptive`: its keys and values reach
    /// the controller; a misspelled key is refused naming the closest one, and a negative, a
    /// non-finite or an inconsistent number of seconds is a clear error naming the key, not a
    /// panic.
    #[test]
    fn the_adaptive_table_is_the_cores_and_bad_keys_are_refused_by_name() {
        let with = |table: &str| {
            let text = BG_FIG7.replace(
                "[adaptive]\nwindow_secs = 60.0\nperiod_secs = 15.0\n",
                &format!("[adaptive]\n{table}\n"),
            );
            assert_ne!(text, BG_FIG7, "bg-fig7's scenario has no [adaptive] table");
            crate::scenario::parse::<Params>(&text, "bg-fig7", true).map_err(|e| format!("{e:#}"))
        };
        let p = with("window_secs = 90\nperiod_secs = 0.5\ncheck_floor = 3\nmemory_secs = 120")
            .unwrap();
        let BgPolicy::Access(c) = policy(&p, "access-adaptive", 0).unwrap() else {
            panic!("access-adaptive is access control")
        };
        let Limit::Adaptive(a) = c.limit else {
            panic!("access-adaptive has an adaptive limit")
        };
        assert_eq!(a.window, Duration::from_secs(90));
        assert_eq!(a.period, Duration::from_millis(500));
        assert_eq!(a.check_floor, 3);
        assert_eq!(a.memory, Duration::from_secs(120));
        assert_eq!(a.shortfall, Adaptive::default().shortfall);
        let e = with("window_sec = 60").unwrap_err();
        assert!(
            e.contains("unknown key `window_sec` in [adaptive]; did you mean `window_secs`?"),
            "{e}"
        );
        for (table, key) in [
            ("window_secs = -1", "window_secs"),
            ("period_secs = nan", "period_secs"),
            ("memory_secs = inf", "memory_secs"),
            ("window_secs = 10\nperiod_secs = 20", "period_secs"),
            ("shortfall = 1.5", "shortfall"),
        ] {
            let e = with(table).unwrap_err();
            assert!(e.contains(key), "{table}: {e}");
        }
    }

    /// The background's books balance: what was acknowledged after the warm-up is what
    /// arrived after it less the growth of the backlog (bytes arrived, not acknowledged), so a
    /// goodput short of the arrivals is exactly a backlog left at the end; and the payload a
    /// link carried is below the bytes it put on the wire. Checked on a short overloaded
    /// two-link run (the backlog grows) with M = 1 and with vanilla.
    #[test]
    fn the_background_goodput_is_the_arrivals_less_the_backlog_growth() {
        let mut p: Params = crate::scenario::parse(BG_FIG7, "bg-fig7", true).unwrap();
        p.duration_s = 400.0;
        p.warmup_s = 100.0;
        let setup = super::setups::two_links(&p, 0.65);
        for (policy, m) in [("access-fixed", 1), ("vanilla", 0)] {
            let out = run_one(&p, &setup, policy, m, 5).unwrap();
            let span = p.duration_s - p.warmup_s;
            let sent = out.bg_rate_bps[0] * span / 8.0;
            let arrived = out.bg_arrived_bps[0] * span / 8.0;
            let growth = out.bg_backlog_end[0] - out.bg_backlog_warm[0];
            assert_eq!(out.refused, 0);
            assert!(
                (sent - (arrived - growth)).abs() < 1.0,
                "{policy}: sent {sent}, arrived {arrived}, backlog growth {growth}"
            );
            assert!(out.bg_backlog_warm[0] >= 0.0 && out.bg_backlog_end[0] >= 0.0);
            // M = 1 on a link 95% loaded: the backlog grows.
            if policy == "access-fixed" {
                assert!(growth > 0.0, "{growth}");
            }
            let wire = f64::from(p.tcp.mss + p.tcp.header_bytes) / f64::from(p.tcp.mss);
            assert!(
                out.link_carried * wire <= out.link_busy + 1e-9 && out.link_busy <= 1.0 + 1e-9,
                "{policy}: carried {} busy {}",
                out.link_carried,
                out.link_busy
            );
            assert!(out.link_offered > 0.5 && out.link_loss >= 0.0 && out.link_loss < 1.0);
        }
    }
}
