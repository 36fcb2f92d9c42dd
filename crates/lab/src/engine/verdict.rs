//! Verdicts: a claim, the paper's value, ours with its 95% interval, the rule it is judged
//! by, and the word the rule gives — one function ([`judge`]) decides every word, so an
//! experiment never says "faster", "met" or "within noise" unless its interval clears the
//! goal or the reference.

use serde::{Deserialize, Serialize};

/// A mean and the half-width of its 95% interval (NaN half-width: no interval, fewer than
/// two samples).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The estimate.
    pub mean: f64,
    /// Half-width of its 95% interval.
    pub half: f64,
}

impl Interval {
    /// `mean ± half`.
    pub fn new(mean: f64, half: f64) -> Self {
        Self { mean, half }
    }

    /// The Student-t interval of `values` (one per independent sample).
    pub fn of(values: &[f64]) -> Self {
        let (mean, half) = crate::engine::mean_ci(values);
        Self { mean, half }
    }

    /// Lower end.
    pub fn lo(&self) -> f64 {
        self.mean - self.half
    }

    /// Upper end.
    pub fn hi(&self) -> f64 {
        self.mean + self.half
    }

    /// Whether there is an interval at all.
    pub fn decided(&self) -> bool {
        self.mean.is_finite() && self.half.is_finite()
    }
}

/// How an interval is judged.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rule {
    /// Against a reference value (0 for a difference, 1 for a ratio) widened by a noise
    /// margin (0 when the interval is over independent runs, the A/A row's reach otherwise):
    /// [`Word::Lower`] when the whole interval lies below `reference − margin`,
    /// [`Word::Higher`] when above `reference + margin`, else [`Word::WithinNoise`].
    Against {
        /// The value "no change" gives.
        reference: f64,
        /// Noise margin around it.
        margin: f64,
    },
    /// A goal band `[lo, hi]`: [`Word::Met`] when the whole interval lies inside it,
    /// [`Word::NotMet`] when the whole interval lies outside it, else [`Word::Undecided`].
    Goal {
        /// Lower end of the band.
        lo: f64,
        /// Upper end of the band.
        hi: f64,
    },
    /// A one-sided goal: met when the whole interval lies at or below `max`, not met when
    /// the whole interval lies above it, else undecided.
    AtMost {
        /// The bound.
        max: f64,
    },
}

/// A paired difference against 0, its interval over independent samples (no margin).
pub const DIFFERENCE: Rule = Rule::Against {
    reference: 0.0,
    margin: 0.0,
};

/// What a rule says of an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Word {
    /// Below the reference beyond the noise (faster, fewer, smaller: the experiment says which).
    Lower,
    /// Above the reference beyond the noise.
    Higher,
    /// The interval reaches the reference's noise band.
    WithinNoise,
    /// The goal is met over the whole interval.
    Met,
    /// The goal is missed over the whole interval.
    NotMet,
    /// No interval (too few samples), or it straddles the goal's edge.
    Undecided,
}

/// The one rule function: what `rule` says of `x`.
pub fn judge(x: Interval, rule: Rule) -> Word {
    if !x.decided() {
        return Word::Undecided;
    }
    match rule {
        Rule::Against { reference, margin } => {
            if !margin.is_finite() {
                Word::Undecided
            } else if x.hi() < reference - margin {
                Word::Lower
            } else if x.lo() > reference + margin {
                Word::Higher
            } else {
                Word::WithinNoise
            }
        }
        Rule::Goal { lo, hi } => {
            if x.lo() >= lo && x.hi() <= hi {
                Word::Met
            } else if x.lo() > hi || x.hi() < lo {
                Word::NotMet
            } else {
                Word::Undecided
            }
        }
        Rule::AtMost { max } => {
            if x.hi() <= max {
                Word::Met
            } else if x.lo() > max {
                Word::NotMet
            } else {
                Word::Undecided
            }
        }
    }
}

/// The noise margin an A/A comparison (the reference against itself) shows around
/// `reference`: the farthest its interval reaches from it.
pub fn aa_margin(aa: Interval, reference: f64) -> f64 {
    (aa.lo() - reference).abs().max((aa.hi() - reference).abs())
}

/// One claim checked: what the paper says, what we measured, how it was judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The claim, e.g. `schedtcp/srpt: E[N] − E[N_tcp]`.
    pub claim: String,
    /// The paper's value or statement, if it gives one.
    pub paper: Option<String>,
    /// Ours, with its 95% interval.
    pub ours: Interval,
    /// The rule.
    pub rule: Rule,
    /// What the rule says.
    pub word: Word,
}

impl Verdict {
    /// Judges `ours` by `rule`.
    pub fn new(claim: impl Into<String>, paper: Option<&str>, ours: Interval, rule: Rule) -> Self {
        Self {
            claim: claim.into(),
            paper: paper.map(str::to_string),
            ours,
            rule,
            word: judge(ours, rule),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: Rule = DIFFERENCE;

    #[test]
    fn words_need_the_interval_to_clear_the_reference_or_the_goal() {
        assert_eq!(judge(Interval::new(-1.0, 0.5), DIFF), Word::Lower);
        assert_eq!(judge(Interval::new(1.0, 0.5), DIFF), Word::Higher);
        assert_eq!(judge(Interval::new(-1.0, 1.5), DIFF), Word::WithinNoise);
        assert_eq!(judge(Interval::new(-1.0, f64::NAN), DIFF), Word::Undecided);
        let margin = Rule::Against {
            reference: 1.0,
            margin: 0.1,
        };
        assert_eq!(judge(Interval::new(0.85, 0.01), margin), Word::Lower);
        assert_eq!(judge(Interval::new(0.95, 0.01), margin), Word::WithinNoise);
        let goal = Rule::Goal { lo: 0.95, hi: 1.05 };
        assert_eq!(judge(Interval::new(1.0, 0.04), goal), Word::Met);
        assert_eq!(judge(Interval::new(1.0, 0.06), goal), Word::Undecided);
        assert_eq!(judge(Interval::new(1.2, 0.1), goal), Word::NotMet);
        let at_most = Rule::AtMost { max: 1.0 };
        assert_eq!(judge(Interval::new(0.9, 0.05), at_most), Word::Met);
        assert_eq!(judge(Interval::new(0.9, 0.2), at_most), Word::Undecided);
        assert_eq!(judge(Interval::new(1.2, 0.1), at_most), Word::NotMet);
    }

    #[test]
    fn the_aa_margin_is_the_farthest_reach_of_its_interval() {
        assert!((aa_margin(Interval::new(1.02, 0.05), 1.0) - 0.07).abs() < 1e-12);
    }
}
