//! Verdicts: a claim, the paper's value, ours with its 95% interval, the rule it is judged
//! by, and the word the rule gives — one function ([`judge`]) decides every word, so an
//! experiment never says "faster", "met" or "within noise" unless its interval clears the
//! goal or the reference.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A mean and the half-width of its 95% interval (NaN half-width: no interval, fewer than
/// two samples).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The estimate.
    #[serde(deserialize_with = "nan_if_null")]
    pub mean: f64,
    /// Half-width of its 95% interval.
    #[serde(deserialize_with = "nan_if_null")]
    pub half: f64,
}

/// JSON has no NaN: `serde_json` writes it as `null`, read back here as NaN.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
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
        #[serde(deserialize_with = "nan_if_null")]
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
    /// the whole interval lies above `max + margin`, else undecided. `margin` is the noise
    /// an A/A comparison shows in the same statistic (0 when there is none): a share of
    /// flows "slower" that noise alone also produces does not miss the goal.
    AtMost {
        /// The bound.
        max: f64,
        /// Noise margin above it.
        #[serde(default, deserialize_with = "nan_if_null")]
        margin: f64,
    },
    /// A one-sided goal: met when the whole interval lies at or above `min`, not met when
    /// the whole interval lies below `min − margin`, else undecided.
    AtLeast {
        /// The bound.
        min: f64,
        /// Noise margin below it.
        #[serde(default, deserialize_with = "nan_if_null")]
        margin: f64,
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
        Rule::AtMost { max, margin } => {
            if !margin.is_finite() {
                Word::Undecided
            } else if x.hi() <= max {
                Word::Met
            } else if x.lo() > max + margin {
                Word::NotMet
            } else {
                Word::Undecided
            }
        }
        Rule::AtLeast { min, margin } => {
            if !margin.is_finite() {
                Word::Undecided
            } else if x.lo() >= min {
                Word::Met
            } else if x.hi() < min - margin {
                Word::NotMet
            } else {
                Word::Undecided
            }
        }
    }
}

impl Word {
    /// A goal of several parts: met when every part is met, not met when any part is not,
    /// otherwise undecided (none at all: undecided).
    pub fn all_met(words: impl IntoIterator<Item = Word>) -> Word {
        let mut any = false;
        let mut all = true;
        for w in words {
            any = true;
            match w {
                Word::NotMet => return Word::NotMet,
                Word::Met => {}
                _ => all = false,
            }
        }
        if any && all {
            Word::Met
        } else {
            Word::Undecided
        }
    }

    /// The word in a summary: `below`/`above` for [`Word::Lower`]/[`Word::Higher`] (the
    /// experiment says what lower means: faster, fewer, smaller), the rule's own words
    /// otherwise.
    pub fn says(self, below: &str, above: &str) -> String {
        match self {
            Word::Lower => below.to_string(),
            Word::Higher => above.to_string(),
            Word::WithinNoise => "no difference beyond noise".to_string(),
            Word::Met => "met".to_string(),
            Word::NotMet => "not met".to_string(),
            Word::Undecided => "undecided".to_string(),
        }
    }
}

/// The noise margin an A/A comparison (the reference against itself) shows around
/// `reference`: the farthest its interval reaches from it.
pub fn aa_margin(aa: Interval, reference: f64) -> f64 {
    (aa.lo() - reference).abs().max((aa.hi() - reference).abs())
}

/// Where a verdict's estimate sits in the experiment's own output files: the value of
/// `column` in the one row that matches every `filter` pair, in `file` (a CSV file, or a JSON
/// file whose top-level key `rows` holds an array of objects). A test reads it back and checks
/// it against the verdict's `ours`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The file, relative to the experiment's output folder.
    pub file: String,
    /// For a JSON file: the top-level key of the array of rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<String>,
    /// The column (CSV) or key (JSON) holding the value.
    pub column: String,
    /// Column = value pairs selecting the row (values compared as text).
    #[serde(default)]
    pub filter: BTreeMap<String, String>,
    /// What `ours` is of the value read: `ours.mean = value · scale + offset`.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub scale: f64,
    /// See `scale`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: f64,
}

fn one() -> f64 {
    1.0
}

fn is_one(x: &f64) -> bool {
    *x == 1.0
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Source {
    /// The value of `column` in `file`'s row matching `filter`.
    pub fn new(file: &str, column: &str, filter: &[(&str, &str)]) -> Self {
        Self {
            file: file.to_string(),
            rows: None,
            column: column.to_string(),
            filter: filter
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            scale: 1.0,
            offset: 0.0,
        }
    }

    /// The rows are the array under `key` of a JSON file.
    pub fn in_json_array(mut self, key: &str) -> Self {
        self.rows = Some(key.to_string());
        self
    }

    /// `ours.mean = value · scale + offset`.
    pub fn scaled(mut self, scale: f64, offset: f64) -> Self {
        self.scale = scale;
        self.offset = offset;
        self
    }

    /// Reads the value back from the output folder `dir`, scaled.
    pub fn read(&self, dir: &Path) -> anyhow::Result<f64> {
        let path = dir.join(&self.file);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let rows: Vec<BTreeMap<String, String>> = match &self.rows {
            None => {
                let mut r = csv::Reader::from_reader(text.as_bytes());
                r.deserialize()
                    .collect::<Result<_, _>>()
                    .with_context(|| format!("parsing {}", path.display()))?
            }
            Some(key) => {
                let v: serde_json::Value = serde_json::from_str(&text)
                    .with_context(|| format!("parsing {}", path.display()))?;
                let arr = v
                    .get(key)
                    .and_then(|a| a.as_array())
                    .with_context(|| format!("{}: no array `{key}`", path.display()))?;
                arr.iter()
                    .filter_map(|o| o.as_object())
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| {
                                let t = match v {
                                    serde_json::Value::String(s) => s.clone(),
                                    other => other.to_string(),
                                };
                                (k.clone(), t)
                            })
                            .collect()
                    })
                    .collect()
            }
        };
        let hits: Vec<&BTreeMap<String, String>> = rows
            .iter()
            .filter(|r| self.filter.iter().all(|(k, v)| r.get(k) == Some(v)))
            .collect();
        anyhow::ensure!(
            hits.len() == 1,
            "{}: {} rows match {:?} (want one)",
            path.display(),
            hits.len(),
            self.filter
        );
        let cell = hits[0]
            .get(&self.column)
            .with_context(|| format!("{}: no column `{}`", path.display(), self.column))?;
        let x: f64 = cell.trim().parse().with_context(|| {
            format!(
                "{}: `{}` = {cell:?} is not a number",
                path.display(),
                self.column
            )
        })?;
        Ok(x * self.scale + self.offset)
    }
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
    /// Where `ours` is in the experiment's output files, if it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
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
            source: None,
        }
    }

    /// Points at where `ours` is in the output files.
    pub fn from(mut self, source: Source) -> Self {
        self.source = Some(source);
        self
    }

    /// What the verdict's own numbers contradict, if anything: the word against the rule,
    /// and `ours` against its source in the output folder `dir`.
    pub fn contradictions(&self, dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let w = judge(self.ours, self.rule);
        if w != self.word {
            out.push(format!(
                "{}: says {:?}, but {:?} by its rule gives {w:?}",
                self.claim, self.word, self.ours
            ));
        }
        if let Some(s) = &self.source {
            match s.read(dir) {
                Ok(x) => {
                    let tol = 1e-9 * x.abs().max(self.ours.mean.abs()).max(1.0);
                    if (x - self.ours.mean).abs() > tol {
                        out.push(format!(
                            "{}: ours is {}, but {} `{}` gives {x}",
                            self.claim, self.ours.mean, s.file, s.column
                        ));
                    }
                }
                Err(e) => out.push(format!("{}: {e:#}", self.claim)),
            }
        }
        out
    }
}

/// Checks every verdict of the output folder `dir`'s `verdicts.json` against its own data
/// ([`Verdict::contradictions`]); returns how many verdicts it holds and what contradicts.
pub fn check_folder(dir: &Path) -> anyhow::Result<(usize, Vec<String>)> {
    let path = dir.join("verdicts.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let vs: Vec<Verdict> =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let bad = vs.iter().flat_map(|v| v.contradictions(dir)).collect();
    Ok((vs.len(), bad))
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
        let at_most = Rule::AtMost {
            max: 1.0,
            margin: 0.0,
        };
        assert_eq!(judge(Interval::new(0.9, 0.05), at_most), Word::Met);
        assert_eq!(judge(Interval::new(0.9, 0.2), at_most), Word::Undecided);
        assert_eq!(judge(Interval::new(1.2, 0.1), at_most), Word::NotMet);
        let at_least = Rule::AtLeast {
            min: 0.65,
            margin: 0.0,
        };
        assert_eq!(judge(Interval::new(0.7, 0.04), at_least), Word::Met);
        assert_eq!(judge(Interval::new(0.7, 0.1), at_least), Word::Undecided);
        assert_eq!(judge(Interval::new(0.5, 0.1), at_least), Word::NotMet);
    }

    #[test]
    fn a_verdict_without_interval_reads_back_undecided() {
        let v = Verdict::new("one run", None, Interval::new(0.5, f64::NAN), DIFF);
        let text = serde_json::to_string(&v).expect("serialise");
        let back: Verdict = serde_json::from_str(&text).expect("parse");
        assert!(back.ours.half.is_nan());
        assert_eq!(judge(back.ours, back.rule), Word::Undecided);
        assert_eq!(back.word, Word::Undecided);
        let no_aa = Rule::AtMost {
            max: 0.01,
            margin: f64::NAN,
        };
        let v = Verdict::new("no A/A", None, Interval::new(0.5, 0.1), no_aa);
        let back: Verdict =
            serde_json::from_str(&serde_json::to_string(&v).expect("serialise")).expect("parse");
        assert_eq!(judge(back.ours, back.rule), Word::Undecided);
    }

    #[test]
    fn a_noise_margin_keeps_a_goal_missed_by_noise_alone_undecided() {
        // 6% ± 4.7% of flows slower against a goal of at most 1%: not met with no noise,
        // undecided when an A/A comparison shows 8% "slower" from noise alone.
        let x = Interval::new(0.06, 0.047);
        let goal = |margin| Rule::AtMost { max: 0.01, margin };
        assert_eq!(judge(x, goal(0.0)), Word::NotMet);
        assert_eq!(judge(x, goal(0.08)), Word::Undecided);
        assert_eq!(judge(x, goal(f64::NAN)), Word::Undecided);
    }

    #[test]
    fn a_verdict_whose_word_its_interval_contradicts_is_caught() {
        let dir = std::env::temp_dir().join(format!("verdict-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("t.csv"), "policy,ratio\ntcp,1.0\nsrpt,1.0031\n").expect("write");
        let goal = Rule::Goal { lo: 0.97, hi: 1.03 };
        let ok = Verdict::new("srpt / tcp", None, Interval::new(1.0031, 0.0321), goal)
            .from(Source::new("t.csv", "ratio", &[("policy", "srpt")]));
        assert_eq!(ok.word, Word::Undecided);
        assert!(ok.contradictions(&dir).is_empty());
        let mut said_met = ok.clone();
        said_met.word = Word::Met;
        assert_eq!(said_met.contradictions(&dir).len(), 1);
        let mut other_number = ok.clone();
        other_number.ours.mean = 1.0005;
        assert_eq!(other_number.contradictions(&dir).len(), 1);
        let mut no_row = ok;
        no_row.source = Some(Source::new("t.csv", "ratio", &[("policy", "fair")]));
        assert_eq!(no_row.contradictions(&dir).len(), 1);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_aa_margin_is_the_farthest_reach_of_its_interval() {
        assert!((aa_margin(Interval::new(1.02, 0.05), 1.0) - 0.07).abs() < 1e-12);
    }
}
