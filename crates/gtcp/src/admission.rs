//! Access control of background flows (paper 004, Sections III-B and IV): at most M flows of
//! the background class are active at once; the others wait, in arrival order, outside the
//! network, their data not yet sent.
//!
//! Each active background flow is an ordinary flow on its own pool connection (plain TCP
//! underneath), so the pair stays non-intrusive; what changes is how many of them compete at
//! once. With M active flows the background class behaves as M TCP flows (equation (26):
//! `x_{n,m} = C / (n + k + min(m, M))`), and Theorem 7 shows that the delay of short flows is
//! then the same as under wTCP with weight M, provided M is the least value that keeps the
//! background backlog stable, equation (27):
//!
//! ```text
//! ρ_b / (1 − ρ) = M / (k + M)        (k long TCP flows, ρ the short flows' load,
//!                                      ρ_b the background load)
//! ```
//!
//! # The rate rules
//!
//! Neither k nor ρ is known to a server, so M is found by a slow outer loop (Section IV). The
//! background sending rate and the arrival load (arrival rate × mean size) are estimated with
//! moving averages whose memory ([`Adaptive::window`]) is much longer than a flow's life;
//! every [`Adaptive::period`] M moves by at most one step, so that the sending rate tracks
//! the arrival load:
//!
//! * **up** when more than [`Adaptive::target_waiting`] flows wait, every slot stayed busy
//!   over the period and the rate M gave falls short of the load by more than
//!   [`Adaptive::margin`] (the backlog would grow without bound);
//! * **down** when that rate exceeds the *target rate* by more than the margin (M is larger
//!   than stability needs, which costs short flows delay), where
//!
//! ```text
//! target = load + clamp((waiting − target_waiting) × mean size / window, ± 2 × rate / M)
//! ```
//!
//! Requiring a backlog for growth keeps the loop at the least M that keeps up, with "long but
//! not unstable" queues, which is where (27) holds. The backlog term (waiting flows count at
//! the estimated mean size: their data is not sent yet) is there for the load estimate's
//! noise: with few arrivals in the window the estimate swings by tens of per cent and its
//! median lies below its mean, and a standing backlog says the rate is *not* more than the
//! load whatever the estimate says. It enters the decrease rule only (in the increase rule it
//! would ask to drain the backlog within a window, which at high load takes many flows per
//! per cent of rate and overshoots (27)), and it is clamped to twice one active flow's rate,
//! about what one step of M can change, so that where steps buy little (large M, near
//! saturation) noise moves M both ways again instead of ratcheting it up. The price: at high
//! load M sits up to two or three steps above the critical value
//! (`at_high_load_the_loop_does_not_ratchet_m_up`).
//!
//! # Overload: the check that a raise pays
//!
//! By (26) the class gets `M / (k + M)` of the excess capacity when every slot is busy: the
//! rate rises with M ever more slowly. When the arrival load exceeds what the path can carry,
//! (27) has no solution, the backlog grows whatever M is, and a loop that only compares rate
//! with load raises M to [`Adaptive::max`] — the vanilla behaviour access control exists to
//! avoid. The paper's loop rests on "the sending rate is increasing in M"; this one checks it
//! on measurements:
//!
//! * the check is *engaged* while the class falls short: over `RATIO_MEMORIES` (three) memories
//!   ([`Adaptive::memory`]) it sent less than `1 −` [`Adaptive::shortfall`] of what arrived.
//!   Otherwise M moves by the rate rules alone;
//! * engaged, a raise past [`Adaptive::check_floor`] needs a *baseline* (the current M
//!   measured with every slot busy for two periods and [`Adaptive::probe`]) and goes on
//!   *trial*: M moves by one step between M − 1 and M until a sequential test
//!   (`sequential_test`) decides whether the raise lifts the busy rate by at least
//!   [`Adaptive::min_gain`]. The test takes busy periods in *adjacent pairs*, one of each
//!   side, visited M − 1, M, M, M − 1, M − 1, M, … (a steady drift cancels), on the pairs'
//!   log-rate differences: by (26) the rate moves with the number of short flows present,
//!   which changes more slowly than a period, so adjacent periods differ by several times
//!   less variance than independent ones;
//! * a raise that pays stays, and its proof outlives steps down for a memory (M comes back to
//!   a proven value without a new trial). One that does not is taken back and M may not exceed
//!   M − 1 for a memory (a *saturation*, [`Admission::saturations`], [`Admission::ceiling`]).
//!   A trial lasts at most [`Adaptive::decide_within`]; undecided, it keeps the cheaper side
//!   ([`Admission::undecided`]). A raise made while the check was not engaged goes on trial as
//!   soon as it is, so an M that grew before the shortfall showed comes back down to the last
//!   step that pays;
//! * by (26) a raise never lowers the rate, so periods that say it did (beyond the noise) were
//!   measured under other conditions and give no "useless"; a slot that a waiting flow is
//!   about to take counts as busy.
//!
//! In the fluid model of (26) the step from M − 1 to M adds `k / ((M − 1)(k + M))` of the rate,
//! so with the default `min_gain` the loop keeps the steps up to 7 with one long flow, 9 with
//! two, and measures one more (`in_overload_m_stays_bounded`). Limits: the check needs the
//! shortfall to show over its memories, so at the start of an overload M climbs by the rate
//! rules; a trial holds M (or alternates it by one step) for up to `decide_within`; the test
//! takes the pairs as independent, which in a packet network they are not quite.
//!
//! # The check's floor
//!
//! Raises up to [`Adaptive::check_floor`] (2 by default) need no proof. With x = n + k other
//! flows sharing the bottleneck, the raise from M − 1 to M multiplies the busy rate by
//! `1 + x / ((M − 1)(x + M))`: from 1 to 2 by `1 + x / (x + 2)`, short of `min_gain` only
//! while x < 0.04 — when the class has the bottleneck to itself, where the second flow delays
//! nobody. It is also the noisiest raise to prove (one flow's rate over a period is not
//! averaged with anyone's). The raise from 2 to 3 fails `min_gain` while x < 0.13, and every
//! further step widens that range, so the floor stays at the one step whose exception is a
//! path with nothing else on it. The price is in an overload with no long flow: two flows
//! where one would carry as much, and the third tried.
//!
//! # The start of a run
//!
//! Both long averages start empty, so the backlog rising to its working level reads as a
//! shortfall and the check engages within seconds, at M = 1; what tells the start from an
//! overload is whether raises pay, which is the trial's job. A loop that forgot proofs at each
//! step down, or judged a raise against a baseline measured while the network was still
//! filling, held M down at the start while the backlog grew; hence the proofs' memory and the
//! "never lowers the rate" rule above (`the_overload_check_does_not_hold_back_the_start_of_a_run`).
//!
//! Measurements of each rule (packet simulator and real-TCP testbed) and the record of the
//! alternatives tried are in `results/admission/README.md` and the folders it names
//! (`results/bg-fig5/`, `results/bg-fig7/`, `results/bg-fig8/`, `results/bg-testbed/`).
//!
//! Sans-IO: time is an argument; the [`Session`](crate::Session) owns one controller when
//! background routes are configured and tells it of arrivals, bytes sent and flow ends.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::ids::FlowId;

/// The long-run ratio of sent to arrived that engages the saturation check is taken over this
/// many [`Adaptive::memory`]s (30 min by default): shorter, and the load estimate's noise in a
/// loop that keeps up on average reads as a shortfall.
const RATIO_MEMORIES: f64 = 3.0;

/// The probability, per raise tested, of each wrong decision of the sequential test at the
/// ends of its indifference zone (a raise that lifts the rate by 2 × `min_gain` judged useless,
/// or one that lifts it by nothing judged to pay).
const SEQUENTIAL_ALPHA: f64 = 0.05;

/// A busy period's rate enters the sequential test at least at this fraction of the class's
/// sending-rate estimate (`Admission::log_rate`): below, the period's flows stalled (timeouts),
/// and the exact value says nothing more.
const STALL_FRACTION: f64 = 0.01;

/// The backlog term of the decrease rule's target rate is clamped, both ways, to this many
/// times the rate one active flow gets (see the [module documentation](self)).
const BACKLOG_SHARES: f64 = 2.0;

/// Period of the adaptive loop's clock: a driver calls [`Admission::handle_timeout`] at
/// [`Admission::poll_timeout`] (through [`Session::handle_timeout`](crate::Session::handle_timeout)
/// for a session), which lets the loop step M while no flow arrives, ends or sends. Far below
/// the loop's period (15 s), so a step comes within a second of its time.
pub const TICK: Duration = Duration::from_secs(1);

/// Default bound on waiting background flows; beyond it new ones are refused.
pub const DEFAULT_MAX_WAITING: usize = 1024;

/// How many background flows may be active.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// Always this many (at least 1).
    Fixed(u32),
    /// Found by the slow outer loop.
    Adaptive(Adaptive),
}

/// Parameters of the adaptive loop (in files, feature `serde`: the field names, durations as
/// `*_secs` in seconds, every key optional with the default below).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct Adaptive {
    /// M at the start (default 1).
    pub initial: u32,
    /// Smallest M (default 1).
    pub min: u32,
    /// Largest M (default 64).
    pub max: u32,
    /// Memory of the rate and load estimates: much longer than a flow's life (default 60 s).
    #[cfg_attr(feature = "serde", serde(rename = "window_secs", with = "crate::secs"))]
    pub window: Duration,
    /// Time between two steps of M (default 15 s), over which the sending rate under the
    /// current M is measured; each step is ±1.
    #[cfg_attr(feature = "serde", serde(rename = "period_secs", with = "crate::secs"))]
    pub period: Duration,
    /// Waiting flows the loop aims to keep (default 8): fewer, while the rate keeps up, and
    /// M is larger than stability needs.
    pub target_waiting: usize,
    /// M grows only while the sending rate falls short of the arrival load by more than this
    /// fraction, and shrinks only while it exceeds it by more (default 0.02).
    pub margin: f64,
    /// While the saturation check is engaged, a raise must lift the busy sending rate by at
    /// least this fraction, or it is taken back and M held below it for `memory` (default
    /// 0.02; 0 disables the check). See "Overload" in the [module documentation](self).
    pub min_gain: f64,
    /// Busy time an M needs before, engaged, it is raised (default 30 s, two periods): its
    /// last period is the first of the raise's trial's first pair.
    #[cfg_attr(feature = "serde", serde(rename = "probe_secs", with = "crate::secs"))]
    pub probe: Duration,
    /// How long a saturation bars growth, and the memory of the per-M rate records; the
    /// long-run ratio of sent to arrived is taken over three of it (default 600 s).
    #[cfg_attr(feature = "serde", serde(rename = "memory_secs", with = "crate::secs"))]
    pub memory: Duration,
    /// The check is engaged while, over three `memory`s, the class sent less than
    /// `1 − shortfall` of what arrived (default 0.1).
    pub shortfall: f64,
    /// Longest a raise may stay undecided by the sequential test (default 7 200 s); then the
    /// loop keeps the cheaper side, M − 1, as if the raise did not pay.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "decide_within_secs", with = "crate::secs")
    )]
    pub decide_within: Duration,
    /// The check asks no proof of raises up to this M (default 2): the rate rules alone take
    /// M there, engaged or not. By (26) the raise from 1 to 2 pays less than `min_gain` only
    /// when the class has its bottleneck to itself, where a second flow delays nobody (see
    /// "The check's floor" in the [module documentation](self)). 1 (or 0) asks a proof of
    /// every raise.
    pub check_floor: u32,
}

impl Default for Adaptive {
    fn default() -> Self {
        Adaptive {
            initial: 1,
            min: 1,
            max: 64,
            window: Duration::from_secs(60),
            period: Duration::from_secs(15),
            target_waiting: 8,
            margin: 0.02,
            min_gain: 0.02,
            probe: Duration::from_secs(30),
            memory: Duration::from_secs(600),
            shortfall: 0.1,
            decide_within: Duration::from_secs(7_200),
            check_floor: 2,
        }
    }
}

impl Adaptive {
    /// The M below which the overload check holds nothing back: [`Adaptive::check_floor`],
    /// at least [`Adaptive::min`].
    fn unchecked_up_to(&self) -> u32 {
        self.min.max(self.check_floor)
    }
}

/// Configuration of the access control. In files (feature `serde`, the tunnel's
/// `[admission]`): `fixed = M` for a fixed limit, otherwise the keys of [`Adaptive`], and
/// `max_waiting`; a configuration that [`validate`](Self::validate) refuses is refused when read.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "AdmissionKeys", into = "AdmissionKeys")
)]
pub struct AdmissionConfig {
    pub limit: Limit,
    /// Most background flows waiting at once (default [`DEFAULT_MAX_WAITING`]); a flow arriving
    /// beyond it is refused.
    pub max_waiting: usize,
}

impl Default for AdmissionConfig {
    fn default() -> Self {
        AdmissionConfig {
            limit: Limit::Adaptive(Adaptive::default()),
            max_waiting: DEFAULT_MAX_WAITING,
        }
    }
}

/// The keys of [`AdmissionConfig`] in a file: one flat table.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(default)]
struct AdmissionKeys {
    /// A fixed M (at least 1); absent: adaptive, with the keys of [`Adaptive`].
    #[serde(skip_serializing_if = "Option::is_none")]
    fixed: Option<u32>,
    max_waiting: usize,
    #[serde(flatten)]
    adaptive: Adaptive,
}

#[cfg(feature = "serde")]
impl Default for AdmissionKeys {
    fn default() -> Self {
        AdmissionConfig::default().into()
    }
}

#[cfg(feature = "serde")]
impl TryFrom<AdmissionKeys> for AdmissionConfig {
    type Error = AdmissionError;
    fn try_from(k: AdmissionKeys) -> Result<Self, AdmissionError> {
        let c = AdmissionConfig {
            limit: match k.fixed {
                Some(m) => Limit::Fixed(m),
                None => Limit::Adaptive(k.adaptive),
            },
            max_waiting: k.max_waiting,
        };
        c.validate()?;
        Ok(c)
    }
}

#[cfg(feature = "serde")]
impl From<AdmissionConfig> for AdmissionKeys {
    fn from(c: AdmissionConfig) -> Self {
        let (fixed, adaptive) = match c.limit {
            Limit::Fixed(m) => (Some(m), Adaptive::default()),
            Limit::Adaptive(a) => (None, a),
        };
        AdmissionKeys {
            fixed,
            max_waiting: c.max_waiting,
            adaptive,
        }
    }
}

/// A configuration the controller refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AdmissionError {
    #[error("fixed (the number of active background flows) must be at least 1, not 0")]
    ZeroLimit,
    #[error("min, initial and max need 1 <= min <= initial <= max, not {min}, {initial}, {max}")]
    Bounds { min: u32, initial: u32, max: u32 },
    #[error("window_secs and period_secs must be more than 0, period_secs at most window_secs")]
    Timescales,
    #[error("margin must be in [0, 1), not {0}")]
    Margin(f64),
    #[error("min_gain must be in [0, 1), not {0}")]
    MinGain(f64),
    #[error("shortfall must be in [0, 1), not {0}")]
    Shortfall(f64),
    #[error("probe_secs, memory_secs and decide_within_secs must be more than 0")]
    Saturation,
}

impl AdmissionConfig {
    pub fn validate(&self) -> Result<(), AdmissionError> {
        match self.limit {
            Limit::Fixed(0) => Err(AdmissionError::ZeroLimit),
            Limit::Fixed(_) => Ok(()),
            Limit::Adaptive(a) => {
                if a.min == 0 || a.min > a.initial || a.initial > a.max {
                    return Err(AdmissionError::Bounds {
                        min: a.min,
                        initial: a.initial,
                        max: a.max,
                    });
                }
                if a.window.is_zero() || a.period.is_zero() || a.period > a.window {
                    return Err(AdmissionError::Timescales);
                }
                if !(0.0..1.0).contains(&a.margin) {
                    return Err(AdmissionError::Margin(a.margin));
                }
                if !(0.0..1.0).contains(&a.min_gain) {
                    return Err(AdmissionError::MinGain(a.min_gain));
                }
                if !(0.0..1.0).contains(&a.shortfall) {
                    return Err(AdmissionError::Shortfall(a.shortfall));
                }
                if a.probe.is_zero() || a.memory.is_zero() || a.decide_within.is_zero() {
                    return Err(AdmissionError::Saturation);
                }
                Ok(())
            }
        }
    }
}

/// What became of an arriving background flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It may start now.
    Admitted,
    /// It waits for a slot (its position in the queue, 0 = next).
    Waiting(usize),
    /// The waiting queue is full.
    Refused,
}

/// A rate estimate with exponential memory τ: every event of `x` adds `x / τ`, and the estimate
/// decays as e^{−Δt/τ}. Its mean over a stationary process is the rate of `x` per second.
#[derive(Debug, Clone, Copy, Default)]
struct Ewma {
    value: f64,
    at: Duration,
}

impl Ewma {
    fn decay(&mut self, now: Duration, tau: f64) {
        let dt = now.saturating_sub(self.at).as_secs_f64();
        self.value *= (-dt / tau).exp();
        self.at = self.at.max(now);
    }

    fn add(&mut self, now: Duration, x: f64, tau: f64) {
        self.decay(now, tau);
        self.value += x / tau;
    }

    fn get(&self, now: Duration, tau: f64) -> f64 {
        let mut e = *self;
        e.decay(now, tau);
        e.value
    }
}

/// What one value of M gave while every slot was busy, period by period: the count of
/// periods, the sum of their rates and the busy seconds, all fading with memory τ (so that old
/// conditions are forgotten). Reported by [`Admission::busy_rate`]; the loop's decisions use
/// [`Samples`].
#[derive(Debug, Clone, Copy, Default)]
struct BusyRecord {
    n: f64,
    sum: f64,
    secs: f64,
    at: Duration,
}

impl BusyRecord {
    fn faded(&self, now: Duration, tau: f64) -> BusyRecord {
        let dt = now.saturating_sub(self.at).as_secs_f64();
        let k = (-dt / tau).exp();
        BusyRecord {
            n: self.n * k,
            sum: self.sum * k,
            secs: self.secs * k,
            at: self.at.max(now),
        }
    }

    fn add(&mut self, now: Duration, tau: f64, rate: f64, secs: f64) {
        let mut r = self.faded(now, tau);
        r.n += 1.0;
        r.sum += rate;
        r.secs += secs;
        *self = r;
    }

    fn mean(&self) -> f64 {
        self.sum / self.n
    }
}

/// Per-period busy rates of one M, on the log scale (see [`sequential_test`]), kept whole (no
/// fading): Welford's running mean and sum of squared deviations of the log-rates (the sample
/// variance is `m2 / (n − 1)`), and the busy seconds.
#[derive(Debug, Clone, Copy, Default)]
struct Samples {
    n: u32,
    mean: f64,
    m2: f64,
    secs: f64,
}

impl Samples {
    fn add(&mut self, x: f64, secs: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / f64::from(self.n);
        self.m2 += d * (x - self.mean);
        self.secs += secs;
    }
}

/// What the sequential test says of a raise from M − 1 to M.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    /// The raise surely lifts the busy rate by at least `min_gain`.
    Pays,
    /// It surely lifts it by less.
    Useless,
    /// Not yet known.
    Open,
}

/// The sequential test of one raise, from `m − 1` to `m`: busy periods taken in adjacent
/// pairs, one on each side, the sides visited in the order M, M − 1, M − 1, M, M, M − 1, …
/// (the first pair starts on the side M is on). See "Overload" in the
/// [module documentation](self).
#[derive(Debug, Clone, Copy)]
struct Trial {
    /// The raised M; the test compares it with M − 1.
    m: u32,
    /// Every busy period of each side (the record kept when the trial ends).
    lo: Samples,
    hi: Samples,
    /// `ln r_M − ln r_{M−1}` of each completed pair.
    pairs: Samples,
    /// The first period of the pair under way: its side (`true`: M) and log-rate.
    pending: Option<(bool, f64)>,
    /// Looks of the interval test so far (at 2, 4, 8, … pairs).
    looks: u32,
    started: Duration,
}

impl Trial {
    /// The trial of the raise to `m`, starting `now`; `first` is the period just measured
    /// (its side, `true` for M, its log-rate and seconds), adjacent to the trial's first
    /// period on the other side: the first of the first pair.
    fn new(m: u32, now: Duration, first: Option<(bool, f64, f64)>) -> Trial {
        let mut t = Trial {
            m,
            lo: Samples::default(),
            hi: Samples::default(),
            pairs: Samples::default(),
            pending: None,
            looks: 0,
            started: now,
        };
        if let Some((at_hi, rate, secs)) = first {
            t.add(at_hi, rate, secs);
        }
        t
    }

    /// A busy period of the side `at_hi` (`true`: M): it joins that side's record and either
    /// completes the pair under way (the pending period was of the other side) or starts one.
    /// Returns the interval test's look number when a completed pair makes the count a power
    /// of two (2, 4, 8, …).
    fn add(&mut self, at_hi: bool, rate: f64, secs: f64) -> Option<u32> {
        if at_hi {
            self.hi.add(rate, secs);
        } else {
            self.lo.add(rate, secs);
        }
        match self.pending {
            Some((first_hi, first)) if first_hi != at_hi => {
                self.pairs
                    .add(if at_hi { rate - first } else { first - rate }, 0.0);
                self.pending = None;
                (self.pairs.n >= 2 && self.pairs.n.is_power_of_two()).then(|| {
                    self.looks += 1;
                    self.looks
                })
            }
            _ => {
                self.pending = Some((at_hi, rate));
                None
            }
        }
    }
}

/// The sequential test of a raise from M − 1 to M, on `pairs`: each the difference
/// `ln r_M − ln r_{M−1}` of two adjacent busy periods, one on each side (see [`Trial`]); their
/// mean `d` estimates the logarithm of the raise's gain. Equation (26) makes the class's busy
/// rate `M C / (n + k + M)`: a raise multiplies it by
/// `(M / (M − 1)) (n + k + M − 1) / (n + k + M)`, and the noise of a packet network (the
/// number n of short flows present, their losses) multiplies it too, so on the logarithm the
/// gain is a difference of the same size at any noise level. (On the rates themselves the side
/// with the larger M had the larger variance, so a raise that doubled the rate needed about
/// twice the periods to prove.) Two adjacent periods share most of their n, which the
/// difference cancels ("Overload" in the [module documentation](self)).
///
/// With `c = ln(1 + g)` (g = `min_gain`) and `V` the variance of d, a normal d gives the
/// log-likelihood ratio of "the gain is `e^μ`" against "the raise buys nothing" (`d = 0`)
/// `λ(μ) = μ (d − μ / 2) / V`. `V` is the pairs' sample variance (n − 1) over their number,
/// so `(d − μ / 2) / se` is Student's t with `pairs − 1` degrees of freedom — valid for few
/// pairs, and not fooled by two pairs that happened to agree; it enters as the normal score
/// of the same tail probability, which shrinks the evidence while the variance is poorly
/// known. `s²`, a period's variance, is half a pair's. Two alternatives:
///
/// * the *narrow* one, `μ = 2c` (a gain of about 2g): Wald's ratio test of it against
///   "nothing" is the test of an indifference zone centred on g. Below `ln(β / (1 − α))` the
///   raise does not pay (α = β = [`SEQUENTIAL_ALPHA`]): a raise that lifts the rate by 2g or
///   more is judged useless at most β of the time;
/// * the *wide* one, `μ = 2 δ s`, scaled to the measured noise (δ from [`zone_scale`]). The
///   narrow ratio's evidence grows with `c (d − c)`, so under noise that makes `s` many times
///   c it needs hundreds of periods whatever the gain: with bg-fig7's per-period noise (rates
///   varying by about their mean, log-rates by about 0.8) a raise that doubled the rate took
///   50 min to be proven. The wide ratio grows with `δ s (d − δ s)`.
///
/// The raise pays when the mixture `(e^{λ(2c)} + e^{λ(2δs)}) / 2` reaches `(1 − α) / α`:
/// under "nothing" each ratio, so their mean, is a martingale of mean 1, so a raise that buys
/// nothing is judged to pay at most α of the time (Ville's inequality; a mixture SPRT,
/// Robbins 1970) — a noise-scaled zone centred on g would have judged a useless raise, which
/// sits near its centre, to pay about half the time, and M would creep.
/// While `δ s ≤ c` the two alternatives coincide and the test is the narrow ratio test.
/// Between the bounds the test goes on; it needs two pairs (a variance) before anything is
/// decided.
///
/// The ratio tests are slow for large gains, so at 2, 4, 8, … pairs (`look` = 1, 2, …) the t
/// interval decides too: surely above c at the one-sided level
/// `SEQUENTIAL_ALPHA / (look (look + 1))` (Student's t), which pays, or surely below, which
/// does not; these levels sum to `SEQUENTIAL_ALPHA` over all looks, so each wrong decision of
/// the tests together has probability at most 2 × [`SEQUENTIAL_ALPHA`].
///
/// "Useless" is not taken while the periods say the raise *lowered* the rate beyond the noise
/// (`d < 0` at the one-sided level α of Student's t): by (26) a raise never does, so such sides
/// were measured under different conditions (at the start of a run the baseline is taken while
/// the network fills), and the test goes on. This only removes
/// stopping points, so the error bounds above still hold; under a raise that buys nothing
/// (`d` centred on 0) it withholds a decision about α of the time.
fn sequential_test(pairs: &Samples, min_gain: f64, scale: f64, look: Option<u32>) -> Decision {
    if pairs.n < 2 {
        return Decision::Open;
    }
    let c = min_gain.ln_1p();
    let d = pairs.mean;
    let n = f64::from(pairs.n);
    // The variance of one period's log-rate, as if the two of a pair were independent: the
    // scale of the wide alternative (a pair's difference has twice it).
    let per_period = pairs.m2.max(0.0) / (n - 1.0) / 2.0;
    let v = 2.0 * per_period / n;
    if v <= 0.0 || !v.is_finite() {
        // Every pair gave the same difference: the mean is exact.
        return if d >= c {
            Decision::Pays
        } else {
            Decision::Useless
        };
    }
    let se = v.sqrt();
    let (Ok(student), Ok(normal)) = (StudentsT::new(0.0, 1.0, n - 1.0), Normal::new(0.0, 1.0))
    else {
        return Decision::Open;
    };
    // λ(μ) with Student's t in the normal score's place.
    let llr = |mu: f64| {
        let p = student.cdf((d - mu / 2.0) / se).clamp(1e-15, 1.0 - 1e-15);
        mu / se * normal.inverse_cdf(p)
    };
    let narrow = llr(2.0 * c);
    let wide = llr(2.0 * (scale * per_period.sqrt()).max(c));
    // ln((e^narrow + e^wide) / 2), without overflow.
    let top = narrow.max(wide);
    let mixture = top + (0.5 * ((narrow - top).exp() + (wide - top).exp())).ln();
    let a = SEQUENTIAL_ALPHA;
    if mixture >= ((1.0 - a) / a).ln() {
        return Decision::Pays;
    }
    // By (26) a raise never lowers the busy rate: sides that say it did, beyond the noise
    // (one-sided, level α), were measured under different conditions, and no "useless" is
    // taken from them.
    let lowered = student.cdf(d / se) <= a;
    if narrow <= (a / (1.0 - a)).ln() && !lowered {
        return Decision::Useless;
    }
    let Some(look) = look else {
        return Decision::Open;
    };
    let look = f64::from(look.max(1));
    let level = a / (look * (look + 1.0));
    let p = student.cdf((d - c) / se);
    if 1.0 - p <= level {
        Decision::Pays
    } else if p <= level && !lowered {
        Decision::Useless
    } else {
        Decision::Open
    }
}

/// The noise scale δ of [`sequential_test`]'s wide alternative, `μ = 2 δ s`: a symmetric
/// ratio test of `μ` against nothing, centred on `δ s`, is a driftless walk at its centre
/// whose variance grows by `δ²` a pair of periods (`λ` grows by `δ s (d − δ s) / s²` with `d`
/// of variance `2 s²`), so its expected length there is `A |B| / δ²` pairs (Wald's
/// approximation, `A`, `B` its bounds) — the longest it takes, in expectation, over every
/// gain. δ makes that half the pairs of periods `decide_within` holds,
/// `decide_within / (2 period)`: `δ = sqrt(2 A |B| period / decide_within)`, 0.19 with the
/// defaults (2 h, 15 s). With bg-fig7's noise (s about 0.8) the wide alternative is then a
/// gain of e^{0.30} = 1.35, where the narrow one is 1.04.
fn zone_scale(a: &Adaptive) -> f64 {
    let alpha = SEQUENTIAL_ALPHA;
    let upper = ((1.0 - alpha) / alpha).ln();
    let lower = (alpha / (1.0 - alpha)).ln().abs();
    let pairs = a.decide_within.as_secs_f64() / (2.0 * a.period.as_secs_f64());
    (upper * lower / pairs).sqrt()
}

/// The access controller of one background class. See the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Admission {
    config: AdmissionConfig,
    /// When the clock next ticks ([`Admission::poll_timeout`]).
    next_tick: Duration,
    m: u32,
    active: BTreeSet<FlowId>,
    waiting: VecDeque<FlowId>,
    /// Background bytes sent per second.
    rate: Ewma,
    /// Background bytes sent since the loop last looked: it judges M by the rate it gave.
    since_step: u64,
    /// Whether a slot was idle (fewer than M active) since the loop last looked.
    idle_since_step: bool,
    /// Whether more than M were active since the loop last looked (M was lowered and the
    /// flows above it had not finished yet): the rate then is not M's.
    crowded_since_step: bool,
    /// Background arrivals per second.
    arrivals: Ewma,
    /// Bytes and number of finished background flows (completed), with the same memory: their
    /// ratio is the mean size.
    finished_bytes: Ewma,
    finished: Ewma,
    last_step: Duration,
    /// Time since the estimates started (the loop waits one window before its first step).
    started: Option<Duration>,
    refused: u64,
    steps: u64,
    /// The busy rate each M gave ([`Adaptive::memory`]).
    busy: BTreeMap<u32, BusyRecord>,
    /// After a saturation: M may not exceed this until then.
    ceiling: Option<(u32, Duration)>,
    saturations: u64,
    /// Take-backs because the sequential test did not decide within its bound.
    undecided: u64,
    /// Busy periods of the current M since it last changed (or the side of the last trial
    /// it was decided with).
    stay: Samples,
    /// The raise being tested, while the check is engaged.
    trial: Option<Trial>,
    /// The largest M whose raise is proven (or M's minimum): while the check is engaged, a
    /// larger M (reached by raises made while it was not) has its last raise tested. Read
    /// with the check's floor applied ([`Adaptive::check_floor`]), in `adapt` only.
    verified: u32,
    /// Until when the last proof holds: till then `verified` outlives steps down by the rate
    /// rules and the check's disengaging, so a raise back to a proven M is not tried again
    /// (see "Overload" in the [module documentation](self)).
    proven_until: Option<Duration>,
    /// The same estimates with the memory of [`Adaptive::memory`]: sent bytes, arrivals,
    /// finished bytes and flows. Their ratio says whether the class keeps up over the long run.
    long: [Ewma; 4],
}

impl Admission {
    pub fn new(config: AdmissionConfig) -> Result<Self, AdmissionError> {
        config.validate()?;
        let m = match config.limit {
            Limit::Fixed(m) => m,
            Limit::Adaptive(a) => a.initial,
        };
        Ok(Admission {
            config,
            m,
            active: BTreeSet::new(),
            waiting: VecDeque::new(),
            rate: Ewma::default(),
            since_step: 0,
            idle_since_step: false,
            crowded_since_step: false,
            arrivals: Ewma::default(),
            finished_bytes: Ewma::default(),
            finished: Ewma::default(),
            last_step: Duration::ZERO,
            started: None,
            refused: 0,
            steps: 0,
            busy: BTreeMap::new(),
            ceiling: None,
            saturations: 0,
            undecided: 0,
            stay: Samples::default(),
            trial: None,
            verified: m,
            proven_until: None,
            long: [Ewma::default(); 4],
            next_tick: TICK,
        })
    }

    pub fn config(&self) -> &AdmissionConfig {
        &self.config
    }

    /// The current M.
    pub fn limit(&self) -> u32 {
        self.m
    }

    pub fn active(&self) -> usize {
        self.active.len()
    }

    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Slots the waiting queue holds room for (`Session::queue_room`).
    pub(crate) fn waiting_room(&self) -> usize {
        self.waiting.capacity()
    }

    /// Flows refused because the waiting queue was full.
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// Times M changed.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Times the loop found its last raise bought no rate and took it back (overload: the
    /// rate saturates; see the [module documentation](self)).
    pub fn saturations(&self) -> u64 {
        self.saturations
    }

    /// Saturations that were the sequential test's bound running out, not a decision.
    pub fn undecided(&self) -> u64 {
        self.undecided
    }

    /// The bar on M set by the last saturation, while it holds at `now`.
    pub fn ceiling(&self, now: Duration) -> Option<u32> {
        self.ceiling
            .filter(|&(_, until)| now < until)
            .map(|(c, _)| c)
    }

    /// The sending rate M gave while every slot was busy, bytes per second, and the busy time
    /// it was measured over (faded by [`Adaptive::memory`]); `None` before any such period.
    pub fn busy_rate(&self, now: Duration, m: u32) -> Option<(f64, Duration)> {
        let Limit::Adaptive(a) = self.config.limit else {
            return None;
        };
        let r = self.busy.get(&m)?.faded(now, a.memory.as_secs_f64());
        (r.n > 0.0).then(|| (r.mean(), Duration::from_secs_f64(r.secs)))
    }

    /// Whether `flow` is waiting for a slot.
    pub fn is_waiting(&self, flow: FlowId) -> bool {
        self.waiting.contains(&flow)
    }

    fn tau(&self) -> f64 {
        match self.config.limit {
            Limit::Adaptive(a) => a.window.as_secs_f64(),
            Limit::Fixed(_) => 60.0,
        }
    }

    fn memory(&self) -> f64 {
        RATIO_MEMORIES
            * match self.config.limit {
                Limit::Adaptive(a) => a.memory.as_secs_f64(),
                Limit::Fixed(_) => 600.0,
            }
    }

    /// What the class sent over what arrived for it, over the long memory
    /// ([`Adaptive::memory`]); `None` until a background flow has finished.
    pub fn long_ratio(&self, now: Duration) -> Option<f64> {
        let mem = self.memory();
        let [sent, arrivals, bytes, flows] = self.long.map(|e| e.get(now, mem));
        if flows <= 0.0 || arrivals <= 0.0 {
            return None;
        }
        Some(sent / (arrivals * bytes / flows))
    }

    /// Whether the class sent less than `1 −` [`Adaptive::shortfall`] of what arrived over the
    /// long memory (adaptive only), whether or not the check can engage (`min_gain` 0).
    pub fn reads_short(&self, now: Duration) -> bool {
        match self.config.limit {
            Limit::Adaptive(a) => self.long_ratio(now).is_some_and(|r| r < 1.0 - a.shortfall),
            Limit::Fixed(_) => false,
        }
    }

    /// Whether the overload check is engaged at `now`: adaptive, with a minimum gain, and the
    /// class [reads short](Self::reads_short).
    pub fn check_engaged(&self, now: Duration) -> bool {
        matches!(self.config.limit, Limit::Adaptive(a) if a.min_gain > 0.0) && self.reads_short(now)
    }

    /// Estimated background sending rate, bytes per second.
    pub fn sending_rate(&self, now: Duration) -> f64 {
        self.rate.get(now, self.tau())
    }

    /// Estimated background arrival load (arrival rate × mean size), bytes per second; `None`
    /// until a background flow has finished (no size known yet).
    pub fn arrival_load(&self, now: Duration) -> Option<f64> {
        let tau = self.tau();
        let mean_size = self.mean_size(now)?;
        // The arrival estimate started at zero: scale it by the part of the memory it has had.
        let age = now.saturating_sub(self.started?).as_secs_f64();
        let filled = 1.0 - (-age / tau).exp();
        Some(self.arrivals.get(now, tau) / filled.max(1e-9) * mean_size)
    }

    /// Estimated mean size of background flows, bytes (of the flows that completed, with the
    /// window's memory); `None` until one has.
    fn mean_size(&self, now: Duration) -> Option<f64> {
        let tau = self.tau();
        let n = self.finished.get(now, tau);
        (n > 0.0).then(|| self.finished_bytes.get(now, tau) / n)
    }

    /// The rate a period's sending rate must beat for M to step down: the estimated arrival
    /// load plus the backlog's excess over its target, drained over one window,
    /// `load + (waiting − target_waiting) × mean size / window`, the second term clamped to
    /// ±[`BACKLOG_SHARES`] times the rate one active flow got over the period (`rate / M`).
    /// The waiting flows' sizes are unknown to a server (their data is not sent yet), so the
    /// backlog is counted at the estimated mean size. `None` until a background flow has
    /// finished.
    fn target_rate(&self, now: Duration, a: &Adaptive, load: f64, rate: f64) -> Option<f64> {
        let mean_size = self.mean_size(now)?;
        let excess = (self.waiting.len() as f64 - a.target_waiting as f64) * mean_size
            / a.window.as_secs_f64();
        let cap = BACKLOG_SHARES * rate / f64::from(self.m.max(1));
        Some(load + excess.clamp(-cap, cap))
    }

    /// What the sequential test takes of a busy period's rate: its logarithm (see
    /// [`sequential_test`]), the rate floored at [`STALL_FRACTION`] of the class's sending-rate
    /// estimate (and at 1 byte per second), so that a period in which every flow stalled counts
    /// as a very low rate, not as an unbounded one on the log scale.
    fn log_rate(&self, now: Duration, rate: f64) -> f64 {
        let floor = (STALL_FRACTION * self.sending_rate(now)).max(1.0);
        rate.max(floor).ln()
    }

    /// A background flow arrives.
    pub fn arrive(&mut self, now: Duration, flow: FlowId) -> Verdict {
        self.started.get_or_insert(now);
        let tau = self.tau();
        let mem = self.memory();
        if self.active.len() < self.m as usize && self.waiting.is_empty() {
            self.arrivals.add(now, 1.0, tau);
            self.long[1].add(now, 1.0, mem);
            self.active.insert(flow);
            self.note_idle();
            return Verdict::Admitted;
        }
        if self.waiting.len() >= self.config.max_waiting {
            self.refused += 1;
            return Verdict::Refused;
        }
        self.arrivals.add(now, 1.0, tau);
        self.long[1].add(now, 1.0, mem);
        self.waiting.push_back(flow);
        Verdict::Waiting(self.waiting.len() - 1)
    }

    /// `bytes` of background flows went out.
    pub fn sent(&mut self, now: Duration, bytes: u64) {
        let tau = self.tau();
        self.rate.add(now, bytes as f64, tau);
        let mem = self.memory();
        self.long[0].add(now, bytes as f64, mem);
        self.since_step += bytes;
    }

    /// A background flow ended: completed with `size` bytes, or reset, or lost with its
    /// connection (`size` = `None`: it says nothing of the sizes). Frees its slot or its place
    /// in the queue; returns the flows admitted in its stead, in arrival order.
    pub fn release(&mut self, now: Duration, flow: FlowId, size: Option<u64>) -> Vec<FlowId> {
        if let Some(s) = size {
            let tau = self.tau();
            self.finished_bytes.add(now, s as f64, tau);
            self.finished.add(now, 1.0, tau);
            let mem = self.memory();
            self.long[2].add(now, s as f64, mem);
            self.long[3].add(now, 1.0, mem);
        }
        if !self.active.remove(&flow) {
            if let Some(i) = self.waiting.iter().position(|&f| f == flow) {
                self.waiting.remove(i);
                crate::room::give_back(&mut self.waiting);
            }
            return Vec::new();
        }
        self.tick(now)
    }

    /// When [`handle_timeout`](Self::handle_timeout) is next due: every [`TICK`] from the
    /// start of the clock.
    pub fn poll_timeout(&self) -> Duration {
        self.next_tick
    }

    /// The clock's tick at `now` (from [`poll_timeout`](Self::poll_timeout) on; earlier, it
    /// does nothing): [`tick`](Self::tick), and the next tick one [`TICK`] later. Returns the
    /// flows admitted.
    pub fn handle_timeout(&mut self, now: Duration) -> Vec<FlowId> {
        if now < self.next_tick {
            return Vec::new();
        }
        self.next_tick = now + TICK;
        self.tick(now)
    }

    /// Lets time pass: the adaptive loop may move M by one step; returns the flows admitted.
    pub fn tick(&mut self, now: Duration) -> Vec<FlowId> {
        let mut admitted = Vec::new();
        if let Limit::Adaptive(a) = self.config.limit {
            self.adapt(now, a);
        }
        self.fill(&mut admitted);
        admitted
    }

    fn fill(&mut self, admitted: &mut Vec<FlowId>) {
        while self.active.len() < self.m as usize {
            let Some(f) = self.waiting.pop_front() else {
                break;
            };
            self.active.insert(f);
            admitted.push(f);
        }
        crate::room::give_back(&mut self.waiting);
        self.note_idle();
    }

    /// Called after every change of the active set: a free slot with nobody waiting means M
    /// did not bind for a while.
    fn note_idle(&mut self) {
        if self.active.len() < self.m as usize {
            self.idle_since_step = true;
        }
        if self.active.len() > self.m as usize {
            self.crowded_since_step = true;
        }
    }

    fn adapt(&mut self, now: Duration, a: Adaptive) {
        let Some(start) = self.started else { return };
        // The load estimate needs one window of memory before it means anything.
        let since = now.saturating_sub(self.last_step.max(start));
        if self.trial.is_some()
            && self.crowded_since_step
            && self.active.len() <= self.m as usize
            && since < a.period
        {
            // A trial's step down waited for a flow to end: its period starts now, so that
            // it measures M − 1 alone.
            self.last_step = now;
            self.since_step = 0;
            self.crowded_since_step = false;
            self.idle_since_step = false;
            return;
        }
        if now.saturating_sub(start) < a.window || since < a.period {
            return;
        }
        let Some(load) = self.arrival_load(now) else {
            return;
        };
        // The rate M gave since it last moved: an estimate with memory from before the step
        // would lag behind it and make the loop overshoot.
        let secs = since.as_secs_f64();
        let rate = self.since_step as f64 / secs;
        self.since_step = 0;
        // A flow that just ended (`release` looks before it refills the slot) leaves no slot
        // idle while another waits to take it: busy counts the waiting flows too.
        let busy =
            !self.idle_since_step && self.active.len() + self.waiting.len() >= self.m as usize;
        // Busy with exactly M: what M gives (the per-M records).
        let exactly_m = busy && !self.crowded_since_step && self.active.len() <= self.m as usize;
        self.idle_since_step = false;
        self.crowded_since_step = false;
        let waiting = self.waiting.len();
        let Some(target) = self.target_rate(now, &a, load, rate) else {
            return;
        };
        let before = self.m;
        if exactly_m {
            self.busy
                .entry(self.m)
                .or_default()
                .add(now, a.memory.as_secs_f64(), rate, secs);
            self.stay.add(self.log_rate(now, rate), secs);
        }
        // This period's sample, the first of a trial's first pair if a trial starts now.
        let sample = exactly_m.then(|| (self.log_rate(now, rate), secs));
        // The check is engaged while the class falls short of the load by more than
        // `shortfall` over the long memory: there the question is whether raising M still
        // helps. While it keeps up, M moves by the rates alone, with no proof asked of its
        // steps, and no raise is on trial.
        let checked = self.check_engaged(now);
        if self.proven_until.is_some_and(|until| now >= until) {
            // The proof is a memory old: conditions may have changed, so raises beyond the
            // current M are tried again.
            self.proven_until = None;
            self.verified = self.verified.min(self.m).max(a.min);
        }
        let proof_holds = self.proven_until.is_some();
        if !checked {
            self.trial = None;
            if !proof_holds {
                self.verified = a.min;
            }
        }
        // Raises up to the check's floor need no proof: they count as proven.
        let proven = self.verified.max(a.unchecked_up_to());
        let mut kept_samples = false;
        if let Some(trial) = self.trial.take() {
            kept_samples = self.run_trial(now, a, trial, sample);
        } else if checked && self.m > proven {
            // Engaged at an M whose last raise was made unchecked: test it, starting with M − 1
            // (M's busy periods so far are the trial's first samples of M).
            self.trial = Some(Trial::new(self.m, now, sample.map(|(r, s)| (true, r, s))));
            self.m -= 1;
        } else if busy
            && waiting > a.target_waiting
            && rate < load * (1.0 - a.margin)
            && self.m < a.max
            && self.ceiling(now).is_none_or(|c| self.m < c)
            && (!checked
                || self.m < proven
                || (self.stay.n >= 2 && self.stay.secs >= a.probe.as_secs_f64()))
        {
            // Every slot stayed busy, flows wait beyond the target and still the class sends
            // less than the target rate. Engaged, M needs a baseline to judge the raise by,
            // and the raise goes on trial, unless it was proven within the memory.
            if checked && self.m >= proven {
                self.trial = Some(Trial::new(
                    self.m + 1,
                    now,
                    sample.map(|(r, s)| (false, r, s)),
                ));
            }
            self.m += 1;
        } else if rate > target * (1.0 + a.margin) {
            // Sending faster than the target (whatever the backlog): stability may hold with
            // fewer flows in the network (if not, the rate falls short and M grows back).
            self.m = self.m.saturating_sub(1).max(a.min);
            if !proof_holds {
                self.verified = self.verified.min(self.m);
            }
        }
        self.last_step = now;
        if self.m != before {
            self.steps += 1;
            if !kept_samples {
                self.stay = Samples::default();
            }
        }
    }

    /// One period of the trial of a raise (see "Overload" in the [module documentation](self)):
    /// the period's busy rate joins the side M is on; the first of a pair sends M to the other
    /// side for the second, which completes the pair and keeps M where it is for the next
    /// pair's first; a period with no sample (a slot idle, or more than M active) breaks the
    /// pair under way. Returns whether `stay` was set from the trial's samples.
    fn run_trial(
        &mut self,
        now: Duration,
        a: Adaptive,
        mut t: Trial,
        sample: Option<(f64, f64)>,
    ) -> bool {
        let at_hi = self.m == t.m;
        let look = match sample {
            Some((rate, secs)) => t.add(at_hi, rate, secs),
            None => {
                // No sample (a slot idle, or more than M active): the pair under way is broken.
                t.pending = None;
                None
            }
        };
        let decision = sequential_test(&t.pairs, a.min_gain, zone_scale(&a), look);
        let expired = now.saturating_sub(t.started) >= a.decide_within;
        if decision == Decision::Pays {
            self.m = t.m;
            self.verified = self.verified.max(t.m);
            self.proven_until = Some(now + a.memory);
            self.stay = t.hi;
            true
        } else if decision == Decision::Useless || expired {
            // The raise bought less than `min_gain` (or could not be shown to buy more
            // within the bound: then the cheaper side is kept): back to M − 1, and no
            // growth past it for a memory.
            self.m = t.m - 1;
            self.ceiling = Some((self.m, now + a.memory));
            self.saturations += 1;
            if decision == Decision::Open {
                self.undecided += 1;
            }
            self.verified = self.verified.min(self.m);
            self.stay = t.lo;
            true
        } else {
            if t.pending.is_some() {
                // The pair's second period is measured on the other side.
                self.m = if at_hi { t.m - 1 } else { t.m };
            }
            self.trial = Some(t);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(m: u32, max_waiting: usize) -> Admission {
        Admission::new(AdmissionConfig {
            limit: Limit::Fixed(m),
            max_waiting,
        })
        .unwrap()
    }

    const T: Duration = Duration::ZERO;

    #[test]
    fn at_most_m_active_the_rest_wait_in_arrival_order() {
        let mut a = fixed(2, 10);
        assert_eq!(a.arrive(T, FlowId(1)), Verdict::Admitted);
        assert_eq!(a.arrive(T, FlowId(2)), Verdict::Admitted);
        assert_eq!(a.arrive(T, FlowId(3)), Verdict::Waiting(0));
        assert_eq!(a.arrive(T, FlowId(4)), Verdict::Waiting(1));
        assert_eq!((a.active(), a.waiting()), (2, 2));
        // Completion, reset and a dead connection all free the slot the same way.
        assert_eq!(a.release(T, FlowId(2), Some(100)), vec![FlowId(3)]);
        assert_eq!(a.release(T, FlowId(1), None), vec![FlowId(4)]);
        assert_eq!(a.release(T, FlowId(3), None), Vec::<FlowId>::new());
        assert_eq!((a.active(), a.waiting()), (1, 0));
    }

    #[test]
    fn a_waiting_flow_that_ends_leaves_the_queue_without_taking_a_slot() {
        let mut a = fixed(1, 10);
        a.arrive(T, FlowId(1));
        a.arrive(T, FlowId(2));
        a.arrive(T, FlowId(3));
        assert!(a.is_waiting(FlowId(2)));
        assert_eq!(a.release(T, FlowId(2), None), Vec::<FlowId>::new());
        assert_eq!(a.release(T, FlowId(1), Some(5)), vec![FlowId(3)]);
    }

    #[test]
    fn beyond_the_waiting_bound_flows_are_refused() {
        let mut a = fixed(1, 2);
        a.arrive(T, FlowId(1));
        a.arrive(T, FlowId(2));
        a.arrive(T, FlowId(3));
        assert_eq!(a.arrive(T, FlowId(4)), Verdict::Refused);
        assert_eq!(a.refused(), 1);
        assert_eq!(a.waiting(), 2);
    }

    #[test]
    fn a_newcomer_never_overtakes_a_waiting_flow() {
        let mut a = fixed(1, 10);
        a.arrive(T, FlowId(1));
        a.arrive(T, FlowId(2));
        // A slot frees and the waiting flow takes it before the newcomer is seen.
        assert_eq!(a.release(T, FlowId(1), Some(1)), vec![FlowId(2)]);
        assert_eq!(a.arrive(T, FlowId(3)), Verdict::Waiting(0));
    }

    #[test]
    fn bad_configurations_are_refused() {
        assert!(AdmissionConfig {
            limit: Limit::Fixed(0),
            max_waiting: 1
        }
        .validate()
        .is_err());
        let bad = Adaptive {
            min: 3,
            initial: 2,
            ..Adaptive::default()
        };
        assert!(AdmissionConfig {
            limit: Limit::Adaptive(bad),
            max_waiting: 1
        }
        .validate()
        .is_err());
    }

    /// A small deterministic generator for the synthetic load (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        }
        fn exp(&mut self, mean: f64) -> f64 {
            -mean * (1.0 - self.uniform()).ln()
        }
    }

    /// What a fluid run saw.
    struct FluidRun {
        /// M every second.
        m: Vec<u32>,
        /// Every value M took, in order.
        path: Vec<u32>,
        /// Times the loop took a raise back.
        saturations: u64,
        /// Background bytes that arrived and that were sent after `warmup`.
        arrived: f64,
        sent: f64,
        /// Flows waiting, every second.
        waiting: Vec<usize>,
        /// Whether the overload check was engaged, every second.
        engaged: Vec<bool>,
        /// Whether the long-run ratio of sent to arrived read as a shortfall (below
        /// `1 − shortfall`), every second, whether or not the check can engage (`min_gain` 0).
        short: Vec<bool>,
    }

    /// The fluid model of equation (26) on a synthetic load, event by event: excess capacity
    /// `excess` (bytes per second left by the short flows) shared equally by `k` long TCP
    /// flows and the active background flows; background flows arrive as a Poisson process
    /// with exponential sizes of mean `mean` and load `f × excess` (ρ_b / (1 − ρ) = f).
    fn run_fluid(
        (k, f, excess, mean): (f64, f64, f64, f64),
        cfg: Adaptive,
        seconds: f64,
        warmup: f64,
        seed: u64,
    ) -> FluidRun {
        let lambda = f * excess / mean;
        let mut a = Admission::new(AdmissionConfig {
            limit: Limit::Adaptive(cfg),
            max_waiting: 1_000_000,
        })
        .unwrap();
        let mut rng = Rng(seed);
        let mut t = 0.0;
        let mut next_arrival = rng.exp(1.0 / lambda);
        let mut next_tick = 1.0;
        let mut next_id = 1u64;
        let mut remaining: std::collections::BTreeMap<FlowId, (f64, f64)> = Default::default();
        let mut run = FluidRun {
            m: Vec::new(),
            path: vec![a.limit()],
            saturations: 0,
            arrived: 0.0,
            sent: 0.0,
            waiting: Vec::new(),
            engaged: Vec::new(),
            short: Vec::new(),
        };
        while t < seconds {
            let share = excess / (k + a.active() as f64);
            let first_done = a
                .active
                .iter()
                .map(|id| remaining[id].0 / share)
                .fold(f64::INFINITY, f64::min);
            let next = next_arrival.min(next_tick).min(t + first_done);
            let dt = next - t;
            let mut sent = 0.0;
            let mut done = Vec::new();
            for id in &a.active {
                let r = remaining.get_mut(id).unwrap();
                let x = (share * dt).min(r.0);
                r.0 -= x;
                sent += x;
                if r.0 <= 1e-6 {
                    done.push(*id);
                }
            }
            t = next;
            let now = Duration::from_secs_f64(t);
            if t > warmup {
                run.sent += sent;
            }
            a.sent(now, sent as u64);
            for id in done {
                let (_, size) = remaining.remove(&id).unwrap();
                a.release(now, id, Some(size as u64));
            }
            if next_arrival <= t {
                let id = FlowId(next_id);
                next_id += 1;
                let size = rng.exp(mean).max(1.0);
                if t > warmup {
                    run.arrived += size;
                }
                remaining.insert(id, (size, size));
                a.arrive(now, id);
                next_arrival += rng.exp(1.0 / lambda);
            }
            if next_tick <= t {
                a.tick(now);
                run.m.push(a.limit());
                run.waiting.push(a.waiting());
                run.engaged.push(a.check_engaged(now));
                run.short.push(a.reads_short(now));
                next_tick += 1.0;
            }
            if run.path.last() != Some(&a.limit()) {
                run.path.push(a.limit());
            }
        }
        run.saturations = a.saturations();
        run
    }

    fn assert_single_steps(seed: u64, path: &[u32]) {
        for w in path.windows(2) {
            assert_eq!(
                w[0].abs_diff(w[1]),
                1,
                "seed {seed}: steps of one: {path:?}"
            );
        }
    }

    /// Equation (27): M* = k f / (1 − f). With k = 2 and f = 0.7, M* = 4.67: the least stable
    /// M is 5. Mean flow life is about 1.4 s, a decision every 50 s. From M = 1 the loop
    /// reaches the critical value within 1 500 s; M moves by one step at a time, and after
    /// 1 500 s it is within one step of 5 at least 90% of the time (at 6 while the backlog
    /// built up at the start drains, at 4 while a short backlog, not growing beyond the noise,
    /// looks sustainable with fewer flows).
    #[test]
    fn the_adaptive_loop_converges_to_the_critical_m_of_equation_27() {
        let (k, f): (f64, f64) = (2.0, 0.7);
        let critical = (k * f / (1.0 - f)).ceil() as u32;
        assert_eq!(critical, 5);
        let cfg = Adaptive {
            window: Duration::from_secs(400),
            period: Duration::from_secs(50),
            ..Adaptive::default()
        };
        for seed in [1, 7, 42] {
            let run = run_fluid((k, f, 1e6, 2e5), cfg, 4_000.0, 0.0, seed);
            assert_single_steps(seed, &run.path);
            let settled = &run.m[1_500..];
            let near = settled
                .iter()
                .filter(|&&m| m.abs_diff(critical) <= 1)
                .count();
            assert!(
                near * 10 >= settled.len() * 9,
                "seed {seed}: M after 1 500 s {:?}",
                run.path
            );
        }
    }

    /// The high-load case, as in the packet-level two-link and k = 1 runs at 95% total load:
    /// flows of 3 MB on an excess capacity of 437.5 kB/s (a 10 Mbit/s link 65% busy with
    /// short flows), one long flow, f = 0.84: M* = 5.25, critical M = 6. Each extra flow adds
    /// a few per cent of rate (M / (1 + M)) while the one-minute load estimate is noisy by
    /// tens of per cent (a flow every 8.5 s), so M wanders, by single steps: what the loop
    /// must not do is ratchet up towards the vanilla number of flows and stay there (the
    /// earlier rule, which allowed no decrease while a backlog stood, averaged 7.3 here) nor
    /// starve the class. With the core's default timescales, over 20 000 s after a 2 000 s
    /// start: the class sends at least 98% of what arrives, the backlog averages at most
    /// twice `target_waiting`, and M's time-average is at least one step below 6 and at most
    /// three above.
    ///
    /// Measured (seeds 3, 11, 29): backlog 10.5, 9.6, 11.1 flows on average, carried 99.2%,
    /// 99.8%, 100.0%, mean M 6.65, 6.25, 8.56 (earlier rules: `results/admission/README.md`).
    #[test]
    fn at_high_load_the_loop_does_not_ratchet_m_up() {
        let (k, f): (f64, f64) = (1.0, 0.84);
        let critical = (k * f / (1.0 - f)).ceil() as u32;
        assert_eq!(critical, 6);
        let cfg = Adaptive::default();
        for seed in [3, 11, 29] {
            let run = run_fluid((k, f, 437_500.0, 3e6), cfg, 22_000.0, 2_000.0, seed);
            assert_single_steps(seed, &run.path);
            let settled = &run.m[2_000..];
            let mean = settled.iter().map(|&m| m as f64).sum::<f64>() / settled.len() as f64;
            let carried = run.sent / run.arrived;
            let waiting = &run.waiting[2_000..];
            let backlog = waiting.iter().sum::<usize>() as f64 / waiting.len() as f64;
            assert!(
                mean >= critical as f64 - 1.0
                    && mean <= critical as f64 + 3.0
                    && carried >= 0.98
                    && backlog <= 2.0 * cfg.target_waiting as f64,
                "seed {seed}: mean M {mean:.2}, carried {carried:.3}, mean backlog {backlog:.1}, \
                 saturations {}: {:?}",
                run.saturations,
                run.path
            );
        }
    }

    /// The testbed's case: with a short window (6 s, about 8 arrivals in its memory) the load
    /// estimate swings by tens of per cent either way, and a loop that stepped M down whenever
    /// a period's rate beat it would hold M below the critical value with dozens of flows
    /// waiting. The testbed's scales in the fluid model: window 6 s, period 1.5 s, flows of
    /// 300 kB, an excess capacity of 500 kB/s (1.25 MB/s, 40% left by the short flows), one
    /// long flow, f = 0.75: 375 kB/s of background, M* = 3 (at M = 3 the class sends exactly
    /// the load, so the backlog is not stable below 4). Over 3 000 s after a 300 s start, six
    /// seeds: M may sit below 3 while more than twice `target_waiting` flows wait for at most
    /// 2% of the time, and the class carries at least 98% of the load (measured: at most 1 s,
    /// 99.6–100.1%).
    #[test]
    fn a_noisy_load_estimate_does_not_step_m_below_critical_while_a_backlog_stands() {
        let (k, f): (f64, f64) = (1.0, 0.75);
        let critical = (k * f / (1.0 - f)).ceil() as u32;
        assert_eq!(critical, 3);
        let cfg = Adaptive {
            window: Duration::from_secs(6),
            period: Duration::from_millis(1_500),
            ..Adaptive::default()
        };
        for seed in [1u64, 2, 3, 4, 5, 6] {
            let run = run_fluid((k, f, 1.25e6 * 0.4, 3e5), cfg, 3_300.0, 300.0, seed);
            assert_single_steps(seed, &run.path);
            let m = &run.m[300..];
            let waiting = &run.waiting[300..];
            let below = m
                .iter()
                .zip(waiting)
                .filter(|&(&m, &w)| m < critical && w > 2 * cfg.target_waiting)
                .count();
            let carried = run.sent / run.arrived;
            assert!(
                below * 50 <= m.len() && carried >= 0.98,
                "seed {seed}: {below} s below {critical} with a backlog, carried {carried:.3}: \
                 {:?}",
                run.path
            );
        }
    }

    /// The start of a run must not be held back by the overload check (the case of bg-testbed's
    /// hardest sample path): at the testbed's scales in the fluid model (window 6 s, period
    /// 1.5 s, probe 3 s, memory 60 s; flows of 300 kB, background load 0.3 of a 10 Mbit/s link,
    /// 60% of it taken by short flows, one long flow: f = 0.75, M* = 3 by (27)) the loop starts
    /// at M = 1 and a backlog builds before M can climb. Over 150 s of arrivals (the testbed's
    /// run), six seeds, each run beside the same loop without the check (`min_gain` 0) on the
    /// same arrivals:
    ///
    /// * M ≥ 3 within 75 s on every seed;
    /// * on every seed the backlog's time-average exceeds the unchecked loop's by at most 2.5
    ///   flows (the fluid model has no per-period noise, so a pair's period back at M − 1 is
    ///   pure cost here: about two flows on seed 6);
    /// * over all six, the class carries at least the unchecked loop's share of its arrivals
    ///   less 0.01, and the check is engaged at most 25% longer in all than the long-run ratio
    ///   reads a shortfall under the unchecked loop.
    ///
    /// Measured (seeds 1–6): M ≥ 3 at 35, 21, 67, 52, 49, 27 s; mean waiting over the unchecked
    /// loop's +0.8, +0.3, +0.9, +1.1, +1.7, +2.0; carried 0.928 (unchecked 0.932); engaged 450 s
    /// (1.15 × the unchecked loop's 393 s read short).
    ///
    /// Why not a bar on the time engaged itself: the long-run ratio compares sent with arrived
    /// over averages started empty, so a backlog `Q` reads as a shortfall until the arrivals
    /// counted reach `Q / shortfall`: with `target_waiting` flows waiting (2.4 MB) at a load of
    /// 375 kB/s that is about 75 s, whatever the trial does (the loop without the check reads
    /// short 58–71 s per seed; even M held at 4 from the start reads short 4–30 s). What the
    /// check must not do at the start is hold M down while the backlog grows, and that is what
    /// the bars above measure, against the loop that has no check. Earlier loops' figures:
    /// `results/admission/README.md`.
    #[test]
    fn the_overload_check_does_not_hold_back_the_start_of_a_run() {
        let cfg = Adaptive {
            window: Duration::from_secs(6),
            period: Duration::from_millis(1_500),
            probe: Duration::from_secs(3),
            memory: Duration::from_secs(60),
            ..Adaptive::default()
        };
        let unchecked = Adaptive {
            min_gain: 0.0,
            ..cfg
        };
        let mean = |w: &[usize]| w.iter().sum::<usize>() as f64 / w.len() as f64;
        let mut failed = Vec::new();
        let (mut engaged, mut short) = (0, 0);
        let (mut sent, mut sent_unchecked, mut arrived) = (0.0, 0.0, 0.0);
        for seed in [1u64, 2, 3, 4, 5, 6] {
            let load = (1.0, 0.75, 1.25e6 * 0.4, 3e5);
            let run = run_fluid(load, cfg, 150.0, 0.0, seed);
            let bare = run_fluid(load, unchecked, 150.0, 0.0, seed);
            assert_eq!(run.arrived, bare.arrived, "the same arrivals");
            engaged += run.engaged.iter().filter(|&&e| e).count();
            short += bare.short.iter().filter(|&&e| e).count();
            sent += run.sent;
            sent_unchecked += bare.sent;
            arrived += run.arrived;
            let reached = run.m.iter().position(|&m| m >= 3).map(|i| i + 1);
            let (waiting, waiting_bare) = (mean(&run.waiting), mean(&bare.waiting));
            let line = format!(
                "seed {seed}: M >= 3 at {reached:?} s, mean waiting {waiting:.1} (unchecked \
                 {waiting_bare:.1}), carried {:.3} (unchecked {:.3}): {:?}",
                run.sent / run.arrived,
                bare.sent / bare.arrived,
                run.path
            );
            eprintln!("{line}");
            if reached.is_none_or(|s| s > 75) || waiting > waiting_bare + 2.5 {
                failed.push(line);
            }
        }
        assert!(failed.is_empty(), "{failed:#?}");
        let (carried, carried_bare) = (sent / arrived, sent_unchecked / arrived);
        eprintln!(
            "carried {carried:.3} (unchecked {carried_bare:.3}), engaged {engaged} s (unchecked \
             ratio short {short} s)"
        );
        assert!(
            carried >= carried_bare - 0.01,
            "carried {carried:.3}, unchecked {carried_bare:.3}"
        );
        assert!(
            engaged * 4 <= short * 5,
            "engaged {engaged} s, the unchecked loop's ratio short {short} s"
        );
    }

    /// Overload, as at 95% load on the packet-level links: the background brings more than the
    /// excess capacity (f = 1.5), so no M keeps its backlog stable ((27) has no solution) and
    /// the backlog grows whatever the loop does. Without the saturation check (min_gain = 0)
    /// the loop raises M to its maximum. With it, the steps that still add 2% of rate in the
    /// fluid model (26) are kept: the step to M adds k / ((M − 1)(k + M)), 2.08% for M = 7 and
    /// 1.59% for M = 8 with one long flow, 2.27% for M = 9 and 1.85% for M = 10 with two, and
    /// nothing with none (any M gets the whole excess). M goes one step past the last useful
    /// one to measure it, so M ≤ 8 and 10; with none the check's floor (2) is taken unproven
    /// and 3 measured, so M ≤ 3. Held over 20 000 s, so any slow creep shows.
    #[test]
    fn in_overload_m_stays_bounded() {
        for (k, bound) in [(1.0, 8), (2.0, 10), (0.0, 3)] {
            for seed in [5, 13] {
                let run = run_fluid(
                    (k, 1.5, 437_500.0, 3e6),
                    Adaptive::default(),
                    20_000.0,
                    0.0,
                    seed,
                );
                assert_single_steps(seed, &run.path);
                let top = run.m.iter().copied().max().unwrap_or(0);
                assert!(
                    top <= bound,
                    "k = {k}, seed {seed}: M reached {top} (bound {bound}): {:?}",
                    run.path
                );
                // It does try: M is not stuck at 1 when a step pays (k ≥ 1), and the check
                // fired (the steps beyond the bound were taken back).
                assert!(run.saturations > 0, "k = {k}, seed {seed}: {:?}", run.path);
                if k >= 1.0 {
                    let late = &run.m[10_000..];
                    let mean = late.iter().map(|&m| m as f64).sum::<f64>() / late.len() as f64;
                    assert!(mean >= 3.0, "k = {k}, seed {seed}: mean M {mean:.2}");
                }
            }
        }
        // The same load without the check: M runs to the maximum (what the check prevents).
        let unchecked = Adaptive {
            min_gain: 0.0,
            ..Adaptive::default()
        };
        let run = run_fluid((1.0, 1.5, 437_500.0, 3e6), unchecked, 20_000.0, 0.0, 5);
        assert_eq!(run.m.iter().copied().max(), Some(unchecked.max));
    }

    /// Not a check: the creep near capacity (`results/bg-fig5/start-and-long-runs-session14/`,
    /// `f5-cl6`) in the fluid model, in seconds instead of hours of packet-level
    /// runs (`cargo test -p gtcp --release --lib creep_sweep -- --ignored --nocapture`). The
    /// load of `in_overload_m_stays_bounded` at milder excesses: the class asks f times the
    /// excess capacity; with k = 0 any M carries all of it, so the class sends 1 / f of its
    /// arrivals (0.95 at f = 1.05): short by more than the rate rules' 2% margin, so M is
    /// raised, but by less than the check's 10% bar, so no raise is asked for a proof.
    #[test]
    #[ignore]
    fn creep_sweep() {
        for k in [0.0, 1.0] {
            for f in [0.9, 1.0, 1.05, 1.1, 1.2, 1.5] {
                let mut line = format!("k = {k}, f = {f}:");
                for seed in [5u64, 13] {
                    let run = run_fluid(
                        (k, f, 437_500.0, 3e6),
                        Adaptive::default(),
                        20_000.0,
                        5_000.0,
                        seed,
                    );
                    let late = &run.m[10_000..];
                    let mean = late.iter().map(|&m| f64::from(m)).sum::<f64>() / late.len() as f64;
                    let engaged = run.engaged.iter().filter(|&&e| e).count() as f64
                        / run.engaged.len() as f64;
                    line += &format!(
                        " seed {seed}: top M {}, mean M after 10 000 s {mean:.1}, engaged {:.0}%, \
                         saturations {}, carried {:.3};",
                        run.m.iter().copied().max().unwrap_or(0),
                        100.0 * engaged,
                        run.saturations,
                        run.sent / run.arrived
                    );
                }
                println!("{line}");
            }
        }
    }

    /// The check judges the rate a step gave, measured: a raise that lifted the busy rate by
    /// less than `min_gain` is taken back and bars growth for `memory`; one that lifted it more
    /// stays. Driven by hand: a flow per slot, always a backlog, the rate chosen per M.
    #[test]
    fn a_raise_that_bought_no_rate_is_taken_back_and_bars_growth() {
        // Bytes per second the class gets with M busy slots: 100 kB/s for M = 1, 150 kB/s for
        // M = 2, and 151 kB/s (+0.7%) for M = 3.
        let rate_of = |m: u32| match m {
            1 => 100_000.0,
            2 => 150_000.0,
            _ => 151_000.0,
        };
        let HandRun {
            a,
            path,
            m_at,
            first,
        } = hand_run(2, &rate_of, 1_500);
        assert_single_steps(0, &path);
        // It went 1 → 2 with no trial (the check's floor), then, with a baseline of 2, to 3,
        // found 3 no better than 2 (+0.7% < 2%) on its two pairs (the last period of 2 and the
        // first of 3, then one of 3 and one of 2), and went back to 2, which it holds for the
        // memory: the backlog stands, but nothing says 3 would help.
        assert_eq!(&path[..4], &[1, 2, 3, 2], "{path:?}");
        let (at, ceiling) = first.unwrap();
        assert_eq!(ceiling, Some(2));
        assert!(at < 400, "took the raise back at {at} s");
        let held = &m_at[at as usize..at as usize + 600];
        assert!(held.iter().all(|&m| m == 2), "{path:?}");
        // Then it tries again, and takes it back again: never past 3.
        assert!(a.saturations() >= 2, "{path:?}");
        assert!(m_at.iter().all(|&m| m <= 3), "{path:?}");
        let (r2, _) = a.busy_rate(Duration::from_secs(1_500), 2).unwrap();
        assert!((r2 - 150_000.0).abs() < 1.0, "{r2}");
    }

    struct HandRun {
        a: Admission,
        /// Each M taken, in order.
        path: Vec<u32>,
        /// M at each second.
        m_at: Vec<u32>,
        /// The second of the first saturation, and the ceiling it set.
        first: Option<(u64, Option<u32>)>,
    }

    /// An overload driven by hand, without noise: 20 flows waiting at the start, one flow of
    /// 1 MB finishes every second (the load estimate: 1 MB/s) and a new one arrives, so the
    /// backlog stays at 20 and the check is engaged; with M busy slots the class sends
    /// `rate_of(M)` bytes per second. Short timescales (60-s probe, 600-s memory).
    fn hand_run(check_floor: u32, rate_of: &dyn Fn(u32) -> f64, seconds: u64) -> HandRun {
        let cfg = Adaptive {
            window: Duration::from_secs(60),
            period: Duration::from_secs(15),
            probe: Duration::from_secs(60),
            memory: Duration::from_secs(600),
            check_floor,
            ..Adaptive::default()
        };
        let mut a = Admission::new(AdmissionConfig {
            limit: Limit::Adaptive(cfg),
            max_waiting: 1000,
        })
        .unwrap();
        let mut next = 0u64;
        let mut arrive = |a: &mut Admission, t: Duration| {
            next += 1;
            a.arrive(t, FlowId(next));
        };
        for _ in 0..20 {
            arrive(&mut a, Duration::ZERO);
        }
        let mut path = vec![a.limit()];
        let mut m_at = vec![a.limit()];
        let mut first = None;
        for s in 1..=seconds {
            let t = Duration::from_secs(s);
            a.sent(t, rate_of(a.limit()) as u64);
            // The loop looks while every slot is busy, then a flow ends and another arrives.
            a.tick(t);
            m_at.push(a.limit());
            let oldest = *a.active.iter().next().unwrap();
            a.release(t, oldest, Some(1_000_000));
            arrive(&mut a, t);
            if path.last() != Some(&a.limit()) {
                path.push(a.limit());
            }
            if a.saturations() == 1 && first.is_none() {
                first = Some((s, a.ceiling(t)));
            }
        }
        HandRun {
            a,
            path,
            m_at,
            first,
        }
    }

    /// The check's floor: engaged (always a backlog) on a path where no M sends more than M = 1
    /// (nothing else shares the bottleneck), the loop takes M to 2 with no trial — no period
    /// back at 1, no saturation below 2 — tries 3, takes it back, and never goes past 3. With
    /// the floor at 1 the same run puts 1 → 2 on trial, takes it back and holds M at 1.
    #[test]
    fn the_check_asks_no_proof_of_raises_up_to_its_floor() {
        let flat = |_: u32| 100_000.0;
        let run = hand_run(2, &flat, 3_000);
        assert_single_steps(0, &run.path);
        assert_eq!(&run.path[..4], &[1, 2, 3, 2], "{:?}", run.path);
        let (_, ceiling) = run.first.unwrap();
        assert_eq!(ceiling, Some(2));
        let reached = run.m_at.iter().position(|&m| m == 2).unwrap();
        assert!(
            run.m_at[reached..].iter().all(|&m| m == 2 || m == 3),
            "{:?}",
            run.path
        );
        assert!(run.a.saturations() >= 2, "{:?}", run.path);
        let strict = hand_run(1, &flat, 3_000);
        assert_eq!(&strict.path[..3], &[1, 2, 1], "{:?}", strict.path);
        assert_eq!(strict.first.unwrap().1, Some(1));
        assert!(strict.m_at.iter().all(|&m| m <= 2), "{:?}", strict.path);
    }
    /// The check must decide with noisy periods. Per-period rates in a packet network vary by
    /// tens of per cent (short flows come and go); here each period's rate is the M's rate
    /// times a factor drawn uniformly in [0.6, 1.4] (sd 23%), the steps 1 → 2 → 3 → 4 pay 50%,
    /// 17% and 9%, and nothing beyond 4 pays. A raise that pays 9% or more must not be judged
    /// below 2% — not once in 20 000 s over seven seeds — while the useless steps above 4 still
    /// are taken back (M stays bounded): every seed proves 3 → 4 and holds M at 4 or 5, the
    /// useless raise to 5 taken back, judged useless or undecided at `decide_within`. Not every
    /// seed does: of seeds 1–40, 38 pass (seeds 7 and 35 fail, ceiling 3, two raises
    /// undecided) — the test's error rate, 5% each way at its zone's edges, and its bound
    /// (`noisy_sweep`). The check's floor is 1 here (every raise tried, 1 → 2 included: the
    /// trial is what these tests are of). With the default floor of 2 the path starts at the
    /// trial of 2 → 3 and more trials of 3 → 4 fit in the 20 000 s: over seeds 1–300, 33 runs
    /// take a paying raise back once where 21 do with floor 1 (each trial's error is the same;
    /// seed 6 is one of the 33).
    #[test]
    fn noisy_periods_do_not_make_a_paying_raise_look_useless() {
        let rate_of = |m: u32| match m {
            1 => 100_000.0,
            2 => 150_000.0,
            3 => 175_000.0,
            _ => 190_000.0,
        };
        for seed in [1u64, 2, 3, 4, 5, 6, 17] {
            let run = noisy_run(seed, &rate_of, Noise::Uniform(0.4), 20_000, 1);
            assert!(
                run.lowest_ceiling >= 4,
                "seed {seed}: a paying raise was taken back (ceiling {}), {} saturations",
                run.lowest_ceiling,
                run.saturations
            );
            assert!(run.top <= 8, "seed {seed}: M reached {}", run.top);
        }
    }

    /// bg-fig7's noise: per-period rates varying by about their mean (here a log-normal factor
    /// with a coefficient of variation of 1, log-rates with a standard deviation of 0.83), a
    /// raise from 1 to 2 that doubles the rate, nothing beyond 2 paying. The doubling must be
    /// proven within 35 min (M reaches 3, the next raise, which needs the proof and two periods
    /// of baseline) and never taken back, and the useless raises must not be kept: M ≤ 4 over
    /// 20 000 s, ten seeds. On the log-rates with the noise-scaled wide alternative it takes 0
    /// to 31 min (median 15), and M reaches 4 in one seed of 40 (`noisy_sweep`); a test of the
    /// rates themselves with a fixed zone of 1.00 to 1.04 took 28 to 117 min (median 45).
    #[test]
    fn under_packet_level_noise_a_doubling_is_proven_within_35_min() {
        let doubling = |m: u32| if m == 1 { 100_000.0 } else { 200_000.0 };
        for seed in 1..=10u64 {
            let run = noisy_run(seed, &doubling, Noise::LogNormal(1.0), 20_000, 1);
            let proven = match (run.first[2], run.first[3]) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            };
            assert!(
                proven.is_some_and(|s| s <= 35 * 60),
                "seed {seed}: 1 -> 2 proven after {proven:?} s"
            );
            assert!(
                run.lowest_ceiling >= 2 && run.top <= 4,
                "seed {seed}: {run:?}"
            );
        }
    }

    /// The sequential test's wrong "pays" under bg-fig7's noise: both sides drawn from the
    /// same log-normal law (log-rates with a standard deviation of 0.83: the raise buys
    /// nothing), periods added to the sides in turn, the ratio tests looking after every
    /// pair and the t interval at 2, 4, 8, … pairs, up to the 240 pairs of the default bound.
    /// Each wrong decision has probability at most 2 × `SEQUENTIAL_ALPHA` (the ratio and the
    /// interval together), so over 400 such raises at most 40 may be judged to pay: the
    /// noise-scaled alternative must not let more through. 10 of 400 pay here. (A first try
    /// of this change scaled a zone centred on g to the noise instead: in the hand-driven
    /// model of `noisy_sweep` it let useless raises through: M reached 4 to 6 in 35 seeds of
    /// 40 where only the raise to 2 paid.)
    #[test]
    fn under_strong_noise_a_raise_that_buys_nothing_rarely_pays() {
        let scale = zone_scale(&Adaptive::default());
        let sigma = 2f64.ln().sqrt();
        let mut rng = Rng(0x5EED_0001);
        let mut normal = || {
            let (u, v) = (1.0 - rng.uniform(), rng.uniform());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let mut pays = 0;
        for _ in 0..400 {
            let mut pairs = Samples::default();
            let mut looks = 0;
            for pair in 1..=240u32 {
                let (lo, hi) = (sigma * normal(), sigma * normal());
                pairs.add(hi - lo, 0.0);
                let look = (pair >= 2 && pair.is_power_of_two()).then(|| {
                    looks += 1;
                    looks
                });
                match sequential_test(&pairs, 0.02, scale, look) {
                    Decision::Pays => {
                        pays += 1;
                        break;
                    }
                    Decision::Useless => break,
                    Decision::Open => {}
                }
            }
        }
        assert!(pays <= 40, "{pays} of 400 useless raises judged to pay");
    }

    /// By (26) a raise never lowers the class's busy rate, so periods of M well below those of
    /// M − 1 say the two sides were measured under different conditions, not that the raise is
    /// useless: the test goes on. The case of bg-testbed repeat 0 (run of d2a57f9, stopped):
    /// the baseline of M = 1 measured in the run's first seconds, the network still filling
    /// (rates near 250–280 kB/s), the raise's periods after it (210–230 kB/s, falling); a test
    /// without this rule judged the raise useless at its first look, 5 s after it, and held M at 1
    /// for the check's memory while the backlog grew to 35 flows. Here it stays open; with the
    /// same spread around equal means (a raise that does buy nothing) it still decides useless.
    #[test]
    fn a_raise_measured_below_its_baseline_is_not_judged_useless() {
        let pairs = |lo: &[f64], hi: &[f64]| {
            let mut s = Samples::default();
            for (l, h) in lo.iter().zip(hi) {
                s.add((h / l).ln(), 0.0);
            }
            s
        };
        let scale = zone_scale(&Adaptive::default());
        let lowered = pairs(&[250e3, 270e3, 280e3, 265e3], &[230e3, 210e3, 225e3, 215e3]);
        for look in [None, Some(1), Some(2)] {
            assert_eq!(
                sequential_test(&lowered, 0.02, scale, look),
                Decision::Open,
                "look {look:?}"
            );
        }
        // Useless raises are still found: the same spread, many pairs, equal means.
        let spread = [250e3, 270e3, 280e3, 265e3];
        let lo: Vec<f64> = (0..60).map(|i| spread[i % 4]).collect();
        let hi: Vec<f64> = (0..60).map(|i| spread[(i + 2) % 4]).collect();
        assert_eq!(
            sequential_test(&pairs(&lo, &hi), 0.02, scale, None),
            Decision::Useless
        );
    }

    /// A trial visits the sides in adjacent pairs, M − 1 (the baseline's last period), M, M,
    /// M − 1, M − 1, M, …: M moves every two periods from the raise (or from the step down
    /// that starts the test of a raise made unchecked), and a step down's period starts when
    /// the flow above M has ended (here within the second). Driven by hand with a raise that
    /// pays 3% under ±10% noise, so the test stays open for many pairs.
    #[test]
    fn a_trial_visits_the_sides_in_adjacent_pairs() {
        let cfg = Adaptive::default();
        let mut a = Admission::new(AdmissionConfig {
            limit: Limit::Adaptive(cfg),
            max_waiting: 100_000,
        })
        .unwrap();
        let mut rng = Rng(7);
        let mut next = 0u64;
        for _ in 0..40 {
            next += 1;
            a.arrive(Duration::ZERO, FlowId(next));
        }
        let mut factor = 1.0;
        // (when the trial started, the raised M, the times M changed during it)
        let mut trials: Vec<(u64, u32, Vec<u64>)> = Vec::new();
        for s in 1..=20_000u64 {
            let t = Duration::from_secs(s);
            if s % 15 == 1 {
                factor = 0.9 + 0.2 * rng.uniform();
            }
            let rate = if a.limit() == 1 { 100_000.0 } else { 103_000.0 };
            a.sent(t, (rate * factor) as u64);
            let before = (a.limit(), a.trial.map(|t| (t.m, t.started)));
            a.tick(t);
            let oldest = *a.active.iter().next().unwrap();
            a.release(t, oldest, Some(1_000_000));
            next += 1;
            a.arrive(t, FlowId(next));
            if let Some(trial) = a.trial {
                if before.1 != Some((trial.m, trial.started)) {
                    trials.push((s, trial.m, Vec::new()));
                } else if before.0 != a.limit() {
                    trials.last_mut().unwrap().2.push(s);
                }
            }
        }
        let long: Vec<_> = trials.iter().filter(|t| t.2.len() >= 4).collect();
        assert!(!long.is_empty(), "no trial lasted four steps: {trials:?}");
        for (start, m, steps) in long {
            let mut at = *start;
            for (i, &s) in steps.iter().enumerate() {
                let gap = s - at;
                assert!(
                    (30..=32).contains(&gap),
                    "trial of {m} from {start} s: step {i} after {gap} s, not 30: {steps:?}"
                );
                at = s;
            }
        }
    }

    /// How the per-period rates of [`noisy_run`] vary around the M's rate.
    #[derive(Debug, Clone, Copy)]
    enum Noise {
        /// A factor drawn uniformly in [1 − w, 1 + w].
        Uniform(f64),
        /// A log-normal factor of mean 1 and this coefficient of variation.
        LogNormal(f64),
    }

    /// What [`noisy_run`] saw.
    #[derive(Debug)]
    struct NoisyRun {
        lowest_ceiling: u32,
        top: u32,
        saturations: u64,
        undecided: u64,
        /// The first second at which M reached each value (index = M).
        first: Vec<Option<u64>>,
    }

    /// The overload of the noisy tests, driven by hand with the core's defaults: 40 flows
    /// waiting, a flow ends and another arrives every second (the load asked is 1 MB/s: always
    /// short, always a backlog), and each period's rate is `rate_of(M)` times a factor drawn
    /// per period from `noise`.
    fn noisy_run(
        seed: u64,
        rate_of: &dyn Fn(u32) -> f64,
        noise: Noise,
        seconds: u64,
        check_floor: u32,
    ) -> NoisyRun {
        let cfg = Adaptive {
            check_floor,
            ..Adaptive::default()
        };
        let mut a = Admission::new(AdmissionConfig {
            limit: Limit::Adaptive(cfg),
            max_waiting: 100_000,
        })
        .unwrap();
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut next = 0u64;
        for _ in 0..40 {
            next += 1;
            a.arrive(Duration::ZERO, FlowId(next));
        }
        let period = cfg.period.as_secs();
        let mut factor = 1.0;
        let mut run = NoisyRun {
            lowest_ceiling: u32::MAX,
            top: 0,
            saturations: 0,
            undecided: 0,
            first: vec![None; cfg.max as usize + 1],
        };
        for s in 1..=seconds {
            let t = Duration::from_secs(s);
            if s % period == 1 {
                factor = match noise {
                    Noise::Uniform(w) => 1.0 - w + 2.0 * w * rng.uniform(),
                    Noise::LogNormal(cv) => {
                        // Box–Muller, then exp(σ Z − σ² / 2): mean 1, CV² = e^{σ²} − 1.
                        let sigma = (1.0 + cv * cv).ln().sqrt();
                        let (u, v) = (1.0 - rng.uniform(), rng.uniform());
                        let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                        (sigma * z - sigma * sigma / 2.0).exp()
                    }
                };
            }
            a.sent(t, (rate_of(a.limit()) * factor) as u64);
            a.tick(t);
            if let Some(c) = a.ceiling(t) {
                run.lowest_ceiling = run.lowest_ceiling.min(c);
            }
            run.top = run.top.max(a.limit());
            run.first[a.limit() as usize].get_or_insert(s);
            let oldest = *a.active.iter().next().unwrap();
            a.release(t, oldest, Some(1_000_000));
            next += 1;
            a.arrive(t, FlowId(next));
        }
        run.saturations = a.saturations();
        run.undecided = a.undecided();
        run
    }

    /// Not a check: the sweep behind the numbers in the tests' documentation
    /// (`cargo test -p gtcp --lib noisy_sweep -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn noisy_sweep() {
        let uniform = |m: u32| match m {
            1 => 100_000.0,
            2 => 150_000.0,
            3 => 175_000.0,
            _ => 190_000.0,
        };
        for floor in [1, 2] {
            let mut bad = Vec::new();
            for seed in 1..=40u64 {
                let run = noisy_run(seed, &uniform, Noise::Uniform(0.4), 20_000, floor);
                if run.lowest_ceiling < 4 || run.top > 8 {
                    bad.push((seed, run.lowest_ceiling, run.top, run.undecided));
                }
            }
            println!(
                "uniform ±40%, check floor {floor}: failing seeds (seed, lowest ceiling, top, \
                 undecided) {bad:?}"
            );
        }
        // bg-fig7's noise: a raise from 1 to 2 doubles the rate, nothing beyond 2 pays.
        let doubling = |m: u32| if m == 1 { 100_000.0 } else { 200_000.0 };
        let mut times = Vec::new();
        let mut wrong = 0;
        for seed in 1..=40u64 {
            let run = noisy_run(seed, &doubling, Noise::LogNormal(1.0), 20_000, 1);
            // Proven once M reached 3 (the next raise needs the proof and two periods).
            let proven = match (run.first[2], run.first[3]) {
                (Some(a), Some(b)) => Some((b - a) / 60),
                _ => None,
            };
            if run.lowest_ceiling < 2 {
                wrong += 1;
            }
            times.push((proven, run.top, run.saturations, run.undecided));
        }
        println!(
            "log-normal CV 1, 1 -> 2 doubles: (minutes to prove, top, saturations, undecided) \
             {times:?}; doubling taken back in {wrong} of 40"
        );
    }
}
