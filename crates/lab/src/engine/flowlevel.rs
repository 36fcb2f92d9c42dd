//! Flow-level workloads on one link: Poisson arrivals of flows of several types (routes), each
//! type with its own size distribution, and the response-time statistics every flow-level
//! policy comparison reads (paper 000, Section 4: the M/G/1 view of one origin–destination
//! pair). One owner for the sample paths, so every policy of every flow-level experiment runs
//! on the same flows.

use flowsim::path::{Job, SamplePath};
use gtcp::policy::learned::SizeHistogram;
use models::SizeDist;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A mixture of flow types: each type's share of the arrivals and its size distribution
/// (bytes), and optionally the one distribution every flow follows from half-way on (a change
/// of workload).
pub(crate) struct Mix {
    /// `(share, sizes)` per type; shares need not sum to 1.
    pub types: Vec<(f64, SizeDist)>,
    /// The size distribution of every flow from the `n/2`-th on, if the workload changes.
    pub after: Option<SizeDist>,
}

impl Mix {
    /// Mean flow size over the mixture (before any change), bytes.
    pub(crate) fn mean(&self) -> anyhow::Result<f64> {
        let mut m = 0.0;
        for (w, d) in &self.types {
            m += w * d.mean()?;
        }
        Ok(m / self.types.iter().map(|(w, _)| w).sum::<f64>())
    }

    /// `n` flows at load `load` on a link of `capacity` bytes/s (arrival rate
    /// `load · capacity / mean`): the path and each flow's type. Deterministic in `seed`.
    pub(crate) fn path(
        &self,
        n: usize,
        load: f64,
        capacity: f64,
        seed: u64,
    ) -> anyhow::Result<(SamplePath, Vec<u8>)> {
        let lambda = load * capacity / self.mean()?;
        let total: f64 = self.types.iter().map(|(w, _)| w).sum();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut t, mut jobs, mut types) = (0.0, Vec::with_capacity(n), Vec::with_capacity(n));
        for i in 0..n {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / lambda;
            let mut pick = rng.random::<f64>() * total;
            let mut ty = 0;
            for (k, (w, _)) in self.types.iter().enumerate() {
                ty = k;
                if pick < *w {
                    break;
                }
                pick -= w;
            }
            let q = 1.0 - rng.random::<f64>();
            let dist = match &self.after {
                Some(after) if i >= n / 2 => after,
                _ => &self.types[ty].1,
            };
            let size = dist.sample(0.0, q).max(1.0);
            jobs.push(Job { arrival: t, size });
            types.push(ty as u8);
        }
        Ok((SamplePath::from_jobs(jobs)?, types))
    }

    /// The known distribution of all flows (the mixture), for a policy that sees one route.
    pub(crate) fn known_pooled(&self) -> SizeHistogram {
        let total: f64 = self.types.iter().map(|(w, _)| w).sum();
        SizeHistogram::from_cdf(|x| {
            self.types.iter().map(|(w, d)| w * d.cdf(x)).sum::<f64>() / total
        })
    }

    /// The known distribution of each type, for a policy that tells the types apart.
    pub(crate) fn known_per_type(&self) -> Vec<SizeHistogram> {
        self.types
            .iter()
            .map(|(_, d)| SizeHistogram::from_cdf(|x| d.cdf(x)))
            .collect()
    }
}

/// Mean and 99th percentile of the response times (completion − arrival) of the flows
/// `from..` of `path`, given each flow's completion time `done`.
pub(crate) fn response_stats(path: &SamplePath, done: &[f64], from: usize) -> (f64, f64) {
    let mut r: Vec<f64> = path.jobs()[from..]
        .iter()
        .zip(&done[from..])
        .map(|(j, d)| d - j.arrival)
        .collect();
    if r.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    r.sort_by(f64::total_cmp);
    let p99 = r[((r.len() as f64 * 0.99) as usize).min(r.len() - 1)];
    (mean, p99)
}
