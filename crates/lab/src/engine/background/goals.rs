//! The goals paper 004's Section IV figures are read against: a normalised delay against
//! vanilla, and "with one long flow above 60% load access control is never worse than
//! vanilla".

use super::{bg_within_interval, labels, series_label, Row};
use crate::engine::says;
use crate::engine::verdict::{Interval, Rule, Source, Verdict, Word, DIFFERENCE};

/// The verdict on a row's short-flow delay against vanilla's on the same sample paths:
/// delay / vanilla's − 1, paired by repeat, against 0. `paper` says what the paper claims
/// for the row, if anything.
pub(crate) fn delay_verdict(r: &Row, paper: Option<&str>) -> Verdict {
    Verdict::new(
        format!(
            "{} ρ = {:.2} {}: short-flow delay / vanilla's − 1",
            r.group, r.rho, r.label
        ),
        paper,
        Interval::new(r.norm_delay - 1.0, r.norm_delay_ci95),
        DIFFERENCE,
    )
}

/// Verdicts of every row but vanilla's (the reference), `paper` giving the paper's claim;
/// the rows are in the CSV file `file`.
pub(crate) fn delay_verdicts(
    rows: &[Row],
    file: &str,
    paper: impl Fn(&Row) -> Option<&'static str>,
) -> Vec<Verdict> {
    rows.iter()
        .filter(|r| r.policy != "vanilla")
        .map(|r| {
            // The CSV writer prints a float as serde_json does (shortest round trip).
            let rho = serde_json::to_string(&r.rho).unwrap_or_default();
            delay_verdict(r, paper(r)).from(
                Source::new(
                    file,
                    "norm_delay",
                    &[("group", &r.group), ("rho", &rho), ("label", &r.label)],
                )
                .scaled(1.0, -1.0),
            )
        })
        .collect()
}

/// The goal on the background's carried load: its goodput over the load that arrived within
/// 5% of 1, over the whole 95% interval over the repeats.
pub(crate) const CARRIED: Rule = Rule::Goal { lo: 0.95, hi: 1.05 };

/// The verdict on a row's background goodput over its arrivals against [`CARRIED`].
pub(crate) fn carried_verdict(r: &Row) -> Verdict {
    Verdict::new(
        format!(
            "{} ρ = {:.2} {}: background goodput / arrived load",
            r.group, r.rho, r.label
        ),
        Some("access control carries the background's load (Section IV)"),
        Interval::new(r.bg_throughput_vs_arrived, r.bg_vs_arrived_ci95),
        CARRIED,
    )
}

/// Verdicts on the carried load of every access-control row of `rows` at a load the links
/// carry (not [`super::overloaded`] under vanilla: there no policy carries every class's
/// load, and the goal does not apply); the rows are in the CSV file `file`.
pub(crate) fn carried_verdicts(rows: &[Row], file: &str) -> Vec<Verdict> {
    let all: Vec<&Row> = rows
        .iter()
        .filter(|r| r.policy.starts_with("access"))
        .collect();
    super::carried_check(rows, &all)
        .feasible
        .into_iter()
        .map(|r| {
            let rho = serde_json::to_string(&r.rho).unwrap_or_default();
            carried_verdict(r).from(Source::new(
                file,
                "bg_throughput_vs_arrived",
                &[("group", &r.group), ("rho", &rho), ("label", &r.label)],
            ))
        })
        .collect()
}

/// The words of [`delay_verdict`].
pub(crate) fn vs_vanilla(r: &Row) -> String {
    says(
        delay_verdict(r, None).word,
        "lower than vanilla",
        "higher than vanilla",
    )
}

/// The line that introduces [`never_worse`]'s goal lines.
pub(crate) fn never_worse_header() -> String {
    "Goal: with one long flow above 60% load access control is never worse than vanilla \
     (higher than vanilla beyond the 95% interval at no load ≥ 0.6).\n\n"
        .to_string()
}

/// The goal "with one long flow above 60% load access control is never worse than vanilla"
/// over the rows of `group` with ρ ≥ 0.6: per access-control variant, its worst load and
/// whether any load is higher than vanilla beyond the interval.
pub(crate) fn never_worse(rows: &[Row], group: &str) -> String {
    let mut s = String::new();
    for label in labels(rows).iter().filter(|l| l.starts_with("access")) {
        let v: Vec<&Row> = rows
            .iter()
            .filter(|r| r.group == group && r.rho >= 0.6 - 1e-9 && series_label(r) == *label)
            .collect();
        let Some(worst) = v
            .iter()
            .max_by(|a, b| a.norm_delay.total_cmp(&b.norm_delay))
        else {
            continue;
        };
        let worse = v
            .iter()
            .filter(|r| delay_verdict(r, None).word == Word::Higher)
            .count();
        let carried = v.iter().all(|r| bg_within_interval(r));
        s.push_str(&format!(
            "- **goal, {group}, ρ ≥ 0.6, {label}**: {} (per load: {}; worst ρ = {:.2}: {:.3} ± \
             {:.3}); background carried within 5%, beyond the interval, at every such load: {}\n",
            if worse == 0 {
                "never worse than vanilla beyond the interval — goal met"
            } else {
                "WORSE than vanilla beyond the interval at some load — goal NOT met"
            },
            v.iter()
                .map(|r| format!(
                    "{:.2}: {:.3} ± {:.3}",
                    r.rho, r.norm_delay, r.norm_delay_ci95
                ))
                .collect::<Vec<_>>()
                .join(", "),
            worst.rho,
            worst.norm_delay,
            worst.norm_delay_ci95,
            if carried { "yes" } else { "NO" },
        ));
    }
    s
}
