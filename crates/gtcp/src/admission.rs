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
//! Neither k nor ρ is known to a server, so M is found by a slow outer loop (Section IV):
//! the background sending rate and the arrival load (arrival rate × mean size) are estimated
//! with moving averages whose memory ([`Adaptive::window`]) is much longer than a flow's life;
//! every [`Adaptive::period`] M moves by at most one step, symmetrically, so that the sending
//! rate tracks the arrival load: up when flows wait (more than [`Adaptive::target_waiting`]),
//! every slot stayed busy over the period and the rate M gave over it falls short of the
//! load (the backlog would grow without bound), down when that rate exceeds the load (M is
//! larger than stability needs, which costs short flows delay). Requiring a backlog for growth
//! but none for a decrease keeps the loop at the least M that keeps up, with "long but not
//! unstable" queues, which is where (27) holds.
//!
//! An earlier version decreased M only while fewer than `target_waiting` flows waited. At
//! high load that ratcheted M up: near saturation one more TCP flow adds a few per cent of
//! rate while the one-minute load estimate is noisy by tens of per cent (3 MB flows arriving
//! every 8 s), so noise-made steps up happened whenever a backlog stood, and nothing took them
//! back until the backlog was gone — which took M near the vanilla number of flows. With the
//! symmetric rule noise moves M both ways and its mean stays at the critical value
//! (`at_high_load_the_loop_does_not_ratchet_m_up`).
//!
//! # Overload: the rate saturates
//!
//! Equation (26) gives the class `M / (k + M)` of the excess capacity when every slot is busy,
//! so the rate rises with M ever more slowly and never reaches the excess capacity while
//! k ≥ 1. When the arrival load exceeds what the path can carry (ρ_b / (1 − ρ) ≥ 1, or the
//! links themselves overloaded), (27) has no solution: the backlog grows whatever M is, and a
//! loop that only compares the rate with the load raises M step after step until
//! [`Adaptive::max`] — the class then behaves like the vanilla policy, which is exactly what
//! access control is for avoiding. The paper's loop rests on "the sending rate is increasing
//! in M" (Section IV); the loop therefore checks that it is, on measurements:
//!
//! * while exactly M slots are busy over a whole period, the rate of that period is recorded
//!   against M (mean and variance, fading with [`Adaptive::memory`], 10 min by default);
//! * the check is *engaged* while the class falls short: over three memories (30 min) it sent
//!   less than `1 −` [`Adaptive::shortfall`] (90%) of what arrived. Otherwise M moves as above,
//!   no proof asked of its steps: near (27) the one-minute load estimate makes M wander by
//!   single steps, and a bar there would only cut the wandering's top
//!   (`at_high_load_the_loop_does_not_ratchet_m_up` holds with the check built in);
//! * engaged, M is raised only once it has a baseline — the current M measured busy for
//!   [`Adaptive::probe`] (30 s) — or when the records already show the next step pays;
//! * engaged, when M's record holds `probe` and M − 1's half of it, and the gain from M − 1
//!   to M is, at two standard errors of the records' means, surely below
//!   [`Adaptive::min_gain`] (2%), the last raise bought nothing: M steps back to M − 1 and may
//!   not exceed it for a memory (a *saturation*, counted by [`Admission::saturations`];
//!   [`Admission::ceiling`] is the bar while it holds). Then it may probe again: under
//!   conditions that changed (a long flow left) the step may pay.
//!
//! In the fluid model of (26) the step from M − 1 to M adds `k / ((M − 1)(k + M))` of the rate,
//! so with the default `min_gain` M keeps the steps up to 7 with one long flow, 9 with two,
//! 1 with none, and touches one more while it measures it (`in_overload_m_stays_bounded`:
//! M ≤ 8, 10, 2 over 20 000 s at 1.5 times the excess capacity, where without the check M
//! reaches its maximum). [`Adaptive::max`] (default 64) is the hard bound whatever the
//! measurements say. Every step remains a single one. Limits: the check needs the shortfall
//! to show over 30 min, so in the first half hour of an overload M climbs as before; and a
//! packet network's rate at a given M varies with the short flows present, so there the
//! records need several probes before they are sure either way (they assume periods
//! independent, which they are not quite).
//!
//! Sans-IO: time is an argument; the [`Session`](crate::Session) owns one controller when
//! background routes are configured and tells it of arrivals, bytes sent and flow ends.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use crate::ids::FlowId;

/// The long-run ratio of sent to arrived that engages the saturation check is taken over this
/// many [`Adaptive::memory`]s (30 min by default): shorter, and the load estimate's noise in a
/// loop that keeps up on average reads as a shortfall.
const RATIO_MEMORIES: f64 = 3.0;

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

/// Parameters of the adaptive loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adaptive {
    /// M at the start (default 1).
    pub initial: u32,
    /// Smallest M (default 1).
    pub min: u32,
    /// Largest M (default 64).
    pub max: u32,
    /// Memory of the rate and load estimates: much longer than a flow's life (default 60 s).
    pub window: Duration,
    /// Time between two steps of M (default 15 s), over which the sending rate under the
    /// current M is measured; each step is ±1.
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
    /// Busy time an M needs before, engaged, it is raised, and before it is judged against
    /// M − 1 (default 30 s, two periods).
    pub probe: Duration,
    /// How long a saturation bars growth, and the memory of the per-M rate records; the
    /// long-run ratio of sent to arrived is taken over three of it (default 600 s).
    pub memory: Duration,
    /// The check is engaged while, over three `memory`s, the class sent less than
    /// `1 − shortfall` of what arrived (default 0.1).
    pub shortfall: f64,
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
        }
    }
}

/// Configuration of the access control.
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// A configuration the controller refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AdmissionError {
    #[error("the number of active background flows must be at least 1")]
    ZeroLimit,
    #[error("adaptive limits need 1 <= min <= initial <= max (got {min}, {initial}, {max})")]
    Bounds { min: u32, initial: u32, max: u32 },
    #[error("the adaptive window and period must be positive and the period at most the window")]
    Timescales,
    #[error("the margin must be in [0, 1), not {0}")]
    Margin(f64),
    #[error("the minimum gain must be in [0, 1), not {0}")]
    MinGain(f64),
    #[error("the shortfall must be in [0, 1), not {0}")]
    Shortfall(f64),
    #[error("the probe time and the memory must be positive")]
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
                if a.probe.is_zero() || a.memory.is_zero() {
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
/// periods, the sums of their rates and of the squared rates, and the busy seconds, all fading
/// with memory τ (so that old conditions are forgotten).
#[derive(Debug, Clone, Copy, Default)]
struct BusyRecord {
    n: f64,
    sum: f64,
    sum_sq: f64,
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
            sum_sq: self.sum_sq * k,
            secs: self.secs * k,
            at: self.at.max(now),
        }
    }

    fn add(&mut self, now: Duration, tau: f64, rate: f64, secs: f64) {
        let mut r = self.faded(now, tau);
        r.n += 1.0;
        r.sum += rate;
        r.sum_sq += rate * rate;
        r.secs += secs;
        *self = r;
    }

    fn mean(&self) -> f64 {
        self.sum / self.n
    }

    /// The variance of the mean (periods taken as independent).
    fn var_of_mean(&self) -> f64 {
        let m = self.mean();
        ((self.sum_sq / self.n - m * m).max(0.0)) / self.n
    }
}

/// The access controller of one background class. See the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Admission {
    config: AdmissionConfig,
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
            long: [Ewma::default(); 4],
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

    /// Whether the overload check is engaged at `now`: adaptive, with a minimum gain, and the
    /// class sent less than `1 −` [`Adaptive::shortfall`] of what arrived over the long memory.
    pub fn check_engaged(&self, now: Duration) -> bool {
        match self.config.limit {
            Limit::Adaptive(a) => {
                a.min_gain > 0.0 && self.long_ratio(now).is_some_and(|r| r < 1.0 - a.shortfall)
            }
            Limit::Fixed(_) => false,
        }
    }

    /// Estimated background sending rate, bytes per second.
    pub fn sending_rate(&self, now: Duration) -> f64 {
        self.rate.get(now, self.tau())
    }

    /// Estimated background arrival load (arrival rate × mean size), bytes per second; `None`
    /// until a background flow has finished (no size known yet).
    pub fn arrival_load(&self, now: Duration) -> Option<f64> {
        let tau = self.tau();
        let n = self.finished.get(now, tau);
        if n <= 0.0 {
            return None;
        }
        let mean_size = self.finished_bytes.get(now, tau) / n;
        // The arrival estimate started at zero: scale it by the part of the memory it has had.
        let age = now.saturating_sub(self.started?).as_secs_f64();
        let filled = 1.0 - (-age / tau).exp();
        Some(self.arrivals.get(now, tau) / filled.max(1e-9) * mean_size)
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
            }
            return Vec::new();
        }
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
        if now.saturating_sub(start) < a.window || since < a.period {
            return;
        }
        let Some(load) = self.arrival_load(now) else {
            return;
        };
        // The rate M gave since it last moved: an estimate with memory from before the step
        // would lag behind it and make the loop overshoot.
        let rate = self.since_step as f64 / since.as_secs_f64();
        self.since_step = 0;
        let busy = !self.idle_since_step && self.active.len() >= self.m as usize;
        // Busy with exactly M: what M gives (the per-M records).
        let exactly_m = busy && !self.crowded_since_step && self.active.len() == self.m as usize;
        self.idle_since_step = false;
        self.crowded_since_step = false;
        let waiting = self.waiting.len();
        let before = self.m;
        let mem = a.memory.as_secs_f64();
        if exactly_m {
            let secs = since.as_secs_f64();
            self.busy
                .entry(self.m)
                .or_default()
                .add(now, mem, rate, secs);
        }
        // What the step from m to m + 1 did to the busy rate, when both records hold at least
        // `probe` of busy time: the gain over m's rate, as an interval of two standard errors.
        let gain = |m: u32| -> Option<(f64, f64)> {
            let lo = self.busy.get(&m)?.faded(now, mem);
            let hi = self.busy.get(&(m + 1))?.faded(now, mem);
            let probe = a.probe.as_secs_f64();
            // (The record below fades while M is above it: half a probe of it is enough.)
            if lo.secs < probe / 2.0 || hi.secs < probe || lo.mean() <= 0.0 {
                return None;
            }
            let d = (hi.mean() - lo.mean()) / lo.mean();
            let e = 2.0 * (hi.var_of_mean() + lo.var_of_mean()).sqrt() / lo.mean();
            Some((d - e, d + e))
        };
        let ceiling = self.ceiling(now);
        // The check is engaged while the class falls short of the load by more than
        // `shortfall` over the long memory: there the question is whether raising M still
        // helps. While it keeps up, M moves as before, with no proof asked of its steps.
        let checked = self.check_engaged(now);
        // The last raise (from M − 1) surely bought less than `min_gain`: take it back.
        let useless =
            checked && self.m > a.min && gain(self.m - 1).is_some_and(|(_, hi)| hi < a.min_gain);
        // The next raise is known to pay (measured before, within the memory).
        let known = gain(self.m).is_some_and(|(lo, _)| lo >= a.min_gain);
        // M itself has been measured long enough to judge the next raise against.
        let baseline = !checked
            || known
            || self
                .busy
                .get(&self.m)
                .is_some_and(|r| r.faded(now, mem).secs >= a.probe.as_secs_f64());
        if useless {
            // The rate saturates: the last raise gave nothing measurable, and the flow it
            // admitted only adds to the short flows' competition. Back, and no growth past
            // here for a memory.
            self.m -= 1;
            self.ceiling = Some((self.m, now + a.memory));
            self.saturations += 1;
        } else if busy
            && waiting > a.target_waiting
            && rate < load * (1.0 - a.margin)
            && self.m < a.max
            && ceiling.is_none_or(|c| self.m < c)
            && baseline
        {
            // The backlog grows: every slot stayed busy and still the class sends less than
            // it receives (and, while the check is engaged, M has a baseline to judge the
            // raise by).
            self.m += 1;
        } else if rate > load * (1.0 + a.margin) {
            // Sending faster than flows arrive (whatever the backlog): stability may hold with
            // fewer flows in the network (if not, the rate falls short and M grows back).
            self.m = self.m.saturating_sub(1).max(a.min);
        }
        self.last_step = now;
        if self.m != before {
            self.steps += 1;
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
    /// must not do is ratchet up towards the vanilla number of flows (the earlier rule,
    /// which allowed no decrease while a backlog stood, averaged 7.3 here) nor starve the
    /// class. With the core's default timescales, over 20 000 s after a 2 000 s start, M's
    /// time-average is within one step of 6 and the class sends at least 95% of what
    /// arrives.
    #[test]
    fn at_high_load_the_loop_does_not_ratchet_m_up() {
        let (k, f): (f64, f64) = (1.0, 0.84);
        let critical = (k * f / (1.0 - f)).ceil() as u32;
        assert_eq!(critical, 6);
        for seed in [3, 11, 29] {
            let run = run_fluid(
                (k, f, 437_500.0, 3e6),
                Adaptive::default(),
                22_000.0,
                2_000.0,
                seed,
            );
            assert_single_steps(seed, &run.path);
            let settled = &run.m[2_000..];
            let mean = settled.iter().map(|&m| m as f64).sum::<f64>() / settled.len() as f64;
            let carried = run.sent / run.arrived;
            assert!(
                (mean - critical as f64).abs() <= 1.0 && carried >= 0.95,
                "seed {seed}: mean M {mean:.2}, carried {carried:.3}, saturations {}: {:?}",
                run.saturations,
                run.path
            );
        }
    }

    /// Overload, as at 95% load on the packet-level links: the background brings more than the
    /// excess capacity (f = 1.5), so no M keeps its backlog stable ((27) has no solution) and
    /// the backlog grows whatever the loop does. Without the saturation check (min_gain = 0)
    /// the loop raises M to its maximum. With it, the steps that still add 2% of rate in the
    /// fluid model (26) are kept: the step to M adds k / ((M − 1)(k + M)), 2.08% for M = 7 and
    /// 1.59% for M = 8 with one long flow, 2.27% for M = 9 and 1.85% for M = 10 with two, and
    /// nothing with none (any M gets the whole excess). M goes one step past the last useful
    /// one to measure it, so M ≤ 8, 10 and 2. Held over 20 000 s, so any slow creep shows.
    #[test]
    fn in_overload_m_stays_bounded() {
        for (k, bound) in [(1.0, 8), (2.0, 10), (0.0, 2)] {
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

    /// The check judges the rate a step gave, measured: a raise that lifted the busy rate by
    /// less than `min_gain` is taken back and bars growth for `memory`; one that lifted it more
    /// stays. Driven by hand: a flow per slot, always a backlog, the rate chosen per M.
    #[test]
    fn a_raise_that_bought_no_rate_is_taken_back_and_bars_growth() {
        let cfg = Adaptive {
            window: Duration::from_secs(60),
            period: Duration::from_secs(15),
            probe: Duration::from_secs(60),
            memory: Duration::from_secs(600),
            ..Adaptive::default()
        };
        let mut a = Admission::new(AdmissionConfig {
            limit: Limit::Adaptive(cfg),
            max_waiting: 1000,
        })
        .unwrap();
        // Bytes per second the class gets with M busy slots: 100 kB/s for M = 1, 150 kB/s for
        // M = 2, and 151 kB/s (+0.7%) for M = 3. The load asked is 1 MB/s: always short.
        let rate_of = |m: u32| match m {
            1 => 100_000.0,
            2 => 150_000.0,
            _ => 151_000.0,
        };
        let mut next = 0u64;
        let mut arrive = |a: &mut Admission, t: Duration| {
            next += 1;
            a.arrive(t, FlowId(next));
        };
        for _ in 0..20 {
            arrive(&mut a, Duration::ZERO);
        }
        // One flow of 1 MB finishes every second (the load estimate: 1 MB/s); a new one
        // arrives each second, so the backlog stays at 20.
        let mut path = vec![a.limit()];
        let mut m_at = vec![a.limit()];
        let mut first = None;
        for s in 1..=1_500u64 {
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
        assert_single_steps(0, &path);
        // It went 1 → 2 → 3, found 3 no better than 2 (+0.7% < 2%), and went back to 2,
        // which it holds for the memory: the backlog stands, but nothing says 3 would help.
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
    /// Open (issue 10, session 10): pinned, ignored. The check's "surely" must hold with the
    /// few periods a probe gives. Per-period rates in
    /// a packet network vary by tens of per cent (short flows come and go); here each period's
    /// rate is the M's rate times a factor drawn uniformly in [0.6, 1.4] (sd 23%), the steps
    /// 1 → 2 → 3 → 4 pay 50%, 17% and 9%, and nothing beyond 4 pays. A raise that pays 9% or
    /// more must not be judged surely below 2% — not once in 20 000 s over several seeds —
    /// while the useless steps above 4 still are (M stays bounded). On the committed loop both
    /// fail: seed 1 keeps every useless raise (M reaches 32: the creep of bg-fig7), seed 2
    /// takes back a paying raise and bars growth at 2 (a population variance over one or two
    /// periods, and two standard errors instead of Student's t, make a noisy gain look sure).
    /// Student's t on the records' periods alone removes the false take-backs and makes the
    /// creep worse (no raise is ever surely useless under this noise): deciding each raise
    /// both ways needs more periods than a probe gives, i.e. a sequential test that holds M
    /// until the last raise is proven to pay or not — not done.
    #[test]
    #[ignore = "open: the overload check under per-period noise (issue 10)"]
    fn noisy_periods_do_not_make_a_paying_raise_look_useless() {
        let cfg = Adaptive::default();
        let rate_of = |m: u32| match m {
            1 => 100_000.0,
            2 => 150_000.0,
            3 => 175_000.0,
            4 => 190_000.0,
            _ => 190_000.0,
        };
        for seed in [1u64, 2, 3, 4, 5, 6] {
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
            let mut lowest_ceiling = u32::MAX;
            let mut top = 0;
            for s in 1..=20_000u64 {
                let t = Duration::from_secs(s);
                if s % period == 1 {
                    factor = 0.6 + 0.8 * rng.uniform();
                }
                // The load asked is 1 MB/s: always short, always a backlog.
                a.sent(t, (rate_of(a.limit()) * factor) as u64);
                a.tick(t);
                if let Some(c) = a.ceiling(t) {
                    lowest_ceiling = lowest_ceiling.min(c);
                }
                top = top.max(a.limit());
                let oldest = *a.active.iter().next().unwrap();
                a.release(t, oldest, Some(1_000_000));
                next += 1;
                a.arrive(t, FlowId(next));
            }
            assert!(
                lowest_ceiling >= 4,
                "seed {seed}: a paying raise was taken back (ceiling {lowest_ceiling}), {} saturations",
                a.saturations()
            );
            assert!(top <= 8, "seed {seed}: M reached {top}");
        }
    }
}
