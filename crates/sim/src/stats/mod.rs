//! Run reports: what a scenario produced, and a fingerprint to compare runs byte for byte.

use crate::driver::{FlowRecord, GtcpStats};
use crate::link::LinkStats;
use crate::packet::LinkId;
use crate::time::{as_secs, Time};
use crate::world::{ConnRecord, Injection, World};
use serde::{Deserialize, Serialize};
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
    /// Counters of the gtcp drivers (`None` under `tcp`).
    pub gtcp: Option<GtcpStats>,
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
            gtcp: None,
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
        self.gtcp.hash(&mut h);
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

/// How far one run's injections are from a reference run's (paper 000, Proposition 1):
/// `V(t)` is the cumulative payload injected up to `t`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct InjectionDistance {
    /// Every connection injected the same bytes at the same times in both runs
    /// ([`injected_series`] equal).
    pub identical: bool,
    /// Payload bytes injected by the reference run.
    pub reference_bytes: u64,
    /// Payload bytes injected by the other run.
    pub other_bytes: u64,
    /// `max_t |V_other(t) − V_ref(t)|` over all connections together (bytes).
    pub max_abs_diff_bytes: u64,
    /// [`Self::max_abs_diff_bytes`] over the reference's total.
    pub max_rel_diff: f64,
    /// Connections compared (those of either run).
    pub conns: usize,
    /// Mean over connections of `max_t |V_i,other(t) − V_i,ref(t)| / V_i,ref(end)`.
    pub conn_rel_diff_mean: f64,
    /// Largest of those per-connection values.
    pub conn_rel_diff_max: f64,
}

/// `max_t |A(t) − B(t)|` of two cumulative step functions given as `(time, cumulative)`
/// points sorted by time (several points may share a time; the last one counts).
fn max_step_diff(a: &[(Time, u64)], b: &[(Time, u64)]) -> u64 {
    let (mut i, mut j) = (0, 0);
    let (mut va, mut vb) = (0u64, 0u64);
    let mut worst = 0;
    while i < a.len() || j < b.len() {
        let t = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => break,
        };
        while i < a.len() && a[i].0 == t {
            va = a[i].1;
            i += 1;
        }
        while j < b.len() && b[j].0 == t {
            vb = b[j].1;
            j += 1;
        }
        worst = worst.max(va.abs_diff(vb));
    }
    worst
}

/// Compares two injection logs (each in time order, as the world records them), connection
/// by connection (by serial) and in aggregate.
pub fn injection_distance(reference: &[Injection], other: &[Injection]) -> InjectionDistance {
    let total = |log: &[Injection]| {
        let mut s = 0u64;
        log.iter()
            .map(|i| {
                s += i.len as u64;
                (i.time, s)
            })
            .collect::<Vec<_>>()
    };
    let (ra, ob) = (total(reference), total(other));
    let reference_bytes = ra.last().map_or(0, |p| p.1);
    let other_bytes = ob.last().map_or(0, |p| p.1);
    let max_abs = max_step_diff(&ra, &ob);
    let sa = injected_series(reference);
    let sb = injected_series(other);
    let identical = sa == sb;
    let mut conns: Vec<u32> = sa.keys().chain(sb.keys()).copied().collect();
    conns.sort_unstable();
    conns.dedup();
    let empty = Vec::new();
    let (mut sum, mut max) = (0.0f64, 0.0f64);
    for c in &conns {
        let a = sa.get(c).unwrap_or(&empty);
        let b = sb.get(c).unwrap_or(&empty);
        let denom = a.last().or(b.last()).map_or(1, |p| p.1.max(1)) as f64;
        let r = max_step_diff(a, b) as f64 / denom;
        sum += r;
        max = max.max(r);
    }
    InjectionDistance {
        identical,
        reference_bytes,
        other_bytes,
        max_abs_diff_bytes: max_abs,
        max_rel_diff: max_abs as f64 / reference_bytes.max(1) as f64,
        conns: conns.len(),
        conn_rel_diff_mean: if conns.is_empty() {
            0.0
        } else {
            sum / conns.len() as f64
        },
        conn_rel_diff_max: max,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inj(time: Time, conn: u32, len: u32) -> Injection {
        Injection {
            time,
            conn,
            seq: 0,
            len,
            retx: false,
        }
    }

    #[test]
    fn distance_of_equal_and_shifted_logs() {
        let a = vec![inj(1, 0, 100), inj(2, 1, 100), inj(3, 0, 50)];
        let d = injection_distance(&a, &a);
        assert!(d.identical);
        assert_eq!((d.max_abs_diff_bytes, d.conns), (0, 2));
        // The same bytes, one segment later on connection 1.
        let b = vec![inj(1, 0, 100), inj(3, 0, 50), inj(4, 1, 100)];
        let d = injection_distance(&a, &b);
        assert!(!d.identical);
        assert_eq!(d.max_abs_diff_bytes, 100);
        assert_eq!(d.reference_bytes, d.other_bytes);
        assert!((d.conn_rel_diff_max - 1.0).abs() < 1e-12);
        assert!((d.conn_rel_diff_mean - 0.5).abs() < 1e-12);
    }
}
