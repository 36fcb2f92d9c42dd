//! Repeats of one sample path and comparisons beyond their noise (paper 000, Section 6.2:
//! "each experiment is repeated 100 times and the transfer time of each flow averaged").
//!
//! A single packet-level run is chaotic: one packet dropped earlier or later reorders every
//! loss after it, and each flow's transfer time moves by seconds either way. So the Section
//! 6.2 experiments run every sample path (`seed`: the same flows, same sizes, same arrival
//! times) `repeats` times under small independent perturbations (per-packet processing
//! jitter of the hosts, `sim::scenario::Perturbation`), average each flow over the repeats,
//! and call a flow faster or slower than under `tcp` only when the difference of its two
//! means exceeds their noise: Welch's two-sample t bound at 95%,
//! `|T̄_x − T̄_tcp| > t₉₅ · sqrt(s_x²/R + s_tcp²/R)` (and the equality tolerance). The A/A
//! configuration (`tcp` under `repeats` other perturbations) goes through the same test:
//! its faster/slower shares are the rate at which noise alone passes it, printed beside
//! every comparison. Shares come with a 95% interval over the sample paths (each run's
//! share is one sample).

use crate::engine::packet::RunOut;
use crate::engine::{mean_ci, t95};
use serde::Serialize;

/// How one flow compares with its `tcp` counterpart, beyond the repeats' noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    Faster,
    Slower,
    /// Within the noise margin (or the equality tolerance).
    Undecided,
}

/// Calls flow `x` against `base` (the transfer times of its repeats): Welch's 95% bound on
/// the difference of the two means, never below `floor_s`. With a single repeat there is
/// no noise estimate and only `floor_s` separates "equal" from a difference.
pub(crate) fn call(base: &[f64], x: &[f64], floor_s: f64) -> (Call, f64) {
    let (mb, vb) = mean_var(base);
    let (mx, vx) = mean_var(x);
    let d = mx - mb;
    let noise = if base.len() >= 2 && x.len() >= 2 {
        let df = base.len() + x.len() - 2;
        t95(df) * (vb / base.len() as f64 + vx / x.len() as f64).sqrt()
    } else {
        0.0
    };
    let margin = noise.max(floor_s);
    let c = if d > margin {
        Call::Slower
    } else if d < -margin {
        Call::Faster
    } else {
        Call::Undecided
    };
    (c, d)
}

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() >= 2 {
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (m, var)
}

/// The calls of one run: `(size, call, difference of means)` per flow.
pub(crate) type RunCalls = Vec<(u64, Call, f64)>;

/// The flows of `other` called against `base` on the same sample paths: `(size, call,
/// difference of means)` per flow completed in every repeat of both, per run.
pub(crate) fn calls(base: &[RunOut], other: &[RunOut], floor_s: f64) -> Vec<RunCalls> {
    base.iter()
        .zip(other)
        .map(|(a, b)| {
            a.flows
                .iter()
                .zip(&b.flows)
                .filter_map(|(f, g)| {
                    let x: Option<Vec<f64>> = f.reps.iter().copied().collect();
                    let y: Option<Vec<f64>> = g.reps.iter().copied().collect();
                    let (x, y) = (x?, y?);
                    let (c, d) = call(&x, &y, floor_s);
                    Some((f.size, c, d))
                })
                .collect()
        })
        .collect()
}

/// The Table 2 statistics of one configuration against `tcp`, beyond the noise.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Verdicts {
    /// Flows compared (completed in every repeat of both).
    pub flows: usize,
    /// Flows left out (not completed in some repeat).
    pub left_out: usize,
    pub faster: f64,
    /// Half-width of the 95% interval of `faster` over the sample paths.
    pub faster_ci: f64,
    pub slower: f64,
    pub slower_ci: f64,
    /// Within the noise: neither faster nor slower.
    pub undecided: f64,
    /// Mean change of the transfer time among the faster / slower flows, s.
    pub mean_gain_s: Option<f64>,
    pub mean_loss_s: Option<f64>,
    /// Largest delay of a slower flow, s.
    pub max_loss_s: f64,
    /// Mean transfer time / tcp's, on the flows compared.
    pub mean_ratio: f64,
    /// `slower` minus the A/A configuration's, with the 95% interval of the paired
    /// per-run difference (NaN if there is no A/A configuration).
    pub slower_excess: f64,
    pub slower_excess_ci: f64,
}

/// Shares of `call` in each run.
fn shares(calls: &[RunCalls], which: Call) -> Vec<f64> {
    calls
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.iter().filter(|x| x.1 == which).count() as f64 / r.len() as f64)
        .collect()
}

/// `other` against `base` beyond the noise; `aa`: the A/A configuration's calls, for the
/// excess of slower flows over noise alone.
pub(crate) fn verdicts(
    base: &[RunOut],
    other: &[RunOut],
    floor_s: f64,
    aa: Option<&[RunCalls]>,
) -> Verdicts {
    let c = calls(base, other, floor_s);
    let all: Vec<&(u64, Call, f64)> = c.iter().flatten().collect();
    let n = all.len();
    let total: usize = base.iter().map(|r| r.flows.len()).sum();
    let share = |w: Call| all.iter().filter(|x| x.1 == w).count() as f64 / n.max(1) as f64;
    let mean_of = |w: Call| {
        let v: Vec<f64> = all.iter().filter(|x| x.1 == w).map(|x| x.2).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let (mut tb, mut to) = (0.0, 0.0);
    for (a, b) in base.iter().zip(other) {
        for (f, g) in a.flows.iter().zip(&b.flows) {
            if let (Some(x), Some(y)) = (f.transfer_s, g.transfer_s) {
                tb += x;
                to += y;
            }
        }
    }
    let (excess, excess_ci) = match aa {
        Some(aa) => {
            let d: Vec<f64> = shares(&c, Call::Slower)
                .iter()
                .zip(shares(aa, Call::Slower))
                .map(|(x, y)| x - y)
                .collect();
            mean_ci(&d)
        }
        None => (f64::NAN, f64::NAN),
    };
    Verdicts {
        flows: n,
        left_out: total - n,
        faster: share(Call::Faster),
        faster_ci: mean_ci(&shares(&c, Call::Faster)).1,
        slower: share(Call::Slower),
        slower_ci: mean_ci(&shares(&c, Call::Slower)).1,
        undecided: share(Call::Undecided),
        mean_gain_s: mean_of(Call::Faster),
        mean_loss_s: mean_of(Call::Slower),
        max_loss_s: all
            .iter()
            .filter(|x| x.1 == Call::Slower)
            .map(|x| x.2)
            .fold(0.0, f64::max),
        mean_ratio: to / tb.max(f64::MIN_POSITIVE),
        slower_excess: excess,
        slower_excess_ci: excess_ci,
    }
}

/// Size classes of the slower-by-size table, MB (upper edges; the last is open).
pub(crate) const SIZE_EDGES_MB: [f64; 7] = [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, f64::INFINITY];

/// Share of slower flows in each size class: `(flows, share slower)` per class.
pub(crate) fn slower_by_size(calls: &[RunCalls]) -> Vec<(usize, f64)> {
    let mut n = [0usize; SIZE_EDGES_MB.len()];
    let mut s = [0usize; SIZE_EDGES_MB.len()];
    for &(size, c, _) in calls.iter().flatten() {
        let mb = size as f64 / 1e6;
        let k = SIZE_EDGES_MB
            .iter()
            .position(|&e| mb < e)
            .unwrap_or(SIZE_EDGES_MB.len() - 1);
        n[k] += 1;
        if c == Call::Slower {
            s[k] += 1;
        }
    }
    n.iter()
        .zip(&s)
        .map(|(&n, &s)| (n, s as f64 / n.max(1) as f64))
        .collect()
}

/// Names of the size classes: `< 0.5 MB`, `0.5–1 MB`, ..., `≥ 20 MB`.
pub(crate) fn size_class_names() -> Vec<String> {
    let mut lo = 0.0;
    SIZE_EDGES_MB
        .iter()
        .map(|&hi| {
            let name = if lo == 0.0 {
                format!("< {hi} MB")
            } else if hi.is_infinite() {
                format!("≥ {lo} MB")
            } else {
                format!("{lo}–{hi} MB")
            };
            lo = hi;
            name
        })
        .collect()
}

/// A statistic of each repeat: `stat` of the repeat's `(size, transfer time)` of every
/// flow completed in it, pooled over the runs. One value per repeat.
pub(crate) fn per_repeat(runs: &[RunOut], stat: impl Fn(&[(u64, f64)]) -> f64) -> Vec<f64> {
    let r = runs
        .iter()
        .flat_map(|x| x.flows.iter().map(|f| f.reps.len()))
        .max()
        .unwrap_or(0);
    (0..r)
        .map(|k| {
            let v: Vec<(u64, f64)> = runs
                .iter()
                .flat_map(|x| {
                    x.flows
                        .iter()
                        .filter_map(move |f| f.reps.get(k).copied().flatten().map(|t| (f.size, t)))
                })
                .collect();
            stat(&v)
        })
        .collect()
}

/// Mean and 95% half-width of `a − b`, paired by repeat (repeat `k` of every configuration
/// but the A/A one runs under the same perturbation).
pub(crate) fn paired_diff(a: &[f64], b: &[f64]) -> (f64, f64) {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    mean_ci(&d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_within_the_noise_is_undecided_and_beyond_it_is_called() {
        // Noisy repeats: means 10 and 11, sd ~1.6: not beyond Welch's bound.
        let a = [8.0, 10.0, 12.0, 10.0];
        let b = [9.0, 11.0, 13.0, 11.0];
        assert_eq!(call(&a, &b, 0.001).0, Call::Undecided);
        // Tight repeats, same means: called.
        let a = [9.9, 10.0, 10.1, 10.0];
        let b = [10.9, 11.0, 11.1, 11.0];
        let (c, d) = call(&a, &b, 0.001);
        assert_eq!(c, Call::Slower);
        assert!((d - 1.0).abs() < 1e-12, "{d}");
        assert_eq!(call(&b, &a, 0.001).0, Call::Faster);
        // No variance at all: the floor decides.
        assert_eq!(
            call(&[1.0, 1.0], &[1.0005, 1.0005], 0.001).0,
            Call::Undecided
        );
        assert_eq!(call(&[1.0, 1.0], &[1.002, 1.002], 0.001).0, Call::Slower);
        // One repeat: no noise estimate, the floor decides.
        assert_eq!(call(&[1.0], &[3.0], 0.001).0, Call::Slower);
    }

    #[test]
    fn size_classes_cover_every_size() {
        let calls = vec![vec![
            (100_000, Call::Slower, 0.1),
            (700_000, Call::Faster, -0.1),
            (30_000_000, Call::Slower, 1.0),
            (30_000_001, Call::Undecided, 0.0),
        ]];
        let t = slower_by_size(&calls);
        assert_eq!(t.len(), size_class_names().len());
        assert_eq!(t[0], (1, 1.0));
        assert_eq!(t[1], (1, 0.0));
        assert_eq!(t[6], (2, 0.5));
        assert_eq!(t.iter().map(|x| x.0).sum::<usize>(), 4);
    }
}
