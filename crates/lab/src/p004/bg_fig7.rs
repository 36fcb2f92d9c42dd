//! Paper 004, Figure 7: two links, no long flows; the background class crosses both links,
//! each link has its own stream of short flows of load ρ.

use crate::engine::background::goals::vs_vanilla;
use crate::engine::background::goals::{carried_verdicts, delay_verdicts};
use crate::engine::background::setups::two_links;
use crate::engine::background::{
    bg_flag, carried_goal_lines, find, labels, normalised_grid, overloaded, plot_rows, rows_table,
    series_label, Group, Params, Row,
};
use crate::engine::saved::read_csv;
use crate::Context;

pub const NAME: &str = "bg-fig7";
pub const DESCRIPTION: &str =
    "Paper 004 Fig. 7: two links, background crossing both: short-flow delay and active micro-flows vs load, access control vs LEDBAT/TCP-LP vs vanilla (packet level)";
pub const SCENARIO: &str = include_str!("../../scenarios/bg-fig7.toml");

pub fn run(ctx: &Context) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let groups: Vec<Group> = vec![(
        "two links".into(),
        0,
        p.loads.iter().map(|&r| (r, two_links(&p, r))).collect(),
    )];
    let rows = normalised_grid(ctx, &p, &groups, None)?.rows;
    ctx.write_csv("bg-fig7.csv", &rows)?;
    render(ctx, &p, &rows)
}

/// Renders the verdicts, the plots and the summary again from `bg-fig7.csv` (one row per
/// load and policy, over the repeats), which an earlier run wrote to `dir`, without
/// simulating.
pub(crate) fn render_from(ctx: &Context, dir: &std::path::Path) -> anyhow::Result<String> {
    let p = Params::load(ctx)?;
    let rows: Vec<Row> = read_csv(dir, "bg-fig7.csv")?;
    render(ctx, &p, &rows)
}

/// The verdicts, the plots and the summary of `rows`.
fn render(ctx: &Context, p: &Params, rows: &[Row]) -> anyhow::Result<String> {
    ctx.write_json(
        "verdicts.json",
        &[
            delay_verdicts(rows, "bg-fig7.csv", paper_claim),
            carried_verdicts(rows, "bg-fig7.csv"),
        ]
        .concat(),
    )?;
    plot_rows(
        ctx,
        rows,
        "two links",
        "bg-fig7a.svg",
        "Fig. 7a: short-flow delay / vanilla, two links",
        "normalised short-flow delay",
        |r| r.norm_delay,
    )?;
    plot_rows(
        ctx,
        rows,
        "two links",
        "bg-fig7b.svg",
        "Fig. 7b: active micro-flows / vanilla, two links",
        "normalised active micro-flows",
        |r| r.norm_active,
    )?;
    Ok(summary(p, rows))
}

/// Paper 004's claim (Fig. 7) on a row's delay against vanilla: at ρ = 0.65 LEDBAT cuts it
/// by 10%, access control by 28%.
fn paper_claim(r: &Row) -> Option<&'static str> {
    if (r.rho - 0.65).abs() > 1e-9 {
        None
    } else if r.policy.starts_with("ledbat") {
        Some("0.90 of vanilla's")
    } else if r.policy.starts_with("access") {
        Some("0.72 of vanilla's")
    } else {
        None
    }
}

fn summary(p: &Params, rows: &[Row]) -> String {
    let mut s = format!(
        "# bg-fig7 — paper 004, Figure 7 (two links)\n\n\
         Packet-level simulation (`crates/sim`): two {:.0} Mbit/s links in a row, {:.0} ms \
         buffers, {:.0} ms propagation each; a stream of short flows of load ρ on each link; one \
         background class of {:.1} Mbit/s crossing both; exponential sizes of mean {:.1} MB; no \
         long flows. {} repeats of {:.0} s (statistics after {:.0} s), paired with vanilla by \
         seed; ± is the 95% interval of the paired ratio over repeats. Short-flow delay is the \
         mean over both links' short flows. LEDBAT and TCP-LP are simulator-only.\n\n\
         How the background's books are kept: *bg goodput / arrived* is the background payload \
         acknowledged after the warm-up over the payload of the background flows that arrived \
         after it; it falls short of 1 by exactly the growth of the *backlog* (bytes arrived \
         and not yet acknowledged: waiting flows whole, active flows' rest) between the end of \
         the warm-up and the end of the run, shown beside it. *load estimate / arrived* is the \
         access controller's mean estimate of the arrival load (what its loop steers by) over \
         the load that arrived. The last column is the most loaded link after the warm-up (the one most payload arrived for): the \
         payload that arrived for it (short flows and background crossing it) and the payload \
         it carried, over its rate, the fraction of time its wire was busy (headers and \
         retransmissions included: a segment of {} payload bytes takes {} on the wire) and its \
         data-packet loss. A load is *overloaded* when under vanilla that link carried less \
         than 98% of what arrived for it: no policy can then carry every class's load, and \
         the shortfall is shared according to the policy.\n\n",
        p.rate_bps / 1e6,
        p.buffer_ms,
        p.propagation_ms,
        p.background_bps / 1e6,
        p.mean_size_bytes / 1e6,
        p.repeats,
        p.duration_s,
        p.warmup_s,
        p.tcp.mss,
        p.tcp.mss + p.tcp.header_bytes,
    );
    s.push_str(
        "**Paper (Fig. 7):** access control is similar to LEDBAT below ρ = 0.5; above, LBE \
         starvation sets in (ρ_b > (1 − ρ)², i.e. ρ > 0.46), the number of LEDBAT flows peaks \
         and LEDBAT stops behaving as low priority. At 95% total load (ρ = 0.65) LEDBAT cuts the \
         short-flow delay by only 10% relative to vanilla, access control by 28%.\n\n",
    );
    s.push_str("## Results\n\n");
    s.push_str(&rows_table(rows));
    s.push_str("\n## Goals\n\n");
    s.push_str("Capacity first (the vanilla rows: every background flow in the network):\n\n");
    for v in rows.iter().filter(|r| r.policy == "vanilla") {
        let over = overloaded(v);
        s.push_str(&format!(
            "- ρ = {:.2}: the most loaded link was offered {:.3} of its rate in payload and carried \
             {:.3} ({:.1}% of it), its wire busy {:.1}% of the time, {:.1}% of data packets \
             lost; background backlog {:.0} → {:.0} MB; {}\n",
            v.rho,
            v.link_offered,
            v.link_carried,
            100.0 * v.link_carried / v.link_offered,
            100.0 * v.link_busy,
            100.0 * v.link_loss,
            v.backlog_warm_mb,
            v.backlog_end_mb,
            if over {
                "**overloaded**: the links cannot carry the offered load, whatever the policy"
            } else {
                "not overloaded"
            }
        ));
    }
    s.push('\n');
    s.push_str(&cut_at_top_load(p, rows));
    s.push_str(&carried_goal_lines(rows));
    if let Some(a) = p
        .loads
        .iter()
        .copied()
        .reduce(f64::max)
        .and_then(|r| find(rows, "two links", r, "access-adaptive"))
        // The overload check's explanation: given only when the check engaged.
        .filter(|a| a.engaged > 0.0)
    {
        s.push_str(&format!(
            "- ρ = {:.2}, access-adaptive: mean M {:.1}, {:.1} saturations per run after the \
             warm-up, the overload check engaged {:.0}% of the time. Engaged, the loop holds \
             each raise until a sequential test on adjacent pairs of busy periods, one of M \
             and one of M − 1, decides that it lifts the rate by at least 2% (kept) or not \
             (taken back), and takes it back undecided after 2 h (`gtcp::admission`). A packet network's per-period rates vary here by about their mean (the short \
             flows present change on a scale of minutes; adjacent periods share most of them, \
             which the pairs cancel), so a raise can still take many minutes to prove. In \
             this run: background goodput / arrived {:.3} against vanilla's {:.3}, short-flow \
             delay {:.3} of vanilla's. A loop that takes a raise back only when the records show it *surely* \
             bought less than 2% keeps useless raises under this noise, and M creeps up \
             (mean M 11.3 at ρ = 0.65 over 16 runs of 6000 s; `creep-diagnosis/`).\n",
            a.rho,
            a.mean_m,
            a.saturations,
            100.0 * a.engaged,
            a.bg_throughput_vs_arrived,
            find(rows, "two links", a.rho, "vanilla").map_or(f64::NAN, |v| v.bg_throughput_vs_arrived),
            a.norm_delay,
        ));
    }
    s.push_str(
        "\nPlots: `bg-fig7a.svg` (normalised delay), `bg-fig7b.svg` (normalised active \
         micro-flows). Differences from the paper: this simulator's NewReno, RFC 6817 LEDBAT and \
         TCP-LP instead of ns-2's modules. At an overloaded load nothing is stationary: \
         backlogs, short-flow delays and the adaptive M grow with the run's length, so every \
         number there depends on it (`long-runs-40000s-bounded-loop/` and `creep-diagnosis/` \
         are of an adaptive loop without the sequential test).\n",
    );
    s.push_str(crate::engine::background::AT_EQUAL_CARRIED);
    s
}

/// At the top load: each access-control policy's cut of the short-flow delay against the
/// paper's 28% and LEDBAT's 10%.
fn cut_at_top_load(p: &Params, rows: &[Row]) -> String {
    let mut s = String::new();
    let top = p.loads.iter().copied().fold(f64::NAN, f64::max);
    let total = top + p.background_bps / p.rate_bps;
    let l = find(rows, "two links", top, "ledbat");
    for policy in labels(rows).iter().filter(|l| l.starts_with("access")) {
        let Some(a) = rows
            .iter()
            .filter(|r| series_label(r) == *policy)
            .min_by(|a, b| (a.rho - top).abs().total_cmp(&(b.rho - top).abs()))
        else {
            continue;
        };
        let cut = 1.0 - a.norm_delay;
        let mut line = format!(
            "- total load {:.0}% (ρ = {:.2}), {} (mean M {:.1}): delay {:.3} ± {:.3} of vanilla, a \
             cut of {:.0}% ({}; the paper: 28%): {}",
            100.0 * total,
            a.rho,
            a.label,
            a.mean_m,
            a.norm_delay,
            a.norm_delay_ci95,
            100.0 * cut,
            vs_vanilla(a),
            if cut >= 0.28 {
                "at least the paper's 28%"
            } else {
                "LESS than the paper's 28%"
            }
        );
        if let Some(l) = l {
            let beyond = a.norm_delay + a.norm_delay_ci95 < l.norm_delay - l.norm_delay_ci95;
            line.push_str(&format!(
                "; LEDBAT {:.3} ± {:.3} (a cut of {:.0}%, the paper: 10%; background goodput / \
                 arrived {:.3} ± {:.3}): access control {}",
                l.norm_delay,
                l.norm_delay_ci95,
                100.0 * (1.0 - l.norm_delay),
                l.bg_throughput_vs_arrived,
                l.bg_vs_arrived_ci95,
                if beyond {
                    "cuts more, beyond both intervals"
                } else if a.norm_delay < l.norm_delay {
                    "cuts more on the mean, within the intervals' overlap"
                } else {
                    "does NOT cut more"
                }
            ));
        }
        line.push_str(&format!("; background goodput / arrived {}", bg_flag(a)));
        s.push_str(&line);
        s.push('\n');
    }
    s
}
