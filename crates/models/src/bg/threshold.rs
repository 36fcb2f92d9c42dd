//! The optimal full-information policy: threshold structure (paper 004, Section II-B).

use super::{check, erlang};
use crate::error::{ModelError, Result};

/// `r = (1 − ρ)/ρ`, the per-source traffic of the associated loss system (Proposition 1).
fn r_of(rho: f64) -> f64 {
    (1.0 - rho) / rho
}

/// Lemma 1, eq. (28): stationary probability `π_n` of `n` short flows under the threshold
/// policy (12) with threshold `n0` (TCP flows get nothing in states `n ≤ n0`):
///
/// ```text
/// π_n = C(n+k, k) (1−ρ)^{k+1} ρ^n / Σ_{i=0}^k C(n0+k, i) (1−ρ)^i ρ^{n0+k−i},  n ≥ n0,
/// ```
///
/// i.e. the law of a sum of `k+1` geometric variables conditioned to be `≥ n0`.
/// Computed without binomials: `π_{n0} = (1−ρ) E(n0+k+1, k, r)` (proof of Proposition 1)
/// and `π_{n+1}/π_n = ρ(n+1+k)/(n+1)`. Returns `π_{n0}, π_{n0+1}, …` until the remaining
/// mass is below `tail` (and the terms decrease).
pub fn lemma1_distribution(k: u32, rho: f64, n0: u64, tail: f64) -> Result<Vec<f64>> {
    check(0.0, rho)?;
    if !(tail > 0.0 && tail < 1.0) {
        return Err(ModelError::InvalidParameter {
            name: "tail",
            value: tail,
            reason: "must be in (0, 1)",
        });
    }
    let mut p = (1.0 - rho) * erlang::engset(n0 + k as u64 + 1, k as u64, r_of(rho))?;
    let mut out = vec![p];
    let mut acc = p;
    let mut n = n0;
    while 1.0 - acc > tail || out.len() < 2 {
        let ratio = rho * (n + 1 + k as u64) as f64 / (n + 1) as f64;
        p *= ratio;
        n += 1;
        out.push(p);
        acc += p;
        if ratio < 1.0 && p < tail * 1e-3 {
            break;
        }
        if out.len() > 100_000_000 {
            return Err(ModelError::Overflow("Lemma 1 distribution length"));
        }
    }
    Ok(out)
}

/// Theorem 2, eq. (13): mean number of short flows under the threshold policy (12),
/// `N_{n0} = (k+1)ρ/(1−ρ) + n0 E(n0+k+1, k, (1−ρ)/ρ)`.
pub fn threshold_mean(k: u32, rho: f64, n0: u64) -> Result<f64> {
    check(0.0, rho)?;
    let e = erlang::engset(n0 + k as u64 + 1, k as u64, r_of(rho))?;
    Ok((k as f64 + 1.0) * rho / (1.0 - rho) + n0 as f64 * e)
}

/// CBF fraction of the excess capacity obtained by the threshold policy (12) with threshold
/// `n0`: `π_{n0}/(1−ρ) = E(n0+k+1, k, (1−ρ)/ρ)` (proof of Proposition 1).
pub fn threshold_fraction(k: u32, rho: f64, n0: u64) -> Result<f64> {
    check(0.0, rho)?;
    erlang::engset(n0 + k as u64 + 1, k as u64, r_of(rho))
}

/// Proposition 1, eq. (11): the optimal threshold `n_*`, the integer with
/// `E(n_*+k+1, k, r) ≤ f < E(n_*+k+2, k, r)`, `r = (1−ρ)/ρ`.
/// Returns `None` when `(1−ρ)^k > f` (Theorem 1: the CBF then behaves as low priority,
/// eq. (9), and no threshold is needed). Found by exponential then binary search, since
/// the Engset blocking grows with the number of sources.
pub fn optimal_threshold(k: u32, f: f64, rho: f64) -> Result<Option<u64>> {
    check(f, rho)?;
    let r = r_of(rho);
    let kk = k as u64;
    let e = |n: u64| erlang::engset(n + kk + 1, kk, r);
    if k == 0 || e(0)? > f {
        return Ok(None);
    }
    // Smallest n with f < E(n+k+2), i.e. f < e(n+1).
    let mut hi = 1u64;
    while e(hi + 1)? <= f {
        hi *= 2;
        if hi > 1u64 << 40 {
            return Err(ModelError::Overflow("the optimal threshold n_*"));
        }
    }
    let mut lo = 0u64;
    // Invariant: the answer is in [lo, hi].
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if e(mid + 1)? > f {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(Some(lo))
}

/// Which of Theorem 1's two regimes applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Regime {
    /// `(1−ρ)^k > f`: the CBF sends only when no short flow is present, eq. (9), taking the
    /// fraction `f/(1−ρ)^k` of the link there.
    LowPriority {
        /// CBF share of the link in state 0.
        share_at_zero: f64,
    },
    /// `(1−ρ)^k ≤ f`: eq. (8), the CBF takes the whole link for `n ≤ n_*`, leaves a share
    /// `θ` of the fair TCP rate in state `n_*+1` (eq. (10)) and nothing above.
    Threshold {
        /// The threshold `n_*` of Proposition 1.
        n_star: u64,
        /// `θ = x_{n_*+1}(k+n_*+1)/C ∈ (0, 1]`, from eq. (10).
        theta: f64,
    },
}

/// The optimal full-information policy of Theorem 1 and its performance `N_*(k, f, ρ)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptimalPolicy {
    /// Number of long flows.
    pub k: u32,
    /// Target fraction of the excess capacity.
    pub f: f64,
    /// Short-flow load.
    pub rho: f64,
    /// The regime and its parameters.
    pub regime: Regime,
    /// `N_*(k, f, ρ)`, eq. (2): the minimum mean number of short flows.
    pub mean_short: f64,
}

impl OptimalPolicy {
    /// Solve Theorem 1 / Proposition 1 / eq. (10) for `(k, f, ρ)`.
    ///
    /// In the threshold regime the stationary law lives on `n ≥ n_*`. Writing
    /// `s = ρ(k+n_*+1)/(n_*+1)`, `π' = (1−ρ)E(n_*+k+2, k, r)` (Lemma 1's `π_{n_*+1}` for
    /// threshold `n_*+1`) and `u = 1/θ`, the balance equations give
    /// `π_{n_*} = 1/(1 + s u/π')`, the law on `n ≥ n_*+1` is Lemma 1's for `n0 = n_*+1`, and
    /// eq. (10), `π_{n_*} + π_{n_*+1}(1 − θ) = (1−ρ)f`, is linear in `u`:
    /// `u = (s − 1 + (1−ρ)f) / (s (1 − (1−ρ)f/π'))`. Hence
    /// `N_* = π_{n_*} n_* + (1 − π_{n_*}) N_{n_*+1}`, which lies in `[N_{n_*}, N_{n_*+1})`
    /// as Theorem 2 states.
    pub fn new(k: u32, f: f64, rho: f64) -> Result<Self> {
        check(f, rho)?;
        let base = (k as f64 + 1.0) * rho / (1.0 - rho);
        let regime_threshold = optimal_threshold(k, f, rho)?;
        let Some(n_star) = regime_threshold else {
            let share_at_zero = if k == 0 {
                f
            } else {
                f / (1.0 - rho).powi(k as i32)
            };
            return Ok(Self {
                k,
                f,
                rho,
                regime: Regime::LowPriority { share_at_zero },
                mean_short: base,
            });
        };
        let kf = k as f64;
        let ns = n_star as f64;
        let s = rho * (kf + ns + 1.0) / (ns + 1.0);
        let pi_prime = (1.0 - rho) * threshold_fraction(k, rho, n_star + 1)?;
        let big_f = (1.0 - rho) * f;
        let u = (s - 1.0 + big_f) / (s * (1.0 - big_f / pi_prime));
        let u = u.max(1.0);
        let theta = 1.0 / u;
        let pi_nstar = 1.0 / (1.0 + s * u / pi_prime);
        let n_next = threshold_mean(k, rho, n_star + 1)?;
        let mean_short = pi_nstar * ns + (1.0 - pi_nstar) * n_next;
        Ok(Self {
            k,
            f,
            rho,
            regime: Regime::Threshold { n_star, theta },
            mean_short,
        })
    }

    /// The CBF's share of the link in state `n` (`1 − (k+n)x_n/C`).
    pub fn cbf_share(&self, n: u64) -> f64 {
        match self.regime {
            Regime::LowPriority { share_at_zero } => {
                if n == 0 {
                    share_at_zero
                } else {
                    0.0
                }
            }
            Regime::Threshold { n_star, theta } => {
                if n <= n_star {
                    1.0
                } else if n == n_star + 1 {
                    1.0 - theta
                } else {
                    0.0
                }
            }
        }
    }

    /// `N_*` normalised by `ρ/(1−ρ)`, the mean with neither long nor background flows
    /// (the y-axis of paper 004, Fig. 2).
    pub fn normalised_delay(&self) -> f64 {
        self.mean_short * (1.0 - self.rho) / self.rho
    }
}

/// Corollary 1: `a_f` with `B(k, a_f) = f`; `n_*(1−ρ) → a_f` as `ρ → 1`.
pub fn corollary1_af(k: u32, f: f64) -> Result<f64> {
    erlang::erlang_b_inverse(k, f)
}

/// Corollary 1: the heavy-traffic limit `lim_{ρ→1} N_*(k, f, ρ)(1−ρ) = k + 1 + a_f f`.
pub fn corollary1_limit(k: u32, f: f64) -> Result<f64> {
    Ok(k as f64 + 1.0 + corollary1_af(k, f)? * f)
}
