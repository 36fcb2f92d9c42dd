//! Paper 004's access control on real kernel TCP (the testbed): short flows and one long
//! flow go straight to the target (plain TCP, the traffic the background must not hurt);
//! background micro-flows go through the tunnel's route, either a plain route (`vanilla`:
//! every request opens its transfer at once) or a background route under the core's access
//! control (`access-fixed`, `access-adaptive`). Same arrivals and sizes under every variant
//! of a repeat; repeats are new sample paths, variants rotated.
//!
//! Measures: short-flow completion time by size (paired with vanilla's on the same flows),
//! the background class's throughput over the arrival window against its arrival load, and
//! M over time (the client's metrics endpoint, polled once a second inside the origin
//! namespace).

use crate::check_param;
use crate::engine::background::{critical_m, mean, ratio_cells, Ratio};
use crate::engine::saved::read_csv;
use crate::engine::verdict::{judge, Interval, Rule, Source, Verdict, Word};
use crate::engine::{md_table, mean_ci};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use gtcp::admission::{AdmissionConfig, Limit};
use serde::{Deserialize, Serialize};
use sim::workload::{FlowSource, Poisson, SizeDist, SourcePick};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use testbed::proc::Proc;
use testbed::workload::{Path as FlowPath, PlannedFlow, MAX_TRANSFER};
use testbed::{BedConfig, Queue, Session};

pub const NAME: &str = "bg-testbed";
pub const DESCRIPTION: &str =
    "Paper 004 access control on the real-TCP testbed (root): short flows direct, background through the tunnel's background route; completion by size, background throughput, M over time";
pub const SCENARIO: &str = include_str!("../../scenarios/bg-testbed.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    prefix: String,
    /// Bottleneck, bytes per second; its queue (bfifo) and tbf burst, bytes.
    rate_bytes_per_s: u64,
    queue_bytes: u64,
    burst_bytes: u64,
    origin_rmem_max: u64,
    /// Arrivals happen in [0, duration_s).
    duration_s: f64,
    /// Short-flow load ρ and background load ρ_b, fractions of the bottleneck.
    rho: f64,
    rho_b: f64,
    /// Mean of the exponential sizes, bytes (short and background alike).
    mean_size: f64,
    /// Long (always backlogged) direct flows, k.
    long_flows: usize,
    variants: Vec<String>,
    /// M of `access-fixed`; 0: equation (27)'s critical M for k, ρ, ρ_b.
    fixed_m: u32,
    /// `[adaptive]`: the adaptive loop of `access-adaptive` (the core's parameters and keys,
    /// written to the client's `[admission]`); absent keys take the core's defaults.
    #[serde(default, deserialize_with = "crate::scenario::deserialize_adaptive")]
    adaptive: gtcp::admission::Adaptive,
    /// The background class's steady-state rate is measured over [steady_from_s, duration_s):
    /// after the adaptive loop's start (its first window and steps).
    #[serde(default = "default_steady_from")]
    steady_from_s: f64,
    repeats: usize,
    flow_timeout_s: f64,
    metrics_port: u16,
}

fn default_steady_from() -> f64 {
    20.0
}

/// The short-flow size bins (upper edges, bytes; the last bin is open).
const EDGES: [u64; 4] = [30_000, 100_000, 300_000, 1_000_000];

fn bin_of(size: u64) -> usize {
    EDGES.iter().position(|&e| size < e).unwrap_or(EDGES.len())
}

fn bin_name(b: usize) -> String {
    let lo = if b == 0 { 0 } else { EDGES[b - 1] / 1000 };
    match EDGES.get(b) {
        Some(hi) => format!("[{lo}, {}) kB", hi / 1000),
        None => format!("≥ {lo} kB"),
    }
}

/// One run's numbers.
struct Out {
    variant: String,
    repeat: usize,
    /// Mean short-flow completion time per size bin and over all (last), seconds.
    short_by_bin: Vec<f64>,
    short_failed: usize,
    /// The background class's bytes: arrived, received, backlog (see [`BgAccount`]).
    bg: BgAccount,
    /// (seconds since the run started, M, active, waiting).
    m_samples: Vec<MSample>,
}

#[derive(Serialize, Deserialize)]
struct Row {
    variant: String,
    sizes: String,
    flows_per_run: usize,
    completion_s: f64,
    norm: f64,
    norm_ci95: f64,
}

/// What the background class carried in one run. Arrived bytes count at the flow's arrival
/// (all of it); received bytes in the 1-s bin where they came. The backlog at `t` is what
/// arrived before `t` and was not received by then.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
struct BgAccount {
    /// Bytes that arrived in [0, T) and bytes received in [0, T) (T = the arrival window's end).
    arrived: u64,
    received_in_window: u64,
    /// Bytes that arrived, and bytes received, in [W, T) (W = `steady_from_s`).
    arrived_steady: u64,
    received_steady: u64,
    /// Bytes received over the whole run, the drain after T included.
    received_all: u64,
    /// Backlog at W and at T, bytes.
    backlog_at_w: u64,
    backlog_at_end: u64,
    /// Seconds after T until the last background byte came (1-s bins; 0: none after T).
    drain_s: f64,
    /// Background flows that failed (error or timeout).
    failed: usize,
}

impl BgAccount {
    /// Received over arrived in the arrival window: one minus the
    /// backlog left at T over what arrived, so a standing queue of the same size costs the
    /// same whatever the rate.
    fn window_ratio(&self) -> f64 {
        self.received_in_window as f64 / self.arrived.max(1) as f64
    }

    /// The class's rate over [W, T) over the arrival load over [W, T): the question
    /// (does the class send at the rate the arrivals ask?). Equal to 1 − (backlog growth over
    /// [W, T)) / (arrivals over [W, T)): a standing backlog does not lower it, a growing one
    /// does.
    fn steady_ratio(&self) -> f64 {
        self.received_steady as f64 / self.arrived_steady.max(1) as f64
    }

    /// Received over the whole run, drain included, over arrived: 1 unless flows failed.
    fn whole_ratio(&self) -> f64 {
        self.received_all as f64 / self.arrived.max(1) as f64
    }
}

/// The goal on the background's carried rate: at least 95% of the arrival load (or of
/// vanilla's), over the whole 95% interval.
const CARRIED: Rule = Rule::AtLeast {
    min: 0.95,
    margin: 0.0,
};

/// The verdict on a ratio's mean `m` with 95% half-width `ci` against [`CARRIED`], in words:
/// met (the interval's low end at or above 0.95), not met (its high end below), or undecided,
/// with the mean's side.
fn against_95(m: f64, ci: f64) -> String {
    match judge(Interval::new(m, ci), CARRIED) {
        Word::Met => "within 5%".into(),
        Word::NotMet => "NOT within 5%".into(),
        _ if m >= 0.95 => "undecided: within 5% on the mean, not beyond the interval".into(),
        _ => "undecided: below 95% on the mean, not beyond the interval".into(),
    }
}

/// The background account of one run: `flows` with their results, arrival window `t_end`,
/// steady-state start `w`, bins of `bin_s` seconds.
fn bg_account(
    flows: &[PlannedFlow],
    results: &[testbed::workload::FlowResult],
    w: f64,
    t_end: f64,
    bin_s: f64,
) -> BgAccount {
    let mut a = BgAccount::default();
    // Bin i covers [i·bin_s, (i + 1)·bin_s): the bins before W and before T.
    let bins_w = (w / bin_s).round() as usize;
    let bins_t = (t_end / bin_s).round() as usize;
    let mut last_bin: Option<usize> = None;
    let (mut arrived_w, mut received_w) = (0u64, 0u64);
    for (f, r) in flows.iter().zip(results) {
        if f.label != "bg" {
            continue;
        }
        if r.completion_s.is_none() {
            a.failed += 1;
        }
        if f.at_s < t_end {
            a.arrived += f.download;
            if f.at_s < w {
                arrived_w += f.download;
            }
        }
        received_w += r.bins.iter().take(bins_w).sum::<u64>();
        a.received_in_window += r.bins.iter().take(bins_t).sum::<u64>();
        a.received_all += r.bins.iter().sum::<u64>();
        if let Some(i) = r.bins.iter().rposition(|&b| b > 0) {
            last_bin = last_bin.max(Some(i));
        }
    }
    a.arrived_steady = a.arrived - arrived_w;
    a.received_steady = a.received_in_window - received_w;
    a.backlog_at_w = arrived_w.saturating_sub(received_w);
    a.backlog_at_end = a.arrived.saturating_sub(a.received_in_window);
    a.drain_s = last_bin.map_or(0.0, |i| ((i + 1) as f64 * bin_s - t_end).max(0.0));
    a
}

#[derive(Serialize, Deserialize)]
struct BgRow {
    variant: String,
    repeat: usize,
    arrived: u64,
    received_in_window: u64,
    arrived_steady: u64,
    received_steady: u64,
    received_all: u64,
    backlog_at_w: u64,
    backlog_at_end: u64,
    drain_s: f64,
    failed: usize,
    window_ratio: f64,
    steady_ratio: f64,
    whole_ratio: f64,
    /// Short flows that failed (error or timeout) in the run.
    short_failed: usize,
}

/// One poll of the client's `schedtcp_admission_*` metrics (NaN: absent, or NaN there).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
struct MSample {
    /// Seconds (since the run started, once shifted).
    t_s: f64,
    m: f64,
    active: f64,
    waiting: f64,
    /// Saturations so far, the bar they set (NaN: none), the loop's rate and load estimates
    /// (bytes per second).
    saturations: f64,
    ceiling: f64,
    rate_bytes: f64,
    load_bytes: f64,
    /// Saturations that were the sequential test's bound running out, and whether the
    /// overload check was engaged (1 or 0).
    undecided: f64,
    engaged: f64,
}

/// The metrics the poller keeps, in [`MSample`]'s order after the time.
const POLLED: [&str; 9] = [
    "limit",
    "active",
    "waiting",
    "saturations_total",
    "ceiling",
    "rate_bytes",
    "load_bytes",
    "undecided_total",
    "check_engaged",
];

#[derive(Serialize, Deserialize)]
struct MRow {
    variant: String,
    repeat: usize,
    t_s: f64,
    m: f64,
    active: f64,
    waiting: f64,
    saturations: f64,
    ceiling: f64,
    rate_bytes: f64,
    load_bytes: f64,
    undecided: f64,
    engaged: f64,
}

fn plan(p: &Params, seed: u64) -> Vec<PlannedFlow> {
    let stop = sim::time::secs(p.duration_s);
    let c = p.rate_bytes_per_s as f64;
    let mut flows = Vec::new();
    for (i, (load, path, label)) in [
        (p.rho, FlowPath::Direct, "short"),
        (p.rho_b, FlowPath::Tunnel, "bg"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut src = Poisson::new(
            seed.wrapping_mul(1_000_003).wrapping_add(i as u64),
            load * c / p.mean_size,
            SizeDist::Exponential { mean: p.mean_size },
            1,
            1,
            SourcePick::Random,
            stop,
            None,
        );
        while let Some(f) = src.next_flow() {
            flows.push(PlannedFlow {
                id: 0,
                at_s: sim::time::as_secs(f.arrival),
                download: f.size.max(1),
                upload: 16,
                path,
                label: label.into(),
                stop_at_s: None,
            });
        }
    }
    for _ in 0..p.long_flows {
        flows.push(PlannedFlow {
            id: 0,
            at_s: 0.0,
            // Stopped at T, so it only needs more than the link carries by then; the margin
            // is capped at what the target serves (`run` checks that `c × T` fits).
            download: ((c * (p.duration_s + p.flow_timeout_s) * 2.0) as u64).min(MAX_TRANSFER),
            upload: 16,
            path: FlowPath::Direct,
            label: "long".into(),
            stop_at_s: Some(p.duration_s),
        });
    }
    flows.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    for (i, f) in flows.iter_mut().enumerate() {
        f.id = i;
    }
    flows
}

/// The `schedtcp_admission_*` values of [`POLLED`] in a poller line, with its time; `None`
/// without a time or an M.
fn parse_sample(line: &str) -> Option<MSample> {
    let mut it = line.split_whitespace();
    let t: f64 = it.next()?.parse().ok()?;
    let mut v = [f64::NAN; POLLED.len()];
    let words: Vec<&str> = it.collect();
    for w in words.windows(2) {
        for (k, name) in POLLED.iter().enumerate() {
            if w[0].starts_with(&format!("schedtcp_admission_{name}{{")) {
                v[k] = w[1].parse().unwrap_or(f64::NAN);
            }
        }
    }
    let [m, active, waiting, saturations, ceiling, rate_bytes, load_bytes, undecided, engaged] = v;
    m.is_finite().then_some(MSample {
        t_s: t,
        m,
        active,
        waiting,
        saturations,
        ceiling,
        rate_bytes,
        load_bytes,
        undecided,
        engaged,
    })
}

/// The scenario's parameters, checked, and the fixed M of `access-fixed`.
fn params(ctx: &Context) -> anyhow::Result<(Params, u32)> {
    let p: Params = ctx.params()?;
    check_param!(
        p.rho > 0.0 && p.rho_b > 0.0 && p.rho + p.rho_b < 1.0,
        "need rho, rho_b > 0 and rho + rho_b < 1"
    );
    check_param!(
        p.duration_s >= 10.0 && p.mean_size >= 1000.0 && p.repeats >= 1,
        "need duration_s >= 10, mean_size >= 1000, repeats >= 1"
    );
    check_param!(
        p.rate_bytes_per_s as f64 * p.duration_s <= MAX_TRANSFER as f64,
        "a long flow runs at most 1 GiB: need rate_bytes_per_s x duration_s <= {MAX_TRANSFER}"
    );
    check_param!(
        p.steady_from_s >= 0.0 && p.steady_from_s + 10.0 <= p.duration_s,
        "need 0 <= steady_from_s <= duration_s - 10"
    );
    check_param!(
        p.variants.first().map(String::as_str) == Some("vanilla"),
        "variants must start with vanilla (the baseline)"
    );
    for v in &p.variants {
        check_param!(
            ["vanilla", "access-fixed", "access-adaptive"].contains(&v.as_str()),
            "unknown variant {v}"
        );
    }
    let m_fixed = if p.fixed_m == 0 {
        critical_m(p.long_flows, p.rho, p.rho_b)
    } else {
        p.fixed_m
    };
    Ok((p, m_fixed))
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let (p, m_fixed) = params(ctx)?;
    let bin = testbed::find_binary()?;
    let mut cfg = BedConfig::new(p.rate_bytes_per_s, Queue::Bfifo(p.queue_bytes));
    cfg.burst_bytes = p.burst_bytes;
    cfg.origin_rmem_max = p.origin_rmem_max;
    cfg.prefix = p.prefix.clone();
    let seed = ctx.seed(p.seed);
    let plans: Vec<Vec<PlannedFlow>> = (0..p.repeats)
        .map(|r| plan(&p, seed.wrapping_add(r as u64)))
        .collect();
    let pb = ctx.progress((p.repeats * p.variants.len()) as u64, "runs");
    let mut session = Session::start(cfg, &bin)?;
    let mut outs: Vec<Out> = Vec::new();
    let outcome = (|| -> anyhow::Result<()> {
        for (r, flows) in plans.iter().enumerate() {
            for j in 0..p.variants.len() {
                let v = &p.variants[(j + r) % p.variants.len()];
                pb.set_message(format!("repeat {} {v}", r + 1));
                let metrics = format!("127.0.0.1:{}", p.metrics_port);
                session.tunnel.client_metrics = Some(metrics.parse()?);
                session.tunnel.admission = match v.as_str() {
                    "access-fixed" => Some(Limit::Fixed(m_fixed)),
                    "access-adaptive" => Some(Limit::Adaptive(p.adaptive)),
                    _ => None,
                }
                .map(|limit| AdmissionConfig {
                    limit,
                    ..AdmissionConfig::default()
                });
                let log = session.dir().join(format!("m-{r}-{v}.log"));
                let script = format!(
                    "while :; do echo \"$(date +%s.%N) $(curl -s http://{metrics}/metrics | \
                     grep -E '^schedtcp_admission_({})' | tr '\\n' ' ')\"; \
                     sleep 1; done",
                    POLLED.join("|")
                );
                let t0 = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs_f64();
                let mut poller = Proc::spawn(
                    "M poller",
                    session.bed().origin(),
                    std::path::Path::new("/bin/sh"),
                    &["-c".into(), script],
                    &log,
                )?;
                let run = session.run(Some("tcp"), flows, 1.0, p.flow_timeout_s);
                let _ = poller.terminate(Duration::from_secs(2));
                let run = run?;
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                let m_samples = text
                    .lines()
                    .filter_map(parse_sample)
                    .map(|s| MSample {
                        t_s: s.t_s - t0,
                        ..s
                    })
                    .collect();
                let mut by_bin = vec![Vec::new(); EDGES.len() + 2];
                let mut failed = 0;
                for (f, res) in flows.iter().zip(&run.results) {
                    if f.label != "short" {
                        continue;
                    }
                    match res.completion_s {
                        Some(c) => {
                            by_bin[bin_of(f.download)].push(c);
                            by_bin[EDGES.len() + 1].push(c);
                        }
                        None => failed += 1,
                    }
                }
                outs.push(Out {
                    variant: v.clone(),
                    repeat: r,
                    short_by_bin: by_bin.iter().map(|b| mean(b)).collect(),
                    short_failed: failed,
                    bg: bg_account(flows, &run.results, p.steady_from_s, p.duration_s, 1.0),
                    m_samples,
                });
                pb.inc(1);
            }
        }
        Ok(())
    })();
    pb.finish_and_clear();
    session.conclude(outcome)?;
    summarise(ctx, &p, m_fixed, &plans, &outs)
}

/// The runs of variant `v`, by repeat.
fn runs_of<'a>(outs: &'a [Out], v: &str) -> Vec<&'a Out> {
    let mut o: Vec<&Out> = outs.iter().filter(|o| o.variant == v).collect();
    o.sort_by_key(|o| o.repeat);
    o
}

/// Analysis: short-flow completion by size bin (and over all, last) per variant, paired with
/// vanilla's on the same flows.
fn short_rows(p: &Params, plans: &[Vec<PlannedFlow>], outs: &[Out]) -> Vec<Row> {
    let vanilla = runs_of(outs, "vanilla");
    let counts: Vec<usize> = (0..=EDGES.len() + 1)
        .map(|b| {
            plans
                .iter()
                .flat_map(|f| f.iter())
                .filter(|f| f.label == "short" && (b == EDGES.len() + 1 || bin_of(f.download) == b))
                .count()
                / plans.len().max(1)
        })
        .collect();
    let mut rows = Vec::new();
    for v in &p.variants {
        let runs = runs_of(outs, v);
        for (b, &count) in counts.iter().enumerate() {
            let r = Ratio::of(
                runs.iter()
                    .zip(&vanilla)
                    .map(|(a, z)| (a.short_by_bin[b], z.short_by_bin[b]))
                    .filter(|(a, z)| a.is_finite() && z.is_finite()),
            );
            rows.push(Row {
                variant: v.clone(),
                sizes: if b == EDGES.len() + 1 {
                    "all".into()
                } else {
                    bin_name(b)
                },
                flows_per_run: count,
                completion_s: mean(&runs.iter().map(|o| o.short_by_bin[b]).collect::<Vec<_>>()),
                norm: r.mean,
                norm_ci95: r.ci95,
            });
        }
    }
    rows
}

/// The M samples of every run, one row each.
fn m_rows(outs: &[Out]) -> Vec<MRow> {
    outs.iter()
        .flat_map(|o| {
            o.m_samples.iter().map(|s| MRow {
                variant: o.variant.clone(),
                repeat: o.repeat,
                t_s: s.t_s,
                m: s.m,
                active: s.active,
                waiting: s.waiting,
                saturations: s.saturations,
                ceiling: s.ceiling,
                rate_bytes: s.rate_bytes,
                load_bytes: s.load_bytes,
                undecided: s.undecided,
                engaged: s.engaged,
            })
        })
        .collect()
}

/// Plots: M and the waiting flows over time (repeat 1), completion time by size bin.
fn plots(ctx: &Context, p: &Params, rows: &[Row], m: &[MRow]) -> anyhow::Result<()> {
    let series: Vec<Series> = p
        .variants
        .iter()
        .filter(|v| *v != "vanilla")
        .flat_map(|v| {
            let first: Vec<&MRow> = m
                .iter()
                .filter(|s| s.variant == *v && s.repeat == 0)
                .collect();
            [
                Series::line(
                    format!("{v} M"),
                    first.iter().map(|s| (s.t_s, s.m)).collect(),
                ),
                Series::line(
                    format!("{v} waiting"),
                    first.iter().map(|s| (s.t_s, s.waiting)).collect(),
                ),
            ]
        })
        .collect();
    render_svg(
        &LinePlot {
            title: "M and waiting background flows over time (repeat 1)".into(),
            x_label: "seconds since the run started".into(),
            y_label: "flows".into(),
            series,
            ..Default::default()
        },
        &ctx.path("bg-testbed-m.svg"),
    )?;
    let bars: Vec<Series> = p
        .variants
        .iter()
        .map(|v| {
            Series::line(
                v.clone(),
                rows.iter()
                    .filter(|r| r.variant == *v && r.sizes != "all")
                    .enumerate()
                    .map(|(i, r)| (i as f64 + 1.0, r.completion_s))
                    .collect(),
            )
        })
        .collect();
    render_svg(
        &LinePlot {
            title: "short-flow completion time by size bin".into(),
            x_label: (0..=EDGES.len())
                .map(|b| format!("{}={}", b + 1, bin_name(b)))
                .collect::<Vec<_>>()
                .join(", "),
            y_label: "mean completion time (s)".into(),
            log_y: true,
            series: bars,
            ..Default::default()
        },
        &ctx.path("bg-testbed-size.svg"),
    )?;
    Ok(())
}

/// The short-flow completion table.
fn short_table(rows: &[Row]) -> String {
    md_table(
        &[
            "variant",
            "short sizes",
            "flows / run",
            "completion (s)",
            "/ vanilla (95% CI)",
            "verdict",
        ],
        &rows
            .iter()
            .map(|r| {
                let [ratio, verdict] = ratio_cells(
                    r.norm,
                    r.norm_ci95,
                    r.variant == "vanilla",
                    "faster than vanilla",
                    "slower than vanilla",
                );
                vec![
                    r.variant.clone(),
                    r.sizes.clone(),
                    r.flows_per_run.to_string(),
                    format!("{:.3}", r.completion_s),
                    ratio,
                    verdict,
                ]
            })
            .collect::<Vec<_>>(),
    )
}

/// The background class's account of every run, one row each.
fn bg_rows(outs: &[Out]) -> Vec<BgRow> {
    outs.iter()
        .map(|o| BgRow {
            variant: o.variant.clone(),
            repeat: o.repeat,
            arrived: o.bg.arrived,
            received_in_window: o.bg.received_in_window,
            arrived_steady: o.bg.arrived_steady,
            received_steady: o.bg.received_steady,
            received_all: o.bg.received_all,
            backlog_at_w: o.bg.backlog_at_w,
            backlog_at_end: o.bg.backlog_at_end,
            drain_s: o.bg.drain_s,
            failed: o.bg.failed,
            window_ratio: o.bg.window_ratio(),
            steady_ratio: o.bg.steady_ratio(),
            whole_ratio: o.bg.whole_ratio(),
            short_failed: o.short_failed,
        })
        .collect()
}

/// The background's steady-state rate per variant, over the repeats: against its arrival
/// load and against vanilla's on the same sample paths (`bg-testbed-carried.csv`).
#[derive(Serialize)]
struct CarriedRow {
    variant: String,
    repeats: usize,
    steady_ratio: f64,
    steady_ratio_ci95: f64,
    /// NaN for vanilla itself.
    of_vanilla: f64,
    of_vanilla_ci95: f64,
}

/// The runs of variant `v` in `bg` (one row per run), by repeat.
fn bg_runs<'a>(bg: &'a [BgRow], v: &str) -> Vec<&'a BgRow> {
    let mut o: Vec<&BgRow> = bg.iter().filter(|o| o.variant == v).collect();
    o.sort_by_key(|o| o.repeat);
    o
}

/// Per variant: the steady-state rate over the arrival load and over vanilla's, with their
/// intervals over the repeats.
fn carried_rows(p: &Params, bg: &[BgRow]) -> Vec<CarriedRow> {
    let vanilla = bg_runs(bg, "vanilla");
    p.variants
        .iter()
        .map(|v| {
            let runs = bg_runs(bg, v);
            let steady: Vec<f64> = runs.iter().map(|o| o.steady_ratio).collect();
            let (m, ci) = mean_ci(&steady);
            let vs = Ratio::of(
                runs.iter()
                    .zip(&vanilla)
                    .map(|(a, z)| (a.steady_ratio, z.steady_ratio)),
            );
            let base = v == "vanilla";
            CarriedRow {
                variant: v.clone(),
                repeats: runs.len(),
                steady_ratio: m,
                steady_ratio_ci95: ci,
                of_vanilla: if base { f64::NAN } else { vs.mean },
                of_vanilla_ci95: if base { f64::NAN } else { vs.ci95 },
            }
        })
        .collect()
}

/// The verdicts on the carried rate ([`CARRIED`]), each pointing at its value in
/// `bg-testbed-carried.csv`.
fn carried_verdicts(carried: &[CarriedRow]) -> Vec<Verdict> {
    let mut out = Vec::new();
    for c in carried {
        let at = [("variant", c.variant.as_str())];
        out.push(
            Verdict::new(
                format!("{}: background steady-state rate / arrival load", c.variant),
                Some("access control carries the background's load (Section IV)"),
                Interval::new(c.steady_ratio, c.steady_ratio_ci95),
                CARRIED,
            )
            .from(Source::new(CARRIED_CSV, "steady_ratio", &at)),
        );
        if c.variant != "vanilla" {
            out.push(
                Verdict::new(
                    format!(
                        "{}: background steady-state rate / vanilla's, same sample paths",
                        c.variant
                    ),
                    None,
                    Interval::new(c.of_vanilla, c.of_vanilla_ci95),
                    CARRIED,
                )
                .from(Source::new(CARRIED_CSV, "of_vanilla", &at)),
            );
        }
    }
    out
}

/// Where [`carried_rows`] are written.
const CARRIED_CSV: &str = "bg-testbed-carried.csv";

/// Render of the background class per variant: its table (steady-state rate, window and
/// whole ratios, backlog, drain, M, failures, with the verdicts against 95% of the arrival
/// load and of vanilla's, from `carried`) and the per-repeat lines below it.
fn bg_section(p: &Params, bg: &[BgRow], m: &[MRow], carried: &[CarriedRow]) -> (String, String) {
    let vanilla = bg_runs(bg, "vanilla");
    let per_repeat = |v: &[f64]| {
        v.iter()
            .map(|c| format!("{c:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let show = |(m, ci): (f64, f64)| {
        if ci.is_finite() {
            format!("{m:.3} ± {ci:.3}")
        } else {
            format!("{m:.3}")
        }
    };
    let mut bg_table = Vec::new();
    let mut lines = String::new();
    for (v, c) in p.variants.iter().zip(carried) {
        let runs = bg_runs(bg, v);
        let steady: Vec<f64> = runs.iter().map(|o| o.steady_ratio).collect();
        let window: Vec<f64> = runs.iter().map(|o| o.window_ratio).collect();
        let whole: Vec<f64> = runs.iter().map(|o| o.whole_ratio).collect();
        let flows_of = |b: u64| b as f64 / p.mean_size;
        let back_w: Vec<f64> = runs.iter().map(|o| flows_of(o.backlog_at_w)).collect();
        let back_t: Vec<f64> = runs.iter().map(|o| flows_of(o.backlog_at_end)).collect();
        let drain: Vec<f64> = runs.iter().map(|o| o.drain_s).collect();
        let bg_failed: usize = runs.iter().map(|o| o.failed).sum();
        let failed: usize = runs.iter().map(|o| o.short_failed).sum();
        let ms: Vec<f64> = m
            .iter()
            .filter(|s| s.variant == *v && s.t_s <= p.duration_s)
            .map(|s| s.m)
            .collect();
        let window_vs = Ratio::of(
            runs.iter()
                .zip(&vanilla)
                .map(|(a, z)| (a.window_ratio, z.window_ratio)),
        );
        let steady_ci = (c.steady_ratio, c.steady_ratio_ci95);
        // The goal on the steady-state rate, against the arrival load and against vanilla's
        // (which admits every flow at once: what the window's end leaves in flight).
        let base = v == "vanilla";
        let verdict = if base {
            against_95(steady_ci.0, steady_ci.1)
        } else {
            format!(
                "{}; of vanilla's: {}",
                against_95(steady_ci.0, steady_ci.1),
                against_95(c.of_vanilla, c.of_vanilla_ci95)
            )
        };
        let vs = |r: Ratio| if base { "–".into() } else { r.show() };
        bg_table.push(vec![
            v.clone(),
            show(steady_ci),
            vs(Ratio {
                mean: c.of_vanilla,
                ci95: c.of_vanilla_ci95,
            }),
            verdict,
            show(mean_ci(&window)),
            vs(window_vs),
            format!("{:.3}", mean(&whole)),
            format!("{:.1} → {:.1}", mean(&back_w), mean(&back_t)),
            format!("{:.1}", mean(&drain)),
            if ms.is_empty() {
                "–".into()
            } else {
                format!("{:.1}", mean(&ms))
            },
            format!("{failed} / {bg_failed}"),
        ]);
        lines.push_str(&format!(
            "- {v}: steady-state rate / arrival load per repeat: {}; bytes received in the \
             window / arrived: {}; backlog at the window's end (flows of mean size): {}\n",
            per_repeat(&steady),
            per_repeat(&window),
            per_repeat(&back_t),
        ));
    }
    let bg_table = md_table(
        &[
            "variant",
            "steady-state rate / arrival load (95% CI)",
            "/ vanilla's",
            "verdict",
            "received in window / arrived (the arrival window's measure)",
            "/ vanilla's",
            "received incl. drain / arrived",
            "backlog at W → at T (flows)",
            "drain after T (s)",
            "mean M",
            "failed short / bg",
        ],
        &bg_table,
    );
    (bg_table, lines)
}

fn summarise(
    ctx: &Context,
    p: &Params,
    m_fixed: u32,
    plans: &[Vec<PlannedFlow>],
    outs: &[Out],
) -> anyhow::Result<String> {
    let rows = short_rows(p, plans, outs);
    let m = m_rows(outs);
    let bg = bg_rows(outs);
    ctx.write_csv("bg-testbed.csv", &rows)?;
    ctx.write_csv("bg-testbed-m.csv", &m)?;
    ctx.write_csv("bg-testbed-bg.csv", &bg)?;
    render_all(ctx, p, m_fixed, &rows, &bg, &m)
}

/// Analyses and renders again the runs an earlier run wrote to `dir` (`bg-testbed.csv`: the
/// short flows by size bin against vanilla's; `bg-testbed-bg.csv`: the background's account
/// of every run; `bg-testbed-m.csv`: M over time), without the testbed.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let (p, m_fixed) = params(ctx)?;
    let rows: Vec<Row> = read_csv(dir, "bg-testbed.csv")?;
    let bg: Vec<BgRow> = read_csv(dir, "bg-testbed-bg.csv")?;
    let m: Vec<MRow> = read_csv(dir, "bg-testbed-m.csv")?;
    render_all(ctx, &p, m_fixed, &rows, &bg, &m)
}

/// The plots, the carried rate and its verdicts, and the summary of the short-flow rows
/// `rows`, the background's account `bg` and the M samples `m`.
fn render_all(
    ctx: &Context,
    p: &Params,
    m_fixed: u32,
    rows: &[Row],
    bg: &[BgRow],
    m: &[MRow],
) -> anyhow::Result<String> {
    plots(ctx, p, rows, m)?;
    let carried = carried_rows(p, bg);
    ctx.write_csv(CARRIED_CSV, &carried)?;
    ctx.write_json("verdicts.json", &carried_verdicts(&carried))?;
    let (bg_table, lines) = bg_section(p, bg, m, &carried);
    Ok(render(p, m_fixed, &short_table(rows), &bg_table, &lines))
}

/// The summary: the setup, the paper's claim, the tables.
fn render(p: &Params, m_fixed: u32, table: &str, bg_table: &str, bg: &str) -> String {
    let (a, d) = (p.adaptive, gtcp::admission::Adaptive::default());
    let marked = |v: String, default: bool| if default { format!("{v} (default)") } else { v };
    format!(
        "# bg-testbed — paper 004's access control on real kernel TCP\n\n\
         The testbed (`crates/testbed`, namespaces `{}-*`): a tbf bottleneck of {:.2} MB/s with a \
         {} kB bfifo; kernel TCP ({}). Short flows (load ρ = {}) and k = {} long flow(s) go \
         straight to the target over plain TCP; background micro-flows (load ρ_b = {}) go \
         through `schedtcp client`/`server` on one route: a plain route for `vanilla`, a \
         `background = true` route under `[admission]` otherwise (fixed M = {m_fixed}, equation \
         (27)'s critical M for k = {}, ρ = {}, ρ_b = {}; adaptive: window {} s, period {} s, \
         overload check's probe {}, memory {}, engagement bar {} and floor {}). \
         Poisson arrivals for {} s, exponential sizes of mean {:.0} kB (the paper's 3 MB on \
         10 Mbit/s scaled down so a run takes minutes). {} repeats (new sample paths), the same \
         flows under every variant of a repeat, variants rotated; ± is the 95% interval of the \
         paired ratio over repeats.\n\n\
         **Paper (Section IV):** access control leaves micro-flows outside the network when it \
         is congested and so performs better than vanilla, especially at high load and with long \
         flows present (Fig. 5b: it keeps decreasing relative to vanilla with k = 1; Fig. 6: \
         better than vanilla for all flow sizes at ρ = 0.6). There is no testbed in the paper \
         (ns-2 only).\n\n## Short-flow completion time\n\n{table}\n\
         ## Background throughput and M\n\n\
         The issue's question is whether the background class sends at the rate its arrivals \
         ask. Over a finite window the bytes received by its end fall short of those arrived by \
         the backlog left then, and access control keeps a standing backlog by design (the \
         adaptive loop aims at {} waiting flows, the paper's \"long but not unstable\" queue), \
         so that measure penalises a stable queue as much as a growing one. The steady-state \
         rate is the bytes received over [W, T) = [{} s, {} s) over the bytes that arrived in \
         it: a standing backlog leaves it at 1, a growing one lowers it by the growth (flows \
         that arrive shortly before T are still in flight then, which lowers it under every \
         variant: vanilla's figure, every flow admitted at once, shows how much; hence the \
         paired ratio to vanilla's beside it). Beside it: \
         the arrival window's measure (received in [0, T) / arrived), the bytes received by the end of \
         the run (drain after T included) / arrived, the backlog at W and T in flows of the \
         mean size, and how long after T the last background byte came. Raw per run: \
         `bg-testbed-bg.csv`.\n\n{bg_table}\n{bg}\n\
         Plots: `bg-testbed-size.svg` (completion by size), `bg-testbed-m.svg` (M and waiting \
         flows over time, repeat 1); raw: `bg-testbed.csv`, `bg-testbed-m.csv` (M sampled once a \
         second from the client's metrics endpoint; times are from just before the tunnel \
         started, within about a second of the workload's start). LEDBAT and TCP-LP are absent: \
         the kernel offers reno/cubic/bbr only.\n",
        p.prefix,
        p.rate_bytes_per_s as f64 / 1e6,
        p.queue_bytes / 1000,
        "the namespace's default congestion control",
        p.rho,
        p.long_flows,
        p.rho_b,
        p.long_flows,
        p.rho,
        p.rho_b,
        a.window.as_secs_f64(),
        a.period.as_secs_f64(),
        marked(format!("{} s", a.probe.as_secs_f64()), a.probe == d.probe),
        marked(format!("{} s", a.memory.as_secs_f64()), a.memory == d.memory),
        marked(a.shortfall.to_string(), a.shortfall == d.shortfall),
        marked(a.check_floor.to_string(), a.check_floor == d.check_floor),
        p.duration_s,
        p.mean_size / 1e3,
        p.repeats,
        a.target_waiting,
        p.steady_from_s,
        p.duration_s,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::workload::FlowResult;

    fn bg(at_s: f64, download: u64) -> PlannedFlow {
        PlannedFlow {
            id: 0,
            at_s,
            download,
            upload: 16,
            path: FlowPath::Tunnel,
            label: "bg".into(),
            stop_at_s: None,
        }
    }

    fn got(bins: Vec<u64>, done: bool) -> FlowResult {
        FlowResult {
            id: 0,
            start_s: 0.0,
            completion_s: done.then_some(1.0),
            received: bins.iter().sum(),
            error: None,
            bins,
            stopped: false,
        }
    }

    /// The scenario's `[adaptive]` table (the core's keys, scaled by the sizes' factor of ten)
    /// is what the client's `[admission]` gets.
    #[test]
    fn the_scenario_scales_the_cores_adaptive_loop() {
        let p: Params = crate::scenario::parse(SCENARIO, NAME, false).unwrap();
        let d = gtcp::admission::Adaptive::default();
        assert_eq!(p.adaptive.window * 10, d.window);
        assert_eq!(p.adaptive.period * 10, d.period);
        assert_eq!(p.adaptive.probe * 10, d.probe);
        assert_eq!(p.adaptive.memory * 10, d.memory);
        assert_eq!(p.adaptive.shortfall, d.shortfall);
    }

    #[test]
    fn a_standing_backlog_lowers_the_window_ratio_but_not_the_steady_rate() {
        // T = 4 s, W = 2 s. One flow of 100 B arrives every second and each is received whole
        // two seconds later: a backlog of two flows stands from t = 2 on.
        let flows: Vec<PlannedFlow> = (0..4).map(|i| bg(i as f64, 100)).collect();
        let results: Vec<FlowResult> = (0..4)
            .map(|i| {
                let mut b = vec![0; i + 3];
                b[i + 2] = 100;
                got(b, true)
            })
            .collect();
        let a = bg_account(&flows, &results, 2.0, 4.0, 1.0);
        assert_eq!((a.arrived, a.received_in_window), (400, 200));
        assert_eq!((a.arrived_steady, a.received_steady), (200, 200));
        assert_eq!((a.backlog_at_w, a.backlog_at_end), (200, 200));
        assert_eq!(a.window_ratio(), 0.5);
        assert_eq!(a.steady_ratio(), 1.0);
        assert_eq!(a.whole_ratio(), 1.0);
        // The last byte came in bin 5, [5, 6): two seconds after T.
        assert_eq!(a.drain_s, 2.0);
        assert_eq!(a.failed, 0);
    }

    #[test]
    fn a_poller_line_gives_every_admission_metric_and_nan_for_what_is_missing() {
        let line = "12.5 schedtcp_admission_limit{route=\"bg\"} 3 \
                    schedtcp_admission_active{route=\"bg\"} 2 \
                    schedtcp_admission_waiting{route=\"bg\"} 9 \
                    schedtcp_admission_saturations_total{route=\"bg\"} 1 \
                    schedtcp_admission_ceiling{route=\"bg\"} NaN \
                    schedtcp_admission_load_bytes{route=\"bg\"} 375000.5 \
                    schedtcp_admission_check_engaged{route=\"bg\"} 1";
        let s = parse_sample(line).unwrap();
        assert_eq!((s.t_s, s.m, s.active, s.waiting), (12.5, 3.0, 2.0, 9.0));
        assert_eq!((s.saturations, s.load_bytes), (1.0, 375_000.5));
        assert_eq!(s.engaged, 1.0);
        assert!(s.ceiling.is_nan() && s.rate_bytes.is_nan() && s.undecided.is_nan());
        // No M (a vanilla run, or the endpoint not up yet): no sample.
        assert_eq!(parse_sample("3.0 "), None);
        assert_eq!(parse_sample("x schedtcp_admission_limit{} 1"), None);
    }

    #[test]
    fn the_goal_is_decided_only_beyond_the_interval() {
        assert_eq!(against_95(0.99, 0.03), "within 5%");
        assert_eq!(against_95(0.90, 0.04), "NOT within 5%");
        assert_eq!(
            against_95(0.96, 0.05),
            "undecided: within 5% on the mean, not beyond the interval"
        );
        assert_eq!(
            against_95(0.93, 0.05),
            "undecided: below 95% on the mean, not beyond the interval"
        );
        // One repeat: no interval, nothing decided.
        assert_eq!(
            against_95(0.99, f64::NAN),
            "undecided: within 5% on the mean, not beyond the interval"
        );
    }

    /// A long run (480 s at 1.25 MB/s): the long flow's margin (twice the link over the run and
    /// the timeout) would exceed what the target serves, which refused the whole plan; it is
    /// capped, and still more than the link can carry before the flow is stopped at T.
    #[test]
    fn a_long_run_plans_a_long_flow_the_target_serves() {
        let mut t: toml::Table = toml::from_str(SCENARIO).unwrap();
        t.remove("quick");
        t.insert("duration_s".into(), toml::Value::Float(480.0));
        let p: Params = t.try_into().unwrap();
        let long: Vec<PlannedFlow> = plan(&p, 1)
            .into_iter()
            .filter(|f| f.label == "long")
            .collect();
        assert_eq!(long.len(), p.long_flows);
        for f in long {
            assert!(f.download <= MAX_TRANSFER, "{}", f.download);
            assert!(f.download as f64 > p.rate_bytes_per_s as f64 * p.duration_s);
            assert_eq!(f.stop_at_s, Some(p.duration_s));
        }
    }

    #[test]
    fn a_growing_backlog_lowers_the_steady_rate_by_its_growth() {
        // Flows of 100 B each second; the class carries 50 B/s from t = 0: the backlog grows by
        // 50 B a second. One flow never finishes (failed), short flows do not count.
        let flows: Vec<PlannedFlow> = (0..4)
            .map(|i| bg(i as f64, 100))
            .chain([PlannedFlow {
                label: "short".into(),
                path: FlowPath::Direct,
                ..bg(0.0, 1000)
            }])
            .collect();
        let results = vec![
            got(vec![50, 50], true),
            got(vec![0, 0, 50, 50], true),
            got(vec![0, 0, 0, 0, 50, 50], true),
            got(vec![0, 0, 0, 0, 0, 0, 50], false),
            got(vec![1000], true),
        ];
        let a = bg_account(&flows, &results, 2.0, 4.0, 1.0);
        assert_eq!((a.arrived, a.received_in_window), (400, 200));
        assert_eq!((a.arrived_steady, a.received_steady), (200, 100));
        assert_eq!((a.backlog_at_w, a.backlog_at_end), (100, 200));
        assert_eq!(a.steady_ratio(), 0.5);
        assert_eq!(a.whole_ratio(), 350.0 / 400.0);
        assert_eq!(a.drain_s, 3.0);
        assert_eq!(a.failed, 1);
    }
}
