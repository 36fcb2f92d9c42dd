//! Paper 004's mechanisms compared at equal throughput: each mechanism's short-flow delay
//! against the background's carried fraction (its goodput over the load that arrived), as a
//! frontier over the mechanism's parameter (access control's M, LEDBAT's target delay), and a
//! point compared with a frontier at the point's carried fraction.
//!
//! The frontier of a mechanism is the piecewise-linear curve through its parameter values'
//! mean (carried fraction, delay) points, in parameter order. Read at a carried fraction `c`,
//! it is interpolated between the first two adjacent parameter values whose mean carried
//! fractions bracket `c`, with weight `w` on the second; the same weights applied to each
//! repeat's delays of those two values give that repeat's frontier delay, so a point's delay
//! over the frontier's is paired by repeat (the same seed gives the same arrivals under every
//! mechanism) and its 95% interval is Student's t over the repeats. The interval holds the
//! delays' noise, not that of where `c` falls (the weights are taken as known). A carried
//! fraction outside the frontier's range is not extrapolated.

use super::RunOut;
use crate::engine::verdict::Interval;
use serde::{Deserialize, Serialize};

/// What one run contributes to a frontier.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(crate) struct FrontierRun {
    /// Background goodput after the warm-up over the background payload that arrived after
    /// it (all classes).
    pub carried: f64,
    /// Mean delay of the measured short flows, seconds (unfinished ones with their time in
    /// the system at the end).
    pub delay_s: f64,
    /// The same over the short flows of at least `large_from` bytes (NaN if none).
    pub delay_large_s: f64,
    /// Short flows measured, and those of them at least `large_from` bytes.
    pub flows: usize,
    pub large_flows: usize,
    /// Short flows unfinished at the end.
    pub censored: usize,
    /// Time-average of M summed over the classes (access control), else NaN.
    pub mean_m: f64,
}

impl FrontierRun {
    /// The frontier's numbers of a run; `large_from` is the size from which a short flow
    /// counts as large.
    pub fn of(out: &RunOut, large_from: u64) -> Self {
        let rate: f64 = out.bg_rate_bps.iter().sum();
        let arrived: f64 = out.bg_arrived_bps.iter().sum();
        let large: Vec<f64> = out
            .short
            .iter()
            .filter(|s| s.1 >= large_from)
            .map(|s| s.2)
            .collect();
        let m: f64 = out.mean_m.iter().sum();
        Self {
            carried: if arrived > 0.0 {
                rate / arrived
            } else {
                f64::NAN
            },
            delay_s: out.mean_delay(None),
            delay_large_s: super::mean(&large),
            flows: out.short.len(),
            large_flows: large.len(),
            censored: out.censored,
            mean_m: m,
        }
    }
}

/// One value of a mechanism's parameter: per repeat, its carried fraction and delay.
#[derive(Debug, Clone)]
pub(crate) struct Point {
    pub carried: Vec<f64>,
    pub delay: Vec<f64>,
}

impl Point {
    pub fn mean_carried(&self) -> f64 {
        super::mean(&self.carried)
    }
}

/// A frontier read at a carried fraction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reading {
    /// The two adjacent points (indices into the frontier) and the weight on the second.
    pub lo: usize,
    pub hi: usize,
    pub w: f64,
}

/// Where the frontier `points` (in parameter order) reaches the carried fraction `c` on its
/// mean curve: the first adjacent pair whose mean carried fractions bracket `c`; `None` when
/// `c` is outside every pair (no extrapolation) or not finite.
pub(crate) fn read_at(points: &[Point], c: f64) -> Option<Reading> {
    if !c.is_finite() {
        return None;
    }
    points.windows(2).enumerate().find_map(|(i, pair)| {
        let (a, b) = (pair[0].mean_carried(), pair[1].mean_carried());
        if !(a.min(b) <= c && c <= a.max(b)) {
            return None;
        }
        let w = if b == a { 0.0 } else { (c - a) / (b - a) };
        Some(Reading {
            lo: i,
            hi: i + 1,
            w,
        })
    })
}

/// The frontier's delay per repeat at `reading`: the same weights on each repeat's delays.
pub(crate) fn delays_at(points: &[Point], r: Reading) -> Vec<f64> {
    points[r.lo]
        .delay
        .iter()
        .zip(&points[r.hi].delay)
        .map(|(a, b)| (1.0 - r.w) * a + r.w * b)
        .collect()
}

/// `delay` over the frontier's delay at `reading`, paired by repeat: mean and 95% interval
/// (repeats where either delay is not positive and finite are left out).
pub(crate) fn ratio_at(delay: &[f64], points: &[Point], r: Reading) -> Interval {
    let ratios: Vec<f64> = delay
        .iter()
        .zip(delays_at(points, r))
        .filter(|(d, f)| d.is_finite() && f.is_finite() && *f > 0.0)
        .map(|(d, f)| d / f)
        .collect();
    Interval::of(&ratios)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(_param: f64, carried: &[f64], delay: &[f64]) -> Point {
        Point {
            carried: carried.to_vec(),
            delay: delay.to_vec(),
        }
    }

    /// A frontier of M = 1, 2, 4 carrying 0.5, 0.8, 1.0 of the arrivals: read at 0.85 it is
    /// a quarter of the way from M = 2 to M = 4, on each repeat's delays; outside 0.5..1.0 it has no
    /// reading; a point with the frontier's delays there is at ratio 1 exactly.
    #[test]
    fn a_frontier_is_read_between_the_two_values_that_bracket_the_fraction() {
        let f = vec![
            point(1.0, &[0.5, 0.5], &[1.0, 2.0]),
            point(2.0, &[0.8, 0.8], &[3.0, 4.0]),
            point(4.0, &[1.0, 1.0], &[5.0, 8.0]),
        ];
        let r = read_at(&f, 0.85).unwrap();
        assert_eq!((r.lo, r.hi), (1, 2));
        assert!((r.w - 0.25).abs() < 1e-12);
        let at = delays_at(&f, r);
        assert!(
            (at[0] - 3.5).abs() < 1e-12 && (at[1] - 5.0).abs() < 1e-12,
            "{at:?}"
        );
        let i = ratio_at(&[3.5, 5.0], &f, r);
        assert!((i.mean - 1.0).abs() < 1e-12 && i.half.abs() < 1e-12);
        let i = ratio_at(&[1.75, 2.5], &f, r);
        assert!((i.mean - 0.5).abs() < 1e-12);
        assert_eq!(read_at(&f, 0.5).map(|r| (r.lo, r.w)), Some((0, 0.0)));
        assert!(read_at(&f, 0.49).is_none());
        assert!(read_at(&f, 1.01).is_none());
        assert!(read_at(&f, f64::NAN).is_none());
        // A frontier that turns back (noise) is read on its first crossing.
        let back = vec![
            point(1.0, &[0.5], &[1.0]),
            point(2.0, &[0.9], &[2.0]),
            point(4.0, &[0.7], &[3.0]),
        ];
        assert_eq!(read_at(&back, 0.8).map(|r| r.lo), Some(0));
    }

    /// The carried fraction is goodput over arrivals, summed over the classes; large flows
    /// are those of at least the given size.
    #[test]
    fn a_run_gives_its_carried_fraction_and_delays() {
        let out = RunOut {
            short: vec![(0, 100, 1.0), (0, 2_000_000, 5.0), (1, 1_000_000, 3.0)],
            bg_rate_bps: vec![1.0, 2.0],
            bg_arrived_bps: vec![2.0, 2.0],
            mean_m: vec![3.0, 4.0],
            ..RunOut::default()
        };
        let f = FrontierRun::of(&out, 1_000_000);
        assert!((f.carried - 0.75).abs() < 1e-12);
        assert!((f.delay_s - 3.0).abs() < 1e-12);
        assert!((f.delay_large_s - 4.0).abs() < 1e-12);
        assert_eq!((f.flows, f.large_flows), (3, 2));
        assert_eq!(f.mean_m, 7.0);
    }
}
