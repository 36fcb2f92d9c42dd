//! The demo's simulator part (no root needed, seconds): lab's `table2` and `nonintrusive`
//! experiments on the demo's scaled scenarios, read back from the CSV files they write.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use super::report::{competitor, CompetitorRun, Part, PolicyRow};
use crate::engine::ratio::{Interval, Verdict};
use crate::engine::saved::read_csv;

/// Paper 000's Table 2 scaled to seconds (lab's `table2`).
const TABLE2: &str = include_str!("sim-table2.toml");
/// A plain-TCP competitor beside that workload (lab's `nonintrusive`).
const NONINTRUSIVE: &str = include_str!("sim-nonintrusive.toml");

/// Runs lab experiment `name` on the scenario `text` into `dir/<name>/`.
pub fn run_lab(dir: &Path, name: &str, text: &str, quick: bool, seed: Option<u64>) -> Result<()> {
    let scenario = dir.join(format!(".{name}.toml"));
    std::fs::write(&scenario, text).with_context(|| format!("writing {}", scenario.display()))?;
    let r = crate::run(
        name,
        &crate::RunOptions {
            scenario: Some(scenario.clone()),
            out_dir: Some(dir.join(name)),
            quick,
            seed,
            progress: true,
            shard: None,
        },
    );
    let _ = std::fs::remove_file(&scenario);
    r.map(|_| ())
}

/// `table2/table2.csv`: the fluid rows.
#[derive(Deserialize)]
struct Table2Row {
    source: String,
    policy: String,
    ratio_to_tcp: f64,
}

/// `table2/nonintrusive.csv`: the invariant and the byte checks per configuration.
#[derive(Deserialize)]
struct CheckRow {
    label: String,
    invariant_checked: u64,
    invariant_violations: u64,
    protocol_errors: u64,
    api_errors: u64,
    payload_mismatches: u64,
}

/// `nonintrusive/runs.csv`: the checks of the competitor runs.
#[derive(Deserialize)]
struct CompetitorChecks {
    config: String,
    invariant_checked: u64,
    invariant_violations: u64,
    errors: u64,
}

/// The completion times of `table2/flows.csv`: per configuration label, per run, per flow.
pub struct Flows {
    labels: Vec<String>,
    /// `times[config][run][flow]`.
    times: Vec<Vec<Vec<Option<f64>>>>,
}

impl Flows {
    fn read(file: &Path) -> Result<Self> {
        let mut r =
            csv::Reader::from_path(file).with_context(|| format!("opening {}", file.display()))?;
        let head = r.headers()?.clone();
        if head.len() < 5 || &head[0] != "run" {
            bail!("{}: unexpected columns", file.display());
        }
        let labels: Vec<String> = head.iter().skip(4).map(str::to_owned).collect();
        let mut times = vec![Vec::<Vec<Option<f64>>>::new(); labels.len()];
        for rec in r.records() {
            let rec = rec.with_context(|| format!("reading {}", file.display()))?;
            let run: usize = rec[0].parse().context("run number")?;
            for (k, t) in times.iter_mut().enumerate() {
                if t.len() <= run {
                    t.resize(run + 1, Vec::new());
                }
                let cell = rec.get(k + 4).unwrap_or("");
                t[run].push(if cell.is_empty() {
                    None
                } else {
                    Some(cell.parse().with_context(|| format!("time {cell:?}"))?)
                });
            }
        }
        Ok(Self { labels, times })
    }

    fn of(&self, label: &str) -> Result<&[Vec<Option<f64>>]> {
        let k = self
            .labels
            .iter()
            .position(|l| l == label)
            .with_context(|| format!("no configuration {label} in flows.csv"))?;
        Ok(&self.times[k])
    }
}

/// Per run, the mean completion time of `other` over `base`'s, on the flows both completed.
pub fn ratios(base: &[Vec<Option<f64>>], other: &[Vec<Option<f64>>]) -> Vec<f64> {
    base.iter()
        .zip(other)
        .filter_map(|(b, o)| {
            let (sb, so) = b
                .iter()
                .zip(o)
                .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
                .fold((0.0, 0.0), |(sb, so), (x, y)| (sb + x, so + y));
            (sb > 0.0).then(|| so / sb)
        })
        .collect()
}

/// The simulator part.
pub fn run(dir: &Path, quick: bool, seed: Option<u64>) -> Result<Part> {
    super::step("simulator: paper 000's Table 2, scaled (tcp, then the core under each policy)");
    run_lab(dir, "table2", TABLE2, quick, seed)?;
    super::step("simulator: a long plain-TCP competitor beside the same workload");
    run_lab(dir, "nonintrusive", NONINTRUSIVE, quick, seed)?;

    let t2 = dir.join("table2");
    let flows = Flows::read(&t2.join("flows.csv"))?;
    let fluid: BTreeMap<String, f64> = read_csv::<Table2Row>(&t2, "table2.csv")?
        .into_iter()
        .filter(|r| r.source == "fluid")
        .map(|r| (r.policy, r.ratio_to_tcp))
        .collect();
    let checks: Vec<CheckRow> = read_csv(&t2, "nonintrusive.csv")?;
    let ni = dir.join("nonintrusive");
    let comp: Vec<CompetitorRun> = read_csv(&ni, "runs.csv")?;
    let comp_runs: Vec<CompetitorChecks> = read_csv(&ni, "runs.csv")?;

    let tcp = flows.of("tcp")?;
    let tcp_done: Vec<f64> = tcp.iter().flatten().flatten().copied().collect();
    let n_flows: usize = tcp.iter().map(Vec::len).sum();
    let comp_of = |label: &str| competitor(&comp, label, "schedtcp/tcp");
    let mut rows = Vec::new();
    for label in flows.labels.iter().filter(|l| l.starts_with("schedtcp/")) {
        let policy = label.trim_start_matches("schedtcp/");
        let t = flows.of(label)?;
        let rs = ratios(tcp, t);
        let ratio = Interval::of(&rs);
        let is_aa = policy == "tcp";
        let c = checks.iter().find(|c| &c.label == label);
        let cr = comp_runs.iter().filter(|c| &c.config == label);
        let (ck, vi, er) = cr.fold((0, 0, 0), |(a, b, e), r| {
            (
                a + r.invariant_checked,
                b + r.invariant_violations,
                e + r.errors,
            )
        });
        rows.push(PolicyRow {
            policy: if is_aa {
                "tcp (tunnel)".into()
            } else {
                policy.into()
            },
            flows: n_flows,
            done: t.iter().flatten().flatten().count(),
            verdict: Verdict::judge(&ratio, 0.0),
            ratio,
            ratios: rs,
            fluid: if is_aa {
                Some(1.0)
            } else {
                fluid.get(policy).copied()
            },
            competitor: comp_of(label),
            checked: c.map_or(0, |c| c.invariant_checked) + ck,
            violated: c.map_or(0, |c| c.invariant_violations) + vi,
            byte_errors: c.map_or(0, |c| {
                c.protocol_errors + c.api_errors + c.payload_mismatches
            }) + er,
        });
    }
    Ok(Part {
        name: "simulator",
        setup: format!(
            "the shipped gtcp core (default configuration) over simulated NewReno; paper 000's \
             Table 2 workload (Poisson, Lomax α = 3, load 0.9) with flows 20× smaller (mean \
             250 kB) on a 12 MB/s, 50 ms path; {} independent runs, {} flows in all; the \
             competitor beside the same workload at load 0.6, {} runs",
            tcp.len(),
            n_flows,
            comp.iter().filter(|r| r.config == "schedtcp/tcp").count()
        ),
        base: "tcp (plain)",
        tcp_mean_s: tcp_done.iter().sum::<f64>() / tcp_done.len().max(1) as f64,
        rows,
        competitor_plain: comp_of("plain tcp (no tunnel)"),
        reports: vec!["table2".into(), "nonintrusive".into()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_pair_the_flows_both_completed_run_by_run() {
        let base = vec![
            vec![Some(1.0), Some(3.0), None],
            vec![Some(2.0), Some(2.0), Some(4.0)],
        ];
        let other = vec![
            vec![Some(1.0), Some(1.0), Some(9.0)],
            vec![Some(1.0), Some(1.0), None],
        ];
        assert_eq!(ratios(&base, &other), vec![0.5, 0.5]);
    }
}
