//! A ratio measured over repeats (a policy's mean completion time over tcp's, one build's
//! throughput over another's) with its 95% interval, and its verdict against 1 beyond a noise
//! margin ([`super::verdict::judge`]): the demo's tables and `schedtcp throughput`'s summary.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// A mean over independent repeats and the half-width of its 95% Student-t interval (NaN
/// with fewer than two repeats).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub mean: f64,
    pub half: f64,
    pub n: usize,
}

impl Interval {
    /// The interval of `values` (one per repeat).
    pub fn of(values: &[f64]) -> Self {
        let (mean, half) = super::mean_ci(values);
        Self {
            mean,
            half,
            n: values.len(),
        }
    }

    /// `Σ b / Σ a` over paired values `(a, b)` (one pair per flow), with the half-width of a
    /// 95% interval from a bootstrap over the pairs (1.96 standard errors of 2000 resamples;
    /// a fixed seed, so the same data give the same interval).
    pub fn bootstrap_ratio(pairs: &[(f64, f64)]) -> Self {
        let ratio = |it: &mut dyn Iterator<Item = (f64, f64)>| {
            let (sa, sb) = it.fold((0.0, 0.0), |(x, y), (a, b)| (x + a, y + b));
            sb / sa
        };
        let mean = ratio(&mut pairs.iter().copied());
        if pairs.len() < 2 {
            return Self {
                mean,
                half: f64::NAN,
                n: pairs.len(),
            };
        }
        let mut rng = StdRng::seed_from_u64(1);
        let draws: Vec<f64> = (0..2000)
            .map(|_| ratio(&mut (0..pairs.len()).map(|_| pairs[rng.random_range(0..pairs.len())])))
            .collect();
        let m = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (draws.len() - 1) as f64;
        Self {
            mean,
            half: 1.96 * var.sqrt(),
            n: pairs.len(),
        }
    }

    pub fn lo(&self) -> f64 {
        self.mean - self.half
    }

    pub fn hi(&self) -> f64 {
        self.mean + self.half
    }

    /// `0.62 ±0.04`.
    pub(crate) fn show(&self, d: usize) -> String {
        if !self.mean.is_finite() {
            "—".into()
        } else if self.half.is_finite() {
            format!("{:.*} ±{:.*}", d, self.mean, d, self.half)
        } else {
            format!("{:.*}", d, self.mean)
        }
    }
}

/// How a policy's mean completion time compares with `tcp`'s, beyond the noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole 95% interval of the ratio lies below `1 − margin`.
    Faster,
    /// The whole interval lies above `1 + margin`.
    Slower,
    /// The interval reaches into `[1 − margin, 1 + margin]`.
    WithinNoise,
    /// Fewer than two repeats or flows: no interval.
    Undecided,
    /// The A/A row itself: tcp against tcp, which sets the margin.
    Noise,
}

impl Verdict {
    /// The verdict on `ratio` (a policy's mean completion time over tcp's) beyond its interval
    /// and a noise `margin` around 1. The simulator's interval is over independent runs (the
    /// noise itself): margin 0. The testbed's is a bootstrap over the flows of the same runs,
    /// blind to what changes from one run to the next; there the margin is how far tcp
    /// against tcp itself reaches from 1 ([`Verdict::aa_margin`]).
    pub fn judge(ratio: &Interval, margin: f64) -> Self {
        use super::verdict::{judge, Interval as Ci, Rule, Word};
        let rule = Rule::Against {
            reference: 1.0,
            margin,
        };
        match judge(Ci::new(ratio.mean, ratio.half), rule) {
            Word::Lower => Self::Faster,
            Word::Higher => Self::Slower,
            Word::WithinNoise => Self::WithinNoise,
            _ => Self::Undecided,
        }
    }

    /// The noise margin an A/A comparison (tcp against tcp) shows: the farthest its interval
    /// reaches from 1.
    pub fn aa_margin(aa: &Interval) -> f64 {
        super::verdict::aa_margin(super::verdict::Interval::new(aa.mean, aa.half), 1.0)
    }

    /// The verdict in the tables' words.
    pub fn word(self) -> &'static str {
        match self {
            Self::Faster => "faster",
            Self::Slower => "slower",
            Self::WithinNoise => "within noise",
            Self::Undecided => "undecided",
            Self::Noise => "(A/A noise)",
        }
    }
}
