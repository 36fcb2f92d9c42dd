//! The Gittins index on learned sizes at packet level: the shipped core (`schedtcp`) ranks
//! flows whose sizes it does not know by the Gittins index of their attained service under
//! the size distribution it learned on their route (`gtcp::policy`, `gittins`), against the
//! best size-blind alternative on the same flows — plain TCP (every flow on its own
//! connection: processor sharing at flow level) or LAS under the same core.
//!
//! The goal (`results/gittins-sweep/` at flow level): `gittins` within 5% of the best
//! size-blind policy's mean transfer time on every workload, and never slower than tcp.
//! Each cell (a Lomax tail α and a load; the mean size fixed) runs `runs` independent sample
//! paths; every ratio is taken within a path over the flows every configuration finished, and
//! its 95% interval is over the paths (`engine::verdict`).

use crate::engine::md_table;
use crate::engine::packet::{describe, run_all, Params, RunOut, Workload};
use crate::engine::saved::read_csv;
use crate::engine::verdict::{Interval, Rule, Source, Verdict, Word};
use crate::{check_param, Context};
use serde::{Deserialize, Serialize};

pub const NAME: &str = "gittins-packet";
pub const DESCRIPTION: &str =
    "Gittins on learned sizes against tcp and LAS under the shipped core, Lomax tails and loads (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/gittins-packet.toml");

/// The size-blind configurations, and the one judged against them.
const TCP: &str = "tcp";
const LAS: &str = "schedtcp/las";
const GITTINS: &str = "schedtcp/gittins";

/// Goal: `gittins`'s mean transfer time at most this multiple of the best size-blind policy's.
const WITHIN: f64 = 1.05;

/// One workload: a Lomax tail and a load.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct Cell {
    alpha: f64,
    load: f64,
}

/// The scenario: the packet experiments' parameters and the cells.
#[derive(Debug, Deserialize)]
struct File {
    cells: Vec<Cell>,
    #[serde(flatten)]
    base: toml::Table,
}

/// One configuration in one cell (`cells.csv`).
#[derive(Debug, Serialize, Deserialize)]
struct Row {
    alpha: f64,
    load: f64,
    config: String,
    paths: usize,
    /// Flows every configuration finished, per path (mean).
    flows: f64,
    /// Flows this configuration left unfinished, all paths.
    unfinished: usize,
    /// Mean transfer time (s), the mean over paths of each path's mean.
    mean_transfer_s: f64,
    /// E[T] / E[T_tcp] per path: mean and 95% half-width over paths.
    ratio_to_tcp: f64,
    ratio_to_tcp_half: f64,
    /// `gittins` only: E[T] / E[T] of the best size-blind configuration, per path.
    ratio_to_best: Option<f64>,
    ratio_to_best_half: Option<f64>,
    /// `gittins` only: that configuration.
    best: Option<String>,
}

/// The cells with their parameters (the mean size kept from `[workload]`).
fn plan(ctx: &Context) -> anyhow::Result<Vec<(Cell, Params)>> {
    let file: File = ctx.params()?;
    check_param!(!file.cells.is_empty(), "cells must not be empty");
    let mut base: Params = toml::Value::Table(file.base)
        .try_into()
        .map_err(|e: toml::de::Error| anyhow::anyhow!("{NAME}: invalid scenario: {e}"))?;
    base.seed = ctx.seed(base.seed);
    let base = Params::checked(base)?;
    let mean = 1.0 / (base.workload.c * (base.workload.alpha - 1.0));
    let want: Vec<String> = [LAS, GITTINS].map(str::to_string).to_vec();
    let labels: Vec<String> = base.configs().iter().map(|c| c.label.clone()).collect();
    check_param!(
        want.iter().all(|w| labels.contains(w)),
        "policies must include las and gittins and drivers schedtcp (configurations: {labels:?})"
    );
    file.cells
        .iter()
        .map(|&cell| {
            check_param!(
                cell.alpha > 1.0 && cell.alpha.is_finite(),
                "cell alpha = {} must be > 1",
                cell.alpha
            );
            let mut p = base.clone();
            p.workload = Workload {
                alpha: cell.alpha,
                c: 1.0 / (mean * (cell.alpha - 1.0)),
                load: cell.load,
            };
            Ok((cell, Params::checked(p)?))
        })
        .collect()
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let cells = plan(ctx)?;
    let mut outs = Vec::with_capacity(cells.len());
    for (_, p) in &cells {
        let cfgs = p.configs();
        let labels: Vec<String> = cfgs.iter().map(|c| c.label.clone()).collect();
        outs.push((labels, run_all(ctx, p, &cfgs)?));
    }
    ctx.runs_done()?;
    let rows: Vec<Row> = cells
        .iter()
        .zip(&outs)
        .flat_map(|((cell, p), (labels, out))| analyse(*cell, p.runs, labels, out))
        .collect();
    ctx.write_csv("cells.csv", &rows)?;
    report(ctx, &cells, &rows)
}

/// Renders again from an earlier run's `cells.csv` (every figure of the summary is there).
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let cells = plan(ctx)?;
    let rows: Vec<Row> = read_csv(dir, "cells.csv")?;
    ctx.write_csv("cells.csv", &rows)?;
    report(ctx, &cells, &rows)
}

fn report(ctx: &Context, cells: &[(Cell, Params)], rows: &[Row]) -> anyhow::Result<String> {
    let verdicts: Vec<Verdict> = cells
        .iter()
        .flat_map(|(cell, _)| cell_verdicts(*cell, rows))
        .collect();
    ctx.write_json("verdicts.json", &verdicts)?;
    Ok(render(cells, rows, &verdicts))
}

/// Per path, the mean transfer time of each configuration over the flows every configuration
/// finished (`[config][path]`), and how many flows that is per path.
fn matched_means(out: &[Vec<RunOut>], paths: usize) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mut means = vec![Vec::with_capacity(paths); out.len()];
    let mut counts = Vec::with_capacity(paths);
    for r in 0..paths {
        let n = out.iter().map(|c| c[r].flows.len()).min().unwrap_or(0);
        let done: Vec<usize> = (0..n)
            .filter(|&i| out.iter().all(|c| c[r].flows[i].transfer_s.is_some()))
            .collect();
        counts.push(done.len());
        for (k, c) in out.iter().enumerate() {
            let sum: f64 = done.iter().filter_map(|&i| c[r].flows[i].transfer_s).sum();
            means[k].push(sum / done.len().max(1) as f64);
        }
    }
    (means, counts)
}

fn ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x / y).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The rows of one cell: every configuration's mean transfer time and its ratio to tcp's;
/// `gittins`'s also to the best size-blind configuration's.
fn analyse(cell: Cell, paths: usize, labels: &[String], out: &[Vec<RunOut>]) -> Vec<Row> {
    let (means, counts) = matched_means(out, paths);
    let at = |l: &str| labels.iter().position(|x| x == l);
    let (Some(tcp), Some(las), Some(git)) = (at(TCP), at(LAS), at(GITTINS)) else {
        return Vec::new();
    };
    let best = if mean(&means[las]) < mean(&means[tcp]) {
        las
    } else {
        tcp
    };
    let to_best = Interval::of(&ratios(&means[git], &means[best]));
    let flows = counts.iter().sum::<usize>() as f64 / paths.max(1) as f64;
    labels
        .iter()
        .enumerate()
        .map(|(k, label)| {
            let to_tcp = Interval::of(&ratios(&means[k], &means[tcp]));
            let is_git = k == git;
            Row {
                alpha: cell.alpha,
                load: cell.load,
                config: label.clone(),
                paths,
                flows,
                unfinished: out[k]
                    .iter()
                    .flat_map(|r| &r.flows)
                    .filter(|f| f.transfer_s.is_none())
                    .count(),
                mean_transfer_s: mean(&means[k]),
                ratio_to_tcp: to_tcp.mean,
                ratio_to_tcp_half: to_tcp.half,
                ratio_to_best: is_git.then_some(to_best.mean),
                ratio_to_best_half: is_git.then_some(to_best.half),
                best: is_git.then(|| labels[best].clone()),
            }
        })
        .collect()
}

/// A cell's two verdicts, from its `gittins` row: against the best size-blind configuration
/// (at most [`WITHIN`]) and against tcp (lower, within noise or higher).
fn cell_verdicts(cell: Cell, rows: &[Row]) -> Vec<Verdict> {
    let Some(git) = rows
        .iter()
        .find(|r| r.alpha == cell.alpha && r.load == cell.load && r.config == GITTINS)
    else {
        return Vec::new();
    };
    // As the CSV writer spells floats (`3.0`, `0.95`).
    let (a, l) = (format!("{:?}", cell.alpha), format!("{:?}", cell.load));
    let filter = [
        ("alpha", a.as_str()),
        ("load", l.as_str()),
        ("config", GITTINS),
    ];
    let cell_name = format!("α = {}, load {}", cell.alpha, cell.load);
    vec![
        Verdict::new(
            format!(
                "{cell_name}: E[T] of {GITTINS} / E[T] of the best size-blind ({}), per path",
                git.best.as_deref().unwrap_or("—")
            ),
            Some("within 5% of the best size-blind policy (the project's goal)"),
            Interval::new(
                git.ratio_to_best.unwrap_or(f64::NAN),
                git.ratio_to_best_half.unwrap_or(f64::NAN),
            ),
            Rule::AtMost {
                max: WITHIN,
                margin: 0.0,
            },
        )
        .from(Source::new("cells.csv", "ratio_to_best", &filter)),
        Verdict::new(
            format!("{cell_name}: E[T] of {GITTINS} / E[T] of tcp, per path"),
            Some("never slower than tcp"),
            Interval::new(git.ratio_to_tcp, git.ratio_to_tcp_half),
            Rule::Against {
                reference: 1.0,
                margin: 0.0,
            },
        )
        .from(Source::new("cells.csv", "ratio_to_tcp", &filter)),
    ]
}

fn render(cells: &[(Cell, Params)], rows: &[Row], verdicts: &[Verdict]) -> String {
    let x = |m: f64, h: f64| format!("{m:.3} ± {h:.3}");
    let mut table = Vec::new();
    for ((cell, _), v) in cells.iter().zip(verdicts.chunks(2)) {
        let row = |c: &str| {
            rows.iter()
                .find(|r| r.alpha == cell.alpha && r.load == cell.load && r.config == c)
        };
        let (Some(tcp), Some(las), Some(git)) = (row(TCP), row(LAS), row(GITTINS)) else {
            continue;
        };
        table.push(vec![
            format!("{}", cell.alpha),
            format!("{}", cell.load),
            format!("{:.0}", git.flows),
            format!("{:.2} s", tcp.mean_transfer_s),
            x(las.ratio_to_tcp, las.ratio_to_tcp_half),
            format!(
                "{} ({})",
                x(git.ratio_to_tcp, git.ratio_to_tcp_half),
                v[1].word.says("faster", "slower")
            ),
            format!(
                "{} vs {} ({})",
                x(
                    git.ratio_to_best.unwrap_or(f64::NAN),
                    git.ratio_to_best_half.unwrap_or(f64::NAN)
                ),
                git.best.as_deref().unwrap_or("—"),
                v[0].word.says("lower", "higher")
            ),
            format!(
                "{} / {} / {}",
                tcp.unfinished, las.unfinished, git.unfinished
            ),
        ]);
    }
    let met = verdicts
        .iter()
        .step_by(2)
        .filter(|v| v.word == Word::Met)
        .count();
    let not_met = verdicts
        .iter()
        .step_by(2)
        .filter(|v| v.word == Word::NotMet)
        .count();
    let slower = verdicts
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|v| v.word == Word::Higher)
        .count();
    let p = &cells[0].1;
    format!(
        "# {NAME}: the Gittins index on learned sizes, at packet level\n\n\
{described} Each cell below replaces α and the load, keeping the mean size.\n\n\
`tcp`: every flow on its own connection. `schedtcp/…`: the shipped core over the same connections, \
**sizes unknown to it** (`size_hint = false`): `las` serves the flow with the least bytes sent; \
`gittins` the highest Gittins index of its attained service under the size distribution the core \
learned on the route from the flows that ended. A flow's size is unknown to the core until its last \
byte enters the core's send buffer for it (the application has written everything and closed): \
from then on `gittins` ranks it by its remaining bytes, as SRPT would. One repeat per sample path; a ratio is taken within \
a path over the flows every configuration finished, and its 95% interval is over the paths.\n\n\
{table}\n\
Goal (the flow-level `gittins-sweep`'s): `gittins` within 5% of the best size-blind policy on every \
workload — **met in {met} of {n} cells, not met in {not_met}, undecided in the rest**; and never \
slower than tcp — **slower beyond the interval in {slower} of {n} cells**. Words come from \
`engine::verdict::judge` on the intervals above (`verdicts.json`).\n\n\
Files: `cells.csv` (every configuration in every cell), `verdicts.json`.\n",
        described = describe(p),
        n = cells.len(),
        table = md_table(
            &[
                "α",
                "load",
                "flows per path",
                "E[T] tcp",
                "las / tcp",
                "gittins / tcp",
                "gittins / best size-blind",
                "unfinished tcp / las / gittins",
            ],
            &table,
        ),
    )
}
