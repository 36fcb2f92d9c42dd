//! Paper 000, Figure 7: distribution of the number of active flows per policy.

use crate::engine::packet::{
    active_batch_means, active_distribution, describe, legend, run_all, Cfg, Params, AA_LABEL,
};
use crate::engine::verdict::{Interval, Source, Verdict, DIFFERENCE};
use crate::engine::{md_table, mean_ci, says};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::Context as _;
use serde::Serialize;
use sim::scenario::DriverKind;

pub const NAME: &str = "fig7";
pub const DESCRIPTION: &str =
    "Paper 000 Fig. 7: distribution of the number of active flows under tcp, SRPT, FAIR, LAS, PS+PS (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/fig7.toml");

#[derive(Serialize)]
struct Stat {
    label: String,
    mean: f64,
    p_zero: f64,
    median: usize,
    p90: usize,
    p_ge_10: f64,
    mean_ratio_to_tcp: f64,
    /// E[N] − E[N_tcp], mean of the paired batch differences.
    diff_to_tcp: f64,
    /// Half-width of its 95% confidence interval (batch means over runs).
    diff_ci95: f64,
    /// Paired batch samples behind the interval.
    batches: usize,
}

/// Batches per run for the E[N] interval.
const BATCHES: usize = 10;

fn quantile_n(pmf: &[f64], q: f64) -> usize {
    let mut acc = 0.0;
    for (n, p) in pmf.iter().enumerate() {
        acc += p;
        if acc >= q - 1e-12 {
            return n;
        }
    }
    pmf.len().saturating_sub(1)
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let mut p = Params::load(ctx)?;
    p.seed = ctx.seed(p.seed);
    let cfgs = p.configs();
    let out = run_all(ctx, &p, &cfgs)?;
    ctx.runs_done()?;
    let dists: Vec<Vec<f64>> = out
        .iter()
        .map(|r| active_distribution(r, p.duration_s))
        .collect();
    let mean_of = |d: &[f64]| d.iter().enumerate().map(|(n, x)| n as f64 * x).sum::<f64>();
    let tcp_mean = mean_of(&dists[0]);
    let batch: Vec<Vec<Vec<f64>>> = out
        .iter()
        .map(|r| active_batch_means(r, p.duration_s, BATCHES))
        .collect();
    let diffs = |k: usize| -> Vec<f64> {
        batch[k]
            .iter()
            .flatten()
            .zip(batch[0].iter().flatten())
            .map(|(x, t)| x - t)
            .collect()
    };
    let stats: Vec<Stat> = cfgs
        .iter()
        .zip(&dists)
        .enumerate()
        .map(|(k, (c, d))| (k, c, d, mean_ci(&diffs(k))))
        .map(|(k, c, d, (diff, half))| Stat {
            diff_to_tcp: diff,
            diff_ci95: if k == 0 { 0.0 } else { half },
            batches: diffs(k).len(),
            label: c.label.clone(),
            mean: mean_of(d),
            p_zero: d.first().copied().unwrap_or(0.0),
            median: quantile_n(d, 0.5),
            p90: quantile_n(d, 0.9),
            p_ge_10: d.iter().skip(10).sum(),
            mean_ratio_to_tcp: mean_of(d) / tcp_mean.max(f64::MIN_POSITIVE),
        })
        .collect();
    ctx.write_csv("fig7_summary.csv", &stats)?;
    let verdicts = verdicts(&stats);
    ctx.write_json("verdicts.json", &verdicts)?;
    // The distributions: one row per n, one column per configuration.
    let nmax = dists.iter().map(|d| d.len()).max().unwrap_or(0);
    let path = ctx.path("fig7.csv");
    let mut w =
        csv::Writer::from_path(&path).with_context(|| format!("creating {}", path.display()))?;
    let mut header = vec!["n".to_string()];
    header.extend(cfgs.iter().map(|c| c.label.clone()));
    w.write_record(&header)?;
    for n in 0..nmax {
        let mut rec = vec![n.to_string()];
        rec.extend(
            dists
                .iter()
                .map(|d| format!("{:.6}", d.get(n).copied().unwrap_or(0.0))),
        );
        w.write_record(&rec)?;
    }
    w.flush()?;
    let cdf = |d: &[f64]| {
        let mut acc = 0.0;
        (0..nmax)
            .map(|n| {
                acc += d.get(n).copied().unwrap_or(0.0);
                (n as f64, acc)
            })
            .collect::<Vec<_>>()
    };
    for (driver, file) in [
        (DriverKind::Schedtcp, "fig7_schedtcp.svg"),
        (DriverKind::GtcpIdeal, "fig7_ideal.svg"),
    ] {
        let mut series = vec![Series::line("tcp", cdf(&dists[0]))];
        for (c, d) in cfgs.iter().zip(&dists) {
            if c.kind == driver {
                series.push(Series::line(legend(c), cdf(d)));
            }
        }
        if series.len() > 1 {
            render_svg(
                &LinePlot {
                    title: format!("Active flows, time-weighted CDF, {}", driver.name()),
                    x_label: "number of active flows n".into(),
                    y_label: "P(N ≤ n)".into(),
                    series,
                    y_range: Some((0.0, 1.0)),
                    ..Default::default()
                },
                &ctx.path(file),
            )?;
        }
    }
    Ok(summary(&p, &cfgs, &stats, &verdicts))
}

/// Paper 000's claim on each configuration's E[N] against tcp's.
fn paper_claim(label: &str) -> &'static str {
    if label.ends_with("srpt") || label.ends_with("fair") {
        "fewer active flows than tcp (SRPT and FAIR minimise the number of active connections)"
    } else if label.ends_with("las") {
        "fewer active flows than tcp, more than SRPT and FAIR"
    } else if label == AA_LABEL {
        "no difference (tcp against itself)"
    } else {
        "not in the paper"
    }
}

/// E[N] − E[N_tcp] of every configuration but tcp, over the batch means paired with tcp's.
fn verdicts(stats: &[Stat]) -> Vec<Verdict> {
    stats
        .iter()
        .skip(1)
        .map(|s| {
            Verdict::new(
                format!("{}: E[N] − E[N_tcp]", s.label),
                Some(paper_claim(&s.label)),
                Interval::new(s.diff_to_tcp, s.diff_ci95),
                DIFFERENCE,
            )
            .from(Source::new(
                "fig7_summary.csv",
                "diff_to_tcp",
                &[("label", &s.label)],
            ))
        })
        .collect()
}

fn summary(p: &Params, cfgs: &[Cfg], stats: &[Stat], verdicts: &[Verdict]) -> String {
    let rows: Vec<Vec<String>> = stats
        .iter()
        .map(|s| {
            vec![
                s.label.clone(),
                format!("{:.2}", s.mean),
                format!("{:.3}", s.mean_ratio_to_tcp),
                format!("{:+.2} ± {:.2}", s.diff_to_tcp, s.diff_ci95),
                format!("{:.1}%", 100.0 * s.p_zero),
                s.median.to_string(),
                s.p90.to_string(),
                format!("{:.1}%", 100.0 * s.p_ge_10),
            ]
        })
        .collect();
    let t = md_table(
        &[
            "configuration",
            "E[N]",
            "E[N] / E[N_tcp]",
            "E[N] − E[N_tcp] (95% CI)",
            "P(N = 0)",
            "median",
            "90th pct",
            "P(N ≥ 10)",
        ],
        &rows,
    );
    let order = |driver: &str| {
        let mut v: Vec<(String, f64)> = cfgs
            .iter()
            .zip(stats)
            .filter(|(c, _)| c.kind == DriverKind::Tcp || c.driver == driver)
            .map(|(c, s)| (legend(c), s.mean))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v.iter()
            .map(|(n, m)| format!("{n} ({m:.2})"))
            .collect::<Vec<_>>()
            .join(" < ")
    };
    // Every configuration but tcp has its verdict, in the same order.
    let verdict = |label: &str| match stats.iter().position(|s| s.label == label) {
        Some(k) if k > 0 => format!(
            "{} (ΔE[N] = {:+.2} ± {:.2})",
            says(
                verdicts[k - 1].word,
                "fewer active flows than tcp",
                "more active flows than tcp"
            ),
            stats[k].diff_to_tcp,
            stats[k].diff_ci95
        ),
        Some(_) => "the reference".to_string(),
        None => "not run".to_string(),
    };

    format!(
        "# {NAME}: paper 000, Figure 7 (number of active flows)\n\n\
{desc}\n\n\
N(t) = flows that have arrived and are not yet entirely delivered to the destination \
application, time-weighted over the arrival window [0, {dur} s) of every run. (The paper's \
figure says \"active connections\"; under gtcp the connections are the ones tcp would have, \
by construction, so what the policies change is the number of unfinished flows — \
Proposition 2's N(t).)\n\n\
Paper 000: SRPT and FAIR minimise the number of active connections; LAS is better than \
tcp but worse than SRPT and FAIR (size-awareness matters).\n\n\
## Ours\n\n{t}\n\
Ordered by E[N]: schedtcp: {o_s}; gtcp-ideal: {o_i}.\n\n\
Each flow's transfer time is its mean over {reps} repeats of the sample path under \
independent perturbations (host jitter up to {jit} ns per packet); `tcp (A/A)` is tcp under \
{reps} other perturbations, compared with tcp like every policy: {v_aa}.\n\n\
* schedtcp SRPT: {v_s}; FAIR: {v_f}; LAS: {v_l}. gtcp-ideal SRPT: {v_is}; FAIR: {v_if}; \
LAS: {v_il}. A verdict needs the 95% interval of \
the paired difference to exclude 0: each run's arrival window is cut into {batches} batches, \
and the batch means of a configuration are paired with `tcp`'s on the same sample path \
({nb} pairs).\n\
* Little's law ties E[N] to the mean transfer time (λ E[T]); see `table2` for the transfer \
times and why losses limit what the policies can gain (head-of-line blocking behind \
connections in loss recovery).\n\n\
![schedtcp](fig7_schedtcp.svg)\n\n![gtcp-ideal](fig7_ideal.svg)\n",
        desc = describe(p),
        dur = p.duration_s,
        o_s = order("schedtcp"),
        o_i = order("gtcp-ideal"),
        reps = p.repeats,
        jit = p.jitter_ns,
        v_aa = verdict(AA_LABEL),
        v_is = verdict("gtcp-ideal/srpt"),
        v_if = verdict("gtcp-ideal/fair"),
        v_il = verdict("gtcp-ideal/las"),
        v_s = verdict("schedtcp/srpt"),
        v_f = verdict("schedtcp/fair"),
        v_l = verdict("schedtcp/las"),
        batches = BATCHES,
        nb = stats.first().map_or(0, |s| s.batches),
    )
}
