//! Paper 003, Figure 2: mean response time as a function of the flow size under PS, LAS and
//! PS+PS, and the difference to PS.

use crate::check_param;
use crate::engine::saved::{read_csv, read_json};
use crate::engine::{logspace, md_table};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use anyhow::Context as _;
use flowsim::compare::binned_means;
use flowsim::mg1::{simulate, Policy};
use flowsim::path::SamplePath;
use models::mg1::{las, ps, psps};
use models::{Mg1, SizeDist};
use serde::{Deserialize, Serialize};

pub const NAME: &str = "run2c-fig2";
pub const DESCRIPTION: &str =
    "Paper 003 Fig. 2: T(x) under PS, LAS and PS+PS for BP(13,5000,1.1), model and simulation";
pub const SCENARIO: &str = include_str!("../../scenarios/run2c-fig2.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    seed: u64,
    k: f64,
    p: f64,
    alpha: f64,
    load: f64,
    threshold: f64,
    size_points: usize,
    grid_points: usize,
    sim_flows: usize,
    sim_bins: usize,
}

#[derive(Serialize, Deserialize)]
struct Row {
    size: f64,
    ps: f64,
    las: f64,
    psps: f64,
    las_minus_ps: f64,
    psps_minus_ps: f64,
}

#[derive(Serialize, Deserialize)]
struct SimRow {
    bin_lo: f64,
    bin_hi: f64,
    flows: usize,
    ps_sim: Option<f64>,
    las_sim: Option<f64>,
    psps_sim: Option<f64>,
    ps_model_mid: f64,
    las_model_mid: f64,
    psps_model_mid: f64,
}

/// The model's T(x) at the sizes the summary's table shows, and the PS+PS threshold used
/// (`model.json`).
#[derive(Serialize, Deserialize)]
struct Model {
    threshold: f64,
    points: Vec<ModelPoint>,
}

/// T(x) of each policy at one size.
#[derive(Serialize, Deserialize)]
struct ModelPoint {
    size: f64,
    ps: f64,
    las: f64,
    psps: f64,
}

fn params(ctx: &Context) -> anyhow::Result<Params> {
    let p: Params = ctx.params()?;
    check_param!(
        p.load > 0.0 && p.load < 1.0,
        "load = {} must be in (0, 1)",
        p.load
    );
    check_param!(
        p.threshold >= 0.0,
        "threshold = {} must be >= 0",
        p.threshold
    );
    check_param!(p.size_points >= 2, "size_points must be >= 2");
    check_param!(p.grid_points >= 16, "grid_points must be >= 16");
    check_param!(p.sim_bins >= 1, "sim_bins must be >= 1");
    Ok(p)
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p = params(ctx)?;
    let dist = SizeDist::bounded_pareto(p.k, p.p, p.alpha).context("flow-size distribution")?;
    let q = Mg1::with_load(p.load, dist.clone()).context("M/G/1 queue")?;
    let opts = psps::SolverOptions {
        grid_points: p.grid_points,
        ..Default::default()
    };
    let pb = ctx.progress(4, "model");
    let th = if p.threshold > 0.0 {
        p.threshold
    } else {
        psps::optimal_threshold(&q, 1.0, p.p * 0.98, 12, &opts)?.0
    };
    pb.inc(1);
    let sol = psps::PsPs::solve(&q, th, &opts)?;
    let xs = logspace(p.k, p.p, p.size_points);
    let mut rows = Vec::new();
    for &x in &xs {
        let t_ps = ps::response(&q, x)?;
        let t_las = las::response(&q, x)?;
        let t_psps = sol.response(x)?;
        rows.push(Row {
            size: x,
            ps: t_ps,
            las: t_las,
            psps: t_psps,
            las_minus_ps: t_las - t_ps,
            psps_minus_ps: t_psps - t_ps,
        });
    }
    ctx.write_csv("fig2.csv", &rows)?;
    pb.inc(1);

    pb.set_message("simulation");
    let path = SamplePath::poisson(q.lambda(), &dist, p.sim_flows, ctx.seed(p.seed))?;
    let sizes: Vec<f64> = path.jobs().iter().map(|j| j.size).collect();
    let edges = logspace(p.k, p.p, p.sim_bins + 1);
    let bins = |pol| -> anyhow::Result<Vec<(usize, Option<f64>)>> {
        let r = simulate(&path, 1.0, pol)?.response_times(&path);
        Ok(binned_means(&sizes, &r, &edges))
    };
    let b_ps = bins(Policy::Ps)?;
    let b_las = bins(Policy::Las)?;
    let b_psps = bins(Policy::PsPs { threshold: th })?;
    pb.inc(1);
    let mut sim_rows = Vec::new();
    for i in 0..p.sim_bins {
        let mid = (edges[i] * edges[i + 1]).sqrt();
        sim_rows.push(SimRow {
            bin_lo: edges[i],
            bin_hi: edges[i + 1],
            flows: b_ps[i].0,
            ps_sim: b_ps[i].1,
            las_sim: b_las[i].1,
            psps_sim: b_psps[i].1,
            ps_model_mid: ps::response(&q, mid)?,
            las_model_mid: las::response(&q, mid)?,
            psps_model_mid: sol.response(mid)?,
        });
    }
    ctx.write_csv("simulation_check.csv", &sim_rows)?;

    let model = Model {
        threshold: th,
        points: [p.k, 50.0, th, 1000.0, p.p]
            .iter()
            .map(|&x| {
                Ok(ModelPoint {
                    size: x,
                    ps: ps::response(&q, x)?,
                    las: las::response(&q, x)?,
                    psps: sol.response(x)?,
                })
            })
            .collect::<anyhow::Result<_>>()?,
    };
    ctx.write_json("model.json", &model)?;
    pb.finish_and_clear();
    render(ctx, &p, &model, &rows, &sim_rows)
}

/// Renders the plots and the summary again from `model.json`, `fig2.csv` and
/// `simulation_check.csv`, which an earlier run wrote to `dir`, without solving or simulating.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p = params(ctx)?;
    let model: Model = read_json(dir, "model.json")?;
    let rows: Vec<Row> = read_csv(dir, "fig2.csv")?;
    let sim_rows: Vec<SimRow> = read_csv(dir, "simulation_check.csv")?;
    render(ctx, &p, &model, &rows, &sim_rows)
}

/// The plots and the summary of the model's curves `rows`, its values `model` and the
/// simulation check `sim_rows`.
fn render(
    ctx: &Context,
    p: &Params,
    model: &Model,
    rows: &[Row],
    sim_rows: &[SimRow],
) -> anyhow::Result<String> {
    let th = model.threshold;
    plots(ctx, p, th, rows, sim_rows)?;
    let last = rows.last().context("no size points")?;
    let small = rows.first().context("no size points")?;
    let table = md_table(
        &["size x", "T_PS(x)", "T_LAS(x)", "T_PS+PS(x)"],
        &model
            .points
            .iter()
            .map(|m| {
                vec![
                    format!("{:.0}", m.size),
                    format!("{:.1}", m.ps),
                    format!("{:.1}", m.las),
                    format!("{:.1}", m.psps),
                ]
            })
            .collect::<Vec<_>>(),
    );
    let sim_table = simulation_table(sim_rows);
    Ok(format!(
        "# {NAME}: T(x) under PS, LAS and PS+PS (paper 003, Fig. 2)\n\n\
BP({k}, {pp}, {a}) packets, load ρ = {load}, PS+PS threshold {th:.0} packets \
({thsrc}).\n\n![T(x)](fig2.svg)\n\n![difference to PS](fig2_difference.svg)\n\n\
## Model values\n\n{table}\n\
## What the paper says and what we see\n\n\
* Paper: \"even though large flows do not suffer much with PS+PS, the average time in the \
system is reduced significantly\", while LAS penalises the largest flows. Ours: at the \
largest size ({big:.0} packets) LAS is {las_pen:.1}% slower than PS and PS+PS {psps_pen:.1}% \
slower; at the smallest size ({sm:.0} packets) LAS and PS+PS are {las_gain:.1}× and \
{psps_gain:.1}× faster than PS.\n\
* Theorem 1 (PS+PS slowdown → 1/(1−ρ)) and the bounded offset of PS+PS over PS are visible \
in the difference plot: the PS+PS − PS curve stays bounded while LAS − PS grows (for α < 2 \
it grows like x^(2−α)).\n\n\
## Simulation check (conditional means in size bins; model at the bin's geometric middle)\n\n\
{sim_table}\n\
Bins are wide, so the model value at the middle of a bin is only indicative for steep \
curves; the heavy tail makes the largest bins noisy.\n",
        k = p.k,
        pp = p.p,
        a = p.alpha,
        load = p.load,
        thsrc = if p.threshold > 0.0 {
            "from the scenario"
        } else {
            "the optimum of E[T]"
        },
        big = last.size,
        las_pen = 100.0 * (last.las / last.ps - 1.0),
        psps_pen = 100.0 * (last.psps / last.ps - 1.0),
        sm = small.size,
        las_gain = small.ps / small.las,
        psps_gain = small.ps / small.psps,
    ))
}

/// T(x) by size under each policy, model and simulation, and the differences to PS.
fn plots(
    ctx: &Context,
    p: &Params,
    th: f64,
    rows: &[Row],
    sim_rows: &[SimRow],
) -> anyhow::Result<()> {
    let col = |f: fn(&Row) -> f64| rows.iter().map(|r| (r.size, f(r))).collect::<Vec<_>>();
    let mids = |f: fn(&SimRow) -> Option<f64>| {
        sim_rows
            .iter()
            .filter_map(|r| f(r).map(|v| ((r.bin_lo * r.bin_hi).sqrt(), v)))
            .collect::<Vec<_>>()
    };
    render_svg(
        &LinePlot {
            title: format!(
                "Mean response time by flow size, load {}, PS+PS threshold {th:.0}",
                p.load
            ),
            x_label: "flow size x (packets)".into(),
            y_label: "T(x) (packet times)".into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series::line("PS", col(|r| r.ps)),
                Series::line("LAS", col(|r| r.las)),
                Series::line("PS+PS", col(|r| r.psps)),
                Series::markers("PS sim", mids(|r| r.ps_sim)),
                Series::markers("LAS sim", mids(|r| r.las_sim)),
                Series::markers("PS+PS sim", mids(|r| r.psps_sim)),
            ],
            ..Default::default()
        },
        &ctx.path("fig2.svg"),
    )?;
    render_svg(
        &LinePlot {
            title: "Difference in delay to PS, T(x) − T_PS(x)".into(),
            x_label: "flow size x (packets)".into(),
            y_label: "T(x) − x/(1−ρ) (packet times)".into(),
            log_x: true,
            series: vec![
                Series::line("LAS − PS", col(|r| r.las_minus_ps)),
                Series::line("PS+PS − PS", col(|r| r.psps_minus_ps)),
                Series::dashed("0", vec![(p.k, 0.0), (p.p, 0.0)]),
            ],
            ..Default::default()
        },
        &ctx.path("fig2_difference.svg"),
    )?;
    Ok(())
}

/// The simulation's mean response time per size bin against the model's at the bin's middle.
fn simulation_table(sim_rows: &[SimRow]) -> String {
    md_table(
        &[
            "size bin",
            "flows",
            "PS sim / model",
            "LAS sim / model",
            "PS+PS sim / model",
        ],
        &sim_rows
            .iter()
            .map(|r| {
                let f = |s: Option<f64>, m: f64| {
                    s.map_or("—".to_string(), |s| format!("{s:.1} / {m:.1}"))
                };
                vec![
                    format!("[{:.0}, {:.0})", r.bin_lo, r.bin_hi),
                    r.flows.to_string(),
                    f(r.ps_sim, r.ps_model_mid),
                    f(r.las_sim, r.las_model_mid),
                    f(r.psps_sim, r.psps_model_mid),
                ]
            })
            .collect::<Vec<_>>(),
    )
}
