//! Paper 004, Figure 6: single link with k = 1 long flow — short-flow delay by flow size,
//! normalised by the vanilla policy's delay in the same size bin, at ρ = 0.2 and ρ = 0.6.

use crate::engine::background::goals::never_worse;
use crate::engine::background::goals::{carried_verdicts, delay_verdicts};
use crate::engine::background::setups::single_link;
use crate::engine::background::{
    bins_table, carried_goal_lines, find, normalised_grid, plot_bins, rows_table, size_rows,
    BinRow, Group, Params, Row,
};
use crate::engine::saved::read_csv;
use crate::engine::verdict::{judge, Interval, Word, DIFFERENCE};
use crate::Context;

pub const NAME: &str = "bg-fig6";
pub const DESCRIPTION: &str =
    "Paper 004 Fig. 6: single link, k = 1 long flow: short-flow delay per size bin / vanilla's, access control vs LEDBAT/TCP-LP (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/bg-fig6.toml");

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let groups: Vec<Group> = vec![(
        "k=1".into(),
        1,
        p.loads
            .iter()
            .map(|&r| (r, single_link(&p, r, 1)))
            .collect(),
    )];
    let grid = normalised_grid(ctx, &p, &groups, None)?;
    ctx.write_csv("bg-fig6.csv", &grid.rows)?;
    let bins: Vec<BinRow> = p
        .loads
        .iter()
        .enumerate()
        .flat_map(|(i, &rho)| size_rows(&grid, i, "k=1", rho, None))
        .collect();
    ctx.write_csv("bg-fig6-bins.csv", &bins)?;
    render(ctx, &p, &grid.rows, &bins)
}

/// Renders the plots and the summary again from `bg-fig6.csv` (one row per load and policy)
/// and `bg-fig6-bins.csv` (one per load, policy and size bin), which an earlier run wrote to
/// `dir`, without simulating.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let rows: Vec<Row> = read_csv(dir, "bg-fig6.csv")?;
    let bins: Vec<BinRow> = read_csv(dir, "bg-fig6-bins.csv")?;
    render(ctx, &p, &rows, &bins)
}

/// The plots and the summary of `rows` and their size bins `bins`.
fn render(ctx: &Context, p: &Params, rows: &[Row], bins: &[BinRow]) -> anyhow::Result<String> {
    for &rho in &p.loads {
        let at: Vec<BinRow> = bins.iter().filter(|b| b.rho == rho).cloned().collect();
        plot_bins(
            ctx,
            &at,
            &format!("bg-fig6-rho{}.svg", (rho * 100.0).round()),
            &format!("Fig. 6: short-flow delay / vanilla per size, k = 1, ρ = {rho}"),
        )?;
    }
    ctx.write_json(
        "verdicts.json",
        &[
            delay_verdicts(rows, "bg-fig6.csv", |_| None),
            carried_verdicts(rows, "bg-fig6.csv"),
        ]
        .concat(),
    )?;
    Ok(summary(p, rows, bins))
}

/// Per variant at load `rho`: the bins where it is higher / lower than vanilla beyond the
/// interval, among `sizes` (a filter on the bin index).
fn bins_verdict(bins: &[BinRow], rho: f64, label: &str, sizes: impl Fn(usize) -> bool) -> String {
    let v: Vec<&BinRow> = bins
        .iter()
        .filter(|b| (b.rho - rho).abs() < 1e-9 && b.label == label && sizes(b.bin))
        .filter(|b| b.norm_delay.is_finite())
        .collect();
    let word = |b: &BinRow| {
        judge(
            Interval::new(b.norm_delay - 1.0, b.norm_delay_ci95),
            DIFFERENCE,
        )
    };
    let higher: Vec<&str> = v
        .iter()
        .filter(|b| word(b) == Word::Higher)
        .map(|b| b.sizes.as_str())
        .collect();
    let lower = v.iter().filter(|b| word(b) == Word::Lower).count();
    format!(
        "{} of {} bins lower than vanilla beyond the interval, {} higher{}",
        lower,
        v.len(),
        higher.len(),
        if higher.is_empty() {
            String::new()
        } else {
            format!(" ({})", higher.join(", "))
        }
    )
}

fn summary(p: &Params, rows: &[Row], bins: &[BinRow]) -> String {
    let mut s = format!(
        "# bg-fig6 — paper 004, Figure 6 (single link, k = 1, delay by size)\n\n\
         Packet-level simulation (`crates/sim`): one {:.0} Mbit/s link, {:.0} ms buffer, {:.0} ms \
         propagation, one long TCP flow; short and background flows Poisson with exponential \
         sizes of mean {:.1} MB; background load {:.1} Mbit/s. {} repeats of {:.0} s (statistics \
         after {:.0} s). The same seed gives the same short flows under every policy, so each \
         size bin's mean delay is divided by vanilla's in the same bin of the same sample path; \
         ± is the 95% interval of that ratio over repeats. Bins are coarser than the paper's \
         100 × 50 kB (a 3 MB-mean exponential puts only ~1.6% of flows in a 50 kB bin) and keep \
         its 100 kB and 1 MB boundaries. Fixed M ∈ {:?} (0: equation (27)'s critical M, \
         marked (27)); adaptive window {:.0} s, period {:.0} s. LEDBAT and TCP-LP are \
         simulator-only.\n\n",
        p.rate_bps / 1e6,
        p.buffer_ms,
        p.propagation_ms,
        p.mean_size_bytes / 1e6,
        p.background_bps / 1e6,
        p.repeats,
        p.duration_s,
        p.warmup_s,
        p.fixed_ms,
        p.adaptive.window.as_secs_f64(),
        p.adaptive.period.as_secs_f64(),
    );
    s.push_str(
        "**Paper (Fig. 6):** at ρ = 0.2 access control is similar to LEDBAT except for very \
         short files (< 100 kB). At ρ = 0.6 access control is significantly better than or \
         similar to the LBE protocols for all sizes but the short ones (< 100 kB), where LEDBAT \
         always had smaller delay; the LBE protocols can be very harmful, worse than vanilla, \
         for sizes above 1 MB; access control is better than vanilla for all flow sizes.\n\n",
    );
    s.push_str("## Goals\n\n");
    s.push_str(&crate::engine::background::goals::never_worse_header());
    s.push_str(&never_worse(rows, "k=1"));
    s.push_str(&carried_goal_lines(rows));
    for &rho in &p.loads {
        let mut labels: Vec<&str> = Vec::new();
        for b in bins.iter().filter(|b| (b.rho - rho).abs() < 1e-9) {
            if b.label != "vanilla" && !labels.contains(&b.label.as_str()) {
                labels.push(&b.label);
            }
        }
        for l in &labels {
            s.push_str(&format!(
                "- ρ = {rho:.2}, {l}: all sizes: {}; sizes ≥ 1 MB: {}\n",
                bins_verdict(bins, rho, l, |_| true),
                bins_verdict(bins, rho, l, |b| b >= 5),
            ));
        }
    }
    for &rho in p.loads.iter().filter(|&&r| r >= 0.6 - 1e-9) {
        if let (Some(a), Some(v)) = (
            find(rows, "k=1", rho, "access-adaptive"),
            find(rows, "k=1", rho, "vanilla"),
        ) {
            s.push_str(&format!(
                "- ρ = {rho:.2}, access-adaptive: mean M {:.1}, {:.1} saturations per run after \
                 the warm-up, the overload check engaged {:.0}% of the time (the class sent less \
                 than 90% of its arrivals over 30 min); background goodput / arrived {:.3} \
                 (vanilla {:.3}, whose own backlog went {:.0} → {:.0} MB; the link carried {:.1}% \
                 of the payload offered to it under vanilla)\n",
                a.mean_m,
                a.saturations,
                100.0 * a.engaged,
                a.bg_throughput_vs_arrived,
                v.bg_throughput_vs_arrived,
                v.backlog_warm_mb,
                v.backlog_end_mb,
                100.0 * v.link_carried / v.link_offered,
            ));
        }
    }
    s.push_str("\n## Whole-population rows\n\n");
    s.push_str(&rows_table(rows));
    s.push_str("\n## Per size\n\n");
    s.push_str(&bins_table(bins));
    s.push_str(
        "\nPlots: `bg-fig6-rho*.svg` (one per load; x is a bin's upper edge, the open last bin \
         drawn at 16 MB). Differences from the paper: this simulator's NewReno, RFC 6817 LEDBAT \
         and TCP-LP instead of ns-2's modules; far fewer flows per bin, hence the intervals.\n",
    );
    s.push_str(crate::engine::background::AT_EQUAL_CARRIED);
    s
}
