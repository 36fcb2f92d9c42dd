//! Typed errors for every model: invalid inputs are reported, never turned into NaN.

/// Everything that can go wrong when evaluating a model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A parameter is outside its domain (negative size, non-finite value, `f ∉ [0, 1)`, ...).
    #[error("invalid parameter `{name}` = {value}: {reason}")]
    InvalidParameter {
        /// Name of the parameter as it appears in the API.
        name: &'static str,
        /// The offending value.
        value: f64,
        /// What the domain is.
        reason: &'static str,
    },
    /// The offered load is not below one, so the queue has no stationary regime.
    #[error("load rho = {rho} must satisfy 0 <= rho < 1 (the queue is unstable otherwise)")]
    Unstable {
        /// The load that was computed or given.
        rho: f64,
    },
    /// A moment the model needs does not exist for this distribution.
    #[error("{what} is infinite for {dist}")]
    InfiniteMoment {
        /// Which moment (e.g. "the mean").
        what: &'static str,
        /// Which distribution, with its parameters.
        dist: String,
    },
    /// An iterative method stopped before reaching its tolerance.
    #[error("{method} did not converge after {iterations} iterations (last change {residual:e}, tolerance {tolerance:e})")]
    NoConvergence {
        /// Name of the solver.
        method: &'static str,
        /// Iterations performed.
        iterations: usize,
        /// Last residual or change.
        residual: f64,
        /// Requested tolerance.
        tolerance: f64,
    },
    /// A result could not be represented as a finite `f64`.
    #[error("numerical overflow while computing {0}")]
    Overflow(&'static str),
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, ModelError>;

/// `value` must be finite and `> 0`.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ModelError::InvalidParameter {
            name,
            value,
            reason: "must be finite and > 0",
        })
    }
}

/// `value` must be finite and `>= 0` (a size, a time, a threshold).
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(ModelError::InvalidParameter {
            name,
            value,
            reason: "must be finite and >= 0",
        })
    }
}

/// A load `rho` must be in `[0, 1)`.
pub(crate) fn load(rho: f64) -> Result<f64> {
    if rho.is_finite() && (0.0..1.0).contains(&rho) {
        Ok(rho)
    } else {
        Err(ModelError::Unstable { rho })
    }
}

/// A fraction `f` must be in `[0, 1)`.
pub(crate) fn fraction(name: &'static str, f: f64) -> Result<f64> {
    if f.is_finite() && (0.0..1.0).contains(&f) {
        Ok(f)
    } else {
        Err(ModelError::InvalidParameter {
            name,
            value: f,
            reason: "must be in [0, 1)",
        })
    }
}

/// Turn a non-finite intermediate into a typed error.
pub(crate) fn finite(what: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ModelError::Overflow(what))
    }
}
