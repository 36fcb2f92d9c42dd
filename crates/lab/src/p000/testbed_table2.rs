//! Paper 000, Table 2, on the real-TCP testbed: the same flows under plain TCP, the tunnel's
//! `tcp` and each policy, paired flow by flow against `tcp`, beside the fluid ideal of the
//! very same flows (the exact fluid simulator of `flowsim`) and the paper's numbers.
//!
//! Real TCP is noisy flow by flow (drops, retransmission timeouts, who wins the queue), so,
//! as the paper did with its 100 runs, every sample path is run `repeats` times under every
//! variant (in rotated order, so slow drift of the machine favours no variant) and each
//! flow's completion time is its mean over the repeats. Splitting the `tcp` repeats into two
//! halves gives an A/A comparison that measures what is left of the noise.

use crate::check_param;
use crate::engine::testbed::GOODPUT_SHARE;
use crate::engine::verdict::{Interval, Rule, Source, Verdict};
use crate::engine::{md_table, pct};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::Context as _;
use flowsim::compare::{mean, pairwise, Pairwise, Tolerance};
use flowsim::mg1::{simulate, Policy as FluidPolicy};
use flowsim::path::{Job, SamplePath};
use serde::{Deserialize, Serialize};
use std::path::Path;
use testbed::run::{Invariant, VariantRun};
use testbed::workload::{
    flows as plan_flows, from_trace, poisson_lomax, FlowResult, Path as FlowPath,
};
use testbed::{BedConfig, Queue, Session};

pub const NAME: &str = "testbed-table2";
pub const DESCRIPTION: &str =
    "Paper 000 Table 2 on the real-TCP testbed (root): namespaces, tbf, real schedtcp processes; policies vs tcp per flow, plain TCP, fluid ideal";
pub const SCENARIO: &str = include_str!("../../scenarios/testbed-table2.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    alpha: f64,
    paper_c: f64,
    paper_capacity: f64,
    scale: f64,
    load: f64,
    flows: usize,
    replications: usize,
    repeats: usize,
    max_size: u64,
    burst_bytes: u64,
    queue_bytes: u64,
    origin_rmem_max: u64,
    policies: Vec<String>,
    plain: bool,
    equal_abs_s: f64,
    equal_rel: f64,
    psps_threshold: f64,
    warm_pool: usize,
    flow_timeout_s: f64,
    prefix: String,
    /// A trace file (`start_seconds,bytes` per line) replacing the Poisson/Lomax paths.
    #[serde(default)]
    trace: String,
    /// One-way delay the TUN router adds (ms; 0: no router, `tbf` alone): paper 000's lab
    /// path had a real round-trip time.
    #[serde(default)]
    delay_ms: f64,
    /// TCP congestion control of the origin and destination (empty: the kernel's default).
    #[serde(default)]
    congestion_control: String,
}

struct Run {
    path: usize,
    repeat: usize,
    run: VariantRun,
}

/// The fluid ideal of one policy against PS on the same flows.
#[derive(Serialize, Clone)]
struct IdealRow {
    policy: String,
    faster: f64,
    slower: f64,
    equal: f64,
    mean_gain_s: Option<f64>,
    mean_loss_s: Option<f64>,
    mean_response_s: f64,
    mean_ratio_to_ps: f64,
}

impl IdealRow {
    fn new(policy: &str, p: &Pairwise, mean_response_s: f64) -> Self {
        Self {
            policy: if policy == "FSP" {
                "FSP (FAIR)".into()
            } else {
                policy.into()
            },
            faster: p.faster,
            slower: p.slower,
            equal: p.equal,
            mean_gain_s: p.mean_gain,
            mean_loss_s: p.mean_loss,
            mean_response_s,
            mean_ratio_to_ps: p.mean_ratio,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct FlowRow {
    path: usize,
    repeat: usize,
    id: usize,
    variant: String,
    at_s: f64,
    size_bytes: u64,
    completion_s: Option<f64>,
    error: Option<String>,
}

#[derive(Serialize, Clone)]
struct VariantRow {
    variant: String,
    flows: usize,
    failed: usize,
    mean_s: f64,
    mean_ratio_to_tcp: f64,
    faster: f64,
    slower: f64,
    equal: f64,
    mean_gain_s: Option<f64>,
    mean_loss_s: Option<f64>,
    ideal_faster: Option<f64>,
    ideal_slower: Option<f64>,
    ideal_mean_gain_s: Option<f64>,
    ideal_mean_ratio: Option<f64>,
    gain_share_of_ideal: Option<f64>,
}

#[derive(Serialize, Deserialize, Clone)]
struct InvariantRow {
    path: usize,
    repeat: usize,
    variant: String,
    side: String,
    connections_checked: u64,
    connections_violated: u64,
    tunnel_flows: usize,
    payload_bytes: u64,
    flows_bytes: u64,
    header_bytes: u64,
    adopted_bytes: u64,
    header_overhead: f64,
}

fn fluid_policy(variant: &str, psps: f64) -> Option<FluidPolicy> {
    match variant {
        "srpt" => Some(FluidPolicy::Srpt),
        "fair" => Some(FluidPolicy::Fsp),
        "las" => Some(FluidPolicy::Las),
        "psps" => Some(FluidPolicy::PsPs { threshold: psps }),
        _ => None,
    }
}

/// The plan of an experiment: the workload's numbers (the paper's scaled), the variants in
/// order, the sample paths (arrival, size) and the bed.
struct Plan {
    capacity: f64,
    goodput: f64,
    c: f64,
    mean_size: f64,
    lambda: f64,
    tol: Tolerance,
    variants: Vec<String>,
    paths: Vec<Vec<(f64, u64)>>,
    bed: BedConfig,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let plan = plan(ctx, &p)?;
    let (runs, cc) = run_all(ctx, &p, &plan)?;
    report(ctx, &p, &plan, &cc, &runs)
}

/// Analyses and renders again the raw results an earlier run wrote to `dir` (`flows.csv`,
/// and `table2.json`'s runs, invariant and congestion control), without the testbed.
pub(crate) fn render_from(ctx: &Context, dir: &Path) -> anyhow::Result<String> {
    let p: Params = ctx.params()?;
    let mut plan = plan(ctx, &p)?;
    let (paths, runs, cc) = read_raw(dir)?;
    plan.paths = paths;
    report(ctx, &p, &plan, &cc, &runs)
}

/// Per sample path, its flows' (arrival s, size bytes).
type SamplePaths = Vec<Vec<(f64, u64)>>;

/// What [`render_from`] reads: the sample paths, the runs (each flow's completion time or
/// error, the invariants, the bottleneck's counters) and the congestion control.
fn read_raw(dir: &Path) -> anyhow::Result<(SamplePaths, Vec<Run>, String)> {
    #[derive(Deserialize)]
    struct RunMeta {
        path: usize,
        repeat: usize,
        variant: String,
        wall_s: f64,
        bottleneck_bytes: u64,
        bottleneck_drops: u64,
    }
    #[derive(Deserialize)]
    struct Raw {
        runs: Vec<RunMeta>,
        invariant: Vec<InvariantRow>,
        congestion_control: String,
    }
    let jp = dir.join("table2.json");
    let raw: Raw = serde_json::from_str(
        &std::fs::read_to_string(&jp).with_context(|| format!("reading {}", jp.display()))?,
    )
    .with_context(|| format!("parsing {}", jp.display()))?;
    let fp = dir.join("flows.csv");
    let flows: Vec<FlowRow> = csv::Reader::from_path(&fp)
        .with_context(|| format!("reading {}", fp.display()))?
        .deserialize()
        .collect::<Result<_, _>>()
        .with_context(|| format!("parsing {}", fp.display()))?;
    let first = raw.runs.first().context("table2.json lists no run")?;
    let n_paths = raw.runs.iter().map(|r| r.path + 1).max().unwrap_or(0);
    let paths: SamplePaths = (0..n_paths)
        .map(|k| {
            flows
                .iter()
                .filter(|f| f.path == k && f.repeat == first.repeat && f.variant == first.variant)
                .map(|f| (f.at_s, f.size_bytes))
                .collect()
        })
        .collect();
    let inv = |m: &RunMeta, side: &str| {
        raw.invariant
            .iter()
            .find(|i| {
                i.path == m.path && i.repeat == m.repeat && i.variant == m.variant && i.side == side
            })
            .map(|i| Invariant {
                checked: i.connections_checked,
                violated: i.connections_violated,
                payload_bytes: i.payload_bytes,
                header_bytes: i.header_bytes,
                adopted_bytes: i.adopted_bytes,
                ..Invariant::default()
            })
    };
    let runs = raw
        .runs
        .iter()
        .map(|m| {
            // The report reads each flow's id, completion time and error.
            let results: Vec<FlowResult> = flows
                .iter()
                .filter(|f| f.path == m.path && f.repeat == m.repeat && f.variant == m.variant)
                .map(|f| FlowResult {
                    id: f.id,
                    start_s: f.at_s,
                    completion_s: f.completion_s,
                    received: 0,
                    error: f.error.clone(),
                    bins: Vec::new(),
                    stopped: false,
                })
                .collect();
            anyhow::ensure!(
                results.len() == paths[m.path].len(),
                "flows.csv has {} flows for path {} repeat {} {}, the path has {}",
                results.len(),
                m.path,
                m.repeat,
                m.variant,
                paths[m.path].len()
            );
            Ok(Run {
                path: m.path,
                repeat: m.repeat,
                run: VariantRun {
                    variant: m.variant.clone(),
                    results,
                    server: inv(m, "server"),
                    client: inv(m, "client"),
                    wall_s: m.wall_s,
                    bottleneck_bytes: m.bottleneck_bytes,
                    bottleneck_drops: m.bottleneck_drops,
                },
            })
        })
        .collect::<anyhow::Result<_>>()?;
    Ok((paths, runs, raw.congestion_control))
}

/// Checks the scenario and plans the runs.
fn plan(ctx: &Context, p: &Params) -> anyhow::Result<Plan> {
    check_param!(p.alpha > 1.0, "alpha = {} must be > 1", p.alpha);
    check_param!(
        p.paper_c > 0.0 && p.paper_capacity > 0.0,
        "paper_c and paper_capacity must be > 0"
    );
    check_param!(
        p.scale > 0.0 && p.scale <= 10.0,
        "scale = {} must be in (0, 10]",
        p.scale
    );
    check_param!(
        p.load > 0.0 && p.load < 1.0,
        "load = {} must be in (0, 1)",
        p.load
    );
    check_param!(p.flows >= 1 && p.flows <= 20_000, "flows must be 1..=20000");
    check_param!(
        p.replications >= 1 && p.replications <= 100,
        "replications must be 1..=100"
    );
    check_param!(
        p.equal_abs_s >= 0.0 && p.equal_rel >= 0.0,
        "tolerances must be >= 0"
    );
    check_param!(p.flow_timeout_s >= 1.0, "flow_timeout_s must be >= 1");
    check_param!(
        p.policies.first().map(String::as_str) == Some("tcp"),
        "policies must start with tcp (the baseline)"
    );
    for pol in &p.policies {
        pol.parse::<gtcp::Policy>()
            .map_err(|e| anyhow::anyhow!("invalid scenario parameter: policy {pol:?}: {e}"))?;
    }
    let capacity = p.paper_capacity * p.scale;
    let goodput = capacity * GOODPUT_SHARE;
    let c = p.paper_c / p.scale;
    let mean_size = 1.0 / (c * (p.alpha - 1.0));
    let lambda = p.load * goodput / mean_size;
    let tol = Tolerance {
        abs: p.equal_abs_s,
        rel: p.equal_rel,
    };
    let mut variants: Vec<String> = Vec::new();
    if p.plain {
        variants.push("plain".into());
    }
    variants.extend(p.policies.iter().cloned());
    let seed = ctx.seed(p.seed);
    let mut bed = BedConfig::new(capacity.round() as u64, Queue::Bfifo(p.queue_bytes));
    bed.burst_bytes = p.burst_bytes;
    bed.origin_rmem_max = p.origin_rmem_max;
    bed.prefix = p.prefix.clone();
    bed.delay_ms = p.delay_ms;
    bed.congestion_control = p.congestion_control.clone();

    let paths: Vec<Vec<(f64, u64)>> = if !p.trace.is_empty() {
        let text = std::fs::read_to_string(&p.trace)
            .with_context(|| format!("reading the trace {}", p.trace))?;
        let t = from_trace(&text).with_context(|| format!("in the trace {}", p.trace))?;
        check_param!(!t.is_empty(), "the trace {} has no flow", p.trace);
        vec![t]
    } else {
        (0..p.replications)
            .map(|r| {
                poisson_lomax(
                    p.flows,
                    lambda,
                    p.alpha,
                    c,
                    p.max_size,
                    seed.wrapping_add(r as u64),
                )
            })
            .collect::<anyhow::Result<_>>()?
    };
    Ok(Plan {
        capacity,
        goodput,
        c,
        mean_size,
        lambda,
        tol,
        variants,
        paths,
        bed,
    })
}

/// Runs every variant on every path `repeats` times on the testbed; returns the runs and the
/// bed's congestion control.
fn run_all(ctx: &Context, p: &Params, plan: &Plan) -> anyhow::Result<(Vec<Run>, String)> {
    let Plan {
        variants, paths, ..
    } = plan;
    let bin = testbed::find_binary()?;
    let pb = ctx.progress(
        (paths.len() * p.repeats * variants.len()) as u64,
        "runs (paths x repeats x variants)",
    );
    let mut session = Session::start(plan.bed.clone(), &bin)?;
    let cc = session.bed().congestion_control();
    session.tunnel.warm_pool = p.warm_pool;
    let mut runs: Vec<Run> = Vec::new();
    let outcome = (|| -> anyhow::Result<()> {
        for (r, arrivals) in paths.iter().enumerate() {
            let plan = plan_flows(arrivals, FlowPath::Tunnel, 300);
            for k in 0..p.repeats {
                for j in 0..variants.len() {
                    // Rotated order: drift of the machine favours no variant.
                    let v = &variants[(j + k) % variants.len()];
                    pb.set_message(format!("path {} repeat {} {v}", r + 1, k + 1));
                    let policy = (v != "plain").then_some(v.as_str());
                    let run = session.run(policy, &plan, 0.0, p.flow_timeout_s)?;
                    runs.push(Run {
                        path: r,
                        repeat: k,
                        run,
                    });
                    pb.inc(1);
                }
            }
        }
        Ok(())
    })();
    pb.finish_and_clear();
    session.conclude(outcome)?;

    Ok((runs, cc))
}

/// Analyses the runs and renders the outputs and the summary.
fn report(
    ctx: &Context,
    p: &Params,
    plan: &Plan,
    cc: &str,
    runs: &[Run],
) -> anyhow::Result<String> {
    let (flow_rows, inv_rows) = raw_rows(&plan.paths, runs);
    ctx.write_csv("flows.csv", &flow_rows)?;
    ctx.write_csv("invariant.csv", &inv_rows)?;
    let a = analyse(p, plan, runs)?;
    ctx.write_csv("table2.csv", &a.rows)?;
    ctx.write_csv("fluid_ideal.csv", &a.ideal)?;
    write_json(ctx, p, plan, cc, &a, &inv_rows, runs)?;
    ctx.write_json("verdicts.json", &a.verdicts)?;
    plots(ctx, p, plan, runs, &a.rows)?;
    Ok(render(p, plan, cc, &a, &inv_rows, runs))
}

/// The raw rows: every flow of every run, and the invariant each tunnel process logged.
fn raw_rows(paths: &[Vec<(f64, u64)>], runs: &[Run]) -> (Vec<FlowRow>, Vec<InvariantRow>) {
    let mut flow_rows = Vec::new();
    let mut inv_rows = Vec::new();
    for Run { path, repeat, run } in runs {
        let arr = &paths[*path];
        for (res, (at, size)) in run.results.iter().zip(arr) {
            flow_rows.push(FlowRow {
                path: *path,
                repeat: *repeat,
                id: res.id,
                variant: run.variant.clone(),
                at_s: *at,
                size_bytes: *size,
                completion_s: res.completion_s,
                error: res.error.clone(),
            });
        }
        // The target sends the download then a 32-byte digest; the application sends a
        // 16-byte header then the upload.
        let down: u64 = arr.iter().map(|(_, s)| s + 32).sum();
        let up: u64 = arr.len() as u64 * (16 + 300);
        for (side, inv, bytes) in [("server", run.server, down), ("client", run.client, up)] {
            if let Some(i) = inv {
                inv_rows.push(InvariantRow {
                    path: *path,
                    repeat: *repeat,
                    variant: run.variant.clone(),
                    side: side.into(),
                    connections_checked: i.checked,
                    connections_violated: i.violated,
                    tunnel_flows: arr.len(),
                    payload_bytes: i.payload_bytes,
                    flows_bytes: bytes,
                    header_bytes: i.header_bytes,
                    adopted_bytes: i.adopted_bytes,
                    header_overhead: i.header_bytes as f64 / i.payload_bytes.max(1) as f64,
                });
            }
        }
    }
    (flow_rows, inv_rows)
}

/// For variant `v` and the repeats `pick` accepts: each flow's mean completion time, or None
/// when it failed in one of them. Flows of all paths, concatenated.
fn flow_means(
    paths: &[Vec<(f64, u64)>],
    runs: &[Run],
    v: &str,
    pick: &dyn Fn(usize) -> bool,
) -> Vec<Option<f64>> {
    let mut out = Vec::new();
    for (r, arr) in paths.iter().enumerate() {
        let rs: Vec<&VariantRun> = runs
            .iter()
            .filter(|x| x.path == r && x.run.variant == v && pick(x.repeat))
            .map(|x| &x.run)
            .collect();
        for i in 0..arr.len() {
            let t: Option<Vec<f64>> = rs.iter().map(|x| x.results[i].completion_s).collect();
            out.push(t.filter(|t| !t.is_empty()).map(|t| mean(&t)));
        }
    }
    out
}

/// The pairs of two variants' per-flow means where both finished.
fn both(a: &[Option<f64>], b: &[Option<f64>]) -> (Vec<f64>, Vec<f64>) {
    a.iter()
        .zip(b)
        .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
        .unzip()
}

/// What the runs show: every variant paired flow by flow with `tcp` beside the fluid ideal
/// of the same flows, and the A/A noise of `tcp`'s two halves of repeats.
struct Analysis {
    rows: Vec<VariantRow>,
    /// PS first, then each policy's fluid ideal.
    ideal: Vec<IdealRow>,
    aa: Option<Pairwise>,
    /// FAIR's goals.
    verdicts: Vec<Verdict>,
}

fn analyse(p: &Params, plan: &Plan, runs: &[Run]) -> anyhow::Result<Analysis> {
    let Plan {
        goodput,
        tol,
        variants,
        paths,
        ..
    } = plan;
    let (goodput, tol) = (*goodput, *tol);
    let means = |v: &str, pick: &dyn Fn(usize) -> bool| flow_means(paths, runs, v, pick);
    let all = |_: usize| true;
    let tcp_means = means("tcp", &all);
    let aa = (p.repeats >= 2).then(|| {
        let (x, y) = both(
            &means("tcp", &|k| k % 2 == 0),
            &means("tcp", &|k| k % 2 == 1),
        );
        pairwise(&x, &y, tol)
    });

    // The fluid ideal of the very same flows.
    let fluid_pols: Vec<FluidPolicy> = variants
        .iter()
        .filter_map(|v| fluid_policy(v, p.psps_threshold))
        .collect();
    let mut ps = Vec::new();
    let mut fl: Vec<Vec<f64>> = vec![Vec::new(); fluid_pols.len()];
    for arr in paths {
        let jobs = arr
            .iter()
            .map(|&(arrival, size)| Job {
                arrival,
                size: size as f64,
            })
            .collect();
        let path = SamplePath::from_jobs(jobs).context("fluid sample path")?;
        ps.extend(simulate(&path, goodput, FluidPolicy::Ps)?.response_times(&path));
        for (pol, v) in fluid_pols.iter().zip(fl.iter_mut()) {
            v.extend(simulate(&path, goodput, *pol)?.response_times(&path));
        }
    }
    let mut ideal = vec![IdealRow::new(
        "PS (plain TCP)",
        &pairwise(&ps, &ps, tol),
        mean(&ps),
    )];
    for (pol, v) in fluid_pols.iter().zip(&fl) {
        ideal.push(IdealRow::new(&pol.name(), &pairwise(&ps, v, tol), mean(v)));
    }
    let ideal_of = |v: &str| -> Option<&IdealRow> {
        let fp = fluid_policy(v, p.psps_threshold)?;
        let i = fluid_pols.iter().position(|x| *x == fp)?;
        ideal.get(i + 1)
    };

    // Paired comparison against tcp.
    let n_flows: usize = paths.iter().map(Vec::len).sum();
    let mut rows = Vec::new();
    let mut verdicts = Vec::new();
    for v in variants {
        let m = means(v, &all);
        let done: Vec<f64> = m.iter().flatten().copied().collect();
        let (b, o) = both(&tcp_means, &m);
        let pw: Pairwise = pairwise(&b, &o, tol);
        let id = ideal_of(v);
        let share = match (pw.mean_gain, id.and_then(|i| i.mean_gain_s)) {
            (Some(g), Some(ig)) if ig != 0.0 => Some(g / ig),
            _ => None,
        };
        if v == "fair" {
            verdicts = fair_verdicts(&b, &o, tol, id.and_then(|i| i.mean_gain_s), aa.as_ref());
        }
        rows.push(VariantRow {
            variant: v.clone(),
            flows: n_flows,
            failed: n_flows - done.len(),
            mean_s: mean(&done),
            mean_ratio_to_tcp: pw.mean_ratio,
            faster: pw.faster,
            slower: pw.slower,
            equal: pw.equal,
            mean_gain_s: pw.mean_gain,
            mean_loss_s: pw.mean_loss,
            ideal_faster: id.map(|i| i.faster),
            ideal_slower: id.map(|i| i.slower),
            ideal_mean_gain_s: id.and_then(|i| i.mean_gain_s),
            ideal_mean_ratio: id.map(|i| i.mean_ratio_to_ps),
            gain_share_of_ideal: share,
        });
    }
    Ok(Analysis {
        rows,
        ideal,
        aa,
        verdicts,
    })
}

/// The paper's bound on FAIR's slower flows, and the project's goal.
const FAIR_SLOWER_MAX: f64 = 0.01;
/// The project's goal on FAIR's mean gain, as a share of the fluid ideal's.
const FAIR_GAIN_SHARE_MIN: f64 = 0.65;

/// FAIR's goals, each flow one sample of the interval (`tcp` and `fair` the per-flow means,
/// paired): the share of flows slower than `tcp` beyond the tolerance, at most 1% — not met
/// only when the whole interval lies above 1% plus the share the A/A comparison finds
/// slower from noise alone; and the mean gain of the faster flows as a share of the fluid
/// ideal's (`ideal_gain`), at least 65%.
fn fair_verdicts(
    tcp: &[f64],
    fair: &[f64],
    tol: Tolerance,
    ideal_gain: Option<f64>,
    aa: Option<&Pairwise>,
) -> Vec<Verdict> {
    let per_flow: Vec<Pairwise> = tcp
        .iter()
        .zip(fair)
        .map(|(a, b)| pairwise(&[*a], &[*b], tol))
        .collect();
    let slower: Vec<f64> = per_flow.iter().map(|x| x.slower).collect();
    let mut out = vec![Verdict::new(
        "fair: share of flows slower than tcp beyond the tolerance",
        Some("2.4% (Table 2); goal at most 1%"),
        Interval::of(&slower),
        Rule::AtMost {
            max: FAIR_SLOWER_MAX,
            margin: aa.map_or(f64::NAN, |a| a.slower),
        },
    )
    .from(Source::new("table2.csv", "slower", &[("variant", "fair")]))];
    if let Some(ig) = ideal_gain.filter(|g| *g != 0.0) {
        let gains: Vec<f64> = per_flow.iter().filter_map(|x| x.mean_gain).collect();
        let g = Interval::of(&gains);
        out.push(
            Verdict::new(
                "fair: mean gain of the faster flows / the fluid ideal's",
                Some("goal at least 65%"),
                Interval::new(g.mean / ig, g.half / ig.abs()),
                Rule::AtLeast {
                    min: FAIR_GAIN_SHARE_MIN,
                    margin: 0.0,
                },
            )
            .from(Source::new(
                "table2.csv",
                "gain_share_of_ideal",
                &[("variant", "fair")],
            )),
        );
    }
    out
}

/// `table2.json`: the workload's numbers, the analysis, the invariant and every run's meta.
fn write_json(
    ctx: &Context,
    p: &Params,
    plan: &Plan,
    cc: &str,
    a: &Analysis,
    inv_rows: &[InvariantRow],
    runs: &[Run],
) -> anyhow::Result<()> {
    let Analysis {
        rows, ideal, aa, ..
    } = a;
    let (capacity, goodput, c, mean_size, lambda) = (
        plan.capacity,
        plan.goodput,
        plan.c,
        plan.mean_size,
        plan.lambda,
    );
    let run_meta: Vec<serde_json::Value> = runs
        .iter()
        .map(|x| {
            serde_json::json!({
                "path": x.path,
                "repeat": x.repeat,
                "variant": x.run.variant,
                "wall_s": x.run.wall_s,
                "bottleneck_bytes": x.run.bottleneck_bytes,
                "bottleneck_drops": x.run.bottleneck_drops,
                "failed": x.run.failed(),
            })
        })
        .collect();
    ctx.write_json(
        "table2.json",
        &serde_json::json!({
            "capacity_bytes_per_s": capacity,
            "goodput_bytes_per_s": goodput,
            "c": c,
            "mean_size_bytes": mean_size,
            "arrival_rate_per_s": lambda,
            "congestion_control": cc,
            "tolerance": {"abs_s": p.equal_abs_s, "rel": p.equal_rel},
            "variants": rows,
            "fluid_ideal": ideal,
            "invariant": inv_rows,
            "runs": run_meta,
            "aa_tcp_halves": aa.as_ref().map(|a| serde_json::json!({"faster": a.faster, "slower": a.slower, "equal": a.equal, "mean_ratio": a.mean_ratio})),
        }),
    )?;
    Ok(())
}

/// The completion-time CDF of every variant and completion time against size.
fn plots(
    ctx: &Context,
    p: &Params,
    plan: &Plan,
    runs: &[Run],
    rows: &[VariantRow],
) -> anyhow::Result<()> {
    let Plan {
        capacity,
        variants,
        paths,
        ..
    } = plan;
    let capacity = *capacity;
    let means = |v: &str, pick: &dyn Fn(usize) -> bool| flow_means(paths, runs, v, pick);
    let all = |_: usize| true;
    let mut cdf_series = Vec::new();
    for v in variants {
        let mut t: Vec<f64> = means(v, &all).into_iter().flatten().collect();
        t.sort_by(f64::total_cmp);
        let n = t.len().max(1) as f64;
        let pts = t
            .iter()
            .enumerate()
            .map(|(i, x)| (*x, (i + 1) as f64 / n))
            .collect();
        cdf_series.push(if v.starts_with("tcp (") {
            Series::dashed(v.clone(), pts)
        } else {
            Series::line(v.clone(), pts)
        });
    }
    render_svg(
        &LinePlot {
            title: format!(
                "Completion time CDF, testbed, {:.1} MB/s, load {}, {} flows",
                capacity / 1e6,
                p.load,
                rows.first().map_or(0, |r| r.flows)
            ),
            x_label: "completion time as the application sees it (s)".into(),
            y_label: "fraction of flows".into(),
            log_x: true,
            series: cdf_series,
            y_range: Some((0.0, 1.0)),
            ..Default::default()
        },
        &ctx.path("cdf.svg"),
    )?;
    let mut scatter = Vec::new();
    for v in ["tcp", "srpt", "fair"] {
        if !variants.iter().any(|x| x == v) {
            continue;
        }
        let pts = paths
            .iter()
            .flatten()
            .zip(means(v, &all))
            .filter_map(|((_, size), t)| Some((*size as f64 / 1e6, t?)))
            .collect();
        scatter.push(Series::markers(v, pts));
    }
    render_svg(
        &LinePlot {
            title: "Completion time against flow size (paper 000, Figure 9), testbed".into(),
            x_label: "flow size (MB)".into(),
            y_label: "completion time (s)".into(),
            log_x: true,
            log_y: true,
            series: scatter,
            ..Default::default()
        },
        &ctx.path("by_size.svg"),
    )?;
    Ok(())
}

/// A signed number of seconds, or a dash.
fn signed_s(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v:+.3} s"))
}

/// A share, or a dash.
fn share_or_dash(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| pct(v, 1))
}

/// The table of every variant against tcp and beside the fluid ideal.
fn results_table(rows: &[VariantRow]) -> String {
    let (s, pc) = (signed_s, share_or_dash);
    md_table(
        &[
            "variant",
            "done",
            "E[T]",
            "E[T]/E[T_tcp]",
            "faster",
            "slower",
            "equal",
            "mean gain",
            "mean loss",
            "fluid ideal: faster / slower / gain / E[T] ratio",
            "gain / ideal",
        ],
        &rows
            .iter()
            .map(|r| {
                vec![
                    r.variant.clone(),
                    format!("{}/{}", r.flows - r.failed, r.flows),
                    format!("{:.3} s", r.mean_s),
                    format!("{:.3}", r.mean_ratio_to_tcp),
                    pct(r.faster, 1),
                    pct(r.slower, 1),
                    pct(r.equal, 1),
                    s(r.mean_gain_s),
                    s(r.mean_loss_s),
                    match r.ideal_faster {
                        Some(f) => format!(
                            "{} / {} / {} / {:.3}",
                            pct(f, 1),
                            pc(r.ideal_slower),
                            s(r.ideal_mean_gain_s),
                            r.ideal_mean_ratio.unwrap_or(f64::NAN)
                        ),
                        None => "—".into(),
                    },
                    pc(r.gain_share_of_ideal),
                ]
            })
            .collect::<Vec<_>>(),
    )
}

/// The invariant summed per variant and side, as a table, and whether it held everywhere.
fn invariant_table(inv_rows: &[InvariantRow]) -> (String, bool) {
    // The invariant, summed per variant and side.
    let mut inv_sum: Vec<(String, String, Invariant, u64, usize)> = Vec::new();
    for r in inv_rows {
        let key = (r.variant.clone(), r.side.clone());
        let i = Invariant {
            checked: r.connections_checked,
            violated: r.connections_violated,
            payload_bytes: r.payload_bytes,
            header_bytes: r.header_bytes,
            adopted_bytes: r.adopted_bytes,
            ..Invariant::default()
        };
        match inv_sum
            .iter_mut()
            .find(|x| (x.0.clone(), x.1.clone()) == key)
        {
            Some(x) => {
                x.2.merge(i);
                x.3 += r.flows_bytes;
                x.4 += r.tunnel_flows;
            }
            None => inv_sum.push((key.0, key.1, i, r.flows_bytes, r.tunnel_flows)),
        }
    }
    let inv_table = md_table(
        &[
            "variant",
            "side (direction)",
            "connections checked / flows",
            "violated",
            "payload bytes",
            "flows' bytes",
            "adopted",
            "header bytes",
            "overhead",
        ],
        &inv_sum
            .iter()
            .map(|(v, side, i, fb, nf)| {
                vec![
                    v.clone(),
                    if side == "server" {
                        "server (downloads)".into()
                    } else {
                        "client (uploads)".into()
                    },
                    format!("{} / {nf}", i.checked),
                    i.violated.to_string(),
                    i.payload_bytes.to_string(),
                    fb.to_string(),
                    i.adopted_bytes.to_string(),
                    i.header_bytes.to_string(),
                    pct(i.header_bytes as f64 / i.payload_bytes.max(1) as f64, 2),
                ]
            })
            .collect::<Vec<_>>(),
    );
    let inv_ok = inv_sum.iter().all(|(_, _, i, fb, nf)| {
        i.violated == 0 && i.payload_bytes == *fb && i.checked as usize == *nf
    });
    (inv_table, inv_ok)
}

/// The goals on FAIR (its verdicts' words) and SRPT's numbers beside the paper's.
fn goals(rows: &[VariantRow], verdicts: &[Verdict]) -> String {
    let (s, pc) = (signed_s, share_or_dash);
    let get = |v: &str| rows.iter().find(|r| r.variant == v);
    let interval = |v: &Verdict| {
        if v.ours.decided() {
            format!(
                "95% interval {}–{}",
                pct(v.ours.lo(), 1),
                pct(v.ours.hi(), 1)
            )
        } else {
            "no interval".to_string()
        }
    };
    let mut goals = String::new();
    if let (Some(f), Some(v)) = (get("fair"), verdicts.first()) {
        let noise = match v.rule {
            Rule::AtMost { margin, .. } if margin.is_finite() => format!(
                "not met only when the whole interval lies above 1% plus the {} the A/A comparison finds \
                 slower from noise alone",
                pct(margin, 1)
            ),
            _ => "no A/A estimate of the noise, so never not met".to_string(),
        };
        goals.push_str(&format!(
            "* FAIR slower than `tcp` beyond the tolerance: **{}** of flows ({}; goal ≤ 1%, met when the whole \
             interval is at most 1%, {noise}; the paper: 2.4%): **{}**.\n",
            pct(f.slower, 1),
            interval(v),
            v.word.says("", "")
        ));
        goals.push_str(&format!(
            "* FAIR faster: **{}** (the paper: 89.6%; the fluid ideal of these very flows: {}, which bounds what any \
             implementation can reach with this tolerance).\n",
            pct(f.faster, 1),
            pc(f.ideal_faster)
        ));
    }
    if let (Some(f), Some(v)) = (get("fair"), verdicts.get(1)) {
        goals.push_str(&format!(
            "* FAIR mean gain: **{}** against the fluid ideal's {} on the same flows: **{}** of the ideal ({} over \
             the faster flows; goal ≥ 65%, met when the whole interval is): **{}**.\n",
            s(f.mean_gain_s),
            s(f.ideal_mean_gain_s),
            pc(f.gain_share_of_ideal),
            interval(v),
            v.word.says("", "")
        ));
    }
    if let Some(r) = get("srpt") {
        goals.push_str(&format!(
            "* SRPT: {} faster, {} slower (the paper: 88.8%, 3.2%), mean gain {} = {} of the ideal's.\n",
            pct(r.faster, 1),
            pct(r.slower, 1),
            s(r.mean_gain_s),
            pc(r.gain_share_of_ideal)
        ));
    }
    goals
}

/// What the A/A comparison of `tcp`'s two halves of repeats says of the noise.
fn noise(p: &Params, aa: Option<&Pairwise>) -> String {
    match aa {
        Some(a) => format!(
            "**Noise (A/A).** The `tcp` repeats split in two halves (even and odd repeats), each flow's mean over \
             each half, compared with the same tolerance: {} of the flows come out faster and {} slower in one half \
             than in the other, and the mean completion times differ by a factor {:.3}. That is what is left of the \
             measurement noise of this machine (real TCP, drops at the bottleneck, a shared two-core host) after \
             averaging {} runs; the rows above average {} runs on each side, so their noise is about 1/√2 of this.",
            pct(a.faster, 1),
            pct(a.slower, 1),
            a.mean_ratio,
            p.repeats / 2,
            p.repeats
        ),
        None => "(One repeat only: no A/A estimate of the noise.)".into(),
    }
}

/// Packets dropped at the bottleneck per run of each variant (mean).
fn drops(variants: &[String], runs: &[Run]) -> Vec<String> {
    variants
        .iter()
        .map(|v| {
            let (n, d) = runs
                .iter()
                .filter(|x| &x.run.variant == v)
                .fold((0u64, 0u64), |(n, d), x| {
                    (n + 1, d + x.run.bottleneck_drops)
                });
            format!("{v} {:.0}", d as f64 / n.max(1) as f64)
        })
        .collect()
}

/// The summary.
fn render(
    p: &Params,
    plan: &Plan,
    cc: &str,
    a: &Analysis,
    inv_rows: &[InvariantRow],
    runs: &[Run],
) -> String {
    let Plan {
        goodput,
        c,
        mean_size,
        lambda,
        variants,
        paths,
        bed,
        ..
    } = plan;
    let (goodput, c, mean_size, lambda) = (*goodput, *c, *mean_size, *lambda);
    let failed_total: usize = a.rows.iter().map(|r| r.failed).sum();
    let table = results_table(&a.rows);
    let paper = crate::p000::paper000_table2();
    let (inv_table, inv_ok) = invariant_table(inv_rows);
    let goals = goals(&a.rows, &a.verdicts);
    let noise = noise(p, a.aa.as_ref());
    let drops = drops(variants, runs);
    format!(
        "# {NAME}: paper 000, Table 2, on the real-TCP testbed\n\n\
{path} Real `schedtcp server` (destination) and `schedtcp client` \
(origin) processes, restarted for every variant; an embedded target in the destination; a workload generator in \
the origin that opens every flow as one TCP connection and checks every byte (download pattern, SHA-256 of the \
upload). Completion time is what the application sees: from `connect` to the last byte.\n\n\
**Workload** (paper 000, Section 6.2, scaled): Poisson arrivals, sizes `P(S > x) = (1 + cx)^(−{a})`. The paper \
has c = {pc:e} (mean 5 MB) on 12 MB/s; here capacity and sizes are both multiplied by {scale} \
(c = {c:e}, mean {ms:.2} MB, cut at {maxs:.0} MB), which leaves the fluid model's transfer times unchanged, and \
load {load} of the TCP goodput ({gp:.2} MB/s = rate × 1448/1514): λ = {lambda:.2} flows/s. \
{reps} sample path(s) × {nf} flows, each run {repeats} times under every variant (same arrivals, same sizes; \
variants in rotated order); a flow's completion time is its mean over the {repeats} runs. \
`plain` is plain TCP without the tunnel; every other variant goes through the tunnel, and each policy is \
paired flow by flow with the tunnel's `tcp`.\n\n\
**Equal** means `|T − T_tcp| ≤ {abs_ms:.0} ms + {rel:.0}% · max(T, T_tcp)`; faster and slower are beyond that.\n\n\
## Ours\n\n{table}\n\
{failed} flow(s) failed in all (every other flow arrived intact). The fluid ideal is `flowsim`'s exact fluid simulation \
of exactly these arrivals and sizes at the goodput ({gp:.2} MB/s), FAIR = FSP, with the same tolerance.\n\n\
{noise}\n\n\
## Paper 000, Table 2 (SCHED_TCP, lab network, 100 runs)\n\n{paper}\n\
## Goals\n\n{goals}\n\
## The per-connection invariant\n\n\
Each tunnel process logs, when it stops, the tally of its pool connections that closed cleanly: the payload each \
carried against the bytes its own flow handed over (plus bytes adopted from dead connections). The flows' bytes \
are the downloads plus the target's 32-byte digest (server) and the 16-byte header plus the 300-byte upload \
(client).\n\n{inv_table}\n\
Invariant {inv_word}.\n\n\
![CDF](cdf.svg)\n\n![by size](by_size.svg)\n\n\
Packets dropped at the bottleneck per run (mean): {drops}.\n\n\
Files: `flows.csv` (every flow under every variant), `table2.csv`, `fluid_ideal.csv`, `invariant.csv`, \
`table2.json`.\n",
        path = bed.describe(cc),
        a = p.alpha,
        pc = p.paper_c,
        scale = p.scale,
        c = c,
        ms = mean_size / 1e6,
        maxs = p.max_size as f64 / 1e6,
        load = p.load,
        gp = goodput / 1e6,
        lambda = lambda,
        reps = paths.len(),
        repeats = p.repeats,
        nf = if p.trace.is_empty() {
            p.flows.to_string()
        } else {
            format!("{} (from the trace `{}`, which replaces the generated arrivals and sizes)", paths[0].len(), p.trace)
        },
        abs_ms = p.equal_abs_s * 1e3,
        rel = p.equal_rel * 100.0,
        failed = failed_total,
        inv_word = if inv_ok {
            "holds on every connection of every run: payload == the flows' bytes, every flow's connection checked"
        } else {
            "**does not hold everywhere** (see the table)"
        },
        drops = drops.join(", "),
    )
}
