//! Erlang B and Engset loss formulas by stable recursions (no factorials, no powers).

use crate::error::{self, ModelError, Result};
use crate::num;

/// Erlang B blocking probability `B(k, a) = (a^k/k!) / Σ_{i=0}^k a^i/i!` (paper 004,
/// Corollary 1) for `k` circuits and `a` Erlangs, by the recursion
/// `B(0,a) = 1`, `B(i,a) = a B(i−1,a) / (i + a B(i−1,a))`.
///
/// Every step maps `[0,1]` into `[0,1]` and is a contraction in the relative error, so the
/// result is accurate to a few ulps even for thousands of circuits.
pub fn erlang_b(k: u32, a: f64) -> Result<f64> {
    error::non_negative("a", a)?;
    let mut b = 1.0;
    for i in 1..=k {
        let ab = a * b;
        b = ab / (i as f64 + ab);
    }
    Ok(b)
}

/// Engset formula as written in paper 004, Proposition 1:
/// `E(m, q, r) = C(m−1, q) r^q / Σ_{i=0}^q C(m−1, i) r^i` for `q` circuits, `m > q`
/// sources each offering `r` Erlangs (the call-congestion form).
///
/// With `T_i = C(m−1,i) r^i`, `T_i/T_{i−1} = r(m−i)/i`, hence the recursion
/// `E_0 = 1`, `E_i = r(m−i)E_{i−1} / (i + r(m−i)E_{i−1})` — the Erlang B recursion with the
/// offered traffic `r(m−i)` of the sources still idle.
pub fn engset(m: u64, q: u64, r: f64) -> Result<f64> {
    error::non_negative("r", r)?;
    if m <= q {
        return Err(ModelError::InvalidParameter {
            name: "m",
            value: m as f64,
            reason: "the Engset formula needs more sources than circuits (m > q)",
        });
    }
    let mut e = 1.0;
    for i in 1..=q {
        let t = r * (m - i) as f64 * e;
        e = t / (i as f64 + t);
    }
    Ok(e)
}

/// `a_f`: the load with `B(k, a_f) = f` (paper 004, Corollary 1), by bisection
/// (`B(k, ·)` increases from 0 to 1). Requires `k ≥ 1` and `f ∈ [0, 1)`.
pub fn erlang_b_inverse(k: u32, f: f64) -> Result<f64> {
    error::fraction("f", f)?;
    if k == 0 {
        return Err(ModelError::InvalidParameter {
            name: "k",
            value: 0.0,
            reason: "B(0, a) = 1 for every a; a_f needs k >= 1",
        });
    }
    if f == 0.0 {
        return Ok(0.0);
    }
    let mut hi = k as f64;
    while erlang_b(k, hi)? < f {
        hi *= 2.0;
        if !hi.is_finite() || hi > 1e300 {
            return Err(ModelError::Overflow("a_f"));
        }
    }
    num::bisect(|a| Ok(erlang_b(k, a)? - f), 0.0, hi, hi * 1e-16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases_by_hand() {
        assert_eq!(erlang_b(0, 3.0).unwrap(), 1.0);
        assert!((erlang_b(1, 0.5).unwrap() - 1.0 / 3.0).abs() < 1e-16);
        // B(2, 1) = (1/2)/(1 + 1 + 1/2) = 0.2.
        assert!((erlang_b(2, 1.0).unwrap() - 0.2).abs() < 1e-16);
        // E(m, q, r) with m = q+1: C(q, i) r^i / (1+r)^q => r^q/(1+r)^q.
        let e = engset(4, 3, 0.5).unwrap();
        assert!((e - (0.5f64 / 1.5).powi(3)).abs() < 1e-15);
        assert!(engset(3, 3, 1.0).is_err());
    }

    #[test]
    fn inverse_round_trips() {
        for k in [1, 2, 5, 10, 100] {
            for f in [1e-6, 0.1, 0.5, 0.9, 0.999] {
                let a = erlang_b_inverse(k, f).unwrap();
                let b = erlang_b(k, a).unwrap();
                assert!((b - f).abs() < 1e-12 * f.max(1e-3), "k={k} f={f}: {b}");
            }
        }
    }
}
