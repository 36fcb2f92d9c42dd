//! Paper 004's flow-level model, simulated exactly.
//!
//! A link of capacity `C` carries `k` persistent TCP flows, short TCP flows (Poisson rate
//! `λ`, sizes from a distribution) and a controlled background aggregate (CBF). All TCP flows
//! — short, long, and active background micro-flows — receive the same rate `x` at any time
//! (they share by TCP fairness); the control decides how much the CBF takes:
//!
//! * [`BgControl::Shares`]: an infinitely backlogged CBF taking the fraction `s(n)` of the
//!   link when `n` short flows are present (the optimal threshold policy of Theorem 1, the
//!   implementable policy of Theorem 3, or any other); TCP flows get `(1 − s(n))C/(k+n)`.
//! * [`BgControl::WTcp`]: the CBF behaves as `w` TCP flows, `x = C/(k+w+n)` (Section II-D).
//! * [`BgControl::AccessControl`]: the CBF is a stream of micro-flows (Poisson `λ_b`, sizes
//!   from a distribution); at most `M` of them are active, each a TCP flow, the others wait
//!   outside the network (eq. (26)). `M` is fixed or adapted slowly (Section IV-A).
//! * [`BgControl::Vanilla`]: every micro-flow opens its own TCP connection at once.
//!
//! A shared virtual clock `V` (`dV/dt = x`) gives every TCP flow's finishing point, so the
//! simulation is event-driven and exact between events.

use crate::{positive, Key, Result, SimError};
use models::SizeDist;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// How the limit `M` on active micro-flows is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MLimit {
    /// A constant `M ≥ 1`.
    Fixed(u32),
    /// Adapted slowly so that the background sending rate tracks its arrival load
    /// (paper 004, Section IV-A). Every `period` time units the controller measures the
    /// arrival load `L` (work per time) and the rate `x̄` an active micro-flow obtained, both
    /// smoothed by an EWMA of weight `ewma_weight`, and sets the fractional target
    /// `M* = (L / x̄) · (1 + 0.1 · clamp((q̄ − B)/B, −1, 1))`, where `q̄` is the period's mean
    /// number of waiting micro-flows and `B = target_backlog` (a gentle correction that keeps
    /// the queue long but stable, as after Theorem 7). The integer limit realises `M*` on
    /// average by error diffusion (`M = ⌊M* + carry⌋`, possibly 0 for a period), so the
    /// time-average `M` tracks the critical value of eq. (27).
    Adaptive {
        /// Starting limit.
        initial: u32,
        /// Adaptation period (time units); long compared with micro-flow lifetimes.
        period: f64,
        /// EWMA weight in `(0, 1]` for the load and rate estimates.
        ewma_weight: f64,
        /// Backlog of waiting micro-flows the controller aims at (> 0).
        target_backlog: f64,
    },
}

/// The background control.
#[derive(Clone)]
pub enum BgControl {
    /// Infinitely backlogged CBF taking the fraction `s(n) ∈ [0, 1]` of the link in state `n`.
    Shares(Arc<dyn Fn(u64) -> f64 + Send + Sync>),
    /// wTCP with weight `w ≥ 0`.
    WTcp {
        /// Weight `w`.
        w: f64,
    },
    /// Micro-flows under access control.
    AccessControl(MLimit),
    /// Micro-flows each opening a TCP connection (no limit).
    Vanilla,
}

impl std::fmt::Debug for BgControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BgControl::Shares(_) => write!(f, "Shares(..)"),
            BgControl::WTcp { w } => write!(f, "WTcp {{ w: {w} }}"),
            BgControl::AccessControl(m) => write!(f, "AccessControl({m:?})"),
            BgControl::Vanilla => write!(f, "Vanilla"),
        }
    }
}

/// Background micro-flows: Poisson arrivals and sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct MicroFlows {
    /// Arrival rate `λ_b`.
    pub lambda: f64,
    /// Size distribution (work units).
    pub size: SizeDist,
}

/// A simulation of paper 004's model.
#[derive(Debug, Clone)]
pub struct BgConfig {
    /// Link capacity `C` (work units per time unit).
    pub capacity: f64,
    /// Short-flow arrival rate `λ`.
    pub lambda: f64,
    /// Short-flow size distribution.
    pub short_size: SizeDist,
    /// Number of persistent TCP flows `k`.
    pub k: u32,
    /// The background control.
    pub control: BgControl,
    /// Micro-flows (required by access control and vanilla).
    pub micro: Option<MicroFlows>,
    /// Simulated time.
    pub horizon: f64,
    /// Statistics ignore `[0, warmup)`.
    pub warmup: f64,
    /// Seed (short flows and micro-flows use separate ChaCha8 streams, so that the same
    /// seed gives the same arrivals whatever the control).
    pub seed: u64,
}

/// Time averages over `[warmup, horizon)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BgStats {
    /// Time-average number of short flows.
    pub mean_short: f64,
    /// Mean sojourn of short flows arriving after the warm-up and done by the horizon.
    pub mean_delay: f64,
    /// Short flows counted in `mean_delay`.
    pub completed: u64,
    /// Mean background sending rate (work units per time).
    pub cbf_rate: f64,
    /// Time-average number of active micro-flows.
    pub mean_active_micro: f64,
    /// Time-average number of waiting micro-flows.
    pub mean_waiting_micro: f64,
    /// Time-average limit `M` (access control), else 0.
    pub mean_limit: f64,
}

impl BgStats {
    /// The CBF's share of the excess capacity, `cbf_rate / (C (1 − ρ))`.
    pub fn cbf_fraction(&self, capacity: f64, rho: f64) -> f64 {
        self.cbf_rate / (capacity * (1.0 - rho))
    }
}

/// Run the simulation.
pub fn simulate(cfg: &BgConfig) -> Result<BgStats> {
    let cap = positive("capacity", cfg.capacity)?;
    positive("lambda", cfg.lambda)?;
    positive("horizon", cfg.horizon)?;
    if !(cfg.warmup >= 0.0 && cfg.warmup < cfg.horizon) {
        return Err(SimError::InvalidParameter {
            name: "warmup",
            value: cfg.warmup,
            reason: "must be in [0, horizon)",
        });
    }
    let kf = cfg.k as f64;
    let uses_micro = matches!(
        cfg.control,
        BgControl::AccessControl(_) | BgControl::Vanilla
    );
    let micro = match (&cfg.micro, uses_micro) {
        (Some(m), true) => {
            positive("micro lambda", m.lambda)?;
            Some(m.clone())
        }
        (None, true) => {
            return Err(SimError::InvalidParameter {
                name: "micro",
                value: 0.0,
                reason: "access control and vanilla need micro-flows",
            })
        }
        _ => None,
    };
    let (mut limit, adaptive) = match cfg.control {
        BgControl::AccessControl(MLimit::Fixed(m)) => {
            if m == 0 {
                return Err(SimError::InvalidParameter {
                    name: "M",
                    value: 0.0,
                    reason: "the access-control limit must be >= 1",
                });
            }
            (m as u64, None)
        }
        BgControl::AccessControl(MLimit::Adaptive {
            initial,
            period,
            ewma_weight,
            target_backlog,
        }) => {
            positive("period", period)?;
            positive("target_backlog", target_backlog)?;
            if !(ewma_weight > 0.0 && ewma_weight <= 1.0) {
                return Err(SimError::InvalidParameter {
                    name: "ewma_weight",
                    value: ewma_weight,
                    reason: "must be in (0, 1]",
                });
            }
            (initial as u64, Some((period, ewma_weight, target_backlog)))
        }
        BgControl::Vanilla => (u64::MAX, None),
        BgControl::WTcp { w } => {
            if !(w.is_finite() && w >= 0.0) {
                return Err(SimError::InvalidParameter {
                    name: "w",
                    value: w,
                    reason: "must be finite and >= 0",
                });
            }
            (0, None)
        }
        BgControl::Shares(_) => (0, None),
    };

    let mut rng_short = ChaCha8Rng::seed_from_u64(cfg.seed);
    rng_short.set_stream(1);
    let mut rng_micro = ChaCha8Rng::seed_from_u64(cfg.seed);
    rng_micro.set_stream(2);
    let exp = |rng: &mut ChaCha8Rng, rate: f64| -(1.0 - rng.random::<f64>()).ln() / rate;
    let draw = |rng: &mut ChaCha8Rng, d: &SizeDist| {
        let pick: f64 = rng.random();
        let q = 1.0 - rng.random::<f64>();
        d.sample(pick, q).max(f64::MIN_POSITIVE)
    };

    // Per-flow TCP rate and CBF rate in the current state.
    let rates = |n: u64, active: u64| -> (f64, f64) {
        match &cfg.control {
            BgControl::Shares(s) => {
                let share = s(n).clamp(0.0, 1.0);
                let flows = kf + n as f64;
                if flows > 0.0 {
                    ((1.0 - share) * cap / flows, share * cap)
                } else {
                    (0.0, share * cap)
                }
            }
            BgControl::WTcp { w } => {
                let flows = kf + w + n as f64;
                if flows > 0.0 {
                    (cap / flows, w * cap / flows)
                } else {
                    (0.0, 0.0)
                }
            }
            BgControl::AccessControl(_) | BgControl::Vanilla => {
                let flows = kf + n as f64 + active as f64;
                if flows > 0.0 {
                    (cap / flows, active as f64 * cap / flows)
                } else {
                    (0.0, 0.0)
                }
            }
        }
    };

    let mut t = 0.0f64;
    let mut v = 0.0f64;
    let mut short: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    let mut short_arrival: Vec<f64> = Vec::new();
    let mut active: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    let mut waiting: VecDeque<f64> = VecDeque::new();
    let mut next_short = exp(&mut rng_short, cfg.lambda);
    let mut next_micro = micro
        .as_ref()
        .map_or(f64::INFINITY, |m| exp(&mut rng_micro, m.lambda));
    let mut next_epoch = adaptive.map_or(f64::INFINITY, |(p, _, _)| p);
    // Adaptive-M measurements over the current period, and the controller's state.
    let (mut waiting_epoch, mut sent_epoch, mut active_epoch, mut arrived_epoch) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut ewma_load, mut ewma_rate, mut carry) = (0.0f64, 0.0f64, 0.0f64);
    let mut first_epoch = true;

    // Accumulators over [warmup, horizon).
    let (mut int_n, mut int_active, mut int_wait, mut int_cbf, mut int_limit) =
        (0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut sum_delay, mut completed) = (0.0f64, 0u64);

    loop {
        let n = short.len() as u64;
        let a = active.len() as u64;
        let (x, cbf) = rates(n, a);
        let v_next = match (short.peek(), active.peek()) {
            (Some(Reverse(s)), Some(Reverse(m))) => s.0.min(m.0),
            (Some(Reverse(s)), None) => s.0,
            (None, Some(Reverse(m))) => m.0,
            (None, None) => f64::INFINITY,
        };
        let t_fin = if x > 0.0 && v_next.is_finite() {
            t + (v_next - v) / x
        } else {
            f64::INFINITY
        };
        let t_next = t_fin
            .min(next_short)
            .min(next_micro)
            .min(next_epoch)
            .min(cfg.horizon);
        let dt = t_next - t;
        let lo = t.max(cfg.warmup);
        let span = (t_next - lo).max(0.0);
        if span > 0.0 {
            int_n += n as f64 * span;
            int_active += a as f64 * span;
            int_wait += waiting.len() as f64 * span;
            int_cbf += cbf * span;
            if limit != u64::MAX {
                int_limit += limit as f64 * span;
            }
        }
        waiting_epoch += waiting.len() as f64 * dt;
        sent_epoch += a as f64 * x * dt;
        active_epoch += a as f64 * dt;
        t = t_next;
        if t >= cfg.horizon {
            break;
        }
        if t == t_fin {
            v = v_next;
            let short_first = match (short.peek(), active.peek()) {
                (Some(Reverse(s)), Some(Reverse(m))) => s.0 <= m.0,
                (Some(_), None) => true,
                _ => false,
            };
            if short_first {
                if let Some(Reverse(Key(_, id))) = short.pop() {
                    let arr = short_arrival[id];
                    if arr >= cfg.warmup {
                        sum_delay += t - arr;
                        completed += 1;
                    }
                }
            } else {
                active.pop();
                if (active.len() as u64) < limit {
                    if let Some(size) = waiting.pop_front() {
                        active.push(Reverse(Key(v + size, 0)));
                    }
                }
            }
            if short.is_empty() && active.is_empty() {
                v = 0.0;
            }
        } else {
            v += x * dt;
            if t == next_short {
                let size = draw(&mut rng_short, &cfg.short_size);
                let id = short_arrival.len();
                short_arrival.push(t);
                short.push(Reverse(Key(v + size, id)));
                next_short = t + exp(&mut rng_short, cfg.lambda);
            } else if t == next_micro {
                if let Some(m) = &micro {
                    let size = draw(&mut rng_micro, &m.size);
                    arrived_epoch += size;
                    if (active.len() as u64) < limit {
                        active.push(Reverse(Key(v + size, 0)));
                    } else {
                        waiting.push_back(size);
                    }
                    next_micro = t + exp(&mut rng_micro, m.lambda);
                }
            } else if t == next_epoch {
                if let Some((period, w, target)) = adaptive {
                    let load = arrived_epoch / period;
                    // Rate of one active micro-flow; if none was active, the TCP fair share
                    // a new one would get now.
                    let rate = if active_epoch > 0.0 {
                        sent_epoch / active_epoch
                    } else {
                        cap / (kf + short.len() as f64 + active.len() as f64 + 1.0)
                    };
                    if first_epoch {
                        ewma_load = load;
                        ewma_rate = rate;
                        first_epoch = false;
                    } else {
                        ewma_load += w * (load - ewma_load);
                        ewma_rate += w * (rate - ewma_rate);
                    }
                    let backlog = waiting_epoch / period;
                    let correction = 1.0 + 0.1 * ((backlog - target) / target).clamp(-1.0, 1.0);
                    let m_star = if ewma_rate > 0.0 {
                        ewma_load / ewma_rate * correction
                    } else {
                        limit as f64
                    };
                    let m_int = (m_star + carry).floor().max(0.0);
                    carry += m_star - m_int;
                    limit = m_int as u64;
                    while (active.len() as u64) < limit {
                        let Some(size) = waiting.pop_front() else {
                            break;
                        };
                        active.push(Reverse(Key(v + size, 0)));
                    }
                    waiting_epoch = 0.0;
                    sent_epoch = 0.0;
                    active_epoch = 0.0;
                    arrived_epoch = 0.0;
                    next_epoch = t + period;
                }
            }
        }
    }
    let span = cfg.horizon - cfg.warmup;
    Ok(BgStats {
        mean_short: int_n / span,
        mean_delay: if completed > 0 {
            sum_delay / completed as f64
        } else {
            0.0
        },
        completed,
        cbf_rate: int_cbf / span,
        mean_active_micro: int_active / span,
        mean_waiting_micro: int_wait / span,
        mean_limit: int_limit / span,
    })
}
