//! Background transfers with minimal delay impact (paper 004, Sections II–III).
//!
//! Model (Section II-A): a link of capacity `C`, `k` persistent ("long") TCP flows, short TCP
//! flows arriving at rate `λ` with exponential sizes of mean `1/μ`, load `ρ = λ/(μC)`, and a
//! controlled background aggregate (CBF). When `n` short flows are present every TCP flow
//! receives `x_n ≤ C/(k+n)` and the CBF the rest, `C − (k+n)x_n`; `n` is a birth–death chain
//! with birth rate `λ` and death rate `μ n x_n` (eq. (1)). The CBF must obtain a fraction `f`
//! of the excess capacity `C(1−ρ)` (eq. (6)); the objective is the mean number of short
//! flows (eq. (2)), i.e. by Little's law their mean delay.
//!
//! All results here are expressed through `cbf_share(n) = 1 − (k+n)x_n/C ∈ [0, 1]`, the
//! fraction of the link the CBF takes in state `n`.
//!
//! | module | content | paper |
//! |---|---|---|
//! | [`erlang`] | Erlang B, Engset, `a_f` | Prop. 1, Cor. 1 |
//! | [`threshold`] | Lemma 1, `N_{n0}`, `n_*`, `N_*`, Cor. 1 | eqs. (8)–(13), (28) |
//! | [`implementable`] | optimal implementable policy `M_*` | Theorem 3, eq. (15) |
//! | [`wtcp`] | wTCP, Theorem 5, access control, vanilla | eqs. (16)–(19), (26)–(27) |

pub mod erlang;
pub mod implementable;
pub mod threshold;
pub mod wtcp;

use crate::error::{self, ModelError, Result};

/// Validate the triple `(k, f, ρ)` shared by Section II's results: `ρ ∈ (0, 1)`, `f ∈ [0, 1)`.
pub(crate) fn check(f: f64, rho: f64) -> Result<()> {
    error::load(rho)?;
    if rho <= 0.0 {
        return Err(ModelError::InvalidParameter {
            name: "rho",
            value: rho,
            reason: "the short-flow load must be > 0",
        });
    }
    error::fraction("f", f)?;
    Ok(())
}

/// Stationary statistics of the short-flow chain (eq. (1)) under an arbitrary policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainStats {
    /// Mean number of short flows `Σ n π_n`.
    pub mean_short: f64,
    /// CBF throughput as a fraction of the excess capacity, `Σ π_n cbf_share(n) / (1 − ρ)`.
    pub cbf_fraction: f64,
    /// Lowest recurrent state (states below it are transient when `cbf_share = 1` there).
    pub lowest_state: u64,
}

/// Solve the birth–death chain of eq. (1) for a policy given by `cbf_share(n)` (the CBF's
/// fraction of the capacity in state `n`; TCP flows then get `x_n = (1 − cbf_share(n))C/(k+n)`).
///
/// Detailed balance gives `π_n/π_{n−1} = ρ (k+n) / (n (1 − cbf_share(n)))`; states whose
/// successor has `cbf_share = 1` cannot be left downwards, so the recurrent class starts at
/// the last such state. Weights are accumulated in log space and the sum is cut where the
/// terms fall below `e^{−60}` of the largest (the tail is geometric with ratio → ρ).
/// `cbf_share(n)` must be 1 on an initial segment at most (threshold-like policies) and
/// below 1 from some state on.
pub fn solve_chain<S: Fn(u64) -> f64>(k: u32, rho: f64, cbf_share: S) -> Result<ChainStats> {
    error::load(rho)?;
    let kf = k as f64;
    let mut logw: Vec<f64> = vec![0.0];
    let mut start = 0u64;
    let mut n = 0u64;
    let mut max_lw: f64 = 0.0;
    let limit = 20_000_000u64;
    loop {
        n += 1;
        let s = cbf_share(n).clamp(0.0, 1.0);
        if s >= 1.0 {
            // State n cannot be left downwards: restart the recurrent class at n.
            start = n;
            logw.clear();
            logw.push(0.0);
            max_lw = 0.0;
            continue;
        }
        let ratio = rho * (kf + n as f64) / (n as f64 * (1.0 - s));
        let lw = logw[logw.len() - 1] + ratio.ln();
        logw.push(lw);
        max_lw = max_lw.max(lw);
        if ratio < 1.0 && lw < max_lw - 60.0 {
            break;
        }
        if n > limit {
            return Err(ModelError::NoConvergence {
                method: "short-flow chain truncation",
                iterations: n as usize,
                residual: lw - max_lw,
                tolerance: -60.0,
            });
        }
    }
    let mut z = 0.0;
    let mut m = 0.0;
    let mut cbf = 0.0;
    for (i, lw) in logw.iter().enumerate() {
        let state = start + i as u64;
        let w = (lw - max_lw).exp();
        z += w;
        m += w * state as f64;
        cbf += w * cbf_share(state).clamp(0.0, 1.0);
    }
    Ok(ChainStats {
        mean_short: m / z,
        cbf_fraction: cbf / z / (1.0 - rho),
        lowest_state: start,
    })
}
