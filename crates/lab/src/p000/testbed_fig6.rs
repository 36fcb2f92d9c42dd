//! Paper 000, Figure 6 (non-intrusiveness) on the real-TCP testbed: two flows through the
//! tunnel (`long`, `short`) and one plain-TCP `sample` flow share the bottleneck; the sample
//! flow's throughput should not depend on the tunnel's policy.

use crate::check_param;
use crate::engine::saved::read_csv;
use crate::engine::verdict::{Interval, Rule, Source, Verdict};
use crate::engine::{md_table, mean_ci, pct};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};
use std::path::Path;
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

#[derive(Serialize, Deserialize)]
struct RunRow {
    run: usize,
    policy: String,
    flow: String,
    start_s: f64,
    completion_s: Option<f64>,
    throughput_bytes_per_s: Option<f64>,
}

#[derive(Serialize, Deserialize)]
struct SeriesRow {
    policy: String,
    flow: String,
    t_s: f64,
    mean_throughput_bytes_per_s: f64,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
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
    let bin = testbed::find_binary()?;
    let cfg = bed_config(&p);
    let bed = cfg.clone();
    let flow = |id: usize, label: &str, at_s: f64, download: u64, path: FlowPath| PlannedFlow {
        id,
        at_s,
        download,
        upload: 0,
        path,
        label: label.into(),
        stop_at_s: None,
    };
    let plan = vec![
        flow(0, "long", p.long_at_s, p.long_bytes, FlowPath::Tunnel),
        flow(1, "short", p.short_at_s, p.short_bytes, FlowPath::Tunnel),
        flow(2, "sample", p.sample_at_s, p.sample_bytes, FlowPath::Direct),
    ];

    let n_pol = p.policies.len();
    let pb = ctx.progress((p.runs * n_pol) as u64, "runs x policies");
    let mut session = Session::start(cfg, &bin)?;
    let cc = session.bed().congestion_control();
    session.tunnel.warm_pool = p.warm_pool;
    let mut runs: Vec<(usize, VariantRun)> = Vec::new();
    let outcome = (|| -> anyhow::Result<()> {
        for k in 0..p.runs {
            for j in 0..n_pol {
                let v = &p.policies[(j + k) % n_pol];
                pb.set_message(format!("run {} {v}", k + 1));
                let policy = (v != "plain").then_some(v.as_str());
                let mut r = session.run(policy, &plan, p.bin_s, p.flow_timeout_s)?;
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

    // ----- per run --------------------------------------------------------------------------
    let mut inv = Invariant::default();
    for (_, r) in &runs {
        if let Some(i) = r.server {
            inv.merge(i);
        }
    }
    let mut run_rows = Vec::new();
    for (k, r) in &runs {
        for (res, f) in r.results.iter().zip(&plan) {
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
    ctx.write_csv("runs.csv", &run_rows)?;
    let series_rows = series(&p, &runs);
    report(ctx, &p, &bed, &cc, &run_rows, &series_rows, inv)
}

/// Analyses and renders again the raw results an earlier run wrote to `dir` (`runs.csv`,
/// `throughput_over_time.csv`, and `fig6.json`'s invariant and congestion control), without
/// the testbed.
pub(crate) fn render_from(ctx: &Context, dir: &Path) -> anyhow::Result<String> {
    /// `Invariant` as `report` writes it.
    #[derive(Deserialize)]
    struct Inv {
        checked: u64,
        violated: u64,
        payload_bytes: u64,
        header_bytes: u64,
        adopted_bytes: u64,
        #[serde(default)]
        starved_s: f64,
        #[serde(default)]
        starved_by_credit_s: f64,
    }
    #[derive(Deserialize)]
    struct Raw {
        invariant_server: Inv,
        congestion_control: String,
    }
    let p: Params = ctx.params()?;
    let bed = bed_config(&p);
    let jp = dir.join("fig6.json");
    let raw: Raw = serde_json::from_str(
        &std::fs::read_to_string(&jp).with_context(|| format!("reading {}", jp.display()))?,
    )
    .with_context(|| format!("parsing {}", jp.display()))?;
    let run_rows: Vec<RunRow> = read_csv(dir, "runs.csv")?;
    let series_rows: Vec<SeriesRow> = read_csv(dir, "throughput_over_time.csv")?;
    report(
        ctx,
        &p,
        &bed,
        &raw.congestion_control,
        &run_rows,
        &series_rows,
        Invariant {
            checked: raw.invariant_server.checked,
            violated: raw.invariant_server.violated,
            payload_bytes: raw.invariant_server.payload_bytes,
            header_bytes: raw.invariant_server.header_bytes,
            adopted_bytes: raw.invariant_server.adopted_bytes,
            starved_s: raw.invariant_server.starved_s,
            starved_by_credit_s: raw.invariant_server.starved_by_credit_s,
        },
    )
}

/// The testbed the scenario describes.
fn bed_config(p: &Params) -> BedConfig {
    let mut cfg = BedConfig::new(p.rate_bytes_per_s, Queue::Bfifo(p.queue_bytes));
    cfg.burst_bytes = p.burst_bytes;
    cfg.origin_rmem_max = p.origin_rmem_max;
    cfg.prefix = p.prefix.clone();
    cfg.delay_ms = p.delay_ms;
    cfg.congestion_control = p.congestion_control.clone();
    cfg
}

/// Throughput over time of every policy and flow, the mean over the runs in `bin_s` bins.
fn series(p: &Params, runs: &[(usize, VariantRun)]) -> Vec<SeriesRow> {
    let nbins = (p.horizon_s / p.bin_s).ceil() as usize;
    let mut series_rows = Vec::new();
    for pol in &p.policies {
        let rs: Vec<&VariantRun> = runs
            .iter()
            .filter(|(_, r)| &r.variant == pol)
            .map(|(_, r)| r)
            .collect();
        for (i, fl) in FLOWS.iter().enumerate() {
            for b in 0..nbins {
                let sum: u64 = rs
                    .iter()
                    .map(|r| r.results[i].bins.get(b).copied().unwrap_or(0))
                    .sum();
                series_rows.push(SeriesRow {
                    policy: pol.clone(),
                    flow: fl.to_string(),
                    t_s: (b as f64 + 0.5) * p.bin_s,
                    mean_throughput_bytes_per_s: sum as f64 / rs.len().max(1) as f64 / p.bin_s,
                });
            }
        }
    }
    series_rows
}

/// The sample flow's goal: its throughput under the second policy within ±3% of under the
/// first, paired by run (the interval over the runs' relative differences).
fn sample_verdict(pol: &str, base: &str, rel: Interval) -> Verdict {
    Verdict::new(
        format!("{pol}: the sample flow's throughput / under {base} − 1, paired by run"),
        Some("\"similar in both cases\" (Fig. 6, no number); goal within ±3%"),
        rel,
        Rule::Goal {
            lo: -SAMPLE_GOAL,
            hi: SAMPLE_GOAL,
        },
    )
    .from(
        Source::new(
            "fig6.json",
            "paired_relative_difference_mean",
            &[("policy", pol)],
        )
        .in_json_array("policies"),
    )
}

/// The goal on the sample flow's throughput (relative difference).
const SAMPLE_GOAL: f64 = 0.03;

/// Analyses the runs' rows and renders the outputs and the summary.
fn report(
    ctx: &Context,
    p: &Params,
    bed: &BedConfig,
    cc: &str,
    run_rows: &[RunRow],
    series_rows: &[SeriesRow],
    inv: Invariant,
) -> anyhow::Result<String> {
    ctx.write_csv("throughput_over_time.csv", series_rows)?;
    plot_throughput(ctx, p, series_rows)?;
    let sample = analyse_sample(p, run_rows);
    let json_rows = &sample.json_rows;
    // A run through the tunnel has its server's invariant.
    let mut tunnel_runs: Vec<(usize, &str)> = run_rows
        .iter()
        .filter(|r| r.policy != "plain")
        .map(|r| (r.run, r.policy.as_str()))
        .collect();
    tunnel_runs.dedup();
    let tunnel_runs = tunnel_runs.len();
    let expected_payload = tunnel_runs as u64 * (p.long_bytes + p.short_bytes + 64);
    ctx.write_json(
        "fig6.json",
        &serde_json::json!({
            "policies": json_rows,
            "invariant_server": inv,
            "expected_server_payload": expected_payload,
            "congestion_control": cc,
            "runs": p.runs,
        }),
    )?;
    let verdicts = sample_verdicts(p, json_rows);
    ctx.write_json("verdicts.json", &verdicts)?;
    Ok(render_summary(
        p,
        bed,
        cc,
        &sample,
        &verdicts,
        inv,
        tunnel_runs,
        expected_payload,
    ))
}

/// The throughput-over-time plots: one per policy (long, short and the sample), and the
/// sample's curves of every policy overlaid.
fn plot_throughput(ctx: &Context, p: &Params, series_rows: &[SeriesRow]) -> anyhow::Result<()> {
    let mut curves: Vec<Curve> = Vec::new();
    for pol in &p.policies {
        for fl in FLOWS {
            let pts = series_rows
                .iter()
                .filter(|r| &r.policy == pol && r.flow == fl)
                .map(|r| (r.t_s, r.mean_throughput_bytes_per_s / 1e6))
                .collect();
            curves.push((pol.clone(), fl.to_string(), pts));
        }
    }
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
            &ctx.path(&format!("throughput_{}.svg", pol.replace([':', '/'], "_"))),
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
    )?;

    Ok(())
}

/// The sample flow per policy: its mean throughput, the paired difference per run against the
/// first policy, and the three flows' mean completion times, as table rows and as JSON rows.
struct SampleTable {
    rows: Vec<Vec<String>>,
    json_rows: Vec<serde_json::Value>,
}

fn analyse_sample(p: &Params, run_rows: &[RunRow]) -> SampleTable {
    let of = |pol: &str, fl: &str| -> Vec<&RunRow> {
        run_rows
            .iter()
            .filter(|r| r.policy == pol && r.flow == fl)
            .collect()
    };
    let base = &p.policies[0];
    let thr = |pol: &str, fl: &str| -> Vec<f64> {
        of(pol, fl)
            .iter()
            .filter_map(|r| r.throughput_bytes_per_s)
            .collect()
    };
    let ct = |pol: &str, fl: &str| -> Vec<f64> {
        of(pol, fl).iter().filter_map(|r| r.completion_s).collect()
    };
    let base_sample = thr(base, "sample");
    let mut rows = Vec::new();
    let mut json_rows = Vec::new();
    for pol in &p.policies {
        let s = thr(pol, "sample");
        let (m, ci) = mean_ci(&s);
        // Paired by run: run k under `pol` against run k under the first policy.
        let rel: Vec<f64> = s
            .iter()
            .zip(&base_sample)
            .map(|(a, b)| a / b - 1.0)
            .collect();
        let (rm, rci) = mean_ci(&rel);
        let ratio = m / mean_ci(&base_sample).0;
        let (lm, _) = mean_ci(&ct(pol, "long"));
        let (sm, _) = mean_ci(&ct(pol, "short"));
        let (sam, _) = mean_ci(&ct(pol, "sample"));
        rows.push(vec![
            pol.clone(),
            format!("{:.4} ± {:.4} MB/s", m / 1e6, ci / 1e6),
            format!("{ratio:.4}"),
            if pol == base {
                "—".into()
            } else {
                format!("{:+.2}% ± {:.2}%", rm * 100.0, rci * 100.0)
            },
            format!("{lm:.2} s"),
            format!("{sm:.2} s"),
            format!("{sam:.2} s"),
        ]);
        json_rows.push(serde_json::json!({
            "policy": pol,
            "sample_mean_throughput_bytes_per_s": m,
            "sample_ci95_bytes_per_s": ci,
            "ratio_to_first_policy": ratio,
            "paired_relative_difference_mean": rm,
            "paired_relative_difference_ci95": rci,
            "long_mean_completion_s": lm,
            "short_mean_completion_s": sm,
            "sample_mean_completion_s": sam,
        }));
    }
    SampleTable { rows, json_rows }
}

/// Each policy after the first against it: the sample's paired relative difference.
fn sample_verdicts(p: &Params, json_rows: &[serde_json::Value]) -> Vec<Verdict> {
    let base = &p.policies[0];
    p.policies
        .iter()
        .zip(json_rows)
        .skip(1)
        .map(|(pol, j)| {
            let at = |k: &str| j[k].as_f64().unwrap_or(f64::NAN);
            sample_verdict(
                pol,
                base,
                Interval::new(
                    at("paired_relative_difference_mean"),
                    at("paired_relative_difference_ci95"),
                ),
            )
        })
        .collect()
}

/// The summary.
#[allow(clippy::too_many_arguments)]
fn render_summary(
    p: &Params,
    bed: &BedConfig,
    cc: &str,
    sample: &SampleTable,
    verdicts: &[Verdict],
    inv: Invariant,
    tunnel_runs: usize,
    expected_payload: u64,
) -> String {
    let base = &p.policies[0];
    let table = md_table(
        &[
            "tunnel policy",
            "sample: mean throughput (95% CI)",
            "ratio to first",
            "paired difference per run (95% CI)",
            "long: E[T]",
            "short: E[T]",
            "sample: E[T]",
        ],
        &sample.rows,
    );
    let goal = match (p.policies.get(1), verdicts.first()) {
        (Some(pol), Some(v)) => {
            let ratio = sample.json_rows[1]["ratio_to_first_policy"]
                .as_f64()
                .unwrap_or(f64::NAN);
            format!(
                "Goal: the sample flow's throughput under `{pol}` within ±{g} of under `{base}`, paired by run: \
                 **{:+.2}% ± {:.2}%** (95% interval {:+.2}% to {:+.2}%; met when the whole interval lies within \
                 ±{g}, not met when it lies outside): **{}**. The ratio of the means is {ratio:.4} ({:+.2}%).",
                v.ours.mean * 100.0,
                v.ours.half * 100.0,
                v.ours.lo() * 100.0,
                v.ours.hi() * 100.0,
                v.word.says("", ""),
                (ratio - 1.0) * 100.0,
                g = pct(SAMPLE_GOAL, 0),
            )
        }
        _ => String::new(),
    };
    let plots: String = p
        .policies
        .iter()
        .map(|pol| {
            format!(
                "![{pol}](throughput_{}.svg)\n\n",
                pol.replace([':', '/'], "_")
            )
        })
        .collect();
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
        chk = inv.checked,
        vio = inv.violated,
        pay = inv.payload_bytes,
        exp = expected_payload,
        hdr = inv.header_bytes,
        ovh = pct(inv.header_bytes as f64 / inv.payload_bytes.max(1) as f64, 2),
    )
}
