//! Flow-size distributions.

use rand::Rng;
use serde::{Deserialize, Serialize};

/// A flow-size distribution over positive reals (in the workload's unit: packets or bytes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    /// Always `value`.
    Constant {
        /// The size.
        value: f64,
    },
    /// Exponential with mean `mean`.
    Exponential {
        /// The mean.
        mean: f64,
    },
    /// Pareto of the second kind (Lomax), as paper 000 §6.2 writes it:
    /// `P(S > x) = (1 + c x)^(−α)`, mean `1 / (c (α − 1))` for α > 1.
    Pareto {
        /// Shape α.
        alpha: f64,
        /// Scale c (1 / unit).
        c: f64,
    },
    /// Bounded Pareto `BP(k, p, α)` on `[k, p]` (paper 003 §II):
    /// density `α k^α x^(−α−1) / (1 − (k/p)^α)`.
    BoundedPareto {
        /// Lower bound k.
        k: f64,
        /// Upper bound p.
        p: f64,
        /// Shape α.
        alpha: f64,
    },
    /// A mixture: a component is drawn with probability proportional to its weight.
    Mixture {
        /// The components.
        components: Vec<Component>,
    },
}

/// One component of a [`SizeDist::Mixture`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Component {
    /// Relative weight (positive).
    pub weight: f64,
    /// The distribution.
    pub dist: SizeDist,
}

fn pos(name: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!("{name} must be a finite positive number, got {v}"))
    }
}

impl SizeDist {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            SizeDist::Constant { value } => pos("constant value", *value),
            SizeDist::Exponential { mean } => pos("exponential mean", *mean),
            SizeDist::Pareto { alpha, c } => {
                pos("pareto alpha", *alpha)?;
                pos("pareto c", *c)
            }
            SizeDist::BoundedPareto { k, p, alpha } => {
                pos("bounded_pareto k", *k)?;
                pos("bounded_pareto p", *p)?;
                pos("bounded_pareto alpha", *alpha)?;
                if p <= k {
                    return Err(format!("bounded_pareto needs p > k, got k = {k}, p = {p}"));
                }
                Ok(())
            }
            SizeDist::Mixture { components } => {
                if components.is_empty() {
                    return Err("mixture needs at least one component".into());
                }
                for c in components {
                    pos("mixture weight", c.weight)?;
                    c.dist.validate()?;
                }
                Ok(())
            }
        }
    }

    /// Mean (`f64::INFINITY` for a Pareto with α ≤ 1).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Constant { value } => *value,
            SizeDist::Exponential { mean } => *mean,
            SizeDist::Pareto { alpha, c } => {
                if *alpha > 1.0 {
                    1.0 / (c * (alpha - 1.0))
                } else {
                    f64::INFINITY
                }
            }
            SizeDist::BoundedPareto { k, p, alpha } => {
                let a = *alpha;
                let norm = 1.0 - (k / p).powf(a);
                if (a - 1.0).abs() < 1e-12 {
                    k * (p / k).ln() / norm
                } else {
                    a * k.powf(a) / norm * (k.powf(1.0 - a) - p.powf(1.0 - a)) / (a - 1.0)
                }
            }
            SizeDist::Mixture { components } => {
                let w: f64 = components.iter().map(|c| c.weight).sum();
                components
                    .iter()
                    .map(|c| c.weight * c.dist.mean())
                    .sum::<f64>()
                    / w
            }
        }
    }

    /// Survival function `P(S > x)`.
    pub fn sf(&self, x: f64) -> f64 {
        match self {
            SizeDist::Constant { value } => f64::from(u8::from(x < *value)),
            SizeDist::Exponential { mean } => {
                if x <= 0.0 {
                    1.0
                } else {
                    (-x / mean).exp()
                }
            }
            SizeDist::Pareto { alpha, c } => {
                if x <= 0.0 {
                    1.0
                } else {
                    (1.0 + c * x).powf(-alpha)
                }
            }
            SizeDist::BoundedPareto { k, p, alpha } => {
                if x <= *k {
                    1.0
                } else if x >= *p {
                    0.0
                } else {
                    ((k / x).powf(*alpha) - (k / p).powf(*alpha)) / (1.0 - (k / p).powf(*alpha))
                }
            }
            SizeDist::Mixture { components } => {
                let w: f64 = components.iter().map(|c| c.weight).sum();
                components
                    .iter()
                    .map(|c| c.weight * c.dist.sf(x))
                    .sum::<f64>()
                    / w
            }
        }
    }

    /// `E[max(1, ⌈S⌉)]`, the mean of the integer sizes [`SizeDist::sample_units`] draws
    /// (`Σ_{n ≥ 0} P(max(1, ⌈S⌉) > n)`). Exact for constants, exponentials and bounded
    /// Paretos with `p ≤ 10^7`; otherwise `E[S] + 1/2`, which is accurate to a fraction of a
    /// unit for spread-out distributions.
    pub fn mean_ceil(&self) -> f64 {
        match self {
            SizeDist::Constant { value } => value.ceil().max(1.0),
            // P(⌈S⌉ > n) = P(S > n) = e^{-n/m}: a geometric series.
            SizeDist::Exponential { mean } => 1.0 / (1.0 - (-1.0 / mean).exp()),
            SizeDist::BoundedPareto { p, .. } if *p <= 1e7 => {
                // P(⌈S⌉ > 0) = 1, P(⌈S⌉ > n) = P(S > n) for n ≥ 1.
                1.0 + (1..p.ceil() as u64).map(|n| self.sf(n as f64)).sum::<f64>()
            }
            SizeDist::Mixture { components } => {
                let w: f64 = components.iter().map(|c| c.weight).sum();
                components
                    .iter()
                    .map(|c| c.weight * c.dist.mean_ceil())
                    .sum::<f64>()
                    / w
            }
            other => other.mean() + 0.5,
        }
    }

    /// Draws one size.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            SizeDist::Constant { value } => *value,
            SizeDist::Exponential { mean } => -mean * open01(rng).ln(),
            // Inverse transform: P(S > x) = U.
            SizeDist::Pareto { alpha, c } => (open01(rng).powf(-1.0 / alpha) - 1.0) / c,
            SizeDist::BoundedPareto { k, p, alpha } => {
                let u: f64 = rng.random();
                let t = 1.0 - (k / p).powf(*alpha);
                (k * (1.0 - u * t).powf(-1.0 / alpha)).min(*p)
            }
            SizeDist::Mixture { components } => {
                let w: f64 = components.iter().map(|c| c.weight).sum();
                let mut x = rng.random::<f64>() * w;
                for c in components {
                    if x < c.weight {
                        return c.dist.sample(rng);
                    }
                    x -= c.weight;
                }
                components[components.len() - 1].dist.sample(rng)
            }
        }
    }

    /// Draws one size rounded up to a whole number of units, at least 1.
    pub fn sample_units<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let x = self.sample(rng).ceil();
        if x >= u64::MAX as f64 {
            u64::MAX
        } else {
            (x as u64).max(1)
        }
    }
}

/// Uniform on (0, 1].
fn open01<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    1.0 - rng.random::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_stream;

    fn empirical_mean(d: &SizeDist, n: usize) -> f64 {
        let mut r = rng_stream(42, 0);
        (0..n).map(|_| d.sample(&mut r)).sum::<f64>() / n as f64
    }

    #[test]
    fn paper_means() {
        // Paper 000 §6.2: α = 3, c = 1e-7 gives E[S] = 5 MB.
        let p = SizeDist::Pareto {
            alpha: 3.0,
            c: 1e-7,
        };
        assert!((p.mean() - 5e6).abs() < 1e-3);
        // Paper 003 §II: BP(13, 5000, 1.1) has mean ≈ 64 packets.
        let bp = SizeDist::BoundedPareto {
            k: 13.0,
            p: 5000.0,
            alpha: 1.1,
        };
        assert!((bp.mean() - 64.0).abs() < 1.5, "BP mean {}", bp.mean());
    }

    #[test]
    fn sample_means_within_tolerance() {
        let cases = [
            SizeDist::Constant { value: 3.0 },
            SizeDist::Exponential { mean: 4.0 },
            SizeDist::Pareto { alpha: 3.0, c: 0.1 },
            SizeDist::BoundedPareto {
                k: 13.0,
                p: 5000.0,
                alpha: 1.1,
            },
            SizeDist::Mixture {
                components: vec![
                    Component {
                        weight: 0.8,
                        dist: SizeDist::Exponential { mean: 4.0 },
                    },
                    Component {
                        weight: 0.2,
                        dist: SizeDist::Constant { value: 64.0 },
                    },
                ],
            },
        ];
        for d in &cases {
            let m = empirical_mean(d, 400_000);
            let rel = (m - d.mean()).abs() / d.mean();
            // Heavy tails converge slowly; 5% is ample at this n for these shapes.
            assert!(rel < 0.05, "{d:?}: empirical {m} vs {}", d.mean());
        }
    }

    #[test]
    fn survival_matches_samples() {
        let d = SizeDist::Pareto {
            alpha: 3.0,
            c: 1e-7,
        };
        let mut r = rng_stream(1, 0);
        let n = 200_000;
        let x = 5e6;
        let hits = (0..n).filter(|_| d.sample(&mut r) > x).count() as f64 / n as f64;
        assert!((hits - d.sf(x)).abs() < 0.01, "{hits} vs {}", d.sf(x));
    }

    #[test]
    fn ceiling_means() {
        let e = SizeDist::Exponential { mean: 4.0 };
        let mut r = rng_stream(3, 0);
        let n = 300_000;
        let m = (0..n).map(|_| e.sample_units(&mut r)).sum::<u64>() as f64 / n as f64;
        assert!((m - e.mean_ceil()).abs() < 0.05, "{m} vs {}", e.mean_ceil());
        let bp = SizeDist::BoundedPareto {
            k: 13.0,
            p: 5000.0,
            alpha: 1.1,
        };
        let m = (0..n).map(|_| bp.sample_units(&mut r)).sum::<u64>() as f64 / n as f64;
        assert!(
            (m - bp.mean_ceil()).abs() / bp.mean_ceil() < 0.03,
            "{m} vs {}",
            bp.mean_ceil()
        );
        assert_eq!(SizeDist::Constant { value: 4.0 }.mean_ceil(), 4.0);
    }

    #[test]
    fn validation() {
        assert!(SizeDist::Exponential { mean: -1.0 }.validate().is_err());
        assert!(SizeDist::BoundedPareto {
            k: 5.0,
            p: 5.0,
            alpha: 1.0
        }
        .validate()
        .is_err());
        assert!(SizeDist::Mixture { components: vec![] }.validate().is_err());
        assert!(SizeDist::Pareto {
            alpha: 3.0,
            c: f64::NAN
        }
        .validate()
        .is_err());
    }
}
