//! Workloads: when flows arrive, how big they are, and from which source.
//!
//! A workload is a [`FlowSource`]: a stream of [`FlowSpec`]s in non-decreasing arrival
//! order, generated lazily (Poisson arrivals with sizes from a [`SizeDist`]) or read from a
//! CSV trace; persistent flows ([`persistent_flows`], paper 003's D2) join a Poisson stream
//! through [`Merged`]. The random stream used by a workload depends only on the run seed, so every
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

/// Size in bytes of a persistent flow: 2^50 B (1 PiB), more than any run can carry (at
/// 10 Gbit/s it takes 10 days), so the flow stays backlogged and open to the end of the run.
/// [`WorkloadConfig::Persistent`] checks the run's bottleneck cannot carry it. Flow records
/// of persistent flows carry this size: [`is_persistent`] tells them apart.
pub const PERSISTENT_FLOW_BYTES: u64 = 1 << 50;

/// Whether a flow of `size_bytes` is a persistent flow of a [`WorkloadConfig::Persistent`]
/// workload.
pub fn is_persistent(size_bytes: u64) -> bool {
    size_bytes == PERSISTENT_FLOW_BYTES
}

/// `n` persistent flows, all arriving at `start`, spread over `sources` sources round-robin
/// (flow `i` on source `i mod sources`).
pub fn persistent_flows(n: u32, start: Time, sources: u32) -> FlowList {
    let sources = sources.max(1);
    FlowList::new(
        (0..n)
            .map(|i| FlowSpec {
                arrival: start,
                size: PERSISTENT_FLOW_BYTES,
                source: i % sources,
            })
            .collect(),
    )
}

/// Two flow sources merged in arrival order; at equal times `a`'s flows come first.
#[derive(Debug, Clone)]
pub struct Merged<A, B> {
    a: A,
    b: B,
    next_a: Option<FlowSpec>,
    next_b: Option<FlowSpec>,
    primed: bool,
}

impl<A: FlowSource, B: FlowSource> Merged<A, B> {
    /// The flows of `a` and `b` (each in non-decreasing arrival order) in one stream.
    pub fn new(a: A, b: B) -> Self {
        Merged {
            a,
            b,
            next_a: None,
            next_b: None,
            primed: false,
        }
    }
}

impl<A: FlowSource, B: FlowSource> FlowSource for Merged<A, B> {
    fn next_flow(&mut self) -> Option<FlowSpec> {
        if !self.primed {
            self.primed = true;
            self.next_a = self.a.next_flow();
            self.next_b = self.b.next_flow();
        }
        let take_a = match (&self.next_a, &self.next_b) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(x), Some(y)) => x.arrival <= y.arrival,
        };
        if take_a {
            let f = self.next_a.take();
            self.next_a = self.a.next_flow();
            f
        } else {
            let f = self.next_b.take();
            self.next_b = self.b.next_flow();
            f
        }
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
    /// Persistent flows and, beside them, short flows (paper 003's D2: 50 persistent flows
    /// and a 20% load of exponential flows of mean 6 packets):
    ///
    /// ```toml
    /// [workload]
    /// kind = "persistent"
    /// flows = 50
    /// [workload.short]
    /// kind = "poisson"
    /// load = 0.2
    /// unit = "packets"
    /// size = { kind = "exponential", mean = 6.0 }
    /// ```
    ///
    /// The `flows` persistent flows all arrive at `start_s`, spread round-robin over the
    /// sources, each with [`PERSISTENT_FLOW_BYTES`] to send: backlogged and open until the
    /// end of the run. `short` is a Poisson workload (its `load` is the short flows' own
    /// share of the bottleneck); without it only the persistent flows run.
    Persistent {
        /// Number of persistent flows (at least 1).
        flows: u32,
        /// When they arrive (seconds, before `duration_s`).
        #[serde(default)]
        start_s: f64,
        /// The short flows: a `kind = "poisson"` workload.
        #[serde(default)]
        short: Option<Box<WorkloadConfig>>,
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

impl WorkloadConfig {
    /// Checks a [`WorkloadConfig::Persistent`] workload for a run whose flows arrive in
    /// `[0, duration_s)` and which ends `drain_s` later, on a bottleneck of `capacity_bps`
    /// with `mss`-byte segments. `Ok` for any other kind (they are checked elsewhere).
    pub fn check_persistent(
        &self,
        duration_s: f64,
        drain_s: f64,
        capacity_bps: u64,
        mss: u32,
    ) -> Result<(), String> {
        let WorkloadConfig::Persistent {
            flows,
            start_s,
            short,
        } = self
        else {
            return Ok(());
        };
        if *flows == 0 {
            return Err("workload.flows (persistent flows) must be at least 1".into());
        }
        if !start_s.is_finite() || *start_s < 0.0 || *start_s >= duration_s {
            return Err(format!(
                "workload.start_s = {start_s} must be in [0, duration_s = {duration_s})"
            ));
        }
        // The whole run at the bottleneck rate must not carry one persistent flow.
        let run_bytes = (duration_s + drain_s) * capacity_bps as f64 / 8.0;
        if run_bytes >= PERSISTENT_FLOW_BYTES as f64 {
            return Err(format!(
                "a run of {} s on {capacity_bps} bit/s could carry a persistent flow's \
                 {PERSISTENT_FLOW_BYTES} bytes: shorten the run",
                duration_s + drain_s
            ));
        }
        if let Some(w) = short {
            if !matches!(**w, WorkloadConfig::Poisson { .. }) {
                return Err("workload.short must be a kind = \"poisson\" workload".into());
            }
            w.poisson_rate(capacity_bps, mss)
                .map_err(|e| format!("workload.short: {e}"))?;
        }
        Ok(())
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

    /// Paper 003's D2 on S1: 50 persistent flows, short flows at 20% load, exponential
    /// mean 6 packets of 1460 bytes.
    fn d2_scenario(duration_s: f64) -> crate::scenario::Scenario {
        let mut sc = crate::scenario::Scenario::speed_benchmark(duration_s);
        sc.seed = 7;
        sc.workload = WorkloadConfig::Persistent {
            flows: 50,
            start_s: 0.0,
            short: Some(Box::new(WorkloadConfig::Poisson {
                rate_per_s: None,
                load: Some(0.2),
                size: SizeDist::Exponential { mean: 6.0 },
                unit: SizeUnit::Packets,
                sources: SourcePick::Random,
                max_flows: None,
            })),
        };
        sc
    }

    #[test]
    fn persistent_flows_come_first_then_short_flows_at_their_load() {
        let sc = d2_scenario(2000.0);
        sc.validate().unwrap();
        let mut src = sc.flow_source().unwrap();
        let flows: Vec<_> = std::iter::from_fn(|| src.next_flow()).collect();
        assert!(flows.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        // The 50 persistent flows arrive at 0, round-robin over the 10 pairs.
        let (long, short) = flows.split_at(50);
        for (i, f) in long.iter().enumerate() {
            assert_eq!((f.arrival, f.source), (0, i as u32 % 10));
            assert!(is_persistent(f.size));
        }
        assert!(short
            .iter()
            .all(|f| !is_persistent(f.size) && f.arrival > 0));
        // Short flows: λ = 0.2 · 10 Mbit/s / 8 / (E⌈S⌉ · 1460 B) ≈ 27.5 flows/s.
        let mean_pkts = SizeDist::Exponential { mean: 6.0 }.mean_ceil();
        let rate = 0.2 * 10e6 / 8.0 / (mean_pkts * 1460.0);
        let n = short.len() as f64;
        assert!(
            (n / 2000.0 / rate - 1.0).abs() < 0.02,
            "{n} flows, λ {rate}"
        );
        // Their offered load, bits over the run over the capacity: 0.2 within 4%.
        let load = short.iter().map(|f| f.size as f64 * 8.0).sum::<f64>() / 2000.0 / 10e6;
        assert!((load / 0.2 - 1.0).abs() < 0.04, "load {load}");
        // The short stream is the Poisson generator's own: same seed, same flows.
        let WorkloadConfig::Persistent { short: Some(w), .. } = &sc.workload else {
            unreachable!()
        };
        let mut alone = sc.clone();
        alone.workload = (**w).clone();
        let mut p = alone.flow_source().unwrap();
        let plain: Vec<_> = std::iter::from_fn(|| p.next_flow()).collect();
        assert_eq!(plain, short);
    }

    #[test]
    fn persistent_flows_stay_open_and_carry_the_bottleneck() {
        let mut sc = d2_scenario(20.0);
        sc.drain_s = 5.0;
        sc.record.active_sample_period_s = Some(1.0);
        let end = secs(25.0);
        let mut delivered = Vec::new();
        let r = sc
            .run_observed(None, |_, d| {
                delivered = (0..50).map(|i| d.delivered_bytes(i)).collect();
            })
            .unwrap();
        let (long, short) = r.flows.split_at(50);
        // Open from the start, never finished, each delivering data.
        assert!(long
            .iter()
            .all(|f| f.arrival == 0 && f.finished.is_none() && is_persistent(f.size)));
        // (Under DropTail, 50 slow starts at once lose first segments: a few flows are still
        // backing off after 25 s, so only the sum is asserted beyond "something arrived".)
        assert!(delivered.iter().all(|&b| b > 0), "{delivered:?}");
        let long_bits = delivered.iter().sum::<u64>() as f64 * 8.0;
        assert!(long_bits / 25.0 / 10e6 > 0.6, "{delivered:?}");
        // Together they keep the 10 Mbit/s bottleneck busy: with the short flows' 20%, more
        // than 90% of it carries payload over the run.
        let total: u64 = delivered.iter().sum::<u64>()
            + short
                .iter()
                .filter(|f| f.finished.is_some())
                .map(|f| f.size)
                .sum::<u64>();
        let util = total as f64 * 8.0 / as_secs_f(end) / 10e6;
        assert!(util > 0.9, "payload utilisation {util}");
        // Every open-connection sample counts the 50 persistent flows; short flows finish.
        assert!(r.active_samples.iter().all(|&(_, n)| n >= 50));
        let done = short.iter().filter(|f| f.finished.is_some()).count();
        assert!(
            done as f64 > 0.9 * short.len() as f64,
            "{done}/{}",
            short.len()
        );
    }

    fn as_secs_f(t: Time) -> f64 {
        crate::time::as_secs(t)
    }

    #[test]
    fn persistent_workload_from_toml_and_bad_inputs() {
        let base = |workload: &str| {
            format!("seed = 1\nduration_s = 100.0\n[topology]\npairs = 10\n{workload}")
        };
        let ok = base(
            "[workload]\nkind = \"persistent\"\nflows = 50\n[workload.short]\n\
             kind = \"poisson\"\nload = 0.2\nunit = \"packets\"\n\
             size = { kind = \"exponential\", mean = 6.0 }\n",
        );
        let sc = crate::scenario::Scenario::from_toml(&ok).unwrap();
        assert!(matches!(
            sc.workload,
            WorkloadConfig::Persistent {
                flows: 50,
                short: Some(_),
                ..
            }
        ));
        let err = |workload: &str| {
            crate::scenario::Scenario::from_toml(&base(workload))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(err("[workload]\nkind = \"persistent\"\nflows = 0\n").contains("at least 1"));
        assert!(
            err("[workload]\nkind = \"persistent\"\nflows = 3\nstart_s = -1.0\n")
                .contains("start_s")
        );
        assert!(
            err("[workload]\nkind = \"persistent\"\nflows = 3\nstart_s = 100.0\n")
                .contains("start_s")
        );
        assert!(err(
            "[workload]\nkind = \"persistent\"\nflows = 3\n[workload.short]\n\
             kind = \"trace\"\npath = \"x.csv\"\n"
        )
        .contains("must be a kind = \"poisson\""));
        assert!(err(
            "[workload]\nkind = \"persistent\"\nflows = 3\n[workload.short]\n\
             kind = \"poisson\"\nload = -0.2\nunit = \"packets\"\n\
             size = { kind = \"exponential\", mean = 6.0 }\n"
        )
        .contains("workload.short"));
        assert!(err("[workload]\nkind = \"persistent\"\n").contains("flows"));
        // A run long enough to carry a persistent flow is refused, not silently wrong.
        let mut sc = d2_scenario(1e9);
        sc.topology.bottleneck_rate_bps = 100_000_000_000;
        let e = sc.validate().unwrap_err().to_string();
        assert!(e.contains("persistent flow"), "{e}");
        // Only persistent flows, no short ones.
        let mut sc = d2_scenario(10.0);
        sc.workload = WorkloadConfig::Persistent {
            flows: 4,
            start_s: 2.0,
            short: None,
        };
        let mut src = sc.flow_source().unwrap();
        let flows: Vec<_> = std::iter::from_fn(|| src.next_flow()).collect();
        assert_eq!(flows.len(), 4);
        assert!(flows.iter().all(|f| f.arrival == secs(2.0)));
    }

    #[test]
    fn merged_keeps_arrival_order_and_prefers_the_first_source_on_ties() {
        let f = |t: f64, s: u32| FlowSpec {
            arrival: secs(t),
            size: 1,
            source: s,
        };
        let a = FlowList::new(vec![f(0.0, 0), f(2.0, 0), f(2.0, 0)]);
        let b = FlowList::new(vec![f(1.0, 1), f(2.0, 1), f(5.0, 1)]);
        let mut m = Merged::new(a, b);
        let got: Vec<_> = std::iter::from_fn(|| m.next_flow())
            .map(|x| (crate::time::as_secs(x.arrival), x.source))
            .collect();
        assert_eq!(
            got,
            [(0.0, 0), (1.0, 1), (2.0, 0), (2.0, 0), (2.0, 1), (5.0, 1)]
        );
    }
}
