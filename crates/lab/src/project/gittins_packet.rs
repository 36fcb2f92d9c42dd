//! The Gittins index on learned sizes at packet level: the shipped core (`schedtcp`) ranks
//! flows whose sizes it does not know by the Gittins index of their attained service under
//! the size distribution it learned on their route (`gtcp::policy`, `gittins`), against the
//! best size-blind alternative on the same flows — plain TCP (every flow on its own
//! connection: processor sharing at flow level) or LAS under the same core.
//!
//! The goals (`results/gittins-sweep/` at flow level): `gittins` within 5% of the best
//! size-blind policy's mean transfer time on every workload, and never slower than tcp beyond
//! the A/A noise. Each cell (a workload of `engine::sizes`, the flow-level sweep's, and a
//! load) runs `runs` independent sample paths, each `repeats` times under small perturbations
//! (a flow's transfer time is its mean over them); `tcp` runs `repeats` more times under other
//! perturbations (`tcp (A/A)`). Every statistic — the mean and the 99th percentile of the
//! transfer time — is taken within a path over the flows every configuration finished, as a
//! ratio to tcp's on the same path; its 95% interval is over the paths (Student t), and a
//! ratio is called lower or higher than tcp's only beyond the reach of the A/A ratio's own
//! interval (`engine::verdict::aa_margin`).

use crate::engine::md_table;
use crate::engine::packet::{describe, quantile, run_all, Params, RunOut, AA_LABEL};
use crate::engine::saved::read_csv;
use crate::engine::sizes::{named, Named};
use crate::engine::verdict::{aa_margin, Interval, Rule, Source, Verdict, Word};
use crate::{check_param, Context};
use serde::{Deserialize, Serialize};

pub const NAME: &str = "gittins-packet";
pub const DESCRIPTION: &str =
    "Gittins on learned sizes against tcp and LAS under the shipped core, the flow-level sweep's workloads and loads, mean and p99 beyond A/A noise (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/gittins-packet.toml");

/// The size-blind configurations, and the one judged against them.
const TCP: &str = "tcp";
const LAS: &str = "schedtcp/las";
const GITTINS: &str = "schedtcp/gittins";

/// Goal: `gittins`'s mean transfer time at most this multiple of the best size-blind policy's.
const WITHIN: f64 = 1.05;

/// The tail statistic reported beside the mean.
const PERCENTILE: f64 = 0.99;

/// One cell: a workload of the shared catalogue and a load.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Cell {
    workload: String,
    load: f64,
}

impl Cell {
    /// As the CSV writer spells the load (`0.5`, `0.95`), for verdict sources.
    fn load_text(&self) -> String {
        format!("{:?}", self.load)
    }

    fn name(&self) -> String {
        format!("{} at load {}", self.workload, self.load)
    }
}

/// The scenario: the packet experiments' parameters, the mean of the scale-free workloads and
/// the cells.
#[derive(Debug, Deserialize)]
struct File {
    cells: Vec<Cell>,
    /// Mean flow size of the exponential and Lomax workloads, bytes.
    mean_bytes: f64,
    #[serde(flatten)]
    base: toml::Table,
}

/// One configuration in one cell (`cells.csv`).
#[derive(Debug, Serialize, Deserialize)]
struct Row {
    workload: String,
    load: f64,
    config: String,
    paths: usize,
    /// Flows every configuration finished, per path (mean).
    flows: f64,
    /// Share of those flows larger than the core's send buffer: only these are ever ranked by
    /// the learned index (a smaller flow is whole in the buffer at once, its size known).
    beyond_buffer: f64,
    /// Flows this configuration left unfinished, all paths.
    unfinished: usize,
    /// Mean transfer time (s), the mean over paths of each path's mean.
    mean_transfer_s: f64,
    /// 99th percentile of the transfer time (s), the mean over paths of each path's.
    p99_transfer_s: f64,
    /// E[T] / E[T_tcp] per path: mean and 95% half-width over paths.
    ratio_to_tcp: f64,
    ratio_to_tcp_half: f64,
    /// The 99th percentile over tcp's, per path: mean and 95% half-width over paths.
    p99_ratio_to_tcp: f64,
    p99_ratio_to_tcp_half: f64,
    /// `gittins` only: E[T] / E[T] of the best size-blind configuration, per path.
    ratio_to_best: Option<f64>,
    ratio_to_best_half: Option<f64>,
    /// `gittins` only: that configuration.
    best: Option<String>,
}

/// One cell ready to run: its workload and parameters.
struct Planned {
    cell: Cell,
    workload: Named,
    params: Params,
}

/// The cells with their parameters.
fn plan(ctx: &Context) -> anyhow::Result<Vec<Planned>> {
    let file: File = ctx.params()?;
    check_param!(!file.cells.is_empty(), "cells must not be empty");
    let mut base: Params = toml::Value::Table(file.base)
        .try_into()
        .map_err(|e: toml::de::Error| anyhow::anyhow!("{NAME}: invalid scenario: {e}"))?;
    base.seed = ctx.seed(base.seed);
    let base = Params::checked(base)?;
    check_param!(
        base.repeats >= 2,
        "repeats = {} must be >= 2: the A/A configuration (tcp under other perturbations) is \
         the noise every comparison is judged beyond",
        base.repeats
    );
    let want: Vec<String> = [LAS, GITTINS].map(str::to_string).to_vec();
    let labels: Vec<String> = base.configs().iter().map(|c| c.label.clone()).collect();
    check_param!(
        want.iter().all(|w| labels.contains(w)),
        "policies must include las and gittins and drivers schedtcp (configurations: {labels:?})"
    );
    file.cells
        .iter()
        .map(|cell| {
            let workload = named(&cell.workload, file.mean_bytes)
                .map_err(|e| anyhow::anyhow!("invalid scenario parameter: cells: {e}"))?;
            let mut params = base.clone();
            params.workload.load = cell.load;
            params.workload.sizes = Some(workload.sizes()?);
            Ok(Planned {
                cell: cell.clone(),
                workload,
                params: Params::checked(params)?,
            })
        })
        .collect()
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let cells = plan(ctx)?;
    let mut outs = Vec::with_capacity(cells.len());
    for c in &cells {
        let cfgs = c.params.configs();
        let labels: Vec<String> = cfgs.iter().map(|c| c.label.clone()).collect();
        outs.push((labels, run_all(ctx, &c.params, &cfgs)?));
    }
    ctx.runs_done()?;
    let rows: Vec<Row> = cells
        .iter()
        .zip(&outs)
        .flat_map(|(c, (labels, out))| analyse(c, labels, out))
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

fn report(ctx: &Context, cells: &[Planned], rows: &[Row]) -> anyhow::Result<String> {
    let verdicts: Vec<Verdict> = cells
        .iter()
        .flat_map(|c| cell_verdicts(&c.cell, rows))
        .collect();
    ctx.write_json("verdicts.json", &verdicts)?;
    Ok(render(cells, rows, &verdicts))
}

/// Per path, over the flows every configuration finished: each configuration's mean and
/// 99th percentile of the transfer time (`[config][path]`), how many flows that is, and how
/// many of them are larger than `buffer` bytes.
struct Matched {
    means: Vec<Vec<f64>>,
    p99s: Vec<Vec<f64>>,
    counts: Vec<usize>,
    beyond: Vec<usize>,
}

fn matched(out: &[Vec<RunOut>], paths: usize, buffer: u64) -> Matched {
    let mut m = Matched {
        means: vec![Vec::with_capacity(paths); out.len()],
        p99s: vec![Vec::with_capacity(paths); out.len()],
        counts: Vec::with_capacity(paths),
        beyond: Vec::with_capacity(paths),
    };
    for r in 0..paths {
        let n = out.iter().map(|c| c[r].flows.len()).min().unwrap_or(0);
        let done: Vec<usize> = (0..n)
            .filter(|&i| out.iter().all(|c| c[r].flows[i].transfer_s.is_some()))
            .collect();
        m.counts.push(done.len());
        m.beyond.push(
            done.iter()
                .filter(|&&i| out[0][r].flows[i].size > buffer)
                .count(),
        );
        for (k, c) in out.iter().enumerate() {
            let mut t: Vec<f64> = done
                .iter()
                .filter_map(|&i| c[r].flows[i].transfer_s)
                .collect();
            m.means[k].push(t.iter().sum::<f64>() / t.len().max(1) as f64);
            t.sort_by(f64::total_cmp);
            m.p99s[k].push(quantile(&t, PERCENTILE));
        }
    }
    m
}

fn ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x / y).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The rows of one cell: every configuration's mean and 99th percentile and their ratios to
/// tcp's; `gittins`'s mean also to the best size-blind configuration's.
fn analyse(c: &Planned, labels: &[String], out: &[Vec<RunOut>]) -> Vec<Row> {
    let paths = c.params.runs;
    let m = matched(out, paths, c.params.gtcp.core.send_buffer);
    let at = |l: &str| labels.iter().position(|x| x == l);
    let (Some(tcp), Some(las), Some(git)) = (at(TCP), at(LAS), at(GITTINS)) else {
        return Vec::new();
    };
    let best = if mean(&m.means[las]) < mean(&m.means[tcp]) {
        las
    } else {
        tcp
    };
    let to_best = Interval::of(&ratios(&m.means[git], &m.means[best]));
    let total: usize = m.counts.iter().sum();
    let flows = total as f64 / paths.max(1) as f64;
    let beyond_buffer = m.beyond.iter().sum::<usize>() as f64 / total.max(1) as f64;
    labels
        .iter()
        .enumerate()
        .map(|(k, label)| {
            let to_tcp = Interval::of(&ratios(&m.means[k], &m.means[tcp]));
            let p99_to_tcp = Interval::of(&ratios(&m.p99s[k], &m.p99s[tcp]));
            let is_git = k == git;
            Row {
                workload: c.cell.workload.clone(),
                load: c.cell.load,
                config: label.clone(),
                paths,
                flows,
                beyond_buffer,
                unfinished: out[k]
                    .iter()
                    .flat_map(|r| &r.flows)
                    .filter(|f| f.transfer_s.is_none())
                    .count(),
                mean_transfer_s: mean(&m.means[k]),
                p99_transfer_s: mean(&m.p99s[k]),
                ratio_to_tcp: to_tcp.mean,
                ratio_to_tcp_half: to_tcp.half,
                p99_ratio_to_tcp: p99_to_tcp.mean,
                p99_ratio_to_tcp_half: p99_to_tcp.half,
                ratio_to_best: is_git.then_some(to_best.mean),
                ratio_to_best_half: is_git.then_some(to_best.half),
                best: is_git.then(|| labels[best].clone()),
            }
        })
        .collect()
}

fn row<'a>(rows: &'a [Row], cell: &Cell, config: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.workload == cell.workload && r.load == cell.load && r.config == config)
}

/// The noise margins of a cell: how far the A/A ratio's interval reaches from 1, for the
/// mean and for the 99th percentile (NaN without an A/A row: every verdict undecided).
fn margins(rows: &[Row], cell: &Cell) -> (f64, f64) {
    row(rows, cell, AA_LABEL).map_or((f64::NAN, f64::NAN), |aa| {
        (
            aa_margin(Interval::new(aa.ratio_to_tcp, aa.ratio_to_tcp_half), 1.0),
            aa_margin(
                Interval::new(aa.p99_ratio_to_tcp, aa.p99_ratio_to_tcp_half),
                1.0,
            ),
        )
    })
}

/// Verdicts per cell, in this order: `gittins` against the best size-blind configuration
/// (mean, at most [`WITHIN`]), against tcp (mean), against tcp (99th percentile).
const PER_CELL: usize = 3;

/// The [`PER_CELL`] verdicts of one cell, each beyond the A/A noise of its statistic.
fn cell_verdicts(cell: &Cell, rows: &[Row]) -> Vec<Verdict> {
    let Some(git) = row(rows, cell, GITTINS) else {
        return Vec::new();
    };
    let (m_mean, m_p99) = margins(rows, cell);
    let load = cell.load_text();
    let filter = [
        ("workload", cell.workload.as_str()),
        ("load", load.as_str()),
        ("config", GITTINS),
    ];
    let name = cell.name();
    vec![
        Verdict::new(
            format!(
                "{name}: E[T] of {GITTINS} / E[T] of the best size-blind ({}), per path",
                git.best.as_deref().unwrap_or("—")
            ),
            Some("within 5% of the best size-blind policy (the project's goal)"),
            Interval::new(
                git.ratio_to_best.unwrap_or(f64::NAN),
                git.ratio_to_best_half.unwrap_or(f64::NAN),
            ),
            Rule::AtMost {
                max: WITHIN,
                margin: m_mean,
            },
        )
        .from(Source::new("cells.csv", "ratio_to_best", &filter)),
        Verdict::new(
            format!("{name}: E[T] of {GITTINS} / E[T] of tcp, per path"),
            Some("never slower than tcp beyond the A/A noise"),
            Interval::new(git.ratio_to_tcp, git.ratio_to_tcp_half),
            Rule::Against {
                reference: 1.0,
                margin: m_mean,
            },
        )
        .from(Source::new("cells.csv", "ratio_to_tcp", &filter)),
        Verdict::new(
            format!("{name}: 99th percentile of T of {GITTINS} / tcp's, per path"),
            None,
            Interval::new(git.p99_ratio_to_tcp, git.p99_ratio_to_tcp_half),
            Rule::Against {
                reference: 1.0,
                margin: m_p99,
            },
        )
        .from(Source::new("cells.csv", "p99_ratio_to_tcp", &filter)),
    ]
}

/// The cells whose verdict number `which` (of [`PER_CELL`]) says `word`.
fn cells_saying(cells: &[Planned], verdicts: &[Verdict], which: usize, word: Word) -> Vec<String> {
    cells
        .iter()
        .zip(verdicts.chunks(PER_CELL))
        .filter(|(_, v)| v.get(which).map(|v| v.word) == Some(word))
        .map(|(c, _)| c.cell.name())
        .collect()
}

/// "Never slower than tcp": not met if any cell is slower beyond the noise, met if every cell
/// is faster or within it, undecided otherwise.
fn never_slower(verdicts: &[Verdict]) -> Word {
    Word::all_met(
        verdicts
            .iter()
            .skip(1)
            .step_by(PER_CELL)
            .map(|v| match v.word {
                Word::Lower | Word::WithinNoise => Word::Met,
                Word::Higher => Word::NotMet,
                _ => Word::Undecided,
            }),
    )
}

fn list(v: Vec<String>) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn render(cells: &[Planned], rows: &[Row], verdicts: &[Verdict]) -> String {
    let x = |m: f64, h: f64| format!("{m:.3} ± {h:.3}");
    let (mut means, mut tails) = (Vec::new(), Vec::new());
    for (c, v) in cells.iter().zip(verdicts.chunks(PER_CELL)) {
        let r = |config: &str| row(rows, &c.cell, config);
        let (Some(tcp), Some(aa), Some(las), Some(git), [within, vs_tcp, p99]) =
            (r(TCP), r(AA_LABEL), r(LAS), r(GITTINS), v)
        else {
            continue;
        };
        let (m_mean, m_p99) = margins(rows, &c.cell);
        means.push(vec![
            c.cell.workload.clone(),
            format!("{}", c.cell.load),
            format!("{:.0}", git.flows),
            format!("{:.1}%", 100.0 * git.beyond_buffer),
            format!("{:.3} s", tcp.mean_transfer_s),
            format!(
                "{} (±{m_mean:.3})",
                x(aa.ratio_to_tcp, aa.ratio_to_tcp_half)
            ),
            x(las.ratio_to_tcp, las.ratio_to_tcp_half),
            format!(
                "{} ({})",
                x(git.ratio_to_tcp, git.ratio_to_tcp_half),
                vs_tcp.word.says("faster", "slower")
            ),
            format!(
                "{} vs {} ({})",
                x(
                    git.ratio_to_best.unwrap_or(f64::NAN),
                    git.ratio_to_best_half.unwrap_or(f64::NAN)
                ),
                git.best.as_deref().unwrap_or("—"),
                within.word.says("lower", "higher")
            ),
            format!(
                "{} / {} / {} / {}",
                tcp.unfinished, aa.unfinished, las.unfinished, git.unfinished
            ),
        ]);
        tails.push(vec![
            c.cell.workload.clone(),
            format!("{}", c.cell.load),
            format!("{:.3} s", tcp.p99_transfer_s),
            format!(
                "{} (±{m_p99:.3})",
                x(aa.p99_ratio_to_tcp, aa.p99_ratio_to_tcp_half)
            ),
            x(las.p99_ratio_to_tcp, las.p99_ratio_to_tcp_half),
            format!(
                "{} ({})",
                x(git.p99_ratio_to_tcp, git.p99_ratio_to_tcp_half),
                p99.word.says("lower", "higher")
            ),
        ]);
    }
    let met = cells_saying(cells, verdicts, 0, Word::Met).len();
    let all = Word::all_met(verdicts.iter().step_by(PER_CELL).map(|v| v.word));
    let workloads: Vec<String> = {
        let mut seen: Vec<&str> = Vec::new();
        cells
            .iter()
            .filter(|c| {
                let new = !seen.contains(&c.workload.name);
                seen.push(c.workload.name);
                new
            })
            .map(|c| format!("- `{}`: {}", c.workload.name, c.workload.what))
            .collect()
    };
    let p = &cells[0].params;
    format!(
        "# {NAME}: the Gittins index on learned sizes, at packet level\n\n\
{described} That is the first cell; each cell below has its own workload (the flow-level \
`gittins-sweep`'s, `engine::sizes`) and load:\n\n{workloads}\n\n\
`tcp`: every flow on its own connection. `schedtcp/…`: the shipped core over the same connections, \
**sizes unknown to it** (`size_hint = false`): `las` serves the flow with the least bytes sent; \
`gittins` the highest Gittins index of its attained service under the size distribution the core \
learned on the route from the flows that ended. A flow's size is unknown to the core until its last \
byte enters the core's send buffer for it (the application has written everything and closed): \
from then on `gittins` ranks it by its remaining bytes, as SRPT would; a flow no larger than the \
buffer is known from its start (\"beyond buffer\": the share of flows ever ranked by the index). \
Each sample path runs {reps} times under independent perturbations of at most {jitter} ns per \
packet (a flow's time is its mean over them); `{AA_LABEL}` is tcp under {reps} other \
perturbations. A statistic is taken within a path over the flows every configuration finished, \
as a ratio to tcp's on that path; the 95% interval is over the {paths} paths. A ratio is lower \
or higher than tcp's only when its interval clears 1 by more than the A/A ratio's reach (the \
margin in brackets).\n\n\
**`gittins` within 5% of the best size-blind policy (tcp or las) on every workload: {all}** — \
met in {met} of {n} cells; not met in {not_met}; undecided in {undecided}.\n\n\
**Never slower than tcp beyond the A/A noise: {never}** — slower in {slower}; the 99th \
percentile above tcp's beyond its A/A noise in {p99_higher}.\n\n\
## Mean transfer time\n\n{means}\n\
## 99th percentile of the transfer time\n\n{tails}\n\
Words come from `engine::verdict::judge` on the intervals above (`verdicts.json`, {per} per \
cell). Files: `cells.csv` (every configuration in every cell).\n",
        described = describe(p),
        workloads = workloads.join("\n"),
        reps = p.repeats,
        jitter = p.jitter_ns,
        paths = p.runs,
        all = all.says("", ""),
        n = cells.len(),
        not_met = list(cells_saying(cells, verdicts, 0, Word::NotMet)),
        undecided = list(cells_saying(cells, verdicts, 0, Word::Undecided)),
        never = never_slower(verdicts).says("", ""),
        slower = list(cells_saying(cells, verdicts, 1, Word::Higher)),
        p99_higher = list(cells_saying(cells, verdicts, 2, Word::Higher)),
        per = PER_CELL,
        means = md_table(
            &[
                "workload",
                "load",
                "flows per path",
                "beyond buffer",
                "E[T] tcp",
                "tcp (A/A) / tcp",
                "las / tcp",
                "gittins / tcp",
                "gittins / best size-blind",
                "unfinished tcp / A/A / las / gittins",
            ],
            &means,
        ),
        tails = md_table(
            &[
                "workload",
                "load",
                "p99 tcp",
                "tcp (A/A) / tcp",
                "las / tcp",
                "gittins / tcp",
            ],
            &tails,
        ),
    )
}
