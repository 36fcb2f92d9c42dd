//! Run reports: what a scenario produced, and a fingerprint to compare runs byte for byte.

use crate::driver::FlowRecord;
use crate::link::LinkStats;
use crate::packet::LinkId;
use crate::time::{as_secs, Time};
use crate::world::{ConnRecord, Injection, World};
use serde::Serialize;
use std::hash::{Hash, Hasher};

/// Everything a run measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Seed of the run.
    pub seed: u64,
    /// Simulated time at the end.
    pub end: Time,
    /// Every flow that arrived, in arrival order.
    pub flows: Vec<FlowRecord>,
    /// Every connection that closed, in closing order.
    pub conns: Vec<ConnRecord>,
    /// Forward bottleneck counters.
    pub bottleneck: LinkStats,
    /// Reverse bottleneck counters (ACKs).
    pub reverse_bottleneck: LinkStats,
    /// `(time, open connections)` samples.
    pub active_samples: Vec<(Time, u32)>,
    /// Time-average number of open connections.
    pub mean_active: f64,
    /// Largest number of open connections.
    pub max_active: u32,
    /// Data segments injected, if recorded.
    pub injections: Option<Vec<Injection>>,
    /// Events processed.
    pub events: u64,
}

impl Report {
    /// Gathers a report from a finished run: `flows` from the driver, counters of links
    /// `fwd` / `rev` (the bottleneck pair), connection records, samples and the injection log
    /// from the world (the log is moved out).
    pub fn collect(
        seed: u64,
        w: &mut World,
        flows: Vec<FlowRecord>,
        fwd: LinkId,
        rev: LinkId,
    ) -> Report {
        let end = w.now();
        w.settle_active_area();
        Report {
            seed,
            end,
            flows,
            conns: w.conn_records().to_vec(),
            bottleneck: w.net.link(fwd).stats.clone(),
            reverse_bottleneck: w.net.link(rev).stats.clone(),
            active_samples: w.stats.active_samples.clone(),
            mean_active: if end == 0 {
                0.0
            } else {
                w.stats.active_area as f64 / end as f64
            },
            max_active: w.stats.max_active,
            injections: w.take_injections(),
            events: w.stats.events,
        }
    }

    /// Flows completed.
    pub fn completed(&self) -> usize {
        self.flows.iter().filter(|f| f.finished.is_some()).count()
    }

    /// Mean completion time of completed flows, in seconds.
    pub fn mean_completion_s(&self) -> f64 {
        let (n, s) = self
            .flows
            .iter()
            .filter_map(|f| f.completion())
            .fold((0u64, 0u128), |(n, s), c| (n + 1, s + c as u128));
        if n == 0 {
            0.0
        } else {
            as_secs((s / n as u128) as Time)
        }
    }

    /// A 64-bit FNV-1a digest of every integer the run recorded (flows, connections, link
    /// counters, samples, injections). Equal reports have equal fingerprints on every
    /// platform and Rust version.
    pub fn fingerprint(&self) -> u64 {
        let mut h = Fnv64::default();
        self.seed.hash(&mut h);
        self.end.hash(&mut h);
        self.flows.hash(&mut h);
        self.conns.hash(&mut h);
        self.bottleneck.hash(&mut h);
        self.reverse_bottleneck.hash(&mut h);
        self.active_samples.hash(&mut h);
        self.max_active.hash(&mut h);
        self.injections.hash(&mut h);
        self.events.hash(&mut h);
        h.finish()
    }

    /// A few human-readable lines.
    pub fn summary(&self) -> String {
        format!(
            "flows arrived {} completed {} mean completion {:.4} s\n\
             bottleneck: {} packets forwarded ({} data), {} drops ({} data), max queue {}\n\
             connections: mean active {:.2}, max {}\n\
             events {}",
            self.flows.len(),
            self.completed(),
            self.mean_completion_s(),
            self.bottleneck.tx_packets,
            self.bottleneck.tx_data_packets,
            self.bottleneck.drops,
            self.bottleneck.data_drops,
            self.bottleneck.max_queue_packets,
            self.mean_active,
            self.max_active,
            self.events,
        )
    }
}

/// FNV-1a, 64-bit: a stable hash (std's `DefaultHasher` is not guaranteed stable).
#[derive(Debug, Clone, Copy)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv64 {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Cumulative payload bytes injected per connection over time, from an injection log:
/// `conn → [(time, bytes injected up to and including time)]`, one point per segment.
/// Two runs inject identically (Proposition 1 of paper 000) iff these maps are equal.
pub fn injected_series(log: &[Injection]) -> std::collections::BTreeMap<u32, Vec<(Time, u64)>> {
    let mut out: std::collections::BTreeMap<u32, Vec<(Time, u64)>> = Default::default();
    for i in log {
        let s = out.entry(i.conn).or_default();
        let total = s.last().map_or(0, |&(_, b)| b) + i.len as u64;
        s.push((i.time, total));
    }
    out
}
