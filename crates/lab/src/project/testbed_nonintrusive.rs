//! On the real-TCP testbed: a long plain-TCP download beside a Table 2-like Poisson
//! download workload through the tunnel, with the kernel's DEFAULT receive buffers (so the
//! `tbf` bottleneck's queue drops packets, as a real path does) and the tunnel's default
//! configuration. The competitor's throughput under each policy is compared with its
//! throughput under the tunnel's `tcp` policy, run by run on the same arrivals.

use crate::check_param;
use crate::engine::intrusion::{competitor_verdict, ratio_plot};
use crate::engine::testbed::{sample_paths, Arrivals, GOODPUT_SHARE};
use crate::engine::verdict::Verdict;
use crate::engine::within_goal;
use crate::engine::{md_table, mean_ci, pct};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::bail;
use serde::{Deserialize, Serialize};
use testbed::run::{Invariant, VariantRun};
use testbed::workload::PlannedFlow;
use testbed::{BedConfig, Queue, Session};

pub const NAME: &str = "testbed-nonintrusive";
pub const DESCRIPTION: &str =
    "On the real-TCP testbed (root): a long plain-TCP download beside the Poisson workload through the tunnel, kernel default buffers; competitor's throughput per policy vs tcp";
pub const SCENARIO: &str = include_str!("../../scenarios/testbed-nonintrusive.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    runs: usize,
    policies: Vec<String>,
    plain: bool,
    rate_bytes_per_s: u64,
    burst_bytes: u64,
    queue_bytes: u64,
    origin_rmem_max: u64,
    alpha: f64,
    c: f64,
    max_size: u64,
    load: f64,
    arrivals_s: f64,
    warmup_s: f64,
    stop_s: f64,
    bin_s: f64,
    goal: f64,
    warm_pool: usize,
    flow_timeout_s: f64,
    prefix: String,
    /// One-way delay the TUN router adds (ms; 0: no router, `tbf` alone).
    #[serde(default)]
    delay_ms: f64,
    /// TCP congestion control of the origin and destination (empty: the kernel's default).
    #[serde(default)]
    congestion_control: String,
    /// Long plain-TCP downloads beside the workload (default 1); their bytes
    /// are summed into "the competitor". More of them take a larger share of the link, so the
    /// same shift of bytes is a smaller, less noisy ratio.
    #[serde(default = "one")]
    competitors: usize,
}

fn one() -> usize {
    1
}

#[derive(Debug, Clone, Serialize)]
struct RunRow {
    run: usize,
    order: usize,
    variant: String,
    flows: usize,
    failed: usize,
    competitor_bytes: u64,
    pair_bytes: u64,
    competitor_rate_bytes_per_s: f64,
    pair_rate_bytes_per_s: f64,
    competitor_ratio_to_tcp: f64,
    pair_ratio_to_tcp: f64,
    mean_completion_s: f64,
    bottleneck_drops: u64,
    wall_s: f64,
    server_checked: u64,
    server_violated: u64,
    /// Connection-seconds the server's pool connections owed bytes and had none to send
    /// (the whole run).
    server_starved_s: f64,
    /// Of those, periods that began with bytes waiting for the client's credit.
    server_starved_by_credit_s: f64,
}

#[derive(Debug, Clone, Serialize)]
struct SummaryRow {
    variant: String,
    runs: usize,
    competitor_mean_bytes_per_s: f64,
    competitor_ratio_mean: f64,
    competitor_ratio_ci95: f64,
    pair_ratio_mean: f64,
    pair_ratio_ci95: f64,
    completion_ratio_mean: f64,
    completion_ratio_ci95: f64,
    drops_per_run: f64,
    starved_s_per_run: f64,
    starved_by_credit_s_per_run: f64,
    verdict: String,
}

/// `E[min(S, max)]` of `P(S > x) = (1 + cx)^(−α)`: the mean of the capped sizes.
fn capped_mean(alpha: f64, c: f64, max: f64) -> f64 {
    (1.0 - (1.0 + c * max).powf(1.0 - alpha)) / (c * (alpha - 1.0))
}

/// Bytes of `bins` (one per `bin_s`) in `[from_s, to_s)`.
fn window(bins: &[u64], bin_s: f64, from_s: f64, to_s: f64) -> u64 {
    let (a, b) = (
        (from_s / bin_s).round() as usize,
        (to_s / bin_s).round() as usize,
    );
    bins.iter().take(b).skip(a).sum()
}

/// The plan: the workload's numbers, the variants in order, each run's flows (the
/// workload's, then the competitors') and the bed.
struct Plan {
    seed: u64,
    mean_size: f64,
    lambda: f64,
    variants: Vec<String>,
    plans: Vec<Vec<PlannedFlow>>,
    bed: BedConfig,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let plan = plan(ctx, &p)?;
    let (runs, cc) = run_all(ctx, &p, &plan)?;
    report(ctx, &p, &plan, &cc, &runs)
}

/// What a run keeps to be analysed again: every run as the testbed measured it (each flow's
/// bytes per bin included) and the bed's congestion control.
#[derive(Serialize, Deserialize)]
struct Raw {
    congestion_control: String,
    runs: Vec<RawRun>,
}

/// One run of [`Raw`]: sample path, order within it, and what the testbed measured.
#[derive(Serialize, Deserialize)]
struct RawRun {
    run: usize,
    order: usize,
    measured: VariantRun,
}

/// The file [`Raw`] is kept in.
const RAW: &str = "variant_runs.json.gz";

/// Analyses and renders again the runs an earlier run wrote to `dir` ([`RAW`]), without the
/// testbed.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let plan = plan(ctx, &p)?;
    let path = dir.join(RAW);
    let raw: Raw = crate::engine::saved::read_json_gz(dir, RAW)?;
    for r in &raw.runs {
        anyhow::ensure!(
            r.run < p.runs && plan.variants.contains(&r.measured.variant),
            "{}: run {} under `{}` is outside the scenario's runs and variants",
            path.display(),
            r.run,
            r.measured.variant
        );
        anyhow::ensure!(
            r.measured.results.len() >= p.competitors,
            "{}: run {} holds fewer flows than the scenario's competitors",
            path.display(),
            r.run
        );
    }
    let runs: Vec<Run> = raw
        .runs
        .into_iter()
        .map(|r| (r.run, r.order, r.measured))
        .collect();
    report(ctx, &p, &plan, &raw.congestion_control, &runs)
}

/// Checks the scenario and plans the runs.
fn plan(ctx: &Context, p: &Params) -> anyhow::Result<Plan> {
    check_param!(p.runs >= 1 && p.runs <= 1000, "runs must be 1..=1000");
    check_param!(
        p.policies.first().map(String::as_str) == Some("tcp"),
        "policies must start with tcp (the reference)"
    );
    for pol in &p.policies {
        testbed::check_policy(pol)
            .map_err(|e| anyhow::anyhow!("invalid scenario parameter: {e:#}"))?;
    }
    check_param!(p.alpha > 1.0 && p.c > 0.0, "need alpha > 1, c > 0");
    check_param!(p.load > 0.0 && p.load < 1.0, "load must be in (0, 1)");
    check_param!(p.bin_s > 0.0, "bin_s must be > 0");
    check_param!(
        0.0 <= p.warmup_s && p.warmup_s < p.stop_s && p.stop_s <= p.arrivals_s,
        "need 0 <= warmup_s < stop_s <= arrivals_s"
    );
    check_param!(p.goal > 0.0 && p.goal < 1.0, "goal must be in (0, 1)");
    check_param!(p.flow_timeout_s >= 1.0, "flow_timeout_s must be >= 1");
    check_param!(
        (1..=64).contains(&p.competitors),
        "competitors must be 1..=64"
    );
    let seed = ctx.seed(p.seed);
    let goodput = p.rate_bytes_per_s as f64 * GOODPUT_SHARE;
    let mean_size = capped_mean(p.alpha, p.c, p.max_size as f64);
    let lambda = p.load * goodput / mean_size;
    let mut variants = p.policies.clone();
    if p.plain {
        variants.push("plain".into());
    }
    // Sample path k: the arrivals of seed + k in [0, arrivals_s), then the competitors.
    let plans = sample_paths(
        &Arrivals {
            lambda,
            arrivals_s: p.arrivals_s,
            alpha: p.alpha,
            c: p.c,
            max_size: p.max_size,
            competitors: p.competitors,
            stop_s: p.stop_s,
        },
        p.runs,
        seed,
    )?;

    let mut bed = BedConfig::new(p.rate_bytes_per_s, Queue::Bfifo(p.queue_bytes));
    bed.burst_bytes = p.burst_bytes;
    bed.origin_rmem_max = p.origin_rmem_max;
    bed.prefix = p.prefix.clone();
    bed.delay_ms = p.delay_ms;
    bed.congestion_control = p.congestion_control.clone();
    Ok(Plan {
        seed,
        mean_size,
        lambda,
        variants,
        plans,
        bed,
    })
}

/// One run: (run index, order within it, what the testbed measured).
type Run = (usize, usize, VariantRun);

/// Runs every variant on every sample path on the testbed; returns the runs and the bed's
/// congestion control.
fn run_all(ctx: &Context, p: &Params, plan: &Plan) -> anyhow::Result<(Vec<Run>, String)> {
    let Plan {
        variants, plans, ..
    } = plan;
    let bin = testbed::find_binary()?;
    let pb = ctx.progress((p.runs * variants.len()) as u64, "runs x variants");
    let mut session = Session::start(plan.bed.clone(), &bin)?;
    let cc = session.bed().congestion_control();
    session.tunnel.warm_pool = p.warm_pool;
    let mut runs: Vec<Run> = Vec::new();
    let outcome = (|| -> anyhow::Result<()> {
        for (k, plan) in plans.iter().enumerate() {
            for j in 0..variants.len() {
                // Rotated order: slow drift of the machine favours no variant.
                let v = &variants[(j + k) % variants.len()];
                pb.set_message(format!("run {} {v}", k + 1));
                let policy = (v != "plain").then_some(v.as_str());
                let mut r = session.run(policy, plan, p.bin_s, p.flow_timeout_s)?;
                r.variant = v.clone();
                let first = r.results.len().saturating_sub(p.competitors);
                for c in &r.results[first..] {
                    if !c.stopped || c.error.is_some() {
                        bail!(
                            "run {} under {v}: a competitor did not run to its stop: {:?}",
                            k + 1,
                            c.error
                        );
                    }
                }
                runs.push((k, j, r));
                pb.inc(1);
            }
        }
        Ok(())
    })();
    pb.finish_and_clear();
    session.conclude(outcome)?;

    Ok((runs, cc))
}

/// Analyses the runs and renders the outputs and the summary.
fn report(
    ctx: &Context,
    p: &Params,
    plan: &Plan,
    cc: &str,
    runs: &[Run],
) -> anyhow::Result<String> {
    ctx.write_json_gz(
        RAW,
        &Raw {
            congestion_control: cc.to_string(),
            runs: runs
                .iter()
                .map(|(run, order, measured)| RawRun {
                    run: *run,
                    order: *order,
                    measured: measured.clone(),
                })
                .collect(),
        },
    )?;
    let (rows, completion_ratio) = run_rows(p, runs);
    ctx.write_csv("runs.csv", &rows)?;
    let summary = variant_rows(p, &plan.variants, &rows, &completion_ratio);
    ctx.write_csv("testbed_nonintrusive.csv", &summary)?;
    ctx.write_json("verdicts.json", &verdicts(p, &summary))?;
    plots(ctx, p, &plan.variants, &rows, &summary, runs)?;
    let (mean_size, lambda) = (plan.mean_size, plan.lambda);
    let mut inv = Invariant::default();
    for (_, _, r) in runs {
        if let Some(i) = r.server {
            inv.merge(i);
        }
    }
    ctx.write_json(
        "testbed_nonintrusive.json",
        &serde_json::json!({
            "summary": summary,
            "lambda_per_s": lambda,
            "mean_size_bytes": mean_size,
            "congestion_control": cc,
            "invariant_server": inv,
        }),
    )?;

    Ok(render(p, plan, cc, &summary_table(&summary), &rows, &inv))
}

/// Per run: the competitor's and the workload's bytes over the window, their ratios to the
/// same run under `tcp`, and (beside, by row) the workload's mean completion time over
/// `tcp`'s.
fn run_rows(p: &Params, runs: &[Run]) -> (Vec<RunRow>, Vec<f64>) {
    let span = p.stop_s - p.warmup_s;
    let mut rows: Vec<RunRow> = runs
        .iter()
        .map(|(k, j, r)| {
            let (tunnel, comp) = r.results.split_at(r.results.len() - p.competitors);
            let cb: u64 = comp
                .iter()
                .map(|x| window(&x.bins, p.bin_s, p.warmup_s, p.stop_s))
                .sum();
            let pb: u64 = tunnel
                .iter()
                .map(|x| window(&x.bins, p.bin_s, p.warmup_s, p.stop_s))
                .sum();
            let done: Vec<f64> = tunnel.iter().filter_map(|x| x.completion_s).collect();
            RunRow {
                run: *k,
                order: *j,
                variant: r.variant.clone(),
                flows: tunnel.len(),
                failed: tunnel.iter().filter(|x| x.error.is_some()).count(),
                competitor_bytes: cb,
                pair_bytes: pb,
                competitor_rate_bytes_per_s: cb as f64 / span,
                pair_rate_bytes_per_s: pb as f64 / span,
                competitor_ratio_to_tcp: f64::NAN,
                pair_ratio_to_tcp: f64::NAN,
                mean_completion_s: mean_ci(&done).0,
                bottleneck_drops: r.bottleneck_drops,
                wall_s: r.wall_s,
                server_checked: r.server.map_or(0, |i| i.checked),
                server_violated: r.server.map_or(0, |i| i.violated),
                server_starved_s: r.server.map_or(0.0, |i| i.starved_s),
                server_starved_by_credit_s: r.server.map_or(0.0, |i| i.starved_by_credit_s),
            }
        })
        .collect();
    let reference: Vec<Option<(u64, u64, f64)>> = (0..p.runs)
        .map(|k| {
            rows.iter()
                .find(|r| r.run == k && r.variant == "tcp")
                .map(|r| (r.competitor_bytes, r.pair_bytes, r.mean_completion_s))
        })
        .collect();
    let mut completion_ratio = vec![f64::NAN; rows.len()];
    for (row, cr) in rows.iter_mut().zip(completion_ratio.iter_mut()) {
        if let Some((c, pr, t)) = reference[row.run] {
            row.competitor_ratio_to_tcp = row.competitor_bytes as f64 / c.max(1) as f64;
            row.pair_ratio_to_tcp = row.pair_bytes as f64 / pr.max(1) as f64;
            *cr = row.mean_completion_s / t;
        }
    }
    (rows, completion_ratio)
}

/// Per variant: the means of the ratios with their 95% intervals, and the verdict on the goal.
fn variant_rows(
    p: &Params,
    variants: &[String],
    rows: &[RunRow],
    completion_ratio: &[f64],
) -> Vec<SummaryRow> {
    let mut summary = Vec::new();
    for v in variants {
        let idx: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].variant == *v).collect();
        let col = |f: &dyn Fn(usize) -> f64| idx.iter().map(|&i| f(i)).collect::<Vec<f64>>();
        let (cm, _) = mean_ci(&col(&|i| rows[i].competitor_rate_bytes_per_s));
        let (cr, cci) = mean_ci(&col(&|i| rows[i].competitor_ratio_to_tcp));
        let (pr, pci) = mean_ci(&col(&|i| rows[i].pair_ratio_to_tcp));
        let (tr, tci) = mean_ci(&col(&|i| completion_ratio[i]));
        let (dr, _) = mean_ci(&col(&|i| rows[i].bottleneck_drops as f64));
        let (st, _) = mean_ci(&col(&|i| rows[i].server_starved_s));
        let (stc, _) = mean_ci(&col(&|i| rows[i].server_starved_by_credit_s));
        summary.push(SummaryRow {
            variant: v.clone(),
            runs: idx.len(),
            competitor_mean_bytes_per_s: cm,
            competitor_ratio_mean: cr,
            competitor_ratio_ci95: cci,
            pair_ratio_mean: pr,
            pair_ratio_ci95: pci,
            completion_ratio_mean: tr,
            completion_ratio_ci95: tci,
            drops_per_run: dr,
            starved_s_per_run: st,
            starved_by_credit_s_per_run: stc,
            verdict: if v == "tcp" {
                "reference".into()
            } else {
                within_goal(cr, cci, p.goal)
            },
        });
    }
    summary
}

/// Per policy other than `tcp`: the competitor's bytes over its bytes under `tcp`, paired by
/// run, against the goal `1 ± goal`.
fn verdicts(p: &Params, summary: &[SummaryRow]) -> Vec<Verdict> {
    summary
        .iter()
        .filter(|s| s.variant != "tcp")
        .map(|s| {
            competitor_verdict(
                format!(
                    "{}: the plain-TCP competitor's bytes / under tcp, paired by run",
                    s.variant
                ),
                (s.competitor_ratio_mean, s.competitor_ratio_ci95),
                p.goal,
                "testbed_nonintrusive.csv",
                ("variant", &s.variant),
            )
        })
        .collect()
}

/// The competitor's ratio per run and variant, and its throughput over time (mean over runs).
fn plots(
    ctx: &Context,
    p: &Params,
    variants: &[String],
    rows: &[RunRow],
    summary: &[SummaryRow],
    runs: &[Run],
) -> anyhow::Result<()> {
    let labels: Vec<String> = variants.to_vec();
    let per_run: Vec<(usize, f64)> = rows
        .iter()
        .filter_map(|r| {
            Some((
                labels.iter().position(|l| *l == r.variant)?,
                r.competitor_ratio_to_tcp,
            ))
        })
        .collect();
    let means: Vec<f64> = summary.iter().map(|s| s.competitor_ratio_mean).collect();
    ratio_plot(ctx, &labels, &per_run, &means, p.goal, "ratio.svg")?;
    // The competitor's throughput over time, mean over runs.
    let nb = (p.stop_s / p.bin_s).round() as usize;
    let series = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let rs: Vec<&VariantRun> = runs
                .iter()
                .filter(|x| x.2.variant == *v)
                .map(|x| &x.2)
                .collect();
            let pts = (0..nb)
                .map(|b| {
                    let sum: u64 = rs
                        .iter()
                        .flat_map(|r| &r.results[r.results.len() - p.competitors..])
                        .map(|c| c.bins.get(b).copied().unwrap_or(0))
                        .sum();
                    (
                        (b as f64 + 0.5) * p.bin_s,
                        sum as f64 / rs.len().max(1) as f64 / p.bin_s / 1e6,
                    )
                })
                .collect();
            let name = format!("competitor, tunnel under {v}");
            if i == 0 {
                Series::line(name, pts)
            } else {
                Series::dashed(name, pts)
            }
        })
        .collect();
    render_svg(
        &LinePlot {
            title: format!(
                "The plain-TCP competitor's mean throughput over {} runs, by the tunnel's policy",
                p.runs
            ),
            x_label: "time (s)".into(),
            y_label: "throughput (MB/s)".into(),
            series,
            ..Default::default()
        },
        &ctx.path("competitor_over_time.svg"),
    )?;
    Ok(())
}

/// The table of the variants.
fn summary_table(summary: &[SummaryRow]) -> String {
    md_table(
        &[
            "tunnel policy",
            "competitor (MB/s)",
            "competitor / under tcp (95% CI)",
            "pair / under tcp (95% CI)",
            "pair E[T] / under tcp (95% CI)",
            "drops per run",
            "starved conn·s per run (by credit)",
            "verdict (competitor)",
        ],
        &summary
            .iter()
            .map(|s| {
                vec![
                    s.variant.clone(),
                    format!("{:.3}", s.competitor_mean_bytes_per_s / 1e6),
                    format!(
                        "{:.3} ± {:.3}",
                        s.competitor_ratio_mean, s.competitor_ratio_ci95
                    ),
                    format!("{:.3} ± {:.3}", s.pair_ratio_mean, s.pair_ratio_ci95),
                    format!(
                        "{:.3} ± {:.3}",
                        s.completion_ratio_mean, s.completion_ratio_ci95
                    ),
                    format!("{:.0}", s.drops_per_run),
                    format!(
                        "{:.2} ({:.2})",
                        s.starved_s_per_run, s.starved_by_credit_s_per_run
                    ),
                    s.verdict.clone(),
                ]
            })
            .collect::<Vec<_>>(),
    )
}

/// The summary.
fn render(
    p: &Params,
    plan: &Plan,
    cc: &str,
    table: &str,
    rows: &[RunRow],
    inv: &Invariant,
) -> String {
    let Plan {
        seed,
        mean_size,
        lambda,
        bed,
        ..
    } = plan;
    let (seed, mean_size, lambda) = (*seed, *mean_size, *lambda);
    let failed: usize = rows.iter().map(|r| r.failed).sum();
    let flows: usize = rows.iter().map(|r| r.flows).sum();
    format!(
        "# {NAME}: a long plain-TCP download beside the tunnel's workload, real TCP\n\n\
On the testbed. {path} Real `schedtcp server` \
and `schedtcp client` processes with their default configuration (policy set per variant), \
restarted for every run. The workload: Poisson arrivals over [0, {arr} s) of λ = {lam:.2} \
downloads/s through the tunnel, sizes `P(S > x) = (1 + cx)^(−{alpha})`, c = {c:e}, cut at \
{maxmb:.0} MB (mean {ms:.2} MB), offered load {load} of the goodput. Beside it, {competing} (no tunnel) from the same target \
through the same bottleneck from 0 s to {stop} s (stopped, not finished){summed}. Bytes are counted as the applications received them over \
[{w0}, {stop}) s. {runs} runs: run k uses the arrivals of seed {seed} + k under every \
variant (in rotated order), and the ratio is taken within run k, then averaged with a 95% \
Student-t interval.\n\n\
## Result\n\n{table}\n\
Goal: the competitor within ±{goal} of under `tcp` for every policy. `pair` is the \
workload's own bytes over the same window; `pair E[T]` the mean completion time of the \
workload's downloads (lower: the pair finishes sooner). `starved`: connection-seconds per \
run the server's pool connections owed bytes (q_v > 0) and the policy had none it could send, \
when plain TCP would have been sending; in brackets, periods that began with bytes held back by \
the client's receive credit.\n\n\
Paper 000 (Figure 6) shows a sample flow's throughput \"similar\" under both policies (no \
number).\n\n\
{flows} workload downloads over all runs, {failed} failed. The server checked {chk} pool \
connections, {vio} violated the invariant.\n\n\
![competitor over time](competitor_over_time.svg)\n\n![ratios](ratio.svg)\n\n\
Files: `runs.csv`, `testbed_nonintrusive.csv`, `testbed_nonintrusive.json`, `verdicts.json`, `{RAW}` (every run as \
measured, each flow's bytes per bin: `schedtcp experiment render` analyses it again). Reproduce (root): \
`schedtcp experiment run {NAME}`.\n",
        path = bed.describe(cc),
        competing = if p.competitors == 1 {
            "one plain-TCP download runs".to_string()
        } else {
            format!("{} plain-TCP downloads run", p.competitors)
        },
        summed = if p.competitors == 1 {
            ""
        } else {
            "; \"the competitor\" below is their bytes summed"
        },
        arr = p.arrivals_s,
        lam = lambda,
        alpha = p.alpha,
        c = p.c,
        maxmb = p.max_size as f64 / 1e6,
        ms = mean_size / 1e6,
        load = p.load,
        stop = p.stop_s,
        w0 = p.warmup_s,
        runs = p.runs,
        goal = pct(p.goal, 0),
        chk = inv.checked,
        vio = inv.violated,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_mean_and_window() {
        // Uncapped: 1/(c(α−1)).
        assert!((capped_mean(3.0, 1e-6, f64::INFINITY) - 5e5).abs() < 1e-6);
        // Capped at 0: nothing.
        assert_eq!(capped_mean(3.0, 1e-6, 0.0), 0.0);
        let m = capped_mean(3.0, 1e-6, 1e6);
        assert!(m < 5e5 && m > 3.5e5, "{m}");
        let bins = [1, 2, 4, 8, 16];
        assert_eq!(window(&bins, 0.5, 0.5, 2.0), 2 + 4 + 8);
        assert_eq!(window(&bins, 0.5, 0.0, 10.0), 31);
    }
}
