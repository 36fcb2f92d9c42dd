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
use crate::experiments::bg_sim::{critical_m, mean, ratio_cells, Ratio};
use crate::experiments::md_table;
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use serde::{Deserialize, Serialize};
use sim::workload::{FlowSource, Poisson, SizeDist, SourcePick};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use testbed::proc::Proc;
use testbed::workload::{Path as FlowPath, PlannedFlow};
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
    adaptive_window_s: f64,
    adaptive_period_s: f64,
    /// The adaptive loop's overload check (`[admission] probe_secs`, `memory_secs`); absent:
    /// the core's defaults (30 s, 600 s).
    #[serde(default)]
    adaptive_probe_s: Option<f64>,
    #[serde(default)]
    adaptive_memory_s: Option<f64>,
    repeats: usize,
    flow_timeout_s: f64,
    metrics_port: u16,
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
    /// Background bytes received during [0, duration_s) over what arrived then.
    bg_carried: f64,
    /// (seconds since the run started, M, active, waiting).
    m_samples: Vec<(f64, f64, f64, f64)>,
}

#[derive(Serialize)]
struct Row {
    variant: String,
    sizes: String,
    flows_per_run: usize,
    completion_s: f64,
    norm: f64,
    norm_ci95: f64,
}

#[derive(Serialize)]
struct MRow {
    variant: String,
    repeat: usize,
    t_s: f64,
    m: f64,
    active: f64,
    waiting: f64,
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
            download: (c * (p.duration_s + p.flow_timeout_s) * 2.0) as u64,
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

/// `schedtcp_admission_{limit,active,waiting}` values in a poller line, with its time.
fn parse_sample(line: &str) -> Option<(f64, f64, f64, f64)> {
    let mut it = line.split_whitespace();
    let t: f64 = it.next()?.parse().ok()?;
    let mut v = [f64::NAN; 3];
    let words: Vec<&str> = it.collect();
    for w in words.windows(2) {
        for (k, name) in ["limit", "active", "waiting"].iter().enumerate() {
            if w[0].starts_with(&format!("schedtcp_admission_{name}{{")) {
                v[k] = w[1].parse().ok()?;
            }
        }
    }
    v[0].is_finite().then_some((t, v[0], v[1], v[2]))
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
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
                let admission = match v.as_str() {
                    "access-fixed" => format!("[admission]\nfixed = {m_fixed}\n"),
                    "access-adaptive" => {
                        let mut a = format!(
                            "[admission]\nwindow_secs = {}\nperiod_secs = {}\n",
                            p.adaptive_window_s, p.adaptive_period_s
                        );
                        if let Some(s) = p.adaptive_probe_s {
                            a += &format!("probe_secs = {s}\n");
                        }
                        if let Some(s) = p.adaptive_memory_s {
                            a += &format!("memory_secs = {s}\n");
                        }
                        a
                    }
                    _ => String::new(),
                };
                session.client_extra = format!("metrics = \"{metrics}\"\n{admission}");
                session.route_extra = if admission.is_empty() {
                    String::new()
                } else {
                    "background = true\n".into()
                };
                let log = session.dir().join(format!("m-{r}-{v}.log"));
                let script = format!(
                    "while :; do echo \"$(date +%s.%N) $(curl -s http://{metrics}/metrics | \
                     grep -E '^schedtcp_admission_(limit|active|waiting)' | tr '\\n' ' ')\"; \
                     sleep 1; done"
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
                    .map(|(t, m, a, w)| (t - t0, m, a, w))
                    .collect();
                let mut by_bin = vec![Vec::new(); EDGES.len() + 2];
                let mut failed = 0;
                let (mut bg_got, mut bg_asked) = (0u64, 0u64);
                let last_bin = p.duration_s.ceil() as usize;
                for (f, res) in flows.iter().zip(&run.results) {
                    match f.label.as_str() {
                        "short" => match res.completion_s {
                            Some(c) => {
                                by_bin[bin_of(f.download)].push(c);
                                by_bin[EDGES.len() + 1].push(c);
                            }
                            None => failed += 1,
                        },
                        "bg" => {
                            bg_asked += f.download;
                            bg_got += res.bins.iter().take(last_bin).sum::<u64>();
                        }
                        _ => {}
                    }
                }
                outs.push(Out {
                    variant: v.clone(),
                    repeat: r,
                    short_by_bin: by_bin.iter().map(|b| mean(b)).collect(),
                    short_failed: failed,
                    bg_carried: bg_got as f64 / bg_asked.max(1) as f64,
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

fn summarise(
    ctx: &Context,
    p: &Params,
    m_fixed: u32,
    plans: &[Vec<PlannedFlow>],
    outs: &[Out],
) -> anyhow::Result<String> {
    let of = |v: &str| -> Vec<&Out> {
        let mut o: Vec<&Out> = outs.iter().filter(|o| o.variant == v).collect();
        o.sort_by_key(|o| o.repeat);
        o
    };
    let vanilla = of("vanilla");
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
        let runs = of(v);
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
    ctx.write_csv("bg-testbed.csv", &rows)?;
    let mrows: Vec<MRow> = outs
        .iter()
        .flat_map(|o| {
            o.m_samples.iter().map(|&(t, m, a, w)| MRow {
                variant: o.variant.clone(),
                repeat: o.repeat,
                t_s: t,
                m,
                active: a,
                waiting: w,
            })
        })
        .collect();
    ctx.write_csv("bg-testbed-m.csv", &mrows)?;
    let series: Vec<Series> = outs
        .iter()
        .filter(|o| o.variant != "vanilla" && o.repeat == 0)
        .flat_map(|o| {
            [
                Series::line(
                    format!("{} M", o.variant),
                    o.m_samples.iter().map(|s| (s.0, s.1)).collect(),
                ),
                Series::line(
                    format!("{} waiting", o.variant),
                    o.m_samples.iter().map(|s| (s.0, s.3)).collect(),
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

    let table = md_table(
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
    );
    let mut bg = String::new();
    for v in &p.variants {
        let runs = of(v);
        let carried: Vec<f64> = runs.iter().map(|o| o.bg_carried).collect();
        let failed: usize = runs.iter().map(|o| o.short_failed).sum();
        let ms: Vec<f64> = runs
            .iter()
            .flat_map(|o| {
                o.m_samples
                    .iter()
                    .filter(|s| s.0 <= p.duration_s)
                    .map(|s| s.1)
            })
            .collect();
        let lo = carried.iter().copied().fold(f64::INFINITY, f64::min);
        bg.push_str(&format!(
            "- {v}: background bytes received during the arrival window / bytes that arrived in \
             it: {} per repeat ({}); mean M {}; short flows failed: {failed}\n",
            carried
                .iter()
                .map(|c| format!("{c:.3}"))
                .collect::<Vec<_>>()
                .join(", "),
            if lo >= 0.95 {
                "within 5% of the arrival load"
            } else {
                "NOT within 5% of the arrival load"
            },
            if ms.is_empty() {
                "–".into()
            } else {
                format!("{:.1}", mean(&ms))
            },
        ));
    }
    let core_default = gtcp::admission::Adaptive::default();
    Ok(format!(
        "# bg-testbed — paper 004's access control on real kernel TCP\n\n\
         The testbed (`crates/testbed`, namespaces `{}-*`): a tbf bottleneck of {:.2} MB/s with a \
         {} kB bfifo; kernel TCP ({}). Short flows (load ρ = {}) and k = {} long flow(s) go \
         straight to the target over plain TCP; background micro-flows (load ρ_b = {}) go \
         through `schedtcp client`/`server` on one route: a plain route for `vanilla`, a \
         `background = true` route under `[admission]` otherwise (fixed M = {m_fixed}, equation \
         (27)'s critical M for k = {}, ρ = {}, ρ_b = {}; adaptive: window {} s, period {} s, \
         overload check's probe {} and memory {}). \
         Poisson arrivals for {} s, exponential sizes of mean {:.0} kB (the paper's 3 MB on \
         10 Mbit/s scaled down so a run takes minutes). {} repeats (new sample paths), the same \
         flows under every variant of a repeat, variants rotated; ± is the 95% interval of the \
         paired ratio over repeats.\n\n\
         **Paper (Section IV):** access control leaves micro-flows outside the network when it \
         is congested and so performs better than vanilla, especially at high load and with long \
         flows present (Fig. 5b: it keeps decreasing relative to vanilla with k = 1; Fig. 6: \
         better than vanilla for all flow sizes at ρ = 0.6). There is no testbed in the paper \
         (ns-2 only).\n\n## Short-flow completion time\n\n{table}\n\
         ## Background throughput and M\n\n{bg}\n\
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
        p.adaptive_window_s,
        p.adaptive_period_s,
        p.adaptive_probe_s.map_or_else(
            || format!("{} s (default)", core_default.probe.as_secs_f64()),
            |s| format!("{s} s")
        ),
        p.adaptive_memory_s.map_or_else(
            || format!("{} s (default)", core_default.memory.as_secs_f64()),
            |s| format!("{s} s")
        ),
        p.duration_s,
        p.mean_size / 1e3,
        p.repeats,
    ))
}
