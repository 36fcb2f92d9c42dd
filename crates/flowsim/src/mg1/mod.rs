//! One link of capacity `C` shared by the flows of a [`SamplePath`] under a scheduling policy.
//!
//! Every simulator is event-driven: between two events (an arrival, a completion, a flow
//! crossing a threshold or reaching another group's attained service) all service rates are
//! constant, so the next event time is computed exactly.

mod fcfs;
mod keyed;
mod las;
mod priority;
mod ps;
mod psps;

pub use keyed::{Keyed, Knowledge};

use crate::path::SamplePath;
use crate::{positive, Result, SimError};

/// A scheduling policy of the link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    /// Processor sharing: every present flow gets `C/n` (plain TCP at flow level).
    Ps,
    /// Least attained service: the flows with the least service share the link.
    Las,
    /// Two-level PS (RuN2C): the first `threshold` work units of every flow first.
    PsPs {
        /// Threshold in work units.
        threshold: f64,
    },
    /// Shortest remaining processing time (pre-emptive; ties keep the running flow).
    Srpt,
    /// Fair sojourn protocol: serve the flow that would finish first under PS
    /// (paper 000's FAIR).
    Fsp,
    /// First come, first served.
    Fcfs,
}

impl Policy {
    /// Short name for tables and files.
    pub fn name(&self) -> String {
        match self {
            Policy::Ps => "PS".into(),
            Policy::Las => "LAS".into(),
            Policy::PsPs { threshold } => format!("PS+PS({threshold})"),
            Policy::Srpt => "SRPT".into(),
            Policy::Fsp => "FSP".into(),
            Policy::Fcfs => "FCFS".into(),
        }
    }
}

/// Completion times of every flow of the path, in path order.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Completion time of flow `i`.
    pub completion: Vec<f64>,
}

impl Outcome {
    /// Response (sojourn) times `completion − arrival`.
    pub fn response_times(&self, path: &SamplePath) -> Vec<f64> {
        self.completion
            .iter()
            .zip(path.jobs())
            .map(|(c, j)| c - j.arrival)
            .collect()
    }
}

/// Run `policy` on `path` over a link of capacity `capacity` (work units per time unit).
pub fn simulate(path: &SamplePath, capacity: f64, policy: Policy) -> Result<Outcome> {
    positive("capacity", capacity)?;
    let completion = match policy {
        Policy::Ps => ps::run(path, capacity).0,
        Policy::Las => las::run(path, capacity),
        Policy::PsPs { threshold } => {
            if !(threshold.is_finite() && threshold >= 0.0) {
                return Err(SimError::InvalidParameter {
                    name: "threshold",
                    value: threshold,
                    reason: "must be finite and >= 0",
                });
            }
            psps::run(path, capacity, threshold)
        }
        Policy::Srpt => priority::run(path, capacity, priority::Rule::RemainingWork, &[]),
        Policy::Fsp => {
            let (_, v_at_arrival) = ps::run(path, capacity);
            priority::run(path, capacity, priority::Rule::StaticKey, &v_at_arrival)
        }
        Policy::Fcfs => fcfs::run(path, capacity),
    };
    Ok(Outcome { completion })
}

/// Run a gtcp policy that learns sizes (`gittins`, `mu:INNER`, ...) on `path`, one flow at a
/// time by the policy's own key, sizes in bytes: see [`Keyed`].
pub fn simulate_keyed(path: &SamplePath, capacity: f64, keyed: &Keyed<'_>) -> Result<Outcome> {
    positive("capacity", capacity)?;
    Ok(Outcome {
        completion: keyed::run(path, capacity, keyed)?,
    })
}
