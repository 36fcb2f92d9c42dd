//! M/G/1 processor sharing — the flow-level model of plain TCP (paper 003, eqs. (1)–(3)).

use super::Mg1;
use crate::error::{self, Result};

/// Mean response time of a flow of size `x`, paper 003 eq. (1):
/// `T̄^PS(x) = x / (1 − ρ)`.
pub fn response(q: &Mg1, x: f64) -> Result<f64> {
    error::non_negative("x", x)?;
    Ok(x / (1.0 - q.rho()))
}

/// Mean throughput `Θ̄^PS(x) = x / T̄(x) = 1 − ρ`, eq. (2) (independent of the size).
pub fn throughput(q: &Mg1) -> f64 {
    1.0 - q.rho()
}

/// Mean slowdown `S̄^PS(x) = T̄(x)/x = 1/(1 − ρ)`, eq. (3).
pub fn slowdown(q: &Mg1) -> f64 {
    1.0 / (1.0 - q.rho())
}

/// Overall mean response time `E[T^PS] = E[S]/(1 − ρ)` (eq. (1) averaged over sizes).
pub fn mean_response(q: &Mg1) -> Result<f64> {
    Ok(q.dist().mean()? / (1.0 - q.rho()))
}
