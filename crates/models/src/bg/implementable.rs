//! The optimal policy implementable by congestion feedback (paper 004, Theorem 3, eq. (15)).
//!
//! Eq. (15): `x_n = x_{n−1}` for `n ≤ n_*` and `x_n = C/(k+n)` for `n > n_*`, with
//! `x_0 = … = x_{n_*}` fixed by the throughput target. Monotonicity (`x_{n_*} ≥ x_{n_*+1}`)
//! and capacity (`x_{n_*} ≤ C/(k+n_*)`) put `x_{n_*}` in `[C/(k+n_*+1), C/(k+n_*)]`, so
//! the whole family is `x_n = C / (k + max(n, ν))` for one real `ν ≥ 0` with
//! `n_* = ⌊ν⌋`: TCP flows are capped at the rate they would have with `ν` short flows,
//! and the CBF takes `C(1 − (k+n)/(k+ν))` while `n < ν`. The CBF throughput increases
//! continuously with `ν`, so the `ν` meeting the target `f` is found by bisection — this
//! is "the optimal implementable policy found numerically", `M_*(k, f, ρ)` of Theorem 4.

use super::{check, solve_chain, ChainStats};
use crate::error::{ModelError, Result};
use crate::num;

/// The optimal implementable policy for `(k, f, ρ)` and its mean number of short flows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImplementablePolicy {
    /// Number of long flows (≥ 1).
    pub k: u32,
    /// Target fraction of the excess capacity.
    pub f: f64,
    /// Short-flow load.
    pub rho: f64,
    /// `ν`: TCP flows get `C/(k + max(n, ν))`.
    pub nu: f64,
    /// `M_*(k, f, ρ)`.
    pub mean_short: f64,
}

impl ImplementablePolicy {
    /// Solve for `ν` such that the CBF obtains the fraction `f` (bisection to `1e-10`
    /// relative on `ν`).
    pub fn new(k: u32, f: f64, rho: f64) -> Result<Self> {
        check(f, rho)?;
        if k == 0 {
            return Err(ModelError::InvalidParameter {
                name: "k",
                value: 0.0,
                reason: "the implementable policy (15) needs at least one long flow",
            });
        }
        let stats = |nu: f64| -> Result<ChainStats> { solve_chain(k, rho, |n| share(k, nu, n)) };
        if f == 0.0 {
            let s = stats(0.0)?;
            return Ok(Self {
                k,
                f,
                rho,
                nu: 0.0,
                mean_short: s.mean_short,
            });
        }
        let mut hi = 1.0;
        while stats(hi)?.cbf_fraction < f {
            hi *= 2.0;
            if hi > 1e9 {
                return Err(ModelError::Overflow("the implementable policy level ν"));
            }
        }
        let nu = num::bisect(|nu| Ok(stats(nu)?.cbf_fraction - f), 0.0, hi, hi * 1e-12)?;
        let s = stats(nu)?;
        Ok(Self {
            k,
            f,
            rho,
            nu,
            mean_short: s.mean_short,
        })
    }

    /// `n_* = ⌊ν⌋` of eq. (15).
    pub fn n_star(&self) -> u64 {
        self.nu.floor() as u64
    }

    /// The CBF's share of the link in state `n`: `max(0, 1 − (k+n)/(k+ν))`.
    pub fn cbf_share(&self, n: u64) -> f64 {
        share(self.k, self.nu, n)
    }

    /// `M_*` normalised by `ρ/(1−ρ)`.
    pub fn normalised_delay(&self) -> f64 {
        self.mean_short * (1.0 - self.rho) / self.rho
    }
}

fn share(k: u32, nu: f64, n: u64) -> f64 {
    let kf = k as f64;
    (1.0 - (kf + n as f64) / (kf + nu)).max(0.0)
}
