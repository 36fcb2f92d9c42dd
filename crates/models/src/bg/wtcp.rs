//! wTCP, Theorem 5's bounds, access control of micro-flows and the "vanilla" policy
//! (paper 004, Sections II-D and III).

use super::{check, erlang, threshold};
use crate::error::{self, ModelError, Result};

/// wTCP weight for target `f`: `w/(k+w) = f`, i.e. `w = kf/(1−f)` (Section II-D).
pub fn weight(k: u32, f: f64) -> Result<f64> {
    error::fraction("f", f)?;
    Ok(k as f64 * f / (1.0 - f))
}

/// Eq. (16): mean number of short flows under wTCP,
/// `N_w(k, f, ρ) = (k+w+1)ρ/(1−ρ) = ρ/(1−ρ) · (k + 1 + kf/(1−f))`.
pub fn mean_short(k: u32, f: f64, rho: f64) -> Result<f64> {
    check(f, rho)?;
    Ok(rho / (1.0 - rho) * (k as f64 + 1.0 + k as f64 * f / (1.0 - f)))
}

/// Theorem 5 part 1, eq. (17): for `k = 1`,
/// `lim_{ρ→1} (N_w − N_*)/N_* = f(1−f)/(1 + (1−f)²)`.
pub fn theorem5_k1(f: f64) -> Result<f64> {
    error::fraction("f", f)?;
    Ok(f * (1.0 - f) / (1.0 + (1.0 - f).powi(2)))
}

/// The maximum of eq. (17): `(3 − 2√2)/(2√2 − 2) ≈ 20.7%`, attained at `f = 2 − √2`.
pub fn theorem5_k1_max() -> (f64, f64) {
    let s2 = std::f64::consts::SQRT_2;
    (2.0 - s2, (3.0 - 2.0 * s2) / (2.0 * s2 - 2.0))
}

/// The exact heavy-traffic limit of `(N_w − N_*)/N_*` for any `k ≥ 1`, from eq. (16) and
/// Corollary 1: `(k + 1 + kf/(1−f)) / (k + 1 + a_f f) − 1` (Appendix I, part 1 for k = 1).
pub fn theorem5_limit(k: u32, f: f64) -> Result<f64> {
    error::fraction("f", f)?;
    let nw = k as f64 + 1.0 + k as f64 * f / (1.0 - f);
    Ok(nw / threshold::corollary1_limit(k, f)? - 1.0)
}

/// Theorem 5 part 2, eq. (19): `b_k(f) = (B(k−1, a_f) − f) / (1 − [B(k−1, a_f) − f])`,
/// an upper bound on the limit of `(N_w − N_*)/N_*` for `k ≥ 2`.
pub fn theorem5_bound(k: u32, f: f64) -> Result<f64> {
    error::fraction("f", f)?;
    if k < 2 {
        return Err(ModelError::InvalidParameter {
            name: "k",
            value: k as f64,
            reason: "b_k(f) of Theorem 5 is stated for k >= 2",
        });
    }
    let a = erlang::erlang_b_inverse(k, f)?;
    let d = erlang::erlang_b(k - 1, a)? - f;
    Ok(d / (1.0 - d))
}

/// Eq. (27): the access-control limit `M` with `ρ_b/(1−ρ) = M/(k+M)`, i.e. `M = kf/(1−f)`
/// for `f = ρ_b/(1−ρ)`. Theorem 7: with this `M` short flows see `N_w(k, M/(k+M), ρ)`.
pub fn access_control_limit(k: u32, f: f64) -> Result<f64> {
    weight(k, f)
}

/// Mean number of short flows under the "vanilla" policy (each background micro-flow opens
/// its own TCP connection, eq. (26) with `M = ∞`), for exponential micro-flows with the same
/// mean size as short flows (as in Section IV).
///
/// Not stated in the paper; derived here. All `n + m` flows share the link equally with the
/// `k` long flows, so the chain (20) is reversible with product form
/// `π(n, m) ∝ ((n+m+k)!/k!) ρ^n ρ_b^m / (n! m!)`: the total `J = n + m` is the chain of
/// Theorem 2 with `n0 = 0` and load `ρ + ρ_b`, and given `J` the number of short flows is
/// binomial with parameter `ρ/(ρ+ρ_b)`. Hence
/// `E[n] = (k+1)ρ/(1 − ρ − ρ_b) = (k+1)ρ / ((1−ρ)(1−f))` with `f = ρ_b/(1−ρ)`.
/// Its ratio to wTCP, `(k+1)/(k+1−f)`, is 2 at `f → 1` for `k = 1`: the "doubling" of
/// paper 004, Fig. 4.
pub fn vanilla_mean_short(k: u32, f: f64, rho: f64) -> Result<f64> {
    check(f, rho)?;
    Ok((k as f64 + 1.0) * rho / ((1.0 - rho) * (1.0 - f)))
}
