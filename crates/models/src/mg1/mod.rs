//! Single-server M/G/1 models of flow-level bandwidth sharing (paper 003, Section II).
//!
//! Flows arrive as a Poisson process of rate `λ`; sizes follow a [`SizeDist`] expressed in
//! *service time* (the link capacity is normalised to one, as in the paper: a flow of size
//! `x` alone on the link takes `x` time units). The load is `ρ = λ E[S]`.
//!
//! | module | policy | paper |
//! |---|---|---|
//! | [`ps`] | processor sharing (plain TCP) | eqs. (1)–(3) |
//! | [`las`] | least attained service / FB (RuN) | eqs. (4)–(5) |
//! | [`psps`] | two-level PS+PS (RuN2C) | eqs. (6)–(8), Theorems 1–2 |
//! | [`srpt`] | shortest remaining processing time | Schrage's formula |
//! | [`fcfs`] | first come first served | Pollaczek–Khinchine |

pub mod fcfs;
pub mod las;
pub mod ps;
pub mod psps;
pub mod srpt;

use crate::dist::SizeDist;
use crate::error::{self, Result};

/// An M/G/1 queue with unit service capacity: arrival rate `λ` and size distribution.
#[derive(Debug, Clone, PartialEq)]
pub struct Mg1 {
    lambda: f64,
    dist: SizeDist,
    rho: f64,
}

impl Mg1 {
    /// Build from the arrival rate; errors if the mean size is infinite or `ρ ≥ 1`.
    pub fn new(lambda: f64, dist: SizeDist) -> Result<Self> {
        error::positive("lambda", lambda)?;
        let rho = lambda * dist.mean()?;
        error::load(rho)?;
        Ok(Self { lambda, dist, rho })
    }

    /// Build from the load `ρ ∈ (0, 1)`: `λ = ρ / E[S]`.
    pub fn with_load(rho: f64, dist: SizeDist) -> Result<Self> {
        error::load(rho)?;
        error::positive("rho", rho)?;
        let mean = dist.mean()?;
        Self::new(rho / mean, dist)
    }

    /// Arrival rate `λ`.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Load `ρ = λ E[S]`.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The size distribution.
    pub fn dist(&self) -> &SizeDist {
        &self.dist
    }

    /// Load of the distribution truncated at `x`: `ρ_x = λ X̄_x^1` (paper 003, Section II-A).
    pub fn rho_truncated(&self, x: f64) -> Result<f64> {
        Ok(self.lambda * self.dist.truncated_moment(1, x)?)
    }
}
