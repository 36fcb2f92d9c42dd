//! Paper 004, Figures 8 and 9: three links in a row, routes 1, 123, 2 and 23 (Fig. 8); the
//! short-flow delay on each route, normalised by the vanilla policy, for ρ₁ = 0.3 and 0.5
//! (Fig. 9).

use crate::engine::background::goals::{carried_verdicts, delay_verdicts};
use crate::engine::background::setups::three_link_groups;
use crate::engine::background::{
    bg_flag, carried_goal_lines, mean, normalised_grid, vs_vanilla_cells, Params, Ratio, Row,
    RunOut,
};
use crate::engine::md_table;
use crate::engine::saved::read_csv;
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use serde::{Deserialize, Serialize};
use sim::driver::StreamKind;

pub const NAME: &str = "bg-fig9";
pub const DESCRIPTION: &str =
    "Paper 004 Figs. 8-9: three links, routes 1/123/2/23: per-route short-flow delay normalised by vanilla, rho1 = 0.3 and 0.5 (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/bg-fig9.toml");

#[derive(Serialize, Deserialize)]
struct RouteRow {
    rho1: f64,
    route: String,
    policy: String,
    delay_s: f64,
    norm_delay: f64,
    norm_delay_ci95: f64,
}

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let groups = three_link_groups(&p);
    let grid = normalised_grid(ctx, &p, &groups, None)?;
    let rows = &grid.rows;
    ctx.write_csv("bg-fig9-all.csv", rows)?;
    // Per-route ratios from the raw runs: jobs are group × policy × repeat.
    let mut route_rows = Vec::new();
    for (g, (_, _, setups)) in groups.iter().enumerate() {
        let (rho1, setup) = &setups[0];
        let of = |k: usize| grid.runs(g, k);
        for (i, sd) in setup.streams.iter().enumerate() {
            if sd.kind != StreamKind::Short {
                continue;
            }
            for (k, (_, _, policy)) in grid.variants[g].iter().enumerate() {
                let d = |r: &RunOut| r.mean_delay(Some(i));
                let ratio = Ratio::of(of(k).iter().zip(of(0)).map(|(r, v)| (d(r), d(v))));
                route_rows.push(RouteRow {
                    rho1: *rho1,
                    route: sd.route.to_string(),
                    policy: policy.clone(),
                    delay_s: mean(&of(k).iter().map(d).collect::<Vec<_>>()),
                    norm_delay: ratio.mean,
                    norm_delay_ci95: ratio.ci95,
                });
            }
        }
    }
    ctx.write_csv("bg-fig9.csv", &route_rows)?;
    render(ctx, &p, rows, &route_rows)
}

/// Renders the plots and the summary again from `bg-fig9-all.csv` (one row per load and
/// policy) and `bg-fig9.csv` (one per load, route and policy), which an earlier run wrote to
/// `dir`, without simulating.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let rows: Vec<Row> = read_csv(dir, "bg-fig9-all.csv")?;
    let route_rows: Vec<RouteRow> = read_csv(dir, "bg-fig9.csv")?;
    render(ctx, &p, &rows, &route_rows)
}

/// The plots and the summary of `rows` and the per-route rows `route_rows`.
fn render(
    ctx: &Context,
    p: &Params,
    rows: &[Row],
    route_rows: &[RouteRow],
) -> anyhow::Result<String> {
    ctx.write_json(
        "verdicts.json",
        &[
            delay_verdicts(rows, "bg-fig9-all.csv", |_| None),
            carried_verdicts(rows, "bg-fig9-all.csv"),
        ]
        .concat(),
    )?;
    let routes = ["route1", "route123", "route2", "route23"];
    // The policies in the order they ran (the first load's rows list each once per route).
    let mut policies: Vec<&str> = Vec::new();
    for r in route_rows
        .iter()
        .filter(|r| Some(r.rho1) == p.loads.first().copied())
    {
        if !policies.contains(&r.policy.as_str()) {
            policies.push(&r.policy);
        }
    }
    for &rho1 in &p.loads {
        let series = policies
            .iter()
            .filter_map(|pol| {
                let pts: Vec<(f64, f64)> = routes
                    .iter()
                    .enumerate()
                    .filter_map(|(x, r)| {
                        route_rows
                            .iter()
                            .find(|q| q.rho1 == rho1 && q.route == *r && q.policy == *pol)
                            .map(|q| (x as f64 + 1.0, q.norm_delay))
                    })
                    .collect();
                (!pts.is_empty()).then(|| Series::markers(*pol, pts))
            })
            .collect();
        render_svg(
            &LinePlot {
                title: format!(
                    "Fig. 9: short-flow delay / vanilla per route (1, 123, 2, 23), ρ1 = {rho1}"
                ),
                x_label: "route (1 = route1, 2 = route123, 3 = route2, 4 = route23)".into(),
                y_label: "normalised short-flow delay".into(),
                series,
                ..Default::default()
            },
            &ctx.path(&format!("bg-fig9-rho{}.svg", (rho1 * 10.0).round())),
        )?;
    }
    let table = md_table(
        &[
            "ρ1",
            "route",
            "policy",
            "delay (s)",
            "delay / vanilla (95% CI)",
            "verdict",
        ],
        &route_rows
            .iter()
            .map(|r| {
                let [ratio, verdict] =
                    vs_vanilla_cells(r.norm_delay, r.norm_delay_ci95, r.policy == "vanilla");
                vec![
                    format!("{:.1}", r.rho1),
                    r.route.clone(),
                    r.policy.clone(),
                    format!("{:.2}", r.delay_s),
                    ratio,
                    verdict,
                ]
            })
            .collect::<Vec<_>>(),
    );
    let bg: Vec<String> = rows
        .iter()
        .filter(|r| r.policy.starts_with("access"))
        .map(|r| format!("{} at ρ1 = {:.2}: {}", r.label, r.rho, bg_flag(r)))
        .collect();
    Ok(format!(
        "# bg-fig9 — paper 004, Figures 8 and 9 (three links)\n\n\
         Packet-level simulation: three {:.0} Mbit/s links in a row ({:.0} ms buffers, {:.0} ms \
         propagation each). Route 1 (link 1) carries short flows of load ρ1; routes 123, 2 and \
         23 each carry a background class (loads 0.2, 0.1, 0.1) and short flows of the same \
         load. Exponential sizes of mean {:.1} MB. {} repeats of {:.0} s, paired with vanilla by \
         seed; ± is the 95% interval of the paired ratio.\n\n\
         **Paper (Fig. 9):** at ρ1 = 0.3 (link 1 at 70%) the LBE protocols bring no significant \
         saving over vanilla, TCP-LP is worse; access control has lower delay on every route \
         except 123 and 23, where it is close to LEDBAT (the lowest there). At ρ1 = 0.5 the \
         difference in favour of access control grows on the loaded routes 1 and 123.\n\n\
         ## Results\n\n{table}\n\
         Background goodput / arrived load (all three classes): {}.\n\n{}\n\
         Plots: `bg-fig9-rho3.svg`, `bg-fig9-rho5.svg` (Fig. 8 is the topology above). \
         Differences from the paper: this simulator's NewReno, RFC 6817 LEDBAT and TCP-LP; \
         much shorter runs.\n",
        p.rate_bps / 1e6,
        p.buffer_ms,
        p.propagation_ms,
        p.mean_size_bytes / 1e6,
        p.repeats,
        p.duration_s,
        bg.join("; "),
        carried_goal_lines(rows)
    ))
}
