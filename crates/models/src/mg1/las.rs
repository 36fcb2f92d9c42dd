//! M/G/1 least-attained-service (foreground–background, FB∞) — the flow-level model of RuN
//! (paper 003, Section II-A).

use super::Mg1;
use crate::error::{self, Result};

/// `W̄(x) = λ X̄_x^2 / (2 (1 − ρ_x))`, paper 003 eq. (5), where `X̄_x^2` is the second
/// moment of the size distribution truncated at `x` and `ρ_x = λ X̄_x^1`.
pub fn waiting(q: &Mg1, x: f64) -> Result<f64> {
    error::non_negative("x", x)?;
    let rho_x = q.lambda() * q.dist().tm(1, x);
    let m2 = q.dist().tm(2, x);
    error::finite("W(x)", q.lambda() * m2 / (2.0 * (1.0 - rho_x)))
}

/// Mean response time of a flow of size `x`, paper 003 eq. (4):
/// `T̄^LAS(x) = (W̄(x) + x) / (1 − ρ_x)`.
pub fn response(q: &Mg1, x: f64) -> Result<f64> {
    let w = waiting(q, x)?;
    let rho_x = q.lambda() * q.dist().tm(1, x);
    error::finite("T_LAS(x)", (w + x) / (1.0 - rho_x))
}

/// Slowdown `T̄^LAS(x)/x`; tends to `1/(1 − ρ)` as `x → ∞` when the variance is finite.
pub fn slowdown(q: &Mg1, x: f64) -> Result<f64> {
    error::positive("x", x)?;
    Ok(response(q, x)? / x)
}

/// Overall mean `E[T^LAS] = ∫ T̄^LAS(x) dF(x)`, by quadrature.
pub fn mean_response(q: &Mg1) -> Result<f64> {
    let lambda = q.lambda();
    let d = q.dist();
    d.expect(
        |x| {
            let rho_x = lambda * d.tm(1, x);
            let w = lambda * d.tm(2, x) / (2.0 * (1.0 - rho_x));
            (w + x) / (1.0 - rho_x)
        },
        &[],
    )
}
