//! Sample paths: the arrival times and sizes every policy is run on.

use crate::{positive, Result, SimError};
use models::SizeDist;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One flow: arrival time and size (in work units; a link of capacity `C` serves it in
/// `size / C` time when alone).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Job {
    /// Arrival time.
    pub arrival: f64,
    /// Size (> 0).
    pub size: f64,
}

/// Flows sorted by arrival time.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplePath {
    jobs: Vec<Job>,
}

impl SamplePath {
    /// `n` flows with Poisson(`lambda`) arrivals and i.i.d. sizes from `dist`, drawn from a
    /// ChaCha8 generator seeded with `seed` (deterministic across platforms).
    pub fn poisson(lambda: f64, dist: &SizeDist, n: usize, seed: u64) -> Result<Self> {
        positive("lambda", lambda)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut t = 0.0;
        let mut jobs = Vec::with_capacity(n);
        for _ in 0..n {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / lambda;
            let pick: f64 = rng.random();
            let q = 1.0 - rng.random::<f64>();
            let size = dist.sample(pick, q).max(f64::MIN_POSITIVE);
            jobs.push(Job { arrival: t, size });
        }
        Ok(Self { jobs })
    }

    /// A path from explicit flows; they must have finite non-negative arrival times in
    /// non-decreasing order and finite positive sizes.
    pub fn from_jobs(jobs: Vec<Job>) -> Result<Self> {
        let mut last = 0.0;
        for j in &jobs {
            if !(j.arrival.is_finite() && j.arrival >= last) {
                return Err(SimError::InvalidParameter {
                    name: "arrival",
                    value: j.arrival,
                    reason: "arrivals must be finite, >= 0 and sorted",
                });
            }
            positive("size", j.size)?;
            last = j.arrival;
        }
        Ok(Self { jobs })
    }

    /// The flows.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// Number of flows.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether there are no flows.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Total work carried by the path.
    pub fn total_work(&self) -> f64 {
        self.jobs.iter().map(|j| j.size).sum()
    }
}
