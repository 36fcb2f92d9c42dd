//! Paper 004, Figure 8's network (three links; routes 1, 123, 2, 23) — short-flow delay by
//! flow size on each route, normalised by the vanilla policy's delay in the same size bin:
//! where on the size axis access control's gain or loss against LEDBAT and TCP-LP lies
//! (the per-route means are `bg-fig9`).

use crate::engine::background::goals::{carried_verdicts, delay_verdicts};
use crate::engine::background::setups::{three_link_groups, three_links};
use crate::engine::background::{
    bg_flag, bins_table, carried_goal_lines, normalised_grid, plot_bins, size_rows, BinRow, Params,
    Row,
};
use crate::engine::saved::read_csv;
use crate::Context;
use sim::driver::StreamKind;

pub const NAME: &str = "bg-fig8";
pub const DESCRIPTION: &str =
    "Paper 004 Fig. 8's three-link network: short-flow delay per route and size bin / vanilla's, access control vs LEDBAT/TCP-LP (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/bg-fig8.toml");

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let groups = three_link_groups(&p);
    let grid = normalised_grid(ctx, &p, &groups, None)?;
    ctx.write_csv("bg-fig8-all.csv", &grid.rows)?;
    let mut bins: Vec<BinRow> = Vec::new();
    for (g, &rho1) in p.loads.iter().enumerate() {
        let setup = three_links(&p, rho1);
        for (i, sd) in setup.streams.iter().enumerate() {
            if sd.kind == StreamKind::Short {
                bins.extend(size_rows(&grid, g, sd.route, rho1, Some(i)));
            }
        }
    }
    ctx.write_csv("bg-fig8-bins.csv", &bins)?;
    render(ctx, &p, &grid.rows, &bins)
}

/// Renders the plots and the summary again from `bg-fig8-all.csv` (one row per load and
/// policy) and `bg-fig8-bins.csv` (one per load, route, policy and size bin), which an
/// earlier run wrote to `dir`, without simulating.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let rows: Vec<Row> = read_csv(dir, "bg-fig8-all.csv")?;
    let bins: Vec<BinRow> = read_csv(dir, "bg-fig8-bins.csv")?;
    render(ctx, &p, &rows, &bins)
}

/// The plots (one per load and route) and the summary of `rows` and their size bins `bins`.
fn render(ctx: &Context, p: &Params, rows: &[Row], bins: &[BinRow]) -> anyhow::Result<String> {
    for &rho1 in &p.loads {
        let setup = three_links(p, rho1);
        for sd in setup
            .streams
            .iter()
            .filter(|sd| sd.kind == StreamKind::Short)
        {
            let at: Vec<BinRow> = bins
                .iter()
                .filter(|b| b.rho == rho1 && b.group == sd.route)
                .cloned()
                .collect();
            plot_bins(
                ctx,
                &at,
                &format!("bg-fig8-rho{}-{}.svg", (rho1 * 10.0).round(), sd.route),
                &format!(
                    "short-flow delay / vanilla per size, {}, ρ1 = {rho1}",
                    sd.route
                ),
            )?;
        }
    }
    ctx.write_json(
        "verdicts.json",
        &[
            delay_verdicts(rows, "bg-fig8-all.csv", |_| None),
            carried_verdicts(rows, "bg-fig8-all.csv"),
        ]
        .concat(),
    )?;
    Ok(summary(p, rows, bins))
}

fn summary(p: &Params, rows: &[Row], bins: &[BinRow]) -> String {
    let mut s = format!(
        "# bg-fig8 — paper 004, Figure 8's network: delay by size on each route\n\n\
         Packet-level simulation: three {:.0} Mbit/s links in a row ({:.0} ms buffers, {:.0} ms \
         propagation each). Route 1 (link 1) carries short flows of load ρ1; routes 123, 2 and \
         23 each carry a background class (loads 0.2, 0.1, 0.1) and short flows of the same \
         load. Exponential sizes of mean {:.1} MB. {} repeats of {:.0} s (statistics after {:.0} \
         s). Each route's size bin is divided by vanilla's same bin on the same sample path; ± \
         is the 95% interval over repeats. Fixed M ∈ {:?} (0: equation (27)'s critical M with \
         k = 0, i.e. 1, marked (27)).\n\n",
        p.rate_bps / 1e6,
        p.buffer_ms,
        p.propagation_ms,
        p.mean_size_bytes / 1e6,
        p.repeats,
        p.duration_s,
        p.warmup_s,
        p.fixed_ms,
    );
    s.push_str(
        "**Paper:** Fig. 8 is the topology; the paper plots only per-route means (Fig. 9: at \
         ρ1 = 0.3 LBE brings no significant saving, TCP-LP is worse; access control is lower on \
         every route but 123 and 23, where LEDBAT is lowest; at ρ1 = 0.5 access control's \
         advantage grows on routes 1 and 123) and per-size bins only for one link (Fig. 6: LEDBAT \
         best below 100 kB, access control better above). This experiment puts the two \
         together; there is no paper number per route and size.\n\n",
    );
    s.push_str("## Where each policy gains or loses (bins beyond the interval)\n\n");
    let mut labels: Vec<&str> = Vec::new();
    for b in bins {
        if b.label != "vanilla" && !labels.contains(&b.label.as_str()) {
            labels.push(&b.label);
        }
    }
    for &rho1 in &p.loads {
        for route in ["route1", "route123", "route2", "route23"] {
            for l in &labels {
                let v: Vec<&BinRow> = bins
                    .iter()
                    .filter(|b| {
                        (b.rho - rho1).abs() < 1e-9
                            && b.group == route
                            && b.label == *l
                            && b.norm_delay.is_finite()
                    })
                    .collect();
                let pick = |hi: bool| -> Vec<&str> {
                    v.iter()
                        .filter(|b| {
                            if hi {
                                b.norm_delay - b.norm_delay_ci95 > 1.0
                            } else {
                                b.norm_delay + b.norm_delay_ci95 < 1.0
                            }
                        })
                        .map(|b| b.sizes.as_str())
                        .collect()
                };
                let (lo, hi) = (pick(false), pick(true));
                s.push_str(&format!(
                    "- ρ1 = {rho1:.1}, {route}, {l}: lower than vanilla in {} of {} bins{}; higher in {}{}\n",
                    lo.len(),
                    v.len(),
                    if lo.is_empty() { String::new() } else { format!(" ({})", lo.join(", ")) },
                    hi.len(),
                    if hi.is_empty() { String::new() } else { format!(" ({})", hi.join(", ")) },
                ));
            }
        }
    }
    let bg: Vec<String> = rows
        .iter()
        .filter(|r| r.policy.starts_with("access"))
        .map(|r| format!("{} at ρ1 = {:.2}: {}", r.label, r.rho, bg_flag(r)))
        .collect();
    s.push_str(&format!(
        "\nBackground goodput / arrived load (all three classes): {}.\n\n{}\n## Per route and size\n\n",
        bg.join("; "),
        carried_goal_lines(rows)
    ));
    s.push_str(&bins_table(bins));
    s.push_str(
        "\nPlots: `bg-fig8-rho{3,5}-route*.svg`. Differences from the paper: this simulator's \
         NewReno, RFC 6817 LEDBAT and TCP-LP; much shorter runs, few flows per bin on the \
         lightly loaded routes.\n",
    );
    s
}
