//! M/G/1 first-come-first-served (Pollaczek–Khinchine).

use super::Mg1;
use crate::error::{self, Result};

/// Mean waiting time `E[W] = λ E[S²] / (2 (1 − ρ))` (Pollaczek–Khinchine); an error when
/// the second moment is infinite.
pub fn mean_waiting(q: &Mg1) -> Result<f64> {
    let m2 = q.dist().second_moment()?;
    Ok(q.lambda() * m2 / (2.0 * (1.0 - q.rho())))
}

/// Mean response time of a flow of size `x`: `x + E[W]`.
pub fn response(q: &Mg1, x: f64) -> Result<f64> {
    error::non_negative("x", x)?;
    Ok(x + mean_waiting(q)?)
}

/// Overall mean response time `E[S] + E[W]`.
pub fn mean_response(q: &Mg1) -> Result<f64> {
    Ok(q.dist().mean()? + mean_waiting(q)?)
}
