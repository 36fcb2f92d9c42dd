//! The alternatives to gtcp on the same flows, as an operator could deploy them: plain
//! TCP, one multiplexed connection per pair (HTTP/2, yamux: `sim`'s `mux` driver), the same
//! with a low-water mark, static lanes (interactive and bulk flows on multiplexed
//! connections of their own), and schedtcp under `auto`, each beside a long plain-TCP
//! download from another source through the same bottleneck.
//!
//! Two things are compared, on every workload, per run and then over independent runs (a
//! 95% interval, judged by [`crate::verdict::judge`]):
//!
//! - **completion times** (arrival to the destination having every byte) of the flows that
//!   arrive in the measurement window, short (≤ `bulk_above_bytes`) and bulk apart, as a
//!   ratio to plain TCP's on the same flows;
//! - **the competitor's bytes** over the window, as a ratio to its bytes beside plain TCP:
//!   above 1, the alternative takes less of the path than the pair's own connections would
//!   (a single multiplexed connection is one TCP sender however many flows it carries); gtcp
//!   keeps the pair's connections, so its ratio should be 1 (paper 000, Proposition 1).
//!
//! A cut in completion time means little without the share beside it, so every row carries
//! both. With `alone`, every workload also runs without the competitor: what each option's
//! scheduling alone costs (head-of-line blocking behind committed frames, round robin) when
//! the pair has the path to itself.

use crate::check_param;
use crate::engine::md_table;
use crate::engine::verdict::{Interval, Rule, Source, Verdict, DIFFERENCE};
use crate::Context;
use serde::{Deserialize, Serialize};
use sim::competitor::{measure_flows, with_competitor};
use sim::driver::MuxConfig;
use sim::scenario::{DriverKind, GtcpConfig, Scenario};
use sim::tcp::TcpConfig;
use sim::time::as_secs;
use sim::topology::DumbbellConfig;
use sim::workload::WorkloadConfig;

pub const NAME: &str = "alternatives";
pub const DESCRIPTION: &str = "Plain TCP, one multiplexed connection, static lanes and schedtcp auto on the same flows, with a plain-TCP competitor's share";
pub const SCENARIO: &str = include_str!("../../scenarios/alternatives.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    runs: usize,
    threads: usize,
    duration_s: f64,
    warmup_s: f64,
    drain_s: f64,
    sample_s: f64,
    bulk_above_bytes: u64,
    goal_competitor: f64,
    /// Also run every workload without the competitor (the pair alone on the path): what
    /// each option's scheduling costs when no one else wants the path.
    #[serde(default)]
    alone: bool,
    options: Vec<Alt>,
    workloads: Vec<Named>,
    topology: DumbbellConfig,
    tcp: TcpConfig,
}

/// One way of carrying the pair's flows.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Alt {
    name: String,
    driver: DriverKind,
    /// The gtcp policy (`schedtcp`).
    #[serde(default)]
    policy: Option<String>,
    /// The multiplexer's parameters (`mux`).
    #[serde(default)]
    mux: Option<MuxConfig>,
}

/// A workload and its name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Named {
    name: String,
    flows: WorkloadConfig,
}

/// A workload as run: beside the competitor or alone; `name` says which.
struct Cell<'a> {
    name: String,
    flows: &'a WorkloadConfig,
    competitor: bool,
}

impl Params {
    /// Every workload beside the competitor, then (with `alone`) every workload alone.
    fn cells(&self) -> Vec<Cell<'_>> {
        let beside = self.workloads.iter().map(|w| Cell {
            name: w.name.clone(),
            flows: &w.flows,
            competitor: true,
        });
        let alone = self.workloads.iter().filter(|_| self.alone).map(|w| Cell {
            name: format!("{}, alone", w.name),
            flows: &w.flows,
            competitor: false,
        });
        beside.chain(alone).collect()
    }

    fn scenario(&self, w: &Cell, alt: &Alt, run: usize, seed: u64) -> anyhow::Result<Scenario> {
        let mut gtcp = GtcpConfig::default();
        if let Some(p) = &alt.policy {
            gtcp.policy = p.clone();
        }
        let s = Scenario {
            seed: seed + run as u64,
            duration_s: self.duration_s,
            drain_s: self.drain_s,
            driver: alt.driver,
            topology: self.topology.clone(),
            tcp: self.tcp.clone(),
            workload: w.flows.clone(),
            record: Default::default(),
            gtcp,
            perturb: Default::default(),
            mux: alt.mux.clone().unwrap_or_default(),
        };
        if !w.competitor {
            return Ok(s);
        }
        with_competitor(&s, 0.0).map_err(|e| anyhow::anyhow!("{} / {}: {e}", w.name, alt.name))
    }
}

/// What one run measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RunRow {
    workload: String,
    option: String,
    run: usize,
    competitor_bytes: u64,
    pair_bytes: u64,
    short_flows: usize,
    short_mean_s: f64,
    bulk_flows: usize,
    bulk_mean_s: f64,
    all_mean_s: f64,
    /// Flows of the window the destination never had whole by the end of the run.
    incomplete: usize,
}

/// One option on one workload over the runs, as ratios to plain TCP on the same runs.
#[derive(Debug, Serialize)]
struct Row {
    workload: String,
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
    competitor_ratio: f64,
    competitor_ratio_ci95: f64,
    pair_ratio: f64,
    pair_ratio_ci95: f64,
    incomplete: usize,
}

fn check(p: &Params) -> anyhow::Result<()> {
    check_param!(p.runs >= 2 && p.runs <= 1000, "runs must be 2..=1000");
    check_param!(p.threads >= 1, "threads must be >= 1");
    check_param!(
        p.warmup_s >= 0.0 && p.warmup_s < p.duration_s,
        "need 0 <= warmup_s < duration_s"
    );
    check_param!(p.drain_s >= 0.0, "drain_s must be >= 0");
    check_param!(p.sample_s > 0.0, "sample_s must be > 0");
    check_param!(
        p.goal_competitor > 0.0 && p.goal_competitor < 1.0,
        "goal_competitor must be in (0, 1)"
    );
    check_param!(
        p.options
            .first()
            .is_some_and(|o| o.driver == DriverKind::Tcp),
        "the first option must be plain TCP (driver = \"tcp\"), the reference"
    );
    check_param!(!p.workloads.is_empty(), "workloads must not be empty");
    check_param!(
        p.topology.pairs == 1,
        "topology.pairs must be 1 (the competitor is added)"
    );
    Ok(())
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    check(&p)?;
    let seed = ctx.seed(p.seed);
    let cells = p.cells();
    let (nw, no) = (cells.len(), p.options.len());
    for w in &cells {
        for o in &p.options {
            p.scenario(w, o, 0, seed)?.validate()?;
        }
    }
    let n = nw * no * p.runs;
    let rows: Vec<RunRow> = ctx.jobs("workloads x options x runs", n, p.threads, |i| {
        let (w, o, r) = (i / (no * p.runs), i / p.runs % no, i % p.runs);
        one_run(&p, &cells[w], o, r, seed)
    })?;
    ctx.runs_done()?;
    ctx.write_csv("runs.csv", &rows)?;
    let table = analyse(&p, &cells, &rows);
    ctx.write_csv("alternatives.csv", &table)?;
    let verdicts = verdicts(&p, &cells, &rows, &table);
    ctx.write_json("verdicts.json", &verdicts)?;
    Ok(render(&p, &cells, &table, &verdicts))
}

fn one_run(p: &Params, wl: &Cell, o: usize, r: usize, seed: u64) -> anyhow::Result<RunRow> {
    let alt = &p.options[o];
    let s = p.scenario(wl, alt, r, seed)?;
    let (out, _, flows) = measure_flows(&s, p.warmup_s, p.duration_s, p.sample_s)?;
    let window: Vec<_> = flows
        .iter()
        .filter(|f| (p.warmup_s..p.duration_s).contains(&as_secs(f.arrival)))
        .collect();
    let mean = |bulk: Option<bool>| -> (usize, f64) {
        let t: Vec<f64> = window
            .iter()
            .filter(|f| bulk.is_none_or(|b| (f.size > p.bulk_above_bytes) == b))
            .filter_map(|f| f.transfer().map(as_secs))
            .collect();
        (t.len(), t.iter().sum::<f64>() / t.len().max(1) as f64)
    };
    let (short_flows, short_mean_s) = mean(Some(false));
    let (bulk_flows, bulk_mean_s) = mean(Some(true));
    let (_, all_mean_s) = mean(None);
    Ok(RunRow {
        workload: wl.name.clone(),
        option: alt.name.clone(),
        run: r,
        competitor_bytes: out.competitor_bytes,
        pair_bytes: out.pair_bytes,
        short_flows,
        short_mean_s,
        bulk_flows,
        bulk_mean_s,
        all_mean_s,
        incomplete: window.iter().filter(|f| f.delivered.is_none()).count(),
    })
}

/// Per workload and option: each statistic over the runs as a ratio to plain TCP's on the
/// same run (the first option).
fn analyse(p: &Params, cells: &[Cell], rows: &[RunRow]) -> Vec<Row> {
    let mut out = Vec::new();
    for w in cells {
        let of = |o: &str| -> Vec<&RunRow> {
            rows.iter()
                .filter(|r| r.workload == w.name && r.option == o)
                .collect()
        };
        let base = of(&p.options[0].name);
        for alt in &p.options {
            let mine = of(&alt.name);
            let ratio = |f: fn(&RunRow) -> f64| -> Interval {
                Interval::of(
                    &mine
                        .iter()
                        .zip(&base)
                        .map(|(a, b)| f(a) / f(b))
                        .collect::<Vec<_>>(),
                )
            };
            let avg =
                |f: fn(&RunRow) -> f64| mine.iter().map(|r| f(r)).sum::<f64>() / mine.len() as f64;
            let (s, b, a) = (
                ratio(|r| r.short_mean_s),
                ratio(|r| r.bulk_mean_s),
                ratio(|r| r.all_mean_s),
            );
            let (c, q) = (
                ratio(|r| r.competitor_bytes as f64),
                ratio(|r| r.pair_bytes as f64),
            );
            out.push(Row {
                workload: w.name.clone(),
                option: alt.name.clone(),
                runs: mine.len(),
                short_mean_s: avg(|r| r.short_mean_s),
                short_ratio: s.mean,
                short_ratio_ci95: s.half,
                bulk_mean_s: avg(|r| r.bulk_mean_s),
                bulk_ratio: b.mean,
                bulk_ratio_ci95: b.half,
                all_ratio: a.mean,
                all_ratio_ci95: a.half,
                competitor_ratio: c.mean,
                competitor_ratio_ci95: c.half,
                pair_ratio: q.mean,
                pair_ratio_ci95: q.half,
                incomplete: mine.iter().map(|r| r.incomplete).sum(),
            });
        }
    }
    out
}

/// On every workload: each schedtcp option's mean completion time against each multiplexed
/// option's (a paired ratio over the runs), and every option's competitor share against
/// plain TCP's (schedtcp's against the ±goal band).
fn verdicts(p: &Params, cells: &[Cell], rows: &[RunRow], table: &[Row]) -> Vec<Verdict> {
    let mut v = Vec::new();
    let goal = p.goal_competitor;
    for w in cells {
        let row = |o: &str| table.iter().find(|r| r.workload == w.name && r.option == o);
        for alt in p.options.iter().skip(1).filter(|_| w.competitor) {
            let Some(r) = row(&alt.name) else { continue };
            let filter = [("workload", w.name.as_str()), ("option", alt.name.as_str())];
            let share = Interval::new(r.competitor_ratio, r.competitor_ratio_ci95);
            let (rule, paper) = if alt.driver == DriverKind::Schedtcp {
                (
                    Rule::Goal {
                        lo: 1.0 - goal,
                        hi: 1.0 + goal,
                    },
                    Some("the pair takes the path's share plain TCP takes (Proposition 1)"),
                )
            } else {
                (
                    Rule::Against {
                        reference: 1.0,
                        margin: 0.0,
                    },
                    None,
                )
            };
            v.push(
                Verdict::new(
                    format!(
                        "{}: {}: competitor's bytes / beside plain TCP",
                        w.name, alt.name
                    ),
                    paper,
                    share,
                    rule,
                )
                .from(Source::new("alternatives.csv", "competitor_ratio", &filter)),
            );
        }
        for g in p
            .options
            .iter()
            .filter(|o| o.driver == DriverKind::Schedtcp)
        {
            for m in p.options.iter().filter(|o| o.driver == DriverKind::Mux) {
                v.push(Verdict::new(
                    format!(
                        "{}: mean completion time of {} / of {} - 1 (paired runs)",
                        w.name, g.name, m.name
                    ),
                    None,
                    paired(rows, &w.name, &g.name, &m.name),
                    DIFFERENCE,
                ));
            }
        }
    }
    v
}

/// Per run, `a`'s mean completion time over all flows of the window over `b`'s, minus 1:
/// the interval over the runs (the same flows for both).
fn paired(rows: &[RunRow], w: &str, a: &str, b: &str) -> Interval {
    let of = |o: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r.workload == w && r.option == o)
            .map(|r| r.all_mean_s)
            .collect()
    };
    let (xa, xb) = (of(a), of(b));
    Interval::of(
        &xa.iter()
            .zip(&xb)
            .map(|(x, y)| x / y - 1.0)
            .collect::<Vec<_>>(),
    )
}

fn pm(m: f64, h: f64) -> String {
    if m.is_finite() {
        format!("{m:.3} ± {h:.3}")
    } else {
        "—".into()
    }
}

fn render(p: &Params, cells: &[Cell], table: &[Row], verdicts: &[Verdict]) -> String {
    let mut s = format!(
        "# alternatives: plain TCP, one multiplexed connection, static lanes and schedtcp, on the same flows\n\n\
         {} runs per cell (seed + run), flows arriving in [{}, {}) s, a long plain-TCP \
         download on another source through the same bottleneck all along (cells named \
         \"alone\": the pair alone on the path). Ratios are to plain TCP on the same run, with \
         the 95% interval over the runs. Short flows: at most {} bytes.\n\n",
        p.runs, p.warmup_s, p.duration_s, p.bulk_above_bytes
    );
    for w in cells {
        s.push_str(&format!("## {}\n\n", w.name));
        let rows: Vec<Vec<String>> = table
            .iter()
            .filter(|r| r.workload == w.name)
            .map(|r| {
                vec![
                    r.option.clone(),
                    format!("{:.3}", r.short_mean_s),
                    pm(r.short_ratio, r.short_ratio_ci95),
                    format!("{:.2}", r.bulk_mean_s),
                    pm(r.bulk_ratio, r.bulk_ratio_ci95),
                    pm(r.all_ratio, r.all_ratio_ci95),
                    pm(r.competitor_ratio, r.competitor_ratio_ci95),
                    pm(r.pair_ratio, r.pair_ratio_ci95),
                    r.incomplete.to_string(),
                ]
            })
            .collect();
        s.push_str(&md_table(
            &[
                "option",
                "short mean (s)",
                "short / tcp",
                "bulk mean (s)",
                "bulk / tcp",
                "all / tcp",
                "competitor / tcp",
                "pair bytes / tcp",
                "incomplete",
            ],
            &rows,
        ));
        s.push('\n');
    }
    s.push_str("## Verdicts\n\n");
    for v in verdicts {
        let word = v.word.says("lower", "higher");
        s.push_str(&format!(
            "- {}: {} → **{word}**\n",
            v.claim,
            pm(v.ours.mean, v.ours.half)
        ));
    }
    s
}
