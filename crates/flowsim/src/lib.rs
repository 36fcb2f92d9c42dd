#![forbid(unsafe_code)]
#![warn(missing_docs)]
//! Flow-level (fluid) simulation, exact and event-driven.
//!
//! * [`path`] — one sample path (Poisson arrivals, sizes from a [`models::SizeDist`]), seeded
//!   and deterministic, so that every policy can be run on the *same* flows and compared
//!   flow by flow.
//! * [`mg1`] — a single link of capacity `C` under PS (plain TCP), LAS, PS+PS (RuN2C),
//!   SRPT, FSP (serve the flow that would finish first under PS — gtcp's `fair`) and FCFS.
//!   Between events every rate is constant, so completion times are computed exactly (no
//!   time stepping). [`mg1::simulate_keyed`] runs gtcp's own size-learning policies (the
//!   Gittins index policy, the μ-rule) with their sizes learned online or known.
//! * [`compare`] — per-flow comparison against a reference policy (paper 000, Table 2).
//! * [`bg`] — paper 004's model: short TCP flows, `k` long flows and a background
//!   aggregate under the threshold policy, the implementable policy, wTCP, or access control
//!   of micro-flows (fixed or adaptive limit `M`).

pub mod bg;
pub mod compare;
pub mod mg1;
pub mod path;

/// Errors of the simulator (invalid configuration).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A parameter is out of its domain.
    #[error("invalid simulation parameter `{name}` = {value}: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// Offending value.
        value: f64,
        /// The domain.
        reason: &'static str,
    },
    /// An error from the models crate (e.g. an invalid distribution).
    #[error(transparent)]
    Model(#[from] models::ModelError),
}

/// Result alias.
pub type Result<T> = std::result::Result<T, SimError>;

pub(crate) fn positive(name: &'static str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(SimError::InvalidParameter {
            name,
            value: v,
            reason: "must be finite and > 0",
        })
    }
}

/// A total order on `f64` keys for heaps (sizes and virtual times are never NaN here).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Key(pub f64, pub usize);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}
