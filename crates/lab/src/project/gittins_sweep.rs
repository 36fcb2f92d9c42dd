//! Flow-level sweep of the size-blind policies against the Gittins index policy on learned
//! sizes: does one policy with no per-workload tuning match the best size-blind policy on
//! every workload (paper 000, Section 4), and is it never slower than plain TCP (PS)?
//!
//! Every policy runs on the same sample paths (one M/G/1 link, Poisson arrivals); response
//! times are compared as ratios to PS on the same path, with 95% intervals over seeds.

use crate::check_param;
use crate::engine::flowlevel::{response_stats, Mix};
use crate::engine::{md_table, mean_ci, parallel_map, verdict};
use crate::Context;
use flowsim::mg1::{simulate, simulate_keyed, Keyed, Knowledge, Policy};
use models::SizeDist;
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
    what: &'static str,
    mix: Mix,
}

const MB: f64 = 1e6;
/// Paper 003's packet, bytes.
const PACKET: f64 = 1500.0;

fn lomax(alpha: f64, mean: f64) -> anyhow::Result<SizeDist> {
    Ok(SizeDist::lomax(1.0 / (mean * (alpha - 1.0)), alpha)?)
}

/// Paper 003's bounded Pareto BP(13, 5000, 1.1) packets, in bytes.
fn bp003() -> anyhow::Result<SizeDist> {
    Ok(SizeDist::bounded_pareto(
        13.0 * PACKET,
        5000.0 * PACKET,
        1.1,
    )?)
}

fn workload(name: &str) -> anyhow::Result<Workload> {
    let w = |name, what, mix| Workload { name, what, mix };
    Ok(match name {
        "exp" => w(
            "exp",
            "exponential, mean 1 MB",
            Mix::one(SizeDist::exponential(MB)?),
        ),
        "lomax1.1" => w(
            "lomax1.1",
            "Lomax alpha = 1.1, mean 1 MB",
            Mix::one(lomax(1.1, MB)?),
        ),
        "lomax1.5" => w(
            "lomax1.5",
            "Lomax alpha = 1.5, mean 1 MB",
            Mix::one(lomax(1.5, MB)?),
        ),
        "lomax3" => w(
            "lomax3",
            "Lomax alpha = 3, mean 1 MB (paper 000's shape)",
            Mix::one(lomax(3.0, MB)?),
        ),
        "bp" => w(
            "bp",
            "bounded Pareto BP(13, 5000, 1.1) packets of 1500 B (paper 003)",
            Mix::one(bp003()?),
        ),
        "d1" => w(
            "d1",
            "paper 003's D1: 80% exponential mean 6 kB, 20% BP(13, 5000, 1.1) packets",
            Mix {
                types: vec![(0.8, SizeDist::exponential(4.0 * PACKET)?), (0.2, bp003()?)],
                after: None,
            },
        ),
        "change" => w(
            "change",
            "exponential mean 1 MB, then Lomax alpha = 1.1 mean 1 MB from half-way \
             (statistics over the second half)",
            Mix {
                types: vec![(1.0, SizeDist::exponential(MB)?)],
                after: Some(lomax(1.1, MB)?),
            },
        ),
        other => anyhow::bail!(
            "unknown workload `{other}`: expected exp, lomax1.1, lomax1.5, lomax3, bp, d1 or change"
        ),
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

/// One run: per policy, the mean and 99th percentile of the response time.
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
    let pb = ctx.progress(jobs.len() as u64, "workloads x loads x seeds");
    let results = parallel_map(
        jobs.len(),
        p.threads,
        |i| {
            let (w, l, r) = jobs[i];
            let s = seed
                .wrapping_mul(1_000_003)
                .wrapping_add((w * 1000 + l * 100 + r) as u64);
            run_one(&workloads[w], p.loads[l], s, &p)
        },
        || pb.inc(1),
    )?;
    pb.finish_and_clear();

    let mut rows = Vec::new();
    let mut table = Vec::new();
    let (mut within, mut cells, mut slower, mut slower_p99) = (0, 0, Vec::new(), Vec::new());
    for (wi, w) in workloads.iter().enumerate() {
        for (li, &load) in p.loads.iter().enumerate() {
            let runs: Vec<&RunStats> = jobs
                .iter()
                .zip(&results)
                .filter(|((jw, jl, _), _)| *jw == wi && *jl == li)
                .map(|(_, r)| r)
                .collect();
            let mut names: Vec<&str> = POLICIES.to_vec();
            if w.mix.types.len() > 1 {
                names.push(MU);
            }
            let ratio = |k: usize, pick: fn(&RunStats) -> &Vec<f64>| -> Vec<f64> {
                runs.iter().map(|r| pick(r)[k] / pick(r)[0]).collect()
            };
            let mut mean_of = Vec::new();
            for (k, name) in names.iter().enumerate() {
                let (m, mh) = mean_ci(&ratio(k, |r| &r.mean));
                let (q, qh) = mean_ci(&ratio(k, |r| &r.p99));
                let abs = runs.iter().map(|r| r.mean[k]).sum::<f64>() / runs.len() as f64;
                mean_of.push(m);
                rows.push(Row {
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
            let (best_k, best) = BLIND
                .iter()
                .enumerate()
                .map(|(k, _)| (k, mean_of[k]))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or((0, 1.0));
            let g = POLICIES
                .iter()
                .position(|&n| n == "gittins (learned)")
                .unwrap_or(0);
            let to_best = mean_of[g] / best;
            cells += 1;
            let ok = to_best <= 1.05;
            if ok {
                within += 1;
            }
            let less_one = |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|x| x - 1.0).collect() };
            let (dm, dh) = mean_ci(&less_one(ratio(g, |r| &r.mean)));
            let vs_tcp = verdict(dm, dh, "faster than tcp", "SLOWER than tcp");
            let (qm, qh) = mean_ci(&less_one(ratio(g, |r| &r.p99)));
            let p99_vs_tcp = verdict(qm, qh, "p99 below tcp's", "p99 ABOVE tcp's");
            if vs_tcp.starts_with("SLOWER") {
                slower.push(format!("{} at {load}", w.name));
            }
            if p99_vs_tcp.starts_with("p99 ABOVE") {
                slower_p99.push(format!("{} at {load}", w.name));
            }
            let cell = |k: usize| {
                let r = rows.iter().rev().take(names.len()).collect::<Vec<_>>();
                let row = r[names.len() - 1 - k];
                format!("{:.3} ± {:.3}", row.mean_ratio_to_ps, row.mean_ratio_ci95)
            };
            let mut line = vec![w.name.to_string(), format!("{load}")];
            line.extend((0..POLICIES.len()).map(cell));
            line.push(if names.len() > POLICIES.len() {
                cell(POLICIES.len())
            } else {
                "–".into()
            });
            line.push(format!(
                "{:.3} ({}) {}",
                to_best,
                BLIND[best_k],
                if ok {
                    "within 5%"
                } else {
                    "MORE than 5% slower"
                }
            ));
            line.push(format!("{vs_tcp}; {p99_vs_tcp}"));
            table.push(line);
        }
    }
    ctx.write_csv("ratios.csv", &rows)?;
    let findings = Findings {
        rows,
        table,
        within,
        cells,
        slower,
        slower_p99,
    };
    Ok(render(&p, &workloads, &findings))
}

/// What the cells show: one row per workload, load and policy, the table of mean ratios, and
/// the goals' tallies (cells within 5% of the best size-blind policy, cells slower than tcp on
/// the mean and at the 99th percentile).
struct Findings {
    rows: Vec<Row>,
    table: Vec<Vec<String>>,
    within: usize,
    cells: usize,
    slower: Vec<String>,
    slower_p99: Vec<String>,
}

/// The summary.
fn render(p: &Params, workloads: &[Workload], findings: &Findings) -> String {
    let Findings {
        rows,
        table,
        within,
        cells,
        slower,
        slower_p99,
    } = findings;
    let mut headers: Vec<&str> = vec!["workload", "load"];
    headers.extend(POLICIES);
    headers.push(MU);
    headers.push("gittins (learned) / best size-blind");
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
    let goal = if within == cells {
        "MET: within 5% of the best size-blind policy on every workload and load".to_string()
    } else {
        format!("NOT MET: within 5% of the best size-blind policy on {within} of {cells} workload-load cells")
    };
    let tcp_goal = if slower.is_empty() {
        "MET: never slower than tcp on the mean beyond the 95% interval".to_string()
    } else {
        format!(
            "NOT MET: slower than tcp beyond noise at {}",
            slower.join(", ")
        )
    };
    let tail = if slower_p99.is_empty() {
        "the 99th percentile is never above tcp's beyond the interval".to_string()
    } else {
        format!(
            "99th percentile above tcp's beyond the interval at {}",
            slower_p99.join(", ")
        )
    };
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
