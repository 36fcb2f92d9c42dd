//! Paper 000, Figure 6 (non-intrusiveness) on the real-TCP testbed: two flows through the
//! tunnel (`long`, `short`) and one plain-TCP `sample` flow share the bottleneck; the sample
//! flow's throughput should not depend on the tunnel's policy.

use crate::check_param;
use crate::engine::{md_table, mean_ci, pct};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::bail;
use serde::{Deserialize, Serialize};
use testbed::run::Invariant;
use testbed::workload::{Path as FlowPath, PlannedFlow};
use testbed::{BedConfig, Queue, Session, VariantRun};

pub const NAME: &str = "testbed-fig6";
pub const DESCRIPTION: &str =
    "Paper 000 Fig. 6 on the real-TCP testbed (root): long+short through the tunnel, a plain-TCP sample flow; throughput over time under tcp and srpt";
pub const SCENARIO: &str = include_str!("../../scenarios/testbed-fig6.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    runs: usize,
    policies: Vec<String>,
    rate_bytes_per_s: u64,
    burst_bytes: u64,
    queue_bytes: u64,
    origin_rmem_max: u64,
    bin_s: f64,
    horizon_s: f64,
    long_at_s: f64,
    long_bytes: u64,
    short_at_s: f64,
    short_bytes: u64,
    sample_at_s: f64,
    sample_bytes: u64,
    warm_pool: usize,
    flow_timeout_s: f64,
    prefix: String,
    /// One-way delay the TUN router adds (ms; 0: no router, `tbf` alone): paper 000's path
    /// (a home link) had a real round-trip time.
    #[serde(default)]
    delay_ms: f64,
    /// TCP congestion control of the origin and destination (empty: the kernel's default).
    #[serde(default)]
    congestion_control: String,
}

const FLOWS: [&str; 3] = ["long", "short", "sample"];

/// (policy, flow, points (t s, MB/s)).
type Curve = (String, String, Vec<(f64, f64)>);

#[derive(Serialize)]
struct RunRow {
    run: usize,
    policy: String,
    flow: String,
    start_s: f64,
    completion_s: Option<f64>,
    throughput_bytes_per_s: Option<f64>,
}

#[derive(Serialize)]
struct SeriesRow {
    policy: String,
    flow: String,
    t_s: f64,
    mean_throughput_bytes_per_s: f64,
}

/// What every run does: the bed and the three flows.
struct Plan {
    bed: BedConfig,
    flows: Vec<PlannedFlow>,
}

/// The runs, in the order they ran (run index, result), and the congestion control the bed
/// used.
struct Measured {
    runs: Vec<(usize, VariantRun)>,
    cc: String,
}

/// One policy's sample flow against the first policy's, and the three flows' mean completion
/// times.
struct PolicyStats {
    policy: String,
    /// The sample's mean throughput (bytes/s) and its 95% half-width.
    mean: f64,
    ci: f64,
    /// Mean over mean under the first policy.
    ratio: f64,
    /// Paired relative difference per run (mean, 95% half-width).
    paired_mean: f64,
    paired_ci: f64,
    long_s: f64,
    short_s: f64,
    sample_s: f64,
}

/// What the runs show.
struct Analysis {
    run_rows: Vec<RunRow>,
    series_rows: Vec<SeriesRow>,
    curves: Vec<Curve>,
    stats: Vec<PolicyStats>,
    /// The server's invariant over the tunnel runs, their number and the payload expected.
    invariant: Invariant,
    tunnel_runs: usize,
    expected_payload: u64,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let plan = plan(ctx, &p)?;
    let measured = run_all(ctx, &p, &plan)?;
    report(ctx, &p, &plan, &measured)
}

/// Checks the scenario and plans the bed and the flows.
fn plan(ctx: &Context, p: &Params) -> anyhow::Result<Plan> {
    check_param!(p.runs >= 1 && p.runs <= 1000, "runs must be 1..=1000");
    check_param!(!p.policies.is_empty(), "policies must not be empty");
    check_param!(
        p.bin_s > 0.0 && p.horizon_s > p.bin_s,
        "need 0 < bin_s < horizon_s"
    );
    check_param!(
        p.long_at_s >= 0.0 && p.short_at_s >= 0.0 && p.sample_at_s >= 0.0,
        "start times must be >= 0"
    );
    check_param!(
        p.long_bytes > 0 && p.short_bytes > 0 && p.sample_bytes > 0,
        "flow sizes must be > 0"
    );
    check_param!(p.flow_timeout_s >= 1.0, "flow_timeout_s must be >= 1");
    for pol in &p.policies {
        if pol != "plain" {
            testbed::check_policy(pol)
                .map_err(|e| anyhow::anyhow!("invalid scenario parameter: {e:#}"))?;
        }
    }
    let _ = ctx.seed(p.seed);
    let mut bed = BedConfig::new(p.rate_bytes_per_s, Queue::Bfifo(p.queue_bytes));
    bed.burst_bytes = p.burst_bytes;
    bed.origin_rmem_max = p.origin_rmem_max;
    bed.prefix = p.prefix.clone();
    bed.delay_ms = p.delay_ms;
    bed.congestion_control = p.congestion_control.clone();
    let flow = |id: usize, label: &str, at_s: f64, download: u64, path: FlowPath| PlannedFlow {
        id,
        at_s,
        download,
        upload: 0,
        path,
        label: label.into(),
        stop_at_s: None,
    };
    let flows = vec![
        flow(0, "long", p.long_at_s, p.long_bytes, FlowPath::Tunnel),
        flow(1, "short", p.short_at_s, p.short_bytes, FlowPath::Tunnel),
        flow(2, "sample", p.sample_at_s, p.sample_bytes, FlowPath::Direct),
    ];
    Ok(Plan { bed, flows })
}

/// Runs the plan `runs` times under every policy (rotating the order), on one bed.
fn run_all(ctx: &Context, p: &Params, plan: &Plan) -> anyhow::Result<Measured> {
    let bin = testbed::find_binary()?;
    let n_pol = p.policies.len();
    let pb = ctx.progress((p.runs * n_pol) as u64, "runs x policies");
    let mut session = Session::start(plan.bed.clone(), &bin)?;
    let cc = session.bed().congestion_control();
    session.tunnel.warm_pool = p.warm_pool;
    let mut runs: Vec<(usize, VariantRun)> = Vec::new();
    let outcome = (|| -> anyhow::Result<()> {
        for k in 0..p.runs {
            for j in 0..n_pol {
                let v = &p.policies[(j + k) % n_pol];
                pb.set_message(format!("run {} {v}", k + 1));
                let policy = (v != "plain").then_some(v.as_str());
                let mut r = session.run(policy, &plan.flows, p.bin_s, p.flow_timeout_s)?;
                r.variant = v.clone();
                if r.failed() > 0 {
                    let why: Vec<String> =
                        r.results.iter().filter_map(|x| x.error.clone()).collect();
                    bail!("run {} under {v}: {}", k + 1, why.join("; "));
                }
                runs.push((k, r));
                pb.inc(1);
            }
        }
        Ok(())
    })();
    pb.finish_and_clear();
    session.conclude(outcome)?;
    Ok(Measured { runs, cc })
}

/// Analyses the runs, writes the files and returns the summary.
fn report(ctx: &Context, p: &Params, plan: &Plan, m: &Measured) -> anyhow::Result<String> {
    let a = analyse(p, plan, &m.runs);
    write_files(ctx, p, &a)?;
    Ok(render(p, &plan.bed, &m.cc, &a))
}

fn analyse(p: &Params, plan: &Plan, runs: &[(usize, VariantRun)]) -> Analysis {
    let mut run_rows = Vec::new();
    for (k, r) in runs {
        for (res, f) in r.results.iter().zip(&plan.flows) {
            run_rows.push(RunRow {
                run: *k,
                policy: r.variant.clone(),
                flow: f.label.clone(),
                start_s: res.start_s,
                completion_s: res.completion_s,
                throughput_bytes_per_s: res.completion_s.map(|t| f.download as f64 / t),
            });
        }
    }
    let (series_rows, curves) = mean_series(p, runs);
    let stats = policy_stats(p, &run_rows);
    let mut invariant = Invariant::default();
    let mut tunnel_runs = 0;
    for (_, r) in runs {
        if let Some(i) = r.server {
            invariant.merge(i);
            tunnel_runs += 1;
        }
    }
    let expected_payload = tunnel_runs as u64 * (p.long_bytes + p.short_bytes + 64);
    Analysis {
        run_rows,
        series_rows,
        curves,
        stats,
        invariant,
        tunnel_runs,
        expected_payload,
    }
}

/// Throughput over time, mean over the runs of each policy, per flow.
fn mean_series(p: &Params, runs: &[(usize, VariantRun)]) -> (Vec<SeriesRow>, Vec<Curve>) {
    let nbins = (p.horizon_s / p.bin_s).ceil() as usize;
    let mut series_rows = Vec::new();
    let mut curves: Vec<Curve> = Vec::new();
    for pol in &p.policies {
        let rs: Vec<&VariantRun> = runs
            .iter()
            .filter(|(_, r)| &r.variant == pol)
            .map(|(_, r)| r)
            .collect();
        for (i, fl) in FLOWS.iter().enumerate() {
            let mut pts = Vec::with_capacity(nbins);
            for b in 0..nbins {
                let sum: u64 = rs
                    .iter()
                    .map(|r| r.results[i].bins.get(b).copied().unwrap_or(0))
                    .sum();
                let thr = sum as f64 / rs.len().max(1) as f64 / p.bin_s;
                let t = (b as f64 + 0.5) * p.bin_s;
                series_rows.push(SeriesRow {
                    policy: pol.clone(),
                    flow: fl.to_string(),
                    t_s: t,
                    mean_throughput_bytes_per_s: thr,
                });
                pts.push((t, thr / 1e6));
            }
            curves.push((pol.clone(), fl.to_string(), pts));
        }
    }
    (series_rows, curves)
}

/// The sample flow under each policy against the first policy, paired by run.
fn policy_stats(p: &Params, run_rows: &[RunRow]) -> Vec<PolicyStats> {
    let of = |pol: &str, fl: &str| -> Vec<&RunRow> {
        run_rows
            .iter()
            .filter(|r| r.policy == pol && r.flow == fl)
            .collect()
    };
    let thr = |pol: &str, fl: &str| -> Vec<f64> {
        of(pol, fl)
            .iter()
            .filter_map(|r| r.throughput_bytes_per_s)
            .collect()
    };
    let ct = |pol: &str, fl: &str| -> Vec<f64> {
        of(pol, fl).iter().filter_map(|r| r.completion_s).collect()
    };
    let base_sample = thr(&p.policies[0], "sample");
    p.policies
        .iter()
        .map(|pol| {
            let s = thr(pol, "sample");
            let (mean, ci) = mean_ci(&s);
            // Paired by run: run k under `pol` against run k under the first policy.
            let rel: Vec<f64> = s
                .iter()
                .zip(&base_sample)
                .map(|(a, b)| a / b - 1.0)
                .collect();
            let (paired_mean, paired_ci) = mean_ci(&rel);
            PolicyStats {
                policy: pol.clone(),
                mean,
                ci,
                ratio: mean / mean_ci(&base_sample).0,
                paired_mean,
                paired_ci,
                long_s: mean_ci(&ct(pol, "long")).0,
                short_s: mean_ci(&ct(pol, "short")).0,
                sample_s: mean_ci(&ct(pol, "sample")).0,
            }
        })
        .collect()
}

/// The file name of a policy's throughput plot.
fn plot_file(pol: &str) -> String {
    format!("throughput_{}.svg", pol.replace([':', '/'], "_"))
}

/// `runs.csv`, `throughput_over_time.csv`, `fig6.json` and the plots.
fn write_files(ctx: &Context, p: &Params, a: &Analysis) -> anyhow::Result<()> {
    ctx.write_csv("runs.csv", &a.run_rows)?;
    ctx.write_csv("throughput_over_time.csv", &a.series_rows)?;
    plots(ctx, p, &a.curves)?;
    let json_rows: Vec<serde_json::Value> = a
        .stats
        .iter()
        .map(|s| {
            serde_json::json!({
                "policy": s.policy,
                "sample_mean_throughput_bytes_per_s": s.mean,
                "sample_ci95_bytes_per_s": s.ci,
                "ratio_to_first_policy": s.ratio,
                "paired_relative_difference_mean": s.paired_mean,
                "paired_relative_difference_ci95": s.paired_ci,
                "long_mean_completion_s": s.long_s,
                "short_mean_completion_s": s.short_s,
                "sample_mean_completion_s": s.sample_s,
            })
        })
        .collect();
    ctx.write_json(
        "fig6.json",
        &serde_json::json!({
            "policies": json_rows,
            "invariant_server": a.invariant,
            "expected_server_payload": a.expected_payload,
            "runs": p.runs,
        }),
    )
}

/// One plot per policy (the three flows) and the sample flow under every policy.
fn plots(ctx: &Context, p: &Params, curves: &[Curve]) -> anyhow::Result<()> {
    let y_max = curves
        .iter()
        .flat_map(|c| c.2.iter().map(|x| x.1))
        .fold(0.0, f64::max)
        * 1.1;
    for pol in &p.policies {
        let series = curves
            .iter()
            .filter(|c| &c.0 == pol)
            .map(|c| Series::line(c.1.clone(), c.2.clone()))
            .collect();
        render_svg(
            &LinePlot {
                title: format!(
                    "Mean throughput over {} runs: long and short through the tunnel under {pol}, sample plain TCP",
                    p.runs
                ),
                x_label: "time (s)".into(),
                y_label: "throughput (MB/s)".into(),
                series,
                y_range: Some((0.0, y_max.max(1e-3))),
                ..Default::default()
            },
            &ctx.path(&plot_file(pol)),
        )?;
    }
    let overlay = curves
        .iter()
        .filter(|c| c.1 == "sample")
        .enumerate()
        .map(|(i, c)| {
            let name = format!("sample, tunnel under {}", c.0);
            if i == 0 {
                Series::line(name, c.2.clone())
            } else {
                Series::dashed(name, c.2.clone())
            }
        })
        .collect();
    render_svg(
        &LinePlot {
            title: "The plain-TCP sample flow's mean throughput, by the tunnel's policy".into(),
            x_label: "time (s)".into(),
            y_label: "throughput (MB/s)".into(),
            series: overlay,
            y_range: Some((0.0, y_max.max(1e-3))),
            ..Default::default()
        },
        &ctx.path("sample.svg"),
    )
}

/// The sample flow's table: one row per policy.
fn sample_table(stats: &[PolicyStats]) -> String {
    let base = &stats[0].policy;
    let rows: Vec<Vec<String>> = stats
        .iter()
        .map(|s| {
            vec![
                s.policy.clone(),
                format!("{:.4} ± {:.4} MB/s", s.mean / 1e6, s.ci / 1e6),
                format!("{:.4}", s.ratio),
                if &s.policy == base {
                    "—".into()
                } else {
                    format!(
                        "{:+.2}% ± {:.2}%",
                        s.paired_mean * 100.0,
                        s.paired_ci * 100.0
                    )
                },
                format!("{:.2} s", s.long_s),
                format!("{:.2} s", s.short_s),
                format!("{:.2} s", s.sample_s),
            ]
        })
        .collect();
    md_table(
        &[
            "tunnel policy",
            "sample: mean throughput (95% CI)",
            "ratio to first",
            "paired difference per run (95% CI)",
            "long: E[T]",
            "short: E[T]",
            "sample: E[T]",
        ],
        &rows,
    )
}

/// The goal's line: the second policy's sample throughput within ±3% of the first's.
fn goal(stats: &[PolicyStats]) -> String {
    let [base, second, ..] = stats else {
        return String::new();
    };
    let ratio = second.ratio;
    format!(
        "Goal: the sample flow's mean throughput under `{}` within ±3% of under `{}`: ratio **{ratio:.4}** \
         ({:+.2}%): {}.",
        second.policy,
        base.policy,
        (ratio - 1.0) * 100.0,
        if (ratio - 1.0).abs() <= 0.03 { "met" } else { "not met" }
    )
}

/// The summary.
fn render(p: &Params, bed: &BedConfig, cc: &str, a: &Analysis) -> String {
    let base = &p.policies[0];
    let table = sample_table(&a.stats);
    let goal = goal(&a.stats);
    let plots: String = p
        .policies
        .iter()
        .map(|pol| format!("![{pol}]({})\n\n", plot_file(pol)))
        .collect();
    let inv = &a.invariant;
    format!(
        "# {NAME}: paper 000, Figure 6 (non-intrusiveness), on the real-TCP testbed\n\n\
{path} `long` ({lb:.1} MB, starts at \
{la} s) and `short` ({sb:.1} MB, at {sa} s) go through real `schedtcp client`/`server` processes; `sample` \
({smb:.1} MB, at {sma} s) is plain TCP to the same target through the same bottleneck. {runs} runs under \
each policy, alternating; every byte checked end to end. Throughput over time is the mean over the runs \
in {bin} s bins.\n\n\
## The sample flow\n\n{table}\n\
{goal}\n\n\
Mean throughput = the sample's bytes over its completion time, mean over runs (± the 95% confidence \
half-width); the paired difference compares run k under each policy with run k under `{base}`.\n\n\
The paper (SCHED_TCP over a 350 kB/s home link, 100 runs) shows the sample flow's throughput \"similar in \
both cases\" in a plot, with no number; under SRPT `short` finishes early and `long` at about the same time \
as under `tcp`.\n\n\
## Throughput over time\n\n{plots}![sample](sample.svg)\n\n\
## The per-connection invariant\n\n\
Over the {tunnel_runs} tunnel runs the server checked {chk} pool connections, {vio} violated; payload \
{pay} bytes (the flows' downloads plus 32-byte digests: {exp}), header bytes {hdr} ({ovh} overhead).\n\n\
Files: `runs.csv` (every flow of every run), `throughput_over_time.csv`, `fig6.json`.\n",
        path = bed.describe(cc),
        lb = p.long_bytes as f64 / 1e6,
        la = p.long_at_s,
        sb = p.short_bytes as f64 / 1e6,
        sa = p.short_at_s,
        smb = p.sample_bytes as f64 / 1e6,
        sma = p.sample_at_s,
        runs = p.runs,
        bin = p.bin_s,
        tunnel_runs = a.tunnel_runs,
        chk = inv.checked,
        vio = inv.violated,
        pay = inv.payload_bytes,
        exp = a.expected_payload,
        hdr = inv.header_bytes,
        ovh = pct(inv.header_bytes as f64 / inv.payload_bytes.max(1) as f64, 2),
    )
}
