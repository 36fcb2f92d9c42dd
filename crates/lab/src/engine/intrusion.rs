//! Non-intrusiveness of a configuration: its distance to plain TCP on the same sample path,
//! the core's overhead and invariant counters, and the competitor's ratio plot.

use crate::engine::packet::{Cfg, RunOut};
use crate::engine::verdict::{Interval, Rule, Source, Verdict};
use crate::plot::{render_svg, LinePlot, Series};
use crate::Context;
use flowsim::compare::mean;
use serde::Serialize;

/// Non-intrusiveness and overhead of one configuration, over all runs.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Intrusion {
    pub label: String,
    pub runs: usize,
    pub runs_identical_to_tcp: usize,
    pub max_rel_diff_aggregate: f64,
    pub mean_max_rel_diff_aggregate: f64,
    pub mean_conn_rel_diff: f64,
    pub max_conn_rel_diff: f64,
    pub injected_bytes_ratio: f64,
    pub header_overhead: f64,
    pub reverse_bytes_per_payload: f64,
    pub late_frames: u64,
    pub invariant_checked: u64,
    pub invariant_violations: u64,
    pub protocol_errors: u64,
    pub api_errors: u64,
    pub payload_mismatches: u64,
    pub preempted_bytes: u64,
    pub duplicate_bytes: u64,
    pub padding_bytes: u64,
    pub mean_active_conns: f64,
    pub drops: u64,
    pub retransmits: u64,
    pub timeouts: u64,
}

pub(crate) fn intrusion(cfg: &Cfg, runs: &[RunOut]) -> Intrusion {
    let d: Vec<_> = runs.iter().filter_map(|r| r.distance).collect();
    let g: Vec<_> = runs.iter().filter_map(|r| r.gtcp).collect();
    let sum = |f: fn(&sim::driver::GtcpStats) -> u64| g.iter().map(f).sum::<u64>();
    let payload = sum(|x| x.payload_bytes);
    let (rb, ob): (u64, u64) = d.iter().fold((0, 0), |(a, b), x| {
        (a + x.reference_bytes, b + x.other_bytes)
    });
    Intrusion {
        label: cfg.label.clone(),
        runs: runs.len(),
        runs_identical_to_tcp: d.iter().filter(|x| x.identical).count(),
        max_rel_diff_aggregate: d.iter().map(|x| x.max_rel_diff).fold(0.0, f64::max),
        mean_max_rel_diff_aggregate: mean(&d.iter().map(|x| x.max_rel_diff).collect::<Vec<_>>()),
        mean_conn_rel_diff: mean(&d.iter().map(|x| x.conn_rel_diff_mean).collect::<Vec<_>>()),
        max_conn_rel_diff: d.iter().map(|x| x.conn_rel_diff_max).fold(0.0, f64::max),
        injected_bytes_ratio: if rb > 0 { ob as f64 / rb as f64 } else { 1.0 },
        header_overhead: sum(|x| x.header_bytes) as f64 / payload.max(1) as f64,
        reverse_bytes_per_payload: sum(|x| x.reverse_bytes) as f64 / payload.max(1) as f64,
        late_frames: sum(|x| x.late_frames),
        invariant_checked: sum(|x| x.invariant_checked),
        invariant_violations: sum(|x| x.invariant_violations),
        protocol_errors: sum(|x| x.protocol_errors),
        api_errors: sum(|x| x.api_errors),
        payload_mismatches: sum(|x| x.payload_mismatches),
        preempted_bytes: sum(|x| x.preempted_bytes),
        duplicate_bytes: sum(|x| x.duplicate_bytes),
        padding_bytes: sum(|x| x.padding_bytes),
        mean_active_conns: mean(&runs.iter().map(|r| r.mean_active_conns).collect::<Vec<_>>()),
        drops: runs.iter().map(|r| r.drops).sum(),
        retransmits: runs.iter().map(|r| r.retransmits).sum(),
        timeouts: runs.iter().map(|r| r.timeouts).sum(),
    }
}

/// The competitor's ratio to the reference, per run (dots, `(configuration, ratio)`) and
/// mean (markers) by configuration, with the `±goal` band.
pub(crate) fn ratio_plot(
    ctx: &Context,
    labels: &[String],
    per_run: &[(usize, f64)],
    means: &[f64],
    goal: f64,
    file: &str,
) -> anyhow::Result<()> {
    let x = |k: usize| (k + 1) as f64;
    let mut series = vec![
        Series::dots("per run", per_run.iter().map(|&(k, r)| (x(k), r)).collect()),
        Series::markers(
            "mean",
            means.iter().enumerate().map(|(k, &m)| (x(k), m)).collect(),
        ),
    ];
    for b in [1.0 - goal, 1.0 + goal] {
        series.push(Series::dashed(
            format!("goal {b:.2}"),
            vec![(0.5, b), (labels.len() as f64 + 0.5, b)],
        ));
    }
    render_svg(
        &LinePlot {
            title: format!(
                "Competitor's bytes / under the tunnel's tcp policy; x: {}",
                labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| format!("{} = {l}", i + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            x_label: "configuration".into(),
            y_label: "competitor bytes / under tcp policy".into(),
            series,
            ..Default::default()
        },
        &ctx.path(file),
    )
}

/// The claim of non-intrusiveness for one policy: the competitor's bytes over its bytes beside
/// the tunnel's `tcp` policy, `mean ± half` (95%), within `1 ± goal`; `ours` is column
/// `competitor_ratio_mean` of `file`'s row where `key` is `value`.
pub(crate) fn competitor_verdict(
    claim: String,
    (mean, half): (f64, f64),
    goal: f64,
    file: &str,
    (key, value): (&str, &str),
) -> Verdict {
    Verdict::new(
        claim,
        None,
        Interval::new(mean, half),
        Rule::Goal {
            lo: 1.0 - goal,
            hi: 1.0 + goal,
        },
    )
    .from(Source::new(file, "competitor_ratio_mean", &[(key, value)]))
}
