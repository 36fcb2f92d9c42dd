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
//! every [`Adaptive::period`] M moves by at most one step: up when flows wait, every active
//! slot is busy and the sending rate falls short of the arrival load (the backlog would grow
//! without bound), down when the backlog stays below its target while the rate keeps up (M is
//! larger than stability needs, which costs short flows delay). The loop so keeps "long but
//! not unstable" queues, which is where (27) holds.
//!
//! Sans-IO: time is an argument; the [`Session`](crate::Session) owns one controller when
//! background routes are configured and tells it of arrivals, bytes sent and flow ends.

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use crate::ids::FlowId;

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
    /// fraction (default 0.02): the estimates' noise must not look like a growing backlog.
    pub margin: f64,
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

/// The access controller of one background class. See the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Admission {
    config: AdmissionConfig,
    m: u32,
    active: BTreeSet<FlowId>,
    waiting: VecDeque<FlowId>,
    /// Background bytes sent per second.
    rate: Ewma,
    /// Background bytes sent since M last moved: the loop judges M by the rate it gave.
    since_step: u64,
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
            arrivals: Ewma::default(),
            finished_bytes: Ewma::default(),
            finished: Ewma::default(),
            last_step: Duration::ZERO,
            started: None,
            refused: 0,
            steps: 0,
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
        if self.active.len() < self.m as usize && self.waiting.is_empty() {
            self.arrivals.add(now, 1.0, tau);
            self.active.insert(flow);
            return Verdict::Admitted;
        }
        if self.waiting.len() >= self.config.max_waiting {
            self.refused += 1;
            return Verdict::Refused;
        }
        self.arrivals.add(now, 1.0, tau);
        self.waiting.push_back(flow);
        Verdict::Waiting(self.waiting.len() - 1)
    }

    /// `bytes` of background flows went out.
    pub fn sent(&mut self, now: Duration, bytes: u64) {
        let tau = self.tau();
        self.rate.add(now, bytes as f64, tau);
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
        if let Limit::Adaptive(a) = self.config.limit {
            self.adapt(now, a);
        }
        let mut admitted = Vec::new();
        while self.active.len() < self.m as usize {
            let Some(f) = self.waiting.pop_front() else {
                break;
            };
            self.active.insert(f);
            admitted.push(f);
        }
        admitted
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
        let busy = self.active.len() >= self.m as usize;
        let waiting = self.waiting.len();
        let before = self.m;
        if busy && waiting > a.target_waiting && rate < load * (1.0 - a.margin) {
            // The backlog grows: every slot is busy and still the class sends less than it
            // receives.
            self.m = (self.m + 1).min(a.max);
        } else if waiting < a.target_waiting && rate >= load {
            // Keeping up with a short backlog: stability may hold with fewer flows in the
            // network (if not, the backlog grows back and M with it).
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

    /// The fluid model of equation (26) on a synthetic load: excess capacity `X = C(1 − ρ)`
    /// shared equally by `k` long TCP flows and the active background flows; background flows
    /// arrive as a Poisson process with exponential sizes. Returns M every 50 s, and every
    /// value M took in order.
    fn run_fluid(k: f64, f: f64, seconds: f64, seed: u64) -> (Vec<u32>, Vec<u32>) {
        let excess = 1_000_000.0; // bytes per second left by short flows
        let mean = 200_000.0; // mean background size, bytes
        let lambda = f * excess / mean; // ρ_b / (1 − ρ) = f
        let cfg = Adaptive {
            window: Duration::from_secs(400),
            period: Duration::from_secs(50),
            ..Adaptive::default()
        };
        let mut a = Admission::new(AdmissionConfig {
            limit: Limit::Adaptive(cfg),
            max_waiting: 1_000_000,
        })
        .unwrap();
        let mut rng = Rng(seed);
        let dt = 0.01;
        let mut t = 0.0;
        let mut next_arrival = rng.exp(1.0 / lambda);
        let mut next_id = 1u64;
        let mut remaining: std::collections::BTreeMap<FlowId, (f64, f64)> = Default::default();
        let mut ms = Vec::new();
        let mut path = vec![a.limit()];
        let mut last_sample = 0.0;
        while t < seconds {
            let now = Duration::from_secs_f64(t);
            while next_arrival <= t {
                let id = FlowId(next_id);
                next_id += 1;
                let size = rng.exp(mean).max(1.0);
                remaining.insert(id, (size, size));
                a.arrive(now, id);
                next_arrival += rng.exp(1.0 / lambda);
            }
            let active: Vec<FlowId> = a.active.iter().copied().collect();
            let share = excess / (k + active.len() as f64);
            let mut done = Vec::new();
            let mut sent = 0.0;
            for id in active {
                let r = remaining.get_mut(&id).unwrap();
                let x = (share * dt).min(r.0);
                r.0 -= x;
                sent += x;
                if r.0 <= 0.0 {
                    done.push(id);
                }
            }
            a.sent(now, sent as u64);
            for id in done {
                let (_, size) = remaining.remove(&id).unwrap();
                a.release(now, id, Some(size as u64));
            }
            a.tick(now);
            if path.last() != Some(&a.limit()) {
                path.push(a.limit());
            }
            if t - last_sample >= 50.0 {
                ms.push(a.limit());
                last_sample = t;
            }
            t += dt;
        }
        (ms, path)
    }

    /// Equation (27): M* = k f / (1 − f). With k = 2 and f = 0.7, M* = 4.67: the least stable
    /// M is 5. Mean flow life is about 1.4 s, the estimates' memory 400 s, a step every 50 s.
    /// From M = 1 the loop reaches the critical value within 1 500 s; M moves by one step at a
    /// time, and after 1 500 s it is within one step of 5 at least 90% of the time (at 6 while
    /// the backlog built up at the start drains, at 4 when the estimates' noise, a few per
    /// cent over 400 s, makes a short backlog look sustainable with fewer flows).
    #[test]
    fn the_adaptive_loop_converges_to_the_critical_m_of_equation_27() {
        let (k, f): (f64, f64) = (2.0, 0.7);
        let critical = (k * f / (1.0 - f)).ceil() as u32;
        assert_eq!(critical, 5);
        for seed in [1, 7, 42] {
            let (ms, path) = run_fluid(k, f, 4_000.0, seed);
            for w in path.windows(2) {
                assert_eq!(
                    w[0].abs_diff(w[1]),
                    1,
                    "seed {seed}: steps of one: {path:?}"
                );
            }
            let settled = &ms[30..];
            let near = settled
                .iter()
                .filter(|&&m| m.abs_diff(critical) <= 1)
                .count();
            assert!(
                near * 10 >= settled.len() * 9,
                "seed {seed}: M after 1 500 s {settled:?}"
            );
        }
    }
}
