//! M/G/1 shortest-remaining-processing-time (Schrage and Miller, 1966).
//!
//! With `ρ(x) = λ ∫_0^x y dF(y)` (load of flows *smaller* than `x`, a partial — not
//! truncated — moment) the mean response time of a flow of size `x` is
//!
//! ```text
//! T̄^SRPT(x) = λ (∫_0^x y² dF(y) + x² F̄(x)) / (2 (1 − ρ(x))²)  +  ∫_0^x dt / (1 − ρ(t)).
//! ```
//!
//! The first term is the waiting time until the flow first runs, the second its residence
//! time (it is pre-empted only by smaller arrivals).

use super::Mg1;
use crate::error::{self, Result};
use crate::num;

/// Mean response time of a flow of size `x` under SRPT (Schrage's formula).
pub fn response(q: &Mg1, x: f64) -> Result<f64> {
    error::non_negative("x", x)?;
    let lambda = q.lambda();
    let d = q.dist();
    let rho_x = lambda * d.pm(1, x);
    let wait = lambda * d.tm(2, x) / (2.0 * (1.0 - rho_x).powi(2));
    // Residence: split at the distribution's breaks below x and integrate each piece.
    let mut edges = vec![0.0];
    edges.extend(d.breaks().into_iter().filter(|b| *b > 0.0 && *b < x));
    edges.push(x);
    let mut res = 0.0;
    for w in edges.windows(2) {
        res += num::integrate(
            |t| 1.0 / (1.0 - lambda * d.pm(1, t)),
            w[0],
            w[1],
            1.0,
            1e-11,
        )?;
    }
    error::finite("T_SRPT(x)", wait + res)
}

/// Overall mean response time. The residence part is averaged with Fubini,
/// `E[∫_0^S dt/(1−ρ(t))] = ∫_0^∞ F̄(t)/(1 − ρ(t)) dt`, so that only single integrals remain.
pub fn mean_response(q: &Mg1) -> Result<f64> {
    let lambda = q.lambda();
    let d = q.dist();
    let wait = d.expect(
        |x| {
            let r = lambda * d.pm(1, x);
            lambda * d.tm(2, x) / (2.0 * (1.0 - r) * (1.0 - r))
        },
        &[],
    )?;
    let res = d.integrate_support(|t| d.sf(t) / (1.0 - lambda * d.pm(1, t)), &[])?;
    error::finite("E[T_SRPT]", wait + res)
}
