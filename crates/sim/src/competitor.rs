//! A long-lived plain-TCP competitor beside a scheduled workload: the measurement of
//! non-intrusiveness under load (paper 000, Proposition 1).
//!
//! gtcp promises that the pair takes exactly the share of the path plain TCP would: its
//! connections send whenever plain TCP's would, only *whose* bytes they carry changes. A
//! competitor that is not scheduled — one long plain-TCP transfer from another source through
//! the same bottleneck — then receives the same bytes whatever the tunnel's policy. If a
//! policy lets the pair's connections go idle (or busier) than plain TCP's, the competitor
//! gains (or loses) bandwidth.
//!
//! [`with_competitor`] turns a one-source scenario (any workload, any driver) into a
//! two-source one: the workload's flows stay on source 0, and source 1 carries one flow of
//! [`COMPETITOR_BYTES`] (it never finishes) that bypasses the scheduler
//! ([`crate::scenario::GtcpConfig::plain_sources`]). [`measure`] runs it and counts, over a
//! window of simulated time, the bytes the competitor's receiver got and the bytes the
//! workload's receivers got (the pair's throughput).

use crate::driver::{FlowDriver, FlowRecord, GtcpStats};
use crate::scenario::{Scenario, ScenarioError};
use crate::time::{as_secs, secs};
use crate::workload::{ListedFlow, WorkloadConfig};
use serde::Serialize;

/// The competitor's source (the workload's flows are all on source 0).
pub const COMPETITOR_SOURCE: u32 = 1;

/// The competitor's size: 1 PiB, more than any run can carry, so it is backlogged all along.
pub const COMPETITOR_BYTES: u64 = 1 << 50;

/// `base` with a competitor starting at `at_s`: `base` must have one source; its flows
/// (generated from its seed, so every driver sees the same ones) are listed explicitly on
/// source 0, the competitor is added on source 1 with the same access links, and source 1
/// bypasses the scheduler.
pub fn with_competitor(base: &Scenario, at_s: f64) -> Result<Scenario, ScenarioError> {
    if base.topology.pairs != 1 {
        return Err(ScenarioError::Invalid(format!(
            "a competitor scenario starts from one source, got {}",
            base.topology.pairs
        )));
    }
    if !(at_s.is_finite() && at_s >= 0.0 && at_s < base.duration_s) {
        return Err(ScenarioError::Invalid(format!(
            "the competitor must start in [0, duration_s), got {at_s}"
        )));
    }
    let mut src = base.flow_source()?;
    let mut flows: Vec<ListedFlow> = std::iter::from_fn(|| src.next_flow())
        .map(|f| ListedFlow {
            arrival_s: as_secs(f.arrival),
            size_bytes: f.size,
            source: 0,
        })
        .collect();
    flows.push(ListedFlow {
        arrival_s: at_s,
        size_bytes: COMPETITOR_BYTES,
        source: COMPETITOR_SOURCE,
    });
    let mut s = base.clone();
    s.topology.pairs = 2;
    s.workload = WorkloadConfig::List { flows };
    s.gtcp.plain_sources = vec![COMPETITOR_SOURCE];
    s.validate()?;
    Ok(s)
}

/// Delivered bytes so far, sampled during a run: `(t seconds, competitor, pair)`.
pub type DeliveredSeries = Vec<(f64, u64, u64)>;

/// What one run of a competitor scenario measured over its window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompetitorOutcome {
    /// Start of the window, simulated seconds.
    pub from_s: f64,
    /// End of the window.
    pub to_s: f64,
    /// Bytes the competitor's receiving application got in the window.
    pub competitor_bytes: u64,
    /// Bytes the workload's receiving applications got in the window (the pair's share).
    pub pair_bytes: u64,
    /// Workload flows that arrived before the end of the run.
    pub flows: usize,
    /// Of these, flows the destination had completely by the end of the run.
    pub completed: usize,
    /// Packets the forward bottleneck dropped (whole run).
    pub drops: u64,
    /// Counters of the gtcp drivers (`None` under `tcp`).
    pub gtcp: Option<GtcpStats>,
}

impl CompetitorOutcome {
    /// The competitor's throughput over the window, bytes per second.
    pub fn competitor_rate(&self) -> f64 {
        self.competitor_bytes as f64 / (self.to_s - self.from_s)
    }

    /// The pair's throughput over the window, bytes per second.
    pub fn pair_rate(&self) -> f64 {
        self.pair_bytes as f64 / (self.to_s - self.from_s)
    }
}

/// Runs a scenario made by [`with_competitor`] to its end (`duration_s + drain_s`) and
/// counts bytes delivered in `[from_s, to_s)` (both within the run). Also returns, every
/// `sample_s`, the competitor's and the pair's delivered bytes so far
/// (`(t, competitor, pair)`) for plots.
pub fn measure(
    s: &Scenario,
    from_s: f64,
    to_s: f64,
    sample_s: f64,
) -> Result<(CompetitorOutcome, DeliveredSeries), ScenarioError> {
    measure_flows(s, from_s, to_s, sample_s).map(|(o, series, _)| (o, series))
}

/// [`measure`], also returning the records of the workload's flows (the competitor's left
/// out), for completion times beside the competitor's share.
pub fn measure_flows(
    s: &Scenario,
    from_s: f64,
    to_s: f64,
    sample_s: f64,
) -> Result<(CompetitorOutcome, DeliveredSeries, Vec<FlowRecord>), ScenarioError> {
    let end = s.duration_s + s.drain_s;
    if !(from_s >= 0.0 && from_s < to_s && to_s <= end) {
        return Err(ScenarioError::Invalid(format!(
            "window [{from_s}, {to_s}) must lie in the run [0, {end}]"
        )));
    }
    if !(sample_s.is_finite() && sample_s > 0.0) {
        return Err(ScenarioError::Invalid(format!(
            "sample_s must be positive, got {sample_s}"
        )));
    }
    // Delivered bytes at the window's edges, taken at the first observation at or after
    // each edge: observations come every `step`, a divisor of both edges' offsets when the
    // caller picks round numbers, and at least every `sample_s`.
    let step = secs(sample_s);
    let (t_from, t_to) = (secs(from_s), secs(to_s));
    let mut series = Vec::new();
    let mut at_from: Option<(u64, u64)> = None;
    let mut at_to: Option<(u64, u64)> = None;
    let split = |d: &dyn FlowDriver| {
        let (mut comp, mut pair) = (0u64, 0u64);
        for r in d.flow_records() {
            let b = d.delivered_bytes(r.id);
            if r.source == COMPETITOR_SOURCE {
                comp += b;
            } else {
                pair += b;
            }
        }
        (comp, pair)
    };
    let report = s.run_observed(Some(step), |t, d| {
        let (c, p) = split(d);
        series.push((as_secs(t), c, p));
        if t >= t_from && at_from.is_none() {
            at_from = Some((c, p));
        }
        if t >= t_to && at_to.is_none() {
            at_to = Some((c, p));
        }
    })?;
    let (c0, p0) = at_from.unwrap_or((0, 0));
    let (c1, p1) = at_to.unwrap_or((c0, p0));
    let workload: Vec<FlowRecord> = report
        .flows
        .iter()
        .filter(|f| f.source != COMPETITOR_SOURCE)
        .copied()
        .collect();
    Ok((
        CompetitorOutcome {
            from_s,
            to_s,
            competitor_bytes: c1.saturating_sub(c0),
            pair_bytes: p1.saturating_sub(p0),
            flows: workload.len(),
            completed: workload.iter().filter(|f| f.delivered.is_some()).count(),
            drops: report.bottleneck.drops,
            gtcp: report.gtcp,
        },
        series,
        workload,
    ))
}
