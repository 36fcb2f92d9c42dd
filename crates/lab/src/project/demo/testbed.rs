//! The demo's real-TCP part (root): lab's `testbed-table2` and `testbed-nonintrusive` on the
//! demo's short scenarios (network namespaces, a `tbf` bottleneck, real `schedtcp server` and
//! `client` processes), read back from the CSV files they write.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;

use super::report::{competitor, CompetitorRun, Part, PolicyRow};
use super::sim::{ratios, run_lab};
use crate::engine::ratio::{Interval, Verdict};
use crate::engine::saved::read_csv;

/// Paper 000's Table 2 on the testbed, cut to about a minute.
const TABLE2: &str = include_str!("testbed-table2.toml");
/// A plain-TCP competitor beside the tunnel on the testbed, cut to about forty seconds.
const NONINTRUSIVE: &str = include_str!("testbed-nonintrusive.toml");

/// `testbed-table2/flows.csv`.
#[derive(Deserialize)]
struct FlowRow {
    path: usize,
    repeat: usize,
    id: usize,
    variant: String,
    completion_s: Option<f64>,
    error: Option<String>,
}

/// `testbed-table2/table2.csv`.
#[derive(Deserialize)]
struct VariantRow {
    variant: String,
    ideal_mean_ratio: Option<f64>,
}

/// `testbed-table2/invariant.csv`.
#[derive(Deserialize)]
struct InvariantRow {
    variant: String,
    connections_checked: u64,
    connections_violated: u64,
    payload_bytes: u64,
    flows_bytes: u64,
}

/// `testbed-nonintrusive/runs.csv`: the checks of the competitor runs.
#[derive(Deserialize)]
struct CompetitorChecks {
    variant: String,
    failed: usize,
    server_checked: u64,
    server_violated: u64,
}

/// The testbed part.
pub fn run(dir: &Path, quick: bool, seed: Option<u64>) -> Result<Part> {
    super::step("testbed: paper 000's Table 2 on real TCP (tcp, then each policy; repeated)");
    run_lab(dir, "testbed-table2", TABLE2, quick, seed)?;
    super::step("testbed: a long plain-TCP download beside the tunnel");
    run_lab(dir, "testbed-nonintrusive", NONINTRUSIVE, quick, seed)?;

    let t2 = dir.join("testbed-table2");
    let flows: Vec<FlowRow> = read_csv(&t2, "flows.csv")?;
    let ideal: BTreeMap<String, Option<f64>> = read_csv::<VariantRow>(&t2, "table2.csv")?
        .into_iter()
        .map(|r| (r.variant, r.ideal_mean_ratio))
        .collect();
    let inv: Vec<InvariantRow> = read_csv(&t2, "invariant.csv")?;
    let ni = dir.join("testbed-nonintrusive");
    let comp: Vec<CompetitorRun> = read_csv(&ni, "runs.csv")?;
    let comp_runs: Vec<CompetitorChecks> = read_csv(&ni, "runs.csv")?;

    // Blocks: one per (path, repeat), each flow's completion time in order.
    let mut blocks: Vec<(usize, usize)> = flows.iter().map(|f| (f.path, f.repeat)).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let times = |variant: &str| -> Vec<Vec<Option<f64>>> {
        blocks
            .iter()
            .map(|&(p, k)| {
                flows
                    .iter()
                    .filter(|f| f.path == p && f.repeat == k && f.variant == variant)
                    .map(|f| f.completion_s.filter(|_| f.error.is_none()))
                    .collect()
            })
            .collect()
    };
    let tcp = times("tcp");
    // The interval: a paired bootstrap over the flows of each flow's mean completion time
    // over the repeats (the repeats are few). A/A: tcp's even repeats against its odd ones.
    let all = |_: usize| true;
    let tcp_means = flow_means(&flows, "tcp", &all);
    let aa_pairs = paired(
        &flow_means(&flows, "tcp", &|k| k % 2 == 0),
        &flow_means(&flows, "tcp", &|k| k % 2 == 1),
    );
    let aa = Interval::bootstrap_ratio(&aa_pairs);
    let tcp_done: Vec<f64> = tcp.iter().flatten().flatten().copied().collect();
    let comp_of = |v: &str| competitor(&comp, v, "tcp");
    let mut variants: Vec<&str> = Vec::new();
    for f in &flows {
        if !variants.contains(&f.variant.as_str()) {
            variants.push(&f.variant);
        }
    }
    variants.sort_by_key(|v| *v != "tcp");
    let mut rows = Vec::new();
    for &v in variants.iter().filter(|v| **v != "plain") {
        let is_tcp = v == "tcp";
        let ratio = if is_tcp {
            aa
        } else {
            Interval::bootstrap_ratio(&paired(&tcp_means, &flow_means(&flows, v, &all)))
        };
        // Per repeat, for the plot.
        let rs = if is_tcp {
            Vec::new()
        } else {
            ratios(&tcp, &times(v))
        };
        let ours = flows.iter().filter(|f| f.variant == v);
        let (mut checked, mut violated, mut bad) = (0, 0, 0);
        for i in inv.iter().filter(|i| i.variant == v) {
            checked += i.connections_checked;
            violated += i.connections_violated;
            bad += u64::from(i.payload_bytes != i.flows_bytes);
        }
        for r in comp_runs.iter().filter(|r| r.variant == v) {
            checked += r.server_checked;
            violated += r.server_violated;
            bad += r.failed as u64;
        }
        rows.push(PolicyRow {
            policy: if is_tcp {
                "tcp (A/A)".into()
            } else {
                v.to_owned()
            },
            flows: ours.clone().count(),
            done: ours
                .filter(|f| f.completion_s.is_some() && f.error.is_none())
                .count(),
            verdict: if is_tcp {
                Verdict::Noise
            } else {
                Verdict::judge(&ratio, Verdict::aa_margin(&aa))
            },
            ratio,
            ratios: rs,
            fluid: if is_tcp {
                Some(1.0)
            } else {
                ideal.get(v).copied().flatten()
            },
            competitor: comp_of(v),
            checked,
            violated,
            byte_errors: bad,
        });
    }
    let repeats = blocks.len();
    Ok(Part {
        name: "testbed",
        setup: format!(
            "real kernel TCP between network namespaces, real `schedtcp server`/`client` \
             processes behind a 6 MB/s tbf bottleneck; Poisson arrivals, Lomax α = 3 sizes of \
             mean 500 kB, load 0.9; the same flows {repeats} times under each variant \
             (baseline: the tunnel's tcp policy; intervals: a paired bootstrap over the flows; A/A: tcp's even repeats against its odd ones)"
        ),
        base: "tcp (tunnel)",
        tcp_mean_s: tcp_done.iter().sum::<f64>() / tcp_done.len().max(1) as f64,
        rows,
        competitor_plain: None,
        reports: vec!["testbed-table2".into(), "testbed-nonintrusive".into()],
    })
}

/// Each flow's mean completion time over the repeats `pick` accepts, by (path, flow); `None`
/// when it failed in one of them.
fn flow_means(
    flows: &[FlowRow],
    variant: &str,
    pick: &dyn Fn(usize) -> bool,
) -> BTreeMap<(usize, usize), Option<f64>> {
    let mut acc: BTreeMap<(usize, usize), Option<(f64, usize)>> = BTreeMap::new();
    for f in flows
        .iter()
        .filter(|f| f.variant == variant && pick(f.repeat))
    {
        let e = acc.entry((f.path, f.id)).or_insert(Some((0.0, 0)));
        *e = match (*e, f.completion_s.filter(|_| f.error.is_none())) {
            (Some((s, n)), Some(t)) => Some((s + t, n + 1)),
            _ => None,
        };
    }
    acc.into_iter()
        .map(|(k, v)| (k, v.map(|(s, n)| s / n as f64)))
        .collect()
}

/// `(a, b)` of the flows both completed.
fn paired(
    a: &BTreeMap<(usize, usize), Option<f64>>,
    b: &BTreeMap<(usize, usize), Option<f64>>,
) -> Vec<(f64, f64)> {
    a.iter()
        .filter_map(|(k, x)| Some(((*x)?, (*b.get(k)?)?)))
        .collect()
}
