//! Paper 004, Theorem 5: the table of wTCP's worst-case distance from the optimum.

use crate::check_param;
use crate::engine::saved::read_json;
use crate::engine::{linspace, md_table, pct};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use models::bg::wtcp;
use serde::{Deserialize, Serialize};

pub const NAME: &str = "bg-theorem5";
pub const DESCRIPTION: &str =
    "Paper 004 Theorem 5: table of sup_f (N_w - N_*)/N_* as rho -> 1 and of the bound b_k(f)";
pub const SCENARIO: &str = include_str!("../../scenarios/bg-theorem5.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    k_values: Vec<u32>,
    f_points: usize,
}

#[derive(Serialize, Deserialize)]
struct Row {
    k: u32,
    sup_limit: f64,
    argmax_f: f64,
    sup_bound: Option<f64>,
    bound_argmax_f: Option<f64>,
}

fn params(ctx: &Context) -> anyhow::Result<Params> {
    let p: Params = ctx.params()?;
    check_param!(!p.k_values.is_empty(), "k_values must not be empty");
    check_param!(p.k_values.iter().all(|&k| k >= 1), "every k must be >= 1");
    check_param!(p.f_points >= 10, "f_points must be >= 10");
    Ok(p)
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p = params(ctx)?;
    let fs: Vec<f64> = linspace(0.0, 1.0, p.f_points + 2)[1..=p.f_points].to_vec();
    let pb = ctx.progress(p.k_values.len() as u64, "k values");
    let mut rows = Vec::new();
    for &k in &p.k_values {
        let (mut s, mut sf) = (0.0f64, 0.0);
        let (mut b, mut bf) = (0.0f64, 0.0);
        for &f in &fs {
            let v = wtcp::theorem5_limit(k, f)?;
            if v > s {
                s = v;
                sf = f;
            }
            if k >= 2 {
                let vb = wtcp::theorem5_bound(k, f)?;
                if vb > b {
                    b = vb;
                    bf = f;
                }
            }
        }
        rows.push(Row {
            k,
            sup_limit: s,
            argmax_f: sf,
            sup_bound: (k >= 2).then_some(b),
            bound_argmax_f: (k >= 2).then_some(bf),
        });
        pb.inc(1);
    }
    pb.finish_and_clear();
    ctx.write_csv("theorem5.csv", &rows)?;
    ctx.write_json("theorem5.json", &rows)?;
    render(ctx, &p, &rows)
}

/// Renders the plot and the summary again from `theorem5.json`, which an earlier run wrote to
/// `dir`, without computing.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p = params(ctx)?;
    let rows: Vec<Row> = read_json(dir, "theorem5.json")?;
    render(ctx, &p, &rows)
}

/// The plot and the summary of the table `rows`.
fn render(ctx: &Context, p: &Params, rows: &[Row]) -> anyhow::Result<String> {
    let (f1, v1) = wtcp::theorem5_k1_max();
    render_svg(
        &LinePlot {
            title: "wTCP worst-case distance from the optimum as ρ → 1".into(),
            x_label: "k (number of long TCP flows)".into(),
            y_label: "sup over f".into(),
            log_x: true,
            series: vec![
                Series::line(
                    "sup_f lim (N_w − N_*)/N_*",
                    rows.iter().map(|r| (r.k as f64, r.sup_limit)).collect(),
                ),
                Series::dashed(
                    "sup_f b_k(f) (Theorem 5 bound)",
                    rows.iter()
                        .filter_map(|r| r.sup_bound.map(|b| (r.k as f64, b)))
                        .collect(),
                ),
            ],
            ..Default::default()
        },
        &ctx.path("theorem5.svg"),
    )?;
    let paper = |k: u32| match k {
        1 => "20.7% at f = 2−√2 ≈ 0.586",
        5 => "≈ 8%",
        _ => "—",
    };
    let table = md_table(
        &[
            "k",
            "sup_f limit (ours)",
            "at f",
            "paper",
            "sup_f b_k(f)",
            "at f",
        ],
        &rows
            .iter()
            .map(|r| {
                vec![
                    r.k.to_string(),
                    pct(r.sup_limit, 2),
                    format!("{:.3}", r.argmax_f),
                    paper(r.k).into(),
                    r.sup_bound.map_or("— (k = 1)".into(), |b| pct(b, 2)),
                    r.bound_argmax_f.map_or("—".into(), |f| format!("{f:.3}")),
                ]
            })
            .collect::<Vec<_>>(),
    );
    Ok(format!(
        "# {NAME}: wTCP vs optimal in heavy traffic (paper 004, Theorem 5)\n\n\
`lim_(ρ→1) (N_w − N_*)/N_*` from eq. (16) and Corollary 1 — `(k+1+kf/(1−f))/(k+1+a_f f) − 1`, \
which for k = 1 is eq. (17) — maximised over a grid of {n} values of f, and the bound \
`b_k(f)` of eq. (19).\n\n{table}\n\
Closed form for k = 1: maximum (3 − 2√2)/(2√2 − 2) = {v1:.4} ({v1p}) at f = 2 − √2 = {f1:.4}.\n\n\
![sup vs k](theorem5.svg)\n\n\
The bound b_k is not tight (it is the looser step of Appendix I: it drops the factor \
`(1−f) a_f / k ≤ 1`), but it goes to zero as k grows, as the theorem states; the exact \
limit decreases much faster.\n",
        n = p.f_points,
        v1p = pct(v1, 2),
    ))
}
