//! Workloads: when flows arrive, how big they are, and from which source.
//!
//! A workload is a [`FlowSource`]: a stream of [`FlowSpec`]s in non-decreasing arrival
//! order, generated lazily (Poisson arrivals with sizes from a [`SizeDist`]) or read from a
//! CSV trace. The random stream used by a workload depends only on the run seed, so every
//! driver sees exactly the same flows.

mod dist;
mod trace;

pub use dist::{Component, SizeDist};
pub use trace::{load_trace, parse_trace, TraceError};

use crate::engine::rng_stream;
use crate::time::{secs, Time};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Random stream number reserved for workloads.
pub const WORKLOAD_STREAM: u64 = 1;

/// One application flow to carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FlowSpec {
    /// Arrival time.
    pub arrival: Time,
    /// Size in bytes (≥ 1).
    pub size: u64,
    /// Source index (which sender/receiver pair carries it).
    pub source: u32,
}

/// A stream of flows in non-decreasing arrival order.
pub trait FlowSource {
    /// The next flow, or `None` when the workload is exhausted.
    fn next_flow(&mut self) -> Option<FlowSpec>;
}

/// A finite list of flows (e.g. a trace).
#[derive(Debug, Clone)]
pub struct FlowList {
    flows: std::vec::IntoIter<FlowSpec>,
}

impl FlowList {
    /// Flows in the given order (must be sorted by arrival).
    pub fn new(flows: Vec<FlowSpec>) -> Self {
        FlowList {
            flows: flows.into_iter(),
        }
    }
}

impl FlowSource for FlowList {
    fn next_flow(&mut self) -> Option<FlowSpec> {
        self.flows.next()
    }
}

/// Unit of the values a [`SizeDist`] produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeUnit {
    /// Whole packets of MSS payload bytes (a draw is rounded up to whole packets).
    Packets,
    /// Bytes (rounded up to whole bytes).
    Bytes,
}

/// How a Poisson workload assigns flows to sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SourcePick {
    /// Uniformly at random.
    #[default]
    Random,
    /// 0, 1, 2, ..., n−1, 0, ...
    RoundRobin,
}

/// Poisson arrivals of flows with i.i.d. sizes.
#[derive(Debug, Clone)]
pub struct Poisson {
    rng: ChaCha8Rng,
    /// Arrivals per second.
    rate: f64,
    size: SizeDist,
    unit_bytes: u64,
    sources: u32,
    pick: SourcePick,
    next_rr: u32,
    t: Time,
    stop: Time,
    left: u64,
}

impl Poisson {
    /// Flows arriving at `rate` per second, sizes `size` × `unit_bytes` bytes, spread over
    /// `sources` sources, from time 0 until `stop` (exclusive) or `max_flows` flows.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        seed: u64,
        rate: f64,
        size: SizeDist,
        unit_bytes: u64,
        sources: u32,
        pick: SourcePick,
        stop: Time,
        max_flows: Option<u64>,
    ) -> Self {
        Poisson {
            rng: rng_stream(seed, WORKLOAD_STREAM),
            rate,
            size,
            unit_bytes,
            sources: sources.max(1),
            pick,
            next_rr: 0,
            t: 0,
            stop,
            left: max_flows.unwrap_or(u64::MAX),
        }
    }
}

impl FlowSource for Poisson {
    fn next_flow(&mut self) -> Option<FlowSpec> {
        if self.left == 0 || self.rate.is_nan() || self.rate <= 0.0 {
            return None;
        }
        let u = 1.0 - self.rng.random::<f64>();
        self.t = self.t.saturating_add(secs(-u.ln() / self.rate));
        if self.t >= self.stop {
            self.left = 0;
            return None;
        }
        self.left -= 1;
        let size = self
            .size
            .sample_units(&mut self.rng)
            .saturating_mul(self.unit_bytes);
        let source = match self.pick {
            SourcePick::Random => self.rng.random_range(0..self.sources),
            SourcePick::RoundRobin => {
                let s = self.next_rr;
                self.next_rr = (self.next_rr + 1) % self.sources;
                s
            }
        };
        Some(FlowSpec {
            arrival: self.t,
            size,
            source,
        })
    }
}

/// Serializable workload description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadConfig {
    /// Poisson arrivals. Give either `rate_per_s` or `load`; `load` is the offered payload
    /// rate over the bottleneck rate: `λ · E[size bytes] · 8 / C`.
    Poisson {
        /// Arrivals per second.
        #[serde(default)]
        rate_per_s: Option<f64>,
        /// Offered load (fraction of the bottleneck rate).
        #[serde(default)]
        load: Option<f64>,
        /// Size distribution.
        size: SizeDist,
        /// Unit of `size`.
        unit: SizeUnit,
        /// Source assignment.
        #[serde(default)]
        sources: SourcePick,
        /// Stop after this many flows.
        #[serde(default)]
        max_flows: Option<u64>,
    },
    /// Flows read from a CSV trace (`arrival_seconds,size_bytes[,source]`).
    Trace {
        /// Path of the CSV file.
        path: String,
    },
    /// Flows listed in the scenario itself (e.g. paper 000's Figure 6: a few flows at
    /// predefined times). Sorted by arrival when the run starts.
    List {
        /// The flows.
        flows: Vec<ListedFlow>,
    },
}

/// One flow of a [`WorkloadConfig::List`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedFlow {
    /// Arrival time in seconds.
    pub arrival_s: f64,
    /// Size in bytes (≥ 1).
    pub size_bytes: u64,
    /// Source index.
    #[serde(default)]
    pub source: u32,
}

impl WorkloadConfig {
    /// Arrival rate (flows/s) of a Poisson workload on a bottleneck of `capacity_bps` with
    /// `mss` payload bytes per packet.
    pub fn poisson_rate(&self, capacity_bps: u64, mss: u32) -> Result<f64, String> {
        let WorkloadConfig::Poisson {
            rate_per_s,
            load,
            size,
            unit,
            ..
        } = self
        else {
            return Err("not a Poisson workload".into());
        };
        size.validate()?;
        match (rate_per_s, load) {
            (Some(r), None) if r.is_finite() && *r > 0.0 => Ok(*r),
            (None, Some(l)) if l.is_finite() && *l > 0.0 => {
                let unit_bytes = match unit {
                    SizeUnit::Packets => mss as f64,
                    SizeUnit::Bytes => 1.0,
                };
                let mean_bytes = size.mean_ceil() * unit_bytes;
                if !mean_bytes.is_finite() {
                    return Err("load needs a size distribution with a finite mean".into());
                }
                Ok(l * capacity_bps as f64 / 8.0 / mean_bytes)
            }
            (Some(_), Some(_)) => {
                Err("give either workload.rate_per_s or workload.load, not both".into())
            }
            (None, None) => Err("a Poisson workload needs rate_per_s or load".into()),
            _ => Err("workload rate/load must be a finite positive number".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poisson(seed: u64, pick: SourcePick) -> Poisson {
        Poisson::new(
            seed,
            100.0,
            SizeDist::Exponential { mean: 4.0 },
            1000,
            4,
            pick,
            secs(1000.0),
            None,
        )
    }

    #[test]
    fn poisson_rate_and_order() {
        let mut p = poisson(5, SourcePick::Random);
        let flows: Vec<_> = std::iter::from_fn(|| p.next_flow()).collect();
        // 100/s over 1000 s: 100 000 ± a few hundred.
        assert!(
            (flows.len() as f64 - 100_000.0).abs() < 1_500.0,
            "{}",
            flows.len()
        );
        assert!(flows.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert!(flows
            .iter()
            .all(|f| f.size % 1000 == 0 && f.size >= 1000 && f.source < 4));
        let mean = flows.iter().map(|f| f.size as f64).sum::<f64>() / flows.len() as f64;
        let expect = SizeDist::Exponential { mean: 4.0 }.mean_ceil() * 1000.0;
        assert!((mean - expect).abs() / expect < 0.02, "{mean} vs {expect}");
        for s in 0..4 {
            let share = flows.iter().filter(|f| f.source == s).count() as f64 / flows.len() as f64;
            assert!((share - 0.25).abs() < 0.01);
        }
    }

    #[test]
    fn poisson_is_seeded() {
        let a: Vec<_> = {
            let mut p = poisson(9, SourcePick::RoundRobin);
            std::iter::from_fn(|| p.next_flow()).take(50).collect()
        };
        let b: Vec<_> = {
            let mut p = poisson(9, SourcePick::RoundRobin);
            std::iter::from_fn(|| p.next_flow()).take(50).collect()
        };
        let c: Vec<_> = {
            let mut p = poisson(10, SourcePick::RoundRobin);
            std::iter::from_fn(|| p.next_flow()).take(50).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a[5].source, 1);
    }

    #[test]
    fn load_to_rate() {
        let w = WorkloadConfig::Poisson {
            rate_per_s: None,
            load: Some(0.8),
            size: SizeDist::Constant { value: 10.0 },
            unit: SizeUnit::Packets,
            sources: SourcePick::Random,
            max_flows: None,
        };
        // 0.8 * 10 Mbit/s / 8 / (10 * 1000 B) = 100 flows/s.
        let r = w.poisson_rate(10_000_000, 1000).unwrap();
        assert!((r - 100.0).abs() < 1e-9);
    }
}
