//! In the packet-level simulator: is the pair non-intrusive under load with the
//! core's DEFAULT configuration? A long-lived plain-TCP competitor shares the bottleneck with
//! paper 000's Table 2 workload carried by `schedtcp` (the shipped core, driven as the
//! tunnel drives it); the competitor's bytes under each policy are compared with its bytes
//! under the tunnel's `tcp` policy on the same sample path (Proposition 1 of paper 000: the
//! pair's connections send exactly when plain TCP's would, so nobody else on the path can
//! tell the policy).

use crate::check_param;
use crate::engine::intrusion::{competitor_verdict, ratio_plot};
use crate::engine::packet::{self, Cfg, PathCfg, Workload};
use crate::engine::verdict::{Verdict, Word};
use crate::engine::{md_table, mean_ci, parallel_map, pct, within_goal};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::{anyhow, Context as _};
use serde::{Deserialize, Serialize};
use sim::competitor::{measure, with_competitor, CompetitorOutcome, DeliveredSeries};
use sim::scenario::{DriverKind, GtcpConfig};
use sim::tcp::TcpConfig;

pub const NAME: &str = "nonintrusive";
pub const DESCRIPTION: &str =
    "A long plain-TCP competitor beside Table 2's workload under schedtcp with the core's default configuration; its bytes under each policy vs under tcp";
pub const SCENARIO: &str = include_str!("../../scenarios/nonintrusive.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    runs: usize,
    threads: usize,
    duration_s: f64,
    warmup_s: f64,
    competitor_at_s: f64,
    sample_s: f64,
    policies: Vec<String>,
    plain_tcp: bool,
    goal: f64,
    workload: Workload,
    path: PathCfg,
    tcp: TcpConfig,
    /// The core's configuration; absent = `GtcpConfig::default()` (the point of the
    /// experiment). `policy` is set per configuration.
    #[serde(default)]
    gtcp: GtcpConfig,
}

impl Params {
    /// The Section 6.2 machinery this experiment reuses for its path and workload.
    fn section62(&self) -> packet::Params {
        packet::Params {
            seed: self.seed,
            runs: self.runs,
            repeats: 1,
            jitter_ns: 0,
            threads: self.threads,
            duration_s: self.duration_s,
            drain_s: 0.0,
            policies: self.policies.clone(),
            drivers: vec!["schedtcp".into()],
            schedtcp_tcp_policy: false,
            core_buffer_policies: Vec::new(),
            nonintrusive: false,
            equal_ms: 0.0,
            fluid: false,
            fair_oracle: false,
            size_bins: 0,
            sensitivity_runs: 0,
            sensitivity_policy: String::new(),
            sensitivity: Vec::new(),
            workload: self.workload.clone(),
            path: self.path.clone(),
            tcp: self.tcp.clone(),
            gtcp: self.gtcp.clone(),
        }
    }

    /// The configurations: the tunnel's `tcp` first (the reference), then each policy, then
    /// plain TCP without the tunnel.
    fn configs(&self) -> Vec<Cfg> {
        let cfg = |kind: DriverKind, policy: &str| Cfg {
            label: match kind {
                DriverKind::Tcp => "plain tcp (no tunnel)".into(),
                _ => format!("schedtcp/{policy}"),
            },
            driver: kind.name(),
            kind,
            policy: policy.into(),
            core_buffers: false,
            oracle: false,
        };
        let mut v = vec![cfg(DriverKind::Schedtcp, "tcp")];
        v.extend(
            self.policies
                .iter()
                .filter(|p| p.as_str() != "tcp")
                .map(|p| cfg(DriverKind::Schedtcp, p)),
        );
        if self.plain_tcp {
            v.push(cfg(DriverKind::Tcp, "tcp"));
        }
        v
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RunRow {
    run: usize,
    seed: u64,
    config: String,
    competitor_bytes: u64,
    pair_bytes: u64,
    competitor_rate_bytes_per_s: f64,
    pair_rate_bytes_per_s: f64,
    competitor_ratio_to_tcp_policy: f64,
    pair_ratio_to_tcp_policy: f64,
    flows: usize,
    completed: usize,
    drops: u64,
    invariant_checked: u64,
    invariant_violations: u64,
    errors: u64,
}

#[derive(Debug, Clone, Serialize)]
struct SummaryRow {
    config: String,
    runs: usize,
    competitor_mean_bytes_per_s: f64,
    competitor_ratio_mean: f64,
    competitor_ratio_ci95: f64,
    pair_mean_bytes_per_s: f64,
    pair_ratio_mean: f64,
    pair_ratio_ci95: f64,
    verdict: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SeriesRow {
    config: String,
    t_s: f64,
    competitor_mean_bytes_per_s: f64,
    pair_mean_bytes_per_s: f64,
}

/// One run: the competitor's outcome and the bytes delivered over time.
type Out = (CompetitorOutcome, DeliveredSeries);

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let mut p: Params = ctx.params()?;
    p.seed = ctx.seed(p.seed);
    check_param!(p.runs >= 1 && p.runs <= 1000, "runs must be 1..=1000");
    check_param!(p.threads >= 1, "threads must be >= 1");
    check_param!(
        p.warmup_s >= 0.0 && p.warmup_s < p.duration_s,
        "need 0 <= warmup_s < duration_s"
    );
    check_param!(
        p.competitor_at_s >= 0.0 && p.competitor_at_s <= p.warmup_s,
        "the competitor must start by warmup_s"
    );
    check_param!(p.sample_s > 0.0, "sample_s must be > 0");
    check_param!(p.goal > 0.0 && p.goal < 1.0, "goal must be in (0, 1)");
    check_param!(
        p.policies.iter().any(|x| x == "tcp"),
        "policies must include tcp (the reference)"
    );
    let s62 = p.section62();
    let cfgs = p.configs();
    let scenario = |run: usize, cfg: &Cfg| {
        with_competitor(&s62.scenario(run, cfg), p.competitor_at_s)
            .map_err(|e| anyhow!("{}: {e}", cfg.label))
    };
    for c in &cfgs {
        scenario(0, c)?;
    }
    let n = p.runs * cfgs.len();
    let pb = ctx.progress(n as u64, "runs x configurations");
    let outs: Vec<Out> = parallel_map(
        n,
        p.threads,
        |i| {
            let (r, k) = (i / cfgs.len(), i % cfgs.len());
            let s = scenario(r, &cfgs[k])?;
            measure(&s, p.warmup_s, p.duration_s, p.sample_s)
                .with_context(|| format!("run {r}, {}", cfgs[k].label))
        },
        || pb.inc(1),
    )?;
    pb.finish_and_clear();
    let at = |r: usize, k: usize| &outs[r * cfgs.len() + k];

    // ----- per run ----------------------------------------------------------------------
    let mut rows = Vec::new();
    for r in 0..p.runs {
        let base = &at(r, 0).0;
        for (k, c) in cfgs.iter().enumerate() {
            let o = &at(r, k).0;
            let g = o.gtcp.unwrap_or_default();
            rows.push(RunRow {
                run: r,
                seed: p.seed + r as u64,
                config: c.label.clone(),
                competitor_bytes: o.competitor_bytes,
                pair_bytes: o.pair_bytes,
                competitor_rate_bytes_per_s: o.competitor_rate(),
                pair_rate_bytes_per_s: o.pair_rate(),
                competitor_ratio_to_tcp_policy: o.competitor_bytes as f64
                    / base.competitor_bytes.max(1) as f64,
                pair_ratio_to_tcp_policy: o.pair_bytes as f64 / base.pair_bytes.max(1) as f64,
                flows: o.flows,
                completed: o.completed,
                drops: o.drops,
                invariant_checked: g.invariant_checked,
                invariant_violations: g.invariant_violations,
                errors: g.api_errors + g.protocol_errors + g.payload_mismatches,
            });
        }
    }
    ctx.write_csv("runs.csv", &rows)?;
    let series_rows = over_time(&p, &cfgs, &outs);
    ctx.write_csv("over_time.csv", &series_rows)?;
    analyse(ctx, &p, &rows, &series_rows)
}

/// Analyses and renders again the raw results an earlier run wrote to `dir` (`runs.csv`, every
/// run's bytes; `over_time.csv`, the throughput over time), without running anything.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let rows: Vec<RunRow> = crate::engine::saved::read_csv(dir, "runs.csv")?;
    let series_rows: Vec<SeriesRow> = crate::engine::saved::read_csv(dir, "over_time.csv")?;
    analyse(ctx, &p, &rows, &series_rows)
}

/// Everything after the runs: the table per configuration, the verdicts, the plots and the
/// summary, from the rows of `runs.csv` and `over_time.csv`.
fn analyse(
    ctx: &Context,
    p: &Params,
    rows: &[RunRow],
    series_rows: &[SeriesRow],
) -> anyhow::Result<String> {
    let s62 = p.section62();
    let cfgs = p.configs();
    // ----- per configuration ------------------------------------------------------------
    let mut summary = Vec::new();
    for c in &cfgs {
        let of: Vec<&RunRow> = rows.iter().filter(|x| x.config == c.label).collect();
        let col = |f: fn(&RunRow) -> f64| of.iter().map(|x| f(x)).collect::<Vec<f64>>();
        let (cm, _) = mean_ci(&col(|x| x.competitor_rate_bytes_per_s));
        let (cr, cci) = mean_ci(&col(|x| x.competitor_ratio_to_tcp_policy));
        let (pm, _) = mean_ci(&col(|x| x.pair_rate_bytes_per_s));
        let (pr, pci) = mean_ci(&col(|x| x.pair_ratio_to_tcp_policy));
        summary.push(SummaryRow {
            config: c.label.clone(),
            runs: of.len(),
            competitor_mean_bytes_per_s: cm,
            competitor_ratio_mean: cr,
            competitor_ratio_ci95: cci,
            pair_mean_bytes_per_s: pm,
            pair_ratio_mean: pr,
            pair_ratio_ci95: pci,
            verdict: if c.label == cfgs[0].label {
                "reference".into()
            } else {
                within_goal(cr, cci, p.goal)
            },
        });
    }
    ctx.write_csv("nonintrusive.csv", &summary)?;
    // The claim: the competitor gets within ±goal of what it gets beside the tunnel's tcp
    // policy, whatever the policy.
    let verdicts: Vec<Verdict> = summary
        .iter()
        .skip(1)
        .map(|r| {
            competitor_verdict(
                format!("{}: competitor's bytes / under the tcp policy", r.config),
                (r.competitor_ratio_mean, r.competitor_ratio_ci95),
                p.goal,
                "nonintrusive.csv",
                ("config", &r.config),
            )
        })
        .collect();
    ctx.write_json("verdicts.json", &verdicts)?;

    plot_over_time(ctx, p, &cfgs, series_rows)?;
    let labels: Vec<String> = cfgs.iter().map(|c| c.label.clone()).collect();
    let per_run: Vec<(usize, f64)> = rows
        .iter()
        .filter_map(|x| {
            let k = labels.iter().position(|l| *l == x.config)?;
            Some((k, x.competitor_ratio_to_tcp_policy))
        })
        .collect();
    let means: Vec<f64> = summary.iter().map(|s| s.competitor_ratio_mean).collect();
    ratio_plot(ctx, &labels, &per_run, &means, p.goal, "ratio.svg")?;
    ctx.write_json(
        "nonintrusive.json",
        &serde_json::json!({
            "configs": cfgs,
            "summary": summary,
            "core_config": p.gtcp,
            "mean_size_bytes": s62.mean_size(),
            "lambda_per_s": s62.lambda(),
        }),
    )?;
    Ok(summary_md(p, &s62, &summary, rows, &verdicts))
}

/// The competitor's and the pair's throughput over time, mean over runs, per configuration.
fn over_time(p: &Params, cfgs: &[Cfg], outs: &[Out]) -> Vec<SeriesRow> {
    let at = |r: usize, k: usize| &outs[r * cfgs.len() + k];
    let mut series_rows = Vec::new();
    for (k, c) in cfgs.iter().enumerate() {
        let len = (0..p.runs).map(|r| at(r, k).1.len()).min().unwrap_or(0);
        for i in 1..len {
            let (mut dc, mut dp) = (0.0, 0.0);
            let mut t = 0.0;
            for r in 0..p.runs {
                let s = &at(r, k).1;
                let dt = s[i].0 - s[i - 1].0;
                t = s[i].0;
                dc += (s[i].1 - s[i - 1].1) as f64 / dt;
                dp += (s[i].2 - s[i - 1].2) as f64 / dt;
            }
            series_rows.push(SeriesRow {
                config: c.label.clone(),
                t_s: t,
                competitor_mean_bytes_per_s: dc / p.runs as f64,
                pair_mean_bytes_per_s: dp / p.runs as f64,
            });
        }
    }
    series_rows
}

/// The competitor's throughput over time under each configuration.
fn plot_over_time(
    ctx: &Context,
    p: &Params,
    cfgs: &[Cfg],
    series_rows: &[SeriesRow],
) -> anyhow::Result<()> {
    let curves = cfgs
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let pts = series_rows
                .iter()
                .filter(|r| r.config == c.label)
                .map(|r| (r.t_s, r.competitor_mean_bytes_per_s / 1e6))
                .collect();
            if k == 0 {
                Series::line(c.label.clone(), pts)
            } else {
                Series::dashed(c.label.clone(), pts)
            }
        })
        .collect();
    render_svg(
        &LinePlot {
            title: format!(
                "Competitor's throughput (mean over {} runs), by the tunnel's policy",
                p.runs
            ),
            x_label: "time (s)".into(),
            y_label: "competitor throughput (MB/s)".into(),
            series: curves,
            ..Default::default()
        },
        &ctx.path("competitor_over_time.svg"),
    )?;
    Ok(())
}

fn summary_md(
    p: &Params,
    s62: &packet::Params,
    summary: &[SummaryRow],
    rows: &[RunRow],
    verdicts: &[Verdict],
) -> String {
    let table = md_table(
        &[
            "configuration",
            "competitor (MB/s)",
            "competitor / under tcp policy (95% CI)",
            "pair (MB/s)",
            "pair / under tcp policy (95% CI)",
            "verdict (competitor)",
        ],
        &summary
            .iter()
            .map(|s| {
                vec![
                    s.config.clone(),
                    format!("{:.3}", s.competitor_mean_bytes_per_s / 1e6),
                    format!(
                        "{:.4} ± {:.4}",
                        s.competitor_ratio_mean, s.competitor_ratio_ci95
                    ),
                    format!("{:.3}", s.pair_mean_bytes_per_s / 1e6),
                    format!("{:.4} ± {:.4}", s.pair_ratio_mean, s.pair_ratio_ci95),
                    s.verdict.clone(),
                ]
            })
            .collect::<Vec<_>>(),
    );
    let errors: u64 = rows.iter().map(|r| r.errors + r.invariant_violations).sum();
    let checked: u64 = rows.iter().map(|r| r.invariant_checked).sum();
    let flows: usize = rows.iter().map(|r| r.flows).sum();
    let completed: usize = rows.iter().map(|r| r.completed).sum();
    let scheduled: Vec<&SummaryRow> = summary
        .iter()
        .skip(1)
        .filter(|s| s.config.starts_with("schedtcp/"))
        .collect();
    let worst = scheduled
        .iter()
        .map(|s| (s.competitor_ratio_mean - 1.0).abs())
        .fold(0.0, f64::max);
    // The goal is met when every schedtcp policy's is.
    let all = Word::all_met(
        verdicts
            .iter()
            .filter(|v| v.claim.starts_with("schedtcp/"))
            .map(|v| v.word),
    );
    let g = &p.gtcp;
    format!(
        "# {NAME}: a long plain-TCP competitor beside the pair, default configuration\n\n\
{desc}\n\n\
Source 1 of the dumbbell (same access links) carries one plain-TCP transfer that starts at \
{at} s and never ends; source 0 carries the Table 2 workload through `schedtcp` (the shipped \
core over the simulated TCP, driven as the tunnel drives it) under each policy, and once as \
plain TCP without the tunnel. Bytes are counted at the receivers over [{w0}, {w1}) s (the \
first {w0} s are warm-up). The core's configuration is its default (`GtcpConfig::default()`): \
chunk {chunk} B, per-flow window {fw} B, `send_buffer` {sb} B, low-water mark {lowat} B. \
Each configuration runs on the same {runs} sample paths (seeds {s0}–{s1}); the ratio is per \
run (competitor's bytes under the policy / under the tunnel's `tcp` policy on the same \
path), then averaged, with a 95% Student-t interval over the runs.\n\n\
## Result\n\n{table}\n\
Goal: every policy within ±{goal} of `tcp`. Largest deviation of a mean: \
{worst}; {all}.\n\n\
Paper 000 (Proposition 1, Figure 6) claims the pair's share is exactly plain TCP's under any \
policy, with unbounded buffers; with a 1 MiB bound per flow instead of per connection (the \
hand-over rule this design replaces), the testbed measured the competitor gaining 35–80% under \
`srpt` and `fair`. `pair / under tcp policy` is \
the workload's own goodput over the window: a pair that keeps its connections busy as plain \
TCP would keeps it at 1.\n\n\
{flows} workload flows arrived over all runs and configurations, {completed} completed by \
the end of the run (flows still running at the end are counted by their delivered bytes); \
{checked} closing connections checked the invariant; errors and violations: {errors}.\n\n\
![competitor over time](competitor_over_time.svg)\n\n![ratios](ratio.svg)\n\n\
Files: `runs.csv` (every run), `nonintrusive.csv` (this table), `over_time.csv`, \
`nonintrusive.json`. Reproduce: `schedtcp experiment run {NAME}`.\n",
        desc = packet::describe(s62),
        at = p.competitor_at_s,
        w0 = p.warmup_s,
        w1 = p.duration_s,
        chunk = g.core.chunk,
        fw = g.core.flow_window,
        sb = g.core.send_buffer,
        lowat = g.notsent_lowat,
        runs = p.runs,
        s0 = p.seed,
        s1 = p.seed + p.runs as u64 - 1,
        goal = pct(p.goal, 0),
        worst = pct(worst, 2),
        all = match all {
            Word::Met => "**met**: every interval lies inside the band",
            Word::NotMet => "**not met**: an interval lies outside the band",
            _ => "**undecided**: an interval straddles the band's edge (see the verdicts)",
        },
    )
}
