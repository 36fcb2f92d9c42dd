//! The μ-rule (paper 000, Proposition 2, fourth item): flows are classified into types — here
//! routes, as an operator would configure web, API and bulk — and the type present with the
//! smallest mean size gets full service. The paper's claim: `E[N^μ] ≤ E[N^gtcp]` for every
//! priority discipline `gtcp` may apply among the types. On one sample path every policy sees
//! the same arrivals, so by Little's law `E[N] = λ·E[T]` the ratio of mean numbers in the
//! system is the ratio of mean response times, which is what is compared.
//!
//! Compared on the same paths, at flow level (one link, Poisson arrivals): the μ-rule with the
//! types' mean sizes learned online by the core's own estimator (`mu:las`, ranked by
//! `gtcp::Policy::key_on` through `flowsim::mg1::simulate_keyed`) and with the means known;
//! every static order of the types (`priority:las` with the classes permuted, the operator's
//! alternative); and the size-based policies SRPT (sizes known), LAS and FAIR (FSP), and plain
//! TCP (PS). Inside a type the order is LAS for both the μ-rule and the static orders, so the
//! class order is the only difference between them.

use crate::check_param;
use crate::engine::flowlevel::{response_stats, Mix};
use crate::engine::verdict::{Interval, Verdict, Word, DIFFERENCE};
use crate::engine::{md_table, mean_ci};
use crate::Context;
use flowsim::mg1::{simulate, simulate_keyed, Keyed, Knowledge, Policy};
use models::SizeDist;
use serde::{Deserialize, Serialize};

pub const NAME: &str = "mu-rule";
pub const DESCRIPTION: &str =
    "The mu-rule on learned route means vs every static class order, SRPT, LAS, FAIR and tcp, flow level";
pub const SCENARIO: &str = include_str!("../../scenarios/mu-rule.toml");

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
    /// Size shape inside every route: `exp` (exponential) or `lomax:ALPHA`.
    shapes: Vec<String>,
    routes: Vec<Route>,
    threads: usize,
}

/// A route: its name, its share of the flows and its mean flow size (bytes).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Route {
    name: String,
    share: f64,
    mean_bytes: f64,
}

/// Size distribution of mean `mean` with the scenario's shape `shape`.
fn sizes(shape: &str, mean: f64) -> anyhow::Result<SizeDist> {
    if shape == "exp" {
        return Ok(SizeDist::exponential(mean)?);
    }
    let alpha: f64 = shape
        .strip_prefix("lomax:")
        .and_then(|a| a.parse().ok())
        .filter(|a: &f64| *a > 1.0)
        .ok_or_else(|| {
            anyhow::anyhow!("shape `{shape}`: expected `exp` or `lomax:ALPHA` with ALPHA > 1")
        })?;
    Ok(SizeDist::lomax(1.0 / (mean * (alpha - 1.0)), alpha)?)
}

/// Every permutation of `0..n` (n ≤ 4 here), in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<u8>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for first in 0..n as u8 {
        for rest in permutations(n - 1) {
            let mut p = vec![first];
            p.extend(rest.into_iter().map(|x| if x >= first { x + 1 } else { x }));
            out.push(p);
        }
    }
    out
}

/// The policies of one run, in column order: the size-based ones, the μ-rule learned and
/// known, then one static order per permutation.
struct Lineup {
    names: Vec<String>,
    /// `orders[k]`: the class of each route (route `r` is served `orders[k][r]`-th).
    orders: Vec<Vec<u8>>,
}

const FIXED: [&str; 6] = [
    "tcp (PS)",
    "SRPT",
    "LAS",
    "FAIR (FSP)",
    "mu:las (learned)",
    "mu:las (known)",
];
const MU_LEARNED: usize = 4;
const MU_KNOWN: usize = 5;

impl Lineup {
    fn new(routes: &[Route]) -> Self {
        let orders = permutations(routes.len());
        let mut names: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
        for o in &orders {
            let mut by_class: Vec<(u8, &str)> = o
                .iter()
                .zip(routes)
                .map(|(c, r)| (*c, r.name.as_str()))
                .collect();
            by_class.sort();
            let seq: Vec<&str> = by_class.into_iter().map(|(_, n)| n).collect();
            names.push(format!("priority:las {}", seq.join(">")));
        }
        Lineup { names, orders }
    }
}

/// One run: per policy (in [`Lineup`] order), the mean and 99th percentile of the response
/// time (seconds).
#[derive(Debug, Serialize, Deserialize)]
struct RunStats {
    mean: Vec<f64>,
    p99: Vec<f64>,
}

fn run_one(
    mix: &Mix,
    lineup: &Lineup,
    load: f64,
    seed: u64,
    p: &Params,
) -> anyhow::Result<RunStats> {
    let (path, types) = mix.path(p.flows, load, p.capacity, seed)?;
    let cap = p.capacity;
    let mu = |knowledge| -> anyhow::Result<Keyed<'_>> {
        Ok(Keyed {
            policy: "mu:las".parse()?,
            types: Some(&types),
            knowledge,
        })
    };
    let mut done = vec![
        simulate(&path, cap, Policy::Ps)?.completion,
        simulate(&path, cap, Policy::Srpt)?.completion,
        simulate(&path, cap, Policy::Las)?.completion,
        simulate(&path, cap, Policy::Fsp)?.completion,
        simulate_keyed(&path, cap, &mu(Knowledge::Learned)?)?.completion,
        simulate_keyed(&path, cap, &mu(Knowledge::Known(mix.known_per_type()))?)?.completion,
    ];
    for order in &lineup.orders {
        let classes: Vec<u8> = types.iter().map(|&t| order[usize::from(t)]).collect();
        let k = Keyed {
            policy: "priority:las".parse()?,
            types: Some(&classes),
            knowledge: Knowledge::Learned,
        };
        done.push(simulate_keyed(&path, cap, &k)?.completion);
    }
    let (mean, p99) = done
        .iter()
        .map(|d| response_stats(&path, d, p.warmup_flows))
        .unzip();
    Ok(RunStats { mean, p99 })
}

#[derive(Serialize)]
struct Row {
    shape: String,
    load: f64,
    policy: String,
    mean_ratio_to_ps: f64,
    mean_ratio_ci95: f64,
    p99_ratio_to_ps: f64,
    p99_ratio_ci95: f64,
    mean_response_s: f64,
    replications: usize,
}

/// One cell (shape, load): its rows, the best static order and the verdicts on it.
struct Cell {
    shape: String,
    load: f64,
    rows: Vec<Row>,
    best_static: usize,
    verdicts: Vec<Verdict>,
}

fn check(p: &Params) -> anyhow::Result<()> {
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
    check_param!(
        (2..=4).contains(&p.routes.len()),
        "routes: between 2 and 4 (every static order of them is run)"
    );
    check_param!(
        p.routes
            .iter()
            .all(|r| r.share > 0.0 && r.mean_bytes >= 1.0),
        "every route needs share > 0 and mean_bytes >= 1"
    );
    check_param!(!p.shapes.is_empty(), "shapes must not be empty");
    check_param!(p.threads >= 1, "threads must be >= 1");
    Ok(())
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    check(&p)?;
    let mixes: Vec<Mix> = p
        .shapes
        .iter()
        .map(|shape| {
            Ok(Mix {
                types: p
                    .routes
                    .iter()
                    .map(|r| Ok((r.share, sizes(shape, r.mean_bytes)?)))
                    .collect::<anyhow::Result<_>>()?,
                after: None,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let lineup = Lineup::new(&p.routes);
    let seed = ctx.seed(p.seed);
    let plan: Vec<(usize, usize, usize)> = (0..mixes.len())
        .flat_map(|m| {
            (0..p.loads.len()).flat_map(move |l| (0..p.replications).map(move |r| (m, l, r)))
        })
        .collect();
    let results = ctx.jobs("shapes x loads x seeds", plan.len(), p.threads, |i| {
        let (m, l, r) = plan[i];
        let s = seed
            .wrapping_mul(1_000_003)
            .wrapping_add((m * 1000 + l * 100 + r) as u64);
        run_one(&mixes[m], &lineup, p.loads[l], s, &p)
    })?;
    ctx.runs_done()?;
    let cells = analyse(&p, &lineup, &plan, &results);
    let rows: Vec<&Row> = cells.iter().flat_map(|c| &c.rows).collect();
    ctx.write_csv("ratios.csv", &rows)?;
    let verdicts: Vec<&Verdict> = cells.iter().flat_map(|c| &c.verdicts).collect();
    ctx.write_json("verdicts.json", &verdicts)?;
    Ok(render(&p, &lineup, &cells))
}

/// Per cell: every policy's ratios to PS over the seeds, the best static order (lowest mean
/// ratio), and the verdicts: the μ-rule learned against the best static order, against tcp
/// and against LAS (which needs no types), and the cost of learning (learned against known).
fn analyse(
    p: &Params,
    lineup: &Lineup,
    plan: &[(usize, usize, usize)],
    results: &[RunStats],
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for (mi, shape) in p.shapes.iter().enumerate() {
        for (li, &load) in p.loads.iter().enumerate() {
            let runs: Vec<&RunStats> = plan
                .iter()
                .zip(results)
                .filter(|((m, l, _), _)| *m == mi && *l == li)
                .map(|(_, r)| r)
                .collect();
            let ratio = |k: usize, pick: fn(&RunStats) -> &Vec<f64>| -> Vec<f64> {
                runs.iter().map(|r| pick(r)[k] / pick(r)[0]).collect()
            };
            let rows: Vec<Row> = lineup
                .names
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let (m, mh) = mean_ci(&ratio(k, |r| &r.mean));
                    let (q, qh) = mean_ci(&ratio(k, |r| &r.p99));
                    Row {
                        shape: shape.clone(),
                        load,
                        policy: name.clone(),
                        mean_ratio_to_ps: m,
                        mean_ratio_ci95: mh,
                        p99_ratio_to_ps: q,
                        p99_ratio_ci95: qh,
                        mean_response_s: runs.iter().map(|r| r.mean[k]).sum::<f64>()
                            / runs.len() as f64,
                        replications: runs.len(),
                    }
                })
                .collect();
            let best_static = (FIXED.len()..lineup.names.len())
                .min_by(|&a, &b| {
                    rows[a]
                        .mean_ratio_to_ps
                        .total_cmp(&rows[b].mean_ratio_to_ps)
                })
                .unwrap_or(FIXED.len());
            let paired = |a: usize, b: usize| -> Interval {
                Interval::of(
                    &runs
                        .iter()
                        .map(|r| r.mean[a] / r.mean[b] - 1.0)
                        .collect::<Vec<_>>(),
                )
            };
            let at = format!("{shape}, load {load}");
            let verdicts = vec![
                Verdict::new(
                    format!(
                        "{at}: E[T] of mu:las (learned) / E[T] of the best static order ({}) - 1",
                        lineup.names[best_static]
                    ),
                    Some("E[N^mu] <= E[N^gtcp] among priority disciplines (Proposition 2)"),
                    paired(MU_LEARNED, best_static),
                    DIFFERENCE,
                ),
                Verdict::new(
                    format!("{at}: E[T] of mu:las (learned) / E[T] of tcp - 1"),
                    None,
                    paired(MU_LEARNED, 0),
                    DIFFERENCE,
                ),
                Verdict::new(
                    format!("{at}: E[T] of mu:las (learned) / E[T] of LAS - 1"),
                    None,
                    paired(MU_LEARNED, 2),
                    DIFFERENCE,
                ),
                Verdict::new(
                    format!("{at}: E[T] of mu:las (learned) / E[T] of mu:las (known) - 1"),
                    None,
                    paired(MU_LEARNED, MU_KNOWN),
                    DIFFERENCE,
                ),
            ];
            cells.push(Cell {
                shape: shape.clone(),
                load,
                rows,
                best_static,
                verdicts,
            });
        }
    }
    cells
}

fn ratio_text(r: &Row) -> String {
    format!("{:.3} ± {:.3}", r.mean_ratio_to_ps, r.mean_ratio_ci95)
}

/// What a verdict on `a / b − 1` says, in words about `a` against `b`.
fn against(v: &Verdict, b: &str) -> String {
    let d = v.ours;
    let by = format!("{:+.1}% ± {:.1}%", 100.0 * d.mean, 100.0 * d.half);
    match v.word {
        Word::Lower => format!("faster than {b} ({by})"),
        Word::Higher => format!("SLOWER than {b} ({by})"),
        Word::Undecided => format!("undecided against {b} ({by})"),
        _ => format!("no difference from {b} beyond noise ({by})"),
    }
}

/// The summary: the claim's verdicts per cell, the ratio tables, the routes.
fn render(p: &Params, lineup: &Lineup, cells: &[Cell]) -> String {
    let contradicted: Vec<String> = cells
        .iter()
        .filter(|c| c.verdicts[0].word == Word::Higher)
        .map(|c| format!("{} at {}", c.shape, c.load))
        .collect();
    let claim = if contradicted.is_empty() {
        format!(
            "in all {} cells the learned mu-rule is no slower than the best static class order \
             beyond the 95% interval",
            cells.len()
        )
    } else {
        format!(
            "the learned mu-rule is slower than the best static class order beyond the 95% \
             interval at {} (of {} cells)",
            contradicted.join(", "),
            cells.len()
        )
    };
    let verdict_rows: Vec<Vec<String>> = cells
        .iter()
        .map(|c| {
            vec![
                c.shape.clone(),
                format!("{}", c.load),
                lineup.names[c.best_static].clone(),
                against(&c.verdicts[0], "the best static order"),
                against(&c.verdicts[1], "tcp"),
                against(&c.verdicts[2], "LAS"),
                against(&c.verdicts[3], "the known means"),
            ]
        })
        .collect();
    let mut headers: Vec<&str> = vec!["shape", "load"];
    headers.extend(lineup.names.iter().map(String::as_str));
    let table: Vec<Vec<String>> = cells
        .iter()
        .map(|c| {
            let mut line = vec![c.shape.clone(), format!("{}", c.load)];
            line.extend(c.rows.iter().map(ratio_text));
            line
        })
        .collect();
    let p99: Vec<Vec<String>> = cells
        .iter()
        .flat_map(|c| {
            [0, 1, 2, 3, MU_LEARNED, c.best_static].map(|k| {
                let r = &c.rows[k];
                vec![
                    c.shape.clone(),
                    format!("{}", c.load),
                    r.policy.clone(),
                    format!("{:.3} ± {:.3}", r.p99_ratio_to_ps, r.p99_ratio_ci95),
                ]
            })
        })
        .collect();
    let routes: Vec<String> = p
        .routes
        .iter()
        .map(|r| {
            format!(
                "`{}` {:.0}% of the flows, mean {:.0} kB",
                r.name,
                100.0 * r.share / p.routes.iter().map(|r| r.share).sum::<f64>(),
                r.mean_bytes / 1e3
            )
        })
        .collect();
    format!(
        "# {NAME}\n\n\
         Paper 000, Proposition 2: with flows classified into types, the μ-rule (full service to \
         the type present with the smallest mean size) gives E[N^μ] ≤ E[N^gtcp] for every \
         priority discipline among the types. Here the types are routes: {}. One link of \
         {:.1} MB/s, Poisson arrivals, {} flows per run (the first {} discarded), {} seeds per \
         cell, every policy on the same paths. Mean response time as a ratio to PS (plain TCP), \
         mean ± 95% interval over seeds; by Little's law the ratio of mean numbers of flows is \
         the same. `mu:las (learned)` learns each route's size distribution online from its \
         completed flows with the core's estimator (cold start: the first flows of a route) and \
         ranks with the core's own key; `(known)` is given the distributions. `priority:las \
         A>B>C` is the static class order an operator would configure. Inside a route every \
         class-priority policy serves least-attained-service first (in quanta of the learned \
         histogram's bins), so the class order is all that differs between them. SRPT knows \
         every size and FAIR (FSP) too: bounds, not alternatives for unknown sizes.\n\n\
         **The claim: {claim}.**\n\n\
         ## The μ-rule against the best static order, tcp and the known means\n\n\
         Paired over seeds: E[T] of the learned μ-rule / E[T] of the other − 1.\n\n{}\n\
         ## Mean response time / PS\n\n{}\n\
         ## 99th percentile of the response time / PS (selected policies)\n\n{}\n\
         Every policy's numbers (also absolute mean response times): `ratios.csv`; the \
         verdicts: `verdicts.json`.\n",
        routes.join(", "),
        p.capacity / 1e6,
        p.flows,
        p.warmup_flows,
        p.replications,
        md_table(
            &[
                "shape",
                "load",
                "best static order",
                "mu (learned) vs best static",
                "vs tcp",
                "vs LAS",
                "vs mu (known)"
            ],
            &verdict_rows
        ),
        md_table(&headers, &table),
        md_table(&["shape", "load", "policy", "p99 / PS"], &p99),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_order_is_run_once() {
        let p = permutations(3);
        assert_eq!(p.len(), 6);
        let mut sorted = p.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 6);
        assert!(p.iter().all(|o| {
            let mut s = o.clone();
            s.sort();
            s == vec![0, 1, 2]
        }));
    }

    #[test]
    fn a_static_order_is_named_by_its_routes_from_first_served() {
        let routes = ["web", "api", "bulk"].map(|n| Route {
            name: n.into(),
            share: 1.0,
            mean_bytes: 1.0,
        });
        let l = Lineup::new(&routes);
        // Permutation [2, 0, 1]: web is class 2, api class 0, bulk class 1.
        let k = l.orders.iter().position(|o| o == &vec![2, 0, 1]).unwrap();
        assert_eq!(l.names[FIXED.len() + k], "priority:las api>bulk>web");
    }

    #[test]
    fn shapes_are_checked() {
        assert!(sizes("exp", 1e3).is_ok());
        assert!(sizes("lomax:1.5", 1e3).is_ok());
        assert!(sizes("lomax:1", 1e3).is_err());
        assert!(sizes("pareto", 1e3).is_err());
    }
}
