//! The alternatives to schedtcp on the real-TCP testbed, on the same flows: the tunnel under
//! `tcp` (one plain connection per flow, the reference), one multiplexed connection per pair
//! (`mux`: a yamux relay, `testbed::mux`), static lanes (`lanes`: two such relays, flows above
//! `bulk_above_bytes` on the bulk one) and the tunnel under a policy (`schedtcp-POLICY`, e.g.
//! `schedtcp-auto`), each beside long plain-TCP downloads through the same `tbf` bottleneck
//! (the simulator's version is the `alternatives` experiment).
//!
//! Per run and option, on the arrivals of seed + run: the mean completion time of the flows
//! arriving in `[warmup_s, stop_s)`, short (≤ `bulk_above_bytes`) and bulk apart, as a ratio
//! to the same run under `tcp`; and the competitor's bytes over the same window as a ratio to
//! its bytes beside `tcp`. Means over the runs with 95% intervals, judged by the lab's one
//! rule ([`crate::verdict::judge`]; the schedtcp options' share against the `±goal` band as
//! in `testbed-nonintrusive`).

use crate::check_param;
use crate::engine::intrusion::{competitor_verdict, ratio_plot};
use crate::engine::testbed::{sample_paths, Arrivals, GOODPUT_SHARE};
use crate::engine::verdict::{Interval, Rule, Source, Verdict, DIFFERENCE};
use crate::engine::{md_table, pct};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::bail;
use serde::{Deserialize, Serialize};
use testbed::run::VariantRun;
use testbed::workload::{Path as FlowPath, PlannedFlow, MAX_TRANSFER};
use testbed::{BedConfig, Queue, Session};

pub const NAME: &str = "testbed-alternatives";
pub const DESCRIPTION: &str =
    "On the real-TCP testbed (root): tunnel tcp, one yamux connection, static lanes and schedtcp auto on the same flows beside a plain-TCP download; completion by size class and the competitor's bytes vs tcp";
pub const SCENARIO: &str = include_str!("../../scenarios/testbed-alternatives.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    runs: usize,
    /// `tcp` first (the reference), then any of `plain`, `mux`, `lanes`, `schedtcp-POLICY`.
    options: Vec<String>,
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
    bulk_above_bytes: u64,
    goal: f64,
    flow_timeout_s: f64,
    prefix: String,
    delay_ms: f64,
    congestion_control: String,
    competitors: usize,
}

/// How an option carries the pair's flows.
#[derive(Debug, Clone, PartialEq)]
enum Carrier {
    /// Straight to the target, no relay.
    Plain,
    /// The tunnel under this policy.
    Tunnel(String),
    /// `n` yamux relays (1: `mux`, 2: `lanes`).
    Mux(u16),
}

fn carrier(option: &str) -> anyhow::Result<Carrier> {
    Ok(match option {
        "tcp" => Carrier::Tunnel("tcp".into()),
        "plain" => Carrier::Plain,
        "mux" => Carrier::Mux(1),
        "lanes" => Carrier::Mux(2),
        o => match o.strip_prefix("schedtcp-") {
            Some(policy) => {
                testbed::check_policy(policy)
                    .map_err(|e| anyhow::anyhow!("invalid scenario parameter: {e:#}"))?;
                Carrier::Tunnel(policy.into())
            }
            None => bail!(
                "invalid scenario parameter: option {o:?}: want tcp, plain, mux, lanes or schedtcp-POLICY"
            ),
        },
    })
}

/// One run of one option, as analysed.
#[derive(Debug, Clone, Serialize)]
struct RunRow {
    run: usize,
    order: usize,
    option: String,
    /// Flows arriving in the window.
    flows: usize,
    /// Of the run's pair flows, those that failed (timed out or broke).
    failed: usize,
    short_flows: usize,
    short_mean_s: f64,
    bulk_flows: usize,
    bulk_mean_s: f64,
    all_mean_s: f64,
    competitor_bytes: u64,
    pair_bytes: u64,
    bottleneck_drops: u64,
    wall_s: f64,
}

/// Per option: the ratios to `tcp` over the runs.
#[derive(Debug, Clone, Serialize)]
struct Row {
    option: String,
    runs: usize,
    short_mean_s: f64,
    short_ratio: f64,
    short_ratio_ci95: f64,
    bulk_mean_s: f64,
    bulk_ratio: f64,
    bulk_ratio_ci95: f64,
    all_ratio: f64,
    all_ratio_ci95: f64,
    competitor_ratio_mean: f64,
    competitor_ratio_ci95: f64,
    pair_ratio: f64,
    pair_ratio_ci95: f64,
    failed: usize,
    drops_per_run: f64,
}

/// What a run keeps to be analysed again: every run as the testbed measured it.
#[derive(Serialize, Deserialize)]
struct Raw {
    congestion_control: String,
    runs: Vec<RawRun>,
}

/// One run of [`Raw`]: sample path, order within it, and what the testbed measured (its
/// `variant` is the option's name).
#[derive(Serialize, Deserialize)]
struct RawRun {
    run: usize,
    order: usize,
    measured: VariantRun,
}

/// The file [`Raw`] is kept in.
const RAW: &str = "variant_runs.json.gz";

/// The plan: each run's flows (the pair's, then the competitors') and the bed.
struct Plan {
    seed: u64,
    mean_size: f64,
    lambda: f64,
    plans: Vec<Vec<PlannedFlow>>,
    bed: BedConfig,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let plan = plan(ctx, &p)?;
    let (runs, cc) = run_all(ctx, &p, &plan)?;
    report(ctx, &p, &plan, &cc, &runs)
}

/// Analyses and renders again the runs an earlier run wrote to `dir` ([`RAW`]), without the
/// testbed.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let plan = plan(ctx, &p)?;
    let path = dir.join(RAW);
    let raw: Raw = crate::engine::saved::read_json_gz(dir, RAW)?;
    for r in &raw.runs {
        anyhow::ensure!(
            r.run < p.runs && p.options.contains(&r.measured.variant),
            "{}: run {} under `{}` is outside the scenario's runs and options",
            path.display(),
            r.run,
            r.measured.variant
        );
        anyhow::ensure!(
            r.measured.results.len() == plan.plans[r.run].len(),
            "{}: run {} under `{}` holds {} flows, the scenario plans {}",
            path.display(),
            r.run,
            r.measured.variant,
            r.measured.results.len(),
            plan.plans[r.run].len()
        );
    }
    let runs: Vec<Run> = raw
        .runs
        .into_iter()
        .map(|r| (r.run, r.order, r.measured))
        .collect();
    report(ctx, &p, &plan, &raw.congestion_control, &runs)
}

/// `E[min(S, max)]` of `P(S > x) = (1 + cx)^(−α)`.
fn capped_mean(alpha: f64, c: f64, max: f64) -> f64 {
    (1.0 - (1.0 + c * max).powf(1.0 - alpha)) / (c * (alpha - 1.0))
}

/// Checks the scenario and plans the runs.
fn plan(ctx: &Context, p: &Params) -> anyhow::Result<Plan> {
    check_param!(p.runs >= 1 && p.runs <= 1000, "runs must be 1..=1000");
    check_param!(
        p.options.first().map(String::as_str) == Some("tcp"),
        "options must start with tcp (the reference)"
    );
    for (i, o) in p.options.iter().enumerate() {
        carrier(o)?;
        check_param!(!p.options[..i].contains(o), "options must not repeat ({o})");
    }
    check_param!(p.alpha > 1.0 && p.c > 0.0, "need alpha > 1, c > 0");
    check_param!(
        p.max_size >= 1 && p.max_size <= MAX_TRANSFER,
        "max_size must be 1..=1 GiB"
    );
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
    // Run k: the arrivals of seed + k in [0, arrivals_s), then the competitors.
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
        plans,
        bed,
    })
}

/// The flows of `plan` as `lanes` carries them: flows above `bulk_above` on the bulk lane.
fn on_lanes(plan: &[PlannedFlow], bulk_above: u64) -> Vec<PlannedFlow> {
    plan.iter()
        .cloned()
        .map(|mut f| {
            if f.path == FlowPath::Tunnel && f.download > bulk_above {
                f.path = FlowPath::Bulk;
            }
            f
        })
        .collect()
}

/// One run: (run index, order within it, what the testbed measured).
type Run = (usize, usize, VariantRun);

/// Runs every option on every sample path; returns the runs and the bed's congestion control.
fn run_all(ctx: &Context, p: &Params, plan: &Plan) -> anyhow::Result<(Vec<Run>, String)> {
    let bin = testbed::find_binary()?;
    let carriers: Vec<Carrier> = p
        .options
        .iter()
        .map(|o| carrier(o))
        .collect::<anyhow::Result<_>>()?;
    let pb = ctx.progress((p.runs * p.options.len()) as u64, "runs x options");
    let mut session = Session::start(plan.bed.clone(), &bin)?;
    let cc = session.bed().congestion_control();
    let mut runs: Vec<Run> = Vec::new();
    let outcome = (|| -> anyhow::Result<()> {
        for (k, flows) in plan.plans.iter().enumerate() {
            for j in 0..p.options.len() {
                // Rotated order: slow drift of the machine favours no option.
                let i = (j + k) % p.options.len();
                let o = &p.options[i];
                pb.set_message(format!("run {} {o}", k + 1));
                let mut r = match &carriers[i] {
                    Carrier::Plain => session.run(None, flows, p.bin_s, p.flow_timeout_s)?,
                    Carrier::Tunnel(policy) => {
                        session.run(Some(policy), flows, p.bin_s, p.flow_timeout_s)?
                    }
                    Carrier::Mux(1) => session.run_mux(1, flows, p.bin_s, p.flow_timeout_s)?,
                    Carrier::Mux(n) => session.run_mux(
                        *n,
                        &on_lanes(flows, p.bulk_above_bytes),
                        p.bin_s,
                        p.flow_timeout_s,
                    )?,
                };
                r.variant = o.clone();
                let first = r.results.len().saturating_sub(p.competitors);
                for c in &r.results[first..] {
                    if !c.stopped || c.error.is_some() {
                        bail!(
                            "run {} under {o}: a competitor did not run to its stop: {:?}",
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

/// Bytes of `bins` (one per `bin_s`) in `[from_s, to_s)`.
fn window(bins: &[u64], bin_s: f64, from_s: f64, to_s: f64) -> u64 {
    let (a, b) = (
        (from_s / bin_s).round() as usize,
        (to_s / bin_s).round() as usize,
    );
    bins.iter().take(b).skip(a).sum()
}

/// Each run's completion times by class and bytes over the window.
fn run_rows(p: &Params, plan: &Plan, runs: &[Run]) -> Vec<RunRow> {
    runs.iter()
        .map(|(k, j, r)| {
            let n = r.results.len().saturating_sub(p.competitors);
            let (pair, comp) = r.results.split_at(n);
            let sizes = &plan.plans[*k];
            let in_window: Vec<(u64, Option<f64>)> = pair
                .iter()
                .zip(sizes)
                .filter(|(_, f)| (p.warmup_s..p.stop_s).contains(&f.at_s))
                .map(|(x, f)| (f.download, x.completion_s))
                .collect();
            let mean = |bulk: Option<bool>| -> (usize, f64) {
                let t: Vec<f64> = in_window
                    .iter()
                    .filter(|(s, _)| bulk.is_none_or(|b| (*s > p.bulk_above_bytes) == b))
                    .filter_map(|(_, t)| *t)
                    .collect();
                let m = if t.is_empty() {
                    f64::NAN
                } else {
                    t.iter().sum::<f64>() / t.len() as f64
                };
                (t.len(), m)
            };
            let (short_flows, short_mean_s) = mean(Some(false));
            let (bulk_flows, bulk_mean_s) = mean(Some(true));
            let bytes = |xs: &[testbed::FlowResult]| -> u64 {
                xs.iter()
                    .map(|x| window(&x.bins, p.bin_s, p.warmup_s, p.stop_s))
                    .sum()
            };
            RunRow {
                run: *k,
                order: *j,
                option: r.variant.clone(),
                flows: in_window.len(),
                failed: pair.iter().filter(|x| x.error.is_some()).count(),
                short_flows,
                short_mean_s,
                bulk_flows,
                bulk_mean_s,
                all_mean_s: mean(None).1,
                competitor_bytes: bytes(comp),
                pair_bytes: bytes(pair),
                bottleneck_drops: r.bottleneck_drops,
                wall_s: r.wall_s,
            }
        })
        .collect()
}

/// Per option: each statistic as a ratio to `tcp`'s on the same run, over the runs that
/// have both.
fn analyse(p: &Params, rows: &[RunRow]) -> Vec<Row> {
    let reference = |k: usize| rows.iter().find(|r| r.run == k && r.option == "tcp");
    p.options
        .iter()
        .map(|o| {
            let mine: Vec<(&RunRow, &RunRow)> = rows
                .iter()
                .filter(|r| r.option == *o)
                .filter_map(|r| Some((r, reference(r.run)?)))
                .collect();
            let ratio = |f: fn(&RunRow) -> f64| -> Interval {
                Interval::of(
                    &mine
                        .iter()
                        .map(|(a, b)| f(a) / f(b))
                        .filter(|x| x.is_finite())
                        .collect::<Vec<_>>(),
                )
            };
            let avg = |f: fn(&RunRow) -> f64| {
                let v: Vec<f64> = mine
                    .iter()
                    .map(|(a, _)| f(a))
                    .filter(|x| x.is_finite())
                    .collect();
                v.iter().sum::<f64>() / v.len().max(1) as f64
            };
            let (s, b, a) = (
                ratio(|r| r.short_mean_s),
                ratio(|r| r.bulk_mean_s),
                ratio(|r| r.all_mean_s),
            );
            let (c, q) = (
                ratio(|r| r.competitor_bytes as f64),
                ratio(|r| r.pair_bytes as f64),
            );
            Row {
                option: o.clone(),
                runs: mine.len(),
                short_mean_s: avg(|r| r.short_mean_s),
                short_ratio: s.mean,
                short_ratio_ci95: s.half,
                bulk_mean_s: avg(|r| r.bulk_mean_s),
                bulk_ratio: b.mean,
                bulk_ratio_ci95: b.half,
                all_ratio: a.mean,
                all_ratio_ci95: a.half,
                competitor_ratio_mean: c.mean,
                competitor_ratio_ci95: c.half,
                pair_ratio: q.mean,
                pair_ratio_ci95: q.half,
                failed: mine.iter().map(|(a, _)| a.failed).sum(),
                drops_per_run: avg(|r| r.bottleneck_drops as f64),
            }
        })
        .collect()
}

/// The file the per-option table is written to.
const TABLE: &str = "testbed_alternatives.csv";

/// Per option other than `tcp`: its mean completion time over `tcp`'s, against a ratio of
/// one, and the competitor's bytes over its bytes beside `tcp` (the schedtcp options against
/// the `±goal` band, the others against a ratio of one); per schedtcp option and multiplexed
/// option, the paired difference of their mean completion times.
fn verdicts(p: &Params, table: &[Row], rows: &[RunRow]) -> Vec<Verdict> {
    let mut v = Vec::new();
    for r in table.iter().filter(|r| r.option != "tcp") {
        let filter = [("option", r.option.as_str())];
        v.push(
            Verdict::new(
                format!(
                    "{}: mean completion time / under tcp, paired by run",
                    r.option
                ),
                None,
                Interval::new(r.all_ratio, r.all_ratio_ci95),
                Rule::Against {
                    reference: 1.0,
                    margin: 0.0,
                },
            )
            .from(Source::new(TABLE, "all_ratio", &filter)),
        );
        let claim = format!(
            "{}: the plain-TCP competitor's bytes / beside tcp, paired by run",
            r.option
        );
        let share = (r.competitor_ratio_mean, r.competitor_ratio_ci95);
        v.push(if r.option.starts_with("schedtcp-") {
            competitor_verdict(claim, share, p.goal, TABLE, ("option", &r.option))
        } else {
            Verdict::new(
                claim,
                None,
                Interval::new(share.0, share.1),
                Rule::Against {
                    reference: 1.0,
                    margin: 0.0,
                },
            )
            .from(Source::new(TABLE, "competitor_ratio_mean", &filter))
        });
    }
    for g in p.options.iter().filter(|o| o.starts_with("schedtcp-")) {
        for m in p.options.iter().filter(|o| *o == "mux" || *o == "lanes") {
            v.push(Verdict::new(
                format!("mean completion time of {g} / of {m} - 1, paired by run"),
                None,
                paired(rows, g, m),
                DIFFERENCE,
            ));
        }
    }
    v
}

/// Per run, `a`'s mean completion time over `b`'s, minus 1: the interval over the runs.
fn paired(rows: &[RunRow], a: &str, b: &str) -> Interval {
    let d: Vec<f64> = rows
        .iter()
        .filter(|r| r.option == a)
        .filter_map(|x| {
            let y = rows.iter().find(|y| y.run == x.run && y.option == b)?;
            Some(x.all_mean_s / y.all_mean_s - 1.0)
        })
        .filter(|x| x.is_finite())
        .collect();
    Interval::of(&d)
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
    let rows = run_rows(p, plan, runs);
    ctx.write_csv("runs.csv", &rows)?;
    let table = analyse(p, &rows);
    ctx.write_csv(TABLE, &table)?;
    let verdicts = verdicts(p, &table, &rows);
    ctx.write_json("verdicts.json", &verdicts)?;
    plots(ctx, p, &table, &rows)?;
    Ok(render(p, plan, cc, &table, &rows, &verdicts))
}

/// The competitor's ratio per run and option, and the completion-time ratios per option.
fn plots(ctx: &Context, p: &Params, table: &[Row], rows: &[RunRow]) -> anyhow::Result<()> {
    let at = |o: &str| p.options.iter().position(|x| x == o);
    let reference = |k: usize| rows.iter().find(|r| r.run == k && r.option == "tcp");
    let per_run = |f: fn(&RunRow) -> f64| -> Vec<(usize, f64)> {
        rows.iter()
            .filter_map(|r| Some((at(&r.option)?, f(r) / f(reference(r.run)?))))
            .filter(|(_, x)| x.is_finite())
            .collect()
    };
    let means: Vec<f64> = table.iter().map(|r| r.competitor_ratio_mean).collect();
    ratio_plot(
        ctx,
        &p.options,
        &per_run(|r| r.competitor_bytes as f64),
        &means,
        p.goal,
        "competitor.svg",
    )?;
    let x = |k: usize| (k + 1) as f64;
    let mean_of = |f: fn(&Row) -> f64| -> Vec<(f64, f64)> {
        table
            .iter()
            .enumerate()
            .map(|(k, r)| (x(k), f(r)))
            .filter(|(_, y)| y.is_finite() && *y > 0.0)
            .collect()
    };
    render_svg(
        &LinePlot {
            title: format!(
                "Mean completion time / under tcp, per run (dots) and mean; x: {}",
                p.options
                    .iter()
                    .enumerate()
                    .map(|(i, l)| format!("{} = {l}", i + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            x_label: "option".into(),
            y_label: "mean completion time / under tcp".into(),
            log_y: true,
            series: vec![
                Series::dots(
                    "all flows, per run",
                    per_run(|r| r.all_mean_s)
                        .into_iter()
                        .map(|(k, y)| (x(k), y))
                        .collect(),
                ),
                Series::markers("all flows", mean_of(|r| r.all_ratio)),
                Series::markers("short flows", mean_of(|r| r.short_ratio)),
                Series::markers("bulk flows", mean_of(|r| r.bulk_ratio)),
                Series::dashed("tcp", vec![(0.5, 1.0), (p.options.len() as f64 + 0.5, 1.0)]),
            ],
            ..Default::default()
        },
        &ctx.path("completion.svg"),
    )?;
    Ok(())
}

fn pm(m: f64, h: f64) -> String {
    if !m.is_finite() {
        "—".into()
    } else if h.is_finite() {
        format!("{m:.3} ± {h:.3}")
    } else {
        format!("{m:.3}")
    }
}

/// The summary.
fn render(
    p: &Params,
    plan: &Plan,
    cc: &str,
    table: &[Row],
    rows: &[RunRow],
    verdicts: &[Verdict],
) -> String {
    let t = md_table(
        &[
            "option",
            "short mean (s)",
            "short / tcp",
            "bulk mean (s)",
            "bulk / tcp",
            "all / tcp",
            "competitor / beside tcp",
            "pair bytes / tcp",
            "failed flows",
            "drops per run",
        ],
        &table
            .iter()
            .map(|r| {
                vec![
                    r.option.clone(),
                    format!("{:.3}", r.short_mean_s),
                    pm(r.short_ratio, r.short_ratio_ci95),
                    format!("{:.2}", r.bulk_mean_s),
                    pm(r.bulk_ratio, r.bulk_ratio_ci95),
                    pm(r.all_ratio, r.all_ratio_ci95),
                    pm(r.competitor_ratio_mean, r.competitor_ratio_ci95),
                    pm(r.pair_ratio, r.pair_ratio_ci95),
                    r.failed.to_string(),
                    format!("{:.0}", r.drops_per_run),
                ]
            })
            .collect::<Vec<_>>(),
    );
    let words: String = verdicts
        .iter()
        .map(|v| {
            format!(
                "- {}: {} → **{}**\n",
                v.claim,
                pm(v.ours.mean, v.ours.half),
                v.word.says("lower", "higher")
            )
        })
        .collect();
    let flows: usize = rows.iter().map(|r| r.flows).sum();
    let wall: f64 = rows.iter().map(|r| r.wall_s).sum();
    format!(
        "# {NAME}: the alternatives to schedtcp on real TCP, on the same flows\n\n\
On the testbed. {path} The options: `tcp` (real `schedtcp client`/`server` under the `tcp` \
policy: one plain connection per flow, the reference), `plain` (no relay), `mux` (one \
long-lived TCP connection between the namespaces, a yamux stream per flow: \
`schedtcp testbed helper mux-client`/`mux-server`), `lanes` (two such connections, flows above \
{bulk} bytes on the second) and `schedtcp-POLICY` (the tunnel under that policy, defaults \
otherwise). Every relay process is restarted for every run. The workload: Poisson arrivals \
over [0, {arr} s) of λ = {lam:.2} downloads/s, sizes `P(S > x) = (1 + cx)^(−{alpha})`, \
c = {c:e}, cut at {maxmb} MB (mean {ms:.0} kB), offered load {load} of the goodput. Beside it, \
{competing} from the same target through the same bottleneck from 0 s to {stop} s. Completion \
times are those of the flows arriving in [{w0}, {stop}) s (short: at most {bulk} bytes), bytes \
are counted as the applications received them over the same window. {runs} runs: run k \
uses the arrivals of seed {seed} + k under every option (in rotated order); every ratio is \
taken within run k, then averaged with a 95% Student-t interval.\n\n\
## Result\n\n{t}\n\
{flows} flows in the windows over all runs and options; {wall:.0} s of workload in all.\n\n\
## Verdicts\n\n{words}\n\
Goal: schedtcp faster than static lanes and than the single multiplexed \
connection, with the competitor's share within ±{goal} of beside plain TCP.\n\n\
![completion](completion.svg)\n\n![competitor](competitor.svg)\n\n\
Files: `runs.csv`, `{TABLE}`, `verdicts.json`, `{RAW}` (every run as measured, each flow's \
bytes per bin: `schedtcp experiment render` analyses it again). Reproduce (root): \
`schedtcp experiment run {NAME}`.\n",
        path = plan.bed.describe(cc),
        bulk = p.bulk_above_bytes,
        arr = p.arrivals_s,
        lam = plan.lambda,
        alpha = p.alpha,
        c = p.c,
        maxmb = p.max_size as f64 / 1e6,
        ms = plan.mean_size / 1e3,
        load = p.load,
        competing = if p.competitors == 1 {
            "one plain-TCP download runs".to_string()
        } else {
            format!(
                "{} plain-TCP downloads run (\"the competitor\": their bytes summed)",
                p.competitors
            )
        },
        stop = p.stop_s,
        w0 = p.warmup_s,
        runs = p.runs,
        seed = plan.seed,
        goal = pct(p.goal, 0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::workload::flows as plan_flows;

    /// A flow's result: completed after `t` seconds (None: failed), `bins` bytes per bin.
    fn done(id: usize, t: Option<f64>, bins: Vec<u64>) -> testbed::FlowResult {
        testbed::FlowResult {
            id,
            start_s: 0.0,
            completion_s: t,
            received: bins.iter().sum(),
            error: t.is_none().then(|| "timed out".into()),
            bins,
            stopped: false,
        }
    }

    /// One option's run: the three pair flows' completion times (short outside the window,
    /// short, bulk) and the competitor's bytes per 5-s bin.
    fn measured(option: &str, t: [Option<f64>; 3], competitor_per_bin: u64) -> VariantRun {
        let mut results: Vec<testbed::FlowResult> = t
            .iter()
            .enumerate()
            .map(|(i, t)| done(i, *t, vec![1_000; 4]))
            .collect();
        let mut c = done(3, None, vec![competitor_per_bin; 10]);
        c.error = None;
        c.stopped = true;
        results.push(c);
        VariantRun {
            variant: option.into(),
            results,
            server: None,
            client: None,
            wall_s: 50.0,
            bottleneck_bytes: 0,
            bottleneck_drops: 7,
        }
    }

    /// From a fixture of measured runs, the analysis gives the ratios to `tcp` run by run
    /// (short and bulk apart, failed flows counted and left out of the means), and the
    /// verdicts the rule gives them.
    #[test]
    fn ratios_and_verdicts_from_a_fixture_of_runs() {
        let p: Params = crate::scenario::parse(SCENARIO, "test", false).unwrap();
        assert_eq!(
            (
                p.warmup_s,
                p.stop_s,
                p.bin_s,
                p.bulk_above_bytes,
                p.competitors
            ),
            (5.0, 45.0, 5.0, 1_000_000, 1)
        );
        // Per run: a short flow before the window, a short and a bulk flow in it.
        let flows = plan_flows(
            &[(1.0, 50_000), (10.0, 100_000), (20.0, 3_000_000)],
            FlowPath::Tunnel,
            300,
        );
        let plan = Plan {
            seed: 1,
            mean_size: 1.0,
            lambda: 1.0,
            plans: vec![flows.clone(), flows],
            bed: BedConfig::new(3_000_000, Queue::Bfifo(120_000)),
        };
        let runs: Vec<Run> = vec![
            (
                0,
                0,
                measured("tcp", [Some(9.0), Some(1.0), Some(4.0)], 1_000_000),
            ),
            (
                0,
                1,
                measured("mux", [Some(9.0), Some(3.0), Some(8.0)], 2_000_000),
            ),
            (
                0,
                2,
                measured("lanes", [Some(9.0), Some(1.0), Some(8.0)], 2_000_000),
            ),
            (
                0,
                3,
                measured("schedtcp-auto", [None, Some(0.5), Some(4.0)], 1_000_000),
            ),
            (
                1,
                0,
                measured("tcp", [Some(9.0), Some(1.0), Some(4.0)], 1_000_000),
            ),
            (
                1,
                1,
                measured("mux", [Some(9.0), Some(2.0), Some(9.0)], 2_000_000),
            ),
            (
                1,
                2,
                measured("lanes", [Some(9.0), None, Some(12.0)], 2_000_000),
            ),
            (
                1,
                3,
                measured(
                    "schedtcp-auto",
                    [Some(9.0), Some(0.5), Some(4.0)],
                    1_000_000,
                ),
            ),
        ];
        let rows = run_rows(&p, &plan, &runs);
        // The window [5, 45) s holds bins 1..=8 of the competitor.
        assert_eq!(rows[0].competitor_bytes, 8_000_000);
        assert_eq!(rows[0].pair_bytes, 3 * 3_000);
        assert_eq!(
            (rows[0].flows, rows[0].short_flows, rows[0].bulk_flows),
            (2, 1, 1)
        );
        let table = analyse(&p, &rows);
        let row = |o: &str| table.iter().find(|r| r.option == o).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let tcp = row("tcp");
        assert!(close(tcp.all_ratio, 1.0) && close(tcp.all_ratio_ci95, 0.0));
        let mux = row("mux");
        // Short: 3/1 and 2/1; bulk: 8/4 and 9/4; all: 5.5/2.5 in both runs.
        assert!(close(mux.short_ratio, 2.5) && close(mux.bulk_ratio, 2.125));
        assert!(close(mux.all_ratio, 2.2) && close(mux.all_ratio_ci95, 0.0));
        let t = crate::engine::t95(1);
        assert!(
            close(mux.short_ratio_ci95, t * 0.5),
            "{}",
            mux.short_ratio_ci95
        );
        assert!(close(mux.competitor_ratio_mean, 2.0) && close(mux.competitor_ratio_ci95, 0.0));
        assert!(close(mux.pair_ratio, 1.0));
        // A failed flow is counted, and left out of its class's mean (lanes' run 1 has no
        // short mean, so its short ratio is run 0's alone, without an interval).
        let lanes = row("lanes");
        assert_eq!(lanes.failed, 1);
        assert!(close(lanes.short_ratio, 1.0) && lanes.short_ratio_ci95.is_nan());
        assert!(close(lanes.bulk_ratio, 2.5));
        let auto = row("schedtcp-auto");
        assert_eq!(auto.failed, 1);
        assert!(close(auto.short_ratio, 0.5) && close(auto.bulk_ratio, 1.0));
        assert!(close(auto.all_ratio, 0.9) && close(auto.competitor_ratio_mean, 1.0));
        let v = verdicts(&p, &table, &rows);
        let word = |claim: &str| {
            v.iter()
                .find(|x| x.claim.starts_with(claim))
                .unwrap_or_else(|| panic!("no verdict {claim}"))
                .word
        };
        use crate::engine::verdict::Word;
        assert_eq!(word("mux: the plain-TCP competitor"), Word::Higher);
        assert_eq!(word("schedtcp-auto: the plain-TCP competitor"), Word::Met);
        assert_eq!(word("mux: mean completion time"), Word::Higher);
        assert_eq!(word("schedtcp-auto: mean completion time"), Word::Lower);
        // auto's mean (0.5 + 4)/2 = 2.25 against mux's 5.5, in both runs.
        let d = v
            .iter()
            .find(|x| {
                x.claim
                    .starts_with("mean completion time of schedtcp-auto / of mux")
            })
            .unwrap();
        assert!(close(d.ours.mean, 2.25 / 5.5 - 1.0) && close(d.ours.half, 0.0));
        assert_eq!(d.word, Word::Lower);
    }

    #[test]
    fn options_name_their_carriers() {
        assert_eq!(carrier("tcp").unwrap(), Carrier::Tunnel("tcp".into()));
        assert_eq!(carrier("lanes").unwrap(), Carrier::Mux(2));
        assert_eq!(
            carrier("schedtcp-auto").unwrap(),
            Carrier::Tunnel("auto".into())
        );
        assert!(carrier("schedtcp-fastest").is_err());
        assert!(carrier("http3").is_err());
    }

    #[test]
    fn only_tunnel_flows_above_the_threshold_take_the_bulk_lane() {
        let mut f = plan_flows(
            &[(0.0, 10), (0.1, 2_000), (0.2, 2_001)],
            FlowPath::Tunnel,
            0,
        );
        f[2].path = FlowPath::Direct;
        let paths: Vec<FlowPath> = on_lanes(&f, 1_000).iter().map(|x| x.path).collect();
        assert_eq!(paths, [FlowPath::Tunnel, FlowPath::Bulk, FlowPath::Direct]);
    }
}
