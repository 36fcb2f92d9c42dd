//! Paper 000, Figure 9: transfer time against flow size, and its dispersion per size.

use crate::engine::packet::{describe, legend, quantile, run_all, Cfg, Params, RunOut, AA_LABEL};
use crate::engine::repeats::{paired_diff, per_repeat};
use crate::engine::verdict::{Interval, Source, Verdict, DIFFERENCE};
use crate::engine::{logspace, md_table, verdict};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use serde::Serialize;

pub const NAME: &str = "fig9";
pub const DESCRIPTION: &str =
    "Paper 000 Fig. 9: transfer time vs flow size under tcp, SRPT, FAIR, LAS, PS+PS, and its dispersion (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/fig9.toml");

#[derive(Serialize)]
struct Point {
    label: String,
    run: usize,
    size_bytes: u64,
    transfer_s: f64,
}

#[derive(Serialize)]
struct Bin {
    label: String,
    bin_lo_mb: f64,
    bin_hi_mb: f64,
    flows: usize,
    p10_s: f64,
    median_s: f64,
    p90_s: f64,
    /// p90 / p10: how far apart flows of about the same size finish.
    spread: f64,
    /// p90 − p10, seconds.
    abs_spread_s: f64,
}

/// Dispersion of the larger half of the sizes minus tcp's, paired by repeat.
#[derive(Serialize)]
struct SpreadDiff {
    label: String,
    /// Mean p90/p10 per size bin minus tcp's, and the 95% half-width over repeats.
    rel_diff: f64,
    rel_diff_ci: f64,
    /// Mean p90 − p10 per size bin minus tcp's, s.
    abs_diff_s: f64,
    abs_diff_ci_s: f64,
}

/// Only bins with at least this many flows enter the dispersion summary.
const MIN_BIN: usize = 10;

fn points(runs: &[RunOut]) -> Vec<(usize, u64, f64)> {
    runs.iter()
        .enumerate()
        .flat_map(|(r, run)| {
            run.flows
                .iter()
                .filter_map(move |f| f.transfer_s.map(|t| (r, f.size, t)))
        })
        .collect()
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let mut p = Params::load(ctx)?;
    p.seed = ctx.seed(p.seed);
    let cfgs = p.configs();
    let out = run_all(ctx, &p, &cfgs)?;
    ctx.runs_done()?;
    let pts: Vec<Vec<(usize, u64, f64)>> = out.iter().map(|r| points(r)).collect();
    let mut rows = Vec::new();
    for (c, v) in cfgs.iter().zip(&pts) {
        for &(run, size, t) in v {
            rows.push(Point {
                label: c.label.clone(),
                run,
                size_bytes: size,
                transfer_s: t,
            });
        }
    }
    ctx.write_csv("fig9.csv", &rows)?;
    // Dispersion per log-spaced size bin.
    let sizes: Vec<f64> = pts[0].iter().map(|x| x.1 as f64).collect();
    let lo = sizes.iter().cloned().fold(f64::INFINITY, f64::min).max(1.0);
    let hi = sizes.iter().cloned().fold(0.0, f64::max).max(lo * 2.0);
    let edges = logspace(lo, hi * 1.000001, p.size_bins.max(1) + 1);
    let mut bins = Vec::new();
    for (c, v) in cfgs.iter().zip(&pts) {
        for w in edges.windows(2) {
            let mut t: Vec<f64> = v
                .iter()
                .filter(|x| (x.1 as f64) >= w[0] && (x.1 as f64) < w[1])
                .map(|x| x.2)
                .collect();
            t.sort_by(f64::total_cmp);
            if t.is_empty() {
                continue;
            }
            let (a, b) = (quantile(&t, 0.1), quantile(&t, 0.9));
            bins.push(Bin {
                label: c.label.clone(),
                bin_lo_mb: w[0] / 1e6,
                bin_hi_mb: w[1] / 1e6,
                flows: t.len(),
                p10_s: a,
                median_s: quantile(&t, 0.5),
                p90_s: b,
                spread: b / a.max(1e-9),
                abs_spread_s: b - a,
            });
        }
    }
    ctx.write_csv("fig9_dispersion.csv", &bins)?;
    // The dispersion of the larger half of the sizes in each repeat, minus tcp's in the
    // same repeat: relative and absolute, mean and 95% half-width over the repeats.
    let spread_reps = |k: usize, abs: bool| {
        per_repeat(&out[k], |v| {
            let per_bin: Vec<f64> = edges
                .windows(2)
                .filter_map(|w| {
                    let mut t: Vec<f64> = v
                        .iter()
                        .filter(|x| (x.0 as f64) >= w[0] && (x.0 as f64) < w[1])
                        .map(|x| x.1)
                        .collect();
                    (t.len() >= MIN_BIN).then(|| {
                        t.sort_by(f64::total_cmp);
                        let (a, b) = (quantile(&t, 0.1), quantile(&t, 0.9));
                        if abs {
                            b - a
                        } else {
                            b / a.max(1e-9)
                        }
                    })
                })
                .collect();
            let big = &per_bin[per_bin.len() / 2..];
            big.iter().sum::<f64>() / big.len().max(1) as f64
        })
    };
    let (rel_tcp, abs_tcp) = (spread_reps(0, false), spread_reps(0, true));
    let diffs: Vec<SpreadDiff> = cfgs
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, c)| {
            let (rel, rel_ci) = paired_diff(&spread_reps(k, false), &rel_tcp);
            let (abs, abs_ci) = paired_diff(&spread_reps(k, true), &abs_tcp);
            SpreadDiff {
                label: c.label.clone(),
                rel_diff: rel,
                rel_diff_ci: rel_ci,
                abs_diff_s: abs,
                abs_diff_ci_s: abs_ci,
            }
        })
        .collect();
    ctx.write_csv("fig9_spread_vs_tcp.csv", &diffs)?;
    ctx.write_json("verdicts.json", &verdicts(&diffs))?;
    for (i, (c, v)) in cfgs.iter().zip(&pts).enumerate() {
        let file = format!("fig9_{}.svg", file_name(c));
        let mut series = vec![Series::dots(
            legend(c),
            v.iter().map(|x| (x.1 as f64 / 1e6, x.2)).collect(),
        )];
        if i > 0 {
            // tcp's median per bin, for reference.
            series.push(Series::dashed(
                "tcp median",
                bins.iter()
                    .filter(|b| b.label == "tcp")
                    .map(|b| ((b.bin_lo_mb * b.bin_hi_mb).sqrt(), b.median_s))
                    .collect(),
            ));
        }
        render_svg(
            &LinePlot {
                title: format!("Transfer time vs size, {}", c.label),
                x_label: "flow size (MB)".into(),
                y_label: "transfer time (s)".into(),
                log_x: true,
                log_y: true,
                series,
                ..Default::default()
            },
            &ctx.path(&file),
        )?;
    }
    Ok(summary(&p, &cfgs, &bins, &diffs))
}

fn file_name(c: &Cfg) -> String {
    c.label.replace('/', "_").replace([' ', '(', ')'], "")
}

/// Each configuration's dispersion of transfer times (relative and absolute) minus tcp's,
/// paired by repeat, against 0.
fn verdicts(diffs: &[SpreadDiff]) -> Vec<Verdict> {
    diffs
        .iter()
        .flat_map(|d| {
            [
                ("p90 / p10", d.rel_diff, d.rel_diff_ci, "rel_diff"),
                ("p90 − p10 (s)", d.abs_diff_s, d.abs_diff_ci_s, "abs_diff_s"),
            ]
            .map(|(what, mean, half, column)| {
                Verdict::new(
                    format!("{}: dispersion {what} per size bin − tcp's", d.label),
                    Some("smaller under SRPT and FAIR than under tcp and LAS (Fig. 9)"),
                    Interval::new(mean, half),
                    DIFFERENCE,
                )
                .from(Source::new(
                    "fig9_spread_vs_tcp.csv",
                    column,
                    &[("label", &d.label)],
                ))
            })
        })
        .collect()
}

fn summary(p: &Params, cfgs: &[Cfg], bins: &[Bin], diffs: &[SpreadDiff]) -> String {
    // Mean spread over well-populated bins, and over the upper half of the sizes; relative
    // (p90/p10) or absolute (p90 − p10).
    let spread = |label: &str, big_only: bool, abs: bool| {
        let v: Vec<&Bin> = bins
            .iter()
            .filter(|b| b.label == label && b.flows >= MIN_BIN)
            .collect();
        let skip = if big_only { v.len() / 2 } else { 0 };
        let w: Vec<f64> = v
            .iter()
            .skip(skip)
            .map(|b| if abs { b.abs_spread_s } else { b.spread })
            .collect();
        (w.iter().sum::<f64>() / w.len().max(1) as f64, w.len())
    };
    let rows: Vec<Vec<String>> = cfgs
        .iter()
        .map(|c| {
            let (all, n) = spread(&c.label, false, false);
            let (big, m) = spread(&c.label, true, false);
            let (abs_all, _) = spread(&c.label, false, true);
            let (abs_big, _) = spread(&c.label, true, true);
            vec![
                c.label.clone(),
                format!("{all:.2} ({n} bins)"),
                format!("{big:.2} ({m} bins)"),
                format!("{abs_all:.2} s"),
                format!("{abs_big:.2} s"),
            ]
        })
        .collect();
    let t = md_table(
        &[
            "configuration",
            "mean p90/p10 of T per size bin",
            "same, larger half of the sizes",
            "mean p90 − p10 per size bin",
            "same, larger half",
        ],
        &rows,
    );
    let figs: String = cfgs
        .iter()
        .map(|c| format!("![{}](fig9_{}.svg)\n\n", c.label, file_name(c)))
        .collect();
    let cmp =
        |label: &str| {
            let (a, n) = spread(label, true, false);
            let (b, _) = spread("tcp", true, false);
            let (x, _) = spread(label, true, true);
            let (y, _) = spread("tcp", true, true);
            let Some(d) = diffs.iter().find(|d| d.label == label) else {
                return "not run".to_string();
            };
            if n == 0 {
                return "no size bin with enough flows".to_string();
            }
            format!(
            "relative {} ({a:.2} vs tcp's {b:.2}; paired difference {:+.2} ± {:.2}), absolute {} \
({x:.2} s vs {y:.2} s; {:+.2} ± {:.2} s)",
            verdict(d.rel_diff, d.rel_diff_ci, "smaller than tcp's", "larger than tcp's"),
            d.rel_diff,
            d.rel_diff_ci,
            verdict(d.abs_diff_s, d.abs_diff_ci_s, "smaller", "larger"),
            d.abs_diff_s,
            d.abs_diff_ci_s
        )
        };
    format!(
        "# {NAME}: paper 000, Figure 9 (transfer time against size)\n\n\
{desc}\n\n\
Every completed flow is a dot (x = size, y = transfer time). Dispersion: in each \
log-spaced size bin with at least {MIN_BIN} flows, the ratio of the 90th to the 10th \
percentile of the transfer times (1 = flows of the same size all take the same time).\n\n\
Paper 000: as the size grows, the dispersion grows under LAS and tcp and stays much smaller \
under SRPT and FAIR: size-aware policies also make transfer times predictable.\n\n\
## Ours\n\n{t}\n\
Verdicts: each repeat's dispersion (flows pooled over runs) minus tcp's in the same repeat, \
95% interval over the {reps} repeats (host jitter up to {jit} ns per packet); \"smaller\" or \
\"larger\" only when it excludes 0. `tcp (A/A)` is tcp under {reps} other perturbations: \
{c_aa}.\n\n\
* Dispersion of the larger flows under schedtcp: SRPT {c_s}; FAIR {c_f}; LAS {c_l}.\n\
* Under gtcp-ideal: SRPT {c_is}; FAIR {c_if}; LAS {c_il}.\n\
* Reading the plots: under tcp the cloud has two bands, flows that finished without a \
retransmission timeout and flows that waited for one. Under the \
size-aware policies most flows sit far below tcp's median, but some small flows take \
seconds: their bytes rode on another flow's connection that was in loss recovery, and the \
destination could not deliver them before that connection's hole was filled (head-of-line \
blocking, see `table2`). The paper's testbed, with a different TCP and loss pattern, \
shows a tighter cloud; here predictability is what losses take away first.\n\n\
{figs}",
        desc = describe(p),
        reps = p.repeats,
        jit = p.jitter_ns,
        c_aa = cmp(AA_LABEL),
        c_s = cmp("schedtcp/srpt"),
        c_f = cmp("schedtcp/fair"),
        c_l = cmp("schedtcp/las"),
        c_is = cmp("gtcp-ideal/srpt"),
        c_if = cmp("gtcp-ideal/fair"),
        c_il = cmp("gtcp-ideal/las"),
    )
}
