//! Numerical building blocks: cancellation-free exponential integrals, Gauss–Legendre and
//! tanh–sinh quadrature, root bracketing and one-dimensional minimisation.
//!
//! Everything here is deterministic and allocation-light; the models call these helpers
//! in their inner loops.

use crate::error::{ModelError, Result};
use std::sync::OnceLock;

/// `expm1(z) / z`, equal to 1 at `z = 0` and accurate for every `z` (no cancellation,
/// because `expm1` is accurate near zero).
pub fn expm1_div(z: f64) -> f64 {
    if z == 0.0 {
        1.0
    } else {
        z.exp_m1() / z
    }
}

/// `∫_0^l e^{βu} du = (e^{βl} − 1)/β`, continuous through `β = 0` (where it equals `l`).
///
/// This is the form every Pareto-type truncated moment reduces to; computing it as
/// `l · expm1(βl)/(βl)` keeps full relative accuracy when the tail index makes `β → 0`
/// (α → 1 for the first moment, α → 2 for the second).
pub fn exp_integral(beta: f64, l: f64) -> f64 {
    l * expm1_div(beta * l)
}

/// Nodes and weights of the 16-point Gauss–Legendre rule on `[-1, 1]`, computed once by
/// Newton's method on the Legendre polynomial.
fn gauss_legendre_16() -> &'static [(f64, f64); 16] {
    static RULE: OnceLock<[(f64, f64); 16]> = OnceLock::new();
    RULE.get_or_init(|| {
        const N: usize = 16;
        let mut out = [(0.0, 0.0); N];
        for (i, slot) in out.iter_mut().enumerate() {
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (N as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                // Evaluate P_N(x) and P_N'(x) by the three-term recurrence.
                let (mut p0, mut p1) = (1.0, x);
                for n in 2..=N {
                    let nf = n as f64;
                    let p2 = ((2.0 * nf - 1.0) * x * p1 - (nf - 1.0) * p0) / nf;
                    p0 = p1;
                    p1 = p2;
                }
                dp = N as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            *slot = (x, 2.0 / ((1.0 - x * x) * dp * dp));
        }
        out
    })
}

/// Composite 16-point Gauss–Legendre quadrature of `f` on `[a, b]` with `panels` equal panels.
pub fn gauss_legendre<F: FnMut(f64) -> f64>(mut f: F, a: f64, b: f64, panels: usize) -> f64 {
    let panels = panels.max(1);
    let h = (b - a) / panels as f64;
    let rule = gauss_legendre_16();
    let mut total = 0.0;
    for p in 0..panels {
        let lo = a + h * p as f64;
        let mid = lo + 0.5 * h;
        let mut s = 0.0;
        for &(x, w) in rule.iter() {
            s += w * f(mid + 0.5 * h * x);
        }
        total += 0.5 * h * s;
    }
    total
}

/// Largest tanh–sinh abscissa parameter: at `t = 6.2` the nodes are within `1e-300` of the
/// end points, so integrable end-point singularities (heavy tails mapped to a finite
/// interval) are resolved down to the limits of `f64`.
const TS_TMAX: f64 = 6.2;

/// Tanh–sinh (double exponential) quadrature over the unit interval.
///
/// `f(s, 1 − s)` receives both the node and its distance to the right end point, each
/// computed without cancellation, so that callers mapping `s` onto a half line (or onto a
/// survival probability) keep full precision next to either end.
/// Returns the integral, or an error if an evaluation is not finite or the refinement does
/// not reach the relative tolerance `tol` within `max_level` halvings of the step.
pub fn tanh_sinh_unit<F: FnMut(f64, f64) -> f64>(mut f: F, tol: f64) -> Result<f64> {
    let max_level = 9;
    let half_pi = std::f64::consts::FRAC_PI_2;
    let mut eval = |t: f64| -> Result<f64> {
        let u = half_pi * t.sinh();
        // s = (1 + tanh u)/2, 1 − s = (1 − tanh u)/2, both written to avoid cancellation.
        let (s, c) = if u <= 0.0 {
            let e = (2.0 * u).exp();
            (e / (1.0 + e), 1.0 / (1.0 + e))
        } else {
            let e = (-2.0 * u).exp();
            (1.0 / (1.0 + e), e / (1.0 + e))
        };
        if s <= 0.0 || c <= 0.0 {
            return Ok(0.0);
        }
        // ds/dt = (π/2) cosh t · sech²u / 2 = (π/2) cosh t · 2 s c.
        let w = half_pi * t.cosh() * 2.0 * s * c;
        if w == 0.0 {
            return Ok(0.0);
        }
        let v = f(s, c);
        if !v.is_finite() {
            return Err(ModelError::Overflow("an integrand (tanh-sinh quadrature)"));
        }
        Ok(w * v)
    };
    // `sum` is the signed sum of weighted values, `abs_sum` the sum of their magnitudes
    // (so that integrals which are zero or cancel still have a scale to converge against).
    let mut h = 1.0;
    let v0 = eval(0.0)?;
    let (mut sum, mut abs_sum) = (v0, v0.abs());
    let mut k = 1;
    while (k as f64) * h <= TS_TMAX {
        let t = k as f64 * h;
        let (a, b) = (eval(t)?, eval(-t)?);
        sum += a + b;
        abs_sum += a.abs() + b.abs();
        k += 1;
    }
    let mut estimate = h * sum;
    let mut change = f64::INFINITY;
    for level in 1..=max_level {
        h *= 0.5;
        let mut k = 1;
        while (k as f64) * h <= TS_TMAX {
            let t = k as f64 * h;
            let (a, b) = (eval(t)?, eval(-t)?);
            sum += a + b;
            abs_sum += a.abs() + b.abs();
            k += 2;
        }
        let next = h * sum;
        change = (next - estimate).abs();
        estimate = next;
        if level >= 3 && change <= tol * (h * abs_sum).max(1e-300) {
            return Ok(estimate);
        }
    }
    Err(ModelError::NoConvergence {
        method: "tanh-sinh quadrature",
        iterations: max_level,
        residual: change,
        tolerance: tol * h * abs_sum,
    })
}

/// `∫_a^b f(x) dx` by tanh–sinh quadrature; `b` may be `+∞`, in which case the half line is
/// mapped by `x = a + scale · s/(1 − s)`.
pub fn integrate<F: FnMut(f64) -> f64>(
    mut f: F,
    a: f64,
    b: f64,
    scale: f64,
    tol: f64,
) -> Result<f64> {
    if b.is_infinite() {
        let scale = if scale > 0.0 && scale.is_finite() {
            scale
        } else {
            1.0
        };
        tanh_sinh_unit(
            |s, c| {
                let x = a + scale * (s / c);
                if !x.is_finite() {
                    // The node is beyond f64: an integrable function vanishes there.
                    return 0.0;
                }
                let v = f(x);
                if v == 0.0 {
                    0.0
                } else {
                    // Jacobian scale/c², applied stepwise so that it cannot overflow
                    // before the (decaying) integrand has been multiplied in.
                    (v / c) / c * scale
                }
            },
            tol,
        )
    } else {
        let w = b - a;
        if w <= 0.0 {
            return Ok(0.0);
        }
        tanh_sinh_unit(
            |s, c| {
                let x = if s < 0.5 { a + w * s } else { b - w * c };
                f(x) * w
            },
            tol,
        )
    }
}

/// Find `x ∈ [lo, hi]` with `g(x) = 0` for a monotone `g` whose sign differs at the ends,
/// by bisection to an absolute width `xtol`.
pub fn bisect<G: FnMut(f64) -> Result<f64>>(
    mut g: G,
    mut lo: f64,
    mut hi: f64,
    xtol: f64,
) -> Result<f64> {
    let glo = g(lo)?;
    let ghi = g(hi)?;
    if glo == 0.0 {
        return Ok(lo);
    }
    if ghi == 0.0 {
        return Ok(hi);
    }
    if glo.signum() == ghi.signum() {
        return Err(ModelError::NoConvergence {
            method: "bisection (root not bracketed)",
            iterations: 0,
            residual: glo.abs().min(ghi.abs()),
            tolerance: xtol,
        });
    }
    let lo_sign = glo.signum();
    for _ in 0..400 {
        let mid = 0.5 * (lo + hi);
        if (hi - lo) <= xtol || mid == lo || mid == hi {
            return Ok(mid);
        }
        let gm = g(mid)?;
        if gm == 0.0 {
            return Ok(mid);
        }
        if gm.signum() == lo_sign {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// Golden-section search for the minimum of a unimodal `g` on `[lo, hi]`.
/// Returns `(x_min, g(x_min))`.
pub fn golden_min<G: FnMut(f64) -> Result<f64>>(
    mut g: G,
    mut lo: f64,
    mut hi: f64,
    xtol: f64,
) -> Result<(f64, f64)> {
    let r = 0.5 * (5f64.sqrt() - 1.0);
    let mut x1 = hi - r * (hi - lo);
    let mut x2 = lo + r * (hi - lo);
    let mut g1 = g(x1)?;
    let mut g2 = g(x2)?;
    for _ in 0..200 {
        if (hi - lo).abs() <= xtol {
            break;
        }
        if g1 <= g2 {
            hi = x2;
            x2 = x1;
            g2 = g1;
            x1 = hi - r * (hi - lo);
            g1 = g(x1)?;
        } else {
            lo = x1;
            x1 = x2;
            g1 = g2;
            x2 = lo + r * (hi - lo);
            g2 = g(x2)?;
        }
    }
    Ok(if g1 <= g2 { (x1, g1) } else { (x2, g2) })
}

/// Lower incomplete gamma function `γ(s, t) = ∫_0^t u^{s−1} e^{−u} du` for integer
/// `s ∈ {1, 2, 3}`: a power series for small `t` (where the closed form cancels) and the
/// closed form `(s−1)! [1 − e^{−t} Σ_{j<s} t^j/j!]` otherwise.
pub fn lower_gamma_int(s: u32, t: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    if t.is_infinite() {
        return (1..s).map(|j| j as f64).product();
    }
    if t < 5.0 {
        // γ(s,t) = t^s e^{−t} Σ_{k≥0} t^k / (s (s+1) ... (s+k)).
        let sf = s as f64;
        let mut term = 1.0 / sf;
        let mut sum = term;
        for k in 1..200 {
            term *= t / (sf + k as f64);
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        t.powi(s as i32) * (-t).exp() * sum
    } else {
        // e^{−t} Σ_{j<s} t^j/j!, each term formed in log space (no inf·0 for huge t).
        let mut partial = 0.0;
        let mut log_fact = 0.0;
        for j in 0..s {
            if j > 0 {
                log_fact += (j as f64).ln();
            }
            partial += (j as f64 * t.ln() - t - log_fact).exp();
        }
        let s_minus_1_fact: f64 = (1..s).map(|j| j as f64).product();
        s_minus_1_fact * (1.0 - partial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_legendre_is_exact_for_polynomials() {
        let v = gauss_legendre(|x| x.powi(31) + 3.0 * x * x, 0.0, 2.0, 1);
        let exact = 2f64.powi(32) / 32.0 + 8.0;
        assert!((v - exact).abs() / exact < 1e-13, "{v} vs {exact}");
    }

    #[test]
    fn tanh_sinh_handles_endpoint_singularities() {
        // ∫_0^1 x^{-0.9} dx = 10.
        let v = integrate(|x| x.powf(-0.9), 0.0, 1.0, 1.0, 1e-12).unwrap();
        assert!((v - 10.0).abs() < 1e-6, "{v}");
        // ∫_0^∞ (1+x)^{-2.1} dx = 1/1.1.
        let v = integrate(|x| (1.0 + x).powf(-2.1), 0.0, f64::INFINITY, 1.0, 1e-12).unwrap();
        assert!((v - 1.0 / 1.1).abs() < 1e-9, "{v}");
    }

    #[test]
    fn lower_gamma_matches_closed_forms() {
        for &t in &[1e-9f64, 1e-3, 0.5, 4.9, 5.1, 30.0] {
            let g2 = 1.0 - (-t).exp() * (1.0 + t);
            let v = lower_gamma_int(2, t);
            if t > 1e-3 {
                assert!(
                    (v - g2).abs() <= 1e-12 * g2.max(1e-300),
                    "t={t}: {v} vs {g2}"
                );
            } else {
                // Leading term t²/2.
                assert!((v / (t * t / 2.0) - 1.0).abs() < 1e-2);
            }
        }
    }

    #[test]
    fn exp_integral_is_continuous_at_zero_beta() {
        let l = 3.0;
        let a = exp_integral(0.0, l);
        let b = exp_integral(1e-13, l);
        assert_eq!(a, 3.0);
        assert!((a - b).abs() < 1e-11);
    }
}
