//! Flow-level sweep of the size-blind policies against the Gittins index policy on learned
//! sizes: does one policy with no per-workload tuning match the best size-blind policy on
//! every workload (paper 000, Section 4), and is it never slower than plain TCP (PS)?
//!
//! Every policy runs on the same sample paths (one M/G/1 link, Poisson arrivals); response
//! times are compared as ratios to PS on the same path, with 95% intervals over seeds.

use crate::check_param;
use crate::engine::flowlevel::{response_stats, Mix};
use crate::engine::sizes::named;
use crate::engine::verdict::{Interval, Rule, Source, Verdict, Word};
use crate::engine::{md_table, mean_ci, says};
use crate::Context;
use flowsim::mg1::{simulate, simulate_keyed, Keyed, Knowledge, Policy};
use serde::{Deserialize, Serialize};

pub const NAME: &str = "gittins-sweep";
pub const DESCRIPTION: &str =
    "Gittins index on learned sizes vs PS/LAS/PS+PS/FCFS (and SRPT, the mu-rule) over six size distributions and loads, flow level";
pub const SCENARIO: &str = include_str!("../../scenarios/gittins-sweep.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    /// Link capacity, bytes per second.
    capacity: f64,
    loads: Vec<f64>,
    flows: usize,
    warmup_flows: usize,
    replications: usize,
    workloads: Vec<String>,
    /// PS+PS threshold, bytes.
    psps_threshold: f64,
    threads: usize,
}

/// A workload: its name, what it is, and its flow types.
struct Workload {
    name: &'static str,
    what: String,
    mix: Mix,
}

const MB: f64 = 1e6;

/// A workload of the shared catalogue (`engine::sizes`), scale-free ones of mean 1 MB.
fn workload(name: &str) -> anyhow::Result<Workload> {
    let w = named(name, MB)?;
    Ok(Workload {
        name: w.name,
        mix: w.mix()?,
        what: w.what,
    })
}

/// The policies compared; the size-blind baselines first.
const BLIND: [&str; 4] = ["PS", "LAS", "PS+PS", "FCFS"];
const POLICIES: [&str; 7] = [
    "PS",
    "LAS",
    "PS+PS",
    "FCFS",
    "SRPT",
    "gittins (learned)",
    "gittins (known)",
];
const MU: &str = "mu:gittins (learned)";

/// One run: per policy, the mean and 99th percentile of the response time (a shard's raw
/// result).
#[derive(Serialize, Deserialize)]
struct RunStats {
    mean: Vec<f64>,
    p99: Vec<f64>,
}

fn run_one(w: &Workload, load: f64, seed: u64, p: &Params) -> anyhow::Result<RunStats> {
    let (path, types) = w.mix.path(p.flows, load, p.capacity, seed)?;
    let from = if w.mix.after.is_some() {
        p.flows / 2
    } else {
        p.warmup_flows
    };
    let cap = p.capacity;
    let gittins = |knowledge| Keyed {
        policy: gtcp::Policy::new(gtcp::Order::Gittins),
        types: None,
        knowledge,
    };
    let mut done = Vec::new();
    for name in POLICIES {
        let d = match name {
            "PS" => simulate(&path, cap, Policy::Ps)?,
            "LAS" => simulate(&path, cap, Policy::Las)?,
            "PS+PS" => simulate(
                &path,
                cap,
                Policy::PsPs {
                    threshold: p.psps_threshold,
                },
            )?,
            "FCFS" => simulate(&path, cap, Policy::Fcfs)?,
            "SRPT" => simulate(&path, cap, Policy::Srpt)?,
            "gittins (learned)" => simulate_keyed(&path, cap, &gittins(Knowledge::Learned))?,
            _ => simulate_keyed(
                &path,
                cap,
                &gittins(Knowledge::Known(vec![w.mix.known_pooled()])),
            )?,
        };
        done.push(d.completion);
    }
    if w.mix.types.len() > 1 {
        let k = Keyed {
            policy: "mu:gittins".parse()?,
            types: Some(&types),
            knowledge: Knowledge::Learned,
        };
        done.push(simulate_keyed(&path, cap, &k)?.completion);
    }
    let (mean, p99) = done.iter().map(|d| response_stats(&path, d, from)).unzip();
    Ok(RunStats { mean, p99 })
}

#[derive(Serialize)]
struct Row {
    workload: String,
    load: f64,
    policy: String,
    mean_ratio_to_ps: f64,
    mean_ratio_ci95: f64,
    p99_ratio_to_ps: f64,
    p99_ratio_ci95: f64,
    mean_response_s: f64,
    replications: usize,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    check_param!(p.capacity > 0.0, "capacity must be > 0");
    check_param!(
        !p.loads.is_empty() && p.loads.iter().all(|&l| l > 0.0 && l < 1.0),
        "loads must be in (0, 1)"
    );
    check_param!(p.replications >= 2, "replications must be >= 2 (intervals)");
    check_param!(
        p.flows > 2 * p.warmup_flows,
        "flows must exceed twice warmup_flows"
    );
    check_param!(p.psps_threshold >= 0.0, "psps_threshold must be >= 0");
    check_param!(p.threads >= 1, "threads must be >= 1");
    let workloads: Vec<Workload> = p
        .workloads
        .iter()
        .map(|w| workload(w))
        .collect::<anyhow::Result<_>>()?;
    let seed = ctx.seed(p.seed);
    let jobs: Vec<(usize, usize, usize)> = (0..workloads.len())
        .flat_map(|w| {
            (0..p.loads.len()).flat_map(move |l| (0..p.replications).map(move |r| (w, l, r)))
        })
        .collect();
    let results = ctx.jobs("workloads x loads x seeds", jobs.len(), p.threads, |i| {
        let (w, l, r) = jobs[i];
        let s = seed
            .wrapping_mul(1_000_003)
            .wrapping_add((w * 1000 + l * 100 + r) as u64);
        run_one(&workloads[w], p.loads[l], s, &p)
    })?;
    ctx.runs_done()?;

    let mut findings = Findings::default();
    for (wi, w) in workloads.iter().enumerate() {
        for (li, &load) in p.loads.iter().enumerate() {
            let runs: Vec<&RunStats> = jobs
                .iter()
                .zip(&results)
                .filter(|((jw, jl, _), _)| *jw == wi && *jl == li)
                .map(|(_, r)| r)
                .collect();
            cell(w, load, &runs, &mut findings);
        }
    }
    ctx.write_csv("ratios.csv", &findings.rows)?;
    ctx.write_csv("gittins.csv", &findings.cells)?;
    ctx.write_json("verdicts.json", &findings.verdicts)?;
    Ok(render(&p, &workloads, &findings))
}

/// Gittins (learned) in one workload-load cell against the best size-blind policy and tcp.
#[derive(Serialize)]
struct Cell {
    workload: String,
    load: f64,
    /// The size-blind policy with the lowest mean ratio to PS in the cell.
    best_blind: String,
    /// Gittins (learned)'s mean response time / the best size-blind policy's, per seed: mean
    /// and 95% half-width.
    to_best_mean: f64,
    to_best_ci95: f64,
    replications: usize,
}

/// The goal on the learned index's mean response time against the best size-blind policy's.
const WITHIN_BEST: Rule = Rule::AtMost {
    max: 1.05,
    margin: 0.0,
};

/// Against PS on the same seed: 1 is no change.
const AGAINST_TCP: Rule = Rule::Against {
    reference: 1.0,
    margin: 0.0,
};

/// One workload-load cell: every policy's ratios to PS (rows), the learned index against the
/// best size-blind policy and against tcp (verdicts), the table's line.
fn cell(w: &Workload, load: f64, runs: &[&RunStats], f: &mut Findings) {
    let mut names: Vec<&str> = POLICIES.to_vec();
    if w.mix.types.len() > 1 {
        names.push(MU);
    }
    let ratio = |k: usize, pick: fn(&RunStats) -> &Vec<f64>| -> Vec<f64> {
        runs.iter().map(|r| pick(r)[k] / pick(r)[0]).collect()
    };
    let first = f.rows.len();
    for (k, name) in names.iter().enumerate() {
        let (m, mh) = mean_ci(&ratio(k, |r| &r.mean));
        let (q, qh) = mean_ci(&ratio(k, |r| &r.p99));
        let abs = runs.iter().map(|r| r.mean[k]).sum::<f64>() / runs.len() as f64;
        f.rows.push(Row {
            workload: w.name.into(),
            load,
            policy: (*name).into(),
            mean_ratio_to_ps: m,
            mean_ratio_ci95: mh,
            p99_ratio_to_ps: q,
            p99_ratio_ci95: qh,
            mean_response_s: abs,
            replications: runs.len(),
        });
    }
    let rows = &f.rows[first..];
    let best_k = (0..BLIND.len())
        .min_by(|&a, &b| {
            rows[a]
                .mean_ratio_to_ps
                .total_cmp(&rows[b].mean_ratio_to_ps)
        })
        .unwrap_or(0);
    let g = POLICIES
        .iter()
        .position(|&n| n == "gittins (learned)")
        .unwrap_or(0);
    let to_best = Interval::of(
        &runs
            .iter()
            .map(|r| r.mean[g] / r.mean[best_k])
            .collect::<Vec<_>>(),
    );
    let at = format!("{} at {load}", w.name);
    let filter = [("workload", w.name), ("load", &load.to_string())];
    let within = Verdict::new(
        format!(
            "{at}: gittins (learned) / best size-blind ({}), E[T]",
            BLIND[best_k]
        ),
        Some("within 5% of the best size-blind policy (Section 4: no tuning per workload)"),
        to_best,
        WITHIN_BEST,
    )
    .from(Source::new("gittins.csv", "to_best_mean", &filter));
    let gittins = [
        ("policy", "gittins (learned)"),
        ("workload", w.name),
        ("load", &load.to_string()),
    ];
    let vs_tcp = Verdict::new(
        format!("{at}: gittins (learned) / tcp, E[T]"),
        Some("never slower than tcp"),
        Interval::new(rows[g].mean_ratio_to_ps, rows[g].mean_ratio_ci95),
        AGAINST_TCP,
    )
    .from(Source::new("ratios.csv", "mean_ratio_to_ps", &gittins));
    let p99 = Verdict::new(
        format!("{at}: gittins (learned) / tcp, 99th percentile"),
        None,
        Interval::new(rows[g].p99_ratio_to_ps, rows[g].p99_ratio_ci95),
        AGAINST_TCP,
    )
    .from(Source::new("ratios.csv", "p99_ratio_to_ps", &gittins));
    let cell = |k: usize| {
        rows.get(k).map_or("–".into(), |r| {
            format!("{:.3} ± {:.3}", r.mean_ratio_to_ps, r.mean_ratio_ci95)
        })
    };
    let mut line = vec![w.name.to_string(), format!("{load}")];
    line.extend((0..=POLICIES.len()).map(cell));
    line.push(format!(
        "{:.3} ± {:.3} ({}): {}",
        to_best.mean,
        to_best.half,
        BLIND[best_k],
        within.word.says("", "")
    ));
    line.push(format!(
        "{}; {}",
        says(vs_tcp.word, "faster than tcp", "SLOWER than tcp"),
        says(p99.word, "p99 below tcp's", "p99 ABOVE tcp's")
    ));
    f.table.push(line);
    f.cells.push(Cell {
        workload: w.name.into(),
        load,
        best_blind: BLIND[best_k].into(),
        to_best_mean: to_best.mean,
        to_best_ci95: to_best.half,
        replications: runs.len(),
    });
    f.verdicts.extend([within, vs_tcp, p99]);
}

/// What the cells show: one row per workload, load and policy, the learned index per cell,
/// the table of mean ratios, and the verdicts (per cell: within 5% of the best size-blind
/// policy, against tcp on the mean and at the 99th percentile).
#[derive(Default)]
struct Findings {
    rows: Vec<Row>,
    cells: Vec<Cell>,
    table: Vec<Vec<String>>,
    verdicts: Vec<Verdict>,
}

/// The cells whose verdict on `rule` says `word`, as "workload at load".
fn cells_saying(verdicts: &[Verdict], rule: Rule, suffix: &str, word: Word) -> Vec<String> {
    verdicts
        .iter()
        .filter(|v| v.rule == rule && v.claim.ends_with(suffix) && v.word == word)
        .filter_map(|v| v.claim.split(':').next().map(str::to_string))
        .collect()
}

/// The summary.
fn render(p: &Params, workloads: &[Workload], findings: &Findings) -> String {
    let Findings {
        rows,
        table,
        verdicts,
        ..
    } = findings;
    let mut headers: Vec<&str> = vec!["workload", "load"];
    headers.extend(POLICIES);
    headers.push(MU);
    headers.push("gittins (learned) / best size-blind, per seed (95% CI)");
    headers.push("gittins (learned) vs tcp");
    let p99_table: Vec<Vec<String>> = rows
        .iter()
        .filter(|r| r.policy.starts_with("gittins") || r.policy == "LAS" || r.policy == "PS+PS")
        .map(|r| {
            vec![
                r.workload.clone(),
                format!("{}", r.load),
                r.policy.clone(),
                format!("{:.3} ± {:.3}", r.p99_ratio_to_ps, r.p99_ratio_ci95),
            ]
        })
        .collect();
    let within = |w: Word| cells_saying(verdicts, WITHIN_BEST, "E[T]", w);
    let all = Word::all_met(
        verdicts
            .iter()
            .filter(|v| v.rule == WITHIN_BEST)
            .map(|v| v.word),
    );
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let goal = format!(
        "{}: met in {} of {} workload-load cells (the whole 95% interval of the per-seed ratio \
         at or below 1.05); not met in {}; undecided in {}",
        all.says("", ""),
        within(Word::Met).len(),
        findings.cells.len(),
        list(within(Word::NotMet)),
        list(within(Word::Undecided)),
    );
    let slower = cells_saying(verdicts, AGAINST_TCP, "E[T]", Word::Higher);
    let tcp_goal = format!(
        "{}: slower than tcp beyond the 95% interval in {}",
        if slower.is_empty() { "met" } else { "not met" },
        list(slower)
    );
    let slower_p99 = cells_saying(verdicts, AGAINST_TCP, "percentile", Word::Higher);
    let tail = format!(
        "99th percentile above tcp's beyond the interval in {}",
        list(slower_p99)
    );
    let what: Vec<String> = workloads
        .iter()
        .map(|w| format!("- `{}`: {}", w.name, w.what))
        .collect();
    format!(
        "# {NAME}\n\n\
         One link of {:.1} MB/s, Poisson arrivals, {} flows per run (the first {} discarded; \
         `change`: the first half), {} seeds per cell; every policy on the same paths. Mean \
         response time as a ratio to PS (plain TCP), mean ± 95% interval over seeds. \
         `gittins (learned)` learns the size distribution online from completed flows with the \
         core's own estimator and ranks by the core's own key (`gtcp::policy`); `gittins \
         (known)` is given the distribution (for `change`: the first one, never updated). \
         SRPT knows every size (a bound, not a size-blind policy). `{MU}`: types are the \
         mixture's two classes. PS+PS threshold {:.0} bytes. Nothing is tuned per workload.\n\n\
         Workloads:\n{}\n\n\
         **Gittins within 5% of the best size-blind policy (PS, LAS, PS+PS, FCFS): {goal}.**\n\n\
         **Never slower than tcp: {tcp_goal}; {tail}.**\n\n\
         ## Mean response time / PS\n\n{}\n\
         ## 99th percentile of the response time / PS (selected policies)\n\n{}\n\
         Per-policy numbers (also absolute mean response times): `ratios.csv`.\n",
        p.capacity / MB,
        p.flows,
        p.warmup_flows,
        p.replications,
        p.psps_threshold,
        what.join("\n"),
        md_table(&headers, table),
        md_table(&["workload", "load", "policy", "p99 / PS"], &p99_table),
    )
}
